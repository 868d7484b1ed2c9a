"""Zhang, Zheng, Mou and Wang (IJCAI 2017), "Efficient private ERM for smooth objectives".

Conventions (all records): average loss ``F(w) = (1/n) sum_i f(w; z_i)``; replace-one neighbours.
The paper's symbols: ``L`` Lipschitz (``lipschitz``), ``beta`` smoothness (``smoothness``),
``mu`` strong convexity (``strong_convexity``), ``d`` dimension (``dimension``).

Modules
-------
:mod:`spec.zhang17.output_perturbation`
    Algorithm 1 (gradient descent, then one output noise draw) and its privacy (Theorem 1).
"""

from __future__ import annotations

from spec.zhang17 import output_perturbation
from spec.zhang17.output_perturbation import THM_1_GAUSSIAN, gaussian_failure_epsilon, gaussian_sigma

__all__ = ["THM_1_GAUSSIAN", "gaussian_sigma", "gaussian_failure_epsilon", "RECORDS"]

#: The records this package registers.
RECORDS = output_perturbation.RECORDS
