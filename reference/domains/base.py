"""The :class:`Domain` interface (see :mod:`reference.domains`) and the validation and Gaussian helpers the domains share.
"""

from __future__ import annotations

import abc
import math

import mpmath
import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import l2_norm as _norm
from reference.arrays import points as _points
from reference.arrays import vector as _vector
from reference.rng import RngLike
from reference.tape import NoiseLike, noise_source
from spec import validate
from spec.errors import ParameterError

#: Default membership tolerance, relative to the size of the set: ``contains`` uses
#: ``tol = DEFAULT_RELATIVE_TOL * (1 + radius)`` unless a tolerance is given.
DEFAULT_RELATIVE_TOL = 1e-9

_EPS = np.finfo(float).eps


# --------------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------------


def _dim(value) -> int:
    return validate.positive_integer("dim", value)


def _safe_div(num, den):
    """num / den with x/0 = +inf for x > 0 and 0/0 = 0 (gauge conventions), no warnings."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out = np.where(den > 0, out, np.where(num > 0, np.inf, 0.0))
    return out


# --------------------------------------------------------------------------------------------
# Gaussian width integrals (one-dimensional, mpmath)
# --------------------------------------------------------------------------------------------


def _expected_max_abs_gaussian(p: int) -> tuple[float, float]:
    """E max_{i<=p} |g_i| = int_0^inf 1 - erf(t/sqrt2)^p dt, by mpmath quadrature."""
    with mpmath.workdps(30):
        s2 = mpmath.sqrt(2)

        def tail(t):  # 1 - erf^p, written without cancellation
            return -mpmath.expm1(p * mpmath.log1p(-mpmath.erfc(t / s2)))

        m = mpmath.sqrt(2 * mpmath.log(p + 1))
        value, err = mpmath.quad(tail, [0, m / 2, m, m + 2, m + 6, mpmath.inf], error=True)
        return float(value), float(err)


def _expected_max_gaussian(p: int) -> tuple[float, float]:
    """E max_{i<=p} g_i = int_0^inf (1 - Phi(t)^p) - Phi(-t)^p dt, by mpmath quadrature."""
    with mpmath.workdps(30):
        s2 = mpmath.sqrt(2)

        def integrand(t):
            upper = mpmath.erfc(t / s2) / 2  # Phi(-t) = 1 - Phi(t)
            return -mpmath.expm1(p * mpmath.log1p(-upper)) - mpmath.exp(p * mpmath.log(upper))

        m = mpmath.sqrt(2 * mpmath.log(p + 1))
        value, err = mpmath.quad(integrand, [0, m / 2, m, m + 2, m + 6, mpmath.inf], error=True)
        return float(value), float(err)


def _expected_gaussian_norm(p: int) -> float:
    """E ||g||_2 = sqrt(2) Gamma((p+1)/2) / Gamma(p/2)."""
    with mpmath.workdps(30):
        return float(mpmath.sqrt(2) * mpmath.exp(mpmath.loggamma((p + 1) / mpmath.mpf(2)) - mpmath.loggamma(p / mpmath.mpf(2))))


# --------------------------------------------------------------------------------------------
# the interface
# --------------------------------------------------------------------------------------------


class Domain(abc.ABC):
    """A closed convex set C in R^p (abstract base class).

    Subclasses implement the private ``_project``, ``_gauge``, ``_support``, ``_lmo``,
    ``_coordinate_bounds`` and the properties ``diameter`` and ``radius``; the public methods
    validate their inputs (``x`` must be a finite real array of shape ``(..., p)``:
    :class:`TypeError` for non-real input, :class:`~spec.errors.ParameterError` for a wrong
    shape or non-finite entries) and handle batching.
    """

    #: True when :meth:`project` is a closed form (exact up to floating rounding).
    exact_projection: bool = True

    def __init__(self, dim: int) -> None:
        self._dim = _dim(dim)

    # -- basic facts -------------------------------------------------------------------------

    @property
    def dim(self) -> int:
        """The dimension p of the ambient space."""
        return self._dim

    @property
    @abc.abstractmethod
    def diameter(self) -> float:
        """The l2 diameter sup_{x, z in C} ||x - z||_2 (``inf`` for unbounded sets)."""

    @property
    @abc.abstractmethod
    def max_norm(self) -> float:
        """sup_{x in C} ||x||_2: the largest l2 norm of a point of C (``inf`` if unbounded).

        Not a radius: ``L2Ball(radius=1, dim=2, center=[3, 0]).max_norm == 4``; balls keep
        their own ``radius``."""

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.max_norm)

    @property
    def symmetric(self) -> bool:
        """Whether C = -C (then :meth:`gauge` about 0 is a norm and :meth:`support` its dual)."""
        return False

    @abc.abstractmethod
    def interior_point(self) -> np.ndarray:
        """A point of the (relative) interior of C; the default centre of :meth:`gauge`."""

    def _default_tol(self) -> float:
        r = self.max_norm
        return DEFAULT_RELATIVE_TOL * (1.0 + (r if math.isfinite(r) else 0.0))

    # -- projection and membership -------------------------------------------------------------

    def project(self, x: ArrayLike) -> np.ndarray:
        """Euclidean projection of ``x`` (shape ``(..., p)``) onto C; same shape."""
        return self._project(_points("x", x, self.dim))

    def project_unchecked(self, x: np.ndarray) -> np.ndarray:
        """:meth:`project` without input validation: the hook for inner loops whose iterates are
        float arrays of shape ``(..., p)`` by construction."""
        return self._project(x)

    def distance(self, x: ArrayLike) -> np.ndarray:
        """Euclidean distance from ``x`` (shape ``(..., p)``) to C; shape ``(...)``."""
        x = _points("x", x, self.dim)
        return _norm(x - self._project(x))

    def contains(self, x: ArrayLike, *, tol: float | None = None) -> np.ndarray:
        """Membership with a tolerance: ``dist(x, C) <= tol``; boolean array of shape ``(...)``.

        Parameters
        ----------
        x : array_like, shape (..., p)
        tol : float, optional
            Absolute distance tolerance (>= 0); default ``DEFAULT_RELATIVE_TOL * (1 + radius)``
            (``1e-9 (1 + radius)``), which absorbs the rounding of :meth:`project`.
        """
        tol = self._default_tol() if tol is None else validate.nonnegative("tol", tol)
        return self._contains(_points("x", x, self.dim), tol)

    def _contains(self, x: np.ndarray, tol: float) -> np.ndarray:
        return _norm(x - self._project(x)) <= tol

    # -- Minkowski gauge ---------------------------------------------------------------------

    def gauge(self, x: ArrayLike, *, center: ArrayLike | None = None) -> np.ndarray:
        """Minkowski functional of C about ``center``: inf{r > 0 : x in c + r (C - c)}.

        Equals ``1 / t*`` where ``t* = sup{t >= 0 : c + t (x - c) in C}`` (``0`` at ``x = c``,
        ``+inf`` where no ray from c towards x stays in C). It is positively homogeneous about
        c, convex, and ``gauge(x) <= 1`` iff ``x`` is in C. It is finite everywhere only when c
        is an interior point.

        Parameters
        ----------
        x : array_like, shape (..., p)
        center : array_like, shape (p,), optional
            A point of C (validated with the default membership tolerance); default
            :meth:`interior_point` (the origin for the sets symmetric about 0).

        Returns
        -------
        ndarray, shape (...)
        """
        x = _points("x", x, self.dim)
        c = self._center(center)
        return self._gauge(x - c, c)

    def _center(self, center) -> np.ndarray:
        if center is None:
            return self.interior_point()
        c = _vector("center", center, self.dim)
        if not bool(self._contains(c, self._default_tol())):
            raise ParameterError(f"center ({c.tolist()}) must lie in the domain {self!r}")
        return c

    def _is_interior(self, c: np.ndarray) -> bool:
        """Exact test: c is interior iff the rays c +- t e_i stay in C for some t > 0, i.e. the
        gauge about c of c +- e_i is finite (C then contains a cross-polytope around c)."""
        eye = np.eye(self.dim)
        d = np.concatenate([eye, -eye])
        return bool(np.all(np.isfinite(self._gauge(d, c))))

    # -- linear functionals --------------------------------------------------------------------

    def support(self, y: ArrayLike) -> np.ndarray:
        """Support function sup_{x in C} <x, y>; shape ``(...)`` for ``y`` of shape ``(..., p)``."""
        return self._support(_points("y", y, self.dim))

    def dual_norm(self, y: ArrayLike) -> np.ndarray:
        """The dual norm of the gauge about 0, i.e. :meth:`support`, for sets symmetric about 0.

        Raises
        ------
        ParameterError
            If C is not symmetric about the origin (then the support function is not a norm).
        """
        if not self.symmetric:
            raise ParameterError(f"dual_norm needs a domain symmetric about 0; {self!r} is not")
        return self.support(y)

    def lmo(self, g: ArrayLike) -> np.ndarray:
        """Linear minimisation oracle argmin_{x in C} <g, x>; shape ``(..., p)``.

        Ties are broken deterministically (see each class)."""
        return self._lmo(_points("g", g, self.dim))

    # -- sizes -----------------------------------------------------------------------------

    def coordinate_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)``: lower_i = min_{x in C} x_i and upper_i = max_{x in C} x_i."""
        lo, hi = self._coordinate_bounds()
        return lo.copy(), hi.copy()

    def _coordinate_bounds(self):
        eye = np.eye(self.dim)
        return -self._support(-eye), self._support(eye)

    @property
    def linf_diameter(self) -> float:
        """tau = sup_{x, z in C} ||x - z||_inf = max_i (upper_i - lower_i) (bst14 Section III-C)."""
        lo, hi = self._coordinate_bounds()
        return float(np.max(hi - lo))

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """The cube A of bst14 Section III-C: edge tau (the l-infinity diameter), containing C.

        The cube is centred on the midpoints of the coordinate ranges of C, so each coordinate
        range [lower_i, upper_i] (of width <= tau) lies inside [A_lower_i, A_upper_i].

        Returns
        -------
        (lower, upper) : ndarray, shape (p,) each
            ``upper - lower == tau`` in every coordinate. ``(-inf, inf)`` for unbounded sets.
        """
        lo, hi = self._coordinate_bounds()
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
            return np.full(self.dim, -np.inf), np.full(self.dim, np.inf)
        tau = float(np.max(hi - lo))
        mid = (lo + hi) / 2
        return mid - tau / 2, mid + tau / 2

    # -- Gaussian width --------------------------------------------------------------------

    def gaussian_width(self, *, samples: int | None = None, rng: RngLike = None,
                       noise: NoiseLike = None) -> tuple[float, float]:
        """Gaussian width E sup_{x in C} <g, x>, g ~ N(0, I_p), with its standard error.

        Closed forms where known (standard error 0), one-dimensional mpmath quadrature where
        the width reduces to one (second value: the quadrature's error estimate), otherwise
        Monte Carlo with ``samples`` draws (default 10 000; second value: the standard error
        ``std / sqrt(samples)``).

        Parameters
        ----------
        samples : int, optional
            If given, estimate by Monte Carlo with this many draws even where a closed form
            exists (useful to cross-check the closed form).
        rng, noise
            Random source for the Monte Carlo estimate (see :func:`reference.tape.noise_source`);
            draws are labelled ``"gaussian width g"``.
        """
        if samples is None:
            exact = self._gaussian_width_exact()
            if exact is not None:
                return exact
            samples = 10_000
        samples = validate.integer("samples", samples, minimum=2)
        source = noise_source(rng=rng, noise=noise)
        g = source.normal("gaussian width g", (samples, self.dim))
        values = self._support(g)
        if not np.all(np.isfinite(values)):
            return math.inf, 0.0
        return float(values.mean()), float(values.std(ddof=1) / math.sqrt(samples))

    def _gaussian_width_exact(self):
        return None

    # -- hooks for subclasses ------------------------------------------------------------------

    @abc.abstractmethod
    def _project(self, x: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _gauge(self, d: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Gauge of c + d about c (d of shape (..., p))."""

    @abc.abstractmethod
    def _support(self, y: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _lmo(self, g: np.ndarray) -> np.ndarray: ...

    def make_feasible(self, x: np.ndarray) -> np.ndarray:
        """A point of C close to x (the projection, for the exact classes)."""
        return self._project(x)
