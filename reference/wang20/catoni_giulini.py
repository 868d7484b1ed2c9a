r"""The Catoni-Giulini soft-truncated mean (wang20 eq. 6-10) in floating point, stably and safely.

One coordinate of Algorithm 4's robust gradient (eq. 10) is ``(s/n) sum_i E phi(X_i)`` with
``X_i ~ N(a_i, b_i^2)``, ``a_i = x_i/s``, ``b_i = |x_i|/(s sqrt(beta))`` (``wang20.eq_9``): each
summand is ``s`` times

    E phi(X) = a (1 - b^2/2) - a^3/6 + C(a, b),                                (eq. 9)

and ``|E phi(X)| <= c = 2 sqrt(2)/3`` for every law of X -- the whole sensitivity argument
(``wang20.thm_6``, ``wang20.alg_4``).

The hazard (``wang20.eq_9`` CAVEAT flag). For a heavy-tailed record the two addends of eq. (9) are
of size ``|a|^3`` while their sum is at most ``c``: at ``a = 1e6`` float64 is off by more than the
whole range, so a term evaluated as printed can leave ``[-c, c]`` and the sensitivity bound fails
in floating point. :func:`smoothed_truncation` therefore evaluates each term in one of three
regimes, each accurate in double precision, and then clamps it to ``[-c_, c_]`` with ``c_`` the
largest double not above ``c`` (a no-op in exact arithmetic; in floating point it makes every
summand, hence the sensitivity, obey the bound the noise is calibrated to):

1. ``|a| + 40 b < sqrt 2``: ``P(|X| > sqrt 2) < Phi(-40)``, below the smallest double, so every
   term of ``C`` underflows to 0; the polynomial alone is eq. (9) (the common case: ``s`` grows
   like ``sqrt n``).
2. otherwise, ``|a| + b <= 8``: eq. (9) with ``C`` in erfc form (:func:`correction`); the addends
   are at most ``(|a| + b + 2)^3 <= 1000`` in size, so the absolute error is below ``1e-12``.
3. otherwise (the tail): ``E phi(X) = c (P(X > sqrt 2) - P(X < -sqrt 2)) + E[(X - X^3/6)
   1{|X| <= sqrt 2}]``, the probabilities by erfc and the bounded middle integral by 64-point
   Gauss-Legendre quadrature of ``(x - x^3/6) phi((x - a)/b)/b`` on ``[-sqrt 2, sqrt 2]``: no
   cancellation (every term is at most ``c`` times a probability), and the density is smooth on
   the interval in this regime (its peak ``a`` lies far outside it, or ``b > 4``).

``b = 0`` (``x_i = 0``) gives ``phi(a)`` (the limit ``C(a, 0) = phi(a) - a + a^3/6``). The tests
compare every regime with :func:`spec.wang20.catoni_giulini.smoothed_truncation` (mpmath, precision
raised with ``|a|`` and ``b``) and show the clamp holding where eq. (9) in floats fails.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from spec import validate
from spec.wang20 import catoni_giulini as _spec

__all__ = [
    "PHI_BOUND",
    "phi",
    "correction",
    "smoothed_truncation",
    "robust_mean",
]

#: ``c = 2 sqrt(2)/3`` rounded down: every clamped term lies within the exact bound.
PHI_BOUND = float(np.nextafter(_spec.EQ_9.evaluate("phi_bound"), 0.0))
if PHI_BOUND > float(_spec.EQ_9.evaluate_exact("phi_bound")):  # pragma: no cover - rounding logic
    raise AssertionError("PHI_BOUND must not exceed 2 sqrt(2)/3")
_ROOT2 = math.sqrt(2.0)
_ROOT_2PI = math.sqrt(2.0 * math.pi)
_EXACT_LIMIT = 8.0
_NEGLIGIBLE = 40.0
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(64)
_X = _ROOT2 * _NODES  # nodes on [-sqrt 2, sqrt 2]
_W = _ROOT2 * _WEIGHTS
_CUBIC = _X - _X**3 / 6.0


def phi(x):
    """eq. (6): ``x - x^3/6`` on ``[-sqrt 2, sqrt 2]``, ``+-2 sqrt(2)/3`` outside (exact value ``c``)."""
    x = np.asarray(x, dtype=float)
    c = 2.0 * _ROOT2 / 3.0
    return np.where(x > _ROOT2, c, np.where(x < -_ROOT2, -c, x - x**3 / 6.0))


def _upper_tail(v):
    """``P(Z > v) = erfc(v / sqrt 2)/2`` (no cancellation in either tail)."""
    return 0.5 * special.erfc(v / _ROOT2)


def correction(a, b):
    """``C(a, b)`` of eq. (9) in erfc form (``wang20.eq_9`` formula ``correction``); ``C(a, 0) = phi(a) - a + a^3/6``.

    Accurate to about ``1e-16 (|a| + b + 2)^3`` (cancellation between its terms); use it for
    ``|a| + b`` up to about 8 (:func:`smoothed_truncation` does).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape)
    zero = b == 0
    out[zero] = phi(a[zero]) - a[zero] + a[zero] ** 3 / 6.0
    av, bv = a[~zero], b[~zero]
    with np.errstate(over="ignore", under="ignore"):
        vm = (_ROOT2 - av) / bv
        vp = (_ROOT2 + av) / bv
        fm = _upper_tail(vm)  # P(X > sqrt 2)
        fp = _upper_tail(vp)  # P(X < -sqrt 2)
        em = np.exp(-vm * vm / 2.0)
        ep = np.exp(-vp * vp / 2.0)
        c = 2.0 * _ROOT2 / 3.0
        # products of a vanishing exponential with a growing power of v: 0 * inf never happens, as
        # v^2 e^{-v^2/2} is formed after the exponential has underflowed to 0
        out[~zero] = (
            c * (fm - fp)
            - (av - av**3 / 6.0) * (fm + fp)
            + bv * (1.0 - av**2 / 2.0) * (ep - em) / _ROOT_2PI
            + av * bv**2 / 2.0 * (fp + fm + (vp * ep + vm * em) / _ROOT_2PI)
            + bv**3 * ((2.0 + vm**2) * em - (2.0 + vp**2) * ep) / (6.0 * _ROOT_2PI)
        )
    return out


def _tail_regime(a, b):
    """Regime 3: ``c (P(X > sqrt 2) - P(X < -sqrt 2))`` plus the middle integral by Gauss-Legendre."""
    c = 2.0 * _ROOT2 / 3.0
    with np.errstate(over="ignore", under="ignore"):
        upper = _upper_tail((_ROOT2 - a) / b)
        lower = _upper_tail((_ROOT2 + a) / b)
        z = (_X[None, :] - a[:, None]) / b[:, None]
        density = np.exp(-z * z / 2.0) / (_ROOT_2PI * b[:, None])
    return c * (upper - lower) + density @ (_W * _CUBIC)


def smoothed_truncation(a, b):
    """``E phi(X)``, ``X ~ N(a, b^2)``, elementwise, evaluated stably and clamped to ``[-c, c]`` (module docstring).

    Parameters
    ----------
    a : array_like
        Locations (``x/s`` in eq. 10).
    b : array_like
        Scales ``b >= 0`` (``|x|/(s sqrt(beta))`` in eq. 10), broadcast against ``a``.

    Returns
    -------
    ndarray
        Within ``[-PHI_BOUND, PHI_BOUND]``, PHI_BOUND the largest double not above ``2 sqrt(2)/3``.

    Privacy
    -------
    ``wang20.eq_9`` (CAVEAT flag: the clamp), ``wang20.thm_6``, ``wang20.alg_4``.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = np.broadcast_arrays(a, b)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b)) and np.all(b >= 0)):
        raise ValueError("a must be finite and b finite and >= 0")
    return _smoothed(a, b)


def _smoothed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`smoothed_truncation` on checked arrays of one shape."""
    shape = a.shape
    a, b = a.reshape(-1), b.reshape(-1)
    # regime 1 everywhere first (the common case), then the others where they apply (there the
    # polynomial may overflow: those entries are overwritten)
    with np.errstate(over="ignore", invalid="ignore"):
        out = a * (1.0 - 0.5 * b * b) - a * a * a / 6.0
    loud = np.abs(a) + _NEGLIGIBLE * b >= _ROOT2
    if loud.any():
        idx = np.nonzero(loud)
        al, bl = a[idx], b[idx]
        exact = np.abs(al) + bl <= _EXACT_LIMIT
        values = np.empty(al.shape)
        ae, be = al[exact], bl[exact]
        values[exact] = ae * (1.0 - 0.5 * be * be) - ae * ae * ae / 6.0 + correction(ae, be)
        at, bt = al[~exact], bl[~exact]
        tail = np.empty(at.shape)
        zero = bt == 0
        tail[zero] = phi(at[zero])
        if (~zero).any():
            tail[~zero] = _tail_regime(at[~zero], bt[~zero])
        values[~exact] = tail
        out[idx] = values
    return np.clip(out, -PHI_BOUND, PHI_BOUND, out=out).reshape(shape)


def robust_mean(values, *, truncation_scale, noise_precision, axis=-1) -> np.ndarray:
    """``(s/n) sum_i E phi(X_i)`` along ``axis``: eq. (10) without its noise, for every other index.

    Parameters
    ----------
    values : array_like
        The n values ``x_i`` (gradient coordinates) along ``axis``, finite, unbounded.
    truncation_scale : float
        ``s > 0`` (``wang20.lemma_3`` / ``wang20.alg_4`` formula ``truncation_scale``).
    noise_precision : float
        ``beta > 0`` (the multiplicative noise ``eta ~ N(0, 1/beta)`` of eq. 8).

    axis : int
        The axis of the n values (Algorithm 4 passes the per-record gradients ``(runs, n, d)``
        with ``axis=-2``).

    Returns
    -------
    ndarray
        ``values`` without ``axis``. Each summand lies in ``[-c s, c s]`` (clamped), so replacing one value moves the result by at
        most ``2 c s/n`` (``wang20.eq_9``, formula ``coordinate_sensitivity`` of ``wang20.alg_4``),
        up to the rounding of an average of n bounded terms (relative ``n 2^-53``).

    Privacy
    -------
    ``wang20.thm_6``, ``wang20.alg_4``.
    """
    x = np.asarray(values, dtype=float)
    s = validate.positive("truncation_scale", truncation_scale)
    beta = validate.positive("noise_precision", noise_precision)
    root_beta = math.sqrt(beta)
    a = x / s
    # regime 1 with b = |a|/sqrt(beta): a (1 - b^2/2) - a^3/6 = a - (1/(2 beta) + 1/6) a^3; it applies
    # where |a| + 40 b < sqrt 2, i.e. |a| < sqrt 2/(1 + 40/sqrt(beta))
    with np.errstate(over="ignore", invalid="ignore"):  # overflowing entries are loud: overwritten below
        out = a * a
        out *= a
        out *= -(0.5 / beta + 1.0 / 6.0)
        out += a
    loud = np.abs(a) >= _ROOT2 / (1.0 + _NEGLIGIBLE / root_beta)
    if loud.any():
        idx = np.nonzero(loud)
        al = a[idx]
        out[idx] = _smoothed(al, np.abs(al) / root_beta)
    np.clip(out, -PHI_BOUND, PHI_BOUND, out=out)
    result = s * np.mean(out, axis=axis)
    if not np.all(np.isfinite(result)):
        raise ValueError("values must be finite (a gradient overflowed?)")
    return result
