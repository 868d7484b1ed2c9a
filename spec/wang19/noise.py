r"""The noise of DP-PGD, DP-FW-L2 and DP-PMD: equation (3), Theorem 1 and Lemma 2.

All three algorithms add ``N(0, sigma^2 I_p)`` to the full gradient ``grad F(x_k)`` once per iteration, for
``T`` iterations, so one calibration serves them all.

Records
-------
``wang19.eq_3``     sigma^2 = c G^2 T ln(1/delta) / (n^2 epsilon^2) with the constant c made concrete (zCDP).
``wang19.thm_1``    Privacy of DP-PGD; the calibration options (zCDP, RDP with CKS or Mironov, exact).
``wang19.lemma_2``  The moments accountant as quoted (existential constants, add/remove normalisation).

Derivation of (3) (the paper's step 3, corrected)
-------------------------------------------------
The released quantity per step is ``grad F(x_k) + eps_k``; ``grad F`` has replace-one l2 sensitivity ``2G/n``
(``wang19.def_2``). A Gaussian release with sensitivity ``Delta`` is ``Delta^2/(2 sigma^2)``-zCDP; ``T`` adaptive
releases compose to ``rho = T Delta^2/(2 sigma^2) = 2 G^2 T/(n^2 sigma^2)``, and ``rho``-zCDP is
``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP. The largest admissible ``rho`` is
``rho* = (sqrt(a + epsilon) - sqrt(a))^2``, ``a = ln(1/delta)`` (``zcdp.rho_star``), hence

    sigma^2 = 2 G^2 T / (n^2 rho*) = 2 G^2 T (sqrt(a + epsilon) + sqrt(a))^2 / (n^2 epsilon^2),

which is (3) with ``c = sigma^2 n^2 epsilon^2 / (G^2 T a) = 2 (1 + sqrt(1 + epsilon/a))^2``: ``c > 8``, ``c -> 8``
as ``epsilon/a -> 0``, and no condition on ``epsilon`` (Theorem 1's ``epsilon < c_1 T`` holds with
``c_1 = infinity``). The expressions are built from ``zcdp.gaussian_calibration`` and ``zcdp.rho_star``.

RDP options. ``T`` Gaussian releases have the RDP curve ``alpha T Delta^2 / (2 sigma^2)``
(``rdp.gaussian``); at one order ``alpha`` the CKS20 conversion (``rdp.to_dp_cks20``) certifies epsilon when
that curve is at most ``b(alpha) = epsilon - ln((alpha-1)/alpha) + (ln delta + ln alpha)/(alpha - 1)``, so
``sigma_alpha = sqrt(alpha T Delta^2 / (2 b(alpha)))`` (where ``b > 0``) is (epsilon, delta)-DP for *every* such
``alpha``; :func:`sigma` minimises over orders (any order is valid, so an imperfect minimum is safe). With
Mironov's conversion, ``b(alpha) = epsilon - ln(1/delta)/(alpha - 1)``, and the minimum over real ``alpha`` is
exactly the zCDP calibration. The exact calibration uses the Gaussian-DP composition of the ``T`` releases
(``gaussian.analytic``), which is tight for the transcript.

The reference uses ``calibration="zcdp"`` (the paper's own method, step 3 corrected) by default.
"""

from __future__ import annotations

import functools
import math

import mpmath
import sympy as sp

from spec import cache
from spec import gaussian as _gaussian
from spec import rdp as _rdp
from spec import validate
from spec import zcdp as _zcdp
from spec.errors import ParameterError
from spec.record import (
    PRECISION_DIGITS,
    Assumption,
    Calibration,
    Citation,
    Flag,
    FlagKind,
    Formula,
    PrivacyClaim,
    PrivacyModel,
    Neighbouring,
    Rounding,
    SpecRecord,
    round_safe,
)
from spec.registry import register
from spec.wang19.definitions import DEF_2, SENSITIVITY
from spec.wang19.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    G,
    L,
    LOG_INV_DELTA,
    ORDER,
    S_DELTA,
    S_EPS,
    S_G,
    S_N,
    S_ORDER,
    S_T,
    T,
    delta,
    eps,
    from_record,
    n,
)

__all__ = [
    "RHO_STAR",
    "SIGMA_SQUARED",
    "SIGMA",
    "IMPLIED_CONSTANT",
    "SIGMA_EQ3",
    "RDP_BUDGET_CKS",
    "RDP_BUDGET_MIRONOV",
    "SIGMA_CKS_AT_ORDER",
    "SIGMA_MIRONOV_AT_ORDER",
    "SIGMA_PRINTED",
    "SIGMA_PRINTED_APPROXIMATION",
    "RHO_MISPLACED_ROOT",
    "CALIBRATIONS",
    "EQ_3",
    "THM_1",
    "LEMMA_2",
    "RECORDS",
    "sigma",
    "sigma_rdp",
    "sigma_rdp_mironov",
    "sigma_exact",
    "NOISE_CALIBRATIONS",
    "certified_epsilon",
    "transcript_profile",
]

_TESTS = "tests/spec/wang19/test_noise.py"
_a = LOG_INV_DELTA

# --------------------------------------------------------------------------- expressions
_SENS = {"sensitivity": SENSITIVITY}
_BUDGET = {"epsilon": eps, "delta": delta}

#: rho*(epsilon, delta), from zcdp.rho_star.
RHO_STAR = from_record(_zcdp.RHO_STAR, "rho", _BUDGET)
#: The corrected step 3: sigma for T releases of sensitivity 2G/n, from zcdp.gaussian_calibration.
SIGMA = from_record(_zcdp.GAUSSIAN_CALIBRATION, "sigma", {**_SENS, **_BUDGET, "steps": T})
SIGMA_SQUARED = SIGMA**2
#: The constant c of (3) implied by the zCDP calibration (derived, not typed: the tests compare it with
#: 2 (1 + sqrt(1 + epsilon/a))^2).
IMPLIED_CONSTANT = cache.simplify(SIGMA_SQUARED * n**2 * eps**2 / (G**2 * T * _a))
#: Equation (3) with c = IMPLIED_CONSTANT: the same number as SIGMA, written as the paper writes it.
SIGMA_EQ3 = sp.sqrt(IMPLIED_CONSTANT * G**2 * T * _a / (n**2 * eps**2))

# RDP: the largest composed RDP value a conversion allows at one order, then sigma at that order.
_R_CKS = _rdp.TO_DP_CKS20.symbol("rdp")
_R_MIR = _rdp.TO_DP_MIRONOV17.symbol("rdp")


def _rdp_budget(record, r_symbol):
    """b(alpha): the conversion's epsilon is R + (terms free of R); solve epsilon(R) = epsilon for R."""
    expr = record.formula("epsilon").expr
    free = sp.expand(expr - r_symbol)
    assert r_symbol not in free.free_symbols  # the conversions are R plus a function of (alpha, delta)
    budget = eps - free.subs({record.symbol("delta"): delta, record.symbol("order"): ORDER}, simultaneous=True)
    return sp.expand_log(budget, force=True)


_RDP_SIGMA_SYM = _rdp.GAUSSIAN.symbol("sigma")
_RDP_CURVE = from_record(_rdp.GAUSSIAN, "rdp_composed", {**_SENS, "steps": T, "order": ORDER})


def _sigma_at_budget(budget):
    """sigma with curve(sigma) = budget: the curve is linear in y = 1/sigma^2, so solve for y."""
    y = sp.Symbol("y")
    (solution,) = cache.solve(sp.Eq(_RDP_CURVE.subs(_RDP_SIGMA_SYM, 1 / sp.sqrt(y)), budget), y)
    return 1 / sp.sqrt(sp.expand_log(solution, force=True))


#: b(alpha) of the two conversions: the composed RDP value that still converts to epsilon at delta.
RDP_BUDGET_CKS = _rdp_budget(_rdp.TO_DP_CKS20, _R_CKS)
RDP_BUDGET_MIRONOV = _rdp_budget(_rdp.TO_DP_MIRONOV17, _R_MIR)
#: sigma certified by one order alpha with the CKS20 conversion (where its budget is positive).
SIGMA_CKS_AT_ORDER = _sigma_at_budget(RDP_BUDGET_CKS)
#: sigma certified by one order alpha with Mironov's conversion (where its budget is positive).
SIGMA_MIRONOV_AT_ORDER = _sigma_at_budget(RDP_BUDGET_MIRONOV)

# The paper as printed (typed from the paper: these are the artefacts the flags are about).
#: Algorithm 1, step 3: sigma^2 = 2 L^2 T / (n^2 rho^2), rho from rho + 2 sqrt(rho log(1/delta)) = epsilon.
SIGMA_PRINTED = sp.sqrt(2 * L**2 * T / (n**2 * RHO_STAR**2))
#: Step 3 with only the L-for-G typo, and with only the rho^2-for-rho typo.
SIGMA_PRINTED_L_ONLY = sp.sqrt(2 * L**2 * T / (n**2 * RHO_STAR))
SIGMA_PRINTED_RHO2_ONLY = sp.sqrt(2 * G**2 * T / (n**2 * RHO_STAR**2))
#: The paper's closed form of rho, '(sqrt(log(1/delta)) + epsilon - sqrt(log(1/delta)))^2', read literally
#: (sympy reduces it to epsilon^2).
RHO_MISPLACED_ROOT = (sp.sqrt(_a) + eps - sp.sqrt(_a)) ** 2
SIGMA_MISPLACED_ROOT = sp.sqrt(2 * G**2 * T / (n**2 * RHO_MISPLACED_ROOT))
#: The paper's approximation 'sigma_1^2 ~ 8 L^2 T log(1/delta) / (n^2 epsilon^2)' (it means sigma_2).
SIGMA_PRINTED_APPROXIMATION = sp.sqrt(8 * L**2 * T * _a / (n**2 * eps**2))

#: Calibrations offered by :func:`sigma`; the reference's default is "zcdp".
CALIBRATIONS = ("zcdp", "rdp", "rdp-mironov", "exact")

# --------------------------------------------------------------------------- records
_SYMBOLS = (S_G, S_N, S_EPS, S_DELTA, S_T)

EQ_3 = register(SpecRecord(
    id="wang19.eq_3",
    title="Noise variance (3) with its constant made concrete (zCDP, Algorithm 1 step 3 corrected)",
    citation=Citation("wang19", "Theorem 1 and Algorithm 1, step 3", ("3",)),
    summary=(
        "sigma^2 = c G^2 T ln(1/delta) / (n^2 epsilon^2) with c = 2 (1 + sqrt(1 + epsilon/ln(1/delta)))^2, i.e. "
        "sigma^2 = 2 G^2 T / (n^2 rho*(epsilon, delta)): T Gaussian releases of grad F (sensitivity 2G/n) are "
        "then rho*-zCDP, hence (epsilon, delta)-DP, for every epsilon > 0."
    ),
    conventions=CONVENTIONS,
    symbols=_SYMBOLS,
    assumptions=(DELTA_LT_1,),
    formulas=(
        Formula("sensitivity", SENSITIVITY, "replace-one l2 sensitivity 2G/n of grad F", Rounding.UP),
        Formula("rho", RHO_STAR, "rho*(epsilon, delta), the zCDP budget of the whole run", Rounding.DOWN),
        Formula("sigma_squared", SIGMA_SQUARED, "noise variance per coordinate and step", Rounding.UP),
        Formula("sigma", SIGMA, "noise standard deviation per coordinate and step (the reference's default)",
                Rounding.UP),
        Formula("implied_constant", IMPLIED_CONSTANT, "the constant c of (3) under this calibration", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP for the whole transcript (every noisy gradient), for every epsilon > 0 and delta in "
        "(0, 1): rho*-zCDP by zcdp.gaussian and zcdp.composition, converted by zcdp.to_dp.",
        epsilon=eps,
        delta=delta,
        rho=RHO_STAR,
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "Theorem 1's 'there exist constants c, c_1' made concrete through zCDP: c = 2 (1 + sqrt(1 + epsilon/"
            "ln(1/delta)))^2 and c_1 = infinity (no condition on epsilon).",
            "c = sigma^2 n^2 epsilon^2 / (G^2 T ln(1/delta)) for sigma^2 = 2 G^2 T / (n^2 rho*) simplifies to "
            "2 (1 + sqrt(1 + epsilon/ln(1/delta)))^2 (sympy); c > 8 and c -> 8 as epsilon/ln(1/delta) -> 0. "
            "Values: 8.344 at (epsilon, delta) = (1, 1e-5), 8.035 at (0.1, 1e-5), 10.70 at (5, 1e-3). The zCDP "
            "argument never needs epsilon small, so c_1 = infinity; the exact (Gaussian DP) privacy of the "
            "calibrated noise stays within (epsilon, delta) at epsilon = 0.01 and at epsilon = 50.",
            (f"{_TESTS}::test_implied_constant_symbolic", f"{_TESTS}::test_implied_constant_values",
             f"{_TESTS}::test_no_condition_on_epsilon"),
        ),
    ),
    notes=(
        "Built from zcdp.gaussian_calibration with Delta_2 = 2G/n (one source of truth): sigma is that record's "
        "expression, substituted.",
        "DP-FW-L2 (Theorem 4) and DP-PMD (Theorem 5) add the same noise and use this record's sigma.",
        "The reference evaluates formula 'sigma' with lipschitz, n, epsilon, delta, steps.",
    ),
))


# --------------------------------------------------------------------------- functions
def _common(lipschitz, n_, epsilon, delta_, steps):
    return (
        validate.positive("lipschitz", lipschitz),
        validate.integer("n", n_, minimum=1),
        validate.epsilon(epsilon),
        validate.delta(delta_),
        validate.positive_integer("steps", steps),
    )


def _sensitivity(lipschitz: float, n_: int) -> float:
    return DEF_2.evaluate("sensitivity", lipschitz=lipschitz, n=n_)


_MP_SIGMA_AT_ORDER = {
    "rdp": sp.lambdify([ORDER, G, n, T, eps, delta], SIGMA_CKS_AT_ORDER, modules="mpmath"),
    "rdp-mironov": sp.lambdify([ORDER, G, n, T, eps, delta], SIGMA_MIRONOV_AT_ORDER, modules="mpmath"),
}
_MP_BUDGET = {
    "rdp": sp.lambdify([ORDER, eps, delta], RDP_BUDGET_CKS, modules="mpmath"),
    "rdp-mironov": sp.lambdify([ORDER, eps, delta], RDP_BUDGET_MIRONOV, modules="mpmath"),
}
_GOLDEN = (math.sqrt(5) - 1) / 2


@functools.lru_cache(maxsize=256)
def _sigma_rdp(conversion: str, lip: float, n_: int, e: float, d: float, t: int) -> tuple[float, float]:
    """(sigma rounded up, the order that certifies it): grid over rdp.DEFAULT_ORDERS, then golden section."""
    at = _MP_SIGMA_AT_ORDER[conversion]
    budget = _MP_BUDGET[conversion]
    with mpmath.workdps(PRECISION_DIGITS):
        args = (mpmath.mpf(lip), mpmath.mpf(n_), mpmath.mpf(t), mpmath.mpf(e), mpmath.mpf(d))

        def value(alpha):
            alpha = mpmath.mpf(alpha)
            if budget(alpha, args[3], args[4]) <= 0:
                return mpmath.inf  # this order certifies nothing at (epsilon, delta)
            return at(alpha, *args)

        orders = [a for a in _rdp.DEFAULT_ORDERS if a <= _rdp.MAX_ORDER]
        values = [value(a) for a in orders]
        best = min(range(len(orders)), key=lambda i: values[i])
        if values[best] == mpmath.inf:
            raise ParameterError(
                f"epsilon ({e!r}) at delta ({d!r}) cannot be certified by any Renyi order up to "
                f"{orders[-1]}; use calibration='zcdp' or 'exact'"
            )
        # Golden-section search on log(alpha - 1) between the grid neighbours of the best order: any order
        # gives a valid sigma, so this only tightens.
        lo = mpmath.log(mpmath.mpf(orders[max(best - 1, 0)]) - 1)
        hi = mpmath.log(mpmath.mpf(orders[min(best + 1, len(orders) - 1)]) - 1)
        best_alpha, best_value = mpmath.mpf(orders[best]), values[best]
        x1, x2 = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
        f1, f2 = value(1 + mpmath.exp(x1)), value(1 + mpmath.exp(x2))
        for _ in range(60):
            if f1 <= f2:
                hi, x2, f2 = x2, x1, f1
                x1 = hi - _GOLDEN * (hi - lo)
                f1 = value(1 + mpmath.exp(x1))
            else:
                lo, x1, f1 = x1, x2, f2
                x2 = lo + _GOLDEN * (hi - lo)
                f2 = value(1 + mpmath.exp(x2))
        for x, f in ((x1, f1), (x2, f2)):
            if f < best_value:
                best_alpha, best_value = 1 + mpmath.exp(x), f
        return round_safe(best_value, Rounding.UP), float(best_alpha)


def sigma(*, lipschitz, n, epsilon, delta, steps, calibration="zcdp") -> float:
    """Noise standard deviation for DP-PGD, DP-FW-L2 and DP-PMD (T full-gradient Gaussian releases).

    Parameters
    ----------
    lipschitz : float
        ``G > 0`` (l2 Lipschitz constant of every f(., z)).
    n : int
        Number of records, ``>= 1``.
    epsilon, delta : float
        Target budget (``epsilon > 0``, ``delta`` in ``(0, 1)``).
    steps : int
        ``T >= 1``.
    calibration : {"zcdp", "rdp", "rdp-mironov", "exact"}
        ``"zcdp"`` (default, what the reference uses): formula ``sigma`` of ``wang19.eq_3``.
        ``"rdp"``: the smallest sigma certified by one Renyi order with the CKS20 conversion (module
        docstring). ``"rdp-mironov"``: the same with Mironov's conversion (equal to "zcdp" up to the
        order search). ``"exact"``: the smallest sigma whose Gaussian-DP composition is (epsilon,
        delta)-DP (``gaussian.analytic_sigma``), tight for the transcript.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``wang19.eq_3`` / ``wang19.thm_1``: the transcript of T noisy gradients is (epsilon, delta)-DP under
    replace-one.
    """
    c = validate.choice("calibration", calibration, CALIBRATIONS)
    lip, n_, e, d, t = _common(lipschitz, n, epsilon, delta, steps)
    if c == "zcdp":
        return EQ_3.evaluate("sigma", lipschitz=lip, n=n_, epsilon=e, delta=d, steps=t)
    if c == "exact":
        return _gaussian.analytic_sigma(epsilon=e, delta=d, sensitivity=_sensitivity(lip, n_), steps=t)
    return _sigma_rdp(c, lip, n_, e, d, t)[0]


def sigma_rdp(*, lipschitz, n, epsilon, delta, steps) -> float:
    """:func:`sigma` with ``calibration="rdp"`` (``dperm calibrate wang19.thm_1 --calibration rdp``).

    Privacy
    -------
    ``wang19.thm_1`` (calibration ``rdp``).
    """
    return sigma(lipschitz=lipschitz, n=n, epsilon=epsilon, delta=delta, steps=steps, calibration="rdp")


def sigma_rdp_mironov(*, lipschitz, n, epsilon, delta, steps) -> float:
    """:func:`sigma` with ``calibration="rdp-mironov"``.

    Privacy
    -------
    ``wang19.thm_1`` (calibration ``rdp-mironov``).
    """
    return sigma(lipschitz=lipschitz, n=n, epsilon=epsilon, delta=delta, steps=steps, calibration="rdp-mironov")


def sigma_exact(*, lipschitz, n, epsilon, delta, steps) -> float:
    """:func:`sigma` with ``calibration="exact"`` (Gaussian-DP composition, tight for the transcript).

    Privacy
    -------
    ``wang19.thm_1`` (calibration ``exact``), ``gaussian.analytic``.
    """
    return sigma(lipschitz=lipschitz, n=n, epsilon=epsilon, delta=delta, steps=steps, calibration="exact")


#: The calibrations of the T noisy full gradients (``wang19.thm_1`` and the three algorithm boxes
#: that add this noise); the names are :data:`CALIBRATIONS`, the first is the reference's default.
NOISE_CALIBRATIONS = (
    Calibration("zcdp", "sigma", "zCDP calibration (wang19.eq_3; the reference's default)", formula="sigma"),
    Calibration("rdp", "sigma", "the smallest sigma one Renyi order certifies with the CKS20 conversion",
                function=sigma_rdp),
    Calibration("rdp-mironov", "sigma", "the same with Mironov's conversion", function=sigma_rdp_mironov),
    Calibration("exact", "sigma", "the smallest sigma whose Gaussian-DP composition is (epsilon, delta)-DP "
                "(gaussian.analytic with steps = T; tight)", function=sigma_exact),
)


def certified_epsilon(*, lipschitz, n, steps, delta, sigma) -> float:
    """The exact epsilon at ``delta`` of T full-gradient Gaussian releases with noise ``sigma``.

    The composition of T Gaussian releases with sensitivity ``2G/n`` is exactly
    ``sqrt(T) (2G/n)/sigma``-Gaussian DP (Dong, Roth and Su), so this is the tight epsilon of the
    transcript (``gaussian.exact_epsilon``).

    Parameters
    ----------
    lipschitz : float
        ``G > 0``.
    n, steps : int
        ``>= 1``.
    delta : float
        In ``(0, 1)``.
    sigma : float
        The noise standard deviation actually used, ``> 0``.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``wang19.thm_1`` (its accountant).
    """
    lip = validate.positive("lipschitz", lipschitz)
    n_ = validate.integer("n", n, minimum=1)
    t = validate.positive_integer("steps", steps)
    d = validate.delta(delta)
    s = validate.positive("sigma", sigma)
    return _gaussian.exact_epsilon(d, sigma=s, sensitivity=_sensitivity(lip, n_), steps=t)


def transcript_profile(*, lipschitz, n, steps, sigma):
    """The exact privacy profile ``delta(epsilon)`` of the transcript of T noisy full gradients.

    Parameters
    ----------
    lipschitz : float
        ``G > 0``.
    n, steps : int
        ``>= 1``.
    sigma : float
        ``> 0``.

    Returns
    -------
    callable
        ``gaussian.profile`` at sensitivity ``2G/n`` (rounded up) and ``steps`` releases.

    Privacy
    -------
    ``wang19.thm_1`` (its profile): tight for the transcript; every output is post-processing of it.
    """
    lip = validate.positive("lipschitz", lipschitz)
    n_ = validate.integer("n", n, minimum=1)
    t = validate.positive_integer("steps", steps)
    s = validate.positive("sigma", sigma)
    return _gaussian.profile(sigma=s, sensitivity=_sensitivity(lip, n_), steps=t)


THM_1 = register(SpecRecord(
    id="wang19.thm_1",
    title="Privacy of DP-PGD (Algorithm 1)",
    citation=Citation("wang19", "Theorem 1", ("3",)),
    summary=(
        "There exist constants c, c_1 such that for 0 < epsilon < c_1 T and 0 < delta < 1, DP-PGD is (epsilon, "
        "delta)-DP with sigma^2 = c G^2 T ln(1/delta)/(n^2 epsilon^2); here c and c_1 are concrete "
        "(wang19.eq_3) and three tighter calibrations are offered."
    ),
    conventions=CONVENTIONS,
    symbols=_SYMBOLS + (S_ORDER,),
    assumptions=(
        DELTA_LT_1,
        Assumption("order_gt_1", sp.Gt(ORDER, 1), "Renyi orders are > 1"),
        # Mironov's budget is never larger than CKS20's, so this never blocks a valid Mironov evaluation
        Assumption("order_admissible", sp.Gt(RDP_BUDGET_CKS, 0),
                   "the order certifies epsilon at delta at all: b(alpha) > 0 (CKS20; Mironov needs its own b > 0)"),
    ),
    formulas=(
        Formula("sigma", SIGMA, "zCDP calibration (wang19.eq_3; the reference's default)", Rounding.UP),
        Formula("sigma_eq3", SIGMA_EQ3, "equation (3) with c = implied_constant (equal to sigma)", Rounding.UP),
        Formula("sigma_cks_at_order", SIGMA_CKS_AT_ORDER,
                "sigma certified by the order alpha with the CKS20 conversion (option 'rdp')", Rounding.UP),
        Formula("sigma_mironov_at_order", SIGMA_MIRONOV_AT_ORDER,
                "sigma certified by the order alpha with Mironov's conversion (option 'rdp-mironov')", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP for the transcript of the T noisy gradients, hence for x_R and every other output. "
        "The paper's proof goes through Lemma 2 (unspecified constants); dperm's proof is the zCDP chain of "
        "wang19.eq_3, and the accountant below gives the exact epsilon of whatever sigma is used.",
        epsilon=eps,
        delta=delta,
        rho=RHO_STAR,
        accountant=certified_epsilon,
        profile=transcript_profile,
        calibrations=NOISE_CALIBRATIONS,
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "The paper's zCDP calibration is valid but not tight: at (epsilon, delta) = (1, 1e-5), for every T, n "
            "and G, the 'rdp' sigma is 0.825 and the 'exact' sigma 0.761 times the zCDP sigma, and the exact "
            "epsilon of the zCDP sigma is 0.742.",
            "zCDP converts with rho + 2 sqrt(rho ln(1/delta)), which is loose; CKS20 is tighter at the best "
            "order; the Gaussian-DP composition of full-batch Gaussian releases is exact. The test computes the "
            "three sigmas with spec.zcdp, spec.rdp and spec.gaussian (rdp.epsilon certifies the 'rdp' sigma, "
            "gaussian.exact_epsilon the others) and checks the ordering exact <= rdp <= zcdp on a grid.",
            (f"{_TESTS}::test_calibration_options",),
        ),
    ),
    notes=(
        "The reference uses calibration 'zcdp' (wang19.eq_3); sigma(calibration=...) offers the others.",
        "The privacy holds for the whole transcript (x_1, ..., x_{T+1}); choosing R uniformly and independently "
        "of the data is post-processing.",
    ),
))

LEMMA_2 = register(SpecRecord(
    id="wang19.lemma_2",
    title="Moments accountant (as quoted from Abadi et al. 2016)",
    citation=Citation("wang19", "Lemma 2"),
    summary=(
        "There exist c_1, c_2 such that for epsilon < c_1 q^2 T, DP-SGD with sampling probability q and noise of "
        "standard deviation (G/n) sigma is (epsilon, delta)-DP if sigma >= c_2 q sqrt(T ln(1/delta))/epsilon."
    ),
    conventions=CONVENTIONS,
    symbols=(S_EPS, S_DELTA, S_T),
    assumptions=(DELTA_LT_1,),
    formulas=(
        Formula(
            "c2_full_batch", sp.sqrt(IMPLIED_CONSTANT),
            "c_2 for q = 1 under replace-one, made concrete by the zCDP calibration (sqrt of eq. (3)'s c)",
            Rounding.UP,
        ),
        Formula(
            "noise_multiplier_full_batch", SIGMA / SENSITIVITY,
            "sigma / sensitivity of the zCDP calibration for q = 1 (sqrt(T/(2 rho*)))",
            Rounding.UP,
        ),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "Abadi et al. state the moments accountant for Poisson sampling under add/remove neighbours with noise "
            "on the sum of clipped gradients; quoted for replace-one with noise (G/n) sigma on the average, its "
            "constant c_2 doubles. For q = 1 (the only case wang19 uses) c_2 = sqrt(c) with eq. (3)'s c, and c_1 "
            "is infinite.",
            "Replace-one doubles the sensitivity of the average gradient (2G/n instead of G/n), so the same "
            "guarantee needs twice the noise (test: zcdp.gaussian_sigma at the two sensitivities, ratio 2). For "
            "q = 1 the zCDP calibration gives std = (G/n) sqrt(c T ln(1/delta))/epsilon, i.e. c_2 = sqrt(c) = "
            "2.889 at (1, 1e-5) (sympy and numbers in the test).",
            (f"{_TESTS}::test_lemma_2_normalisation",),
        ),
    ),
    notes=(
        "Not used by dperm's calibrations: the zCDP route (wang19.eq_3) replaces it for full-batch gradients.",
        "Sampling rates q < 1 are outside every wang19 algorithm; spec.rdp has subsampled accountants.",
    ),
))

#: The records this module registers.
RECORDS = (EQ_3, THM_1, LEMMA_2)
