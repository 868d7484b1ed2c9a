"""Noise laws used by the algorithms, scipy.stats style.

Every class is configured once with keyword-only, validated parameters and offers

* ``rvs(size=(), *, rng=None, noise=None, label=...)``: draws, through
  :func:`reference.tape.noise_source`, so a run can be recorded and replayed bit for bit. The
  tape holds *standardised* draws (standard normal, standard Laplace, standard Gamma, standard
  Gumbel); the scaling written here is the only thing another implementation must repeat;
* ``logpdf(x)`` (``logpmf`` for the selection mechanisms): the fully normalised log density,
  which audits use for likelihood ratios;
* ``cdf``/``sf`` for scalar laws and the moments tests and audits need.

Laws
----
:class:`Gaussian`           N(0, scale^2) or N(0, scale^2 I_dim)
:class:`Laplace`            i.i.d. Laplace(0, scale) coordinates
:class:`RadialLaplace`      density proportional to exp(-rate ||b||_2) on R^dim
:class:`ArsinhNormal`       scale * sinh(Y), Y ~ N(0, 1)
:class:`ExponentialMechanism`  index i chosen with probability proportional to
                            exp(coefficient * score_i), exactly (Gumbel-max)
:class:`ReportNoisyMax`     argmax_i (score_i + Laplace(0, scale))

Shapes
------
Draws are batched: ``size`` is the shape of independent draws (typically ``(runs,)``); a
vector law appends its ``dim`` axis, so ``rvs(size)`` has shape ``size + (dim,)``. The
selection mechanisms take ``scores`` of shape ``(..., m)`` and return indices of shape
``size + scores.shape[:-1]``.
"""

from __future__ import annotations

import math
import numbers
from typing import Sequence

import mpmath
import numpy as np
import scipy.integrate
import scipy.optimize
import scipy.special

from reference.arrays import ArrayLike
from reference.rng import RngLike
from reference.tape import NoiseLike, noise_source
from spec import validate
from spec.errors import ParameterError, PrivacyParameterError

__all__ = [
    "Gaussian",
    "Laplace",
    "RadialLaplace",
    "ArsinhNormal",
    "ExponentialMechanism",
    "ReportNoisyMax",
]

_LOG_2PI = math.log(2.0 * math.pi)


# --------------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------------


def _size(size) -> tuple[int, ...]:
    """``size`` as a tuple of non-negative ints (an int means a 1-D batch)."""
    if isinstance(size, (bool, np.bool_)):
        raise TypeError(f"size ({size!r}) must be an int or a tuple of ints, not a boolean")
    if isinstance(size, numbers.Integral):
        size = (size,)
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"size ({size!r}) must be an int or a tuple of ints, got {type(size).__name__}")
    out = tuple(validate.integer("size", s) for s in size)
    if any(s < 0 for s in out):
        raise ParameterError(f"size ({out}) must have entries >= 0")
    return out


def _label(label) -> str:
    if not isinstance(label, str):
        raise TypeError(f"label ({label!r}) must be a string, got {type(label).__name__}")
    return label


def _dim(dim, *, allow_none: bool) -> int | None:
    if dim is None:
        if allow_none:
            return None
        raise TypeError("dim (None) must be a positive integer")
    return validate.positive_integer("dim", dim)


def _real_array(name: str, x, *, allow_inf: bool = True) -> np.ndarray:
    """``x`` as a float64 array; wrong types raise TypeError, NaN (and inf unless allowed) raise."""
    arr = np.asarray(x)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if np.isnan(arr).any():
        raise ParameterError(f"{name} (contains nan) must not contain nan")
    if not allow_inf and np.isinf(arr).any():
        raise ParameterError(f"{name} (contains inf) must be finite")
    return arr


def _vector(name: str, x, dim: int) -> np.ndarray:
    arr = _real_array(name, x)
    if arr.ndim == 0 or arr.shape[-1] != dim:
        raise ParameterError(f"{name} (shape {arr.shape}) must have a last axis of length dim ({dim})")
    return arr


def _norm(x: np.ndarray) -> np.ndarray:
    """l2 norm over the last axis, without overflow for huge finite entries (inf gives inf)."""
    a = np.abs(x)
    top = np.max(a, axis=-1)
    finite = np.isfinite(top) & (top > 0)
    safe = np.where(finite, top, 1.0)
    scaled = np.sqrt(np.sum((a / safe[..., None]) ** 2, axis=-1)) * safe
    return np.where(finite, scaled, top)


def _out(a: np.ndarray):
    """A 0-d result becomes a numpy scalar, like scipy.stats."""
    return a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a


def _scalar_only(law, what: str) -> None:
    if law.dim is not None:
        raise ParameterError(f"{what} is defined for scalar laws (dim=None); this law has dim ({law.dim})")


# --------------------------------------------------------------------------------------------
# Gaussian
# --------------------------------------------------------------------------------------------


class Gaussian:
    r"""Centred Gaussian noise: N(0, scale^2) (``dim=None``) or N(0, scale^2 I_dim).

    Parameters
    ----------
    scale : float
        Standard deviation sigma of each coordinate; finite and > 0.
    dim : int or None
        ``None`` for a scalar law; otherwise the dimension of each draw.

    Notes
    -----
    Tape: one ``normal`` entry of shape ``size`` (scalar) or ``size + (dim,)``, scaled by
    ``scale``. Log density of a vector: ``-||x||^2 / (2 scale^2) - dim (log scale + log(2 pi)/2)``.

    Privacy
    -------
    The law of the Gaussian mechanism; its calibrations and claims are the spec records
    ``gaussian.classic``, ``gaussian.analytic`` and ``zcdp.gaussian``. The caller evaluates the
    scale from the record; this class only samples the law.
    """

    def __init__(self, *, scale: float, dim: int | None = None) -> None:
        self.scale = validate.positive("scale", scale)
        self.dim = _dim(dim, allow_none=True)

    def __repr__(self) -> str:
        return f"Gaussian(scale={self.scale!r}, dim={self.dim!r})"

    @property
    def _event(self) -> tuple[int, ...]:
        return () if self.dim is None else (self.dim,)

    def rvs(self, size: int | Sequence[int] = (), *, rng: RngLike = None, noise: NoiseLike = None,
            label: str = "gaussian noise") -> np.ndarray:
        """Draws of shape ``size`` (scalar law) or ``size + (dim,)``."""
        source = noise_source(rng=rng, noise=noise)
        z = source.normal(_label(label), _size(size) + self._event)
        return self.scale * z

    def logpdf(self, x: ArrayLike) -> np.ndarray | float:
        """Log density; ``x`` of shape ``(...)`` (scalar law) or ``(..., dim)`` -> ``(...)``."""
        # u * u may overflow to inf for absurdly large x; the log density is then -inf.
        if self.dim is None:
            u = _real_array("x", x) / self.scale
            with np.errstate(over="ignore"):
                return _out(-0.5 * u * u - math.log(self.scale) - 0.5 * _LOG_2PI)
        u = _vector("x", x, self.dim) / self.scale
        with np.errstate(over="ignore"):
            sq = np.sum(u * u, axis=-1)
        return _out(-0.5 * sq - self.dim * (math.log(self.scale) + 0.5 * _LOG_2PI))

    def cdf(self, x: ArrayLike) -> np.ndarray | float:
        """P(X <= x), scalar law only."""
        _scalar_only(self, "cdf")
        return _out(scipy.special.ndtr(_real_array("x", x) / self.scale))

    def sf(self, x: ArrayLike) -> np.ndarray | float:
        """P(X > x), scalar law only (accurate in the upper tail)."""
        _scalar_only(self, "sf")
        return _out(scipy.special.ndtr(-_real_array("x", x) / self.scale))

    def logsf(self, x: ArrayLike) -> np.ndarray | float:
        """log P(X > x), scalar law only (accurate far in the tail)."""
        _scalar_only(self, "logsf")
        return _out(scipy.special.log_ndtr(-_real_array("x", x) / self.scale))

    def mean(self) -> float:
        return 0.0

    def var(self) -> float:
        """Variance of each coordinate, scale^2."""
        return self.scale**2

    def expected_norm(self) -> float:
        """E||X||_2 = scale sqrt(2) Gamma((d+1)/2) / Gamma(d/2) (E|X| for the scalar law)."""
        d = 1 if self.dim is None else self.dim
        return self.scale * math.sqrt(2.0) * math.exp(math.lgamma((d + 1) / 2) - math.lgamma(d / 2))

    def expected_squared_norm(self) -> float:
        """E||X||_2^2 = d scale^2."""
        d = 1 if self.dim is None else self.dim
        return d * self.scale**2


# --------------------------------------------------------------------------------------------
# Laplace (coordinatewise)
# --------------------------------------------------------------------------------------------


class Laplace:
    r"""Laplace noise with i.i.d. coordinates: density ``exp(-|x| / scale) / (2 scale)`` each.

    Parameters
    ----------
    scale : float
        Scale b (the standard deviation is ``sqrt(2) b``); finite and > 0.
    dim : int or None
        ``None`` for a scalar law; otherwise the dimension of each draw.

    Notes
    -----
    Tape: one ``laplace`` (standard Laplace) entry of shape ``size`` or ``size + (dim,)``,
    scaled by ``scale``.

    Privacy
    -------
    The law of the Laplace mechanism (spec record ``laplace.mechanism``: scale
    ``sensitivity / epsilon`` for an l1 sensitivity).
    """

    def __init__(self, *, scale: float, dim: int | None = None) -> None:
        self.scale = validate.positive("scale", scale)
        self.dim = _dim(dim, allow_none=True)

    def __repr__(self) -> str:
        return f"Laplace(scale={self.scale!r}, dim={self.dim!r})"

    @property
    def _event(self) -> tuple[int, ...]:
        return () if self.dim is None else (self.dim,)

    def rvs(self, size: int | Sequence[int] = (), *, rng: RngLike = None, noise: NoiseLike = None,
            label: str = "laplace noise") -> np.ndarray:
        """Draws of shape ``size`` (scalar law) or ``size + (dim,)``."""
        source = noise_source(rng=rng, noise=noise)
        return self.scale * source.laplace(_label(label), _size(size) + self._event)

    def logpdf(self, x: ArrayLike) -> np.ndarray | float:
        """Log density; ``x`` of shape ``(...)`` or ``(..., dim)`` -> ``(...)``."""
        if self.dim is None:
            a = np.abs(_real_array("x", x)) / self.scale
            return _out(-a - math.log(2.0 * self.scale))
        a = np.abs(_vector("x", x, self.dim)) / self.scale
        return _out(-np.sum(a, axis=-1) - self.dim * math.log(2.0 * self.scale))

    def cdf(self, x: ArrayLike) -> np.ndarray | float:
        """P(X <= x), scalar law only."""
        _scalar_only(self, "cdf")
        u = _real_array("x", x) / self.scale
        half_tail = 0.5 * np.exp(-np.abs(u))  # never overflows
        return _out(np.where(u < 0, half_tail, 1.0 - half_tail))

    def sf(self, x: ArrayLike) -> np.ndarray | float:
        """P(X > x), scalar law only."""
        _scalar_only(self, "sf")
        u = _real_array("x", x) / self.scale
        half_tail = 0.5 * np.exp(-np.abs(u))
        return _out(np.where(u > 0, half_tail, 1.0 - half_tail))

    def mean(self) -> float:
        return 0.0

    def var(self) -> float:
        """Variance of each coordinate, 2 scale^2."""
        return 2.0 * self.scale**2

    def expected_squared_norm(self) -> float:
        """E||X||_2^2 = 2 d scale^2."""
        d = 1 if self.dim is None else self.dim
        return 2.0 * d * self.scale**2


# --------------------------------------------------------------------------------------------
# Radial ("high-dimensional") Laplace
# --------------------------------------------------------------------------------------------


class RadialLaplace:
    r"""Density proportional to ``exp(-rate ||b||_2)`` on R^dim.

    Parameters
    ----------
    rate : float
        The coefficient c of the norm in the exponent; finite and > 0. For an l2 sensitivity
        Delta_2 and budget epsilon the mechanism uses ``rate = epsilon / Delta_2`` (computed by
        the caller from its spec record).
    dim : int
        Dimension p >= 1.

    Notes
    -----
    Normalising constant. In polar coordinates the volume element is
    ``S_{p-1} r^{p-1} dr d(direction)``, with sphere area ``S_{p-1} = 2 pi^{p/2} / Gamma(p/2)``, so

        Z = S_{p-1} int_0^inf r^{p-1} e^{-c r} dr = 2 pi^{p/2} Gamma(p) / (Gamma(p/2) c^p),

    and ``logpdf(b) = -c ||b|| - log Z``. For p = 1 this is the Laplace law with scale 1/c
    (Z = 2/c).

    Sampling. The radial density is proportional to ``r^{p-1} e^{-c r}``: the norm is
    Gamma(shape p, scale 1/c), independent of a uniformly distributed direction, which is a
    standard Gaussian vector divided by its norm. Tape: a ``gamma`` entry (``k = dim``) of shape
    ``size`` labelled ``label + ": radius"``, then a ``normal`` entry of shape ``size + (dim,)``
    labelled ``label + ": direction"``. A Gaussian vector that is exactly zero (probability 0)
    is mapped to the first basis vector, so replaying any tape is well defined.

    Moments: ``E||b|| = p / c``, ``E||b||^2 = p (p + 1) / c^2``.

    Privacy
    -------
    ``profiles.radial_laplace``: adding this noise to a statistic of l2 sensitivity Delta_2 with
    ``rate = epsilon / Delta_2`` is epsilon-DP: the density ratio at any point is at most
    ``exp(rate ||a - a'||_2)`` by the triangle inequality (bst14 Algorithm 3, zhang17
    Algorithm 1 with delta = 0).
    """

    def __init__(self, *, rate: float, dim: int) -> None:
        self.rate = validate.positive("rate", rate, error=PrivacyParameterError)
        self.dim = _dim(dim, allow_none=False)
        p = self.dim
        with mpmath.workdps(30):
            log_z = (
                mpmath.log(2)
                + mpmath.mpf(p) / 2 * mpmath.log(mpmath.pi)
                + mpmath.loggamma(p)
                - mpmath.loggamma(mpmath.mpf(p) / 2)
                - p * mpmath.log(mpmath.mpf(self.rate))
            )
            self._log_normaliser = float(log_z)

    def __repr__(self) -> str:
        return f"RadialLaplace(rate={self.rate!r}, dim={self.dim!r})"

    @property
    def log_normaliser(self) -> float:
        """log Z = log 2 + (p/2) log pi + log Gamma(p) - log Gamma(p/2) - p log c (30 digits, then float)."""
        return self._log_normaliser

    def rvs(self, size: int | Sequence[int] = (), *, rng: RngLike = None, noise: NoiseLike = None,
            label: str = "radial laplace noise") -> np.ndarray:
        """Draws of shape ``size + (dim,)``."""
        source = noise_source(rng=rng, noise=noise)
        label = _label(label)
        size = _size(size)
        radius = source.gamma(f"{label}: radius", self.dim, size) / self.rate
        z = source.normal(f"{label}: direction", size + (self.dim,))
        norm = np.linalg.norm(z, axis=-1, keepdims=True)
        zero = norm[..., 0] == 0.0
        if zero.any():
            z[zero] = 0.0
            z[zero, 0] = 1.0
            norm[zero] = 1.0
        return radius[..., None] * (z / norm)

    def logpdf(self, x: ArrayLike) -> np.ndarray | float:
        """Log density; ``x`` of shape ``(..., dim)`` -> ``(...)``."""
        r = _norm(_vector("x", x, self.dim))
        return _out(-self.rate * r - self._log_normaliser)

    def norm_cdf(self, r: ArrayLike) -> np.ndarray | float:
        """P(||b|| <= r): the regularised lower incomplete Gamma function P(dim, rate r)."""
        r = _real_array("r", r)
        return _out(np.where(r > 0, scipy.special.gammainc(self.dim, self.rate * np.maximum(r, 0.0)), 0.0))

    def expected_norm(self) -> float:
        """E||b||_2 = dim / rate."""
        return self.dim / self.rate

    def expected_squared_norm(self) -> float:
        """E||b||_2^2 = dim (dim + 1) / rate^2."""
        return self.dim * (self.dim + 1) / self.rate**2


# --------------------------------------------------------------------------------------------
# Arsinh-normal
# --------------------------------------------------------------------------------------------


class ArsinhNormal:
    r"""The arsinh-normal law: ``Z = scale * sinh(Y)`` with ``Y ~ N(0, 1)``.

    The noise of Bun and Steinke's smooth-sensitivity mechanism (wang20 Algorithm 2).

    Parameters
    ----------
    scale : float
        Multiplier s > 0 (default 1).

    Notes
    -----
    Change of variables: ``y = arsinh(z / s)``, ``dy/dz = 1 / (s sqrt(1 + (z/s)^2))``, so

        logpdf(z) = log phi(arsinh(z/s)) - log(1 + (z/s)^2) / 2 - log s,

    with phi the standard normal density. The cdf is ``Phi(arsinh(z/s))``. Moments:
    ``E Z = 0``, ``Var Z = s^2 E sinh(Y)^2 = s^2 (E cosh(2Y) - 1) / 2 = s^2 (e^2 - 1) / 2``.
    Tape: one ``normal`` entry of shape ``size``.
    """

    def __init__(self, *, scale: float = 1.0) -> None:
        self.scale = validate.positive("scale", scale)
        self.dim = None

    def __repr__(self) -> str:
        return f"ArsinhNormal(scale={self.scale!r})"

    def rvs(self, size: int | Sequence[int] = (), *, rng: RngLike = None, noise: NoiseLike = None,
            label: str = "arsinh-normal noise") -> np.ndarray:
        """Draws of shape ``size``."""
        source = noise_source(rng=rng, noise=noise)
        y = source.normal(_label(label), _size(size))
        return self.scale * np.sinh(y)

    def logpdf(self, x: ArrayLike) -> np.ndarray | float:
        """Log density, elementwise."""
        u = _real_array("x", x) / self.scale
        y = np.arcsinh(u)
        # log sqrt(1 + u^2) = log hypot(1, u) does not overflow for large u.
        return _out(-0.5 * y * y - 0.5 * _LOG_2PI - np.log(np.hypot(1.0, u)) - math.log(self.scale))

    def cdf(self, x: ArrayLike) -> np.ndarray | float:
        return _out(scipy.special.ndtr(np.arcsinh(_real_array("x", x) / self.scale)))

    def sf(self, x: ArrayLike) -> np.ndarray | float:
        return _out(scipy.special.ndtr(-np.arcsinh(_real_array("x", x) / self.scale)))

    def ppf(self, q: ArrayLike) -> np.ndarray | float:
        """Quantile function ``s sinh(Phi^{-1}(q))``."""
        q = _real_array("q", q)
        if ((q < 0) | (q > 1)).any():
            raise ParameterError("q must be in [0, 1]")
        with np.errstate(over="ignore"):  # Phi^{-1}(1) = inf maps to inf
            return _out(self.scale * np.sinh(scipy.special.ndtri(q)))

    def mean(self) -> float:
        return 0.0

    def var(self) -> float:
        """s^2 (e^2 - 1) / 2."""
        return self.scale**2 * math.expm1(2.0) / 2.0


# --------------------------------------------------------------------------------------------
# selection mechanisms over a finite set
# --------------------------------------------------------------------------------------------


def _scores(scores) -> np.ndarray:
    s = _real_array("scores", scores, allow_inf=False)
    if s.ndim == 0 or s.shape[-1] < 1:
        raise ParameterError(f"scores (shape {s.shape}) must have a last axis with at least 1 candidate")
    return s


class ExponentialMechanism:
    r"""Select index i of ``m`` candidates with probability proportional to exp(c * score_i).

    Parameters
    ----------
    coefficient : float
        c >= 0, the multiplier of the score in the exponent (0 selects uniformly). The caller
        computes it from its spec record: ``epsilon / (2 Delta_u)`` for a score of sensitivity
        Delta_u, or ``epsilon / osc`` where osc bounds ``sup h - inf h`` of the score difference
        ``h = u(D, .) - u(D', .)`` over neighbours.

    Notes
    -----
    Exact sampling by the Gumbel-max trick: if G_i are i.i.d. standard Gumbel then
    ``P(argmax_i (c s_i + G_i) = k) = exp(c s_k) / sum_i exp(c s_i)``. Tape: one ``gumbel``
    entry of shape ``size + scores.shape``. Ties have probability zero; ``argmax`` returns the
    first index.

    Privacy
    -------
    With ``coefficient = epsilon / (2 Delta_u)`` the selection is epsilon-DP (spec record
    ``exponential.textbook``); with ``epsilon / osc`` likewise (``exponential.oscillation``).
    This class only samples the law, exactly.
    """

    def __init__(self, *, coefficient: float) -> None:
        self.coefficient = validate.nonnegative("coefficient", coefficient, error=PrivacyParameterError)

    def __repr__(self) -> str:
        return f"ExponentialMechanism(coefficient={self.coefficient!r})"

    def _logits(self, scores) -> np.ndarray:
        """``c * (s - max s)`` per score vector: in [-inf, 0], and exact differences of nearby
        scores are kept (multiplying first would round ``c * s`` at the scale of ``|s|``)."""
        s = _scores(scores)
        if self.coefficient == 0.0:
            return np.zeros_like(s)
        with np.errstate(over="ignore"):
            # A difference or product beyond the float range becomes -inf: probability 0,
            # which is the correctly rounded value of exp(-(more than 1e308)).
            return self.coefficient * (s - np.max(s, axis=-1, keepdims=True))

    def rvs(self, scores: ArrayLike, *, size: int | Sequence[int] = (), rng: RngLike = None,
            noise: NoiseLike = None, label: str = "exponential mechanism") -> np.ndarray:
        """Selected indices (int64) of shape ``size + scores.shape[:-1]``.

        ``scores`` has shape ``(..., m)``: one score vector per independent selection, so a
        batch of runs passes ``(runs, m)`` (or one vector with ``size=(runs,)``).
        """
        z = self._logits(scores)
        source = noise_source(rng=rng, noise=noise)
        size = _size(size)
        g = source.gumbel(_label(label), size + z.shape)
        return np.argmax(z + g, axis=-1)

    def logpmf(self, scores: ArrayLike) -> np.ndarray:
        """Log selection probabilities, shape ``(..., m)``: a stable log-softmax of c * scores."""
        z = self._logits(scores)  # max is 0 in every vector, so the sum lies in [1, m]
        return _out(z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True)))

    def pmf(self, scores: ArrayLike) -> np.ndarray:
        """Selection probabilities, shape ``(..., m)``."""
        return np.exp(self.logpmf(scores))


def _log_std_laplace_cdf(t: float) -> float:
    """log P(L <= t) for a standard Laplace L, without cancellation."""
    if t < 0:
        return math.log(0.5) + t
    return math.log1p(-0.5 * math.exp(-t))


class ReportNoisyMax:
    r"""Report noisy max: ``argmax_i (score_i + scale * L_i)``, L_i i.i.d. standard Laplace.

    Parameters
    ----------
    scale : float
        Laplace scale b > 0 (e.g. ``2 Delta_u / epsilon``, computed by the caller from the spec
        record ``report_noisy_max.laplace``).

    Notes
    -----
    Tape: one ``laplace`` entry of shape ``size + scores.shape``.

    ``logpmf`` integrates over the winning noise value. With ``u = (x - s_i)/b`` and
    ``c_j = (s_i - s_j)/b``,

        P(i) = int f(u) prod_{j != i} F(u + c_j) du,

    with f, F the standard Laplace density and cdf. The integrand is log-concave, so it is
    evaluated in logs, scaled to 1 at its mode, and integrated by adaptive quadrature (scipy
    ``quad``) with break points at the kinks ``u = 0``, ``u = -c_j`` and at geometric
    distances from the mode, over ``[min(0, -c) - 40, max(0, -c) + 40]``; the neglected tails
    have relative mass below about ``2^m e^{-40}``. Round-off above 0 is clamped to 0 (a
    probability of 1). ``m`` quadratures per score vector: meant
    for small ``m`` and few score vectors (audits, tests).
    """

    _TAIL = 40.0

    def __init__(self, *, scale: float) -> None:
        self.scale = validate.positive("scale", scale)

    def __repr__(self) -> str:
        return f"ReportNoisyMax(scale={self.scale!r})"

    def rvs(self, scores: ArrayLike, *, size: int | Sequence[int] = (), rng: RngLike = None,
            noise: NoiseLike = None, label: str = "report noisy max") -> np.ndarray:
        """Selected indices (int64) of shape ``size + scores.shape[:-1]``."""
        s = _scores(scores)
        source = noise_source(rng=rng, noise=noise)
        noise_values = source.laplace(_label(label), _size(size) + s.shape)
        return np.argmax(s + self.scale * noise_values, axis=-1)

    def _log_prob(self, s: np.ndarray, i: int) -> float:
        c = ((s[i] - np.delete(s, i)) / self.scale).tolist()
        kinks = sorted({0.0, *(-cj for cj in c)})
        lo, hi = kinks[0] - self._TAIL, kinks[-1] + self._TAIL
        log_half = math.log(0.5)

        def log_integrand(u: float) -> float:
            return log_half - abs(u) + sum(_log_std_laplace_cdf(u + cj) for cj in c)

        # The integrand is log-concave (f and F are), hence unimodal: locate the mode, scale the
        # integrand to 1 there, and put break points at the kinks and at mode +- 2^k, so no
        # quadrature panel is long compared with its distance from the mode (a narrow peak in a
        # long panel is what adaptive Gauss-Kronrod can miss).
        mode = scipy.optimize.minimize_scalar(
            lambda u: -log_integrand(u), bounds=(lo, hi), method="bounded", options={"xatol": 1e-8}
        ).x
        shift = log_integrand(mode)
        points = set(kinks) | {mode}
        step = 0.5
        while step < hi - lo:
            points.update((mode - step, mode + step))
            step *= 2.0
        interior = sorted(p for p in points if lo < p < hi)
        value, _ = scipy.integrate.quad(
            lambda u: math.exp(log_integrand(u) - shift),
            lo,
            hi,
            points=interior,
            epsabs=0.0,
            epsrel=1e-11,
            limit=50 * (len(interior) + 1),
        )
        # Quadrature round-off can put the log a few ulps above 0 for a near-certain winner.
        return min(math.log(value) + shift, 0.0)

    def logpmf(self, scores: ArrayLike) -> np.ndarray:
        """Log selection probabilities, shape ``(..., m)``, by 1-D quadrature (see Notes)."""
        s = _scores(scores)
        m = s.shape[-1]
        flat = s.reshape(-1, m)
        out = np.empty_like(flat)
        for row in range(flat.shape[0]):
            if m == 1:
                out[row, 0] = 0.0
                continue
            for i in range(m):
                out[row, i] = self._log_prob(flat[row], i)
        return _out(out.reshape(s.shape))

    def pmf(self, scores: ArrayLike) -> np.ndarray:
        """Selection probabilities, shape ``(..., m)``."""
        return np.exp(self.logpmf(scores))
