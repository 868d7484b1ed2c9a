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
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass

import mpmath
import numpy as np
import scipy.special

from spec import validate
from spec.errors import DataBoundError, ParameterError
from spec.record import PRECISION_DIGITS, Rounding, round_safe

__all__ = [
    "LossConstants",
    "Loss",
    "Linear",
    "HalfSquaredDistance",
    "Logistic",
    "Hinge",
    "Huber",
    "LeastSquares",
    "Sigmoid",
    "Regulariser",
    "L2Regulariser",
    "L1Regulariser",
    "Regularised",
    "BOUND_TOLERANCE",
]

#: Relative tolerance of the norm checks: a row passes if ``norm <= bound * (1 + BOUND_TOLERANCE)``.
#:
#: Why: data normalised to the bound in floating point (``x / ||x|| * bound``) has a computed
#: norm that may exceed ``bound`` by a few units in the last place (~1e-16 relative per
#: operation, growing with the dimension), and such data must not be rejected. What it means:
#: an accepted row may exceed a declared bound by a relative 1e-12, so every constant derived
#: from that bound (Lipschitz, smoothness, and the sensitivities and noise scales built on them)
#: holds for the accepted data only up to a factor 1 + 1e-12 (or its square for quadratic
#: terms). That is far below the precision of any privacy or utility claim, and it is a tolerance,
#: not clipping: rows beyond it are rejected. ``theta`` is checked against ``domain_radius``
#: with the same tolerance.
BOUND_TOLERANCE = 1e-12

_NORMALISATIONS = ("sum", "average")


def _up(expr) -> float:
    """Evaluate ``expr()`` (an mpmath expression) at 50 digits and round up to a float."""
    with mpmath.workdps(PRECISION_DIGITS):
        return round_safe(expr(), Rounding.UP)


def _down(expr) -> float:
    with mpmath.workdps(PRECISION_DIGITS):
        return round_safe(expr(), Rounding.DOWN)


def _mp(x: float):
    return mpmath.mpf(x)


# --------------------------------------------------------------------------------------------
# constants
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LossConstants:
    """Constants a loss guarantees on its domain and data bounds (l2 norm of theta).

    Attributes
    ----------
    lipschitz : float
        L: ``|l(a; d) - l(b; d)| <= L ||a - b||_2``. Finite, >= 0.
    smoothness : float
        beta: ``||grad l(a; d) - grad l(b; d)||_2 <= beta ||a - b||_2``; ``math.inf`` for a
        non-smooth loss.
    strong_convexity : float
        Delta: ``l(b) >= l(a) + <g, b - a> + Delta/2 ||b - a||^2`` for every (sub)gradient g at
        a. 0 when the loss is not strongly convex; it carries no claim for a non-convex loss.
    """

    lipschitz: float
    smoothness: float
    strong_convexity: float

    def __post_init__(self):
        validate.nonnegative("lipschitz", self.lipschitz)
        s = validate.real("smoothness", self.smoothness) if self.smoothness != math.inf else math.inf
        if not s >= 0:
            raise ParameterError(f"smoothness ({s!r}) must be >= 0 or inf")
        d = validate.nonnegative("strong_convexity", self.strong_convexity)
        if d > s:
            raise ParameterError(f"strong_convexity ({d!r}) must be <= smoothness ({s!r})")

    @property
    def smooth(self) -> bool:
        """Whether the smoothness constant is finite."""
        return math.isfinite(self.smoothness)


# --------------------------------------------------------------------------------------------
# array utilities
# --------------------------------------------------------------------------------------------


def _float_array(name: str, value) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    return arr.astype(np.float64, copy=False)


def _theta(theta) -> np.ndarray:
    t = _float_array("theta", theta)
    if t.ndim == 0:
        raise ParameterError("theta (a scalar) must have shape (..., p)")
    if not np.isfinite(t).all():
        raise ParameterError("theta (contains nan or inf) must be finite")
    return t


def _row_name(index: tuple[int, ...]) -> str:
    if not index:
        return "the row"
    return f"row {index[0]}" if len(index) == 1 else f"row {index}"


def _reject_nonfinite(rows: np.ndarray) -> None:
    bad = ~np.isfinite(rows).all(axis=-1)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise DataBoundError(
            f"{_row_name(idx)} contains nan or inf; data must be finite and within the declared bounds"
        )


def _check_norm(values: np.ndarray, bound: float, quantity: str, bound_name: str) -> None:
    """Raise if any ``values`` (norms, shape = row axes) exceed ``bound`` (relative tolerance)."""
    bad = ~(values <= bound * (1.0 + BOUND_TOLERANCE))  # also catches nan
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        count = int(bad.sum())
        raise DataBoundError(
            f"{_row_name(idx)} has {quantity} = {float(values[idx])!r} > {bound_name} ({bound!r}) "
            f"({count} row{'s' if count != 1 else ''} out of bounds; relative tolerance "
            f"{BOUND_TOLERANCE:g}); data is rejected, never clipped"
        )


def _check_pm1(y: np.ndarray) -> None:
    bad = (y != 1.0) & (y != -1.0)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        count = int(bad.sum())
        raise DataBoundError(
            f"{_row_name(idx)} has label y = {float(y[idx])!r}, which must be -1 or +1 "
            f"({count} row{'s' if count != 1 else ''} out of bounds)"
        )


def _norm(x: np.ndarray) -> np.ndarray:
    """l2 norm over the last axis without overflow for huge finite entries (inf gives inf)."""
    a = np.abs(x)
    top = np.max(a, axis=-1)
    finite = np.isfinite(top) & (top > 0)
    safe = np.where(finite, top, 1.0)
    scaled = np.sqrt(np.sum((a / safe[..., None]) ** 2, axis=-1)) * safe
    return np.where(finite, scaled, top)


def _inner(theta: np.ndarray, x: np.ndarray) -> np.ndarray:
    """<theta, x> over the last axis, broadcasting the leading axes."""
    return np.einsum("...i,...i->...", theta, x)


def _out(a):
    return a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a


# --------------------------------------------------------------------------------------------
# base class
# --------------------------------------------------------------------------------------------


class Loss(abc.ABC):
    """A per-example loss l(theta; row) with guaranteed constants.

    Subclasses implement ``_value``, ``_gradient`` and ``_check_rows`` on split arrays
    (``x`` of shape ``(..., p)``, ``y`` of shape ``(...)`` or ``None``), and may override
    ``_total``/``_total_gradient`` with faster forms that avoid an ``(..., n, p)`` temporary.
    """

    #: Whether a row is ``[x, y]`` (True) or a point ``d`` (False).
    supervised: bool = False
    #: Whether l(., row) is convex for every row within the bounds.
    convex: bool = True
    #: Radius of the l2 ball of parameters on which the constants hold (None: everywhere).
    domain_radius: float | None = None

    @property
    @abc.abstractmethod
    def constants(self) -> LossConstants:
        """The guaranteed :class:`LossConstants`."""

    # ---- row layout ------------------------------------------------------------------------

    def row_size(self, p) -> int:
        """Length k of a row for parameters in R^p (p + 1 for supervised losses)."""
        p = validate.positive_integer("p", p)
        return p + 1 if self.supervised else p

    def dim_of_row(self, k) -> int:
        """Parameter dimension p for rows of length k."""
        k = validate.integer("k", k, minimum=2 if self.supervised else 1)
        return k - 1 if self.supervised else k

    def split(self, rows):
        """``(x, y)`` for supervised losses (``rows[..., :-1]``, ``rows[..., -1]``), else ``(rows, None)``."""
        rows = _float_array("rows", rows)
        if rows.ndim == 0:
            raise ParameterError("rows (a scalar) must have shape (..., k)")
        self.dim_of_row(rows.shape[-1])
        if self.supervised:
            return rows[..., :-1], rows[..., -1]
        return rows, None

    # ---- validation -----------------------------------------------------------------------

    def check_data(self, data) -> None:
        """Raise :class:`DataBoundError` unless every row of ``data (..., k)`` is within the bounds."""
        self.validate_data(data)

    def validate_data(self, data) -> np.ndarray:
        """Check ``data (..., k)`` against the bounds and return a float64 copy (a snapshot:
        later changes to the caller's array cannot bypass the check)."""
        rows = np.array(_float_array("data", data), dtype=np.float64, copy=True)
        if rows.ndim == 0:
            raise ParameterError("data (a scalar) must have shape (n, k)")
        self.dim_of_row(rows.shape[-1])
        _reject_nonfinite(rows)
        x, y = self.split(rows)
        self._check_rows(x, y)
        return rows

    def check_theta(self, theta) -> None:
        """Raise :class:`ParameterError` if some ``theta (..., p)`` lies outside the domain ball."""
        t = _theta(theta)
        if self.domain_radius is None:
            return
        norms = _norm(t)
        bad = ~(norms <= self.domain_radius * (1.0 + BOUND_TOLERANCE))
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            where = f"theta[{idx[0] if len(idx) == 1 else idx}]" if idx else "theta"
            raise ParameterError(
                f"{where} has ||theta||_2 = {float(norms[idx])!r} > domain_radius "
                f"({self.domain_radius!r}); the loss constants hold only on the domain"
            )

    def _prepare(self, theta, rows, *, check: bool, min_ndim: int = 1):
        t = _theta(theta)
        r = _float_array("rows" if min_ndim == 1 else "data", rows)
        what = "rows" if min_ndim == 1 else "data"
        if r.ndim < min_ndim:
            shape = "(..., k)" if min_ndim == 1 else "(..., n, k)"
            raise ParameterError(f"{what} (shape {r.shape}) must have shape {shape}")
        if min_ndim == 2 and r.shape[-2] < 1:
            raise ParameterError(f"data (shape {r.shape}) must have at least one row (n >= 1)")
        p = self.dim_of_row(r.shape[-1])
        if t.shape[-1] != p:
            raise ParameterError(
                f"theta (shape {t.shape}) must have a last axis of length p ({p}) to match {what} "
                f"rows of length {r.shape[-1]}"
                + (" (p features and a label)" if self.supervised else "")
            )
        _reject_nonfinite(r)
        x, y = self.split(r)
        if check:
            self._check_rows(x, y)
            self.check_theta(t)
        return t, x, y

    # ---- evaluation -----------------------------------------------------------------------

    def value(self, theta, rows, *, check: bool = True):
        """Per-example loss, shape ``broadcast(theta.shape[:-1], rows.shape[:-1])``.

        Rows and ``theta`` are checked against the declared bounds (:class:`DataBoundError`,
        :class:`ParameterError`) unless ``check=False``, which is for rows already returned by
        :meth:`validate_data` (the other evaluation methods take the same keyword).
        """
        t, x, y = self._prepare(theta, rows, check=check)
        return _out(self._value(t, x, y))

    def gradient(self, theta, rows, *, check: bool = True):
        """Per-example (sub)gradient in theta, shape ``broadcast(...) + (p,)``."""
        t, x, y = self._prepare(theta, rows, check=check)
        return self._gradient(t, x, y)

    def total(self, theta, data, *, normalisation: str = "sum", check: bool = True):
        """Empirical risk over the ``n`` rows of ``data (..., n, k)``: shape ``broadcast(theta.shape[:-1], data.shape[:-2])``.

        ``normalisation="sum"`` returns sum_i l(theta; d_i) (bst14); ``"average"`` divides by n.
        """
        validate.choice("normalisation", normalisation, _NORMALISATIONS)
        t, x, y = self._prepare(theta, data, check=check, min_ndim=2)
        out = self._total(t, x, y)
        if normalisation == "average":
            out = out / x.shape[-2]
        return _out(out)

    def total_gradient(self, theta, data, *, normalisation: str = "sum", check: bool = True):
        """Gradient of :meth:`total`, shape ``broadcast(theta.shape[:-1], data.shape[:-2]) + (p,)``."""
        validate.choice("normalisation", normalisation, _NORMALISATIONS)
        t, x, y = self._prepare(theta, data, check=check, min_ndim=2)
        out = self._total_gradient(t, x, y)
        if normalisation == "average":
            out = out / x.shape[-2]
        return out

    def mean(self, theta, data, *, check: bool = True):
        """``total(theta, data, normalisation="average")``."""
        return self.total(theta, data, normalisation="average", check=check)

    def mean_gradient(self, theta, data, *, check: bool = True):
        """``total_gradient(theta, data, normalisation="average")``."""
        return self.total_gradient(theta, data, normalisation="average", check=check)

    # ---- hooks ----------------------------------------------------------------------------

    @abc.abstractmethod
    def _value(self, theta, x, y) -> np.ndarray: ...

    @abc.abstractmethod
    def _gradient(self, theta, x, y) -> np.ndarray: ...

    @abc.abstractmethod
    def _check_rows(self, x, y) -> None: ...

    def _total(self, theta, x, y) -> np.ndarray:
        return self._value(theta[..., None, :], x, y).sum(axis=-1)

    def _total_gradient(self, theta, x, y) -> np.ndarray:
        return self._gradient(theta[..., None, :], x, y).sum(axis=-2)


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

    def __init__(self, *, data_norm):
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
        shape = np.broadcast_shapes(theta.shape, x.shape)
        return np.broadcast_to(-x, shape).copy()

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

    def __init__(self, *, data_norm, domain_radius):
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


# --------------------------------------------------------------------------------------------
# supervised losses of the margin / residual <theta, x>
# --------------------------------------------------------------------------------------------


class _LinearPredictorLoss(Loss):
    """Loss ``phi(<theta, x>, y)``: gradient ``phi'(<theta, x>, y) x``."""

    supervised = True

    @abc.abstractmethod
    def _phi(self, m, y) -> np.ndarray: ...

    @abc.abstractmethod
    def _dphi(self, m, y) -> np.ndarray: ...

    def _value(self, theta, x, y):
        return self._phi(_inner(theta, x), y)

    def _gradient(self, theta, x, y):
        return self._dphi(_inner(theta, x), y)[..., None] * x

    def _margins(self, theta, x):
        """<theta, x_i> for every row: shape broadcast(theta.shape[:-1], x.shape[:-2]) + (n,)."""
        if x.ndim == 2:  # one data set for all runs: a single matrix product
            return theta @ x.T  # x is made contiguous by the callers (faster BLAS path)
        # one data set per run: stacked products, no (..., n, p) temporary
        return (x @ theta[..., None])[..., 0]

    def _total(self, theta, x, y):
        x = np.ascontiguousarray(x)  # x is a strided view of the rows [x, y]
        return self._phi(self._margins(theta, x), y).sum(axis=-1)

    def _total_gradient(self, theta, x, y):
        x = np.ascontiguousarray(x)
        g = self._dphi(self._margins(theta, x), y)
        if x.ndim == 2:
            return g @ x
        return (g[..., None, :] @ x)[..., 0, :]


class _Classifier(_LinearPredictorLoss):
    """Binary classification: labels in {-1, +1}, ``||x||_2 <= feature_norm``."""

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.feature_norm, "||x||_2", "feature_norm")
        _check_pm1(y)


class Logistic(_Classifier):
    r"""Logistic loss ``log(1 + exp(-y <theta, x>))``, y in {-1, +1}, ``||x||_2 <= feature_norm``.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.

    Constants
    ---------
    With ``m = y <theta, x>`` and ``s`` the logistic function, ``grad = -y s(-m) x`` and
    ``Hessian = s(m) (1 - s(m)) x x^T``.

    * Lipschitz ``L = X``: ``0 < s(-m) < 1``; approached as ``m -> -inf`` (on a ball of radius
      R the supremum is ``X s(R X)``).
    * Smoothness ``beta = X^2 / 4``: ``s (1 - s) <= 1/4``, attained at ``m = 0``.
    * Strong convexity 0. Convex. Evaluated stably as ``logaddexp(0, -m)``.
    """

    convex = True

    def __init__(self, *, feature_norm):
        self.feature_norm = validate.positive("feature_norm", feature_norm)

    def __repr__(self) -> str:
        return f"Logistic(feature_norm={self.feature_norm!r})"

    @property
    def constants(self) -> LossConstants:
        beta = _up(lambda: _mp(self.feature_norm) ** 2 / 4)
        return LossConstants(lipschitz=self.feature_norm, smoothness=beta, strong_convexity=0.0)

    def _phi(self, m, y):
        return np.logaddexp(0.0, -y * m)

    def _dphi(self, m, y):
        return -y * scipy.special.expit(-y * m)


class Hinge(_Classifier):
    r"""Hinge loss ``(1 - y <theta, x>)_+``, y in {-1, +1}, ``||x||_2 <= feature_norm``.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.

    Subgradient
    -----------
    ``-y x`` where ``y <theta, x> < 1`` and ``0`` where ``y <theta, x> >= 1``: at the kink
    (margin exactly 1) we return 0, which is an element of the subdifferential
    ``{-t y x : t in [0, 1]}``.

    Constants
    ---------
    * Lipschitz ``L = X`` (subgradients have norm ``||x|| <= X``, attained where the margin is
      below 1).
    * Not smooth (``smoothness = inf``); strong convexity 0. Convex.
    """

    convex = True

    def __init__(self, *, feature_norm):
        self.feature_norm = validate.positive("feature_norm", feature_norm)

    def __repr__(self) -> str:
        return f"Hinge(feature_norm={self.feature_norm!r})"

    @property
    def constants(self) -> LossConstants:
        return LossConstants(lipschitz=self.feature_norm, smoothness=math.inf, strong_convexity=0.0)

    def _phi(self, m, y):
        return np.maximum(0.0, 1.0 - y * m)

    def _dphi(self, m, y):
        return np.where(y * m < 1.0, -y, 0.0)


class Sigmoid(_Classifier):
    r"""Sigmoid loss ``1 / (1 + exp(y <theta, x>))`` (non-convex), y in {-1, +1}.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.

    Constants
    ---------
    With ``s`` the logistic function and ``m = y <theta, x>`` the loss is ``s(-m)``, so
    ``grad = -y s'(-m) x`` and ``Hessian = s''(-m) x x^T`` (``y^2 = 1``), where
    ``s' = s (1 - s)`` and ``s'' = s (1 - s)(1 - 2 s)``.

    * Lipschitz ``L = X / 4``: ``max s' = s'(0) = 1/4``.
    * Smoothness ``beta = X^2 max|s''| = X^2 / (6 sqrt 3)``: writing ``s'' = g(s)`` with
      ``g(u) = u (1 - u)(1 - 2 u)`` on (0, 1), ``g'(u) = 6u^2 - 6u + 1 = 0`` at
      ``u = (3 -+ sqrt 3)/6``, where ``|g| = sqrt(3)/18 = 1/(6 sqrt 3)`` (about 0.0962).
    * ``convex = False``; strong convexity 0 (no claim).
    """

    convex = False

    def __init__(self, *, feature_norm):
        self.feature_norm = validate.positive("feature_norm", feature_norm)

    def __repr__(self) -> str:
        return f"Sigmoid(feature_norm={self.feature_norm!r})"

    @property
    def constants(self) -> LossConstants:
        lip = _up(lambda: _mp(self.feature_norm) / 4)
        beta = _up(lambda: _mp(self.feature_norm) ** 2 / (6 * mpmath.sqrt(3)))
        return LossConstants(lipschitz=lip, smoothness=beta, strong_convexity=0.0)

    def _phi(self, m, y):
        return scipy.special.expit(-y * m)

    def _dphi(self, m, y):
        s = scipy.special.expit(-y * m)
        return -y * s * (1.0 - s)


class _Regression(_LinearPredictorLoss):
    """Regression: real labels with ``|y| <= label_bound``, ``||x||_2 <= feature_norm``."""

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.feature_norm, "||x||_2", "feature_norm")
        _check_norm(np.abs(y), self.label_bound, "|y|", "label_bound")


class Huber(_Regression):
    r"""Huber regression ``h_w(<theta, x> - y)``.

    Convention: ``h_w(r) = r^2 / (2 w)`` for ``|r| <= w`` and ``|r| - w/2`` otherwise, so
    ``h_w' = clip(r / w, -1, 1)`` (continuous: the loss is differentiable) and
    ``0 <= h_w'' <= 1/w``.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.
    label_bound : float
        Bound Y on ``|y|``; >= 0.
    width : float
        w > 0, where the quadratic piece ends.
    domain_radius : float, optional
        Radius R of the parameter ball. Without it the constants hold on all of R^p.

    Constants
    ---------
    * Lipschitz ``L = X min(1, (R X + Y) / w)``: ``||grad|| = |h_w'(r)| ||x||`` with
      ``|h_w'(r)| = min(1, |r| / w)`` and ``|r| <= |<theta, x>| + |y| <= R X + Y``; attained at
      ``theta = R x/||x||``, ``||x|| = X``, ``y = -Y``. Without a domain, ``L = X``.
    * Smoothness ``beta = X^2 / w`` (Hessian ``h_w'' x x^T``), attained where ``|r| < w``.
    * Strong convexity 0. Convex.
    """

    convex = True

    def __init__(self, *, feature_norm, label_bound, width, domain_radius=None):
        self.feature_norm = validate.positive("feature_norm", feature_norm)
        self.label_bound = validate.nonnegative("label_bound", label_bound)
        self.width = validate.positive("width", width)
        self.domain_radius = None if domain_radius is None else validate.positive("domain_radius", domain_radius)

    def __repr__(self) -> str:
        return (
            f"Huber(feature_norm={self.feature_norm!r}, label_bound={self.label_bound!r}, "
            f"width={self.width!r}, domain_radius={self.domain_radius!r})"
        )

    @property
    def constants(self) -> LossConstants:
        X, w = _mp(self.feature_norm), _mp(self.width)
        if self.domain_radius is None:
            lip = self.feature_norm
        else:
            R, Y = _mp(self.domain_radius), _mp(self.label_bound)
            lip = _up(lambda: X * min(mpmath.mpf(1), (R * X + Y) / w))
        beta = _up(lambda: X**2 / w)
        return LossConstants(lipschitz=lip, smoothness=beta, strong_convexity=0.0)

    def _phi(self, m, y):
        r = m - y
        a = np.abs(r)
        w = self.width
        return np.where(a <= w, r * r / (2.0 * w), a - 0.5 * w)

    def _dphi(self, m, y):
        return np.clip((m - y) / self.width, -1.0, 1.0)


class LeastSquares(_Regression):
    r"""Least squares ``(<theta, x> - y)^2 / 2`` on the ball ``||theta||_2 <= domain_radius``.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.
    label_bound : float
        Bound Y on ``|y|``; >= 0.
    domain_radius : float
        Radius R of the parameter ball; > 0 (the loss is not Lipschitz on R^p).

    Constants
    ---------
    * Lipschitz ``L = X (R X + Y)``: ``grad = (<theta, x> - y) x`` with
      ``|<theta, x> - y| <= R X + Y``; attained at ``theta = R x/||x||``, ``||x|| = X``, ``y = -Y``.
    * Smoothness ``beta = X^2``: Hessian ``x x^T`` of norm ``||x||^2``.
    * Strong convexity 0 (``x x^T`` is singular for p > 1). Convex.
    """

    convex = True

    def __init__(self, *, feature_norm, label_bound, domain_radius):
        self.feature_norm = validate.positive("feature_norm", feature_norm)
        self.label_bound = validate.nonnegative("label_bound", label_bound)
        self.domain_radius = validate.positive("domain_radius", domain_radius)

    def __repr__(self) -> str:
        return (
            f"LeastSquares(feature_norm={self.feature_norm!r}, label_bound={self.label_bound!r}, "
            f"domain_radius={self.domain_radius!r})"
        )

    @property
    def constants(self) -> LossConstants:
        X, Y, R = _mp(self.feature_norm), _mp(self.label_bound), _mp(self.domain_radius)
        lip = _up(lambda: X * (R * X + Y))
        beta = _up(lambda: X**2)
        return LossConstants(lipschitz=lip, smoothness=beta, strong_convexity=0.0)

    def _phi(self, m, y):
        r = m - y
        return 0.5 * r * r

    def _dphi(self, m, y):
        return m - y


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
    def value(self, theta): ...

    @abc.abstractmethod
    def gradient(self, theta): ...

    @abc.abstractmethod
    def prox(self, v, step): ...

    @abc.abstractmethod
    def constants(self, *, dim=None, domain_radius=None) -> LossConstants: ...


class L2Regulariser(Regulariser):
    r"""``r(theta) = strength / 2 ||theta||_2^2``.

    * gradient ``strength theta``;
    * prox: ``argmin_u step r(u) + ||u - v||^2/2 = v / (1 + step strength)`` (shrinkage);
    * constants on the ball of radius R: Lipschitz ``strength R`` (gradient norm, attained on
      the sphere), smoothness and strong convexity ``strength`` (Hessian ``strength I``).
    """

    def __init__(self, *, strength):
        self.strength = validate.nonnegative("strength", strength)

    def __repr__(self) -> str:
        return f"L2Regulariser(strength={self.strength!r})"

    def value(self, theta):
        t = _theta(theta)
        return _out(0.5 * self.strength * np.sum(t * t, axis=-1))

    def gradient(self, theta):
        return self.strength * _theta(theta)

    def prox(self, v, step):
        return _theta(v) / (1.0 + _step(step) * self.strength)

    def constants(self, *, dim=None, domain_radius=None) -> LossConstants:
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

    def __init__(self, *, strength):
        self.strength = validate.nonnegative("strength", strength)

    def __repr__(self) -> str:
        return f"L1Regulariser(strength={self.strength!r})"

    def value(self, theta):
        return _out(self.strength * np.sum(np.abs(_theta(theta)), axis=-1))

    def gradient(self, theta):
        return self.strength * np.sign(_theta(theta))

    def prox(self, v, step):
        v = _theta(v)
        threshold = _step(step) * self.strength
        return np.sign(v) * np.maximum(np.abs(v) - threshold, 0.0)

    def constants(self, *, dim=None, domain_radius=None) -> LossConstants:
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

    def __init__(self, loss, regulariser, *, domain_radius=None, dim=None):
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
