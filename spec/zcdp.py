"""Zero-concentrated differential privacy (Bun and Steinke 2016): the Gaussian mechanism, composition,
conversion to (epsilon, delta)-DP, and its exact inverse.

The inverse. ``rho + 2 sqrt(rho a) = epsilon`` with ``a = ln(1/delta)`` is a quadratic in
``r = sqrt(rho)``: ``r^2 + 2 sqrt(a) r - epsilon = 0``, whose nonnegative root is
``r = sqrt(a + epsilon) - sqrt(a)``. So the largest rho that converts to (epsilon, delta) is

    rho* = (sqrt(a + epsilon) - sqrt(a))^2 = epsilon^2 / (sqrt(a + epsilon) + sqrt(a))^2,

the second form free of cancellation; ``rho* = epsilon^2 / (4 a) + O(epsilon^3)``. A Gaussian release
with l2 sensitivity Delta repeated T times is ``T Delta^2 / (2 sigma^2)``-zCDP, hence the calibration
``sigma = sqrt(T Delta^2 / (2 rho*))`` (wang19 Algorithm 1 step 3, wang20 Algorithms 3 and 4).

Pure DP. An epsilon-DP mechanism is ``epsilon^2/2``-zCDP (Bun and Steinke, Proposition 1.4): its
privacy loss is bounded by epsilon, and a bounded loss with that range has Renyi divergence at most
``alpha epsilon^2 / 2`` at every order.
"""

from __future__ import annotations

import dataclasses

from typing import Sequence

import mpmath
import sympy as sp

from spec import validate
from spec.errors import ParameterError, PrivacyParameterError
from spec.record import (
    PRECISION_DIGITS,
    Assumption,
    Citation,
    Conventions,
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
    "GAUSSIAN",
    "COMPOSITION",
    "TO_DP",
    "RHO_STAR",
    "GAUSSIAN_CALIBRATION",
    "FROM_PURE_DP",
    "RECORDS",
    "gaussian_rho",
    "compose",
    "epsilon",
    "rho_star",
    "gaussian_sigma",
    "epsilon_gaussian",
]

eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
rho = sp.Symbol("rho", positive=True)
Delta = sp.Symbol("Delta_2", positive=True)
sigma = sp.Symbol("sigma", positive=True)
T = sp.Symbol("T", positive=True, integer=True)
k = sp.Symbol("k", positive=True, integer=True)

_S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
_S_DELTA = Symbol("delta", delta, "failure probability delta")
_S_RHO = Symbol("rho", rho, "zCDP parameter rho")
_S_SENS = Symbol("sensitivity", Delta, "l2 sensitivity of the query")
_S_SIGMA = Symbol("sigma", sigma, "standard deviation of the Gaussian noise")
_S_STEPS = Symbol("steps", T, "number of composed Gaussian releases")
_S_K = Symbol("steps", k, "number of composed mechanisms")

_DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "delta < 1")
_RELATION_NOTE = (
    "zCDP statements hold for any neighbouring relation under which the sensitivity (or each "
    "mechanism's rho) was computed; the papers use replace-one."
)
_CONV = Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE, (_RELATION_NOTE,))

_RHO_GAUSS = T * Delta**2 / (2 * sigma**2)
_A = sp.log(1 / delta)
_RHO_STAR = eps**2 / (sp.sqrt(_A + eps) + sp.sqrt(_A)) ** 2
_EPS_FROM_RHO = rho + 2 * sp.sqrt(rho * _A)

GAUSSIAN = SpecRecord(
    id="zcdp.gaussian",
    title="zCDP of the Gaussian mechanism",
    citation=Citation("bun-steinke16", "Proposition 1.6"),
    summary=(
        "A Gaussian release with l2 sensitivity Delta_2 and noise N(0, sigma^2 I) is "
        "Delta_2^2/(2 sigma^2)-zCDP."
    ),
    conventions=_CONV,
    symbols=(_S_SENS, _S_SIGMA, _S_STEPS, _S_DELTA),
    assumptions=(_DELTA_LT_1,),
    formulas=(
        Formula("rho", _RHO_GAUSS, "rho of T composed releases", Rounding.UP),
        Formula(
            "epsilon",
            _EPS_FROM_RHO.subs(rho, _RHO_GAUSS),
            "epsilon at delta of T composed releases (zcdp.to_dp at this rho)",
            Rounding.UP,
        ),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.ZCDP,
        Neighbouring.REPLACE_ONE,
        "rho-zCDP with rho = T Delta_2^2 / (2 sigma^2) (T = 1: Proposition 1.6; T > 1 by composition).",
        rho=_RHO_GAUSS,
    ),
)

COMPOSITION = SpecRecord(
    id="zcdp.composition",
    title="Composition of zCDP",
    citation=Citation("bun-steinke16", "Lemma 1.7"),
    summary="The adaptive composition of rho_i-zCDP mechanisms is (sum rho_i)-zCDP.",
    conventions=_CONV,
    symbols=(_S_RHO, _S_K),
    formulas=(Formula("rho_total", k * rho, "rho of k mechanisms that are each rho-zCDP", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.ZCDP,
        Neighbouring.REPLACE_ONE,
        "(sum rho_i)-zCDP; the formula is the case of k identical mechanisms.",
        rho=k * rho,
    ),
)

TO_DP = SpecRecord(
    id="zcdp.to_dp",
    title="zCDP implies (epsilon, delta)-DP",
    citation=Citation("bun-steinke16", "Proposition 1.3"),
    summary="rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP for every delta in (0, 1).",
    conventions=_CONV,
    symbols=(_S_RHO, _S_DELTA),
    assumptions=(_DELTA_LT_1,),
    formulas=(Formula("epsilon", _EPS_FROM_RHO, "epsilon at delta", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(rho + 2 sqrt(rho ln(1/delta)), delta)-DP for every delta in (0, 1).",
        epsilon=_EPS_FROM_RHO,
        delta=delta,
    ),
)

RHO_STAR = SpecRecord(
    id="zcdp.rho_star",
    title="Largest rho that converts to a given (epsilon, delta)",
    citation=Citation("bun-steinke16", "Proposition 1.3 (inverted)"),
    summary=(
        "rho* = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2 solves rho + 2 sqrt(rho ln(1/delta)) "
        "= epsilon; every rho <= rho* gives (epsilon, delta)-DP."
    ),
    conventions=_CONV,
    symbols=(_S_EPS, _S_DELTA),
    assumptions=(_DELTA_LT_1,),
    formulas=(
        Formula(
            "rho",
            _RHO_STAR,
            "rho* in the cancellation-free form epsilon^2 / (sqrt(a + epsilon) + sqrt(a))^2, a = ln(1/delta)",
            Rounding.DOWN,
        ),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "A rho*-zCDP mechanism is (epsilon, delta)-DP (by zcdp.to_dp).",
        epsilon=eps,
        delta=delta,
        rho=_RHO_STAR,
    ),
    notes=(
        "Equal to (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2 and to "
        "epsilon^2/(4 ln(1/delta)) + O(epsilon^3) (checked with sympy in the tests).",
        "This is wang19 Algorithm 1 step 3 ('compute rho with rho + 2 sqrt(rho log(1/delta)) = "
        "epsilon') and the calibration of wang20 Algorithms 3 and 4. wang19's displayed solution "
        "(sqrt(log(1/delta)) + epsilon - sqrt(log(1/delta)))^2 misplaces a parenthesis.",
    ),
)

FROM_PURE_DP = SpecRecord(
    id="zcdp.from_pure_dp",
    title="Pure DP implies zCDP",
    citation=Citation("bun-steinke16", "Proposition 1.4"),
    summary="An epsilon-DP mechanism is (epsilon^2 / 2)-zCDP.",
    conventions=_CONV,
    symbols=(_S_EPS,),
    formulas=(Formula("rho", eps**2 / 2, "rho of an epsilon-DP mechanism", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.ZCDP,
        Neighbouring.REPLACE_ONE,
        "(epsilon^2/2)-zCDP under the relation of the epsilon-DP claim.",
        rho=eps**2 / 2,
    ),
    notes=(
        "Composing k epsilon_0-DP mechanisms this way gives k epsilon_0^2 / 2, which converts with "
        "zcdp.to_dp for every epsilon (no epsilon < 1 condition, unlike advanced composition Form B).",
    ),
)

_SIGMA_CAL = sp.sqrt(T * Delta**2 / (2 * _RHO_STAR))

GAUSSIAN_CALIBRATION = SpecRecord(
    id="zcdp.gaussian_calibration",
    title="Gaussian noise for (epsilon, delta)-DP over T releases via zCDP",
    citation=Citation("bun-steinke16", "Propositions 1.3 and 1.6 and Lemma 1.7, solved for sigma"),
    summary=(
        "T Gaussian releases with l2 sensitivity Delta_2 and sigma = sqrt(T Delta_2^2 / (2 rho*)), "
        "rho* = rho*(epsilon, delta), are together (epsilon, delta)-DP."
    ),
    conventions=_CONV,
    symbols=(_S_EPS, _S_DELTA, _S_SENS, _S_STEPS),
    assumptions=(_DELTA_LT_1,),
    formulas=(Formula("sigma", _SIGMA_CAL, "noise standard deviation per release", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP for every epsilon > 0 and delta in (0, 1): the releases are together "
        "rho*-zCDP (zcdp.gaussian, zcdp.composition), which converts by zcdp.to_dp.",
        epsilon=eps,
        delta=delta,
        rho=_RHO_STAR,
    ),
    notes=(
        "The generic calibration; papers specialise its expression. wang19 Algorithm 1 step 3 is the "
        "case Delta_2 = 2G/n (average loss, replace-one): sigma^2 = 2 G^2 T / (n^2 rho*), record "
        "wang19.eq_3, which also carries the flags for the printed step 3 (sigma^2 = 2 L^2 T / "
        "(n^2 rho^2): L should be G and rho^2 should be rho).",
        "Also the calibration of wang20 Algorithms 3 and 4.",
    ),
)


# --------------------------------------------------------------------------- functions
def gaussian_rho(*, sigma: float, sensitivity: float, steps: int = 1) -> float:
    """zCDP parameter ``steps * sensitivity^2 / (2 sigma^2)`` of Gaussian releases (rounded up).

    Parameters
    ----------
    sigma, sensitivity : float
        ``> 0``.
    steps : int
        ``>= 1``.

    Returns
    -------
    float

    Privacy
    -------
    ``zcdp.gaussian`` (and ``zcdp.composition`` for ``steps > 1``).
    """
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    t = validate.positive_integer("steps", steps)
    return GAUSSIAN.evaluate("rho", sigma=s, sensitivity=d, steps=t)


def compose(rhos: Sequence[float]) -> float:
    """zCDP composition: ``sum rhos``, rounded up.

    Parameters
    ----------
    rhos : sequence of float
        Each ``> 0``.

    Returns
    -------
    float

    Privacy
    -------
    ``zcdp.composition``.
    """
    if isinstance(rhos, (str, bytes)) or not hasattr(rhos, "__iter__"):
        raise TypeError(f"rhos ({rhos!r}) must be a sequence of real numbers")
    values = [
        validate.positive(f"rhos[{i}]", r, error=PrivacyParameterError) for i, r in enumerate(rhos)
    ]
    if not values:
        raise ParameterError("rhos (empty) must have at least one entry")
    with mpmath.workdps(PRECISION_DIGITS):
        return round_safe(mpmath.fsum(mpmath.mpf(r) for r in values), Rounding.UP)


def epsilon(*, rho: float, delta: float) -> float:
    """epsilon of a rho-zCDP mechanism at ``delta``: ``rho + 2 sqrt(rho ln(1/delta))``, rounded up.

    Parameters
    ----------
    rho : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float

    Privacy
    -------
    ``zcdp.to_dp``.
    """
    r = validate.positive("rho", rho)
    d = validate.delta(delta)
    return TO_DP.evaluate("epsilon", rho=r, delta=d)


def rho_star(*, epsilon: float, delta: float) -> float:
    """Largest rho whose zCDP converts to (epsilon, delta)-DP, rounded down.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        ``(sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2``.

    Privacy
    -------
    ``zcdp.rho_star``.
    """
    e = validate.epsilon(epsilon)
    d = validate.delta(delta)
    return RHO_STAR.evaluate("rho", epsilon=e, delta=d)


def gaussian_sigma(*, epsilon: float, delta: float, sensitivity: float, steps: int = 1) -> float:
    """Noise standard deviation making ``steps`` Gaussian releases (epsilon, delta)-DP via zCDP.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.
    sensitivity : float
        l2 sensitivity of each release, ``> 0``.
    steps : int
        ``>= 1``.

    Returns
    -------
    float
        ``sqrt(steps * sensitivity^2 / (2 rho*(epsilon, delta)))``, rounded up.

    Privacy
    -------
    ``zcdp.gaussian_calibration``.
    """
    e = validate.epsilon(epsilon)
    d = validate.delta(delta)
    s = validate.positive("sensitivity", sensitivity)
    t = validate.positive_integer("steps", steps)
    return GAUSSIAN_CALIBRATION.evaluate("sigma", epsilon=e, delta=d, sensitivity=s, steps=t)


def epsilon_gaussian(*, sigma: float, sensitivity: float, delta: float, steps: int = 1) -> float:
    """epsilon at ``delta`` of ``steps`` Gaussian releases, accounted with zCDP (rounded up).

    Parameters
    ----------
    sigma, sensitivity : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.
    steps : int
        ``>= 1``.

    Returns
    -------
    float
        ``rho + 2 sqrt(rho ln(1/delta))`` with ``rho = steps sensitivity^2 / (2 sigma^2)``, evaluated
        as one expression and rounded up once.

    Privacy
    -------
    ``zcdp.gaussian``, ``zcdp.composition``, ``zcdp.to_dp``.
    """
    s = validate.positive("sigma", sigma)
    d = validate.positive("sensitivity", sensitivity)
    dl = validate.delta(delta)
    t = validate.positive_integer("steps", steps)
    return GAUSSIAN.evaluate("epsilon", sigma=s, sensitivity=d, delta=dl, steps=t)


GAUSSIAN = register(GAUSSIAN)
COMPOSITION = register(COMPOSITION)
TO_DP = register(TO_DP)
RHO_STAR = register(RHO_STAR)
# the inverse question (the epsilon of a given sigma) is the accountant of the same chain
GAUSSIAN_CALIBRATION = register(dataclasses.replace(
    GAUSSIAN_CALIBRATION,
    privacy=dataclasses.replace(GAUSSIAN_CALIBRATION.privacy, accountant=epsilon_gaussian),
))
FROM_PURE_DP = register(FROM_PURE_DP)

#: The records this module registers.
RECORDS = (GAUSSIAN, COMPOSITION, TO_DP, RHO_STAR, GAUSSIAN_CALIBRATION, FROM_PURE_DP)
