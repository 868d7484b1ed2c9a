"""Scalar parameter validation with uniform messages.

Every public constructor and function in dperm validates its scalar inputs through these
helpers, so that bad input is reported the same way everywhere::

    >>> probability("delta", 1.5)
    Traceback (most recent call last):
    ...
    spec.errors.PrivacyParameterError: delta (1.5) must be in (0, 1)

Wrong types (strings, booleans, None, complex numbers) raise :class:`TypeError`; NaN and the
infinities raise the value error class given (by default :class:`ParameterError`).
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import Collection

from spec.errors import ParameterError, PrivacyParameterError
from spec.vocabulary import VOCABULARY

__all__ = [
    "real",
    "positive",
    "nonnegative",
    "probability",
    "interval",
    "integer",
    "positive_integer",
    "epsilon",
    "delta",
    "choice",
    "error_class",
]

#: Parameter names whose bad values are *privacy* errors: the canonical names with
#: ``privacy=True`` in :mod:`spec.vocabulary`, and ``alpha``, an audit's significance level (the
#: error rate of a privacy verdict; not a record symbol, so not in the vocabulary).
PRIVACY_PARAMETERS = frozenset(t.name for t in VOCABULARY.values() if t.privacy) | {"alpha"}


def error_class(name: str, error: type[ParameterError] | None = None) -> type[ParameterError]:
    """The value-error class used for parameter ``name`` (privacy parameters get their own)."""
    if error is not None:
        return error
    base = name.split(".")[-1]
    return PrivacyParameterError if base in PRIVACY_PARAMETERS else ParameterError


def _show(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


def real(name: str, value: object, *, error: type[ParameterError] | None = None) -> float:
    """Return ``value`` as a finite float, or raise.

    Parameters
    ----------
    name : str
        Parameter name used in the message.
    value : real number
        Python or numpy real scalar (``bool`` is rejected).
    error : type, optional
        Value-error class; defaults to :class:`PrivacyParameterError` for privacy parameters
        and :class:`ParameterError` otherwise.
    """
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):
        raise TypeError(f"{name} ({value!r}) must be a real number, not a boolean")
    if not isinstance(value, numbers.Real):
        # numpy 0-d arrays and mpmath mpf are accepted when they convert exactly.
        if hasattr(value, "__float__") and not isinstance(value, (str, bytes, complex)):
            try:
                shape = getattr(value, "shape", ())
            except Exception:  # pragma: no cover - defensive
                shape = ()
            if shape not in ((), None):
                raise TypeError(f"{name} must be a scalar, got an array of shape {shape}")
            if type(value).__module__.startswith("mpmath") or shape == ():
                value = float(value)
            else:  # pragma: no cover - defensive
                raise TypeError(f"{name} ({value!r}) must be a real number")
        else:
            raise TypeError(f"{name} ({value!r}) must be a real number, got {type(value).__name__}")
    x = float(value)
    if math.isnan(x):
        raise error_class(name, error)(f"{name} (nan) must be a finite real number")
    if math.isinf(x):
        raise error_class(name, error)(f"{name} ({x}) must be finite")
    return x


def positive(name: str, value: object, *, error: type[ParameterError] | None = None) -> float:
    """Finite and ``> 0``."""
    x = real(name, value, error=error)
    if not x > 0:
        raise error_class(name, error)(f"{name} ({_show(x)}) must be > 0")
    return x


def nonnegative(name: str, value: object, *, error: type[ParameterError] | None = None) -> float:
    """Finite and ``>= 0``."""
    x = real(name, value, error=error)
    if not x >= 0:
        raise error_class(name, error)(f"{name} ({_show(x)}) must be >= 0")
    return x


def interval(name: str, value: object, low: float, high: float, *, closed: str = "neither",
             error: type[ParameterError] | None = None) -> float:
    """Finite and inside an interval.

    Parameters
    ----------
    closed : {"neither", "left", "right", "both"}
        Which ends belong to the interval.
    """
    x = real(name, value, error=error)
    lo_ok = x >= low if closed in ("left", "both") else x > low
    hi_ok = x <= high if closed in ("right", "both") else x < high
    if not (lo_ok and hi_ok):
        lb = "[" if closed in ("left", "both") else "("
        rb = "]" if closed in ("right", "both") else ")"
        raise error_class(name, error)(
            f"{name} ({_show(x)}) must be in {lb}{_fmt(low)}, {_fmt(high)}{rb}"
        )
    return x


def _fmt(bound: float) -> str:
    if isinstance(bound, float) and bound.is_integer():
        return str(int(bound))
    if isinstance(bound, float) and math.isinf(bound):
        return "inf" if bound > 0 else "-inf"
    return str(bound)


def probability(name: str, value: object, *, error: type[ParameterError] | None = None) -> float:
    """Finite and in the open interval ``(0, 1)`` (e.g. delta)."""
    return interval(name, value, 0.0, 1.0, closed="neither", error=error)


def integer(name: str, value: object, *, minimum: int | None = None, error: type[ParameterError] | None = None) -> int:
    """An integral value (Python or numpy integer; floats are rejected), optionally ``>= minimum``."""
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):
        raise TypeError(f"{name} ({value!r}) must be an integer, not a boolean")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} ({value!r}) must be an integer, got {type(value).__name__}") from None
    if minimum is not None and n < minimum:
        raise error_class(name, error)(f"{name} ({n}) must be >= {minimum}")
    return n


def positive_integer(name: str, value: object, *, error: type[ParameterError] | None = None) -> int:
    """An integer ``>= 1``."""
    return integer(name, value, minimum=1, error=error)


def epsilon(value: object, *, name: str = "epsilon") -> float:
    """A privacy budget: finite and ``> 0``."""
    return positive(name, value, error=PrivacyParameterError)


def delta(value: object, *, name: str = "delta", allow_zero: bool = False) -> float:
    """A failure probability: in ``(0, 1)``, or ``[0, 1)`` when ``allow_zero``."""
    closed = "left" if allow_zero else "neither"
    return interval(name, value, 0.0, 1.0, closed=closed, error=PrivacyParameterError)


def choice(name: str, value: object, options: Collection[str]) -> str:
    """One of a fixed set of strings."""
    if not isinstance(value, str):
        raise TypeError(f"{name} ({value!r}) must be a string, one of {sorted(options)}")
    if value not in options:
        raise ParameterError(f"{name} ({value!r}) must be one of {', '.join(sorted(options))}")
    return value
