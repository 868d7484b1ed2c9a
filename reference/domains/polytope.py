"""The convex hull of finitely many points (Wolfe's minimum-norm-point projection).
"""

from __future__ import annotations

import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import finite as _finite
from reference.arrays import l2_norm as _norm
from reference.arrays import real_array as _numeric_array
from reference.domains.base import Domain, _safe_div
from spec.errors import ParameterError


class Polytope(Domain):
    """The convex hull of finitely many points (``vertices``, shape ``(m, p)``).

    Projection: Wolfe's minimum-norm-point algorithm on the points ``v_j - x`` (an active-set
    method that terminates finitely in exact arithmetic; here it stops when the Frank-Wolfe
    gap of 1/2 ||.||^2 is below ``1e-14 max_j ||v_j - x||^2`` or no vertex improves, and the
    final affine solve makes the result exact up to rounding on the identified face).
    Membership: projection distance ``<= tol``. Support: ``max_j <v_j, y>`` (exact). LMO: the
    first vertex minimising ``<g, v_j>``. Diameter and radius: over the vertices (exact).

    Gauge about c (default: the mean of the points, which lies in the relative interior of
    the hull): from the facet inequalities ``a_k . x <= b_k`` of Qhull when the hull is
    full-dimensional and p <= 6, ``max_k max(0, a_k . d / (b_k - a_k . c))``; otherwise
    ``||d||`` times the value of the linear programme ``min 1'mu s.t. sum_j mu_j (v_j - c) =
    d / ||d||, mu >= 0`` (HiGHS, tolerances 1e-10), +inf when it is infeasible or its solution
    does not represent the direction to 1e-9 (relative). Gaussian width: Monte Carlo.
    """

    exact_projection = False

    def __init__(self, *, vertices: ArrayLike) -> None:
        arr = _numeric_array("vertices", vertices)
        if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ParameterError(f"vertices (shape {arr.shape}) must be a 2-D array (m, p) with m, p >= 1")
        _finite("vertices", arr)
        super().__init__(arr.shape[1])
        self._v = arr.copy()
        self._v.setflags(write=False)
        self._facets = None  # lazily: (A, b) with A x <= b, or False when unavailable
        self._symmetric = None

    def __repr__(self) -> str:
        return f"Polytope(vertices=<{self._v.shape[0]} points in R^{self.dim}>)"

    @property
    def vertices(self) -> np.ndarray:
        return self._v.copy()

    @property
    def diameter(self) -> float:
        v = self._v
        sq = np.einsum("ij,ij->i", v, v)
        d2 = sq[:, None] + sq[None, :] - 2 * v @ v.T
        i, j = np.unravel_index(np.argmax(d2), d2.shape)
        return float(np.linalg.norm(v[i] - v[j]))

    @property
    def max_norm(self) -> float:
        return float(_norm(self._v).max())

    @property
    def symmetric(self) -> bool:
        if self._symmetric is None:
            self._symmetric = bool(np.all(self._contains(-self._v, self._default_tol())))
        return self._symmetric

    def interior_point(self) -> np.ndarray:
        return self._v.mean(0)

    def _project(self, x):
        flat = x.reshape(-1, self.dim)
        out = np.empty_like(flat)
        for k, point in enumerate(flat):
            out[k] = _min_norm_point(self._v - point) + point
        return out.reshape(x.shape)

    def _support(self, y):
        return (y @ self._v.T).max(-1)

    def _lmo(self, g):
        j = (g @ self._v.T).argmin(-1)
        return self._v[j]

    def _coordinate_bounds(self):
        return self._v.min(0), self._v.max(0)

    def _halfspaces(self):
        if self._facets is None:
            self._facets = False
            p = self.dim
            if p == 1:
                lo, hi = float(self._v.min()), float(self._v.max())
                if hi > lo:
                    self._facets = (np.array([[1.0], [-1.0]]), np.array([hi, -lo]))
            elif p <= 6 and self._v.shape[0] > p:
                from scipy.spatial import ConvexHull, QhullError

                try:
                    hull = ConvexHull(self._v)
                    self._facets = (hull.equations[:, :-1].copy(), -hull.equations[:, -1].copy())
                except (QhullError, ValueError):
                    self._facets = False
        return self._facets

    def _gauge(self, d, c):
        facets = self._halfspaces()
        if facets is not False:
            a, b = facets
            slack = np.maximum(b - a @ c, 0.0)
            return np.maximum(_safe_div(d @ a.T, slack).max(-1), 0.0)
        from scipy.optimize import linprog

        flat = d.reshape(-1, self.dim)
        w = (self._v - c).T  # (p, m)
        wscale = max(float(np.abs(w).max(initial=0.0)), 1e-300)
        out = np.empty(flat.shape[0])
        for k, dk in enumerate(flat):
            n = float(_norm(dk))
            if n == 0.0:
                out[k] = 0.0
                continue
            # the gauge is positively homogeneous: solve for the unit direction (the LP
            # solver's tolerances are absolute), then check the representation ourselves, so a
            # direction off a degenerate hull is never accepted within the solver's tolerance
            e = dk / n
            res = linprog(
                np.ones(w.shape[1]), A_eq=w, b_eq=e, bounds=(0, None), method="highs",
                options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
            )
            ok = res.status == 0 and float(_norm(w @ res.x - e)) <= 1e-9 * (1.0 + wscale * float(res.x.sum()))
            out[k] = n * float(res.x.sum()) if ok else np.inf
        return out.reshape(d.shape[:-1])

    def _gaussian_width_exact(self):
        if self._v.shape[0] == 1:
            return 0.0, 0.0
        return None


def _affine_minimiser(points: np.ndarray) -> np.ndarray:
    """Weights w (sum 1) of the minimum-norm point of the affine hull of the rows of points."""
    base = points[0]
    if points.shape[0] == 1:
        return np.ones(1)
    diff = (points[1:] - base).T  # (p, k-1)
    alpha, *_ = np.linalg.lstsq(diff, -base, rcond=None)
    return np.concatenate([[1.0 - alpha.sum()], alpha])


def _min_norm_point(points: np.ndarray, *, max_iterations: int = 10_000) -> np.ndarray:
    """Wolfe's algorithm: the point of least Euclidean norm in the convex hull of the rows."""
    sq = np.einsum("ij,ij->i", points, points)
    scale = float(sq.max())
    if scale == 0.0:
        return np.zeros(points.shape[1])
    active = [int(np.argmin(sq))]
    w = np.ones(1)
    x = points[active[0]].copy()
    for _ in range(max_iterations):
        dots = points @ x
        j = int(np.argmin(dots))
        # Frank-Wolfe gap of 1/2 ||.||^2: ||x||^2 - min_j <x, p_j> >= 1/2 (||x||^2 - ||x*||^2)
        if x @ x - dots[j] <= 1e-14 * scale or j in active:
            return x
        active.append(j)
        w = np.append(w, 0.0)
        while True:  # minor cycle: move to the affine minimiser, staying in the hull
            v = _affine_minimiser(points[active])
            if np.all(v > 1e-15):
                w = v
                break
            neg = v <= 1e-15
            den = w - v
            ratios = np.where(neg, w / np.where(den > 0, den, 1.0), np.inf)
            ratios = np.where(neg & ~(den > 0), 0.0, ratios)
            drop = int(np.argmin(ratios))
            theta = float(np.clip(ratios[drop], 0.0, 1.0))
            if theta == 0.0 and drop == len(active) - 1:
                return x  # the new vertex cannot enter: no further progress in floating point
            w = (1 - theta) * w + theta * v
            keep = w > 1e-15
            keep[drop] = False  # drop the blocking point
            active = [a for a, k in zip(active, keep) if k]
            w = w[keep]
            w = w / w.sum()
            if len(active) == 1:
                w = np.ones(1)
                break
        x = w @ points[active]
    raise RuntimeError(f"Polytope projection did not converge within {max_iterations} iterations")
