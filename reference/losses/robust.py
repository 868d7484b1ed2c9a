"""Robust, non-convex losses: :class:`Welsch` (robust location estimation) and :class:`Cauchy`
(robust regression).
"""

from __future__ import annotations

import mpmath
import numpy as np

from reference.arrays import l2_norm as _norm
from reference.losses.base import Loss, LossConstants, _check_norm, _mp, _up
from reference.losses.linear_predictors import _LinearPredictorLoss
from spec import validate

__all__ = ["Welsch", "Cauchy"]


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


class Cauchy(_LinearPredictorLoss):
    r"""Cauchy (Lorentzian) regression loss ``(c^2/2) ln(1 + ((<theta, x> - y)/c)^2)``.

    A smooth, Lipschitz, non-convex robust loss of the residual ``r = <theta, x> - y``: quadratic
    near 0 (``r^2/2 + O(r^4)``), logarithmic for large residuals, so outliers have bounded
    influence.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.
    scale : float
        c > 0, where the loss turns from quadratic to logarithmic.
    label_bound : float, optional
        Bound on ``|y|`` (rows beyond it are rejected). The constants below do not depend on it;
        ``None`` accepts every finite label.

    Constants
    ---------
    With ``phi(r) = (c^2/2) ln(1 + r^2/c^2)``: ``phi'(r) = r / (1 + r^2/c^2)`` and
    ``phi''(r) = (1 - s)/(1 + s)^2``, ``s = r^2/c^2``. The gradient is ``phi'(r) x`` and the
    Hessian ``phi''(r) x x^T``.

    * Lipschitz ``L = X c/2``: ``|phi'|`` is largest at ``|r| = c`` (``d/dr phi' = phi'' = 0`` iff
      ``s = 1``), where it is ``c/2``; attained (any residual occurs for some theta in R^p).
    * Smoothness ``beta = X^2``: ``d phi''/ds = (s - 3)/(1 + s)^3``, so ``phi''`` decreases from 1
      (``s = 0``) to ``-1/8`` (``s = 3``) and then rises to 0: ``max |phi''| = 1``, attained at
      ``r = 0``.
    * ``convex = False`` (``phi'' < 0`` for ``|r| > c``); strong convexity 0 (no claim).

    The constants hold on all of R^p (no ``domain_radius``).
    """

    supervised = True
    convex = False

    def __init__(self, *, feature_norm: float, scale: float, label_bound: float | None = None) -> None:
        self.feature_norm = validate.positive("feature_norm", feature_norm)
        self.scale = validate.positive("scale", scale)
        self.label_bound = None if label_bound is None else validate.nonnegative("label_bound", label_bound)

    def __repr__(self) -> str:
        return (f"Cauchy(feature_norm={self.feature_norm!r}, scale={self.scale!r}, "
                f"label_bound={self.label_bound!r})")

    @property
    def constants(self) -> LossConstants:
        X, c = _mp(self.feature_norm), _mp(self.scale)
        lip = _up(lambda: X * c / 2)
        beta = _up(lambda: X**2 * mpmath.mpf(1))
        return LossConstants(lipschitz=lip, smoothness=beta, strong_convexity=0.0)

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.feature_norm, "||x||_2", "feature_norm")
        if self.label_bound is not None:
            _check_norm(np.abs(y), self.label_bound, "|y|", "label_bound")

    def _phi(self, m, y):
        c = self.scale
        return 0.5 * c * c * np.log1p(((m - y) / c) ** 2)

    def _dphi(self, m, y):
        r = m - y
        return r / (1.0 + (r / self.scale) ** 2)
