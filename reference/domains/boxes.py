"""Axis-aligned boxes and cubes.
"""

from __future__ import annotations

import math

import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import vector as _vector
from reference.domains.base import Domain, _dim, _safe_div
from spec import validate
from spec.errors import ParameterError


class Box(Domain):
    """The axis-aligned box {x : lower <= x <= upper} (coordinatewise, lower < upper).

    Projection: coordinatewise clipping. Gauge about c: ``max_i max(d_i / (upper_i - c_i),
    d_i / (lower_i - c_i), 0)`` with d = x - c. Support: ``sum_i max(lower_i y_i, upper_i
    y_i)``. LMO: ``upper_i`` where g_i < 0, else ``lower_i`` (a vertex). Gaussian width:
    ``sum_i (upper_i - lower_i) / sqrt(2 pi)``.
    """

    def __init__(self, *, lower: ArrayLike, upper: ArrayLike) -> None:
        lo = _vector("lower", lower)
        hi = _vector("upper", upper)
        if lo.shape != hi.shape:
            raise ParameterError(f"lower (length {lo.size}) and upper (length {hi.size}) must have the same length")
        bad = np.flatnonzero(~(lo < hi))
        if bad.size:
            i = int(bad[0])
            raise ParameterError(f"lower[{i}] ({float(lo[i])!r}) must be < upper[{i}] ({float(hi[i])!r})")
        super().__init__(lo.size)
        self._lo, self._hi = lo, hi

    def __repr__(self) -> str:
        return f"Box(lower={self._lo.tolist()}, upper={self._hi.tolist()})"

    @property
    def lower(self) -> np.ndarray:
        return self._lo.copy()

    @property
    def upper(self) -> np.ndarray:
        return self._hi.copy()

    @property
    def diameter(self) -> float:
        return float(np.linalg.norm(self._hi - self._lo))

    @property
    def max_norm(self) -> float:
        return float(np.linalg.norm(np.maximum(np.abs(self._lo), np.abs(self._hi))))

    @property
    def symmetric(self) -> bool:
        return bool(np.array_equal(self._lo, -self._hi))

    def interior_point(self) -> np.ndarray:
        return (self._lo + self._hi) / 2

    def _project(self, x):
        return np.clip(x, self._lo, self._hi)

    def _gauge(self, d, c):
        up = _safe_div(np.maximum(d, 0.0), self._hi - c)
        down = _safe_div(np.maximum(-d, 0.0), c - self._lo)
        return np.maximum(up, down).max(-1)

    def _support(self, y):
        return np.maximum(y * self._lo, y * self._hi).sum(-1)

    def _lmo(self, g):
        return np.where(g < 0, self._hi, self._lo)

    def _coordinate_bounds(self):
        return self._lo, self._hi

    def _gaussian_width_exact(self):
        return float((self._hi - self._lo).sum() / math.sqrt(2 * math.pi)), 0.0


class Cube(Box):
    """The cube {x : ||x - center||_inf <= half_width} (a :class:`Box`).

    Parameters
    ----------
    half_width : float
        > 0.
    dim : int
    center : array_like, shape (dim,), optional
        Default: the origin (then the gauge about 0 is ||x||_inf / half_width).
    """

    def __init__(self, *, half_width: float, dim: int, center: ArrayLike | None = None) -> None:
        h = validate.positive("half_width", half_width)
        p = _dim(dim)
        c = np.zeros(p) if center is None else _vector("center", center, p)
        super().__init__(lower=c - h, upper=c + h)
        self._h, self._center_point = h, c

    def __repr__(self) -> str:
        if np.any(self._center_point):
            return f"Cube(half_width={self._h!r}, dim={self.dim}, center={self._center_point.tolist()})"
        return f"Cube(half_width={self._h!r}, dim={self.dim})"
