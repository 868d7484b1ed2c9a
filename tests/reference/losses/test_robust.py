"""Tests of reference.losses.robust: the Welsch location loss and the Cauchy regression loss, their
gradients and their constants.

Oracles: the formula in mpmath (30 digits) and mpmath numerical differentiation; the constants
are derived with sympy (critical points of the gradient norm and of the Hessian's eigenvalues),
checked on random points (hypothesis) and shown attained by explicit witnesses.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from reference.losses import Cauchy, Welsch
from spec.errors import DataBoundError, ParameterError


def _oracle(theta, d, c):
    r2 = mpmath.fsum((mpmath.mpf(t) - mpmath.mpf(x)) ** 2 for t, x in zip(theta, d))
    return c**2 / 2 * (1 - mpmath.exp(-r2 / c**2))


@pytest.mark.parametrize("c", [0.3, 1.0, 2.5])
def test_value_and_gradient_match_mpmath(c):
    loss = Welsch(scale=c, data_norm=3.0)
    rng = np.random.default_rng(1)
    with mpmath.workdps(30):
        for _ in range(20):
            theta, d = rng.normal(size=3), rng.normal(size=3)
            d *= min(1.0, 2.9 / np.linalg.norm(d))
            want = _oracle(theta, d, mpmath.mpf(c))
            assert float(loss.value(theta, d)) == pytest.approx(float(want), rel=1e-13, abs=1e-300)
            grad = loss.gradient(theta, d)
            for j in range(3):
                def f(t, j=j):
                    th = [mpmath.mpf(v) for v in theta]
                    th[j] = t
                    return _oracle(th, d, mpmath.mpf(c))
                assert grad[j] == pytest.approx(float(mpmath.diff(f, mpmath.mpf(theta[j]))), rel=1e-10, abs=1e-14)


def test_small_values_keep_relative_accuracy():
    loss = Welsch(scale=1.0, data_norm=1.0)
    v = float(loss.value(np.array([1e-9, 0.0]), np.zeros(2)))
    assert v == pytest.approx(0.5e-18, rel=1e-12)  # -expm1, not 1 - exp


def test_constants_derived_with_sympy():
    """||grad|| = r e^{-r^2/c^2} peaks at r = c/sqrt 2 with value c/sqrt(2e); the Hessian's
    eigenvalues e^{-s} and e^{-s}(1 - 2s) (s = r^2/c^2) have sup |.| = 1, at s = 0."""
    r, c, s = sp.symbols("r c s", positive=True)
    g = r * sp.exp(-r**2 / c**2)
    crit = sp.solve(sp.diff(g, r), r)
    assert crit == [c / sp.sqrt(2)]
    assert sp.simplify(g.subs(r, crit[0]) - c / sp.sqrt(2 * sp.E)) == 0
    radial = sp.exp(-s) * (1 - 2 * s)
    crit_s = sp.solve(sp.diff(radial, s), s)
    assert crit_s == [sp.Rational(3, 2)]
    assert sp.simplify(radial.subs(s, crit_s[0]) + 2 * sp.exp(-sp.Rational(3, 2))) == 0
    assert abs(float(radial.subs(s, crit_s[0]))) < 1 and radial.subs(s, 0) == 1 and sp.limit(radial, s, sp.oo) == 0
    for scale in (0.5, 1.0, 4.0):
        k = Welsch(scale=scale, data_norm=1.0).constants
        exact = scale / math.sqrt(2 * math.e)
        assert exact <= k.lipschitz <= exact * (1 + 1e-15)
        assert (k.smoothness, k.strong_convexity) == (1.0, 0.0)


def test_constants_attained():
    loss = Welsch(scale=2.0, data_norm=1.0)
    u = np.array([0.6, 0.8])
    # the gradient norm at r = c/sqrt 2
    theta = u * (2.0 / math.sqrt(2))
    assert np.linalg.norm(loss.gradient(theta, np.zeros(2))) == pytest.approx(loss.constants.lipschitz, rel=1e-12)
    # the Hessian at theta = d is the identity: smoothness 1
    h = 1e-6
    g1 = loss.gradient(u * h, np.zeros(2))
    g0 = loss.gradient(-u * h, np.zeros(2))
    assert np.linalg.norm(g1 - g0) / (2 * h) == pytest.approx(1.0, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.2, 5.0))
def test_constants_hold_on_random_points(seed, c):
    rng = np.random.default_rng(seed)
    loss = Welsch(scale=c, data_norm=2.0)
    k = loss.constants
    d = rng.normal(size=(64, 3))
    d *= np.minimum(1.0, 1.9 / np.linalg.norm(d, axis=1))[:, None]
    a, b = rng.normal(size=(64, 3)) * 3 * c, rng.normal(size=(64, 3)) * 3 * c
    dist = np.linalg.norm(a - b, axis=1)
    assert np.all(np.linalg.norm(loss.gradient(a, d), axis=1) <= k.lipschitz * (1 + 1e-12))
    assert np.all(np.abs(loss.value(a, d) - loss.value(b, d)) <= k.lipschitz * dist * (1 + 1e-9) + 1e-15)
    assert np.all(np.linalg.norm(loss.gradient(a, d) - loss.gradient(b, d), axis=1) <= dist * (1 + 1e-9) + 1e-15)
    v = loss.value(a, d)
    assert np.all((v >= 0) & (v <= c * c / 2))  # < c^2/2 exactly; = in floating point far away


def test_really_nonconvex():
    loss = Welsch(scale=1.0, data_norm=1.0)
    d = np.zeros(1)
    a, b = np.array([1.0]), np.array([3.0])  # beyond r = c/sqrt 2 the loss is concave along the ray
    assert loss.value(b, d) < loss.value(a, d) + loss.gradient(a, d) @ (b - a)
    assert loss.convex is False and loss.supervised is False


def test_bounds_and_arguments():
    loss = Welsch(scale=1.0, data_norm=1.0)
    with pytest.raises(DataBoundError, match="data_norm"):
        loss.check_data(np.array([[0.0, 1.5]]))
    for bad in ({"scale": 0.0, "data_norm": 1.0}, {"scale": 1.0, "data_norm": -1.0}):
        with pytest.raises(ParameterError):
            Welsch(**bad)
    with pytest.raises(TypeError):
        Welsch(1.0, 1.0)
    assert repr(loss) == "Welsch(scale=1.0, data_norm=1.0)"



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
