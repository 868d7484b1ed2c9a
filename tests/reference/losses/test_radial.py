"""Tests of reference.losses.radial: values, gradients (finite differences), and the declared
constants checked against sampled gradients and Hessians (mpmath-free: exact formulas in numpy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.losses import PseudoHuberDistance, WelschDistance
from spec.errors import DataBoundError

LOSSES = [PseudoHuberDistance(lipschitz=2.0, width=0.5, data_norm=3.0),
          WelschDistance(lipschitz=1.5, width=0.7, data_norm=3.0)]


def _hessian(loss, theta, d, h=1e-5):
    p = theta.size
    out = np.empty((p, p))
    for j in range(p):
        e = np.zeros(p)
        e[j] = h
        out[:, j] = (loss.gradient(theta + e, d) - loss.gradient(theta - e, d)) / (2 * h)
    return (out + out.T) / 2


@pytest.mark.parametrize("loss", LOSSES, ids=lambda l: type(l).__name__)
def test_gradient_is_the_derivative_of_the_value(loss):
    rng = np.random.default_rng(0)
    for _ in range(20):
        theta, d = rng.normal(size=3), rng.normal(size=3)
        d = d / np.linalg.norm(d) * min(np.linalg.norm(d), 3.0)
        num = np.array([(loss.value(theta + e, d) - loss.value(theta - e, d)) / 2e-6 for e in np.eye(3) * 1e-6])
        np.testing.assert_allclose(loss.gradient(theta, d), num, rtol=1e-6, atol=1e-8)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 50.0), st.integers(1, 6))
def test_declared_constants_bound_the_gradient_and_the_curvature(radius, p):
    rng = np.random.default_rng(int(radius * 1000) + p)
    for loss in LOSSES:
        c = loss.constants
        u = rng.normal(size=p)
        u = u / np.linalg.norm(u) * radius
        d = np.zeros(p)
        assert np.linalg.norm(loss.gradient(u, d)) <= c.lipschitz * (1 + 1e-12)
        eig = np.linalg.eigvalsh(_hessian(loss, u, d))
        assert np.max(np.abs(eig)) <= c.smoothness * (1 + 1e-5) + 1e-8
        if loss.convex:
            assert eig.min() >= -1e-6


def test_constants_are_attained():
    ph, we = LOSSES
    assert ph.constants.smoothness == pytest.approx(2.0 / 0.5)
    np.testing.assert_allclose(np.linalg.eigvalsh(_hessian(ph, np.zeros(2), np.zeros(2))), [4.0, 4.0], rtol=1e-6)
    assert np.linalg.norm(ph.gradient(np.array([1e6, 0.0]), np.zeros(2))) == pytest.approx(2.0, rel=1e-9)
    # Welsch: gradient norm G exactly at ||u|| = w, curvature G sqrt(e)/w at u = 0, negative curvature elsewhere
    assert np.linalg.norm(we.gradient(np.array([0.7, 0.0]), np.zeros(2))) == pytest.approx(1.5, rel=1e-12)
    assert we.constants.smoothness == pytest.approx(1.5 * math.sqrt(math.e) / 0.7)
    np.testing.assert_allclose(np.linalg.eigvalsh(_hessian(we, np.zeros(2), np.zeros(2))),
                               [we.constants.smoothness] * 2, rtol=1e-6)
    assert np.linalg.eigvalsh(_hessian(we, np.array([0.7 * math.sqrt(3), 0.0]), np.zeros(2))).min() < -0.4 * we.scale / 0.49
    assert not we.convex and we.constants.strong_convexity == 0.0
    assert 0 <= we.value(np.array([100.0, 0.0]), np.zeros(2)) <= we.scale


def test_values_and_bounds():
    ph, we = LOSSES
    assert ph.value(np.array([3.0, 4.0]), np.zeros(2)) == pytest.approx(2.0 * (math.sqrt(0.25 + 25) - 0.5))
    assert ph.value(np.array([1e-9, 0.0]), np.zeros(2)) == pytest.approx(2.0 * 1e-18 / 1.0, rel=1e-6)
    assert we.value(np.zeros(2), np.zeros(2)) == 0.0
    with pytest.raises(DataBoundError, match="data_norm"):
        ph.check_data(np.array([[4.0, 0.0]]))
    assert ph.mean(np.zeros(2), np.array([[1.0, 0.0], [0.0, 1.0]])) == pytest.approx(
        2.0 * (math.sqrt(0.25 + 1) - 0.5))


@pytest.mark.parametrize("loss", LOSSES, ids=lambda l: type(l).__name__)
def test_totals_agree_with_the_per_example_sums(loss):
    """The matrix-product totals (one data set, and one data set per run) equal the plain sums."""
    rng = np.random.default_rng(1)
    data = rng.normal(size=(30, 4))
    data /= np.maximum(1.0, np.linalg.norm(data, axis=1, keepdims=True) / 3.0)
    theta = rng.normal(size=(5, 4)) * 2
    plain = np.stack([sum(loss.gradient(t, d) for d in data) for t in theta])
    np.testing.assert_allclose(loss.total_gradient(theta, data), plain, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss.total(theta, data), [sum(loss.value(t, d) for d in data) for t in theta],
                               rtol=1e-10, atol=1e-12)
    per_run = np.broadcast_to(data, (5, 30, 4))
    np.testing.assert_allclose(loss.total_gradient(theta, per_run), plain, rtol=1e-10, atol=1e-12)


def test_welsch_distance_is_a_rescaled_welsch():
    """WelschDistance(G, w) = (G sqrt(e)/w) Welsch(scale = sqrt(2) w), values and gradients."""
    from reference.losses import Welsch

    rng = np.random.default_rng(7)
    for G, w in [(1.0, 1.0), (1.5, 0.7), (0.3, 2.0)]:
        wd = WelschDistance(lipschitz=G, width=w, data_norm=3.0)
        we = Welsch(scale=math.sqrt(2) * w, data_norm=3.0)
        factor = G * math.sqrt(math.e) / w
        for _ in range(5):
            theta, d = rng.normal(size=3), rng.normal(size=3)
            assert float(wd.value(theta, d)) == pytest.approx(factor * float(we.value(theta, d)), rel=1e-12)
            np.testing.assert_allclose(wd.gradient(theta, d), factor * we.gradient(theta, d), rtol=1e-12)

