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

import functools
import math
import numbers

import mpmath
import sympy as sp

from spec import validate
from spec.errors import ParameterError
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

# --------------------------------------------------------------------------- orders

#: Integer orders used by the without-replacement accountant (WBK19 is stated for integers).
DEFAULT_INTEGER_ORDERS: tuple[int, ...] = tuple(range(2, 257)) + (288, 320, 384, 448, 512)

#: Orders used by the Gaussian and Poisson accountants: a few fractional orders near 1 (where
#: the optimum lies for large budgets), every integer up to 256, and a few larger orders
#: (where the optimum lies for very small budgets).
DEFAULT_ORDERS: tuple[float | int, ...] = tuple(
    sorted((1.25, 1.5, 1.75, 2.25, 2.5, 2.75, 3.5, 4.5) + DEFAULT_INTEGER_ORDERS + (640, 768, 1024))
)

_SAMPLING = ("poisson", "without-replacement")
_CONVERSIONS = ("cks", "mironov")
_BOUNDS = ("thm27", "thm9")

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
GAUSSIAN_RDP = ALPHA * _Delta**2 / (2 * _sigma**2)

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
                ("tests/test_spec_rdp.py::test_cks_epsilon_solves_delta_form",
                 "tests/test_spec_rdp.py::test_cks_never_above_mironov"),
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


def _wbk19_expr(mj):
    series = _WBK19_TWO + sp.Sum(_gamma**_j * sp.binomial(ALPHA, _j) * mj, (_j, 3, ALPHA))
    return sp.Min(GAUSSIAN_RDP, sp.log(1 + series) / (ALPHA - 1))


_WBK19_THM9_RDP = _wbk19_expr(_WBK19_THM9_MJ)
_WBK19_THM27_RDP = _wbk19_expr(_WBK19_THM27_MJ)

# --------------------------------------------------------------------------- accountants
# (named functions so that records render "certificate: spec.rdp.<name> - <first doc line>")


def _gaussian_accountant(*, sigma, sensitivity, delta, steps=1):
    """Certified epsilon of `steps` Gaussian releases (RDP over DEFAULT_ORDERS, CKS20 conversion)."""
    return epsilon(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps)


def _poisson_accountant(*, sigma, sensitivity, sampling_rate, delta, steps=1):
    """Certified epsilon of `steps` Poisson-subsampled Gaussian releases (MTZ19 over DEFAULT_ORDERS, CKS20)."""
    return epsilon(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps,
                   sampling_rate=sampling_rate, sampling="poisson")


def _without_replacement_accountant(*, sigma, sensitivity, sampling_rate, delta, steps=1):
    """Certified epsilon of `steps` without-replacement-subsampled Gaussian releases (WBK19 Thm 27, CKS20)."""
    return epsilon(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps,
                   sampling_rate=sampling_rate, sampling="without-replacement")


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
                ("tests/test_spec_rdp.py::test_records_neighbouring",),
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
                ("tests/test_spec_rdp.py::test_bst14_certificate",),
            ),
            Flag(
                FlagKind.CAVEAT,
                "Theorem 27's form taken from the authors' reference implementation",
                "The sharper bound (Theorem 27 of the arXiv version) is encoded as implemented "
                "by the authors (autodp, 'improved_bound_flag'), including the j = 2 term shared "
                "with Theorem 9. It is checked here as a necessary condition: it dominates the "
                "exact Renyi divergence (quadrature) of concrete replace-one instances in both "
                "orders, and is never above Theorem 9 or the unamplified Gaussian curve.",
                ("tests/test_spec_rdp.py::test_wbk19_dominates_exact_instances",),
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

_MP_GAUSSIAN_RDP = sp.lambdify((ALPHA, _sigma, _Delta), GAUSSIAN_RDP, "mpmath")

# --------------------------------------------------------------------------- validation


#: Largest order accepted: the per-order cost grows linearly (MTZ19) or quadratically (WBK19)
#: with alpha, and orders beyond this are never the minimiser for meaningful budgets.
MAX_ORDER = 10_000


def _order(alpha, *, name="alpha") -> float | int:
    """A finite order in (1, MAX_ORDER], returned as int when integral."""
    x = validate.real(name, alpha)
    if not x > 1:
        raise validate.error_class(name)(f"{name} ({alpha!r}) must be > 1")
    if x > MAX_ORDER:
        raise validate.error_class(name)(f"{name} ({alpha!r}) must be <= {MAX_ORDER}")
    return int(x) if float(x).is_integer() else x


def _integer_order(alpha, *, name="alpha") -> int:
    x = _order(alpha, name=name)
    if not isinstance(x, int):
        raise validate.error_class(name)(
            f"{name} ({alpha!r}) must be an integer >= 2: the without-replacement bound (wbk19) "
            "is stated for integer orders (RDP is nondecreasing in alpha, so the next integer "
            "above is a valid substitute)"
        )
    return x


def _sampling_rate(value) -> float:
    return validate.interval("sampling_rate", value, 0.0, 1.0, closed="right")


def _orders(orders, *, integer: bool) -> tuple:
    if orders is None:
        return DEFAULT_INTEGER_ORDERS if integer else DEFAULT_ORDERS
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
        raise TypeError(f"orders ({orders!r}) must be a sequence of Renyi orders")
    orders = tuple(orders)
    if not orders:
        raise ParameterError("orders (()) must contain at least one order")
    check = _integer_order if integer else _order
    return tuple(check(a, name=f"orders[{n}]") for n, a in enumerate(orders))


def _scheme(sampling_rate, sampling) -> tuple[str, float]:
    """('gaussian' | 'poisson' | 'without-replacement', q)."""
    if sampling is not None:
        validate.choice("sampling", sampling, _SAMPLING)
    if sampling_rate is None:
        if sampling is not None:
            raise ParameterError(f"sampling ({sampling!r}) needs a sampling_rate")
        return "gaussian", 1.0
    q = _sampling_rate(sampling_rate)
    if q == 1.0:
        return "gaussian", 1.0
    if sampling is None:
        raise ParameterError(
            f"sampling (None) must be one of {', '.join(_SAMPLING)} when sampling_rate ({q!r}) < 1"
        )
    return sampling, q


# --------------------------------------------------------------------------- caches

_TABLES: dict = {}
_MAX_TABLES = 256  # tables are per (sigma, sensitivity[, rate]); bound the memory of long sessions


def _store(key, value):
    if len(_TABLES) >= _MAX_TABLES:
        _TABLES.clear()
    _TABLES[key] = value
    return value


def clear_caches() -> None:
    """Forget cached per-order values and tables (used by the benchmark to time cold runs)."""
    _TABLES.clear()
    _mtz19_int.cache_clear()
    _mtz19_frac.cache_clear()
    _wbk19.cache_clear()


def _mp(x):
    return mpmath.mpf(x)


# --------------------------------------------------------------------------- Gaussian


def gaussian(alpha, *, sigma, sensitivity) -> float:
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
    a = _order(alpha)
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    with mpmath.workdps(PRECISION_DIGITS):
        return round_safe(_MP_GAUSSIAN_RDP(_mp(a), _mp(s), _mp(d)), Rounding.UP)


# --------------------------------------------------------------------------- MTZ19 (Poisson)


def _binomial_row(n: int) -> list:
    """[C(n, j) for j = 0..n] as exact Python integers."""
    row = [1]
    c = 1
    for j in range(1, n + 1):
        c = c * (n - j + 1) // j
        row.append(c)
    return row


def _poisson_weights(sigma: float, sensitivity: float, q: float, kmax: int) -> list:
    """[(q/(1-q))^k expm1(k(k-1) Delta^2 / (2 sigma^2)) for k = 0..kmax], cached per (sigma, q)."""
    key = ("mtz19", sigma, sensitivity, q)
    table = _TABLES.get(key, [])
    if len(table) <= kmax:
        with mpmath.workdps(PRECISION_DIGITS):
            c = (_mp(sensitivity) / _mp(sigma)) ** 2 / 2
            ratio = _mp(q) / (1 - _mp(q))  # 1 - q is exact for a float q in (0, 1)
            table = list(table)
            for k in range(len(table), kmax + 1):
                table.append(ratio**k * mpmath.expm1(c * k * (k - 1)))
        _store(key, table)
    return table


@functools.lru_cache(maxsize=8192)
def _mtz19_int(alpha: int, sigma: float, sensitivity: float, q: float):
    """MTZ19 R(alpha) for integer alpha >= 2 and 0 < q < 1, as an mpf.

    A_alpha = sum_k C(alpha,k) (1-q)^(alpha-k) q^k e^{c(k^2-k)}, c = Delta^2/(2 sigma^2). The
    weights C(alpha,k) (1-q)^(alpha-k) q^k sum to 1, so
    A_alpha - 1 = (1-q)^alpha sum_{k>=2} C(alpha,k) (q/(1-q))^k expm1(c(k^2-k)),
    a sum of positive terms: R = log1p(A - 1)/(alpha - 1) loses nothing to cancellation, even
    for tiny q.
    """
    weights = _poisson_weights(sigma, sensitivity, q, alpha)
    row = _binomial_row(alpha)
    with mpmath.workdps(PRECISION_DIGITS):
        excess = (1 - _mp(q)) ** alpha * mpmath.fdot(row[2:], weights[2 : alpha + 1])
        return mpmath.log1p(excess) / (alpha - 1)


_FRAC_RATIO = mpmath.mpf(1) / 4  # series ratio bound on each side of the quadrature band
_FRAC_MAX_TERMS = 2000


def _mtz19_frac_a(alpha: float, s, q, dps: int):
    """A_alpha = E_{N(0,s^2)}[((1-q) + q exp((x - 1/2)/s^2))^alpha] for fractional alpha.

    With a = 1-q and b(x) = q exp((x-1/2)/s^2), b/a = exp((x - z0)/s^2) where
    z0 = s^2 ln(1/q - 1) + 1/2 (MTZ19). Expanding (a+b)^alpha as a binomial series in b/a on
    x <= z1 and in a/b on x >= z2, where the ratio is at most r = 1/4, gives

        left_i  = C(alpha,i) a^(alpha-i) q^i e^{(i^2-i)/(2s^2)} Phi((z1 - i)/s)
        right_i = C(alpha,i) a^i q^(alpha-i) e^{(j^2-j)/(2s^2)} Phi((j - z2)/s),  j = alpha - i

    (MTZ19's series, which split exactly at z0 and therefore converge only polynomially). On
    each side |term_i| <= |C(alpha,i)| r^i term_0, so the remainder after index N is at most
    term_0 |C(alpha,N+1)| r^(N+1)/(1-r) once N+1 > alpha (|C(alpha,i)| then decreases); that
    bound is *added*, so the result is an upper bound. The band [z1, z2] is integrated by
    adaptive quadrature (smooth integrand), clipped where the Gaussian weight makes it
    negligible (with a bound on the clipped part added); the quadrature error estimate is added
    too. Returns (A, ok); ok is False if a series or the quadrature did not reach its tolerance.
    """
    with mpmath.workdps(dps):
        alpha = _mp(alpha)
        a = 1 - q
        s2 = s * s
        z0 = s2 * mpmath.log(a / q) + mpmath.mpf(1) / 2
        w = s2 * mpmath.log(1 / _FRAC_RATIO)
        z1, z2 = z0 - w, z0 + w
        sqrt2s = mpmath.sqrt(2) * s
        tol = mpmath.mpf(10) ** (-(dps - 5))
        left, right = [], []
        left0 = right0 = None
        coef = mpmath.mpf(1)
        tail = mpmath.inf
        i = 0
        ok = False
        while i < _FRAC_MAX_TERMS:
            j = alpha - i
            li = coef * a ** (alpha - i) * q**i * mpmath.exp((i * i - i) / (2 * s2)) * mpmath.erfc((i - z1) / sqrt2s) / 2
            ri = coef * a**i * q**j * mpmath.exp((j * j - j) / (2 * s2)) * mpmath.erfc((z2 - j) / sqrt2s) / 2
            if i == 0:
                left0, right0 = li, ri
            left.append(li)
            right.append(ri)
            coef = coef * (alpha - i) / (i + 1)  # C(alpha, i+1)
            i += 1
            if i > alpha:
                tail = abs(coef) * _FRAC_RATIO**i / (1 - _FRAC_RATIO)
                if tail < tol:
                    ok = True
                    break
        tail_bound = tail * (left0 + right0)

        def integrand(x):
            return mpmath.npdf(x, 0, s) * (a + q * mpmath.exp((x - mpmath.mpf(1) / 2) / s2)) ** alpha

        # Band. On it a + b <= (1 + 1/r) a, so the part beyond |x| > X is at most
        # ((1 + 1/r) a)^alpha P(|N(0, s^2)| > X): clip there and add that bound.
        big = (1 + 1 / _FRAC_RATIO) * a
        X = s * mpmath.sqrt(2 * (alpha * abs(mpmath.log(big)) + dps * mpmath.log(10) + 10))
        lo, hi = max(z1, -X), min(z2, X)
        clipped = 0
        if lo > z1 or hi < z2:
            clipped = big**alpha * mpmath.erfc(X / sqrt2s)
        # The band's error estimate is added to A; 10^-(dps-25) relative to A >= 1 is far below
        # a float's resolution of R (dps is raised when A - 1 is tiny, see _mtz19_frac).
        band_tol = mpmath.mpf(10) ** (-(dps - 25))
        band, err, band_ok = (0, 0, True) if lo >= hi else _adaptive_quad(integrand, lo, hi, s, band_tol)
        total = mpmath.fsum(left) + mpmath.fsum(right) + band
        return total + tail_bound + clipped + err, ok and band_ok


_QUAD_MAX_PIECES = 128


def _adaptive_quad(f, lo, hi, scale, tol):
    """Integral of ``f`` over [lo, hi] with absolute error estimate <= tol (bisect where needed).

    Starts from pieces of width ``scale`` (at most 32 of them); each piece is integrated by
    Gauss-Legendre with mpmath's error estimate, and pieces whose estimate exceeds their share
    of ``tol`` are halved, up to _QUAD_MAX_PIECES evaluations. Returns (value, error, ok).
    """
    n0 = int(min(32, max(2, mpmath.ceil((hi - lo) / scale))))
    stack = [(lo + (hi - lo) * t / n0, lo + (hi - lo) * (t + 1) / n0) for t in range(n0)]
    values, errors, used = [], [], 0
    while stack:
        left, right = stack.pop()
        v, e = mpmath.quad(f, [left, right], error=True, method="gauss-legendre", maxdegree=6)
        used += 1
        if e <= tol * (right - left) / (hi - lo) or used + len(stack) >= _QUAD_MAX_PIECES:
            values.append(v)
            errors.append(abs(e))
            continue
        mid = (left + right) / 2
        stack.extend([(left, mid), (mid, right)])
    err = mpmath.fsum(errors)
    return mpmath.fsum(values), err, err <= tol


@functools.lru_cache(maxsize=1024)
def _mtz19_frac(alpha: float, sigma: float, sensitivity: float, q: float):
    """MTZ19 R(alpha) for fractional alpha > 1 and 0 < q < 1, as an mpf (an upper bound)."""
    dps = PRECISION_DIGITS
    for _ in range(3):
        with mpmath.workdps(dps):
            s = _mp(sigma) / _mp(sensitivity)
            A, ok = _mtz19_frac_a(alpha, s, _mp(q), dps)
            if not ok:
                break
            excess = A - 1
            # A - 1 is tiny for tiny q: make sure ~40 of its digits survive the subtraction.
            if excess > 0 and excess < mpmath.mpf(10) ** (40 - dps):
                dps = PRECISION_DIGITS + int(-mpmath.log10(excess)) + 10
                continue
            with mpmath.workdps(PRECISION_DIGITS):
                return mpmath.log(A) / (_mp(alpha) - 1)
    # Not converged (not seen in tests): RDP is nondecreasing in alpha, so the next integer
    # order is a valid, slightly larger, upper bound.
    return _mtz19_int(math.ceil(alpha), sigma, sensitivity, q)


def _poisson_mp(alpha, sigma, sensitivity, q):
    if q == 1.0:
        with mpmath.workdps(PRECISION_DIGITS):
            return _MP_GAUSSIAN_RDP(_mp(alpha), _mp(sigma), _mp(sensitivity))
    if isinstance(alpha, int):
        return _mtz19_int(alpha, sigma, sensitivity, q)
    return _mtz19_frac(alpha, sigma, sensitivity, q)


def poisson_gaussian(alpha, *, sigma, sensitivity, sampling_rate) -> float:
    """RDP at order ``alpha`` of the Poisson-subsampled Gaussian mechanism (MTZ19).

    Each record enters the batch independently with probability ``sampling_rate``; the batch
    query has l2 sensitivity ``sensitivity`` under add/remove-one neighbouring and receives
    N(0, sigma^2 I) noise. The value is D_alpha((1-q) N(0, s^2) + q N(1, s^2) || N(0, s^2))
    with s = sigma / sensitivity.

    Parameters
    ----------
    alpha : float
        Renyi order > 1. Integer orders: the finite sum. Fractional orders: MTZ19's two series
        (moved off the crossing point, with a quadrature band; see ``_mtz19_frac_a``), an upper
        bound within ~1e-40 relative of the exact value; in the rare case that the series or the
        quadrature do not converge within their budget, the value at ceil(alpha) is returned
        (RDP is nondecreasing in alpha, so it is still an upper bound).
    sigma, sensitivity : float
        Finite, > 0.
    sampling_rate : float
        q in (0, 1]; q = 1 is the plain Gaussian.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``rdp.poisson_subsampled_gaussian`` (add/remove-one neighbouring, Poisson sampling; see
    its CAVEAT flag before using it for the seed papers).
    """
    a = _order(alpha)
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    q = _sampling_rate(sampling_rate)
    return round_safe(_poisson_mp(a, s, d, q), Rounding.UP)


# --------------------------------------------------------------------------- WBK19 (without replacement)

_NABLA_DIGITS = 40  # correct significant digits required of every nabla_k


def _log_abs_sum_plan(s2: float, log_expm1_s2: float, k: int) -> float:
    """log10(10 (k+1) S_k / L_k), the digits lost to cancellation in nabla_k (see _pearson_vajda)."""
    # S_k = sum_i C(k,i) E_i in floating point, as a log-sum-exp (positive terms only).
    logs = [math.lgamma(k + 1) - math.lgamma(i + 1) - math.lgamma(k - i + 1) + i * (i - 1) * s2 / 2
            for i in range(k + 1)]
    top = max(logs)
    log_s = top + math.log(math.fsum(math.exp(v - top) for v in logs))
    log_e_k = k * (k - 1) * s2 / 2
    # Lyapunov: nabla_k >= (E (p/q-1)^2)^(k/2) = (e^s2 - 1)^(k/2).
    log_l = (k / 2) * log_expm1_s2
    gap = log_s - log_e_k  # >= 0; may be huge (k ln 2) when s2 is tiny: never exponentiate it blindly
    if gap < math.log(1.9):  # largest term minus all others: nabla_k >= 2 E_k - S_k (kept well above 0)
        log_l = max(log_l, log_e_k + math.log(2 - math.exp(gap)))
    return (math.log(10 * (k + 1)) + log_s - log_l) / math.log(10)


def _pearson_vajda(sigma: float, sensitivity: float, kmax: int, *, scale: int = 1) -> dict:
    """{k: nabla_k} for even k <= kmax, nabla_k = sum_i C(k,i) (-1)^(k-i) E_i, E_i = e^{i(i-1)s2/2}.

    nabla_k = E_q[(p/q - 1)^k] for p = N(Delta, sigma^2), q = N(0, sigma^2) (the Pearson-Vajda
    moments of WBK19). The alternating sum cancels heavily when s2 = (Delta/sigma)^2 is small.
    Working precision, per k: a sum of k+1 terms, each with a relative rounding error of a few
    units in the last place, is off by at most ~(k+1) 10^(-P) S_k with S_k = sum_i C(k,i) E_i;
    and for even k, nabla_k >= L_k = max((e^s2 - 1)^(k/2), 2 E_k - S_k) (Lyapunov's inequality
    E|X|^k >= (E X^2)^(k/2), resp. the largest term minus all others). So
    P = 40 + log10(10 (k+1) S_k / L_k) digits leave 40 correct digits. ``scale`` multiplies P
    (the tests recompute with scale=3 and compare).
    """
    key = ("nabla", sigma, sensitivity, scale)
    cached = _TABLES.get(key)
    if cached is not None and cached[0] >= kmax:
        return cached[1]
    # Plan the precision in floating point (only logarithms of positive quantities).
    with mpmath.workdps(30):
        s2_mp = (_mp(sensitivity) / _mp(sigma)) ** 2
        s2_float, log_expm1 = float(s2_mp), float(mpmath.log(mpmath.expm1(s2_mp)))
    evens = range(2, kmax + 1, 2)
    plan = {k: scale * (_NABLA_DIGITS + math.ceil(_log_abs_sum_plan(s2_float, log_expm1, k)) + 1)
            for k in evens}
    top = max(plan.values(), default=PRECISION_DIGITS)
    with mpmath.workdps(top + 10):
        s2 = (_mp(sensitivity) / _mp(sigma)) ** 2
        E = [mpmath.exp(i * (i - 1) * s2 / 2) for i in range(kmax + 1)]
    out = {}
    for k in evens:
        signed = [c if (k - i) % 2 == 0 else -c for i, c in enumerate(_binomial_row(k))]
        with mpmath.workdps(plan[k]):
            value = mpmath.fdot(signed, E[: k + 1])
        with mpmath.workdps(PRECISION_DIGITS):
            out[k] = +value  # round to the standard precision
    _store(key, (kmax, out))
    return out


def _wbk19_weights(sigma: float, sensitivity: float, gamma: float, kmax: int, bound: str) -> list:
    """[gamma^j M_j for j = 0..kmax]: j = 2 is the shared term, j >= 3 Theorem 9 or 27 (per-j min)."""
    key = ("wbk19", sigma, sensitivity, gamma, bound)
    cached = _TABLES.get(key)
    if cached is not None and len(cached) > kmax:
        return cached
    nab = _pearson_vajda(sigma, sensitivity, kmax + 1) if bound == "thm27" else None
    with mpmath.workdps(PRECISION_DIGITS):
        g = _mp(gamma)
        s2 = (_mp(sensitivity) / _mp(sigma)) ** 2
        out = [mpmath.mpf(0), mpmath.mpf(0), g**2 * min(4 * mpmath.expm1(s2), 2 * mpmath.exp(s2))]
        for j in range(3, kmax + 1):
            m_j = 2 * mpmath.exp((j - 1) * j * s2 / 2)  # Theorem 9: 2 exp((j-1) eps(j))
            if bound == "thm27":
                lo, hi = 2 * (j // 2), 2 * ((j + 1) // 2)
                m_j = min(m_j, 4 * mpmath.sqrt(nab[lo] * nab[hi]))
            out.append(g**j * m_j)
    _store(key, out)
    return out


def _wbk19_raw(alpha: int, sigma: float, sensitivity: float, gamma: float, bound: str):
    """ln(1 + gamma^2 C(alpha,2) min(4(e^s2-1), 2e^s2) + sum_{j>=3} gamma^j C(alpha,j) M_j)/(alpha-1)."""
    weights = _wbk19_weights(sigma, sensitivity, gamma, alpha, bound)
    row = _binomial_row(alpha)
    with mpmath.workdps(PRECISION_DIGITS):
        return mpmath.log1p(mpmath.fdot(row[2:], weights[2 : alpha + 1])) / (alpha - 1)


@functools.lru_cache(maxsize=8192)
def _wbk19(alpha: int, sigma: float, sensitivity: float, gamma: float, bound: str):
    """min(unamplified Gaussian RDP, WBK19 bound) as an mpf."""
    with mpmath.workdps(PRECISION_DIGITS):
        cap = _MP_GAUSSIAN_RDP(_mp(alpha), _mp(sigma), _mp(sensitivity))
    if gamma == 1.0:
        return cap
    return min(cap, _wbk19_raw(alpha, sigma, sensitivity, gamma, bound))


def without_replacement_gaussian(alpha, *, sigma, sensitivity, sampling_rate, bound="thm27") -> float:
    """RDP bound at integer order ``alpha`` of the Gaussian mechanism on a subsample without replacement.

    The mechanism draws a uniformly random subset of m of the n records (gamma = m/n), evaluates
    a query of replace-one l2 sensitivity ``sensitivity`` on it, and adds N(0, sigma^2 I).

    Parameters
    ----------
    alpha : int
        Integer order >= 2 (integral floats such as ``3.0`` are accepted). Fractional orders
        raise :class:`PrivacyParameterError`: the bound is stated for integers, and because RDP
        is nondecreasing in alpha the caller can always use the next integer above.
    sigma, sensitivity : float
        Finite, > 0.
    sampling_rate : float
        gamma in (0, 1]; gamma = 1 gives the unamplified Gaussian curve.
    bound : {"thm27", "thm9"}
        WBK19 Theorem 27 (sharper; valid for the Gaussian) or the generic Theorem 9.

    Returns
    -------
    float
        min(alpha s2/2, WBK19 bound), rounded up.

    Privacy
    -------
    ``rdp.without_replacement_subsampled_gaussian`` (replace-one neighbouring).
    """
    a = _integer_order(alpha)
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    g = _sampling_rate(sampling_rate)
    b = validate.choice("bound", bound, _BOUNDS)
    return round_safe(_wbk19(a, s, d, g, b), Rounding.UP)


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
        out.append(_mp(validate.nonnegative(name, v)))
    return out


def _minimise(orders, curve, delta: float, conversion: str):
    """(min over orders of the converted epsilon as an mpf, minimising order)."""
    convert = _MP_CONVERT[conversion]
    best, best_order = mpmath.inf, orders[0]
    with mpmath.workdps(PRECISION_DIGITS):
        d = _mp(delta)
        for a, r in zip(orders, curve):
            if r == mpmath.inf:
                continue
            e = convert(r, _mp(a), d)
            if conversion == "cks":
                e = max(e, mpmath.mpf(0))  # see the CAVEAT flag of rdp.to_dp_cks20
            if e < best:
                best, best_order = e, a
    return best, best_order


def to_epsilon(orders, values, *, delta, conversion="cks") -> tuple[float, float]:
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
    orders = _orders(orders, integer=False)
    curve = _values(values, len(orders))
    d = validate.delta(delta)
    c = validate.choice("conversion", conversion, _CONVERSIONS)
    eps, order = _minimise(orders, curve, d, c)
    return round_safe(eps, Rounding.UP), order


def _curve(scheme: str, orders, sigma: float, sensitivity: float, q: float) -> list:
    if scheme == "gaussian":
        with mpmath.workdps(PRECISION_DIGITS):
            return [_MP_GAUSSIAN_RDP(_mp(a), _mp(sigma), _mp(sensitivity)) for a in orders]
    if scheme == "poisson":
        return [_poisson_mp(a, sigma, sensitivity, q) for a in orders]
    # Build the weight table once, for the largest order, before the per-order sums.
    _wbk19_weights(sigma, sensitivity, q, max(orders), "thm27")
    return [_wbk19(a, sigma, sensitivity, q, "thm27") for a in orders]


def _setup(sigma, sensitivity, steps, sampling_rate, sampling, orders, conversion):
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    t = validate.positive_integer("steps", steps)
    scheme, q = _scheme(sampling_rate, sampling)
    c = validate.choice("conversion", conversion, _CONVERSIONS)
    ords = _orders(orders, integer=(scheme == "without-replacement"))
    with mpmath.workdps(PRECISION_DIGITS):
        curve = [t * r for r in _curve(scheme, ords, s, d, q)]
    return ords, curve, c


def epsilon_and_order(*, sigma, sensitivity, delta, steps=1, sampling_rate=None, sampling=None,
                      orders=None, conversion="cks") -> tuple[float, float]:
    """Like :func:`epsilon`, also returning the minimising order."""
    dl = validate.delta(delta)
    ords, curve, c = _setup(sigma, sensitivity, steps, sampling_rate, sampling, orders, conversion)
    eps, order = _minimise(ords, curve, dl, c)
    return round_safe(eps, Rounding.UP), order


def epsilon(*, sigma, sensitivity, delta, steps=1, sampling_rate=None, sampling=None,
            orders=None, conversion="cks") -> float:
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


def delta_for_epsilon(*, epsilon, sigma, sensitivity, steps=1, sampling_rate=None, sampling=None,
                      orders=None, conversion="cks") -> float:
    """Certified delta at ``epsilon`` (>= 0) for the same mechanisms as :func:`epsilon`.

    Minimises the conversion's delta formula over the orders; rounded up and capped at 1.

    Privacy
    -------
    As :func:`epsilon`.
    """
    e = validate.nonnegative("epsilon", epsilon)
    ords, curve, c = _setup(sigma, sensitivity, steps, sampling_rate, sampling, orders, conversion)
    convert = _MP_CONVERT_DELTA[c]
    best = mpmath.mpf(1)
    with mpmath.workdps(PRECISION_DIGITS):
        for a, r in zip(ords, curve):
            best = min(best, convert(r, _mp(a), _mp(e)))
    return round_safe(best, Rounding.UP)
