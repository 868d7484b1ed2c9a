r"""wang20 Section 4: sample-and-aggregate (Nissim, Raskhodnikova and Smith 2007).

Records: ``wang20.thm_1`` (NRS07 Theorem 4.2 as cited), ``wang20.alg_1`` (the framework and its
parameters), ``wang20.lemma_1`` (ERM minimisers concentrate) and ``wang20.thm_2`` (its DP-SCO rate).

Algorithm 1 in brief. Draw m subsets of size n/m (each uniformly without replacement), redrawn
until no record lies in more than s = sqrt(m) of them (the redraw depends on indices only: it costs
no privacy); compute the block outputs z_i = f(D_{S_i}); release the "centre of attention"
g = z_{i*}, i* = argmin_i r_i(t0), plus Gaussian noise (S/gamma) u, where r_i(t) is the distance from
z_i to its t-th nearest neighbour among z_1..z_m and S is a beta-smooth upper bound on g's local
sensitivity. Changing one record changes at most s block outputs, so "neighbours" of the block
multiset differ in at most s entries.

The smooth bound (RECONSTRUCTED; the printed rho(t) is the mean of the *top* ceil(s/beta) radii)
------------------------------------------------------------------------------------------------
Conventions: ``r_i(1) = 0`` (z_i is its own first neighbour); ``r_i(t) = Lambda_diam`` for t > m,
with Lambda_diam a public bound on the diameter of f's range (the diameter Delta of W for an ERM
minimiser); ``r_(j)(t)`` is the j-th smallest of ``r_1(t), ..., r_m(t)`` (``Lambda_diam`` for
j > m); ``t0`` is the smallest integer with ``2 t0 > m + s``, i.e. ``floor((m + s)/2) + 1`` (the
seed writes ``(m + s)/2 + 1``). The bound used is

    A^(k) = 2 r_((k+1)s+1)(t0 + (k+1)s),   S = max_{k>=0} e^{-beta k} A^(k)
          = max{max_{k<K} e^{-beta k} A^(k), 2 Lambda_diam e^{-beta K}},   K = floor((m - t0)/s).

*Proof.* Let y differ from x in at most s entries. (a) For an unchanged index i,
``r_i^y(t) <= r_i^x(t + s)``: the ball around z_i of radius ``r_i^x(t+s)`` holds t + s points of x,
at most s of them changed. Among the ``K' + s`` smallest radii ``r^x(t+s)`` at least K' belong to
unchanged indices, so ``r^y_(K')(t) <= r^x_(K'+s)(t + s)``; with ``K' = (k+1)s + 1`` this is
``A^(k)(y) <= A^(k+1)(x)``, hence ``S(y) <= e^beta S(x)`` (as for the trimmed mean). (b) The ball
of radius ``r^x_{i*}(t0)`` around g(x) holds t0 points of x, at least ``t0 - s`` of them unchanged;
the same holds for g(y) in y; since ``2 (t0 - s) > m - s`` the two balls share an unchanged point,
so ``|g(x) - g(y)| <= min_i r_i^x(t0) + min_j r_j^y(t0) <= r^x_(s+1)(t0 + s) + r^x_(s+1)(t0 + s) =
A^(0)(x)`` (by (a) with K' = 1), whatever the tie-breaking of the argmin. So S is a beta-smooth
upper bound on the local sensitivity of g. The order statistic's rank grows with k; a mean of a
fixed number of radii has no such bound, and the mean of the *largest* ones is not smooth at all
(ERRATUM flag of ``wang20.alg_1``). The tests check (a) and (b) exhaustively on small 1-D grids
and on seeded random configurations in one and two dimensions.
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
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Quantity,
    Rounding,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register
from spec.wang20.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    RATES,
    S_ALPHA,
    S_BETA,
    S_DELTA,
    S_DIAM,
    S_DIM,
    S_EPS,
    S_G,
    S_LAMBDA,
    S_N,
    S_RADIUS,
    S_RISK_MIN,
    S_SUBSETS,
    G,
    Lambda,
    alpha,
    beta,
    d,
    delta,
    diam,
    eps,
    m_sub,
    n,
    radius,
    risk_min,
)

__all__ = [
    "THM_1",
    "ALG_1",
    "LEMMA_1",
    "THM_2",
    "RECORDS",
    "MULTIPLICITY",
    "SHIFT",
    "DILATION",
    "ATTENTION_RANK",
    "LAST_SHIFT",
]

_TESTS = "tests/spec/wang20/test_sample_and_aggregate.py"

# --------------------------------------------------------------------------- expressions
_LOG_2_DELTA = sp.log(2 / delta)
#: Algorithm 1, line 1 (NRS07's Gaussian admissibility: alpha = gamma, beta).
MULTIPLICITY = sp.floor(sp.sqrt(m_sub))
SHIFT = eps / (5 * sp.sqrt(2 * _LOG_2_DELTA))
DILATION = eps / (4 * (d + _LOG_2_DELTA))
#: Line 4: t0, the smallest integer with 2 t0 > m + s.
ATTENTION_RANK = sp.floor((m_sub + MULTIPLICITY) / 2) + 1
#: The first k with t0 + (k+1) s > m (beyond it every A^(k) is 2 Lambda_diam).
LAST_SHIFT = sp.floor((m_sub - ATTENTION_RANK) / MULTIPLICITY)
#: Line 5 as printed: rho(t) averages ceil(s/beta) radii (at most m of them).
PRINTED_AVERAGE_COUNT = sp.Min(m_sub, sp.ceiling(MULTIPLICITY / DILATION))

_EPS_GT = Assumption(
    "epsilon_gt_2d_over_sqrt_m", sp.Gt(eps, 2 * d / sp.sqrt(m_sub)), "epsilon > 2 d/sqrt(m)"
)
_M_GE_LOG2 = Assumption(
    "m_ge_log_squared_n", sp.Ge(m_sub, sp.log(n) ** 2),
    "m >= ln(n)^2: a checkable proxy for the theorem's m = omega(log^2 n)",
)
_M_LE_N = Assumption("subsets_le_n", sp.Le(m_sub, n), "m <= n (every subset has n/m >= 1 records)")

THM_1 = register(SpecRecord(
    id="wang20.thm_1",
    title="Sample-and-aggregate is private and accurate (NRS07, as cited)",
    citation=Citation("wang20", "Theorem 1 (Nissim, Raskhodnikova and Smith 2007, Theorem 4.2, as cited)", ("1",)),
    summary=(
        "With epsilon > 2d/sqrt(m) and m = omega(log^2 n), Algorithm 1 is (epsilon, delta)-DP; if "
        "||f||_1 <= Lambda and Pr[d(f(D_S), c) <= r] >= 3/4, the Gaussian noise has standard deviation "
        "O(r/epsilon + (Lambda/epsilon) e^{-Omega(epsilon sqrt(m)/d)})."
    ),
    conventions=CONVENTIONS,
    symbols=(S_EPS, S_DELTA, S_DIM, S_SUBSETS, S_N, S_RADIUS, S_LAMBDA),
    assumptions=(DELTA_LT_1, _EPS_GT, _M_GE_LOG2, _M_LE_N),
    formulas=(
        Formula("shift", SHIFT, "gamma (NRS07's alpha) of the Gaussian's admissibility", Rounding.DOWN),
        Formula("dilation", DILATION, "beta of the Gaussian's admissibility", Rounding.DOWN),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP, provided S is a beta-smooth upper bound on the local sensitivity of the "
        "aggregator over block multisets that differ in at most s entries (wang20.alg_1).",
        epsilon=eps,
        delta=delta,
    ),
    utility=(
        UtilityClaim(
            Quantity.NOISE_NORM,
            (radius + Lambda * sp.exp(-eps * sp.sqrt(m_sub) / d)) / eps,
            BoundKind.BIG_O,
            "Standard deviation of the added Gaussian noise (the Omega(.) in the exponent written with "
            "constant 1); when m = omega(d^2 log^2(r/Lambda)/epsilon^2) each coordinate of A(D) - c_bar "
            "is O(r/epsilon) with high probability, d(c, c_bar) = O(r).",
            (("epsilon", "0"),),
        ),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "The Gaussian's admissibility constants gamma = epsilon/(5 sqrt(2 ln(2/delta))), beta = "
            "epsilon/(4 (d + ln(2/delta))) are NRS07's, cited and not re-derived; checked numerically "
            "with a margin.",
            "Scaling by S(x)/gamma, the outputs on neighbours are N(0, I_d) and N(Delta, e^{2 lambda} I_d) "
            "with ||Delta|| <= gamma, |lambda| <= beta. Their exact hockey-stick divergence at epsilon "
            "(one integral over the coordinate along Delta, chi-square in closed form for the rest) is "
            "at most 8.4e-7 delta over epsilon in {0.5, 1}, delta = 1e-5, d in {1, 10, 100}, lambda in "
            "{-beta, 0, beta}, ||Delta|| = gamma; with both constants doubled it is still 0.015 delta, "
            "with both multiplied by 4 it is 51 delta (at d = 10, epsilon = 1): the check can fail.",
            (f"{_TESTS}::test_gaussian_admissibility_constants",),
        ),
    ),
    notes=(
        "Replace-one neighbours of D change at most s of the m block outputs (line 2's redraw), "
        "the relation the smooth bound is taken over.",
        "m >= ln(n)^2 is a proxy for m = omega(log^2 n); the theorem is asymptotic.",
    ),
))

ALG_1 = register(SpecRecord(
    id="wang20.alg_1",
    title="Algorithm 1: sample-and-aggregate with the centre-of-attention aggregator (NRS07)",
    citation=Citation("wang20", "Algorithm 1"),
    summary=(
        "s = sqrt(m), gamma = epsilon/(5 sqrt(2 ln(2/delta))), beta = epsilon/(4(d + ln(2/delta))); "
        "m random subsets of size n/m with no record in more than s of them; release the centre of "
        "attention of f(D_{S_1}), ..., f(D_{S_m}) plus (S/gamma) u, u ~ N(0, I_d), S a beta-smooth "
        "upper bound on its local sensitivity."
    ),
    conventions=CONVENTIONS,
    symbols=(S_EPS, S_DELTA, S_DIM, S_SUBSETS, S_N, S_DIAM),
    assumptions=(DELTA_LT_1, _M_LE_N),
    formulas=(
        Formula("multiplicity", MULTIPLICITY, "line 1: s = floor(sqrt(m)), the most subsets one record may join",
                Rounding.FLOOR),
        Formula("shift", SHIFT, "line 1: gamma = epsilon/(5 sqrt(2 ln(2/delta))); the noise is (S/gamma) u",
                Rounding.DOWN),
        Formula("dilation", DILATION, "line 1: beta = epsilon/(4 (d + ln(2/delta))), the smoothness of S",
                Rounding.DOWN),
        Formula("noise_multiplier", 1 / SHIFT, "1/gamma: the noise is (S/gamma) u", Rounding.UP),
        Formula("block_size", sp.floor(n / m_sub), "line 2: records per subset, floor(n/m)", Rounding.FLOOR),
        Formula("attention_rank", ATTENTION_RANK, "line 4: t0 = floor((m + s)/2) + 1 (2 t0 > m + s)",
                Rounding.CEIL),
        Formula("last_shift", LAST_SHIFT,
                "K = floor((m - t0)/s): A^(k) = 2 Lambda_diam for k >= K, so S maximises over k <= K",
                Rounding.FLOOR),
        Formula("radius_cap", diam,
                "Lambda_diam: r_i(t) for t > m and r_(j) for j > m (the diameter of W for an ERM "
                "minimiser)", Rounding.UP),
        Formula("printed_average_count", PRINTED_AVERAGE_COUNT,
                "line 5 as printed: rho(t) averages the top ceil(s/beta) radii (audit twin only)",
                Rounding.CEIL),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP with the reconstructed smooth bound (wang20.thm_1); the printed rho(t) is "
        "not smooth.",
        epsilon=eps,
        delta=delta,
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "Line 5's rho(t), the mean of the *top* ceil(s/beta) values of r_1(t), ..., r_m(t), does not "
            "give a beta-smooth S: moving s block outputs far away makes their own radii, and so the "
            "mean of the largest radii, as large as the cap.",
            "m = 30 (s = 5, t0 = 18, K = 2), beta = 1, Lambda_diam = 1000: x with all 30 outputs at 0 and "
            "y with 5 of them moved to 1000 differ in s entries, and S(y)/S(x) = e^2 = 7.39 > e^beta = "
            "2.72 (S(x) is the floor 2 Lambda e^{-2 beta}, S(y) = 2 Lambda). Seeded random "
            "configurations (m = 30, beta = 1) reach 2.2 e^beta. The bound used (module docstring) "
            "has 0 violations on the same pairs.",
            (f"{_TESTS}::test_top_radii_are_not_smooth",),
            slug="attention-radius-mean",
        ),
        Flag(
            FlagKind.RECONSTRUCTED,
            "The smooth bound used is S = max_k e^{-beta k} 2 r_((k+1)s+1)(t0 + (k+1)s): the "
            "((k+1)s+1)-th smallest radius instead of a mean of radii (module docstring: proof). "
            "Conventions reconstructed: r_i(1) = 0, radii beyond m equal the public range diameter "
            "(Delta), s = floor(sqrt(m)), t0 = floor((m + s)/2) + 1.",
            "The proof uses only the triangle inequality and counting. Exhaustive on 1-D grids "
            "(m = 7, outputs in {0..5}; m = 8 in {0..4}; all 75132 and 30195 ordered pairs of "
            "multisets differing in <= s entries, every tie-break of the argmin): LS(x) <= A^(0)(x) "
            "and A^(k)(y) <= A^(k+1)(x), 0 violations; also on seeded random configurations (m in {16, 30, 50}, 1-D and l1 in 2-D). "
            "For every m <= 3000, 2 t0 > m + s and t0 <= m for m >= 3. The mean of the "
            "ceil(s/beta) smallest radii (another reading of line 5) is not an upper bound under "
            "arbitrary tie-breaking: x = (0, 0, 1, 1, 2, 2, 2, 2), y = (0, 0, 2, 2, 2, 2, 2, 4), m = 8, "
            "beta = 1, |g(x) - g(y)| = 3 > S(x) = 2.94.",
            (f"{_TESTS}::test_smooth_bound_exhaustive", f"{_TESTS}::test_smooth_bound_random",
             f"{_TESTS}::test_attention_rank"),
            slug="smooth-bound",
        ),
        Flag(
            FlagKind.CAVEAT,
            "With NRS07's beta = epsilon/(4 (d + ln(2/delta))) the smooth bound sits at its floor "
            "2 Lambda e^{-beta K} unless beta K >> 1, with K about sqrt(m)/2: sample-and-aggregate needs "
            "thousands of blocks before its noise falls below the diameter of W.",
            "At epsilon = 1, delta = 1e-5, d = 1: beta = 0.0189 and 1/gamma = 24.7; with m = 16 (K = 1) the "
            "floor is e^{-beta} = 0.981 of 2 Lambda, so the noise's standard deviation is at least 48.5 "
            "Lambda whatever the data; e^{-beta K} <= 1/e needs K >= 53, i.e. m >= 11343 blocks (the record's "
            "formulas).",
            (f"{_TESTS}::test_smooth_bound_floor_needs_many_blocks",),
        ),
    ),
    notes=(
        "Line 2's redraw loop depends only on indices, so it costs no privacy; each record's count "
        "is about Binomial(m, 1/m), so redraws are rare.",
        "The block function f for Theorem 2 is the ERM minimiser over W with d_M = ||.||_2 "
        "(a non-private solver).",
        "Formula printed_average_count is for the audit twin with line 5 as printed.",
    ),
    pseudocode=(
        Line("L1", "Initialise s = sqrt(m), gamma = epsilon/(5 sqrt(2 log(2/delta))), beta = epsilon/(4 (d + "
                   "log(2/delta)))."),
        Line("L2", "Select m random subsets of size n/m of D, each uniformly without replacement; repeat "
                   "until no point lies in more than sqrt(m) of them: D_{S_1}, ..., D_{S_m}."),
        Line("L3", "Compute S = {s_i}, s_i = f(D_{S_i})."),
        Line("L4", "g(S) = s_{i*}, i* = argmin_i r_i(t0), t0 = (m + s)/2 + 1; r_i(t) is the distance from "
                   "s_i to its t-th nearest neighbour in S."),
        Line("L5", "Noise calibration: S(S) = 2 max_k rho(t0 + (k+1) s) e^{-beta k} (printed: rho(t) the "
                   "mean of the top ceil(s/beta) radii r_i(t); used: the ((k+1)s+1)-th smallest)."),
        Line("L6", "Return A(D) = g(S) + (S(S)/gamma) u, u ~ N(0, I_d)."),
    ),
))

LEMMA_1 = register(SpecRecord(
    id="wang20.lemma_1",
    title="The empirical risk minimiser is close to w* with probability 3/4",
    citation=Citation("wang20", "Lemma 1", ("2",)),
    summary=(
        "Under Assumptions 1 and 2, for n >= n_alpha, w_D = argmin_W L^(w, D) satisfies ||w_D - w*|| <= "
        "O(sqrt(E||grad l(w*, x)||^2/(n alpha^2))) with probability at least 3/4."
    ),
    conventions=CONVENTIONS,
    symbols=(S_N, S_G, S_ALPHA),
    utility=(
        UtilityClaim(
            Quantity.DISTANCE,
            sp.sqrt(G**2 / (n * alpha**2)),
            BoundKind.BIG_O,
            "||w_D - w*||_2 with probability at least 3/4 over D (Assumption 2 holds with probability "
            "5/6).",
            (("n", "oo"),),
        ),
    ),
    notes=("This is eq. (1) of Theorem 1 for f = ERM on blocks of n/m records, r = O(G sqrt(m/n)/alpha).",),
))

THM_2 = register(SpecRecord(
    id="wang20.thm_2",
    title="DP-SCO by sample-and-aggregate (strongly convex, smooth, heavy-tailed)",
    citation=Citation("wang20", "Theorem 2", ("3",)),
    summary=(
        "Under Assumptions 1 and 2, with n >= Omega~(n_alpha d^2/epsilon^2), m >= omega~(d^2/epsilon^2), "
        "f = ERM and d_M = l2, Algorithm 1 is (epsilon, delta)-DP and, with high probability, "
        "L_D(A(D)) - L_D(w*) <= O~((beta/alpha)^2 d^3 L_D(w*)/(n epsilon^4))."
    ),
    conventions=CONVENTIONS,
    symbols=(S_EPS, S_DELTA, S_DIM, S_N, S_ALPHA, S_BETA, S_RISK_MIN),
    assumptions=(DELTA_LT_1,),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP (wang20.thm_1 with the smooth bound of wang20.alg_1).",
        epsilon=eps,
        delta=delta,
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_POPULATION_RISK,
            (beta / alpha) ** 2 * d**3 * risk_min / (n * eps**4),
            BoundKind.BIG_O,
            "With high probability over the data and the noise; O~ hides logarithmic factors.",
            RATES,
        ),
    ),
    notes=(
        "Derivation of the rate (a test repeats it with sympy): Lemma 1 on blocks of n/m records gives "
        "r = G sqrt(m/n)/alpha; Theorem 1 adds noise of standard deviation r/epsilon per coordinate; "
        "m = d^2/epsilon^2; smoothness gives excess risk (beta/2) d (r/epsilon)^2, and "
        "E||grad l(w*, x)||^2 <= 2 beta L_D(w*) for non-negative beta-smooth losses.",
        "Remark 1: the multiplicative L_D(w*) makes the bound 0 when L_D(w*) = 0.",
    ),
))

RECORDS = (THM_1, ALG_1, LEMMA_1, THM_2)
