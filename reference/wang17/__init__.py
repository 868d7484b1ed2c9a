r"""Wang, Ye and Xu (2017): Algorithms 1-4, line for line, batched over runs.

Conventions (wang17): the average loss ``F(x; D) = (1/n) sum_i f(x, z_i)``; replace-one neighbours;
``G`` Lipschitz and ``L`` smoothness of every ``f(., z)`` (the loss's declared constants). Every
noise level is a proven calibration from :mod:`spec.wang17` -- never the paper's "for some
constant c" unless asked for with an explicit c -- and every step size and iteration count is a
record formula evaluated from public values.

Batching and randomness as in :mod:`reference.bst14`: ``runs`` independent executions share the
data; draws are standardised and labelled with the pseudocode line that consumes them.

Modules
-------
:mod:`reference.wang17.svrg`
    Algorithm 1 (DP-SVRG) and what it shares with Algorithm 2.
:mod:`reference.wang17.svrg_plus`
    Algorithm 2 (DP-SVRG++).
:mod:`reference.wang17.accelerated_mirror_descent`
    Algorithm 3 (DP-AccMD, corrected: one noisy gradient in both steps).
:mod:`reference.wang17.mirror_maps`
    Its two proximal steps: the Minkowski-norm gradient step (l2 and l1 balls) and the
    distance-generating functions (squared l2, p-norm).
:mod:`reference.wang17.gradient_descent`
    Algorithm 4 (DP-GD; last or uniformly random iterate).
"""

from __future__ import annotations

from reference.wang17.accelerated_mirror_descent import AccMDResult, AcceleratedMirrorDescent, dp_accmd
from reference.wang17.gradient_descent import GDResult, GradientDescent, dp_gd
from reference.wang17.mirror_maps import MirrorMap, PNorm, SquaredL2, gradient_step
from reference.wang17.svrg import SVRG, SVRGResult, dp_svrg
from reference.wang17.svrg_plus import SVRGPlus, dp_svrg_plus

__all__ = [
    "ALGORITHMS",
    "BOXES",
    "SVRG",
    "SVRGPlus",
    "AcceleratedMirrorDescent",
    "GradientDescent",
    "SVRGResult",
    "dp_svrg",
    "dp_svrg_plus",
    "AccMDResult",
    "dp_accmd",
    "MirrorMap",
    "SquaredL2",
    "PNorm",
    "gradient_step",
    "GDResult",
    "dp_gd",
]

#: The reference function of each algorithm box, by record id.
ALGORITHMS = {
    "wang17.alg_1": dp_svrg,
    "wang17.alg_2": dp_svrg_plus,
    "wang17.alg_3": dp_accmd,
    "wang17.alg_4": dp_gd,
}

#: The configured class of each algorithm box (reference.configured).
BOXES = {
    "wang17.alg_1": SVRG,
    "wang17.alg_2": SVRGPlus,
    "wang17.alg_3": AcceleratedMirrorDescent,
    "wang17.alg_4": GradientDescent,
}
