"""bst14 Section V: the lower bounds (Lemma V.1, Theorems V.2-V.5).
"""

from __future__ import annotations

import sympy as sp

from spec.bst14.symbols import (
    CONVENTIONS,
    DELTA_LT_1_OVER_N,
    RATES,
    S_DELTA,
    S_EPS,
    S_N,
    S_P,
    eps,
    n,
    p,
)
from spec.record import (
    Assumption,
    BoundKind,
    Citation,
    Conventions,
    Flag,
    FlagKind,
    Formula,
    LossForm,
    Neighbouring,
    Quantity,
    Rounding,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register

# --------------------------------------------------------------------------- Section V
_INSTANCE_NOTE = (
    "Instances: records in {-1/sqrt(p), 1/sqrt(p)}^p (unit norm), C the unit ball B (diameter 2). "
    "V-A: l(theta; d) = -<theta, d>; V-B: l(theta; d) = ||theta - d||^2/2. 'With probability' is over "
    "the algorithm's coins, for some dataset of the family."
)
_LB_CONVENTIONS = Conventions(LossForm.SUM, Neighbouring.REPLACE_ONE, CONVENTIONS.notes + (_INSTANCE_NOTE,))
_LB_RATES = RATES

LEMMA_V_1 = register(SpecRecord(
    id="bst14.lemma_V_1",
    title="Lower bounds for 1-way marginals",
    citation=Citation("bst14", "Lemma V.1"),
    summary=(
        "(1) For every epsilon-DP A there is D in {+-1/sqrt(p)}^p with ||sum d_i|| in [M-1, M+1], M = "
        "Omega(min(n, p/epsilon)), such that with probability >= 1/2, ||A(D) - q(D)|| = Omega(min(1, "
        "p/(epsilon n))). (2) For (epsilon, delta)-DP with delta = o(1/n): M = Omega(min(n, sqrt(p)/"
        "epsilon)) and, with probability >= 1/3, ||A(D) - q(D)|| = Omega(min(1, sqrt(p)/(epsilon n)))."
    ),
    conventions=_LB_CONVENTIONS,
    symbols=(S_N, S_P, S_EPS, S_DELTA),
    formulas=(
        Formula("M_pure", sp.Min(n, p / eps), "norm of sum d_i for part 1 (up to constants)", Rounding.NEAREST),
        Formula("M_approx", sp.Min(n, sp.sqrt(p) / eps), "norm of sum d_i for part 2 (up to constants)",
                Rounding.NEAREST),
        Formula("error_pure", sp.Min(1, p / (eps * n)), "part 1 error, both branches", Rounding.NEAREST),
        Formula("error_approx", sp.Min(1, sp.sqrt(p) / (eps * n)), "part 2 error, both branches", Rounding.NEAREST),
    ),
    utility=(
        UtilityClaim(
            Quantity.ESTIMATION_ERROR, p / (eps * n), BoundKind.BIG_OMEGA,
            "Part 1 (epsilon-DP), with probability >= 1/2; the branch of Omega(min(1, p/(epsilon n))) "
            "that applies when p <= epsilon n.",
            _LB_RATES,
        ),
        UtilityClaim(
            Quantity.ESTIMATION_ERROR, sp.sqrt(p) / (eps * n), BoundKind.BIG_OMEGA,
            "Part 2 ((epsilon, delta)-DP, delta = o(1/n)), with probability >= 1/3; the branch of "
            "Omega(min(1, sqrt(p)/(epsilon n))) that applies when sqrt(p) <= epsilon n.",
            _LB_RATES,
        ),
    ),
    flags=(
        Flag(
            FlagKind.RECONSTRUCTED,
            "Part 1 prints 'Omega(1, p/(epsilon n))'; read as Omega(min(1, p/(epsilon n))), as in part 2.",
            "Theorems V.2 and V.4 use part 1 exactly as the min: V.4's Omega(min(n, p^2/(epsilon^2 n))) is "
            "(n/2) min(1, p/(epsilon n))^2 by identity (3). The test checks that reduction with sympy.",
            ("tests/spec/bst14/test_lower_bounds.py::test_lower_bounds_follow_from_lemma_V_1",),
        ),
    ),
    notes=("q(D) = (1/n) sum_i d_i. Proved in the full version (Hardt-Talwar 2010; Bun-Ullman-Vadhan 2014).",),
))


def _lower_bound_record(rid, item, title, bound, branch, branch_text, model, prob, instance, extra=()):
    assumptions = [Assumption("branch_active", branch, branch_text)]
    symbols = [S_N, S_P, S_EPS]
    if model == "approx":
        assumptions.append(DELTA_LT_1_OVER_N)
        symbols.append(S_DELTA)
    return register(SpecRecord(
        id=rid,
        title=title,
        citation=Citation("bst14", item, ("3",) if instance == "V-B" else ()),
        summary=(
            f"For every {'epsilon' if model == 'pure' else '(epsilon, delta)'}-DP algorithm there is a "
            f"dataset of the {instance} family on which, with probability >= {prob}, the excess empirical "
            f"risk is Omega(min(n, {sp.sstr(bound)}))."
        ),
        conventions=_LB_CONVENTIONS,
        symbols=tuple(symbols),
        assumptions=tuple(assumptions),
        formulas=(
            Formula("bound_with_min", sp.Min(n, bound), "both branches of the Omega(min(n, .))", Rounding.NEAREST),
        ),
        utility=(
            UtilityClaim(
                Quantity.EXCESS_EMPIRICAL_RISK, bound, BoundKind.BIG_OMEGA,
                f"With probability >= {prob} over the coins; the non-trivial branch of Omega(min(n, .)), "
                f"active when {branch_text}.",
                _LB_RATES,
            ),
        ),
        flags=extra,
        notes=(
            "Instance " + instance + (": L(theta) - L(theta*) = ||sum d_i|| (1 - <theta, theta*>) >= "
                                      "||sum d_i|| ||theta - theta*||^2/2, theta* = sum d_i/||sum d_i||."
                                      if instance == "V-A" else
                                      ": theta* = q(D) and L(theta) - L(theta*) = (n/2) ||theta - q(D)||^2 "
                                      "(equation (3))."),
            "The instance's C is the unit ball (diameter 2, not the table's 1); constants only.",
        ),
    ))


_VB_ERRATUM = Flag(
    FlagKind.ERRATUM,
    "Section V-B says l(theta; d) = ||theta - d||^2/2 is 1-Lipschitz on the unit ball; its gradient theta - d "
    "reaches norm 2 (theta = -d, ||d|| = 1), so it is 2-Lipschitz.",
    "Affects constants only: l/2 is 1-Lipschitz and 1/2-strongly convex, and the lower bound scales by 1/2. "
    "The test computes the largest gradient norm over the unit ball for data in {+-1/sqrt(p)}^p.",
    ("tests/spec/bst14/test_lower_bounds.py::test_thm_V_4_lipschitz_erratum",),
)

THM_V_2 = _lower_bound_record(
    "bst14.thm_V_2", "Theorem V.2", "Lower bound, epsilon-DP, Lipschitz losses",
    p / eps, sp.Le(p, eps * n), "p/epsilon <= n", "pure", "1/2", "V-A",
)
THM_V_3 = _lower_bound_record(
    "bst14.thm_V_3", "Theorem V.3", "Lower bound, (epsilon, delta)-DP, Lipschitz losses",
    sp.sqrt(p) / eps, sp.Le(sp.sqrt(p), eps * n), "sqrt(p)/epsilon <= n", "approx", "1/3", "V-A",
)
THM_V_4 = _lower_bound_record(
    "bst14.thm_V_4", "Theorem V.4", "Lower bound, epsilon-DP, strongly convex losses",
    p**2 / (eps**2 * n), sp.Le(p, eps * n), "p^2/(epsilon^2 n) <= n, i.e. p <= epsilon n", "pure", "1/2", "V-B",
    (_VB_ERRATUM,),
)
THM_V_5 = _lower_bound_record(
    "bst14.thm_V_5", "Theorem V.5", "Lower bound, (epsilon, delta)-DP, strongly convex losses",
    p / (eps**2 * n), sp.Le(p, eps**2 * n**2), "p/(epsilon^2 n) <= n", "approx", "1/3", "V-B",
    (_VB_ERRATUM,),
)
