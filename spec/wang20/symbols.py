"""Shared symbols, conventions and assumptions of the wang20 records.

wang20 reuses letters: ``beta`` is the smoothness of the population risk (Assumption 1), the
Catoni-Giulini noise precision (eq. 9, Lemma 3, Algorithm 4) and NRS07's smoothing parameter
(Algorithm 1); ``s`` is sample-and-aggregate's multiplicity (Algorithm 1), Bun-Steinke's shift
(Algorithm 2) and the Catoni-Giulini scale (Lemma 3); ``m`` is the number of subsets (Algorithm 1)
and the trimming count (Algorithm 2); ``epsilon~`` is a CDP epsilon in Algorithm 3 and a zCDP rho in
Algorithm 4. Each meaning has its own sympy symbol here and its own canonical name; the symbols
are displayed with a subscript where the paper's letter is ambiguous (``beta_CG``).
"""

from __future__ import annotations

import sympy as sp

from spec.record import Assumption, Conventions, LossForm, Neighbouring, Symbol

__all__ = [
    "eps", "delta", "n", "d", "T", "v", "delta_p", "beta_cg", "s_cg", "alpha", "beta", "diam",
    "tau", "lo", "hi", "m_trim", "m_sub", "variance", "risk_min", "radius", "Lambda", "G",
    "A_LOG", "A_LOG_PRIME",
    "S_EPS", "S_DELTA", "S_N", "S_DIM", "S_STEPS", "S_V", "S_DELTA_P", "S_BETA_CG", "S_S_CG",
    "S_ALPHA", "S_BETA", "S_DIAM", "S_TAU", "S_LO", "S_HI", "S_TRIM", "S_SUBSETS", "S_VARIANCE",
    "S_RISK_MIN", "S_RADIUS", "S_LAMBDA", "S_G",
    "CONVENTIONS", "PRIMITIVE_CONVENTIONS",
    "DELTA_LT_1", "EPSILON_LE_1", "DELTA_PRIME_LT_1", "MEAN_RANGE", "TRIM_LT_HALF", "N_GE_2",
    "SMOOTHNESS_GE_STRONG_CONVEXITY", "RATES",
]

# --------------------------------------------------------------------------- sympy symbols
eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
n = sp.Symbol("n", positive=True, integer=True)
d = sp.Symbol("d", positive=True, integer=True)
T = sp.Symbol("T", positive=True, integer=True)
v = sp.Symbol("v", positive=True)  # Assumption 4: E[(grad_j l)^2] <= v
delta_p = sp.Symbol("delta'", positive=True)  # failure probability of the utility statements
beta_cg = sp.Symbol("beta_CG", positive=True)  # Catoni-Giulini noise precision (wang20 "beta")
s_cg = sp.Symbol("s", positive=True)  # Catoni-Giulini scale
alpha = sp.Symbol("alpha", positive=True)  # strong convexity
beta = sp.Symbol("beta", positive=True)  # smoothness of the population risk
diam = sp.Symbol("Delta", positive=True)  # diameter of W
tau = sp.Symbol("tau", positive=True)  # sub-exponential scale
lo = sp.Symbol("a", real=True)
hi = sp.Symbol("b", real=True)
m_trim = sp.Symbol("m", nonnegative=True, integer=True)  # trimming count (Algorithm 2)
m_sub = sp.Symbol("m", positive=True, integer=True)  # number of subsets (Algorithm 1)
variance = sp.Symbol("sigma^2", positive=True)  # the data's variance (Theorem 3)
risk_min = sp.Symbol("L_D(w*)", positive=True)
radius = sp.Symbol("r", positive=True)
Lambda = sp.Symbol("Lambda", positive=True)
G = sp.Symbol("G", positive=True)  # Lemma 1: E||grad l(w*, x)||^2 <= G^2

#: ln(1/delta) and ln(1/delta'), the logarithms every calibration uses (natural logarithms).
A_LOG = sp.log(1 / delta)
A_LOG_PRIME = sp.log(1 / delta_p)

# --------------------------------------------------------------------------- canonical names
S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
S_DELTA = Symbol("delta", delta, "failure probability delta of the privacy claim")
S_N = Symbol("n", n, "number of records")
S_DIM = Symbol("dimension", d, "dimension d of w")
S_STEPS = Symbol("steps", T, "number of gradient-descent iterations T")
S_V = Symbol("second_moment", v, "known bound v on E[(grad_j l(w, x))^2] for every j and w (Assumption 4)")
S_DELTA_P = Symbol("failure_probability", delta_p, "failure probability delta' of the utility statement")
S_BETA_CG = Symbol(
    "noise_precision", beta_cg, "precision beta of the multiplicative noise N(0, 1/beta) (wang20 beta of eq. 9)"
)
S_S_CG = Symbol("truncation_scale", s_cg, "Catoni-Giulini scale s (each value is divided by s before phi)")
S_ALPHA = Symbol("strong_convexity", alpha, "strong convexity alpha of the population risk L_D")
S_BETA = Symbol("smoothness", beta, "smoothness beta of the population risk L_D (Assumption 1.2)")
S_DIAM = Symbol("diameter", diam, "diameter Delta of the constraint set W (Assumption 1.3)")
S_TAU = Symbol("subexponential_scale", tau, "tau: every gradient coordinate is tau-sub-exponential")
S_LO = Symbol("mean_lower", lo, "a: lower end of the public range of the mean (Assumption 3.2)")
S_HI = Symbol("mean_upper", hi, "b: upper end of the public range of the mean (Assumption 3.2)")
S_TRIM = Symbol("trim", m_trim, "trimming count m: order statistics removed from each end")
S_SUBSETS = Symbol("subsets", m_sub, "number m of random subsets of size n/m")
S_VARIANCE = Symbol("variance", variance, "variance sigma^2 of the data distribution")
S_RISK_MIN = Symbol("minimal_risk", risk_min, "minimal population risk L_D(w*)")
S_RADIUS = Symbol("cluster_radius", radius, "radius r of eq. (1): Pr[d(f(D_S), c) <= r] >= 3/4")
S_LAMBDA = Symbol("output_bound", Lambda, "bound Lambda on the l1 norm of f's outputs")
S_G = Symbol("gradient_bound", G, "G with E||grad l(w*, x)||_2^2 <= G^2")

# --------------------------------------------------------------------------- conventions
CONVENTIONS = Conventions(
    LossForm.AVERAGE,
    Neighbouring.REPLACE_ONE,
    (
        "Empirical risk L^(w, D) = (1/n) sum_i l(w, x_i); the utility claims bound the excess "
        "population risk L_D(w) - L_D(w*) of a w in W.",
        "Neighbours differ in one record (Definition 1, 'differ by only one entry').",
        "Heavy tails: no Lipschitz constant and no bound on the data; privacy comes from smooth "
        "sensitivity (Algorithms 1-3) or from a bounded soft truncation (Algorithm 4).",
        "alpha: strong convexity, beta: smoothness (of the population risk), Delta: diameter of W, "
        "d: dimension; log is the natural logarithm.",
    ),
)
#: For records about a scalar mechanism (no loss): the mean estimators and the noise laws.
PRIMITIVE_CONVENTIONS = Conventions(
    LossForm.NOT_APPLICABLE,
    Neighbouring.REPLACE_ONE,
    ("A mechanism on a dataset of n reals; neighbours differ in one value.",),
)

# --------------------------------------------------------------------------- assumptions
DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "0 < delta < 1")
EPSILON_LE_1 = Assumption("epsilon_le_1", sp.Le(eps, 1), "0 < epsilon <= 1 (as the cited theorem states)")
DELTA_PRIME_LT_1 = Assumption("failure_probability_lt_1", sp.Lt(delta_p, 1), "0 < delta' < 1")
MEAN_RANGE = Assumption("mean_range", sp.Lt(lo, hi), "a < b")
TRIM_LT_HALF = Assumption("trim_lt_half", sp.Lt(2 * m_trim, n), "2 m < n (at least one value is averaged)")
N_GE_2 = Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2 (so that log n > 0)")
SMOOTHNESS_GE_STRONG_CONVEXITY = Assumption(
    "smoothness_ge_strong_convexity",
    sp.Ge(beta, alpha),
    "beta >= alpha: a beta-smooth function cannot be more than beta-strongly convex",
)

#: Rates of the utility claims: n -> oo, d -> oo, epsilon -> 0.
RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))
