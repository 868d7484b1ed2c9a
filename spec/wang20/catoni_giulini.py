r"""wang20 Section 5: the Catoni-Giulini soft truncation (eq. 6, 9), Lemma 3 and Theorem 6.

The estimator. With ``phi(x) = x - x^3/6`` on ``[-sqrt 2, sqrt 2]`` and ``+-2 sqrt(2)/3`` outside
(eq. 6), scale ``s`` and multiplicative noise ``eta ~ N(0, 1/beta)``,

    x_hat = (s/n) sum_i E_eta phi((x_i + eta x_i)/s)                           (eq. 8)

Since ``(x + eta x)/s ~ N(a, b^2)`` with ``a = x/s``, ``b = |x|/(s sqrt(beta))``, each term is
``E phi(X)``, ``X ~ N(a, b^2)`` (it depends on beta only through b). Because ``E[X - X^3/6] =
a (1 - b^2/2) - a^3/6``,

    E phi(X) = a (1 - b^2/2) - a^3/6 + C(a, b),                                (eq. 9)
    C(a, b) = E[(c - X + X^3/6) 1{X > sqrt 2}] + E[(-c - X + X^3/6) 1{X < -sqrt 2}],  c = 2 sqrt(2)/3.

The appendix with C's "explicit form" is not in our copy; integrating the cubic against the
truncated normal (moments of ``z^k phi(z)`` beyond ``v``: ``Phi(-v)``, ``phi(v)``, ``Phi(-v) + v
phi(v)``, ``(2 + v^2) phi(v)``) gives, with ``v_- = (sqrt 2 - a)/b``, ``v_+ = (sqrt 2 + a)/b``,
``F_-+ = erfc(v_-+ / sqrt 2)/2`` and ``e_-+ = exp(-v_-+^2/2)``,

    C = c (F_- - F_+) - (a - a^3/6)(F_- + F_+) + b (1 - a^2/2)(e_+ - e_-)/sqrt(2 pi)
        + (a b^2/2)(F_+ + F_- + (v_+ e_+ + v_- e_-)/sqrt(2 pi))
        + b^3 [(2 + v_-^2) e_- - (2 + v_+^2) e_+] / (6 sqrt(2 pi))               (CORRECTION)

(erfc, not ``1 - Phi``: no cancellation in the tails). At ``b = 0`` (only when ``x_i = 0``) the
value is the limit ``C(a, 0) = phi(a) - a + a^3/6``. The tests derive CORRECTION with sympy and
check it against mpmath quadrature, and check the b -> 0 limit.

Privacy needs only ``|E phi(X)| <= c`` for every law of X: replacing one record moves a
coordinate of (8) by at most ``2 c s/n = 4 sqrt(2) s/(3n)``, whatever the data and whatever beta.

Functions
---------
:func:`correction` and :func:`smoothed_truncation` evaluate C and E phi in mpmath at a precision
raised with ``|a|`` and ``b``: eq. (10) adds the polynomial and C, two numbers of size about
``|a|^3`` and ``|a| b^2`` whose sum is at most ``c`` in absolute value.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from spec import sensitivity as _sensitivity
from spec import validate
from spec import zcdp as _zcdp
from spec.record import (
    PRECISION_DIGITS,
    BoundKind,
    Citation,
    Flag,
    FlagKind,
    Formula,
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
    A_LOG_PRIME,
    DELTA_LT_1,
    DELTA_PRIME_LT_1,
    PRIMITIVE_CONVENTIONS,
    S_DELTA,
    S_DELTA_P,
    S_EPS,
    S_N,
    S_S_CG,
    S_V,
    delta,
    eps,
    n,
    s_cg,
    v,
)

__all__ = [
    "EQ_9",
    "LEMMA_3",
    "THM_6",
    "RECORDS",
    "PHI",
    "PHI_BOUND",
    "CORRECTION",
    "SMOOTHED",
    "NOISE_PRECISION",
    "NOISE_PRECISION_PRINTED",
    "TRUNCATION_SCALE",
    "COORDINATE_SENSITIVITY",
    "correction",
    "smoothed_truncation",
]

_TESTS = "tests/spec/wang20/test_catoni_giulini.py"

# --------------------------------------------------------------------------- expressions
x = sp.Symbol("x", real=True)
a = sp.Symbol("a", real=True)
b = sp.Symbol("b", positive=True)

#: max |phi| = phi(sqrt 2).
PHI_BOUND = 2 * sp.sqrt(2) / 3
#: eq. (6).
PHI = sp.Piecewise((-PHI_BOUND, x < -sp.sqrt(2)), (x - x**3 / 6, x <= sp.sqrt(2)), (PHI_BOUND, True))

_V_MINUS = (sp.sqrt(2) - a) / b
_V_PLUS = (sp.sqrt(2) + a) / b
_F_MINUS = sp.erfc(_V_MINUS / sp.sqrt(2)) / 2  # Pr(X > sqrt 2)
_F_PLUS = sp.erfc(_V_PLUS / sp.sqrt(2)) / 2  # Pr(X < -sqrt 2)
_E_MINUS = sp.exp(-_V_MINUS**2 / 2)
_E_PLUS = sp.exp(-_V_PLUS**2 / 2)
_ROOT_2PI = sp.sqrt(2 * sp.pi)

#: C(a, b) of eq. (9), b > 0 (module docstring).
CORRECTION = (
    PHI_BOUND * (_F_MINUS - _F_PLUS)
    - (a - a**3 / 6) * (_F_MINUS + _F_PLUS)
    + b * (1 - a**2 / 2) * (_E_PLUS - _E_MINUS) / _ROOT_2PI
    + a * b**2 / 2 * (_F_PLUS + _F_MINUS + (_V_PLUS * _E_PLUS + _V_MINUS * _E_MINUS) / _ROOT_2PI)
    + b**3 * ((2 + _V_MINUS**2) * _E_MINUS - (2 + _V_PLUS**2) * _E_PLUS) / (6 * _ROOT_2PI)
)
#: E phi(X), X ~ N(a, b^2): eq. (9).
SMOOTHED = a * (1 - b**2 / 2) - a**3 / 6 + CORRECTION

#: Lemma 3 (Holland 2019, Lemma 5): beta = 2 ln(1/delta') and s = sqrt(n v/(2 ln(1/delta'))).
NOISE_PRECISION = 2 * A_LOG_PRIME
#: Algorithm 4, line 1, prints beta = ln(1/delta') (the ERRATUM flag of wang20.lemma_3).
NOISE_PRECISION_PRINTED = A_LOG_PRIME
TRUNCATION_SCALE = sp.sqrt(n * v / (2 * A_LOG_PRIME))
#: Replace-one sensitivity of one coordinate of (8), an average of terms s E phi(.) with |s E phi| <= c s
#: (sensitivity.average with norm bound c s): 2 c s/n = (s/n)(4 sqrt 2/3).
_AVG = _sensitivity.AVERAGE
COORDINATE_SENSITIVITY = _AVG.formula("replace_one").expr.subs(
    {_AVG.symbol("norm_bound"): s_cg * PHI_BOUND, _AVG.symbol("n"): n}, simultaneous=True
)

# Theorem 6's noise, made concrete through zCDP (zcdp.gaussian_calibration with one release).
_GC = _zcdp.GAUSSIAN_CALIBRATION
SIGMA_THM_6 = _GC.formula("sigma").expr.subs(
    {_GC.symbol("epsilon"): eps, _GC.symbol("delta"): delta, _GC.symbol("sensitivity"): COORDINATE_SENSITIVITY,
     _GC.symbol("steps"): 1},
    simultaneous=True,
)

_PHI_FLAG = Flag(
    FlagKind.ERRATUM,
    "The text after eq. (6) prints |phi(x)| <= 2 sqrt(2)/2; the bound is 2 sqrt(2)/3 = phi(sqrt 2), "
    "the value the sensitivity (s/n)(4 sqrt 2/3) uses.",
    "phi is continuous and non-decreasing (phi' = 1 - x^2/2 >= 0 on [-sqrt 2, sqrt 2]), odd, with "
    "phi(sqrt 2) = sqrt 2 - 2 sqrt(2)/6 = 2 sqrt(2)/3 = 0.943 < sqrt 2 = 1.414 (the printed bound).",
    (f"{_TESTS}::test_phi_bound",),
)

EQ_9 = register(SpecRecord(
    id="wang20.eq_9",
    title="Catoni-Giulini soft truncation phi (eq. 6) and its Gaussian smoothing (eq. 9)",
    citation=Citation("wang20", "Section 5, soft truncation and noise smoothing", ("6", "9")),
    summary=(
        "phi(x) = x - x^3/6 on [-sqrt 2, sqrt 2], +-2 sqrt(2)/3 outside; for X ~ N(a, b^2), E phi(X) "
        "= a (1 - b^2/2) - a^3/6 + C(a, b) with an explicit correction C (module CORRECTION)."
    ),
    conventions=PRIMITIVE_CONVENTIONS,
    formulas=(
        Formula("phi_bound", PHI_BOUND, "max |phi| = 2 sqrt(2)/3 (also bounds |E phi(X)| for every X)", Rounding.UP),
        Formula("phi_bound_printed", 2 * sp.sqrt(2) / 2, "the bound as printed (erratum)", Rounding.NEAREST),
    ),
    flags=(
        _PHI_FLAG,
        Flag(
            FlagKind.RECONSTRUCTED,
            "C(a, b) is deferred to an appendix we do not have; derived from truncated-normal moments "
            "(module docstring, CORRECTION) in erfc form, with C(a, 0) = phi(a) - a + a^3/6.",
            "sympy integrates z^k phi(z) beyond v_-+ for k <= 3, assembles C and simplifies the "
            "difference to CORRECTION to 0; mpmath quadrature of E phi(a + b Z) (split at the kinks) "
            "agrees with a (1 - b^2/2) - a^3/6 + C to 1e-25 on 11 points (a, b), |a| <= 5, b in "
            "[1e-3, 40], and at a = 1e6; C(a, b) -> C(a, 0) as b -> 0. It is the correction of Holland's public "
            "implementation of the estimator (m = a, sigma = b), as reported; that code was not re-read here.",
            (f"{_TESTS}::test_correction_symbolic", f"{_TESTS}::test_correction_quadrature",
             f"{_TESTS}::test_correction_at_b_zero"),
            slug="correction-term",
        ),
        Flag(
            FlagKind.CAVEAT,
            "In floating point, eq. (10) (the polynomial plus C) cancels catastrophically for heavy "
            "tails: at a = x/s = 1e6 (b = a/sqrt(beta), beta = 2 ln(1e5)) float64 gives an E phi "
            "that is off by more than 2 sqrt(2)/3, so the per-record term leaves [-c, c] and the "
            "sensitivity bound fails.",
            "Both addends are about 2e17 there; their sum is at most 0.943. The reference must "
            "evaluate each term so that it lies in [-2 sqrt(2)/3, 2 sqrt(2)/3] (clamping is a no-op "
            "in exact arithmetic and makes the sensitivity bound hold in floating point) and be "
            "tested against smoothed_truncation (mpmath, precision raised with |a| and b).",
            (f"{_TESTS}::test_float_evaluation_of_eq_10_cancels",),
        ),
    ),
    notes=(
        "E phi(a + b sqrt(beta) eta) with eta ~ N(0, 1/beta) is E phi(X), X ~ N(a, b^2): beta "
        "cancels; in eq. (10), a = x/s and b = |x|/(s sqrt(beta)), so beta enters through b.",
        "Property checks (tests): |E phi| <= 2 sqrt(2)/3, odd and non-decreasing in a, E phi -> "
        "phi(a) as b -> 0, and C ~ 0 when |a| + 8 b < sqrt 2.",
    ),
    data=(("phi", PHI), ("correction", CORRECTION), ("smoothed", SMOOTHED)),
))

_BETA_FLAG = Flag(
    FlagKind.ERRATUM,
    "beta is 2 ln(1/delta') in Lemma 3 but ln(1/delta') in Algorithm 4, line 1. Privacy does not "
    "depend on it; it is a parameter (noise_precision) whose default is Lemma 3's 2 ln(1/delta'), "
    "the value the utility lemma is stated for. Formula noise_precision_printed keeps Algorithm 4's.",
    "The sensitivity uses only |E phi| <= 2 sqrt(2)/3, true for every law of X, so for every beta > 0; "
    "the tests evaluate the smoothed terms for beta in {ln(1/delta'), 2 ln(1/delta'), 0.1, 100} on "
    "values from 0 to 1e8 and find all within the bound, and sigma does not contain beta. "
    "Holland's public code reportedly uses beta = sqrt(2 ln(1/delta)) in one dimension; a "
    "PAC-Bayes sketch gives the O(sqrt(v ln(1/delta')/n)) rate for any beta = Theta(ln(1/delta')).",
    (f"{_TESTS}::test_noise_precision_does_not_affect_privacy",),
    slug="noise-precision",
)

LEMMA_3 = register(SpecRecord(
    id="wang20.lemma_3",
    title="Holland's robust mean estimator (as cited)",
    citation=Citation("wang20", "Lemma 3 (Holland 2019, Lemma 5, as cited)", ("8", "11")),
    summary=(
        "If E x^2 <= v, then with beta = 2 ln(1/delta') and s = sqrt(n v/(2 ln(1/delta'))) the "
        "estimator (8) satisfies |x_hat - E x| <= O(sqrt(v ln(1/delta')/n)) with probability at "
        "least 1 - delta'."
    ),
    conventions=PRIMITIVE_CONVENTIONS,
    symbols=(S_N, S_V, S_DELTA_P),
    assumptions=(DELTA_PRIME_LT_1,),
    formulas=(
        Formula("noise_precision", NOISE_PRECISION, "beta = 2 ln(1/delta')", Rounding.NEAREST),
        Formula("noise_precision_printed", NOISE_PRECISION_PRINTED, "Algorithm 4's beta = ln(1/delta')",
                Rounding.NEAREST),
        Formula("truncation_scale", TRUNCATION_SCALE, "s = sqrt(n v/(2 ln(1/delta')))", Rounding.DOWN),
    ),
    utility=(
        UtilityClaim(
            Quantity.ESTIMATION_ERROR,
            sp.sqrt(v * A_LOG_PRIME / n),
            BoundKind.BIG_O,
            "|x_hat - E x| with probability at least 1 - delta' over the n i.i.d. samples.",
            (("n", "oo"),),
        ),
    ),
    flags=(_BETA_FLAG,),
))

THM_6 = register(SpecRecord(
    id="wang20.thm_6",
    title="Private robust mean: the Catoni-Giulini estimator plus Gaussian noise",
    citation=Citation("wang20", "Theorem 6", ("12", "13")),
    summary=(
        "A(D) = x_hat + Z, Z ~ N(0, sigma^2) with sigma^2 = O(s^2 log(1/delta)/(epsilon^2 n^2)), is "
        "(epsilon, delta)-DP (l2 sensitivity (s/n)(4 sqrt 2/3)); under Lemma 3's assumptions, |A(D) - "
        "E x| <= O(sqrt(v log(1/delta) log(1/delta')/(n epsilon^2))) with probability 1 - delta'."
    ),
    conventions=PRIMITIVE_CONVENTIONS,
    symbols=(S_EPS, S_DELTA, S_N, S_S_CG, S_V, S_DELTA_P),
    assumptions=(DELTA_LT_1, DELTA_PRIME_LT_1),
    formulas=(
        Formula("sensitivity", COORDINATE_SENSITIVITY,
                "(s/n)(4 sqrt 2/3), replace-one (sensitivity.average, norm bound 2 sqrt(2) s/3)", Rounding.UP),
        Formula("sigma", SIGMA_THM_6, "sqrt(Delta^2/(2 rho*(epsilon, delta))) (zcdp.gaussian_calibration)",
                Rounding.UP),
        Formula("sigma_squared", SIGMA_THM_6**2, "16 s^2/(9 n^2 rho*(epsilon, delta))", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP for every epsilon > 0, delta in (0, 1): one Gaussian release is "
        "Delta^2/(2 sigma^2) = rho*-zCDP (zcdp.gaussian), which converts by zcdp.to_dp.",
        epsilon=eps,
        delta=delta,
    ),
    utility=(
        UtilityClaim(
            Quantity.ESTIMATION_ERROR,
            sp.sqrt(v * sp.log(1 / delta) * A_LOG_PRIME / (n * eps**2)),
            BoundKind.BIG_O,
            "|A(D) - E x| with probability at least 1 - delta' (data and noise), s as in Lemma 3.",
            (("n", "oo"), ("epsilon", "0")),
        ),
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "sigma^2 = O(s^2 log(1/delta)/(epsilon^2 n^2)) made concrete through zCDP: sigma^2 = "
            "16 s^2/(9 n^2 rho*(epsilon, delta)).",
            "Delta = 4 sqrt(2) s/(3n); Delta^2/(2 sigma^2) = rho* gives sigma^2 = 16 s^2/(9 n^2 rho*); "
            "since rho* = epsilon^2/(4 ln(1/delta)) + O(epsilon^3), sigma^2 = 64 s^2 ln(1/delta)/(9 n^2 "
            "epsilon^2) to leading order (sympy series), the printed form.",
            (f"{_TESTS}::test_thm_6_sigma_from_zcdp",),
        ),
        _PHI_FLAG,
    ),
))

RECORDS = (EQ_9, LEMMA_3, THM_6)

# --------------------------------------------------------------------------- functions
_FREE = (a, b)
#: Beyond this argument erfc is evaluated by its asymptotic series (mpmath.erfc overflows near 1e154).
_ERFC_ASYMPTOTIC = 1e20


def _erfc(v):
    """``erfc(v)`` for every real v: mpmath's, or for ``v > 1e20`` the asymptotic series
    ``e^{-v^2}/(v sqrt(pi)) (1 - 1/(2v^2) + 3/(4v^4))``, whose relative error is below
    ``15/(8 v^6) < 1e-119`` there (mpmath's own erfc raises OverflowError above about 1e154: the
    case ``b << |a|`` of a tiny record, e.g. ``a = b = 1e-160``). Like mpmath, v is taken as exact:
    ``e^{-v^2}`` has condition number ``2 v^2``, so the series runs with ``2 log2(v)`` extra bits."""
    if v > _ERFC_ASYMPTOTIC:
        with mpmath.extraprec(2 * int(mpmath.mag(v)) + 20):
            w = 1 / (v * v)
            value = mpmath.exp(-v * v) / (v * mpmath.sqrt(mpmath.pi)) * (1 - w / 2 + 3 * w * w / 4)
        return +value
    return mpmath.erfc(v)


_MODULES = [{"erfc": _erfc}, "mpmath"]
_CORRECTION_MP = sp.lambdify(_FREE, CORRECTION, modules=_MODULES)
_SMOOTHED_MP = sp.lambdify(_FREE, SMOOTHED, modules=_MODULES)
_PHI_MP = sp.lambdify((x,), PHI, modules="mpmath")


def _extra_digits(av, bv) -> int:
    """Digits lost to cancellation: the addends of eq. (9) are about (|a| + b + 2)^3."""
    size = abs(av) + bv + 2
    return PRECISION_DIGITS + int(3 * mpmath.log10(size)) + 10


def _arguments(a_value, b_value):
    av = validate.real("a", a_value)
    bv = validate.nonnegative("b", b_value)
    return av, bv


def correction(a_value, b_value):
    """The correction ``C(a, b)`` of eq. (9) (CORRECTION), as a 50-digit mpmath number.

    Parameters
    ----------
    a_value : float
        Location ``a`` (``x/s`` in eq. 10).
    b_value : float
        Scale ``b >= 0`` (``|x|/(s sqrt(beta))`` in eq. 10). At ``b = 0`` the limit
        ``phi(a) - a + a^3/6`` is returned.

    Returns
    -------
    mpmath.mpf
        Correct to about 50 significant digits (C can be as large as ``|a|^3``).

    Privacy
    -------
    ``wang20.eq_9`` (RECONSTRUCTED flag).
    """
    av, bv = _arguments(a_value, b_value)
    with mpmath.workdps(_extra_digits(av, bv)):
        am = mpmath.mpf(av)
        if bv == 0:
            value = _PHI_MP(am) - am + am**3 / 6
        else:
            value = _CORRECTION_MP(am, mpmath.mpf(bv))
    with mpmath.workdps(PRECISION_DIGITS):
        return +value


def smoothed_truncation(a_value, b_value):
    """``E phi(X)``, ``X ~ N(a, b^2)``: one term of eq. (8)-(10), as a 50-digit mpmath number.

    Parameters
    ----------
    a_value : float
        Location ``a``.
    b_value : float
        Scale ``b >= 0``; ``b = 0`` gives ``phi(a)``.

    Returns
    -------
    mpmath.mpf
        In ``[-2 sqrt(2)/3, 2 sqrt(2)/3]``; eq. (9) evaluated with the working precision raised by
        the digits its two addends cancel (the oracle for the reference's float evaluation).

    Privacy
    -------
    ``wang20.eq_9``, ``wang20.thm_6``: the bound ``|E phi| <= 2 sqrt(2)/3`` is the whole sensitivity
    argument.
    """
    av, bv = _arguments(a_value, b_value)
    with mpmath.workdps(_extra_digits(av, bv)):
        am = mpmath.mpf(av)
        value = _PHI_MP(am) if bv == 0 else _SMOOTHED_MP(am, mpmath.mpf(bv))
    with mpmath.workdps(PRECISION_DIGITS):
        return +value
