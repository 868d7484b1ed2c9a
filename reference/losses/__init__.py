"""Per-example losses that state the constants they guarantee.

A loss is configured with the norm bounds it assumes (``data_norm``, ``feature_norm``,
``label_bound``, and a ``domain_radius`` where a constant depends on it). It then reports
:class:`LossConstants` (Lipschitz constant, smoothness, strong convexity, all in the l2 norm
of the parameter), valid for every parameter ``theta`` with ``||theta||_2 <= domain_radius``
(when the loss has one) and every row within the bounds. These constants feed the privacy
calibrations, so they are rounded in the safe direction (Lipschitz and smoothness up, strong
convexity down) and data outside the bounds is *rejected* with :class:`DataBoundError`, never
clipped.

Data
----
A data set is a float array of shape ``(n, k)``, one row per record (more generally
``(..., n, k)``). Unsupervised losses read a row as a point ``d`` of R^p (``k = p``);
supervised losses read ``[x (p entries), y]`` (``k = p + 1``).

Shapes and broadcasting
-----------------------
``value(theta, rows)`` takes ``theta`` of shape ``(..., p)`` and ``rows`` of shape
``(..., k)``; the leading axes broadcast. So ``theta (runs, p)`` with ``rows (runs, k)`` gives
one sampled loss per run, and ``theta[:, None, :]`` with ``data[None]`` gives the matrix of all
runs against all rows. ``gradient`` returns the broadcast leading shape plus ``(p,)``.
``total(theta, data)`` takes ``data (..., n, k)`` and sums (``normalisation="sum"``, the bst14
convention) or averages (``"average"``, the other papers) over the ``n`` rows.

Bounds checks
-------------
``check_data(data)`` raises :class:`DataBoundError` naming the first offending row, its norm
(or label) and the bound. Norm bounds are checked with a relative tolerance of 1e-12
(``norm <= bound * (1 + 1e-12)``), so data normalised to the bound in floating point is
accepted (see :data:`BOUND_TOLERANCE`). ``value``, ``gradient``, ``total`` and
``total_gradient`` (and ``mean``, ``mean_gradient``) check the rows, and ``theta`` against
``domain_radius``, by default (``check=True``) and always reject non-finite rows. Algorithms
call ``validate_data(data)`` once when they are configured and then pass ``check=False`` in
their inner loops, where the rows are that checked snapshot.

Modules: :mod:`~reference.losses.base` (:class:`Loss`, :class:`LossConstants`),
:mod:`~reference.losses.points`, :mod:`~reference.losses.radial` (functions of the distance to the
data point, with constants on all of R^p), :mod:`~reference.losses.linear_predictors`,
:mod:`~reference.losses.regularisers`, :mod:`~reference.losses.robust` (non-convex robust
losses: Welsch, Cauchy), :mod:`~reference.losses.heavy_tailed` (the same formulas without data
bounds and without declared constants, for wang20's heavy-tailed algorithms) and
:mod:`~reference.losses.bounds` (public bounds every data set satisfies: the loss at the origin,
the norm of the minimisers).
"""

from __future__ import annotations

from reference.losses.base import BOUND_TOLERANCE, Loss, LossConstants
from reference.losses.bounds import minimiser_norm_bound, origin_value_bound
from reference.losses.heavy_tailed import (
    HeavyTailedHalfSquaredDistance,
    HeavyTailedLeastSquares,
    HeavyTailedLinear,
    HeavyTailedLogistic,
)
from reference.losses.linear_predictors import (
    Hinge,
    Huber,
    LeastSquares,
    Logistic,
    Sigmoid,
)
from reference.losses.points import HalfSquaredDistance, Linear
from reference.losses.radial import PseudoHuberDistance, WelschDistance
from reference.losses.regularisers import (
    L1Regulariser,
    L2Regulariser,
    Regularised,
    Regulariser,
)
from reference.losses.robust import Cauchy, Welsch

__all__ = [
    "LossConstants",
    "Loss",
    "Linear",
    "HalfSquaredDistance",
    "PseudoHuberDistance",
    "WelschDistance",
    "Logistic",
    "Hinge",
    "Huber",
    "LeastSquares",
    "Sigmoid",
    "Welsch",
    "Cauchy",
    "Regulariser",
    "L2Regulariser",
    "L1Regulariser",
    "Regularised",
    "HeavyTailedLinear",
    "HeavyTailedHalfSquaredDistance",
    "HeavyTailedLeastSquares",
    "HeavyTailedLogistic",
    "BOUND_TOLERANCE",
    "origin_value_bound",
    "minimiser_norm_bound",
]
