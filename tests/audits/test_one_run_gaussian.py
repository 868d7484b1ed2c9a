"""Tests of audits.one_run_gaussian: the noncentral-t test of a Gaussian channel's separation.

Oracles: an mpmath integral for the noncentral t law, the exact Gaussian profile of spec.gaussian,
and seeded Monte Carlo of the model (Gaussian channels) for the size and the coverage, each with
a stated chance of failing.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats as sps

from audits import one_run_gaussian as og
from audits.stats import clopper_pearson
from spec import gaussian
from spec.errors import ParameterError


def _nct_sf_mpmath(t, df, ncp):
    """P[T > t] for T = (Z + ncp)/sqrt(V/df): the integral of P[Z > t sqrt(v/df) - ncp] against the
    chi-square(df) density."""
    with mpmath.workdps(30):
        def integrand(v):
            log_density = (df / 2 - 1) * mpmath.log(v) - v / 2 - (df / 2) * mpmath.log(2) - mpmath.loggamma(df / 2)
            return mpmath.ncdf(-(t * mpmath.sqrt(v / df) - ncp)) * mpmath.exp(log_density)

        return float(mpmath.quad(integrand, [0, df / 2, df, 2 * df, 4 * df, mpmath.inf]))


@pytest.mark.parametrize("t, df, ncp", [(5.0, 100, 2.0), (12.0, 1998, 8.0), (8.0, 999, 3.5), (15.0, 1022, 11.0)])
def test_scipy_nct_against_mpmath(t, df, ncp):
    assert og._sf(t, df, ncp) == pytest.approx(_nct_sf_mpmath(t, df, ncp), rel=1e-7)


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-5), (4.0, 1e-8), (0.3, 1e-3), (8.0, 1e-6)])
def test_gdp_mu_is_the_root_rounded_up(eps, delta):
    mu = og.gdp_mu(eps, delta)
    assert gaussian.exact_delta(eps, sigma=1.0, sensitivity=mu) > delta  # not private: at or above the root
    assert gaussian.exact_delta(eps, sigma=1.0, sensitivity=mu * (1 - 1e-10)) <= delta * (1 + 1e-6)
    # the analytic calibration of spec.gaussian (smallest sigma at sensitivity 1) gives the same root
    assert 1.0 / gaussian.analytic_sigma(epsilon=eps, delta=delta, sensitivity=1.0) == pytest.approx(mu, rel=1e-9)


def test_gdp_epsilon_inverts_gdp_mu():
    mu = og.gdp_mu(2.0, 1e-6)
    assert og.gdp_epsilon(mu, 1e-6) == pytest.approx(2.0, abs=1e-9)
    assert og.gdp_epsilon(0.0, 1e-6) == 0.0


def test_pooled_t_matches_scipy():
    rng = np.random.default_rng(3)
    s = rng.choice((-1, 1), 101)
    x = rng.standard_normal(101) + s
    t, df, scale, mu_hat = og.pooled_t(x, s)
    ref = sps.ttest_ind(x[s == 1], x[s == -1], equal_var=True)
    assert t == pytest.approx(ref.statistic, rel=1e-12) and df == 99
    assert mu_hat == pytest.approx(t * scale)


def _rejections(mu, eps, delta, alpha, m, reps, seed):
    """Monte Carlo of the model: m Gaussian channels N(c + (mu/2) S_i, 1) (common offset c = 3),
    the verdict's rejection at the boundary threshold (noncentral-t quantile at mu*)."""
    rng = np.random.default_rng(seed)
    mu_star = og.gdp_mu(eps, delta)
    cache, hits = {}, 0
    for _ in range(reps):
        s = rng.choice((-1, 1), m)
        x = 3.0 + rng.standard_normal(m) + mu * s / 2
        t, df, scale, _ = og.pooled_t(x, s)
        key = int(np.sum(s == 1))
        if key not in cache:
            cache[key] = sps.nct.ppf(1 - alpha, df, mu_star / scale)
        hits += t > cache[key]
    return hits


def test_size_is_alpha_at_the_boundary():
    # a channel exactly at the claim is rejected with probability alpha (an exact, not conservative,
    # test): 4000 repetitions, the two-sided 99.9% interval must contain alpha (fails w.p. < 1e-3)
    eps, delta, alpha = 2.0, 1e-6, 0.05
    hits = _rejections(og.gdp_mu(eps, delta), eps, delta, alpha, m=200, reps=4000, seed=11)
    lo, hi = clopper_pearson(hits, 4000, 1e-3)
    assert lo <= alpha <= hi


def test_size_below_the_boundary_and_power_above():
    eps, delta, alpha = 2.0, 1e-6, 0.05
    mu_star = og.gdp_mu(eps, delta)
    below = _rejections(0.8 * mu_star, eps, delta, alpha, m=200, reps=1000, seed=12)
    above = _rejections(2.0 * mu_star, eps, delta, alpha, m=400, reps=200, seed=13)
    assert clopper_pearson(below, 1000, 1e-3)[1] < alpha  # strictly inside the claim: fewer alarms
    assert above >= 190  # noncentrality 9 against the threshold 4.5 + 1.65: power 0.998


def test_mu_lower_covers_exactly():
    # P[mu_lower > mu] = alpha for an exact interval: 600 repetitions at alpha 0.1, the two-sided
    # 99.9% interval of the rate must contain alpha (fails by chance with probability < 1e-3)
    rng = np.random.default_rng(21)
    mu, alpha, above, reps = 0.6, 0.1, 0, 600
    for _ in range(reps):
        s = rng.choice((-1, 1), 150)
        x = rng.standard_normal(150) + mu * s / 2
        t, df, scale, _ = og.pooled_t(x, s)
        above += og.mu_lower_bound(t, df, scale, alpha) > mu
    lo, hi = clopper_pearson(above, reps, 1e-3)
    assert lo <= alpha <= hi


def test_result_fields_and_modes():
    rng = np.random.default_rng(5)
    s = rng.choice((-1, 1), 500)
    x = rng.standard_normal(500) + 3.0 * s / 2
    exact = og.gaussian_test(x, s, epsilon=1.0, delta=1e-5, alpha=0.01, exact=True)
    estimate = og.gaussian_test(x, s, epsilon=1.0, delta=1e-5, alpha=0.01, exact=False)
    assert exact.violated is True and estimate.violated is None
    assert exact.mu_lower < exact.mu_hat and exact.mu_lower > exact.mu_claim
    assert exact.epsilon_lower == pytest.approx(og.gdp_epsilon(exact.mu_lower, 1e-5))
    assert exact.to_dict()["family"] == "gaussian"


@pytest.mark.parametrize("x, s, message", [
    ([1.0, 2.0, 3.0], [1, 1, -1], "two canaries"),
    ([1.0, 1.0, 2.0, 2.0], [1, 1, -1, -1], "zero spread"),
    ([1.0, 2.0], [1, -1, 1], "same shape"),
    ([1.0, 2.0, 3.0, 4.0], [1, 0, -1, 1], "secrets"),
])
def test_bad_inputs(x, s, message):
    with pytest.raises(ParameterError, match=message):
        og.gaussian_test(x, s, epsilon=1.0, delta=1e-5, alpha=0.05, exact=True)


def test_delta_must_be_positive():
    with pytest.raises(ParameterError, match="delta"):
        og.gaussian_test([0.0, 1.0, 2.0, 3.5], [1, 1, -1, -1], epsilon=1.0, delta=0.0, alpha=0.05, exact=True)
    assert math.isfinite(og.gdp_mu(1.0, 0.5))
