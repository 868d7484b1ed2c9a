"""Tests of reference.losses: values, gradients and the constants each loss guarantees.

Oracles
-------
* values: scalar re-implementations of each formula in mpmath (30 digits);
* gradients: mpmath numerical differentiation of those oracles, and central differences;
* constants: the defining inequalities on random points within the bounds (hypothesis), plus
  explicit witnesses (derived in each test) where the constant is attained or nearly attained,
  so a constant that is too large is caught as well as one that is too small;
* the sigmoid smoothness constant: the exact maximum of |s''| derived with sympy.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings, strategies as st

from reference.losses import (
    BOUND_TOLERANCE,
    HalfSquaredDistance,
    Hinge,
    Huber,
    L1Regulariser,
    L2Regulariser,
    LeastSquares,
    Linear,
    Logistic,
    LossConstants,
    Regularised,
    Sigmoid,
)
from spec.errors import DataBoundError, ParameterError



@pytest.fixture(autouse=True)
def _mpmath_precision():
    """30-digit mpmath oracles, without leaking the precision into other test modules."""
    with mpmath.workdps(30):
        yield

# --------------------------------------------------------------------------------------------
# oracles (mpmath, scalar): loss(theta, row) for one theta and one row
# --------------------------------------------------------------------------------------------


def _dot(a, b):
    # mpmath.mpf converts np.float64 exactly and keeps mpf perturbations (for mpmath.diff)
    return mpmath.fsum(mpmath.mpf(u) * mpmath.mpf(v) for u, v in zip(a, b))


def _margin_oracle(phi):
    def f(theta, row):
        x, y = row[:-1], mpmath.mpf(float(row[-1]))
        return phi(_dot(theta, x), y)

    return f


def _huber_phi(width):
    w = mpmath.mpf(width)

    def phi(m, y):
        r = m - y
        return r * r / (2 * w) if abs(r) <= w else abs(r) - w / 2

    return phi


ORACLES = {
    "linear": lambda theta, d: -_dot(theta, d),
    "half_squared": lambda theta, d: mpmath.fsum((mpmath.mpf(t) - mpmath.mpf(v)) ** 2 for t, v in zip(theta, d)) / 2,
    "logistic": _margin_oracle(lambda m, y: mpmath.log(1 + mpmath.exp(-y * m))),
    "hinge": _margin_oracle(lambda m, y: max(mpmath.mpf(0), 1 - y * m)),
    "huber": _margin_oracle(_huber_phi(0.5)),
    "least_squares": _margin_oracle(lambda m, y: (m - y) ** 2 / 2),
    "sigmoid": _margin_oracle(lambda m, y: 1 / (1 + mpmath.exp(y * m))),
}

# feature/data norm X, label bound Y, domain radius R used throughout
X, Y, R, P = 1.5, 2.0, 3.0, 4


def make(name):
    return {
        "linear": lambda: Linear(data_norm=X),
        "half_squared": lambda: HalfSquaredDistance(data_norm=X, domain_radius=R),
        "logistic": lambda: Logistic(feature_norm=X),
        "hinge": lambda: Hinge(feature_norm=X),
        "huber": lambda: Huber(feature_norm=X, label_bound=Y, width=0.5, domain_radius=R),
        "least_squares": lambda: LeastSquares(feature_norm=X, label_bound=Y, domain_radius=R),
        "sigmoid": lambda: Sigmoid(feature_norm=X),
    }[name]()


NAMES = list(ORACLES)
CLASSIFIERS = {"logistic", "hinge", "sigmoid"}
REGRESSIONS = {"huber", "least_squares"}


def _ball(rng, shape, radius, *, on_sphere_fraction=0.2):
    """Points with norm <= radius, some exactly at radius (the extreme case)."""
    v = rng.normal(size=shape + (P,))
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    r = radius * rng.random(shape) ** (1 / P)
    r = np.where(rng.random(shape) < on_sphere_fraction, radius, r)
    return v * r[..., None]


def random_rows(name, rng, n):
    """n rows within the bounds of loss ``name``."""
    x = _ball(rng, (n,), X)
    if name in CLASSIFIERS:
        return np.c_[x, rng.choice([-1.0, 1.0], size=n)]
    if name in REGRESSIONS:
        return np.c_[x, rng.uniform(-Y, Y, size=n)]
    return x


def random_theta(rng, shape, radius=R):
    return _ball(rng, shape, radius)


def _shift(theta, k, h):
    out = [mpmath.mpf(float(t)) for t in theta]
    out[k] += h
    return out


# --------------------------------------------------------------------------------------------
# values and gradients against the oracles
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_values_match_mpmath_oracle(name):
    rng = np.random.default_rng(1)
    loss = make(name)
    rows = random_rows(name, rng, 12)
    theta = random_theta(rng, (12,))
    got = loss.value(theta, rows, check=True)
    assert got.shape == (12,)
    for t, r, g in zip(theta, rows, got):
        assert g == pytest.approx(float(ORACLES[name](t, r)), rel=1e-13, abs=1e-14)


@pytest.mark.parametrize("name", NAMES)
def test_gradients_match_mpmath_derivative(name):
    """mpmath.diff of the oracle (exact derivative to ~25 digits) away from kinks."""
    rng = np.random.default_rng(2)
    loss = make(name)
    oracle = ORACLES[name]
    rows = random_rows(name, rng, 6)
    theta = random_theta(rng, (6,))
    grads = loss.gradient(theta, rows)
    assert grads.shape == (6, P)
    for t, r, g in zip(theta, rows, grads):
        for k in range(P):
            d = mpmath.diff(lambda h: oracle(_shift(t, k, h), r), 0)
            assert g[k] == pytest.approx(float(d), rel=1e-10, abs=1e-12)


def _away_from_kinks(name, theta, row):
    """Hinge has a kink at margin 1; Huber's second derivative jumps at |r| = w (= 0.5)."""
    if name == "hinge":
        return abs(row[-1] * theta @ row[:-1] - 1) > 1e-3
    if name == "huber":
        return abs(abs(theta @ row[:-1] - row[-1]) - 0.5) > 1e-3
    return True


@settings(max_examples=60)
@given(st.sampled_from(NAMES), st.integers(0, 2**32 - 1))
def test_gradient_central_differences(name, seed):
    """Central differences (h = 1e-6) of ``value`` agree with ``gradient``: error O(h^2 beta + eps/h)."""
    rng = np.random.default_rng(seed)
    loss = make(name)
    row = random_rows(name, rng, 1)[0]
    theta = random_theta(rng, ())
    assume(_away_from_kinks(name, theta, row))
    h = 1e-6
    eye = np.eye(P)
    # theta +- h may step just outside domain_radius: the stencil is not a claim about the domain
    fd = (loss.value(theta + h * eye, row, check=False) - loss.value(theta - h * eye, row, check=False)) / (2 * h)
    np.testing.assert_allclose(loss.gradient(theta, row), fd, rtol=1e-6, atol=1e-7)


def test_hinge_subgradient_choice_at_kink():
    """At margin exactly 1 the documented subgradient is 0; just below it is -y x."""
    loss = Hinge(feature_norm=1.0)
    row = np.array([1.0, 0.0, -1.0])  # x = e_1, y = -1
    assert np.array_equal(loss.gradient(np.array([-1.0, 0.0]), row), [0.0, 0.0])
    assert np.array_equal(loss.gradient(np.array([-0.5, 0.0]), row), [1.0, 0.0])
    assert loss.value(np.array([-1.0, 0.0]), row) == 0.0


def test_logistic_and_sigmoid_are_stable_at_huge_margins():
    """No overflow warnings (pytest makes them errors) and correct asymptotics."""
    row = np.array([1.0, 0.0, 1.0])
    for m, expected in ((-800.0, 800.0), (800.0, 0.0), (-40.0, 40.0 + math.log1p(math.exp(-40.0)))):
        theta = np.array([m, 0.0])
        assert Logistic(feature_norm=1.0).value(theta, row) == pytest.approx(expected, rel=1e-15, abs=1e-300)
    np.testing.assert_allclose(Logistic(feature_norm=1.0).gradient(np.array([-800.0, 0.0]), row), [-1.0, 0.0])
    assert Sigmoid(feature_norm=1.0).value(np.array([-800.0, 0.0]), row) == 1.0
    assert Sigmoid(feature_norm=1.0).value(np.array([800.0, 0.0]), row) == 0.0  # e^-800 underflows
    assert Sigmoid(feature_norm=1.0).value(np.array([40.0, 0.0]), row) == pytest.approx(
        float(1 / (1 + mpmath.exp(40))), rel=1e-14
    )
    np.testing.assert_array_equal(Sigmoid(feature_norm=1.0).gradient(np.array([800.0, 0.0]), row), [0.0, 0.0])


# --------------------------------------------------------------------------------------------
# totals, averages and broadcasting
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_total_is_sum_of_oracle_values(name):
    rng = np.random.default_rng(3)
    loss = make(name)
    data = random_rows(name, rng, 9)
    theta = random_theta(rng, (3,))
    total = loss.total(theta, data, check=True)
    assert total.shape == (3,)
    for t, tot in zip(theta, total):
        exact = mpmath.fsum(ORACLES[name](t, r) for r in data)
        assert tot == pytest.approx(float(exact), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(loss.total(theta, data, normalisation="average"), total / 9, rtol=1e-15)
    np.testing.assert_allclose(loss.mean(theta, data), total / 9, rtol=1e-15)
    # gradient of the total = sum of per-example gradients (computed row by row)
    per_row = np.array([[loss.gradient(t, r) for r in data] for t in theta]).sum(axis=1)
    np.testing.assert_allclose(loss.total_gradient(theta, data), per_row, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(loss.mean_gradient(theta, data), per_row / 9, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_broadcasting_shapes(name):
    rng = np.random.default_rng(4)
    loss = make(name)
    runs, n = 5, 7
    data = random_rows(name, rng, n)
    theta = random_theta(rng, (runs,))
    rows = data[rng.integers(0, n, size=runs)]
    # one sampled row per run
    assert loss.value(theta, rows).shape == (runs,)
    assert loss.gradient(theta, rows).shape == (runs, P)
    # runs x rows matrix
    matrix = loss.value(theta[:, None, :], data[None])
    assert matrix.shape == (runs, n)
    np.testing.assert_allclose(matrix[2, 4], loss.value(theta[2], data[4]), rtol=1e-15)
    np.testing.assert_allclose(matrix.sum(-1), loss.total(theta, data), rtol=1e-12, atol=1e-12)
    assert loss.gradient(theta[:, None, :], data[None]).shape == (runs, n, P)
    # one data set per run: data (runs, n, k)
    stacked = np.stack([random_rows(name, rng, n) for _ in range(runs)])
    per_run = loss.total(theta, stacked)
    assert per_run.shape == (runs,)
    np.testing.assert_allclose(per_run[1], loss.total(theta[1], stacked[1]), rtol=1e-12)
    assert loss.total_gradient(theta, stacked).shape == (runs, P)
    # a single theta and a single row give a scalar
    assert np.ndim(loss.value(theta[0], data[0])) == 0


def test_row_layout():
    sup, unsup = Logistic(feature_norm=1.0), Linear(data_norm=1.0)
    assert sup.row_size(3) == 4 and sup.dim_of_row(4) == 3
    assert unsup.row_size(3) == 3 and unsup.dim_of_row(3) == 3
    x, y = sup.split(np.arange(8.0).reshape(2, 4))
    assert x.shape == (2, 3) and np.array_equal(y, [3.0, 7.0])
    d, none = unsup.split(np.arange(6.0).reshape(2, 3))
    assert none is None and d.shape == (2, 3)
    with pytest.raises(ParameterError, match=r"k \(1\) must be >= 2"):
        sup.dim_of_row(1)


# --------------------------------------------------------------------------------------------
# the declared constants: inequalities on random points
# --------------------------------------------------------------------------------------------

REL = 1e-9  # slack for floating rounding in the inequalities


@settings(max_examples=40)
@given(st.sampled_from(NAMES), st.integers(0, 2**32 - 1))
def test_constants_hold_on_random_points(name, seed):
    rng = np.random.default_rng(seed)
    loss = make(name)
    c = loss.constants
    rows = random_rows(name, rng, 64)
    a, b = random_theta(rng, (64,)), random_theta(rng, (64,))
    if name in ("logistic", "hinge", "sigmoid"):
        # these constants hold on all of R^p: use far-away points too
        a[:16] *= 30.0
        b[16:32] *= 30.0
    dist = np.linalg.norm(a - b, axis=-1)
    la, lb = loss.value(a, rows), loss.value(b, rows)
    ga, gb = loss.gradient(a, rows), loss.gradient(b, rows)
    # Lipschitz: values, and subgradient norms
    assert np.all(np.abs(la - lb) <= c.lipschitz * dist * (1 + REL) + 1e-12)
    assert np.all(np.linalg.norm(ga, axis=-1) <= c.lipschitz * (1 + REL))
    # smoothness
    if c.smooth:
        assert np.all(np.linalg.norm(ga - gb, axis=-1) <= c.smoothness * dist * (1 + REL) + 1e-12)
    # convexity / strong convexity: l(b) >= l(a) + <g(a), b - a> + Delta/2 ||b - a||^2
    if loss.convex:
        lower = la + np.sum(ga * (b - a), axis=-1) + 0.5 * c.strong_convexity * dist**2
        assert np.all(lb >= lower - 1e-9 * (1 + np.abs(lb)))


def test_sigmoid_is_really_nonconvex():
    """convex = False is truthful: the first-order convexity inequality fails somewhere."""
    loss = Sigmoid(feature_norm=1.0)
    row = np.array([1.0, 1.0])  # x = 1, y = 1: loss 1/(1 + e^theta), concave for theta < 0
    a, b = np.array([-1.0]), np.array([-4.0])
    assert loss.value(b, row) < loss.value(a, row) + loss.gradient(a, row) @ (b - a)


def test_constants_are_rounded_up_from_exact_values():
    """Exact constants: LossConstants are rounded up from 50-digit values."""
    assert Logistic(feature_norm=3.0).constants.smoothness == 2.25
    assert LeastSquares(feature_norm=0.1, label_bound=1.0, domain_radius=1.0).constants.smoothness >= 0.1 * 0.1
    hs = HalfSquaredDistance(data_norm=0.1, domain_radius=0.2).constants
    assert hs.lipschitz >= 0.1 + 0.2 and hs.lipschitz == pytest.approx(0.3, rel=1e-15)
    assert (hs.smoothness, hs.strong_convexity) == (1.0, 1.0)
    with mpmath.workdps(50):
        exact = mpmath.mpf(0.1) * (mpmath.mpf(1.0) * mpmath.mpf(0.1) + mpmath.mpf(0.3))
        lip = LeastSquares(feature_norm=0.1, label_bound=0.3, domain_radius=1.0).constants.lipschitz
        assert mpmath.mpf(lip) >= exact and mpmath.mpf(math.nextafter(lip, 0)) < exact


def test_sigmoid_smoothness_is_exact_maximum_of_s_second_derivative():
    """sympy: s(t) = 1/(1 + e^{-t}); the critical points of s'' are where s''' = 0, i.e.
    s in {(3 - sqrt 3)/6, (3 + sqrt 3)/6}; max |s''| = sqrt(3)/18 = 1/(6 sqrt 3)."""
    t = sp.Symbol("t", real=True)
    s = 1 / (1 + sp.exp(-t))
    s2 = sp.diff(s, t, 2)
    critical = sp.solve(sp.Eq(sp.simplify(sp.diff(s, t, 3)), 0), t)
    values = [sp.nsimplify(sp.simplify(sp.Abs(s2.subs(t, c)))) for c in critical]
    peak = max(values, key=lambda v: float(v))
    assert sp.simplify(peak - 1 / (6 * sp.sqrt(3))) == 0
    # s'' -> 0 at +-inf, so the interior critical value is the global maximum
    assert sp.limit(s2, t, sp.oo) == 0 and sp.limit(s2, t, -sp.oo) == 0
    for feature_norm in (1.0, 0.3, 7.0):
        beta = Sigmoid(feature_norm=feature_norm).constants.smoothness
        exact = feature_norm**2 * float(peak)
        assert exact <= beta <= exact * (1 + 1e-15)
    assert Sigmoid(feature_norm=2.0).constants.lipschitz == 0.5


# --------------------------------------------------------------------------------------------
# the declared constants are attained (or nearly): explicit witnesses
# --------------------------------------------------------------------------------------------


def _unit(v):
    return v / np.linalg.norm(v)


U = _unit(np.array([1.0, -2.0, 0.5, 3.0]))  # a unit direction in R^4


def _grad_norm(loss, theta, row):
    return float(np.linalg.norm(loss.gradient(theta, row)))


def _hessian_norm_along(loss, theta, row, direction, h=1e-5):
    g1 = loss.gradient(theta + h * direction, row, check=False)  # the stencil may leave the domain
    g0 = loss.gradient(theta - h * direction, row, check=False)
    return float(np.linalg.norm(g1 - g0)) / (2 * h)


def test_lipschitz_attained():
    """For each loss, a point within the bounds whose gradient norm is (nearly) L."""
    cases = []
    # linear: grad = -d, ||d|| = X
    cases.append((make("linear"), np.zeros(P), X * U, 1.0))
    # half squared: theta = -R u, d = X u: grad = -(R + X) u
    cases.append((make("half_squared"), -R * U, X * U, 1.0))
    # logistic: y = 1, x = X u, theta = -t u with t large: ||grad|| = X s(t X) -> X
    cases.append((make("logistic"), -30.0 * U, np.r_[X * U, 1.0], 1 - 1e-15))
    # hinge: margin < 1
    cases.append((make("hinge"), np.zeros(P), np.r_[X * U, -1.0], 1.0))
    # huber: theta = R u, x = X u, y = -Y: r = R X + Y = 6.5 > w
    cases.append((make("huber"), R * U, np.r_[X * U, -Y], 1.0))
    # least squares: same witness, |r| = R X + Y
    cases.append((make("least_squares"), R * U, np.r_[X * U, -Y], 1.0))
    # sigmoid: margin 0 maximises s'
    cases.append((make("sigmoid"), np.zeros(P), np.r_[X * U, 1.0], 1.0))
    for loss, theta, row, ratio in cases:
        loss.check_data(row[None])
        loss.check_theta(theta)
        assert _grad_norm(loss, theta, row) >= ratio * loss.constants.lipschitz * (1 - 1e-12), loss


def test_huber_lipschitz_uses_domain_when_quadratic_region_covers_it():
    """If R X + Y < w the residual never leaves the quadratic piece: L = X (R X + Y)/w, attained."""
    loss = Huber(feature_norm=1.0, label_bound=0.5, width=4.0, domain_radius=2.0)
    assert loss.constants.lipschitz == pytest.approx(1.0 * 2.5 / 4.0, rel=1e-15)
    assert _grad_norm(loss, 2.0 * U, np.r_[U, -0.5]) == pytest.approx(loss.constants.lipschitz, rel=1e-12)
    assert Huber(feature_norm=1.0, label_bound=0.5, width=4.0).constants.lipschitz == 1.0


def test_smoothness_attained():
    """Hessian norm along the worst direction, by differences of the gradient."""
    cases = [
        (make("half_squared"), np.zeros(P), X * U, U),
        (make("logistic"), np.zeros(P), np.r_[X * U, 1.0], U),  # s(1 - s) = 1/4 at margin 0
        (make("huber"), np.zeros(P), np.r_[X * U, 0.0], U),  # |r| < w: h'' = 1/w
        (make("least_squares"), np.zeros(P), np.r_[X * U, 0.3], U),
    ]
    # sigmoid: margin t* with s(-t*) = (3 - sqrt 3)/6 maximises |s''|
    s_star = (3 - math.sqrt(3)) / 6
    t_star = -math.log(s_star / (1 - s_star))  # s(-t*) = s_star
    cases.append((make("sigmoid"), t_star / X * U, np.r_[X * U, 1.0], U))
    for loss, theta, row, direction in cases:
        got = _hessian_norm_along(loss, theta, row, direction)
        assert got == pytest.approx(loss.constants.smoothness, rel=1e-6), loss


def test_strong_convexity_attained():
    """HalfSquaredDistance: l(b) - l(a) - <g, b - a> = ||b - a||^2 / 2 exactly (Delta = 1)."""
    loss = make("half_squared")
    rng = np.random.default_rng(5)
    a, b, d = random_theta(rng, ()), random_theta(rng, ()), _ball(rng, (), X)
    gap = loss.value(b, d) - loss.value(a, d) - loss.gradient(a, d) @ (b - a)
    assert gap == pytest.approx(0.5 * loss.constants.strong_convexity * np.sum((b - a) ** 2), rel=1e-10)


# --------------------------------------------------------------------------------------------
# regularisers and regularised losses
# --------------------------------------------------------------------------------------------


def test_l2_regulariser():
    reg = L2Regulariser(strength=0.4)
    v = np.array([[1.0, -2.0, 0.5, 0.0], [3.0, 0.0, 0.0, 0.0]])
    np.testing.assert_allclose(reg.value(v), 0.2 * np.sum(v * v, axis=-1))
    np.testing.assert_allclose(reg.gradient(v), 0.4 * v)
    # prox optimality: step * grad r(u) + u - v = 0
    u = reg.prox(v, 0.7)
    np.testing.assert_allclose(0.7 * reg.gradient(u) + u - v, 0.0, atol=1e-15)
    c = reg.constants(domain_radius=2.0)
    assert (c.lipschitz, c.smoothness, c.strong_convexity) == (pytest.approx(0.8, rel=1e-15), 0.4, 0.4)
    with pytest.raises(ParameterError, match="domain_radius"):
        reg.constants()


def test_l1_regulariser_prox_is_the_minimiser():
    """Soft thresholding: (v - u)/step is a subgradient of r at u (optimality), and the prox
    objective is no larger than at random perturbations."""
    reg = L1Regulariser(strength=0.5)
    rng = np.random.default_rng(6)
    v = rng.normal(size=(20, P))
    v[0, 0] = 0.0
    step = 0.8
    u = reg.prox(v, step)
    sub = (v - u) / step
    t = step * reg.strength
    assert np.all(np.where(u != 0, np.isclose(sub, reg.strength * np.sign(u)), np.abs(sub) <= reg.strength + 1e-15))
    assert np.all(np.where(np.abs(v) <= t, u == 0, True))

    def objective(w):
        return step * reg.value(w) + 0.5 * np.sum((w - v) ** 2, axis=-1)

    for _ in range(10):
        assert np.all(objective(u) <= objective(u + 0.01 * rng.normal(size=u.shape)) + 1e-15)
    np.testing.assert_array_equal(reg.gradient(np.array([0.0, -2.0, 3.0, 0.0])), [0.0, -0.5, 0.5, 0.0])
    c = reg.constants(dim=9)
    assert c.lipschitz == pytest.approx(1.5, rel=1e-15) and c.smoothness == math.inf
    with pytest.raises(ParameterError, match="dim"):
        reg.constants()


def test_regularised_conventions_and_constants():
    """Per-example loss l + r: the sum objective is sum l + n r, the average mean l + r."""
    rng = np.random.default_rng(7)
    base = make("half_squared")
    reg = L2Regulariser(strength=0.3)
    loss = Regularised(base, reg)
    data = random_rows("half_squared", rng, 10)
    theta = random_theta(rng, (4,))
    np.testing.assert_allclose(loss.total(theta, data), base.total(theta, data) + 10 * reg.value(theta), rtol=1e-13)
    np.testing.assert_allclose(loss.mean(theta, data), base.mean(theta, data) + reg.value(theta), rtol=1e-13)
    np.testing.assert_allclose(
        loss.total_gradient(theta, data), base.total_gradient(theta, data) + 10 * reg.gradient(theta), rtol=1e-13
    )
    np.testing.assert_allclose(loss.value(theta, data[:4]), base.value(theta, data[:4]) + reg.value(theta), rtol=1e-13)
    c = loss.constants
    assert c.lipschitz == pytest.approx(R + X + 0.3 * R, rel=1e-15) and c.lipschitz >= R + X + 0.3 * R
    assert (c.smoothness, c.strong_convexity) == (pytest.approx(1.3), pytest.approx(1.3))
    # attained: theta = -R u, d = X u -> grad = -(R + X + 0.3 R) u
    assert _grad_norm(loss, -R * U, X * U) == pytest.approx(c.lipschitz, rel=1e-14)
    # hinge + l1: L = X + strength sqrt(p), attained with theta > 0 small and x = X (1,..,1)/sqrt p, y = -1
    l1 = Regularised(make("hinge"), L1Regulariser(strength=0.2), dim=P)
    ones = np.ones(P) / math.sqrt(P)
    assert l1.constants.lipschitz == pytest.approx(X + 0.2 * math.sqrt(P), rel=1e-15)
    assert l1.constants.smoothness == math.inf and l1.convex
    assert _grad_norm(l1, 0.01 * ones, np.r_[X * ones, -1.0]) == pytest.approx(l1.constants.lipschitz, rel=1e-14)
    # the regularised constants satisfy their inequalities on random points
    rows = random_rows("half_squared", rng, 50)
    a, b = random_theta(rng, (50,)), random_theta(rng, (50,))
    dist = np.linalg.norm(a - b, axis=-1)
    assert np.all(np.abs(loss.value(a, rows) - loss.value(b, rows)) <= c.lipschitz * dist * (1 + REL))
    lower = loss.value(a, rows) + np.sum(loss.gradient(a, rows) * (b - a), -1) + 0.5 * c.strong_convexity * dist**2
    assert np.all(loss.value(b, rows) >= lower - 1e-9)
    # a non-convex loss stays non-convex with no strong-convexity claim
    sig = Regularised(make("sigmoid"), reg, domain_radius=R)
    assert not sig.convex and sig.constants.strong_convexity == 0.0


def test_regularised_configuration_errors():
    with pytest.raises(ParameterError, match="domain_radius"):
        Regularised(make("logistic"), L2Regulariser(strength=0.1))
    with pytest.raises(ParameterError, match="dim"):
        Regularised(make("logistic"), L1Regulariser(strength=0.1))
    with pytest.raises(ParameterError, match="must equal the loss's domain_radius"):
        Regularised(make("half_squared"), L2Regulariser(strength=0.1), domain_radius=1.0)
    with pytest.raises(TypeError):
        Regularised("hinge", L2Regulariser(strength=0.1))
    with pytest.raises(TypeError):
        Regularised(make("hinge"), 0.1)
    loss = Regularised(make("hinge"), L1Regulariser(strength=0.1), dim=P)
    with pytest.raises(ParameterError, match=r"dim \(4\)"):
        loss.value(np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0]))  # a valid row (label +1) of the wrong p


# --------------------------------------------------------------------------------------------
# data bounds
# --------------------------------------------------------------------------------------------


def test_out_of_bound_rows_rejected_with_row_norm_and_bound():
    loss = Logistic(feature_norm=1.0)
    data = np.c_[np.eye(3) * 0.5, [1.0, -1.0, 1.0]]
    data[2, :3] = [3.0, 4.0, 0.0]  # norm 5
    with pytest.raises(DataBoundError, match=r"row 2 has \|\|x\|\|_2 = 5\.0 > feature_norm \(1\.0\)"):
        loss.check_data(data)
    with pytest.raises(DataBoundError, match="row 2"):
        loss.validate_data(data)
    with pytest.raises(DataBoundError, match="row 2"):
        loss.total(np.zeros(3), data, check=True)
    with pytest.raises(DataBoundError, match="row 2"):
        loss.value(np.zeros(3), data, check=True)
    assert np.isfinite(loss.total(np.zeros(3), data, check=False))  # an explicit opt-out only
    labels = np.c_[np.eye(2) * 0.5, [1.0, 0.0]]
    with pytest.raises(DataBoundError, match=r"row 1 has label y = 0\.0, which must be -1 or \+1"):
        Hinge(feature_norm=1.0).check_data(labels)
    reg = np.c_[np.eye(2) * 0.5, [0.5, -2.5]]
    with pytest.raises(DataBoundError, match=r"row 1 has \|y\| = 2\.5 > label_bound \(2\.0\)"):
        Huber(feature_norm=1.0, label_bound=2.0, width=1.0).check_data(reg)
    with pytest.raises(DataBoundError, match=r"row \(1, 0\) has \|\|d\|\|_2 = 2\.0 > data_norm \(1\.0\)"):
        Linear(data_norm=1.0).check_data(np.array([[[0.5, 0.0]], [[2.0, 0.0]]]))


def test_validate_data_returns_a_checked_snapshot():
    loss = Linear(data_norm=1.0)
    data = np.array([[0.5, 0.5], [0.0, 1.0]])
    checked = loss.validate_data(data)
    np.testing.assert_array_equal(checked, data)
    data[0, 0] = 100.0  # a later change to the caller's array does not reach the snapshot
    assert checked[0, 0] == 0.5
    assert loss.validate_data([[0, 1]]).dtype == np.float64


def test_bound_tolerance_is_relative_1e_minus_12():
    loss = Linear(data_norm=2.0)
    loss.check_data(np.array([[2.0 * (1 + 0.5 * BOUND_TOLERANCE), 0.0]]))
    loss.check_data(_ball(np.random.default_rng(0), (100,), 2.0, on_sphere_fraction=1.0))
    with pytest.raises(DataBoundError):
        loss.check_data(np.array([[2.0 * (1 + 1e-9), 0.0]]))


def test_nonfinite_rows_always_rejected():
    loss = LeastSquares(feature_norm=1.0, label_bound=1.0, domain_radius=1.0)
    data = np.zeros((3, 3))
    data[1, 2] = math.nan
    with pytest.raises(DataBoundError, match="row 1 contains nan or inf"):
        loss.value(np.zeros(2), data)
    data[1, 2] = 0.0
    data[2, 0] = math.inf
    with pytest.raises(DataBoundError, match="row 2"):
        loss.total(np.zeros(2), data)
    with pytest.raises(DataBoundError, match="row 2"):
        loss.check_data(data)
    # a huge finite row gives a clean DataBoundError, not an overflow warning
    with pytest.raises(DataBoundError, match="row 0"):
        Linear(data_norm=1.0).check_data(np.array([[1e300, 1e300]]))


def test_theta_outside_domain_rejected_when_checking():
    loss = make("least_squares")
    row = np.r_[X * U, 0.0]
    with pytest.raises(ParameterError, match=r"theta\[1\] has \|\|theta\|\|_2 = 4\.0 > domain_radius \(3\.0\)"):
        loss.value(np.array([R * U, 4.0 * U]), row, check=True)
    with pytest.raises(ParameterError, match="domain_radius"):
        loss.value(4.0 * U, row)  # checked by default
    assert np.isfinite(loss.value(4.0 * U, row, check=False))  # an explicit opt-out only


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method", ["value", "gradient", "total", "total_gradient", "mean", "mean_gradient"])
def test_every_evaluation_rejects_out_of_bound_rows_by_default(name, method):
    """Without a ``check`` keyword a row beyond the declared bound is rejected, never evaluated."""
    loss = make(name)
    data = random_rows(name, np.random.default_rng(3), 4)
    data[2, 0] = 10.0 * (X + 1.0)  # the first feature alone exceeds every declared norm bound
    theta = np.zeros(P)
    rows = data if method.startswith(("total", "mean")) else data[2]
    with pytest.raises(DataBoundError, match="row"):
        getattr(loss, method)(theta, rows)


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_bad_constructor_values(bad):
    for ctor in (
        lambda v: Linear(data_norm=v),
        lambda v: HalfSquaredDistance(data_norm=1.0, domain_radius=v),
        lambda v: Logistic(feature_norm=v),
        lambda v: Hinge(feature_norm=v),
        lambda v: Sigmoid(feature_norm=v),
        lambda v: Huber(feature_norm=1.0, label_bound=1.0, width=v),
        lambda v: LeastSquares(feature_norm=v, label_bound=1.0, domain_radius=1.0),
    ):
        with pytest.raises(ParameterError, match=r"\((0\.0|-1\.0|nan|inf)\) must be"):
            ctor(bad)
    if bad != 0.0:
        with pytest.raises(ParameterError, match="strength"):
            L2Regulariser(strength=bad)
        with pytest.raises(ParameterError, match="label_bound"):
            Huber(feature_norm=1.0, label_bound=bad, width=1.0)


@pytest.mark.parametrize("bad", ["1", True, None, [1.0]])
def test_bad_constructor_types(bad):
    with pytest.raises(TypeError):
        Logistic(feature_norm=bad)
    with pytest.raises(TypeError):
        L1Regulariser(strength=bad)


def test_keyword_only():
    with pytest.raises(TypeError):
        Logistic(1.0)  # type: ignore[misc]


def test_bad_shapes_and_arguments():
    loss = Logistic(feature_norm=1.0)
    with pytest.raises(ParameterError, match=r"last axis of length p \(3\)"):
        loss.value(np.zeros(2), np.zeros(4))
    with pytest.raises(ParameterError, match=r"data \(shape \(4,\)\) must have shape \(\.\.\., n, k\)"):
        loss.total(np.zeros(3), np.zeros(4))
    with pytest.raises(ParameterError, match="theta"):
        loss.value(np.array([0.0, math.nan, 0.0]), np.zeros(4))
    with pytest.raises(TypeError, match="theta"):
        loss.value(np.array(["a", "b", "c"]), np.zeros(4))
    with pytest.raises(TypeError, match="rows"):
        loss.value(np.zeros(3), [[1j, 0, 0, 1]])
    with pytest.raises(ParameterError, match=r"at least one row"):
        loss.total(np.zeros(3), np.zeros((0, 4)), normalisation="average")
    with pytest.raises(ParameterError, match="normalisation"):
        loss.total(np.zeros(3), np.zeros((2, 4)), normalisation="mean")
    with pytest.raises(ParameterError, match="step"):
        L1Regulariser(strength=1.0).prox(np.zeros(2), 0.0)


def test_loss_constants_validation():
    with pytest.raises(ParameterError, match="lipschitz"):
        LossConstants(lipschitz=-1.0, smoothness=1.0, strong_convexity=0.0)
    with pytest.raises(ParameterError, match="smoothness"):
        LossConstants(lipschitz=1.0, smoothness=-1.0, strong_convexity=0.0)
    with pytest.raises(ParameterError, match="strong_convexity"):
        LossConstants(lipschitz=1.0, smoothness=1.0, strong_convexity=2.0)
    c = LossConstants(lipschitz=1.0, smoothness=math.inf, strong_convexity=0.0)
    assert not c.smooth
    with pytest.raises(Exception):
        c.lipschitz = 2.0  # frozen


@pytest.mark.parametrize("theta_shape, x_shape", [((3, 4), (3, 4)), ((4,), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 4))])
def test_linear_gradient_is_minus_d_broadcast(theta_shape, x_shape):
    """The linear loss's gradient is -d at the broadcast shape, a new float array, signed zeros kept
    (the equal-shape case, which the loops take, skips working out the broadcast)."""
    loss = Linear(data_norm=10.0)
    gen = np.random.default_rng(5)
    theta, x = gen.normal(size=theta_shape), gen.normal(size=x_shape)
    x.reshape(-1)[0] = 0.0
    x.reshape(-1)[1] = -0.0
    g = loss.gradient_unchecked(theta, x, None)
    want = np.broadcast_to(-x, np.broadcast_shapes(theta_shape, x_shape))
    assert g.shape == want.shape and g.dtype == np.float64 and g is not x
    np.testing.assert_array_equal(g, want)
    assert np.array_equal(np.signbit(g), np.signbit(want))
    g[...] = 1.0  # the result is the caller's own
    assert not np.any(x == 1.0)
