r"""Public bounds derived from a loss's declared constants and data bounds, never from the data.

Algorithms that need a property of *every* data set -- a bound on the loss at the start point
(zhang17 Theorem 5's ``D_F``), a bound on the norm of every minimiser (zhang17 Theorem 2's
``D``) -- take it from here, so that it is a function of the loss and its declared bounds only.

:func:`origin_value_bound`
    ``sup_row l(0; row)`` over the rows within the bounds, for non-negative losses.
:func:`minimiser_norm_bound`
    ``sup_S ||argmin_w F(w, S)||`` over every data set within the bounds (average loss ``F``),
    where the loss's constants allow a bound.
"""

from __future__ import annotations

import mpmath

from reference.losses.base import Loss, _mp, _up
from reference.losses.linear_predictors import Hinge, Huber, LeastSquares, Logistic, Sigmoid
from reference.losses.points import HalfSquaredDistance
from reference.losses.regularisers import L1Regulariser, L2Regulariser, Regularised
from reference.losses.robust import Welsch
from spec.errors import ParameterError

__all__ = ["origin_value_bound", "minimiser_norm_bound"]


def origin_value_bound(loss: Loss) -> float:
    r"""``sup_row l(0; row)`` over every row within the loss's declared bounds, rounded up.

    For a non-negative loss this bounds ``F(0, S) - F*`` for every data set ``S`` (``F* >= 0``):
    the public replacement of a data-dependent initial gap.

    ======================  ==================================================================
    loss                    bound (``0`` for the parameter; ``X``, ``Y``, ``B`` the bounds)
    ======================  ==================================================================
    Logistic                ``ln 2`` (every row: ``ln(1 + e^0)``)
    Sigmoid                 ``1/2``
    Hinge                   ``1``
    Huber (width w)         ``h_w(Y)``: ``Y^2/(2w)`` if ``Y <= w``, else ``Y - w/2``
    LeastSquares            ``Y^2/2``
    HalfSquaredDistance     ``B^2/2``
    Welsch (scale c)        ``(c^2/2)(1 - exp(-B^2/c^2))`` (increasing in ``||d||``)
    Regularised             the base loss's bound (an l1 or l2 penalty is 0 at 0)
    ======================  ==================================================================

    Each value is attained (a row at the bound, e.g. ``|y| = Y``), so none can be smaller. The
    classes are matched exactly: a subclass may change the loss, so it gets no bound.

    Raises
    ------
    ParameterError
        For a loss that is not known to be non-negative (``Linear``) or not listed above.
    """
    if not isinstance(loss, Loss):
        raise TypeError(f"loss ({type(loss).__name__}) must be a reference.losses.Loss")
    if type(loss) is Regularised:
        if type(loss.regulariser) not in (L1Regulariser, L2Regulariser):
            raise ParameterError(f"regulariser ({loss.regulariser!r}) must be an l1 or l2 penalty (0 at 0)")
        return origin_value_bound(loss.loss)
    if type(loss) is Logistic:
        return _up(lambda: mpmath.log(2))
    if type(loss) is Sigmoid:
        return 0.5
    if type(loss) is Hinge:
        return 1.0
    if type(loss) is Huber:
        y, w = _mp(loss.label_bound), _mp(loss.width)
        return _up(lambda: y**2 / (2 * w) if y <= w else y - w / 2)
    if type(loss) is LeastSquares:
        return _up(lambda: _mp(loss.label_bound) ** 2 / 2)
    if type(loss) is HalfSquaredDistance:
        return _up(lambda: _mp(loss.data_norm) ** 2 / 2)
    if type(loss) is Welsch:
        c, b = _mp(loss.scale), _mp(loss.data_norm)
        return _up(lambda: -(c**2) / 2 * mpmath.expm1(-(b**2) / c**2))
    raise ParameterError(
        f"loss ({loss!r}) has no public bound on l(0; row): it must be a non-negative loss of "
        "reference.losses with one (Logistic, Sigmoid, Hinge, Huber, LeastSquares, "
        "HalfSquaredDistance, Welsch, or one of them Regularised)"
    )


def minimiser_norm_bound(loss: Loss) -> float:
    r"""A bound ``D >= ||argmin_w (1/n) sum_i l(w; row_i)||`` valid for every data set, rounded up.

    * ``Regularised(base, L2Regulariser(lambda))``, ``lambda > 0``, base non-negative: every
      minimiser ``w`` has ``(lambda/2) ||w||^2 <= F(w) <= F(0) <= origin_value_bound(base) =: h``,
      so ``||w|| <= sqrt(2 h / lambda)``. If moreover the base's Lipschitz constant holds on all
      of R^p (no ``domain_radius``) and the base is smooth or convex, the first-order condition
      ``lambda w = -(1/n) sum_i grad l(w; row_i)`` (a subgradient for a convex base) gives
      ``||w|| <= L_base / lambda``; the smaller bound is returned.
    * ``HalfSquaredDistance``: the minimiser is the mean of the rows, ``||w|| <= B``.

    Raises
    ------
    ParameterError
        When no bound follows from the declared constants (e.g. an unregularised logistic loss,
        whose minimiser need not exist): pass the bound your data domain gives instead.
    """
    if not isinstance(loss, Loss):
        raise TypeError(f"loss ({type(loss).__name__}) must be a reference.losses.Loss")
    if type(loss) is HalfSquaredDistance:
        return loss.data_norm
    if type(loss) is Regularised and type(loss.regulariser) is L2Regulariser \
            and loss.regulariser.strength > 0:
        lam = _mp(loss.regulariser.strength)
        h = _mp(origin_value_bound(loss.loss))
        bound = _up(lambda: mpmath.sqrt(2 * h / lam))
        base = loss.loss
        if base.domain_radius is None and (base.constants.smooth or base.convex):
            bound = min(bound, _up(lambda: _mp(base.constants.lipschitz) / lam))
        return bound
    raise ParameterError(
        f"loss ({loss!r}) gives no public bound on the norm of its minimisers: use an "
        "l2-regularised loss (Regularised(..., L2Regulariser(strength > 0))) or pass a bound that "
        "holds for every data set of your domain"
    )
