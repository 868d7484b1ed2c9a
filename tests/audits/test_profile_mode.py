"""Tests of audits.profile_mode: the band test of profile mode (DKW, and the weighted band of
audits.stats.cdf_band) and its plotted curve.

Oracles: samples whose empirical distribution functions are known by construction (identical
samples; two samples with every value of one above every value of the other), the DKW-Massart
radius ``sqrt(ln(2/level)/(2n))`` at level ``alpha/2``, and the closed-form pure eps-DP bound
``B(a) = min(1, e^eps a, 1 - e^-eps (1 - a))``. The two Monte Carlo tests are seeded and state
their error rates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special
from scipy import stats as sps

from audits import selection
from audits.claims import SLACK, ClaimBound
from audits.privacy import AuditResult
from audits.profile_mode import MAX_EXACT, curve_points, profile_test
from audits.statistics import identity_statistic

ALPHA = 0.05
KEYS = [("dataset", ">"), ("dataset", "<="), ("neighbour", ">"), ("neighbour", "<=")]


def pure_b(a, eps=1.0):
    a = np.asarray(a, dtype=float)
    return np.minimum(1.0, np.minimum(math.exp(eps) * a, 1.0 - math.exp(-eps) * (1.0 - a)))


def radius(n, alpha=ALPHA):
    """DKW-Massart: 2 exp(-2 n r^2) = alpha/2 for each of the two bands."""
    return math.sqrt(math.log(2.0 / (alpha / 2)) / (2.0 * n))


class PureTradeoff:
    """Pure 1-DP as a trade-off function."""

    def tradeoff(self, a):
        return max(0.0, 1.0 - math.e * a, (1.0 - a) / math.e)


PROFILE = ClaimBound(lambda e: max(0.0, (math.e - math.exp(e)) / (1.0 + math.e)), (1.0,))
TRADEOFF = ClaimBound(PureTradeoff())


def run(t_d, t_n, bound=PROFILE, *, epsilon=1.0, delta=0.0, alpha=ALPHA, n_sel=0, band="dkw"):
    common = {"epsilon": epsilon, "delta": delta, "runs": t_d.size + n_sel, "alpha": alpha, "seed": 0,
              "mechanism": "m", "relation": "replace-one"}
    return profile_test(np.asarray(t_d, float), np.asarray(t_n, float), bound, identity_statistic(),
                        n_sel, common, AuditResult, band=band)


def weighted_band(n, alpha=ALPHA):
    """The weighted band per dataset (level alpha/2) from scipy's Beta laws: DKW at 0.9 alpha/2
    intersected with the order-statistic quantiles at 0.1 alpha/(4n)."""
    r = math.sqrt(math.log(2.0 / (0.9 * alpha / 2)) / (2.0 * n))
    c = np.arange(n + 1)
    lam = 0.1 * alpha / (4 * n)
    low = np.where(c > 0, sps.beta.ppf(lam, np.maximum(c, 1), n - c + 1), 0.0)
    high = np.where(c < n, sps.beta.isf(lam, c + 1, np.maximum(n - c, 1)), 1.0)
    return np.maximum(np.clip(c / n - r, 0, 1), low), np.minimum(np.clip(c / n + r, 0, 1), high)


def scale(lower, upper, b):
    """Oracle of the profile scale of one event (audits.profile_mode docstring): the probit ratio
    (Phi^-1(L) - Phi^-1(U)) / (Phi^-1(B(U)) - Phi^-1(U)), 0 when L <= U or B(U) >= 1."""
    if lower <= upper or b >= 1.0:
        return 0.0
    z = sps.norm.ppf
    return (z(lower) - z(upper)) / (z(b) - z(upper))


def separated(n, seed=0):
    """Dataset values all in (2, 3), neighbour values all in (0, 1)."""
    rng = np.random.default_rng(seed)
    return 2.0 + rng.uniform(size=n), rng.uniform(size=n)


def test_identical_samples_are_not_refuted_and_the_scale_is_zero():
    """Equal counts on every event: lower_p < upper_q <= B(upper_q), so nothing can be flagged,
    and no event shows any advantage: the profile scale is 0 (margin -1), and the estimated loss
    is 0."""
    n = 500
    t = np.random.default_rng(1).standard_normal(n)
    res = run(t, t.copy(), n_sel=7)
    assert not res.violated and not res.profile_violated
    assert res.profile_scale == 0.0 and res.profile_margin == -1.0
    assert res.profile_runs_to_refute is None
    assert res.epsilon_lower == 0.0 and res.epsilon_estimate == 0.0
    assert res.mode == "profile" and res.statistic == "output (scalar)"
    assert res.counts["selection_runs"] == 7 and res.counts["band_runs"] == n
    assert res.counts["band_radius"] == pytest.approx(radius(n), rel=1e-14)


@pytest.mark.parametrize("bound", [PROFILE, TRADEOFF], ids=["profile", "tradeoff"])
@pytest.mark.parametrize("delta", [0.0, 0.1])
def test_total_separation_is_refuted_with_the_exact_margin_and_bound(bound, delta):
    """T > max(t_n) has P_hat = 1 on the dataset, 0 on the neighbour: the band gives
    lower_p = 1 - r, upper_q = r, so margin = 1 - r - B(r) and eps_lower = ln((1 - r - delta)/r),
    the largest any event can reach. n = 3000 puts more than MAX_EXACT events past the
    screening, so the exact evaluation is truncated and must still find this one."""
    n = 3000
    t_d, t_n = separated(n)
    res = run(t_d, t_n, bound, delta=delta)
    r = radius(n)
    thresholds = np.unique(np.concatenate([t_d, t_n]))
    k = selection.event_counts(np.sort(t_d), np.sort(t_n), thresholds).values()
    past = sum(np.sum(np.clip(kp / n - r, 0, 1) > pure_b(np.clip(kq / n + r, 0, 1))) for kp, kq in k)
    assert past > MAX_EXACT  # the truncated path is the one exercised
    assert res.violated and res.profile_violated
    oracle = scale(1 - r, r, float(pure_b(r)) + SLACK)
    assert oracle > 1 and res.profile_scale == pytest.approx(oracle, rel=1e-9)
    assert res.profile_margin == pytest.approx(oracle - 1, rel=1e-9)
    assert res.epsilon_lower == pytest.approx(math.log((1 - r - delta) / r), rel=1e-12)
    assert res.epsilon_estimate == math.inf  # the event never happened on the neighbour
    c = res.counts
    assert (c["dataset"], c["neighbour"]) == (n, 0)
    assert c["p_lower"] == pytest.approx(1 - r, rel=1e-14) and c["q_upper"] == pytest.approx(r, rel=1e-14)
    expected_event = f"T > {t_n.max():.6g}; P[dataset] vs e^eps P[neighbour] + delta"
    assert res.event == expected_event and res.profile_event == expected_event
    assert (res.curve["direction"], res.curve["side"]) == ("dataset", ">")


@pytest.mark.parametrize("n", range(1, 61))
def test_separation_needs_enough_runs(n):
    """With n runs, the best any event can show is lower_p = max(0, 1 - r), upper_q = min(1, r)
    (B is nondecreasing): the verdict flips from 'not refuted' to 'refuted' where
    1 - r > B(r), i.e. r < 1/(1 + e) = 0.2689 (r = 0.2703 at n = 30, 0.2659 at n = 31); the
    profile scale is that event's probit ratio, and crosses 1 there too."""
    t_d, t_n = separated(n, seed=n)
    res = run(t_d, t_n)
    r = radius(n)
    oracle = scale(max(0.0, 1 - r), min(1.0, r), float(pure_b(min(1.0, r))) + SLACK)
    assert res.profile_scale == pytest.approx(oracle, rel=1e-9, abs=1e-12)
    assert (res.profile_scale > 1) == (n >= 31) == res.violated == res.profile_violated
    assert res.epsilon_lower == pytest.approx(max(0.0, math.log((1 - r) / r)) if r < 1 else 0.0, abs=1e-12)


def test_violated_is_the_profile_or_the_point_verdict():
    """A profile that allows everything (delta >= 1, so B = 1) cannot be refuted, but the point
    claim eps = 1 is (eps_lower = ln((1 - r)/r) = 3.0); a pure 1-DP profile with a point
    claim eps = 10 is refuted by the profile alone."""
    n = 1000
    t_d, t_n = separated(n)
    eps_lo = math.log((1 - radius(n)) / radius(n))
    nothing = run(t_d, t_n, ClaimBound(lambda e: 1.0), epsilon=1.0)
    assert nothing.violated and not nothing.profile_violated and nothing.epsilon_lower > 1.0
    assert nothing.profile_scale == 0.0  # B = 1: the claim allows any advantage
    profile_only = run(t_d, t_n, epsilon=10.0)
    assert profile_only.violated and profile_only.profile_violated
    assert profile_only.epsilon_lower == pytest.approx(eps_lo, rel=1e-12) and eps_lo < 10.0


def test_false_alarms_on_a_mechanism_that_meets_the_claim():
    """Laplace(1, 1) against Laplace(0, 1) is pure 1-DP. Each of 30 seeded replications at
    alpha = 0.3 raises a false alarm with probability at most 0.3 (DKW-Massart, union bound),
    so the alarm count is stochastically below Binomial(30, 0.3); allowing up to its 0.999
    quantile, this test fails by chance with probability at most 0.001."""
    reps, alpha, n = 30, 0.3, 1000
    alarms = 0
    for seed in range(reps):
        rng = np.random.default_rng(1000 + seed)
        alarms += run(rng.laplace(1.0, 1.0, n), rng.laplace(0.0, 1.0, n), alpha=alpha).violated
    assert alarms <= sps.binom.ppf(0.999, reps, alpha)


def test_a_two_dp_laplace_is_refuted_as_one_dp():
    """Laplace(1, 0.5) against Laplace(0, 0.5): at t = 1, p = 1/2 and q = e^-2/2 = 0.068. If both
    empirical CDFs are within s = 0.05 of the truth (probability >= 1 - 4 exp(-2 n s^2) =
    1 - 8e-9 at n = 4000), the largest pooled value below 1 gives lower_p >= 0.45 - r = 0.427
    and upper_q <= 0.118 + r = 0.141, with B <= e * 0.141 = 0.384: refuted. The probit ratio of
    that event is at least scale(0.427, 0.141, 0.384) = 1.14 (it grows as upper_q falls, for pure
    DP's B = e a). Seeded; the chance of a miss is below 1e-8."""
    rng = np.random.default_rng(5)
    res = run(rng.laplace(1.0, 0.5, 4000), rng.laplace(0.0, 0.5, 4000))
    assert scale(0.427, 0.141, math.e * 0.141) > 1.14
    assert res.violated and res.profile_violated and res.profile_scale > 1.14 and res.profile_margin > 0.14


# --------------------------------------------------------------------------------------------
# curve_points


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("points", [7, 200, 5000])
def test_curve_points_lie_on_the_empirical_curve_with_clipped_bands(key, points):
    """Every plotted (q_hat, p_hat) is the pair of empirical frequencies of the event at some
    pooled threshold (counted by brute force), the first and last thresholds are kept, there
    are min(points, #thresholds) of them, the bands are p_hat - r and q_hat + r clipped to
    [0, 1], and the claim curve is min(1, B(a) + SLACK) on 201 points of [0, 1]."""
    rng = np.random.default_rng(3)
    t_d, t_n = rng.integers(0, 40, 300).astype(float), rng.integers(5, 45, 300).astype(float)
    n, r = t_d.size, 0.3  # a wide band, so that clipping happens at both ends
    thresholds = np.unique(np.concatenate([t_d, t_n]))
    counts = selection.event_counts(np.sort(t_d), np.sort(t_n), thresholds)
    direction, side = key
    c = curve_points(counts, thresholds, n, r, PROFILE, direction, side, points=points)

    tp, tq = (t_d, t_n) if direction == "dataset" else (t_n, t_d)
    inside = (lambda x, t: x > t) if side == ">" else (lambda x, t: x <= t)
    full = [(np.mean(inside(tq, t)), np.mean(inside(tp, t))) for t in thresholds]
    pairs = list(zip(c["q_hat"], c["p_hat"]))
    assert len(pairs) == min(points, thresholds.size)
    assert all(pair in full for pair in pairs)
    assert pairs[0] == full[0] and pairs[-1] == full[-1]
    q, p = np.array(c["q_hat"]), np.array(c["p_hat"])
    assert np.array_equal(c["q_upper"], np.minimum(1.0, q + r))
    assert np.array_equal(c["p_lower"], np.maximum(0.0, p - r))
    assert min(c["q_upper"]) >= 0 and max(c["q_upper"]) == 1.0 and min(c["p_lower"]) == 0.0
    a = np.asarray(c["claim_a"])
    assert a.size == 201 and a[0] == 0.0 and a[-1] == 1.0 and np.allclose(np.diff(a), 0.005)
    assert np.allclose(c["claim_bound"], np.minimum(1.0, pure_b(a) + SLACK), rtol=0, atol=1e-12)
    assert (c["direction"], c["side"]) == key
    assert all(type(x) is float for x in c["q_hat"] + c["claim_bound"])  # JSON-ready


# --------------------------------------------------------------------------------------------
# the weighted band (the default of audit_privacy)


def test_weighted_band_on_identical_samples_gives_scale_zero():
    """Equal counts: lower[k] < upper[k] for every event, so no advantage and scale 0."""
    n = 500
    t = np.random.default_rng(1).standard_normal(n)
    res = run(t, t.copy(), band="weighted")
    low, high = weighted_band(n)
    assert np.all(low < high)
    assert not res.violated and res.profile_scale == 0.0
    assert res.counts["band"] == "weighted"
    assert res.counts["band_radius"] == pytest.approx(math.sqrt(math.log(4 / (0.9 * ALPHA)) / (2 * n)), rel=1e-14)


@pytest.mark.parametrize("n", [40, 3000])
def test_weighted_band_on_total_separation_reaches_the_order_statistic_bound(n):
    """All n values of one dataset above all of the other's: the event holds n of n and 0 of n,
    whose bounds are closed forms, lambda^(1/n) and 1 - lambda^(1/n) (Beta(n, 1) and Beta(1, n),
    lambda = 0.1 alpha/(4n)), when these beat the DKW part; eps_lower = ln(lower_p / upper_q),
    far above the DKW band's ln((1 - r)/r)."""
    t_d, t_n = separated(n)
    res = run(t_d, t_n, band="weighted")
    r = math.sqrt(math.log(4 / (0.9 * ALPHA)) / (2 * n))
    lam = 0.1 * ALPHA / (4 * n)
    lower_p, upper_q = max(1 - r, lam ** (1 / n)), min(r, 1 - lam ** (1 / n))
    assert res.violated and res.profile_violated
    assert res.epsilon_lower == pytest.approx(math.log(lower_p / upper_q), rel=1e-9)
    assert res.profile_scale == pytest.approx(scale(lower_p, upper_q, float(pure_b(upper_q)) + SLACK), rel=1e-9)
    dkw = run(t_d, t_n)
    assert res.epsilon_lower > dkw.epsilon_lower
    assert res.counts["p_lower"] == pytest.approx(lower_p, rel=1e-9)
    assert res.counts["q_upper"] == pytest.approx(upper_q, rel=1e-9)


def test_weighted_band_false_alarms_on_a_mechanism_that_meets_the_claim():
    """As the DKW false-alarm test (30 seeded replications at alpha = 0.3, allowed up to the
    0.999 quantile of Binomial(30, 0.3): chance failure at most 0.001), with the weighted band."""
    reps, alpha, n = 30, 0.3, 1000
    alarms = 0
    for seed in range(reps):
        rng = np.random.default_rng(2000 + seed)
        alarms += run(rng.laplace(1.0, 1.0, n), rng.laplace(0.0, 1.0, n), alpha=alpha, band="weighted").violated
    assert alarms <= sps.binom.ppf(0.999, reps, alpha)


def test_weighted_curve_bands_are_the_band_at_the_counts():
    rng = np.random.default_rng(4)
    t_d, t_n = rng.normal(1.0, 1.0, 400), rng.normal(0.0, 1.0, 400)
    res = run(t_d, t_n, band="weighted")
    low, high = weighted_band(400)
    q, p = np.array(res.curve["q_hat"]), np.array(res.curve["p_hat"])
    assert np.allclose(res.curve["q_upper"], high[np.round(q * 400).astype(int)], rtol=1e-9, atol=1e-12)
    assert np.allclose(res.curve["p_lower"], low[np.round(p * 400).astype(int)], rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------------------------
# the profile scale: how close the claim came


class GaussianClaim:
    """The Gaussian mechanism's exact trade-off f(a) = Phi(Phi^-1(1 - a) - mu), mu = 1/sigma."""

    def __init__(self, sigma):
        self.mu = 1.0 / sigma

    def tradeoff(self, a):
        return float(special.ndtr(special.ndtri(1 - a) - self.mu)) if 0 < a < 1 else float(a == 0)


def test_scale_of_exact_gaussian_probabilities_is_the_ratio_of_the_noises():
    """Without bands (L, U the exact probabilities of the Gaussian of noise sigma' on threshold
    events), every event's probit ratio against the Gaussian claim of sigma is sigma/sigma': the
    scaled claim B_c is the Gaussian claim of noise sigma/c (module docstring)."""
    from audits.profile_mode import profile_scale

    sigma = 2.0
    bound = ClaimBound(GaussianClaim(sigma))
    x = np.linspace(-3.0, 3.0, 61)
    for factor in (0.8, 1.05, 2.0):
        upper = sps.norm.sf(x)                      # Q(T > x), T ~ N(0, 1) in units of the noise
        lower = sps.norm.sf(x - 1.0 / (factor * sigma))  # P(T > x), T ~ N(1/sigma', 1)
        c, _ = profile_scale(lower, upper, bound)
        assert c == pytest.approx(1.0 / factor, rel=1e-6)


def test_profile_scale_tells_a_gaussian_at_sigma_x105_from_one_at_sigma_x2():
    """The acceptance test: the Gaussian claim of the analytic sigma for (1, 1e-5) audited on
    Gaussian noise sigma x1.05 and sigma x2 (both inside the claim; the true scales are
    1/1.05 = 0.952 and 1/2, by the previous test). The scale is a lower confidence bound, so each
    is at most its true value (each fails with probability at most alpha = 0.05 for a random
    seed); at 20000 runs the x1.05 bound is above even the x2 truth: the claim that nearly failed is
    told from the one far inside. A mechanism just outside (x0.8, true scale 1.25) is refuted with
    a scale above 1 and at most 1.25. Seeded; measured over 8 seeds: x2 0.27-0.35, x1.05 0.71-0.82,
    so the middle assertion has a wide margin."""
    from audits import audit_privacy, replace_one

    sigma = 3.7306  # the analytic Gaussian sigma of (1, 1e-5) at sensitivity 1 (about)
    pair = replace_one(np.array([1.0, 1.0, 1.0, 0.0]), 0, 0.0)

    def gaussian(factor):
        return lambda data, runs, rng: float(np.sum(data)) + factor * sigma * rng.standard_normal(runs)

    def audit(factor):
        return audit_privacy(gaussian(factor), pair, epsilon=1.0, delta=1e-5, runs=20_000, seed=11,
                             profile=GaussianClaim(sigma), low_bits=False)

    near, far, outside = audit(1.05), audit(2.0), audit(0.8)
    assert not near.violated and not far.violated and outside.profile_violated
    assert far.profile_scale <= 0.5 < near.profile_scale <= 1 / 1.05
    assert 1.0 < outside.profile_scale <= 1.25 and outside.profile_margin > 0
    assert near.profile_margin == pytest.approx(near.profile_scale - 1)
    assert f"profile holds: refuted only at {near.profile_scale:.3g}x its allowance" in str(near)
    assert f"profile refuted: at {outside.profile_scale:.3g}x its allowance" in str(outside)


def test_runs_to_refute_of_one_event_against_pure_dp():
    """One event with frequencies (f_p, f_q) against pure 1-DP where B(a) = e a (small a): with
    the 50% corners L = f_p - r50, U = f_q + r50 (r50 the DKW radius at level 1/4), the bands
    refute at k times the runs once L - s > e (U + s), s = r/sqrt(k): k > (r (1 + e) / (L - e U))^2."""
    from audits.profile_mode import runs_to_refute

    n, r = 10_000, 0.01
    r50 = math.sqrt(math.log(2 / 0.25) / (2 * n))
    f_p, f_q = 0.2, 0.05
    low, up = f_p - r50, f_q + r50
    k = (r * (1 + math.e) / (low - math.e * up)) ** 2
    got = runs_to_refute([f_p], [f_q], n, r, PROFILE)
    assert got == pytest.approx(n * k, rel=0.011)
    assert runs_to_refute([0.06], [0.05], n, r, PROFILE) is None  # inside the claim: never
