"""bst14 Section IV: Algorithms 3 (output perturbation) and 4 (localisation), Theorems IV.1 and IV.3, Lemma IV.2.

**Algorithm 3, sensitivity.** ``L_D`` is ``n Delta``-strongly convex, so first-order optimality of
``theta = theta*(D)`` over ``C`` gives ``L_D(theta') - L_D(theta) >= (n Delta/2) ||theta' - theta||^2``
for ``theta' = theta*(D')``, and symmetrically. Adding the two inequalities, the common records
cancel: ``n Delta ||theta - theta'||^2 <= [l(theta'; d) - l(theta; d)] - [l(theta'; d') - l(theta; d')]
<= 2 L ||theta - theta'||``, hence ``||theta*(D) - theta*(D')|| <= 2 L / (n Delta)``. A solver with
certified gap ``L_D(theta_hat) - L_D(theta*) <= tau`` has ``||theta_hat - theta*|| <= sqrt(2 tau / (n
Delta))`` (same inequality), so the released point has sensitivity ``2 L/(n Delta) + 2 sqrt(2 tau/(n
Delta))``. The noise density ``exp(-rate ||b||)`` changes by at most ``exp(rate * sensitivity)`` under
a shift (triangle inequality), so ``rate = epsilon / sensitivity`` is epsilon-DP.

"""

from __future__ import annotations

import sympy as sp

from spec import composition as _composition
from spec.bst14.exponential_sampling import EXP_COEFFICIENT
from spec.bst14.symbols import (
    CONVENTIONS,
    RATES,
    S_DELTA_SC,
    S_DIAM,
    S_EPS,
    S_GAP,
    S_L,
    S_N,
    S_P,
    S_ZETA,
    Delta,
    L,
    diam,
    eps,
    gap,
    n,
    p,
    zeta,
)
from spec.record import (
    Assumption,
    BoundKind,
    Citation,
    Flag,
    FlagKind,
    Formula,
    Line,
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Quantity,
    Rounding,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register

# --------------------------------------------------------------------------- Section IV
OP_SENSITIVITY = 2 * L / (n * Delta)
OP_SENSITIVITY_TOL = OP_SENSITIVITY + 2 * sp.sqrt(2 * gap / (n * Delta))
OP_RATE = eps / OP_SENSITIVITY
OP_RATE_TOL = eps / OP_SENSITIVITY_TOL
OP_EXPECTED_NORM = p / OP_RATE
OP_RADIUS = zeta * 2 * L * p / (Delta * eps * n)

ALG_3 = register(SpecRecord(
    id="bst14.alg_3",
    title="Algorithm 3, A_out-pert: output perturbation (localisation step)",
    citation=Citation("bst14", "Algorithm 3"),
    summary=(
        "theta* = argmin_C L(theta; D); theta_0 = Pi_C(theta* + b) with density of b proportional to "
        "exp(-(n Delta epsilon/(2L)) ||b||_2); output C_0 = {theta in C: ||theta - theta_0|| <= zeta 2 L p/"
        "(Delta epsilon n)}."
    ),
    conventions=CONVENTIONS,
    symbols=(S_L, S_N, S_DELTA_SC, S_EPS, S_P, S_ZETA, S_GAP),
    formulas=(
        Formula("sensitivity", OP_SENSITIVITY, "l2 sensitivity of the exact minimiser theta*", Rounding.UP),
        Formula("noise_rate", OP_RATE, "rate c of the noise density exp(-c ||b||) (smaller is safer)", Rounding.DOWN),
        Formula("expected_noise_norm", OP_EXPECTED_NORM, "E||b|| = p/c (||b|| ~ Gamma(p, scale 1/c))",
                Rounding.NEAREST),
        Formula("radius", OP_RADIUS, "radius of C_0: zeta E||b||", Rounding.UP),
        Formula(
            "sensitivity_with_tolerance", OP_SENSITIVITY_TOL,
            "sensitivity of a solver output with certified gap tau: 2L/(n Delta) + 2 sqrt(2 tau/(n Delta))",
            Rounding.UP,
        ),
        Formula("noise_rate_with_tolerance", OP_RATE_TOL, "epsilon / sensitivity_with_tolerance", Rounding.DOWN),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP: the density of theta* + b changes by at most exp(rate ||theta*(D) - theta*(D')||) "
        "<= e^epsilon (sensitivity 2L/(n Delta), module docstring); Pi_C and C_0 are post-processing.",
        epsilon=eps,
        delta=sp.Integer(0),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "theta* must be the exact minimiser; with a solver of certified gap tau use "
            "sensitivity_with_tolerance = 2L/(n Delta) + 2 sqrt(2 tau/(n Delta)) (tau = 0 is the paper's).",
            "L(.; D) is n Delta-strongly convex, so L(theta_hat) - L(theta*) <= tau implies ||theta_hat - "
            "theta*|| <= sqrt(2 tau/(n Delta)); by the triangle inequality the solver outputs on neighbours "
            "differ by at most the stated sum. The test checks the sensitivity derivation on quadratic "
            "instances with explicit minimisers (tight in a limit) and the tolerance term on exact "
            "isotropic quadratics.",
            ("tests/spec/bst14/test_localization_algorithms.py::test_alg_3_sensitivity_with_tolerance",),
        ),
        Flag(
            FlagKind.ERRATUM,
            "The input line asks for a radius parameter zeta < 1, but Algorithm 4 calls Algorithm 3 with "
            "zeta = 3 log n > 1 (n >= 2); no condition on zeta is imposed here.",
            "C_0 must contain theta* with high probability, which needs ||b|| <= zeta E||b||, i.e. zeta > 1 "
            "(for p = 1, ||b|| is exponential and Pr[||b|| > zeta E||b||] = e^-zeta > 1/e when zeta < 1). "
            "The radius is privacy-irrelevant (post-processing).",
            ("tests/spec/bst14/test_localization_algorithms.py::test_alg_3_zeta_condition_contradicts_alg_4",),
            slug="zeta-above-one",
        ),
    ),
    notes=(
        "The sensitivity 2L/(n Delta) is derived in the module docstring (Chaudhuri et al. 2011).",
        "Sampling b: ||b|| ~ Gamma(shape p, scale 1/rate) times a uniform direction (the density is "
        "radial); E||b|| = 2 L p/(n Delta epsilon).",
        "The paper calls the normalising constant alpha (not the penalty alpha of Section III-C).",
    ),
    pseudocode=(
        Line("L1", "L(theta; D) = sum_i l(theta; d_i)."),
        Line("L2", "Find theta* = argmin over C of L(theta; D)."),
        Line("L3", "theta_0 = Pi_C(theta* + b), b with density proportional to exp(-(n Delta epsilon / (2 L)) ||b||_2)."),
        Line("L4", "Output C_0 = {theta in C: ||theta - theta_0||_2 <= zeta 2 L p / (Delta epsilon n)}."),
    ),
))

_HALF = {eps: eps / 2}
ALG_4_ZETA = 3 * sp.log(n)
ALG_4_RADIUS = OP_RADIUS.subs({eps: eps / 2, zeta: ALG_4_ZETA}, simultaneous=True)
ALG_4_COEFFICIENT = EXP_COEFFICIENT.subs({eps: eps / 2, diam: 2 * ALG_4_RADIUS}, simultaneous=True)
#: diam(C_0) <= min(||C||_2, 2 radius): C_0 lies in C and in a ball of that radius.
ALG_4_LOCALIZED_DIAMETER = sp.Min(diam, 2 * ALG_4_RADIUS)

ALG_4 = register(SpecRecord(
    id="bst14.alg_4",
    title="Algorithm 4: output-perturbation-based generic algorithm (localisation)",
    citation=Citation("bst14", "Algorithm 4"),
    summary=(
        "Run Algorithm 3 at epsilon/2 with zeta = 3 log n to get C_0, then any epsilon/2-DP algorithm for "
        "Lipschitz losses (e.g. Algorithm 2) on C_0."
    ),
    conventions=CONVENTIONS,
    symbols=(S_L, S_N, S_DELTA_SC, S_EPS, S_P, S_GAP, S_DIAM),
    assumptions=(Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2 (zeta = 3 ln n must be > 0)"),),
    formulas=(
        Formula("epsilon_localization", eps / 2, "budget of the Algorithm 3 step", Rounding.DOWN),
        Formula("epsilon_generic", eps / 2, "budget of the generic step on C_0", Rounding.DOWN),
        Formula("zeta", ALG_4_ZETA, "radius parameter passed to Algorithm 3", Rounding.UP),
        Formula("noise_rate", OP_RATE.subs(_HALF), "Algorithm 3's rate at epsilon/2", Rounding.DOWN),
        Formula(
            "noise_rate_with_tolerance", OP_RATE_TOL.subs(_HALF),
            "Algorithm 3's rate at epsilon/2 for a solver with certified gap tau", Rounding.DOWN,
        ),
        Formula("radius", ALG_4_RADIUS, "radius of C_0: 3 ln(n) 4 L p/(Delta epsilon n)", Rounding.UP),
        Formula(
            "localized_diameter", ALG_4_LOCALIZED_DIAMETER,
            "bound min(||C||_2, 2 radius) on diam(C_0), the one the generic step's coefficient may use",
            Rounding.UP,
        ),
        Formula(
            "generic_coefficient", ALG_4_COEFFICIENT,
            "Algorithm 2's coefficient at epsilon/2 on C_0, whose diameter is at most 2 radius", Rounding.DOWN,
        ),
    ),
    notes=(
        "C_0 depends on the data, but it is the output of an epsilon/2-DP step; the second step is "
        "epsilon/2-DP for every fixed C_0, so adaptive basic composition applies (bst14.thm_IV_1).",
        "generic_coefficient bounds diam(C_0) by twice the radius (C_0 is inside a ball of that radius).",
    ),
    pseudocode=(
        Line("L1", "Run Algorithm 3 with privacy parameter epsilon/2 and zeta = 3 log(n); it outputs C_0."),
        Line("L2", "Run a generic epsilon/2-DP algorithm for Lipschitz losses (e.g. Algorithm 2) on C_0 and output theta_priv."),
    ),
))

_BASIC = _composition.BASIC
_THM_IV_1_EPS = _BASIC.formula("epsilon_total").expr.subs(
    {_BASIC.symbol("steps"): 2, _BASIC.symbol("epsilon"): eps / 2}, simultaneous=True,
)
THM_IV_1 = register(SpecRecord(
    id="bst14.thm_IV_1",
    title="Privacy of Algorithm 4",
    citation=Citation("bst14", "Theorem IV.1"),
    summary="Algorithm 4 is epsilon-differentially private.",
    conventions=CONVENTIONS,
    symbols=(S_EPS,),
    formulas=(Formula("epsilon_total", _THM_IV_1_EPS, "basic composition of epsilon/2 and epsilon/2", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP: Algorithm 3 at epsilon/2 (bst14.alg_3) and an epsilon/2-DP algorithm on C_0, composed "
        "by composition.basic (k = 2 mechanisms of epsilon/2).",
        epsilon=_THM_IV_1_EPS,
        delta=sp.Integer(0),
    ),
))

LOCALIZED_DIAMETER = L * p * sp.log(n) / (Delta * eps * n)
_GAMMA_Z = sp.Symbol("z", positive=True)
#: Pr[||b|| > radius] for Algorithm 4: ||b|| ~ Gamma(p, scale 1/c), radius = 3 ln(n) p/c.
MISS_PROBABILITY = sp.uppergamma(p, ALG_4_ZETA * p) / sp.gamma(p)
_F = sp.Function("F")

LEMMA_IV_2 = register(SpecRecord(
    id="bst14.lemma_IV_2",
    title="Generic utility of Algorithm 4",
    citation=Citation("bst14", "Lemma IV.2"),
    summary=(
        "If the generic algorithm has E[excess risk over C~] <= F(p, n, epsilon, L, ||C~||_2) for every "
        "convex C~ inside C, Algorithm 4 has E[excess risk] = O(F(p, n, epsilon, L, L p log(n)/(Delta "
        "epsilon n)))."
    ),
    conventions=CONVENTIONS,
    symbols=(S_P, S_N, S_EPS, S_L, S_DELTA_SC),
    assumptions=(Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2 (so that log n > 0)"),),
    formulas=(
        Formula("localized_diameter", LOCALIZED_DIAMETER, "order of diam(C_0) passed to F", Rounding.UP),
        Formula(
            "miss_probability", MISS_PROBABILITY,
            "Pr[theta* not in C_0] <= Pr[||b|| > radius] = Q(p, 3 p ln n) (regularised upper gamma)",
            Rounding.UP,
        ),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, _F(p, n, eps, L, LOCALIZED_DIAMETER), BoundKind.BIG_O,
            "In expectation over the algorithm's coins; F is the generic algorithm's guarantee.",
        ),
    ),
    notes=(
        "theta* is in C_0 whenever ||b|| <= radius, since the projection is non-expansive and theta* is "
        "in C: ||theta_0 - theta*|| <= ||b||. The proof is in the full version.",
    ),
))

THM_IV_3 = register(SpecRecord(
    id="bst14.thm_IV_3",
    title="Utility of Algorithm 4 with Algorithm 2 as the generic step",
    citation=Citation("bst14", "Theorem IV.3"),
    summary="E[L(theta_priv; D) - L(theta*; D)] = O(p^2 L^2 log(n)/(n Delta epsilon^2)).",
    conventions=CONVENTIONS,
    symbols=(S_P, S_N, S_EPS, S_L, S_DELTA_SC),
    assumptions=(Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2"),),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP, Neighbouring.REPLACE_ONE, "epsilon-DP (bst14.thm_IV_1).",
        epsilon=eps, delta=sp.Integer(0),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, p**2 * L**2 * sp.log(n) / (n * Delta * eps**2), BoundKind.BIG_O,
            "In expectation over the algorithm's coins, for every D; Theorem III.2 composed with Lemma IV.2.",
            RATES,
        ),
    ),
))



def localization_parameters(*, epsilon: float, lipschitz: float, n: int, strong_convexity: float,
                            dimension: int, solver_tolerance: float = 0.0) -> dict[str, float]:
    """Every constant of Algorithm 4 at total budget ``epsilon`` (record ``bst14.alg_4``, evaluated).

    Returns
    -------
    dict
        ``epsilon_localization``, ``epsilon_generic`` (down), ``zeta`` (up), ``noise_rate`` (down; with the
        solver-gap correction when ``solver_tolerance > 0``), ``radius`` (up) and ``generic_coefficient``
        (Algorithm 2's coefficient at epsilon/2 on C_0, down).

    Privacy
    -------
    ``bst14.thm_IV_1``: epsilon-DP when the generic step uses ``epsilon_generic``.
    """
    values = dict(epsilon=epsilon, lipschitz=lipschitz, n=n, strong_convexity=strong_convexity,
                  dimension=dimension)
    ALG_4.check(solver_tolerance=solver_tolerance, **values)
    rate = (ALG_4.evaluate("noise_rate", **values) if solver_tolerance == 0
            else ALG_4.evaluate("noise_rate_with_tolerance", solver_tolerance=solver_tolerance, **values))
    return {
        "epsilon_localization": ALG_4.evaluate("epsilon_localization", epsilon=epsilon),
        "epsilon_generic": ALG_4.evaluate("epsilon_generic", epsilon=epsilon),
        "zeta": ALG_4.evaluate("zeta", n=n),
        "noise_rate": rate,
        "radius": ALG_4.evaluate("radius", **values),
        "generic_coefficient": ALG_4.evaluate("generic_coefficient", **values),
    }
