"""Regularisers r(theta) with their proximal maps, and :class:`Regularised` (a loss plus a regulariser).
"""

from __future__ import annotations

import abc
import math

import mpmath
import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import scalar_out as _out
from reference.losses.base import Loss, LossConstants, _down, _mp, _theta, _up
from spec import validate
from spec.errors import ParameterError

# --------------------------------------------------------------------------------------------
# regularisers
# --------------------------------------------------------------------------------------------


def _step(step) -> float:
    return validate.positive("step", step)


class Regulariser(abc.ABC):
    """A data-independent penalty r(theta) with a proximal operator.

    ``value(theta (..., p)) -> (...)``, ``gradient(theta) -> (..., p)`` (a fixed subgradient
    where r is not differentiable), ``prox(v, step) = argmin_u r(u) step + ||u - v||^2 / 2``,
    and ``constants(dim=, domain_radius=)``.
    """

    strength: float

    @abc.abstractmethod
    def value(self, theta: ArrayLike) -> np.ndarray | float: ...

    @abc.abstractmethod
    def gradient(self, theta: ArrayLike) -> np.ndarray: ...

    @abc.abstractmethod
    def prox(self, v: ArrayLike, step: float) -> np.ndarray: ...

    @abc.abstractmethod
    def constants(self, *, dim: int | None = None, domain_radius: float | None = None) -> LossConstants: ...


class L2Regulariser(Regulariser):
    r"""``r(theta) = strength / 2 ||theta||_2^2``.

    * gradient ``strength theta``;
    * prox: ``argmin_u step r(u) + ||u - v||^2/2 = v / (1 + step strength)`` (shrinkage);
    * constants on the ball of radius R: Lipschitz ``strength R`` (gradient norm, attained on
      the sphere), smoothness and strong convexity ``strength`` (Hessian ``strength I``).
    """

    def __init__(self, *, strength: float) -> None:
        self.strength = validate.nonnegative("strength", strength)

    def __repr__(self) -> str:
        return f"L2Regulariser(strength={self.strength!r})"

    def value(self, theta: ArrayLike) -> np.ndarray | float:
        t = _theta(theta)
        return _out(0.5 * self.strength * np.sum(t * t, axis=-1))

    def gradient(self, theta: ArrayLike) -> np.ndarray:
        return self.strength * _theta(theta)

    def prox(self, v: ArrayLike, step: float) -> np.ndarray:
        return _theta(v) / (1.0 + _step(step) * self.strength)

    def constants(self, *, dim: int | None = None, domain_radius: float | None = None) -> LossConstants:
        if domain_radius is None:
            raise ParameterError(
                "domain_radius (None) must be given: strength/2 ||theta||^2 is Lipschitz only on a "
                "bounded domain (constant strength * domain_radius)"
            )
        R = validate.positive("domain_radius", domain_radius)
        lip = _up(lambda: _mp(self.strength) * _mp(R))
        return LossConstants(lipschitz=lip, smoothness=self.strength, strong_convexity=self.strength)


class L1Regulariser(Regulariser):
    r"""``r(theta) = strength ||theta||_1``.

    * subgradient ``strength sign(theta)`` (0 in coordinates where theta is 0);
    * prox: soft thresholding ``sign(v) max(|v| - step strength, 0)``;
    * constants in R^dim: Lipschitz ``strength sqrt(dim)`` in the l2 norm
      (``||a||_1 - ||b||_1 <= ||a - b||_1 <= sqrt(dim) ||a - b||_2``, attained along
      ``(1, ..., 1)``); not smooth; strong convexity 0.
    """

    def __init__(self, *, strength: float) -> None:
        self.strength = validate.nonnegative("strength", strength)

    def __repr__(self) -> str:
        return f"L1Regulariser(strength={self.strength!r})"

    def value(self, theta: ArrayLike) -> np.ndarray | float:
        return _out(self.strength * np.sum(np.abs(_theta(theta)), axis=-1))

    def gradient(self, theta: ArrayLike) -> np.ndarray:
        return self.strength * np.sign(_theta(theta))

    def prox(self, v: ArrayLike, step: float) -> np.ndarray:
        v = _theta(v)
        threshold = _step(step) * self.strength
        return np.sign(v) * np.maximum(np.abs(v) - threshold, 0.0)

    def constants(self, *, dim: int | None = None, domain_radius: float | None = None) -> LossConstants:
        if dim is None:
            raise ParameterError(
                "dim (None) must be given: the l2-Lipschitz constant of strength ||theta||_1 is "
                "strength * sqrt(dim)"
            )
        p = validate.positive_integer("dim", dim)
        lip = _up(lambda: _mp(self.strength) * mpmath.sqrt(p))
        return LossConstants(lipschitz=lip, smoothness=math.inf, strong_convexity=0.0)


class Regularised(Loss):
    r"""The per-example loss ``l(theta; d) + r(theta)``.

    Convention: the regulariser is added to *every* example, so the sum objective is
    ``sum_i l(theta; d_i) + n r(theta)`` and the average objective is
    ``(1/n) sum_i l(theta; d_i) + r(theta)`` (the usual regularised ERM of the average-loss
    papers). bst14 writes ``r_bst(theta) + sum_i l`` and folds it as ``l + r_bst / n``
    (Section I, "Problem formulation"): pass ``r = r_bst / n``. With ``r = (Delta/2)
    ||theta||^2`` every example becomes Delta-strongly convex, as in bst14.

    Parameters
    ----------
    loss : Loss
    regulariser : Regulariser
    domain_radius : float, optional
        Radius of the parameter ball on which the constants hold; defaults to the loss's.
        Required for :class:`L2Regulariser` (its Lipschitz constant is ``strength * R``).
    dim : int, optional
        Parameter dimension; required for :class:`L1Regulariser` (Lipschitz
        ``strength sqrt(dim)``). When given, theta must have this dimension.

    Constants
    ---------
    Sums of the two: Lipschitz and smoothness add (rounded up; ``inf`` stays ``inf``),
    strong convexities add (rounded down) when the loss is convex. A non-convex loss stays
    ``convex = False`` with strong convexity 0.
    """

    def __init__(self, loss: Loss, regulariser: Regulariser, *, domain_radius: float | None = None,
                 dim: int | None = None) -> None:
        if not isinstance(loss, Loss):
            raise TypeError(f"loss ({loss!r}) must be a Loss")
        if isinstance(loss, Regularised):
            raise TypeError("loss must not already be Regularised; combine the regularisers instead")
        if not isinstance(regulariser, Regulariser):
            raise TypeError(f"regulariser ({regulariser!r}) must be a Regulariser")
        if domain_radius is not None:
            domain_radius = validate.positive("domain_radius", domain_radius)
            if loss.domain_radius is not None and domain_radius != loss.domain_radius:
                raise ParameterError(
                    f"domain_radius ({domain_radius!r}) must equal the loss's domain_radius "
                    f"({loss.domain_radius!r})"
                )
        else:
            domain_radius = loss.domain_radius
        self.loss = loss
        self.regulariser = regulariser
        self.domain_radius = domain_radius
        self.dim = None if dim is None else validate.positive_integer("dim", dim)
        self.supervised = loss.supervised
        self.convex = loss.convex
        # Fail at configuration, not when constants are first read.
        self._constants = self._combine()

    def __repr__(self) -> str:
        return f"Regularised({self.loss!r}, {self.regulariser!r}, domain_radius={self.domain_radius!r}, dim={self.dim!r})"

    def _combine(self) -> LossConstants:
        a = self.loss.constants
        b = self.regulariser.constants(dim=self.dim, domain_radius=self.domain_radius)
        lip = _up(lambda: _mp(a.lipschitz) + _mp(b.lipschitz))
        if math.isinf(a.smoothness) or math.isinf(b.smoothness):
            beta = math.inf
        else:
            beta = _up(lambda: _mp(a.smoothness) + _mp(b.smoothness))
        if self.convex:
            sc = _down(lambda: _mp(a.strong_convexity) + _mp(b.strong_convexity))
        else:
            sc = 0.0
        return LossConstants(lipschitz=lip, smoothness=beta, strong_convexity=min(sc, beta))

    @property
    def constants(self) -> LossConstants:
        return self._constants

    def _check_rows(self, x, y):
        self.loss._check_rows(x, y)

    def _prepare(self, theta, rows, *, check, min_ndim=1):
        t, x, y = super()._prepare(theta, rows, check=check, min_ndim=min_ndim)
        if self.dim is not None and t.shape[-1] != self.dim:
            raise ParameterError(f"theta (shape {t.shape}) must have a last axis of length dim ({self.dim})")
        return t, x, y

    def _value(self, theta, x, y):
        return self.loss._value(theta, x, y) + self.regulariser.value(theta)

    def _gradient(self, theta, x, y):
        return self.loss._gradient(theta, x, y) + self.regulariser.gradient(theta)

    def _total(self, theta, x, y):
        n = x.shape[-2]
        return self.loss._total(theta, x, y) + n * self.regulariser.value(theta)

    def _total_gradient(self, theta, x, y):
        n = x.shape[-2]
        return self.loss._total_gradient(theta, x, y) + n * self.regulariser.gradient(theta)
