"""reference.bst14.localization_algorithms: Algorithms 3 and 4 (minimiser, noise law, radius, constants); bad data for Algorithms 2-4.
"""

from __future__ import annotations
import math
import numpy as np
import pytest
import scipy.stats
from reference import bst14
from reference.domains import Intersection, L2Ball
from reference.losses import HalfSquaredDistance, Linear
from reference.tape import Recorder, Replay
from spec import bst14 as spec
from spec.errors import AssumptionError, DataBoundError, ParameterError

LEVEL = 1e-3


DATA2 = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]])


BALL2 = L2Ball(radius=1.0, dim=2)


LIN = Linear(data_norm=1.0)


QUAD = HalfSquaredDistance(data_norm=1.0, domain_radius=1.0)


def test_alg3_minimiser_noise_law_and_radius():
    data = np.array([[0.6, 0.8, 0.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]])
    n, p = 4, 3
    domain = L2Ball(radius=1.0, dim=3)
    eps, zeta, tol = 1.0, 2.0, 1e-12
    res = bst14.output_perturbation(data, loss=QUAD, domain=domain, epsilon=eps, zeta=zeta, runs=5000,
                                    solver_tolerance=tol, rng=3)
    # theta*: the exact minimiser of the sum of half squared distances is the mean (inside the ball)
    np.testing.assert_allclose(res.theta_star, data.mean(0), atol=1e-9)
    lip, delta_sc = 2.0, 1.0
    exact_rate = n * delta_sc * eps / (2 * lip)
    corrected = eps / (2 * lip / (n * delta_sc) + 2 * math.sqrt(2 * tol / (n * delta_sc)))
    assert res.rate == pytest.approx(corrected, rel=1e-12)
    assert res.rate < exact_rate
    assert res.rate == spec.ALG_3.evaluate("noise_rate_with_tolerance", epsilon=eps, lipschitz=lip, n=n, strong_convexity=1.0,
                                                     solver_tolerance=tol)
    # ||b|| ~ Gamma(p, scale 1/rate), before projection
    norms = np.linalg.norm(res.noise, axis=1)
    assert scipy.stats.kstest(norms, scipy.stats.gamma(p, scale=1 / res.rate).cdf).pvalue > LEVEL
    # direction uniform: the first coordinate of b/||b|| is U(-1, 1) for p = 3 (Archimedes)
    assert scipy.stats.kstest(res.noise[:, 0] / norms, scipy.stats.uniform(-1, 2).cdf).pvalue > LEVEL
    np.testing.assert_allclose(res.centres, domain.project(res.theta_star + res.noise), rtol=0, atol=0)
    assert res.radius == pytest.approx(zeta * 2 * lip * p / (delta_sc * eps * n), rel=1e-15)
    assert res.radius >= zeta * 2 * lip * p / (delta_sc * eps * n)
    c0 = res.localized_domain(1)
    assert isinstance(c0, Intersection)
    assert len(res.localized_domains()) == 5000
    assert bool(c0.contains(res.centres[1]))


def test_alg3_errors():
    with pytest.raises(AssumptionError, match="strong_convexity"):
        bst14.output_perturbation(DATA2, loss=LIN, domain=BALL2, epsilon=1.0, zeta=1.0, rng=0)
    with pytest.raises(ParameterError, match="zeta"):
        bst14.output_perturbation(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, zeta=0.0, rng=0)
    with pytest.raises(ParameterError, match="solver_tolerance"):
        bst14.output_perturbation(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, zeta=1.0, solver_tolerance=0.0,
                                  rng=0)
    with pytest.raises(Exception, match="epsilon"):
        bst14.output_perturbation(DATA2, loss=QUAD, domain=BALL2, epsilon=float("inf"), zeta=1.0, rng=0)
    res = bst14.output_perturbation(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, zeta=1.0, rng=0)
    with pytest.raises(ParameterError, match="run"):
        res.localized_domain(1)


def test_alg4_budgets_constants_and_outputs_in_c0():
    data = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0], [0.8, 0.6], [0.6, -0.8], [1.0, 0.0]])
    n, p, eps = 6, 2, 4.0
    rec = Recorder(17)
    res = bst14.localization(data, loss=QUAD, domain=BALL2, epsilon=eps, runs=6,
                             sampler=bst14.QuadraticRejectionSampler(), noise=rec)
    params = spec.localization_parameters(epsilon=eps, lipschitz=2.0, n=n, strong_convexity=1.0, dimension=p,
                                          solver_tolerance=1e-12)
    assert res.parameters == params
    # basic composition of the two steps: their budgets sum to at most epsilon
    assert params["epsilon_localization"] + params["epsilon_generic"] <= eps
    assert params["epsilon_localization"] == eps / 2
    step1 = res.localization
    assert step1.rate == pytest.approx(params["noise_rate"], rel=1e-14)
    assert step1.radius == pytest.approx(params["radius"], rel=1e-14)
    assert step1.radius == pytest.approx(3 * math.log(n) * 2 * 2.0 * p / (1.0 * (eps / 2) * n), rel=1e-14)
    for r in range(6):
        assert bool(step1.localized_domain(r).contains(res.theta[r], tol=0.0))
    # tape: Algorithm 3's two entries first, then the generic step run by run
    labels = [e.label for e in rec.tape.entries]
    assert labels[:2] == ["bst14 Alg.3 L3 b: radius", "bst14 Alg.3 L3 b: direction"]
    assert all(lab.startswith("bst14 Alg.2 L2 quadratic") for lab in labels[2:])
    src = Replay(rec.tape)
    again = bst14.localization(data, loss=QUAD, domain=BALL2, epsilon=eps, runs=6,
                               sampler=bst14.QuadraticRejectionSampler(), noise=src)
    src.assert_consumed()
    np.testing.assert_array_equal(again.theta, res.theta)


def test_alg4_errors():
    with pytest.raises(AssumptionError, match="strong_convexity"):
        bst14.localization(DATA2, loss=LIN, domain=BALL2, epsilon=1.0, sampler=bst14.LinearBallSampler(), rng=0)
    with pytest.raises(Exception, match="epsilon"):
        bst14.localization(DATA2, loss=QUAD, domain=BALL2, epsilon=0.0, sampler=bst14.QuadraticRejectionSampler(),
                           rng=0)


@pytest.mark.parametrize("which", ["alg2", "alg3", "alg4"])
def test_algorithms_2_to_4_reject_out_of_bound_and_nonfinite_data(which):
    bad = np.array([[0.6, 0.8], [1.5, 0.0]])
    nan = np.array([[0.6, 0.8], [np.nan, 0.0]])
    for data, error in ((bad, DataBoundError), (nan, ParameterError)):
        with pytest.raises(error):
            if which == "alg2":
                bst14.exp_sampling(data, loss=QUAD, domain=BALL2, epsilon=1.0,
                                   sampler=bst14.QuadraticRejectionSampler(), rng=0)
            elif which == "alg3":
                bst14.output_perturbation(data, loss=QUAD, domain=BALL2, epsilon=1.0, zeta=1.0, rng=0)
            else:
                bst14.localization(data, loss=QUAD, domain=BALL2, epsilon=1.0,
                                   sampler=bst14.QuadraticRejectionSampler(), rng=0)
