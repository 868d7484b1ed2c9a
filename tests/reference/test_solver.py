"""Tests of reference.solver.

The losses here are small stand-ins with the interface of reference.losses (value, gradient,
total, total_gradient, constants, convex), so these tests do not depend on that module.
Oracles are independent of the solver: closed forms (projection of the mean, coordinatewise
clipping, LMO formulas written out), the normal equations, a trust-region multiplier found by
scipy's brentq, scipy linprog epigraph formulations and SLSQP.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import optimize

from reference.domains import Box, Intersection, L1Ball, L2Ball, Polytope, Rp, Simplex
from reference.solver import SolverResult, exact_minimiser_half_squared, exact_minimiser_linear, minimise
from spec.errors import DataBoundError, ParameterError

# --------------------------------------------------------------------------------------------
# stand-in losses (interface of reference.losses)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Constants:
    lipschitz: float
    smoothness: float
    strong_convexity: float


class _Loss:
    convex = True

    def total(self, theta, data):
        return self.value(np.asarray(theta)[..., None, :], data).sum(-1)

    def total_gradient(self, theta, data):
        return self.gradient(np.asarray(theta)[..., None, :], data).sum(-2)


class HalfSquared(_Loss):
    """1/2 ||theta - d||^2; ``smoothness`` may be declared loosely (any upper bound >= 1)."""

    def __init__(self, smoothness=1.0):
        self.constants = Constants(2.0, smoothness, 1.0)

    def value(self, theta, rows):
        return 0.5 * np.sum((np.asarray(theta) - rows) ** 2, -1)

    def gradient(self, theta, rows):
        return np.asarray(theta) - rows


class WeightedQuadratic(_Loss):
    """1/2 sum_j a_j (theta_j - d_j)^2: smoothness max a, strong convexity min a."""

    def __init__(self, a):
        self.a = np.asarray(a, dtype=float)
        self.constants = Constants(1.0, float(self.a.max()), float(self.a.min()))

    def value(self, theta, rows):
        return 0.5 * np.sum(self.a * (np.asarray(theta) - rows) ** 2, -1)

    def gradient(self, theta, rows):
        return self.a * (np.asarray(theta) - rows)


class Linear(_Loss):
    """-<theta, d> (bst14's linear loss)."""

    constants = Constants(1.0, 0.0, 0.0)

    def value(self, theta, rows):
        return -np.sum(np.asarray(theta) * rows, -1)

    def gradient(self, theta, rows):
        return -rows + 0.0 * np.asarray(theta)


class LeastSquares(_Loss):
    """1/2 (<theta, x> - y)^2 with rows [x, y]; smoothness = the declared bound on ||x||^2."""

    def __init__(self, feature_norm):
        self.constants = Constants(1.0, feature_norm**2, 0.0)

    def value(self, theta, rows):
        return 0.5 * (np.sum(np.asarray(theta) * rows[..., :-1], -1) - rows[..., -1]) ** 2

    def gradient(self, theta, rows):
        r = np.sum(np.asarray(theta) * rows[..., :-1], -1) - rows[..., -1]
        return r[..., None] * rows[..., :-1]


class Logistic(_Loss):
    def __init__(self, feature_norm):
        self.constants = Constants(feature_norm, feature_norm**2 / 4, 0.0)

    def value(self, theta, rows):
        m = rows[..., -1] * np.sum(np.asarray(theta) * rows[..., :-1], -1)
        return np.logaddexp(0.0, -m)

    def gradient(self, theta, rows):
        m = rows[..., -1] * np.sum(np.asarray(theta) * rows[..., :-1], -1)
        return (-rows[..., -1] / (1.0 + np.exp(m)))[..., None] * rows[..., :-1]


class Hinge(_Loss):
    """(1 - y <theta, x>)_+, subgradient 0 at the kink."""

    constants = Constants(1.0, math.inf, 0.0)

    def value(self, theta, rows):
        return np.maximum(0.0, 1.0 - rows[..., -1] * np.sum(np.asarray(theta) * rows[..., :-1], -1))

    def gradient(self, theta, rows):
        m = rows[..., -1] * np.sum(np.asarray(theta) * rows[..., :-1], -1)
        return np.where((m < 1)[..., None], -rows[..., -1:] * rows[..., :-1], 0.0) + 0.0 * np.asarray(theta)


class NonConvex(HalfSquared):
    convex = False


class Bounded(HalfSquared):
    """Rejects rows of norm > 1 (the bound-checking hook an algorithm calls once)."""

    def validate_data(self, data):
        norms = np.linalg.norm(data, axis=1)
        if np.any(norms > 1):
            i = int(np.argmax(norms > 1))
            raise DataBoundError(f"data[{i}] has norm {norms[i]} > data_norm (1.0)")


class L2Reg:
    """lambda/2 ||theta||^2 (constants as attributes)."""

    def __init__(self, strength):
        self.strength = strength
        self.smoothness = strength
        self.strong_convexity = strength

    def value(self, theta):
        return self.strength / 2 * np.sum(np.asarray(theta) ** 2, -1)

    def gradient(self, theta):
        return self.strength * np.asarray(theta)


class L1Reg:
    """lambda ||theta||_1 (constants through .constants), subgradient lambda sign(theta)."""

    def __init__(self, strength):
        self.strength = strength
        self.constants = Constants(strength, math.inf, 0.0)

    def value(self, theta):
        return self.strength * np.sum(np.abs(theta), -1)

    def gradient(self, theta):
        return self.strength * np.sign(theta)


def objective(loss, data, theta, reg=None, average=False):
    """F written out independently of the solver (sum of per-example values)."""
    v = float(sum(loss.value(theta, row) for row in data))
    if average:
        v /= len(data)
    return v + (0.0 if reg is None else float(reg.value(theta)))


def assert_certified(result, loss, data, domain, theta_star, reg=None, average=False, tol=1e-8):
    """The solver's answer is feasible, matches the oracle, and its gap bounds the true
    suboptimality (with the oracle's value as F*)."""
    f = objective(loss, data, result.theta, reg, average)
    f_star = objective(loss, data, theta_star, reg, average)
    rounding = 1e-14 * len(data) * (1 + abs(f_star))  # of the two sums computed here
    assert domain.contains(result.theta)
    assert result.value == pytest.approx(f, rel=1e-12, abs=1e-12)
    assert f - f_star <= result.gap + rounding
    assert np.linalg.norm(result.theta - theta_star) <= tol
    if math.isfinite(result.distance_bound):
        assert np.linalg.norm(result.theta - theta_star) <= result.distance_bound + 1e-12


def regression_data(rng, n=40, p=4, noise=0.1):
    x = rng.normal(size=(n, p))
    y = x @ rng.normal(size=p) + noise * rng.normal(size=n)
    return np.column_stack([x, y]), x, y


# --------------------------------------------------------------------------------------------
# smooth objectives (FISTA)
# --------------------------------------------------------------------------------------------


DOMAINS = [
    L2Ball(radius=1.0, dim=3, center=[0.5, 0.0, 0.0]),
    Box(lower=[-1.0, -0.5, 0.0], upper=[1.0, 0.5, 2.0]),
    L1Ball(radius=1.2, dim=3),
    Simplex(dim=3, scale=2.0),
    Polytope(vertices=[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [1.0, 1.0, 1.0]]),
    Intersection(Box(lower=[-1.0, -1.0, -1.0], upper=[1.0, 1.0, 1.0]), L2Ball(radius=1.2, dim=3, center=[0.5, 0.5, 0.0])),
    Rp(dim=3),
]


@pytest.mark.parametrize("domain", DOMAINS, ids=lambda d: type(d).__name__)
def test_half_squared_distance_is_the_projection_of_the_mean(domain):
    rng = np.random.default_rng(0)
    data = rng.normal(size=(30, 3)) + [1.5, 1.0, -0.5]
    loss = HalfSquared(smoothness=3.0)  # a loose (valid) bound: FISTA must iterate
    theta_star = exact_minimiser_half_squared(data, domain)
    if domain.exact_projection:
        # the linear distance certificate (L / mu) ||theta - T(theta)|| reaches 1e-10
        result = minimise(loss, data, domain, distance_tolerance=1e-10)
        assert result.distance_bound <= 1e-10
        tol = 1e-9
    else:
        # Polytope (Wolfe) and Intersection (bisection): only sqrt(2 gap / mu) is certified
        result = minimise(loss, data, domain, tolerance=1e-12)
        assert result.distance_bound <= math.sqrt(2e-12 / 30) + 1e-15
        tol = 1e-6
    assert result.method == "fista" and result.iterations > 1
    assert result.gap <= 1e-10
    assert result.strong_convexity == 30.0
    assert_certified(result, loss, data, domain, theta_star, tol=tol)


def test_projection_of_the_mean_closed_forms():
    """exact_minimiser_half_squared against the projections written out."""
    data = np.array([[3.0, 4.0], [5.0, 6.0]])
    ball = L2Ball(radius=2.0, dim=2)
    assert np.allclose(exact_minimiser_half_squared(data, ball), 2 * np.array([4.0, 5.0]) / math.hypot(4, 5))
    box = Box(lower=[0.0, 0.0], upper=[1.0, 10.0])
    assert np.allclose(exact_minimiser_half_squared(data, box), [1.0, 5.0])


def test_anisotropic_quadratic_on_a_box_is_coordinatewise_clipping():
    """sum_i 1/2 sum_j a_j (theta_j - d_ij)^2 = sum_j n a_j / 2 (theta_j - mean_j)^2 + const is
    separable, so the minimiser over a box clips the mean coordinatewise (condition number 100
    makes FISTA work for it)."""
    rng = np.random.default_rng(1)
    data = rng.normal(size=(25, 4)) * 2
    box = Box(lower=[-0.5, -0.2, 0.0, -1.0], upper=[0.5, 0.3, 1.0, 1.0])
    loss = WeightedQuadratic([1.0, 10.0, 100.0, 0.5])
    result = minimise(loss, data, box, distance_tolerance=1e-10)
    assert result.iterations > 10
    assert_certified(result, loss, data, box, np.clip(data.mean(0), box.lower, box.upper))


@pytest.mark.parametrize("normalisation", ["sum", "average"])
def test_ridge_regression_matches_the_normal_equations(normalisation):
    """Interior optimum: (X'X + lam I) theta = X'y (sum), (X'X/n + lam I) theta = X'y/n (average)."""
    rng = np.random.default_rng(2)
    rows, x, y = regression_data(rng, n=50, p=5)
    lam = 0.7
    loss = LeastSquares(feature_norm=float(np.linalg.norm(x, axis=1).max()))
    ball = L2Ball(radius=100.0, dim=5)
    n = len(rows)
    scale = 1.0 if normalisation == "sum" else 1.0 / n
    theta_star = np.linalg.solve(scale * x.T @ x + lam * np.eye(5), scale * x.T @ y)
    assert np.linalg.norm(theta_star) < 50
    result = minimise(loss, rows, ball, regulariser=L2Reg(lam), normalisation=normalisation, distance_tolerance=1e-10)
    assert result.strong_convexity == lam
    assert_certified(result, loss, rows, ball, theta_star, reg=L2Reg(lam), average=normalisation == "average")


def test_least_squares_on_a_small_ball_trust_region_oracle():
    """Optimum on the sphere: theta(nu) = (X'X + nu I)^{-1} X'y with ||theta(nu)|| = R, the
    multiplier nu found by brentq (an independent characterisation of the constrained minimiser)."""
    rng = np.random.default_rng(3)
    rows, x, y = regression_data(rng, n=40, p=4)
    radius = 0.5
    assert np.linalg.norm(np.linalg.lstsq(x, y, rcond=None)[0]) > radius

    def theta(nu):
        return np.linalg.solve(x.T @ x + nu * np.eye(4), x.T @ y)

    nu = optimize.brentq(lambda v: np.linalg.norm(theta(v)) - radius, 0.0, 1e6, xtol=1e-15, rtol=1e-15)
    loss = LeastSquares(feature_norm=float(np.linalg.norm(x, axis=1).max()))
    ball = L2Ball(radius=radius, dim=4)
    result = minimise(loss, rows, ball)
    assert math.isinf(result.distance_bound)  # not strongly convex as declared
    assert result.certificate == "frank-wolfe"
    assert_certified(result, loss, rows, ball, theta(nu), tol=1e-7)


def test_logistic_regression_against_scipy():
    """Smooth, not strongly convex: the Frank-Wolfe certificate. The reference point from
    L-BFGS-B on the box is feasible, so F(theta) - F(reference) <= gap is necessary."""
    rng = np.random.default_rng(4)
    x = rng.normal(size=(60, 3))
    y = np.sign(x @ [1.0, -2.0, 0.5] + 0.8 * rng.normal(size=60))
    rows = np.column_stack([x, y])
    loss = Logistic(feature_norm=float(np.linalg.norm(x, axis=1).max()))
    box = Box(lower=[-0.5, -0.5, -0.5], upper=[0.5, 0.5, 0.5])
    result = minimise(loss, rows, box)
    ref = optimize.minimize(
        lambda t: objective(loss, rows, t), np.zeros(3), jac=lambda t: loss.total_gradient(t, rows),
        bounds=list(zip(box.lower, box.upper)), method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-12},
    )
    f_ref = objective(loss, rows, ref.x)
    assert result.value - f_ref <= result.gap + 1e-12
    assert abs(result.value - f_ref) <= 1e-8
    assert np.allclose(result.theta, ref.x, atol=1e-5)


def test_general_intersection_with_a_looser_tolerance():
    """Three members: projection by Dykstra, support by ADMM (certified to ~1e-14 relative), so
    a 1e-8 certificate is reachable. Oracle: SLSQP on the explicit constraints."""
    rng = np.random.default_rng(5)
    rows, x, y = regression_data(rng, n=30, p=3)
    p = 3
    box = Box(lower=-np.ones(p), upper=np.ones(p))
    ball = L2Ball(radius=1.2, dim=p)
    l1 = L1Ball(radius=1.5, dim=p)
    dom = Intersection(box, ball, l1)
    loss = LeastSquares(feature_norm=float(np.linalg.norm(x, axis=1).max()))
    reg = L2Reg(0.5)
    result = minimise(loss, rows, dom, regulariser=reg, tolerance=1e-8)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=p)))
    ref = optimize.minimize(
        lambda t: objective(loss, rows, t, reg), np.zeros(p), jac=lambda t: loss.total_gradient(t, rows) + reg.gradient(t),
        constraints=[{"type": "ineq", "fun": lambda t: 1.44 - t @ t}, {"type": "ineq", "fun": lambda t: 1.5 - signs @ t}],
        bounds=[(-1, 1)] * p, method="SLSQP", options={"ftol": 1e-15, "maxiter": 500},
    )
    f_ref = objective(loss, rows, ref.x, reg)
    assert result.value - f_ref <= result.gap + 1e-9
    assert abs(result.value - f_ref) <= 1e-7
    assert np.linalg.norm(result.theta - ref.x) <= result.distance_bound + 1e-6


# --------------------------------------------------------------------------------------------
# affine objectives (LMO)
# --------------------------------------------------------------------------------------------


def test_linear_loss_closed_forms():
    rng = np.random.default_rng(6)
    data = rng.normal(size=(20, 3)) + [0.3, -0.2, 0.1]
    s = data.sum(0)
    a = np.array([0.5, 0.0, -1.0])
    v = rng.normal(size=(7, 3))
    cases = [
        (L2Ball(radius=2.0, dim=3, center=a), a + 2.0 * s / np.linalg.norm(s)),
        (Box(lower=[-1, -2, -3], upper=[1, 2, 3]), np.where(s > 0, [1, 2, 3], [-1, -2, -3])),
        (Simplex(dim=3, scale=1.5), 1.5 * np.eye(3)[np.argmax(s)]),
        (L1Ball(radius=2.0, dim=3), 2.0 * np.sign(s) * np.eye(3)[np.argmax(np.abs(s))]),
        (Polytope(vertices=v), v[np.argmax(v @ s)]),
    ]
    for domain, theta_star in cases:
        result = minimise(Linear(), data, domain)
        assert result.method == "lmo" and result.iterations == 1
        assert math.isinf(result.distance_bound)
        assert np.allclose(exact_minimiser_linear(data, domain), theta_star)
        assert_certified(result, Linear(), data, domain, theta_star, tol=1e-12)
        assert result.gap <= 1e-12


def test_linear_loss_over_an_intersection():
    rng = np.random.default_rng(7)
    data = rng.normal(size=(10, 2)) + [1.0, 1.0]
    box = Box(lower=[-1.0, -1.0], upper=[1.0, 1.0])
    dom = Intersection(box, L2Ball(radius=1.2, dim=2))
    result = minimise(Linear(), data, dom)
    s = data.sum(0)
    ref = optimize.minimize(
        lambda t: -t @ s, np.zeros(2), jac=lambda t: -s, constraints=[{"type": "ineq", "fun": lambda t: 1.44 - t @ t}],
        bounds=[(-1, 1)] * 2, method="SLSQP", options={"ftol": 1e-15},
    )
    assert np.allclose(result.theta, ref.x, atol=1e-7)
    assert result.gap <= 1e-10


# --------------------------------------------------------------------------------------------
# non-smooth objectives (cutting planes)
# --------------------------------------------------------------------------------------------


def hinge_data(rng, n=40, p=3):
    x = rng.normal(size=(n, p))
    y = np.sign(x @ rng.normal(size=p) + 0.7 * rng.normal(size=n))
    return np.column_stack([x, y]), x, y


def hinge_lp(x, y, a_ub=None, b_ub=None, bounds=None, reg_l1=0.0):
    """min sum_i xi_i s.t. xi_i >= 1 - y_i <theta, x_i>, xi >= 0 (+ lam ||theta||_1 via theta = u - v)."""
    n, p = x.shape
    a = y[:, None] * x
    if reg_l1 == 0.0:
        c = np.concatenate([np.zeros(p), np.ones(n)])
        A = np.hstack([-a, -np.eye(n)])
        extra = [] if a_ub is None else [np.hstack([a_ub, np.zeros((a_ub.shape[0], n))])]
        res = optimize.linprog(
            c, A_ub=np.vstack([A] + extra), b_ub=np.concatenate([-np.ones(n)] + ([] if b_ub is None else [b_ub])),
            bounds=list(bounds or [(None, None)] * p) + [(0, None)] * n, method="highs",
        )
        return res.x[:p], res.fun
    lo, hi = zip(*bounds)
    c = np.concatenate([np.full(2 * p, reg_l1), np.ones(n)])
    A = np.hstack([-a, a, -np.eye(n)])
    ub = [(0, max(h, 0)) for h in hi] + [(0, max(-l, 0)) for l in lo] + [(0, None)] * n
    res = optimize.linprog(c, A_ub=A, b_ub=-np.ones(n), bounds=ub, method="highs")
    theta = res.x[:p] - res.x[p : 2 * p]
    return theta, res.fun


def test_hinge_on_polyhedral_domains_against_linprog():
    rng = np.random.default_rng(8)
    rows, x, y = hinge_data(rng)
    p = x.shape[1]
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=p)))
    box = Box(lower=[-0.5, -1.0, -0.3], upper=[0.5, 1.0, 0.3])
    for domain, lp in [
        (box, hinge_lp(x, y, bounds=list(zip(box.lower, box.upper)))),
        (L1Ball(radius=0.8, dim=p), hinge_lp(x, y, a_ub=signs, b_ub=np.full(len(signs), 0.8))),
    ]:
        result = minimise(Hinge(), rows, domain)
        assert result.method == "cutting-plane" and result.certificate == "duality"
        assert result.gap <= 1e-10 and math.isinf(result.distance_bound)
        f = objective(Hinge(), rows, result.theta)
        assert f - lp[1] <= result.gap + 1e-9  # the LP's point is feasible
        assert abs(f - lp[1]) <= 1e-8


def test_hinge_on_a_ball_and_on_bst14_localised_set_against_slsqp():
    """Curved domains: the epigraph problem solved by SLSQP is the oracle."""
    rng = np.random.default_rng(9)
    rows, x, y = hinge_data(rng, n=30)
    n, p = x.shape
    a = y[:, None] * x
    theta0 = np.array([0.3, 0.0, 0.0])
    cases = [
        (L2Ball(radius=0.7, dim=p), [{"type": "ineq", "fun": lambda z: 0.49 - z[:p] @ z[:p]}], None),
        (
            Intersection(Box(lower=-0.5 * np.ones(p), upper=0.5 * np.ones(p)), L2Ball(radius=0.4, dim=p, center=theta0)),
            [{"type": "ineq", "fun": lambda z: 0.16 - (z[:p] - theta0) @ (z[:p] - theta0)}],
            [(-0.5, 0.5)] * p,
        ),
    ]
    for domain, cons, bounds in cases:
        cons = cons + [{"type": "ineq", "fun": lambda z: z[p:] - 1 + a @ z[:p], "jac": lambda z: np.hstack([a, np.eye(n)])}]
        ref = optimize.minimize(
            lambda z: z[p:].sum(), np.concatenate([domain.interior_point(), np.ones(n) * 3]),
            jac=lambda z: np.concatenate([np.zeros(p), np.ones(n)]), constraints=cons,
            bounds=(bounds or [(None, None)] * p) + [(0, None)] * n, method="SLSQP",
            options={"ftol": 1e-15, "maxiter": 1000},
        )
        theta_ref = domain.project(ref.x[:p])  # feasible to rounding
        result = minimise(Hinge(), rows, domain)
        f, f_ref = objective(Hinge(), rows, result.theta), objective(Hinge(), rows, theta_ref)
        assert result.gap <= 1e-10
        assert f - f_ref <= result.gap + 1e-12
        assert abs(f - f_ref) <= 1e-7


def test_l1_regularised_linear_loss_is_separable_on_a_box():
    """sum_i -<theta, d_i> + lam ||theta||_1 = sum_j (-S_j theta_j + lam |theta_j|): each
    coordinate's minimum over [lo_j, hi_j] is at lo_j, hi_j or 0."""
    rng = np.random.default_rng(10)
    data = rng.normal(size=(15, 4))
    box = Box(lower=[-1.0, 0.5, -2.0, -1.0], upper=[1.0, 1.5, -0.5, 2.0])
    lam = 2.5
    s = data.sum(0)
    theta_star = np.empty(4)
    for j in range(4):
        cands = [box.lower[j], box.upper[j]] + ([0.0] if box.lower[j] < 0 < box.upper[j] else [])
        theta_star[j] = min(cands, key=lambda t: -s[j] * t + lam * abs(t))
    result = minimise(Linear(), data, box, regulariser=L1Reg(lam))
    assert result.method == "cutting-plane"
    assert_certified(result, Linear(), data, box, theta_star, reg=L1Reg(lam), tol=1e-9)


def test_l1_regularised_hinge_against_linprog():
    rng = np.random.default_rng(11)
    rows, x, y = hinge_data(rng, n=30)
    box = Box(lower=-np.ones(3), upper=np.ones(3))
    lam = 1.5
    _, f_lp = hinge_lp(x, y, bounds=list(zip(box.lower, box.upper)), reg_l1=lam)
    result = minimise(Hinge(), rows, box, regulariser=L1Reg(lam))
    f = objective(Hinge(), rows, result.theta, L1Reg(lam))
    assert f - f_lp <= result.gap + 1e-9 and abs(f - f_lp) <= 1e-8


def test_lasso_on_a_ball():
    """Smooth loss + l1 penalty on a curved domain (cutting planes with exact-ball refinement);
    oracle: SLSQP on the split formulation theta = u - v, u, v >= 0."""
    rng = np.random.default_rng(12)
    rows, x, y = regression_data(rng, n=30, p=3)
    lam, radius = 3.0, 0.8
    loss = LeastSquares(feature_norm=float(np.linalg.norm(x, axis=1).max()))
    result = minimise(loss, rows, L2Ball(radius=radius, dim=3), regulariser=L1Reg(lam), tolerance=1e-8)

    def f_split(z):
        t = z[:3] - z[3:]
        return 0.5 * np.sum((x @ t - y) ** 2) + lam * z.sum()

    ref = optimize.minimize(
        f_split, np.full(6, 0.1), constraints=[{"type": "ineq", "fun": lambda z: radius**2 - (z[:3] - z[3:]) @ (z[:3] - z[3:])}],
        bounds=[(0, None)] * 6, method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000},
    )
    theta_ref = L2Ball(radius=radius, dim=3).project(ref.x[:3] - ref.x[3:])
    f_ref = objective(loss, rows, theta_ref, L1Reg(lam))
    assert result.value - f_ref <= result.gap + 1e-12
    assert abs(result.value - f_ref) <= 1e-7


# --------------------------------------------------------------------------------------------
# honesty of the certificate at loose tolerances
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tolerance", [1e-1, 1e-3, 1e-5, 1e-7])
def test_gap_bounds_the_true_suboptimality_when_stopping_early(tolerance):
    """With F* known exactly, F(theta) - F* <= gap and ||theta - theta*|| <= distance_bound must
    hold whatever the tolerance (this is where a dishonest certificate would show)."""
    rng = np.random.default_rng(13)
    data = rng.normal(size=(20, 4)) * 3
    box = Box(lower=[-0.5, -0.2, 0.0, -1.0], upper=[0.5, 0.3, 1.0, 1.0])
    loss = WeightedQuadratic([1.0, 30.0, 300.0, 0.3])
    theta_star = np.clip(data.mean(0), box.lower, box.upper)
    result = minimise(loss, data, box, tolerance=tolerance, x0=[0.5, -0.2, 1.0, 1.0])
    # F(theta) - F* = sum_j n a_j / 2 [(theta_j - m_j)^2 - (theta*_j - m_j)^2], factored so that
    # it is computed without cancellation
    n, m, t = len(data), data.mean(0), result.theta
    sub = float(np.sum(n * loss.a / 2 * (t - theta_star) * (t + theta_star - 2 * m)))
    assert -1e-12 <= sub <= result.gap * (1 + 1e-9) <= tolerance
    assert np.linalg.norm(result.theta - theta_star) <= result.distance_bound + 1e-12
    # the hinge with cutting planes, F* from an LP
    hrng = np.random.default_rng(14)
    rows, x, y = hinge_data(hrng)
    hbox = Box(lower=-np.ones(3), upper=np.ones(3))
    _, f_lp = hinge_lp(x, y, bounds=list(zip(hbox.lower, hbox.upper)))
    hres = minimise(Hinge(), rows, hbox, tolerance=tolerance)
    assert objective(Hinge(), rows, hres.theta) - f_lp <= hres.gap + 1e-9


@pytest.mark.parametrize("tolerance", [1.0, 0.3])
def test_cutting_plane_gap_is_honest_when_stopping_early(tolerance):
    """Hinge on a ball stopped after its first master LPs: F(theta) - F(reference) <= gap with
    a feasible SLSQP reference (so F(reference) >= F*)."""
    rng = np.random.default_rng(14)
    rows, x, y = hinge_data(rng, n=40, p=4)
    n, p = x.shape
    a = y[:, None] * x
    ball = L2Ball(radius=0.6, dim=p)
    cons = [
        {"type": "ineq", "fun": lambda z: 0.36 - z[:p] @ z[:p]},
        {"type": "ineq", "fun": lambda z: z[p:] - 1 + a @ z[:p], "jac": lambda z: np.hstack([a, np.eye(n)])},
    ]
    ref = optimize.minimize(
        lambda z: z[p:].sum(), np.concatenate([np.zeros(p), np.full(n, 3.0)]),
        jac=lambda z: np.concatenate([np.zeros(p), np.ones(n)]), constraints=cons,
        bounds=[(None, None)] * p + [(0, None)] * n, method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000},
    )
    f_ref = objective(Hinge(), rows, ball.project(ref.x[:p]))
    result = minimise(Hinge(), rows, ball, tolerance=tolerance)
    sub = objective(Hinge(), rows, result.theta) - f_ref
    assert sub <= result.gap + 1e-12
    if tolerance == 1.0:
        assert sub > 1e-2  # stopped early: the check above is not vacuous


def test_ridge_early_stop_distance_bound():
    rng = np.random.default_rng(15)
    rows, x, y = regression_data(rng, n=40, p=6)
    lam = 0.05
    theta_star = np.linalg.solve(x.T @ x + lam * np.eye(6), x.T @ y)
    loss = LeastSquares(feature_norm=float(np.linalg.norm(x, axis=1).max()))
    for tolerance in (1.0, 1e-2, 1e-4):
        result = minimise(loss, rows, Rp(dim=6), regulariser=L2Reg(lam), tolerance=tolerance)
        assert result.certificate == "strong-convexity"
        sub = objective(loss, rows, result.theta, L2Reg(lam)) - objective(loss, rows, theta_star, L2Reg(lam))
        assert sub <= result.gap + 1e-10
        assert np.linalg.norm(result.theta - theta_star) <= result.distance_bound + 1e-12


# --------------------------------------------------------------------------------------------
# options, results and errors
# --------------------------------------------------------------------------------------------


def test_average_normalisation_rescales_the_value_not_the_minimiser():
    rng = np.random.default_rng(16)
    rows, x, y = regression_data(rng, n=25, p=3)
    loss = LeastSquares(feature_norm=float(np.linalg.norm(x, axis=1).max()))
    ball = L2Ball(radius=0.5, dim=3)
    total = minimise(loss, rows, ball, tolerance=1e-11)
    mean = minimise(loss, rows, ball, normalisation="average", tolerance=1e-11 / 25)
    assert np.allclose(total.theta, mean.theta, atol=1e-7)
    assert mean.value == pytest.approx(total.value / 25, rel=1e-9)


def test_x0_is_projected_and_result_is_frozen():
    data = np.array([[2.0, 2.0], [4.0, 0.0]])
    box = Box(lower=[-1.0, -1.0], upper=[1.0, 1.0])
    result = minimise(HalfSquared(smoothness=2.0), data, box, x0=[100.0, -100.0])
    assert np.allclose(result.theta, [1.0, 1.0])
    assert isinstance(result, SolverResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.gap = 0.0


def test_not_reaching_the_tolerance_raises():
    rng = np.random.default_rng(17)
    data = rng.normal(size=(20, 4)) * 3
    box = Box(lower=[-0.5, -0.2, 0.0, -1.0], upper=[0.5, 0.3, 1.0, 1.0])
    with pytest.raises(RuntimeError, match=r"did not certify gap <= tolerance \(1e-12\)"):
        minimise(WeightedQuadratic([1.0, 30.0, 300.0, 0.3]), data, box, tolerance=1e-12, max_iterations=5)
    rows, _, _ = hinge_data(rng)
    with pytest.raises(RuntimeError, match="cutting-plane"):
        minimise(Hinge(), rows, L2Ball(radius=1.0, dim=3), max_iterations=1)


class NoConstants:
    def value(self, theta, rows):  # pragma: no cover - never called
        return 0.0

    gradient = total = total_gradient = value


class BadRegulariser:
    def value(self, theta):  # pragma: no cover - never called
        return 0.0

    gradient = value


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"data": np.array([[np.nan, 0.0]])}, ParameterError, "data"),
        ({"data": np.array([[np.inf, 0.0]])}, ParameterError, "data"),
        ({"data": np.array([1.0, 2.0])}, ParameterError, r"data \(shape \(2,\)\) must be a 2-D array"),
        ({"data": np.zeros((0, 2))}, ParameterError, "data"),
        ({"data": [["a", "b"]]}, TypeError, "data"),
        ({"data": [[True, False]]}, TypeError, "data"),
        ({"domain": "ball"}, TypeError, "domain"),
        ({"tolerance": 0.0}, ParameterError, r"tolerance \(0.0\) must be > 0"),
        ({"tolerance": float("nan")}, ParameterError, "tolerance"),
        ({"tolerance": "1e-8"}, TypeError, "tolerance"),
        ({"normalisation": "mean"}, ParameterError, "normalisation"),
        ({"normalisation": 1}, TypeError, "normalisation"),
        ({"x0": [0.0]}, ParameterError, "x0"),
        ({"x0": [0.0, np.nan]}, ParameterError, "x0"),
        ({"max_iterations": 0}, ParameterError, "max_iterations"),
        ({"max_iterations": 2.5}, TypeError, "max_iterations"),
        ({"loss": NonConvex()}, ParameterError, "convex"),
        ({"loss": NoConstants()}, TypeError, "constants"),
        ({"loss": object()}, TypeError, "loss"),
        ({"regulariser": BadRegulariser()}, TypeError, "regulariser"),
        ({"loss": Bounded(), "data": np.array([[0.5, 0.5], [3.0, 0.0]])}, DataBoundError, r"data\[1\]"),
        ({"loss": Hinge(), "data": np.array([[1.0, 1.0, 1.0]]), "domain": Rp(dim=2)}, ParameterError, "bounded"),
        ({"loss": HalfSquared(), "domain": Rp(dim=2), "regulariser": None, "data": np.ones((2, 2)), "_nonstrong": True}, None, None),
        ({"loss": Linear(), "domain": Rp(dim=2)}, ParameterError, "bounded"),
    ],
)
def test_minimise_rejects_bad_input(kwargs, error, match):
    args = {"loss": HalfSquared(), "data": np.ones((3, 2)), "domain": L2Ball(radius=1.0, dim=2)}
    args.update(kwargs)
    if args.pop("_nonstrong", False):
        # a strongly convex objective on R^p is fine; a merely convex one is refused
        assert minimise(args["loss"], args["data"], args["domain"]).gap <= 1e-10
        with pytest.raises(ParameterError, match="bounded"):
            minimise(LeastSquares(1.0), np.ones((2, 3)), Rp(dim=2))
        return
    loss, data, domain = args.pop("loss"), args.pop("data"), args.pop("domain")
    with pytest.raises(error, match=match):
        minimise(loss, data, domain, **args)


class RadiusLimited(HalfSquared):
    domain_radius = 1.0


class MethodConstantsL2:
    """lambda/2 ||theta||^2 stating its constants through a method, as reference.losses does."""

    def __init__(self, strength):
        self.strength = strength
        self.calls = []

    def value(self, theta):
        return self.strength / 2 * np.sum(np.asarray(theta) ** 2, -1)

    def gradient(self, theta):
        return self.strength * np.asarray(theta)

    def constants(self, *, dim=None, domain_radius=None):
        self.calls.append((dim, domain_radius))
        if domain_radius is None:
            raise ParameterError("domain_radius (None) must be given")
        return Constants(self.strength * domain_radius, self.strength, self.strength)


def test_loss_domain_radius_and_method_style_regulariser_constants():
    data = np.array([[0.5, 0.0], [0.0, 0.5]])
    with pytest.raises(ParameterError, match="domain_radius"):
        minimise(RadiusLimited(), data, L2Ball(radius=2.0, dim=2))
    assert minimise(RadiusLimited(), data, L2Ball(radius=1.0, dim=2)).gap <= 1e-10
    reg = MethodConstantsL2(0.5)
    result = minimise(Linear(), data, Box(lower=[-3.0, -3.0], upper=[3.0, 3.0]), regulariser=reg, distance_tolerance=1e-10)
    assert reg.calls == [(2, pytest.approx(math.sqrt(18)))]
    # sum_i -<theta, d_i> + 0.25 ||theta||^2 is minimised at theta = sum_i d_i / 0.5 (interior)
    assert np.allclose(result.theta, data.sum(0) / 0.5, atol=1e-9)
    assert result.strong_convexity == 0.5 and result.method == "fista"
    with pytest.raises(ParameterError, match="could not state its constants"):
        minimise(Linear(), data, Rp(dim=2), regulariser=MethodConstantsL2(0.5))


def test_exact_minimisers_validate_input():
    with pytest.raises(TypeError, match="domain"):
        exact_minimiser_linear(np.ones((2, 2)), "box")
    with pytest.raises(ParameterError, match="columns"):
        exact_minimiser_half_squared(np.ones((2, 3)), L2Ball(radius=1.0, dim=2))
    with pytest.raises(ParameterError, match="finite"):
        exact_minimiser_linear(np.array([[np.nan, 1.0]]), L2Ball(radius=1.0, dim=2))
