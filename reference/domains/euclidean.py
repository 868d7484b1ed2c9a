"""The whole space R^p (unconstrained problems).
"""

from __future__ import annotations

import math

import numpy as np

from reference.domains.base import Domain
from spec.errors import ParameterError


class Rp(Domain):
    """The whole space R^p (no constraint).

    Projection: identity. Gauge: 0. Support: 0 at y = 0, +inf otherwise. LMO: defined only
    for g = 0 (returns 0); any other g raises :class:`~spec.errors.ParameterError` (the linear
    function is unbounded below). Diameter, radius and Gaussian width: +inf.
    """

    def __init__(self, *, dim: int) -> None:
        super().__init__(dim)

    def __repr__(self) -> str:
        return f"Rp(dim={self.dim})"

    @property
    def diameter(self) -> float:
        return math.inf

    @property
    def max_norm(self) -> float:
        return math.inf

    @property
    def symmetric(self) -> bool:
        return True

    def interior_point(self) -> np.ndarray:
        return np.zeros(self.dim)

    def _project(self, x):
        return x.copy()

    def _contains(self, x, tol):
        return np.ones(x.shape[:-1], dtype=bool)

    def _gauge(self, d, c):
        return np.zeros(d.shape[:-1])

    def _support(self, y):
        return np.where(np.any(y != 0, axis=-1), np.inf, 0.0)

    def _lmo(self, g):
        if np.any(g != 0):
            raise ParameterError("g (nonzero) must be 0: a linear function is unbounded below on R^p")
        return np.zeros_like(g)

    def _coordinate_bounds(self):
        return np.full(self.dim, -np.inf), np.full(self.dim, np.inf)

    def _gaussian_width_exact(self):
        return math.inf, 0.0
