"""bst14 Algorithms 3 (output perturbation) and 4 (localisation), line for line and batched over runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reference import arrays
from reference.arrays import ArrayLike
from reference.bst14.exponential_sampling import Sampler, exp_sampling
from reference.domains import Domain, Intersection, L2Ball
from reference.losses import Loss
from reference.problem import check_problem
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.samplers import RadialLaplace
from reference.solver import minimise
from reference.tape import NoiseLike, noise_source
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


def output_perturbation(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, zeta: float,
                        runs: int = 1, solver_tolerance: float = 1e-12, rng: RngLike = None,
                        noise: NoiseLike = None) -> OutputPerturbationResult:
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
    rows, n, p = check_problem(data, loss=loss, domain=domain)
    runs = arrays.runs(runs)
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
    b = RadialLaplace(rate=rate, dim=p).rvs((runs,), noise=src, label=LABEL_NOISE)
    # [bst14 Alg.3 L3] theta_0 = Pi_C(theta* + b)
    centres = domain.project(theta_star[None, :] + b)
    # [bst14 Alg.3 L4] C_0 = {theta in C : ||theta - theta_0|| <= zeta 2 L p/(Delta epsilon n)}
    radius = _spec.ALG_3.evaluate(
        "radius", epsilon=eps, lipschitz=constants.lipschitz, n=n, strong_convexity=constants.strong_convexity,
        dimension=p, zeta=z,
    )
    return OutputPerturbationResult(
        centres=centres, radius=radius, theta_star=theta_star, rate=rate, solver_tolerance=tol, noise=b, domain=domain,
        spec_ids=ALG3_SPEC_IDS, seed=src.seed,
    )


# --------------------------------------------------------------------------------------------
# Algorithm 4
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LocalizationResult(AlgorithmResult):
    """Output of :func:`localization`: ``theta`` (runs, p), the Algorithm 3 step and the constants."""

    theta: np.ndarray
    localization: OutputPerturbationResult = field(repr=False)
    parameters: dict = field(repr=False)


def localization(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, runs: int = 1,
                 sampler: Sampler, solver_tolerance: float = 1e-12, rng: RngLike = None,
                 noise: NoiseLike = None) -> LocalizationResult:
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
    rows, n, p = check_problem(data, loss=loss, domain=domain)
    runs = arrays.runs(runs)
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
        ).theta[0]
    return LocalizationResult(theta=theta, localization=step1, parameters=params, spec_ids=ALG4_SPEC_IDS,
                              seed=src.seed)
