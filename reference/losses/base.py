"""The loss base class, :class:`LossConstants` and the checks shared by every loss (see :mod:`reference.losses`).
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass

import mpmath
import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import l2_norm as _norm
from reference.arrays import scalar_out as _out
from spec import validate
from spec.errors import DataBoundError, ParameterError
from spec.record import PRECISION_DIGITS, Rounding, round_safe

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

    def __post_init__(self) -> None:
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


def _inner(theta: np.ndarray, x: np.ndarray) -> np.ndarray:
    """<theta, x> over the last axis, broadcasting the leading axes."""
    return np.einsum("...i,...i->...", theta, x)


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

    def row_size(self, p: int) -> int:
        """Length k of a row for parameters in R^p (p + 1 for supervised losses)."""
        p = validate.positive_integer("p", p)
        return p + 1 if self.supervised else p

    def dim_of_row(self, k: int) -> int:
        """Parameter dimension p for rows of length k."""
        k = validate.integer("k", k, minimum=2 if self.supervised else 1)
        return k - 1 if self.supervised else k

    def split(self, rows: ArrayLike) -> tuple[np.ndarray, np.ndarray | None]:
        """``(x, y)`` for supervised losses (``rows[..., :-1]``, ``rows[..., -1]``), else ``(rows, None)``."""
        rows = _float_array("rows", rows)
        if rows.ndim == 0:
            raise ParameterError("rows (a scalar) must have shape (..., k)")
        self.dim_of_row(rows.shape[-1])
        if self.supervised:
            return rows[..., :-1], rows[..., -1]
        return rows, None

    # ---- validation -----------------------------------------------------------------------

    def check_data(self, data: ArrayLike) -> None:
        """Raise :class:`DataBoundError` unless every row of ``data (..., k)`` is within the bounds."""
        self.validate_data(data)

    def validate_data(self, data: ArrayLike) -> np.ndarray:
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

    def check_theta(self, theta: ArrayLike) -> None:
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

    def value(self, theta: ArrayLike, rows: ArrayLike, *, check: bool = True) -> np.ndarray | float:
        """Per-example loss, shape ``broadcast(theta.shape[:-1], rows.shape[:-1])``.

        Rows and ``theta`` are checked against the declared bounds (:class:`DataBoundError`,
        :class:`ParameterError`) unless ``check=False``, which is for rows already returned by
        :meth:`validate_data` (the other evaluation methods take the same keyword).
        """
        t, x, y = self._prepare(theta, rows, check=check)
        return _out(self._value(t, x, y))

    def gradient(self, theta: ArrayLike, rows: ArrayLike, *, check: bool = True) -> np.ndarray:
        """Per-example (sub)gradient in theta, shape ``broadcast(...) + (p,)``."""
        t, x, y = self._prepare(theta, rows, check=check)
        return self._gradient(t, x, y)

    def gradient_unchecked(self, theta: np.ndarray, x: np.ndarray, y: np.ndarray | None) -> np.ndarray:
        """:meth:`gradient` on rows already split by :meth:`split` from a :meth:`validate_data`
        snapshot, without any check: the hook for algorithms' inner loops."""
        return self._gradient(theta, x, y)

    def total(self, theta: ArrayLike, data: ArrayLike, *, normalisation: str = "sum",
              check: bool = True) -> np.ndarray | float:
        """Empirical risk over the ``n`` rows of ``data (..., n, k)``: shape ``broadcast(theta.shape[:-1], data.shape[:-2])``.

        ``normalisation="sum"`` returns sum_i l(theta; d_i) (bst14); ``"average"`` divides by n.
        """
        validate.choice("normalisation", normalisation, _NORMALISATIONS)
        t, x, y = self._prepare(theta, data, check=check, min_ndim=2)
        out = self._total(t, x, y)
        if normalisation == "average":
            out = out / x.shape[-2]
        return _out(out)

    def total_gradient(self, theta: ArrayLike, data: ArrayLike, *, normalisation: str = "sum",
                       check: bool = True) -> np.ndarray:
        """Gradient of :meth:`total`, shape ``broadcast(theta.shape[:-1], data.shape[:-2]) + (p,)``."""
        validate.choice("normalisation", normalisation, _NORMALISATIONS)
        t, x, y = self._prepare(theta, data, check=check, min_ndim=2)
        out = self._total_gradient(t, x, y)
        if normalisation == "average":
            out = out / x.shape[-2]
        return out

    def mean(self, theta: ArrayLike, data: ArrayLike, *, check: bool = True) -> np.ndarray | float:
        """``total(theta, data, normalisation="average")``."""
        return self.total(theta, data, normalisation="average", check=check)

    def mean_gradient(self, theta: ArrayLike, data: ArrayLike, *, check: bool = True) -> np.ndarray:
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
