r"""The efficient exponential sampler of bst14 Section III-B/C: A_cube-samp, retries and fallback.

Target. Given a convex domain ``C``, a convex per-example loss with declared Lipschitz constant
``L`` and data ``D`` of ``n`` rows, sample from the law on ``C`` with density proportional to
``exp(-c L(theta; D))``, ``c = epsilon / (6 L ||C||_2)`` (``bst14.thm_III_4`` formula
``coefficient``: the exponential mechanism at ``epsilon/3``), up to a multiplicative error.
All constants are ``bst14.thm_III_4`` formulas (``sampler_*``) evaluated from public values.

Construction (each step tagged ``# [bst14 III-C step k]`` in the code)
-------------------------------------------------------------------
1. ``A`` is the cube of edge ``tau`` (the l-infinity diameter of C), ``domain.bounding_box()``.
2. ``Lbar(theta) = min_{u in C} L(u; D) + n L ||theta - u||_2`` (inf-convolution). It is convex
   (an inf-convolution of convex functions), ``nL``-Lipschitz (an infimum of ``nL``-Lipschitz
   functions of theta) and equals ``L`` on C (``u = theta`` is optimal there because ``L`` is
   ``nL``-Lipschitz). It is computed by :func:`inf_convolution` with a certificate: projected
   gradient descent on ``G(u) = L(u) + nL ||theta - u||`` over C, every iterate giving the
   upper bound ``G(u)`` and the Frank-Wolfe lower bound ``G(u) - max_{v in C} <g, u - v>``
   (``g`` any subgradient of ``G`` at ``u``; exact by convexity), so the returned value is within
   a certified ``err`` of ``Lbar``. The projection shortcut ``L(Pi theta) + nL ||theta - Pi theta||``
   is only an upper bound and is not convex in general (:func:`projection_extension`).
3. ``F(theta) = exp(-c Lbar(theta) - alpha max(0, psi(theta) - 1))`` with ``psi`` the gauge of C
   about a public centre ``c0``. Requirement (generalised isotropy): the ball ``B(c0, r)`` lies
   in C (default ``c0 = 0``, ``r = 1``: bst14's isotropic position). Then ``psi`` is
   ``1/r``-Lipschitz and ``-ln F`` is ``Lambda = c nL + alpha/r`` Lipschitz and convex.
   ``alpha = epsilon n/3 + (1 + 2 ln 2)(p - 1) + 2`` (``sampler_alpha``) makes
   ``Pr_F[C] >= 1/2``: in gauge-polar coordinates ``theta = c0 + s (v - c0)``, ``v`` on the
   boundary, ``Lbar`` changes by at most ``nL R |s - 1|`` (``R <= ||C||_2``), so with
   ``a = c nL R`` and ``b = a + 2 ln 2 (p - 1)``, the mass outside is at most
   ``m p / (alpha - a - p + 1)`` and the mass inside at least ``m p (1 - e^(-b/2))/b``
   (``m`` the boundary integral of ``exp(-c L(v))``; ``(1 + u)^(p-1) <= e^((p-1) u)`` and
   ``ln t >= -2 ln 2 (1 - t)`` on ``[1/2, 1]``), and ``b / (1 - e^(-b/2)) <= b + 2``.
4. Grid walk. Cells ``{0..N-1}^p`` of spacing ``h = tau/N``, ``N = ceil(tau Lambda sqrt(p))``
   (``sampler_grid_size``, so ``Lambda sqrt(p) h <= 1``), centres ``x_c``, weights
   ``W(c) = F(x_c)`` (as computed). Lazy Metropolis chain: with probability 1/2 stay; else pick
   one of the ``2p`` neighbours uniformly, stay if it is off the grid, else move with
   probability ``min(1, W(c')/W(c))``. It is reversible with ``pi(c) ~ W(c)`` (detailed balance:
   ``pi(c) P(c, c') = min(W(c), W(c'))/(4 p Z)`` is symmetric). After ``K`` steps at cell ``c``
   draw ``y`` uniform in the cell and accept with probability ``F(y) / (W(c) M)``,
   ``ln M = Lambda sqrt(p) h / 2 + 2 eta`` (``sampler_envelope_log``; ``<= 1`` because
   ``|y - x_c| <= sqrt(p) h/2`` and each computed ``ln F`` is within ``eta`` of the truth);
   if rejected, walk ``K`` more steps and retry.

   *Exactness.* If the cell of an attempt is drawn from ``pi`` independently of the past, the
   attempt returns ``y`` in ``dy`` with probability ``pi(c) F(y) dy / (W(c) M h^p) =
   F(y) dy / (Z M h^p)`` (``Z = sum W``): proportional to ``F``, so the first accepted ``y`` has
   density exactly ``F / int_A F`` (with the computed ``F``). *Approximation.* If, given
   everything before an attempt, its cell law ``nu`` satisfies ``e^-xi <= nu(c)/pi(c) <= e^xi``,
   each attempt's sub-density is within ``e^(+-xi)`` of ``kappa F(y)``; summing over attempts,
   the output density is ``kappa F(y) E[T]`` up to ``e^(+-xi)`` and normalising costs another
   ``e^(+-xi)``: ``Dist_inf <= 2 xi`` to the computed-``F`` law, and ``<= 2 xi + 2 eta`` to the
   true ``F / int_A F`` (``sampler_cube_dist``).

   *Mixing.* The chain is lazy, so its eigenvalues lie in ``[0, 1]`` and for every start
   ``|P^K(x, y)/pi(y) - 1| <= (1 - gap)^K / pi_min``. The bound holds from any start, hence
   also given the past (continuing the chain after a rejection is as good as restarting).
   ``ln(1/pi_min) <= osc + p ln N`` (``sampler_log_weight_oscillation``). For the gap we use
   canonical paths: between cells ``x, y`` a monotone staircase path whose cells stay within
   one cell (l-infinity) of the straight segment; by log-concavity of ``F``, every path cell
   has ``W >= e^-delta min(W(x), W(y))``, ``delta = Lambda sqrt(p) h + 2 eta`` (the path
   ``z(s)_i = x_i + sign_i floor(s |y_i - x_i|)``, one coordinate at a time). So for an edge e
   on the path, ``pi(x) pi(y)/Q(e) <= 4 p e^delta max(pi(x), pi(y))``, and summing over the pairs
   routed through e, ``sum max(pi(x), pi(y)) <= sum_x pi(x) #{y} <= N^p``; with path lengths
   ``<= p (N - 1)``, Sinclair's canonical-path bound gives
   ``1/gap <= rho = 4 p^2 (N - 1) N^p e^delta`` (``sampler_inverse_gap``). ``K`` is the smallest
   integer with ``e^(-K/rho) N^p e^osc <= 1 - e^-xi`` (``sampler_steps``); as
   ``(1 - gap)^K / pi_min`` is at most the left side, ``e^-xi <= P^K/pi <= 2 - e^-xi <= e^xi``.
   The bound is data independent and rigorous but
   exponential in ``p`` (Applegate and Kannan's polynomial conductance bound is not
   reproduced); :meth:`PreparedGridWalk.certify` computes the exact multiplicative distance of
   ``P^K`` to ``pi`` for small grids to show how conservative it is.
5. Budget. One try (one accepted ``y``) is within ``D_A = 2 xi + 2 eta = epsilon/6`` of
   ``F / int_A F``; conditioning on C at most doubles ``Dist_inf``, so an accepted sample in C is
   within ``epsilon/3`` (``sampler_dist_inf``) of the mechanism on C: ``xi = 3 epsilon/40``,
   ``eta = epsilon/120``. A try lands in C with probability ``>= e^(-D_A)/2``
   (``sampler_try_in_c``); after ``retries`` tries (``retries = n``) the fallback, a uniform
   point of ``B(c0, r)``, has weight at most ``(1 - e^(-D_A)/2)^retries``
   (``sampler_fallback_weight``); its effect on the output ratio is the ``bst14.thm_III_4``
   CAVEAT flag's bound with that weight in place of ``2^-K``.

Randomness is drawn only through the noise source, labelled with the step that consumes it.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from reference import domains as _domains
from reference.arrays import ArrayLike
from reference.losses import Loss
from reference.rng import RngLike
from reference.tape import NoiseLike, NoiseSource, noise_source
from spec import bst14 as _bst14
from spec import inversion, validate
from spec.errors import AssumptionError, ParameterError, PrivacyLeakWarning

__all__ = [
    "CertificateError",
    "inf_convolution",
    "projection_extension",
    "SamplerConstants",
    "GridWalkSampler",
    "PreparedGridWalk",
    "transition_matrix",
    "stationary_law",
    "multiplicative_distance",
    "required_steps",
    "LABELS",
]

_RECORD = _bst14.THM_III_4

#: Noise labels, one per consumer.
LABELS = {
    "move": "bst14 III-C step 4 grid walk: lazy move (4p outcomes, >= 2p = stay)",
    "metropolis": "bst14 III-C step 4 grid walk: Metropolis acceptance",
    "cell_point": "bst14 III-C step 4 rejection: uniform point in the cell",
    "reject": "bst14 III-C step 4 rejection: acceptance coin",
    "fallback_direction": "bst14 III-C fallback: direction (normal)",
    "fallback_radius": "bst14 III-C fallback: radius (uniform)",
}

#: Relative slack added to every certified error for floating rounding of loss sums.
_FLOAT_SLACK = 1e-12


class CertificateError(ArithmeticError):
    """A numerical certificate could not reach the required accuracy."""


# --------------------------------------------------------------------------------------------
# step 2: convex Lipschitz extension
# --------------------------------------------------------------------------------------------


def _as_points(theta, p: int) -> tuple[np.ndarray, tuple]:
    x = np.asarray(theta, dtype=float)
    if x.ndim == 0 or x.shape[-1] != p:
        raise ParameterError(f"theta (shape {x.shape}) must have shape (..., {p})")
    if not np.all(np.isfinite(x)):
        raise ParameterError("theta must be finite")
    return x.reshape(-1, p), x.shape[:-1]


def projection_extension(theta: ArrayLike, *, loss: Loss, data: ArrayLike, domain: _domains.Domain,
                         lipschitz: float) -> np.ndarray:
    """The projection shortcut ``L(Pi_C theta) + n L ||theta - Pi_C theta||`` (NOT used).

    It is ``>=`` the inf-convolution (take ``u = Pi_C theta``) and equals ``L`` on C, but it is
    not convex in general (e.g. a linear loss on the unit disc); kept for comparison.
    """
    x, shape = _as_points(theta, domain.dim)
    lip = validate.positive("lipschitz", lipschitz)
    big_m = np.asarray(data).shape[-2] * lip
    proj = domain.project(x)
    return (loss.total(proj, data) + big_m * np.linalg.norm(x - proj, axis=-1)).reshape(shape)


def inf_convolution(theta: ArrayLike, *, loss: Loss, data: ArrayLike, domain: _domains.Domain, lipschitz: float,
                    tol: float, max_iterations: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """Certified value of ``Lbar(theta) = min_{u in C} L(u; D) + n L ||theta - u||_2``.

    Parameters
    ----------
    theta : array_like, shape (..., p)
    loss : reference.losses.Loss
        Convex per-example loss; ``L(u; D) = loss.total(u, data)`` (sum).
    data : ndarray, shape (n, k)
    domain : reference.domains.Domain
    lipschitz : float
        The *declared* per-example Lipschitz constant L (never computed from the data).
    tol : float
        Required half-width of the certified interval (> 0).
    max_iterations : int
        Projected-gradient iterations per point before :class:`CertificateError`.

    Returns
    -------
    value, err : ndarray, shape (...)
        ``|value - Lbar(theta)| <= err <= tol`` (up to a relative ``1e-12`` floating slack,
        included in ``err``).

    Notes
    -----
    Start from the bracket ``L(Pi theta) -+ nL d`` (``d = dist(theta, C)``; ``Lbar`` is
    ``nL``-Lipschitz and equals ``L`` at ``Pi theta``). Points whose bracket is wider than
    ``2 tol`` are refined by projected gradient descent (Armijo backtracking) on ``G``; every
    iterate ``u`` gives ``Lbar <= G(u)`` and ``Lbar >= G(u) - (<g, u> + sigma_C(-g))``, ``g`` a
    subgradient of ``G`` at ``u`` and ``sigma_C`` the support function of C.
    """
    p = domain.dim
    x, shape = _as_points(theta, p)
    lip = validate.positive("lipschitz", lipschitz)
    tol = validate.positive("tol", tol)
    big_m = np.asarray(data).shape[-2] * lip
    proj = domain.project(x)
    dist = np.linalg.norm(x - proj, axis=-1)
    lp = loss.total(proj, data)
    upper = lp + big_m * dist
    lower = lp - big_m * dist
    todo = np.flatnonzero((upper - lower) > 2 * tol)
    if todo.size:
        lo_t, up_t = _refine(x[todo], proj[todo], upper[todo], lower[todo], loss=loss, data=data,
                             domain=domain, big_m=big_m, tol=tol, max_iterations=max_iterations)
        lower[todo], upper[todo] = lo_t, up_t
    value = (upper + lower) / 2
    err = (upper - lower) / 2 + _FLOAT_SLACK * (np.abs(value) + big_m * max(domain.diameter, 1.0))
    return value.reshape(shape), err.reshape(shape)


def _refine(x, u, upper, lower, *, loss, data, domain, big_m, tol, max_iterations):
    """Projected gradient descent with Frank-Wolfe certificates (batched over points)."""
    m = x.shape[0]

    def objective(pts, targets):
        return loss.total(pts, data, check=False) + big_m * np.linalg.norm(targets - pts, axis=-1)

    def subgradient(pts, targets):
        diff = pts - targets
        norm = np.linalg.norm(diff, axis=-1, keepdims=True)
        return loss.total_gradient(pts, data, check=False) + big_m * diff / norm  # pts != targets: theta not in C

    step = np.maximum(np.linalg.norm(x - u, axis=-1), 1e-12) / big_m
    active = np.arange(m)
    g_val = objective(u, x)
    for _ in range(max_iterations):
        xa, ua = x[active], u[active]
        g = subgradient(ua, xa)
        gap = np.einsum("ij,ij->i", g, ua) + domain.support(-g)
        upper[active] = np.minimum(upper[active], g_val[active])
        lower[active] = np.maximum(lower[active], g_val[active] - np.maximum(gap, 0.0))
        keep = (upper[active] - lower[active]) > 2 * tol
        active, g, ua, xa = active[keep], g[keep], ua[keep], xa[keep]
        if active.size == 0:
            return lower, upper
        # Armijo backtracking on the smooth model (G is differentiable at u != theta for smooth L)
        s = step[active]
        g0 = g_val[active]
        new_u = np.empty_like(ua)
        new_g = np.empty(active.size)
        pending = np.arange(active.size)
        for _ in range(60):
            v = domain.project(ua[pending] - s[pending, None] * g[pending])
            gv = objective(v, xa[pending])
            dv = v - ua[pending]
            model = (g0[pending] + np.einsum("ij,ij->i", g[pending], dv)
                     + np.einsum("ij,ij->i", dv, dv) / (2 * s[pending]))
            ok = gv <= model + 1e-13 * (np.abs(g0[pending]) + 1.0)
            new_u[pending[ok]], new_g[pending[ok]] = v[ok], gv[ok]
            s[pending[~ok]] /= 2
            pending = pending[~ok]
            if pending.size == 0:
                break
        if pending.size:  # keep the old point (still a valid iterate) where backtracking stalled
            new_u[pending], new_g[pending] = ua[pending], g0[pending]
        u[active], g_val[active] = new_u, new_g
        step[active] = s * 1.5
    raise CertificateError(
        f"inf_convolution: {active.size} point(s) not certified to tol ({tol!r}) after "
        f"max_iterations ({max_iterations}); widest interval {float(np.max(upper[active] - lower[active]))!r}"
    )


# --------------------------------------------------------------------------------------------
# exact verification on small grids
# --------------------------------------------------------------------------------------------


def transition_matrix(log_weights: ArrayLike) -> np.ndarray:
    """Dense transition matrix of the lazy Metropolis walk on a grid with cell log-weights.

    Parameters
    ----------
    log_weights : ndarray, shape (N,) * p
        ``ln W(c)`` for every cell.

    Returns
    -------
    ndarray, shape (N^p, N^p)
        Row-stochastic ``P`` in C (row-major) order of the cells.
    """
    lw = np.asarray(log_weights, dtype=float)
    shape, p = lw.shape, lw.ndim
    size = lw.size
    flat = lw.ravel()
    mat = np.zeros((size, size))
    idx = np.arange(size)
    coords = np.array(np.unravel_index(idx, shape)).T
    for i in range(p):
        for sign in (1, -1):
            nb = coords.copy()
            nb[:, i] += sign
            ok = (nb[:, i] >= 0) & (nb[:, i] < shape[i])
            src = idx[ok]
            dst = np.ravel_multi_index(tuple(nb[ok].T), shape)
            prob = np.exp(np.minimum(0.0, flat[dst] - flat[src])) / (4 * p)
            mat[src, dst] += prob
    mat[idx, idx] += 1.0 - mat.sum(axis=1)
    return mat


def stationary_law(log_weights: ArrayLike) -> np.ndarray:
    """``pi(c) = W(c) / sum W`` (flattened, row-major)."""
    lw = np.asarray(log_weights, dtype=float).ravel()
    w = np.exp(lw - lw.max())
    return w / w.sum()


def multiplicative_distance(matrix: ArrayLike, pi: ArrayLike, steps: int) -> float:
    """``max_{c0, c} |ln(P^K(c0, c) / pi(c))|`` by repeated squaring (``inf`` if some entry is 0).

    All entries are non-negative, so products and sums have small relative rounding error
    (about ``2 log2(K) N^p`` units in the last place), far below the tolerances used here.
    """
    k = validate.integer("steps", steps, minimum=0)
    mat = np.asarray(matrix, dtype=float)
    result = np.eye(mat.shape[0])
    power = mat.copy()
    while k:
        if k & 1:
            result = result @ power
        k >>= 1
        if k:
            power = power @ power
    ratio = result / np.asarray(pi)[None, :]
    if np.any(ratio <= 0):
        return math.inf
    return float(np.max(np.abs(np.log(ratio))))


def required_steps(matrix: ArrayLike, pi: ArrayLike, xi: float, *, upper: int | None = None) -> int:
    """Smallest ``K`` with ``multiplicative_distance(P, pi, K) <= xi`` (monotone in K for a lazy
    reversible chain, so :func:`spec.inversion.smallest` applies); ``upper`` caps the search (default 2^40)."""
    xi = validate.positive("xi", xi)
    cap = 2**40 if upper is None else int(upper)
    try:
        return inversion.smallest(lambda k: inversion.log_ratio(multiplicative_distance(matrix, pi, k), xi),
                                  start=1, upper=cap, integer=True)
    except inversion.CertificateError:
        raise CertificateError(f"required_steps: distance still > xi ({xi!r}) at K = {cap}") from None


# --------------------------------------------------------------------------------------------
# the sampler
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SamplerConstants:
    """Public constants of one sampler configuration (all from ``bst14.thm_III_4``)."""

    epsilon: float
    coefficient: float
    n: int
    dimension: int
    lipschitz: float
    diameter: float
    linf_diameter: float
    inner_radius: float
    alpha: float
    log_weight_lipschitz: float
    grid_size: int
    spacing: float
    envelope_log: float
    log_eval_error: float
    mixing_dist: float
    cube_dist: float
    dist_inf: float
    steps_rule: int
    steps: int
    retries: int
    try_in_c: float
    fallback_weight: float


def _check_inner_ball(domain, centre: np.ndarray, r: float) -> None:
    """Raise AssumptionError unless B(centre, r) is inside C.

    Exact for L2Ball, Box/Cube and L1Ball (about the origin); for other domains a necessary
    check only (the points centre +- r e_i and centre + r s/sqrt(p), s a sign vector, p <= 10).
    """
    p = domain.dim
    tol = 1e-12 * (1.0 + r)
    if isinstance(domain, _domains.L2Ball):
        ok = np.linalg.norm(centre - domain.center) + r <= domain.radius + tol
    elif isinstance(domain, _domains.Box):
        ok = bool(np.all(centre - r >= domain.lower - tol) and np.all(centre + r <= domain.upper + tol))
    elif isinstance(domain, _domains.L1Ball):
        ok = np.sum(np.abs(centre)) + r * math.sqrt(p) <= domain.radius + tol
    else:
        eye = np.eye(p)
        dirs = [eye, -eye]
        if p <= 10:
            signs = np.array(np.meshgrid(*([[-1.0, 1.0]] * p), indexing="ij")).reshape(p, -1).T
            dirs.append(signs / math.sqrt(p))
        pts = centre + r * np.concatenate(dirs)
        ok = bool(np.all(domain.gauge(pts, center=centre) <= 1 + 1e-12))
    if not ok:
        raise AssumptionError(
            f"the ball of radius inner_radius ({r!r}) around centre ({centre.tolist()}) must lie inside "
            f"the domain {domain!r} (bst14 III-C isotropic position, generalised)",
            record=_RECORD.id, assumption="inner_ball",
        )


class GridWalkSampler:
    """bst14's efficient exponential sampler (Section III-C): grid walk, retries, fallback.

    Parameters
    ----------
    centre : array_like, shape (p,), optional
        Public gauge centre ``c0`` (default the origin).
    inner_radius : float
        ``r`` with ``B(c0, r)`` inside C (default 1: isotropic position). Checked.
    retries : int, optional
        Tries before the fallback; default ``bst14.thm_III_4`` formula ``retries`` (= n).
        ``0`` forces the fallback (tests).
    grid_size : int, optional
        Override N (cells per edge; default ``sampler_grid_size``). Any N >= 1 keeps the rejection
        step exact: the envelope, the path slack and the rule's K are the formulas at this N
        (a coarser grid lowers the acceptance rate ``>= e^(-Lambda sqrt(p) h - 3 eta)``).
    steps : int, optional
        Override the walk length K. Below the rule's K this voids the rule's Dist_inf claim
        (``PrivacyLeakWarning``); :meth:`PreparedGridWalk.certify` reports the exact value.
    max_cells : int
        Precompute all cell weights when ``N^p <= max_cells``; otherwise evaluate lazily and cache.
    max_iterations : int
        Iteration cap of :func:`inf_convolution`.
    max_rounds : int
        Cap on the rounds (K walk steps + one rejection attempt) of :meth:`PreparedGridWalk.sample`;
        past it ``reference.bst14.SamplerExhaustedError`` is raised (loud failure, never a wrong
        sample). Each attempt is accepted with probability ``>= e^(-Lambda sqrt(p) h - 3 eta)``.

    Privacy
    -------
    ``bst14.thm_III_4``: an accepted sample is within ``Dist_inf <= epsilon/3`` of the
    exponential mechanism at ``epsilon/3`` on C (for the rule's K); the fallback adds the
    CAVEAT flag's term with weight ``sampler_fallback_weight``.
    """

    #: The records whose constants and claim this sampler uses (reported by exp_sampling).
    spec_ids = ("bst14.thm_III_4", "bst14.alg_2")

    def __init__(self, *, centre: ArrayLike | None = None, inner_radius: float = 1.0,
                 retries: int | None = None, grid_size: int | None = None, steps: int | None = None,
                 max_cells: int = 200_000, max_iterations: int = 20_000, max_rounds: int = 100_000) -> None:
        self.centre = None if centre is None else np.asarray(centre, dtype=float)
        self.inner_radius = validate.positive("inner_radius", inner_radius)
        self.retries = None if retries is None else validate.integer("retries", retries, minimum=0)
        self.steps = None if steps is None else validate.integer("steps", steps, minimum=0)
        self.grid_size = None if grid_size is None else validate.positive_integer("grid_size", grid_size)
        self.max_cells = validate.positive_integer("max_cells", max_cells)
        self.max_iterations = validate.positive_integer("max_iterations", max_iterations)
        self.max_rounds = validate.positive_integer("max_rounds", max_rounds)

    def __repr__(self) -> str:
        return (f"GridWalkSampler(inner_radius={self.inner_radius!r}, retries={self.retries!r}, "
                f"steps={self.steps!r})")

    def prepare(self, *, loss: Loss, data: ArrayLike, domain: _domains.Domain, epsilon: float,
                lipschitz: float | None = None) -> "PreparedGridWalk":
        """Validate and fix every constant for one (loss, data, domain, epsilon)."""
        return PreparedGridWalk(self, loss=loss, data=data, domain=domain, epsilon=epsilon,
                                lipschitz=lipschitz)

    def sample(self, *, loss: Loss, data: ArrayLike, domain: _domains.Domain, epsilon: float,
               lipschitz: float | None = None, runs: int = 1, rng: RngLike = None,
               noise: NoiseLike = None) -> np.ndarray:
        """``runs`` independent outputs, shape ``(runs, p)``; see :meth:`PreparedGridWalk.sample`."""
        prepared = self.prepare(loss=loss, data=data, domain=domain, epsilon=epsilon, lipschitz=lipschitz)
        return prepared.sample(runs=runs, rng=rng, noise=noise)


class PreparedGridWalk:
    """A :class:`GridWalkSampler` bound to one problem; all constants fixed (see ``constants``)."""

    def __init__(self, sampler: GridWalkSampler, *, loss: Loss, data: ArrayLike, domain: _domains.Domain,
                 epsilon: float, lipschitz: float | None = None) -> None:
        if not isinstance(domain, _domains.Domain):
            raise TypeError(f"domain ({type(domain).__name__}) must be a reference.domains.Domain")
        eps = validate.epsilon(epsilon)
        if not domain.bounded:
            raise ParameterError(f"domain ({domain!r}) must be bounded")
        if not loss.convex:
            raise AssumptionError(f"loss ({loss!r}) must be convex (bst14 III)", record=_RECORD.id)
        self.sampler = sampler
        self.loss, self.domain = loss, domain
        self.data = loss.validate_data(data)
        if self.data.ndim != 2:
            raise ParameterError(f"data (shape {self.data.shape}) must have shape (n, k)")
        p = loss.dim_of_row(self.data.shape[-1])
        if p != domain.dim:
            raise ParameterError(f"data rows give p = {p}, but the domain has dim {domain.dim}")
        lip = loss.constants.lipschitz if lipschitz is None else validate.positive("lipschitz", lipschitz)
        if not lip > 0:
            raise ParameterError(f"lipschitz ({lip!r}) must be > 0")
        n = self.data.shape[0]
        centre = np.zeros(p) if sampler.centre is None else sampler.centre
        if centre.shape != (p,) or not np.all(np.isfinite(centre)):
            raise ParameterError(f"centre (shape {centre.shape}) must be a finite vector of length {p}")
        r = sampler.inner_radius
        _check_inner_ball(domain, centre, r)
        self.centre, self.p, self.n = centre, p, n
        # [bst14 III-C step 1] the enclosing cube A
        self.lower, upper = domain.bounding_box()
        tau = float(np.max(upper - self.lower))
        diam = float(domain.diameter)
        vals = dict(epsilon=eps, lipschitz=lip, diameter=diam, n=n, dimension=p, linf_diameter=tau,
                    inner_radius=r)
        ev = _RECORD.evaluate
        grid = int(ev("sampler_grid_size", **vals)) if sampler.grid_size is None else sampler.grid_size
        vals["grid_size"] = grid
        rule = int(ev("sampler_steps", **vals))
        steps = rule if sampler.steps is None else sampler.steps
        if steps < rule:
            warnings.warn(
                f"steps ({steps}) is below the rule's K ({rule}): the Dist_inf claim of bst14.thm_III_4 "
                "no longer follows from the rule (use certify() on small grids)",
                PrivacyLeakWarning, stacklevel=3,
            )
        retries = int(ev("retries", n=n)) if sampler.retries is None else sampler.retries
        self.constants = SamplerConstants(
            epsilon=eps, coefficient=ev("coefficient", **vals), n=n, dimension=p, lipschitz=lip,
            diameter=diam, linf_diameter=tau, inner_radius=r, alpha=ev("sampler_alpha", **vals),
            log_weight_lipschitz=ev("sampler_log_weight_lipschitz", **vals), grid_size=grid,
            spacing=tau / grid, envelope_log=ev("sampler_envelope_log", **vals),
            log_eval_error=ev("sampler_log_eval_error", **vals),
            mixing_dist=ev("sampler_mixing_dist", **vals), cube_dist=ev("sampler_cube_dist", **vals),
            dist_inf=ev("sampler_dist_inf", **vals), steps_rule=rule, steps=steps, retries=retries,
            try_in_c=ev("sampler_try_in_c", **vals),
            fallback_weight=ev("sampler_fallback_weight", retries=retries, **vals),
        )
        self._cache: dict[int, float] = {}
        self._table = None
        if grid**p <= sampler.max_cells:
            self._table = self.log_weight_grid().ravel()

    # -- [bst14 III-C steps 2-3] the weight ------------------------------------------------

    def log_f(self, theta: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """``(ln F(theta), certified error)`` for points of A, shape ``(...)`` each."""
        k = self.constants
        # [bst14 III-C step 2] Lbar by the certified inf-convolution, to eta / c in Lbar
        tol = 0.999 * k.log_eval_error / k.coefficient
        lbar, err = inf_convolution(theta, loss=self.loss, data=self.data, domain=self.domain,
                                    lipschitz=k.lipschitz, tol=tol,
                                    max_iterations=self.sampler.max_iterations)
        # [bst14 III-C step 3] F = exp(-c Lbar - alpha max(0, psi - 1))
        psi = self.domain.gauge(np.asarray(theta, dtype=float), center=self.centre)
        log_f = -k.coefficient * lbar - k.alpha * np.maximum(0.0, psi - 1.0)
        log_err = k.coefficient * err
        if np.any(log_err > k.log_eval_error):
            raise CertificateError(f"ln F error ({float(np.max(log_err))!r}) exceeds eta ({k.log_eval_error!r})")
        return log_f, log_err

    def cell_centres(self, cells: ArrayLike) -> np.ndarray:
        return self.lower + (np.asarray(cells, dtype=float) + 0.5) * self.constants.spacing

    def log_weight_grid(self) -> np.ndarray:
        """``ln W(c) = ln F(x_c)`` on every cell, shape ``(N,) * p``."""
        n_ = self.constants.grid_size
        cells = np.array(np.unravel_index(np.arange(n_**self.p), (n_,) * self.p)).T
        return self.log_f(self.cell_centres(cells))[0].reshape((n_,) * self.p)

    def _log_w(self, cells) -> np.ndarray:
        shape = (self.constants.grid_size,) * self.p
        flat = np.ravel_multi_index(tuple(np.asarray(cells).T), shape)
        if self._table is not None:
            return self._table[flat]
        missing = np.array(sorted({int(f) for f in flat} - self._cache.keys()), dtype=np.int64)
        if missing.size:
            pts = self.cell_centres(np.array(np.unravel_index(missing, shape)).T)
            for f, v in zip(missing.tolist(), self.log_f(pts)[0].tolist()):
                self._cache[f] = v
        return np.array([self._cache[int(f)] for f in flat])

    # -- [bst14 III-C step 4] walk and rejection -------------------------------------------

    def start_cells(self, m: int) -> np.ndarray:
        """The public start: the cell containing the centre, for ``m`` chains."""
        k = self.constants
        c = np.floor((self.centre - self.lower) / k.spacing).astype(np.int64)
        return np.tile(np.clip(c, 0, k.grid_size - 1), (m, 1))

    def walk(self, cells: np.ndarray, steps: int, *, noise: NoiseSource, log_w: np.ndarray | None = None) -> np.ndarray:
        """Advance the chains in ``cells (m, p)`` by ``steps`` lazy Metropolis steps (in place).

        Returns the chains' current ``ln W``.
        """
        p, big_n = self.p, self.constants.grid_size
        m = cells.shape[0]
        cur = self._log_w(cells) if log_w is None else log_w
        rows = np.arange(m)
        for _ in range(steps):
            move = noise.integers(LABELS["move"], 4 * p, (m,))
            coin = noise.uniform(LABELS["metropolis"], (m,))
            coord = move % p
            sign = np.where(move < p, 1, -1)
            target = cells[rows, coord] + sign
            cand = ((move < 2 * p) & (target >= 0) & (target < big_n)).nonzero()[0]
            if cand.size == 0:
                continue
            prop = cells[cand].copy()
            prop[np.arange(cand.size), coord[cand]] = target[cand]
            new = self._log_w(prop)
            with np.errstate(over="ignore"):
                ok = coin[cand] < np.exp(np.minimum(0.0, new - cur[cand]))
            acc = cand[ok]
            cells[acc] = prop[ok]
            cur[acc] = new[ok]
        return cur

    def rejection_step(self, cells: ArrayLike, *, noise: NoiseSource,
                       log_w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """One attempt per chain: ``y`` uniform in the cell, accepted w.p. ``F(y)/(W(c) M)``.

        Returns ``(y (m, p), accepted (m,))``.
        """
        k = self.constants
        cells = np.asarray(cells)
        m = cells.shape[0]
        lw = self._log_w(cells) if log_w is None else log_w
        y = self.lower + (cells + noise.uniform(LABELS["cell_point"], (m, self.p))) * k.spacing
        coin = noise.uniform(LABELS["reject"], (m,))
        log_ratio = self.log_f(y)[0] - lw - k.envelope_log
        if np.any(log_ratio > 1e-12):
            raise CertificateError(f"rejection ratio exceeds 1 (ln = {float(np.max(log_ratio))!r})")
        return y, coin < np.exp(np.minimum(0.0, log_ratio))

    def fallback(self, m: int, *, noise: NoiseSource) -> np.ndarray:
        """``m`` uniform points of ``B(c0, r)`` (inside C by the inner-ball assumption)."""
        z = noise.normal(LABELS["fallback_direction"], (m, self.p))
        u = noise.uniform(LABELS["fallback_radius"], (m,))
        norm = np.linalg.norm(z, axis=-1, keepdims=True)
        norm = np.where(norm > 0, norm, 1.0)
        return self.centre + self.constants.inner_radius * (u ** (1.0 / self.p))[:, None] * z / norm

    def sample(self, *, runs: int = 1, rng: RngLike = None, noise: NoiseLike = None) -> np.ndarray:
        """``runs`` outputs of the efficient Algorithm 2, shape ``(runs, p)``; all in C.

        Every unfinished run does, per round: ``K`` walk steps, one rejection attempt and, if
        accepted, the membership test (in C: done; else a new try from the start cell, or the
        fallback after ``retries`` tries).
        """
        src = noise_source(rng=rng, noise=noise)
        runs = validate.positive_integer("runs", runs)
        k = self.constants
        out = np.empty((runs, self.p))
        tries = np.zeros(runs, dtype=np.int64)
        if k.retries == 0:
            return self.fallback(runs, noise=src)
        pending = np.arange(runs)
        cells = self.start_cells(runs)
        log_w = self._log_w(cells)
        rounds = 0
        while pending.size:
            rounds += 1
            if rounds > self.sampler.max_rounds:
                from reference.bst14 import SamplerExhaustedError

                raise SamplerExhaustedError(
                    f"GridWalkSampler: {pending.size} run(s) unfinished after max_rounds ({self.sampler.max_rounds})"
                )
            c, lw = cells[pending], log_w[pending]
            lw = self.walk(c, k.steps, noise=src, log_w=lw)
            y, accepted = self.rejection_step(c, noise=src, log_w=lw)
            cells[pending], log_w[pending] = c, lw
            acc = pending[accepted]
            y_acc = y[accepted]
            # [bst14 III-C] retries: accept the try's sample only if it lies in C
            inside = self.domain.gauge(y_acc, center=self.centre) <= 1.0
            out[acc[inside]] = y_acc[inside]
            failed = acc[~inside]
            tries[failed] += 1
            fb = failed[tries[failed] >= k.retries]
            if fb.size:
                out[fb] = self.fallback(fb.size, noise=src)
            restart = failed[tries[failed] < k.retries]
            cells[restart] = self.start_cells(restart.size)
            log_w[restart] = self._log_w(cells[restart]) if restart.size else log_w[restart]
            done = np.concatenate([acc[inside], fb])
            pending = np.setdiff1d(pending, done, assume_unique=True)
        return out

    # -- exact verification (small grids) -------------------------------------------------

    def certify(self, steps: int | None = None, *, max_cells: int = 4096) -> dict[str, float]:
        """Exact multiplicative distance of ``P^K(c0, .)`` to ``pi`` for all starts (small grids).

        Returns a dict with ``xi`` (cell level), ``dist_inf_cube`` (``2 xi + 2 eta``: one try vs
        ``F / int_A F``) and ``dist_inf_accepted`` (twice that: the accepted sample vs the
        mechanism on C), for ``steps`` (default the configured K).
        """
        k = self.constants
        if k.grid_size**self.p > max_cells:
            raise ParameterError(
                f"grid cells ({k.grid_size**self.p}) must be <= max_cells ({max_cells}) for the exact "
                "certificate (it builds the dense transition matrix)"
            )
        steps = k.steps if steps is None else validate.integer("steps", steps, minimum=0)
        lw = self.log_weight_grid()
        mat, pi = transition_matrix(lw), stationary_law(lw)
        xi = multiplicative_distance(mat, pi, steps)
        cube = 2 * xi + 2 * k.log_eval_error
        return {"steps": steps, "xi": xi, "dist_inf_cube": cube, "dist_inf_accepted": 2 * cube}
