"""reference.wang20.heavy_tails: the laws' moments against scipy.stats, the problems' population
quantities against Monte Carlo (seeded; tolerances of at least 5 standard errors, false-alarm rate
below 1e-6 per check), and the clipping transform."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from reference.domains import L2Ball
from reference.tape import Fresh, Recorder
from reference.wang20 import heavy_tails as ht
from spec.errors import ParameterError


def _scipy_kurtosis(law):
    """E X^4 of the standardised law from scipy.stats (an independent oracle)."""
    if law.name == "gaussian":
        dist = sps.norm()
    elif law.name == "laplace":
        dist = sps.laplace()
    elif law.name == "student_t":
        dist = sps.t(law.parameter)
    elif law.name == "pareto_right":
        dist = sps.pareto(law.parameter)
    elif law.name == "lognormal":
        dist = sps.lognorm(law.parameter)
    else:  # symmetric Pareto: E X^4 / (E X^2)^2 from the one-sided raw moments
        p = sps.pareto(law.parameter)
        return p.moment(4) / p.moment(2) ** 2
    return float(dist.stats(moments="k")) + 3.0


LAWS = [ht.law("gaussian"), ht.law("laplace"), ht.law("student_t", 5), ht.law("student_t", 9),
        ht.law("pareto", 5), ht.law("pareto", 7), ht.law("pareto_right", 5), ht.law("pareto_right", 8),
        ht.law("lognormal", 0.5)]


@pytest.mark.parametrize("law", LAWS, ids=lambda w: f"{w.name}-{w.parameter}")
def test_kurtosis_matches_scipy(law):
    assert law.kurtosis == pytest.approx(_scipy_kurtosis(law), rel=1e-10)


@pytest.mark.parametrize("law", LAWS + [ht.law("student_t", 3), ht.law("pareto", 2.5)], ids=lambda w: f"{w.name}-{w.parameter}")
def test_laws_have_mean_zero_and_unit_variance(law):
    x = law.rvs((400_000,), noise=Fresh(7), label="test")
    # standard errors: sd/sqrt(N) for the mean; the variance's is unbounded for heavy tails, so the
    # check there is a median of block variances (robust), within 10%
    assert abs(x.mean()) < 6 / math.sqrt(x.size) * (1 + 2 * (law.tail_index < 4))
    blocks = np.median(x.reshape(100, -1).var(axis=1))
    assert blocks == pytest.approx(1.0, rel=0.1 if law.tail_index > 4 else 0.4)


def test_law_validation_and_tape_labels():
    with pytest.raises(ParameterError, match="finite variance"):
        ht.law("student_t", 2.0)
    with pytest.raises(ParameterError, match="None"):
        ht.law("gaussian", 1.0)
    with pytest.raises(ParameterError):
        ht.law("cauchy")
    rec = Recorder(1)
    prob = ht.LinearRegression(minimiser=[1.0, 2.0], features=ht.law("student_t", 4.5), noise=ht.law("pareto", 3))
    rows = prob.sample(10, noise=rec)
    assert rows.shape == (10, 3)
    assert [e.label for e in rec.tape.entries] == [
        "wang20 data features: normal", "wang20 data features: gamma", "wang20 data noise: sign",
        "wang20 data noise: exponential"]
    assert ht.law("student_t", 3).kurtosis == math.inf and ht.law("student_t", 3).tail_index == 3


def test_linear_regression_population_quantities():
    d = 3
    prob = ht.LinearRegression(minimiser=[0.2, -0.1, 0.0], features=ht.law("student_t", 9),
                               noise=ht.law("student_t", 3), noise_scale=0.7, feature_scale=1.5)
    domain = L2Ball(radius=1.0, dim=d, center=[0.1, 0.0, 0.0])
    rows = prob.sample(2_000_000, rng=11)
    x, y = rows[:, :-1], rows[:, -1]
    w = np.array([0.5, 0.3, -0.4])
    loss = 0.5 * (x @ w - y) ** 2 - 0.5 * (x @ prob.minimiser - y) ** 2
    se = loss.std() / math.sqrt(loss.size)
    assert loss.mean() == pytest.approx(float(prob.excess_risk(w)), abs=6 * se)
    assert prob.smoothness == prob.strong_convexity == pytest.approx(2.25)
    # Assumption 4: E (grad_j)^2 at the maximising w (u = R_u e_j) equals v
    r_u = float(np.linalg.norm(domain.center - prob.minimiser)) + 1.0
    w_max = prob.minimiser + r_u * np.array([1.0, 0.0, 0.0])
    g = (x @ w_max - y) * x[:, 0]
    v = prob.second_moment(domain)
    assert v == pytest.approx(2.25**2 * 3 * 7 / 5 * r_u**2 + 0.49 * 2.25)
    assert (g * g).mean() == pytest.approx(v, rel=0.05)  # t(9) features: the fourth moment converges slowly
    # and at other points of W it is smaller
    g2 = (x @ prob.minimiser - y) * x[:, 1]
    assert (g2 * g2).mean() < v
    with pytest.raises(ParameterError, match="fourth moment"):
        ht.LinearRegression(minimiser=[0.0], features=ht.law("student_t", 4), noise=ht.law("gaussian")).second_moment(
            L2Ball(radius=1.0, dim=1))


def test_mean_estimation_population_quantities():
    prob = ht.MeanEstimation(mean=[0.3, -0.2], law=ht.law("laplace"), scale=2.0)
    domain = L2Ball(radius=1.0, dim=2)
    r_u = 1.0 + math.hypot(0.3, 0.2)
    assert prob.mean_range(domain) == pytest.approx((-r_u, r_u))
    assert prob.second_moment(domain) == pytest.approx((1.0 + math.hypot(0.3, 0.2)) ** 2 + 4.0)
    rows = prob.sample(1_000_000, rng=3)
    w = np.array([0.5, 0.5])
    diff = 0.5 * np.sum((w - rows) ** 2, axis=1) - 0.5 * np.sum((prob.mean - rows) ** 2, axis=1)
    assert diff.mean() == pytest.approx(float(prob.excess_risk(w)), abs=6 * diff.std() / 1000)


def test_logistic_regression_minimiser_and_excess_risk():
    prob = ht.LogisticRegression(minimiser=[1.0, -0.5], features=ht.law("student_t", 5))
    rows = prob.sample(1_000_000, rng=5)
    x, y = rows[:, :-1], rows[:, -1]
    # well specified: the population gradient vanishes at w*
    grad = -(y * sps.logistic.cdf(-y * (x @ prob.minimiser)))[:, None] * x
    se = grad.std(axis=0) / 1000
    assert np.all(np.abs(grad.mean(axis=0)) < 6 * se)
    w = np.array([0.5, 0.0])
    est, err = prob.excess_risk_with_error(w)
    direct = np.logaddexp(0, -y * (x @ w)) - np.logaddexp(0, -y * (x @ prob.minimiser))
    assert direct.mean() == pytest.approx(float(est), abs=6 * (direct.std() / 1000 + float(err)))
    assert float(prob.excess_risk(prob.minimiser)) == pytest.approx(0.0, abs=1e-15)
    assert prob.second_moment() == 1.0 and prob.smoothness == 0.25


def test_clip_rows():
    rows = np.array([[3.0, 4.0, 10.0], [0.3, 0.4, -0.5], [0.0, 0.0, -7.0]])
    out = ht.clip_rows(rows, feature_norm=1.0, label_bound=2.0)
    np.testing.assert_allclose(out, [[0.6, 0.8, 2.0], [0.3, 0.4, -0.5], [0.0, 0.0, -2.0]])
    assert rows[0, 0] == 3.0  # a new array
    points = ht.clip_rows(rows[:, :2], feature_norm=2.5)
    np.testing.assert_allclose(np.linalg.norm(points, axis=1), [2.5, 0.5, 0.0])
