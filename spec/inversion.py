"""The one inversion: the smallest (or largest) value at which a certificate holds.

Every calibration that is not a closed form inverts a monotone certificate: the smallest sigma
whose certified epsilon is at most the target (``gaussian.analytic``, ``bst14.thm_II_1``'s
accountant, ``wang17.svrg_step_privacy``), the smallest epsilon that an exact privacy profile
certifies at a delta (``gaussian.exact_epsilon``), the largest epsilon at which a printed
calibration is still private (``gaussian.failure_epsilon``), the smallest walk length whose
chain is close enough to stationarity. They all go through :func:`smallest` or :func:`largest`,
and nothing else in dperm searches over a calibration.

The certificate is given as a *margin*: ``margin(x) <= 0`` exactly when it holds at ``x``
(:func:`log_ratio` turns "value <= target" into one). For :func:`smallest` the margin is
nonincreasing in ``x`` (more noise, more privacy); for :func:`largest` it is nondecreasing.

Tolerance
---------
One tolerance for every calibration: **one unit in the last place**. The search runs over the
doubles themselves (their bit patterns are ordered like their values), and it stops only at two
adjacent doubles, one where the certificate holds and one where it fails. The returned value is
the one where it holds: for :func:`smallest` the exact root rounded *up* to a double, for
:func:`largest` rounded *down* -- always the safe side, never more than :data:`TOLERANCE`
(``2**-52``) relative from the exact root of the margin as computed. With ``integer=True`` the
search runs over the integers and the result is exact. Because the answer is pinned to the pair
of neighbours, it does not depend on the start point or the path of the search.

Verify step: the margin is evaluated once more at the returned value, and the search raises
:class:`CertificateError` unless it holds there (a margin that is not a deterministic function of
``x`` cannot produce a calibration).

Search: the bracket is found from ``start`` by steps that double in size (on the log scale), then
narrowed by regula falsi with the Illinois modification on the bit patterns (which are close to
a log scale), falling back to halving whenever two steps have not halved the bracket; so it needs
at most about twice the evaluations of plain bisection and far fewer on smooth certificates.

>>> from spec import inversion
>>> root = inversion.smallest(lambda x: inversion.log_ratio(2.0, x * x), start=1.0)   # x^2 >= 2
>>> root, root * root >= 2.0
(1.4142135623730951, True)
>>> import math
>>> math.nextafter(root, 0) ** 2 >= 2.0     # the double below does not certify
False
>>> inversion.smallest(lambda k: 1000 - 2 ** k, start=1, integer=True)   # 2^k >= 1000
10
"""

from __future__ import annotations

import math
import struct
from typing import Callable

import mpmath

__all__ = ["TOLERANCE", "CertificateError", "NotCertifiable", "smallest", "largest", "log_ratio"]

#: Relative tolerance of every inversion: the returned double and its neighbour on the other
#: side of the root are adjacent, so the result is within one unit in the last place.
TOLERANCE = 2.0**-52

_MAX_KEY = 0x7FEFFFFFFFFFFFFF  # bit pattern of the largest finite double
_BINADE = 1 << 52  # bit-pattern distance of a factor 2


class CertificateError(ArithmeticError):
    """No value in the search range certifies the claim, or the verify step failed."""


class NotCertifiable(CertificateError):
    """The certificate holds nowhere in the search range (an accountant may report infinity)."""


def _key(x: float) -> int:
    """Bit pattern of a double >= 0, ordered like the values (+0.0 -> 0)."""
    return struct.unpack("<q", struct.pack("<d", float(x)))[0]


def _value(k: int) -> float:
    return struct.unpack("<d", struct.pack("<q", k))[0]


def log_ratio(value: float | mpmath.mpf, target: float | mpmath.mpf) -> float:
    """``log(value / target)`` as a float: the margin of "``value <= target``" (<= 0 when it holds).

    Works on floats and mpmath numbers (a tiny mpmath value keeps its logarithm where a float
    would underflow to 0). ``value = 0`` gives ``-inf``, ``value = inf`` gives ``+inf``.

    >>> log_ratio(1.0, 2.0) < 0 < log_ratio(3.0, 2.0)
    True
    >>> log_ratio(mpmath.mpf("1e-400"), 1e-5) < -800
    True
    """
    if value == 0:
        return -math.inf
    if value == math.inf or (isinstance(value, mpmath.mpf) and mpmath.isinf(value)):
        return math.inf if value > 0 else -math.inf
    if isinstance(value, mpmath.mpf) or isinstance(target, mpmath.mpf):
        return float(mpmath.log(mpmath.mpf(value) / mpmath.mpf(target)))
    return math.log(value / target)


def smallest(margin: Callable[[float], float], *, start: float, lower: float = 0.0,
             upper: float | None = None, integer: bool = False) -> float | int:
    """The smallest ``x > lower`` with ``margin(x) <= 0`` (to one ulp, rounded up; module docstring).

    Parameters
    ----------
    margin : callable
        ``x -> float``, nonincreasing; ``<= 0`` where the certificate holds.
    start : float
        A first guess ``> lower`` (a good one saves evaluations; any gives the same result).
    lower : float
        The search stays above it (exclusive; default 0). If the certificate holds at the
        smallest value above it, that value is returned.
    upper : float, optional
        Largest value tried (default: the largest finite double, or ``2**62`` integers).
    integer : bool
        Search the integers ``> lower`` (exact result).

    Returns
    -------
    float or int
        ``x`` with ``margin(x) <= 0`` (verified) whose neighbour below fails.

    Raises
    ------
    NotCertifiable
        If the certificate fails at ``upper`` (a :class:`CertificateError`).
    CertificateError
        If the verify step fails.
    """
    return _invert(margin, start, lower, upper, integer, increasing=False)


def largest(margin: Callable[[float], float], *, start: float, lower: float = 0.0,
            upper: float | None = None, integer: bool = False) -> float | int:
    """The largest ``x`` in ``(lower, upper]`` with ``margin(x) <= 0`` (to one ulp, rounded down).

    ``margin`` is nondecreasing (the certificate holds below a threshold: the largest epsilon at
    which a calibration stays private). Raises :class:`CertificateError` if it holds at
    ``upper`` (no threshold below it) or fails at the smallest value above ``lower``.
    Parameters as in :func:`smallest`.
    """
    return _invert(margin, start, lower, upper, integer, increasing=True)


def _invert(margin, start, lower, upper, integer, *, increasing):
    if integer:
        to_x = int
        lo_key = int(math.floor(lower)) + 1
        hi_key = int(upper) if upper is not None else 2**62
        start_key = max(lo_key, min(hi_key, int(start)))
        step0 = 1
    else:
        if not (math.isfinite(lower) and lower >= 0):
            raise ValueError(f"lower ({lower!r}) must be a finite number >= 0")
        to_x = _value
        lo_key = _key(lower) + 1
        hi_key = _key(upper) if upper is not None else _MAX_KEY
        if not (isinstance(start, (int, float)) and math.isfinite(start) and start > lower):
            raise ValueError(f"start ({start!r}) must be a finite number > lower ({lower!r})")
        start_key = max(lo_key, min(hi_key, _key(start)))
        step0 = _BINADE
    if hi_key < lo_key:
        raise ValueError(f"upper ({upper!r}) must be > lower ({lower!r})")
    cache: dict[int, float] = {}

    def f(k: int) -> float:
        if k not in cache:
            value = float(margin(to_x(k)))
            if math.isnan(value):
                raise CertificateError(f"the margin is nan at {to_x(k)!r}")
            cache[k] = value
        return cache[k]

    def holds(k: int) -> bool:
        return f(k) <= 0

    # The certificate holds above the root for smallest, below it for largest. From k0, walk away
    # from the side it is on, in steps that double, until the answer changes (or the range ends).
    good_above = not increasing
    a = start_key
    direction = -1 if holds(a) == good_above else 1
    step = step0
    while True:
        b = min(max(a + direction * step, lo_key), hi_key)
        if b == a or holds(b) != holds(a):
            break
        a, step = b, step * 2
    if b == a:
        return _edge(a, lo_key, hi_key, holds, to_x, increasing)
    lo, hi = (a, b) if a < b else (b, a)
    result = _narrow(f, holds, lo, hi)
    if not holds(result) or _verify(margin, to_x(result)) > 0:
        raise CertificateError(f"verify step failed: the certificate does not hold at {to_x(result)!r} "
                               "on a second evaluation (the margin is not a function of x)")
    return to_x(result)


def _verify(margin, x) -> float:
    """The verify step's second evaluation (a function of its own so tests can count it)."""
    return float(margin(x))


def _edge(k, lo_key, hi_key, holds, to_x, increasing):
    """The search reached the end of the range without the answer changing."""
    if not increasing:
        if holds(k):  # holds all the way down to the smallest value allowed
            return to_x(k)
        raise NotCertifiable(f"no value up to {to_x(hi_key)!r} certifies the claim")
    if holds(k):
        raise CertificateError(f"the certificate still holds at {to_x(hi_key)!r}: no threshold below it")
    raise NotCertifiable(f"the certificate fails already at {to_x(lo_key)!r}")


def _narrow(f, holds, lo: int, hi: int) -> int:
    """Shrink the key bracket (lo, hi), whose ends disagree, to adjacent keys; the key that holds."""
    wlo, whi = f(lo), f(hi)  # Illinois weights: the secant's copies of the end values
    kept = 0  # +1: hi kept in the last step, -1: lo kept
    checkpoint, since = hi - lo, 0
    while hi - lo > 1:
        width = hi - lo
        secant = since < 2 and math.isfinite(wlo) and math.isfinite(whi) and wlo != whi
        if secant:
            k = lo + int(round(width * (wlo / (wlo - whi))))
        else:
            k = lo + width // 2
        k = min(max(k, lo + 1), hi - 1)
        value = f(k)
        if holds(k) == holds(hi):
            hi, whi = k, value
            if kept == -1:
                wlo /= 2
            kept = -1
        else:
            lo, wlo = k, value
            if kept == 1:
                whi /= 2
            kept = 1
        since += 1
        if hi - lo <= checkpoint // 2:
            checkpoint, since = hi - lo, 0
        elif not secant:  # a halving step always halves
            checkpoint, since = hi - lo, 0
    return hi if holds(hi) else lo
