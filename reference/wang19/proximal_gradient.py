"""wang19 Algorithm 1 (DP-PGD): differentially private proximal gradient descent, line for line and
batched over runs.

Conventions (wang19): ``F(x) = (1/n) sum_i f(x, z_i)`` (the average), replace-one neighbours, ``G`` the
Lipschitz and ``L`` the smoothness constant of the loss (``loss.constants.lipschitz`` and
``.smoothness``), ``r`` a convex regulariser handled by its prox, C the domain. Every constant is a
:mod:`spec.wang19` formula evaluated from public values.

Batching. ``runs`` independent executions share the data set; states have shape ``(runs, p)``. The
draws are standardised and labelled with the pseudocode line that consumes them
(:data:`LABEL_NOISE`, :data:`LABEL_INDEX`); the scaling is written in the code, so a
:class:`~reference.tape.NoiseTape` replays in any language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from reference.arrays import ArrayLike
from reference.configured import minimum_records, quantity
from reference.domains import Domain
from reference.losses import L1Regulariser, Loss, Regulariser
from reference.problem import broadcast_start, check_problem, check_setting, start_point
from reference.proximal import prox_unchecked
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import NoiseLike
from reference.wang19.common import (
    RandomIterateBox,
    RandomIterateResult,
    Trajectory,
    Transcript,
    check_steps,
    noise_sigma,
)
from spec import wang19 as _spec
from spec.errors import AssumptionError

__all__ = ["DPPGDResult", "ProximalGradient", "dp_pgd", "constants", "SPEC_IDS", "LABEL_NOISE", "LABEL_INDEX", "STEP_RULES"]

#: The records whose formulas and claims Algorithm 1 uses.
SPEC_IDS = ("wang19.alg_1", "wang19.eq_3", "wang19.thm_1", "wang19.thm_2")

#: Tape labels (the planted twins and the vectors use these names).
LABEL_NOISE = "wang19 Alg.1 L2 eps_k"
LABEL_INDEX = "wang19 Alg.1 L5 R"

#: Rules for T: the paper's ``n epsilon/sqrt(p ln(1/delta))`` or the minimiser of the explicit bound.
STEP_RULES = ("paper", "tuned")


@dataclass(frozen=True)
class DPPGDResult(RandomIterateResult, AlgorithmResult):
    """Output of :func:`dp_pgd`: :class:`~reference.wang19.common.RandomIterateResult` plus

    Attributes
    ----------
    sigma : float
        Per-coordinate noise standard deviation (step 3).
    calibration : str
        The sigma calibration (``spec.wang19.sigma``).

    The transcript (``transcript=True``) holds ``"noisy_gradient"`` (``grad F(x_k) + eps_k``) and
    ``"x"`` (``x_{k+1}``), each of shape ``(T, runs, p)``.
    """

    sigma: float = 0.0
    calibration: str = "zcdp"


def constants(*, loss: Loss, n: int, dimension: int, epsilon: float, delta: float, steps: int | str = "paper",
              calibration: str = "zcdp", initial_gap: float | None = None) -> tuple[int, float, float]:
    """``(T, sigma, gamma)`` of Algorithm 1 from the records (what :func:`dp_pgd` uses).

    ``steps``: ``"paper"`` (``wang19.thm_2`` formula ``steps``), ``"tuned"`` (``steps_tuned``, needs a public
    ``initial_gap >= F^r(x_1) - inf_C F^r``) or a public integer. ``gamma = 1/(2L)`` (``learning_rate``) needs
    ``L > 0``.
    """
    c = loss.constants
    if not c.smoothness > 0 or not np.isfinite(c.smoothness):
        raise AssumptionError(
            f"loss smoothness ({c.smoothness!r}) must be finite and > 0: DP-PGD's step is 1/(2L) (wang19.thm_2)"
        )
    rule = check_steps(steps, STEP_RULES)
    if rule == "paper":
        t = _spec.THM_2.evaluate("steps", n=n, epsilon=epsilon, delta=delta, dimension=dimension)
    elif rule == "tuned":
        if initial_gap is None:
            raise AssumptionError("initial_gap (None) must be a public bound h_0 for steps='tuned'")
        t = _spec.THM_2.evaluate("steps_tuned", n=n, epsilon=epsilon, delta=delta, dimension=dimension,
                                 lipschitz=c.lipschitz, smoothness=c.smoothness, initial_gap=initial_gap)
    else:
        t = rule
    t = int(t)
    sigma = noise_sigma(lipschitz=c.lipschitz, n=n, epsilon=epsilon, delta=delta, steps=t, calibration=calibration)
    gamma = _spec.THM_2.evaluate("learning_rate", smoothness=c.smoothness)
    return t, sigma, gamma


@dataclass(frozen=True, kw_only=True, eq=False)
class ProximalGradient(RandomIterateBox):
    r"""Algorithm 1, DP-PGD, configured: T, sigma and gamma, before any data.

    Privacy
    -------
    ``wang19.thm_1`` / ``wang19.eq_3``: the transcript of the ``T`` noisy gradients is (epsilon,
    delta)-DP under replace-one (exact profile: ``spec.wang19.transcript_profile``); ``x_R`` and
    ``x_{R+1}`` are post-processing (``R`` does not depend on the data).

    Utility
    -------
    ``wang19.thm_2``: ``E||g_{C,R}||_2``, ``g_{C,R} = (x_R - x_{R+1})/gamma``.
    """

    ALGORITHM: ClassVar[str] = "wang19.alg_1"
    RESULT: ClassVar[type] = DPPGDResult

    calibration: str = "zcdp"
    sigma: float = quantity("per-coordinate noise standard deviation (step 3)",
                            source="wang19.eq_3 via spec.wang19.sigma")

    def privacy_record(self) -> str:
        return "wang19.eq_3"

    @classmethod
    def configure(cls, *, loss: Loss, domain: Domain, n: int, epsilon: float, delta: float,
                  regulariser: Regulariser | None = None, steps: int | str = "paper", x_1: ArrayLike | None = None,
                  calibration: str = "zcdp", initial_gap: float | None = None,
                  allow_unproven: bool = False) -> "ProximalGradient":
        r"""Configure Algorithm 1 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            Smooth (``0 < L < inf``), possibly non-convex (Assumption 1); ``G = loss.constants.lipschitz``.
        domain : reference.domains.Domain
            The closed convex set C.
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            The target budget (``epsilon > 0``, ``0 < delta < 1``).
        regulariser : reference.losses.Regulariser, optional
            The convex ``r`` (e.g. ``L1Regulariser``), handled by its prox; ``None`` for r = 0.
        steps : {"paper", "tuned"} or int
            T: the paper's ``n epsilon/sqrt(p ln(1/delta))``, the minimiser of the explicit bound (needs
            ``initial_gap``), or a public integer.
        x_1 : array_like, shape (p,) or (runs, p), optional
            A public start point in C; by default ``domain.interior_point()``.
        calibration : {"zcdp", "rdp", "rdp-mironov", "exact"}
            Step 3's sigma (``spec.wang19.sigma``); the default is the corrected step 3.
        initial_gap : float, optional
            A public ``h_0 >= F^r(x_1) - inf_C F^r``, for ``steps="tuned"``.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        ProximalGradient
        """
        check_setting(loss=loss, domain=domain, convex=False)
        n = minimum_records(n, cls.ALGORITHM)
        if regulariser is not None and not isinstance(regulariser, Regulariser):
            raise TypeError(f"regulariser ({type(regulariser).__name__}) must be a reference.losses.Regulariser or None")
        # [wang19 Alg.1 L3] rho with rho + 2 sqrt(rho ln(1/delta)) = epsilon; sigma^2 = 2 G^2 T/(n^2 rho)
        # (computed once, before the loop: sigma depends only on G, n, epsilon, delta, T); gamma = 1/(2L)
        t, sigma, gamma = constants(loss=loss, n=n, dimension=domain.dim, epsilon=epsilon, delta=delta, steps=steps,
                                    calibration=calibration, initial_gap=initial_gap)
        flags = [f"{calibration}-calibration"] + (["regulariser-l1"] if isinstance(regulariser, L1Regulariser) else [])
        return cls(loss=loss, domain=domain, regulariser=regulariser, n=n, p=domain.dim, epsilon=float(epsilon),
                   delta=float(delta), options={"steps": steps, "x_1": x_1, "calibration": calibration,
                                                "initial_gap": initial_gap},
                   spec_ids=SPEC_IDS, flags=tuple(flags), notes=cls.default_notes(steps, t, "wang19.thm_2"),
                   allow_unproven=allow_unproven, x_1=start_point("x_1", x_1, domain), steps=t, learning_rate=gamma,
                   calibration=calibration, sigma=sigma)._finish()

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, loss, domain, regulariser, p = noise, self.loss, self.domain, self.regulariser, self.p
        steps, sigma, gamma = self.steps, self.sigma, self.learning_rate
        x = broadcast_start("x_1", self.x_1, runs=runs)
        x_first = x.copy()

        # [wang19 Alg.1 L5] R uniform on {1, ..., T}, independent of the data (drawn first; see Trajectory)
        index = src.integers(LABEL_INDEX, steps, (runs,)) + 1
        track = Trajectory(x, index, steps, transcript, "noisy_gradient")
        for k in range(1, steps + 1):  # [wang19 Alg.1 L1] for k = 1, ..., T
            # [wang19 Alg.1 L2] eps_k ~ N(0, sigma^2 I_p); the released noisy gradient grad F(x_k) + eps_k
            g = loss.total_gradient(x, rows, normalisation="average", check=False) + sigma * src.normal(LABEL_NOISE, (runs, p))
            # [wang19 Alg.1 L2] x_{k+1} = argmin_u <g, u> + ||u - x_k||^2/(2 gamma) + r(u) = prox(x_k - gamma g)
            x = prox_unchecked(x - gamma * g, gamma, domain, regulariser)
            track.step(k, g, x)
            progress(k, steps)
        # [wang19 Alg.1 L4] end for
        track.check_complete()

        # [wang19 Alg.1 L5] return x_R (and x_{R+1} for the gradient mapping)
        return dict(theta=track.x, index=index, x_next=track.x_next, steps=steps, learning_rate=gamma, x_1=x_first,
                    transcript=track.stacked(), sigma=sigma, calibration=self.calibration)


def dp_pgd(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, delta: float,
           regulariser: Regulariser | None = None, steps: int | str = "paper", runs: int = 1,
           x_1: ArrayLike | None = None, calibration: str = "zcdp", initial_gap: float | None = None,
           rng: RngLike = None, noise: NoiseLike = None, transcript: Transcript = None) -> DPPGDResult:
    r"""Algorithm 1, DP-PGD: :meth:`ProximalGradient.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (checked once; rejected, never clipped), n >= 2.
    loss, domain, epsilon, delta, regulariser, steps, x_1, calibration, initial_gap
        As in :meth:`ProximalGradient.configure`.
    runs : int
        Independent executions (shared data).
    rng, noise
        Randomness (:func:`reference.tape.noise_source`). The tape gets an ``integers`` entry
        ``"wang19 Alg.1 L5 R"`` (``high = T``, shape ``(runs,)``; ``R`` is that plus one), then per step a
        ``normal`` entry ``"wang19 Alg.1 L2 eps_k"`` of shape ``(runs, p)``.
    transcript : callable or True, optional
        A callable ``transcript(k, state)`` gets ``state = {"noisy_gradient": grad F(x_k) + eps_k, "x":
        x_{k+1}}`` after every step (the released quantities); ``True`` stacks them on the result.

    Returns
    -------
    DPPGDResult

    Privacy
    -------
    ``wang19.thm_1`` / ``wang19.eq_3``.

    Utility
    -------
    ``wang19.thm_2``: ``E||g_{C,R}||_2``, ``g_{C,R} = (x_R - x_{R+1})/gamma``.
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain, convex=False)
    configured = ProximalGradient.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta,
                                            regulariser=regulariser, steps=steps, x_1=x_1, calibration=calibration,
                                            initial_gap=initial_gap, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
