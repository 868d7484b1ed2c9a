"""bst14 Algorithms 3 (output perturbation) and 4 (localisation), line for line and batched over runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from reference.arrays import ArrayLike
from reference.bst14.exponential_sampling import Sampler
from reference.configured import Configured, minimum_records, quantity
from reference.domains import Domain, Intersection, L2Ball
from reference.losses import Loss
from reference.problem import check_problem, check_setting
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.samplers import RadialLaplace
from reference.solver import minimise
from reference.tape import NoiseLike
from spec import bst14 as _spec
from spec import validate
from spec.errors import AssumptionError, ParameterError

# --------------------------------------------------------------------------------------------
# Algorithm 3
# --------------------------------------------------------------------------------------------

#: The records whose formulas and claims Algorithms 3 and 4 use.
ALG3_SPEC_IDS = ("bst14.alg_3",)
ALG4_SPEC_IDS = ("bst14.alg_4", "bst14.thm_IV_1", "bst14.alg_3", "bst14.alg_2")

#: Tape label prefix of Algorithm 3's noise b (RadialLaplace records ``LABEL_NOISE + ": radius"``
#: and ``LABEL_NOISE + ": direction"``).
LABEL_NOISE = "bst14 Alg.3 L3 b"


@dataclass(frozen=True)
class OutputPerturbationResult(AlgorithmResult):
    """Output of :func:`output_perturbation`.

    Attributes
    ----------
    theta : ndarray, shape (runs, p)
        ``theta_0 = Pi_C(theta* + b)`` of every run (line 3), the centre of ``C_0``
        (also :attr:`centres`).
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

    theta: np.ndarray
    radius: float
    theta_star: np.ndarray
    rate: float
    solver_tolerance: float
    noise: np.ndarray = field(repr=False)
    domain: Any = field(repr=False)

    @property
    def centres(self) -> np.ndarray:
        """``theta_0`` of every run (the same array as :attr:`theta`)."""
        return self.theta

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


@dataclass(frozen=True, kw_only=True, eq=False)
class OutputPerturbation(Configured):
    r"""Algorithm 3, A_out-pert, configured: the noise rate and the radius of ``C_0``, before any data.

    Privacy
    -------
    ``bst14.alg_3``: epsilon-DP (the CAVEAT flag: inexact theta* handled by the tolerance term).

    Utility
    -------
    ``bst14.lemma_IV_2`` (C_0 contains theta* unless ``||b|| > zeta E||b||``).
    """

    ALGORITHM: ClassVar[str] = "bst14.alg_3"
    RESULT: ClassVar[type] = OutputPerturbationResult
    USES: ClassVar[tuple[str, ...]] = ("lipschitz", "strong_convexity")

    zeta: float
    solver_tolerance: float = quantity("public bound tau on the certified optimality gap of theta* (line 2)",
                                       source="given")
    rate: float = quantity("rate of the noise density exp(-rate ||b||) (line 3)",
                           source="bst14.alg_3 noise_rate_with_tolerance")
    radius: float = quantity("radius of C_0 (line 4)", source="bst14.alg_3 radius")

    def privacy_record(self) -> str:
        return "bst14.alg_3"

    @classmethod
    def configure(cls, *, loss: Loss, domain: Domain, n: int, epsilon: float, zeta: float,
                  solver_tolerance: float = 1e-12, allow_unproven: bool = False) -> "OutputPerturbation":
        r"""Configure Algorithm 3 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            Declared ``strong_convexity > 0`` (Delta, per example) and Lipschitz L.
        domain : reference.domains.Domain
            The convex set C.
        n : int
            Number of records, at least 2.
        epsilon : float
            The budget of this algorithm, which must be > 0.
        zeta : float
            The radius parameter, which must be > 0 (Algorithm 4 passes ``3 ln n``).
        solver_tolerance : float
            Public bound tau (> 0) on the certified optimality gap of theta*, used in the sensitivity
            ``2L/(n Delta) + 2 sqrt(2 tau/(n Delta))`` (``bst14.alg_3`` formula ``noise_rate_with_tolerance``).
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        OutputPerturbation
        """
        check_setting(loss=loss, domain=domain, convex=True)
        n = minimum_records(n, cls.ALGORITHM)
        eps = validate.epsilon(epsilon)
        z = validate.positive("zeta", zeta)
        tol = validate.positive("solver_tolerance", solver_tolerance)
        constants = loss.constants
        if not constants.strong_convexity > 0:
            raise AssumptionError(
                f"loss.constants.strong_convexity ({constants.strong_convexity!r}) must be > 0 (bst14 Algorithm 3)"
            )
        rate = _spec.ALG_3.evaluate(
            "noise_rate_with_tolerance", epsilon=eps, lipschitz=constants.lipschitz, n=n,
            strong_convexity=constants.strong_convexity, solver_tolerance=tol,
        )
        radius = _spec.ALG_3.evaluate(
            "radius", epsilon=eps, lipschitz=constants.lipschitz, n=n, strong_convexity=constants.strong_convexity,
            dimension=domain.dim, zeta=z,
        )
        return cls(loss=loss, domain=domain, n=n, p=domain.dim, epsilon=eps, options={"zeta": z, "solver_tolerance": tol},
                   spec_ids=ALG3_SPEC_IDS, flags=("solver-tolerance",), allow_unproven=allow_unproven, zeta=z,
                   solver_tolerance=tol, rate=rate, radius=radius)._finish()

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """The certified solve of line 2 (shared by every run): at least ``n`` gradients per solver
        iteration; counted as ``n`` here (the solver stops at its certified gap)."""
        return int(self.n)

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        loss, domain, tol, p = self.loss, self.domain, self.solver_tolerance, self.p
        # [bst14 Alg.3 L1-2] theta* = argmin_{theta in C} L(theta; D), certified gap <= tau
        solved = minimise(loss, rows, domain, tolerance=tol, normalisation="sum")
        if not solved.gap <= tol:
            raise ParameterError(f"solver gap ({solved.gap!r}) must be <= solver_tolerance ({tol!r})")
        theta_star = solved.theta
        # [bst14 Alg.3 L3] b with density proportional to exp(-(n Delta epsilon/(2L)) ||b||) (rate with tau)
        b = RadialLaplace(rate=self.rate, dim=p).rvs((runs,), noise=noise, label=LABEL_NOISE)
        # [bst14 Alg.3 L3] theta_0 = Pi_C(theta* + b)
        centres = domain.project(theta_star[None, :] + b)
        # [bst14 Alg.3 L4] C_0 = {theta in C : ||theta - theta_0|| <= zeta 2 L p/(Delta epsilon n)}
        progress(1, 1)
        return dict(theta=centres, radius=self.radius, theta_star=theta_star, rate=self.rate, solver_tolerance=tol,
                    noise=b, domain=domain)


def output_perturbation(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, zeta: float,
                        runs: int = 1, solver_tolerance: float = 1e-12, rng: RngLike = None,
                        noise: NoiseLike = None) -> OutputPerturbationResult:
    r"""Algorithm 3, A_out-pert: :meth:`OutputPerturbation.configure`, then run (a thin wrapper).

    Parameters
    ----------
    data, loss, domain
        Loss with declared ``strong_convexity > 0`` (Delta, per example) and Lipschitz L.
    epsilon, zeta, solver_tolerance
        As in :meth:`OutputPerturbation.configure`.

    Tape: ``gamma`` ``(runs,)`` ``"bst14 Alg.3 L3 b: radius"`` (k = p), then ``normal`` ``(runs,
    p)`` ``"bst14 Alg.3 L3 b: direction"`` (:class:`reference.samplers.RadialLaplace`).

    Privacy
    -------
    ``bst14.alg_3``: epsilon-DP (the CAVEAT flag: inexact theta* handled by the tolerance term).

    Utility
    -------
    ``bst14.lemma_IV_2`` (C_0 contains theta* unless ``||b|| > zeta E||b||``).
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = OutputPerturbation.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, zeta=zeta,
                                              solver_tolerance=solver_tolerance, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise)


# --------------------------------------------------------------------------------------------
# Algorithm 4
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LocalizationResult(AlgorithmResult):
    """Output of :func:`localization`: ``theta`` (runs, p), the Algorithm 3 step and the constants."""

    theta: np.ndarray
    localization: OutputPerturbationResult = field(repr=False)
    parameters: dict = field(repr=False)


@dataclass(frozen=True, kw_only=True, eq=False)
class Localization(Configured):
    r"""Algorithm 4, configured: Algorithm 3 at epsilon/2 (zeta = 3 ln n), then Algorithm 2 at epsilon/2 on C_0.

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

    ALGORITHM: ClassVar[str] = "bst14.alg_4"
    RESULT: ClassVar[type] = LocalizationResult
    USES: ClassVar[tuple[str, ...]] = ("lipschitz", "strong_convexity")

    sampler: Any
    step1: OutputPerturbation = field(repr=False)
    epsilon_localization: float = quantity("budget of Algorithm 3 (line 1)", source="bst14.thm_IV_1")
    epsilon_generic: float = quantity("budget of the generic step (line 2)", source="bst14.thm_IV_1")
    zeta: float = quantity("zeta = 3 ln n of Algorithm 3 (line 1)", source="bst14.alg_4")
    parameters: dict = field(default_factory=dict, repr=False)

    def privacy_record(self) -> str:
        return "bst14.thm_IV_1"

    @classmethod
    def configure(cls, *, loss: Loss, domain: Domain, n: int, epsilon: float, sampler: Sampler,
                  solver_tolerance: float = 1e-12, allow_unproven: bool = False) -> "Localization":
        r"""Configure Algorithm 4 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            Declared ``strong_convexity > 0`` and Lipschitz L.
        domain : reference.domains.Domain
            The convex set C.
        n : int
            Number of records, at least 2.
        epsilon : float
            The total budget, which must be > 0.
        sampler : QuadraticRejectionSampler, LinearBallSampler, NetSampler or GridWalkSampler
            The sampler of the generic step (Algorithm 2) on each run's ``C_0``.
        solver_tolerance : float
            Algorithm 3's public bound on the solver's certified gap.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        Localization
        """
        check_setting(loss=loss, domain=domain, convex=True)
        n = minimum_records(n, cls.ALGORITHM)
        constants = loss.constants
        if not constants.strong_convexity > 0:
            raise AssumptionError(
                f"loss.constants.strong_convexity ({constants.strong_convexity!r}) must be > 0 (bst14 Algorithm 4)"
            )
        params = _spec.localization_parameters(
            epsilon=epsilon, lipschitz=constants.lipschitz, n=n, strong_convexity=constants.strong_convexity,
            dimension=domain.dim, solver_tolerance=validate.positive("solver_tolerance", solver_tolerance),
        )
        if not callable(getattr(sampler, "sample", None)):
            raise TypeError(f"sampler ({type(sampler).__name__}) must have a sample(...) method")
        step1 = OutputPerturbation.configure(loss=loss, domain=domain, n=n, epsilon=params["epsilon_localization"],
                                             zeta=params["zeta"], solver_tolerance=solver_tolerance,
                                             allow_unproven=allow_unproven)
        return cls(loss=loss, domain=domain, n=n, p=domain.dim, epsilon=float(epsilon),
                   options={"sampler": sampler, "solver_tolerance": solver_tolerance}, spec_ids=ALG4_SPEC_IDS,
                   flags=("solver-tolerance",), allow_unproven=allow_unproven, sampler=sampler, step1=step1,
                   epsilon_localization=params["epsilon_localization"], epsilon_generic=params["epsilon_generic"],
                   zeta=params["zeta"], parameters=params)._finish()

    def quantities(self) -> list[tuple[str, Any, str, str]]:
        extra = [("rate", self.step1.rate, "Algorithm 3's noise rate at epsilon/2 (line 1)",
                  "bst14.alg_3 noise_rate_with_tolerance"),
                 ("radius", self.step1.radius, "radius of C_0 (line 1)", "bst14.alg_3 radius")]
        return super().quantities() + extra

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """Algorithm 3's solve (``n``), then the sampler's loss evaluations (``n`` per run)."""
        return int(self.n) * (1 + int(runs))

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src = noise
        # [bst14 Alg.4 L1] C_0 <- A_out-pert(D, epsilon/2, zeta = 3 ln n)
        step1 = self.step1.run(rows, runs=runs, noise=src)
        # [bst14 Alg.4 L2] theta_priv <- an epsilon/2-DP algorithm (Algorithm 2) on C_0
        theta = np.empty((runs, self.p))
        for r in range(runs):
            theta[r] = self.sampler.sample(loss=self.loss, data=rows, domain=step1.localized_domain(r),
                                           epsilon=self.epsilon_generic, runs=1, noise=src)[0]
            progress(r + 1, runs)
        return dict(theta=theta, localization=step1, parameters=self.parameters)


def localization(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, runs: int = 1,
                 sampler: Sampler, solver_tolerance: float = 1e-12, rng: RngLike = None,
                 noise: NoiseLike = None) -> LocalizationResult:
    r"""Algorithm 4: :meth:`Localization.configure`, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds.
    loss, domain, epsilon, sampler, solver_tolerance
        As in :meth:`Localization.configure`.
    runs, rng, noise
        Independent executions and their randomness.

    Privacy
    -------
    ``bst14.thm_IV_1``: epsilon-DP by basic (adaptive) composition of ``epsilon_localization``
    and ``epsilon_generic`` (``spec.bst14.localization_parameters``).

    Utility
    -------
    ``bst14.thm_IV_3``.
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = Localization.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, sampler=sampler,
                                        solver_tolerance=solver_tolerance, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise)
