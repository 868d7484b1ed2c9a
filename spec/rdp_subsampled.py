"""Numerics of the subsampled Gaussian's Renyi divergence: MTZ19 (Poisson) and WBK19 (without replacement).

The records and the public accountant are in :mod:`spec.rdp`, which re-exports
:func:`poisson_gaussian` and :func:`without_replacement_gaussian`; this module holds the
arithmetic (mpmath series and quadrature at :data:`spec.record.PRECISION_DIGITS` or more, rounded
up), the validation of Renyi orders and sampling rates shared by the accountants, and their caches.
"""

from __future__ import annotations

import functools
import math
from typing import Iterable

import mpmath
import sympy as sp

from spec import validate
from spec.errors import ParameterError
from spec.record import ALPHA, PRECISION_DIGITS, Rounding, round_safe

__all__ = [
    "GAUSSIAN_RDP",
    "SAMPLING_SCHEMES",
    "DEFAULT_ORDERS",
    "DEFAULT_INTEGER_ORDERS",
    "MAX_ORDER",
    "poisson_gaussian",
    "without_replacement_gaussian",
    "clear_caches",
]

#: The Gaussian mechanism's RDP curve alpha Delta^2 / (2 sigma^2) (mironov17 Proposition 7): the
#: expression of record ``rdp.gaussian``, and the cap of both subsampled bounds.
GAUSSIAN_RDP = ALPHA * sp.Symbol("Delta", positive=True) ** 2 / (2 * sp.Symbol("sigma", positive=True) ** 2)
gaussian_rdp_mp = sp.lambdify(
    (ALPHA, sp.Symbol("sigma", positive=True), sp.Symbol("Delta", positive=True)), GAUSSIAN_RDP, "mpmath"
)

# --------------------------------------------------------------------------- orders

#: Integer orders used by the without-replacement accountant (WBK19 is stated for integers).
DEFAULT_INTEGER_ORDERS: tuple[int, ...] = tuple(range(2, 257)) + (288, 320, 384, 448, 512)

#: Orders used by the Gaussian and Poisson accountants: a few fractional orders near 1 (where
#: the optimum lies for large budgets), every integer up to 256, and a few larger orders
#: (where the optimum lies for very small budgets).
DEFAULT_ORDERS: tuple[float | int, ...] = tuple(
    sorted((1.25, 1.5, 1.75, 2.25, 2.5, 2.75, 3.5, 4.5) + DEFAULT_INTEGER_ORDERS + (640, 768, 1024))
)

SAMPLING_SCHEMES = ("poisson", "without-replacement")
_BOUNDS = ("thm27", "thm9")

# --------------------------------------------------------------------------- validation


#: Largest order accepted: the per-order cost grows linearly (MTZ19) or quadratically (WBK19)
#: with alpha, and orders beyond this are never the minimiser for meaningful budgets.
MAX_ORDER = 10_000


def check_order(alpha: float, *, name: str = "alpha") -> float | int:
    """A finite order in (1, MAX_ORDER], returned as int when integral."""
    x = validate.real(name, alpha)
    if not x > 1:
        raise validate.error_class(name)(f"{name} ({alpha!r}) must be > 1")
    if x > MAX_ORDER:
        raise validate.error_class(name)(f"{name} ({alpha!r}) must be <= {MAX_ORDER}")
    return int(x) if float(x).is_integer() else x


def check_integer_order(alpha: float, *, name: str = "alpha") -> int:
    x = check_order(alpha, name=name)
    if not isinstance(x, int):
        raise validate.error_class(name)(
            f"{name} ({alpha!r}) must be an integer >= 2: the without-replacement bound (wbk19) "
            "is stated for integer orders (RDP is nondecreasing in alpha, so the next integer "
            "above is a valid substitute)"
        )
    return x


def check_sampling_rate(value: object) -> float:
    return validate.interval("sampling_rate", value, 0.0, 1.0, closed="right")


def check_orders(orders: Iterable[float] | None, *, integer: bool) -> tuple[float, ...]:
    if orders is None:
        return DEFAULT_INTEGER_ORDERS if integer else DEFAULT_ORDERS
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
        raise TypeError(f"orders ({orders!r}) must be a sequence of Renyi orders")
    orders = tuple(orders)
    if not orders:
        raise ParameterError("orders (()) must contain at least one order")
    check = check_integer_order if integer else check_order
    return tuple(check(a, name=f"orders[{n}]") for n, a in enumerate(orders))


def resolve_scheme(sampling_rate: float | None, sampling: str | None) -> tuple[str, float]:
    """('gaussian' | 'poisson' | 'without-replacement', q)."""
    if sampling is not None:
        validate.choice("sampling", sampling, SAMPLING_SCHEMES)
    if sampling_rate is None:
        if sampling is not None:
            raise ParameterError(f"sampling ({sampling!r}) needs a sampling_rate")
        return "gaussian", 1.0
    q = check_sampling_rate(sampling_rate)
    if q == 1.0:
        return "gaussian", 1.0
    if sampling is None:
        raise ParameterError(
            f"sampling (None) must be one of {', '.join(SAMPLING_SCHEMES)} when sampling_rate ({q!r}) < 1"
        )
    return sampling, q


# --------------------------------------------------------------------------- caches

_TABLES: dict = {}
_MAX_TABLES = 256  # tables are per (sigma, sensitivity[, rate]); bound the memory of long sessions


def _store(key, value):
    if len(_TABLES) >= _MAX_TABLES:
        _TABLES.clear()
    _TABLES[key] = value
    return value


def clear_caches() -> None:
    """Forget cached per-order values and tables (used by the benchmark to time cold runs)."""
    _TABLES.clear()
    _mtz19_int.cache_clear()
    _mtz19_frac.cache_clear()
    wbk19_rdp_mp.cache_clear()


def _mp(x):
    return mpmath.mpf(x)



# --------------------------------------------------------------------------- MTZ19 (Poisson)


def _binomial_row(n: int) -> list:
    """[C(n, j) for j = 0..n] as exact Python integers."""
    row = [1]
    c = 1
    for j in range(1, n + 1):
        c = c * (n - j + 1) // j
        row.append(c)
    return row


def _poisson_weights(sigma: float, sensitivity: float, q: float, kmax: int) -> list:
    """[(q/(1-q))^k expm1(k(k-1) Delta^2 / (2 sigma^2)) for k = 0..kmax], cached per (sigma, q)."""
    key = ("mtz19", sigma, sensitivity, q)
    table = _TABLES.get(key, [])
    if len(table) <= kmax:
        with mpmath.workdps(PRECISION_DIGITS):
            c = (_mp(sensitivity) / _mp(sigma)) ** 2 / 2
            ratio = _mp(q) / (1 - _mp(q))  # 1 - q is exact for a float q in (0, 1)
            table = list(table)
            for k in range(len(table), kmax + 1):
                table.append(ratio**k * mpmath.expm1(c * k * (k - 1)))
        _store(key, table)
    return table


@functools.lru_cache(maxsize=8192)
def _mtz19_int(alpha: int, sigma: float, sensitivity: float, q: float):
    """MTZ19 R(alpha) for integer alpha >= 2 and 0 < q < 1, as an mpf.

    A_alpha = sum_k C(alpha,k) (1-q)^(alpha-k) q^k e^{c(k^2-k)}, c = Delta^2/(2 sigma^2). The
    weights C(alpha,k) (1-q)^(alpha-k) q^k sum to 1, so
    A_alpha - 1 = (1-q)^alpha sum_{k>=2} C(alpha,k) (q/(1-q))^k expm1(c(k^2-k)),
    a sum of positive terms: R = log1p(A - 1)/(alpha - 1) loses nothing to cancellation, even
    for tiny q.
    """
    weights = _poisson_weights(sigma, sensitivity, q, alpha)
    row = _binomial_row(alpha)
    with mpmath.workdps(PRECISION_DIGITS):
        excess = (1 - _mp(q)) ** alpha * mpmath.fdot(row[2:], weights[2 : alpha + 1])
        return mpmath.log1p(excess) / (alpha - 1)


_FRAC_RATIO = mpmath.mpf(1) / 4  # series ratio bound on each side of the quadrature band
_FRAC_MAX_TERMS = 2000


def _mtz19_frac_a(alpha: float, s, q, dps: int):
    """A_alpha = E_{N(0,s^2)}[((1-q) + q exp((x - 1/2)/s^2))^alpha] for fractional alpha.

    With a = 1-q and b(x) = q exp((x-1/2)/s^2), b/a = exp((x - z0)/s^2) where
    z0 = s^2 ln(1/q - 1) + 1/2 (MTZ19). Expanding (a+b)^alpha as a binomial series in b/a on
    x <= z1 and in a/b on x >= z2, where the ratio is at most r = 1/4, gives

        left_i  = C(alpha,i) a^(alpha-i) q^i e^{(i^2-i)/(2s^2)} Phi((z1 - i)/s)
        right_i = C(alpha,i) a^i q^(alpha-i) e^{(j^2-j)/(2s^2)} Phi((j - z2)/s),  j = alpha - i

    (MTZ19's series, which split exactly at z0 and therefore converge only polynomially). On
    each side |term_i| <= |C(alpha,i)| r^i term_0, so the remainder after index N is at most
    term_0 |C(alpha,N+1)| r^(N+1)/(1-r) once N+1 > alpha (|C(alpha,i)| then decreases); that
    bound is *added*, so the result is an upper bound. The band [z1, z2] is integrated by
    adaptive quadrature (smooth integrand), clipped where the Gaussian weight makes it
    negligible (with a bound on the clipped part added); the quadrature error estimate is added
    too. Returns (A, ok); ok is False if a series or the quadrature did not reach its tolerance.
    """
    with mpmath.workdps(dps):
        alpha = _mp(alpha)
        a = 1 - q
        s2 = s * s
        z0 = s2 * mpmath.log(a / q) + mpmath.mpf(1) / 2
        w = s2 * mpmath.log(1 / _FRAC_RATIO)
        z1, z2 = z0 - w, z0 + w
        sqrt2s = mpmath.sqrt(2) * s
        tol = mpmath.mpf(10) ** (-(dps - 5))
        left, right = [], []
        left0 = right0 = None
        coef = mpmath.mpf(1)
        tail = mpmath.inf
        i = 0
        ok = False
        while i < _FRAC_MAX_TERMS:
            j = alpha - i
            li = coef * a ** (alpha - i) * q**i * mpmath.exp((i * i - i) / (2 * s2)) * mpmath.erfc((i - z1) / sqrt2s) / 2
            ri = coef * a**i * q**j * mpmath.exp((j * j - j) / (2 * s2)) * mpmath.erfc((z2 - j) / sqrt2s) / 2
            if i == 0:
                left0, right0 = li, ri
            left.append(li)
            right.append(ri)
            coef = coef * (alpha - i) / (i + 1)  # C(alpha, i+1)
            i += 1
            if i > alpha:
                tail = abs(coef) * _FRAC_RATIO**i / (1 - _FRAC_RATIO)
                if tail < tol:
                    ok = True
                    break
        tail_bound = tail * (left0 + right0)

        def integrand(x):
            return mpmath.npdf(x, 0, s) * (a + q * mpmath.exp((x - mpmath.mpf(1) / 2) / s2)) ** alpha

        # Band. On it a + b <= (1 + 1/r) a, so the part beyond |x| > X is at most
        # ((1 + 1/r) a)^alpha P(|N(0, s^2)| > X): clip there and add that bound.
        big = (1 + 1 / _FRAC_RATIO) * a
        X = s * mpmath.sqrt(2 * (alpha * abs(mpmath.log(big)) + dps * mpmath.log(10) + 10))
        lo, hi = max(z1, -X), min(z2, X)
        clipped = 0
        if lo > z1 or hi < z2:
            clipped = big**alpha * mpmath.erfc(X / sqrt2s)
        # The band's error estimate is added to A; 10^-(dps-25) relative to A >= 1 is far below
        # a float's resolution of R (dps is raised when A - 1 is tiny, see _mtz19_frac).
        band_tol = mpmath.mpf(10) ** (-(dps - 25))
        band, err, band_ok = (0, 0, True) if lo >= hi else _adaptive_quad(integrand, lo, hi, s, band_tol)
        total = mpmath.fsum(left) + mpmath.fsum(right) + band
        return total + tail_bound + clipped + err, ok and band_ok


_QUAD_MAX_PIECES = 128


def _adaptive_quad(f, lo, hi, scale, tol):
    """Integral of ``f`` over [lo, hi] with absolute error estimate <= tol (bisect where needed).

    Starts from pieces of width ``scale`` (at most 32 of them); each piece is integrated by
    Gauss-Legendre with mpmath's error estimate, and pieces whose estimate exceeds their share
    of ``tol`` are halved, up to _QUAD_MAX_PIECES evaluations. Returns (value, error, ok).
    """
    n0 = int(min(32, max(2, mpmath.ceil((hi - lo) / scale))))
    stack = [(lo + (hi - lo) * t / n0, lo + (hi - lo) * (t + 1) / n0) for t in range(n0)]
    values, errors, used = [], [], 0
    while stack:
        left, right = stack.pop()
        v, e = mpmath.quad(f, [left, right], error=True, method="gauss-legendre", maxdegree=6)
        used += 1
        if e <= tol * (right - left) / (hi - lo) or used + len(stack) >= _QUAD_MAX_PIECES:
            values.append(v)
            errors.append(abs(e))
            continue
        mid = (left + right) / 2
        stack.extend([(left, mid), (mid, right)])
    err = mpmath.fsum(errors)
    return mpmath.fsum(values), err, err <= tol


@functools.lru_cache(maxsize=1024)
def _mtz19_frac(alpha: float, sigma: float, sensitivity: float, q: float):
    """MTZ19 R(alpha) for fractional alpha > 1 and 0 < q < 1, as an mpf (an upper bound)."""
    dps = PRECISION_DIGITS
    for _ in range(3):
        with mpmath.workdps(dps):
            s = _mp(sigma) / _mp(sensitivity)
            A, ok = _mtz19_frac_a(alpha, s, _mp(q), dps)
            if not ok:
                break
            excess = A - 1
            # A - 1 is tiny for tiny q: make sure ~40 of its digits survive the subtraction.
            if excess > 0 and excess < mpmath.mpf(10) ** (40 - dps):
                dps = PRECISION_DIGITS + int(-mpmath.log10(excess)) + 10
                continue
            with mpmath.workdps(PRECISION_DIGITS):
                return mpmath.log(A) / (_mp(alpha) - 1)
    # Not converged (not seen in tests): RDP is nondecreasing in alpha, so the next integer
    # order is a valid, slightly larger, upper bound.
    return _mtz19_int(math.ceil(alpha), sigma, sensitivity, q)


def poisson_rdp_mp(alpha: float, sigma: float, sensitivity: float, q: float) -> mpmath.mpf:
    if q == 1.0:
        with mpmath.workdps(PRECISION_DIGITS):
            return gaussian_rdp_mp(_mp(alpha), _mp(sigma), _mp(sensitivity))
    if isinstance(alpha, int):
        return _mtz19_int(alpha, sigma, sensitivity, q)
    return _mtz19_frac(alpha, sigma, sensitivity, q)


def poisson_gaussian(alpha: float, *, sigma: float, sensitivity: float, sampling_rate: float) -> float:
    """RDP at order ``alpha`` of the Poisson-subsampled Gaussian mechanism (MTZ19).

    Each record enters the batch independently with probability ``sampling_rate``; the batch
    query has l2 sensitivity ``sensitivity`` under add/remove-one neighbouring and receives
    N(0, sigma^2 I) noise. The value is D_alpha((1-q) N(0, s^2) + q N(1, s^2) || N(0, s^2))
    with s = sigma / sensitivity.

    Parameters
    ----------
    alpha : float
        Renyi order > 1. Integer orders: the finite sum. Fractional orders: MTZ19's two series
        (moved off the crossing point, with a quadrature band; see ``_mtz19_frac_a``), an upper
        bound within ~1e-40 relative of the exact value; in the rare case that the series or the
        quadrature do not converge within their budget, the value at ceil(alpha) is returned
        (RDP is nondecreasing in alpha, so it is still an upper bound).
    sigma, sensitivity : float
        Finite, > 0.
    sampling_rate : float
        q in (0, 1]; q = 1 is the plain Gaussian.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``rdp.poisson_subsampled_gaussian`` (add/remove-one neighbouring, Poisson sampling; see
    its CAVEAT flag before using it for the seed papers).
    """
    a = check_order(alpha)
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    q = check_sampling_rate(sampling_rate)
    return round_safe(poisson_rdp_mp(a, s, d, q), Rounding.UP)


# --------------------------------------------------------------------------- WBK19 (without replacement)

_NABLA_DIGITS = 40  # correct significant digits required of every nabla_k


def _log_abs_sum_plan(s2: float, log_expm1_s2: float, k: int) -> float:
    """log10(10 (k+1) S_k / L_k), the digits lost to cancellation in nabla_k (see _pearson_vajda)."""
    # S_k = sum_i C(k,i) E_i in floating point, as a log-sum-exp (positive terms only).
    logs = [math.lgamma(k + 1) - math.lgamma(i + 1) - math.lgamma(k - i + 1) + i * (i - 1) * s2 / 2
            for i in range(k + 1)]
    top = max(logs)
    log_s = top + math.log(math.fsum(math.exp(v - top) for v in logs))
    log_e_k = k * (k - 1) * s2 / 2
    # Lyapunov: nabla_k >= (E (p/q-1)^2)^(k/2) = (e^s2 - 1)^(k/2).
    log_l = (k / 2) * log_expm1_s2
    gap = log_s - log_e_k  # >= 0; may be huge (k ln 2) when s2 is tiny: never exponentiate it blindly
    if gap < math.log(1.9):  # largest term minus all others: nabla_k >= 2 E_k - S_k (kept well above 0)
        log_l = max(log_l, log_e_k + math.log(2 - math.exp(gap)))
    return (math.log(10 * (k + 1)) + log_s - log_l) / math.log(10)


def _pearson_vajda(sigma: float, sensitivity: float, kmax: int, *, scale: int = 1) -> dict:
    """{k: nabla_k} for even k <= kmax, nabla_k = sum_i C(k,i) (-1)^(k-i) E_i, E_i = e^{i(i-1)s2/2}.

    nabla_k = E_q[(p/q - 1)^k] for p = N(Delta, sigma^2), q = N(0, sigma^2) (the Pearson-Vajda
    moments of WBK19). The alternating sum cancels heavily when s2 = (Delta/sigma)^2 is small.
    Working precision, per k: a sum of k+1 terms, each with a relative rounding error of a few
    units in the last place, is off by at most ~(k+1) 10^(-P) S_k with S_k = sum_i C(k,i) E_i;
    and for even k, nabla_k >= L_k = max((e^s2 - 1)^(k/2), 2 E_k - S_k) (Lyapunov's inequality
    E|X|^k >= (E X^2)^(k/2), resp. the largest term minus all others). So
    P = 40 + log10(10 (k+1) S_k / L_k) digits leave 40 correct digits. ``scale`` multiplies P
    (the tests recompute with scale=3 and compare).
    """
    key = ("nabla", sigma, sensitivity, scale)
    cached = _TABLES.get(key)
    if cached is not None and cached[0] >= kmax:
        return cached[1]
    # Plan the precision in floating point (only logarithms of positive quantities).
    with mpmath.workdps(30):
        s2_mp = (_mp(sensitivity) / _mp(sigma)) ** 2
        s2_float, log_expm1 = float(s2_mp), float(mpmath.log(mpmath.expm1(s2_mp)))
    evens = range(2, kmax + 1, 2)
    plan = {k: scale * (_NABLA_DIGITS + math.ceil(_log_abs_sum_plan(s2_float, log_expm1, k)) + 1)
            for k in evens}
    top = max(plan.values(), default=PRECISION_DIGITS)
    with mpmath.workdps(top + 10):
        s2 = (_mp(sensitivity) / _mp(sigma)) ** 2
        E = [mpmath.exp(i * (i - 1) * s2 / 2) for i in range(kmax + 1)]
    out = {}
    for k in evens:
        signed = [c if (k - i) % 2 == 0 else -c for i, c in enumerate(_binomial_row(k))]
        with mpmath.workdps(plan[k]):
            value = mpmath.fdot(signed, E[: k + 1])
        with mpmath.workdps(PRECISION_DIGITS):
            out[k] = +value  # round to the standard precision
    _store(key, (kmax, out))
    return out


def wbk19_prepare(sigma: float, sensitivity: float, gamma: float, kmax: int, bound: str) -> list:
    """[gamma^j M_j for j = 0..kmax]: j = 2 is the shared term, j >= 3 Theorem 9 or 27 (per-j min)."""
    key = ("wbk19", sigma, sensitivity, gamma, bound)
    cached = _TABLES.get(key)
    if cached is not None and len(cached) > kmax:
        return cached
    nab = _pearson_vajda(sigma, sensitivity, kmax + 1) if bound == "thm27" else None
    with mpmath.workdps(PRECISION_DIGITS):
        g = _mp(gamma)
        s2 = (_mp(sensitivity) / _mp(sigma)) ** 2
        out = [mpmath.mpf(0), mpmath.mpf(0), g**2 * min(4 * mpmath.expm1(s2), 2 * mpmath.exp(s2))]
        for j in range(3, kmax + 1):
            m_j = 2 * mpmath.exp((j - 1) * j * s2 / 2)  # Theorem 9: 2 exp((j-1) eps(j))
            if bound == "thm27":
                lo, hi = 2 * (j // 2), 2 * ((j + 1) // 2)
                m_j = min(m_j, 4 * mpmath.sqrt(nab[lo] * nab[hi]))
            out.append(g**j * m_j)
    _store(key, out)
    return out


def _wbk19_raw(alpha: int, sigma: float, sensitivity: float, gamma: float, bound: str):
    """ln(1 + gamma^2 C(alpha,2) min(4(e^s2-1), 2e^s2) + sum_{j>=3} gamma^j C(alpha,j) M_j)/(alpha-1)."""
    weights = wbk19_prepare(sigma, sensitivity, gamma, alpha, bound)
    row = _binomial_row(alpha)
    with mpmath.workdps(PRECISION_DIGITS):
        return mpmath.log1p(mpmath.fdot(row[2:], weights[2 : alpha + 1])) / (alpha - 1)


@functools.lru_cache(maxsize=8192)
def wbk19_rdp_mp(alpha: int, sigma: float, sensitivity: float, gamma: float, bound: str) -> mpmath.mpf:
    """min(unamplified Gaussian RDP, WBK19 bound) as an mpf."""
    with mpmath.workdps(PRECISION_DIGITS):
        cap = gaussian_rdp_mp(_mp(alpha), _mp(sigma), _mp(sensitivity))
    if gamma == 1.0:
        return cap
    return min(cap, _wbk19_raw(alpha, sigma, sensitivity, gamma, bound))


def without_replacement_gaussian(alpha: float, *, sigma: float, sensitivity: float, sampling_rate: float,
                                 bound: str = "thm27") -> float:
    """RDP bound at integer order ``alpha`` of the Gaussian mechanism on a subsample without replacement.

    The mechanism draws a uniformly random subset of m of the n records (gamma = m/n), evaluates
    a query of replace-one l2 sensitivity ``sensitivity`` on it, and adds N(0, sigma^2 I).

    Parameters
    ----------
    alpha : int
        Integer order >= 2 (integral floats such as ``3.0`` are accepted). Fractional orders
        raise :class:`PrivacyParameterError`: the bound is stated for integers, and because RDP
        is nondecreasing in alpha the caller can always use the next integer above.
    sigma, sensitivity : float
        Finite, > 0.
    sampling_rate : float
        gamma in (0, 1]; gamma = 1 gives the unamplified Gaussian curve.
    bound : {"thm27", "thm9"}
        WBK19 Theorem 27 (sharper; valid for the Gaussian) or the generic Theorem 9.

    Returns
    -------
    float
        min(alpha s2/2, WBK19 bound), rounded up.

    Privacy
    -------
    ``rdp.without_replacement_subsampled_gaussian`` (replace-one neighbouring).
    """
    a = check_integer_order(alpha)
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    g = check_sampling_rate(sampling_rate)
    b = validate.choice("bound", bound, _BOUNDS)
    return round_safe(wbk19_rdp_mp(a, s, d, g, b), Rounding.UP)
