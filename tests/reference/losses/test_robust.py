"""reference.losses.robust: the Cauchy loss's derivatives and declared constants, checked with mpmath.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.losses import Cauchy
from spec.errors import DataBoundError, ParameterError


def _phi(r, c):
    return c * c / 2 * mpmath.log1p((mpmath.mpf(r) / c) ** 2)


@settings(max_examples=40, deadline=None)
@given(st.floats(-20, 20), st.floats(0.1, 5.0))
def test_value_and_gradient_against_mpmath(r, c):
    loss = Cauchy(feature_norm=1.0, scale=c)
    row = np.array([[1.0, -r]])  # x = 1, y = -r: residual <theta, x> - y = theta + r at theta = 0
    with mpmath.workdps(30):
        value = _phi(r, c)
        d = mpmath.diff(lambda t: _phi(t, c), mpmath.mpf(r))
    assert math.isclose(float(loss.value(np.zeros(1), row)[0]), float(value), rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(float(loss.gradient(np.zeros(1), row)[0, 0]), float(d), rel_tol=1e-10, abs_tol=1e-14)


def test_constants_are_the_suprema():
    """|phi'| <= c/2 attained at |r| = c; |phi''| <= 1 attained at 0, phi'' >= -1/8 at r^2 = 3 c^2 (mpmath)."""
    c = 1.7
    with mpmath.workdps(30):
        grid = [mpmath.mpf(c) * mpmath.mpf(k) / 1000 for k in range(-8000, 8001)]
        d1 = [abs(mpmath.diff(lambda t: _phi(t, c), r)) for r in grid[::40]]
        d2 = [mpmath.diff(lambda t: _phi(t, c), r, 2) for r in grid[::40]]
    assert float(max(d1)) <= c / 2 + 1e-12 and abs(float(max(d1)) - c / 2) < 1e-3
    assert abs(float(max(d2)) - 1) < 1e-12 and abs(float(min(d2)) + 1 / 8) < 1e-4
    loss = Cauchy(feature_norm=2.0, scale=c)
    assert loss.constants.lipschitz == pytest.approx(2.0 * c / 2, rel=1e-15)
    assert loss.constants.lipschitz >= 2.0 * c / 2
    assert loss.constants.smoothness == 4.0 and loss.constants.strong_convexity == 0.0
    assert not loss.convex and loss.domain_radius is None


def test_total_gradient_is_the_sum_of_the_per_example_gradients():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    data = np.column_stack([x, rng.normal(size=30)])
    loss = Cauchy(feature_norm=1.0, scale=0.5)
    theta = rng.normal(size=(3, 4))
    per = loss.gradient(theta[:, None, :], data[None])
    assert np.allclose(loss.total_gradient(theta, data), per.sum(axis=1))
    assert np.allclose(loss.mean(theta, data), loss.value(theta[:, None, :], data[None]).mean(axis=1))


def test_bounds_are_enforced():
    loss = Cauchy(feature_norm=1.0, scale=1.0, label_bound=2.0)
    with pytest.raises(DataBoundError, match="feature_norm"):
        loss.check_data([[3.0, 0.0]])
    with pytest.raises(DataBoundError, match="label_bound"):
        loss.check_data([[0.5, 2.5]])
    Cauchy(feature_norm=1.0, scale=1.0).check_data([[0.5, 1e6]])  # no label bound: any finite label
    with pytest.raises(ParameterError, match="scale"):
        Cauchy(feature_norm=1.0, scale=0.0)
