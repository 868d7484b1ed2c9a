r"""Wang and Xu (2019): Algorithms 1-4 for smooth non-convex ERM, line for line, batched over runs.

Conventions (wang19): the empirical risk is the *average* ``F(x) = (1/n) sum_i f(x, z_i)`` plus a convex
regulariser ``r``; neighbouring data sets differ in one record (replace-one), so the gradient has l2
sensitivity ``2G/n``; ``G`` is the loss's Lipschitz and ``L`` its smoothness constant
(``loss.constants``). Every constant -- noise scale, step size, iteration count, exponential-mechanism
coefficient, modulus of a distance-generating function -- is a :mod:`spec.wang19` formula evaluated from
public values, never from the data. Every algorithm returns ``x_R`` with ``R`` uniform on ``{1..T}`` and
``x_{R+1}``.

Modules
-------
:mod:`reference.wang19.proximal_gradient` Algorithm 1 (DP-PGD), with the prox of :mod:`reference.proximal`.
:mod:`reference.wang19.frank_wolfe`     Algorithm 2 (DP-FW-L2).
:mod:`reference.wang19.mirror_descent`  Algorithm 3 (DP-PMD) and the distance-generating functions.
:mod:`reference.wang19.frank_wolfe_l1`  Algorithm 4 (DP-FW-L1), the exponential mechanism over A.
:mod:`reference.wang19.common`          The result, the start point, the widths, the trajectory.
:mod:`reference.wang19.vectors`         The known-answer vector cases.

The utility measures (the gradient mapping and the Frank-Wolfe gap) are in :mod:`reference.stationarity`.
"""

from __future__ import annotations

from reference.wang19.frank_wolfe import DPFWL2Result, FrankWolfe, dp_fw_l2
from reference.wang19.frank_wolfe_l1 import DPFWL1Result, FrankWolfeL1, dp_fw_l1
from reference.wang19.mirror_descent import (
    DistanceGenerating,
    DPPMDResult,
    Entropy,
    MirrorDescent,
    PNorm,
    SquaredL2,
    dp_pmd,
)
from reference.wang19.proximal_gradient import DPPGDResult, ProximalGradient, dp_pgd

__all__ = [
    "ALGORITHMS",
    "BOXES",
    "ProximalGradient",
    "FrankWolfe",
    "MirrorDescent",
    "FrankWolfeL1",
    "dp_pgd",
    "DPPGDResult",
    "dp_fw_l2",
    "DPFWL2Result",
    "dp_pmd",
    "DPPMDResult",
    "DistanceGenerating",
    "SquaredL2",
    "PNorm",
    "Entropy",
    "dp_fw_l1",
    "DPFWL1Result",
]

#: The reference function of each algorithm box, by record id.
ALGORITHMS = {
    "wang19.alg_1": dp_pgd,
    "wang19.alg_2": dp_fw_l2,
    "wang19.alg_3": dp_pmd,
    "wang19.alg_4": dp_fw_l1,
}

#: The configured class of each algorithm box (reference.configured).
BOXES = {
    "wang19.alg_1": ProximalGradient,
    "wang19.alg_2": FrankWolfe,
    "wang19.alg_3": MirrorDescent,
    "wang19.alg_4": FrankWolfeL1,
}
