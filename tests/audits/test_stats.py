"""Tests of audits.stats: exact binomial bounds, DKW bands, the point bound, run counts.

Oracles: binomial tail sums in mpmath at 50 digits; exact binomial probabilities (enumerating
every pair of counts) for the size of the point test; the closed forms of the k = 0 and k = n
bounds. The two Monte Carlo checks state their false-alarm rate and are seeded.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats as sps

from audits import stats
from spec.errors import ParameterError, PrivacyParameterError



@pytest.fixture(autouse=True)
def _mpmath_precision():
    """50-digit mpmath oracles, without leaking the precision into other test modules."""
    with mpmath.workdps(50):
        yield


def upper_tail(n: int, k: int, p) -> mpmath.mpf:
    """P[Bin(n, p) >= k], summed exactly."""
    p = mpmath.mpf(p)
    return mpmath.fsum(mpmath.binomial(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))


def lower_tail(n: int, k: int, p) -> mpmath.mpf:
    """P[Bin(n, p) <= k], summed exactly."""
    p = mpmath.mpf(p)
    return mpmath.fsum(mpmath.binomial(n, j) * p**j * (1 - p) ** (n - j) for j in range(0, k + 1))


CASES = [(1, 10, 0.025), (3, 10, 0.05), (7, 40, 0.001), (50, 100, 0.025), (99, 100, 0.1),
         (5, 1000, 0.0125), (480, 1000, 1e-6)]


@pytest.mark.parametrize("k,n,level", CASES)
def test_clopper_pearson_lower_solves_the_binomial_tail_equation(k, n, level):
    lo = stats.clopper_pearson_lower(k, n, level)
    # Rounded outward: the tail at the bound is at most the level (never anti-conservative) ...
    assert upper_tail(n, k, lo) <= level
    # ... and tight: a relative 1e-9 above the bound, the tail exceeds the level.
    assert upper_tail(n, k, lo * (1 + 1e-9)) > level


@pytest.mark.parametrize("k,n,level", CASES)
def test_clopper_pearson_upper_solves_the_binomial_tail_equation(k, n, level):
    hi = stats.clopper_pearson_upper(k, n, level)
    assert lower_tail(n, k, hi) <= level
    assert lower_tail(n, k, 1 - (1 - hi) * (1 + 1e-9)) > level


def test_clopper_pearson_edge_counts_have_closed_forms():
    n, level = 37, 0.05
    assert stats.clopper_pearson_lower(0, n, level) == 0.0
    assert stats.clopper_pearson_upper(n, n, level) == 1.0
    # k = 0: (1 - p)^n = level;  k = n: p^n = level.
    assert stats.clopper_pearson_upper(0, n, level) == pytest.approx(1 - level ** (1 / n), rel=1e-12)
    assert stats.clopper_pearson_upper(0, n, level) >= 1 - level ** (1 / n)
    assert stats.clopper_pearson_lower(n, n, level) == pytest.approx(level ** (1 / n), rel=1e-12)
    assert stats.clopper_pearson_lower(n, n, level) <= level ** (1 / n)


@pytest.mark.parametrize("n", [1, 7, 30])
@pytest.mark.parametrize("level", [0.05, 0.3])
def test_clopper_pearson_exact_coverage_for_every_p(n, level):
    """For each p on a grid, P_p[lower(K) > p] and P_p[upper(K) < p] are at most the level
    (exact binomial probabilities, all K enumerated)."""
    k = np.arange(n + 1)
    lo = stats.clopper_pearson_lower(k, n, level)
    hi = stats.clopper_pearson_upper(k, n, level)
    for p in np.linspace(0.001, 0.999, 199):
        pmf = sps.binom.pmf(k, n, p)
        assert pmf[lo > p].sum() <= level + 1e-12
        assert pmf[hi < p].sum() <= level + 1e-12


@settings(max_examples=60)
@given(n=st.integers(1, 300), frac=st.floats(0, 1), level=st.floats(1e-6, 0.49))
def test_clopper_pearson_brackets_the_frequency(n, frac, level):
    k = round(frac * n)
    lo = stats.clopper_pearson_lower(k, n, level)
    hi = stats.clopper_pearson_upper(k, n, level)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    if k < n:
        assert stats.clopper_pearson_lower(k + 1, n, level) >= lo
    lo2, hi2 = stats.clopper_pearson(k, n, 2 * level)
    assert (lo2, hi2) == (lo, hi)


def test_clopper_pearson_accepts_fractional_projected_counts():
    lo = stats.clopper_pearson_lower(np.array([2.5, 3.0]), 100, 0.05)
    assert lo[0] < lo[1]
    assert lo[1] == stats.clopper_pearson_lower(3, 100, 0.05)


def test_dkw_radius_formula_and_inverse():
    n, level = 1234, 0.01
    r = stats.dkw_radius(n, level)
    assert r == pytest.approx(math.sqrt(math.log(2 / level) / (2 * n)), rel=1e-15)
    assert stats.dkw_level(n, r) == pytest.approx(level, rel=1e-12)
    assert stats.dkw_level(10, 1e-3) == 1.0


def _ks_statistic(u: np.ndarray) -> np.ndarray:
    """sup_t |F_n(t) - t| for rows of uniform samples (exact, from the order statistics)."""
    n = u.shape[1]
    s = np.sort(u, axis=1)
    i = np.arange(1, n + 1)
    return np.maximum((i / n - s).max(axis=1), (s - (i - 1) / n).max(axis=1))


def test_dkw_band_coverage_continuous_and_discrete():
    """Monte Carlo check of the DKW-Massart level (seeded).

    2000 replications at level 0.2: the number of band failures is Binomial(2000, <= 0.2); the
    test allows up to the 0.9995 quantile of Binomial(2000, 0.2), so it fails by chance with
    probability < 5e-4 per distribution even if the band were exactly at its level.
    """
    rng = np.random.default_rng(20240611)
    reps, n, level = 2000, 50, 0.2
    limit = sps.binom.ppf(0.9995, reps, level)
    r = stats.dkw_radius(n, level)
    u = rng.random((reps, n))
    assert np.count_nonzero(_ks_statistic(u) > r) <= limit
    # Discrete law with atoms (values 0, 1, 2 with probabilities 0.5, 0.3, 0.2).
    x = rng.choice(3, size=(reps, n), p=[0.5, 0.3, 0.2])
    cdf = np.array([0.5, 0.8, 1.0])
    emp = np.stack([(x <= v).mean(axis=1) for v in range(3)], axis=1)
    assert np.count_nonzero(np.abs(emp - cdf).max(axis=1) > r) <= limit


@pytest.mark.parametrize("epsilon,delta,q", [(1.0, 0.0, 0.2), (0.5, 0.0, 0.5), (1.0, 0.05, 0.1),
                                             (2.0, 0.0, 0.1), (0.3, 0.01, 0.6)])
@pytest.mark.parametrize("alpha", [0.05, 0.3])
def test_point_bound_size_is_at_most_alpha_on_the_claim_boundary(epsilon, delta, q, alpha):
    """Exact size: with p = e^eps q + delta (the claim holds with equality),
    P[epsilon_lower > epsilon] over all count pairs is at most alpha."""
    n = 60
    p = min(1.0, math.exp(epsilon) * q + delta)
    k = np.arange(n + 1)
    kp, kq = np.meshgrid(k, k, indexing="ij")
    eps_lo, _, _ = stats.point_bound(kp.ravel(), kq.ravel(), n, delta=delta, alpha=alpha)
    prob = np.outer(sps.binom.pmf(k, n, p), sps.binom.pmf(k, n, q)).ravel()
    size = prob[eps_lo > epsilon].sum()
    assert size <= alpha
    # Not vacuous: the same counts do refute a claim half as large for a fair share of outcomes.
    assert prob[eps_lo > epsilon / 2].sum() > 0 or q * n < 5


def test_point_bound_formula_and_clamps():
    eps_lo, p_lo, q_hi = stats.point_bound(600, 200, 1000, delta=0.01, alpha=0.05)
    assert p_lo == stats.clopper_pearson_lower(600, 1000, 0.025)
    assert q_hi == stats.clopper_pearson_upper(200, 1000, 0.025)
    assert eps_lo == pytest.approx(math.log((p_lo - 0.01) / q_hi), rel=1e-12)
    assert stats.point_bound(5, 900, 1000, alpha=0.05)[0] == 0.0  # negative log clamped
    assert stats.point_bound(2, 0, 1000, delta=0.5, alpha=0.05)[0] == 0.0  # p_lo <= delta
    assert stats.point_bound(1000, 0, 1000, alpha=0.05)[2] > 0  # q_hi never zero


def test_point_estimate_edge_cases():
    assert stats.point_estimate(500, 200, 1000) == pytest.approx(math.log(2.5))
    assert stats.point_estimate(500, 0, 1000) == math.inf
    assert stats.point_estimate(5, 0, 1000, delta=0.01) == 0.0
    assert stats.point_estimate(100, 500, 1000) == 0.0


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.1])
def test_bad_inputs_are_rejected(bad):
    with pytest.raises(ParameterError):
        stats.clopper_pearson_lower(bad, 10, 0.05)
    with pytest.raises(ParameterError):
        stats.clopper_pearson_upper(3, bad, 0.05)
    with pytest.raises(ParameterError):
        stats.dkw_radius(10, bad)
    with pytest.raises(PrivacyParameterError):
        stats.point_bound(1, 1, 10, delta=bad if bad >= 0 else 1.5, alpha=0.05)
    with pytest.raises(PrivacyParameterError):
        stats.runs_for_point(0.5, 0.1, epsilon=bad if bad >= 0 else 0.0, alpha=0.05)


def test_bad_counts_and_types():
    with pytest.raises(ParameterError, match=r"k must lie in \[0, n\]"):
        stats.clopper_pearson_lower(11, 10, 0.05)
    with pytest.raises(ParameterError, match=r"level \(1.0\) must be in \(0, 1\)"):
        stats.clopper_pearson_upper(1, 10, 1.0)
    with pytest.raises(TypeError):
        stats.dkw_radius(10.5, 0.05)
    with pytest.raises(TypeError):
        stats.clopper_pearson_lower(1, True, 0.05)


def test_runs_for_point_reaches_its_exact_power_and_no_fewer_runs_do():
    """At the returned run count the exact power (point_power) of the conditional Poisson test
    reaches the target and 5% fewer runs fall short (the bisection is tight). The normal
    approximation m = (z_{1-alpha} + z_power)^2 v / g^2 used before asks for too few runs at
    small counts (132 here, exact power 0.77 < 0.9): the shortfall issue 13 measured."""
    p, q, eps, delta, alpha, power = 0.5, 0.5 * math.exp(-2.0), 1.0, 1e-3, 0.01, 0.9
    runs = stats.runs_for_point(p, q, epsilon=eps, delta=delta, alpha=alpha, power=power,
                                selection_fraction=0.0)
    assert stats.point_power(p, q, runs, epsilon=eps, delta=delta, alpha=alpha) >= power
    assert stats.point_power(p, q, 0.95 * runs, epsilon=eps, delta=delta, alpha=alpha) < power
    c = math.exp(eps)
    gap, var = p - delta - c * q, p + c * c * q + c * delta
    normal = (special.ndtri(1 - alpha) + special.ndtri(power)) ** 2 * var / gap**2
    assert normal < runs
    assert stats.point_power(p, q, math.ceil(normal), epsilon=eps, delta=delta, alpha=alpha) < 0.8
    with_selection = stats.runs_for_point(p, q, epsilon=eps, delta=delta, alpha=alpha, power=power)
    assert abs(with_selection - runs / (1 - stats.SELECTION_FRACTION)) <= 2


@pytest.mark.parametrize("p,q,m,eps,delta,alpha", [(0.3, 0.05, 60, 1.0, 0.0, 0.05), (0.2, 0.06, 150, 0.5, 0.01, 0.1),
                                                     (0.02, 0.002, 900, 1.0, 1e-3, 0.01)])
def test_point_power_equals_the_enumerated_rejection_probability(p, q, m, eps, delta, alpha):
    """Oracle: enumerate (K_p, K_q + B) ~ independent Poissons and add the probabilities of the
    counts at which the test's own p-value rejects at the grid point above eps."""
    eps1 = (math.floor(eps / stats.EPSILON_STEP + 1e-9) + 1) * stats.EPSILON_STEP
    lam_p, lam_qb = m * p, m * (q + delta * math.exp(-eps1))
    top = int(lam_p + lam_qb + 14 * math.sqrt(lam_p + lam_qb) + 40)
    k = np.arange(top + 1)
    kp, kqb = np.meshgrid(k, k, indexing="ij")
    rejects = stats.poisson_pvalue(kp.ravel(), kqb.ravel(), 0, epsilon=eps1) <= alpha
    prob = np.outer(sps.poisson.pmf(k, lam_p), sps.poisson.pmf(k, lam_qb)).ravel()
    want = prob[rejects].sum()
    assert stats.point_power(p, q, m, epsilon=eps, delta=delta, alpha=alpha) == pytest.approx(want, abs=1e-9)


def test_point_power_riemann_sum_at_large_counts_matches_simulation():
    """Beyond lambda = 6400 point_power sums every step-th term. Simulated with 4000 seeded
    replications at lambda ~ 2.5e5 the rejection rate lies within 4 standard errors of it
    (a false alarm of this check has probability below 1e-4)."""
    p, q, m, eps, alpha = 0.2, 0.2 * math.exp(-1.008), 1_000_000, 1.0, 0.05
    want = stats.point_power(p, q, m, epsilon=eps, alpha=alpha)
    assert 0.2 < want < 0.8  # not a trivial 0 or 1
    rng = np.random.default_rng(20)
    kp, kq = rng.poisson(m * p, 4000), rng.poisson(m * q, 4000)
    rate = np.mean(stats.poisson_pvalue(kp, kq, 0, epsilon=1.001) <= alpha)
    assert abs(rate - want) < 4 * math.sqrt(want * (1 - want) / 4000)


def _upper_tail_by_ratio(n: int, k: int, pi) -> mpmath.mpf:
    """P[Bin(n, pi) >= k] at 50 digits: the first term from log-gamma, the rest by the term
    ratio, summed until the terms fall below 1e-45 of the sum (k above the mean)."""
    log_t = (mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
             + k * mpmath.log(pi) + (n - k) * mpmath.log(1 - pi))
    term = mpmath.e**log_t
    total, ratio = term, pi / (1 - pi)
    for j in range(k, n):
        term *= (n - j) * ratio / (j + 1)
        total += term
        if term < total * mpmath.mpf(10) ** -45:
            break
    return total


@pytest.mark.parametrize("n,k,eps", [(10**5, 73_300, 1.0), (10**6, 731_700, 1.0), (10**6, 501_000, 0.0),
                                     (10**6, 732_500, 1.0), (2 * 10**6, 1_463_000, 1.0),
                                     (3 * 10**6, 2_195_000, 1.0), (3 * 10**6, 1_869_000, 0.5)])
def test_binomial_tail_is_never_below_the_mpmath_oracle_at_large_counts(n, k, eps):
    """scipy's binomial tail errs by up to ~1e-8 relative at counts ~1e6 (in either direction);
    the p-value is rounded up by TAIL_MARGIN = 1e-6, so it is never below the 50-digit tail (the
    safe direction) and at most 2e-6 above it."""
    with mpmath.workdps(50):
        pi = mpmath.e**eps / (1 + mpmath.e**eps)
        exact = _upper_tail_by_ratio(n, k, pi)
        assert 1e-6 < exact < 0.5  # the p-values a test at alpha ~ 1e-5 .. 0.05 compares
        pv = stats.poisson_pvalue(k, n - k, 0, epsilon=eps)
        assert mpmath.mpf(pv) >= exact
        assert mpmath.mpf(pv) <= exact * (1 + 2 * stats.TAIL_MARGIN)


def test_runs_for_point_delivers_its_power_in_simulation():
    """Simulated power of poisson_point_bound at the run count of runs_for_point (no selection):
    200 seeded replications; the normal approximation is close, so the rate must exceed 0.8
    (with true power 0.9 the chance of <= 160/200 is below 1e-4)."""
    p, q, eps, delta, alpha = 0.3, 0.3 * math.exp(-1.6), 1.0, 1e-4, 0.01
    m = stats.runs_for_point(p, q, epsilon=eps, delta=delta, alpha=alpha, selection_fraction=0.0)
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(200):
        arrivals = stats.poisson_arrivals(m, delta, rng=rng)
        kp, kq = int(rng.poisson(m * p)), int(rng.poisson(m * q))
        hits += stats.poisson_point_bound(kp, kq, m, delta=delta, alpha=alpha, arrivals=arrivals) > eps
    assert hits > 160


# --- the conditional Poisson point test ---------------------------------------------------


@pytest.mark.parametrize("epsilon,delta,q,m", [(1.0, 0.0, 0.05, 200), (0.5, 0.01, 0.2, 100),
                                               (2.0, 1e-3, 0.01, 400), (0.1, 0.05, 0.3, 50)])
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_poisson_pvalue_exact_size_on_the_claim_boundary(epsilon, delta, q, m, alpha):
    """Exact size (no simulation): with m p = e^eps m q + m delta (the claim with equality),
    sum over (K_p, K_q, B) of the Poisson probabilities of {p-value <= alpha} is <= alpha."""
    p = math.exp(epsilon) * q + delta
    lam_p, lam_q, lam_b = m * p, m * q, m * delta * math.exp(-epsilon)
    top = int(lam_p + lam_q + lam_b + 12 * math.sqrt(lam_p + lam_q + lam_b) + 30)
    k = np.arange(top + 1)
    # K_q + B ~ Poisson(lam_q + lam_b): the p-value depends on K_q and B only through the sum.
    kp, kqb = np.meshgrid(k, k, indexing="ij")
    pv = stats.poisson_pvalue(kp.ravel(), kqb.ravel(), 0, epsilon=epsilon)
    prob = np.outer(sps.poisson.pmf(k, lam_p), sps.poisson.pmf(k, lam_q + lam_b)).ravel()
    size = prob[pv <= alpha].sum()
    assert size <= alpha
    assert size > alpha / 20  # not vacuous: the test spends a fair share of alpha


def test_poisson_point_bound_false_alarm_rate_by_simulation():
    """Whole inversion incl. arrivals and the grid: 4000 seeded replications at the boundary
    p = e^eps q + delta, alpha = 0.05. False-alarm rate of this check: the count of
    {epsilon_lower > eps} is Bin(4000, <= 0.05); failing needs > 245 (P < 1e-3 at size 0.05)."""
    eps, delta, q, m, alpha = 1.0, 0.01, 0.02, 2000, 0.05
    p = math.exp(eps) * q + delta
    rng = np.random.default_rng(2024)
    above = 0
    for _ in range(4000):
        arrivals = stats.poisson_arrivals(m, delta, rng=rng)
        kp, kq = int(rng.poisson(m * p)), int(rng.poisson(m * q))
        above += stats.poisson_point_bound(kp, kq, m, delta=delta, alpha=alpha, arrivals=arrivals) >= eps
    assert above <= 245
    assert above > 60  # near the boundary the bound reaches eps a fair share of the time


@pytest.mark.parametrize("kp, kq, m", [(300, 60, 1000), (9000, 40, 100_000), (5000, 1, 10_000)])
def test_poisson_point_bound_is_the_inversion_of_the_pvalue(kp, kq, m):
    """Every grid point up to the bound is rejected and the next one is not; the bounds near
    1.36, 4.97 and 6.96 lie in the first, third and fourth of the inversion's blocks of grid
    points (a block that stopped early or late would break one of the two checks)."""
    delta, alpha = 0.01, 0.05
    arrivals = stats.poisson_arrivals(m, delta, rng=np.random.default_rng(3))
    lo = stats.poisson_point_bound(kp, kq, m, delta=delta, alpha=alpha, arrivals=arrivals)
    step = stats.EPSILON_STEP
    grid = np.arange(0.0, lo + step / 2, step)
    b = np.searchsorted(arrivals, m * delta * np.exp(-grid), side="right")
    assert np.all(stats.poisson_pvalue(kp, kq, b, epsilon=grid) <= alpha)
    nxt = lo + step
    b1 = np.searchsorted(arrivals, m * delta * math.exp(-nxt), side="right")
    assert stats.poisson_pvalue(kp, kq, b1, epsilon=nxt) > alpha
    # below the plug-in value ln(kp/kq) by the sampling margin
    assert 0.6 * math.log(kp / kq) < lo < math.log(kp / kq)


def test_poisson_point_bound_edge_cases():
    empty = np.zeros(0)
    assert stats.poisson_point_bound(0, 0, 100, alpha=0.05, arrivals=empty) == 0.0
    assert stats.poisson_point_bound(0, 50, 100, alpha=0.05, arrivals=empty) == 0.0
    assert stats.poisson_pvalue(0, 5, 0, epsilon=1.0) == 1.0
    # delta = 0: no arrivals, the test is the plain conditional test; k_q = 0 gives a finite bound
    # P[Bin(k, pi) >= k] = pi^k <= alpha  <=>  eps <= logit(alpha^(1/k))
    lo = stats.poisson_point_bound(20, 0, 100, delta=0.0, alpha=0.05, arrivals=empty)
    exact = math.log(0.05 ** (1 / 20) / (1 - 0.05 ** (1 / 20)))
    assert exact - stats.EPSILON_STEP <= lo <= exact
    assert stats.poisson_arrivals(100, 0.0, rng=np.random.default_rng(1)).size == 0
    # p-value matches scipy's binomial tail (rounded up by the relative margin)
    pv = stats.poisson_pvalue(7, 3, 2, epsilon=0.4)
    ref = sps.binom.sf(6, 12, math.exp(0.4) / (1 + math.exp(0.4)))
    assert ref <= pv <= ref * (1 + 2 * stats.TAIL_MARGIN)


def test_projected_point_bound_tracks_the_exact_bound():
    """Fed expected counts, the smooth projection agrees with the integer-count bound."""
    m, delta, alpha = 10000, 0.0, 0.05
    p, q = 0.3, 0.05
    proj = stats.projected_point_bound(p, q, m, delta=delta, alpha=alpha)
    exact = stats.poisson_point_bound(int(p * m), int(q * m), m, delta=delta, alpha=alpha,
                                      arrivals=np.zeros(0))
    assert proj.shape == (1,)
    assert abs(proj[0] - exact) < 0.01
    assert stats.projected_point_bound(0.01, 0.5, m, alpha=alpha)[0] == -1.0


@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.01])
def test_projected_point_bound_best_only_keeps_the_best_entries_bit_for_bit(delta):
    """best_only (the event choice) skips the candidates that cannot win: the entries it keeps
    equal the full computation's bit for bit, the argmax is the same, and every skipped entry
    (-1) is strictly below the largest. Candidates: the shrunk frequencies of 4 x 2048 seeded
    threshold events, as in a point-mode selection."""
    rng = np.random.default_rng(31)
    m = 20_000
    for _ in range(6):
        x = np.sort(rng.normal(size=2048)) * 3
        shift = rng.uniform(0.2, 1.5)
        p = np.concatenate([special.ndtr(shift - x), special.ndtr(x - shift)])
        q = np.concatenate([special.ndtr(-x), special.ndtr(x)])
        p, q = np.concatenate([p, q]), np.concatenate([q, p])
        ns = 6000
        kp, kq = rng.binomial(ns, p), rng.binomial(ns, q)
        shrunk_p, shrunk_q = stats.clopper_pearson_lower(kp, ns, 0.05), stats.clopper_pearson_upper(kq, ns, 0.05)
        full = stats.projected_point_bound(shrunk_p, shrunk_q, m, delta=delta, alpha=0.05)
        best = stats.projected_point_bound(shrunk_p, shrunk_q, m, delta=delta, alpha=0.05, best_only=True)
        kept = best != -1.0
        assert np.array_equal(best[kept], full[kept])
        assert int(np.argmax(best)) == int(np.argmax(full))
        assert np.all(full[~kept] < full.max())
        if delta > 0:
            assert kept.mean() < 0.5  # it does skip most candidates (else it buys nothing)


def test_quantile_ceiling_bounds_the_beta_quantile():
    """The cheap ceiling best_only prunes with is never below the root it stands for (the logit
    of the alpha-quantile of Beta(a, b)), on seeded shapes from 1 to 1e7 and levels up to 1/4,
    and infinite where it does not apply."""
    rng = np.random.default_rng(12)
    a, b = 10 ** rng.uniform(0, 7, (2, 20_000))
    alpha = 10 ** rng.uniform(-8, math.log10(0.25), 20_000)
    with np.errstate(all="ignore"):
        root = special.logit(special.betaincinv(a, b, alpha))
        ceiling = np.array([stats._quantile_ceiling(x, y, z) for x, y, z in zip(a[:2000], b[:2000], alpha[:2000])])
        ceiling = np.concatenate([ceiling, stats._quantile_ceiling(a[2000:], b[2000:], 0.25)])
        root[2000:] = special.logit(special.betaincinv(a[2000:], b[2000:], 0.25))
    finite = np.isfinite(root)
    assert finite.mean() > 0.99 and np.all(ceiling[finite] >= root[finite])
    assert np.isinf(stats._quantile_ceiling(np.array([0.5, 3.0]), np.array([3.0, 1.0]), 0.05)).all()
    assert np.isinf(stats._quantile_ceiling(np.array([3.0]), np.array([3.0]), 0.3)).all()


def test_runs_for_gaussian_and_laplace_grow_as_the_bug_shrinks():
    sigma = 3.7306
    prof = [stats.runs_for_gaussian(sigma=sigma, factor=f, alpha=0.01) for f in (0.5, 0.8, 0.9)]
    assert prof[0] < prof[1] < prof[2]
    # The point claim (1, 1e-5) of the Gaussian x0.8, from its events {X > x} (both directions),
    # without the selection: the simulated count (runs_for_gaussian(mode="point")) starts its
    # search here and only grows (tests/audits/test_design.py), and already this is > 10x.
    mu1 = 1.0 / (0.8 * sigma)
    x = np.linspace(-6.0, 12.0, 3601)
    p, q = special.ndtr(mu1 - x), special.ndtr(-x)
    point = stats.runs_for_point(np.concatenate([p, 1 - q]), np.concatenate([q, 1 - p]), epsilon=1.0,
                                 delta=1e-5, alpha=0.01)
    assert point > 10 * prof[1]  # the profile is what gives power with few runs
    lap = [stats.runs_for_laplace(scale=1.0, factor=f, epsilon=1.0, alpha=0.01) for f in (0.5, 0.8)]
    assert lap[0] < lap[1]


@pytest.mark.parametrize("band, levels", [("dkw", 4), ("weighted", 4 / 0.9)])
def test_runs_for_profile_formula(band, levels):
    """The DKW part of each band: level alpha/2 (dkw) or 0.9 alpha/2 (weighted)."""
    p, q, b, s = 0.6, 0.4, 0.55, 1.2
    n = stats.runs_for_profile(p, q, b, s, alpha=0.05, power=0.9, band=band)
    c = math.sqrt(math.log(levels / 0.05) / 2)
    need = ((c * (1 + s) + special.ndtri(0.9) * math.sqrt(p * (1 - p) + s * s * q * (1 - q))) / (p - b)) ** 2
    assert n == math.ceil(need)


# --------------------------------------------------------------------------------------------
# cdf_band


def test_dkw_band_is_the_count_frequency_plus_minus_the_radius():
    low, high = stats.cdf_band(200, 0.01, "dkw")
    r = math.sqrt(math.log(2 / 0.01) / 400)
    c = np.arange(201) / 200
    assert np.allclose(low, np.clip(c - r, 0, 1), atol=0) and np.allclose(high, np.clip(c + r, 0, 1), atol=0)


@pytest.mark.parametrize("n", [1, 7, 50, 1000])
def test_weighted_band_ends_are_the_beta_closed_forms(n):
    """No value below the threshold: upper[0] = min(r, 1 - lambda^(1/n)) (the 1 - lambda quantile of
    Beta(1, n)); all of them: lower[n] = max(1 - r, lambda^(1/n)); lambda = 0.1 level/(2n), r the
    DKW radius at 0.9 level. In between, never wider than that DKW band."""
    level = 0.01
    low, high = stats.cdf_band(n, level)
    lam, r = 0.1 * level / (2 * n), math.sqrt(math.log(2 / (0.9 * level)) / (2 * n))
    assert high[0] == pytest.approx(min(r, 1 - lam ** (1 / n)), rel=1e-9)
    assert low[n] == pytest.approx(max(1 - r, lam ** (1 / n)), rel=1e-9)
    assert low[0] == 0.0 and high[n] == 1.0
    c = np.arange(n + 1) / n
    assert np.all(low >= np.clip(c - r, 0, 1)) and np.all(high <= np.clip(c + r, 0, 1))
    assert np.all(low <= c) and np.all(high >= c) and np.all(np.diff(low) >= 0) and np.all(np.diff(high) >= 0)
    assert np.allclose(high, 1 - low[::-1], rtol=0, atol=1e-12)  # {T > t} holding c: the same bounds


def test_weighted_band_is_mpmath_beta_quantiles_in_the_tails():
    """lower[c] at a tail count against the mpmath inverse of the regularised incomplete beta
    (the law of the c-th uniform order statistic), at 0.1 level/(2n)."""
    n, level = 2000, 1e-3
    low, high = stats.cdf_band(n, level)
    lam = mpmath.mpf(level) / 10 / (2 * n)
    for c in (3, 40):
        oracle = mpmath.findroot(lambda x: mpmath.betainc(c, n - c + 1, 0, x, regularized=True) - lam,
                                 (mpmath.mpf(1e-9), mpmath.mpf(c) / n), solver="bisect")
        assert low[c] == pytest.approx(float(oracle), rel=1e-6) and low[c] <= float(oracle)
        upper_oracle = 1 - mpmath.findroot(
            lambda x: mpmath.betainc(n - c, c + 1, 0, x, regularized=True) - lam,
            (mpmath.mpf(1) - mpmath.mpf(c + 60) / n, mpmath.mpf(1) - mpmath.mpf(c) / n), solver="bisect")
        assert high[c] == pytest.approx(float(upper_oracle), rel=1e-6) and high[c] >= float(upper_oracle)


@pytest.mark.parametrize("kind", stats.BANDS)
def test_band_coverage_by_simulation(kind):
    """Simultaneous coverage of every threshold event, uniform values (n = 60, level 0.2): over
    2000 seeded samples the band fails in at most the 0.999 quantile of Binomial(2000, 0.2)
    (chance failure < 0.001 if the level holds); discrete values (atoms) as well."""
    n, level, reps = 60, 0.2, 2000
    low, high = stats.cdf_band(n, level, kind)
    rng = np.random.default_rng(17)
    fails = 0
    for _ in range(reps // 2):  # continuous: count c holds on [t_(c), t_(c+1)), F from t_(c) to t_(c+1)
        t = np.concatenate([[0.0], np.sort(rng.random(n)), [1.0]])
        fails += bool(np.any(t[:-1] < low) or np.any(t[1:] > high))
    for _ in range(reps // 2):  # five atoms 0, 1/4, ..., 1: F = (k+1)/5 on [v_k, v_k+1), c_k values <= v_k
        u = rng.integers(0, 5, n)
        c = np.concatenate([[0], np.cumsum(np.bincount(u, minlength=5))])
        f = np.arange(6) / 5.0
        fails += bool(np.any(f < low[c]) or np.any(f > high[c]))
    assert fails <= sps.binom.ppf(0.999, reps, level)


def test_runs_for_undetectable_bugs_raise():
    with pytest.raises(ParameterError, match="cannot be detected"):
        stats.runs_for_point(0.3, 0.2, epsilon=1.0, alpha=0.05)
    with pytest.raises(ParameterError, match="cannot be detected"):
        stats.runs_for_profile(0.3, 0.3, 0.4, 1.0, alpha=0.05)
    with pytest.raises(ParameterError):
        stats.runs_for_gaussian(sigma=1.0, factor=0.5, alpha=0.05, mode="point")
    with pytest.raises(ParameterError):
        stats.runs_for_gaussian(sigma=1.0, factor=1.5, alpha=0.05)
