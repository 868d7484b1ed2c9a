"""bst14's symbols, canonical names, conventions and shared assumptions.

Conventions (all records)
-------------------------
* Sum loss ``L(theta; D) = sum_i l(theta; d_i)`` (not the average); risk bounds are for the sum.
* Replace-one neighbouring: ``|D| = |D'| = n`` and ``|D Δ D'| = 2``.
* ``l(.; d)`` is convex and ``L``-Lipschitz on ``C`` for every ``d``; ``Delta`` is the *per-example*
  strong convexity, so the sum is ``n Delta``-strongly convex.
* ``||C||_2`` is the l2 *diameter* of ``C`` (the unit ball has diameter 2); ``p`` is the dimension;
  ``log`` is the natural logarithm.

Canonical keywords: ``lipschitz`` (L), ``n``, ``dimension`` (p), ``epsilon``, ``delta``,
``strong_convexity`` (Delta), ``diameter`` (||C||_2), ``step`` (t, a step index), ``steps`` (T),
``tail`` (t in a tail bound), ``zeta``, ``linf_diameter`` (tau), ``solver_tolerance``, ``sigma``,
``gradient_bound`` (G), ``inner_radius`` (r, the grid-walk sampler's inner ball), ``grid_size`` (N).

"""

from __future__ import annotations

import sympy as sp

from spec.record import (
    Assumption,
    Conventions,
    LossForm,
    Neighbouring,
    Symbol,
)

# --------------------------------------------------------------------------- symbols
L = sp.Symbol("L", positive=True)
n = sp.Symbol("n", positive=True, integer=True)
p = sp.Symbol("p", positive=True, integer=True)
eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
Delta = sp.Symbol("Delta", positive=True)
diam = sp.Symbol("||C||_2", positive=True)
t_step = sp.Symbol("t", positive=True, integer=True)  # step index of Algorithm 1
t_tail = sp.Symbol("t", nonnegative=True)  # tail parameter of Theorem III.2 (a different t)
zeta = sp.Symbol("zeta", positive=True)
tau = sp.Symbol("tau", positive=True)  # l-infinity diameter of C (Section III-C)
gap = sp.Symbol("tau_gap", nonnegative=True)  # certified optimality gap of a solver
sigma = sp.Symbol("sigma", positive=True)
G = sp.Symbol("G", positive=True)
T = sp.Symbol("T", positive=True, integer=True)
lam = sp.Symbol("lambda", positive=True)

S_L = Symbol("lipschitz", L, "Lipschitz constant L of every l(.; d) on C")
S_N = Symbol("n", n, "number of records")
S_P = Symbol("dimension", p, "dimension p of the parameter space")
S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
S_DELTA = Symbol("delta", delta, "failure probability delta")
S_DELTA_SC = Symbol(
    "strong_convexity", Delta, "per-example strong convexity Delta (the sum is n Delta-strongly convex)"
)
S_DIAM = Symbol("diameter", diam, "l2 diameter ||C||_2 of the constraint set")
S_STEP = Symbol("step", t_step, "step index t of Algorithm 1 (1 <= t <= n^2 - 1)")
S_TAIL = Symbol("tail", t_tail, "tail parameter t: the bound fails with probability at most e^-t")
S_ZETA = Symbol("zeta", zeta, "radius parameter zeta of Algorithm 3 (in units of E||b||)")
S_TAU = Symbol("linf_diameter", tau, "l-infinity diameter tau of C (edge of the enclosing cube A)")
S_GAP = Symbol("solver_tolerance", gap, "certified optimality gap tau of the solver (public tolerance; 0 = exact)")
S_SIGMA = Symbol("sigma", sigma, "standard deviation of the Gaussian noise b_t (per coordinate)")
S_G = Symbol("gradient_bound", G, "G with E||G_t||^2 <= G^2 (bound on the stochastic gradient's second moment)")
S_T = Symbol("steps", T, "number of SGD iterates T")
S_LAMBDA = Symbol("total_strong_convexity", lam, "strong convexity lambda of F (bst14 applies it with lambda = n Delta)")

CONVENTIONS = Conventions(
    LossForm.SUM,
    Neighbouring.REPLACE_ONE,
    (
        "L(theta; D) = sum_i l(theta; d_i), the sum (risk bounds are for the sum); neighbours have "
        "|D| = |D'| = n and differ in one record (|D Δ D'| = 2).",
        "l(.; d) is convex and L-Lipschitz on C for every d; Delta is the per-example strong convexity, "
        "so L(.; D) is n Delta-strongly convex.",
        "||C||_2 is the l2 diameter of C (the unit ball has diameter 2); p is the dimension; log is ln.",
    ),
)
TABLE_CONVENTIONS = Conventions(
    LossForm.SUM,
    Neighbouring.REPLACE_ONE,
    CONVENTIONS.notes
    + (
        "Table I is normalised to L = ||C||_2 = 1; multiply a bound by L ||C||_2 and replace Delta by "
        "Delta ||C||_2 / L for the general statement. Upper bounds read O(min(n, .)), lower bounds "
        "Omega(min(n, .)); the table assumes delta < 1/n.",
    ),
)

DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "0 < delta < 1")
N_GE_2 = Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2 (Algorithm 1 takes n^2 - 1 >= 3 noisy steps)")
LEMMA_II_2_CONDITION = Assumption(
    "lemma_II_2_condition",
    sp.Le(eps / (2 * sp.sqrt(sp.log(1 / delta))), 1),
    "epsilon / (2 sqrt(ln(1/delta))) <= 1, the condition under which the proof applies Lemma II.2",
)
DELTA_LT_1_OVER_N = Assumption(
    "delta_lt_1_over_n",
    sp.Lt(delta, 1 / n),
    "delta < 1/n: a checkable proxy for the paper's delta = o(1/n)",
)
SC_CONSISTENT = Assumption(
    "strong_convexity_consistent",
    sp.Le(Delta * diam, 2 * L),
    "Delta ||C||_2 <= 2 L: an L-Lipschitz, Delta-strongly convex function on C cannot exist otherwise",
)

#: Rate directions of the utility claims: n, p -> oo and epsilon -> 0 (or p, epsilon only).
RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))
RATES_P_EPS = (("dimension", "oo"), ("epsilon", "0"))
