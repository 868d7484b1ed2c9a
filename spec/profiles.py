r"""Privacy profiles implied by a claim, and the pure-DP vector mechanism whose claim is one.

Two records:

``profiles.pure_dp``
    The privacy profile that an epsilon-DP claim implies for *every* mechanism: the profile of
    binary randomized response (Kairouz, Oh and Viswanath 2015),

        delta(e) = max(0, (e^epsilon - e^e) / (1 + e^epsilon))   for e >= 0,

    which is 0 for ``e >= epsilon``. Audits of a pure-DP claim test this whole curve.
``profiles.radial_laplace``
    Noise with density proportional to ``exp(-rate ||b||_2)`` added to a statistic of l2
    sensitivity ``Delta_2``: ``rate = epsilon / Delta_2`` is epsilon-DP, so its profile is
    bounded by ``profiles.pure_dp``.

Derivation of ``profiles.pure_dp``
----------------------------------
Write ``P, Q`` for the output laws on two neighbours and ``E_e(P || Q) = sup_S P(S) - e^e Q(S)``
(the hockey-stick divergence: the smallest delta with ``P(S) <= e^e Q(S) + delta`` for all
``S``; the supremum is attained by ``S = {dP/dQ > e^e}``). An epsilon-DP claim covers both
orders of the pair, so for every event ``S`` with ``x = P(S)``, ``y = Q(S)``:

    x <= e^epsilon y                       (the event, order P over Q)
    1 - y <= e^epsilon (1 - x)             (its complement, order Q over P).

*Upper bound.* Fix ``0 <= e < epsilon``. Then ``x - e^e y <= x - e^e max(x e^-epsilon,
1 - e^epsilon (1 - x))``. In ``x`` the first branch gives ``x (1 - e^(e - epsilon))``, increasing,
the second ``x (1 - e^(e + epsilon)) + e^e (e^epsilon - 1)``, decreasing; the minimum of the two
subtracted terms switches branch where ``x e^-epsilon = 1 - e^epsilon (1 - x)``, i.e. at
``x = e^epsilon / (1 + e^epsilon)``, ``y = 1 / (1 + e^epsilon)``, where the value is
``(e^epsilon - e^e) / (1 + e^epsilon)``. For ``e >= epsilon``, ``x - e^e y <= x - e^epsilon y <= 0``.

*Attained.* Binary randomized response reports the true bit with probability
``e^epsilon / (1 + e^epsilon)``: ``P = (e^epsilon, 1) / (1 + e^epsilon)`` and
``Q = (1, e^epsilon) / (1 + e^epsilon)``, so ``E_e(P || Q) = sum_i max(0, P_i - e^e Q_i)
= (e^epsilon - e^e)_+ / (1 + e^epsilon)`` (the second outcome contributes 0). It is epsilon-DP
(both likelihood ratios are ``e^(+-epsilon)``), so the bound above is the exact supremum over
all epsilon-DP pairs.

The tests check the closed form against the hockey-stick divergence of randomized response
(``spec.exponential.exact_discrete_profile``) and against a brute-force maximisation of
``x - e^e y`` over the two constraints.
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

__all__ = [
    "PURE_DP",
    "RADIAL_LAPLACE",
    "RECORDS",
    "pure_dp_delta",
    "pure_dp_profile",
    "radial_laplace_rate",
]

eps = sp.Symbol("epsilon", positive=True)
eps_at = sp.Symbol("epsilon'", nonnegative=True)  # where the profile is taken
Delta = sp.Symbol("Delta_2", positive=True)

_PURE_DP_EXPR = sp.Max(0, (sp.exp(eps) - sp.exp(eps_at)) / (1 + sp.exp(eps)))

_RELATION_NOTE = (
    "The implication holds under whatever neighbouring relation the epsilon-DP claim is made "
    "for; replace-one is recorded because the papers use it."
)

PURE_DP = SpecRecord(
    id="profiles.pure_dp",
    title="Privacy profile implied by epsilon-DP (randomized response)",
    citation=Citation("kov15", "the privacy region of epsilon-DP, attained by randomized response"),
    summary=(
        "Every epsilon-DP mechanism is (epsilon', delta(epsilon'))-DP for every epsilon' >= 0 with "
        "delta(epsilon') = max(0, (e^epsilon - e^epsilon') / (1 + e^epsilon)); binary randomized "
        "response attains it, so no smaller profile follows from the claim."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE, (_RELATION_NOTE,)),
    symbols=(
        Symbol("epsilon", eps, "the pure-DP budget of the claim"),
        Symbol("epsilon_prime", eps_at, "epsilon at which the profile is taken (>= 0)"),
    ),
    formulas=(
        Formula("delta", _PURE_DP_EXPR, "largest delta at epsilon' that an epsilon-DP claim allows",
                Rounding.UP),
    ),
    notes=(
        "Derivation (both directions) in the module docstring of spec.profiles.",
        "Audits of a pure-DP claim (Laplace, exponential mechanism, report-noisy-max, radial Laplace) "
        "test this profile in profile mode: events of probability near 1/2 carry the claim with "
        "large counts, where the point claim alone needs rare events.",
    ),
)

RADIAL_LAPLACE = SpecRecord(
    id="profiles.radial_laplace",
    title="The exp(-rate ||b||_2) vector mechanism",
    citation=Citation("bst14", "Algorithm 3, line 3 (noise density proportional to exp(-rate ||b||_2))"),
    summary=(
        "Adding noise with density proportional to exp(-rate ||b||_2) to a statistic of l2 sensitivity "
        "Delta_2 is epsilon-DP with rate = epsilon / Delta_2."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        (
            "The guarantee holds under whatever neighbouring relation the sensitivity was computed "
            "for; the papers use replace-one.",
        ),
    ),
    symbols=(
        Symbol("epsilon", eps, "privacy budget epsilon"),
        Symbol("sensitivity", Delta, "l2 sensitivity of the statistic"),
    ),
    formulas=(
        Formula("rate", eps / Delta, "coefficient of ||b||_2 in the exponent (smaller is safer)",
                Rounding.DOWN),
    ),
    notes=(
        "Privacy: for statistics a, a' with ||a - a'||_2 <= Delta_2 the density ratio at any output x "
        "is exp(rate (||x - a'|| - ||x - a||)) <= exp(rate ||a - a'||) <= e^epsilon (triangle "
        "inequality), in both orders.",
        "Sampling: the norm is Gamma(shape p, scale 1/rate), the direction uniform "
        "(reference.samplers.RadialLaplace).",
        "bst14 Algorithm 3 and zhang17 Algorithm 1 (delta = 0) use it with their sensitivities; its "
        "profile is bounded by profiles.pure_dp (exact for p = 1, where it is the Laplace mechanism).",
    ),
)

# Compiled once: audits evaluate the profile on grids of thousands of points.
_PURE_DP_FN = sp.lambdify([eps, eps_at], _PURE_DP_EXPR, modules="mpmath")


def pure_dp_delta(epsilon_prime: float, *, epsilon: float) -> float:
    """``delta(epsilon') = max(0, (e^epsilon - e^epsilon') / (1 + e^epsilon))``, rounded up.

    Parameters
    ----------
    epsilon_prime : float
        Where the profile is taken, ``>= 0``.
    epsilon : float
        The pure-DP budget of the claim, ``> 0``.

    Returns
    -------
    float
        Computed in mpmath at 50 digits and rounded up.

    Privacy
    -------
    ``profiles.pure_dp``.
    """
    e = validate.epsilon(epsilon)
    at = validate.nonnegative("epsilon_prime", epsilon_prime, error=PrivacyParameterError)
    return _delta(e, at)


def _delta(e: float, at: float) -> float:
    if at >= e:  # the profile is exactly 0 there (and exp would only cost time)
        return 0.0
    with mpmath.workdps(PRECISION_DIGITS):
        return round_safe(mpmath.mpf(_PURE_DP_FN(mpmath.mpf(e), mpmath.mpf(at))), Rounding.UP)


def pure_dp_profile(epsilon: float) -> Callable[[float], float]:
    """The privacy profile ``epsilon' -> delta`` implied by an epsilon-DP claim.

    Parameters
    ----------
    epsilon : float
        The pure-DP budget, ``> 0``.

    Returns
    -------
    callable
        ``delta_of_epsilon(epsilon_prime) -> float`` (:func:`pure_dp_delta`), with the attribute
        ``epsilon``. Zero for ``epsilon_prime >= epsilon``.

    Privacy
    -------
    ``profiles.pure_dp``: every epsilon-DP mechanism satisfies this profile on every pair of
    neighbours, and binary randomized response attains it.
    """
    e = validate.epsilon(epsilon)

    def delta_of_epsilon(epsilon_prime) -> float:
        at = validate.nonnegative("epsilon_prime", epsilon_prime, error=PrivacyParameterError)
        return _delta(e, at)

    delta_of_epsilon.__doc__ = (
        f"delta(epsilon') implied by {e!r}-DP (spec record profiles.pure_dp)."
    )
    delta_of_epsilon.epsilon = e
    return delta_of_epsilon


def radial_laplace_rate(*, epsilon: float, sensitivity: float) -> float:
    """Rate ``epsilon / sensitivity`` of the exp(-rate ||b||_2) mechanism, rounded down.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    sensitivity : float
        l2 sensitivity, ``> 0``.

    Returns
    -------
    float

    Privacy
    -------
    ``profiles.radial_laplace``: epsilon-DP.
    """
    e = validate.epsilon(epsilon)
    s = validate.positive("sensitivity", sensitivity)
    return RADIAL_LAPLACE.evaluate("rate", epsilon=e, sensitivity=s)


PURE_DP = register(
    replace(
        PURE_DP,
        privacy=PrivacyClaim(
            PrivacyModel.PROFILE,
            Neighbouring.REPLACE_ONE,
            "An epsilon-DP mechanism is (epsilon', delta(epsilon'))-DP for every epsilon' >= 0 with the "
            "delta formula; randomized response attains it.",
            epsilon=eps_at,
            delta=_PURE_DP_EXPR,
            profile=pure_dp_profile,
        ),
    )
)
RADIAL_LAPLACE = register(
    replace(
        RADIAL_LAPLACE,
        privacy=PrivacyClaim(
            PrivacyModel.PURE_DP,
            Neighbouring.REPLACE_ONE,
            "epsilon-DP with rate = epsilon / sensitivity; its profile is at most profiles.pure_dp.",
            epsilon=eps,
            delta=sp.Integer(0),
        ),
    )
)

#: The records this module registers.
RECORDS = (PURE_DP, RADIAL_LAPLACE)
