"""The Laplace mechanism: calibration and exact privacy profile.

``q(D) + Lap(scale)`` per coordinate, for a query with l1 sensitivity ``Delta`` (``sensitivity``).

Exact profile of the scalar mechanism. Write ``p`` for the density of ``Lap(0, b)``, ``q`` for that of
``Lap(Delta, b)`` and ``eps0 = Delta/b``. The privacy loss ``ln p(x)/q(x) = (|x - Delta| - |x|)/b``
equals ``eps0`` for ``x <= 0``, ``-eps0`` for ``x >= Delta`` and decreases linearly in between. For
``0 <= eps < eps0`` it exceeds ``eps`` exactly when ``x < x* = b (eps0 - eps)/2`` (with
``0 < x* <= Delta``), so

    delta(eps) = P_p[X < x*] - e^eps P_q[X < x*]
               = (1 - e^{-x*/b}/2) - e^eps e^{(x* - Delta)/b}/2
               = 1 - e^{(eps - eps0)/2},

and ``delta(eps) = 0`` for ``eps >= eps0``. The test file checks this against mpmath quadrature of
``integral max(0, p - e^eps q)``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import mpmath
import sympy as sp

from spec import validate
from spec.errors import PrivacyParameterError
from spec.record import (
    PRECISION_DIGITS,
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

__all__ = ["MECHANISM", "RECORDS", "laplace_scale", "exact_delta", "profile"]

# nonnegative: the profile is also taken at epsilon = 0 (total variation distance)
eps = sp.Symbol("epsilon", nonnegative=True)
Delta = sp.Symbol("Delta_1", positive=True)
b = sp.Symbol("b", positive=True)

_PROFILE_EXPR = sp.Max(0, 1 - sp.exp((eps - Delta / b) / 2))

MECHANISM = SpecRecord(
    id="laplace.mechanism",
    title="Laplace mechanism",
    citation=Citation("dwork-roth14", "Theorem 3.6"),
    summary=(
        "Adding independent Lap(b) noise to each coordinate of a query with l1 sensitivity Delta_1, "
        "with b = Delta_1/epsilon, is epsilon-DP."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        (
            "The record is about a query with l1 sensitivity `sensitivity`; the guarantee holds under "
            "whatever neighbouring relation the sensitivity was computed for. The papers compute it "
            "under replace-one, which is the relation recorded here.",
        ),
    ),
    symbols=(
        Symbol("epsilon", eps, "privacy budget (for `delta`: the point at which the profile is taken)"),
        Symbol("sensitivity", Delta, "l1 sensitivity of the query"),
        Symbol("scale", b, "scale of the Laplace noise"),
    ),
    formulas=(
        Formula("scale", Delta / eps, "Laplace scale for epsilon-DP", Rounding.UP),
        Formula(
            "delta",
            _PROFILE_EXPR,
            "exact delta at epsilon of the scalar mechanism with the given scale (privacy profile)",
            Rounding.UP,
        ),
    ),
    notes=(
        "The profile formula is exact for a scalar query, and for a vector query whose neighbouring "
        "outputs differ in one coordinate by the full l1 sensitivity. That this pair is the worst case "
        "for every epsilon among all shifts of l1 norm Delta_1 is not claimed here.",
        "Derivation of the profile: see the module docstring of spec.laplace.",
    ),
)


# The record's profile expression, compiled once (profiles are evaluated many times by audits).
_PROFILE_FN = sp.lambdify([eps, Delta, b], MECHANISM.formula("delta").expr, modules="mpmath")


def _validated(scale, sensitivity):
    return validate.positive("scale", scale), validate.positive("sensitivity", sensitivity)


def laplace_scale(*, epsilon: float, sensitivity: float) -> float:
    """Laplace scale ``sensitivity / epsilon`` for epsilon-DP, rounded up.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    sensitivity : float
        l1 sensitivity, ``> 0``.

    Returns
    -------
    float

    Privacy
    -------
    ``laplace.mechanism``: epsilon-DP.
    """
    e = validate.epsilon(epsilon)
    s = validate.positive("sensitivity", sensitivity)
    return MECHANISM.evaluate("scale", epsilon=e, sensitivity=s)


def exact_delta(epsilon: float, *, scale: float, sensitivity: float) -> float:
    """Exact ``delta(epsilon) = max(0, 1 - exp((epsilon - sensitivity/scale)/2))`` of the scalar mechanism.

    Parameters
    ----------
    epsilon : float
        ``>= 0``.
    scale : float
        Laplace scale, ``> 0``.
    sensitivity : float
        l1 sensitivity, ``> 0``.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``laplace.mechanism`` (formula ``delta``).
    """
    e = validate.nonnegative("epsilon", epsilon, error=PrivacyParameterError)
    b_, s = _validated(scale, sensitivity)
    with mpmath.workdps(PRECISION_DIGITS):
        value = _PROFILE_FN(mpmath.mpf(e), mpmath.mpf(s), mpmath.mpf(b_))
        return round_safe(mpmath.mpf(value), Rounding.UP)


def profile(*, scale: float, sensitivity: float) -> Callable[[float], float]:
    """The privacy profile ``epsilon -> delta`` of the scalar Laplace mechanism.

    Parameters
    ----------
    scale, sensitivity : float
        ``> 0``.

    Returns
    -------
    callable
        ``delta_of_epsilon(epsilon) -> float``, equal to :func:`exact_delta`; carries the attributes
        ``scale`` and ``sensitivity``.

    Privacy
    -------
    ``laplace.mechanism``.
    """
    b_, s = _validated(scale, sensitivity)

    def delta_of_epsilon(epsilon) -> float:
        return exact_delta(epsilon, scale=b_, sensitivity=s)

    delta_of_epsilon.__doc__ = (
        f"Exact delta(epsilon) of the Laplace mechanism with scale={b_!r}, sensitivity={s!r} "
        "(spec record laplace.mechanism)."
    )
    delta_of_epsilon.scale = b_
    delta_of_epsilon.sensitivity = s
    return delta_of_epsilon


MECHANISM = register(
    replace(
        MECHANISM,
        privacy=PrivacyClaim(
            PrivacyModel.PURE_DP,
            Neighbouring.REPLACE_ONE,
            "epsilon-DP with scale = sensitivity/epsilon; for a given scale the exact profile is the "
            "delta formula.",
            epsilon=eps,
            delta=sp.Integer(0),
            profile=profile,
        ),
    )
)

#: The records this module registers.
RECORDS = (MECHANISM,)
