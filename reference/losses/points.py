"""Unsupervised losses on points d of R^p: :class:`Linear` and :class:`HalfSquaredDistance` (bst14's lower-bound instances).
"""

from __future__ import annotations

import numpy as np

from reference.arrays import l2_norm as _norm
from reference.losses.base import Loss, LossConstants, _check_norm, _inner, _mp, _up
from spec import validate

# --------------------------------------------------------------------------------------------
# unsupervised losses (bst14 lower-bound instances)
# --------------------------------------------------------------------------------------------


class Linear(Loss):
    r"""Linear loss ``l(theta; d) = -<theta, d>`` (bst14 Section V-A), for ``||d||_2 <= data_norm``.

    Parameters
    ----------
    data_norm : float
        Bound D on ``||d||_2``; > 0.

    Constants
    ---------
    * Lipschitz ``L = D``: the gradient is ``-d`` and ``||d|| <= D`` (attained by ``||d|| = D``).
    * Smoothness 0 (the gradient does not depend on theta); strong convexity 0. Convex.
    """

    supervised = False
    convex = True

    def __init__(self, *, data_norm: float) -> None:
        self.data_norm = validate.positive("data_norm", data_norm)

    def __repr__(self) -> str:
        return f"Linear(data_norm={self.data_norm!r})"

    @property
    def constants(self) -> LossConstants:
        return LossConstants(lipschitz=self.data_norm, smoothness=0.0, strong_convexity=0.0)

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.data_norm, "||d||_2", "data_norm")

    def _value(self, theta, x, y):
        return -_inner(theta, x)

    def _gradient(self, theta, x, y):
        if theta.shape == x.shape:  # the loops' case: no broadcasting to work out
            return np.negative(x)
        return np.negative(x, out=np.empty(np.broadcast_shapes(theta.shape, x.shape)))

    def _total(self, theta, x, y):
        return -_inner(theta, x.sum(axis=-2))

    def _total_gradient(self, theta, x, y):
        s = -x.sum(axis=-2)
        return np.broadcast_to(s, np.broadcast_shapes(theta.shape, s.shape)).copy()


class HalfSquaredDistance(Loss):
    r"""``l(theta; d) = ||theta - d||_2^2 / 2`` (bst14 Section V-B).

    Parameters
    ----------
    data_norm : float
        Bound D on ``||d||_2``; > 0.
    domain_radius : float
        Radius R of the parameter ball ``||theta||_2 <= R``; > 0.

    Constants
    ---------
    * Lipschitz ``L = R + D``: the gradient is ``theta - d``, of norm at most
      ``||theta|| + ||d|| <= R + D``, attained at ``theta = -R d/||d||`` with ``||d|| = D``.
      Note: bst14 calls this loss 1-Lipschitz on the unit ball with data of norm 1
      (``d in {-1/sqrt p, 1/sqrt p}^p``), but there the gradient norm reaches 2.
    * Smoothness 1 and strong convexity 1: the Hessian is the identity.
    """

    supervised = False
    convex = True

    def __init__(self, *, data_norm: float, domain_radius: float) -> None:
        self.data_norm = validate.positive("data_norm", data_norm)
        self.domain_radius = validate.positive("domain_radius", domain_radius)

    def __repr__(self) -> str:
        return f"HalfSquaredDistance(data_norm={self.data_norm!r}, domain_radius={self.domain_radius!r})"

    @property
    def constants(self) -> LossConstants:
        lip = _up(lambda: _mp(self.domain_radius) + _mp(self.data_norm))
        return LossConstants(lipschitz=lip, smoothness=1.0, strong_convexity=1.0)

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.data_norm, "||d||_2", "data_norm")

    def _value(self, theta, x, y):
        diff = theta - x
        return 0.5 * np.sum(diff * diff, axis=-1)

    def _gradient(self, theta, x, y):
        return theta - x

    def _total(self, theta, x, y):
        # sum_i ||theta - d_i||^2 = n ||theta - dbar||^2 + sum_i ||d_i - dbar||^2 (no cancellation)
        n = x.shape[-2]
        dbar = x.mean(axis=-2)
        spread = np.sum((x - dbar[..., None, :]) ** 2, axis=(-2, -1))
        diff = theta - dbar
        return 0.5 * (n * np.sum(diff * diff, axis=-1) + spread)

    def _total_gradient(self, theta, x, y):
        n = x.shape[-2]
        return n * (theta - x.mean(axis=-2))
