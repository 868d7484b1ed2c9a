"""bst14 Algorithm 2 (A_exp-samp) and its exact samplers.

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
* ``reference.bst14.grid_walk.GridWalkSampler`` (Section III-C) uses ``epsilon / (6 L ||C||_2)`` with
  the multiplicative error of ``bst14.thm_III_4``.

Samplers raise :class:`~spec.errors.AssumptionError` when the (loss, domain) pair is outside
what they can sample exactly, and :class:`SamplerExhaustedError` when a rejection cap is hit
(they never return a wrong sample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from reference import arrays
from reference.arrays import ArrayLike
from reference.configured import Configured, minimum_records, quantity
from reference.domains import Domain, L2Ball
from reference.losses import HalfSquaredDistance, Linear, Loss
from reference.problem import check_problem, check_setting
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import NoiseLike, noise_source
from spec import bst14 as _spec
from spec import validate
from spec.errors import AssumptionError, ParameterError

#: The records whose formulas and claims Algorithm 2 (with an exact sampler) uses.
SPEC_IDS = ("bst14.alg_2", "bst14.thm_III_1")


class SamplerExhaustedError(RuntimeError):
    """A rejection sampler hit its attempt cap (an exact sampler fails loudly, never wrongly)."""


class Sampler(Protocol):
    """The sampler interface of Algorithm 2, line 2 (module docstring), as a type: what
    :func:`exp_sampling` and ``localization`` accept as ``sampler``."""

    def sample(self, *, loss: Loss, data: ArrayLike, domain: Domain, epsilon: float,
               lipschitz: float | None = None, runs: int = 1, rng: RngLike = None,
               noise: NoiseLike = None) -> np.ndarray: ...


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
    rows, n, p = check_problem(data, loss=loss, domain=domain)
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

    def __init__(self, points: ArrayLike) -> None:
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[0] < 1 or not np.all(np.isfinite(pts)):
            raise ParameterError(f"points (shape {pts.shape}) must be a finite array of shape (m, p), m >= 1")
        self.points = pts

    def __repr__(self) -> str:
        return f"NetSampler(m={self.points.shape[0]}, p={self.points.shape[1]})"

    def log_weights(self, *, loss: Loss, data: ArrayLike, domain: Domain, epsilon: float,
                    lipschitz: float | None = None) -> np.ndarray:
        """Normalised log-probabilities ``-c L(x_j; D) - log sum_k exp(-c L(x_k; D))``."""
        rows, _, _ = _sampler_rows(loss, data, domain)
        c = _exact_coefficient(loss, domain, epsilon, lipschitz)
        logits = -c * loss.total(self.points, rows, check=False)
        top = logits.max()
        return logits - (top + np.log(np.exp(logits - top).sum()))

    def sample(self, *, loss: Loss, data: ArrayLike, domain: Domain, epsilon: float,
               lipschitz: float | None = None, runs: int = 1, rng: RngLike = None,
               noise: NoiseLike = None) -> np.ndarray:
        """``runs`` draws, shape ``(runs, p)``."""
        rows, _, p = _sampler_rows(loss, data, domain)
        runs = arrays.runs(runs)
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

    def __repr__(self) -> str:
        return "LinearBallSampler()"

    def kappa(self, *, loss: Loss, data: ArrayLike, domain: Domain, epsilon: float,
              lipschitz: float | None = None) -> float:
        """The tilt ``kappa = c r ||S||`` of the law of ``s``."""
        rows, _, _ = _sampler_rows(loss, data, domain)
        self._check(loss, domain)
        c = _exact_coefficient(loss, domain, epsilon, lipschitz)
        return float(c * domain.radius * np.linalg.norm(rows.sum(axis=0)))

    def _check(self, loss, domain):
        if not isinstance(loss, Linear):
            raise AssumptionError(f"loss ({loss!r}) must be Linear for LinearBallSampler")
        if not isinstance(domain, L2Ball):
            raise AssumptionError(f"domain ({domain!r}) must be an L2Ball for LinearBallSampler")

    def sample(self, *, loss: Loss, data: ArrayLike, domain: Domain, epsilon: float,
               lipschitz: float | None = None, runs: int = 1, rng: RngLike = None,
               noise: NoiseLike = None) -> np.ndarray:
        """``runs`` exact draws, shape ``(runs, p)``."""
        rows, _, p = _sampler_rows(loss, data, domain)
        self._check(loss, domain)
        runs = arrays.runs(runs)
        src = noise_source(rng=rng, noise=noise)
        c = _exact_coefficient(loss, domain, epsilon, lipschitz)
        total = rows.sum(axis=0)
        norm_s = float(np.linalg.norm(total))
        e = total / norm_s if norm_s > 0 else np.eye(p)[0]
        kappa = c * domain.radius * norm_s
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
        return domain.center[None, :] + domain.radius * u


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

    def __init__(self, *, max_attempts: int = 100_000) -> None:
        self.max_attempts = validate.positive_integer("max_attempts", max_attempts)

    def __repr__(self) -> str:
        return f"QuadraticRejectionSampler(max_attempts={self.max_attempts})"

    def sample(self, *, loss: Loss, data: ArrayLike, domain: Domain, epsilon: float,
               lipschitz: float | None = None, runs: int = 1, rng: RngLike = None,
               noise: NoiseLike = None) -> np.ndarray:
        """``runs`` exact draws, shape ``(runs, p)``, every row in ``domain``."""
        rows, n, p = _sampler_rows(loss, data, domain)
        if not isinstance(loss, HalfSquaredDistance):
            raise AssumptionError(f"loss ({loss!r}) must be HalfSquaredDistance for QuadraticRejectionSampler")
        runs = arrays.runs(runs)
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


@dataclass(frozen=True)
class ExpSamplingResult(AlgorithmResult):
    """Output of :func:`exp_sampling`: ``theta`` (runs, p), one sample per run (line 2)."""

    theta: np.ndarray


def _sampler_coefficient(sampler, loss: Loss, domain: Domain, epsilon: float) -> tuple[float, str]:
    """The coefficient of ``exp(-c L)`` the sampler uses, and the formula it comes from."""
    record = getattr(sampler, "spec_ids", SPEC_IDS)[0] if hasattr(sampler, "spec_ids") else "bst14.alg_2"
    if record == "bst14.thm_III_4":
        lip = loss.constants.lipschitz
        return _spec.THM_III_4.evaluate("coefficient", epsilon=epsilon, lipschitz=lip, diameter=domain.diameter), \
            "bst14.thm_III_4 coefficient epsilon/(6 L ||C||_2)"
    return _exact_coefficient(loss, domain, epsilon, None), "bst14.alg_2 coefficient epsilon/(2 L ||C||_2)"


@dataclass(frozen=True, kw_only=True, eq=False)
class ExpSampling(Configured):
    r"""Algorithm 2, A_exp-samp, configured: the sampler and its coefficient, before any data.

    Privacy
    -------
    ``bst14.thm_III_1``: epsilon-DP with ``c = epsilon/(2 L ||C||_2)`` (exact samplers);
    ``bst14.thm_III_4`` for the grid walk.

    Utility
    -------
    ``bst14.thm_III_2``.
    """

    ALGORITHM: ClassVar[str] = "bst14.alg_2"
    RESULT: ClassVar[type] = ExpSamplingResult

    sampler: Any
    sampler_epsilon: float = quantity("the budget the sampler's coefficient is computed from (line 2)",
                                      source="epsilon")
    coefficient: float = quantity("c of the density exp(-c L(theta; D)) on C (line 2)", source="")
    coefficient_formula: str = ""

    @classmethod
    def configure(cls, *, loss: Loss, domain: Domain, n: int, epsilon: float, sampler: Sampler,
                  allow_unproven: bool = False) -> "ExpSampling":
        r"""Configure Algorithm 2 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            Convex, with a declared Lipschitz constant L.
        domain : reference.domains.Domain
            A bounded convex C.
        n : int
            Number of records, at least 2.
        epsilon : float
            The budget, which must be > 0.
        sampler : NetSampler, LinearBallSampler, QuadraticRejectionSampler or GridWalkSampler
            How line 2 samples (module docstring); the exact samplers need their loss and domain.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        ExpSampling
        """
        check_setting(loss=loss, domain=domain, convex=True)
        n = minimum_records(n, cls.ALGORITHM)
        eps = validate.epsilon(epsilon)
        if not callable(getattr(sampler, "sample", None)):
            raise TypeError(f"sampler ({type(sampler).__name__}) must have a sample(...) method (module docstring)")
        coefficient, source = _sampler_coefficient(sampler, loss, domain, eps)
        spec_ids = tuple(getattr(sampler, "spec_ids", SPEC_IDS))
        flags = ("rejection-sampler",) if isinstance(sampler, QuadraticRejectionSampler) else ()
        out = cls(loss=loss, domain=domain, n=n, p=domain.dim, epsilon=eps, options={"sampler": sampler},
                  spec_ids=spec_ids, flags=flags, allow_unproven=allow_unproven, sampler=sampler,
                  sampler_epsilon=eps, coefficient=coefficient, coefficient_formula=source)
        return out._finish()

    def quantities(self) -> list[tuple[str, Any, str, str]]:
        return [(name, value, meaning, self.coefficient_formula if name == "coefficient" else src)
                for name, value, meaning, src in super().quantities()]

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """The sampler evaluates the total loss: at least ``n`` loss evaluations per run."""
        return int(self.n) * int(runs)

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        # [bst14 Alg.2 L1] L(theta; D) = sum_i l(theta; d_i)  (loss.total, inside the sampler)
        # [bst14 Alg.2 L2] theta ~ exp(-c L(theta; D)) on C, c = epsilon/(2 L ||C||_2)
        theta = self.sampler.sample(loss=self.loss, data=rows, domain=self.domain, epsilon=self.sampler_epsilon,
                                    runs=runs, noise=noise)
        progress(1, 1)
        return dict(theta=theta)


def exp_sampling(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, runs: int = 1,
                 sampler: Sampler, rng: RngLike = None, noise: NoiseLike = None) -> ExpSamplingResult:
    r"""Algorithm 2, A_exp-samp: :meth:`ExpSampling.configure`, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Checked against the loss's declared bounds.
    loss, domain, epsilon, sampler
        As in :meth:`ExpSampling.configure`.
    runs, rng, noise
        Independent samples and their randomness.

    Returns
    -------
    ExpSamplingResult
        ``theta`` of shape (runs, p); ``spec_ids`` are the sampler's (``sampler.spec_ids``).

    Privacy
    -------
    ``bst14.thm_III_1``: epsilon-DP with ``c = epsilon/(2 L ||C||_2)`` (exact samplers);
    ``bst14.thm_III_4`` for the grid walk.

    Utility
    -------
    ``bst14.thm_III_2``.
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = ExpSampling.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, sampler=sampler,
                                       allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise)
