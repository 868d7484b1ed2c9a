"""Tests of audits.privacy.audit_privacy: soundness, power, tightness, reproducibility, errors.

The mechanisms and their calibrations are computed here, independently of ``spec``:
the analytic Gaussian sigma by bisection on the exact profile
``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` (mu = sensitivity/sigma),
Laplace at scale sensitivity/eps, randomized response with its exact epsilon.

Meta-tests of soundness run ``REPS`` seeded replications of an audit of a *correct* mechanism
at a large ``alpha = 0.3``. Each replication raises a false alarm with probability at most
0.3, so the number of false alarms is stochastically below Binomial(REPS, 0.3); the tests
allow up to that law's 0.999 quantile, so each meta-test fails by chance with probability at
most 0.001 (and, being seeded, reproducibly passes or fails).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import optimize, special
from scipy import stats as sps

from functools import partial

from audits import audit_privacy, claim_bound, replace_one, add_remove_one, runs_for_gaussian
from audits import execution
from audits.privacy import PROBE_RUNS, AuditResult
from spec.errors import ParameterError, PrivacyParameterError

META_ALPHA = 0.3

#: Audits of the *real-valued* Gaussian and Laplace mechanisms that ``gaussian`` and ``laplace``
#: below stand for: their floating-point outputs leak through their low bits (Mironov 2012),
#: which the default low-bit test would (rightly) find; tests/audits/test_float_leaks.py audits
#: that. Here the low-bit test is off, as for any idealised mechanism.
audit_real = partial(audit_privacy, low_bits=False)


def meta_limit(reps: int) -> int:
    return int(sps.binom.ppf(0.999, reps, META_ALPHA))


def gaussian_delta(eps, mu):
    return max(0.0, float(special.ndtr(mu / 2 - eps / mu) - math.exp(eps) * special.ndtr(-mu / 2 - eps / mu)))


def analytic_sigma(epsilon, delta, sensitivity=1.0):
    s = optimize.brentq(lambda s: gaussian_delta(epsilon, sensitivity / s) - delta, 1e-2, 1e3, xtol=1e-13)
    return s * (1 + 1e-9)  # rounded up: noise never below the calibration


SIGMA = analytic_sigma(1.0, 1e-5)  # about 3.73


class GaussianProfile:
    """Exact privacy profile delta(eps) of the Gaussian mechanism."""

    def __init__(self, sigma, sensitivity=1.0):
        self.mu = sensitivity / sigma

    def __call__(self, eps):
        return gaussian_delta(float(eps), self.mu)


class GaussianTradeoff:
    """The same claim as an f-DP trade-off curve f(a) = Phi(Phi^-1(1 - a) - mu)."""

    def __init__(self, sigma, sensitivity=1.0):
        self.mu = sensitivity / sigma

    def tradeoff(self, a):
        return float(special.ndtr(special.ndtri(1 - a) - self.mu)) if 0 < a < 1 else float(a == 0)


def rr_profile(epsilon0):
    """Exact profile of binary randomized response: max(0, (e^eps0 - e^eps)/(1 + e^eps0))."""
    return lambda eps: max(0.0, (math.exp(epsilon0) - math.exp(eps)) / (1 + math.exp(epsilon0)))


def gaussian(sigma, p=1):
    direction = np.ones(p) / math.sqrt(p)

    def mechanism(data, runs, rng):
        z = rng.standard_normal((runs, p))
        out = data.sum() * direction + sigma * z
        return out[:, 0] if p == 1 else out

    return mechanism


def laplace(scale):
    def mechanism(data, runs, rng):
        return data.sum() + scale * rng.laplace(size=runs)

    return mechanism


def randomized_response(epsilon, k=2):
    """k-ary randomized response on the first record (an integer in 0..k-1): exactly eps-DP."""
    keep = math.exp(epsilon) / (math.exp(epsilon) + k - 1)

    def mechanism(data, runs, rng):
        truth = int(data[0])
        other = (truth + 1 + rng.integers(0, k - 1, size=runs)) % k
        return np.where(rng.random(runs) < keep, truth, other)

    return mechanism


class GaussianWithDensity:
    """Vector Gaussian mechanism exposing logpdf (enables the likelihood-ratio statistic)."""

    def __init__(self, sigma, p):
        self.sigma, self.p = sigma, p
        self.direction = np.ones(p) / math.sqrt(p)

    def __call__(self, data, runs, rng):
        return data.sum() * self.direction + self.sigma * rng.standard_normal((runs, self.p))

    def logpdf(self, data, outputs):
        centre = data.sum() * self.direction
        return -0.5 * np.sum((outputs - centre) ** 2, axis=1) / self.sigma**2


PAIR = replace_one(np.zeros(5), 0, 1.0)
BITS = replace_one(np.zeros(5), 0, 1.0)  # randomized response: first record 0 vs 1


def violations(reps, audit):
    return sum(audit(seed).violated for seed in range(reps))


# --------------------------------------------------------------------------------------------
# Soundness: correct mechanisms are (almost) never refuted.


@pytest.mark.parametrize("name,reps,audit", [
    ("gaussian point", 100, lambda s: audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5,
                                                    runs=2000, alpha=META_ALPHA, seed=s)),
    ("laplace point", 100, lambda s: audit_real(laplace(1.0), PAIR, epsilon=1.0, runs=2000,
                                                   alpha=META_ALPHA, seed=s)),
    ("randomized response point (claim attained)", 100,
     lambda s: audit_privacy(randomized_response(1.0), BITS, epsilon=1.0, runs=400,
                             alpha=META_ALPHA, seed=s)),
    ("4-ary randomized response point", 60,
     lambda s: audit_privacy(randomized_response(0.7, k=4), BITS, epsilon=0.7, runs=600,
                             alpha=META_ALPHA, seed=s)),
    ("vector gaussian point", 60,
     lambda s: audit_real(gaussian(SIGMA / 2, p=4), PAIR, epsilon=2.0, delta=gaussian_delta(2.0, 2 / SIGMA),
                             runs=1000, alpha=META_ALPHA, seed=s)),
    # Identical laws on both datasets and a tiny claim: any alarm would come from choosing the
    # event on the counts it is tested on, which the held-out selection prevents.
    ("data-independent output, eps = 1e-3", 100,
     lambda s: audit_privacy(lambda data, runs, rng: rng.standard_normal(runs), PAIR, epsilon=1e-3,
                             runs=500, alpha=META_ALPHA, seed=s)),
    ("gaussian profile", 60, lambda s: audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5,
                                                      runs=1000, alpha=META_ALPHA, seed=s,
                                                      profile=GaussianProfile(SIGMA))),
    ("randomized response profile (claim attained)", 60,
     lambda s: audit_privacy(randomized_response(1.0), BITS, epsilon=1.0, runs=300,
                             alpha=META_ALPHA, seed=s, profile=rr_profile(1.0))),
    ("disclosing randomized response profile (delta binds)", 60,
     lambda s: audit_privacy(disclosing_rr, BITS, epsilon=EPS_RR, delta=float(DELTA_RR), runs=500,
                             alpha=META_ALPHA, seed=s, profile=disclosing_rr_profile)),
])
def test_false_alarm_rate_is_at_most_alpha(name, reps, audit):
    assert violations(reps, audit) <= meta_limit(reps)


# Delta binding. Randomized response at eps = ln 3 (the true bit kept with probability 3/4)
# that, with probability DELTA_RR, discloses the bit instead (outputs 2 + bit). Its law is
# rational, so its privacy profile is computed exactly below: it is (ln 3, 1/10)-DP and not
# (ln 3, delta')-DP for any delta' < 1/10, so the claim binds at delta. The point test absorbs
# delta with an auditor-drawn Poisson process (audits.stats.poisson_arrivals); without it the
# disclosure atoms alone refute the claim.

EPS_RR = math.log(3.0)
DELTA_RR = Fraction(1, 10)
DELTA_REPS, DELTA_ALPHA = 100, META_ALPHA
#: Chance failure of the delta-binding false-alarm test (a binomial tail, computed below).
DELTA_FAILURE = 1e-6


def disclosing_rr_pmf(bit: int) -> list:
    """Exact output law of :func:`disclosing_rr` on a record ``bit``: outputs 0, 1, 2, 3."""
    keep = Fraction(3, 4)  # e^eps / (1 + e^eps) at e^eps = 3
    rr = [keep, 1 - keep] if bit == 0 else [1 - keep, keep]
    disclose = [DELTA_RR, Fraction(0)] if bit == 0 else [Fraction(0), DELTA_RR]
    return [(1 - DELTA_RR) * r for r in rr] + disclose


def disclosing_rr(data, runs, rng):
    bit = int(data[0])
    rr = np.where(rng.random(runs) < 0.75, bit, 1 - bit)
    return np.where(rng.random(runs) < float(DELTA_RR), 2 + bit, rr)


def hockey_stick(p, q, growth):
    """sup_S P(S) - growth Q(S) over all events of a finite space: sum of the positive parts."""
    return sum(max(Fraction(0), a - growth * b) for a, b in zip(p, q))


def exact_disclosing_rr_profile(eps):
    p, q = disclosing_rr_pmf(0), disclosing_rr_pmf(1)
    growth = Fraction(math.exp(eps))  # exact value of the float e^eps
    return max(hockey_stick(p, q, growth), hockey_stick(q, p, growth))


_RR_P, _RR_Q = ([float(x) for x in disclosing_rr_pmf(b)] for b in (0, 1))


def disclosing_rr_profile(eps):
    """Floating-point twin of the exact profile (the audit's 1e-9 slack covers its rounding)."""
    growth = math.exp(eps)
    return max(sum(max(0.0, a - growth * b) for a, b in zip(_RR_P, _RR_Q)),
               sum(max(0.0, b - growth * a) for a, b in zip(_RR_P, _RR_Q)))


def delta_limit(reps, alpha, failure):
    """Smallest L with P[Binomial(reps, alpha) > L] <= failure."""
    limit = int(sps.binom.isf(failure, reps, alpha))
    while sps.binom.sf(limit, reps, alpha) > failure:
        limit += 1
    return limit


def test_disclosing_randomized_response_is_exactly_eps_delta_dp():
    p, q = disclosing_rr_pmf(0), disclosing_rr_pmf(1)
    assert sum(p) == sum(q) == 1
    three = Fraction(3)  # e^EPS_RR, exactly
    # (eps, delta)-DP in both orders, with equality: delta binds.
    assert hockey_stick(p, q, three) == hockey_stick(q, p, three) == DELTA_RR
    # The disclosure event {2} alone: P = delta, Q = 0, so no delta' < delta is valid.
    assert p[2] - three * q[2] == DELTA_RR
    assert exact_disclosing_rr_profile(5.0) == DELTA_RR  # the atoms never go away
    rng = np.random.default_rng(4)  # the sampler has that law (seeded; 6-sigma tolerance)
    for bit, data in ((0, BITS.dataset), (1, BITS.neighbour)):
        freq = np.bincount(disclosing_rr(data, 40_000, rng), minlength=4) / 40_000
        law = np.array([float(x) for x in disclosing_rr_pmf(bit)])
        assert np.all(np.abs(freq - law) < 6 * math.sqrt(0.25 / 40_000))
    for eps in (0.0, 0.5, EPS_RR, 1.5, 5.0):
        assert disclosing_rr_profile(eps) == pytest.approx(float(exact_disclosing_rr_profile(eps)),
                                                           abs=1e-15)


def _delta_binding_violations():
    return violations(DELTA_REPS, lambda s: audit_privacy(
        disclosing_rr, BITS, epsilon=EPS_RR, delta=float(DELTA_RR), runs=2000, alpha=DELTA_ALPHA,
        seed=s))


def test_false_alarm_rate_is_at_most_alpha_when_delta_binds():
    """100 seeded point audits at alpha = 0.3 of a mechanism whose claimed delta binds. Under
    the claim the number of false alarms is stochastically below Binomial(100, 0.3); the limit
    is that law's tail at DELTA_FAILURE = 1e-6, so this test fails by chance with probability at
    most 1e-6. Without the delta absorption the audit flags almost every seed (next test)."""
    limit = delta_limit(DELTA_REPS, DELTA_ALPHA, DELTA_FAILURE)
    assert sps.binom.sf(limit, DELTA_REPS, DELTA_ALPHA) <= DELTA_FAILURE and limit < 55
    assert _delta_binding_violations() <= limit


def test_the_delta_binding_test_catches_a_missing_delta_absorption(monkeypatch):
    """Mutation check of the test above: with the auditor's Poisson process removed (no
    arrivals, so delta is not absorbed) the same seeds raise far more alarms than its limit."""
    monkeypatch.setattr("audits.stats.poisson_arrivals", lambda m, delta, rng: np.zeros(0))
    assert _delta_binding_violations() > delta_limit(DELTA_REPS, DELTA_ALPHA, DELTA_FAILURE) + 20


# Both orders. On the record 0 the output is 0 or 1 with probability 1/2 each; on the record 1
# it is 2 (an atom the record 0 never produces) with probability 1/4, else 0 w.p. 1/4, 1 w.p.
# 1/2. P[M(0) in S] <= 2 P[M(1) in S] for every S (ln 2 < 1), but the atom {2} refutes
# P[M(1) in S] <= e P[M(0) in S]: the claim (1, 0) fails in one direction only.


def one_way_leak(data, runs, rng):
    u = rng.random(runs)
    if int(data[0]) == 0:
        return (u < 0.5).astype(np.int64)
    return np.where(u < 0.25, 2, (u < 0.75).astype(np.int64))


def test_one_way_leak_violates_the_claim_in_one_order_only():
    half, quarter = Fraction(1, 2), Fraction(1, 4)
    on_0, on_1 = [half, half, Fraction(0)], [quarter, half, quarter]  # outputs 0, 1, 2
    e = Fraction(math.e)
    assert hockey_stick(on_0, on_1, e) == 0  # (1, 0)-DP in this order
    assert hockey_stick(on_1, on_0, e) == quarter  # the atom {2}: no delta < 1/4 is valid
    rng = np.random.default_rng(5)  # the sampler has that law (seeded; 6-sigma tolerance)
    for data, law in ((BITS.dataset, on_0), (BITS.neighbour, on_1)):
        freq = np.bincount(one_way_leak(data, 40_000, rng), minlength=3) / 40_000
        assert np.all(np.abs(freq - np.array(law, dtype=float)) < 6 * math.sqrt(0.25 / 40_000))


def _both_orders(profile=None):
    return [audit_privacy(one_way_leak, d, n, epsilon=1.0, runs=2000, seed=21, profile=profile)
            for d, n in ((BITS.dataset, BITS.neighbour), (BITS.neighbour, BITS.dataset))]


def _pure_profile(eps):
    # eps-DP gives P(S) - e^e Q(S) <= (1 - e^(e - eps)) P(S) for e < eps: a valid profile.
    return lambda e: max(0.0, 1.0 - math.exp(e - eps))


@pytest.mark.parametrize("profile", [None, _pure_profile(1.0)], ids=["point", "profile"])
def test_a_leak_in_one_direction_is_flagged_in_either_order(profile):
    results = _both_orders(profile)
    assert all(r.violated for r in results), [str(r) for r in results]
    if profile is None:  # the refuting event is the atom, bounded on the record-1 side
        assert [r.event.split("; ")[1] for r in results] == [
            "P[neighbour] vs e^eps P[dataset] + delta", "P[dataset] vs e^eps P[neighbour] + delta"]


@pytest.mark.parametrize("kept", ["dataset", "neighbour"])
def test_the_order_test_catches_a_point_audit_with_one_direction(monkeypatch, kept):
    """Mutation check: a point audit that tests only P[kept] <= e^eps P[other] + delta misses
    the leak in one of the two orders. (Profile mode is immune: its bound B already covers the
    reverse order through complements, see audits.privacy.)"""
    import audits.selection as selection

    monkeypatch.setattr(selection, "EVENT_KINDS", tuple(k for k in selection.EVENT_KINDS if k[0] == kept))
    assert [r.violated for r in _both_orders()] == ([False, True] if kept == "dataset" else [True, False])


def test_worst_case_mechanism_is_not_refuted_but_the_bound_is_tight():
    """Randomized response attains its claim exactly: the estimate sits at eps and the lower
    bound just below it, never above (a single large run; seeded)."""
    result = audit_privacy(randomized_response(1.0), BITS, epsilon=1.0, runs=400_000, seed=7)
    assert not result.violated
    assert 0.95 < result.epsilon_lower <= 1.0
    assert result.epsilon_estimate == pytest.approx(1.0, abs=0.03)


# --------------------------------------------------------------------------------------------
# Power: planted bugs are flagged (alpha = 0.05, seeded).


def test_gaussian_with_half_the_noise_is_flagged_in_point_mode():
    runs = runs_for_gaussian(sigma=SIGMA, factor=0.5, alpha=0.05, mode="point", epsilon=1.0, delta=1e-5)
    result = audit_real(gaussian(0.5 * SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=2 * runs, seed=11)
    assert result.violated, str(result)
    assert result.epsilon_lower > 1.0


def test_laplace_with_half_the_scale_is_flagged():
    result = audit_real(laplace(0.5), PAIR, epsilon=1.0, runs=2000, seed=12)
    assert result.violated and result.epsilon_lower > 1.3, str(result)
    assert result.epsilon_estimate == pytest.approx(2.0, abs=0.3)


def test_randomized_response_with_doubled_epsilon_is_flagged():
    result = audit_privacy(randomized_response(2.0), BITS, epsilon=1.0, runs=2000, seed=13)
    assert result.violated, str(result)
    assert "discrete" in result.statistic
    four = audit_privacy(randomized_response(2.0, k=4), BITS, epsilon=1.0, runs=3000, seed=13)
    assert four.violated, str(four)
    assert "output in {" in four.event


def test_vector_gaussian_is_flagged_with_a_learned_direction():
    result = audit_real(gaussian(0.5 * SIGMA, p=6), PAIR, epsilon=1.0, delta=1e-5, runs=60_000, seed=14)
    assert result.violated, str(result)
    assert "projection" in result.statistic
    whitened = audit_real(gaussian(0.5 * SIGMA, p=6), PAIR, epsilon=1.0, delta=1e-5, runs=60_000,
                             seed=14, whiten=True)
    assert whitened.violated and "whitened" in whitened.statistic


def test_likelihood_ratio_statistic_from_logpdf():
    mech = GaussianWithDensity(0.5 * SIGMA, p=6)
    result = audit_privacy(mech, PAIR, epsilon=1.0, delta=1e-5, runs=60_000, seed=15)
    assert result.violated and "log-likelihood ratio" in result.statistic
    correct = audit_privacy(GaussianWithDensity(SIGMA, p=6), PAIR, epsilon=1.0, delta=1e-5,
                            runs=60_000, seed=15)
    assert not correct.violated


def test_user_statistic_overrides_the_default():
    result = audit_real(gaussian(0.5 * SIGMA, p=3), PAIR, epsilon=1.0, delta=1e-5, runs=60_000,
                           seed=16, statistic=lambda y: y.sum(axis=1))
    assert result.violated and result.statistic.startswith("statistic")


def test_profile_mode_flags_a_mild_bug_that_point_mode_misses():
    """Noise x0.8: the whole-profile test needs few runs; the (eps, delta) point does not see it."""
    kwargs = dict(epsilon=1.0, delta=1e-5, runs=30_000, seed=17)
    profile = audit_real(gaussian(0.8 * SIGMA), PAIR, profile=GaussianProfile(SIGMA), **kwargs)
    point = audit_real(gaussian(0.8 * SIGMA), PAIR, **kwargs)
    assert profile.violated and profile.profile_violated and profile.profile_margin > 0, str(profile)
    assert not point.violated, str(point)
    # The same claim written as a trade-off curve gives the same verdict.
    tradeoff = audit_real(gaussian(0.8 * SIGMA), PAIR, profile=GaussianTradeoff(SIGMA), **kwargs)
    assert tradeoff.profile_violated
    assert tradeoff.profile_margin == pytest.approx(profile.profile_margin, abs=1e-4)


def test_profile_run_counts_deliver_their_power():
    """runs_for_gaussian (normal approximation, power 0.9) against 20 seeded audits of the x0.8
    bug: at least 15 must flag it. If the true power were 0.9 this fails with probability 0.011;
    the design margin makes it smaller still."""
    runs = runs_for_gaussian(sigma=SIGMA, factor=0.8, alpha=0.05)
    mech = gaussian(0.8 * SIGMA)
    flagged = sum(audit_privacy(mech, PAIR, epsilon=1.0, delta=1e-5, runs=runs, seed=100 + s,
                                profile=GaussianProfile(SIGMA)).violated for s in range(20))
    assert flagged >= 15


def test_vector_outputs_in_profile_mode_learn_on_selection_runs():
    result = audit_real(gaussian(0.5 * SIGMA, p=3), PAIR, epsilon=1.0, delta=1e-5, runs=20_000,
                           seed=18, profile=GaussianProfile(SIGMA))
    assert result.violated
    assert result.counts["selection_runs"] == 3000 and result.counts["band_runs"] == 17_000
    scalar = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=20_000, seed=18,
                           profile=GaussianProfile(SIGMA))
    assert scalar.counts["band_runs"] == 20_000 and scalar.counts["selection_runs"] == 0


# --------------------------------------------------------------------------------------------
# Tightness at 1e6 runs per dataset (the documented design targets).


@pytest.mark.slow
def test_point_mode_tightness_targets():
    lap = [audit_real(laplace(1.0), PAIR, epsilon=1.0, runs=1_000_000, seed=s).epsilon_lower
           for s in range(2)]
    assert min(lap) >= 0.95, lap
    gau = [audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=1_000_000,
                         seed=s).epsilon_lower for s in range(5)]
    assert np.median(gau) >= 0.70, gau
    assert max(gau) <= 1.0  # and never above the truth


# --------------------------------------------------------------------------------------------
# The claimed bound B(a) of profile mode.


def test_claim_bound_is_never_below_the_exact_gaussian_tradeoff():
    """B from delta(eps) (grid minimum + slack) against the closed-form trade-off
    B(a) = Phi(Phi^-1(a) + mu): never below it, and within 1e-6 of it."""
    mu = 1 / SIGMA
    a = np.concatenate([np.geomspace(1e-10, 0.5, 300), 1 - np.geomspace(1e-10, 0.5, 300)])
    exact = special.ndtr(special.ndtri(a) + mu)
    got = claim_bound(GaussianProfile(SIGMA), a)
    assert np.all(got >= exact)
    assert np.max(got - exact) < 1e-6
    got_tradeoff = claim_bound(GaussianTradeoff(SIGMA), a[:50])
    assert np.all(got_tradeoff >= exact[:50]) and np.max(got_tradeoff - exact[:50]) < 1e-8


def test_claim_bound_of_randomized_response_profile():
    """The profile of randomized response at eps has delta(eps') = 0 for eps' >= eps, so
    B(a) = min(e^eps a, 1 - e^-eps (1 - a)); the kink at eps is exact once eps is on the grid."""
    eps = 0.8
    a = np.linspace(0, 1, 101)
    expected = np.minimum(np.minimum(math.exp(eps) * a, 1 - math.exp(-eps) * (1 - a)), 1)
    got = claim_bound(rr_profile(eps), a, epsilons=(eps,))
    assert np.all(got >= expected) and np.max(got - expected) < 1e-8
    off_grid = claim_bound(rr_profile(eps), a)  # never below, slightly above
    assert np.all(off_grid >= expected) and np.max(off_grid - expected) < 5e-3


# --------------------------------------------------------------------------------------------
# Randomness contract, reproducibility, result object.


def test_five_independent_streams_from_the_seed():
    """Three probe calls come first (children 5, 5 and 6 of spawn(7)); then streams 0-3 feed the
    mechanism in chunks of ``audits.execution.chunk_runs`` runs (256 here), chunk ``c`` of stream
    ``s`` drawing from ``SeedSequence(seed, spawn_key=(s, c))`` (child ``c`` of child ``s``), and
    stream 4 (the auditor's) draws the Poisson test sample sizes of point mode, so the test
    streams get Poisson(850) runs."""
    calls = []

    def mechanism(data, runs, rng):
        calls.append((float(data[0]), runs, rng.standard_normal()))
        return data.sum() + rng.standard_normal(runs)

    def chunks(stream, n, size=256):
        """(dataset value, runs, first draw) of each chunk of a stream of n runs."""
        value = float(PAIR.dataset[0] if stream % 2 == 0 else PAIR.neighbour[0])
        return [(value, min(size, n - start), np.random.default_rng(spawned(stream, c)).standard_normal())
                for c, start in enumerate(range(0, n, size))]

    def spawned(stream, c):  # spawn() counts its children: a fresh sequence every time
        return np.random.SeedSequence(99).spawn(stream + 1)[stream].spawn(c + 1)[c]

    audit_real(mechanism, PAIR, epsilon=1.0, runs=1000, seed=99)
    assert execution.chunk_runs(runs=1000, bytes_per_output=8) == 256
    probes = np.random.SeedSequence(99).spawn(7)
    probe_calls = [(0.0, PROBE_RUNS, np.random.default_rng(c).standard_normal()) for c in (probes[5], probes[5], probes[6])]
    children = np.random.SeedSequence(99).spawn(5)
    auditor = np.random.default_rng(children[4])
    sizes = [int(auditor.poisson(850)), int(auditor.poisson(850))]
    assert calls == probe_calls + chunks(0, 150) + chunks(1, 150) + chunks(2, sizes[0]) + chunks(3, sizes[1])
    calls.clear()
    audit_privacy(mechanism, PAIR, epsilon=1.0, runs=1000, seed=99, profile=lambda e: 0.0)
    assert [c[1] for c in calls] == [PROBE_RUNS] * 3 + [150, 150] + [256, 256, 256, 82] * 2


def test_same_seed_same_result_and_seed_is_printed():
    a = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=5000, seed=1234)
    b = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=5000, seed=1234)
    c = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=5000, seed=1235)
    assert a == b and a != c
    line = str(a)
    assert "\n" not in line and "seed 1234" in line and "5000 runs/dataset" in line
    assert line.startswith("(1, 1e-05)-DP claim: estimate")
    assert line.endswith("| not refuted (low-bit test off: low_bits=False audits the real-valued idealisation)")
    fresh = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, runs=1000)
    assert isinstance(fresh.seed, int) and fresh.seed >= 0
    again = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, runs=1000, seed=fresh.seed)
    assert again == fresh
    p1 = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=2000, seed=5,
                       profile=GaussianProfile(SIGMA))
    p2 = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=2000, seed=5,
                       profile=GaussianProfile(SIGMA))
    assert p1 == p2 and p1.curve == p2.curve
    assert "profile holds" in str(p1) and "\n" not in str(p1)


def test_result_fields_and_json():
    def disjoint(data, runs, rng):  # outputs in [0, 0.5] on the dataset, [1, 1.5] on the neighbour
        return data.sum() + 0.5 * rng.random(runs)

    r = audit_privacy(disjoint, PAIR, epsilon=1.0, runs=500, seed=3)
    assert isinstance(r, AuditResult) and r.mode == "point" and r.violated
    assert r.runs == 500 and r.alpha == 0.05 and r.seed == 3 and r.relation == "replace-one"
    assert r.counts["selection_runs"] + r.counts["test_runs"] == 500
    assert r.verdict == "refuted by values" and "values" in r.refuted_by
    assert " | REFUTED by its values (lower bound " in str(r)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["violated"] is True and d["seed"] == 3 and d["result_type"] == "privacy"
    assert d["verdict"] == "refuted by values" and d["refuted_by"] == list(r.refuted_by)
    assert d["families"]["values"]["violated"] is True and d["families"]["low_bits"]["status"] == "tested"
    # An event never seen on the other dataset gives an infinite estimate, written as null and listed.
    assert r.epsilon_estimate == math.inf and d["epsilon_estimate"] is None and "epsilon_estimate" in d["infinite"]
    p = audit_real(gaussian(SIGMA), PAIR, epsilon=1.0, delta=1e-5, runs=1000, seed=3,
                      profile=GaussianProfile(SIGMA))
    dp = json.loads(json.dumps(p.to_dict(), allow_nan=False))
    assert dp["mode"] == "profile" and len(dp["curve"]["q_hat"]) <= 200


def test_add_remove_pairs_are_accepted():
    pair = add_remove_one(np.zeros(4), record=1.0)
    r = audit_real(gaussian(SIGMA), pair, epsilon=1.0, delta=1e-5, runs=1000, seed=1)
    assert r.relation == "add/remove-one"
    r2 = audit_real(gaussian(SIGMA), np.zeros(4), np.zeros(3), epsilon=1.0, runs=1000, seed=1)
    assert r2.relation == "add/remove-one"


# --------------------------------------------------------------------------------------------
# Bad input.

GOOD = dict(epsilon=1.0, delta=1e-5, runs=1000, seed=0)


@pytest.mark.parametrize("change,error,message", [
    (dict(epsilon=0.0), PrivacyParameterError, r"epsilon \(0.0\) must be > 0"),
    (dict(epsilon=-1.0), PrivacyParameterError, "epsilon"),
    (dict(epsilon=float("nan")), PrivacyParameterError, "epsilon"),
    (dict(epsilon=float("inf")), PrivacyParameterError, "epsilon"),
    (dict(delta=1.0), PrivacyParameterError, r"delta \(1.0\) must be in \[0, 1\)"),
    (dict(delta=-0.1), PrivacyParameterError, "delta"),
    (dict(delta=float("nan")), PrivacyParameterError, "delta"),
    (dict(runs=99), ParameterError, r"runs \(99\) must be >= 100"),
    (dict(runs=1000.0), TypeError, "runs"),
    (dict(alpha=0.0), PrivacyParameterError, "alpha"),
    (dict(alpha=1.0), PrivacyParameterError, "alpha"),
    (dict(seed=-1), ParameterError, "seed"),
    (dict(seed=1.5), TypeError, "seed"),
    (dict(statistic=3), TypeError, "statistic"),
    (dict(profile=3), TypeError, "profile"),
    (dict(profile=lambda e: float("nan")), ParameterError, "nan"),
    (dict(profile=lambda e: -0.5), ParameterError, "must be in"),
    (dict(selection_fraction=0.95), ParameterError, "selection_fraction"),
    (dict(whiten="yes"), TypeError, "whiten"),
    (dict(relation="add/remove-one"), ParameterError, "differs from the pair"),
])
def test_bad_parameters_are_rejected(change, error, message):
    with pytest.raises(error, match=message):
        audit_real(gaussian(SIGMA), PAIR, **{**GOOD, **change})


def test_bad_tradeoff_is_rejected():
    class Increasing:
        def tradeoff(self, a):
            return a

    with pytest.raises(ParameterError, match="nonincreasing"):
        audit_real(gaussian(SIGMA), PAIR, profile=Increasing(), **GOOD)


@pytest.mark.parametrize("mechanism,message", [
    (lambda data, runs, rng: np.zeros(runs - 1), r"one output per run .* runs=256 .* runs=1000 you asked"),
    (lambda data, runs, rng: np.full(runs, np.nan), "NaN or infinite"),
    (lambda data, runs, rng: np.full(runs, np.inf), "NaN or infinite"),
    (lambda data, runs, rng: 1.0, "one output per run along the first axis"),
    (lambda data, runs, rng: np.array(["a"] * runs), "numeric"),
    (lambda data, runs, rng: np.zeros((runs, 0)), "empty outputs"),
])
def test_bad_mechanism_outputs_are_rejected_naming_the_mechanism(mechanism, message):
    with pytest.raises(ParameterError, match=message) as info:
        audit_privacy(mechanism, PAIR, **GOOD)
    assert "mechanism <lambda>" in str(info.value)


def test_outputs_changing_shape_between_calls_are_rejected():
    def mechanism(data, runs, rng):  # the selection calls (150 runs) differ from the test chunks
        return rng.standard_normal((runs, 1 if runs == 150 else 2))

    with pytest.raises(ParameterError, match="different shapes"):
        audit_privacy(mechanism, PAIR, **GOOD)


def test_not_callable_and_bad_statistics():
    with pytest.raises(TypeError, match="mechanism"):
        audit_privacy("not a function", PAIR, **GOOD)
    with pytest.raises(ParameterError, match=r"one value per output \(shape \(150,\) for 150 outputs\)"):
        audit_real(gaussian(SIGMA), PAIR, statistic=lambda y: y[:10], **GOOD)
    with pytest.raises(ParameterError, match="NaN"):
        audit_real(gaussian(SIGMA), PAIR, statistic=lambda y: y * np.nan, **GOOD)


@pytest.mark.parametrize("dataset,neighbour,kwargs", [
    (np.zeros(5), np.ones(5), {}),  # five differing records: group privacy, not neighbours
    (np.zeros(5), np.zeros(5), {}),  # identical
    (np.zeros(5), np.zeros(7), {}),
    (np.zeros(5), np.zeros(4), {"relation": "replace-one"}),
    (np.array([0.0, np.nan]), np.array([1.0, np.nan]), {}),
])
def test_non_neighbouring_pairs_are_rejected(dataset, neighbour, kwargs):
    with pytest.raises(ParameterError):
        audit_real(gaussian(SIGMA), dataset, neighbour, **GOOD, **kwargs)


def test_pair_and_neighbour_together_or_missing_are_rejected():
    with pytest.raises(ParameterError, match="not both"):
        audit_real(gaussian(SIGMA), PAIR, np.zeros(5), **GOOD)
    with pytest.raises(ParameterError, match="neighbour is required"):
        audit_real(gaussian(SIGMA), np.zeros(5), **GOOD)
    with pytest.raises(TypeError):
        audit_real(gaussian(SIGMA), "data", "other", **GOOD)


def test_probe_accepts_a_mechanism_that_spawns_from_its_rng():
    """A mechanism may spawn child generators from its rng (the wang17 reference does): the probe's
    repeat call with the same seed must see the same children, so no RngWarning is raised."""
    import warnings

    from audits.privacy import RngWarning

    def spawning(data, runs, rng):
        (child,) = rng.spawn(1)
        return float(np.sum(data)) + child.laplace(0.0, 1.0, size=runs)

    pair = replace_one(np.array([0.5, 0.0, 0.0]), 0, -0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RngWarning)
        audit_privacy(spawning, pair, epsilon=1.0, runs=400, seed=5, low_bits=False)


def test_audit_real_valued_is_audit_privacy_without_the_low_bit_test():
    """The float Laplace on a count leaks through its low bits (audit_privacy refutes it); the
    real-valued idealisation holds (audit_real_valued), and the two agree where no bit test runs."""
    from audits import audit_real_valued

    def float_laplace(data, runs, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size=runs)

    pair = replace_one(np.array([1.0, 1.0, 1.0, 1.0]), 0, 0.0)
    assert audit_privacy(float_laplace, pair, epsilon=1.0, runs=20_000, seed=3).violated
    real = audit_real_valued(float_laplace, pair, epsilon=1.0, runs=20_000, seed=3)
    assert not real.violated
    same = audit_privacy(float_laplace, pair, epsilon=1.0, runs=20_000, seed=3, low_bits=False)
    # execution (where the runs ran, and their seconds) describes the run, not the outcome
    assert real == same and real.to_dict() | {"execution": None} == same.to_dict() | {"execution": None}
    with pytest.raises(TypeError, match="low_bits"):
        audit_real_valued(float_laplace, pair, epsilon=1.0, runs=100, seed=3, low_bits=True)


# --------------------------------------------------------------------------------------------
# verdicts that name every finding; the low-bit test in every mode

COUNT = replace_one(np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]), 0, 0.0)  # a count of 4 and of 3


def _verdict(result):
    return str(result).split(" | ")[-1]


def test_halved_float_laplace_is_refuted_by_both_families_and_the_line_names_both():
    """Float Laplace at half its scale on a count (2-DP over the reals) claimed 1-DP: the value
    test and the low-bit test both refute; the line names each with its bound, and the result
    and its JSON carry both families (seeded; each refutation has power near 1 at 20000 runs)."""
    r = audit_privacy(laplace(0.5), COUNT, epsilon=1.0, runs=20_000, seed=1)
    values, bits = r.families["values"], r.families["low_bits"]
    assert values["violated"] and bits["violated"] and r.refuted_by == ("values", "low_bits")
    assert r.verdict == "refuted by values"
    assert _verdict(r) == (f"REFUTED by its values (lower bound {values['epsilon_lower']:.3g}) and by its "
                           f"float low bits (lower bound {bits['epsilon_lower']:.3g})")
    assert values["epsilon_lower"] > 1.5 and values["alpha"] == pytest.approx(0.04)
    assert bits["alpha"] == pytest.approx(0.01) and r.epsilon_lower == max(values["epsilon_lower"],
                                                                           bits["epsilon_lower"])
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["refuted_by"] == ["values", "low_bits"] and d["verdict"] == "refuted by values"
    assert d["families"]["values"]["event"] == values["event"]


def test_correct_float_laplace_is_refuted_only_by_its_low_bits_and_the_line_says_so():
    """The correctly scaled float Laplace: the low bits refute, the values do not; the line says
    that only the low bits refute, gives the values' bound and estimate, names the fix and the
    option that audits the idealisation (seeded)."""
    r = audit_privacy(laplace(1.0), COUNT, epsilon=1.0, runs=20_000, seed=1)
    values = r.families["values"]
    assert r.violated and r.refuted_by == ("low_bits",) and r.verdict == "refuted only by low bits"
    assert not values["violated"] and 0.8 < values["epsilon_lower"] <= 1.0
    text = _verdict(r)
    assert text.startswith("REFUTED only by its float low bits (lower bound ")
    assert (f"the real-valued mechanism is not refuted: its values give lower bound "
            f"{values['epsilon_lower']:.3g} (estimate {values['epsilon_estimate']:.3g})") in text
    assert "a discrete or snapped sampler fixes it" in text and "low_bits=False" in text
    real = audit_privacy(laplace(1.0), COUNT, epsilon=1.0, runs=20_000, seed=1, low_bits=False)
    assert not real.violated and real.families["low_bits"]["status"] == "off"


def test_profile_mode_runs_the_low_bit_test_by_default_and_when_asked():
    """audit_privacy(..., profile=..., low_bits=True) runs the low-bit test (never ignored): the
    float Gaussian at its calibrated sigma holds its profile on its values and is refuted by its
    low bits, with alpha split 4:1 between the bands and the low-bit test (seeded)."""
    kw = dict(epsilon=1.0, delta=1e-5, runs=10_000, seed=2, profile=GaussianTradeoff(SIGMA))
    for low_bits in (True, None):
        r = audit_privacy(gaussian(SIGMA), COUNT, low_bits=low_bits, **kw)
        assert r.families["low_bits"]["status"] == "tested" and r.refuted_by == ("low_bits",), str(r)
        assert not r.profile_violated and r.counts["band_alpha"] == pytest.approx(0.04)
        assert [t["family"] for t in r.tests] == ["low-bit"] and r.tests[0]["alpha"] == pytest.approx(0.01)
        assert "REFUTED only by its float low bits" in str(r)
    off = audit_privacy(gaussian(SIGMA), COUNT, low_bits=False, **kw)
    assert not off.violated and off.families["low_bits"]["status"] == "off" and off.counts["band_alpha"] == 0.05


def test_low_bits_true_on_outputs_without_low_bits_is_an_error_in_every_mode():
    rr = randomized_response(1.0)
    for extra in ({}, {"profile": rr_profile(1.0)}, {"event": lambda y: y == 1}):
        with pytest.raises(ParameterError, match=r"low_bits \(True\): mechanism .* returns integers"):
            audit_privacy(rr, BITS, epsilon=1.0, runs=1000, seed=1, low_bits=True, **extra)


@pytest.mark.parametrize("options,reason", [
    ({"event": 2.5}, "a caller's event; low_bits=True adds it"),
    ({"statistic": lambda y: y}, "a caller's statistic; low_bits=True adds it"),
    ({"low_bits": False}, "low_bits=False audits the real-valued idealisation"),
])
def test_a_low_bit_test_that_does_not_run_is_stated_on_the_line(options, reason):
    r = audit_privacy(laplace(1.0), COUNT, epsilon=1.0, runs=2000, seed=1, **options)
    status = "off" if "low_bits" in options else "not run"
    assert r.families["low_bits"] == {"status": status, "reason": reason}
    assert _verdict(r).endswith(f"(low-bit test {status}: {reason})")
    integers = audit_privacy(randomized_response(1.0), BITS, epsilon=1.0, runs=1000, seed=1)
    assert integers.families["low_bits"] == {"status": "not applicable", "reason": "the outputs are integers"}
    assert _verdict(integers) in ("not refuted", "REFUTED")  # nothing to say about low bits


def test_a_user_event_with_low_bits_true_holds_out_a_selection_share():
    r = audit_privacy(laplace(1.0), COUNT, epsilon=1.0, runs=20_000, seed=1, event=2.5, low_bits=True)
    assert r.counts["selection_runs"] == 3000 and r.counts["test_runs"] == 17_000
    assert [t["family"] for t in r.tests] == ["user event", "user event", "low-bit"]
    assert [t["alpha"] for t in r.tests] == pytest.approx([0.02, 0.02, 0.01])
    assert r.refuted_by == ("low_bits",)


def test_profile_mode_low_bits_can_refute_through_the_profile_alone():
    """A point claim too weak to refute (eps = 20) with a strict profile (pure 1-DP): the low-bit
    event of the float Laplace is beyond the profile's B, which is part of the claim; the line says
    so (seeded)."""
    r = audit_privacy(laplace(1.0), COUNT, epsilon=20.0, runs=20_000, seed=1, profile=rr_profile(1.0))
    bits = r.families["low_bits"]
    assert bits["violated"] and bits["profile_violated"] and not bits["point_violated"]
    assert bits["epsilon_lower"] < 20 and r.refuted_by == ("low_bits",) and not r.profile_violated
    assert f"REFUTED only by its float low bits (lower bound {bits['epsilon_lower']:.3g}, beyond the declared " \
           "profile)" in str(r)
