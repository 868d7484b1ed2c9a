r"""wang19 Preliminaries: Definitions 2-7, the gradient mapping (2), the Frank-Wolfe gap, Lemmas 1 and 3.

Records
-------
``wang19.def_2``  Lipschitz functions (l2 and l1), with the l1 case's typo fixed; the sensitivity 2G/n.
``wang19.def_3``  Smoothness; the smoothness with respect to the Minkowski norm of C (Theorem 5).
``wang19.def_4``  Differential privacy, replace-one.
``wang19.def_5``  The Gaussian mechanism (the classical calibration, as printed).
``wang19.def_6``  The exponential mechanism (textbook coefficient).
``wang19.def_7``  The Minkowski norm of a centrally symmetric C and its dual.
``wang19.gradient_mapping``  The generalised projected gradient, equation (2).
``wang19.frank_wolfe_gap``   The Frank-Wolfe gap (its definition was garbled in extraction).
``wang19.lemma_1``  Advanced composition (Form B), with the extraction garble fixed.
``wang19.lemma_3``  Utility of the exponential mechanism, plus its expectation.

Derivations
-----------
**Sensitivity.** If every ``f(., z)`` is ``G``-Lipschitz in l2 then ``||grad f(x, z)||_2 <= G``; replacing one
record changes ``grad F = (1/n) sum_i grad f(x, z_i)`` by ``(grad f(x, z) - grad f(x, z'))/n``, of l2 norm at most
``2G/n``. If ``f(., z)`` is ``G``-Lipschitz in l1 then ``|<grad f, u>| <= G ||u||_1`` for all ``u``, i.e.
``||grad f||_inf <= G`` (the dual norm), and the same argument gives l-infinity sensitivity ``2G/n``.

**Smoothness in the Minkowski norm.** Let ``C`` be centrally symmetric with largest l2 norm ``r``. Then
``||x||_2 <= r ||x||_C`` and ``||g||_{C*} = max_{w in C} <w, g> <= r ||g||_2``, so an ``L``-smooth ``F`` (l2)
satisfies ``||grad F(x) - grad F(y)||_{C*} <= r L ||x - y||_2 <= r^2 L ||x - y||_C``: ``F`` is ``L r^2``-smooth
w.r.t. ``||.||_C``, with equality for the l2 ball and ``F = (L/2)||x||^2``. With ``||C||_2`` the diameter,
``r = ||C||_2 / 2``.

**Expected score gap of the exponential mechanism.** With coefficient ``c`` the gap ``g = OPT - u(output)``
satisfies ``Pr[g >= s] <= |R| e^{-c s}`` (Lemma 3's proof), so
``E g = int_0^oo Pr[g >= s] ds <= int_0^oo min(1, |R| e^{-c s}) ds = (ln |R| + 1)/c``; with
``c = epsilon/(2 Delta_u)`` this is ``(2 Delta_u/epsilon)(ln |R| + 1)``.
"""

from __future__ import annotations

from spec import composition as _composition
from spec import exponential as _exponential
from spec import gaussian as _gaussian
from spec.record import (
    Citation,
    Conventions,
    Flag,
    FlagKind,
    Formula,
    LossForm,
    Neighbouring,
    Rounding,
    SpecRecord,
)
from spec.registry import register
from spec.wang19.symbols import (
    CONVENTIONS,
    OPTIMISATION_CONVENTIONS,
    D,
    G,
    L,
    S_D,
    S_G,
    S_GAMMA,
    S_L,
    S_LAM,
    S_N,
    gamma,
    lam,
    n,
)

__all__ = [
    "SENSITIVITY",
    "SMOOTHNESS_MINKOWSKI",
    "DEF_2",
    "DEF_3",
    "DEF_4",
    "DEF_5",
    "DEF_6",
    "DEF_7",
    "GRADIENT_MAPPING",
    "FRANK_WOLFE_GAP",
    "LEMMA_1",
    "LEMMA_3",
    "RECORDS",
]

_TESTS = "tests/spec/wang19/test_definitions.py"

#: Replace-one sensitivity of the average gradient (l2 for Definition 2's l2 case, l-infinity for its
#: l1 case). Every noise scale of the paper is built from this expression.
SENSITIVITY = 2 * G / n

#: Smoothness of F with respect to ||.||_C for centrally symmetric C (largest l2 norm ||C||_2 / 2).
SMOOTHNESS_MINKOWSKI = L * (D / 2) ** 2

DEF_2 = register(SpecRecord(
    id="wang19.def_2",
    title="Lipschitz functions over x (l2 and l1)",
    citation=Citation("wang19", "Definition 2"),
    summary=(
        "f is G-Lipschitz under the l2 norm if |f(x1, z) - f(x2, z)| <= G ||x1 - x2||_2, and under the l1 norm "
        "if |f(x1, z) - f(x2, z)| <= G ||x1 - x2||_1 (printed with ||.||_2; see the flag)."
    ),
    conventions=CONVENTIONS,
    symbols=(S_G, S_N),
    formulas=(
        Formula(
            "sensitivity", SENSITIVITY,
            "replace-one sensitivity of grad F = (1/n) sum grad f: in l2 for the l2 case, in l-infinity "
            "(the dual of l1) for the l1 case",
            Rounding.UP,
        ),
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "The l1 case prints the l2 norm on the right-hand side, which makes it the l2 definition again; "
            "it must read G ||x1 - x2||_1 (equivalently ||grad f||_inf <= G).",
            "As printed both cases coincide. The paper's own example needs the l1 reading: for "
            "f(theta) = <x, theta> with x = (1, ..., 1) in R^p (|x_ij| = O(1)) the smallest G with "
            "|f(a) - f(b)| <= G ||a - b||_2 is ||x||_2 = sqrt(p), not O(1), while the l1 reading gives "
            "||x||_inf = 1. The test computes both constants exactly (p = 100: 10 versus 1) and checks the "
            "sup of the ratios on the extremal directions.",
            (f"{_TESTS}::test_def_2_l1_case_typo",),
        ),
    ),
    notes=(
        "Algorithms 1-3 assume the l2 case (Assumption 1), Algorithm 4 the l1 case (Assumption 4).",
        "The sensitivity 2G/n is derived in the module docstring; under add/remove it would be G/n with a "
        "changing normaliser, which the paper does not use.",
    ),
))

DEF_3 = register(SpecRecord(
    id="wang19.def_3",
    title="L-smooth functions over x",
    citation=Citation("wang19", "Definition 3"),
    summary=(
        "f is L-smooth with respect to a norm ||.|| if ||grad f(x1, z) - grad f(x2, z)||_* <= L ||x1 - x2||; then "
        "f(x1) <= f(x2) + <grad f(x2), x1 - x2> + (L/2) ||x1 - x2||^2."
    ),
    conventions=OPTIMISATION_CONVENTIONS,
    symbols=(S_L, S_D),
    formulas=(
        Formula(
            "smoothness_minkowski", SMOOTHNESS_MINKOWSKI,
            "smoothness of an l2-L-smooth F w.r.t. the Minkowski norm ||.||_C of a centrally symmetric C "
            "(used by Theorem 5's step size)",
            Rounding.UP,
        ),
    ),
    notes=(
        "Assumptions 1 and 4 take L-smoothness of F = (1/n) sum f with respect to the l2 norm.",
        "smoothness_minkowski is derived in the module docstring (equality for the l2 ball).",
    ),
))

DEF_4 = register(SpecRecord(
    id="wang19.def_4",
    title="Differential privacy (replace-one)",
    citation=Citation("wang19", "Definition 4"),
    summary=(
        "A is (epsilon, delta)-DP if Pr(A(D) in S) <= e^epsilon Pr(A(D') in S) + delta for all neighbours D ~ D' "
        "(datasets of size n differing in one entry) and all events S; epsilon-DP when delta = 0."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        ("'Differ only by one entry' with D, D' in X^n: replace-one (substitution).",),
    ),
    notes=("Every privacy record of wang19 is stated under this relation.",),
))

_CLASSIC = _gaussian.CLASSIC
DEF_5 = register(SpecRecord(
    id="wang19.def_5",
    title="Gaussian mechanism (as stated in wang19)",
    citation=Citation("wang19", "Definition 5"),
    summary=(
        "q(D) + N(0, sigma^2 I_p) with sigma >= sqrt(2 ln(1.25/delta)) Delta_2(q)/epsilon is (epsilon, "
        "delta)-DP (stated without the condition epsilon < 1)."
    ),
    conventions=_CLASSIC.conventions,
    symbols=_CLASSIC.symbols,
    assumptions=_CLASSIC.assumptions,
    formulas=_CLASSIC.formulas,
    privacy=_CLASSIC.privacy,
    flags=_CLASSIC.flags,
    notes=(
        "Same statement, formula and flag as gaussian.classic (the objects are shared): the condition "
        "epsilon < 1 is needed for the proof and kept as an assumption.",
        "None of wang19's algorithms uses this calibration: they use zCDP (wang19.eq_3).",
    ),
))

_TEXTBOOK = _exponential.TEXTBOOK
DEF_6 = register(SpecRecord(
    id="wang19.def_6",
    title="Exponential mechanism (as stated in wang19)",
    citation=Citation("wang19", "Definition 6"),
    summary=(
        "Selecting r in R with probability proportional to exp(epsilon u(D, r) / (2 Delta_u)), Delta_u = max_r "
        "max_{D ~ D'} |u(D, r) - u(D', r)|, is epsilon-DP."
    ),
    conventions=_TEXTBOOK.conventions,
    symbols=_TEXTBOOK.symbols,
    assumptions=_TEXTBOOK.assumptions,
    formulas=_TEXTBOOK.formulas,
    privacy=_TEXTBOOK.privacy,
    notes=(
        "Same statement and formula as exponential.textbook (shared objects). The oscillation form "
        "(exponential.oscillation) gives the same coefficient for DP-FW-L1 on centrally symmetric sets "
        "(wang19.alg_4).",
    ),
))

DEF_7 = register(SpecRecord(
    id="wang19.def_7",
    title="Minkowski norm of a centrally symmetric convex set and its dual",
    citation=Citation("wang19", "Definition 7"),
    summary=(
        "||v||_C = min{r >= 0 : v in r C}; the dual norm is ||v||_{C*} = max_{w in C} |<w, v>|."
    ),
    conventions=OPTIMISATION_CONVENTIONS,
    notes=(
        "Closed forms (radius r, dimension p): l2 ball, ||v||_C = ||v||_2/r and ||v||_{C*} = r ||v||_2; l1 ball, "
        "||v||_1/r and r ||v||_inf; box [-r, r]^p, ||v||_inf/r and r ||v||_1. The probability simplex is not "
        "centrally symmetric, so it has no Minkowski norm in this sense.",
        "The printed definition writes ||.||_C = min{...} for ||v||_C; read as above.",
    ),
))

_MAPPING_NOTES = (
    "If C = R^p and r = 0 then x^+ = x - gamma g and P_C(x, grad F(x), gamma) = grad F(x).",
    "x^+ = prox_{gamma (r + indicator of C)}(x - gamma g). Closed forms on R^p: r = lambda ||.||_1 gives "
    "soft-thresholding at gamma lambda (formula soft_threshold); r = lambda ||.||_2^2 gives multiplication by "
    "1/(1 + 2 gamma lambda) (formula shrinkage). With C an l2 ball, project the result onto C (both r are "
    "radial or sign-symmetric); with r = lambda ||.||_1 and C an l1 ball, the prox is soft-thresholding at "
    "gamma lambda + theta with theta >= 0 the smallest level that lands in C.",
    "Two facts the utility derivations use (Ghadimi, Lan and Zhang 2016, Lemma 1 and Proposition 1): "
    "<g, P> >= ||P||^2 + (r(x^+) - r(x))/gamma for x in C, and ||P(x, g1, gamma) - P(x, g2, gamma)||_2 <= "
    "||g1 - g2||_2.",
)

GRADIENT_MAPPING = register(SpecRecord(
    id="wang19.gradient_mapping",
    title="Generalised projected gradient (gradient mapping)",
    citation=Citation("wang19", "Section 'Extending to non-smooth regularizer'", ("2",)),
    summary=(
        "P_C(x, g, gamma) = (x - x^+)/gamma with x^+ = argmin_{u in C} <g, u> + ||x - u||_2^2/(2 gamma) + r(u); "
        "the utility of DP-PGD is the l2 norm of P_C at the output."
    ),
    conventions=OPTIMISATION_CONVENTIONS,
    symbols=(S_GAMMA, S_LAM),
    formulas=(
        Formula("soft_threshold", gamma * lam, "prox of gamma lambda ||.||_1 on R^p: threshold", Rounding.NEAREST),
        Formula("shrinkage", 1 / (1 + 2 * gamma * lam), "prox of gamma lambda ||.||_2^2 on R^p: factor",
                Rounding.NEAREST),
    ),
    notes=_MAPPING_NOTES,
))

FRANK_WOLFE_GAP = register(SpecRecord(
    id="wang19.frank_wolfe_gap",
    title="Frank-Wolfe gap",
    citation=Citation("wang19", "Section 'Error bounded by Frank-Wolfe gap'"),
    summary=(
        "G(x) = max_{v in C} <v - x, -grad F(x)> for x in C; G(x) >= 0, with equality iff x is a stationary "
        "point of F over C."
    ),
    conventions=OPTIMISATION_CONVENTIONS,
    flags=(
        Flag(
            FlagKind.RECONSTRUCTED,
            "The definition was garbled in extraction ('max_{v in C} <v - v> (x, -grad F(x))'); it is restored "
            "as max_{v in C} <v - x, -grad F(x)>, the form Theorems 4 and 6 restate (G_t = max_{v in C} "
            "<-grad F(x_t), v - x_t>).",
            "The restored gap is >= 0 on C (take v = x), is 0 exactly at stationary points, and has closed forms "
            "on the four sets of the records (notes). The test checks each closed form against the linear "
            "minimisation over the vertices on seeded random points, and the zero/positive cases.",
            (f"{_TESTS}::test_frank_wolfe_gap_reconstruction",),
        ),
    ),
    notes=(
        "Closed forms with g = grad F(x), x in C: l2 ball of radius r, r ||g||_2 + <g, x>; l1 ball, "
        "r ||g||_inf + <g, x>; box [-r, r]^p, r ||g||_1 + <g, x>; probability simplex, <g, x> - min_i g_i.",
        "Computing the gap needs grad F at the output; in the audits this is the non-private gradient, used "
        "only to measure utility.",
    ),
))

_FORM_B = _composition.ADVANCED_PER_STEP
LEMMA_1 = register(SpecRecord(
    id="wang19.lemma_1",
    title="Advanced composition, per-step budget (as stated in wang19)",
    citation=Citation("wang19", "Lemma 1"),
    summary=(
        "For 0 < epsilon' < 1 and delta' > 0, k mechanisms that are each (epsilon' / sqrt(8 k ln(1/delta')), "
        "delta)-DP compose to (epsilon', k delta + delta')-DP (Dwork, Rothblum and Vadhan 2010)."
    ),
    conventions=_FORM_B.conventions,
    symbols=_FORM_B.symbols,
    assumptions=_FORM_B.assumptions,
    formulas=_FORM_B.formulas,
    privacy=_FORM_B.privacy,
    flags=_FORM_B.flags + (
        Flag(
            FlagKind.ERRATUM,
            "The per-step budget prints ln(1/(delta t')): an extraction garble of ln(1/delta').",
            "With ln(1/delta') the first term of Form A at the per-step budget, sqrt(2 k ln(1/delta')) epsilon, "
            "is exactly epsilon'/2 for every k and delta' (sympy), which is how Dwork-Roth Corollary 3.21 closes; "
            "no other reading of the garble has this property.",
            (f"{_TESTS}::test_lemma_1_garble",),
            slug="log-garble",
        ),
    ),
    notes=(
        "Same statement and formula as composition.advanced_per_step (shared objects), including its hidden "
        "condition ln(1/delta') >= epsilon'/2 as an assumption.",
        "Used by Algorithm 4 with k = T, delta = 0 per step and delta' = delta (wang19.thm_6).",
    ),
))

_UTILITY = _exponential.UTILITY
_Du, _R, _eps_u = _UTILITY.symbol("sensitivity"), _UTILITY.symbol("candidates"), _UTILITY.symbol("epsilon")
_TAIL = _UTILITY.symbol("tail")
#: E[OPT - u(output)] <= (2 Delta_u/epsilon)(ln |R| + 1): the tail bound integrated (module docstring).
EXPECTED_GAP = _UTILITY.formula("gap").expr.subs(_TAIL, 1)

LEMMA_3 = register(SpecRecord(
    id="wang19.lemma_3",
    title="Utility of the exponential mechanism (as stated in wang19)",
    citation=Citation("wang19", "Lemma 3"),
    summary=(
        "Pr[u(M(D, u, R)) <= OPT_u - (2 Delta_u/epsilon)(ln |R| + t)] <= e^-t; in expectation the gap is at most "
        "(2 Delta_u/epsilon)(ln |R| + 1)."
    ),
    conventions=_UTILITY.conventions,
    symbols=_UTILITY.symbols,
    assumptions=_UTILITY.assumptions,
    formulas=_UTILITY.formulas + (
        Formula("expected_gap", EXPECTED_GAP, "E[OPT - u(output)] (the tail bound integrated)", Rounding.UP),
    ),
    utility=_UTILITY.utility,
    notes=(
        "The tail bound is exponential.utility's (shared objects); expected_gap integrates it (module "
        "docstring) and is what the expected Frank-Wolfe gap of Algorithm 4 uses (wang19.thm_6).",
    ),
))

#: The records this module registers.
RECORDS = (DEF_2, DEF_3, DEF_4, DEF_5, DEF_6, DEF_7, GRADIENT_MAPPING, FRANK_WOLFE_GAP, LEMMA_1, LEMMA_3)
