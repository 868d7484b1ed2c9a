"""The l2 ball and the l1 ball (cross-polytope).
"""

from __future__ import annotations

import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import l2_norm as _norm
from reference.arrays import vector as _vector
from reference.domains.base import (
    Domain,
    _expected_gaussian_norm,
    _expected_max_abs_gaussian,
    _safe_div,
)
from spec import validate


class L2Ball(Domain):
    """The Euclidean ball {x : ||x - center||_2 <= radius}.

    Parameters
    ----------
    radius : float
        > 0, finite.
    dim : int
        >= 1.
    center : array_like, shape (dim,), optional
        Default: the origin.

    Notes
    -----
    Gauge about c (with u = c - center, k = radius^2 - ||u||^2 >= 0, d = x - c): the smallest
    r with ||u + d / r|| <= radius is ``(<u, d> + sqrt(<u, d>^2 + ||d||^2 k)) / k``; about the
    centre it is ``||d|| / radius``. Support: ``<center, y> + radius ||y||``. LMO: ``center -
    radius g / ||g||`` (``center`` for g = 0). Gaussian width: ``radius sqrt(2)
    Gamma((p+1)/2) / Gamma(p/2)``.
    """

    def __init__(self, *, radius: float, dim: int, center: ArrayLike | None = None) -> None:
        super().__init__(dim)
        self._r = validate.positive("radius", radius)
        self._c = np.zeros(self.dim) if center is None else _vector("center", center, self.dim)
        # centred at +0.0 in every coordinate: x - center is x, bit for bit (-0.0 would turn -0.0 to +0.0)
        self._at_origin = not (np.any(self._c) or np.any(np.signbit(self._c)))

    def __repr__(self) -> str:
        if np.any(self._c):
            return f"L2Ball(radius={self._r!r}, dim={self.dim}, center={self._c.tolist()})"
        return f"L2Ball(radius={self._r!r}, dim={self.dim})"

    @property
    def radius(self) -> float:
        """The radius parameter of the ball (:attr:`max_norm` is the largest norm of a point)."""
        return self._r

    @property
    def center(self) -> np.ndarray:
        return self._c.copy()

    @property
    def diameter(self) -> float:
        return 2.0 * self._r

    @property
    def max_norm(self) -> float:
        return float(np.linalg.norm(self._c)) + self._r

    @property
    def symmetric(self) -> bool:
        return not np.any(self._c)

    def interior_point(self) -> np.ndarray:
        return self._c.copy()

    def _project(self, x):
        d = x if self._at_origin else x - self._c
        n = _norm(d)[..., None]
        # r / max(n, r): r / n outside the ball, exactly 1.0 inside (r / r), no division by zero
        return self._c + d * (self._r / np.maximum(n, self._r))

    def _contains(self, x, tol):
        return _norm(x - self._c) <= self._r + tol

    def _gauge(self, d, c):
        u = c - self._c
        k = max(self._r**2 - float(u @ u), 0.0)
        # work with the unit direction e = d / ||d||: the gauge is ||d|| times the gauge of e,
        # which keeps tiny and huge d from underflowing or overflowing when squared
        n = _norm(d)
        e = d / np.where(n > 0, n, 1.0)[..., None]
        b = e @ u
        if k > 0:
            return n * (b + np.sqrt(b * b + k)) / k
        # centre on the sphere: the ray stays in the ball only for <u, e> < 0, up to
        # t = -2 <u, e> / ||d||, so the gauge is ||d|| / (-2 <u, e>).
        return np.where(n > 0, n * _safe_div(np.ones_like(b), -2.0 * b), 0.0)

    def _support(self, y):
        return y @ self._c + self._r * _norm(y)

    def _lmo(self, g):
        n = _norm(g)[..., None]
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(n > 0, g / np.where(n > 0, n, 1.0), 0.0)
        return self._c - self._r * step

    def _coordinate_bounds(self):
        return self._c - self._r, self._c + self._r

    def _gaussian_width_exact(self):
        return self._r * _expected_gaussian_norm(self.dim), 0.0


class L1Ball(Domain):
    """The l1 ball {x : ||x||_1 <= radius} (the cross-polytope), centred at the origin.

    Projection is exact by the sort-based soft-thresholding method: for ||x||_1 > radius,
    ``P x = sign(x) max(|x| - theta, 0)`` with theta the unique value making the l1 norm equal
    to radius, found from the sorted magnitudes. Gauge about 0: ``||x||_1 / radius``; about
    another centre c it is computed exactly from the piecewise-linear function
    ``t -> ||c + t d||_1``. Support: ``radius ||y||_inf`` (the dual norm). LMO: ``-radius
    sign(g_j) e_j`` at the first index j maximising |g_j| (``radius e_0`` for g = 0, so the
    result is always a vertex). Gaussian width: ``radius E max_i |g_i|`` by quadrature.
    """

    def __init__(self, *, radius: float, dim: int) -> None:
        super().__init__(dim)
        self._r = validate.positive("radius", radius)

    def __repr__(self) -> str:
        return f"L1Ball(radius={self._r!r}, dim={self.dim})"

    @property
    def radius(self) -> float:
        """The radius parameter: the ball is {x : ||x||_1 <= radius}."""
        return self._r

    @property
    def diameter(self) -> float:
        return 2.0 * self._r

    @property
    def max_norm(self) -> float:
        return self._r

    @property
    def symmetric(self) -> bool:
        return True

    def interior_point(self) -> np.ndarray:
        return np.zeros(self.dim)

    def _project(self, x):
        return _project_l1(x, self._r)

    def _gauge(self, d, c):
        if not np.any(c):
            return np.abs(d).sum(-1) / self._r
        return _l1_gauge_about(d, c, self._r)

    def _support(self, y):
        return self._r * np.abs(y).max(-1)

    def _lmo(self, g):
        j = np.abs(g).argmax(-1)
        gj = np.take_along_axis(g, j[..., None], -1)[..., 0]
        sign = np.where(gj > 0, -1.0, 1.0)
        out = np.zeros_like(g)
        np.put_along_axis(out, j[..., None], (sign * self._r)[..., None], -1)
        return out

    def _coordinate_bounds(self):
        return np.full(self.dim, -self._r), np.full(self.dim, self._r)

    def _gaussian_width_exact(self):
        value, err = _expected_max_abs_gaussian(self.dim)
        return self._r * value, self._r * err


def _project_l1(x: np.ndarray, r: float) -> np.ndarray:
    a = np.abs(x)
    inside = a.sum(-1) <= r
    theta = _threshold(a, r)
    out = np.sign(x) * np.maximum(a - theta[..., None], 0.0)
    return np.where(inside[..., None], x, out)


def _threshold(v: np.ndarray, total: float) -> np.ndarray:
    """theta with sum_i max(v_i - theta, 0) = total (v sorted internally; the sort-based rule).

    With u the entries sorted in decreasing order and S_j their partial sums, the condition
    u_j > (S_j - total) / j holds exactly for j <= rho, and theta = (S_rho - total) / rho.
    """
    p = v.shape[-1]
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1)
    j = np.arange(1, p + 1)
    cond = u - (css - total) / j > 0
    # the last index where the condition holds (it holds for j = 1 whenever sum(v) > total)
    rho = p - np.argmax(cond[..., ::-1], axis=-1)
    s = np.take_along_axis(css, (rho - 1)[..., None], -1)[..., 0]
    return (s - total) / rho


def _l1_gauge_about(d: np.ndarray, c: np.ndarray, r: float) -> np.ndarray:
    """Gauge about c of c + d for the l1 ball of radius r, exactly.

    f(t) = ||c + t d||_1 is convex and piecewise linear with breakpoints b_i = -c_i / d_i; for
    t > 0 its slope is sum_i |d_i| sgn(t - b_i), increasing by 2 |d_i| at each positive
    breakpoint. We walk the sorted positive breakpoints to the first one where f exceeds r and
    solve the linear piece before it for t* = sup{t >= 0 : f(t) <= r}; the gauge is 1 / t*.
    """
    shape = d.shape[:-1]
    d2 = d.reshape(-1, d.shape[-1])
    ad = np.abs(d2)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(d2 != 0, -c / np.where(d2 != 0, d2, 1.0), -np.inf)
    positive = b > 0
    f0 = float(np.abs(c).sum())
    s0 = np.where(positive, -ad, ad).sum(-1)
    bp = np.where(positive, b, np.inf)
    order = np.argsort(bp, axis=-1)
    bs = np.take_along_axis(bp, order, -1)
    ws = np.take_along_axis(np.where(positive, ad, 0.0), order, -1)
    m = bs.shape[0]
    # prepend t = 0, append t = inf (the last, unbounded piece)
    bs = np.concatenate([np.zeros((m, 1)), bs, np.full((m, 1), np.inf)], axis=1)
    slopes = s0[:, None] + 2.0 * np.concatenate([np.zeros((m, 1)), np.cumsum(ws, -1)], axis=1)
    with np.errstate(invalid="ignore"):
        steps = np.diff(bs, axis=1)
        steps = np.where(np.isfinite(steps), steps, 0.0)
    fvals = f0 + np.concatenate([np.zeros((m, 1)), np.cumsum(slopes * steps, -1)], axis=1)
    finite = np.isfinite(bs)
    exceed = ~finite | (fvals > r)
    exceed[:, 0] = False  # f(0) = ||c||_1 <= r (c is in C)
    k = np.argmax(exceed, axis=1)  # first breakpoint beyond t*, >= 1
    rows = np.arange(m)
    t0, f_prev, s_prev = bs[rows, k - 1], fvals[rows, k - 1], slopes[rows, k - 1]
    room = np.maximum(r - f_prev, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        tstar = np.where(s_prev > 0, t0 + room / np.where(s_prev > 0, s_prev, 1.0), np.inf)
    zero = ~np.any(d2 != 0, axis=-1)
    gauge = np.where(zero, 0.0, _safe_div(np.ones(m), tstar))
    return gauge.reshape(shape)
