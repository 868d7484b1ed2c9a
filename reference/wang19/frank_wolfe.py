"""wang19 Algorithm 2 (DP-FW-L2): Frank-Wolfe with Gaussian noise on the gradient, line for line and
batched over runs.

The noisy gradient of DP-PGD goes into the linear minimisation oracle of C (``domain.lmo``, exact and
deterministic, ties broken by the domain's fixed rule); the step size and ``T`` are ``wang19.thm_4``
formulas of the public geometry (the l2 diameter ``||C||_2`` and the Gaussian width ``G_C`` of
``wang19.def_8``), never of the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reference import arrays
from reference.arrays import ArrayLike
from reference.domains import Domain
from reference.losses import Loss
from reference.problem import check_problem
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import NoiseLike, noise_source
from reference.wang19.common import (
    require_tuning_inputs,
    RandomIterateResult,
    Trajectory,
    Transcript,
    cap,
    check_steps,
    check_transcript,
    gaussian_width,
    noise_sigma,
    start_point,
)
from spec import validate
from spec import wang19 as _spec
from spec.errors import ParameterError

__all__ = ["DPFWL2Result", "dp_fw_l2", "constants", "SPEC_IDS", "LABEL_NOISE", "LABEL_INDEX", "STEP_RULES",
           "RATE_RULES"]

#: The records whose formulas and claims Algorithm 2 uses.
SPEC_IDS = ("wang19.alg_2", "wang19.eq_3", "wang19.thm_4", "wang19.def_8")

LABEL_NOISE = "wang19 Alg.2 L2 eps_t"
LABEL_INDEX = "wang19 Alg.2 L5 R"

STEP_RULES = ("paper", "tuned")
#: ``"paper"``: Theorem 4's gamma (fourth root repaired, capped at 1); ``"tuned"``: sqrt(2 h_0/(L T))/||C||_2.
RATE_RULES = ("paper", "tuned")


@dataclass(frozen=True)
class DPFWL2Result(RandomIterateResult, AlgorithmResult):
    """Output of :func:`dp_fw_l2`: :class:`~reference.wang19.common.RandomIterateResult` plus ``sigma``,
    ``calibration`` and ``gaussian_width`` (the ``G_C`` used). The transcript holds ``"noisy_gradient"``
    and ``"x"`` (``x_{t+1}``), shape ``(T, runs, p)``."""

    sigma: float = 0.0
    calibration: str = "zcdp"
    gaussian_width: float = 0.0


def constants(*, loss: Loss, domain: Domain, n: int, epsilon: float, delta: float, steps: int | str = "paper",
              learning_rate: str = "paper", calibration: str = "zcdp",
              initial_gap: float | None = None) -> tuple[int, float, float, float | None]:
    """``(T, sigma, gamma, G_C)`` of Algorithm 2 from ``wang19.thm_4``, ``wang19.eq_3`` and ``wang19.def_8``."""
    if not domain.bounded:
        raise ParameterError(f"domain ({domain!r}) must be bounded (Frank-Wolfe needs a linear minimisation oracle)")
    c = loss.constants
    rule = check_steps(steps, STEP_RULES)
    rate = validate.choice("learning_rate", learning_rate, set(RATE_RULES))
    diameter = domain.diameter
    width = gaussian_width(domain) if isinstance(rule, str) or rate == "paper" else None
    geometry = {"diameter": diameter, "gaussian_width": width}
    if rule == "paper":
        t = _spec.THM_4.evaluate("steps", n=n, epsilon=epsilon, delta=delta, **geometry)
    elif rule == "tuned":
        require_tuning_inputs(initial_gap, c.smoothness)
        t = _spec.THM_4.evaluate("steps_tuned", n=n, epsilon=epsilon, delta=delta, lipschitz=c.lipschitz,
                                 smoothness=c.smoothness, initial_gap=initial_gap, **geometry)
    else:
        t = rule
    t = int(t)
    sigma = noise_sigma(lipschitz=c.lipschitz, n=n, epsilon=epsilon, delta=delta, steps=t, calibration=calibration)
    if rate == "paper":
        gamma = _spec.THM_4.evaluate("learning_rate", n=n, epsilon=epsilon, delta=delta, **geometry)
    else:
        require_tuning_inputs(initial_gap, c.smoothness)
        gamma = _spec.THM_4.evaluate("learning_rate_tuned", initial_gap=initial_gap, smoothness=c.smoothness,
                                     steps=t, diameter=diameter)
    return t, sigma, cap(gamma), width


def dp_fw_l2(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, delta: float,
             steps: int | str = "paper", learning_rate: str = "paper", runs: int = 1,
             x_1: ArrayLike | None = None, calibration: str = "zcdp", initial_gap: float | None = None,
             rng: RngLike = None, noise: NoiseLike = None, transcript: Transcript = None) -> DPFWL2Result:
    r"""Algorithm 2, DP-FW-L2.

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds.
    loss : reference.losses.Loss
        ``G = loss.constants.lipschitz`` sets the noise; smooth for the utility claim (Assumption 1).
    domain : reference.domains.Domain
        Bounded C with a Gaussian-width formula (:func:`reference.wang19.common.gaussian_width`) for the
        paper's rules.
    epsilon, delta : float
        Target budget.
    steps : {"paper", "tuned"} or int
        ``wang19.thm_4`` formula ``steps`` or ``steps_tuned`` (needs ``initial_gap`` and ``L > 0``), or a
        public integer.
    learning_rate : {"paper", "tuned"}
        ``wang19.thm_4`` formula ``learning_rate`` (default) or ``learning_rate_tuned``.
    runs, x_1, calibration, initial_gap
        As in :func:`reference.wang19.dp_pgd`.
    rng, noise
        The tape gets ``integers`` ``"wang19 Alg.2 L5 R"`` (``high = T``, ``(runs,)``), then per step
        ``normal`` ``"wang19 Alg.2 L2 eps_t"`` of shape ``(runs, p)``.
    transcript : callable or True, optional
        ``state = {"noisy_gradient": grad F(x_t) + eps_t, "x": x_{t+1}}`` after every step.

    Returns
    -------
    DPFWL2Result

    Privacy
    -------
    ``wang19.alg_2`` (``wang19.eq_3``): the noisy gradients are those of DP-PGD, (epsilon, delta)-DP under
    replace-one; ``v_t``, ``x_{t+1}`` and ``x_R`` are post-processing.

    Utility
    -------
    ``wang19.thm_4``: ``E[G_R]``, the Frank-Wolfe gap at ``x_R``.
    """
    rows, n, p = check_problem(data, loss=loss, domain=domain, convex=False)
    runs = arrays.runs(runs)
    check_transcript(transcript)
    src = noise_source(rng=rng, noise=noise)
    steps, sigma, gamma, width = constants(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta, steps=steps,
                                           learning_rate=learning_rate, calibration=calibration,
                                           initial_gap=initial_gap)
    x = start_point(domain, x_1, runs=runs)
    x_first = x.copy()

    # [wang19 Alg.2 L5] R uniform on {1, ..., T}, independent of the data (drawn first)
    index = src.integers(LABEL_INDEX, steps, (runs,)) + 1
    track = Trajectory(x, index, steps, transcript, "noisy_gradient")
    for t in range(1, steps + 1):  # [wang19 Alg.2 L1] for t = 1, ..., T
        # [wang19 Alg.2 L2] eps_t ~ N(0, sigma^2 I_p); v_t = argmax_{v in C} <v, -(grad F(x_t) + eps_t)>
        g = loss.total_gradient(x, rows, normalisation="average", check=False) + sigma * src.normal(LABEL_NOISE, (runs, p))
        v = domain.lmo(g)
        # [wang19 Alg.2 L3] x_{t+1} = x_t + gamma_t (v_t - x_t)
        x = x + gamma * (v - x)
        track.step(t, g, x)
    # [wang19 Alg.2 L4] end for
    track.check_complete()

    # [wang19 Alg.2 L5] return x_R
    return DPFWL2Result(
        x=track.x, index=index, x_next=track.x_next, steps=steps, learning_rate=gamma, x_1=x_first,
        transcript=track.stacked(), sigma=sigma, calibration=calibration,
        gaussian_width=np.nan if width is None else width, spec_ids=SPEC_IDS, seed=src.seed,
    )
