"""Tests of audits.one_run_canaries: in-domain canaries, the neighbouring relation of a slot flip,
the gradients the design promises (opposite, constant in the linear region), the scores."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import linalg

from audits.one_run_canaries import (
    CanaryDesign,
    coordinate_canaries,
    curvature_canaries,
    hadamard_canaries,
    sphere_canaries,
)
from audits.pairs import assert_neighbours
from reference.losses import Hinge, Huber, LeastSquares, Linear, Logistic
from reference.losses.heavy_tailed import HeavyTailedLinear
from spec.errors import DataBoundError, ParameterError
from spec.record import Neighbouring

LOSSES = [Linear(data_norm=2.0), Huber(feature_norm=1.0, label_bound=10.0, width=1.0), Hinge(feature_norm=0.5),
          Logistic(feature_norm=1.0)]


@pytest.mark.parametrize("loss", LOSSES, ids=lambda loss: type(loss).__name__)
def test_flipping_one_secret_is_replace_one(loss):
    design = coordinate_canaries(loss, count=6, dimension=9, first=2)
    rng = np.random.default_rng(0)
    base = rng.standard_normal((20, design.canaries.shape[1])) * 0.01
    s = design.secrets(rng=rng)
    for i in range(design.size):
        t = s.copy()
        t[i] = -t[i]
        assert_neighbours(design.assemble(base, s), design.assemble(base, t), Neighbouring.REPLACE_ONE)
    assert design.relation is Neighbouring.REPLACE_ONE


def test_add_remove_design():
    design = coordinate_canaries(Linear(data_norm=1.0), count=4, dimension=4, relation="add/remove-one")
    s = np.array([1, -1, 1, 1])
    t = np.array([1, -1, -1, 1])
    base = np.zeros((3, 4))
    assert design.assemble(base, s).shape == (6, 4)
    assert_neighbours(design.assemble(base, s), design.assemble(base, t), Neighbouring.ADD_REMOVE_ONE)
    assert design.relation is Neighbouring.ADD_REMOVE_ONE


@pytest.mark.parametrize("loss", LOSSES, ids=lambda loss: type(loss).__name__)
def test_opposite_gradients_of_full_norm_constant_in_the_linear_region(loss):
    design = coordinate_canaries(loss, count=5, dimension=7)
    lip = loss.constants.lipschitz
    rng = np.random.default_rng(1)
    radius = min(design.linear_radius, 50.0)
    thetas = [np.zeros(7)] + ([] if design.linear_radius == 0 else
                              [rng.uniform(-0.99, 0.99, 7) * radius for _ in range(5)])
    for theta in thetas:
        gc = loss.gradient(theta, design.canaries)
        gf = loss.gradient(theta, design.fillers)
        diff = gc - gf
        # the canary's gradient minus the filler's is along -directions (the canary pushes the iterate along them)
        np.testing.assert_allclose(diff, -np.linalg.norm(diff, axis=1, keepdims=True) * design.directions, atol=1e-12)
        if design.linear_radius > 0:
            np.testing.assert_allclose(np.linalg.norm(diff, axis=1), 2 * lip, rtol=1e-12)
            np.testing.assert_allclose(gc, loss.gradient(np.zeros(7), design.canaries), atol=1e-12)


def test_logistic_is_curved():
    design = coordinate_canaries(Logistic(feature_norm=1.0), count=2, dimension=2)
    assert design.linear_radius == 0.0
    assert math.isinf(coordinate_canaries(Linear(data_norm=1.0), count=2, dimension=2).linear_radius)


def test_canaries_respect_declared_bounds():
    huber = Huber(feature_norm=1.0, label_bound=10.0, width=1.0)
    design = coordinate_canaries(huber, count=3, dimension=5)
    huber.validate_data(design.canaries)
    assert np.max(np.abs(design.canaries[:, -1])) == 10.0  # the label bound itself, not beyond
    with pytest.raises(DataBoundError):
        design.check(Huber(feature_norm=1.0, label_bound=5.0, width=1.0))
    with pytest.raises(ParameterError, match="width"):
        coordinate_canaries(Huber(feature_norm=1.0, label_bound=0.5, width=1.0), count=2, dimension=2)
    with pytest.raises(ParameterError, match="no canary rule"):
        coordinate_canaries(LeastSquares(feature_norm=1.0, label_bound=1.0, domain_radius=1.0), count=2, dimension=2)


def test_hadamard_canaries_are_orthogonal_and_saturate_every_coordinate():
    design = hadamard_canaries(HeavyTailedLinear(), count=8, dimension=10, magnitude=5.0)
    d = design.directions
    np.testing.assert_allclose(d @ d.T, np.eye(8), atol=1e-12)
    assert np.all(np.abs(design.canaries[:, :8]) == 5.0) and np.all(design.canaries[:, 8:] == 0)
    np.testing.assert_array_equal(design.fillers, -design.canaries)
    np.testing.assert_allclose(design.canaries[:, :8] / 5.0, linalg.hadamard(8))
    with pytest.raises(ParameterError, match="power of 2"):
        hadamard_canaries(HeavyTailedLinear(), count=6, dimension=8, magnitude=1.0)


def test_curvature_canaries():
    huber = Huber(feature_norm=1.0, label_bound=10.0, width=1.0)
    design = curvature_canaries(huber, count=3, dimension=4)
    theta = np.array([0.3, -0.2, 0.1, 0.0])
    gc, gf = huber.gradient(theta, design.canaries), huber.gradient(theta, design.fillers)
    np.testing.assert_allclose(gc[:, :3], np.diag(theta[:3]))  # (X^2/w) theta_j: changes with the iterate
    np.testing.assert_allclose(gf[:, :3], np.eye(3))  # constant


def test_sphere_canaries_are_seeded_and_unit():
    a = sphere_canaries(Logistic(feature_norm=2.0), count=20, dimension=5, rng=3)
    b = sphere_canaries(Logistic(feature_norm=2.0), count=20, dimension=5, rng=3)
    np.testing.assert_array_equal(a.canaries, b.canaries)
    np.testing.assert_allclose(np.linalg.norm(a.canaries[:, :-1], axis=1), 2.0)


def test_scores():
    design = coordinate_canaries(Linear(data_norm=1.0), count=3, dimension=4)
    np.testing.assert_allclose(design.projections(np.array([[1.0, -2.0, 3.0, 9.0]])), [1.0, -2.0, 3.0])
    np.testing.assert_allclose(design.aligned(np.array([1.0, -2.0, 3.0, 9.0])), [-1.0, 2.0, -3.0])
    with pytest.raises(ParameterError, match="length 4"):
        design.projections(np.zeros(3))


def test_designs_combine():
    huber = Huber(feature_norm=1.0, label_bound=10.0, width=1.0)
    both = coordinate_canaries(huber, count=2, dimension=4) + curvature_canaries(huber, count=2, dimension=4, first=2)
    assert both.size == 4 and both.linear_radius == 0.0 and "curvature" in both.name


def test_design_validation():
    with pytest.raises(ParameterError, match="unit"):
        CanaryDesign(np.zeros((2, 2)), np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ParameterError, match="shape"):
        CanaryDesign(np.zeros((2, 2)), np.ones((3, 2)), np.eye(2))
    design = CanaryDesign(np.zeros((2, 2)), np.ones((2, 2)), np.eye(2))
    with pytest.raises(ParameterError, match="secrets"):
        design.records([1, 0])
    with pytest.raises(ValueError):
        design.canaries[0, 0] = 1.0  # read-only
