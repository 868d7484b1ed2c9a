"""Tests of reference.zhang17.instances: the losses meet Theorem 2's conditions, the data stay within
the declared bounds, and the quadratic objective is exact (against the loss's own values and the
certified solver)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reference.domains import L2Ball
from reference.losses import Logistic, Welsch, minimiser_norm_bound
from reference.solver import minimise
from reference.zhang17 import instances
from spec.errors import ParameterError


def test_ridge_loss_constants_and_ball():
    loss = instances.ridge_loss(strength=4.0, label_bound=2.0)
    c = loss.constants
    # D = Y/sqrt(lambda) = 1, R = 2D = 2: L = X (R X + Y) + lambda R, beta = X^2 + lambda, mu = lambda
    assert loss.domain_radius == pytest.approx(2.0) and minimiser_norm_bound(loss) == pytest.approx(1.0)
    assert (c.lipschitz, c.smoothness, c.strong_convexity) == (pytest.approx(4.0 + 8.0), pytest.approx(5.0), 4.0)


def test_regularised_logistic_loss_constants_and_ball():
    loss = instances.regularised_logistic_loss(strength=0.5)
    d = min(2.0, math.sqrt(2 * math.log(2) / 0.5))
    assert loss.domain_radius == pytest.approx(2 * d, rel=1e-15)
    c = loss.constants
    assert c.lipschitz == pytest.approx(1 + 0.5 * 2 * d) and c.smoothness == 0.75 and c.strong_convexity == 0.5


def test_data_within_bounds():
    pts = instances.sphere_points(500, 4, radius=2.0, rng=0)
    assert np.all(np.linalg.norm(pts, axis=1) <= 2.0)
    assert np.allclose(np.linalg.norm(pts, axis=1), 2.0)
    ridge = instances.ridge_data(n=400, dimension=3, label_bound=0.5, rng=1)
    instances.ridge_loss(strength=1.0, label_bound=0.5).check_data(ridge)
    logistic = instances.logistic_data(n=400, dimension=3, rng=2)
    Logistic(feature_norm=1.0).check_data(logistic)
    assert set(np.unique(logistic[:, -1])) == {-1.0, 1.0}
    location = instances.location_data(n=400, dimension=3, centre=0.1, spread=0.1, rng=3)
    Welsch(scale=1.0, data_norm=0.7).check_data(location)
    assert abs(location[:, 0].mean() - 0.1) < 0.02  # centred at 0.1 e_1 (sd 0.1/sqrt 3 / sqrt 400)
    with pytest.raises(ParameterError):
        instances.location_data(n=10, dimension=2, centre=0.1, spread=0.0, rng=0)


def test_quadratic_objective_is_exact():
    data = instances.ridge_data(n=300, dimension=4, rng=4)
    loss = instances.ridge_loss(strength=4.0)
    obj = instances.QuadraticObjective.ridge(data, strength=4.0)
    solved = minimise(loss, data, L2Ball(radius=loss.domain_radius, dim=4), normalisation="average", tolerance=1e-13,
                      distance_tolerance=1e-10)
    np.testing.assert_allclose(obj.minimiser, solved.theta, atol=1e-9)
    theta = np.random.default_rng(5).normal(size=(6, 4)) * 0.2
    f = loss.total(theta, data, normalisation="average", check=False)
    f_hat = loss.total(obj.minimiser, data, normalisation="average")
    np.testing.assert_allclose(obj.excess_risk(theta), f - f_hat, rtol=1e-9, atol=1e-14)
    with pytest.raises(ParameterError):
        instances.QuadraticObjective.ridge(np.zeros(3), strength=1.0)
