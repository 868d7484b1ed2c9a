"""Tests of reference.domains.

Oracles are independent of the module under test: membership predicates written out here
(norm inequalities, coordinate bounds, an LP for convex hulls), bisection along rays for the
gauge, scipy (linprog, SLSQP) for support functions, projections and LMOs, brute force over
vertices, known closed forms and Monte Carlo for Gaussian widths.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import integrate, optimize, stats

from reference.arrays import l2_norm
from reference.domains import (
    Box,
    Cube,
    Domain,
    Intersection,
    L1Ball,
    L2Ball,
    Polytope,
    Rp,
    Simplex,
)
from reference.tape import Recorder
from spec.errors import ParameterError

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FINITE = {"allow_nan": False, "allow_infinity": False, "allow_subnormal": False}


# --------------------------------------------------------------------------------------------
# independent oracles
# --------------------------------------------------------------------------------------------


def hull_member(vertices, x, tol):
    """x in conv(vertices) (within ~tol), by an LP feasibility problem."""
    m = vertices.shape[0]
    res = optimize.linprog(
        np.zeros(m),
        A_eq=np.vstack([vertices.T, np.ones(m)]),
        b_eq=np.concatenate([x, [1.0]]),
        bounds=(0, None),
        method="highs",
        options={"primal_feasibility_tolerance": max(tol, 1e-10)},
    )
    return res.status == 0


def member(dom, x, tol=1e-12):
    """Membership written out from each set's definition (no projection involved)."""
    x = np.asarray(x, dtype=float)
    if isinstance(dom, Rp):
        return True
    if isinstance(dom, L2Ball):
        return bool(np.linalg.norm(x - dom.center) <= dom.radius + tol)
    if isinstance(dom, L1Ball):
        return bool(np.abs(x).sum() <= dom.radius + tol)
    if isinstance(dom, Box):
        return bool(np.all(x >= dom.lower - tol) and np.all(x <= dom.upper + tol))
    if isinstance(dom, Simplex):
        return bool(np.all(x >= -tol) and abs(x.sum() - dom.scale) <= tol)
    if isinstance(dom, Polytope):
        return hull_member(dom.vertices, x, tol)
    if isinstance(dom, Intersection):
        return all(member(d, x, tol) for d in dom.domains)
    raise TypeError(f"no membership oracle for {dom!r}")  # pragma: no cover


def ray_gauge(dom, c, d, *, tol=1e-13):
    """1 / sup{t >= 0 : c + t d in C} by doubling and bisection on the written-out membership."""
    if not np.any(d):
        return 0.0
    lo, hi = 0.0, 1.0
    while member(dom, c + hi * d, tol):
        lo, hi = hi, 2 * hi
        if hi > 1e12:
            return 0.0
    for _ in range(55):
        mid = (lo + hi) / 2
        if member(dom, c + mid * d, tol):
            lo = mid
        else:
            hi = mid
    return 1.0 / lo if lo > 0 else math.inf


def sample_points(dom, rng, k=20):
    """Points of C: convex combinations of LMO points and the interior point (checked)."""
    if not dom.bounded:
        return rng.normal(size=(k, dom.dim)) * 3
    g = rng.normal(size=(8, dom.dim))
    corners = np.vstack([dom.lmo(g), dom.interior_point()[None]])
    w = rng.dirichlet(np.ones(corners.shape[0]), size=k)
    pts = w @ corners
    return np.vstack([pts, corners])


def size_of(dom):
    return 1.0 + (dom.max_norm if dom.bounded else 10.0)


# --------------------------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------------------------


def vec(p, lo=-2.0, hi=2.0):
    return hnp.arrays(np.float64, (p,), elements=st.floats(lo, hi, **FINITE))


@st.composite
def l2balls(draw, p=None):
    p = draw(st.integers(1, 4)) if p is None else p
    center = draw(st.one_of(st.none(), vec(p)))
    return L2Ball(radius=draw(st.floats(0.2, 3.0)), dim=p, center=center)


@st.composite
def boxes(draw, p=None):
    p = draw(st.integers(1, 4)) if p is None else p
    lower = draw(vec(p))
    width = draw(hnp.arrays(np.float64, (p,), elements=st.floats(0.2, 3.0)))
    return Box(lower=lower, upper=lower + width)


@st.composite
def polytopes(draw):
    p = draw(st.integers(1, 3))
    m = draw(st.integers(1, 7))
    # coordinates on a 1e-3 grid: a polytope is either degenerate or of a size the LP-based
    # membership oracle can resolve (not, say, an interval of length 1e-223)
    coords = st.integers(-2000, 2000).map(lambda k: k / 1000)
    return Polytope(vertices=draw(hnp.arrays(np.float64, (m, p), elements=coords)))


@st.composite
def intersections(draw):
    kind = draw(st.sampled_from(["box-ball", "l1-ball", "simplex-ball", "box-ball-l1"]))
    p = draw(st.integers(1, 3))
    r = draw(st.floats(0.5, 2.0))
    if kind == "box-ball":
        other = draw(boxes(p))
    elif kind == "l1-ball":
        other = L1Ball(radius=draw(st.floats(0.5, 2.0)), dim=p)
    elif kind == "simplex-ball":
        other = Simplex(dim=p, scale=draw(st.floats(0.5, 2.0)))
    else:
        other = Box(lower=-np.ones(p), upper=np.ones(p))
    # the ball's centre: part of the way from the interior point towards an extreme point
    # (so it lies in the other set); the ball is then at most partly inside it
    towards = other.lmo(draw(vec(p, -1, 1)))
    weight = draw(st.floats(0.0, 1.0))
    if kind == "box-ball-l1":
        weight *= r / (2 * math.sqrt(p))  # keeps the origin inside the ball
    center = other.interior_point() + weight * (towards - other.interior_point())
    ball = L2Ball(radius=r, dim=p, center=center)
    if kind == "box-ball-l1":
        # the origin lies in all three, so the default centre exists
        return Intersection(other, ball, L1Ball(radius=draw(st.floats(1.0, 2.5)), dim=p))
    return Intersection(other, ball, center=center)


def any_domain(include_rp=True):
    parts = [
        l2balls(),
        st.builds(lambda r, p: L1Ball(radius=r, dim=p), st.floats(0.2, 3.0), st.integers(1, 4)),
        boxes(),
        st.builds(lambda h, p: Cube(half_width=h, dim=p), st.floats(0.2, 3.0), st.integers(1, 4)),
        st.builds(lambda p, s: Simplex(dim=p, scale=s), st.integers(1, 4), st.floats(0.2, 3.0)),
        polytopes(),
        intersections(),
    ]
    if include_rp:
        parts.append(st.builds(lambda p: Rp(dim=p), st.integers(1, 4)))
    return st.one_of(*parts)


# --------------------------------------------------------------------------------------------
# projection
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(dom=any_domain(), data=st.data())
def test_projection_feasible_idempotent_nonexpansive(dom, data):
    s = size_of(dom)
    x = data.draw(hnp.arrays(np.float64, (6, dom.dim), elements=st.floats(-4, 4, **FINITE))) * s
    px = dom.project(x)
    assert px.shape == x.shape
    assert np.all(dom.contains(px))
    assert all(member(dom, z, 1e-9 * s) for z in px)
    assert np.allclose(dom.project(px), px, rtol=0, atol=1e-9 * s)
    # non-expansive on every pair
    dpx = np.linalg.norm(px[:, None] - px[None], axis=-1)
    dx = np.linalg.norm(x[:, None] - x[None], axis=-1)
    assert np.all(dpx <= dx + 1e-9 * s)


@SETTINGS
@given(dom=any_domain(include_rp=False), data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_projection_variational_inequality(dom, data, seed):
    """<x - Px, z - Px> <= 0 for every z in C (the characterisation of the projection)."""
    s = size_of(dom)
    x = data.draw(hnp.arrays(np.float64, (4, dom.dim), elements=st.floats(-4, 4, **FINITE))) * s
    z = sample_points(dom, np.random.default_rng(seed))
    assert all(member(dom, zz, 1e-9 * s) for zz in z[:5])
    px = dom.project(x)
    inner = ((x - px)[:, None, :] * (z[None] - px[:, None])).sum(-1)
    assert np.all(inner <= 1e-8 * s * s * (1 + np.abs(x).max()))


def test_projection_closed_forms():
    x = np.array([[3.0, 4.0], [0.3, -0.2], [-2.0, 0.5]])
    ball = L2Ball(radius=2.0, dim=2, center=[1.0, 0.0])
    d = x - [1.0, 0.0]
    n = np.linalg.norm(d, axis=1, keepdims=True)
    assert np.allclose(ball.project(x), [1.0, 0.0] + d * np.minimum(1, 2 / n))
    box = Box(lower=[-1, 0], upper=[1, 0.25])
    assert np.array_equal(box.project(x), [[1, 0.25], [0.3, 0], [-1, 0.25]])
    # l1 ball: (3, 4) with radius 2 -> soft threshold at theta = 2.5 -> (0.5, 1.5)
    assert np.allclose(L1Ball(radius=2, dim=2).project([3.0, 4.0]), [0.5, 1.5])
    # simplex: (0.5, 0.5, 2) -> threshold 1 -> (0, 0, 1)
    assert np.allclose(Simplex(dim=3).project([0.5, 0.5, 2.0]), [0, 0, 1])
    assert np.allclose(Simplex(dim=3).project([0.0, 0.0, 0.0]), [1 / 3] * 3)
    assert np.array_equal(Rp(dim=2).project(x), x)


def test_ball_at_the_origin_projects_as_the_general_formula_bit_for_bit():
    """A ball centred at +0.0 skips ``x - center``; the result is the general formula's, bit for
    bit, signed zeros included. A centre with a -0.0 entry takes the general path (x - (-0.0)
    turns -0.0 into +0.0)."""
    gen = np.random.default_rng(11)
    x = gen.normal(size=(500, 3)) * 3.0
    x[:5] = [[-0.0, 0.0, 5.0], [-0.0, -0.0, -0.0], [0.0, -0.0, 1e-300], [-4.0, -0.0, 0.0], [9.0, 9.0, -0.0]]
    for center in (None, [0.0, 0.0, 0.0], [-0.0, 0.0, 0.0]):
        ball = L2Ball(radius=2.0, dim=3, center=center)
        c = np.zeros(3) if center is None else np.array(center)
        d = x - c
        expected = c + d * (2.0 / np.maximum(l2_norm(d)[:, None], 2.0))
        got = ball.project(x)
        assert np.array_equal(got, expected)
        assert np.array_equal(np.signbit(got), np.signbit(expected))


def test_batched_shapes():
    dom = L1Ball(radius=1.0, dim=3)
    x = np.random.default_rng(0).normal(size=(2, 5, 3))
    assert dom.project(x).shape == (2, 5, 3)
    assert dom.contains(x).shape == (2, 5)
    assert dom.gauge(x).shape == (2, 5)
    assert dom.support(x).shape == (2, 5)
    assert dom.lmo(x).shape == (2, 5, 3)
    assert dom.project(x[0, 0]).shape == (3,)
    assert np.allclose(dom.project(x)[1, 2], dom.project(x[1, 2]))


# --------------------------------------------------------------------------------------------
# Minkowski gauge
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(dom=any_domain(include_rp=False), data=st.data())
def test_gauge_consistent_with_membership(dom, data):
    """gauge <= 1 iff x in C; the boundary point c + (x - c)/gauge is in C and just beyond it is
    not (checked with the written-out membership); positive homogeneity about c."""
    s = size_of(dom)
    c = dom.interior_point()
    x = data.draw(hnp.arrays(np.float64, (5, dom.dim), elements=st.floats(-3, 3, **FINITE))) * s
    g = dom.gauge(x)
    for xi, gi in zip(x, g):
        if gi <= 1 - 1e-7:
            assert member(dom, xi, 1e-9 * s)
        if gi >= 1 + 1e-7:
            assert not member(dom, xi, 0.0)
        if 0 < gi < math.inf:
            d = xi - c
            assert member(dom, c + d / gi, 1e-9 * s)
            assert not member(dom, c + d / gi * (1 + 1e-6), 0.0)
            for scale in (0.25, 3.0):
                assert dom.gauge(c + scale * d) == pytest.approx(scale * gi, rel=1e-9)
    assert dom.gauge(c) == 0.0


@SETTINGS
@given(dom=any_domain(include_rp=False), data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_gauge_about_other_centres_matches_bisection(dom, data, seed):
    rng = np.random.default_rng(seed)
    corners = dom.lmo(rng.normal(size=(3, dom.dim)))
    w = rng.dirichlet(np.ones(4))
    c = w[0] * dom.interior_point() + w[1:] @ corners  # in the (relative) interior
    s = size_of(dom)
    x = data.draw(hnp.arrays(np.float64, (3, dom.dim), elements=st.floats(-3, 3, **FINITE))) * s
    g = dom.gauge(x, center=c)
    for xi, gi in zip(x, g):
        oracle = ray_gauge(dom, c, xi - c)
        if oracle > 1e9:  # numerically no ray into C (the bisection stalls at rounding level)
            assert gi > 1e6
        elif math.isinf(gi):
            assert oracle > 1e6
        else:
            assert gi == pytest.approx(oracle, rel=1e-7, abs=1e-9)


def test_gauge_closed_forms_and_norms():
    x = np.array([[3.0, -4.0], [0.5, 0.25]])
    assert np.allclose(L2Ball(radius=2, dim=2).gauge(x), np.linalg.norm(x, axis=1) / 2)
    assert np.allclose(L1Ball(radius=2, dim=2).gauge(x), np.abs(x).sum(1) / 2)
    assert np.allclose(Cube(half_width=2, dim=2).gauge(x), np.abs(x).max(1) / 2)
    assert np.array_equal(Rp(dim=2).gauge(x), [0.0, 0.0])
    # a centre on the sphere: finite only for directions pointing into the ball
    ball = L2Ball(radius=1.0, dim=2)
    g = ball.gauge([[0.0, 0.0], [-1.0, 0.0], [2.0, 0.0], [0.5, 0.5], [1.0, 1.0]], center=[1.0, 0.0])
    # (0.5, 0.5): the ray (1 - t/2, t/2) leaves the unit disc at t = 2, so the gauge is 1/2
    assert np.allclose(g, [0.5, 1.0, np.inf, 0.5, np.inf])


def test_simplex_gauge_off_and_on_the_affine_hull():
    dom = Simplex(dim=3, scale=2.0)
    c = dom.interior_point()
    assert np.allclose(c, [2 / 3] * 3)
    assert dom.gauge([1.0, 1.0, 1.0]) == math.inf  # sum 3 != 2: off the hull
    on = np.array([[2.0, 0.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.5, 1.5], [2 / 3, 2 / 3, 2 / 3]])
    g = dom.gauge(on)
    # on the hull the gauge is max_i (c_i - x_i) / c_i
    assert np.allclose(g, [1.0, 1.0, (2 / 3 + 1) / (2 / 3), 0.0])
    assert np.array_equal(g <= 1 + 1e-12, [member(dom, z) for z in on])


# --------------------------------------------------------------------------------------------
# support function and LMO
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(dom=any_domain(include_rp=False), data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_support_consistent_with_lmo_and_points(dom, data, seed):
    s = size_of(dom)
    y = data.draw(hnp.arrays(np.float64, (4, dom.dim), elements=st.floats(-3, 3, **FINITE)))
    h = dom.support(y)
    x_max = dom.lmo(-y)
    assert all(member(dom, z, 1e-9 * s) for z in x_max)
    ynorm = np.linalg.norm(y, axis=1)
    assert np.allclose((x_max * y).sum(1), h, rtol=0, atol=1e-9 * s * (1 + ynorm))
    z = sample_points(dom, np.random.default_rng(seed))
    assert np.all(z @ y.T <= h + 1e-9 * s * (1 + ynorm))
    # LMO optimality against the same points
    x_min = dom.lmo(y)
    assert np.all((x_min * y).sum(1)[None] <= z @ y.T + 1e-9 * s * (1 + ynorm))


def _linprog_support(a_ub, b_ub, a_eq, b_eq, bounds, y, extra=0):
    p = y.size
    c = -np.concatenate([y, np.zeros(extra)])
    res = optimize.linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    assert res.status == 0
    return -res.fun, res.x[:p]


@SETTINGS
@given(data=st.data())
def test_support_against_linprog(data):
    """Support functions of the polyhedral sets against an LP over their H- or V-description."""
    p = data.draw(st.integers(1, 4))
    # directions on a 1e-3 grid: HiGHS treats cost coefficients below ~1e-7 as zero
    y = data.draw(hnp.arrays(np.float64, (p,), elements=st.integers(-3000, 3000).map(lambda k: k / 1000)))
    box = data.draw(boxes(p))
    # HiGHS's default optimality tolerances (~1e-7 relative) bound the oracle's accuracy
    assert box.support(y) == pytest.approx(_linprog_support(None, None, None, None, list(zip(box.lower, box.upper)), y)[0], abs=1e-7)
    r = data.draw(st.floats(0.2, 3.0))
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=p)))
    l1 = _linprog_support(signs, np.full(len(signs), r), None, None, (None, None), y)[0]
    assert L1Ball(radius=r, dim=p).support(y) == pytest.approx(l1, abs=1e-7)
    simplex = _linprog_support(None, None, np.ones((1, p)), [r], (0, None), y)[0]
    assert Simplex(dim=p, scale=r).support(y) == pytest.approx(simplex, abs=1e-7)
    v = data.draw(hnp.arrays(np.float64, (5, p), elements=st.floats(-2, 2, **FINITE)))
    m = v.shape[0]
    a_eq = np.hstack([np.vstack([np.eye(p), np.zeros((1, p))]), np.vstack([-v.T, np.ones((1, m))])])
    poly = _linprog_support(None, None, a_eq, np.concatenate([np.zeros(p), [1.0]]), [(None, None)] * p + [(0, None)] * m, y, extra=m)[0]
    assert Polytope(vertices=v).support(y) == pytest.approx(poly, abs=1e-7)


def test_support_of_balls_and_intersections_against_slsqp():
    rng = np.random.default_rng(4)
    ball = L2Ball(radius=1.5, dim=3, center=[0.5, -0.2, 1.0])
    box = Box(lower=[-1, -2, 0], upper=[1, 1, 3])
    l1 = L1Ball(radius=2.0, dim=3)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=3)))
    cons_ball = {"type": "ineq", "fun": lambda z: 1.5**2 - np.sum((z - ball.center) ** 2)}
    cons_l1 = {"type": "ineq", "fun": lambda z: 2.0 - signs @ z, "jac": lambda z: -signs}
    cases = [
        (ball, [cons_ball], None),
        (Intersection(box, ball), [cons_ball], list(zip(box.lower, box.upper))),
        (Intersection(box, ball, l1), [cons_ball, cons_l1], list(zip(box.lower, box.upper))),
    ]
    for dom, cons, bounds in cases:
        for y in rng.normal(size=(4, 3)):
            res = optimize.minimize(
                lambda z: -z @ y, dom.interior_point(), jac=lambda z: -y, constraints=cons, bounds=bounds,
                method="SLSQP", options={"ftol": 1e-14, "maxiter": 500},
            )
            assert dom.support(y) == pytest.approx(-res.fun, abs=1e-7)
            assert dom.support(y) >= -res.fun - 1e-7  # ours is an upper bound (certified)


def test_lmo_tie_breaking_is_deterministic_and_feasible():
    assert np.array_equal(L1Ball(radius=2, dim=3).lmo([0.0, 0.0, 0.0]), [2.0, 0.0, 0.0])
    assert np.array_equal(L1Ball(radius=2, dim=3).lmo([1.0, -1.0, 0.5]), [-2.0, 0.0, 0.0])
    assert np.array_equal(L1Ball(radius=2, dim=3).lmo([0.5, -1.0, 1.0]), [0.0, 2.0, 0.0])
    assert np.array_equal(Box(lower=[0, 0], upper=[1, 2]).lmo([0.0, -1.0]), [0.0, 2.0])
    assert np.array_equal(Simplex(dim=3).lmo([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0])
    assert np.array_equal(L2Ball(radius=1, dim=2, center=[1, 1]).lmo([0.0, 0.0]), [1.0, 1.0])
    v = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    assert np.array_equal(Polytope(vertices=v).lmo([-1.0, 0.0]), [1.0, 0.0])


def test_rp():
    dom = Rp(dim=2)
    assert dom.support([0.0, 0.0]) == 0.0 and dom.support([0.0, 1e-300]) == math.inf
    assert np.array_equal(dom.lmo([0.0, 0.0]), [0.0, 0.0])
    with pytest.raises(ParameterError, match="unbounded"):
        dom.lmo([1.0, 0.0])
    assert dom.diameter == math.inf and dom.max_norm == math.inf and not dom.bounded
    assert dom.gaussian_width() == (math.inf, 0.0)
    lo, hi = dom.bounding_box()
    assert np.all(lo == -np.inf) and np.all(hi == np.inf)
    assert np.all(dom.contains(np.array([[1e300, -1e300]])))


def test_dual_norms_of_symmetric_sets():
    y = np.array([[1.0, -3.0, 2.0], [0.5, 0.5, -0.25]])
    assert np.allclose(L2Ball(radius=2, dim=3).dual_norm(y), 2 * np.linalg.norm(y, axis=1))
    assert np.allclose(L1Ball(radius=2, dim=3).dual_norm(y), 2 * np.abs(y).max(1))
    assert np.allclose(Cube(half_width=2, dim=3).dual_norm(y), 2 * np.abs(y).sum(1))
    v = np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 1.0, 0], [0, -1.0, 0], [0, 0, 1.0], [0, 0, -1.0]])
    assert np.allclose(Polytope(vertices=v).dual_norm(y), np.abs(y).max(1))
    for dom in (Simplex(dim=3), L2Ball(radius=1, dim=3, center=[1, 0, 0]), Box(lower=[0, 0, 0], upper=[1, 1, 1])):
        assert not dom.symmetric
        with pytest.raises(ParameterError, match="symmetric"):
            dom.dual_norm(y)


# --------------------------------------------------------------------------------------------
# sizes: diameter, radius, coordinate ranges, bounding cube
# --------------------------------------------------------------------------------------------


def test_diameters_and_radii_are_attained():
    rng = np.random.default_rng(7)
    a = np.array([1.0, -2.0, 0.5])
    ball = L2Ball(radius=1.5, dim=3, center=a)
    u = rng.normal(size=3)
    ends = ball.lmo(np.vstack([u, -u]))
    assert np.linalg.norm(ends[0] - ends[1]) == pytest.approx(ball.diameter) == pytest.approx(3.0)
    far = a + 1.5 * a / np.linalg.norm(a)
    assert member(ball, far) and np.linalg.norm(far) == pytest.approx(ball.max_norm)
    box = Box(lower=[-1, 0, 2], upper=[1, 3, 2.5])
    assert box.diameter == pytest.approx(np.linalg.norm(box.upper - box.lower))
    assert box.max_norm == pytest.approx(np.linalg.norm([1, 3, 2.5]))
    assert L1Ball(radius=2, dim=3).diameter == 4.0 and L1Ball(radius=2, dim=3).radius == 2.0
    assert Simplex(dim=3, scale=2).diameter == pytest.approx(2 * math.sqrt(2))
    assert Simplex(dim=1, scale=2).diameter == 0.0 and Simplex(dim=3, scale=2).max_norm == 2.0
    v = rng.normal(size=(9, 3))
    brute = max(np.linalg.norm(x - y) for x in v for y in v)
    assert Polytope(vertices=v).diameter == pytest.approx(brute)
    assert Polytope(vertices=v).max_norm == pytest.approx(max(np.linalg.norm(x) for x in v))


@SETTINGS
@given(dom=any_domain(include_rp=False), seed=st.integers(0, 2**32 - 1))
def test_sizes_bound_sampled_points_and_bounding_cube(dom, seed):
    s = size_of(dom)
    z = sample_points(dom, np.random.default_rng(seed))
    pair = np.linalg.norm(z[:, None] - z[None], axis=-1).max()
    assert pair <= dom.diameter + 1e-9 * s
    assert np.linalg.norm(z, axis=1).max() <= dom.max_norm + 1e-9 * s
    lo, hi = dom.coordinate_bounds()
    assert np.all(z >= lo - 1e-9 * s) and np.all(z <= hi + 1e-9 * s)
    # the bounds are attained by the LMO in the coordinate directions
    eye = np.eye(dom.dim)
    assert np.allclose(np.diag(dom.lmo(eye)), lo, atol=1e-9 * s)
    assert np.allclose(np.diag(dom.lmo(-eye)), hi, atol=1e-9 * s)
    a_lo, a_hi = dom.bounding_box()
    tau = dom.linf_diameter
    assert tau == pytest.approx(np.max(hi - lo))
    assert np.allclose(a_hi - a_lo, tau)
    assert np.all(a_lo <= lo + 1e-12 * s) and np.all(hi <= a_hi + 1e-12 * s)


def test_linf_diameter_of_a_polytope_by_brute_force():
    v = np.random.default_rng(2).normal(size=(12, 4))
    brute = max(np.abs(x - y).max() for x in v for y in v)
    assert Polytope(vertices=v).linf_diameter == pytest.approx(brute)
    lo, hi = Polytope(vertices=v).bounding_box()
    assert np.allclose(hi - lo, brute)


# --------------------------------------------------------------------------------------------
# polytopes built from boxes and cross-polytopes agree with the closed forms
# --------------------------------------------------------------------------------------------


def _box_vertices(box):
    return np.array(list(itertools.product(*zip(box.lower, box.upper))), dtype=float)


@SETTINGS
@given(box=boxes(), data=st.data())
def test_polytope_of_box_vertices_agrees_with_box(box, data):
    poly = Polytope(vertices=_box_vertices(box))
    s = size_of(box)
    x = data.draw(hnp.arrays(np.float64, (5, box.dim), elements=st.floats(-4, 4, **FINITE))) * s
    assert np.allclose(poly.project(x), box.project(x), atol=1e-10 * s)
    assert np.allclose(poly.support(x), box.support(x), atol=1e-10 * s * s)
    assert np.allclose(poly.distance(x), box.distance(x), atol=1e-10 * s)
    assert np.array_equal(poly.contains(x, tol=1e-9), box.contains(x, tol=1e-9)) or np.any(
        np.abs(box.distance(x) - 1e-9) < 1e-12  # a point at distance ~tol: either answer is right
    )
    assert np.allclose((poly.lmo(x) * x).sum(1), (box.lmo(x) * x).sum(1), atol=1e-10 * s * s)
    assert np.allclose(poly.gauge(x), box.gauge(x), rtol=1e-9)
    assert poly.diameter == pytest.approx(box.diameter) and poly.max_norm == pytest.approx(box.max_norm)
    assert np.allclose(poly.bounding_box(), box.bounding_box())


@SETTINGS
@given(p=st.integers(1, 4), r=st.floats(0.2, 3.0), data=st.data())
def test_polytope_of_cross_polytope_agrees_with_l1_ball(p, r, data):
    l1 = L1Ball(radius=r, dim=p)
    poly = Polytope(vertices=np.vstack([r * np.eye(p), -r * np.eye(p)]))
    x = data.draw(hnp.arrays(np.float64, (5, p), elements=st.floats(-4, 4, **FINITE))) * r
    assert np.allclose(poly.project(x), l1.project(x), atol=1e-10 * (1 + r))
    assert np.allclose(poly.support(x), l1.support(x), atol=1e-10 * r * r)
    assert np.allclose(poly.gauge(x), l1.gauge(x), rtol=1e-9, atol=1e-12)
    assert np.allclose(poly.distance(x), l1.distance(x), atol=1e-10 * (1 + r))
    assert poly.symmetric


def test_polytope_gauge_by_linear_programme_in_high_dimension():
    """p > 6 uses the LP gauge instead of Qhull facets: compare with the l1 ball."""
    p = 8
    l1 = L1Ball(radius=1.5, dim=p)
    poly = Polytope(vertices=np.vstack([1.5 * np.eye(p), -1.5 * np.eye(p)]))
    x = np.random.default_rng(3).normal(size=(4, p))
    assert poly._halfspaces() is False
    assert np.allclose(poly.gauge(x), l1.gauge(x), rtol=1e-7)
    degenerate = Polytope(vertices=[[0.0, 0.0], [1.0, 1.0]])  # a segment: no interior
    # about the midpoint (1/2, 1/2): the ray towards (3/4, 3/4) leaves at (1, 1), t = 2
    assert degenerate.gauge([0.75, 0.75]) == pytest.approx(0.5)
    assert degenerate.gauge([0.0, 0.0]) == pytest.approx(1.0)
    assert degenerate.gauge([1.0, 0.0]) == math.inf
    # tiny steps off the segment are still off it (LP tolerances are absolute: not accepted)
    assert degenerate.gauge([0.5 + 1e-8, 0.5]) == math.inf
    assert degenerate.gauge([0.5 + 1e-9, 0.5 + 1e-9]) == pytest.approx(2e-9, rel=1e-6)
    assert Polytope(vertices=[[0.0]]).gauge([[1e-8], [0.0]]).tolist() == [math.inf, 0.0]


# --------------------------------------------------------------------------------------------
# intersections
# --------------------------------------------------------------------------------------------


def _slsqp_projection(x, cons, bounds, start):
    res = optimize.minimize(
        lambda z: 0.5 * np.sum((z - x) ** 2), start, jac=lambda z: z - x, constraints=cons, bounds=bounds,
        method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000},
    )
    return res.x


def test_intersection_projection_against_slsqp():
    rng = np.random.default_rng(11)
    p = 3
    box = Box(lower=[-1, -2, 0], upper=[1, 1, 3])
    ball = L2Ball(radius=1.5, dim=p, center=[0.5, 0.0, 1.0])
    l1 = L1Ball(radius=2.0, dim=p)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=p)))
    cons_ball = {"type": "ineq", "fun": lambda z: 1.5**2 - np.sum((z - ball.center) ** 2), "jac": lambda z: -2 * (z - ball.center)}
    cons_l1 = {"type": "ineq", "fun": lambda z: 2.0 - signs @ z, "jac": lambda z: -signs}
    bounds = list(zip(box.lower, box.upper))
    pair = Intersection(box, ball)
    triple = Intersection(box, ball, l1)
    for dom, cons in ((pair, [cons_ball]), (triple, [cons_ball, cons_l1])):
        x = rng.normal(size=(15, p)) * 3
        ours = dom.project(x)
        for xi, pi in zip(x, ours):
            ref = _slsqp_projection(xi, cons, bounds, dom.center)
            assert member(dom, pi, 1e-9)
            assert np.linalg.norm(pi - ref) <= 1e-6
            # ours is at least as close as the reference (which is feasible up to SLSQP's tolerance)
            assert np.sum((pi - xi) ** 2) <= np.sum((ref - xi) ** 2) + 1e-9


def test_pair_methods_agree_with_dykstra_and_admm(monkeypatch):
    rng = np.random.default_rng(12)
    dom = Intersection(L1Ball(radius=1.3, dim=4), L2Ball(radius=1.0, dim=4, center=[0.5, 0.5, 0.0, 0.0]))
    x = rng.normal(size=(30, 4)) * 3
    exact_proj = dom.project(x)
    exact_lmo, exact_gap = dom.lmo_with_gap(x)
    assert np.all(exact_gap <= 1e-13 * np.linalg.norm(x, axis=1))
    monkeypatch.setattr(dom, "_pair", lambda: None)  # force the general algorithms
    assert np.allclose(dom.project(x), exact_proj, atol=1e-10)
    admm_lmo, admm_gap = dom.lmo_with_gap(x)
    assert np.all(admm_gap <= 1e-12 * np.linalg.norm(x, axis=1) * (1 + dom.diameter))
    assert np.allclose((admm_lmo * x).sum(1), (exact_lmo * x).sum(1), atol=1e-10)


def test_pair_lmo_in_nearly_degenerate_directions():
    """Directions (almost) orthogonal to the simplex drive the ball's multiplier towards 0,
    where a - g / lam is huge and projections lose accuracy: results must stay feasible and
    certified. Oracle: on the simplex, <y, x> = 1 + e x_3 for y = (1, 1, 1 + e), and the
    largest x_3 over the simplex ∩ B(c, 1/2) is at (t, t, 1 - 2t), 6 (t - 1/3)^2 = 1/4."""
    c = np.full(3, 1 / 3)
    dom = Intersection(Simplex(dim=3), L2Ball(radius=0.5, dim=3, center=c))
    t = 1 / 3 - math.sqrt(1 / 24)
    for e in [0.0, 1e-13, 1e-11, 1e-9, 1e-5, 1e-2]:
        y = np.array([1.0, 1.0, 1.0 + e])
        x, gap = dom.lmo_with_gap(-y)
        best = 1 + e * (1 - 2 * t)
        assert member(dom, x, 1e-12), e
        assert gap <= 1e-13
        assert dom.support(y) == pytest.approx(best, abs=1e-15)  # the certified upper bound
        assert best - 1e-15 <= x @ y + gap and x @ y <= best + 1e-15  # x is within its gap


def test_admm_lmo_in_a_nearly_degenerate_direction():
    """Three members (ADMM): y = (1, e) almost normal to the box face x_1 = 1, so the ball's
    multiplier is tiny. The maximiser is (1, sqrt(r^2 - 1)) (inside the l1 ball)."""
    r = 1.098302432534914
    dom = Intersection(Box(lower=[-1.0, -1.0], upper=[1.0, 1.0]), L2Ball(radius=r, dim=2), L1Ball(radius=2.5, dim=2))
    for e in (1e-5,):  # needs the residual balancing that starts after 2000 iterations
        y = np.array([1.0, e])
        x, gap = dom.lmo_with_gap(-y)
        best = 1 + e * math.sqrt(r * r - 1)
        assert member(dom, x, 1e-12)
        assert gap <= 1e-13
        assert dom.support(y) == pytest.approx(best, abs=1e-13) and dom.support(y) >= best - 1e-15
        assert x @ y >= best - gap - 1e-15


def test_intersection_lmo_is_certified():
    """lmo_with_gap (consensus ADMM): x is feasible and <g, x> - min <= gap, with the minimum
    from an LP over the explicit description; support is the certified upper bound."""
    rng = np.random.default_rng(13)
    p = 3
    box = Box(lower=[-1, -1, -1], upper=[1, 1, 1])
    l1 = L1Ball(radius=1.5, dim=p)
    shifted = Box(lower=[-0.5, -2, -0.8], upper=[2, 0.7, 2])
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=p)))
    bounds = list(zip(np.maximum(box.lower, shifted.lower), np.minimum(box.upper, shifted.upper)))
    dom = Intersection(box, l1, shifted)
    g = rng.normal(size=(6, p))
    x, gap = dom.lmo_with_gap(g)
    h = dom.support(-g)
    for gi, xi, gapi, hi in zip(g, x, gap, h):
        assert member(dom, xi, 1e-12)
        res = optimize.linprog(gi, A_ub=signs, b_ub=np.full(len(signs), 1.5), bounds=bounds, method="highs")
        assert gi @ xi - res.fun <= gapi + 1e-9
        assert gapi <= 1e-13 * np.linalg.norm(gi) * (1 + dom.diameter)
        assert -hi <= res.fun + 1e-9 and hi == pytest.approx(-res.fun, abs=1e-9)
    # a polytope member (Wolfe projections inside the ADMM), one direction
    simplexish = Polytope(vertices=np.vstack([np.eye(p) * 2, -np.ones((1, p))]))
    dom = Intersection(box, l1, simplexish)
    v = simplexish.vertices
    m = v.shape[0]
    gi = g[0]
    xi, gapi = dom.lmo_with_gap(gi)
    a_eq = np.hstack([np.vstack([np.eye(p), np.zeros((1, p))]), np.vstack([-v.T, np.ones((1, m))])])
    a_ub = np.hstack([signs, np.zeros((len(signs), m))])
    res = optimize.linprog(
        np.concatenate([gi, np.zeros(m)]), A_ub=a_ub, b_ub=np.full(len(signs), 1.5), A_eq=a_eq,
        b_eq=np.concatenate([np.zeros(p), [1.0]]), bounds=[(-1, 1)] * p + [(0, None)] * m, method="highs",
    )
    assert member(dom, xi, 1e-9)
    assert gi @ xi - res.fun <= gapi + 1e-8 and gapi <= 1e-12


def test_intersection_gauge_is_max_of_members_and_choices():
    box = Box(lower=[-1, -1], upper=[1, 1])
    ball = L2Ball(radius=1.2, dim=2)
    dom = Intersection(box, ball)
    x = np.random.default_rng(5).normal(size=(6, 2)) * 2
    assert np.allclose(dom.gauge(x), np.maximum(box.gauge(x), ball.gauge(x)))
    assert np.array_equal(dom.center, [0.0, 0.0])
    assert dom.diameter == pytest.approx(2.4) and dom.max_norm == pytest.approx(1.2)  # upper bounds
    # bst14's C_0: a ball around theta_0 on the boundary of C; the default centre is interior
    c0 = Intersection(box, L2Ball(radius=0.5, dim=2, center=[1.0, 0.0]))
    assert c0._is_interior(c0.center) and all(d._is_interior(c0.center) for d in c0.domains)
    with pytest.raises(ParameterError, match="center"):
        Intersection(box, L2Ball(radius=0.5, dim=2, center=[3.0, 0.0]))  # disjoint
    with pytest.raises(ParameterError, match="every domain"):
        Intersection(box, ball, center=[1.0, 1.0])  # outside the ball
    with pytest.raises(ParameterError, match="same dimension"):
        Intersection(box, L2Ball(radius=1, dim=3))
    with pytest.raises(TypeError, match="Domain"):
        Intersection(box, "ball")
    with pytest.raises(ParameterError, match="at least one"):
        Intersection()


def test_make_feasible_pulls_radially_into_the_intersection():
    dom = Intersection(Box(lower=[-1, -1, -1], upper=[1, 1, 1]), L2Ball(radius=1.2, dim=3), L1Ball(radius=1.5, dim=3))
    x = np.random.default_rng(6).normal(size=(20, 3)) * 3
    y = dom.make_feasible(x)
    assert all(member(dom, z, 1e-12) for z in y)
    inside = dom.contains(x, tol=0)
    assert np.array_equal(y[inside], x[inside])


# --------------------------------------------------------------------------------------------
# Gaussian width
# --------------------------------------------------------------------------------------------


def test_gaussian_width_known_values():
    sqpi = math.sqrt(math.pi)
    # E ||g||: chi means
    assert L2Ball(radius=1, dim=1).gaussian_width() == (pytest.approx(math.sqrt(2 / math.pi), rel=1e-14), 0.0)
    assert L2Ball(radius=2, dim=2).gaussian_width()[0] == pytest.approx(2 * math.sqrt(math.pi / 2), rel=1e-14)
    assert L2Ball(radius=1, dim=3).gaussian_width()[0] == pytest.approx(2 * math.sqrt(2 / math.pi), rel=1e-14)
    # E max |g_i|: p = 1 is E|g|; p = 2 uses max(|a|, |b|) = (|a + b| + |a - b|) / 2 -> 2 / sqrt(pi)
    assert L1Ball(radius=1, dim=1).gaussian_width()[0] == pytest.approx(math.sqrt(2 / math.pi), rel=1e-12)
    assert L1Ball(radius=3, dim=2).gaussian_width()[0] == pytest.approx(3 * 2 / sqpi, rel=1e-12)
    # E max g_i: 1 / sqrt(pi) for p = 2 and 3 / (2 sqrt(pi)) for p = 3
    assert Simplex(dim=2).gaussian_width()[0] == pytest.approx(1 / sqpi, rel=1e-12)
    assert Simplex(dim=3, scale=2).gaussian_width()[0] == pytest.approx(2 * 3 / (2 * sqpi), rel=1e-12)
    assert Simplex(dim=1).gaussian_width() == (0.0, 0.0)
    # Box: E max(l g, u g) by quadrature, per coordinate
    box = Box(lower=[-1.0, 0.5], upper=[2.0, 0.75])
    quad = sum(
        integrate.quad(lambda t, lo=lo, hi=hi: max(lo * t, hi * t) * stats.norm.pdf(t), -np.inf, np.inf)[0]
        for lo, hi in zip(box.lower, box.upper)
    )
    assert box.gaussian_width()[0] == pytest.approx(quad, rel=1e-9)


def test_gaussian_width_closed_forms_against_monte_carlo():
    """Independent Monte Carlo (numpy, seeded) with 200 000 draws; tolerance 5 standard errors:
    false-alarm rate about 6e-7 per comparison (normal approximation), 4 comparisons."""
    rng = np.random.default_rng(20240601)
    p = 40
    g = rng.standard_normal((200_000, p))
    checks = [
        (L2Ball(radius=1.5, dim=p), 1.5 * np.linalg.norm(g, axis=1)),
        (L1Ball(radius=2.0, dim=p), 2.0 * np.abs(g).max(1)),
        (Simplex(dim=p, scale=0.5), 0.5 * g.max(1)),
        (Cube(half_width=0.3, dim=p), 0.3 * np.abs(g).sum(1)),
    ]
    for dom, values in checks:
        exact, err = dom.gaussian_width()
        se = values.std(ddof=1) / math.sqrt(values.size)
        assert err < 1e-10
        assert abs(values.mean() - exact) <= 5 * se, dom


def test_gaussian_width_monte_carlo_error_bars_cover():
    """200 seeded Monte Carlo estimates with 400 draws each: the nominal 95% intervals
    (estimate +- 1.96 se) must cover the closed form between 176 and 200 times. Under correct
    error bars the count is ~Binomial(200, 0.95); P(count < 176) is about 1e-5 (the false-alarm
    rate); a standard error off by a factor 2 gives about 137 covers and is caught."""
    dom = L1Ball(radius=1.0, dim=5)
    exact = dom.gaussian_width()[0]
    covered = 0
    for seed in range(200):
        est, se = dom.gaussian_width(samples=400, rng=seed)
        covered += abs(est - exact) <= 1.96 * se
    assert 176 <= covered <= 200


def test_polytope_width_by_monte_carlo_matches_box_closed_form():
    """Monte Carlo width of the polytope with the box's vertices vs the box closed form, within
    4.5 standard errors (false-alarm rate about 7e-6)."""
    box = Box(lower=[-1.0, 0.0, 0.5], upper=[1.0, 2.0, 1.0])
    poly = Polytope(vertices=_box_vertices(box))
    est, se = poly.gaussian_width(samples=20_000, rng=3)
    assert se > 0
    assert abs(est - box.gaussian_width()[0]) <= 4.5 * se
    inter_est, inter_se = Intersection(box, L2Ball(radius=10.0, dim=3)).gaussian_width(samples=500, rng=4)
    # the ball does not cut the box, so this is the box's width again (4.5 se)
    assert abs(inter_est - box.gaussian_width()[0]) <= 4.5 * inter_se


def test_gaussian_width_tape_replay():
    dom = Polytope(vertices=[[0.0, 1.0], [1.0, 0.0], [-1.0, -1.0]])
    rec = Recorder(rng=9)
    first = dom.gaussian_width(samples=50, noise=rec)
    again = dom.gaussian_width(samples=50, noise=rec.tape.replay())
    assert first == again
    assert rec.tape.entries[0].label == "gaussian width g"
    assert dom.gaussian_width(samples=50, rng=9) == first
    with pytest.raises(TypeError):
        dom.gaussian_width(samples=50, rng=1, noise=rec)


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, error, match",
    [
        (lambda: L2Ball(radius=-1.0, dim=2), ParameterError, r"radius \(-1.0\) must be > 0"),
        (lambda: L2Ball(radius=float("nan"), dim=2), ParameterError, "radius"),
        (lambda: L2Ball(radius=math.inf, dim=2), ParameterError, "radius"),
        (lambda: L2Ball(radius="1", dim=2), TypeError, "radius"),
        (lambda: L2Ball(radius=True, dim=2), TypeError, "radius"),
        (lambda: L2Ball(radius=1.0, dim=0), ParameterError, r"dim \(0\) must be >= 1"),
        (lambda: L2Ball(radius=1.0, dim=1.5), TypeError, "dim"),
        (lambda: L2Ball(radius=1.0, dim=2, center=[0.0]), ParameterError, "center"),
        (lambda: L2Ball(radius=1.0, dim=2, center=[0.0, np.nan]), ParameterError, "center"),
        (lambda: L2Ball(radius=1.0, dim=2, center=["a", "b"]), TypeError, "center"),
        (lambda: L1Ball(radius=0.0, dim=2), ParameterError, "radius"),
        (lambda: Box(lower=[0.0, 1.0], upper=[1.0, 1.0]), ParameterError, r"lower\[1\] \(1.0\) must be < upper\[1\] \(1.0\)"),
        (lambda: Box(lower=[0.0], upper=[1.0, 2.0]), ParameterError, "same length"),
        (lambda: Box(lower=[[0.0]], upper=[[1.0]]), ParameterError, "1-D"),
        (lambda: Box(lower=[0.0, -np.inf], upper=[1.0, 1.0]), ParameterError, "finite"),
        (lambda: Box(lower=[False], upper=[True]), TypeError, "boolean"),
        (lambda: Cube(half_width=-2, dim=2), ParameterError, "half_width"),
        (lambda: Simplex(dim=2, scale=0.0), ParameterError, r"scale \(0.0\) must be > 0"),
        (lambda: Polytope(vertices=[1.0, 2.0]), ParameterError, "2-D"),
        (lambda: Polytope(vertices=np.zeros((0, 2))), ParameterError, "2-D"),
        (lambda: Polytope(vertices=[[1.0, np.nan]]), ParameterError, "finite"),
        (lambda: Polytope(vertices=[[1.0, 2j]]), TypeError, "real"),
        (lambda: Polytope(vertices=None), TypeError, "vertices"),
        (lambda: Rp(dim=-1), ParameterError, "dim"),
        (lambda: Intersection(Box(lower=[0], upper=[1]), tol=0.0), ParameterError, "tol"),
    ],
)
def test_constructors_reject_bad_input(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_simplex_scale_error_is_not_a_privacy_error():
    from spec.errors import PrivacyParameterError

    with pytest.raises(ParameterError) as info:
        Simplex(dim=2, scale=-1.0)
    assert not isinstance(info.value, PrivacyParameterError)


@pytest.mark.parametrize(
    "dom",
    [L2Ball(radius=1.0, dim=2), L1Ball(radius=1.0, dim=2), Box(lower=[0, 0], upper=[1, 1]), Simplex(dim=2),
     Polytope(vertices=[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), Rp(dim=2),
     Intersection(Box(lower=[-1, -1], upper=[1, 1]), L2Ball(radius=1.2, dim=2))],
)
def test_methods_reject_bad_points(dom):
    for method in (dom.project, dom.contains, dom.gauge, dom.support, dom.distance):
        with pytest.raises(ParameterError, match=r"shape \(\.\.\., 2\)"):
            method([1.0, 2.0, 3.0])
        with pytest.raises(ParameterError, match="finite"):
            method([np.nan, 0.0])
        with pytest.raises(ParameterError, match="finite"):
            method([np.inf, 0.0])
        with pytest.raises(TypeError):
            method("ab")
        with pytest.raises(TypeError):
            method([True, False])
        with pytest.raises(ParameterError):
            method(1.0)
    with pytest.raises(ParameterError, match="center"):
        dom.gauge([0.0, 0.0], center=[5.0, 5.0] if dom.bounded else [0.0])
    with pytest.raises(ParameterError, match="tol"):
        dom.contains([0.0, 0.0], tol=-1.0)
    with pytest.raises(ParameterError, match="samples"):
        dom.gaussian_width(samples=1, rng=0)
    assert isinstance(dom, Domain)


def test_ball_radius_is_the_parameter_and_max_norm_the_largest_norm():
    ball = L2Ball(radius=1, dim=2, center=[3, 0])
    assert ball.radius == 1.0 and ball.max_norm == 4.0
    assert L1Ball(radius=2, dim=3).radius == 2.0 == L1Ball(radius=2, dim=3).max_norm
    assert not hasattr(Box(lower=[0, 0], upper=[1, 1]), "radius")  # a box has no radius
