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

import numpy as np

from reference import arrays
from reference.arrays import ArrayLike
from reference.domains import Domain
from reference.losses import Loss, Regulariser
from reference.problem import check_problem
from reference.proximal import prox_unchecked
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import NoiseLike, noise_source
from reference.wang19.common import (
    RandomIterateResult,
    Trajectory,
    Transcript,
    check_steps,
    check_transcript,
    noise_sigma,
    start_point,
)
from spec import wang19 as _spec
from spec.errors import AssumptionError

__all__ = ["DPPGDResult", "dp_pgd", "constants", "SPEC_IDS", "LABEL_NOISE", "LABEL_INDEX", "STEP_RULES"]

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


def dp_pgd(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, delta: float,
           regulariser: Regulariser | None = None, steps: int | str = "paper", runs: int = 1,
           x_1: ArrayLike | None = None, calibration: str = "zcdp", initial_gap: float | None = None,
           rng: RngLike = None, noise: NoiseLike = None, transcript: Transcript = None) -> DPPGDResult:
    r"""Algorithm 1, DP-PGD.

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (checked once; rejected, never clipped).
    loss : reference.losses.Loss
        Smooth (``0 < L < inf``), possibly non-convex (Assumption 1). ``G = loss.constants.lipschitz``.
    domain : reference.domains.Domain
        The closed convex set C.
    epsilon, delta : float
        Target budget (``epsilon > 0``, ``0 < delta < 1``).
    regulariser : reference.losses.Regulariser, optional
        The convex ``r`` (e.g. ``L1Regulariser``); ``None`` for ``r = 0``. Handled by
        :func:`reference.proximal.prox` (closed forms, or the certified numerical prox).
    steps : {"paper", "tuned"} or int
        ``T`` (:func:`constants`).
    runs : int
        Independent executions (shared data).
    x_1 : array_like, shape (p,) or (runs, p), optional
        Public start point in C; default ``domain.interior_point()``.
    calibration : {"zcdp", "rdp", "rdp-mironov", "exact"}
        Step 3's sigma (:func:`spec.wang19.sigma`; default ``"zcdp"``, the corrected step 3).
    initial_gap : float, optional
        Public ``h_0`` for ``steps="tuned"``.
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
    ``wang19.thm_1`` / ``wang19.eq_3``: the transcript of the ``T`` noisy gradients is (epsilon,
    delta)-DP under replace-one (exact profile: ``spec.wang19.transcript_profile``); ``x_R`` and
    ``x_{R+1}`` are post-processing (``R`` does not depend on the data).

    Utility
    -------
    ``wang19.thm_2``: ``E||g_{C,R}||_2``, ``g_{C,R} = (x_R - x_{R+1})/gamma``.
    """
    rows, n, p = check_problem(data, loss=loss, domain=domain, convex=False)
    runs = arrays.runs(runs)
    if regulariser is not None and not isinstance(regulariser, Regulariser):
        raise TypeError(f"regulariser ({type(regulariser).__name__}) must be a reference.losses.Regulariser or None")
    check_transcript(transcript)
    src = noise_source(rng=rng, noise=noise)

    # [wang19 Alg.1 L3] rho with rho + 2 sqrt(rho ln(1/delta)) = epsilon; sigma^2 = 2 G^2 T/(n^2 rho)
    # (computed once, before the loop: sigma depends only on G, n, epsilon, delta, T); gamma = 1/(2L)
    steps, sigma, gamma = constants(loss=loss, n=n, dimension=p, epsilon=epsilon, delta=delta, steps=steps,
                                    calibration=calibration, initial_gap=initial_gap)
    x = start_point(domain, x_1, runs=runs)
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
    # [wang19 Alg.1 L4] end for
    track.check_complete()

    # [wang19 Alg.1 L5] return x_R (and x_{R+1} for the gradient mapping)
    return DPPGDResult(
        x=track.x, index=index, x_next=track.x_next, steps=steps, learning_rate=gamma, x_1=x_first,
        transcript=track.stacked(), sigma=sigma, calibration=calibration, spec_ids=SPEC_IDS, seed=src.seed,
    )
