"""The Gaussian mechanism: the classical and the analytic (exact) calibrations.

A query ``q`` with l2 sensitivity ``Delta`` (``sensitivity``) released as ``q(D) + N(0, sigma^2 I)``.
Two records (zhang17's calibration, ``sqrt(2 ln(2/delta)) Delta / epsilon``, is in
:mod:`spec.zhang17`):

``gaussian.classic``
    ``sigma = sqrt(2 ln(1.25/delta)) Delta / epsilon``, proved only for ``epsilon < 1``.
``gaussian.analytic``
    The exact privacy profile of Balle and Wang (2018), valid for every ``epsilon``. It is the
    oracle every other calibration in dperm is checked against.

The profile depends on ``(sigma, sensitivity, steps)`` only through
``mu = sqrt(steps) * sensitivity / sigma``: a Gaussian mechanism with ``mu = sensitivity/sigma`` is
``mu``-Gaussian DP, and the ``steps``-fold (adaptive) composition of such mechanisms is exactly
``mu * sqrt(steps)``-Gaussian DP (Dong, Roth and Su 2019/2022, Gaussian differential privacy,
Corollary 3.3). The composed profile is tight: it is the profile of one Gaussian mechanism with that
``mu``.

Numerics: every value is computed in mpmath. The normal CDF is ``mpmath.ncdf`` (``erfc`` in the
lower tail, so tails are computed with full relative precision and mpmath's exponent range makes a
log-space formulation unnecessary). The difference of the two terms of the profile can cancel (when
``mu**2`` is small compared with ``epsilon``, about ``log10(epsilon / mu**2)`` digits are lost), so the
profile is evaluated at two working precisions, the precision is raised until both agree to 20 digits,
and the larger estimate plus their difference is rounded up.

Examples
--------
The analytic calibration is the smallest sigma whose exact profile meets the target; the
classical one is larger where it is valid and fails where it is not:

>>> from spec import gaussian
>>> sigma = gaussian.analytic_sigma(epsilon=1.0, delta=1e-5, sensitivity=1.0)
>>> sigma
3.730631634815942
>>> gaussian.exact_delta(1.0, sigma=sigma, sensitivity=1.0) <= 1e-5
True
>>> gaussian.classic_sigma(epsilon=0.5, delta=1e-5, sensitivity=1.0)
9.68961052521078
>>> gaussian.classic_failure_epsilon(1e-5)      # beyond this the classical sigma is not private
8.41977130153634
>>> at_10 = gaussian.CLASSIC.evaluate("sigma", check=False, epsilon=10.0, delta=1e-5, sensitivity=1.0)
>>> gaussian.exact_delta(10.0, sigma=at_10, sensitivity=1.0)    # > delta: not (10, 1e-5)-DP
2.2653743647934228e-05
"""

from __future__ import annotations

import math
from typing import Callable

import mpmath
import sympy as sp
from sympy.utilities.lambdify import implemented_function

from spec import inversion, validate
from spec.errors import ParameterError, PrivacyParameterError
from spec.record import (
    PRECISION_DIGITS,
    Assumption,
    Calibration,
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
    "CLASSIC",
    "ANALYTIC",
    "RECORDS",
    "normal_cdf",
    "normal_quantile",
    "classic_sigma",
    "exact_delta",
    "exact_epsilon",
    "analytic_sigma",
    "profile",
    "tradeoff",
    "classic_failure_epsilon",
    "failure_epsilon",
]


# --------------------------------------------------------------------------- normal CDF / quantile
def _normal_quantile_mp(p):
    """Standard normal quantile in mpmath at the current precision (p in (0, 1))."""
    p = mpmath.mpf(p)
    if p > 0.5:
        return -_normal_quantile_mp(1 - p)
    if p == 0.5:
        return mpmath.mpf(0)
    # 1 - 2p loses -log10(p) digits when p is tiny: work with that many extra digits.
    extra = int(mpmath.ceil(-mpmath.log10(p))) + 10
    with mpmath.extradps(extra):
        z = -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * p)
    return +z


#: The standard normal CDF as a sympy function, evaluated by ``mpmath.ncdf``. (sympy rewrites
#: ``erfc(-x)`` as ``2 - erfc(x)``, which would cancel catastrophically in the lower tail.)
normal_cdf = implemented_function("Phi", lambda x: mpmath.ncdf(x))

#: The standard normal quantile as a sympy function (mpmath ``erfinv`` with extra precision).
normal_quantile = implemented_function("Phi_inv", _normal_quantile_mp)

# --------------------------------------------------------------------------- symbols
eps = sp.Symbol("epsilon", positive=True)
eps_p = sp.Symbol("epsilon", nonnegative=True)  # the profile is also taken at epsilon = 0
delta = sp.Symbol("delta", positive=True)
Delta = sp.Symbol("Delta_2", positive=True)
sigma = sp.Symbol("sigma", positive=True)
T = sp.Symbol("T", positive=True, integer=True)
alpha_I = sp.Symbol("alpha", nonnegative=True)  # a type I error, not a Renyi order

_S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
_S_EPS_P = Symbol("epsilon", eps_p, "epsilon at which the privacy profile is taken (>= 0)")
_S_DELTA = Symbol("delta", delta, "failure probability delta")
_S_SENS = Symbol("sensitivity", Delta, "l2 sensitivity of the query")
_S_SIGMA = Symbol("sigma", sigma, "standard deviation of the Gaussian noise (per coordinate)")
_S_STEPS = Symbol("steps", T, "number of (adaptively) composed releases with the same sigma")
_S_ALPHA = Symbol("type_one_error", alpha_I, "type I error of a test between neighbouring outputs")

_SENSITIVITY_NOTE = (
    "The mechanism record is about a query with l2 sensitivity `sensitivity`; the guarantee holds "
    "under whatever neighbouring relation the sensitivity was computed for. The papers compute it "
    "under replace-one, which is the relation recorded here."
)

_DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "delta < 1")

# --------------------------------------------------------------------------- records
_MU = sp.sqrt(T) * Delta / sigma
_PROFILE_EXPR = normal_cdf(_MU / 2 - eps_p / _MU) - sp.exp(eps_p) * normal_cdf(-_MU / 2 - eps_p / _MU)
_TRADEOFF_EXPR = normal_cdf(-normal_quantile(alpha_I) - _MU)


CLASSIC = SpecRecord(
    id="gaussian.classic",
    title="Classical Gaussian mechanism",
    citation=Citation("dwork-roth14", "Theorem A.1"),
    summary=(
        "Adding N(0, sigma^2 I) with sigma = sqrt(2 ln(1.25/delta)) Delta_2/epsilon to a query of l2 "
        "sensitivity Delta_2 is (epsilon, delta)-DP, provided epsilon < 1."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE, (_SENSITIVITY_NOTE,)),
    symbols=(_S_EPS, _S_DELTA, _S_SENS),
    assumptions=(
        Assumption("epsilon_lt_1", sp.Lt(eps, 1), "the proof of Theorem A.1 needs epsilon < 1"),
        _DELTA_LT_1,
    ),
    formulas=(
        Formula(
            "sigma",
            sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) * Delta / eps,
            "noise standard deviation",
            Rounding.UP,
        ),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "Only proved for epsilon < 1; beyond that it stops being (epsilon, delta)-DP at a "
            "computable epsilon (8.42 at delta = 1e-5).",
            "Several papers use this calibration without the condition (wang19 Definition 5 states "
            "it for any epsilon). Evaluated with the exact profile (gaussian.analytic), the "
            "calibration holds for every epsilon < 1 and well beyond, but it first fails at "
            "epsilon = 8.42 for delta = 1e-5 (classic_failure_epsilon). At epsilon = 10, "
            "delta = 1e-5 the exact delta is 2.3e-5; at epsilon = 20 it is 1.5e-3. dperm keeps the "
            "precondition (classic_sigma raises AssumptionError for epsilon >= 1) and offers "
            "analytic_sigma for every epsilon.",
            ("tests/spec/test_gaussian.py::test_classic_failure_epsilon_at_1e_5",),
        ),
    ),
    notes=(
        "Used as printed by wang17 and wang19 (wang19 Definition 5); zhang17 prints ln(2/delta) "
        "(zhang17.thm_1).",
        "Theorem A.1 asks for c^2 > 2 ln(1.25/delta) strictly; the formula takes equality. The exact "
        "profile shows the equality case is (epsilon, delta)-DP for epsilon < 1 as well.",
        "The exact profile of the noise this adds is gaussian.profile(sigma=..., sensitivity=...).",
    ),
)

ANALYTIC = SpecRecord(
    id="gaussian.analytic",
    title="Exact privacy profile of the Gaussian mechanism (analytic calibration)",
    citation=Citation("balle-wang18", "Theorem 8"),
    summary=(
        "q(D) + N(0, sigma^2 I) is (epsilon, delta)-DP if and only if delta >= "
        "Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu), mu = Delta_2/sigma; "
        "valid for every epsilon >= 0. With T composed releases mu becomes sqrt(T) Delta_2/sigma."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        (
            _SENSITIVITY_NOTE,
            "Composition: the T-fold adaptive composition of mu-GDP mechanisms is sqrt(T) mu-GDP and "
            "this is tight (Dong, Roth and Su, Gaussian differential privacy, Corollary 3.3), so the "
            "composed profile is the one-shot profile at sqrt(T) mu.",
        ),
    ),
    symbols=(_S_EPS_P, _S_DELTA, _S_SENS, _S_SIGMA, _S_STEPS, _S_ALPHA),
    assumptions=(
        _DELTA_LT_1,
        Assumption("alpha_le_1", sp.Le(alpha_I, 1), "a type I error is at most 1"),
    ),
    formulas=(
        Formula("mu", _MU, "Gaussian DP parameter of the (composed) release", Rounding.UP),
        Formula("delta", _PROFILE_EXPR, "exact delta at epsilon (the privacy profile)", Rounding.UP),
        Formula(
            "beta",
            _TRADEOFF_EXPR,
            "smallest type II error of a level-alpha test (the Gaussian trade-off curve)",
            Rounding.DOWN,
        ),
    ),
    notes=(
        "The analytic calibration is the smallest sigma with delta(epsilon) <= delta; the profile "
        "decreases in sigma and in epsilon, so it is found by spec.inversion (analytic_sigma).",
        "Trade-off curve beta(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) = Phi(-Phi^{-1}(alpha) - mu) "
        "(Dong, Roth and Su); the profile and the curve are two descriptions of the same privacy.",
        "Evaluate the profile with spec.gaussian.exact_delta: the two terms cancel when mu^2 is small "
        "compared with epsilon (about log10(epsilon/mu^2) digits are lost), and exact_delta raises "
        "the working precision until the result is accurate, where record.evaluate uses 50 digits.",
    ),
)


# --------------------------------------------------------------------------- numerics
# The records' expressions, compiled once (SpecRecord.evaluate compiles on every call, which is too
# slow inside inversions and for audits that evaluate a profile many times).
_PROFILE_FN = sp.lambdify([eps_p, sigma, Delta, T], _PROFILE_EXPR, modules="mpmath")
_MU_FN = sp.lambdify([sigma, Delta, T], _MU, modules="mpmath")
_TRADEOFF_FN = sp.lambdify([alpha_I, sigma, Delta, T], ANALYTIC.formula("beta").expr, modules="mpmath")

_MAX_DIGITS = 3200
_AGREE = mpmath.mpf(10) ** -20
_FAR = 10_000  # normal-CDF arguments beyond this are handled by tail bounds (mpmath's erfc overflows near 1e150)


def _delta_upper(epsilon, sigma_, sensitivity, steps):
    """An mpmath upper bound on the exact profile, within about 1e-20 relative of it.

    The profile (record gaussian.analytic, formula ``delta``) is evaluated at two precisions that
    differ by 30 digits; the precision is doubled until the two agree to 20 digits. The result is the
    more precise value plus the difference (an overestimate of its error).

    Far tails, where mpmath's erfc cannot go: with ``x = epsilon/mu - mu/2``, the profile is at
    most ``Phi(-x) <= exp(-x^2/2)/2`` for ``x >= 0``; and since
    ``(mu/2 + epsilon/mu)^2 = x^2 + 2 epsilon``, the second term is at most ``exp(-x^2/2)/2``, so the
    profile is at least ``1 - exp(-x^2/2)`` for ``x <= 0``. Beyond ``|x| = 10^4`` these bounds are
    returned (both round to the same float as the exact value).
    """
    with mpmath.workdps(PRECISION_DIGITS):
        mu = _MU_FN(mpmath.mpf(sigma_), mpmath.mpf(sensitivity), steps)
        x = mpmath.mpf(epsilon) / mu - mu / 2
        if x >= _FAR:
            return mpmath.exp(-(x**2) / 2) / 2
        if x <= -_FAR:
            return mpmath.mpf(1)
    digits = PRECISION_DIGITS
    while digits <= _MAX_DIGITS:
        with mpmath.workdps(digits):
            low = _PROFILE_FN(mpmath.mpf(epsilon), mpmath.mpf(sigma_), mpmath.mpf(sensitivity), steps)
        with mpmath.workdps(digits + 30):
            high = _PROFILE_FN(mpmath.mpf(epsilon), mpmath.mpf(sigma_), mpmath.mpf(sensitivity), steps)
            gap = abs(high - low)
            if high > 0 and gap <= _AGREE * high:
                return high + gap
        digits *= 2
    raise ParameterError(
        f"the Gaussian profile at epsilon ({float(epsilon)!r}), sigma ({float(sigma_)!r}), sensitivity "
        f"({float(sensitivity)!r}), steps ({steps}) needs more than {_MAX_DIGITS} digits: "
        "sensitivity * sqrt(steps) / sigma is too small to evaluate"
    )


def _validate_mechanism(sigma_, sensitivity, steps):
    return (
        validate.positive("sigma", sigma_),
        validate.positive("sensitivity", sensitivity),
        validate.positive_integer("steps", steps),
    )


def _profile_value(epsilon, sigma_, sensitivity, steps) -> float:
    value = _delta_upper(epsilon, sigma_, sensitivity, steps)
    return min(1.0, round_safe(value, Rounding.UP))


def _profile_margin(epsilon, sigma_, sensitivity, steps, target: float) -> float:
    """The margin of "the mechanism is (epsilon, target)-DP" (<= 0 when it is; :mod:`spec.inversion`).

    Decided on the float that :func:`exact_delta` reports, so a calibration certified here is
    certified by :func:`exact_delta` too.
    """
    value = _delta_upper(epsilon, sigma_, sensitivity, steps)
    margin = inversion.log_ratio(value, mpmath.mpf(target))
    if min(1.0, round_safe(value, Rounding.UP)) <= target:
        return min(margin, 0.0)
    return max(margin, 5e-324)


# --------------------------------------------------------------------------- public functions
def classic_sigma(*, epsilon: float, delta: float, sensitivity: float) -> float:
    """Noise standard deviation of the classical Gaussian mechanism.

    Parameters
    ----------
    epsilon : float
        Privacy budget, ``0 < epsilon < 1`` (the theorem's precondition).
    delta : float
        In ``(0, 1)``.
    sensitivity : float
        l2 sensitivity of the query, ``> 0``.

    Returns
    -------
    float
        ``sqrt(2 ln(1.25/delta)) * sensitivity / epsilon``, rounded up.

    Raises
    ------
    AssumptionError
        If ``epsilon >= 1``. Use :func:`analytic_sigma` there.

    Privacy
    -------
    ``gaussian.classic``: (epsilon, delta)-DP for epsilon < 1.
    """
    e = validate.epsilon(epsilon)
    d = validate.delta(delta)
    s = validate.positive("sensitivity", sensitivity)
    return CLASSIC.evaluate("sigma", epsilon=e, delta=d, sensitivity=s)


def exact_delta(epsilon: float, *, sigma: float, sensitivity: float, steps: int = 1) -> float:
    """Exact privacy profile ``delta(epsilon)`` of ``steps`` composed Gaussian mechanisms.

    ``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` with
    ``mu = sqrt(steps) * sensitivity / sigma`` (Balle and Wang 2018, Theorem 8). For ``steps > 1``
    this uses that the ``steps``-fold adaptive composition of Gaussian mechanisms with
    ``mu = sensitivity/sigma`` is exactly the Gaussian mechanism with ``mu * sqrt(steps)`` (Dong, Roth
    and Su, Gaussian differential privacy, Corollary 3.3), so the result is tight.

    Parameters
    ----------
    epsilon : float
        ``>= 0`` (``epsilon = 0`` gives the total variation distance).
    sigma : float
        Noise standard deviation, ``> 0``.
    sensitivity : float
        l2 sensitivity, ``> 0``.
    steps : int
        Number of composed releases, ``>= 1``.

    Returns
    -------
    float
        The smallest delta for which the mechanism is (epsilon, delta)-DP, computed in mpmath
        (adaptive precision, see the module docstring) and rounded up; never negative.

    Privacy
    -------
    ``gaussian.analytic`` (formula ``delta``).
    """
    e = validate.nonnegative("epsilon", epsilon, error=PrivacyParameterError)
    s, d, t = _validate_mechanism(sigma, sensitivity, steps)
    return _profile_value(e, s, d, t)


def profile(*, sigma: float, sensitivity: float, steps: int = 1) -> Callable[[float], float]:
    """The privacy profile ``epsilon -> delta`` of ``steps`` composed Gaussian mechanisms.

    Parameters
    ----------
    sigma, sensitivity : float
        Noise standard deviation and l2 sensitivity, ``> 0``.
    steps : int
        Number of composed releases, ``>= 1``.

    Returns
    -------
    callable
        ``delta_of_epsilon(epsilon) -> float``, equal to :func:`exact_delta` at these parameters.
        It carries the attributes ``sigma``, ``sensitivity`` and ``steps``.

    Privacy
    -------
    ``gaussian.analytic``.
    """
    s, d, t = _validate_mechanism(sigma, sensitivity, steps)

    def delta_of_epsilon(epsilon) -> float:
        e = validate.nonnegative("epsilon", epsilon, error=PrivacyParameterError)
        return _profile_value(e, s, d, t)

    delta_of_epsilon.__doc__ = (
        f"Exact delta(epsilon) of the Gaussian mechanism with sigma={s!r}, sensitivity={d!r}, "
        f"steps={t} (spec record gaussian.analytic)."
    )
    delta_of_epsilon.sigma = s
    delta_of_epsilon.sensitivity = d
    delta_of_epsilon.steps = t
    return delta_of_epsilon


def exact_epsilon(delta: float, *, sigma: float, sensitivity: float, steps: int = 1) -> float:
    """Smallest epsilon >= 0 with ``exact_delta(epsilon) <= delta``: a tight (epsilon, delta) accountant.

    Parameters
    ----------
    delta : float
        Target delta in ``(0, 1)``.
    sigma, sensitivity : float
        ``> 0``.
    steps : int
        Number of composed releases, ``>= 1``.

    Returns
    -------
    float
        The smallest double epsilon whose exact delta is at most ``delta`` (:func:`spec.inversion.smallest`:
        one ulp above the exact root, verified with
        :func:`exact_delta`); ``0.0`` when ``delta`` is at least the total variation distance, and
        ``inf`` when no finite epsilon is certified.

    Privacy
    -------
    ``gaussian.analytic``: the mechanism is (returned epsilon, delta)-DP, and not (epsilon', delta)-DP
    for any epsilon' below the exact root.
    """
    target = validate.delta(delta)
    s, d, t = _validate_mechanism(sigma, sensitivity, steps)
    if _profile_value(0.0, s, d, t) <= target:
        return 0.0
    try:
        return inversion.smallest(lambda x: _profile_margin(x, s, d, t, target), start=1.0)
    except inversion.NotCertifiable:  # no finite epsilon: the noise is negligible next to the sensitivity
        return math.inf


def analytic_sigma(*, epsilon: float, delta: float, sensitivity: float, steps: int = 1) -> float:
    """Smallest sigma for which ``steps`` composed Gaussian releases are (epsilon, delta)-DP.

    Parameters
    ----------
    epsilon : float
        ``> 0`` (any size: the exact profile needs no ``epsilon < 1``).
    delta : float
        In ``(0, 1)``.
    sensitivity : float
        l2 sensitivity of each release, ``> 0``.
    steps : int
        Number of composed releases, ``>= 1``.

    Returns
    -------
    float
        The smallest double sigma that meets the target (:func:`spec.inversion.smallest`: one ulp
        above the exact root), verified:
        ``exact_delta(epsilon, sigma=result, ...) <= delta``.

    Privacy
    -------
    ``gaussian.analytic`` (Balle and Wang's analytic calibration; composed by Gaussian DP).
    """
    e = validate.epsilon(epsilon)
    target = validate.delta(delta)
    d = validate.positive("sensitivity", sensitivity)
    t = validate.positive_integer("steps", steps)
    return inversion.smallest(lambda x: _profile_margin(e, x, d, t, target), start=math.sqrt(t) * d)


def tradeoff(alpha: float, *, sigma: float, sensitivity: float, steps: int = 1) -> float:
    """Gaussian trade-off curve ``beta(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)``.

    The smallest type II error of any level-``alpha`` test between the output distributions on two
    neighbouring datasets (Dong, Roth and Su), with ``mu = sqrt(steps) * sensitivity / sigma``.

    Parameters
    ----------
    alpha : float
        Type I error in ``[0, 1]``.
    sigma, sensitivity : float
        ``> 0``.
    steps : int
        Number of composed releases, ``>= 1``.

    Returns
    -------
    float
        ``beta``, rounded down (a weaker claim: an audit comparing empirical errors with it can only
        lose power, never raise a false alarm through rounding).

    Privacy
    -------
    ``gaussian.analytic`` (formula ``beta``).
    """
    a = validate.interval("alpha", alpha, 0.0, 1.0, closed="both", error=PrivacyParameterError)
    s, d, t = _validate_mechanism(sigma, sensitivity, steps)
    if a == 0.0:
        return 1.0
    if a == 1.0:
        return 0.0
    with mpmath.workdps(PRECISION_DIGITS):
        if _MU_FN(mpmath.mpf(s), mpmath.mpf(d), t) >= _FAR:
            # beta = Phi(-Phi^{-1}(alpha) - mu) with Phi^{-1}(alpha) >= -38.5 for every float alpha > 0:
            # below exp(-10^7), so 0 is the downward rounding (and mpmath's erfc would overflow).
            return 0.0
        beta = round_safe(_TRADEOFF_FN(mpmath.mpf(a), mpmath.mpf(s), mpmath.mpf(d), t), Rounding.DOWN)
    # For alpha > 0 the exact beta is < 1, but it can round to 1 at 50 digits: stay below it.
    return min(beta, math.nextafter(1.0, 0.0))


def failure_epsilon(record: SpecRecord, delta: float) -> float:
    """Smallest epsilon at which a record's Gaussian calibration stops being (epsilon, delta)-DP.

    The root in epsilon of ``exact_delta(epsilon; sigma = record's sigma(epsilon, delta))
    = delta``, rounded down: at the returned epsilon the calibration is still (epsilon, delta)-DP.
    The profile is scale free, so the sensitivity does not matter.

    Parameters
    ----------
    record : SpecRecord
        A record with a formula ``sigma`` in the canonical names ``epsilon``, ``delta`` and
        ``sensitivity`` (``gaussian.classic``, ``zhang17.thm_1``).
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float

    Privacy
    -------
    The record's flag, evaluated with ``gaussian.analytic``.
    """
    expr = record.formula("sigma").expr
    sigma_fn = sp.lambdify([record.symbol("epsilon"), record.symbol("delta"), record.symbol("sensitivity")],
                           expr, modules="mpmath")
    d = validate.delta(delta)

    def margin(x):  # <= 0 while the record's sigma at (x, delta) is (x, delta)-DP
        with mpmath.workdps(PRECISION_DIGITS):
            s = sigma_fn(mpmath.mpf(x), mpmath.mpf(d), mpmath.mpf(1))
        return inversion.log_ratio(_delta_upper(x, s, 1, 1), mpmath.mpf(d))

    # The tests check that the calibrated profile is increasing in epsilon, so the crossing is unique.
    return inversion.largest(margin, start=1.0)


def classic_failure_epsilon(delta: float) -> float:
    """Smallest epsilon at which the classical calibration stops being (epsilon, delta)-DP.

    The root in epsilon of ``exact_delta(epsilon; sigma = classic sigma(epsilon, delta)) = delta``
    (the profile is scale free, so the sensitivity does not matter), rounded down: at the returned
    epsilon the classical sigma is still (epsilon, delta)-DP.

    Parameters
    ----------
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float

    Privacy
    -------
    ``gaussian.classic`` (flag), evaluated with ``gaussian.analytic``.
    """
    return failure_epsilon(CLASSIC, delta)


# --------------------------------------------------------------------------- claims
def _with_privacy(record: SpecRecord, claim: PrivacyClaim) -> SpecRecord:
    from dataclasses import replace

    return replace(record, privacy=claim)


CLASSIC = register(
    _with_privacy(
        CLASSIC,
        PrivacyClaim(
            PrivacyModel.APPROX_DP,
            Neighbouring.REPLACE_ONE,
            "(epsilon, delta)-DP for 0 < epsilon < 1 and 0 < delta < 1.",
            epsilon=eps,
            delta=delta,
            profile=profile,
        ),
    )
)
ANALYTIC = register(
    _with_privacy(
        ANALYTIC,
        PrivacyClaim(
            PrivacyModel.PROFILE,
            Neighbouring.REPLACE_ONE,
            "For every epsilon >= 0 the mechanism is (epsilon, delta(epsilon))-DP with the delta formula, "
            "and for no smaller delta.",
            epsilon=eps_p,
            delta=_PROFILE_EXPR,
            accountant=exact_epsilon,
            profile=profile,
            calibrations=(
                Calibration("analytic", "sigma", "the smallest sigma whose exact profile meets (epsilon, "
                            "delta) (spec.inversion, verified)", function=analytic_sigma),
            ),
        ),
    )
)

#: The records this module registers.
RECORDS = (CLASSIC, ANALYTIC)
