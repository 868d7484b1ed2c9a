r"""wang17 Section 6: Algorithm 4 (DP-GD), Theorem 6.1 (privacy), 6.2 (PL condition), 6.3 (non-convex).

``wang17.alg_4``
    ``x_t = x_{t-1} - eta (grad F(x_{t-1}; D) + z_{t-1})``, ``z ~ N(0, sigma^2 I_p)``, ``t = 1..T``; output
    ``x_T`` (Section 6.1) or ``x_m`` with ``m`` uniform on ``{0, ..., T-1}`` (Section 6.2; the paper prints
    ``{0, ..., m-1}``).
``wang17.thm_6_1``
    ``sigma^2 = c G^2 T ln(1/delta) / (n^2 epsilon^2)``; made concrete by ``wang17.full_batch_calibration``.
``wang17.thm_6_2``, ``wang17.thm_6_3``
    Utility under the Polyak-Lojasiewicz condition and for smooth non-convex F, each as printed
    (O-form, exponents) and as an explicit bound derived below, with a concrete T.

Derivation (eta = 1/L, F L-smooth, g_t = grad F(x_t)). The descent lemma and E z = 0, E||z||^2 = p sigma^2:

    E[F(x_{t+1}) | x_t] <= F(x_t) - ||g_t||^2 / (2L) + p sigma^2 / (2L).                     (*)

Non-convex: summing (*) over t = 0..T-1 and F(x_T) >= F*, with h_0 >= F(x_0) - F*,

    (1/T) sum_{t=0}^{T-1} E||g_t||^2 <= 2 L h_0 / T + p sigma^2,

and the left side is exactly E||grad F(x_m)||^2 for m uniform on {0, ..., T-1}: the index range of the
output. With sigma^2 = c_z G^2 T ln(1/delta) / (n^2 epsilon^2) (c_z the full-batch constant) the right
side is smallest at T* = n epsilon sqrt(L h_0 / p) / (G (sqrt(a + epsilon) + sqrt(a))), a = ln(1/delta),
where it equals 4 G sqrt(L h_0 p) (sqrt(a + epsilon) + sqrt(a)) / (n epsilon).

PL (||g||^2 >= 2 mu (F - F*)): (*) gives E F(x_{t+1}) - F* <= (1 - mu/L)(F(x_t) - F*) + p sigma^2/(2L),
so E F(x_T) - F* <= (1 - mu/L)^T h_0 + p sigma^2 / (2 mu). With T = ceil((L/mu) ln(1 + X)), X = h_0 mu n^2
epsilon^2 / (p G^2 ln(1/delta)), the first term is at most p G^2 ln(1/delta) / (mu n^2 epsilon^2).
"""

from __future__ import annotations

import sympy as sp

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
    Quantity,
    Rounding,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register
from spec.wang17 import calibration as _cal
from spec.wang17.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    FULL_GRADIENT_SENSITIVITY,
    LOG_INV_DELTA,
    S_DELTA,
    S_DIMENSION,
    S_EPSILON,
    S_INITIAL_GAP,
    S_LEARNING_RATE,
    S_LIPSCHITZ,
    S_N,
    S_NOISE_CONSTANT,
    S_PL,
    S_SIGMA,
    S_SMOOTHNESS,
    S_STEPS,
    G,
    L,
    T,
    delta,
    eps,
    eta,
    h0,
    implied_constant,
    mu,
    n,
    p,
    paper_sigma_squared,
)

__all__ = ["ALG_4", "THM_6_1", "THM_6_2", "THM_6_3", "RECORDS"]

TEST_FILE = "tests/spec/wang17/test_gradient_descent.py"

ALG_4 = register(SpecRecord(
    id="wang17.alg_4",
    title="Algorithm 4, DP-GD(x_0, F, eta, T, sigma, D)",
    citation=Citation("wang17", "Algorithm 4"),
    summary=(
        "For t = 1..T: x_t = x_{t-1} - eta (grad F(x_{t-1}, D) + z_{t-1}), z_{t-1} ~ N(0, sigma^2 I_p), with "
        "0 < eta <= 1/L. Return x_T (Section 6.1) or x_m, m uniform on {0, ..., T-1} (Section 6.2)."
    ),
    conventions=CONVENTIONS,
    symbols=(S_LIPSCHITZ, S_SMOOTHNESS, S_N, S_STEPS, S_LEARNING_RATE),
    assumptions=(Assumption("learning_rate_le_1_over_L", sp.Le(eta, 1 / L), "0 < eta <= 1/L"),),
    formulas=(
        Formula("learning_rate", 1 / L, "eta = 1/L (Theorems 6.2 and 6.3)", Rounding.NEAREST),
        Formula("sensitivity", FULL_GRADIENT_SENSITIVITY, "replace-one sensitivity 2G/n of grad F", Rounding.UP),
        Formula("output_candidates", T, "number of candidate output indices {0, ..., T-1} (Section 6.2)",
                Rounding.CEIL),
        Formula("gradient_evaluations", T * n, "T n", Rounding.CEIL),
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "Section 6.2's output index is printed 'uniform on {0, 1, ..., m-1}' (m is the index itself); "
            "it is uniform on {0, ..., T-1}.",
            "The proof of Theorem 6.3 telescopes the descent inequality over x_0, ..., x_{T-1}: "
            "(1/T) sum_{t=0}^{T-1} E||grad F(x_t)||^2 <= 2 L h_0 / T + p sigma^2, whose left side is "
            "E||grad F(x_m)||^2 for m uniform on {0, ..., T-1} (sympy telescoping; exact check on a "
            "quadratic, where the bound holds for that range).",
            (f"{TEST_FILE}::test_output_index_range",),
            slug="output-index",
        ),
    ),
    notes=(
        "The listing has no line numbers in the extracted text; L1-L5 number its statements in order.",
        "Both outputs are post-processing of the T noisy gradients (wang17.thm_6_1 covers the transcript).",
    ),
    pseudocode=(
        Line("L1", "for t = 1, 2, ..., T do"),
        Line("L2", "x_t = x_{t-1} - eta (grad F(x_{t-1}, D) + z_{t-1}), z_{t-1} ~ N(0, sigma^2 I_p)"),
        Line("L3", "end for"),
        Line("L4", "return x_T (Section 6.1)"),
        Line("L5", "return x_m, m uniform on {0, 1, ..., T-1} (Section 6.2; printed {0, ..., m-1})"),
    ),
))

SIGMA2_PAPER = paper_sigma_squared(T)

THM_6_1 = register(SpecRecord(
    id="wang17.thm_6_1",
    title="Privacy of DP-GD",
    citation=Citation("wang17", "Theorem 6.1", ("11",)),
    summary=(
        "For epsilon, delta > 0, DP-GD is (epsilon, delta)-DP if sigma^2 = c G^2 T ln(1/delta) / (n^2 "
        "epsilon^2) for some constant c."
    ),
    conventions=CONVENTIONS,
    symbols=(S_LIPSCHITZ, S_N, S_STEPS, S_EPSILON, S_DELTA, S_SIGMA, S_NOISE_CONSTANT),
    assumptions=(DELTA_LT_1,),
    formulas=(
        Formula("sigma_squared_paper", SIGMA2_PAPER, "eq. (11) at a given c", Rounding.UP),
        Formula("sigma_paper", sp.sqrt(SIGMA2_PAPER), "eq. (11) at a given c", Rounding.UP),
        Formula("sigma", _cal.FULL_BATCH_SIGMA, "proven noise (wang17.full_batch_calibration)", Rounding.UP),
        Formula("implied_constant", _cal.FULL_BATCH_IMPLIED_CONSTANT, "c of the proven sigma", Rounding.NEAREST),
        Formula("implied_constant_of_sigma", implied_constant(T), "the c a given sigma implies", Rounding.NEAREST),
        Formula("sensitivity", FULL_GRADIENT_SENSITIVITY, "replace-one sensitivity 2G/n of grad F", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        CONVENTIONS.neighbouring,
        "(epsilon, delta)-DP for every epsilon > 0 with sigma (wang17.full_batch_calibration): T Gaussian "
        "releases of sensitivity 2G/n; the last and the random iterate are post-processing. profile: the "
        "exact composed Gaussian.",
        epsilon=eps,
        delta=delta,
        rho=_cal.FULL_BATCH_RHO,
        profile=_cal.full_batch_profile,
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "c = 2 (1 + sqrt(1 + epsilon/ln(1/delta)))^2 (8.34 at epsilon = 1, delta = 1e-5), valid for every "
            "epsilon > 0.",
            "Formula sigma is wang17.full_batch_calibration's (zCDP over T releases of sensitivity 2G/n).",
            (f"{TEST_FILE}::test_thm_6_1_uses_the_full_batch_calibration",
             "tests/spec/wang17/test_calibration.py::test_full_batch_implied_constant_closed_form"),
        ),
    ),
    notes=("The reference phase evaluates formula sigma (lipschitz, n, steps, epsilon, delta).",),
))

# --------------------------------------------------------------------------- Theorem 6.2 (PL)
_SIGMA2 = _cal.FULL_BATCH_SIGMA_SQUARED
PL_X = h0 * mu * n**2 * eps**2 / (p * G**2 * LOG_INV_DELTA)
PL_STEPS = sp.Max(1, sp.ceiling(L / mu * sp.log(1 + PL_X)))
PL_BOUND = (1 - mu / L) ** T * h0 + p * _SIGMA2 / (2 * mu)
PL_PAPER_BOUND = G**2 * p * sp.log(n) ** 2 * LOG_INV_DELTA / (n**2 * eps**2)
RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))

THM_6_2 = register(SpecRecord(
    id="wang17.thm_6_2",
    title="Utility of DP-GD under the Polyak-Lojasiewicz condition",
    citation=Citation("wang17", "Theorem 6.2", ("12", "13")),
    summary=(
        "f G-Lipschitz and L-smooth, F satisfies PL with mu; sigma as in (11), eta = 1/L; for T = O~(log(n^2 "
        "epsilon^2 / (p G^2 log(1/delta)))), E[F(x_T)] - F(x*) <= O(G^2 p log^2(n) log(1/delta) / (n^2 "
        "epsilon^2)); O~ hides other logarithms, L and mu."
    ),
    conventions=CONVENTIONS,
    symbols=(S_LIPSCHITZ, S_SMOOTHNESS, S_PL, S_N, S_DIMENSION, S_EPSILON, S_DELTA, S_INITIAL_GAP, S_STEPS),
    assumptions=(
        DELTA_LT_1,
        Assumption("pl_le_smoothness", sp.Le(mu, L), "mu <= L (PL and L-smoothness together force it)"),
    ),
    formulas=(
        Formula("learning_rate", 1 / L, "eta = 1/L", Rounding.NEAREST),
        Formula("steps", PL_STEPS, "T = ceil((L/mu) ln(1 + h_0 mu n^2 epsilon^2 / (p G^2 ln(1/delta))))",
                Rounding.CEIL),
        Formula("excess_risk_bound", PL_BOUND,
                "(1 - mu/L)^T h_0 + p sigma^2 / (2 mu) with the proven sigma at T", Rounding.NEAREST),
    ),
    utility=(
        UtilityClaim(Quantity.EXCESS_EMPIRICAL_RISK, PL_PAPER_BOUND, BoundKind.BIG_O,
                     "E[F(x_T, D)] - F(x*, D) as printed (O hides L, mu, c of (11) and logarithms).", RATES),
        UtilityClaim(Quantity.EXCESS_EMPIRICAL_RISK, PL_BOUND, BoundKind.EXPLICIT,
                     "E[F(x_T, D)] - F* <= (1 - mu/L)^T h_0 + p sigma^2 / (2 mu) for every T, eta = 1/L, sigma the "
                     "proven full-batch noise at T; in expectation over the algorithm's coins."),
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "The O~ bound made explicit, with a concrete T that needs a public bound h_0 on F(x_0) - F*.",
            "Descent lemma plus PL (module docstring; sympy for the one-step inequality); the test also "
            "checks the bound against the exact E F(x_T) of noisy GD on strongly convex quadratics "
            "and that at the record's T it is at most (p G^2 ln(1/delta) / (mu n^2 epsilon^2)) (1 + c T / 2) "
            "with c the full-batch constant: O(log n / n^2), one log(n) fewer than printed.",
            (f"{TEST_FILE}::test_pl_explicit_bound",),
        ),
        Flag(
            FlagKind.RECONSTRUCTED,
            "T and the bound (13) restored with epsilon (lost in extraction: 'n22' is n^2 epsilon^2).",
            "Exponents of the restored bound (-2 in n, +1 in p, -2 in epsilon) equal those of the explicit "
            "bound at the record's T up to logarithms, and those of the strongly convex lower bound "
            "p / (n^2 epsilon^2) the paper compares with.",
            (f"{TEST_FILE}::test_pl_rates",),
            slug="steps",
        ),
    ),
))

# --------------------------------------------------------------------------- Theorem 6.3 (non-convex)
NC_BOUND = 2 * L * h0 / T + p * _SIGMA2
_SIGMA2_PER_STEP = _SIGMA2 / T
NC_STEPS_REAL = sp.sqrt(2 * L * h0 / (p * _SIGMA2_PER_STEP))
NC_STEPS = sp.Max(1, sp.ceiling(NC_STEPS_REAL))
NC_BOUND_AT_OPTIMUM = 2 * sp.sqrt(2 * L * h0 * p * _SIGMA2_PER_STEP)
NC_PAPER_BOUND = sp.sqrt(L) * G * sp.sqrt(p * LOG_INV_DELTA) / (n * eps)

THM_6_3 = register(SpecRecord(
    id="wang17.thm_6_3",
    title="Utility of DP-GD for smooth non-convex F (gradient norm)",
    citation=Citation("wang17", "Theorem 6.3", ("14",)),
    summary=(
        "f G-Lipschitz and L-smooth; sigma as in (11), eta = 1/L; for T = O(sqrt(L) n epsilon / (sqrt(p "
        "log(1/delta)) G)), E||grad F(x_m, D)||^2 <= O(sqrt(L) G sqrt(p log(1/delta)) / (n epsilon)), m "
        "uniform on {0, ..., T-1}."
    ),
    conventions=CONVENTIONS,
    symbols=(S_LIPSCHITZ, S_SMOOTHNESS, S_N, S_DIMENSION, S_EPSILON, S_DELTA, S_INITIAL_GAP, S_STEPS),
    assumptions=(DELTA_LT_1,),
    formulas=(
        Formula("learning_rate", 1 / L, "eta = 1/L", Rounding.NEAREST),
        Formula("steps", NC_STEPS, "T* = n epsilon sqrt(L h_0 / p) / (G (sqrt(a + epsilon) + sqrt(a))), "
                "rounded up", Rounding.CEIL),
        Formula("gradient_norm_bound", NC_BOUND, "2 L h_0 / T + p sigma^2 with the proven sigma at T",
                Rounding.NEAREST),
    ),
    utility=(
        UtilityClaim(Quantity.GRADIENT_NORM, NC_PAPER_BOUND, BoundKind.BIG_O,
                     "E||grad F(x_m, D)||^2 (squared norm) as printed (O hides h_0 and c of (11)).", RATES),
        UtilityClaim(Quantity.GRADIENT_NORM, NC_BOUND_AT_OPTIMUM, BoundKind.EXPLICIT,
                     "E||grad F(x_m, D)||^2 <= 4 G sqrt(L h_0 p) (sqrt(a + epsilon) + sqrt(a)) / (n epsilon) at the "
                     "real-valued T*, a = ln(1/delta); in expectation over the coins and m.", RATES),
        UtilityClaim(Quantity.GRADIENT_NORM, NC_BOUND, BoundKind.EXPLICIT,
                     "E||grad F(x_m, D)||^2 <= 2 L h_0 / T + p sigma^2 for every T (eta = 1/L, proven sigma at T)."),
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "The O bound made explicit: 2 L h_0 / T + p sigma^2, minimised at the record's T; needs a public "
            "bound h_0 on F(x_0) - F*.",
            "Telescoped descent lemma (module docstring; sympy); exact check on quadratics; T* minimises "
            "the bound (sympy derivative) and the value there is the second utility claim.",
            (f"{TEST_FILE}::test_nonconvex_explicit_bound", f"{TEST_FILE}::test_output_index_range"),
        ),
        Flag(
            FlagKind.RECONSTRUCTED,
            "T and the bound (14) restored: sqrt(L) and epsilon were split or lost in extraction.",
            "The explicit optimum has the same form: sqrt(L) G sqrt(p ln(1/delta)) / (n epsilon) times "
            "sqrt(h_0) and 4 (1 + sqrt(1 + epsilon/ln(1/delta))), which tends to 8 (sympy); hence the "
            "exponents -1 in n, +1/2 in p, -1 in epsilon.",
            (f"{TEST_FILE}::test_nonconvex_rates",),
            slug="steps",
        ),
    ),
))

#: The records this module registers.
RECORDS = (ALG_4, THM_6_1, THM_6_2, THM_6_3)
