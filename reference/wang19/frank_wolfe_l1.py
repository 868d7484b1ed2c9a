r"""wang19 Algorithm 4 (DP-FW-L1): Frank-Wolfe over the convex hull of a finite set A with the exponential
mechanism as the linear oracle; line for line and batched over runs.

Step 2 was lost in extraction; ``wang19.alg_4`` reconstructs it: the range is A (the ``2p`` vertices
``+-r e_i`` of the l1 ball of radius r, or the ``p`` vertices ``s e_i`` of the simplex of scale s), the score
``u(D, v) = <v, -grad F(x_t; D)>`` and the coefficient ``c = epsilon_0 n/(2 G D_1)`` (``coefficient_at``; ``D_1``
the l1 diameter of A). ``x~_t`` is drawn exactly by the Gumbel-max trick
(:class:`reference.samplers.ExponentialMechanism`). The per-step budget ``epsilon_0`` is Lemma 1's
(``wang19.thm_6`` formula ``epsilon_step``, the default) or the zCDP one (``wang19.alg_4``
``epsilon_step_zcdp``, valid for every epsilon).

The Lipschitz constant of Assumption 4 (l1 norm: ``||grad f||_inf <= G``) is taken as the loss's declared
l2 constant ``loss.constants.lipschitz``, which bounds ``||grad f||_2 >= ||grad f||_inf``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from reference.arrays import ArrayLike
from reference.configured import minimum_records, quantity
from reference.domains import Domain
from reference.losses import Loss
from reference.domains import L1Ball, Simplex
from reference.problem import broadcast_start, check_problem, check_setting, start_point
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.samplers import ExponentialMechanism
from reference.tape import NoiseLike
from reference.wang19.common import (
    require_tuning_inputs,
    RandomIterateBox,
    RandomIterateResult,
    Trajectory,
    Transcript,
    cap,
    check_steps,
    l1_diameter,
)
from spec import validate
from spec import wang19 as _spec
from spec.errors import ParameterError

__all__ = ["DPFWL1Result", "FrankWolfeL1", "dp_fw_l1", "constants", "vertices", "scores", "SPEC_IDS", "LABEL_SELECT",
           "LABEL_INDEX", "STEP_RULES", "RATE_RULES", "COMPOSITIONS"]

#: The records whose formulas and claims Algorithm 4 uses.
SPEC_IDS = ("wang19.alg_4", "wang19.thm_6", "wang19.lemma_1", "wang19.lemma_3")

LABEL_SELECT = "wang19 Alg.4 L2 exponential mechanism"
LABEL_INDEX = "wang19 Alg.4 L5 R"

STEP_RULES = ("paper", "tuned")
RATE_RULES = ("paper", "tuned")
#: Per-step budget: Lemma 1 (advanced composition; epsilon < 1) or zCDP (every epsilon).
COMPOSITIONS = ("lemma_1", "zcdp")


@dataclass(frozen=True)
class DPFWL1Result(RandomIterateResult, AlgorithmResult):
    """Output of :func:`dp_fw_l1`: :class:`~reference.wang19.common.RandomIterateResult` plus

    Attributes
    ----------
    epsilon_step : float
        ``epsilon_0``.
    coefficient : float
        ``c`` of the exponential mechanism.
    candidates : int
        ``|A|``.
    composition : str
        ``"lemma_1"`` or ``"zcdp"``.

    The transcript holds ``"selected"`` (the index of ``x~_t`` in :func:`vertices`, shape ``(T, runs)``)
    and ``"x"`` (``x_{t+1}``, ``(T, runs, p)``).
    """

    epsilon_step: float = 0.0
    coefficient: float = 0.0
    candidates: int = 0
    composition: str = "lemma_1"


def vertices(domain: Domain) -> np.ndarray:
    """A as rows: ``+r e_1, ..., +r e_p, -r e_1, ..., -r e_p`` (l1 ball) or ``s e_1, ..., s e_p`` (simplex)."""
    p = domain.dim
    if isinstance(domain, L1Ball):
        eye = domain.radius * np.eye(p)
        return np.concatenate([eye, -eye])
    if isinstance(domain, Simplex):
        return domain.scale * np.eye(p)
    raise ParameterError(f"domain ({domain!r}) must be an L1Ball or a Simplex (the convex hull of a finite A)")


def scores(domain: Domain, gradient: np.ndarray) -> np.ndarray:
    """``u(D, v) = <v, -grad F>`` for every ``v`` of :func:`vertices`: shape ``(..., |A|)``."""
    if isinstance(domain, L1Ball):
        r = domain.radius
        return np.concatenate([-r * gradient, r * gradient], axis=-1)
    return -domain.scale * gradient


def constants(*, loss: Loss, domain: Domain, n: int, epsilon: float, delta: float, steps: int | str = "paper",
              learning_rate: str = "paper", composition: str = "lemma_1", failure_probability: float = 0.1,
              initial_gap: float | None = None) -> tuple[int, float, float, float, int]:
    """``(T, epsilon_0, c, gamma, |A|)`` of Algorithm 4 from ``wang19.thm_6`` and ``wang19.alg_4``."""
    c = loss.constants
    p = domain.dim
    d1 = l1_diameter(domain)
    if isinstance(domain, L1Ball):
        a = int(_spec.ALG_4.evaluate("candidates_l1_ball", dimension=p))
    else:
        a = p  # the simplex's vertices e_1..e_p (wang19.alg_4 notes)
    comp = validate.choice("composition", composition, set(COMPOSITIONS))
    rule = check_steps(steps, STEP_RULES)
    rate = validate.choice("learning_rate", learning_rate, set(RATE_RULES))
    diameter = domain.diameter
    # Theorem 6's assumptions (epsilon < 1, ln(1/delta) >= epsilon/2) are Lemma 1's: the zCDP route needs none
    strict = comp == "lemma_1"
    if rule == "paper":
        t = _spec.THM_6.evaluate("steps", n=n, epsilon=epsilon, delta=delta, candidates=a,
                                 failure_probability=failure_probability, check=strict)
    elif rule == "tuned":
        require_tuning_inputs(initial_gap, c.smoothness)
        t = _spec.THM_6.evaluate("steps_tuned", n=n, epsilon=epsilon, delta=delta, candidates=a, diameter=diameter,
                                 l1_diameter=d1, lipschitz=c.lipschitz, smoothness=c.smoothness,
                                 initial_gap=initial_gap, check=strict)
    else:
        t = rule
    t = int(t)
    if comp == "lemma_1":
        eps0 = _spec.THM_6.evaluate("epsilon_step", epsilon=epsilon, delta=delta, steps=t)
    else:
        eps0 = _spec.ALG_4.evaluate("epsilon_step_zcdp", epsilon=epsilon, delta=delta, steps=t)
    coefficient = _spec.ALG_4.evaluate("coefficient_at", epsilon_step=eps0, lipschitz=c.lipschitz, n=n,
                                       l1_diameter=d1)
    if rate == "paper":
        gamma = _spec.THM_6.evaluate("learning_rate", steps=t, diameter=diameter)
    else:
        require_tuning_inputs(initial_gap, c.smoothness)
        gamma = _spec.THM_6.evaluate("learning_rate_tuned", initial_gap=initial_gap, smoothness=c.smoothness, steps=t,
                                     diameter=diameter)
    return t, eps0, coefficient, cap(gamma), a


@dataclass(frozen=True, kw_only=True, eq=False)
class FrankWolfeL1(RandomIterateBox):
    r"""Algorithm 4, DP-FW-L1, configured: T, the per-step budget, the mechanism's coefficient and gamma.

    Privacy
    -------
    ``wang19.alg_4`` / ``wang19.thm_6``: every step is epsilon_0-DP (``exponential.oscillation`` at the
    coefficient), and the ``T`` steps compose to (epsilon, delta)-DP (Lemma 1, or zCDP); the selections
    carry the whole guarantee, ``x_R`` is post-processing.

    Utility
    -------
    ``wang19.thm_6``: ``E[G_R]``, the Frank-Wolfe gap at ``x_R``.
    """

    ALGORITHM: ClassVar[str] = "wang19.alg_4"
    RESULT: ClassVar[type] = DPFWL1Result

    composition: str = "lemma_1"
    epsilon_step: float = quantity("epsilon_0, the budget of every step", source="wang19.thm_6 / alg_4")
    coefficient: float = quantity("c of the exponential mechanism over A (step 2)", source="wang19.alg_4 coefficient_at")
    candidates: int = quantity("|A|, the vertices of C", source="wang19.alg_4")

    def privacy_record(self) -> str:
        return "wang19.thm_6"

    @classmethod
    def configure(cls, *, loss: Loss, domain: Domain, n: int, epsilon: float, delta: float,
                  steps: int | str = "paper", learning_rate: str = "paper", composition: str = "lemma_1",
                  failure_probability: float = 0.1, x_1: ArrayLike | None = None, initial_gap: float | None = None,
                  allow_unproven: bool = False) -> "FrankWolfeL1":
        r"""Configure Algorithm 4 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            ``G = loss.constants.lipschitz`` bounds ``||grad f||_inf``.
        domain : L1Ball or Simplex
            C = conv(A).
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            The target budget; ``composition="lemma_1"`` needs ``epsilon < 1`` and ``ln(1/delta) >= epsilon/2``.
        steps : {"paper", "tuned"} or int
            ``wang19.thm_6`` ``steps`` (needs ``failure_probability``), ``steps_tuned`` (needs ``initial_gap``
            and L > 0) or a public integer.
        learning_rate : {"paper", "tuned"}
            ``wang19.thm_6`` ``learning_rate`` (``sqrt(2/(T ||C||_2^2))`` capped at 1) or ``learning_rate_tuned``.
        composition : {"lemma_1", "zcdp"}
            The per-step budget epsilon_0: Lemma 1 (the default, the paper's) or zCDP (valid for every epsilon).
        failure_probability : float
            Theorem 6's eta (in the logarithm of T).
        x_1 : array_like, optional
            A public start point in C; by default ``domain.interior_point()``.
        initial_gap : float, optional
            A public ``h_0``, for the tuned rules.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        FrankWolfeL1
        """
        check_setting(loss=loss, domain=domain, convex=False)
        n = minimum_records(n, cls.ALGORITHM)
        t, eps0, coefficient, gamma, candidates = constants(
            loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta, steps=steps, learning_rate=learning_rate,
            composition=composition, failure_probability=failure_probability, initial_gap=initial_gap)
        vertices(domain)  # an l1 ball or a simplex
        flag = "lemma-1-composition" if composition == "lemma_1" else "zcdp-composition"
        return cls(loss=loss, domain=domain, n=n, p=domain.dim, epsilon=float(epsilon), delta=float(delta),
                   options={"steps": steps, "learning_rate": learning_rate, "composition": composition,
                            "failure_probability": failure_probability, "x_1": x_1, "initial_gap": initial_gap},
                   spec_ids=SPEC_IDS, flags=(flag,), notes=cls.default_notes(steps, t, "wang19.thm_6"),
                   allow_unproven=allow_unproven, x_1=start_point("x_1", x_1, domain), steps=t, learning_rate=gamma,
                   composition=composition, epsilon_step=eps0, coefficient=coefficient,
                   candidates=int(candidates))._finish()

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, loss, domain = noise, self.loss, self.domain
        steps, gamma = self.steps, self.learning_rate
        corners = vertices(domain)
        mechanism = ExponentialMechanism(coefficient=self.coefficient)
        x = broadcast_start("x_1", self.x_1, runs=runs)
        x_first = x.copy()

        # [wang19 Alg.4 L5] R uniform on {1, ..., T}, independent of the data (drawn first)
        index = src.integers(LABEL_INDEX, steps, (runs,)) + 1
        track = Trajectory(x, index, steps, transcript, "selected")
        for t in range(1, steps + 1):  # [wang19 Alg.4 L1] for t = 1, ..., T
            # [wang19 Alg.4 L2] x~_t = v in A with probability proportional to exp(c <v, -grad F(x_t)>) (Gumbel-max)
            u = scores(domain, loss.total_gradient(x, rows, normalisation="average", check=False))
            selected = mechanism.rvs(u, noise=src, label=LABEL_SELECT)
            # [wang19 Alg.4 L3] x_{t+1} = (1 - gamma_t) x_t + gamma_t x~_t
            x = (1.0 - gamma) * x + gamma * corners[selected]
            track.step(t, selected, x)
            progress(t, steps)
        # [wang19 Alg.4 L4] end for
        track.check_complete()

        # [wang19 Alg.4 L5] return x_R
        return dict(theta=track.x, index=index, x_next=track.x_next, steps=steps, learning_rate=gamma, x_1=x_first,
                    transcript=track.stacked(), epsilon_step=self.epsilon_step, coefficient=self.coefficient,
                    candidates=self.candidates, composition=self.composition)


def dp_fw_l1(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, delta: float,
             steps: int | str = "paper", learning_rate: str = "paper", composition: str = "lemma_1",
             failure_probability: float = 0.1, runs: int = 1, x_1: ArrayLike | None = None,
             initial_gap: float | None = None, rng: RngLike = None, noise: NoiseLike = None,
             transcript: Transcript = None) -> DPFWL1Result:
    r"""Algorithm 4, DP-FW-L1: :meth:`FrankWolfeL1.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds.
    loss, domain, epsilon, delta, steps, learning_rate, composition, failure_probability, x_1, initial_gap
        As in :meth:`FrankWolfeL1.configure`.
    runs : int
        Independent executions (shared data).
    rng, noise
        The tape gets ``integers`` ``"wang19 Alg.4 L5 R"`` (``high = T``), then per step one ``gumbel`` entry
        ``"wang19 Alg.4 L2 exponential mechanism"`` of shape ``(runs, |A|)``.
    transcript : callable or True, optional
        ``state = {"selected": index of x~_t in vertices(domain), "x": x_{t+1}}`` after every step.

    Returns
    -------
    DPFWL1Result

    Privacy
    -------
    ``wang19.alg_4`` / ``wang19.thm_6``.

    Utility
    -------
    ``wang19.thm_6``: ``E[G_R]``, the Frank-Wolfe gap at ``x_R``.
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain, convex=False)
    configured = FrankWolfeL1.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta, steps=steps,
                                        learning_rate=learning_rate, composition=composition,
                                        failure_probability=failure_probability, x_1=x_1, initial_gap=initial_gap,
                                        allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
