r"""Bassily, Smith and Thakurta (2014): Algorithms 1-4, line for line, batched over runs.

Conventions (bst14): the empirical risk is the *sum* ``L(theta; D) = sum_i l(theta; d_i)``;
neighbouring data sets differ in one record (replace-one); ``||C||_2`` is the l2 diameter of
the constraint set C. Every constant (noise scale, learning rate, iteration count,
coefficient, radius) is a :mod:`spec.bst14` formula evaluated from public values: the loss's
declared constants (``loss.constants``), the domain's diameter, ``n``, ``p`` and the budget --
never from the data.

Batching. ``runs`` independent executions share the data set; states have shape
``(runs, p)``. Randomness comes only from ``noise_source(rng=rng, noise=noise)``; every draw
is *standardised* and labelled with the pseudocode line that consumes it, the scaling is
written in the code (so a :class:`~reference.tape.NoiseTape` replays in any language).

Sampler interface (Algorithm 2, line 2)
---------------------------------------
Algorithm 2 needs a way to draw from the density proportional to ``exp(-c L(theta; D))`` on
a convex set. That is pluggable: a *sampler* is any object with the method ::

    sampler.sample(*, loss, data, domain, epsilon, lipschitz=None, runs=1, rng=None, noise=None)
        -> ndarray of shape (runs, p), every row in ``domain``

``loss`` a :class:`reference.losses.Loss`; ``data`` the (already validated) rows ``(n, k)``;
``domain`` a :class:`reference.domains.Domain`; ``epsilon`` the budget of this call;
``lipschitz`` the declared Lipschitz constant (``None``: ``loss.constants.lipschitz``);
randomness only through ``noise_source(rng=rng, noise=noise)``. The sampler owns the
coefficient its privacy statement needs:

* the exact samplers of this module use Algorithm 2's ``c = epsilon / (2 L ||C||_2)``
  (:func:`spec.bst14.exp_sampling_coefficient`, ``||C||_2 = domain.diameter``, an upper
  bound for :class:`~reference.domains.Intersection`, which is the safe direction) and draw
  *exactly* from that law (:class:`NetSampler`: from its restriction to a finite net);
* ``reference.gridwalk.GridWalkSampler`` (Section III-C) uses ``epsilon / (6 L ||C||_2)`` with
  the multiplicative error of ``bst14.thm_III_4``.

Samplers raise :class:`~spec.errors.AssumptionError` when the (loss, domain) pair is outside
what they can sample exactly, and :class:`SamplerExhaustedError` when a rejection cap is hit
(they never return a wrong sample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reference.domains import Domain, Intersection, L2Ball
from reference.losses import HalfSquaredDistance, Linear, Loss
from reference.schedules import evaluate_over_steps
from reference.solver import minimise
from reference.samplers import RadialLaplace
from reference.tape import noise_source
from spec import bst14 as _spec
from spec import validate
from spec.errors import AssumptionError, ParameterError

__all__ = [
    "SCHEDULES",
    "NoiseGDResult",
    "noise_gd",
    "learning_rates",
    "exp_sampling",
    "NetSampler",
    "LinearBallSampler",
    "QuadraticRejectionSampler",
    "SamplerExhaustedError",
    "OutputPerturbationResult",
    "output_perturbation",
    "LocalizationResult",
    "localization",
]

#: Learning-rate schedules of Theorem II.4.
SCHEDULES = ("lipschitz", "strongly_convex")


class SamplerExhaustedError(RuntimeError):
    """A rejection sampler hit its attempt cap (an exact sampler fails loudly, never wrongly)."""


# --------------------------------------------------------------------------------------------
# shared validation
# --------------------------------------------------------------------------------------------


def _check_problem(data, loss, domain):
    """Validate (loss, domain, data) once: returns (rows (n, k) float64 snapshot, n, p)."""
    if not isinstance(loss, Loss):
        raise TypeError(f"loss ({type(loss).__name__}) must be a reference.losses.Loss")
    if not isinstance(domain, Domain):
        raise TypeError(f"domain ({type(domain).__name__}) must be a reference.domains.Domain")
    if not loss.convex:
        raise AssumptionError(f"loss ({loss!r}) must be convex (bst14 conventions)")
    rows = loss.validate_data(data)  # DataBoundError for rows outside the declared bounds
    if rows.ndim != 2:
        raise ParameterError(f"data (shape {rows.shape}) must have shape (n, k)")
    n = rows.shape[0]
    p = loss.dim_of_row(rows.shape[1])
    if domain.dim != p:
        raise ParameterError(f"domain (dimension {domain.dim}) must have the data's dimension p ({p})")
    if loss.domain_radius is not None and not domain.radius <= loss.domain_radius:
        raise AssumptionError(
            f"domain radius ({domain.radius!r}) must be <= the loss's domain_radius ({loss.domain_radius!r}): "
            "the declared constants hold only there"
        )
    return rows, n, p


def _runs(runs) -> int:
    return validate.positive_integer("runs", runs)


# --------------------------------------------------------------------------------------------
# Algorithm 1
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoiseGDResult:
    """Output of :func:`noise_gd`.

    Attributes
    ----------
    theta : ndarray, shape (runs, p)
        ``theta_{n^2}`` of every run (line 6).
    sigma : float
        Per-coordinate noise standard deviation (line 1).
    steps : int
        Number of noisy steps ``T = n^2 - 1`` (line 3).
    schedule : str
        ``"lipschitz"`` or ``"strongly_convex"``.
    calibration : str
        The sigma calibration (``spec.bst14.noise_gd_sigma``).
    learning_rates : ndarray, shape (steps,)
        ``eta(1), ..., eta(T)``.
    theta_1 : ndarray, shape (runs, p)
        The starting point (line 2).
    transcript : dict or None
        With ``transcript=True``: ``{"G": (steps, runs, p), "theta": (steps, runs, p)}`` where
        row ``t - 1`` holds ``G_t`` and ``theta_{t+1}``.
    """

    theta: np.ndarray
    sigma: float
    steps: int
    schedule: str
    calibration: str
    learning_rates: np.ndarray = field(repr=False)
    theta_1: np.ndarray = field(repr=False)
    transcript: dict | None = field(default=None, repr=False)


def learning_rates(schedule, *, n, steps, lipschitz=None, dimension=None, diameter=None, sigma=None,
                   strong_convexity=None) -> np.ndarray:
    """``eta(1), ..., eta(steps)`` of Theorem II.4, evaluated from the ``bst14.thm_II_4`` expression.

    ``schedule="lipschitz"``: formula ``eta_lipschitz_sigma`` = ``||C||_2 / sqrt(t (n^2 L^2 + p
    sigma^2))`` (needs ``lipschitz``, ``dimension``, ``diameter``, ``sigma``);
    ``schedule="strongly_convex"``: formula ``eta_strongly_convex`` = ``1 / (Delta n t)`` (needs
    ``strong_convexity``).

    Utility
    -------
    ``bst14.thm_II_4``.
    """
    s = validate.choice("schedule", schedule, SCHEDULES)
    t = np.arange(1, validate.positive_integer("steps", steps) + 1, dtype=np.int64)
    if s == "lipschitz":
        return evaluate_over_steps(
            _spec.THM_II_4, "eta_lipschitz_sigma", t, n=n, lipschitz=lipschitz, dimension=dimension,
            diameter=diameter, sigma=sigma,
        )
    return evaluate_over_steps(_spec.THM_II_4, "eta_strongly_convex", t, n=n, strong_convexity=strong_convexity)


def noise_gd(data, *, loss, domain, epsilon, delta, schedule, runs=1, theta_1=None, calibration="printed",
             rng=None, noise=None, transcript=None) -> NoiseGDResult:
    r"""Algorithm 1, A_Noise-GD: noisy stochastic (sub)gradient descent.

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (checked once; :class:`DataBoundError`), n >= 2.
    loss : reference.losses.Loss
        Convex; its declared ``constants.lipschitz`` is the L of line 1 and of the learning rate.
        Sub-gradients are used where it is not differentiable (bst14 Section II, Note (1)).
    domain : reference.domains.Domain
        The convex set C (projection ``domain.project``); bounded for ``schedule="lipschitz"``.
    epsilon, delta : float
        Target budget: ``epsilon > 0``, ``0 < delta < 1``.
    schedule : {"lipschitz", "strongly_convex"}
        Learning rate of Theorem II.4 (1) or (2). ``"strongly_convex"`` needs
        ``loss.constants.strong_convexity > 0`` (Delta, per example).
    runs : int
        Independent executions (shared data).
    theta_1 : array_like, shape (p,) or (runs, p), optional
        Line 2's starting point; default ``domain.interior_point()``. Must lie in C.
    calibration : str
        Passed to :func:`spec.bst14.noise_gd_sigma` (default ``"printed"``: line 1 as printed).
    rng, noise
        Randomness (see :func:`reference.tape.noise_source`). Per step t the tape gets an
        ``integers`` entry ``"bst14 Alg.1 L4 index"`` (``high = n``, shape ``(runs,)``), then a
        ``normal`` entry ``"bst14 Alg.1 L5 b_t"`` (shape ``(runs, p)``).
    transcript : callable or True, optional
        A callable ``transcript(t, state)`` is called after every step ``t = 1..n^2-1`` with
        ``state = {"G": G_t, "theta": theta_{t+1}, "eta": eta(t)}`` (arrays ``(runs, p)``; the
        released noisy quantities -- never the sampled index, which is internal). ``True``
        stacks them on the result: ``2 (n^2 - 1) runs p`` floats of memory.

    Returns
    -------
    NoiseGDResult

    Privacy
    -------
    ``bst14.thm_II_1``: (epsilon, delta)-DP under replace-one. With the printed sigma the
    paper's proof does not close; the claim rests on the RDP certificate
    (``spec.bst14.certified_epsilon``); see the record's flags and the other calibrations.

    Utility
    -------
    ``bst14.thm_II_4`` (expected excess empirical risk, for each schedule).
    """
    rows, n, p = _check_problem(data, loss, domain)
    runs = _runs(runs)
    sched = validate.choice("schedule", schedule, SCHEDULES)
    if n < 2:
        raise ParameterError(f"n ({n}) must be >= 2 (bst14 Algorithm 1)")
    constants = loss.constants
    lipschitz = constants.lipschitz
    src = noise_source(rng=rng, noise=noise)
    if transcript is not None and transcript is not True and not callable(transcript):
        raise TypeError(f"transcript ({type(transcript).__name__}) must be None, True or a callable")

    # [bst14 Alg.1 L1] sigma^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta) / epsilon^2 (or another calibration)
    sigma = _spec.noise_gd_sigma(lipschitz=lipschitz, n=n, epsilon=epsilon, delta=delta, calibration=calibration)

    # [bst14 Alg.1 L2] theta_1: any point of C
    if theta_1 is None:
        theta = np.broadcast_to(np.asarray(domain.interior_point(), dtype=np.float64), (runs, p)).copy()
    else:
        t1 = np.asarray(theta_1, dtype=np.float64)
        if t1.shape not in ((p,), (runs, p)):
            raise ParameterError(f"theta_1 (shape {t1.shape}) must have shape ({p},) or ({runs}, {p})")
        if not np.all(np.isfinite(t1)):
            raise ParameterError("theta_1 (non-finite entries) must be finite")
        theta = np.broadcast_to(t1, (runs, p)).copy()
        if not np.all(domain.contains(theta)):
            raise ParameterError(f"theta_1 ({t1.tolist()}) must lie in the domain {domain!r}")
    theta_1_used = theta.copy()

    # [bst14 Alg.1 L3] T = n^2 - 1 noisy steps; eta(t) from Theorem II.4, precomputed for t = 1..T
    steps = _spec.THM_II_4.evaluate("iterates", n=n) - 1
    if sched == "lipschitz":
        if not math.isfinite(domain.diameter):
            raise AssumptionError(f"domain ({domain!r}) must be bounded for schedule 'lipschitz' (eta uses ||C||_2)")
        eta = learning_rates(sched, n=n, steps=steps, lipschitz=lipschitz, dimension=p,
                             diameter=domain.diameter, sigma=sigma)
    else:
        if not constants.strong_convexity > 0:
            raise AssumptionError(
                f"loss.constants.strong_convexity ({constants.strong_convexity!r}) must be > 0 for schedule "
                "'strongly_convex' (eta(t) = 1/(Delta n t))"
            )
        eta = learning_rates(sched, n=n, steps=steps, strong_convexity=constants.strong_convexity)

    # the data were validated once above; the loop uses the loss's and domain's unvalidated
    # hooks (the same arithmetic as gradient()/project(), without per-step input checks)
    x_rows, y_rows = loss.split(rows)
    keep = transcript is True
    if keep:
        g_hist = np.empty((steps, runs, p))
        theta_hist = np.empty((steps, runs, p))
    for t in range(1, steps + 1):
        # [bst14 Alg.1 L4] pick d uniformly from D, with replacement (one index per run)
        index = src.integers("bst14 Alg.1 L4 index", n, (runs,))
        # [bst14 Alg.1 L5] b_t ~ N(0, sigma^2 I_p)
        b = sigma * src.normal("bst14 Alg.1 L5 b_t", (runs, p))
        # [bst14 Alg.1 L5] G_t = n grad l(theta_t; d) + b_t  (a sub-gradient where not differentiable)
        g = n * loss._gradient(theta, x_rows[index], None if y_rows is None else y_rows[index]) + b
        # [bst14 Alg.1 L5] theta_{t+1} = Pi_C(theta_t - eta(t) G_t)
        theta = domain._project(theta - eta[t - 1] * g)
        if keep:
            g_hist[t - 1] = g
            theta_hist[t - 1] = theta
        elif transcript is not None:
            transcript(t, {"G": g.copy(), "theta": theta.copy(), "eta": float(eta[t - 1])})

    # [bst14 Alg.1 L6] output theta_{n^2}
    return NoiseGDResult(
        theta=theta, sigma=sigma, steps=steps, schedule=sched, calibration=calibration,
        learning_rates=eta, theta_1=theta_1_used,
        transcript={"G": g_hist, "theta": theta_hist} if keep else None,
    )


# --------------------------------------------------------------------------------------------
# Algorithm 2 and its exact samplers
# --------------------------------------------------------------------------------------------


def _exact_coefficient(loss, domain, epsilon, lipschitz):
    """Algorithm 2's c = epsilon / (2 L ||C||_2) with ||C||_2 = domain.diameter (an upper bound)."""
    lip = loss.constants.lipschitz if lipschitz is None else validate.positive("lipschitz", lipschitz)
    if not math.isfinite(domain.diameter):
        raise AssumptionError(f"domain ({domain!r}) must be bounded (Algorithm 2 needs ||C||_2 < inf)")
    return _spec.ALG_2.evaluate("coefficient", epsilon=epsilon, lipschitz=lip, diameter=domain.diameter)


def _sampler_rows(loss, data, domain):
    rows, n, p = _check_problem(data, loss, domain)
    return rows, n, p


class NetSampler:
    """Exact exponential mechanism over a finite net of C (Algorithm 2's net variant).

    bst14 Section I mentions running the exponential mechanism over a net of C; this sampler
    draws a point of ``points`` with probability proportional to ``exp(-c L(point; D))``,
    exactly (Gumbel-max trick: ``argmax_j (-c L(x_j; D) + g_j)`` with i.i.d. standard Gumbel
    ``g_j`` has exactly that law). It is *not* the continuous density of Algorithm 2; the
    privacy statement is the same (the oscillation argument of ``bst14.thm_III_1`` holds on
    any subset of C).

    Parameters
    ----------
    points : array_like, shape (m, p)
        The net; every point must lie in the domain passed to :meth:`sample`.

    Tape: one ``gumbel`` entry ``"bst14 Alg.2 L2 net: gumbel"`` of shape ``(runs, m)``.
    """

    def __init__(self, points):
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[0] < 1 or not np.all(np.isfinite(pts)):
            raise ParameterError(f"points (shape {pts.shape}) must be a finite array of shape (m, p), m >= 1")
        self.points = pts

    def __repr__(self):
        return f"NetSampler(m={self.points.shape[0]}, p={self.points.shape[1]})"

    def log_weights(self, *, loss, data, domain, epsilon, lipschitz=None) -> np.ndarray:
        """Normalised log-probabilities ``-c L(x_j; D) - log sum_k exp(-c L(x_k; D))``."""
        rows, _, _ = _sampler_rows(loss, data, domain)
        c = _exact_coefficient(loss, domain, epsilon, lipschitz)
        logits = -c * loss.total(self.points, rows, check=False)
        top = logits.max()
        return logits - (top + np.log(np.exp(logits - top).sum()))

    def sample(self, *, loss, data, domain, epsilon, lipschitz=None, runs=1, rng=None, noise=None):
        """``runs`` draws, shape ``(runs, p)``."""
        rows, _, p = _sampler_rows(loss, data, domain)
        runs = _runs(runs)
        if self.points.shape[1] != p:
            raise ParameterError(f"points (dimension {self.points.shape[1]}) must have dimension p ({p})")
        if not np.all(domain.contains(self.points)):
            raise ParameterError(f"points must all lie in the domain {domain!r}")
        src = noise_source(rng=rng, noise=noise)
        c = _exact_coefficient(loss, domain, epsilon, lipschitz)
        logits = -c * loss.total(self.points, rows, check=False)
        # [bst14 Alg.2 L2] Gumbel-max: argmax_j (-c L(x_j; D) + g_j) ~ exp(-c L(x_j; D))
        g = src.gumbel("bst14 Alg.2 L2 net: gumbel", (runs, self.points.shape[0]))
        return self.points[np.argmax(logits[None, :] + g, axis=1)].copy()


def _tilted_marginal(kappa, p, m, src, label):
    r"""Exact draws of s in [-1, 1] with density proportional to ``e^{kappa s} (1 - s^2)^{(p-1)/2}``.

    This is the first-coordinate marginal of a von Mises-Fisher law on the sphere of R^{p+2}
    (whose marginal density is ``e^{kappa s} (1 - s^2)^{(d-3)/2}`` with ``d = p + 2``), so
    Wood's (1994) rejection sampler applies: with ``b = (d - 1)/(2 kappa + sqrt(4 kappa^2 + (d -
    1)^2))``, ``x0 = (1 - b)/(1 + b)`` and ``a = kappa x0 + (d - 1) ln(1 - x0^2)``, propose
    ``W = (1 - (1 + b) Z)/(1 - (1 - b) Z)`` with ``Z ~ Beta((d-1)/2, (d-1)/2)`` (drawn as
    ``G1/(G1 + G2)`` from two standard Gamma draws) and accept when ``kappa W + (d - 1) ln(1 -
    x0 W) - a >= ln U``. Exact (a rejection sampler with a valid envelope); the acceptance
    rate is bounded below uniformly in kappa (Wood 1994), at least about 0.6 in practice.
    """
    d = p + 2
    half = (d - 1) / 2.0
    b = (d - 1) / (2.0 * kappa + math.sqrt(4.0 * kappa * kappa + (d - 1) ** 2))
    x0 = (1.0 - b) / (1.0 + b)
    a = kappa * x0 + (d - 1) * math.log1p(-x0 * x0)
    out = np.empty(m)
    pending = np.arange(m)
    rounds = 0
    while pending.size:
        rounds += 1
        if rounds > 10_000:
            raise SamplerExhaustedError(f"{label}: 10000 rejection rounds without acceptance (kappa {kappa!r})")
        k = pending.size
        g1 = src.gamma(f"{label}: beta numerator", half, (k,))
        g2 = src.gamma(f"{label}: beta denominator", half, (k,))
        u = src.uniform(f"{label}: acceptance", (k,))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = g1 / (g1 + g2)
            w = (1.0 - (1.0 + b) * z) / (1.0 - (1.0 - b) * z)
            ok = (kappa * w + (d - 1) * np.log1p(-x0 * w) - a >= np.log(u)) & np.isfinite(w)
        out[pending[ok]] = w[ok]
        pending = pending[~ok]
    return np.clip(out, -1.0, 1.0)


class LinearBallSampler:
    r"""Exact Algorithm 2 for the linear loss ``l(theta; d) = -<theta, d>`` on an l2 ball.

    With ``S = sum_i d_i`` the density on the ball ``B(c0, r)`` is proportional to ``exp(c
    <theta, S>)``. Write ``theta = c0 + r u`` (``u`` in the unit ball) and ``e = S/||S||``: then
    ``s = <u, e>`` has density proportional to ``e^{kappa s} (1 - s^2)^{(p-1)/2}`` on ``[-1,
    1]`` with ``kappa = c r ||S||``, and given ``s`` the rest of ``u`` is uniform in the
    ``(p-1)``-ball of radius ``sqrt(1 - s^2)`` orthogonal to ``e``. ``s`` is drawn by an exact
    rejection sampler (:func:`_tilted_marginal`, a Beta proposal with an exponential envelope);
    the orthogonal part is a uniform direction (normal vector, ``e``-component removed,
    normalised) times ``sqrt(1 - s^2) U^{1/(p-1)}``. ``S = 0`` gives the uniform ball (``e``
    is then the first basis vector).

    Tape (labels ``"bst14 Alg.2 L2 linear-ball: ..."``): rejection rounds of (gamma, gamma,
    uniform) entries for ``s`` over the still pending runs, then (for ``p >= 2``) a ``normal``
    ``(runs, p)`` direction and a ``uniform`` ``(runs,)`` radius.
    """

    label = "bst14 Alg.2 L2 linear-ball"

    def __repr__(self):
        return "LinearBallSampler()"

    def kappa(self, *, loss, data, domain, epsilon, lipschitz=None) -> float:
        """The tilt ``kappa = c r ||S||`` of the law of ``s``."""
        rows, _, _ = _sampler_rows(loss, data, domain)
        self._check(loss, domain)
        c = _exact_coefficient(loss, domain, epsilon, lipschitz)
        return float(c * domain.ball_radius * np.linalg.norm(rows.sum(axis=0)))

    def _check(self, loss, domain):
        if not isinstance(loss, Linear):
            raise AssumptionError(f"loss ({loss!r}) must be Linear for LinearBallSampler")
        if not isinstance(domain, L2Ball):
            raise AssumptionError(f"domain ({domain!r}) must be an L2Ball for LinearBallSampler")

    def sample(self, *, loss, data, domain, epsilon, lipschitz=None, runs=1, rng=None, noise=None):
        """``runs`` exact draws, shape ``(runs, p)``."""
        rows, _, p = _sampler_rows(loss, data, domain)
        self._check(loss, domain)
        runs = _runs(runs)
        src = noise_source(rng=rng, noise=noise)
        c = _exact_coefficient(loss, domain, epsilon, lipschitz)
        total = rows.sum(axis=0)
        norm_s = float(np.linalg.norm(total))
        e = total / norm_s if norm_s > 0 else np.eye(p)[0]
        kappa = c * domain.ball_radius * norm_s
        # [bst14 Alg.2 L2] s = <u, S/||S||> ~ e^{kappa s} (1 - s^2)^{(p-1)/2}
        s = _tilted_marginal(kappa, p, runs, src, self.label)
        u = s[:, None] * e[None, :]
        if p >= 2:
            # [bst14 Alg.2 L2] orthogonal part uniform in the (p-1)-ball of radius sqrt(1 - s^2)
            z = src.normal(f"{self.label}: direction", (runs, p))
            z = z - (z @ e)[:, None] * e[None, :]
            nz = np.linalg.norm(z, axis=1, keepdims=True)
            if np.any(nz == 0.0):
                raise SamplerExhaustedError(f"{self.label}: degenerate direction draw (probability 0)")
            radius = np.sqrt(np.maximum(0.0, 1.0 - s * s)) * src.uniform(f"{self.label}: radius", (runs,)) ** (1.0 / (p - 1))
            u = u + radius[:, None] * z / nz
        return domain.center[None, :] + domain.ball_radius * u


class QuadraticRejectionSampler:
    r"""Exact Algorithm 2 for ``l(theta; d) = ||theta - d||^2 / 2`` on any bounded convex domain.

    ``L(theta; D) = (n/2) ||theta - mean||^2 + const``, so ``exp(-c L)`` restricted to C is the
    Gaussian ``N(mean, I/(c n))`` conditioned on C. Rejection: draw the Gaussian (``normal``
    entries ``"bst14 Alg.2 L2 quadratic: gaussian"`` for the pending runs, one entry per round)
    and accept the draws in C (membership with tolerance 0, per run). Exact. Each run may make
    at most ``max_attempts`` attempts; past the cap :class:`SamplerExhaustedError` is raised, so
    the cap turns the exact sampler into one that fails loudly with small probability and
    never returns a wrong sample.

    Parameters
    ----------
    max_attempts : int
        Cap per run (default 100 000).
    """

    label = "bst14 Alg.2 L2 quadratic"

    def __init__(self, *, max_attempts=100_000):
        self.max_attempts = validate.positive_integer("max_attempts", max_attempts)

    def __repr__(self):
        return f"QuadraticRejectionSampler(max_attempts={self.max_attempts})"

    def sample(self, *, loss, data, domain, epsilon, lipschitz=None, runs=1, rng=None, noise=None):
        """``runs`` exact draws, shape ``(runs, p)``, every row in ``domain``."""
        rows, n, p = _sampler_rows(loss, data, domain)
        if not isinstance(loss, HalfSquaredDistance):
            raise AssumptionError(f"loss ({loss!r}) must be HalfSquaredDistance for QuadraticRejectionSampler")
        runs = _runs(runs)
        src = noise_source(rng=rng, noise=noise)
        c = _exact_coefficient(loss, domain, epsilon, lipschitz)
        mean = rows.mean(axis=0)
        scale = 1.0 / math.sqrt(c * n)
        out = np.empty((runs, p))
        pending = np.arange(runs)
        attempts = 0
        while pending.size:
            attempts += 1
            if attempts > self.max_attempts:
                raise SamplerExhaustedError(
                    f"{self.label}: {pending.size} run(s) not accepted after max_attempts ({self.max_attempts}) "
                    f"attempts (Gaussian mass of the domain too small)"
                )
            # [bst14 Alg.2 L2] theta ~ N(mean, I/(c n)), accepted if in C
            theta = mean + scale * src.normal(f"{self.label}: gaussian", (pending.size, p))
            ok = domain.contains(theta, tol=0.0)
            out[pending[ok]] = theta[ok]
            pending = pending[~ok]
        return out


def exp_sampling(data, *, loss, domain, epsilon, runs=1, sampler, rng=None, noise=None) -> np.ndarray:
    r"""Algorithm 2, A_exp-samp: sample theta from C with density proportional to ``exp(-c L(theta; D))``.

    Parameters
    ----------
    data : array_like, shape (n, k)
        Checked against the loss's declared bounds.
    loss, domain
        Convex loss (declared Lipschitz L) and bounded convex C.
    epsilon : float
        > 0.
    sampler
        An object implementing the sampler interface (module docstring): :class:`NetSampler`,
        :class:`LinearBallSampler`, :class:`QuadraticRejectionSampler`, or
        ``reference.gridwalk.GridWalkSampler``.

    Returns
    -------
    ndarray, shape (runs, p)

    Privacy
    -------
    ``bst14.thm_III_1``: epsilon-DP with ``c = epsilon/(2 L ||C||_2)`` (exact samplers);
    ``bst14.thm_III_4`` for the grid walk.

    Utility
    -------
    ``bst14.thm_III_2``.
    """
    rows, _, _ = _check_problem(data, loss, domain)
    validate.epsilon(epsilon)
    runs = _runs(runs)
    if not callable(getattr(sampler, "sample", None)):
        raise TypeError(f"sampler ({type(sampler).__name__}) must have a sample(...) method (module docstring)")
    # [bst14 Alg.2 L1] L(theta; D) = sum_i l(theta; d_i)  (loss.total, inside the sampler)
    # [bst14 Alg.2 L2] theta ~ exp(-c L(theta; D)) on C, c = epsilon/(2 L ||C||_2)
    return sampler.sample(loss=loss, data=rows, domain=domain, epsilon=epsilon, runs=runs, rng=rng, noise=noise)


# --------------------------------------------------------------------------------------------
# Algorithm 3
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputPerturbationResult:
    """Output of :func:`output_perturbation`.

    Attributes
    ----------
    centres : ndarray, shape (runs, p)
        ``theta_0 = Pi_C(theta* + b)`` of every run (line 3).
    radius : float
        Radius of ``C_0`` (line 4), rounded up.
    theta_star : ndarray, shape (p,)
        The solver's minimiser (line 2), certified gap ``solver_tolerance``.
    rate : float
        Rate of the noise density ``exp(-rate ||b||)``, including the solver-gap correction.
    solver_tolerance : float
        The public tolerance used in the sensitivity (the certified gap is at most this).
    noise : ndarray, shape (runs, p)
        The noise ``b`` before projection (for tests and audits of the noise law).
    domain : Domain
        C.
    """

    centres: np.ndarray
    radius: float
    theta_star: np.ndarray
    rate: float
    solver_tolerance: float
    noise: np.ndarray = field(repr=False)
    domain: Any = field(repr=False)

    def localized_domain(self, run: int) -> Intersection:
        """``C_0`` of run ``run``: ``Intersection(C, L2Ball(radius, center=theta_0))``."""
        r = validate.integer("run", run, minimum=0)
        if r >= self.centres.shape[0]:
            raise ParameterError(f"run ({r}) must be < runs ({self.centres.shape[0]})")
        ball = L2Ball(radius=self.radius, dim=self.centres.shape[1], center=self.centres[r])
        return Intersection(self.domain, ball)

    def localized_domains(self) -> list:
        """Every run's ``C_0``."""
        return [self.localized_domain(r) for r in range(self.centres.shape[0])]


def output_perturbation(data, *, loss, domain, epsilon, zeta, runs=1, solver_tolerance=1e-12, rng=None,
                        noise=None) -> OutputPerturbationResult:
    r"""Algorithm 3, A_out-pert: output perturbation, returning the localised set ``C_0``.

    Parameters
    ----------
    data, loss, domain
        Loss with declared ``strong_convexity > 0`` (Delta, per example) and Lipschitz L.
    epsilon : float
        Budget of this algorithm.
    zeta : float
        Radius parameter (> 0; Algorithm 4 passes ``3 ln n``).
    solver_tolerance : float
        Public bound tau (> 0) on the certified optimality gap of theta*; the noise rate uses
        the sensitivity ``2L/(n Delta) + 2 sqrt(2 tau/(n Delta))`` (``bst14.alg_3`` formula
        ``noise_rate_with_tolerance``). :class:`ParameterError` if the solver cannot certify it.

    Tape: ``gamma`` ``(runs,)`` ``"bst14 Alg.3 L3 b: radius"`` (k = p), then ``normal`` ``(runs,
    p)`` ``"bst14 Alg.3 L3 b: direction"`` (:class:`reference.samplers.RadialLaplace`).

    Privacy
    -------
    ``bst14.alg_3``: epsilon-DP (the CAVEAT flag: inexact theta* handled by the tolerance term).

    Utility
    -------
    ``bst14.lemma_IV_2`` (C_0 contains theta* unless ``||b|| > zeta E||b||``).
    """
    rows, n, p = _check_problem(data, loss, domain)
    runs = _runs(runs)
    eps = validate.epsilon(epsilon)
    z = validate.positive("zeta", zeta)
    tol = validate.positive("solver_tolerance", solver_tolerance)
    constants = loss.constants
    if not constants.strong_convexity > 0:
        raise AssumptionError(
            f"loss.constants.strong_convexity ({constants.strong_convexity!r}) must be > 0 (bst14 Algorithm 3)"
        )
    src = noise_source(rng=rng, noise=noise)
    # [bst14 Alg.3 L1-2] theta* = argmin_{theta in C} L(theta; D), certified gap <= tau
    solved = minimise(loss, rows, domain, tolerance=tol, normalisation="sum")
    if not solved.gap <= tol:
        raise ParameterError(f"solver gap ({solved.gap!r}) must be <= solver_tolerance ({tol!r})")
    theta_star = solved.theta
    rate = _spec.ALG_3.evaluate(
        "noise_rate_with_tolerance", epsilon=eps, lipschitz=constants.lipschitz, n=n,
        strong_convexity=constants.strong_convexity, solver_tolerance=tol,
    )
    # [bst14 Alg.3 L3] b with density proportional to exp(-(n Delta epsilon/(2L)) ||b||) (rate with tau)
    b = RadialLaplace(rate=rate, dim=p).rvs((runs,), noise=src, label="bst14 Alg.3 L3 b")
    # [bst14 Alg.3 L3] theta_0 = Pi_C(theta* + b)
    centres = domain.project(theta_star[None, :] + b)
    # [bst14 Alg.3 L4] C_0 = {theta in C : ||theta - theta_0|| <= zeta 2 L p/(Delta epsilon n)}
    radius = _spec.ALG_3.evaluate(
        "radius", epsilon=eps, lipschitz=constants.lipschitz, n=n, strong_convexity=constants.strong_convexity,
        dimension=p, zeta=z,
    )
    return OutputPerturbationResult(
        centres=centres, radius=radius, theta_star=theta_star, rate=rate, solver_tolerance=tol, noise=b, domain=domain,
    )


# --------------------------------------------------------------------------------------------
# Algorithm 4
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LocalizationResult:
    """Output of :func:`localization`: ``theta`` (runs, p), the Algorithm 3 step and the constants."""

    theta: np.ndarray
    localization: OutputPerturbationResult = field(repr=False)
    parameters: dict = field(repr=False)


def localization(data, *, loss, domain, epsilon, runs=1, sampler, solver_tolerance=1e-12, rng=None,
                 noise=None) -> LocalizationResult:
    r"""Algorithm 4: Algorithm 3 at epsilon/2 (zeta = 3 ln n), then Algorithm 2 at epsilon/2 on C_0.

    The generic step runs per run (each run has its own ``C_0``), calling ``sampler.sample(...,
    runs=1)`` with ``domain = C_0`` of that run, in run order; its coefficient uses
    ``C_0.diameter = min(||C||_2, 2 radius)``, an upper bound on the diameter of ``C_0`` (the
    spec's ``generic_coefficient`` uses ``2 radius``; both are valid, i.e. epsilon/2-DP).

    Privacy
    -------
    ``bst14.thm_IV_1``: epsilon-DP by basic (adaptive) composition of ``epsilon_localization``
    and ``epsilon_generic`` (``spec.bst14.localization_parameters``).

    Utility
    -------
    ``bst14.thm_IV_3``.
    """
    rows, n, p = _check_problem(data, loss, domain)
    runs = _runs(runs)
    constants = loss.constants
    if not constants.strong_convexity > 0:
        raise AssumptionError(
            f"loss.constants.strong_convexity ({constants.strong_convexity!r}) must be > 0 (bst14 Algorithm 4)"
        )
    params = _spec.localization_parameters(
        epsilon=epsilon, lipschitz=constants.lipschitz, n=n, strong_convexity=constants.strong_convexity,
        dimension=p, solver_tolerance=validate.positive("solver_tolerance", solver_tolerance),
    )
    src = noise_source(rng=rng, noise=noise)
    # [bst14 Alg.4 L1] C_0 <- A_out-pert(D, epsilon/2, zeta = 3 ln n)
    step1 = output_perturbation(
        rows, loss=loss, domain=domain, epsilon=params["epsilon_localization"], zeta=params["zeta"], runs=runs,
        solver_tolerance=solver_tolerance, noise=src,
    )
    # [bst14 Alg.4 L2] theta_priv <- an epsilon/2-DP algorithm (Algorithm 2) on C_0
    theta = np.empty((runs, p))
    for r in range(runs):
        theta[r] = exp_sampling(
            rows, loss=loss, domain=step1.localized_domain(r), epsilon=params["epsilon_generic"], runs=1,
            sampler=sampler, noise=src,
        )[0]
    return LocalizationResult(theta=theta, localization=step1, parameters=params)
