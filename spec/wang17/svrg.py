r"""wang17 Section 4.1: Algorithm 1 (DP-SVRG), Theorem 4.1 (privacy), Theorem 4.2 (utility).

``wang17.alg_1``
    DP-SVRG: ``T`` epochs; each takes the snapshot gradient ``grad F(x~)`` and runs ``m`` noisy
    proximal steps with the variance-reduced direction; ``K = T m`` noisy releases in all.
``wang17.thm_4_1``
    The paper: ``sigma^2 = c G^2 T m ln(1/delta) / (n^2 epsilon^2)`` for ``epsilon <= c1 T m / n^2``,
    constants unspecified. Here: the proven sigma of :func:`calibrate` (noise splitting and the
    replace-one RDP accountant of ``wang17.svrg_step_privacy``, spec.inversion), the ``c`` it implies, and
    why no constant ``c`` works (see the flags).
``wang17.thm_4_2``
    Utility for strongly convex ``F^r``: ``O~(p log(n) G^2 ln(1/delta) / (n^2 epsilon^2 mu))`` with the
    step-size/epoch-length inequality (4) as a checked assumption.

Derivation of the concrete step size (Theorem 4.2). Write ``x = L eta`` and ``kappa = L / mu``.
Inequality (4), ``1/(eta (1 - 8 eta L) mu m) + 8 L eta (m + 1)/(m (1 - 8 L eta)) < 1/2`` with
``8 L eta < 1``, multiplied by ``m (1 - 8x) > 0`` reads ``kappa/x + 8x (m + 1) < m (1 - 8x)/2``, i.e.

    m (1/2 - 12 x) > kappa / x + 8 x.

It is satisfiable iff ``x < 1/24`` and then exactly for ``m > (kappa/x + 8x) / (1/2 - 12x)``. The
leading term ``kappa / (x (1/2 - 12 x))`` is smallest at ``x = 1/48``, where the bound is
``192 kappa + 2/3``: the record's ``learning_rate = 1/(48 L)`` and ``epoch_length = floor(192 kappa +
2/3) + 1``. The paper's ``eta <= 1/(12L)`` (as extracted) is necessary but not sufficient: at
``x = 1/12`` the second term alone is ``2 (m + 1)/m >= 2``.
"""

from __future__ import annotations

import sympy as sp

from spec.record import (
    Assumption,
    BoundKind,
    Calibration,
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
    DIFFERENCE_SENSITIVITY,
    FULL_GRADIENT_SENSITIVITY,
    LOG_INV_DELTA,
    S_DELTA,
    S_DIMENSION,
    S_EPOCH_LENGTH,
    S_EPOCHS,
    S_EPSILON,
    S_LEARNING_RATE,
    S_LIPSCHITZ,
    S_N,
    S_NOISE_CONSTANT,
    S_REGIME_CONSTANT,
    S_SIGMA,
    S_SMOOTHNESS,
    S_STRONG_CONVEXITY,
    SAMPLING_RATE,
    G,
    L,
    T,
    c1,
    delta,
    eps,
    eta,
    implied_constant,
    m,
    mu,
    n,
    p,
    paper_sigma_squared,
)

__all__ = ["ALG_1", "THM_4_1", "THM_4_2", "RECORDS", "certified_epsilon", "calibrate", "sigma_accountant",
           "implied_constant_accountant"]

TEST_FILE = "tests/spec/wang17/test_svrg.py"

NOISY_STEPS = T * m
GRADIENT_EVALUATIONS = T * (n + 2 * m)

ALG_1 = register(SpecRecord(
    id="wang17.alg_1",
    title="Algorithm 1, DP-SVRG(F^r, x~_0, T, m, eta, sigma)",
    citation=Citation("wang17", "Algorithm 1"),
    summary=(
        "For s = 1..T: snapshot x~ = x~_{s-1}, v~ = grad F(x~), x^s_0 = x~; for t = 1..m: pick i uniformly "
        "in [n], v = grad f(x^s_{t-1}, z_i) - grad f(x~, z_i) + v~ + u, u ~ N(0, sigma^2 I_p), "
        "x^s_t = prox_{eta r}(x^s_{t-1} - eta v); then x~_s = (1/m) sum_k x^s_k. Return x~_T."
    ),
    conventions=CONVENTIONS,
    symbols=(S_LIPSCHITZ, S_N, S_EPOCHS, S_EPOCH_LENGTH),
    assumptions=(Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2"),),
    formulas=(
        Formula("noisy_steps", NOISY_STEPS, "K = T m noisy releases (lines 5-9 in every epoch)", Rounding.CEIL),
        Formula("sampling_rate", SAMPLING_RATE, "line 6: one index of n per inner step", Rounding.UP),
        Formula("difference_sensitivity", DIFFERENCE_SENSITIVITY,
                "replace-one sensitivity of grad f(x, z_i) - grad f(x~, z_i), i the replaced index", Rounding.UP),
        Formula("snapshot_sensitivity", FULL_GRADIENT_SENSITIVITY,
                "replace-one sensitivity of v~ = grad F(x~)", Rounding.UP),
        Formula("gradient_evaluations", GRADIENT_EVALUATIONS,
                "per epoch n for v~ and 2 per inner step: T (n + 2m)", Rounding.CEIL),
    ),
    notes=(
        "Line numbers are the paper's. The snapshot gradient is of the smooth part F only; the "
        "regulariser r enters through its proximal operator (line 8).",
        "The output x~_T, the epoch averages and the prox steps are post-processing of the K noisy "
        "directions v; the privacy records account for all of them (wang17.thm_4_1).",
        "Input assumptions of the paper: f(., z) G-Lipschitz and L-smooth, F^r mu-strongly convex.",
    ),
    pseudocode=(
        Line("L1", "for s = 1, 2, ..., T do"),
        Line("L2", "x~ = x~_{s-1}"),
        Line("L3", "v~ = grad F(x~)"),
        Line("L4", "x^s_0 = x~"),
        Line("L5", "for t = 1, 2, ..., m do"),
        Line("L6", "Pick i^s_t in [n] uniformly at random"),
        Line("L7", "v^s_t = grad f(x^s_{t-1}, z_{i^s_t}) - grad f(x~, z_{i^s_t}) + v~ + u^s_t, u^s_t ~ N(0, sigma^2 I_p)"),
        Line("L8", "x^s_t = prox_{eta r}(x^s_{t-1} - eta v^s_t)"),
        Line("L9", "end for"),
        Line("L10", "x~_s = (1/m) sum_{k=1}^m x^s_k"),
        Line("L11", "end for"),
        Line("L12", "return x~_T"),
    ),
))


# --------------------------------------------------------------------------- Theorem 4.1
# The accountant, the proven sigma and the c it implies: one factory for DP-SVRG and DP-SVRG++.
_ACCOUNTANTS = _cal.svrg_accountants(algorithm=ALG_1, theorem="wang17.thm_4_1", equation="(3)", module=__name__)
certified_epsilon = _ACCOUNTANTS.certified_epsilon
calibrate = _ACCOUNTANTS.calibrate
sigma_accountant = _ACCOUNTANTS.sigma_accountant
implied_constant_accountant = _ACCOUNTANTS.implied_constant_accountant


SIGMA2_PAPER = paper_sigma_squared(NOISY_STEPS)
REGIME_BOUND = c1 * NOISY_STEPS / n**2

THM_4_1 = register(SpecRecord(
    id="wang17.thm_4_1",
    title="Privacy of DP-SVRG",
    citation=Citation("wang17", "Theorem 4.1", ("3",)),
    summary=(
        "For epsilon <= c1 T m / n^2 (some constant c1) and delta > 0, DP-SVRG is (epsilon, delta)-DP if "
        "sigma^2 = c G^2 T m ln(1/delta) / (n^2 epsilon^2) for some constant c."
    ),
    conventions=CONVENTIONS,
    symbols=(S_LIPSCHITZ, S_N, S_EPOCHS, S_EPOCH_LENGTH, S_EPSILON, S_DELTA, S_SIGMA, S_NOISE_CONSTANT,
             S_REGIME_CONSTANT),
    assumptions=(
        DELTA_LT_1,
        Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2"),
        Assumption("side_condition", sp.Le(eps, REGIME_BOUND),
                   "epsilon <= c1 T m / n^2 (decided only when regime_constant is given)"),
    ),
    formulas=(
        Formula("sigma_squared_paper", SIGMA2_PAPER, "eq. (3) at a given c", Rounding.UP),
        Formula("sigma_paper", sp.sqrt(SIGMA2_PAPER), "eq. (3) at a given c", Rounding.UP),
        Formula("implied_constant", implied_constant(NOISY_STEPS),
                "the c that a sigma implies in eq. (3)", Rounding.NEAREST),
        Formula("regime_bound", REGIME_BOUND, "c1 T m / n^2, the largest epsilon the side condition allows",
                Rounding.DOWN),
        Formula("noisy_steps", NOISY_STEPS, "K = T m composed releases", Rounding.CEIL),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        CONVENTIONS.neighbouring,
        "(epsilon, delta)-DP with sigma from eq. (3), c and c1 unspecified (from wang17.thm_3_1). Made "
        "concrete by calibrate (noise splitting, wang17.svrg_step_privacy, over all T m steps); the "
        "certificate covers every v^s_t, so x~_T and all iterates are post-processing. No exact "
        "profile is known for the subsampled, composed Gaussian (profile None).",
        epsilon=eps,
        delta=delta,
        accountant=certified_epsilon,
        calibrations=(
            Calibration("accountant", "sigma", "the smallest sigma (spec.inversion) that the replace-one RDP "
                        "accountant certifies over all T m inner steps (noise splitting, "
                        "wang17.svrg_step_privacy); proven", function=sigma_accountant),
            Calibration("paper", "sigma", "eq. (3) at an explicit noise_constant c (the paper's form; no c works "
                        "for every T m / n^2: see the flags)", formula="sigma_paper"),
            Calibration("implied-constant", "noise_constant", "the c that the proven (accountant) sigma implies "
                        "in eq. (3)", function=implied_constant_accountant, rounding=Rounding.NEAREST),
        ),
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "c is replaced by the smallest sigma the replace-one RDP accountant certifies (calibrate). "
            "At epsilon = 1, delta = 1e-5 (CKS20 conversion): n = 10^3, T = 10, m = 10^5: sigma = 40.57 G "
            "(c = 143.0); m = 10^4: 13.12 G (c = 149.5); n = 10^4, T = 20, m = 100: 2.967 G (c = 38,235); "
            "T = 10, m = 1000: 3.000 G (c = 7,816); T m = n ln n: 3.193 G (c = 961).",
            "Each of the T m inner steps is the split mechanism of wang17.svrg_step_privacy; RDP composes "
            "additively; spec.inversion finds sigma. With Mironov's conversion, orders up to 128 and splits "
            "{0.5, ..., 0.95} the same code reproduces an earlier, independent calibration table to "
            "the digits it gives (3.45 G, c = "
            "51,554; 49.1 G, c = 210; 3.64 G, c = 1,248; 15.8 G, c = 216; 827.6 G, c = 595 at "
            "epsilon = 0.1); the CKS20 conversion is tighter, so sigma is 12-18% smaller here.",
            (f"{TEST_FILE}::test_calibration_table", f"{TEST_FILE}::test_earlier_table_with_mironov_conversion"),
        ),
        Flag(
            FlagKind.CAVEAT,
            "No constant c works: the implied c grows like n^2/(T m) once T m / n^2 is small.",
            "At n = 1000, epsilon = 1, delta = 1e-5 the proven sigma implies c = 143.0 at T m / n^2 = 1, "
            "149.5 at 0.1, 197 at 0.01, 1,113 at 10^-3 and 9.3e5 at 10^-6: sigma is pinned near its "
            "single-step floor (3.3-3.6 G) while eq. (3) asks it to shrink like sqrt(T m). Not only the "
            "accountant: the exact one-step divergence of a Huber instance "
            "(calibration.step_delta_lower_bound, n = 10^4) shows that any per-step sigma up to 0.572 G "
            "is not (1, 1e-5)-DP for that step, so every composition argument needs "
            "c >= 0.572^2 n^2 / (T m ln(1e5)): 284 at T m = 10^4, 28,400 at T m = 100; the paper's "
            "sigma at any fixed c (210, 10^3, 10^5 tested) fails that step once T m is small enough.",
            (f"{TEST_FILE}::test_no_constant_c", f"{TEST_FILE}::test_lower_bound_rules_out_every_constant"),
        ),
        Flag(
            FlagKind.CAVEAT,
            "The side condition epsilon <= c1 T m / n^2 is the regime where the floor does not bind; "
            "outside it (epsilon > c1 T m / n^2) the floor binds and c blows up.",
            "Abadi et al.'s condition epsilon < c1 q^2 T at q = 1/n over T m steps. At n = 1000, "
            "epsilon = 1, delta = 1e-5 the implied c is 176.5 at T m / n^2 = 0.02 and decreases to 143 at "
            "1 (within 25%; tested at 0.02, 0.1, 1), so with c1 = 50 one c of about 180 serves the "
            "admitted range; below it the floor binds: c = 602 at 0.002 (over 4 times the value at 1) "
            "and 1,113 at 10^-3. The paper gives neither c nor c1.",
            (f"{TEST_FILE}::test_side_condition_regime",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "The sampled difference has sensitivity 4G (not 2G): grad f(x, z) - grad f(x~, z) has norm up to "
            "2G for each of the two records.",
            "4G is the supremum for convex, G-Lipschitz, L-smooth losses: 2-D ridge (Huber) losses reach "
            "4G cos(t) with sin(t) = 2G/(L ||x - x~||); in one dimension convexity caps the gap at 2G, so "
            "a 2G-twin needs a worst-case pair in two or more dimensions (the audit phase).",
            ("tests/spec/wang17/test_calibration.py::test_difference_sensitivity_is_attained",),
        ),
    ),
    notes=(
        "Remark 4.1: without the side condition the paper's fallback multiplies sigma by "
        "O(ln(T/delta)) and uses advanced composition with amplification.",
        "The reference phase evaluates: calibrate(n=, epochs=, epoch_length=, epsilon=, delta=, "
        "lipschitz=).sigma (the default), or sigma_paper with an explicit noise_constant (flagged).",
    ),
))

# --------------------------------------------------------------------------- Theorem 4.2
CONTRACTION = 1 / (eta * (1 - 8 * eta * L) * mu * m) + 8 * L * eta * (m + 1) / (m * (1 - 8 * L * eta))
EPOCH_LENGTH_BOUND = (1 / (eta * mu) + 8 * L * eta) / (sp.Rational(1, 2) - 12 * L * eta)
LEARNING_RATE = 1 / (48 * L)
EPOCHS = sp.Max(1, sp.ceiling(sp.log(n**2 * eps**2 * mu / (p * G**2 * LOG_INV_DELTA)) / sp.log(2)))
UTILITY_BOUND = p * sp.log(n) * G**2 * LOG_INV_DELTA / (n**2 * eps**2 * mu)
RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))

THM_4_2 = register(SpecRecord(
    id="wang17.thm_4_2",
    title="Utility of DP-SVRG (strongly convex F^r)",
    citation=Citation("wang17", "Theorem 4.2", ("4", "5")),
    summary=(
        "f convex, G-Lipschitz, L-smooth; F^r mu-strongly convex; sigma as in (3); eta = Theta(1/L) <= "
        "1/(12L) and m = Theta(L/mu) satisfying (4); then for T = O(log(n^2 epsilon^2 mu / (p G^2 "
        "ln(1/delta)))), E[F^r(x~_T)] - F^r(x*) <= O~(p log(n) G^2 ln(1/delta) / (n^2 epsilon^2 mu)), with "
        "O((n + L/mu) log(n mu / p)) gradient evaluations."
    ),
    conventions=CONVENTIONS,
    symbols=(S_LIPSCHITZ, S_SMOOTHNESS, S_STRONG_CONVEXITY, S_N, S_DIMENSION, S_EPSILON, S_DELTA,
             S_LEARNING_RATE, S_EPOCH_LENGTH, S_EPOCHS),
    assumptions=(
        DELTA_LT_1,
        Assumption("learning_rate_le_1_over_12L", sp.Le(eta, 1 / (12 * L)),
                   "eta <= 1/(12 L) (the extracted text)"),
        Assumption("learning_rate_lt_1_over_24L", sp.Lt(eta, 1 / (24 * L)),
                   "L eta < 1/24: necessary for inequality (4) with any m (derived, see the flags)"),
        Assumption("inequality_4", sp.Lt(CONTRACTION, sp.Rational(1, 2)),
                   "1/(eta (1 - 8 eta L) mu m) + 8 L eta (m + 1)/(m (1 - 8 L eta)) < 1/2"),
    ),
    formulas=(
        Formula("learning_rate", LEARNING_RATE, "eta = 1/(48 L): the choice that minimises the m (4) needs",
                Rounding.NEAREST),
        Formula("epoch_length", sp.floor(EPOCH_LENGTH_BOUND) + 1,
                "the smallest m satisfying (4) at the given eta (192 L/mu + 2/3, plus one, at eta = 1/(48L))",
                Rounding.CEIL),
        Formula("contraction", CONTRACTION, "left side of (4), the per-epoch contraction factor",
                Rounding.NEAREST),
        Formula("epochs", EPOCHS, "T = ceil(log_2(n^2 epsilon^2 mu / (p G^2 ln(1/delta)))), at least 1",
                Rounding.CEIL),
        Formula("gradient_evaluations", GRADIENT_EVALUATIONS, "T (n + 2m)", Rounding.CEIL),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, UTILITY_BOUND, BoundKind.BIG_O,
            "E[F^r(x~_T, D)] - F^r(x*, D), in expectation over the algorithm's coins, for every D; the O~ "
            "hides an absolute constant, the constant c of (3), the initial gap F^r(x~_0) - F^r(x*) and "
            "logarithmic factors.",
            RATES,
        ),
    ),
    flags=(
        Flag(
            FlagKind.RECONSTRUCTED,
            "Garbled in extraction and reconstructed: the step-size range 'eta = Theta(1/L) <= 1/(12L)', "
            "inequality (4), T and the bound (5), with epsilon restored (the text drops it: 'n22' is "
            "n^2 epsilon^2); T's base 2 reads (4) as a per-epoch contraction below 1/2 (Prox-SVRG, "
            "Xiao and Zhang 2014, with 4 -> 8).",
            "The restored bound has the exponents of the paper's Table 1 (p log n / (n^2 epsilon^2)): "
            "-2 in n, +1 in p, -2 in epsilon; at T epochs the contraction leaves 2^-T of the initial gap, "
            "which T brings to p G^2 ln(1/delta) / (n^2 epsilon^2 mu) (checked in sympy).",
            (f"{TEST_FILE}::test_thm_4_2_reconstruction",),
            slug="garbled-parameters",
        ),
        Flag(
            FlagKind.CAVEAT,
            "eta <= 1/(12L) does not make (4) satisfiable: (4) forces L eta < 1/24; at eta = 1/(12L) its "
            "second term alone is 2 (m + 1)/m >= 2.",
            "Multiplying (4) by m (1 - 8 L eta) gives m (1/2 - 12 L eta) > L/(mu L eta) + 8 L eta "
            "(module docstring); evaluate() checks both the extracted range and L eta < 1/24.",
            (f"{TEST_FILE}::test_inequality_4_needs_small_steps",),
        ),
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "eta = Theta(1/L), m = Theta(L/mu) made concrete: eta = 1/(48 L) and m = floor(192 L/mu + 2/3) + 1, "
            "the smallest m that satisfies (4) there.",
            "1/(48L) minimises the leading term (L/mu)/(x (1/2 - 12x)) of the smallest admissible m "
            "(x = L eta); the test checks (4) at m and its failure at m - 1.",
            (f"{TEST_FILE}::test_concrete_step_size_and_epoch_length",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "With the proven sigma the bound (5) holds only while T m / n^2 stays above the noise floor of "
            "wang17.thm_4_1 (about 0.02): at Theorem 4.2's own m = Theta(L/mu) and T = O(log n), T m / n^2 -> 0 "
            "as n grows and sigma stops shrinking (3.81 G at n = 1000, 3.24 G at n = 3000; the paper's "
            "form predicts a ratio of 0.37, the proof gives 0.85). The implied c also drifts with epsilon "
            "(146 to 167 over epsilon in [0.25, 1] at n = 50, T = 10, m = 49, delta = 1e-8; 119 to 151 at "
            "delta = 1e-5), which tilts the measured epsilon slope by about +0.1 (+0.2 at delta = 1e-5).",
            "Theorem 4.2's T m / n^2 is 0.0027 at n = 1000 and 0.00036 at n = 3000 (mu = L = G = 1, p = 10, "
            "epsilon = 1, delta = 1e-5: m = 193, T = 14 and 17), below the floor; the accountant's sigma "
            "there is evaluated by the test. The utility audit keeps n <= 100 (T m / n^2 >= 0.06) and "
            "delta = 1e-8 for the n^-2 and epsilon^-2 slopes.",
            (f"{TEST_FILE}::test_thm_4_2_schedule_enters_the_noise_floor",),
        ),
    ),
    notes=(
        "The exact gradient count of the reference is gradient_evaluations = T (n + 2m).",
        "Remark 4.1: without the side condition of Theorem 4.1 an extra O~(log(T m/delta)) factor "
        "appears in the bound.",
    ),
))

#: The records this module registers.
RECORDS = (ALG_1, THM_4_1, THM_4_2)
