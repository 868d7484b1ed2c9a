"""spec.exponential: exponential mechanism (textbook and oscillation), its utility, report-noisy-max.

Oracles: exact output distributions (softmax typed here at 60 digits), exact arithmetic (fractions)
for total variation, and mpmath quadrature for report-noisy-max with Laplace noise. Random
instances come from seeded generators (deterministic).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

import spec
from spec import exponential as em
from spec.errors import ParameterError, PrivacyParameterError
from spec.record import Neighbouring

ROOT = Path(__file__).resolve().parents[2]


def softmax_oracle(scores, c, dps=60):
    with mpmath.workdps(dps):
        w = [mpmath.exp(mpmath.mpf(c) * mpmath.mpf(s)) for s in scores]
        z = sum(w)
        return [x / z for x in w]


def max_log_ratio(p, q):
    with mpmath.workdps(60):
        return max(abs(mpmath.log(a) - mpmath.log(b)) for a, b in zip(p, q))


# --------------------------------------------------------------------------- exponential mechanism
def test_output_distribution_matches_softmax_and_is_stable():
    rng = random.Random(1)
    for _ in range(20):
        scores = [rng.uniform(-5, 5) for _ in range(rng.randint(1, 9))]
        c = rng.uniform(0, 4)
        got = em.output_distribution(scores, coefficient=c)
        want = softmax_oracle(scores, c)
        assert all(abs(a - b) <= mpmath.mpf(10) ** -45 for a, b in zip(got, want))
    # huge scores do not overflow; coefficient 0 is uniform
    p = em.output_distribution([1e300, 1e300 - 1e285, -1e300], coefficient=1.0)
    assert p[0] == 1 and p[2] < mpmath.mpf(10) ** -1000
    assert em.output_distribution([3.0, -1.0, 7.0, 0.0], coefficient=0.0) == (mpmath.mpf(1) / 4,) * 4


def test_oscillation_bound_on_random_score_pairs():
    """max_r |ln p_D(r)/p_D'(r)| <= c osc(h) on random finite pairs, and the bound is attained in the limit."""
    rng = random.Random(20240601)
    worst = 0.0
    for trial in range(300):
        size = rng.randint(2, 8)
        c = rng.uniform(0.05, 3.0)
        u = [rng.uniform(-4, 4) for _ in range(size)]
        spread = rng.choice([0.01, 0.5, 2.0])
        h = [rng.uniform(-spread, spread) for _ in range(size)]
        if trial % 3 == 0:  # monotone pairs: h of one sign
            h = [abs(x) for x in h]
        u2 = [a - b for a, b in zip(u, h)]  # u(D') = u(D) - h, up to float rounding
        with mpmath.workdps(60):
            h = [mpmath.mpf(a) - mpmath.mpf(b) for a, b in zip(u, u2)]  # the exact h of the pair
        p = em.output_distribution(u, coefficient=c)
        q = em.output_distribution(u2, coefficient=c)
        osc = max(h) - min(h)
        loss = max_log_ratio(p, q)
        assert loss <= c * osc + 1e-40
        worst = max(worst, float(loss / (c * osc)))
        # the identity behind the bound: p_D(r)/p_D'(r) = E_{r' ~ p_D} exp(c (h(r) - h(r')))
        with mpmath.workdps(60):
            for r in range(size):
                rhs = mpmath.fsum(p[s] * mpmath.exp(c * (mpmath.mpf(h[r]) - h[s])) for s in range(size))
                assert abs(p[r] / q[r] - rhs) <= mpmath.mpf(10) ** -40 * rhs
        # textbook: with Delta_u = max |h|, osc <= 2 Delta_u and c = eps/(2 Delta_u) is eps-DP
        sens = float(max(abs(x) for x in h))
        sens = math.nextafter(sens, math.inf) if sens < max(abs(x) for x in h) else sens
        assert osc <= 2 * sens
        eps = rng.uniform(0.01, 3)
        ct = em.exponent_textbook(epsilon=eps, sensitivity=sens)
        pt, qt = em.output_distribution(u, coefficient=ct), em.output_distribution(u2, coefficient=ct)
        assert max_log_ratio(pt, qt) <= eps
        if min(h) >= 0:  # monotone: osc <= Delta_u, so c = eps/Delta_u is eps-DP
            cm = em.exponent_oscillation(epsilon=eps, oscillation=sens)
            pm, qm = em.output_distribution(u, coefficient=cm), em.output_distribution(u2, coefficient=cm)
            assert max_log_ratio(pm, qm) <= eps
    assert worst < 1  # random pairs are not extremal

    # Attained in the limit: D puts its mass on the minimiser of h, and r maximises h.
    for osc, c in ((1.0, 1.0), (0.3, 2.5), (2.0, 0.7)):
        big = 80.0 / c
        p = em.output_distribution([0.0, big], coefficient=c)
        q = em.output_distribution([-osc, big], coefficient=c)  # h = (osc, 0)
        with mpmath.workdps(60):
            bound = mpmath.mpf(c) * mpmath.mpf(osc)
            assert bound - mpmath.mpf(10) ** -30 < max_log_ratio(p, q) <= bound


def test_coefficients_round_down():
    with mpmath.workdps(60):
        for eps, d in ((1.0, 3.0), (0.1, 0.7), (2.0 / 3.0, 1e-3)):
            ct = em.exponent_textbook(epsilon=eps, sensitivity=d)
            assert mpmath.mpf(ct) <= mpmath.mpf(eps) / (2 * mpmath.mpf(d)) < mpmath.mpf(math.nextafter(ct, 1e9))
            co = em.exponent_oscillation(epsilon=eps, oscillation=d)
            assert mpmath.mpf(co) <= mpmath.mpf(eps) / mpmath.mpf(d) < mpmath.mpf(math.nextafter(co, 1e9))


def test_utility_bound_against_exact_distribution():
    rng = random.Random(7)
    for _ in range(150):
        size = rng.randint(2, 60)
        eps = rng.uniform(0.05, 5)
        sens = rng.uniform(0.1, 3)
        t = rng.uniform(0, 6)
        scores = [rng.uniform(-20, 20) for _ in range(size)]
        c = em.exponent_textbook(epsilon=eps, sensitivity=sens)
        gap = em.utility_gap(epsilon=eps, sensitivity=sens, candidates=size, tail=t)
        p = em.output_distribution(scores, coefficient=c)
        opt = max(scores)
        with mpmath.workdps(60):
            bad = mpmath.fsum(pr for pr, s in zip(p, scores) if mpmath.mpf(s) <= mpmath.mpf(opt) - mpmath.mpf(gap))
            assert bad <= mpmath.exp(-mpmath.mpf(t))
    # Near-extremal instance: every other candidate sits just inside the bad event.
    for size, t in ((2, 3.0), (100, 1.0), (1000, 5.0)):
        eps, sens = 1.0, 1.0
        c = em.exponent_textbook(epsilon=eps, sensitivity=sens)
        gap = em.utility_gap(epsilon=eps, sensitivity=sens, candidates=size, tail=t)
        scores = [0.0] + [-gap * (1 + 1e-12)] * (size - 1)
        p = em.output_distribution(scores, coefficient=c)
        bad = mpmath.fsum(p[1:])
        assert 0.45 * math.exp(-t) < bad <= math.exp(-t)  # (R-1)/R of the bound, up to 1 + e^-t


def test_utility_gap_value():
    with mpmath.workdps(60):
        want = 2 * mpmath.mpf(0.5) / mpmath.mpf(0.3) * (mpmath.log(17) + mpmath.mpf(2.5))
        got = em.utility_gap(epsilon=0.3, sensitivity=0.5, candidates=17, tail=2.5)
        assert mpmath.mpf(got) >= want and mpmath.mpf(math.nextafter(got, 0)) < want
    assert em.UTILITY.exponents() == {"epsilon": -1, "candidates": 0}


# --------------------------------------------------------------------------- report noisy max
def rnm_distribution(scores, scale, dps=20):
    """P(argmax_i (s_i + Z_i) = i), Z_i iid Laplace(scale), by quadrature over the winner's value."""
    with mpmath.workdps(dps):
        b = mpmath.mpf(scale)
        s = [mpmath.mpf(x) for x in scores]

        def pdf(x):
            return mpmath.exp(-abs(x) / b) / (2 * b)

        def cdf(x):
            return 1 - mpmath.exp(-x / b) / 2 if x >= 0 else mpmath.exp(x / b) / 2

        points = [-mpmath.inf] + sorted(set(s)) + [mpmath.inf]
        out = []
        for i in range(len(s)):

            def f(x, i=i):
                value = pdf(x - s[i])
                for j in range(len(s)):
                    if j != i:
                        value *= cdf(x - s[j])
                return value

            out.append(mpmath.quad(f, points))
        return out


def test_report_noisy_max_scales():
    rng = random.Random(3)
    eps, sens = 1.0, 1.0
    general = em.report_noisy_max_scale(epsilon=eps, sensitivity=sens)
    monotone = em.report_noisy_max_scale(epsilon=eps, sensitivity=sens, monotone=True)
    assert (general, monotone) == (2.0, 1.0)
    for trial in range(10):
        size = rng.randint(2, 3)
        s = [rng.uniform(-3, 3) for _ in range(size)]
        if trial % 2:
            h = [rng.choice([-1, 1]) * rng.uniform(0.5, 1) * sens for _ in range(size)]
            scale = general
        else:  # monotone neighbours with the smaller scale
            h = [rng.uniform(0, 1) * sens for _ in range(size)]
            scale = monotone
        p = rnm_distribution(s, scale)
        q = rnm_distribution([a + b for a, b in zip(s, h)], scale)
        assert abs(sum(p) - 1) < 1e-15 and abs(sum(q) - 1) < 1e-15
        assert max_log_ratio(p, q) <= eps + 1e-12
    # Counterexample: the monotone scale with scores moving in opposite directions loses ~2 eps.
    gap = 20.0
    p = rnm_distribution([0.0, gap], monotone)
    q = rnm_distribution([sens, gap - sens], monotone)
    loss = max_log_ratio(p, q)
    assert loss > 1.8 * eps
    # closed form of the two-candidate case: P(Z0 - Z1 > x) = exp(-x/b)(2 + x/b)/4 for x >= 0
    with mpmath.workdps(30):
        survival = lambda x: mpmath.exp(-x / monotone) * (2 + x / monotone) / 4  # noqa: E731
        assert abs(loss - mpmath.log(survival(gap - 2 * sens) / survival(gap))) < 1e-12


# --------------------------------------------------------------------------- exact discrete profile
def test_exact_discrete_profile_total_variation_is_exact():
    rng = random.Random(11)
    for _ in range(30):
        n = rng.randint(1, 8)
        a = [rng.random() for _ in range(n)]
        b = [rng.random() for _ in range(n)]
        p = [x / sum(a) for x in a]
        q = [x / sum(b) for x in b]
        # exact rational arithmetic on the floats as given
        tv = sum((max(Fraction(0), Fraction(x) - Fraction(y)) for x, y in zip(p, q)), Fraction(0))
        got = em.exact_discrete_profile(p, q)(0.0)
        assert Fraction(got) >= tv and Fraction(math.nextafter(got, 0)) < tv or (tv == 0 and got == 0)
        # positive epsilon: direct evaluation at 80 digits
        with mpmath.workdps(80):
            e = 0.37
            want = mpmath.fsum(max(0, mpmath.mpf(x) - mpmath.exp(e) * mpmath.mpf(y)) for x, y in zip(p, q))
        assert abs(em.exact_discrete_profile(p, q)(e) - want) <= 1e-15 * max(want, 1e-300)


def test_exact_discrete_profile_of_the_exponential_mechanism_is_zero_at_epsilon():
    eps, sens = 0.8, 1.0
    u = [0.3, -1.2, 2.0, 0.0]
    u2 = [0.3 + 1.0, -1.2 - 1.0, 2.0 + 0.5, 0.0]  # |h| <= 1
    c = em.exponent_textbook(epsilon=eps, sensitivity=sens)
    p, q = em.output_distribution(u, coefficient=c), em.output_distribution(u2, coefficient=c)
    assert em.exact_discrete_profile(p, q)(eps) == 0.0
    assert em.exact_discrete_profile(q, p)(eps) == 0.0
    assert em.exact_discrete_profile(p, q)(0.0) > 0.0


def test_exact_discrete_profile_rejects_bad_distributions():
    with pytest.raises(ParameterError, match="same length"):
        em.exact_discrete_profile([0.5, 0.5], [1.0])
    with pytest.raises(ParameterError, match=r"p\[1\] \(-0.5\) must be >= 0"):
        em.exact_discrete_profile([1.5, -0.5], [0.5, 0.5])
    with pytest.raises(ParameterError, match="must sum to 1"):
        em.exact_discrete_profile([0.5, 0.6], [0.5, 0.5])
    with pytest.raises(ParameterError, match=r"q\[0\] \(nan\)"):
        em.exact_discrete_profile([1.0], [math.nan])
    with pytest.raises(ParameterError, match="empty"):
        em.exact_discrete_profile([], [])
    with pytest.raises(TypeError):
        em.exact_discrete_profile("ab", [0.5, 0.5])
    with pytest.raises(PrivacyParameterError, match=r"epsilon \(-1.0\) must be >= 0"):
        em.exact_discrete_profile([1.0], [1.0])(-1.0)


# --------------------------------------------------------------------------- records and bad input
@pytest.mark.parametrize("record", em.RECORDS, ids=lambda r: r.id)
def test_record_renders_registers_and_flags_resolve(record):
    assert spec.get(record.id) is record
    assert record.id in str(record) and r"\begin{description}" in record.to_latex()
    assert record.conventions.neighbouring is Neighbouring.REPLACE_ONE
    if record.privacy is not None:
        assert record.privacy.neighbouring is Neighbouring.REPLACE_ONE


CALLS = [
    (em.exponent_textbook, dict(epsilon=1.0, sensitivity=1.0)),
    (em.exponent_oscillation, dict(epsilon=1.0, oscillation=1.0)),
    (em.utility_gap, dict(epsilon=1.0, sensitivity=1.0, candidates=5, tail=1.0)),
    (em.report_noisy_max_scale, dict(epsilon=1.0, sensitivity=1.0)),
    (em.output_distribution, dict(scores=[1.0, 2.0], coefficient=1.0)),
]
PRIVACY = {"epsilon", "sensitivity", "oscillation", "coefficient"}


@pytest.mark.parametrize("fn, good", CALLS, ids=lambda x: getattr(x, "__name__", ""))
def test_bad_values_rejected(fn, good):
    for param in good:
        if param == "scores":
            continue
        error = PrivacyParameterError if param in PRIVACY else ParameterError
        for bad in ([math.nan, math.inf, -math.inf] if param != "candidates" else []):
            with pytest.raises(error, match=rf"^{param} \((nan|inf|-inf)\) must be"):
                fn(**dict(good, **{param: bad}))
        for bad in ("1", None, True, 1j):
            with pytest.raises(TypeError, match=rf"^{param} "):
                fn(**dict(good, **{param: bad}))
    if "epsilon" in good:
        for bad in (0.0, -1.0):
            with pytest.raises(PrivacyParameterError) as info:
                fn(**dict(good, epsilon=bad))
            assert str(info.value) == f"epsilon ({bad}) must be > 0"
    if "size" in good:
        with pytest.raises(ParameterError, match=r"^size \(0\) must be >= 1"):
            fn(**dict(good, size=0))
        with pytest.raises(TypeError):
            fn(**dict(good, size=2.0))
    if "t" in good:
        with pytest.raises(ParameterError, match=r"^t \(-1.0\) must be >= 0"):
            fn(**dict(good, t=-1.0))


def test_report_noisy_max_monotone_must_be_bool():
    with pytest.raises(TypeError, match="monotone"):
        em.report_noisy_max_scale(epsilon=1.0, sensitivity=1.0, monotone=1)
    with pytest.raises(ParameterError, match=r"scores\[1\] \(inf\)"):
        em.output_distribution([1.0, math.inf], coefficient=1.0)
    with pytest.raises(PrivacyParameterError, match=r"coefficient \(-1.0\) must be >= 0"):
        em.output_distribution([1.0], coefficient=-1.0)
