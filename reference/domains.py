"""Convex domains in R^p: projection, membership, Minkowski gauge, support function, linear
minimisation oracle, diameters, bounding cube and Gaussian width.

Every domain implements the interface of :class:`Domain`. Point arguments are batched over
leading axes: ``x`` of shape ``(..., p)`` gives results of shape ``(..., p)`` (points) or
``(...)`` (scalars per point).

=====================  ======================================================================
method                 meaning
=====================  ======================================================================
``project(x)``         Euclidean projection argmin_{z in C} ||z - x||_2
``contains(x, tol=)``  ``dist(x, C) <= tol`` (see each class for how the distance is computed)
``gauge(x, center=)``  Minkowski functional inf{r > 0 : x in c + r (C - c)} (+inf if none)
``support(y)``         sup_{x in C} <x, y>  (``dual_norm`` where C is symmetric about 0)
``lmo(g)``             argmin_{x in C} <g, x>, ties broken deterministically
``diameter``           l2 diameter sup_{x, z in C} ||x - z||_2
``radius``             sup_{x in C} ||x||_2 (the "domain radius" losses need)
``coordinate_bounds``  (min_{x in C} x_i, max_{x in C} x_i) for every coordinate
``linf_diameter``      the l-infinity diameter tau = max_i (max x_i - min x_i)
``bounding_box()``     the bst14 enclosing cube A: edge tau, centred on the coordinate ranges
``gaussian_width()``   (E sup_{x in C} <g, x>, its standard error), g ~ N(0, I_p)
``interior_point()``   the default gauge centre (a point of the (relative) interior)
=====================  ======================================================================

The sets: :class:`L2Ball`, :class:`L1Ball`, :class:`Box` and :class:`Cube`, :class:`Simplex`,
:class:`Polytope` (convex hull of points), :class:`Rp` (the whole space) and
:class:`Intersection` (e.g. bst14's localised set ``C_0 = C ∩ {||theta - theta_0|| <= r}``).

Exactness. Projections, gauges, supports and LMOs are closed forms (exact up to floating
rounding) for the balls, boxes, the simplex and R^p. :class:`Polytope` projects with Wolfe's
minimum-norm-point algorithm (an exact active-set method, terminated by a Frank-Wolfe gap test);
its support function and LMO are exact. :class:`Intersection` projects by Dykstra's algorithm
and minimises linear functions by a consensus ADMM whose result carries a duality certificate;
for one :class:`L2Ball` and one exactly projectable set (bst14's ``C_0``) both are exact
one-dimensional searches on the ball's Lagrange multiplier instead. Its ``support`` is a
certified upper bound. :attr:`Domain.exact_projection` says which projections are closed
forms. Algorithms that need certified bounds (the solver) use only the exact operations or
the certified ones.
"""

from __future__ import annotations

import abc
import math

import mpmath
import numpy as np

from reference.tape import noise_source
from spec import validate
from spec.errors import ParameterError

__all__ = [
    "Domain",
    "L2Ball",
    "L1Ball",
    "Box",
    "Cube",
    "Simplex",
    "Polytope",
    "Rp",
    "Intersection",
    "DEFAULT_RELATIVE_TOL",
]

#: Default membership tolerance, relative to the size of the set: ``contains`` uses
#: ``tol = DEFAULT_RELATIVE_TOL * (1 + radius)`` unless a tolerance is given.
DEFAULT_RELATIVE_TOL = 1e-9

_EPS = np.finfo(float).eps


# --------------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------------


def _numeric_array(name: str, value) -> np.ndarray:
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


def _finite(name: str, arr: np.ndarray) -> np.ndarray:
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)].reshape(-1)[0]
        raise ParameterError(f"{name} (contains {bad}) must be finite")
    return arr


def _vector(name: str, value, dim: int | None = None) -> np.ndarray:
    """A finite 1-D float vector, of length ``dim`` when given."""
    arr = _numeric_array(name, value)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ParameterError(f"{name} (shape {arr.shape}) must be a non-empty 1-D array")
    if dim is not None and arr.shape[0] != dim:
        raise ParameterError(f"{name} (length {arr.shape[0]}) must have length dim ({dim})")
    return _finite(name, arr)


def _points(name: str, value, dim: int) -> np.ndarray:
    """A finite float array of shape ``(..., dim)``."""
    arr = _numeric_array(name, value)
    if arr.ndim == 0 or arr.shape[-1] != dim:
        raise ParameterError(
            f"{name} (shape {arr.shape}) must have shape (..., {dim}): last axis = the domain dimension"
        )
    return _finite(name, arr)


def _dim(value) -> int:
    return validate.positive_integer("dim", value)


def _norm(x: np.ndarray) -> np.ndarray:
    """Euclidean norm along the last axis, scaled by the largest entry so that tiny or huge
    vectors neither underflow nor overflow when squared."""
    m = np.abs(x).max(axis=-1, initial=0.0)
    safe = np.where(m > 0, m, 1.0)
    y = x / safe[..., None]
    return m * np.sqrt(np.einsum("...i,...i->...", y, y))


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

    def __init__(self, dim: int):
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
    def radius(self) -> float:
        """sup_{x in C} ||x||_2: the largest l2 norm of a point of C (``inf`` if unbounded)."""

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.radius)

    @property
    def symmetric(self) -> bool:
        """Whether C = -C (then :meth:`gauge` about 0 is a norm and :meth:`support` its dual)."""
        return False

    @abc.abstractmethod
    def interior_point(self) -> np.ndarray:
        """A point of the (relative) interior of C; the default centre of :meth:`gauge`."""

    def _default_tol(self) -> float:
        r = self.radius
        return DEFAULT_RELATIVE_TOL * (1.0 + (r if math.isfinite(r) else 0.0))

    # -- projection and membership -------------------------------------------------------------

    def project(self, x) -> np.ndarray:
        """Euclidean projection of ``x`` (shape ``(..., p)``) onto C; same shape."""
        return self._project(_points("x", x, self.dim))

    def distance(self, x) -> np.ndarray:
        """Euclidean distance from ``x`` (shape ``(..., p)``) to C; shape ``(...)``."""
        x = _points("x", x, self.dim)
        return _norm(x - self._project(x))

    def contains(self, x, *, tol: float | None = None) -> np.ndarray:
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

    def gauge(self, x, *, center=None) -> np.ndarray:
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

    def support(self, y) -> np.ndarray:
        """Support function sup_{x in C} <x, y>; shape ``(...)`` for ``y`` of shape ``(..., p)``."""
        return self._support(_points("y", y, self.dim))

    def dual_norm(self, y) -> np.ndarray:
        """The dual norm of the gauge about 0, i.e. :meth:`support`, for sets symmetric about 0.

        Raises
        ------
        ParameterError
            If C is not symmetric about the origin (then the support function is not a norm).
        """
        if not self.symmetric:
            raise ParameterError(f"dual_norm needs a domain symmetric about 0; {self!r} is not")
        return self.support(y)

    def lmo(self, g) -> np.ndarray:
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

    def gaussian_width(self, *, samples: int | None = None, rng=None, noise=None) -> tuple[float, float]:
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

    def _make_feasible(self, x: np.ndarray) -> np.ndarray:
        """A point of C close to x (the projection, for the exact classes)."""
        return self._project(x)


# --------------------------------------------------------------------------------------------
# balls
# --------------------------------------------------------------------------------------------


class L2Ball(Domain):
    """The Euclidean ball {x : ||x - center||_2 <= radius}.

    Parameters
    ----------
    radius : float
        > 0, finite.
    dim : int
        >= 1.
    center : array_like, shape (dim,), optional
        Default: the origin.

    Notes
    -----
    Gauge about c (with u = c - center, k = radius^2 - ||u||^2 >= 0, d = x - c): the smallest
    r with ||u + d / r|| <= radius is ``(<u, d> + sqrt(<u, d>^2 + ||d||^2 k)) / k``; about the
    centre it is ``||d|| / radius``. Support: ``<center, y> + radius ||y||``. LMO: ``center -
    radius g / ||g||`` (``center`` for g = 0). Gaussian width: ``radius sqrt(2)
    Gamma((p+1)/2) / Gamma(p/2)``.
    """

    def __init__(self, *, radius, dim, center=None):
        super().__init__(dim)
        self._r = validate.positive("radius", radius)
        self._c = np.zeros(self.dim) if center is None else _vector("center", center, self.dim)

    def __repr__(self):
        if np.any(self._c):
            return f"L2Ball(radius={self._r!r}, dim={self.dim}, center={self._c.tolist()})"
        return f"L2Ball(radius={self._r!r}, dim={self.dim})"

    @property
    def ball_radius(self) -> float:
        """The radius parameter of the ball (``radius`` is the largest norm of a point)."""
        return self._r

    @property
    def center(self) -> np.ndarray:
        return self._c.copy()

    @property
    def diameter(self) -> float:
        return 2.0 * self._r

    @property
    def radius(self) -> float:
        return float(np.linalg.norm(self._c)) + self._r

    @property
    def symmetric(self) -> bool:
        return not np.any(self._c)

    def interior_point(self):
        return self._c.copy()

    def _project(self, x):
        d = x - self._c
        n = _norm(d)[..., None]
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(n > self._r, self._r / n, 1.0)
        return self._c + d * scale

    def _contains(self, x, tol):
        return _norm(x - self._c) <= self._r + tol

    def _gauge(self, d, c):
        u = c - self._c
        k = max(self._r**2 - float(u @ u), 0.0)
        # work with the unit direction e = d / ||d||: the gauge is ||d|| times the gauge of e,
        # which keeps tiny and huge d from underflowing or overflowing when squared
        n = _norm(d)
        e = d / np.where(n > 0, n, 1.0)[..., None]
        b = e @ u
        if k > 0:
            return n * (b + np.sqrt(b * b + k)) / k
        # centre on the sphere: the ray stays in the ball only for <u, e> < 0, up to
        # t = -2 <u, e> / ||d||, so the gauge is ||d|| / (-2 <u, e>).
        return np.where(n > 0, n * _safe_div(np.ones_like(b), -2.0 * b), 0.0)

    def _support(self, y):
        return y @ self._c + self._r * _norm(y)

    def _lmo(self, g):
        n = _norm(g)[..., None]
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(n > 0, g / np.where(n > 0, n, 1.0), 0.0)
        return self._c - self._r * step

    def _coordinate_bounds(self):
        return self._c - self._r, self._c + self._r

    def _gaussian_width_exact(self):
        return self._r * _expected_gaussian_norm(self.dim), 0.0


class L1Ball(Domain):
    """The l1 ball {x : ||x||_1 <= radius} (the cross-polytope), centred at the origin.

    Projection is exact by the sort-based soft-thresholding method: for ||x||_1 > radius,
    ``P x = sign(x) max(|x| - theta, 0)`` with theta the unique value making the l1 norm equal
    to radius, found from the sorted magnitudes. Gauge about 0: ``||x||_1 / radius``; about
    another centre c it is computed exactly from the piecewise-linear function
    ``t -> ||c + t d||_1``. Support: ``radius ||y||_inf`` (the dual norm). LMO: ``-radius
    sign(g_j) e_j`` at the first index j maximising |g_j| (``radius e_0`` for g = 0, so the
    result is always a vertex). Gaussian width: ``radius E max_i |g_i|`` by quadrature.
    """

    def __init__(self, *, radius, dim):
        super().__init__(dim)
        self._r = validate.positive("radius", radius)

    def __repr__(self):
        return f"L1Ball(radius={self._r!r}, dim={self.dim})"

    @property
    def diameter(self) -> float:
        return 2.0 * self._r

    @property
    def radius(self) -> float:
        return self._r

    @property
    def symmetric(self) -> bool:
        return True

    def interior_point(self):
        return np.zeros(self.dim)

    def _project(self, x):
        return _project_l1(x, self._r)

    def _gauge(self, d, c):
        if not np.any(c):
            return np.abs(d).sum(-1) / self._r
        return _l1_gauge_about(d, c, self._r)

    def _support(self, y):
        return self._r * np.abs(y).max(-1)

    def _lmo(self, g):
        j = np.abs(g).argmax(-1)
        gj = np.take_along_axis(g, j[..., None], -1)[..., 0]
        sign = np.where(gj > 0, -1.0, 1.0)
        out = np.zeros_like(g)
        np.put_along_axis(out, j[..., None], (sign * self._r)[..., None], -1)
        return out

    def _coordinate_bounds(self):
        return np.full(self.dim, -self._r), np.full(self.dim, self._r)

    def _gaussian_width_exact(self):
        value, err = _expected_max_abs_gaussian(self.dim)
        return self._r * value, self._r * err


def _project_l1(x: np.ndarray, r: float) -> np.ndarray:
    a = np.abs(x)
    inside = a.sum(-1) <= r
    theta = _threshold(a, r)
    out = np.sign(x) * np.maximum(a - theta[..., None], 0.0)
    return np.where(inside[..., None], x, out)


def _threshold(v: np.ndarray, total: float) -> np.ndarray:
    """theta with sum_i max(v_i - theta, 0) = total (v sorted internally; the sort-based rule).

    With u the entries sorted in decreasing order and S_j their partial sums, the condition
    u_j > (S_j - total) / j holds exactly for j <= rho, and theta = (S_rho - total) / rho.
    """
    p = v.shape[-1]
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1)
    j = np.arange(1, p + 1)
    cond = u - (css - total) / j > 0
    # the last index where the condition holds (it holds for j = 1 whenever sum(v) > total)
    rho = p - np.argmax(cond[..., ::-1], axis=-1)
    s = np.take_along_axis(css, (rho - 1)[..., None], -1)[..., 0]
    return (s - total) / rho


def _l1_gauge_about(d: np.ndarray, c: np.ndarray, r: float) -> np.ndarray:
    """Gauge about c of c + d for the l1 ball of radius r, exactly.

    f(t) = ||c + t d||_1 is convex and piecewise linear with breakpoints b_i = -c_i / d_i; for
    t > 0 its slope is sum_i |d_i| sgn(t - b_i), increasing by 2 |d_i| at each positive
    breakpoint. We walk the sorted positive breakpoints to the first one where f exceeds r and
    solve the linear piece before it for t* = sup{t >= 0 : f(t) <= r}; the gauge is 1 / t*.
    """
    shape = d.shape[:-1]
    d2 = d.reshape(-1, d.shape[-1])
    ad = np.abs(d2)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(d2 != 0, -c / np.where(d2 != 0, d2, 1.0), -np.inf)
    positive = b > 0
    f0 = float(np.abs(c).sum())
    s0 = np.where(positive, -ad, ad).sum(-1)
    bp = np.where(positive, b, np.inf)
    order = np.argsort(bp, axis=-1)
    bs = np.take_along_axis(bp, order, -1)
    ws = np.take_along_axis(np.where(positive, ad, 0.0), order, -1)
    m = bs.shape[0]
    # prepend t = 0, append t = inf (the last, unbounded piece)
    bs = np.concatenate([np.zeros((m, 1)), bs, np.full((m, 1), np.inf)], axis=1)
    slopes = s0[:, None] + 2.0 * np.concatenate([np.zeros((m, 1)), np.cumsum(ws, -1)], axis=1)
    with np.errstate(invalid="ignore"):
        steps = np.diff(bs, axis=1)
        steps = np.where(np.isfinite(steps), steps, 0.0)
    fvals = f0 + np.concatenate([np.zeros((m, 1)), np.cumsum(slopes * steps, -1)], axis=1)
    finite = np.isfinite(bs)
    exceed = ~finite | (fvals > r)
    exceed[:, 0] = False  # f(0) = ||c||_1 <= r (c is in C)
    k = np.argmax(exceed, axis=1)  # first breakpoint beyond t*, >= 1
    rows = np.arange(m)
    t0, f_prev, s_prev = bs[rows, k - 1], fvals[rows, k - 1], slopes[rows, k - 1]
    room = np.maximum(r - f_prev, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        tstar = np.where(s_prev > 0, t0 + room / np.where(s_prev > 0, s_prev, 1.0), np.inf)
    zero = ~np.any(d2 != 0, axis=-1)
    gauge = np.where(zero, 0.0, _safe_div(np.ones(m), tstar))
    return gauge.reshape(shape)


# --------------------------------------------------------------------------------------------
# boxes
# --------------------------------------------------------------------------------------------


class Box(Domain):
    """The axis-aligned box {x : lower <= x <= upper} (coordinatewise, lower < upper).

    Projection: coordinatewise clipping. Gauge about c: ``max_i max(d_i / (upper_i - c_i),
    d_i / (lower_i - c_i), 0)`` with d = x - c. Support: ``sum_i max(lower_i y_i, upper_i
    y_i)``. LMO: ``upper_i`` where g_i < 0, else ``lower_i`` (a vertex). Gaussian width:
    ``sum_i (upper_i - lower_i) / sqrt(2 pi)``.
    """

    def __init__(self, *, lower, upper):
        lo = _vector("lower", lower)
        hi = _vector("upper", upper)
        if lo.shape != hi.shape:
            raise ParameterError(f"lower (length {lo.size}) and upper (length {hi.size}) must have the same length")
        bad = np.flatnonzero(~(lo < hi))
        if bad.size:
            i = int(bad[0])
            raise ParameterError(f"lower[{i}] ({float(lo[i])!r}) must be < upper[{i}] ({float(hi[i])!r})")
        super().__init__(lo.size)
        self._lo, self._hi = lo, hi

    def __repr__(self):
        return f"Box(lower={self._lo.tolist()}, upper={self._hi.tolist()})"

    @property
    def lower(self) -> np.ndarray:
        return self._lo.copy()

    @property
    def upper(self) -> np.ndarray:
        return self._hi.copy()

    @property
    def diameter(self) -> float:
        return float(np.linalg.norm(self._hi - self._lo))

    @property
    def radius(self) -> float:
        return float(np.linalg.norm(np.maximum(np.abs(self._lo), np.abs(self._hi))))

    @property
    def symmetric(self) -> bool:
        return bool(np.array_equal(self._lo, -self._hi))

    def interior_point(self):
        return (self._lo + self._hi) / 2

    def _project(self, x):
        return np.clip(x, self._lo, self._hi)

    def _gauge(self, d, c):
        up = _safe_div(np.maximum(d, 0.0), self._hi - c)
        down = _safe_div(np.maximum(-d, 0.0), c - self._lo)
        return np.maximum(up, down).max(-1)

    def _support(self, y):
        return np.maximum(y * self._lo, y * self._hi).sum(-1)

    def _lmo(self, g):
        return np.where(g < 0, self._hi, self._lo)

    def _coordinate_bounds(self):
        return self._lo, self._hi

    def _gaussian_width_exact(self):
        return float((self._hi - self._lo).sum() / math.sqrt(2 * math.pi)), 0.0


class Cube(Box):
    """The cube {x : ||x - center||_inf <= half_width} (a :class:`Box`).

    Parameters
    ----------
    half_width : float
        > 0.
    dim : int
    center : array_like, shape (dim,), optional
        Default: the origin (then the gauge about 0 is ||x||_inf / half_width).
    """

    def __init__(self, *, half_width, dim, center=None):
        h = validate.positive("half_width", half_width)
        p = _dim(dim)
        c = np.zeros(p) if center is None else _vector("center", center, p)
        super().__init__(lower=c - h, upper=c + h)
        self._h, self._center_point = h, c

    def __repr__(self):
        if np.any(self._center_point):
            return f"Cube(half_width={self._h!r}, dim={self.dim}, center={self._center_point.tolist()})"
        return f"Cube(half_width={self._h!r}, dim={self.dim})"


# --------------------------------------------------------------------------------------------
# simplex
# --------------------------------------------------------------------------------------------


class Simplex(Domain):
    """The scaled probability simplex {x : x >= 0, sum_i x_i = scale}.

    The simplex has empty interior in R^p (p >= 2). Its gauge is taken about the relative
    interior point ``c = scale / p * 1``: for x on the affine hull {sum x = scale} it is
    ``max(0, max_i (c_i - x_i) / c_i)`` (<= 1 iff x >= 0); **off the affine hull it is +inf**
    (no ray from c towards x stays in the set). A point counts as on the hull when
    ``|sum(x) - scale| <= max(1e-12, 4 p eps) (scale + ||x||_1)``; it is not a norm.

    Projection: exact, the sort-based method (``max(x - theta, 0)`` with sum = scale). Support:
    ``scale max_i y_i``. LMO: ``scale e_j`` at the first index minimising g. Gaussian width:
    ``scale E max_i g_i`` by quadrature.
    """

    def __init__(self, *, dim, scale=1.0):
        super().__init__(dim)
        self._s = validate.positive("scale", scale, error=ParameterError)

    def __repr__(self):
        return f"Simplex(dim={self.dim}, scale={self._s!r})"

    @property
    def scale(self) -> float:
        return self._s

    @property
    def diameter(self) -> float:
        return self._s * math.sqrt(2.0) if self.dim > 1 else 0.0

    @property
    def radius(self) -> float:
        return self._s

    def interior_point(self):
        return np.full(self.dim, self._s / self.dim)

    def _project(self, x):
        theta = _threshold(x, self._s)
        return np.maximum(x - theta[..., None], 0.0)

    def _gauge(self, d, c):
        x = c + d
        slack = max(1e-12, 4 * self.dim * _EPS) * (self._s + np.abs(x).sum(-1))
        on_hull = np.abs(x.sum(-1) - self._s) <= slack
        inner = _safe_div(np.maximum(-d, 0.0), np.broadcast_to(c, d.shape)).max(-1)
        zero = ~np.any(d != 0, axis=-1)
        return np.where(zero, 0.0, np.where(on_hull, inner, np.inf))

    def _support(self, y):
        return self._s * y.max(-1)

    def _lmo(self, g):
        j = g.argmin(-1)
        out = np.zeros_like(g)
        np.put_along_axis(out, j[..., None], self._s, -1)
        return out

    def _coordinate_bounds(self):
        if self.dim == 1:
            return np.array([self._s]), np.array([self._s])
        return np.zeros(self.dim), np.full(self.dim, self._s)

    def _gaussian_width_exact(self):
        if self.dim == 1:
            return 0.0, 0.0
        value, err = _expected_max_gaussian(self.dim)
        return self._s * value, self._s * err


# --------------------------------------------------------------------------------------------
# polytope
# --------------------------------------------------------------------------------------------


class Polytope(Domain):
    """The convex hull of finitely many points (``vertices``, shape ``(m, p)``).

    Projection: Wolfe's minimum-norm-point algorithm on the points ``v_j - x`` (an active-set
    method that terminates finitely in exact arithmetic; here it stops when the Frank-Wolfe
    gap of 1/2 ||.||^2 is below ``1e-14 max_j ||v_j - x||^2`` or no vertex improves, and the
    final affine solve makes the result exact up to rounding on the identified face).
    Membership: projection distance ``<= tol``. Support: ``max_j <v_j, y>`` (exact). LMO: the
    first vertex minimising ``<g, v_j>``. Diameter and radius: over the vertices (exact).

    Gauge about c (default: the mean of the points, which lies in the relative interior of
    the hull): from the facet inequalities ``a_k . x <= b_k`` of Qhull when the hull is
    full-dimensional and p <= 6, ``max_k max(0, a_k . d / (b_k - a_k . c))``; otherwise
    ``||d||`` times the value of the linear programme ``min 1'mu s.t. sum_j mu_j (v_j - c) =
    d / ||d||, mu >= 0`` (HiGHS, tolerances 1e-10), +inf when it is infeasible or its solution
    does not represent the direction to 1e-9 (relative). Gaussian width: Monte Carlo.
    """

    exact_projection = False

    def __init__(self, *, vertices):
        arr = _numeric_array("vertices", vertices)
        if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ParameterError(f"vertices (shape {arr.shape}) must be a 2-D array (m, p) with m, p >= 1")
        _finite("vertices", arr)
        super().__init__(arr.shape[1])
        self._v = arr.copy()
        self._v.setflags(write=False)
        self._facets = None  # lazily: (A, b) with A x <= b, or False when unavailable
        self._symmetric = None

    def __repr__(self):
        return f"Polytope(vertices=<{self._v.shape[0]} points in R^{self.dim}>)"

    @property
    def vertices(self) -> np.ndarray:
        return self._v.copy()

    @property
    def diameter(self) -> float:
        v = self._v
        sq = np.einsum("ij,ij->i", v, v)
        d2 = sq[:, None] + sq[None, :] - 2 * v @ v.T
        i, j = np.unravel_index(np.argmax(d2), d2.shape)
        return float(np.linalg.norm(v[i] - v[j]))

    @property
    def radius(self) -> float:
        return float(_norm(self._v).max())

    @property
    def symmetric(self) -> bool:
        if self._symmetric is None:
            self._symmetric = bool(np.all(self._contains(-self._v, self._default_tol())))
        return self._symmetric

    def interior_point(self):
        return self._v.mean(0)

    def _project(self, x):
        flat = x.reshape(-1, self.dim)
        out = np.empty_like(flat)
        for k, point in enumerate(flat):
            out[k] = _min_norm_point(self._v - point) + point
        return out.reshape(x.shape)

    def _support(self, y):
        return (y @ self._v.T).max(-1)

    def _lmo(self, g):
        j = (g @ self._v.T).argmin(-1)
        return self._v[j]

    def _coordinate_bounds(self):
        return self._v.min(0), self._v.max(0)

    def _halfspaces(self):
        if self._facets is None:
            self._facets = False
            p = self.dim
            if p == 1:
                lo, hi = float(self._v.min()), float(self._v.max())
                if hi > lo:
                    self._facets = (np.array([[1.0], [-1.0]]), np.array([hi, -lo]))
            elif p <= 6 and self._v.shape[0] > p:
                from scipy.spatial import ConvexHull, QhullError

                try:
                    hull = ConvexHull(self._v)
                    self._facets = (hull.equations[:, :-1].copy(), -hull.equations[:, -1].copy())
                except (QhullError, ValueError):
                    self._facets = False
        return self._facets

    def _gauge(self, d, c):
        facets = self._halfspaces()
        if facets is not False:
            a, b = facets
            slack = np.maximum(b - a @ c, 0.0)
            return np.maximum(_safe_div(d @ a.T, slack).max(-1), 0.0)
        from scipy.optimize import linprog

        flat = d.reshape(-1, self.dim)
        w = (self._v - c).T  # (p, m)
        wscale = max(float(np.abs(w).max(initial=0.0)), 1e-300)
        out = np.empty(flat.shape[0])
        for k, dk in enumerate(flat):
            n = float(_norm(dk))
            if n == 0.0:
                out[k] = 0.0
                continue
            # the gauge is positively homogeneous: solve for the unit direction (the LP
            # solver's tolerances are absolute), then check the representation ourselves, so a
            # direction off a degenerate hull is never accepted within the solver's tolerance
            e = dk / n
            res = linprog(
                np.ones(w.shape[1]), A_eq=w, b_eq=e, bounds=(0, None), method="highs",
                options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
            )
            ok = res.status == 0 and float(_norm(w @ res.x - e)) <= 1e-9 * (1.0 + wscale * float(res.x.sum()))
            out[k] = n * float(res.x.sum()) if ok else np.inf
        return out.reshape(d.shape[:-1])

    def _gaussian_width_exact(self):
        if self._v.shape[0] == 1:
            return 0.0, 0.0
        return None


def _affine_minimiser(points: np.ndarray) -> np.ndarray:
    """Weights w (sum 1) of the minimum-norm point of the affine hull of the rows of points."""
    base = points[0]
    if points.shape[0] == 1:
        return np.ones(1)
    diff = (points[1:] - base).T  # (p, k-1)
    alpha, *_ = np.linalg.lstsq(diff, -base, rcond=None)
    return np.concatenate([[1.0 - alpha.sum()], alpha])


def _min_norm_point(points: np.ndarray, *, max_iterations: int = 10_000) -> np.ndarray:
    """Wolfe's algorithm: the point of least Euclidean norm in the convex hull of the rows."""
    sq = np.einsum("ij,ij->i", points, points)
    scale = float(sq.max())
    if scale == 0.0:
        return np.zeros(points.shape[1])
    active = [int(np.argmin(sq))]
    w = np.ones(1)
    x = points[active[0]].copy()
    for _ in range(max_iterations):
        dots = points @ x
        j = int(np.argmin(dots))
        # Frank-Wolfe gap of 1/2 ||.||^2: ||x||^2 - min_j <x, p_j> >= 1/2 (||x||^2 - ||x*||^2)
        if x @ x - dots[j] <= 1e-14 * scale or j in active:
            return x
        active.append(j)
        w = np.append(w, 0.0)
        while True:  # minor cycle: move to the affine minimiser, staying in the hull
            v = _affine_minimiser(points[active])
            if np.all(v > 1e-15):
                w = v
                break
            neg = v <= 1e-15
            den = w - v
            ratios = np.where(neg, w / np.where(den > 0, den, 1.0), np.inf)
            ratios = np.where(neg & ~(den > 0), 0.0, ratios)
            drop = int(np.argmin(ratios))
            theta = float(np.clip(ratios[drop], 0.0, 1.0))
            if theta == 0.0 and drop == len(active) - 1:
                return x  # the new vertex cannot enter: no further progress in floating point
            w = (1 - theta) * w + theta * v
            keep = w > 1e-15
            keep[drop] = False  # drop the blocking point
            active = [a for a, k in zip(active, keep) if k]
            w = w[keep]
            w = w / w.sum()
            if len(active) == 1:
                w = np.ones(1)
                break
        x = w @ points[active]
    raise RuntimeError(f"Polytope projection did not converge within {max_iterations} iterations")


# --------------------------------------------------------------------------------------------
# the whole space
# --------------------------------------------------------------------------------------------


class Rp(Domain):
    """The whole space R^p (no constraint).

    Projection: identity. Gauge: 0. Support: 0 at y = 0, +inf otherwise. LMO: defined only
    for g = 0 (returns 0); any other g raises :class:`~spec.errors.ParameterError` (the linear
    function is unbounded below). Diameter, radius and Gaussian width: +inf.
    """

    def __init__(self, *, dim):
        super().__init__(dim)

    def __repr__(self):
        return f"Rp(dim={self.dim})"

    @property
    def diameter(self) -> float:
        return math.inf

    @property
    def radius(self) -> float:
        return math.inf

    @property
    def symmetric(self) -> bool:
        return True

    def interior_point(self):
        return np.zeros(self.dim)

    def _project(self, x):
        return x.copy()

    def _contains(self, x, tol):
        return np.ones(x.shape[:-1], dtype=bool)

    def _gauge(self, d, c):
        return np.zeros(d.shape[:-1])

    def _support(self, y):
        return np.where(np.any(y != 0, axis=-1), np.inf, 0.0)

    def _lmo(self, g):
        if np.any(g != 0):
            raise ParameterError("g (nonzero) must be 0: a linear function is unbounded below on R^p")
        return np.zeros_like(g)

    def _coordinate_bounds(self):
        return np.full(self.dim, -np.inf), np.full(self.dim, np.inf)

    def _gaussian_width_exact(self):
        return math.inf, 0.0


# --------------------------------------------------------------------------------------------
# intersections
# --------------------------------------------------------------------------------------------


class Intersection(Domain):
    """The intersection of convex domains of the same dimension, e.g. bst14's
    ``C_0 = C ∩ {theta : ||theta - theta_0||_2 <= r}`` = ``Intersection(C, L2Ball(radius=r,
    dim=p, center=theta_0))``.

    Parameters
    ----------
    *domains : Domain
        At least one; all of the same dimension.
    center : array_like, shape (p,), optional
        A common point, used as the gauge centre and to restore exact feasibility (radially).
        It must lie in every domain; the gauge is finite everywhere only if it is interior to
        all of them. Default: the first candidate interior to every member (exact test: the
        rays along +-e_i stay inside), else the first lying in every member, among the
        members' interior points, their centroid and points on the segments between two of
        them (weights 1/2, 2^-k, 1 - 2^-k for k = 2..10);
        :class:`~spec.errors.ParameterError` if there is none.
    tol : float, optional
        Accuracy target of the iterative operations (default 1e-14, relative to the size of
        the set): the ADMM linear minimisation stops when its duality gap is below ``tol ||g||
        (1 + diameter)``; Dykstra's projection stops when a full sweep moves the point and
        every increment by less than ``100 tol (1 + radius)``. The intersection of one
        :class:`L2Ball` with one domain that has an exact projection (bst14's ``C_0``) uses
        exact one-dimensional multiplier searches instead (see ``_pair_project`` and
        ``_pair_lmo``), accurate to rounding.

    Notes
    -----
    * ``contains``: all members contain x (each within ``tol``) -- a superset of the
      ``tol``-neighbourhood of the intersection.
    * ``project``: Dykstra's alternating projections (converges to the projection); for a
      pair (D, L2Ball) the exact multiplier search.
    * ``gauge`` about the common centre: the max of the members' gauges (exact, since the ray
      stays in the intersection exactly as long as it stays in every member).
    * ``lmo`` / ``support``: consensus ADMM on min <g, x> s.t. x in every member, stopped by a
      duality gap: for any split ``sum_k w_k = -g``, ``min <g, x> >= -sum_k support_k(w_k)``.
      On degenerate intersections (nearly coincident constraints) the target may not be met
      within 20 000 iterations; the best certified pair is returned (the bound stays valid).
      ``lmo`` returns a feasible point (radially pulled into the set about the centre) within
      the gap of optimal; ``support`` returns the certified *upper* bound (true value <= it <=
      true value + gap), which is the safe direction for Frank-Wolfe gaps and bounding boxes.
      For a pair (D, L2Ball) the same certificate comes from Lagrangian duality on the ball
      constraint, to rounding. :meth:`lmo_with_gap` returns the point and its certified gap.
    * ``diameter`` and ``radius``: **upper bounds**, the least over the members.
    * ``coordinate_bounds``: certified outer bounds from ``support``.
    """

    exact_projection = False

    def __init__(self, *domains, center=None, tol=1e-14):
        if len(domains) == 0:
            raise ParameterError("domains (none given) must contain at least one Domain")
        for k, dom in enumerate(domains):
            if not isinstance(dom, Domain):
                raise TypeError(f"domains[{k}] ({type(dom).__name__}) must be a Domain")
        dims = {dom.dim for dom in domains}
        if len(dims) != 1:
            raise ParameterError(f"domains (dimensions {sorted(dims)}) must all have the same dimension")
        super().__init__(domains[0].dim)
        self._members = tuple(domains)
        self._tol = validate.positive("tol", tol)
        if center is None:
            self._c = self._choose_center()
        else:
            c = _vector("center", center, self.dim)
            for k, dom in enumerate(self._members):
                if not bool(dom._contains(c, dom._default_tol())):
                    raise ParameterError(f"center ({c.tolist()}) must lie in every domain; not in domains[{k}] {dom!r}")
            self._c = c

    def _choose_center(self) -> np.ndarray:
        points = [dom.interior_point() for dom in self._members]
        candidates = list(points) + [np.mean(points, axis=0)]
        # points on the segments between two members' interior points, at weights 1/2, 1/4,
        # 3/4, ..., 2^-10, 1 - 2^-10: e.g. for bst14's C ∩ B(theta_0, r) with theta_0 on the
        # boundary of C, a point slightly inside C from theta_0 is interior to both
        weights = [0.5] + [w for k in range(2, 11) for w in (2.0**-k, 1 - 2.0**-k)]
        for i in range(len(points)):
            for j in range(i + 1, len(points)):
                candidates += [(1 - w) * points[i] + w * points[j] for w in weights]
        # the first candidate interior to every member, else the first one in every member
        # (lazily: in the common case the first candidate already qualifies)
        first_inside = None
        for c in candidates:
            if not all(bool(dom._contains(c, dom._default_tol())) for dom in self._members):
                continue
            if all(dom._is_interior(c) for dom in self._members):
                return c
            if first_inside is None:
                first_inside = c
        if first_inside is not None:
            return first_inside
        raise ParameterError(
            "center (None) must be given: no member's interior point (or midpoint of two) lies in every domain"
        )

    def __repr__(self):
        return "Intersection(" + ", ".join(repr(d) for d in self._members) + ")"

    @property
    def domains(self) -> tuple[Domain, ...]:
        return self._members

    @property
    def center(self) -> np.ndarray:
        return self._c.copy()

    @property
    def diameter(self) -> float:
        """Upper bound: the least member diameter."""
        return min(dom.diameter for dom in self._members)

    @property
    def radius(self) -> float:
        """Upper bound: the least member radius."""
        return min(dom.radius for dom in self._members)

    @property
    def symmetric(self) -> bool:
        return all(dom.symmetric for dom in self._members)

    def interior_point(self):
        return self._c.copy()

    def _contains(self, x, tol):
        out = np.ones(x.shape[:-1], dtype=bool)
        for dom in self._members:
            out &= dom._contains(x, tol)
        return out

    def _gauge(self, d, c):
        return np.max([dom._gauge(d, c) for dom in self._members], axis=0)

    def _make_feasible(self, x):
        """Pull x radially towards the centre until it is in every member (exact feasibility
        up to rounding; the gauge is exact)."""
        g = self._gauge(x - self._c, self._c)
        factor = np.where(g > 1, 1.0 / np.where(g > 1, g, 1.0), 1.0)[..., None]
        return self._c + (x - self._c) * factor

    # -- the pair (D, L2Ball): exact one-dimensional multiplier methods ------------------

    def _pair(self):
        """(D, ball) when the intersection is one L2Ball and one domain with an exact projection."""
        if len(self._members) != 2:
            return None
        a, b = self._members
        for ball, other in ((a, b), (b, a)):
            if isinstance(ball, L2Ball) and other.exact_projection:
                return other, ball
        return None

    def _pair_project(self, x, other, ball, *, steps: int = 200):
        """P_{D ∩ B}(x) with B = {||y - a|| <= r}: y(mu) = P_D((x + mu a) / (1 + mu)) minimises
        1/2 ||y - x||^2 + mu/2 ||y - a||^2 over D, and ||y(mu) - a|| is non-increasing in mu,
        so the KKT multiplier mu* is found by bisection (bracketed by doubling); y(mu) for the
        upper end of the final bracket is in D exactly and in B."""
        a, r = ball.center, ball.ball_radius
        flat = x.reshape(-1, self.dim)

        def y_of(mu):
            return other._project((flat + mu[:, None] * a) / (1.0 + mu[:, None]))

        def outside(y):
            return _norm(y - a) > r

        lo = np.zeros(flat.shape[0])
        y = y_of(lo)
        out = outside(y)
        if not np.any(out):
            return y.reshape(x.shape)
        hi = np.where(out, 1.0, 0.0)
        for _ in range(steps):  # bracket: double until feasible
            bad = out & outside(y_of(hi))
            if not np.any(bad):
                break
            lo = np.where(bad, hi, lo)
            hi = np.where(bad, 2.0 * hi, hi)
        for _ in range(steps):
            mid = (lo + hi) / 2
            if not np.any(out & (mid > lo) & (mid < hi)):
                break
            feasible = ~outside(y_of(mid))
            hi = np.where(out & feasible, mid, hi)
            lo = np.where(out & ~feasible, mid, lo)
        return np.where(out[:, None], y_of(hi), y).reshape(x.shape)

    def _pair_lmo(self, g, other, ball, *, steps: int = 200):
        """min_{x in D ∩ B} <g, x> by Lagrangian duality on the ball constraint B = {||x - a||
        <= r}. Returns (x feasible, certified lower bound), batched over the rows of g.

        For lam >= 0 let Phi(x) = <g, x> + lam/2 ||x - a||^2; weak duality gives
        min_{D ∩ B} <g, .> >= q(lam) = min_D Phi - lam r^2 / 2 for *every* lam, and
        q(0) = min_D <g, .> (the LMO of D). The minimiser of Phi over D is x(lam) = P_D(a - g /
        lam), and ||x(lam) - a|| is non-increasing in lam, so bisection on lam drives x(lam) to
        the sphere and q(lam) up to the minimum. Because a - g / lam is huge for small lam
        (where projections lose accuracy), min_D Phi is bounded from below at the computed
        point x~ by convexity, ``Phi(x~) - <grad Phi(x~), x~> - support_D(-grad Phi(x~))``,
        which is valid however inaccurate x~ is; candidate points are re-projected onto D
        before the ball is checked. Bisection stops per row when the certified gap is below
        ``tol ||g|| (1 + diameter)`` or the bracket cannot shrink.
        """
        a, r = ball.center, ball.ball_radius
        G = g.reshape(-1, self.dim)
        gnorm = _norm(G)
        target = self._tol * gnorm * (1.0 + self.diameter)
        base = other._lmo(G)  # lam = 0: the LMO of D
        base_in = _norm(base - a) <= r
        lower = np.einsum("ij,ij->i", G, base)  # q(0) = min_D <g, x>, exact
        x_best = np.where(base_in[:, None], base, np.broadcast_to(self._c, G.shape))
        upper = np.einsum("ij,ij->i", G, x_best)
        todo = ~base_in & (gnorm > 0) & (upper - lower > target)
        if not np.any(todo):
            return x_best.reshape(g.shape), lower.reshape(g.shape[:-1])

        def evaluate(lam, mask):
            nonlocal lower, upper, x_best
            safe = np.where(mask, lam, 1.0)
            raw = other._project(a - G / safe[:, None])
            grad_phi = G + safe[:, None] * (raw - a)
            phi = np.einsum("ij,ij->i", G, raw) + safe / 2 * np.einsum("ij,ij->i", raw - a, raw - a)
            bound = phi - np.einsum("ij,ij->i", grad_phi, raw) - other._support(-grad_phi) - safe * r * r / 2
            lower = np.where(mask, np.maximum(lower, bound), lower)
            x = other._project(raw)  # re-projection: exact for points already near D
            feasible = _norm(x - a) <= r
            gx = np.einsum("ij,ij->i", G, x)
            improve = mask & feasible & (gx < upper)
            upper = np.where(improve, gx, upper)
            x_best = np.where(improve[:, None], x, x_best)
            return feasible

        lo = np.zeros(G.shape[0])
        hi = np.where(todo, gnorm / r, 0.0)
        for _ in range(steps):  # bracket: double until feasible
            bad = todo & ~evaluate(hi, todo)
            if not np.any(bad):
                break
            lo = np.where(bad, hi, lo)
            hi = np.where(bad, 2.0 * hi, hi)
        for _ in range(steps):
            mid = (lo + hi) / 2
            active = todo & (mid > lo) & (mid < hi) & (upper - lower > target)
            if not np.any(active):
                break
            feasible = evaluate(mid, active)
            hi = np.where(active & feasible, mid, hi)
            lo = np.where(active & ~feasible, mid, lo)
        return x_best.reshape(g.shape), lower.reshape(g.shape[:-1])

    # -- projection: Dykstra ---------------------------------------------------------------

    def _project(self, x, *, max_sweeps: int = 100_000):
        if len(self._members) == 1:
            return self._members[0]._project(x)
        pair = self._pair()
        if pair is not None:
            return self._pair_project(x, *pair)
        shape = x.shape
        y = x.reshape(-1, self.dim).copy()
        incr = [np.zeros_like(y) for _ in self._members]
        size = 1.0 + (self.radius if self.bounded else float(np.abs(y).max(initial=0.0)))
        stop = 100 * self._tol * size
        for _ in range(max_sweeps):
            # y alone can stall for several sweeps while the increments still move, so the
            # sweep must leave both (nearly) unchanged: a fixed point of the Dykstra sweep is
            # the projection
            moved = np.zeros(y.shape[0])
            for k, dom in enumerate(self._members):
                z = dom._project(y + incr[k])
                new_incr = y + incr[k] - z
                moved = np.maximum(moved, np.maximum(_norm(z - y), _norm(new_incr - incr[k])))
                incr[k] = new_incr
                y = z
            if float(np.max(moved, initial=0.0)) <= stop:
                return y.reshape(shape)
        raise RuntimeError(f"Dykstra's projection onto {self!r} did not converge within {max_sweeps} sweeps")

    # -- linear minimisation: ADMM with a duality certificate ----------------------------

    def lmo_with_gap(self, g) -> tuple[np.ndarray, np.ndarray]:
        """``(x, gap)``: a point x of C with ``<g, x> - min_C <g, .> <= gap`` (certified)."""
        g = _points("g", g, self.dim)
        x, lower = self._lmo_certified(g)
        return x, np.maximum(np.einsum("...i,...i->...", g, x) - lower, 0.0)

    def _lmo(self, g):
        return self._lmo_certified(g)[0]

    def _support(self, y):
        if not self.bounded:
            return Rp(dim=self.dim)._support(y)
        return -self._lmo_certified(-y)[1]

    def _lmo_certified(self, g, *, max_iterations: int = 20_000):
        """Return (x feasible, lower bound on min_C <g, x>), batched over leading axes."""
        if not self.bounded:
            return Rp(dim=self.dim)._lmo(g), np.where(np.any(g != 0, -1), -np.inf, 0.0)
        members = self._members
        if len(members) == 1:
            x = members[0]._lmo(g)
            return x, np.einsum("...i,...i->...", g, x)
        pair = self._pair()
        if pair is not None:
            return self._pair_lmo(g, *pair)
        x, lower = self._admm_lmo(g.reshape(-1, self.dim), max_iterations=max_iterations)
        return x.reshape(g.shape), lower.reshape(g.shape[:-1])

    def _admm_lmo(self, G, *, max_iterations: int = 20_000):
        """Consensus ADMM for min <g, x> over the members, rows of G (B, p) at once; returns
        (x feasible, certified lower bound)."""
        members = self._members
        B, K = G.shape[0], len(members)
        gnorm = _norm(G)
        size = self.diameter if self.diameter > 0 else 1.0
        target = self._tol * gnorm * (1.0 + self.diameter)
        rho = np.where(gnorm > 0, gnorm, 1.0)[:, None] / size
        x_best = np.broadcast_to(self._c, G.shape).copy()
        upper = G @ self._c
        # one-member splits (w_k = -g, the others 0) are valid duals: min_C <g, .> >= min_k <g, .>
        lower = np.max([-dom._support(-G) for dom in members], axis=0)
        z = [np.broadcast_to(self._c, G.shape).copy() for _ in members]
        u = [np.zeros_like(G) for _ in members]
        todo = np.flatnonzero(gnorm > 0)
        it = 0
        while todo.size and it < max_iterations:
            it += 1
            Gt, rt = G[todo], rho[todo]
            z_old = [z[k][todo] for k in range(K)]
            x = sum(z_old[k] - u[k][todo] for k in range(K)) / K - Gt / (K * rt)
            for k, dom in enumerate(members):
                zk = dom._project(x + u[k][todo])
                u[k][todo] += x - zk
                z[k][todo] = zk
            if it > 3 and it % 5:
                continue
            # certificate: dual split w_k = rho u_k, corrected so that sum_k w_k = -g exactly
            w = [rt * u[k][todo] for k in range(K)]
            resid = -Gt - sum(w)
            w = [wk + resid / K for wk in w]
            lb = -sum(dom._support(wk) for dom, wk in zip(members, w))
            cand = self._make_feasible(sum(z[k][todo] for k in range(K)) / K)
            ub = np.einsum("ij,ij->i", Gt, cand)
            better = ub < upper[todo]
            upper[todo] = np.where(better, ub, upper[todo])
            x_best[todo] = np.where(better[:, None], cand, x_best[todo])
            lower[todo] = np.maximum(lower[todo], lb)
            done = upper[todo] - lower[todo] <= target[todo]
            if it > 2000:
                # rows still open after 2000 iterations are usually nearly degenerate (g almost
                # normal to a face, a tiny multiplier): residual balancing (Boyd et al. 2011,
                # Sec. 3.4.1) adapts the penalty to them; earlier it can slow the typical rows
                primal = np.sqrt(sum(_norm(x - z[k][todo]) ** 2 for k in range(K)))
                dual = rt[:, 0] * np.sqrt(sum(_norm(z[k][todo] - z_old[k]) ** 2 for k in range(K)))
                factor = np.where(primal > 10 * dual, 2.0, np.where(dual > 10 * primal, 0.5, 1.0))
                for k in range(K):
                    u[k][todo] /= factor[:, None]
                rho[todo] = rt * factor[:, None]
            todo = todo[~done]
        # Degenerate intersections (nearly coincident constraints) can leave the ADMM duals far
        # from converged; the bound is valid at every iteration, so we return the best
        # certified pair rather than fail (lmo_with_gap reports the gap).
        return x_best, lower

    def _coordinate_bounds(self):
        eye = np.eye(self.dim)
        hi = self._support(eye)
        lo = -self._support(-eye)
        for dom in self._members:  # every member's range is also an outer bound
            mlo, mhi = dom._coordinate_bounds()
            lo, hi = np.maximum(lo, mlo), np.minimum(hi, mhi)
        return lo, hi
