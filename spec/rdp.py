"""Renyi-DP accountants for the Gaussian mechanism (plain, Poisson-subsampled, subsampled
without replacement) and the conversion of an RDP curve to (epsilon, delta)-DP.

A mechanism is (alpha, R)-RDP if the Renyi divergence of order alpha between its output
distributions on any two neighbouring datasets is at most R. RDP composes additively: ``steps``
adaptive releases with curves R_t(alpha) satisfy (alpha, sum_t R_t(alpha))-RDP. Any single order
alpha > 1 yields a valid (epsilon, delta) statement, so minimising over a finite grid of orders
is safe (it can only be loose, never wrong).

Records (ids):

``rdp.gaussian``
    Gaussian mechanism, R(alpha) = alpha sensitivity^2 / (2 sigma^2) (mironov17, Prop. 7).
``rdp.poisson_subsampled_gaussian``
    Poisson sampling at rate q, **add/remove-one** neighbouring (mtz19).
``rdp.without_replacement_subsampled_gaussian``
    Uniform sampling of m of n records without replacement (gamma = m/n), **replace-one**
    neighbouring (wbk19 Theorem 9 and its sharper Gaussian form, Theorem 27). This is the
    relation and the sampling scheme of the five seed papers.
``rdp.to_dp_mironov17`` / ``rdp.to_dp_cks20``
    RDP -> (epsilon, delta).

Numerics are done with mpmath at :data:`spec.record.PRECISION_DIGITS` (more where a sum
cancels) and every returned float is rounded in the privacy-safe direction (RDP values and
epsilons up). mpmath numbers have an unbounded exponent, so sums such as
``sum_k C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 sigma^2))`` are evaluated directly without
overflow: they play the role of a log-sum-exp.
"""

from __future__ import annotations

import math
import numbers
from typing import Sequence

import mpmath
import sympy as sp

from spec import cache, validate
from spec.errors import ParameterError
from spec.rdp_subsampled import (
    DEFAULT_INTEGER_ORDERS,
    DEFAULT_ORDERS,
    GAUSSIAN_RDP,
    MAX_ORDER,
    check_order,
    check_orders,
    clear_caches,
    gaussian_rdp_mp,
    poisson_gaussian,
    poisson_rdp_mp,
    resolve_scheme,
    wbk19_prepare,
    wbk19_rdp_mp,
    without_replacement_gaussian,
)
from spec.record import (
    ALPHA,
    PRECISION_DIGITS,
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
    round_safe,
)
from spec.registry import register

__all__ = [
    "DEFAULT_ORDERS",
    "DEFAULT_INTEGER_ORDERS",
    "MAX_ORDER",
    "GAUSSIAN",
    "POISSON_SUBSAMPLED_GAUSSIAN",
    "WITHOUT_REPLACEMENT_SUBSAMPLED_GAUSSIAN",
    "TO_DP_MIRONOV17",
    "TO_DP_CKS20",
    "gaussian",
    "poisson_gaussian",
    "without_replacement_gaussian",
    "to_epsilon",
    "epsilon",
    "epsilon_and_order",
    "delta_for_epsilon",
    "clear_caches",
]

_CONVERSIONS = ("cks", "mironov")

# --------------------------------------------------------------------------- symbols

_sigma = sp.Symbol("sigma", positive=True)
_Delta = sp.Symbol("Delta", positive=True)
_q = sp.Symbol("q", positive=True)
_gamma = sp.Symbol("gamma", positive=True)
_T = sp.Symbol("T", positive=True, integer=True)
_delta = sp.Symbol("delta", positive=True)
_eps = sp.Symbol("epsilon", nonnegative=True)
_R = sp.Symbol("R", nonnegative=True)
# Summation indices (bound variables only; never free in a formula).
_k = sp.Symbol("k", integer=True, nonnegative=True)
_i = sp.Symbol("i", integer=True, nonnegative=True)
_j = sp.Symbol("j", integer=True, nonnegative=True)

_SYM_ALPHA = Symbol("order", ALPHA, "Renyi order (alpha > 1)")
_SYM_SIGMA = Symbol("sigma", _sigma, "standard deviation of the Gaussian noise")
_SYM_SENS = Symbol("sensitivity", _Delta, "l2 sensitivity of the query under the record's neighbouring relation")
_SYM_STEPS = Symbol("steps", _T, "number of composed releases")
_SYM_DELTA = Symbol("delta", _delta, "failure probability of the (epsilon, delta) statement")

_ALPHA_GT_1 = Assumption("alpha_gt_1", sp.Gt(ALPHA, 1), "Renyi orders are > 1")
_DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(_delta, 1), "delta < 1")

#: The Gaussian RDP curve; written once and reused as the unamplified cap of WBK19.

# --------------------------------------------------------------------------- conversions


TO_DP_MIRONOV17 = register(
    SpecRecord(
        id="rdp.to_dp_mironov17",
        title="RDP to approximate DP (Mironov 2017)",
        citation=Citation("mironov17", "Proposition 3"),
        summary="An (alpha, R)-RDP mechanism is (R + ln(1/delta)/(alpha-1), delta)-DP for every delta in (0, 1).",
        conventions=Conventions(
            LossForm.NOT_APPLICABLE,
            Neighbouring.REPLACE_ONE,
            ("The conversion holds for whatever neighbouring relation the RDP curve was stated "
             "under; the DP statement inherits that relation. Recorded as replace-one, the "
             "relation of the five seed papers.",),
        ),
        symbols=(
            Symbol("rdp", _R, "RDP value R(alpha) of the (composed) mechanism"),
            _SYM_ALPHA,
            _SYM_DELTA,
            Symbol("epsilon", _eps, "epsilon of the (epsilon, delta) statement"),
        ),
        assumptions=(_ALPHA_GT_1, _DELTA_LT_1),
        formulas=(
            Formula("epsilon", _R + sp.log(1 / _delta) / (ALPHA - 1),
                    "epsilon certified at delta by one order", Rounding.UP),
            Formula("delta", sp.exp((ALPHA - 1) * (_R - _eps)),
                    "delta certified at epsilon by one order", Rounding.UP),
        ),
        privacy=PrivacyClaim(
            PrivacyModel.APPROX_DP,
            Neighbouring.REPLACE_ONE,
            "(alpha, R)-RDP implies (R + ln(1/delta)/(alpha-1), delta)-DP; minimise over alpha.",
            epsilon=_R + sp.log(1 / _delta) / (ALPHA - 1),
            delta=_delta,
        ),
        notes=("Any fixed order gives a valid statement, so a finite grid of orders is safe.",),
    )
)

_CKS_EPS = _R + sp.log((ALPHA - 1) / ALPHA) - (sp.log(_delta) + sp.log(ALPHA)) / (ALPHA - 1)
_CKS_DELTA = sp.exp((ALPHA - 1) * (_R - _eps)) / (ALPHA - 1) * (1 - 1 / ALPHA) ** ALPHA

TO_DP_CKS20 = register(
    SpecRecord(
        id="rdp.to_dp_cks20",
        title="RDP to approximate DP (Canonne-Kamath-Steinke 2020)",
        citation=Citation("cks20", "Proposition 12 (arXiv:2004.00010 v4)"),
        summary=(
            "An (alpha, R)-RDP mechanism is (epsilon, delta)-DP with "
            "delta = exp((alpha-1)(R-epsilon)) / (alpha-1) * (1-1/alpha)^alpha for every "
            "epsilon >= 0; solved for epsilon this is never larger than Mironov's conversion."
        ),
        conventions=Conventions(
            LossForm.NOT_APPLICABLE,
            Neighbouring.REPLACE_ONE,
            ("Relation-agnostic, as for rdp.to_dp_mironov17.",),
        ),
        symbols=(
            Symbol("rdp", _R, "RDP value R(alpha) of the (composed) mechanism"),
            _SYM_ALPHA,
            _SYM_DELTA,
            Symbol("epsilon", _eps, "epsilon of the (epsilon, delta) statement"),
        ),
        assumptions=(_ALPHA_GT_1, _DELTA_LT_1),
        formulas=(
            Formula("epsilon", _CKS_EPS, "epsilon certified at delta by one order", Rounding.UP),
            Formula("delta", _CKS_DELTA, "delta certified at epsilon by one order", Rounding.UP),
        ),
        privacy=PrivacyClaim(
            PrivacyModel.APPROX_DP,
            Neighbouring.REPLACE_ONE,
            "(alpha, R)-RDP implies (epsilon, delta)-DP with the epsilon formula; minimise over alpha.",
            epsilon=_CKS_EPS,
            delta=_delta,
        ),
        flags=(
            Flag(
                FlagKind.CAVEAT,
                "epsilon form derived from the paper's delta form; negative values clamp to 0",
                "Solving delta = exp((alpha-1)(R-eps))/(alpha-1) (1-1/alpha)^alpha for eps gives "
                "the epsilon formula (checked symbolically). It differs from Mironov's by "
                "ln((alpha-1)/alpha) - ln(alpha)/(alpha-1) < 0. For alpha > 1/delta the formula "
                "can be negative; the statement holds for every eps >= 0 and delta is "
                "decreasing in eps, so the certified epsilon is max(formula, 0).",
                ("tests/spec/test_rdp.py::test_cks_epsilon_solves_delta_form",
                 "tests/spec/test_rdp.py::test_cks_never_above_mironov"),
            ),
        ),
    )
)

_MP_CONVERT = {
    "mironov": sp.lambdify((_R, ALPHA, _delta), TO_DP_MIRONOV17.formula("epsilon").expr, "mpmath"),
    "cks": sp.lambdify((_R, ALPHA, _delta), TO_DP_CKS20.formula("epsilon").expr, "mpmath"),
}
_MP_CONVERT_DELTA = {
    "mironov": sp.lambdify((_R, ALPHA, _eps), TO_DP_MIRONOV17.formula("delta").expr, "mpmath"),
    "cks": sp.lambdify((_R, ALPHA, _eps), TO_DP_CKS20.formula("delta").expr, "mpmath"),
}

# --------------------------------------------------------------------------- sympy curves

# MTZ19, integer orders, noise multiplier sigma / Delta.
_POISSON_INT_RDP = sp.log(
    sp.Sum(
        sp.binomial(ALPHA, _k) * (1 - _q) ** (ALPHA - _k) * _q**_k
        * sp.exp((_k**2 - _k) * _Delta**2 / (2 * _sigma**2)),
        (_k, 0, ALPHA),
    )
) / (ALPHA - 1)

# MTZ19, fractional orders: the two series split at z0, where the two mixture components of
# the likelihood ratio are equal.
_s = _sigma / _Delta
_z0 = _s**2 * sp.log(1 / _q - 1) + sp.Rational(1, 2)
_POISSON_FRAC_RDP = sp.log(
    sp.Sum(
        sp.binomial(ALPHA, _i) * _q**_i * (1 - _q) ** (ALPHA - _i)
        * sp.exp((_i**2 - _i) / (2 * _s**2)) * sp.erfc((_i - _z0) / (sp.sqrt(2) * _s)) / 2
        + sp.binomial(ALPHA, _i) * _q ** (ALPHA - _i) * (1 - _q) ** _i
        * sp.exp(((ALPHA - _i) ** 2 - (ALPHA - _i)) / (2 * _s**2))
        * sp.erfc((_z0 - (ALPHA - _i)) / (sp.sqrt(2) * _s)) / 2,
        (_i, 0, sp.oo),
    )
) / (ALPHA - 1)

# WBK19 for the Gaussian: base curve eps(j) = j s2 / 2 with s2 = (Delta/sigma)^2, eps(oo) = oo.
_s2 = _Delta**2 / _sigma**2


def _nabla(k):
    """k-th forward difference at 0 of exp((i-1) eps(i)) = E_q[(p/q - 1)^k] (a sympy Sum)."""
    return sp.Sum(sp.binomial(k, _i) * (-1) ** (k - _i) * sp.exp(_i * (_i - 1) * _s2 / 2), (_i, 0, k))


_WBK19_TWO = _gamma**2 * sp.binomial(ALPHA, 2) * sp.Min(4 * (sp.exp(_s2) - 1), 2 * sp.exp(_s2))
_WBK19_THM9_MJ = 2 * sp.exp((_j - 1) * _j * _s2 / 2)
_WBK19_THM27_MJ = sp.Min(
    4 * sp.sqrt(_nabla(2 * sp.floor(_j / 2)) * _nabla(2 * sp.ceiling(_j / 2))), _WBK19_THM9_MJ
)


@cache.derivation
def _wbk19_expr(mj):
    series = _WBK19_TWO + sp.Sum(_gamma**_j * sp.binomial(ALPHA, _j) * mj, (_j, 3, ALPHA))
    return sp.Min(GAUSSIAN_RDP, sp.log(1 + series) / (ALPHA - 1))


_WBK19_THM9_RDP = _wbk19_expr(_WBK19_THM9_MJ)
_WBK19_THM27_RDP = _wbk19_expr(_WBK19_THM27_MJ)

# --------------------------------------------------------------------------- accountants
# (named functions so that records render "certificate: spec.rdp.<name> - <first doc line>"). Each
# carries ``report``: the same computation with the minimising order (spec.calibrations.epsilon).


def _with_order(sampling: str | None):
    def report(*, sigma, sensitivity, delta, steps=1, sampling_rate=None) -> dict:
        eps, order = epsilon_and_order(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps,
                                       sampling_rate=sampling_rate, sampling=sampling)
        return {"epsilon": eps, "order": order}
    return report


def _gaussian_accountant(*, sigma, sensitivity, delta, steps=1):
    """Certified epsilon of `steps` Gaussian releases (RDP over DEFAULT_ORDERS, CKS20 conversion)."""
    return _gaussian_accountant.report(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps)["epsilon"]


def _poisson_accountant(*, sigma, sensitivity, sampling_rate, delta, steps=1):
    """Certified epsilon of `steps` Poisson-subsampled Gaussian releases (MTZ19 over DEFAULT_ORDERS, CKS20)."""
    return _poisson_accountant.report(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps,
                                      sampling_rate=sampling_rate)["epsilon"]


def _without_replacement_accountant(*, sigma, sensitivity, sampling_rate, delta, steps=1):
    """Certified epsilon of `steps` without-replacement-subsampled Gaussian releases (WBK19 Thm 27, CKS20)."""
    return _without_replacement_accountant.report(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps,
                                                  sampling_rate=sampling_rate)["epsilon"]


_gaussian_accountant.report = _with_order(None)
_poisson_accountant.report = _with_order("poisson")
_without_replacement_accountant.report = _with_order("without-replacement")


# --------------------------------------------------------------------------- records

GAUSSIAN = register(
    SpecRecord(
        id="rdp.gaussian",
        title="Renyi DP of the Gaussian mechanism",
        citation=Citation("mironov17", "Proposition 7"),
        summary=(
            "Adding N(0, sigma^2 I) to a query of l2 sensitivity Delta is "
            "(alpha, alpha Delta^2/(2 sigma^2))-RDP for every alpha > 1; T adaptive releases "
            "are (alpha, T alpha Delta^2/(2 sigma^2))-RDP."
        ),
        conventions=Conventions(
            LossForm.NOT_APPLICABLE,
            Neighbouring.REPLACE_ONE,
            ("Holds under any neighbouring relation for which Delta bounds the l2 distance "
             "between the query values; recorded as replace-one, the seeds' relation.",),
        ),
        symbols=(_SYM_ALPHA, _SYM_SIGMA, _SYM_SENS, _SYM_STEPS),
        assumptions=(_ALPHA_GT_1,),
        formulas=(
            Formula("rdp", GAUSSIAN_RDP, "RDP of one release at order alpha", Rounding.UP),
            Formula("rdp_composed", _T * GAUSSIAN_RDP, "RDP of T adaptive releases (additive composition)", Rounding.UP),
        ),
        privacy=PrivacyClaim(
            PrivacyModel.RDP,
            Neighbouring.REPLACE_ONE,
            "(alpha, alpha Delta^2/(2 sigma^2))-RDP for all alpha > 1; compose by adding curves.",
            rdp=GAUSSIAN_RDP,
            accountant=_gaussian_accountant,
        ),
        notes=("RDP composes additively over adaptive steps (mironov17, Proposition 1).",),
    )
)

POISSON_SUBSAMPLED_GAUSSIAN = register(
    SpecRecord(
        id="rdp.poisson_subsampled_gaussian",
        title="Renyi DP of the Poisson-subsampled Gaussian mechanism",
        citation=Citation("mtz19", "Sections 3.2-3.3"),
        summary=(
            "Each record enters the batch independently with probability q; a query of l2 "
            "sensitivity Delta plus N(0, sigma^2 I). R(alpha) = D_alpha((1-q) N(0, s^2) + "
            "q N(1, s^2) || N(0, s^2)) with s = sigma/Delta, exactly, for integer and "
            "fractional alpha."
        ),
        conventions=Conventions(
            LossForm.NOT_APPLICABLE,
            Neighbouring.ADD_REMOVE_ONE,
            ("Add/remove-one neighbouring; the sensitivity is that of the sum over the batch "
             "(one record changes it by at most Delta).",
             "The divergence in the other direction, D_alpha(N(0,s^2) || mixture), is not "
             "larger (mtz19); checked by quadrature at the tested points."),
        ),
        symbols=(
            _SYM_ALPHA, _SYM_SIGMA, _SYM_SENS,
            Symbol("sampling_rate", _q, "Poisson sampling probability q in (0, 1]"),
            _SYM_STEPS,
        ),
        assumptions=(
            _ALPHA_GT_1,
            Assumption("q_le_1", sp.Le(_q, 1), "sampling_rate q <= 1"),
        ),
        formulas=(),
        privacy=PrivacyClaim(
            PrivacyModel.RDP,
            Neighbouring.ADD_REMOVE_ONE,
            "(alpha, R(alpha))-RDP with R the integer-order sum (rdp) or, for fractional alpha, "
            "the two-series formula (data['fractional']); evaluated by spec.rdp.poisson_gaussian.",
            rdp=_POISSON_INT_RDP,
            accountant=_poisson_accountant,
        ),
        flags=(
            Flag(
                FlagKind.CAVEAT,
                "add/remove-one and Poisson sampling: does not certify the seed papers verbatim",
                "The five seed papers use replace-one neighbouring and uniform (fixed-size) "
                "sampling. This accountant applies only to an implementation that samples "
                "each record independently and claims add/remove-one privacy; for the seeds use "
                "rdp.without_replacement_subsampled_gaussian.",
                ("tests/spec/test_rdp.py::test_records_neighbouring",),
            ),
        ),
        notes=(
            "Fractional orders are evaluated with the two series moved away from z0 (where "
            "their ratio tends to 1 and convergence is only polynomial) to points where the "
            "ratio is 1/4, plus a quadrature over the band between; see _mtz19_frac.",
        ),
        data=(("integer", _POISSON_INT_RDP), ("fractional", _POISSON_FRAC_RDP)),
    )
)

WITHOUT_REPLACEMENT_SUBSAMPLED_GAUSSIAN = register(
    SpecRecord(
        id="rdp.without_replacement_subsampled_gaussian",
        title="Renyi DP of the Gaussian mechanism on a subsample drawn without replacement",
        citation=Citation("wbk19", "Theorem 9 and Theorem 27 (appendix)"),
        summary=(
            "m of n records drawn uniformly without replacement (gamma = m/n), a query of "
            "replace-one l2 sensitivity Delta plus N(0, sigma^2 I). Integer alpha >= 2: "
            "R(alpha) <= min(alpha s2/2, ln(1 + gamma^2 C(alpha,2) min(4(e^s2-1), 2e^s2) + "
            "sum_{j=3}^alpha gamma^j C(alpha,j) M_j)/(alpha-1)), s2 = (Delta/sigma)^2."
        ),
        conventions=Conventions(
            LossForm.NOT_APPLICABLE,
            Neighbouring.REPLACE_ONE,
            ("Replace-one neighbouring and fixed-size uniform sampling: the setting of the seed "
             "papers (one uniformly drawn index per step is gamma = 1/n).",
             "Theorem 9 (generic): M_j = 2 exp((j-1) eps(j)) with eps(j) = j s2/2. Theorem 27 "
             "(mechanisms with one worst-case pair and tight RDP, e.g. the Gaussian): "
             "M_j = min(4 sqrt(nabla_{2 floor(j/2)} nabla_{2 ceil(j/2)}), 2 exp((j-1) eps(j))), "
             "nabla_k = sum_i C(k,i) (-1)^(k-i) exp(i(i-1) s2/2) = E_q[(p/q - 1)^k]."),
        ),
        symbols=(
            _SYM_ALPHA, _SYM_SIGMA, _SYM_SENS,
            Symbol("sampling_rate", _gamma, "sampled fraction gamma = m/n in (0, 1]"),
            _SYM_STEPS,
        ),
        assumptions=(
            Assumption("alpha_ge_2", sp.Ge(ALPHA, 2), "integer orders alpha >= 2"),
            Assumption("gamma_le_1", sp.Le(_gamma, 1), "sampling_rate gamma <= 1"),
        ),
        formulas=(
            Formula("rdp_unamplified", GAUSSIAN_RDP, "cap: the RDP without amplification", Rounding.UP),
        ),
        privacy=PrivacyClaim(
            PrivacyModel.RDP,
            Neighbouring.REPLACE_ONE,
            "(alpha, R(alpha))-RDP for integer alpha >= 2 with the Theorem 27 bound (rdp); "
            "data['thm9'] is the generic bound. Evaluated by spec.rdp.without_replacement_gaussian.",
            rdp=_WBK19_THM27_RDP,
            accountant=_without_replacement_accountant,
        ),
        flags=(
            Flag(
                FlagKind.CONSTANT_MADE_CONCRETE,
                "makes concrete the 'there exist constants c, c1' of wang17/wang19 and the bst14 Thm II.1 chain",
                "Those results calibrate sigma only up to unspecified constants (or through a "
                "composition chain that does not close). This accountant certifies a concrete "
                "epsilon for a concrete sigma in their own setting: replace-one, uniform "
                "sampling, e.g. bst14 Algorithm 1 with gamma = 1/n, sensitivity 2 L n, "
                "T = n^2 - 1 steps.",
                ("tests/spec/test_rdp.py::test_bst14_certificate",),
            ),
            Flag(
                FlagKind.CAVEAT,
                "Theorem 27's form taken from the authors' reference implementation",
                "The sharper bound (Theorem 27 of the arXiv version) is encoded as implemented "
                "by the authors (autodp, 'improved_bound_flag'), including the j = 2 term shared "
                "with Theorem 9. It is checked here as a necessary condition: it dominates the "
                "exact Renyi divergence (quadrature) of concrete replace-one instances in both "
                "orders, and is never above Theorem 9 or the unamplified Gaussian curve.",
                ("tests/spec/test_rdp.py::test_wbk19_dominates_exact_instances",),
            ),
        ),
        notes=(
            "nabla_k cancels heavily when s2 is small; it is evaluated at a working precision "
            "derived from a rigorous error bound (see _pearson_vajda).",
            "Fractional orders are rejected: use integer orders (RDP is nondecreasing in alpha, "
            "so an integer order above a fractional one is always a valid substitute).",
        ),
        data=(("thm27", _WBK19_THM27_RDP), ("thm9", _WBK19_THM9_RDP)),
    )
)


# --------------------------------------------------------------------------- Gaussian


def gaussian(alpha: float, *, sigma: float, sensitivity: float) -> float:
    """RDP of the Gaussian mechanism at order ``alpha``: alpha sensitivity^2 / (2 sigma^2).

    Parameters
    ----------
    alpha : float
        Renyi order, finite and > 1.
    sigma, sensitivity : float
        Noise standard deviation and l2 sensitivity, finite and > 0.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``rdp.gaussian``.
    """
    a = check_order(alpha)
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    with mpmath.workdps(PRECISION_DIGITS):
        return round_safe(gaussian_rdp_mp(mpmath.mpf(a), mpmath.mpf(s), mpmath.mpf(d)), Rounding.UP)


# --------------------------------------------------------------------------- conversion


def _values(values, n: int) -> list:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"values ({values!r}) must be a sequence of RDP values")
    values = list(values)
    if len(values) != n:
        raise ParameterError(f"values (length {len(values)}) must have one entry per order ({n})")
    out = []
    for m, v in enumerate(values):
        name = f"values[{m}]"
        if isinstance(v, numbers.Real) and not isinstance(v, bool) and v == math.inf:
            out.append(mpmath.inf)  # no guarantee at this order; it can never be the minimiser
            continue
        out.append(mpmath.mpf(validate.nonnegative(name, v)))
    return out


def _minimise(orders, curve, delta: float, conversion: str):
    """(min over orders of the converted epsilon as an mpf, minimising order)."""
    convert = _MP_CONVERT[conversion]
    best, best_order = mpmath.inf, orders[0]
    with mpmath.workdps(PRECISION_DIGITS):
        d = mpmath.mpf(delta)
        for a, r in zip(orders, curve):
            if r == mpmath.inf:
                continue
            e = convert(r, mpmath.mpf(a), d)
            if conversion == "cks":
                e = max(e, mpmath.mpf(0))  # see the CAVEAT flag of rdp.to_dp_cks20
            if e < best:
                best, best_order = e, a
    return best, best_order


def to_epsilon(orders: Sequence[float], values: Sequence[float], *, delta: float,
               conversion: str = "cks") -> tuple[float, float]:
    """Convert an RDP curve to (epsilon, delta)-DP, minimising over the given orders.

    Parameters
    ----------
    orders : sequence of float
        Renyi orders, each finite and > 1.
    values : sequence of float
        RDP values at those orders, each >= 0 (``math.inf`` means no guarantee at that order).
    delta : float
        In (0, 1).
    conversion : {"cks", "mironov"}
        ``rdp.to_dp_cks20`` (default, never larger) or ``rdp.to_dp_mironov17``.

    Returns
    -------
    (float, order)
        Epsilon rounded up (``inf`` if every value is infinite) and the minimising order.

    Privacy
    -------
    ``rdp.to_dp_cks20`` / ``rdp.to_dp_mironov17``.
    """
    orders = check_orders(orders, integer=False)
    curve = _values(values, len(orders))
    d = validate.delta(delta)
    c = validate.choice("conversion", conversion, _CONVERSIONS)
    eps, order = _minimise(orders, curve, d, c)
    return round_safe(eps, Rounding.UP), order


def _curve(scheme: str, orders, sigma: float, sensitivity: float, q: float) -> list:
    if scheme == "gaussian":
        with mpmath.workdps(PRECISION_DIGITS):
            return [gaussian_rdp_mp(mpmath.mpf(a), mpmath.mpf(sigma), mpmath.mpf(sensitivity)) for a in orders]
    if scheme == "poisson":
        return [poisson_rdp_mp(a, sigma, sensitivity, q) for a in orders]
    # Build the weight table once, for the largest order, before the per-order sums.
    wbk19_prepare(sigma, sensitivity, q, max(orders), "thm27")
    return [wbk19_rdp_mp(a, sigma, sensitivity, q, "thm27") for a in orders]


def _setup(sigma, sensitivity, steps, sampling_rate, sampling, orders, conversion):
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    t = validate.positive_integer("steps", steps)
    scheme, q = resolve_scheme(sampling_rate, sampling)
    c = validate.choice("conversion", conversion, _CONVERSIONS)
    ords = check_orders(orders, integer=(scheme == "without-replacement"))
    with mpmath.workdps(PRECISION_DIGITS):
        curve = [t * r for r in _curve(scheme, ords, s, d, q)]
    return ords, curve, c


def epsilon_and_order(*, sigma: float, sensitivity: float, delta: float, steps: int = 1,
                      sampling_rate: float | None = None, sampling: str | None = None,
                      orders: Sequence[float] | None = None, conversion: str = "cks") -> tuple[float, float]:
    """Like :func:`epsilon`, also returning the minimising order."""
    dl = validate.delta(delta)
    ords, curve, c = _setup(sigma, sensitivity, steps, sampling_rate, sampling, orders, conversion)
    eps, order = _minimise(ords, curve, dl, c)
    return round_safe(eps, Rounding.UP), order


def epsilon(*, sigma: float, sensitivity: float, delta: float, steps: int = 1,
            sampling_rate: float | None = None, sampling: str | None = None,
            orders: Sequence[float] | None = None, conversion: str = "cks") -> float:
    """Certified epsilon at ``delta`` for ``steps`` (optionally subsampled) Gaussian releases.

    Parameters
    ----------
    sigma, sensitivity : float
        Noise standard deviation and l2 sensitivity, finite and > 0 (the noise multiplier is
        sigma / sensitivity).
    delta : float
        In (0, 1).
    steps : int
        Number of adaptively composed releases, >= 1.
    sampling_rate : float, optional
        In (0, 1]. ``None`` or 1: no subsampling (the Gaussian curve).
    sampling : {"poisson", "without-replacement"}, optional
        Required iff ``sampling_rate`` < 1. ``"poisson"``: MTZ19, add/remove-one.
        ``"without-replacement"``: WBK19 Theorem 27, replace-one, integer orders.
    orders : sequence of float, optional
        Orders to minimise over; default :data:`DEFAULT_ORDERS`, or
        :data:`DEFAULT_INTEGER_ORDERS` for ``"without-replacement"`` (which accepts integers only).
    conversion : {"cks", "mironov"}

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``rdp.gaussian``, ``rdp.poisson_subsampled_gaussian`` or
    ``rdp.without_replacement_subsampled_gaussian``, composed additively and converted by
    ``rdp.to_dp_cks20`` / ``rdp.to_dp_mironov17``. The neighbouring relation is the one of the
    record used.
    """
    return epsilon_and_order(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps,
                             sampling_rate=sampling_rate, sampling=sampling, orders=orders,
                             conversion=conversion)[0]


def delta_for_epsilon(*, epsilon: float, sigma: float, sensitivity: float, steps: int = 1,
                      sampling_rate: float | None = None, sampling: str | None = None,
                      orders: Sequence[float] | None = None, conversion: str = "cks") -> float:
    """Certified delta at ``epsilon`` (>= 0) for the same mechanisms as :func:`epsilon`.

    Minimises the conversion's delta formula over the orders; rounded up and capped at 1.

    Privacy
    -------
    As :func:`epsilon`: ``rdp.gaussian``, ``rdp.poisson_subsampled_gaussian`` or
    ``rdp.without_replacement_subsampled_gaussian``, converted by ``rdp.to_dp_cks20`` /
    ``rdp.to_dp_mironov17``.
    """
    e = validate.nonnegative("epsilon", epsilon)
    ords, curve, c = _setup(sigma, sensitivity, steps, sampling_rate, sampling, orders, conversion)
    convert = _MP_CONVERT_DELTA[c]
    best = mpmath.mpf(1)
    with mpmath.workdps(PRECISION_DIGITS):
        for a, r in zip(ords, curve):
            best = min(best, convert(r, mpmath.mpf(a), mpmath.mpf(e)))
    return round_safe(best, Rounding.UP)
