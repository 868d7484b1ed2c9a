"""The probability simplex (scaled).
"""

from __future__ import annotations

import math

import numpy as np

from reference.domains.balls import _threshold
from reference.domains.base import _EPS, Domain, _expected_max_gaussian, _safe_div
from spec import validate
from spec.errors import ParameterError


class Simplex(Domain):
    """The scaled probability simplex {x : x >= 0, sum_i x_i = scale}.

    The simplex has empty interior in R^p (p >= 2). Its gauge is taken about the relative
    interior point ``c = scale / p * 1``: for x on the affine hull {sum x = scale} it is
    ``max(0, max_i (c_i - x_i) / c_i)`` (<= 1 iff x >= 0); **off the affine hull it is +inf**
    (no ray from c towards x stays in the set). A point counts as on the hull when
    ``|sum(x) - scale| <= max(1e-12, 4 p eps) (scale + ||x||_1)``; it is not a norm.

    Projection: exact, the sort-based method (``max(x - theta, 0)`` with sum = scale). Support:
    ``scale max_i y_i``. LMO: ``scale e_j`` at the first index minimising g. Gaussian width:
    ``scale E max_i g_i`` by quadrature.
    """

    def __init__(self, *, dim: int, scale: float = 1.0) -> None:
        super().__init__(dim)
        self._s = validate.positive("scale", scale, error=ParameterError)

    def __repr__(self) -> str:
        return f"Simplex(dim={self.dim}, scale={self._s!r})"

    @property
    def scale(self) -> float:
        return self._s

    @property
    def diameter(self) -> float:
        return self._s * math.sqrt(2.0) if self.dim > 1 else 0.0

    @property
    def max_norm(self) -> float:
        return self._s

    def interior_point(self) -> np.ndarray:
        return np.full(self.dim, self._s / self.dim)

    def _project(self, x):
        theta = _threshold(x, self._s)
        return np.maximum(x - theta[..., None], 0.0)

    def _gauge(self, d, c):
        x = c + d
        slack = max(1e-12, 4 * self.dim * _EPS) * (self._s + np.abs(x).sum(-1))
        on_hull = np.abs(x.sum(-1) - self._s) <= slack
        inner = _safe_div(np.maximum(-d, 0.0), np.broadcast_to(c, d.shape)).max(-1)
        zero = ~np.any(d != 0, axis=-1)
        return np.where(zero, 0.0, np.where(on_hull, inner, np.inf))

    def _support(self, y):
        return self._s * y.max(-1)

    def _lmo(self, g):
        j = g.argmin(-1)
        out = np.zeros_like(g)
        np.put_along_axis(out, j[..., None], self._s, -1)
        return out

    def _coordinate_bounds(self):
        if self.dim == 1:
            return np.array([self._s]), np.array([self._s])
        return np.zeros(self.dim), np.full(self.dim, self._s)

    def _gaussian_width_exact(self):
        if self.dim == 1:
            return 0.0, 0.0
        value, err = _expected_max_gaussian(self.dim)
        return self._s * value, self._s * err
