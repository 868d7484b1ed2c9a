r"""wang17 Section 3: the Gaussian mechanism (Definition 3.4) and the moments accountant as cited (Theorem 3.1).

``wang17.def_3_4``
    ``sigma >= sqrt(2 ln(1.25/delta)) Delta_2 / epsilon`` "preserves (epsilon, delta)-DP", stated without
    the ``epsilon < 1`` the proof needs (``gaussian.classic``).
``wang17.thm_3_1``
    Abadi et al. (2016), Theorem 1, as wang17 cites it: constants ``c1, c2`` such that for
    ``epsilon < c1 q^2 T`` DP-SGD with sampling probability ``q`` is (epsilon, delta)-DP if
    ``sigma >= c2 q sqrt(T ln(1/delta)) / epsilon``. Theorems 4.1 and 4.3 are this statement at
    ``q = 1/n`` and ``T m`` (resp. ``2^T m``) steps, which is where their ``c`` (``= c2^2``) and ``c1`` come
    from. Abadi et al. prove it for Poisson sampling and add/remove-one neighbours, with noise
    ``N(0, sigma^2 C^2)`` on the *sum* of the lot's clipped gradients, divided by the lot size; wang17's
    neighbours are replace-one and its samples have fixed size.
"""

from __future__ import annotations

import sympy as sp

from spec import gaussian as _gaussian
from spec.record import (
    Assumption,
    Citation,
    Conventions,
    Flag,
    FlagKind,
    Formula,
    LossForm,
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Rounding,
    SpecRecord,
    Symbol,
)
from spec.registry import register
from spec.wang17.symbols import (
    DELTA_LT_1,
    LOG_INV_DELTA,
    S_DELTA,
    S_EPSILON,
    S_LIPSCHITZ,
    S_N,
    S_REGIME_CONSTANT,
    G,
    T,
    c1,
    c2,
    delta,
    eps,
    n,
    q,
    sigma,
)

__all__ = ["DEF_3_4", "THM_3_1", "RECORDS"]

TEST_FILE = "tests/spec/wang17/test_moments_accountant.py"

_CL = _gaussian.CLASSIC

DEF_3_4 = register(SpecRecord(
    id="wang17.def_3_4",
    title="Gaussian mechanism (as defined in wang17)",
    citation=Citation("wang17", "Definition 3.4"),
    summary=(
        "M_G(D, q, epsilon) = q(D) + N(0, sigma^2 I_p) with sigma >= sqrt(2 ln(1.25/delta)) Delta_2(q) / epsilon "
        "preserves (epsilon, delta)-DP (stated without a range for epsilon)."
    ),
    conventions=_CL.conventions,
    symbols=_CL.symbols,
    assumptions=tuple(a for a in _CL.assumptions if a.name == "delta_lt_1"),
    formulas=_CL.formulas,
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP as stated for every epsilon; true for epsilon < 1 (gaussian.classic).",
        epsilon=_CL.symbol("epsilon"),
        delta=_CL.symbol("delta"),
        profile=_gaussian.profile,
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "Stated without epsilon < 1. The calibration holds up to epsilon = 8.42 at delta = 1e-5 and "
            "fails beyond (exact delta 2.3e-5 at epsilon = 10).",
            "Same formula as gaussian.classic (shared expression); the exact profile "
            "(gaussian.exact_delta) decides it. wang17 uses it only through Remark 4.1's fallback.",
            (f"{TEST_FILE}::test_def_3_4_needs_epsilon_range",),
        ),
    ),
    notes=("Formula and symbols are gaussian.classic's (the expression objects are shared).",),
))

S_Q = Symbol("sampling_rate", q, "sampling probability q = l/n (l the lot size)")
S_T = Symbol("steps", T, "number of steps T")
S_C2 = Symbol("noise_constant", c2, "Abadi et al.'s unspecified constant c2")
S_MULT = Symbol("noise_multiplier", sigma, "sigma of the statement: the noise is sigma times the clipping norm")

NOISE_MULTIPLIER = c2 * q * sp.sqrt(T * LOG_INV_DELTA) / eps
REGIME_BOUND = c1 * q**2 * T

THM_3_1 = register(SpecRecord(
    id="wang17.thm_3_1",
    title="Moments accountant for DP-SGD, as cited (Abadi et al. 2016, Theorem 1)",
    citation=Citation("wang17", "Theorem 3.1 (citing Abadi et al. 2016, Theorem 1)"),
    summary=(
        "For G-Lipschitz losses there are constants c1, c2 such that, with sampling probability q = l/n "
        "and T steps, for any epsilon < c1 q^2 T a DP-SGD algorithm with batch size l that adds Gaussian "
        "noise of standard deviation (G/n) sigma to the gradients is (epsilon, delta)-DP for every "
        "delta > 0 if sigma >= c2 q sqrt(T ln(1/delta)) / epsilon."
    ),
    conventions=Conventions(
        LossForm.AVERAGE,
        Neighbouring.ADD_REMOVE_ONE,
        ("As proved by Abadi et al.: Poisson sampling (each record joins a lot with probability q) and "
         "add/remove-one neighbours; noise N(0, sigma^2 G^2) on the sum of the lot's gradients, divided "
         "by the lot size.",
         "wang17 applies it to replace-one neighbours and fixed-size uniform samples (see the flags)."),
    ),
    symbols=(S_LIPSCHITZ, S_N, S_Q, S_T, S_EPSILON, S_DELTA, S_C2, S_REGIME_CONSTANT, S_MULT),
    assumptions=(
        DELTA_LT_1,
        Assumption("q_le_1", sp.Le(q, 1), "q <= 1"),
        Assumption("side_condition", sp.Lt(eps, REGIME_BOUND),
                   "epsilon < c1 q^2 T (decided only when regime_constant is given)"),
    ),
    formulas=(
        Formula("noise_multiplier", NOISE_MULTIPLIER, "c2 q sqrt(T ln(1/delta)) / epsilon", Rounding.UP),
        Formula("noise_std_printed", G * sigma / n, "the standard deviation as printed, (G/n) sigma",
                Rounding.UP),
        Formula("regime_bound", REGIME_BOUND, "c1 q^2 T", Rounding.DOWN),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.ADD_REMOVE_ONE,
        "(epsilon, delta)-DP under add/remove-one with Poisson sampling, c1 and c2 unspecified.",
        epsilon=eps,
        delta=delta,
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "Cited for replace-one neighbours, but proved for add/remove-one with Poisson sampling; the "
            "constants do not transfer. The proof's moment bound q^2 lam (lam + 1) / ((1 - q) sigma^2) + "
            "O(q^3 lam^3 / sigma^3) fails for a replace-one pair: at q = 0.01, sigma = 4, lam = 8 its log "
            "moment is 9.00e-4, 1.98 times the leading term 4.55e-4 (the cubic term is 8e-6) and 3.86 "
            "times the add/remove pair's exact 2.33e-4.",
            "Under replace-one the replaced record's gradient goes from g to g' with ||g - g'|| <= 2G, twice "
            "the add/remove sensitivity. The test computes the log moments lam D_{lam+1} of the one-step "
            "pairs (1-q) N(0, s^2) + q N(1, s^2) against N(0, s^2) (add/remove; also MTZ19, "
            "rdp.poisson_gaussian) and against (1-q) N(0, s^2) + q N(-1, s^2) (replace-one) by quadrature. "
            "wang17's calibrations are certified with replace-one accountants instead "
            "(wang17.svrg_step_privacy, wang17.full_batch_calibration).",
            (f"{TEST_FILE}::test_add_remove_does_not_transfer_to_replace_one",),
        ),
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "c1 and c2 are not given (neither here nor in Abadi et al.). Theorems 4.1 and 4.3 inherit them as "
            "c = c2^2 and c1; wang17's records replace them by proven calibrations.",
            "At q = 1/n and K steps the statement's (sigma G)^2 is c2^2 G^2 K ln(1/delta) / (n^2 epsilon^2), eq. "
            "(3) with K = T m and c = c2^2, and epsilon < c1 q^2 K is the side condition epsilon <= c1 T m / n^2 "
            "(sympy).",
            (f"{TEST_FILE}::test_theorem_4_1_is_theorem_3_1_at_q_1_over_n",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "'(G/n) sigma' should read (G/l) sigma (l = q n the lot size, Abadi et al.'s normalisation): "
            "Theorems 4.1 and 4.3 apply it with l = 1, i.e. noise G sigma on one sampled gradient.",
            "With (G/n) sigma, q = 1/n and K = T m steps the variance would be c2^2 G^2 K ln(1/delta) / "
            "(n^4 epsilon^2), not eq. (3)'s n^2 (sympy).",
            (f"{TEST_FILE}::test_printed_normalisation_contradicts_theorem_4_1",),
        ),
    ),
))

#: The records this module registers.
RECORDS = (DEF_3_4, THM_3_1)
