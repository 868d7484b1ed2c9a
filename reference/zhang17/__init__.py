r"""Zhang, Zheng, Mou and Wang (2017): Algorithms 1 and 2, line for line, batched over runs.

Conventions (zhang17): the average loss ``F(w, S) = (1/n) sum_i f(w, xi_i)``; replace-one
neighbours; natural logarithms; ``w_0 = 0``. Every constant (step size, number of steps,
sensitivity, noise scale, the distribution of R) is a :mod:`spec.zhang17` formula evaluated
from public values -- the loss's declared constants, public bounds derived from them
(:func:`reference.losses.minimiser_norm_bound`, :func:`reference.losses.origin_value_bound`),
``n``, ``d`` and the budget -- never from the data.

Modules
-------
:mod:`reference.zhang17.output_perturbation`
    Algorithm 1: gradient descent, then one noise draw (radial for epsilon-DP, Gaussian for
    (epsilon, delta)-DP); Theorems 2 (strongly convex) and 3 (convex) set eta, T and Delta.
:mod:`reference.zhang17.random_round_sgd`
    Algorithm 2 (RRPSGD): a random number R of noisy single-record SGD steps.
:mod:`reference.zhang17.instances`
    Data sets for the audits and vectors (bounded, with known minimisers where needed).
"""

from __future__ import annotations

from reference.zhang17.output_perturbation import (
    OutputPerturbationGD,
    OutputPerturbationGDResult,
    gd_constants,
    gradient_descent,
    output_perturbation_gd,
)
from reference.zhang17.random_round_sgd import RandomRoundSGD, RRPSGDResult, rrpsgd, rrpsgd_constants

__all__ = [
    "ALGORITHMS",
    "BOXES",
    "OutputPerturbationGD",
    "OutputPerturbationGDResult",
    "output_perturbation_gd",
    "gd_constants",
    "gradient_descent",
    "RandomRoundSGD",
    "RRPSGDResult",
    "rrpsgd",
    "rrpsgd_constants",
]

#: The reference function of each algorithm box, by record id.
ALGORITHMS = {
    "zhang17.alg_1": output_perturbation_gd,
    "zhang17.alg_2": rrpsgd,
}

#: The configured class of each algorithm box (reference.configured).
BOXES = {
    "zhang17.alg_1": OutputPerturbationGD,
    "zhang17.alg_2": RandomRoundSGD,
}
