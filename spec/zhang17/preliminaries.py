"""zhang17 Section 2: Assumption 1 (smoothness), Definitions 1-2 and Lemma 1, as the paper uses them.

``zhang17.assumption_1``
    beta-smoothness of every per-example loss; the right-hand side ``(beta/2)||u - v||^2`` was lost
    in extraction and is restored (RECONSTRUCTED).
``zhang17.def_1``
    (epsilon, delta)-differential privacy under replace-one neighbours.
``zhang17.def_2``
    l2 (and l1) sensitivity of a deterministic query.
``zhang17.lemma_1``
    The Laplace and Gaussian mechanisms as quoted (Dwork and Roth 2014); the Gaussian part is stated
    without the ``epsilon < 1`` condition of its source (CAVEAT). The paper's own algorithms use
    neither calibration: Algorithm 1 adds radial noise ``exp(-epsilon ||z||/Delta)`` or a Gaussian
    with ``ln(2/delta)`` (``zhang17.thm_1``), Algorithm 2 a Gaussian of its own (``zhang17.alg_2``).
"""

from __future__ import annotations

from spec import gaussian as _gaussian
from spec import laplace as _laplace
from spec.record import (
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
from spec.zhang17.symbols import CONVENTIONS, DELTA_LT_1, S_BETA, S_DELTA, S_EPS, Delta, delta, eps

__all__ = ["ASSUMPTION_1", "DEF_1", "DEF_2", "LEMMA_1", "RECORDS"]

_TESTS = "tests/spec/zhang17/test_preliminaries.py"

ASSUMPTION_1 = register(SpecRecord(
    id="zhang17.assumption_1",
    title="beta-smoothness of the per-example losses",
    citation=Citation("zhang17", "Assumption 1"),
    summary=(
        "Every f(., xi) is beta-smooth: |f(u) - f(v) - <grad f(v), u - v>| <= (beta/2) ||u - v||^2 for all "
        "u, v; if f(., xi) is also convex, 0 <= f(u) - f(v) - <grad f(v), u - v> <= (beta/2) ||u - v||^2."
    ),
    conventions=CONVENTIONS,
    symbols=(S_BETA,),
    flags=(
        Flag(
            FlagKind.RECONSTRUCTED,
            "The right-hand side was lost in extraction (only 'beta' survives); restored as the standard "
            "(beta/2) ||u - v||^2 (Nesterov 2013, Lemma 1.2.3), equivalent to beta-Lipschitz gradients.",
            "It is the form the paper uses: the proof of Theorem 2 bounds E F(w_T + z) by F(w_T) + "
            "(beta/2) E||z||^2. The constant 1/2 cannot be smaller: f(w) = (beta/2)||w||^2 (whose gradient "
            "is beta-Lipschitz) attains equality. The test checks the inequality on logistic losses "
            "(beta = ||x||^2/4) at random points and equality on the quadratic.",
            (f"{_TESTS}::test_assumption_1_smoothness_constant",),
        ),
    ),
    notes=(
        "Every result of the paper assumes it; strong convexity (mu) and Lipschitzness (L) are added "
        "per theorem.",
    ),
))

DEF_1 = register(SpecRecord(
    id="zhang17.def_1",
    title="(epsilon, delta)-differential privacy",
    citation=Citation("zhang17", "Definition 1"),
    summary=(
        "A randomised A is (epsilon, delta)-DP if Pr(A(S) in E) <= e^epsilon Pr(A(S') in E) + delta for all "
        "neighbouring S, S' and every event E; epsilon-DP means delta = 0."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        ("Neighbours: |S| = |S'| = n and they differ in exactly one data point (Section 2.2).",),
    ),
    symbols=(S_EPS, S_DELTA),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "The definition every privacy claim of the paper refers to.",
        epsilon=eps,
        delta=delta,
    ),
    notes=(
        "The privacy audits test exactly this inequality (with the neighbour pair in both orders).",
    ),
))

DEF_2 = register(SpecRecord(
    id="zhang17.def_2",
    title="l2 and l1 sensitivity",
    citation=Citation("zhang17", "Definition 2"),
    summary=(
        "Delta_2(q) = sup over neighbouring S, S' of ||q(S) - q(S')||_2 (and Delta_1 with the l1 norm) for "
        "a deterministic query q."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        ("The supremum is over replace-one neighbours of the same size n.",),
    ),
    symbols=(Symbol("sensitivity", Delta, "l2 sensitivity Delta_2 of the query"),),
    notes=(
        "Algorithm 1 releases q(S) = w_T, the T-th gradient-descent iterate, so its sensitivity is the "
        "supremum of ||w_T - w'_T|| bounded by Lemmas 2 and 3 (the paper writes Delta_T).",
        "A sensitivity must hold for every pair of neighbours, so it is computed from public constants "
        "(L, beta, mu, eta, T, n), never from the data.",
    ),
))

_LAP = _laplace.MECHANISM
_CLASSIC = _gaussian.CLASSIC
_LAPLACE_SCALE = _LAP.formula("scale").expr.subs(
    {_LAP.symbol("epsilon"): eps, _LAP.symbol("sensitivity"): Delta}, simultaneous=True,
)
_GAUSSIAN_SIGMA = _CLASSIC.formula("sigma").expr.subs(
    {_CLASSIC.symbol("epsilon"): eps, _CLASSIC.symbol("delta"): delta,
     _CLASSIC.symbol("sensitivity"): Delta}, simultaneous=True,
)

LEMMA_1 = register(SpecRecord(
    id="zhang17.lemma_1",
    title="Laplace and Gaussian mechanisms (as quoted)",
    citation=Citation("zhang17", "Lemma 1"),
    summary=(
        "q(S) + (Y_1, ..., Y_k) with Y_i iid Lap(Delta_1(q)/epsilon) is epsilon-DP; with Y_i iid N(0, sigma^2), "
        "sigma = sqrt(2 ln(1.25/delta)) Delta_2(q)/epsilon, it is (epsilon, delta)-DP (Dwork and Roth 2014)."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        ("The Laplace part uses the l1 sensitivity, the Gaussian part the l2 sensitivity (Definition 2).",),
    ),
    symbols=(
        S_EPS, S_DELTA,
        Symbol("sensitivity", Delta, "Delta_1(q) in laplace_scale, Delta_2(q) in gaussian_sigma"),
    ),
    assumptions=(DELTA_LT_1,),
    formulas=(
        Formula("laplace_scale", _LAPLACE_SCALE, "scale of each Laplace coordinate (laplace.mechanism)",
                Rounding.UP),
        Formula("gaussian_sigma", _GAUSSIAN_SIGMA, "Gaussian standard deviation (gaussian.classic)",
                Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "Laplace: epsilon-DP for every epsilon > 0. Gaussian: (epsilon, delta)-DP as quoted, proved by the "
        "source only for epsilon < 1 (flag).",
        epsilon=eps,
        delta=delta,
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "The Gaussian part is quoted without the condition epsilon < 1 of its source (Dwork-Roth "
            "Theorem A.1); at delta = 1e-5 the calibration stops being (epsilon, delta)-DP at epsilon = 8.42.",
            "Evaluated with the exact Gaussian profile (gaussian.analytic) the classical sigma is "
            "(epsilon, delta)-DP for every epsilon < 1 and beyond, up to a computable epsilon "
            "(gaussian.classic_failure_epsilon): 8.42 at delta = 1e-5. The paper's algorithms do not use "
            "this calibration: Algorithm 1 uses ln(2/delta) (zhang17.thm_1, whose own failure epsilon is "
            "larger), Algorithm 2 its own sigma (zhang17.alg_2).",
            (f"{_TESTS}::test_lemma_1_gaussian_needs_a_range",),
        ),
    ),
    notes=(
        "Formulas are those of laplace.mechanism and gaussian.classic (the expressions are shared).",
        "Algorithm 1's delta = 0 branch is not this Laplace mechanism: it draws one radial vector with "
        "density proportional to exp(-epsilon ||z||_2/Delta_2) (profiles.radial_laplace), calibrated to "
        "the l2 sensitivity.",
    ),
))

#: The records this module registers.
RECORDS = (ASSUMPTION_1, DEF_1, DEF_2, LEMMA_1)
