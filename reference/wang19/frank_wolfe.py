"""wang19 Algorithm 2 (DP-FW-L2): Frank-Wolfe with Gaussian noise on the gradient, line for line and
batched over runs.

The noisy gradient of DP-PGD goes into the linear minimisation oracle of C (``domain.lmo``, exact and
deterministic, ties broken by the domain's fixed rule); the step size and ``T`` are ``wang19.thm_4``
formulas of the public geometry (the l2 diameter ``||C||_2`` and the Gaussian width ``G_C`` of
``wang19.def_8``), never of the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from reference.arrays import ArrayLike
from reference.configured import minimum_records, quantity
from reference.domains import Domain
from reference.losses import Loss
from reference.problem import broadcast_start, check_problem, check_setting, start_point
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import NoiseLike
from reference.wang19.common import (
    require_tuning_inputs,
    RandomIterateBox,
    RandomIterateResult,
    Trajectory,
    Transcript,
    cap,
    check_steps,
    gaussian_width,
    noise_sigma,
)
from spec import validate
from spec import wang19 as _spec
from spec.errors import ParameterError

__all__ = ["DPFWL2Result", "FrankWolfe", "dp_fw_l2", "constants", "SPEC_IDS", "LABEL_NOISE", "LABEL_INDEX", "STEP_RULES",
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


@dataclass(frozen=True, kw_only=True, eq=False)
class FrankWolfe(RandomIterateBox):
    r"""Algorithm 2, DP-FW-L2, configured: T, sigma, gamma and G_C, before any data.

    Privacy
    -------
    ``wang19.alg_2`` (``wang19.eq_3``): the noisy gradients are those of DP-PGD, (epsilon, delta)-DP under
    replace-one; ``v_t``, ``x_{t+1}`` and ``x_R`` are post-processing.

    Utility
    -------
    ``wang19.thm_4``: ``E[G_R]``, the Frank-Wolfe gap at ``x_R``.
    """

    ALGORITHM: ClassVar[str] = "wang19.alg_2"
    RESULT: ClassVar[type] = DPFWL2Result

    calibration: str = "zcdp"
    sigma: float = quantity("per-coordinate noise standard deviation (step 2)", source="wang19.eq_3")
    gaussian_width: float = quantity("G_C, the Gaussian width of C (nan when not needed)", source="wang19.def_8")

    def privacy_record(self) -> str:
        return "wang19.eq_3"

    @classmethod
    def configure(cls, *, loss: Loss, domain: Domain, n: int, epsilon: float, delta: float,
                  steps: int | str = "paper", learning_rate: str = "paper", x_1: ArrayLike | None = None,
                  calibration: str = "zcdp", initial_gap: float | None = None,
                  allow_unproven: bool = False) -> "FrankWolfe":
        r"""Configure Algorithm 2 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            ``G = loss.constants.lipschitz`` sets the noise; smooth for the utility claim (Assumption 1).
        domain : reference.domains.Domain
            A bounded C with a Gaussian-width formula (``reference.wang19.common.gaussian_width``) for the
            paper's rules.
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            The target budget.
        steps : {"paper", "tuned"} or int
            ``wang19.thm_4`` formula ``steps`` or ``steps_tuned`` (needs ``initial_gap`` and L > 0), or a
            public integer.
        learning_rate : {"paper", "tuned"}
            ``wang19.thm_4`` formula ``learning_rate`` (the default) or ``learning_rate_tuned``.
        x_1 : array_like, shape (p,) or (runs, p), optional
            A public start point in C; by default ``domain.interior_point()``.
        calibration : {"zcdp", "rdp", "rdp-mironov", "exact"}
            The noise calibration (``spec.wang19.sigma``).
        initial_gap : float, optional
            A public ``h_0``, for the tuned rules.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        FrankWolfe
        """
        check_setting(loss=loss, domain=domain, convex=False)
        n = minimum_records(n, cls.ALGORITHM)
        t, sigma, gamma, width = constants(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta, steps=steps,
                                           learning_rate=learning_rate, calibration=calibration,
                                           initial_gap=initial_gap)
        return cls(loss=loss, domain=domain, n=n, p=domain.dim, epsilon=float(epsilon), delta=float(delta),
                   options={"steps": steps, "learning_rate": learning_rate, "x_1": x_1, "calibration": calibration,
                            "initial_gap": initial_gap},
                   spec_ids=SPEC_IDS, flags=(f"{calibration}-calibration",),
                   notes=cls.default_notes(steps, t, "wang19.thm_4"), allow_unproven=allow_unproven,
                   x_1=start_point("x_1", x_1, domain), steps=t, learning_rate=gamma, calibration=calibration,
                   sigma=sigma, gaussian_width=np.nan if width is None else width)._finish()

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, loss, domain, p = noise, self.loss, self.domain, self.p
        steps, sigma, gamma = self.steps, self.sigma, self.learning_rate
        x = broadcast_start("x_1", self.x_1, runs=runs)
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
            progress(t, steps)
        # [wang19 Alg.2 L4] end for
        track.check_complete()

        # [wang19 Alg.2 L5] return x_R
        return dict(theta=track.x, index=index, x_next=track.x_next, steps=steps, learning_rate=gamma, x_1=x_first,
                    transcript=track.stacked(), sigma=sigma, calibration=self.calibration,
                    gaussian_width=self.gaussian_width)


def dp_fw_l2(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, delta: float,
             steps: int | str = "paper", learning_rate: str = "paper", runs: int = 1,
             x_1: ArrayLike | None = None, calibration: str = "zcdp", initial_gap: float | None = None,
             rng: RngLike = None, noise: NoiseLike = None, transcript: Transcript = None) -> DPFWL2Result:
    r"""Algorithm 2, DP-FW-L2: :meth:`FrankWolfe.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds.
    loss, domain, epsilon, delta, steps, learning_rate, x_1, calibration, initial_gap
        As in :meth:`FrankWolfe.configure`.
    runs : int
        Independent executions (shared data).
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
    ``wang19.alg_2`` (``wang19.eq_3``).

    Utility
    -------
    ``wang19.thm_4``: ``E[G_R]``, the Frank-Wolfe gap at ``x_R``.
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain, convex=False)
    configured = FrankWolfe.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta, steps=steps,
                                      learning_rate=learning_rate, x_1=x_1, calibration=calibration,
                                      initial_gap=initial_gap, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
