"""bst14 Section II: Algorithm 1 (A_Noise-GD) and its utility (Theorem II.4, Lemmas II.2-II.6).

The privacy of Algorithm 1 (Theorem II.1) and its calibrations are in :mod:`spec.bst14.noisy_sgd_privacy`.
"""

from __future__ import annotations

import sympy as sp

from spec import composition as _composition
from spec import gaussian as _gaussian
from spec.bst14.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    N_GE_2,
    RATES,
    S_DELTA,
    S_DELTA_SC,
    S_DIAM,
    S_EPS,
    S_G,
    S_L,
    S_LAMBDA,
    S_N,
    S_P,
    S_SIGMA,
    S_STEP,
    S_T,
    SC_CONSISTENT,
    Delta,
    G,
    L,
    T,
    delta,
    diam,
    eps,
    lam,
    n,
    p,
    sigma,
    t_step,
)
from spec.record import (
    Assumption,
    BoundKind,
    Citation,
    Conventions,
    Flag,
    FlagKind,
    Formula,
    Line,
    LossForm,
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Quantity,
    Rounding,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register

# --------------------------------------------------------------------------- Algorithm 1 expressions
#: Algorithm 1, line 1 (the single source of the printed calibration).
SIGMA2_PRINTED = 32 * L**2 * n**2 * sp.log(n / delta) * sp.log(1 / delta) / eps**2
SIGMA_PRINTED = sp.sqrt(SIGMA2_PRINTED)
#: Per-step l2 sensitivity of n grad l(theta; d) + b_t when the sampled record is the differing one.
STEP_SENSITIVITY = 2 * L * n
SAMPLING_RATE = 1 / n
#: The privacy-loss scale s = sensitivity / sigma of one step (L cancels).
LOSS_SCALE = STEP_SENSITIVITY / SIGMA_PRINTED
#: The proof's chain: eps_1 (per step, before sampling) and eps_2 (after Lemma II.2).
PROOF_EPS_1 = eps / (2 * sp.sqrt(sp.log(1 / delta)))
PROOF_EPS_2 = 2 * PROOF_EPS_1 * SAMPLING_RATE

# The rigorous chain, assembled from the accounting records (never retyped).
_T_NOISY = n**2 - 1
_FORM_B = _composition.ADVANCED_PER_STEP
_BBG18 = _composition.BBG18
_CLASSIC = _gaussian.CLASSIC
RIGOROUS_EPS_2 = _FORM_B.formula("epsilon").expr.subs(
    {_FORM_B.symbol("epsilon_total"): eps, _FORM_B.symbol("steps"): _T_NOISY,
     _FORM_B.symbol("delta_prime"): delta / 2},
    simultaneous=True,
)
RIGOROUS_DELTA_2 = delta / (2 * _T_NOISY)
RIGOROUS_EPS_1 = _BBG18.formula("epsilon_base").expr.subs(
    {_BBG18.symbol("epsilon"): RIGOROUS_EPS_2, _BBG18.symbol("sampling_rate"): SAMPLING_RATE},
    simultaneous=True,
)
RIGOROUS_DELTA_1 = _BBG18.formula("delta_base").expr.subs(
    {_BBG18.symbol("delta"): RIGOROUS_DELTA_2, _BBG18.symbol("sampling_rate"): SAMPLING_RATE},
    simultaneous=True,
)
SIGMA_RIGOROUS = _CLASSIC.formula("sigma").expr.subs(
    {_CLASSIC.symbol("epsilon"): RIGOROUS_EPS_1, _CLASSIC.symbol("delta"): RIGOROUS_DELTA_1,
     _CLASSIC.symbol("sensitivity"): STEP_SENSITIVITY},
    simultaneous=True,
)

#: Calibrations offered by :func:`noise_gd_sigma`; the reference's default is "printed".
CALIBRATIONS = ("printed", "rigorous", "analytic-chain", "accountant")

_MP_LOSS_SCALE = sp.lambdify([n, eps, delta], LOSS_SCALE, modules="mpmath")
_MP_PROOF_EPS_1 = sp.lambdify([eps, delta], PROOF_EPS_1, modules="mpmath")



# --------------------------------------------------------------------------- Section II records
ALG_1 = register(SpecRecord(
    id="bst14.alg_1",
    title="Algorithm 1, A_Noise-GD: differentially private (stochastic) gradient descent",
    citation=Citation("bst14", "Algorithm 1"),
    summary=(
        "Set sigma^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta)/epsilon^2; from any theta_1 in C, for t = 1, ..., "
        "n^2 - 1 pick d uniformly from D (independently across steps) and set theta_{t+1} = "
        "Pi_C(theta_t - eta(t) [n grad l(theta_t; d) + b_t]), b_t ~ N(0, sigma^2 I_p); output theta_{n^2}."
    ),
    conventions=CONVENTIONS,
    symbols=(S_L, S_N, S_EPS, S_DELTA),
    assumptions=(DELTA_LT_1, N_GE_2),
    formulas=(
        Formula("sigma_squared", SIGMA2_PRINTED, "line 1: noise variance", Rounding.UP),
        Formula("sigma", SIGMA_PRINTED, "line 1: noise standard deviation", Rounding.UP),
        Formula("iterates", n**2, "T = n^2 iterates theta_1, ..., theta_{n^2}; the output is the last", Rounding.CEIL),
        Formula("noisy_steps", _T_NOISY, "lines 3-6: n^2 - 1 noisy gradient steps", Rounding.CEIL),
        Formula(
            "sensitivity", STEP_SENSITIVITY,
            "l2 sensitivity of n grad l(theta_t; d) when the sampled record is the differing one "
            "(||n grad l(theta; d) - n grad l(theta; d')|| <= 2 L n)",
            Rounding.UP,
        ),
        Formula("sampling_rate", SAMPLING_RATE, "line 4: each step touches one of the n records", Rounding.UP),
        Formula("noise_multiplier", SIGMA_PRINTED / STEP_SENSITIVITY, "sigma / sensitivity", Rounding.DOWN),
    ),
    notes=(
        "Learning-rate schedules are part of bst14.thm_II_4 (eta_lipschitz, eta_strongly_convex).",
        "Sub-gradients may replace gradients (Note (1) of Section II); the full gradient in line 5 "
        "gives the same utility at n times the cost (Note (2)).",
        "Line 4 samples with replacement across steps: each step draws one index uniformly, i.e. "
        "a subsample of size 1 without replacement (sampling rate 1/n), independently of the others.",
        "The privacy claim is bst14.thm_II_1; the reference uses formula 'sigma' of this record.",
    ),
    pseudocode=(
        Line("L1", "Set the noise variance sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta) / epsilon^2."),
        Line("L2", "theta_1: choose any point of C."),
        Line("L3", "for t = 1 to n^2 - 1 do"),
        Line("L4", "Pick d uniformly from D, with replacement (across steps)."),
        Line("L5", "theta_{t+1} = Pi_C(theta_t - eta(t) [n grad l(theta_t; d) + b_t]), b_t ~ N(0, sigma^2 I_p)."),
        Line("L6", "Output theta_priv = theta_{n^2}."),
    ),
))

_BBKN14 = _composition.BBKN14
LEMMA_II_2 = register(SpecRecord(
    id="bst14.lemma_II_2",
    title="Privacy amplification via sampling (as used in bst14)",
    citation=Citation("bst14", "Lemma II.2"),
    summary=(
        "If A is epsilon'-DP with epsilon' <= 1, running A on a uniformly random gamma n of the n entries "
        "is 2 gamma epsilon'-DP (Beimel, Brenner, Kasiviswanathan and Nissim 2014, Lemma 4)."
    ),
    conventions=_BBKN14.conventions,
    symbols=_BBKN14.symbols,
    assumptions=_BBKN14.assumptions,
    formulas=_BBKN14.formulas,
    privacy=_BBKN14.privacy,
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "Pure DP only. The proof of Theorem II.1 applies it to the Gaussian on the event that the "
            "privacy loss is at most eps_1, which is informal; BBG18 (subsampling.bbg18) handles "
            "(epsilon, delta) exactly: (ln(1 + gamma (e^eps - 1)), gamma delta).",
            "For pure DP the lemma holds for epsilon' <= 1 (it dominates BBG18's tight value there) and "
            "fails beyond epsilon' = 1.2564 for small gamma. For the Gaussian, the conclusion the proof "
            "draws (2 gamma eps_1 with the Gaussian's delta) is implied by BBG18, which the test checks "
            "against the exact hockey-stick divergence of a subsampled Gaussian pair by quadrature.",
            ("tests/spec/bst14/test_noisy_sgd_privacy.py::test_lemma_II_2_caveat",),
        ),
    ),
    notes=("Same statement and formula as subsampling.bbkn14 (the expression object is shared).",),
))

_ADVANCED = _composition.ADVANCED
_LEMMA_II_3_EPS = _ADVANCED.formula("epsilon_total").expr.subs(_ADVANCED.symbol("delta"), 0)
LEMMA_II_3 = register(SpecRecord(
    id="bst14.lemma_II_3",
    title="Strong composition (delta = 0 case of Dwork-Rothblum-Vadhan)",
    citation=Citation("bst14", "Lemma II.3"),
    summary=(
        "The T-fold adaptive composition of epsilon-DP algorithms is (epsilon', delta')-DP with "
        "epsilon' = sqrt(2 T ln(1/delta')) epsilon + T epsilon (e^epsilon - 1)."
    ),
    conventions=_ADVANCED.conventions,
    symbols=tuple(s for s in _ADVANCED.symbols if s.name != "delta"),
    assumptions=tuple(a for a in _ADVANCED.assumptions if a.name == "delta_prime_lt_1"),
    formulas=(Formula("epsilon_total", _LEMMA_II_3_EPS, "epsilon' of the composition", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon', delta')-DP for every delta' in (0, 1); composition.advanced with delta = 0.",
        epsilon=_LEMMA_II_3_EPS,
        delta=_ADVANCED.symbol("delta_prime"),
    ),
    notes=(
        "The paper writes 'epsilon, delta' >= 0'; delta' = 0 makes ln(1/delta') infinite, so delta' is "
        "taken in (0, 1).",
        "Formula shared with composition.advanced (its delta set to 0); steps = T.",
    ),
))

#: Equation (2): E||G_t||^2 <= n^2 L^2 + p sigma^2.
G2_EXPR = n**2 * L**2 + p * sigma**2
ETA_LIPSCHITZ = diam / sp.sqrt(t_step * G2_EXPR.subs(sigma**2, SIGMA2_PRINTED))
ETA_LIPSCHITZ_SIGMA = diam / sp.sqrt(t_step * G2_EXPR)
ETA_STRONGLY_CONVEX = 1 / (Delta * n * t_step)

THM_II_4 = register(SpecRecord(
    id="bst14.thm_II_4",
    title="Utility of Algorithm 1",
    citation=Citation("bst14", "Theorem II.4", ("2",)),
    summary=(
        "With sigma^2 = O(L^2 n^2 ln(n/delta) ln(1/delta)/epsilon^2): for Lipschitz losses and eta(t) = "
        "||C||_2/sqrt(t (n^2 L^2 + p sigma^2)), E[L(theta_priv) - L(theta*)] = O(L ||C||_2 "
        "ln^{3/2}(n/delta) sqrt(p ln(1/delta))/epsilon); if moreover Delta-strongly convex and eta(t) = "
        "1/(Delta n t), it is O(L^2 ln^2(n/delta) p ln(1/delta)/(n Delta epsilon^2))."
    ),
    conventions=CONVENTIONS,
    symbols=(S_L, S_N, S_P, S_EPS, S_DELTA, S_DIAM, S_DELTA_SC, S_STEP, S_SIGMA),
    assumptions=(
        DELTA_LT_1, N_GE_2, SC_CONSISTENT,
        Assumption("step_le_iterates", sp.Le(t_step, n**2), "1 <= t <= n^2: eta is defined on [n^2]"),
    ),
    formulas=(
        Formula("gradient_second_moment", G2_EXPR, "equation (2): bound G^2 on E||G_t||^2", Rounding.NEAREST),
        Formula("iterates", n**2, "T = n^2 in Lemmas II.5 and II.6", Rounding.CEIL),
        Formula(
            "eta_lipschitz", ETA_LIPSCHITZ,
            "learning rate, Lipschitz case, with the printed sigma^2 of Algorithm 1", Rounding.NEAREST,
        ),
        Formula(
            "eta_lipschitz_sigma", ETA_LIPSCHITZ_SIGMA,
            "learning rate, Lipschitz case, for the sigma actually used", Rounding.NEAREST,
        ),
        Formula("eta_strongly_convex", ETA_STRONGLY_CONVEX, "learning rate, strongly convex case", Rounding.NEAREST),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK,
            L * diam * sp.log(n / delta) ** sp.Rational(3, 2) * sp.sqrt(p * sp.log(1 / delta)) / eps,
            BoundKind.BIG_O,
            "Lipschitz losses, eta_lipschitz: in expectation over the algorithm's coins, for every D.",
            RATES,
        ),
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK,
            L**2 * sp.log(n / delta) ** 2 * p * sp.log(1 / delta) / (n * Delta * eps**2),
            BoundKind.BIG_O,
            "Lipschitz and Delta-strongly convex losses, eta_strongly_convex: in expectation over the "
            "algorithm's coins, for every D.",
            RATES,
        ),
    ),
    notes=(
        "Proof: E[G_t] = grad L(theta_t; D) and E||G_t||^2 <= n^2 L^2 + p sigma^2 (equation (2)); then "
        "Lemma II.5 with G^2 = n^2 L^2 + p sigma^2, T = n^2, or Lemma II.6 with lambda = n Delta.",
        "The theorem writes sigma^2 = O(...); the formulas use Algorithm 1's exact sigma^2 "
        "(eta_lipschitz) or the sigma passed in (eta_lipschitz_sigma, for the other calibrations).",
        "Lemma II.5's bound ||C|| G log(T)/sqrt(T) evaluates to O(L ||C|| log(n) sqrt(p ln(n/delta) "
        "ln(1/delta))/epsilon), which the stated bound dominates since log n <= ln(n/delta).",
    ),
))

LEMMA_II_5 = register(SpecRecord(
    id="bst14.lemma_II_5",
    title="Last-iterate SGD for convex functions (Shamir and Zhang 2013, Theorem 2, as used)",
    citation=Citation("bst14", "Lemma II.5"),
    summary=(
        "Projected SGD on a convex F over C with E[G_t] = grad F(theta_t), E||G_t||^2 <= G^2 and "
        "eta(t) = ||C||_2/(G sqrt(t)) has E[F(theta_T) - F(theta*)] = O(||C||_2 G log(T)/sqrt(T)) for T > 1."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE,
                            ("A statement about optimisation; no privacy.",)),
    symbols=(S_DIAM, S_G, S_T, S_STEP),
    assumptions=(Assumption("steps_gt_1", sp.Gt(T, 1), "T > 1"),),
    formulas=(Formula("eta", diam / (G * sp.sqrt(t_step)), "learning rate eta(t)", Rounding.NEAREST),),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, diam * G * sp.log(T) / sp.sqrt(T), BoundKind.BIG_O,
            "E[F(theta_T) - F(theta*)] for the last iterate, in expectation over the gradient noise.",
            (("steps", "oo"),),
        ),
    ),
    notes=("Shamir and Zhang state explicit constants; bst14 quotes the O(.) form, which is encoded here.",),
))

LEMMA_II_6 = register(SpecRecord(
    id="bst14.lemma_II_6",
    title="Last-iterate SGD for strongly convex functions (Shamir and Zhang 2013, Theorem 1, as used)",
    citation=Citation("bst14", "Lemma II.6"),
    summary=(
        "Projected SGD on a lambda-strongly convex F over C with E[G_t] = grad F(theta_t), E||G_t||^2 <= G^2 "
        "and eta(t) = 1/(lambda t) has E[F(theta_T) - F(theta*)] = O(G^2 log(T)/(lambda T)) for T > 1."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE,
                            ("A statement about optimisation; no privacy. bst14 uses lambda = n Delta.",)),
    symbols=(S_LAMBDA, S_G, S_T, S_STEP),
    assumptions=(Assumption("steps_gt_1", sp.Gt(T, 1), "T > 1"),),
    formulas=(Formula("eta", 1 / (lam * t_step), "learning rate eta(t)", Rounding.NEAREST),),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, G**2 * sp.log(T) / (lam * T), BoundKind.BIG_O,
            "E[F(theta_T) - F(theta*)] for the last iterate, in expectation over the gradient noise.",
            (("steps", "oo"),),
        ),
    ),
    notes=("Shamir and Zhang state explicit constants; bst14 quotes the O(.) form, which is encoded here.",),
))
