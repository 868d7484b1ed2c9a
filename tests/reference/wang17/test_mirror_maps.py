"""Tests of reference.wang17.mirror_maps: the l1 gradient step against an independent solver, the
mirror maps' strong convexity and steps, and the domain checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from reference.domains import Box, L1Ball, L2Ball
from reference.wang17 import mirror_maps as mm
from spec.errors import ParameterError


def _slsqp_l1_step(x, g, a, radius):
    """Independent oracle: the QP in (d+, d-, y+, y-) >= 0 with x + d+ - d- = y+ - y-, sum(y+ + y-) <= R."""
    p = x.size

    def split(v):
        return v[:p], v[p:2 * p], v[2 * p:3 * p], v[3 * p:]

    def obj(v):
        dp, dm, _, _ = split(v)
        return a * (dp + dm).sum() ** 2 + g @ (dp - dm)

    cons = [{"type": "eq", "fun": lambda v: x + split(v)[0] - split(v)[1] - split(v)[2] + split(v)[3]},
            {"type": "ineq", "fun": lambda v: radius - split(v)[2].sum() - split(v)[3].sum()}]
    start = np.concatenate([np.zeros(2 * p), np.maximum(x, 0), np.maximum(-x, 0)])
    best = None
    for trial in range(2):
        res = optimize.minimize(obj, start, method="SLSQP", bounds=[(0, None)] * (4 * p), constraints=cons,
                                options={"ftol": 1e-14, "maxiter": 2000})
        if best is None or res.fun < best.fun:
            best = res
        start = start + 0.01 * (trial + 1)
    return best.fun


def _point_in_l1(draw, p, radius):
    v = np.array(draw(st.lists(st.floats(-1, 1), min_size=p, max_size=p)))
    scale = draw(st.floats(0.0, 1.0))
    s = np.abs(v).sum()
    return v / s * radius * scale if s > 0 else v


@st.composite
def _l1_problem(draw):
    p = draw(st.integers(1, 6))
    radius = draw(st.floats(0.1, 3.0))
    x = _point_in_l1(draw, p, radius)
    if draw(st.booleans()):  # on the boundary
        s = np.abs(x).sum()
        x = x / s * radius if s > 0 else x
    g = np.array(draw(st.lists(st.floats(-5, 5), min_size=p, max_size=p)))
    a = draw(st.floats(0.05, 20.0))
    return x, g, a, radius


@settings(max_examples=60, deadline=None)
@given(_l1_problem())
def test_l1_gradient_step_is_optimal(problem):
    x, g, a, radius = problem
    y = mm.l1_gradient_step(x[None], g[None], a=a, radius=radius)[0]
    assert np.abs(y).sum() <= radius * (1 + 1e-12)
    ours = a * np.abs(y - x).sum() ** 2 + g @ (y - x)
    oracle = _slsqp_l1_step(x, g, a, radius)
    scale = 1 + a * (2 * radius) ** 2 + np.abs(g).max() * 2 * radius
    # ours is certified optimal; SLSQP is a feasible point of the same problem, so it cannot be lower
    assert ours <= oracle + 1e-9 * scale
    assert ours >= oracle - 1e-6 * scale  # and SLSQP comes close to it (its tolerance)


@settings(max_examples=100, deadline=None)
@given(_l1_problem(), st.floats(-1, 1))
def test_l1_dual_is_a_lower_bound(problem, where):
    """Weak duality of the module docstring, checked at arbitrary nu against feasible points."""
    x, g, a, radius = problem
    big = np.abs(g).max()
    nu = np.array([where * big])
    dual = mm._dual_value(nu, x[None], g[None], a, radius)[0]
    rng = np.random.default_rng(0)
    for _ in range(50):
        y = rng.normal(size=x.size)
        y = y / np.abs(y).sum() * radius * rng.uniform()
        assert a * np.abs(y - x).sum() ** 2 + g @ (y - x) >= dual - 1e-9


def test_l1_gradient_step_cases():
    # interior, small gradient: move along the largest |g_j| by |g_j| / (2a)
    y = mm.l1_gradient_step(np.array([[0.1, 0.0, 0.0]]), np.array([[0.0, 1.0, -0.5]]), a=2.0, radius=1.0)
    np.testing.assert_allclose(y, [[0.1, -0.25, 0.0]], atol=1e-15)
    # on the boundary with a strong pull along e2: mass moves from e1 to e2 (both constraints active)
    y = mm.l1_gradient_step(np.array([[1.0, 0.0]]), np.array([[0.0, 10.0]]), a=0.5, radius=1.0)
    assert abs(np.abs(y).sum() - 1.0) < 1e-12 and y[0, 1] < 0 and y[0, 0] >= 0
    # zero gradient: stay
    np.testing.assert_array_equal(mm.l1_gradient_step(np.array([[0.3, -0.2]]), np.zeros((1, 2)), a=1.0, radius=1.0),
                                  [[0.3, -0.2]])
    # batched rows are solved independently
    xs = np.array([[0.1, 0.0, 0.0], [1.0, 0.0, 0.0]])
    gs = np.array([[0.0, 1.0, -0.5], [0.0, 10.0, 0.0]])
    both = mm.l1_gradient_step(xs, gs, a=2.0, radius=1.0)
    for i in range(2):
        np.testing.assert_array_equal(both[i], mm.l1_gradient_step(xs[i:i + 1], gs[i:i + 1], a=2.0, radius=1.0)[0])


def test_l2_gradient_step_is_the_projected_step():
    d = L2Ball(radius=2.0, dim=3)
    x = np.array([[0.5, 0.0, 0.0]])
    g = np.array([[1.0, -2.0, 0.5]])
    M = 3.0
    # (M / (2 R^2)) ||y - x||^2 + <g, y>: the projection of x - (R^2 / M) g
    np.testing.assert_allclose(mm.gradient_step(d, x, g, M), d.project(x - (4.0 / M) * g), rtol=1e-15)


def _random_pairs(domain, count, rng):
    p = domain.dim
    out = []
    for _ in range(count):
        a, b = rng.normal(size=(2, p))
        out.append((domain.project(a * rng.uniform(0.2, 3)), domain.project(b * rng.uniform(0.2, 3))))
    return out


@pytest.mark.parametrize("domain, cls", [(L2Ball(radius=1.5, dim=4), mm.SquaredL2), (L1Ball(radius=2.0, dim=5), mm.SquaredL2),
                                         (L1Ball(radius=2.0, dim=5), mm.PNorm), (L1Ball(radius=1.0, dim=2), mm.PNorm),
                                         (L1Ball(radius=1.0, dim=50), mm.PNorm)])
def test_mirror_maps_are_one_strongly_convex_in_the_minkowski_norm(domain, cls):
    w = cls(domain)
    rng = np.random.default_rng(3)
    for x, z in _random_pairs(domain, 300, rng):
        lhs = w.divergence(x, z)
        rhs = 0.5 * mm.minkowski_norm(domain, x - z) ** 2
        assert lhs >= rhs * (1 - 1e-10) - 1e-14
    # the public bound on B_w(x, 0) holds at the vertices / the sphere
    for x, _ in _random_pairs(domain, 100, rng):
        assert w.divergence(x, np.zeros(domain.dim)) <= w.max_divergence * (1 + 1e-12)


@pytest.mark.parametrize("domain, cls", [(L2Ball(radius=1.5, dim=3), mm.SquaredL2), (L1Ball(radius=2.0, dim=4), mm.SquaredL2),
                                         (L1Ball(radius=2.0, dim=4), mm.PNorm), (L1Ball(radius=1.0, dim=8), mm.PNorm)])
def test_mirror_step_is_optimal(domain, cls):
    """Compare argmin_{z' in C} B_w(z', z) + alpha <g, z'> with SLSQP over the set."""
    w = cls(domain)
    rng = np.random.default_rng(5)
    p = domain.dim
    for _ in range(8):
        z = domain.project(rng.normal(size=p) * 0.7)
        g = rng.normal(size=p) * rng.uniform(0.1, 10)
        alpha = rng.uniform(0.05, 3.0)
        ours = w.step(z[None], g[None], alpha)[0]
        assert bool(domain.contains(ours))

        def obj(v):
            return float(w.divergence(v, z) + alpha * g @ v)

        if isinstance(domain, L2Ball):
            cons = [{"type": "ineq", "fun": lambda v: domain.radius**2 - v @ v}]
            res = optimize.minimize(obj, z, method="SLSQP", constraints=cons, options={"ftol": 1e-14, "maxiter": 500})
            best = res.fun
        else:  # split v = a - b, a, b >= 0 so the l1 constraint is linear
            def obj2(u):
                return obj(u[:p] - u[p:])
            cons = [{"type": "ineq", "fun": lambda u: domain.radius - u.sum()}]
            u0 = np.concatenate([np.maximum(z, 0), np.maximum(-z, 0)]) * 0.99
            res = optimize.minimize(obj2, u0, method="SLSQP", bounds=[(0, None)] * (2 * p), constraints=cons,
                                    options={"ftol": 1e-14, "maxiter": 1000})
            best = res.fun
        assert obj(ours) <= best + 1e-7 * (1 + abs(best))


def test_p_norm_constants():
    w = mm.PNorm(L1Ball(radius=2.0, dim=100))
    assert w.q == pytest.approx(1 + 1 / math.log(100))
    assert w.q_dual == pytest.approx(1 + math.log(100))
    # B_w(x*, 0) <= kappa R^2 / 2 = 1 / (2 (q - 1) p^(2/q - 2)) ~ e^2 ln(p) / 2, far below the squared-l2 map's p / 2
    assert w.max_divergence == pytest.approx(1 / (2 * (w.q - 1) * 100 ** (2 / w.q - 2)))
    assert w.max_divergence < math.e**2 * math.log(100) / 2 + 1e-9
    assert mm.SquaredL2(L1Ball(radius=2.0, dim=100)).max_divergence == pytest.approx(50.0)


def test_domain_checks():
    with pytest.raises(ParameterError, match="L2Ball centred at 0 or an L1Ball"):
        mm.check_domain(Box(lower=[-1, -1], upper=[1, 1]))
    with pytest.raises(ParameterError, match="L2Ball centred at 0"):
        mm.check_domain(L2Ball(radius=1.0, dim=2, center=[0.5, 0.0]))
    with pytest.raises(ParameterError, match="L1Ball for the p-norm"):
        mm.PNorm(L2Ball(radius=1.0, dim=2))
