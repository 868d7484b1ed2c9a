"""Robust, non-convex losses: :class:`Welsch` (robust location estimation).
"""

from __future__ import annotations

import mpmath
import numpy as np

from reference.arrays import l2_norm as _norm
from reference.losses.base import Loss, LossConstants, _check_norm, _mp, _up
from spec import validate

__all__ = ["Welsch"]


class Welsch(Loss):
    r"""Welsch (Leclerc) location loss ``l(theta; d) = (c^2/2) (1 - exp(-||theta - d||^2 / c^2))``.

    A smooth, bounded, non-convex loss on points ``d`` of R^p with ``||d||_2 <= data_norm``: the
    robust M-estimator of a location (redescending influence ``(theta - d) exp(-r^2/c^2)``).

    Parameters
    ----------
    scale : float
        c > 0, the residual norm at which the loss bends.
    data_norm : float
        Bound B on ``||d||_2``; > 0 (the constants below do not depend on it; it bounds the
        loss at ``theta = 0``: :func:`reference.losses.origin_value_bound`).

    Constants (on all of R^p)
    -------------------------
    Write ``r = ||theta - d||`` and ``s = r^2/c^2``; the gradient is ``(theta - d) e^{-s}`` and
    the Hessian ``e^{-s} (I - 2 (theta - d)(theta - d)^T / c^2)``, with eigenvalues ``e^{-s}``
    (directions orthogonal to ``theta - d``) and ``e^{-s} (1 - 2 s)`` (along it).

    * Lipschitz ``L = c / sqrt(2 e)``: ``||grad|| = r e^{-r^2/c^2}`` is maximal at
      ``r = c/sqrt 2`` (derivative ``e^{-s}(1 - 2 s)``), where it is ``(c/sqrt 2) e^{-1/2}``.
    * Smoothness ``beta = 1``: ``|e^{-s}| <= 1`` and ``|e^{-s}(1 - 2 s)| <= 1`` (its extremes are
      1 at ``s = 0`` and ``-2 e^{-3/2} = -0.446`` at ``s = 3/2``); attained at ``theta = d``.
    * ``convex = False`` (the radial eigenvalue is negative for ``r > c/sqrt 2``); strong
      convexity 0 (no claim).

    Values lie in ``[0, c^2/2)`` (``c^2/2`` itself once ``exp`` underflows, far from the data).
    """

    supervised = False
    convex = False

    def __init__(self, *, scale: float, data_norm: float) -> None:
        self.scale = validate.positive("scale", scale)
        self.data_norm = validate.positive("data_norm", data_norm)

    def __repr__(self) -> str:
        return f"Welsch(scale={self.scale!r}, data_norm={self.data_norm!r})"

    @property
    def constants(self) -> LossConstants:
        lip = _up(lambda: _mp(self.scale) / mpmath.sqrt(2 * mpmath.e))
        return LossConstants(lipschitz=lip, smoothness=1.0, strong_convexity=0.0)

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.data_norm, "||d||_2", "data_norm")

    def _value(self, theta, x, y):
        diff = theta - x
        c2 = self.scale * self.scale
        # -expm1 keeps the relative accuracy of small values (theta near d)
        return -0.5 * c2 * np.expm1(-np.sum(diff * diff, axis=-1) / c2)

    def _gradient(self, theta, x, y):
        diff = theta - x
        weight = np.exp(-np.sum(diff * diff, axis=-1) / (self.scale * self.scale))
        return weight[..., None] * diff
