"""Losses of the distance ``r = ||theta - d||_2`` to a point d, with constants on all of R^p:
:class:`PseudoHuberDistance` (convex) and :class:`WelschDistance` (non-convex, bounded).

Unlike :class:`~reference.losses.HalfSquaredDistance` they are Lipschitz and smooth on the whole
space (no domain radius), and their curvature at ``theta = d`` is isotropic and does not depend on
the dimension, which makes them the instances of unconstrained algorithms whose rates are audited
along p (wang17 Section 6).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from reference.arrays import l2_norm as _norm
from reference.losses.base import Loss, LossConstants, _check_norm, _mp, _up
from spec import validate


class _Radial(Loss):
    supervised = False

    def __init__(self, *, lipschitz, width, data_norm):
        self.lipschitz = validate.positive("lipschitz", lipschitz)
        self.width = validate.positive("width", width)
        self.data_norm = validate.positive("data_norm", data_norm)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(lipschitz={self.lipschitz!r}, width={self.width!r}, "
                f"data_norm={self.data_norm!r})")

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.data_norm, "||d||_2", "data_norm")

    @staticmethod
    def _squared_distances(theta, x):
        """||theta - d_i||^2 for every run and row, shape broadcast(theta.shape[:-1], x.shape[:-2]) + (n,),
        through one matrix product (the full gradient of a run is then another: no (runs, n, p) temporary)."""
        if x.ndim == 2:
            cross = theta @ x.T
        else:
            cross = (x @ theta[..., None])[..., 0]
        sq = np.einsum("...i,...i->...", theta, theta)[..., None] - 2 * cross + np.einsum("...i,...i->...", x, x)
        return np.maximum(sq, 0.0)

    def _weighted_gradient(self, theta, x, weights):
        """sum_i weights_i (theta - d_i), weights of shape (..., n)."""
        total = weights.sum(-1)[..., None] * theta
        if x.ndim == 2:
            return total - weights @ x
        return total - (weights[..., None, :] @ x)[..., 0, :]


class PseudoHuberDistance(_Radial):
    r"""``l(theta; d) = G (sqrt(w^2 + ||theta - d||^2) - w)``: quadratic near d, G-Lipschitz far away.

    Parameters
    ----------
    lipschitz : float
        G > 0.
    width : float
        w > 0, the scale of the quadratic core.
    data_norm : float
        Bound on ``||d||_2`` (the constants do not depend on it).

    Constants (on all of R^p)
    -------------------------
    With ``u = theta - d``, ``s = sqrt(w^2 + ||u||^2)``: ``grad = G u / s`` (norm ``G ||u|| / s < G``:
    Lipschitz ``G``, approached as ``||u|| -> inf``) and ``Hessian = (G / s)(I - u u^T / s^2)`` with
    eigenvalues ``G w^2 / s^3`` (along u) and ``G / s``: smoothness ``G / w`` (at ``u = 0``), convex,
    strong convexity 0 (the eigenvalues vanish as ``||u|| -> inf``).
    """

    convex = True

    @property
    def constants(self) -> LossConstants:
        return LossConstants(lipschitz=self.lipschitz, smoothness=_up(lambda: _mp(self.lipschitz) / _mp(self.width)),
                             strong_convexity=0.0)

    def _value(self, theta, x, y):
        u = theta - x
        r = _norm(u)
        w = self.width
        # sqrt(w^2 + r^2) - w = r^2 / (sqrt(w^2 + r^2) + w): no cancellation for small r
        return self.lipschitz * r * r / (np.hypot(w, r) + w)

    def _gradient(self, theta, x, y):
        u = theta - x
        return self.lipschitz * u / np.hypot(self.width, _norm(u))[..., None]

    def _total(self, theta, x, y):
        r2 = self._squared_distances(theta, x)
        w = self.width
        return (self.lipschitz * r2 / (np.sqrt(w * w + r2) + w)).sum(-1)

    def _total_gradient(self, theta, x, y):
        r2 = self._squared_distances(theta, x)
        return self._weighted_gradient(theta, x, self.lipschitz / np.sqrt(self.width**2 + r2))


class WelschDistance(_Radial):
    r"""``l(theta; d) = a (1 - exp(-||theta - d||^2 / (2 w^2)))`` with ``a = G w sqrt(e)``: bounded, non-convex.

    Parameters
    ----------
    lipschitz : float
        G > 0 (the largest gradient norm, attained at ``||theta - d|| = w``).
    width : float
        w > 0.
    data_norm : float
        Bound on ``||d||_2``.

    Constants (on all of R^p)
    -------------------------
    ``grad = (a / w^2) e^{-q} u`` with ``q = ||u||^2 / (2 w^2)``: norm ``(a / w) sqrt(2q) e^{-q}``, largest
    at ``q = 1/2``: ``a / (w sqrt(e)) = G``. ``Hessian = (a / w^2) e^{-q} (I - u u^T / w^2)``, eigenvalues
    ``(a / w^2) e^{-q}`` and ``(a / w^2) e^{-q} (1 - 2q)``: the largest modulus is ``a / w^2 = G sqrt(e) / w``
    at ``u = 0`` (the negative one is at most ``2 e^{-3/2} a / w^2 = 0.446 a / w^2``): smoothness
    ``G sqrt(e) / w``. Not convex (``convex = False``). Values in ``[0, a)``, so ``a`` bounds
    ``F(x_0) - F*`` for every ``x_0``.

    The same function as :class:`reference.losses.Welsch` with ``scale = sqrt(2) w``, multiplied by
    ``G sqrt(e) / w``; this form is parameterised by its Lipschitz constant (wang17's ``G``), that
    one by its bend (zhang17's robust location loss). Both stay: vectors name each.
    """

    convex = False

    @property
    def scale(self) -> float:
        """``a = G w sqrt(e)``, the supremum of the loss (rounded up)."""
        return _up(lambda: _mp(self.lipschitz) * _mp(self.width) * mpmath.sqrt(mpmath.e))

    @property
    def constants(self) -> LossConstants:
        beta = _up(lambda: _mp(self.lipschitz) * mpmath.sqrt(mpmath.e) / _mp(self.width))
        return LossConstants(lipschitz=self.lipschitz, smoothness=beta, strong_convexity=0.0)

    def _a(self) -> float:
        return self.lipschitz * self.width * math.sqrt(math.e)

    def _value(self, theta, x, y):
        u = theta - x
        q = np.einsum("...i,...i->...", u, u) / (2 * self.width**2)
        return -self._a() * np.expm1(-q)

    def _gradient(self, theta, x, y):
        u = theta - x
        q = np.einsum("...i,...i->...", u, u) / (2 * self.width**2)
        return (self._a() / self.width**2) * np.exp(-q)[..., None] * u

    def _total(self, theta, x, y):
        q = self._squared_distances(theta, x) / (2 * self.width**2)
        return (-self._a() * np.expm1(-q)).sum(-1)

    def _total_gradient(self, theta, x, y):
        q = self._squared_distances(theta, x) / (2 * self.width**2)
        return self._weighted_gradient(theta, x, (self._a() / self.width**2) * np.exp(-q))
