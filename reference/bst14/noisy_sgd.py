"""bst14 Algorithm 1 (A_Noise-GD), line for line and batched over runs.

Bassily, Smith and Thakurta (2014): Algorithms 1-4, line for line, batched over runs.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, ClassVar, Literal

import numpy as np

from reference.arrays import ArrayLike
from reference.configured import Certificate, Configured, Constant, minimum_records, quantity
from reference.domains import Domain
from reference.losses import Loss
from reference.problem import broadcast_start, check_problem, check_setting, start_point
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.schedules import evaluate_over_steps
from reference.tape import NoiseLike
from spec import bst14 as _spec
from spec import validate
from spec.errors import AssumptionError

SCHEDULES = ("lipschitz", "strongly_convex")

#: The records whose formulas and claims Algorithm 1 uses.
SPEC_IDS = ("bst14.alg_1", "bst14.thm_II_1", "bst14.thm_II_4")

#: Tape labels of Algorithm 1's draws (the planted twins and the vectors use these names).
LABEL_INDEX = "bst14 Alg.1 L4 index"
LABEL_NOISE = "bst14 Alg.1 L5 b_t"


# --------------------------------------------------------------------------------------------
# Algorithm 1
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoiseGDResult(AlgorithmResult):
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
    spec_ids, seed
        See :class:`reference.results.AlgorithmResult`.
    """

    theta: np.ndarray
    sigma: float
    steps: int
    schedule: str
    calibration: str
    learning_rates: np.ndarray = field(repr=False)
    theta_1: np.ndarray = field(repr=False)
    transcript: dict | None = field(default=None, repr=False)


def learning_rates(schedule: str, *, n: int, steps: int, lipschitz: float | None = None,
                   dimension: int | None = None, diameter: float | None = None, sigma: float | None = None,
                   strong_convexity: float | None = None) -> np.ndarray:
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


@dataclass(frozen=True, kw_only=True, eq=False)
class NoiseGD(Configured):
    r"""Algorithm 1, A_Noise-GD, configured: sigma, T and the learning rates, before any data.

    Build it with :meth:`configure`; run it with :meth:`~reference.configured.Configured.run`.

    Privacy
    -------
    ``bst14.thm_II_1``: (epsilon, delta)-DP under replace-one. With the printed sigma the paper's
    proof does not close; the claim rests on the RDP certificate (``spec.bst14.certified_epsilon``),
    which :attr:`certificate` evaluates; the other calibrations are proven by construction.

    Utility
    -------
    ``bst14.thm_II_4`` (expected excess empirical risk, for each schedule).
    """

    #: The transcript key, the iterate's name and its index offset of the vectors' checkpoints.
    CHECKPOINT: ClassVar[tuple] = ("theta", "theta", 1)

    ALGORITHM: ClassVar[str] = "bst14.alg_1"
    RESULT: ClassVar[type] = NoiseGDResult
    USES: ClassVar[tuple[str, ...]] = ("lipschitz",)

    schedule: str
    calibration: str
    sigma: float = quantity("noise standard deviation per coordinate (line 1)",
                            source="bst14.thm_II_1 via spec.bst14.noise_gd_sigma")
    steps: int = quantity("T = n^2 - 1 noisy steps (line 3)", source="bst14.thm_II_4 iterates")
    learning_rates: np.ndarray = quantity("eta(1), ..., eta(T) (line 5)", source="bst14.thm_II_4")
    theta_1: np.ndarray = quantity("the starting point (line 2)", source="public")

    @classmethod
    def configure(cls, *, loss: Loss, domain: Domain, n: int, epsilon: float, delta: float, schedule: str,
                  theta_1: ArrayLike | None = None, calibration: str = "printed",
                  allow_unproven: bool = False) -> "NoiseGD":
        r"""Configure Algorithm 1 for ``n`` records: every constant from the records, no data.

        Parameters
        ----------
        loss : reference.losses.Loss
            Convex; its declared ``constants.lipschitz`` is the L of line 1 and of the learning rate.
            Sub-gradients are used where it is not differentiable (bst14 Section II, Note (1)).
        domain : reference.domains.Domain
            The convex set C (projection ``domain.project``); bounded for ``schedule="lipschitz"``.
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            Target budget: ``epsilon > 0``, ``0 < delta < 1``.
        schedule : {"lipschitz", "strongly_convex"}
            Learning rate of Theorem II.4 (1) or (2); ``"strongly_convex"`` needs the loss's declared
            ``strong_convexity > 0`` (Delta, per example).
        theta_1 : array_like, shape (p,) or (runs, p), optional
            Line 2's starting point, which must lie in C; by default ``domain.interior_point()``.
        calibration : {"printed", "rigorous", "analytic-chain", "accountant"}
            How sigma is calibrated (``spec.bst14.noise_gd_sigma``); the default is line 1 as printed.
        allow_unproven : bool
            Build the configuration even when its claim is not proven (marked ``unproven-claim``).

        Returns
        -------
        NoiseGD
        """
        check_setting(loss=loss, domain=domain, convex=True)
        n = minimum_records(n, cls.ALGORITHM)
        p = domain.dim
        sched = validate.choice("schedule", schedule, SCHEDULES)
        constants = loss.constants
        lipschitz = constants.lipschitz
        # [bst14 Alg.1 L1] sigma^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta) / epsilon^2 (or another calibration)
        sigma = _spec.noise_gd_sigma(lipschitz=lipschitz, n=n, epsilon=epsilon, delta=delta, calibration=calibration)
        start = start_point("theta_1", theta_1, domain)
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
        eta.setflags(write=False)
        return cls(loss=loss, domain=domain, n=n, p=p, epsilon=float(epsilon), delta=float(delta),
                   options={"schedule": sched, "calibration": calibration, "theta_1": theta_1},
                   spec_ids=SPEC_IDS, flags=(f"{calibration}-calibration",), allow_unproven=allow_unproven,
                   schedule=sched, calibration=calibration, sigma=sigma, steps=int(steps),
                   learning_rates=eta, theta_1=start)._finish()

    def _constants(self) -> tuple[Constant, ...]:
        out = list(super()._constants())
        if self.schedule == "strongly_convex":
            out.append(Constant("strong_convexity", float(self.loss.constants.strong_convexity),
                                f"declared by {self.loss!r} (Delta of the strongly convex schedule)"))
        return tuple(out)

    def _certify(self) -> Certificate:
        if self.calibration != "printed":
            return Certificate(self.claim(), True,
                               f"bst14.thm_II_1, calibration {self.calibration!r}: proven by construction "
                               "(spec.bst14.noise_gd_sigma; its assumptions checked when configuring)")
        eps = _spec.certified_epsilon(n=self.n, delta=self.delta, lipschitz=self.loss.constants.lipschitz,
                                      sigma=self.sigma)
        basis = (f"RDP certificate of the printed sigma over all {self.steps} steps: epsilon {eps:.4g} at delta "
                 f"{self.delta!r} (bst14.thm_II_1, spec.bst14.certified_epsilon)")
        return Certificate(self.claim(), bool(eps <= self.epsilon), basis, alternative="accountant")

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """One per-example gradient per step and run: ``T runs``."""
        return int(self.steps) * int(runs)

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        loss, domain, n, p, sigma, eta, steps = (self.loss, self.domain, self.n, self.p, self.sigma,
                                                 self.learning_rates, self.steps)
        src = noise
        # [bst14 Alg.1 L2] theta_1: any point of C
        theta = broadcast_start("theta_1", self.theta_1, runs=runs)
        theta_1_used = theta.copy()
        # the data were validated once (check_data); the loop uses the loss's and domain's unchecked
        # hooks (the same arithmetic as gradient()/project(), without per-step input checks)
        x_rows, y_rows = loss.split(rows)
        keep = transcript is True
        if keep:
            g_hist = np.empty((steps, runs, p))
            theta_hist = np.empty((steps, runs, p))
        for t in range(1, steps + 1):
            # [bst14 Alg.1 L4] pick d uniformly from D, with replacement (one index per run)
            index = src.integers(LABEL_INDEX, n, (runs,))
            # [bst14 Alg.1 L5] b_t ~ N(0, sigma^2 I_p)
            b = sigma * src.normal(LABEL_NOISE, (runs, p))
            # [bst14 Alg.1 L5] G_t = n grad l(theta_t; d) + b_t  (a sub-gradient where not differentiable)
            g = n * loss.gradient_unchecked(theta, x_rows[index], None if y_rows is None else y_rows[index]) + b
            # [bst14 Alg.1 L5] theta_{t+1} = Pi_C(theta_t - eta(t) G_t)
            theta = domain.project_unchecked(theta - eta[t - 1] * g)
            if keep:
                g_hist[t - 1] = g
                theta_hist[t - 1] = theta
            elif transcript is not None:
                transcript(t, {"G": g.copy(), "theta": theta.copy(), "eta": float(eta[t - 1])})
            progress(t, steps)
        # [bst14 Alg.1 L6] output theta_{n^2}
        return dict(theta=theta, sigma=sigma, steps=steps, schedule=self.schedule, calibration=self.calibration,
                    learning_rates=eta, theta_1=theta_1_used,
                    transcript={"G": g_hist, "theta": theta_hist} if keep else None)


def noise_gd(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, delta: float, schedule: str,
             runs: int = 1, theta_1: ArrayLike | None = None, calibration: str = "printed",
             rng: RngLike = None, noise: NoiseLike = None,
             transcript: Callable[[int, dict[str, np.ndarray | float]], object] | Literal[True] | None = None,
             ) -> NoiseGDResult:
    r"""Algorithm 1, A_Noise-GD: :meth:`NoiseGD.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (checked once; :class:`DataBoundError`), n >= 2.
    loss, domain, epsilon, delta, schedule, theta_1, calibration
        As in :meth:`NoiseGD.configure`.
    runs : int
        Independent executions (shared data).
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
    ``bst14.thm_II_1`` (see :class:`NoiseGD`; this wrapper does not refuse an unproven printed sigma).

    Utility
    -------
    ``bst14.thm_II_4``.
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = NoiseGD.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta, schedule=schedule,
                                   theta_1=theta_1, calibration=calibration, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
