"""The paper's symbols, their canonical names, and the conventions shared by every wang19 record.

Wang and Xu (2019) write ``L`` for the *smoothness* and ``G`` for the *Lipschitz* constant (bst14 and
zhang17 use ``L`` for the Lipschitz constant), ``p`` for the dimension and ``G_C`` for the Gaussian width
of the constraint set. Paper symbols stay inside the records; outside them everything is passed by the
canonical names of :mod:`spec.vocabulary` (``lipschitz``, ``smoothness``, ``dimension``,
``gaussian_width``, ...).

Reading of ``||C||_2``. The paper never defines it. Its Frank-Wolfe analysis needs
``||v - x||_2 <= ||C||_2`` for ``v, x`` in ``C``, so it is read as the **l2 diameter** (canonical
``diameter``, as in bst14); for the centrally symmetric sets of Theorems 4 and 5 the largest l2 norm
of a point of ``C`` is then ``||C||_2 / 2``. Under the other reading (largest norm) the paper's step
sizes would be at most four times larger; the derivations in the records hold for every step size
they state, so both readings are covered. ``||C||_1`` (Theorem 6) is handled through the **l1
diameter** (canonical ``l1_diameter``; the paper's largest l1 norm is half of it for symmetric sets).

This module defines symbols and helpers only; it registers no record.
"""

from __future__ import annotations

from typing import Mapping

import sympy as sp

from spec import cache
from spec.record import ALPHA, Assumption, Conventions, LossForm, Neighbouring, SpecRecord, Symbol

__all__ = [
    "G", "L", "n", "p", "eps", "delta", "T", "sigma", "rho", "gamma", "h0", "D", "D1", "Dinf",
    "GC", "A", "lam", "alpha_w", "tau", "beta", "eta", "H", "LH", "t_tail", "ORDER",
    "S_G", "S_L", "S_N", "S_P", "S_EPS", "S_DELTA", "S_T", "S_SIGMA", "S_RHO", "S_GAMMA", "S_H0",
    "S_D", "S_D1", "S_DINF", "S_GC", "S_A", "S_LAM", "S_ALPHA_W", "S_TAU", "S_BETA", "S_ETA",
    "S_H", "S_LH", "S_TAIL", "S_ORDER",
    "LOG_INV_DELTA", "CONVENTIONS", "OPTIMISATION_CONVENTIONS", "DELTA_LT_1", "from_record",
    "minimise_in_steps",
]

# --------------------------------------------------------------------------- sympy symbols
G = sp.Symbol("G", positive=True)  # Lipschitz constant (l2, or l1 for Algorithm 4)
L = sp.Symbol("L", positive=True)  # smoothness
n = sp.Symbol("n", positive=True, integer=True)
p = sp.Symbol("p", positive=True, integer=True)
eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
T = sp.Symbol("T", positive=True, integer=True)
sigma = sp.Symbol("sigma", positive=True)
rho = sp.Symbol("rho", positive=True)
gamma = sp.Symbol("gamma", positive=True)  # step size gamma_k (constant in every theorem)
h0 = sp.Symbol("h_0", positive=True)  # public bound on F^r(x_1) - inf_C F^r
D = sp.Symbol("||C||_2", positive=True)  # l2 diameter
D1 = sp.Symbol("D_1", positive=True)  # l1 diameter
Dinf = sp.Symbol("D_inf", positive=True)  # l-infinity diameter (edge of a box)
GC = sp.Symbol("G_C", positive=True)  # Gaussian width
A = sp.Symbol("|A|", positive=True, integer=True)  # number of vertices of C = conv(A)
lam = sp.Symbol("lambda", positive=True)  # regularisation weight
alpha_w = sp.Symbol("alpha_w", positive=True)  # modulus of a distance-generating function
tau = sp.Symbol("tau", positive=True)  # sub-Gaussian parameter (Assumption 2)
beta = sp.Symbol("beta", positive=True)  # failure probability of Theorem 3
eta = sp.Symbol("eta", positive=True)  # failure probability of Theorem 6
H = sp.Symbol("H", positive=True)  # Hessian bound (Assumption 3)
LH = sp.Symbol("L_H", positive=True)  # Hessian Lipschitz constant (Assumption 3's second L)
t_tail = sp.Symbol("t", nonnegative=True)  # tail parameter of Lemma 3
ORDER = ALPHA  # Renyi order (the symbol spec.record allows in every record)

# --------------------------------------------------------------------------- canonical names
S_G = Symbol("lipschitz", G, "G: every f(., z) is G-Lipschitz (l2 norm; l1 norm for Algorithm 4)")
S_L = Symbol("smoothness", L, "L: F is L-smooth with respect to the l2 norm")
S_N = Symbol("n", n, "number of records")
S_P = Symbol("dimension", p, "dimension p of the parameter space")
S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
S_DELTA = Symbol("delta", delta, "failure probability delta")
S_T = Symbol("steps", T, "number of iterations T")
S_SIGMA = Symbol("sigma", sigma, "standard deviation of the Gaussian noise per coordinate and step")
S_RHO = Symbol("rho", rho, "zCDP parameter rho of the whole run")
S_GAMMA = Symbol("learning_rate", gamma, "step size gamma_k (the same for every k)")
S_H0 = Symbol("initial_gap", h0, "public bound h_0 >= F^r(x_1) - inf_C F^r (never computed from the data)")
S_D = Symbol("diameter", D, "||C||_2, read as the l2 diameter of C")
S_D1 = Symbol("l1_diameter", D1, "l1 diameter of C (the unit l1 ball has 2)")
S_DINF = Symbol("linf_diameter", Dinf, "l-infinity diameter of a box (its edge length)")
S_GC = Symbol("gaussian_width", GC, "Gaussian width G_C of C (Definition 8)")
S_A = Symbol("candidates", A, "|A|: number of points whose convex hull is C (2p for the l1 ball)")
S_LAM = Symbol("regularisation", lam, "weight lambda of the regulariser")
S_ALPHA_W = Symbol("modulus", alpha_w, "modulus alpha of the distance-generating function w")
S_TAU = Symbol("sub_gaussian", tau, "tau: the per-example gradient is tau-sub-Gaussian (Assumption 2)")
S_BETA = Symbol("failure_probability", beta, "beta: the bound may fail with probability beta")
S_ETA = Symbol("failure_probability", eta, "eta: the bound may fail with probability eta")
S_H = Symbol("hessian_bound", H, "H: bound on the population Hessian (Assumption 3)")
S_LH = Symbol("hessian_lipschitz", LH, "Lipschitz constant of the per-example Hessian (Assumption 3's L)")
S_TAIL = Symbol("tail", t_tail, "tail parameter t: the bound fails with probability at most e^-t")
S_ORDER = Symbol("order", ORDER, "Renyi order alpha > 1")

#: ``ln(1/delta)``; the paper writes log and ln interchangeably, and means the natural logarithm.
LOG_INV_DELTA = sp.log(1 / delta)

DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "0 < delta < 1")

_NOTES = (
    "F(x) = (1/n) sum_i f(x, z_i), the average, plus a convex regulariser r; the objective is "
    "F^r = F + r over a closed convex C.",
    "Neighbours differ by one entry (replace-one): |D| = |D'| = n. The average gradient then has l2 "
    "sensitivity 2G/n.",
    "L is the smoothness and G the Lipschitz constant (bst14 and zhang17 use L for the Lipschitz "
    "constant); p is the dimension; log is the natural logarithm.",
    "||C||_2 is read as the l2 diameter of C (spec.wang19.symbols).",
)

#: Conventions of every record about the paper's algorithms and theorems.
CONVENTIONS = Conventions(LossForm.AVERAGE, Neighbouring.REPLACE_ONE, _NOTES)

#: Conventions of statements about optimisation or geometry only (no privacy, no data).
OPTIMISATION_CONVENTIONS = Conventions(
    LossForm.NOT_APPLICABLE,
    Neighbouring.REPLACE_ONE,
    ("A statement about optimisation or geometry; no privacy is claimed. Replace-one is recorded "
     "because it is the paper's relation.",) + _NOTES[3:],
)


def from_record(record: SpecRecord, formula: str, mapping: Mapping[str, sp.Basic]) -> sp.Basic:
    """``record``'s formula with its canonical symbols replaced (the one source of truth, reused).

    Parameters
    ----------
    record : SpecRecord
        The record that owns the expression (e.g. ``zcdp.gaussian_calibration``).
    formula : str
        Name of the formula.
    mapping : mapping of str to sympy expression
        Canonical name -> the expression (in wang19's symbols) that replaces it.

    Returns
    -------
    sympy expression
        The substitution is simultaneous, so a mapping may reuse the names it replaces.
    """
    subs = {record.symbol(name): value for name, value in mapping.items()}
    return record.formula(formula).expr.subs(subs, simultaneous=True)


@cache.derivation  # its own dummies would change every key inside: cache the whole derivation
def minimise_in_steps(expr: sp.Basic) -> tuple[sp.Basic, sp.Basic]:
    """The minimiser over real ``T > 0`` of a utility bound and the bound there.

    The bounds of Theorems 2, 4, 5 and 6 have the form ``A T^-k + B T^k`` (``k`` = 1 or 1/2, the noise
    growing with ``T``); the stationary point is unique and is the minimum.

    Parameters
    ----------
    expr : sympy expression
        In the symbol ``T`` of this module (and others).

    Returns
    -------
    (T*, expr at T*)
        Both simplified; ``T*`` is real (round it up to an integer before use).
    """
    t_real = sp.Dummy("T_real", positive=True)
    a = sp.Dummy("a", positive=True)  # ln(1/delta) > 0 for delta < 1, which sympy cannot infer from delta
    f = expr.subs(delta, sp.exp(-a)).subs(T, t_real)
    roots = [r for r in cache.solve(sp.diff(f, t_real), t_real) if r.is_positive is not False]
    if len(roots) != 1:
        raise ValueError(f"expected one stationary point in T, found {roots}")
    (t_star,) = roots
    back = {a: LOG_INV_DELTA}
    return cache.simplify(t_star).subs(back), cache.simplify(f.subs(t_real, t_star)).subs(back)
