r"""Theorem 3: the population gradient at the private output (asymptotic form only).

Record
------
``wang19.thm_3``  E_A ||E_z grad f(x_R, z)||_2 <= O(sqrt(tau^2 p log(tau/beta) log n / n) + (p ln(1/delta))^{1/4}/
                  sqrt(n epsilon)), with probability 1 - beta, for n >= Omega(p log p).

What the theorem leaves open
----------------------------
* The algorithm. "There is an (epsilon, delta)-DP algorithm A which outputs x_R": the proof is in the
  supplement, and the output x_R and the second term match DP-PGD (Algorithm 1) with C = R^p, r = 0 and
  Theorem 2; the first term is the uniform convergence of empirical gradients (Mei, Bai and Montanari 2016).
* Every constant: those of Mei-Bai-Montanari's uniform convergence, the Omega in n >= Omega(p log p), and
  Assumption 3's "constant c" with H <= tau^2 p^c and L_H <= tau^3 p^c.
* The dependence on H, L_H and G, which the O(.) absorbs (Assumption 3 ties H, L_H to tau and p).
* Tightness (Remark 2 leaves it open, and the high-dimensional case).

So only the asymptotic form is encoded: two BIG_O utility claims (the two-term bound and the printed
one-term form) and the assumptions that can be checked (epsilon, delta, beta <= 1; n >= p ln p as a
proxy for the Omega).

The printed '=' in (5)
----------------------
(5) writes ``sqrt(tau^2 p log(tau/beta) log n / n) + (p ln(1/delta))^{1/4}/sqrt(n epsilon) =
O(tau sqrt(p log(tau/beta) log n sqrt(ln(1/delta))/(n epsilon)))``. This is an upper bound, not an equality,
and it needs two conditions. Write ``Q = tau^2 p log(tau/beta) log n`` and ``a = ln(1/delta)``; the right side
is ``sqrt(Q sqrt(a)/(n epsilon))``. The first term is at most that iff ``epsilon <= sqrt(a)``. The second,
``sqrt(sqrt(p a)/(n epsilon))``, is at most that iff ``sqrt(p) <= Q``, i.e. ``tau^2 sqrt(p) log(tau/beta) log n
>= 1`` (false for small tau, and meaningless when tau < beta makes the logarithm negative). For fixed epsilon and
delta both forms grow like ``sqrt(p/n)`` up to logarithms, so the exponents agree.
"""

from __future__ import annotations

import sympy as sp

from spec.record import (
    Assumption,
    BoundKind,
    Citation,
    Flag,
    FlagKind,
    Quantity,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register
from spec.wang19.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    LOG_INV_DELTA,
    S_BETA,
    S_DELTA,
    S_EPS,
    S_H,
    S_LH,
    S_N,
    S_P,
    S_TAU,
    beta,
    eps,
    n,
    p,
    tau,
)

__all__ = ["UNIFORM_CONVERGENCE_TERM", "PRIVACY_TERM", "TWO_TERM_BOUND", "PRINTED_BOUND", "THM_3", "RECORDS"]

_TESTS = "tests/spec/wang19/test_population.py"
_a = LOG_INV_DELTA

UNIFORM_CONVERGENCE_TERM = sp.sqrt(tau**2 * p * sp.log(tau / beta) * sp.log(n) / n)
PRIVACY_TERM = (p * _a) ** sp.Rational(1, 4) / sp.sqrt(n * eps)
TWO_TERM_BOUND = UNIFORM_CONVERGENCE_TERM + PRIVACY_TERM
PRINTED_BOUND = tau * sp.sqrt(p * sp.log(tau / beta) * sp.log(n) * sp.sqrt(_a) / (n * eps))
_RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))

THM_3 = register(SpecRecord(
    id="wang19.thm_3",
    title="Population gradient of the private output (asymptotic)",
    citation=Citation("wang19", "Theorem 3", ("5",)),
    summary=(
        "Under Assumptions 1-3, if n >= Omega(p log p), for 0 < epsilon, delta, beta <= 1 there is an (epsilon, "
        "delta)-DP algorithm whose output x_R satisfies, with probability 1 - beta, E_A ||E_z grad f(x_R, z)||_2 <= "
        "O(sqrt(tau^2 p log(tau/beta) log n/n) + (p ln(1/delta))^{1/4}/sqrt(n epsilon))."
    ),
    conventions=CONVENTIONS,
    symbols=(S_TAU, S_P, S_N, S_EPS, S_DELTA, S_BETA, S_H, S_LH),
    assumptions=(
        DELTA_LT_1,
        Assumption("epsilon_le_1", sp.Le(eps, 1), "epsilon <= 1"),
        Assumption("beta_le_1", sp.Le(beta, 1), "beta <= 1"),
        Assumption("n_ge_p_log_p", sp.Ge(n, p * sp.log(p)),
                   "n >= p ln p: a checkable proxy for n >= Omega(p log p), whose constant is not given"),
    ),
    utility=(
        UtilityClaim(
            Quantity.GRADIENT_NORM, TWO_TERM_BOUND, BoundKind.BIG_O,
            "E_A ||E_z grad f(x_R, z)||_2 (population gradient, expectation over the algorithm), with probability "
            "1 - beta over the sample; uniform convergence plus the privacy term of Theorem 2.",
            _RATES,
        ),
        UtilityClaim(
            Quantity.GRADIENT_NORM, PRINTED_BOUND, BoundKind.BIG_O,
            "The printed one-term form of (5); an upper bound on the two-term form only under the conditions of "
            "the flag.",
            _RATES,
        ),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "The second '=' in (5) is an inequality that needs epsilon <= sqrt(ln(1/delta)) (for the first term) "
            "and tau^2 sqrt(p) log(tau/beta) log n >= 1 (for the second).",
            "Module docstring; sympy reduces both comparisons to these conditions, and the test exhibits "
            "violations: at tau = 0.1, beta = 0.05, p = 100, n = 10^4, epsilon = 1, delta = 1e-5 the privacy term "
            "is 1.25 times the printed one-term bound; at epsilon = 10, delta = 0.1 the uniform-convergence "
            "term is 2.57 times it (tau = 1, beta = 0.05, p = 10, n = 10^4).",
            (f"{_TESTS}::test_printed_equality_is_conditional",),
        ),
    ),
    notes=(
        "What the theorem leaves open (module docstring): the algorithm (read as DP-PGD with C = R^p and r = 0), "
        "every constant (Mei-Bai-Montanari's, the Omega, Assumption 3's c), the dependence on H, L_H and G, and "
        "tightness. Only the asymptotic form is encoded; no formula is offered for evaluation.",
        "Assumption 3 calls the Hessian's Lipschitz constant L (here hessian_lipschitz, not the smoothness) and "
        "introduces another constant c (not eq. (3)'s c).",
        "Remark 2: as p grows the uniform-convergence term (p-exponent 1/2) dominates the privacy term (1/4).",
        "Assumption 2 (tau-sub-Gaussian gradients) and 3 (bounded population Hessian H <= tau^2 p^c, Hessian "
        "Lipschitz L_H <= tau^3 p^c) are stated for all x in R^p.",
    ),
))

#: The records this module registers.
RECORDS = (THM_3,)
