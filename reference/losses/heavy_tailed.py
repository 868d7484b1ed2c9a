"""Losses for heavy-tailed data: the formulas of the bounded losses without their data bounds.

wang20's algorithms take no Lipschitz constant and no bound on the data: their privacy comes from
smooth sensitivity (Algorithms 1-3) or from a bounded soft truncation (Algorithm 4), never from a
constant of the loss. These losses therefore accept every finite row (``validate_data`` rejects
only NaN and infinities) and *declare no constants*: :attr:`constants` raises
:class:`~spec.errors.AssumptionError`, so an algorithm that needs a Lipschitz constant for its
privacy cannot be run on them by mistake.

Non-private computations that need constants (an ERM solve on a block of sample-and-aggregate,
the exact optimum a utility audit measures against) ask for the bounded loss with the same
formulas whose declared bounds cover the rows at hand: :meth:`bounded_on`. Those bounds are
computed from the data, which is allowed there and only there (a non-private block function, a
utility measurement); they never enter a noise scale.

=============================  ======================================  =========================
loss                           formula                                 bounded twin
=============================  ======================================  =========================
:class:`HeavyTailedLinear`     ``-<theta, d>``                         :class:`Linear`
:class:`HeavyTailedHalfSquaredDistance`  ``||theta - d||^2 / 2``       :class:`HalfSquaredDistance`
:class:`HeavyTailedLeastSquares`  ``(<theta, x> - y)^2 / 2``           :class:`LeastSquares`
:class:`HeavyTailedLogistic`   ``log(1 + exp(-y <theta, x>))``         :class:`Logistic`
=============================  ======================================  =========================
"""

from __future__ import annotations

import numpy as np

from reference.arrays import l2_norm as _norm
from reference.losses.base import Loss, LossConstants, _check_pm1
from reference.losses.linear_predictors import LeastSquares, Logistic
from reference.losses.points import HalfSquaredDistance, Linear
from spec import validate
from spec.errors import AssumptionError, ParameterError

__all__ = [
    "HeavyTailedLinear",
    "HeavyTailedHalfSquaredDistance",
    "HeavyTailedLeastSquares",
    "HeavyTailedLogistic",
]


def _cover(values: np.ndarray) -> float:
    """A positive bound covering ``values`` (largest entry; 1 when every entry is 0)."""
    top = float(np.max(values)) if values.size else 0.0
    return top if top > 0 else 1.0


class _HeavyTailed:
    """Mixin: no data bounds, no declared constants, :meth:`bounded_on` for non-private uses.

    Subclasses list the bounded loss they share their formulas with as the second base class.
    """

    domain_radius = None

    @property
    def constants(self) -> LossConstants:
        raise AssumptionError(
            f"loss ({self!r}) declares no Lipschitz, smoothness or strong-convexity constant: heavy-tailed "
            "data are unbounded; use an algorithm whose privacy does not rest on the loss's constants "
            "(wang20), or bounded_on(rows) for a non-private computation"
        )

    def _check_rows(self, x, y):  # every finite row is accepted (non-finite rows are rejected by Loss)
        if self.supervised and self._labels_pm1:
            _check_pm1(y)

    _labels_pm1 = False

    def bounded_on(self, rows, *, domain_radius=None) -> Loss:
        """The bounded loss with the same formulas whose declared bounds cover ``rows``.

        Parameters
        ----------
        rows : array_like, shape (..., k)
            Finite rows (checked as :meth:`validate_data` checks them).
        domain_radius : float, optional
            Radius of the parameter ball, for the losses whose constants depend on it
            (:class:`HeavyTailedHalfSquaredDistance`, :class:`HeavyTailedLeastSquares`: required).

        Returns
        -------
        reference.losses.Loss
            Bounds taken from the rows (the largest norm, label); for non-private computations
            only (block solves of sample-and-aggregate, exact optima of utility audits).
        """
        r = self.validate_data(rows)
        x, y = self.split(r)
        return self._bounded(x, y, domain_radius)

    def _radius(self, domain_radius):
        if domain_radius is None:
            raise ParameterError(f"domain_radius (None) must be given: the constants of {self!r} depend on it")
        return validate.positive("domain_radius", domain_radius)


class HeavyTailedLinear(_HeavyTailed, Linear):
    """``l(theta; d) = -<theta, d>`` for every finite ``d`` (gradient ``-d``, independent of theta).

    Used by the privacy audits: the released gradients do not depend on the iterate, so the
    transcript's exact law is computable.
    """

    def __init__(self):
        pass

    def __repr__(self) -> str:
        return "HeavyTailedLinear()"

    def _bounded(self, x, y, domain_radius):
        return Linear(data_norm=_cover(_norm(x)))


class HeavyTailedHalfSquaredDistance(_HeavyTailed, HalfSquaredDistance):
    """``l(theta; d) = ||theta - d||^2 / 2`` for every finite ``d``: mean estimation in R^p.

    The population risk is ``||theta - mu||^2 / 2 + const`` (smoothness and strong convexity 1)
    whatever the law of ``d`` with mean ``mu`` and finite variance.
    """

    def __init__(self):
        pass

    def __repr__(self) -> str:
        return "HeavyTailedHalfSquaredDistance()"

    def _bounded(self, x, y, domain_radius):
        return HalfSquaredDistance(data_norm=_cover(_norm(x)), domain_radius=self._radius(domain_radius))


class HeavyTailedLeastSquares(_HeavyTailed, LeastSquares):
    """``l(theta; (x, y)) = (<theta, x> - y)^2 / 2`` for every finite ``x`` and ``y``."""

    def __init__(self):
        pass

    def __repr__(self) -> str:
        return "HeavyTailedLeastSquares()"

    def _bounded(self, x, y, domain_radius):
        return LeastSquares(feature_norm=_cover(_norm(x)), label_bound=float(np.max(np.abs(y), initial=0.0)),
                            domain_radius=self._radius(domain_radius))


class HeavyTailedLogistic(_HeavyTailed, Logistic):
    """``l(theta; (x, y)) = log(1 + exp(-y <theta, x>))``, ``y in {-1, +1}``, every finite ``x``."""

    _labels_pm1 = True

    def __init__(self):
        pass

    def __repr__(self) -> str:
        return "HeavyTailedLogistic()"

    def _bounded(self, x, y, domain_radius):
        return Logistic(feature_norm=_cover(_norm(x)))
