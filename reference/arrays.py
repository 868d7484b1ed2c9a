"""Array helpers shared by the reference building blocks (one copy each).

* :func:`l2_norm` -- the Euclidean norm along the last axis, safe for tiny and huge entries;
* :func:`scalar_out` -- a 0-d result becomes a numpy scalar (as in scipy.stats);
* :func:`runs` -- the one rule for the number of independent runs: an integer >= 1;
* :func:`real_array`, :func:`finite`, :func:`vector`, :func:`points` -- input validation with
  the project's messages (``x (shape (3,)) must have shape (..., 2)``): TypeError for non-real
  input, :class:`~spec.errors.ParameterError` for a wrong shape or non-finite entries;
* :data:`ArrayLike` -- what array inputs accept (:data:`numpy.typing.ArrayLike`, re-exported so
  that the reference's signatures name one alias, beside :data:`reference.rng.RngLike` and
  :data:`reference.tape.NoiseLike`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from spec import validate
from spec.errors import ParameterError

__all__ = ["ArrayLike", "l2_norm", "scalar_out", "runs", "real_array", "finite", "vector", "points"]


def l2_norm(x: np.ndarray) -> np.ndarray:
    """Euclidean norm along the last axis of a float array.

    The entries are divided by the largest magnitude before they are squared, so vectors with
    tiny or huge (finite) entries neither underflow nor overflow; a vector with an infinite
    entry has norm ``inf``; the zero vector has norm 0.

    >>> float(l2_norm(np.array([3e200, 4e200])))
    5e+200
    >>> l2_norm(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [5.0, 0.0]
    """
    top = _row_max(np.abs(x))
    if top.ndim and _finite_positive(top):
        # every row finite and non-zero: the expression below without its two selections, which
        # then pick ``top`` and the product everywhere (same bits; the loops' per-step case)
        y = x / top[..., None]
        return top * np.sqrt(np.einsum("...i,...i->...", y, y))
    finite = np.isfinite(top) & (top > 0)
    safe = np.where(finite, top, 1.0)
    y = x / safe[..., None]
    return np.where(finite, safe * np.sqrt(np.einsum("...i,...i->...", y, y)), top)


_INF = float("inf")

#: Up to this many row maxima are checked in Python (a few runs of a loop: three numpy calls cost more).
_FEW = 16


def _finite_positive(top: np.ndarray) -> bool:
    """Whether every entry of ``top`` is finite and > 0."""
    if top.size <= _FEW:
        return all(0.0 < v < _INF for v in top.ravel().tolist())
    return bool((np.isfinite(top) & (top > 0)).all())


#: Rows of at most this many entries, in arrays of at least ``_MANY_ROWS`` rows, take their maximum
#: column by column. numpy reduces a short last axis row by row, about 40 ns a row; an elementwise
#: maximum over whole columns costs under 1 us per column plus ~1 ns per row, so it wins for the
#: batched loops' (runs, p) states (3.6x at (1200, 8)) and loses for long or few rows
#: (``python benchmarks/bench_norms.py``). The maximum of the same numbers is the same number.
_SHORT_ROW = 8
_MANY_ROWS = 256


def _row_max(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=-1, initial=0.0)`` for ``a >= 0`` (or NaN), bit for bit."""
    p = a.shape[-1] if a.ndim else 0
    if a.ndim > 1 and 2 <= p <= _SHORT_ROW and a.size >= _MANY_ROWS * p:
        return _column_max(a)
    if p:
        return a.max(axis=-1)  # ``initial=0.0`` changes nothing when every row has an entry >= 0 (or NaN)
    return a.max(axis=-1, initial=0.0)


def _column_max(a: np.ndarray) -> np.ndarray:
    """The maximum along the last axis (at least 2 entries), one elementwise maximum per column."""
    top = np.maximum(a[..., 0], a[..., 1])
    for j in range(2, a.shape[-1]):
        np.maximum(top, a[..., j], out=top)
    return top


def scalar_out(a: np.ndarray | float) -> np.ndarray | float:
    """``a`` itself, or its scalar when ``a`` is a 0-d array."""
    return a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a


def runs(value: object) -> int:
    """The number of independent runs of a batched algorithm or mechanism: an integer >= 1.

    >>> runs(3)
    3
    """
    return validate.positive_integer("runs", value)


def real_array(name: str, value: object) -> np.ndarray:
    """``value`` as a float array; TypeError for non-real input (strings, bools, complex)."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} ({value!r}) must be an array of real numbers")
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged nested lists and the like
        raise TypeError(f"{name} must be an array of real numbers ({exc})") from None
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must be an array of real numbers, not booleans")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} (dtype {arr.dtype}) must be an array of real numbers")
    return arr.astype(float)


def finite(name: str, arr: np.ndarray) -> np.ndarray:
    """``arr`` itself; :class:`~spec.errors.ParameterError` naming the first non-finite entry."""
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)].reshape(-1)[0]
        raise ParameterError(f"{name} (contains {bad}) must be finite")
    return arr


def vector(name: str, value: object, dim: int | None = None) -> np.ndarray:
    """A finite 1-D float vector, of length ``dim`` when given."""
    arr = real_array(name, value)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ParameterError(f"{name} (shape {arr.shape}) must be a non-empty 1-D array")
    if dim is not None and arr.shape[0] != dim:
        raise ParameterError(f"{name} (length {arr.shape[0]}) must have length dim ({dim})")
    return finite(name, arr)


def points(name: str, value: object, dim: int) -> np.ndarray:
    """A finite float array of shape ``(..., dim)``."""
    arr = real_array(name, value)
    if arr.ndim == 0 or arr.shape[-1] != dim:
        raise ParameterError(
            f"{name} (shape {arr.shape}) must have shape (..., {dim}): last axis = the domain dimension"
        )
    return finite(name, arr)
