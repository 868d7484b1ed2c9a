r"""DP-PGD (Algorithm 1) and its utility (Theorem 2).

Records
-------
``wang19.alg_1``  The algorithm box, with step 3 corrected (the printed step 3 carries three flags).
``wang19.thm_2``  E||g_{C,R}||_2 = O((p ln(1/delta))^{1/4} / sqrt(n epsilon)), with explicit constants.

Derivation of the explicit bound (Theorem 2)
--------------------------------------------
Write ``g_k = grad F(x_k) + eps_k``, ``P_k = (x_k - x_{k+1})/gamma`` (the paper's ``g_{C,k}``: the gradient
mapping at the *noisy* gradient) and ``Pbar_k = P_C(x_k, grad F(x_k), gamma)`` (noise-free). Smoothness gives
``F(x_{k+1}) <= F(x_k) - gamma <grad F(x_k), P_k> + (L gamma^2/2) ||P_k||^2``. Since ``grad F = g_k - eps_k`` and
``<g_k, P_k> >= ||P_k||^2 + (r(x_{k+1}) - r(x_k))/gamma`` (Ghadimi, Lan and Zhang 2016, Lemma 1),

    F^r(x_{k+1}) <= F^r(x_k) - (gamma - L gamma^2/2) ||P_k||^2 + gamma <eps_k, P_k>.

Split ``<eps_k, P_k> = <eps_k, Pbar_k> + <eps_k, P_k - Pbar_k>``: the first has mean 0 (``Pbar_k`` depends on
``x_k`` only), the second is at most ``||eps_k||^2`` because the mapping is 1-Lipschitz in ``g`` (their
Proposition 1). Summing over ``k = 1..T``, with ``h_0 >= F^r(x_1) - inf_C F^r`` and ``gamma < 2/L``,

    E ||g_{C,R}||^2 = (1/T) sum_k E ||P_k||^2 <= (h_0/T + gamma p sigma^2) / (gamma - L gamma^2/2).

At ``gamma = 1/(2L)`` this is ``8 L h_0/(3T) + (4/3) p sigma^2``. With ``sigma^2 = K T`` from (3),
``K = 2 G^2 (sqrt(a) + sqrt(a + epsilon))^2/(n^2 epsilon^2)``, ``a = ln(1/delta)``, the minimum over ``T`` is at
``T* = sqrt(2 L h_0/(p K)) = n epsilon sqrt(L h_0) / (G sqrt(p) (sqrt(a) + sqrt(a + epsilon)))``, where

    E ||g_{C,R}||_2 <= 4 sqrt(G (sqrt(a) + sqrt(a + epsilon)) sqrt(L h_0 p) / (3 n epsilon)),

i.e. ``O((p a)^{1/4}/sqrt(n epsilon))`` as printed. For the noise-free mapping at the output,
``||Pbar_R|| <= ||P_R|| + ||eps_R||`` and Minkowski's inequality add ``sqrt(p) sigma`` to the root mean square.
"""

from __future__ import annotations

import sympy as sp

from spec import cache
from spec.record import (
    Assumption,
    BoundKind,
    Citation,
    Flag,
    FlagKind,
    Formula,
    Line,
    PrivacyClaim,
    PrivacyModel,
    Neighbouring,
    Quantity,
    Rounding,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register
from spec.wang19.definitions import SENSITIVITY
from spec.wang19.noise import (
    NOISE_CALIBRATIONS,
    RHO_STAR,
    SIGMA,
    SIGMA_MISPLACED_ROOT,
    SIGMA_PRINTED,
    SIGMA_PRINTED_APPROXIMATION,
)
from spec.wang19.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    L,
    LOG_INV_DELTA,
    S_DELTA,
    S_EPS,
    S_G,
    S_GAMMA,
    S_H0,
    S_L,
    S_N,
    S_P,
    S_SIGMA,
    S_T,
    T,
    delta,
    eps,
    gamma,
    h0,
    minimise_in_steps,
    n,
    p,
    sigma,
)

__all__ = [
    "LEARNING_RATE",
    "STEPS",
    "STEPS_TUNED",
    "BOUND_SQUARED_AT",
    "BOUND_AT",
    "TRUE_MAPPING_BOUND_AT",
    "BOUND",
    "STEPS_CONSTANT",
    "BOUND_CONSTANT",
    "ALG_1",
    "THM_2",
    "RECORDS",
]

_TESTS = "tests/spec/wang19/test_proximal_gradient.py"
_a = LOG_INV_DELTA

ALG_1 = register(SpecRecord(
    id="wang19.alg_1",
    title="Algorithm 1, DP-PGD: differentially private proximal gradient descent",
    citation=Citation("wang19", "Algorithm 1"),
    summary=(
        "For k = 1..T: x_{k+1} = argmin_{u in C} <grad F(x_k) + eps_k, u> + ||u - x_k||^2/(2 gamma_k) + r(u), "
        "eps_k ~ N(0, sigma^2 I_p), sigma^2 = 2 G^2 T/(n^2 rho*) (step 3, corrected); return x_R with R uniform "
        "on {1..T}."
    ),
    conventions=CONVENTIONS,
    symbols=(S_G, S_L, S_N, S_EPS, S_DELTA, S_T),
    assumptions=(DELTA_LT_1,),
    formulas=(
        Formula("sensitivity", SENSITIVITY, "replace-one l2 sensitivity 2G/n of grad F", Rounding.UP),
        Formula("rho", RHO_STAR, "step 3: rho with rho + 2 sqrt(rho ln(1/delta)) = epsilon", Rounding.DOWN),
        Formula("sigma", SIGMA, "step 3 corrected: sqrt(2 G^2 T/(n^2 rho)) (= wang19.eq_3)", Rounding.UP),
        Formula("sigma_printed", SIGMA_PRINTED, "step 3 as printed: sqrt(2 L^2 T/(n^2 rho^2)); not private "
                "in general (flags), for audit twins only", Rounding.NEAREST),
        Formula("sigma_printed_misplaced_root", SIGMA_MISPLACED_ROOT,
                "sigma from the remark's closed form of rho read literally (rho = epsilon^2); for audit twins",
                Rounding.NEAREST),
        Formula("sigma_printed_approximation", SIGMA_PRINTED_APPROXIMATION,
                "the remark's approximation sqrt(8 L^2 T ln(1/delta))/(n epsilon) (printed as sigma_1)",
                Rounding.NEAREST),
        Formula("iterates", T + 1, "x_1, ..., x_{T+1}: x_{T+1} is needed for the gradient mapping at R = T",
                Rounding.CEIL),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP with formula 'sigma' (wang19.thm_1, wang19.eq_3).",
        epsilon=eps,
        delta=delta,
        rho=RHO_STAR,
        calibrations=NOISE_CALIBRATIONS,
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "Step 3 prints L (the smoothness) where the Lipschitz constant G belongs: the noise must scale with "
            "the sensitivity 2G/n of the gradient, not with L. Alone, this typo multiplies sigma by L/G.",
            "The zCDP of T releases is T (2G/n)^2/(2 sigma^2); solving for rho* gives 2 G^2 T/(n^2 rho*). On the "
            "paper's own sigmoid loss (|x| <= 1): G = 1/4 and L = 1/(6 sqrt 3), so L/G = 0.385 and at "
            "(epsilon, delta) = (1, 1e-5) the printed noise (with rho, not rho^2) has exact epsilon 2.13 for "
            "every n and T (the Gaussian-DP parameter sqrt(T) (2G/n)/sigma does not depend on them).",
            (f"{_TESTS}::test_step_3_lipschitz_typo",),
            slug="lipschitz-not-smoothness",
        ),
        Flag(
            FlagKind.ERRATUM,
            "Step 3 prints rho^2 where rho belongs. Alone, this typo multiplies sigma by 1/sqrt(rho*): too much noise "
            "for rho* < 1 (6.93 times at (1, 1e-5)), too little, hence not private, for epsilon > 1 + 2 sqrt(ln(1/"
            "delta)) (7.79 at delta = 1e-5).",
            "T (2G/n)^2/(2 sigma^2) = rho* is linear in rho. The paper's own approximation sigma^2 ~ 8 L^2 T "
            "log(1/delta)/(n^2 epsilon^2) (printed as sigma_1, meaning sigma_2) is the leading term of 2 G^2 T/(n^2 "
            "rho*) with rho* ~ epsilon^2/(4 ln(1/delta)), which confirms both rho to the first power and the "
            "sensitivity 2G/n; with rho^2 the leading term is 32 G^2 T ln(1/delta)^2/(n^2 epsilon^4). At (20, "
            "1e-5) the rho^2 noise is 0.450 times the needed and its exact epsilon is 53.3.",
            (f"{_TESTS}::test_step_3_rho_squared_typo",),
            slug="rho-not-rho-squared",
        ),
        Flag(
            FlagKind.ERRATUM,
            "The remark's closed form '(sqrt(log(1/delta)) + epsilon - sqrt(log(1/delta)))^2' misplaces a root: "
            "read literally it is epsilon^2, which drops the ln(1/delta) factor and multiplies sigma by "
            "1/(sqrt(ln(1/delta) + epsilon) + sqrt(ln(1/delta))) (0.144 at (1, 1e-5)).",
            "The positive root of r^2 + 2 sqrt(a) r = epsilon (r = sqrt(rho)) is sqrt(a + epsilon) - sqrt(a), so "
            "rho* = (sqrt(a + epsilon) - sqrt(a))^2; the printed form simplifies to epsilon^2 (sympy). With that rho the "
            "noise at (1, 1e-5) has exact epsilon 6.57.",
            (f"{_TESTS}::test_remark_misplaced_root",),
            slug="rho-closed-form",
        ),
    ),
    notes=(
        "Step 3 stands between steps 2 and 4 but is computed once, before the loop: sigma depends only on "
        "(G, n, epsilon, delta, T).",
        "x_{k+1} = prox_{gamma_k (r + indicator of C)}(x_k - gamma_k (grad F(x_k) + eps_k)) (wang19.gradient_mapping). "
        "The printed step 2 writes ||u x_k||, i.e. ||u - x_k||.",
        "R is drawn uniformly from {1..T} independently of the data; the audits' gradient mapping at R needs "
        "x_{R+1}, so the reference returns it too (it draws R before the loop, which changes nothing in law, and "
        "keeps x_R and x_{R+1} instead of all T + 1 iterates).",
        "The experiments use the sigmoid loss with the regulariser (lambda/2)||theta||_1, lambda = 0.01.",
    ),
    pseudocode=(
        Line("L1", "for k = 1, ..., T do"),
        Line("L2", "x_{k+1} = argmin_{u in C} <grad F(x_k) + eps_k, u> + ||u - x_k||_2^2/(2 gamma_k) + r(u), "
                   "eps_k ~ N(0, sigma^2 I_p), sigma from Theorem 1 or step 3."),
        Line("L3", "Compute rho with rho + 2 sqrt(rho log(1/delta)) = epsilon; set sigma^2 = 2 G^2 T/(n^2 rho) "
                   "(printed: 2 L^2 T/(n^2 rho^2))."),
        Line("L4", "end for"),
        Line("L5", "return x_R, R uniform on {1, ..., T} (and x_{R+1} for the gradient mapping)."),
    ),
))

# --------------------------------------------------------------------------- Theorem 2
LEARNING_RATE = 1 / (2 * L)
#: The paper's T = O(n epsilon / sqrt(p ln(1/delta))) with the hidden constant 1.
STEPS = n * eps / sp.sqrt(p * _a)
#: (1/T) sum_k E||P_k||^2 for any gamma < 2/L and any sigma (module docstring).
BOUND_SQUARED_AT = (h0 / T + gamma * p * sigma**2) / (gamma - L * gamma**2 / 2)
BOUND_AT = sp.sqrt(BOUND_SQUARED_AT)
TRUE_MAPPING_BOUND_AT = BOUND_AT + sp.sqrt(p) * sigma
_AT_PAPER = BOUND_SQUARED_AT.subs({gamma: LEARNING_RATE, sigma: SIGMA}, simultaneous=True)
STEPS_TUNED, _MIN_SQUARED = minimise_in_steps(_AT_PAPER)
#: E||g_{C,R}||_2 at gamma = 1/(2L), sigma from (3) and T = STEPS_TUNED.
BOUND = cache.simplify(sp.sqrt(_MIN_SQUARED))
_PAPER_RATE = (p * _a) ** sp.Rational(1, 4) / sp.sqrt(n * eps)
#: The hidden constants of the O(.)s, named: steps_tuned = STEPS_CONSTANT * STEPS, bound = BOUND_CONSTANT * rate.
STEPS_CONSTANT = cache.simplify(STEPS_TUNED / STEPS)
BOUND_CONSTANT = cache.simplify(BOUND / _PAPER_RATE)
_RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))

THM_2 = register(SpecRecord(
    id="wang19.thm_2",
    title="Utility of DP-PGD (Algorithm 1)",
    citation=Citation("wang19", "Theorem 2", ("4",)),
    summary=(
        "Under Assumption 1, with sigma^2 as in (3), gamma_k = 1/(2L) and T = O(n epsilon/sqrt(p ln(1/delta))), "
        "E||g_{C,R}||_2 <= O((p ln(1/delta))^{1/4}/sqrt(n epsilon)), g_{C,R} = (x_R - x_{R+1})/gamma."
    ),
    conventions=CONVENTIONS,
    symbols=(S_G, S_L, S_N, S_P, S_EPS, S_DELTA, S_T, S_SIGMA, S_GAMMA, S_H0),
    assumptions=(
        DELTA_LT_1,
        Assumption("step_lt_2_over_L", sp.Lt(gamma * L, 2), "gamma < 2/L (the descent coefficient is positive)"),
    ),
    formulas=(
        Formula("learning_rate", LEARNING_RATE, "gamma_k = 1/(2L)", Rounding.NEAREST),
        Formula("steps", STEPS, "T = n epsilon/sqrt(p ln(1/delta)) (the paper's O(.) with constant 1)",
                Rounding.CEIL),
        Formula("steps_tuned", STEPS_TUNED, "T minimising the explicit bound at gamma = 1/(2L)", Rounding.CEIL),
        Formula("bound_at", BOUND_AT, "sqrt(E||g_{C,R}||^2) for any gamma < 2/L, sigma, T (explicit)",
                Rounding.UP),
        Formula("true_mapping_bound_at", TRUE_MAPPING_BOUND_AT,
                "sqrt(E||P_C(x_R, grad F(x_R), gamma)||^2), the noise-free mapping (explicit)", Rounding.UP),
        Formula("bound", BOUND, "explicit bound at gamma = 1/(2L), sigma from (3), T = steps_tuned", Rounding.UP),
        Formula("steps_constant", STEPS_CONSTANT, "the hidden constant of T: steps_tuned / steps", Rounding.NEAREST),
        Formula("bound_constant", BOUND_CONSTANT,
                "the hidden constant of (4): bound / ((p ln(1/delta))^{1/4}/sqrt(n epsilon))", Rounding.NEAREST),
    ),
    utility=(
        UtilityClaim(
            Quantity.PROJECTED_GRADIENT_NORM, _PAPER_RATE, BoundKind.BIG_O,
            "E||g_{C,R}||_2, in expectation over the algorithm's coins (noise and R), for every D (as printed).",
            _RATES,
        ),
        UtilityClaim(
            Quantity.PROJECTED_GRADIENT_NORM, BOUND, BoundKind.EXPLICIT,
            "E||g_{C,R}||_2 <= bound at gamma = 1/(2L), sigma from (3), T = steps_tuned (real; any T gives "
            "bound_at), for every D with F^r(x_1) - inf_C F^r <= h_0.",
            _RATES,
        ),
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "The O(.) of T and of the bound are made explicit: E||g_{C,R}||^2 <= (h_0/T + gamma p sigma^2)/(gamma - "
            "L gamma^2/2), which at gamma = 1/(2L) is 8 L h_0/(3T) + (4/3) p sigma^2; minimised over T with (3) "
            "it gives T* and the bound 4 sqrt(G (sqrt(a) + sqrt(a + epsilon)) sqrt(L h_0 p)/(3 n epsilon)).",
            "Derivation in the module docstring. The tests check the algebra with sympy (the minimiser and the "
            "closed form), that the one-step inequality holds with equality for the isotropic quadratic on R^p "
            "(so the per-step constant cannot be improved), and the bound against a seeded simulation of DP-PGD "
            "on a non-convex, l1-regularised, box-constrained instance (measured/bound 0.76-0.82).",
            (f"{_TESTS}::test_explicit_bound_algebra", f"{_TESTS}::test_descent_step_is_tight",
             f"{_TESTS}::test_explicit_bound_in_simulation"),
        ),
        Flag(
            FlagKind.CAVEAT,
            "The theorem's g_{C,R} = (x_R - x_{R+1})/gamma is the gradient mapping at the noisy gradient, which is "
            "not zero at a stationary point: it carries the noise (E||g||^2 = p sigma^2 at a stationary point of "
            "an unconstrained problem). The noise-free mapping P_C(x_R, grad F(x_R), gamma) is bounded by "
            "true_mapping_bound_at.",
            "||P(x, g1) - P(x, g2)|| <= ||g1 - g2|| (nonexpansiveness of the prox), checked on seeded random prox "
            "instances, gives ||Pbar_R|| <= ||P_R|| + ||eps_R|| and, by Minkowski, the extra sqrt(p) sigma.",
            (f"{_TESTS}::test_noisy_versus_true_mapping",),
        ),
    ),
    notes=(
        "h_0 (initial_gap) must be a public bound; the paper's T hides it (with L and G) in the O(.).",
        "x_1 must lie in C (the derivation uses r(x_1) and F^r(x_1)); it is public and data-independent.",
        "The paper prints g_{C,R} = (x_R - x_{R+1})/gamma_k; the step size is constant, so gamma_k = gamma.",
    ),
))

#: The records this module registers.
RECORDS = (ALG_1, THM_2)
