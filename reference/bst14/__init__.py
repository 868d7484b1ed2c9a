r"""Bassily, Smith and Thakurta (2014): Algorithms 1-4, line for line, batched over runs.

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

Modules
-------
:mod:`reference.bst14.noisy_sgd`
    Algorithm 1 (A_Noise-GD).
:mod:`reference.bst14.exponential_sampling`
    Algorithm 2 (A_exp-samp) and its exact samplers (net, linear loss on a ball, quadratic
    loss by rejection).
:mod:`reference.bst14.grid_walk`
    Section III-C: the polynomial-time grid-walk sampler with its certificate.
:mod:`reference.bst14.localization_algorithms`
    Algorithms 3 (output perturbation) and 4 (localisation).
:mod:`reference.bst14.instances`
    The Section V lower-bound instances, for the audits.
"""

from __future__ import annotations

from reference.bst14.exponential_sampling import (
    ExpSampling,
    LinearBallSampler,
    NetSampler,
    QuadraticRejectionSampler,
    SamplerExhaustedError,
    exp_sampling,
)
from reference.bst14.grid_walk import GridWalkSampler
from reference.bst14.localization_algorithms import (
    Localization,
    OutputPerturbation,
    LocalizationResult,
    OutputPerturbationResult,
    localization,
    output_perturbation,
)
from reference.bst14.noisy_sgd import SCHEDULES, NoiseGD, NoiseGDResult, learning_rates, noise_gd

__all__ = [
    "ALGORITHMS",
    "BOXES",
    "NoiseGD",
    "ExpSampling",
    "OutputPerturbation",
    "Localization",
    "SCHEDULES",
    "NoiseGDResult",
    "noise_gd",
    "learning_rates",
    "exp_sampling",
    "NetSampler",
    "LinearBallSampler",
    "QuadraticRejectionSampler",
    "GridWalkSampler",
    "SamplerExhaustedError",
    "OutputPerturbationResult",
    "output_perturbation",
    "LocalizationResult",
    "localization",
]

#: The reference function of each algorithm box, by record id: how tools (``dperm run``, the
#: docs) find a paper's algorithms. Every paper package exports one.
ALGORITHMS = {
    "bst14.alg_1": noise_gd,
    "bst14.alg_2": exp_sampling,
    "bst14.alg_3": output_perturbation,
    "bst14.alg_4": localization,
}

#: The configured class of each algorithm box (reference.configured): ``BOXES[id].configure(...)``
#: builds it without data; ``ALGORITHMS[id]`` is its thin function wrapper.
BOXES = {
    "bst14.alg_1": NoiseGD,
    "bst14.alg_2": ExpSampling,
    "bst14.alg_3": OutputPerturbation,
    "bst14.alg_4": Localization,
}
