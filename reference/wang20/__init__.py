r"""Wang, Xiao, Devadas and Xu (2020): Algorithms 1-4 for DP-SCO with heavy-tailed data, line for line.

Conventions (wang20): average loss ``L^(w, D) = (1/n) sum_i l(w, x_i)``; replace-one neighbours;
no Lipschitz constant and no bound on the data -- privacy comes from smooth sensitivity
(Algorithms 1-3) or from a bounded soft truncation (Algorithm 4). Every constant is a
:mod:`spec.wang20` formula evaluated from public values (epsilon, delta, n, d, T, the declared
second moment v, the mean range [a, b], the population constants alpha and beta, W's diameter),
never from the data.

Batching and randomness as in every reference package: ``runs`` independent executions share the
data set; every draw is standardised and labelled with its pseudocode line
(:mod:`reference.tape`).

Modules
-------
:mod:`reference.wang20.sample_and_aggregate`
    Algorithm 1 (sample-and-aggregate, the centre of attention and its reconstructed smooth bound).
:mod:`reference.wang20.bun_steinke`
    Algorithm 2 (Bun-Steinke's trimmed mean with the corrected smooth bound, arsinh-normal noise).
:mod:`reference.wang20.catoni_giulini`
    The Catoni-Giulini smoothed truncation (eq. 6-10), stable and clamped.
:mod:`reference.wang20.gradient_descent`
    Algorithms 3 and 4 (projected gradient descent with private robust gradients).
:mod:`reference.wang20.heavy_tails`
    Heavy-tailed data with known population minimisers and risks, and the clipping transform of
    the baselines.
"""

from __future__ import annotations

from reference.wang20.catoni_giulini import robust_mean, smoothed_truncation
from reference.wang20.gradient_descent import (
    CatoniGiuliniGD,
    TrimmedMeanGD,
    GradientDescentResult,
    catoni_giulini_gd,
    projected_gradient_descent,
    steps_and_learning_rate,
    trimmed_mean_gd,
)
from reference.wang20.sample_and_aggregate import (
    SampleAggregate,
    SampleAggregateResult,
    erm_blocks,
    projected_mean_blocks,
    sample_aggregate,
)
from reference.wang20.bun_steinke import TrimmedMean, TrimmedMeanResult, trimmed_mean

__all__ = [
    "ALGORITHMS",
    "BOXES",
    "SampleAggregate",
    "TrimmedMean",
    "TrimmedMeanGD",
    "CatoniGiuliniGD",
    "sample_aggregate",
    "SampleAggregateResult",
    "erm_blocks",
    "projected_mean_blocks",
    "trimmed_mean",
    "TrimmedMeanResult",
    "trimmed_mean_gd",
    "catoni_giulini_gd",
    "GradientDescentResult",
    "projected_gradient_descent",
    "steps_and_learning_rate",
    "robust_mean",
    "smoothed_truncation",
]

#: The reference function of each algorithm box, by record id.
ALGORITHMS = {
    "wang20.alg_1": sample_aggregate,
    "wang20.alg_2": trimmed_mean,
    "wang20.alg_3": trimmed_mean_gd,
    "wang20.alg_4": catoni_giulini_gd,
}

#: The configured class of each algorithm box (reference.configured).
BOXES = {
    "wang20.alg_1": SampleAggregate,
    "wang20.alg_2": TrimmedMean,
    "wang20.alg_3": TrimmedMeanGD,
    "wang20.alg_4": CatoniGiuliniGD,
}
