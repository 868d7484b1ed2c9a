"""spec.gaussian: the three calibrations and the exact profile, against independent oracles.

Oracles: mpmath quadrature of the hockey-stick integral, the privacy-loss distribution
N(mu^2/2, mu^2), the Neyman-Pearson test between two normals (scipy), and a profile typed
independently here with mpmath erfc.
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import mpmath
import pytest
import scipy.stats
from hypothesis import given, settings, strategies as st

import spec
from spec import gaussian, zhang17
from spec.errors import AssumptionError, PrivacyParameterError
from spec.record import Neighbouring

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- independent oracles
def oracle_profile(eps, mu=None, dps=80, *, sigma=None, sensitivity=1.0, steps=1):
    """delta(eps) for N(0,1) vs N(mu,1), typed from Balle-Wang Theorem 8 with erfc (not the record).

    Pass ``mu`` directly, or ``sigma`` (with ``sensitivity``, ``steps``) so that
    ``mu = sqrt(steps) sensitivity / sigma`` is formed at the oracle's precision.
    """
    with mpmath.workdps(dps):
        if sigma is not None:
            mu = mpmath.sqrt(steps) * mpmath.mpf(sensitivity) / mpmath.mpf(sigma)
        eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
        a = mpmath.erfc(-(mu / 2 - eps / mu) / mpmath.sqrt(2)) / 2
        b = mpmath.exp(eps) * mpmath.erfc((mu / 2 + eps / mu) / mpmath.sqrt(2)) / 2
        return a - b


def quad_profile(eps, sigma, sensitivity):
    """integral of max(0, p(x) - e^eps q(x)), p = N(0, sigma^2), q = N(sensitivity, sigma^2)."""
    with mpmath.workdps(40):
        eps, s, d = mpmath.mpf(eps), mpmath.mpf(sigma), mpmath.mpf(sensitivity)
        factor = mpmath.exp(eps)

        def f(x):
            return max(mpmath.mpf(0), mpmath.npdf(x, 0, s) - factor * mpmath.npdf(x, d, s))

        # The integrand is zero right of the crossing point (where the privacy loss equals eps);
        # splitting there and a few scales to the left helps the quadrature, it does not define it.
        cross = d / 2 - eps * s**2 / d
        width = s / max(1, abs(cross) / s)
        points = [-mpmath.inf] + [cross - j * width for j in (40, 10, 3, 1)] + [cross, cross + 10 * s, mpmath.inf]
        return mpmath.quad(f, points)


def loss_quad_profile(eps, mu):
    """delta(eps) = E[(1 - e^(eps - L))_+] with the privacy loss L ~ N(mu^2/2, mu^2)."""
    with mpmath.workdps(40):
        eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
        m, s = mu**2 / 2, mu

        def f(l):
            return (1 - mpmath.exp(eps - l)) * mpmath.npdf(l, m, s)

        return mpmath.quad(f, [eps, eps + s, eps + 10 * s, mpmath.inf])


def classic_sigma_by_hand(eps, delta, sensitivity):
    return math.sqrt(2 * math.log(1.25 / delta)) * sensitivity / eps


# --------------------------------------------------------------------------- records
def _defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


@pytest.mark.parametrize("record", gaussian.RECORDS, ids=lambda r: r.id)
def test_record_renders_registers_and_flags_resolve(record):
    assert spec.get(record.id) is record
    text = str(record)
    assert record.id in text and "replace-one" in text
    assert r"\begin{description}" in record.to_latex()
    assert record.conventions.neighbouring is Neighbouring.REPLACE_ONE
    assert record.privacy is not None and record.privacy.neighbouring is Neighbouring.REPLACE_ONE


# --------------------------------------------------------------------------- the profile itself
@pytest.mark.parametrize(
    "eps, sigma, sensitivity",
    [(0.1, 2.0, 1.0), (1.0, 1.0, 1.0), (1.0, 5.0, 1.0), (0.5, 0.25, 1.0), (5.0, 0.5, 1.0),
     (10.0, 0.3, 1.0), (2.0, 3.0, 1.0), (0.5, 8.0, 1.0), (0.0, 1.0, 1.0), (3.0, 0.02, 0.01)],
)
def test_exact_delta_matches_quadrature(eps, sigma, sensitivity):
    exact = gaussian.exact_delta(eps, sigma=sigma, sensitivity=sensitivity)
    numeric = quad_profile(eps, sigma, sensitivity)
    assert numeric > 0
    assert abs(exact - numeric) <= 1e-10 * numeric


@pytest.mark.parametrize("eps, mu, steps", [(0.5, 0.3, 10), (1.0, 0.1, 200), (3.0, 1.0, 4), (0.2, 0.05, 1000)])
def test_composed_profile_matches_privacy_loss_distribution(eps, mu, steps):
    # T composed releases: privacy loss is the sum of T iid N(mu^2/2, mu^2), i.e. N(T mu^2/2, T mu^2).
    exact = gaussian.exact_delta(eps, sigma=1.0 / mu, sensitivity=1.0, steps=steps)
    numeric = loss_quad_profile(eps, mu * math.sqrt(steps))
    assert abs(exact - numeric) <= 1e-10 * numeric


@pytest.mark.parametrize(
    "eps, sigma",
    [(50.0, 0.1), (50.0, 1.0), (50.0, 10.0), (1e-3, 1e6), (1e-3, 1e4), (20.0, 3.0), (0.0, 1e8)],
)
def test_exact_delta_is_stable_in_the_tails(eps, sigma):
    truth = oracle_profile(eps, sigma=sigma, dps=600)
    got = gaussian.exact_delta(eps, sigma=sigma, sensitivity=1.0)
    assert truth > 0 and got > 0
    assert mpmath.mpf(got) >= truth  # rounded up
    if float(truth) > 1e-300:  # representable: also close
        assert got <= float(truth) * (1 + 1e-13)


def test_far_tails_and_extreme_ratios():
    # mu = 1e-200, eps = 1: delta <= Phi(-eps/mu) is far below every float; rounded up it is 5e-324
    assert gaussian.exact_delta(1.0, sigma=1e100, sensitivity=1e-100) == 5e-324
    # mu = 1e100: delta = 1 - (something below exp(-10^199)); rounded up, 1.0
    assert gaussian.exact_delta(1.0, sigma=1e-100, sensitivity=1.0) == 1.0
    # epsilon = 0 with mu = 1e-300: total variation erf(mu / (2 sqrt 2)), heavy cancellation
    with mpmath.workdps(700):
        tv = mpmath.erf(mpmath.mpf(1e-150) / mpmath.mpf(1e150) / (2 * mpmath.sqrt(2)))
    got = gaussian.exact_delta(0.0, sigma=1e150, sensitivity=1e-150)
    assert mpmath.mpf(got) >= tv and got <= float(tv) * (1 + 1e-13)
    # both sides of the tail-bound switch (|eps/mu - mu/2| = 1e4) agree
    for x in (9_999.0, 10_001.0):
        assert gaussian.exact_delta(x, sigma=1.0, sensitivity=1.0) == 5e-324
    assert gaussian.tradeoff(0.5, sigma=1e-100, sensitivity=1.0) == 0.0
    assert gaussian.exact_epsilon(1e-5, sigma=1e-100, sensitivity=1.0) > 1e199


def test_exact_delta_never_zero_when_underflowing():
    got = gaussian.exact_delta(50.0, sigma=50.0, sensitivity=1.0)
    assert got == 5e-324  # the true value is positive and below every float: rounded up


@settings(max_examples=40)
@given(
    st.floats(0, 30), st.floats(0, 30), st.floats(-2, 2).map(lambda x: 10**x), st.integers(1, 100)
)
def test_exact_delta_decreases_in_epsilon(e1, e2, sigma, steps):
    lo, hi = sorted((e1, e2))
    assert gaussian.exact_delta(hi, sigma=sigma, sensitivity=1.0, steps=steps) <= gaussian.exact_delta(
        lo, sigma=sigma, sensitivity=1.0, steps=steps
    )


@settings(max_examples=40)
@given(st.floats(0, 30), st.floats(-2, 2), st.floats(-2, 2), st.integers(1, 100))
def test_exact_delta_decreases_in_sigma(eps, l1, l2, steps):
    s_lo, s_hi = sorted((10**l1, 10**l2))
    assert gaussian.exact_delta(eps, sigma=s_hi, sensitivity=1.0, steps=steps) <= gaussian.exact_delta(
        eps, sigma=s_lo, sensitivity=1.0, steps=steps
    )


def test_profile_callable_and_record_claim():
    f = gaussian.profile(sigma=2.0, sensitivity=1.5, steps=3)
    assert (f.sigma, f.sensitivity, f.steps) == (2.0, 1.5, 3)
    assert f(0.7) == gaussian.exact_delta(0.7, sigma=2.0, sensitivity=1.5, steps=3)
    claim = gaussian.ANALYTIC.privacy
    assert claim.profile is gaussian.profile and claim.accountant is gaussian.exact_epsilon
    # the record's formula, evaluated by the record, agrees with the oracle
    value = gaussian.ANALYTIC.evaluate("delta", epsilon=0.7, sigma=2.0, sensitivity=1.5, steps=3)
    assert abs(value - float(oracle_profile(0.7, sigma=2.0, sensitivity=1.5, steps=3))) <= 1e-16
    with pytest.raises(PrivacyParameterError, match=r"epsilon \(-0.5\) must be >= 0"):
        f(-0.5)


# --------------------------------------------------------------------------- inverse and calibration
@settings(max_examples=40)
@given(
    st.floats(-12, math.log10(0.5)).map(lambda x: 10**x),
    st.floats(-1, 2).map(lambda x: 10**x),
    st.integers(1, 1000),
)
def test_exact_epsilon_round_trip(delta, sigma, steps):
    eps = gaussian.exact_epsilon(delta, sigma=sigma, sensitivity=1.0, steps=steps)
    assert gaussian.exact_delta(eps, sigma=sigma, sensitivity=1.0, steps=steps) <= delta
    if eps > 0:
        # minimal: a slightly smaller epsilon (relative 1e-9, and at least 1e-9) violates delta
        below = max(0.0, eps - 1e-9 * (eps + 1))
        assert gaussian.exact_delta(below, sigma=sigma, sensitivity=1.0, steps=steps) > delta
    else:
        assert oracle_profile(0, sigma=sigma, steps=steps) <= delta


def test_exact_epsilon_zero_when_delta_exceeds_total_variation():
    tv = float(oracle_profile(0, 0.1))  # mu = 0.1
    assert gaussian.exact_epsilon(min(0.99, tv * 1.01), sigma=10.0, sensitivity=1.0) == 0.0
    assert gaussian.exact_epsilon(tv * 0.99, sigma=10.0, sensitivity=1.0) > 0.0


@settings(max_examples=40)
@given(
    st.floats(-3, math.log10(50)).map(lambda x: 10**x),
    st.floats(-12, math.log10(0.5)).map(lambda x: 10**x),
    st.floats(-3, 3).map(lambda x: 10**x),
    st.integers(1, 10_000),
)
def test_analytic_sigma_calibrate_then_verify(eps, delta, sensitivity, steps):
    sigma = gaussian.analytic_sigma(epsilon=eps, delta=delta, sensitivity=sensitivity, steps=steps)
    assert gaussian.exact_delta(eps, sigma=sigma, sensitivity=sensitivity, steps=steps) <= delta
    # minimal: 1e-9 less noise violates the target
    assert gaussian.exact_delta(eps, sigma=sigma * (1 - 1e-9), sensitivity=sensitivity, steps=steps) > delta
    # independent check of the target with the oracle profile
    assert oracle_profile(eps, sigma=sigma, sensitivity=sensitivity, steps=steps) <= delta


@settings(max_examples=40)
@given(
    st.floats(1e-3, 1.0, exclude_max=True),
    st.floats(-12, math.log10(0.5)).map(lambda x: 10**x),
    st.floats(-3, 3).map(lambda x: 10**x),
)
def test_classic_and_zhang17_are_private_below_one(eps, delta, sensitivity):
    for sigma in (
        gaussian.classic_sigma(epsilon=eps, delta=delta, sensitivity=sensitivity),
        zhang17.gaussian_sigma(epsilon=eps, delta=delta, sensitivity=sensitivity),
    ):
        assert gaussian.exact_delta(eps, sigma=sigma, sensitivity=sensitivity) <= delta
        assert oracle_profile(eps, sigma=sigma, sensitivity=sensitivity) <= delta


@settings(max_examples=30)
@given(st.floats(1e-3, 1.0, exclude_max=True), st.floats(-12, -0.01).map(lambda x: 10**x))
def test_classic_and_zhang17_formulas_round_up(eps, delta):
    with mpmath.workdps(60):
        exact_c = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / mpmath.mpf(delta))) / mpmath.mpf(eps)
        exact_z = mpmath.sqrt(2 * mpmath.log(2 / mpmath.mpf(delta))) / mpmath.mpf(eps)
        c = gaussian.classic_sigma(epsilon=eps, delta=delta, sensitivity=1.0)
        z = zhang17.gaussian_sigma(epsilon=eps, delta=delta, sensitivity=1.0)
        assert mpmath.mpf(c) >= exact_c and mpmath.mpf(math.nextafter(c, 0)) < exact_c
        assert mpmath.mpf(z) >= exact_z and mpmath.mpf(math.nextafter(z, 0)) < exact_z
    assert c == pytest.approx(classic_sigma_by_hand(eps, delta, 1.0), rel=1e-14)


def test_classic_sigma_needs_epsilon_below_one():
    with pytest.raises(AssumptionError) as info:
        gaussian.classic_sigma(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert info.value.record == "gaussian.classic" and info.value.assumption == "epsilon_lt_1"
    # the analytic calibration has no such restriction and needs less noise than zhang17 below 1
    assert gaussian.analytic_sigma(epsilon=5.0, delta=1e-5, sensitivity=1.0) > 0
    assert gaussian.analytic_sigma(epsilon=0.5, delta=1e-5, sensitivity=1.0) < gaussian.classic_sigma(
        epsilon=0.5, delta=1e-5, sensitivity=1.0
    )


# --------------------------------------------------------------------------- failure epsilons
def _independent_failure_epsilon(constant, delta):
    """Scan eps on a 0.01 grid with the oracle profile (sigma = constant(delta)/eps), then bisect."""
    c = constant(delta)

    def fails(e):
        return oracle_profile(e, e / c, dps=60) > delta

    grid = [1 + 0.01 * i for i in range(1, 2000)]
    first = next(e for e in grid if fails(e))
    lo, hi = mpmath.mpf(first - 0.01), mpmath.mpf(first)
    assert not fails(lo)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if fails(mid) else (mid, hi)
    return float(lo)


def _flag_text(record):
    (flag,) = record.flags
    return flag.summary + " " + flag.reason


def test_classic_failure_epsilon_at_1e_5():
    got = gaussian.classic_failure_epsilon(1e-5)
    assert 5 < got < 10
    oracle = _independent_failure_epsilon(lambda d: math.sqrt(2 * math.log(1.25 / d)), 1e-5)
    assert got == pytest.approx(oracle, rel=1e-9)
    # at the returned epsilon the classic sigma (as rounded by the record) is still valid; above it is not
    sig = gaussian.CLASSIC.evaluate("sigma", check=False, epsilon=got, delta=1e-5, sensitivity=1.0)
    assert gaussian.exact_delta(got, sigma=sig, sensitivity=1.0) <= 1e-5
    above = got * (1 + 1e-6)
    sig = gaussian.CLASSIC.evaluate("sigma", check=False, epsilon=above, delta=1e-5, sensitivity=1.0)
    assert gaussian.exact_delta(above, sigma=sig, sensitivity=1.0) > 1e-5
    # the notes' figures: exact delta 2.3e-5 at eps = 10 and 1.5e-3 at eps = 20 (delta = 1e-5)
    text = _flag_text(gaussian.CLASSIC)
    assert f"{got:.3g}" in text
    for eps, printed in ((10.0, "2.3e-5"), (20.0, "1.5e-3")):
        value = gaussian.exact_delta(eps, sigma=classic_sigma_by_hand(eps, 1e-5, 1.0), sensitivity=1.0)
        assert f"{value:.1e}".replace("e-0", "e-") == printed
        assert printed in text


@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.1, 0.9])
def test_calibrated_profiles_increase_in_epsilon(delta):
    """Justifies scanning for the first crossing: delta(eps; sigma(eps)) increases with eps."""
    for const in (math.sqrt(2 * math.log(1.25 / delta)), math.sqrt(2 * math.log(2 / delta))):
        values = [oracle_profile(e, e / const, dps=40) for e in [0.05 * i for i in range(1, 600)]]
        assert all(a <= b for a, b in zip(values, values[1:]))
        # strictly, until the profile is within rounding of its limit 1
        assert all(a < b for a, b in zip(values, values[1:]) if b < 0.999)


def test_failure_epsilon_depends_on_delta_as_expected():
    assert gaussian.classic_failure_epsilon(0.1) < gaussian.classic_failure_epsilon(1e-5)
    assert gaussian.classic_failure_epsilon(0.999) > 1  # the precondition eps < 1 is never the binding one


# --------------------------------------------------------------------------- trade-off curve
@pytest.mark.parametrize("alpha", [1e-6, 0.01, 0.05, 0.3, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("mu", [0.1, 1.0, 3.0])
def test_tradeoff_matches_neyman_pearson(alpha, mu):
    # Most powerful level-alpha test of N(0,1) vs N(mu,1): reject when x > z, z = upper alpha quantile.
    z = scipy.stats.norm.isf(alpha)
    beta = scipy.stats.norm.cdf(z - mu)
    got = gaussian.tradeoff(alpha, sigma=1.0 / mu, sensitivity=1.0)
    assert got == pytest.approx(beta, rel=1e-9)


def test_tradeoff_is_dual_to_the_profile():
    # delta(eps) = sup_alpha (1 - e^eps alpha - beta(alpha)); a grid in alpha approaches it from below
    mu, eps = 1.3, 0.8
    alphas = [float(mpmath.ncdf(-mpmath.mpf(i) / 100)) for i in range(-200, 500)]
    with mpmath.workdps(30):
        best = max(
            1 - mpmath.exp(eps) * mpmath.mpf(a) - gaussian.tradeoff(a, sigma=1 / mu, sensitivity=1.0)
            for a in alphas
        )
    exact = gaussian.exact_delta(eps, sigma=1 / mu, sensitivity=1.0)
    assert best <= exact * (1 + 1e-12)
    assert best >= exact * (1 - 1e-4)


def test_tradeoff_endpoints_and_composition():
    assert gaussian.tradeoff(0.0, sigma=1.0, sensitivity=1.0) == 1.0
    assert gaussian.tradeoff(1.0, sigma=1.0, sensitivity=1.0) == 0.0
    assert gaussian.tradeoff(1e-300, sigma=1.0, sensitivity=1.0) < 1.0
    assert gaussian.tradeoff(0.1, sigma=2.0, sensitivity=1.0, steps=4) == pytest.approx(
        gaussian.tradeoff(0.1, sigma=1.0, sensitivity=1.0), rel=1e-15
    )


# --------------------------------------------------------------------------- bad input
GOOD = dict(epsilon=0.5, delta=1e-5, sensitivity=1.0, sigma=2.0, steps=3)

CALLS = {
    "classic_sigma": (gaussian.classic_sigma, (), ("epsilon", "delta", "sensitivity")),
    "zhang17_sigma": (zhang17.gaussian_sigma, (), ("epsilon", "delta", "sensitivity")),
    "analytic_sigma": (gaussian.analytic_sigma, (), ("epsilon", "delta", "sensitivity", "steps")),
    "exact_delta": (gaussian.exact_delta, ("epsilon",), ("sigma", "sensitivity", "steps")),
    "exact_epsilon": (gaussian.exact_epsilon, ("delta",), ("sigma", "sensitivity", "steps")),
    "profile": (gaussian.profile, (), ("sigma", "sensitivity", "steps")),
    "tradeoff": (gaussian.tradeoff, ("alpha",), ("sigma", "sensitivity", "steps")),
    "classic_failure_epsilon": (gaussian.classic_failure_epsilon, ("delta",), ()),
    "zhang17_failure_epsilon": (zhang17.gaussian_failure_epsilon, ("delta",), ()),
}


def _call(name, override):
    fn, positional, keywords = CALLS[name]
    values = dict(GOOD, alpha=0.1)
    values.update(override)
    return fn(*[values[p] for p in positional], **{k: values[k] for k in keywords})


def _parameters(name):
    fn, positional, keywords = CALLS[name]
    return positional + keywords


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_values_rejected(name, bad):
    for param in _parameters(name):
        if param == "steps":
            continue  # integers: floats are a TypeError (below)
        with pytest.raises(PrivacyParameterError, match=rf"^{param} \((nan|inf|-inf)\) must be"):
            _call(name, {param: bad})


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad", ["0.5", None, True, 1j])
def test_wrong_types_rejected(name, bad):
    for param in _parameters(name):
        with pytest.raises(TypeError, match=rf"^{param} "):
            _call(name, {param: bad})


@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_of_range_values_rejected_with_message(name):
    params = _parameters(name)
    cases = {
        "epsilon": [(0.0, "epsilon (0.0) must be > 0"), (-1.0, "epsilon (-1.0) must be > 0")],
        "delta": [(0.0, "delta (0.0) must be in (0, 1)"), (1.0, "delta (1.0) must be in (0, 1)"),
                  (1.5, "delta (1.5) must be in (0, 1)")],
        "sensitivity": [(0.0, "sensitivity (0.0) must be > 0")],
        "sigma": [(-2.0, "sigma (-2.0) must be > 0")],
        "steps": [(0, "steps (0) must be >= 1")],
        "alpha": [(1.5, "alpha (1.5) must be in [0, 1]")],
    }
    for param in params:
        for value, message in cases[param]:
            if name == "exact_delta" and param == "epsilon":
                continue  # the profile is defined at epsilon >= 0 (tested below)
            with pytest.raises(PrivacyParameterError) as info:
                _call(name, {param: value})
            assert str(info.value) == message
    if "steps" in params:
        with pytest.raises(TypeError):
            _call(name, {"steps": 2.0})


def test_exact_delta_rejects_negative_epsilon_only():
    assert gaussian.exact_delta(0.0, sigma=1.0, sensitivity=1.0) > 0
    with pytest.raises(PrivacyParameterError, match=re.escape("epsilon (-1.0) must be >= 0")):
        gaussian.exact_delta(-1.0, sigma=1.0, sensitivity=1.0)
