"""Symbols, conventions and shared assumptions of the zhang17 records.

Every record of :mod:`spec.zhang17` takes its sympy symbols from here, so that expressions built in
one module (a sensitivity in :mod:`spec.zhang17.stability`) can be substituted into another (the noise
of :mod:`spec.zhang17.output_perturbation`) without renaming. The paper's symbols and their canonical
names (:mod:`spec.vocabulary`):

=========  ===============================  ====================================================
paper      canonical                        meaning
=========  ===============================  ====================================================
``L``      ``lipschitz``                    Lipschitz constant of every ``f(., xi)``
``beta``   ``smoothness``                   smoothness of every ``f(., xi)`` (Assumption 1)
``mu``     ``strong_convexity``             strong convexity of every ``f(., xi)``
``d``      ``dimension``                    dimension of ``w``
``n``      ``n``                            number of records
``eps``    ``epsilon``, ``delta``           the privacy budget
``Delta``  ``sensitivity``                  l2 sensitivity of ``w_T`` (Definition 2)
``eta``    ``learning_rate``                constant step size of gradient descent
``T``      ``steps``                        number of gradient steps of Algorithm 1
``D``      ``minimiser_norm``               ``||w_hat(S)|| <= D`` for every dataset (``w_0 = 0``)
``R``      ``population_minimiser_norm``    ``||w*|| <= R`` (excess-risk corollaries)
``gamma``  ``failure_probability``          failure probability of a high-probability bound
``h_0``    ``initial_gap``                  public bound on ``F(w_0, S) - F*`` (our fix of ``D_F``)
=========  ===============================  ====================================================
"""

from __future__ import annotations

import sympy as sp

from spec.record import Assumption, Conventions, LossForm, Neighbouring, Symbol

__all__ = [
    "L", "beta", "mu", "d", "n", "eps", "delta", "Delta", "eta", "T", "D", "R", "gamma", "h0",
    "S_L", "S_BETA", "S_MU", "S_D", "S_N", "S_EPS", "S_DELTA", "S_SENS", "S_ETA", "S_T", "S_DNORM",
    "S_RNORM", "S_GAMMA", "S_H0", "CONVENTIONS", "DELTA_LT_1", "MU_LE_BETA", "GAMMA_LT_1",
]

L = sp.Symbol("L", positive=True)
beta = sp.Symbol("beta", positive=True)
mu = sp.Symbol("mu", positive=True)
d = sp.Symbol("d", positive=True, integer=True)
n = sp.Symbol("n", positive=True, integer=True)
eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
Delta = sp.Symbol("Delta", positive=True)
eta = sp.Symbol("eta", positive=True)
T = sp.Symbol("T", positive=True, integer=True)
D = sp.Symbol("D", positive=True)
R = sp.Symbol("R", positive=True)
gamma = sp.Symbol("gamma", positive=True)
h0 = sp.Symbol("h_0", positive=True)

S_L = Symbol("lipschitz", L, "Lipschitz constant L of every f(., xi) (on the region the theorem states)")
S_BETA = Symbol("smoothness", beta, "smoothness beta of every f(., xi) (Assumption 1)")
S_MU = Symbol("strong_convexity", mu, "strong convexity mu of every f(., xi) (so of F as well)")
S_D = Symbol("dimension", d, "dimension d of the parameter w")
S_N = Symbol("n", n, "number of records")
S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
S_DELTA = Symbol("delta", delta, "failure probability delta of the privacy claim")
S_SENS = Symbol("sensitivity", Delta, "l2 sensitivity Delta of the GD output w_T (Lemmas 2 and 3)")
S_ETA = Symbol("learning_rate", eta, "constant step size eta")
S_T = Symbol("steps", T, "number of gradient steps T")
S_DNORM = Symbol("minimiser_norm", D, "D with ||w_hat(S)|| <= D for every dataset S (w_0 = 0)")
S_RNORM = Symbol("population_minimiser_norm", R, "R with ||w*|| <= R for the population minimiser w*")
S_GAMMA = Symbol("failure_probability", gamma, "probability gamma with which the utility bound may fail")
S_H0 = Symbol("initial_gap", h0, "public bound h_0 >= F(w_0, S) - F* valid for every dataset S")

CONVENTIONS = Conventions(
    LossForm.AVERAGE,
    Neighbouring.REPLACE_ONE,
    (
        "F(w, S) = (1/n) sum_i f(w, xi_i), the average loss; w_hat = argmin F(., S); f >= 0.",
        "Neighbours: |S| = |S'| = n and they differ in exactly one record (Section 2.2).",
        "log is the natural logarithm; ||.|| is the l2 norm.",
    ),
)

DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "0 < delta < 1")
MU_LE_BETA = Assumption(
    "mu_le_beta", sp.Le(mu, beta),
    "mu <= beta: a mu-strongly convex function cannot be beta-smooth with beta < mu",
)
GAMMA_LT_1 = Assumption("gamma_lt_1", sp.Lt(gamma, 1), "0 < gamma < 1")
