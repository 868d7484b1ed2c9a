"""zhang17 Algorithm 1 (output perturbation of gradient descent) and Theorem 1 (its privacy).

``zhang17.thm_1_gaussian``
    The Gaussian noise law of Algorithm 1, line 7: ``sigma = sqrt(2 ln(2/delta)) Delta / epsilon``,
    claimed (epsilon, delta)-DP for every ``epsilon > 0``; true only up to a computable epsilon
    (:func:`gaussian_failure_epsilon`).
"""

from __future__ import annotations

import warnings

import sympy as sp

from spec import gaussian, validate
from spec.errors import PrivacyLeakWarning
from spec.record import (
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
)
from spec.registry import register

__all__ = ["THM_1_GAUSSIAN", "RECORDS", "gaussian_sigma", "gaussian_failure_epsilon"]

eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
Delta = sp.Symbol("Delta", positive=True)

_S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
_S_DELTA = Symbol("delta", delta, "failure probability delta")
_S_SENS = Symbol("sensitivity", Delta, "l2 sensitivity Delta of the GD output (Lemmas 2-3)")
_DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "delta < 1")
_SENSITIVITY_NOTE = (
    "The sensitivity is that of the non-private output w_T under replace-one (zhang17 Lemmas 2 and 3)."
)

THM_1_GAUSSIAN = register(SpecRecord(
    id="zhang17.thm_1_gaussian",
    title="Gaussian output perturbation of Zhang et al.",
    citation=Citation("zhang17", "Algorithm 1, line 7"),
    summary=(
        "Noise with density proportional to exp(-epsilon^2 ||z||^2 / (4 ln(2/delta) Delta^2)), i.e. "
        "N(0, sigma^2 I) with sigma = sqrt(2 ln(2/delta)) Delta/epsilon, claimed (epsilon, delta)-DP "
        "for every epsilon > 0 (zhang17 Theorem 1)."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE, (_SENSITIVITY_NOTE,)),
    symbols=(_S_EPS, _S_DELTA, _S_SENS),
    assumptions=(_DELTA_LT_1,),
    formulas=(
        Formula(
            "sigma",
            sp.sqrt(2 * sp.log(2 / delta)) * Delta / eps,
            "noise standard deviation",
            Rounding.UP,
        ),
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "Claimed for every epsilon > 0, but not (epsilon, delta)-DP for large epsilon: at "
            "delta = 1e-5 it first fails at epsilon = 9.39.",
            "Since ln(2/delta) > ln(1.25/delta) this sigma exceeds the classical one, so it is "
            "(epsilon, delta)-DP for epsilon < 1 (Dwork-Roth Theorem A.1), and the exact profile "
            "shows it holds up to epsilon = 9.39 at delta = 1e-5 (gaussian_failure_epsilon). "
            "Beyond that the exact delta exceeds the target: 1.4e-5 at epsilon = 10 and 9.7e-4 at "
            "epsilon = 20 (delta = 1e-5). gaussian_sigma emits a PrivacyLeakWarning when the "
            "returned sigma is not (epsilon, delta)-DP.",
            ("tests/spec/zhang17/test_output_perturbation.py::test_gaussian_failure_epsilon_at_1e_5",),
        ),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP claimed for every epsilon > 0 and delta in (0, 1) (see the flag).",
        epsilon=eps,
        delta=delta,
        profile=gaussian.profile,
    ),
    notes=(
        "The experiments of zhang17 use epsilon up to 2, where the calibration is valid.",
        "The exact profile of the noise this adds is gaussian.profile(sigma=..., sensitivity=...).",
    ),
))


def gaussian_sigma(*, epsilon, delta, sensitivity) -> float:
    """Noise standard deviation of zhang17 Algorithm 1 (line 7), ``sqrt(2 ln(2/delta)) Delta/epsilon``.

    Parameters
    ----------
    epsilon : float
        Privacy budget, ``> 0``.
    delta : float
        In ``(0, 1)``.
    sensitivity : float
        l2 sensitivity, ``> 0``.

    Returns
    -------
    float
        The paper's sigma, rounded up.

    Warns
    -----
    PrivacyLeakWarning
        When the returned sigma is *not* (epsilon, delta)-DP under the exact profile (large
        epsilon; see the record's flag).

    Privacy
    -------
    ``zhang17.thm_1_gaussian`` (claimed for every epsilon; true for epsilon < 1 and, at delta = 1e-5, up to
    ``gaussian_failure_epsilon(1e-5)``).
    """
    e = validate.epsilon(epsilon)
    d = validate.delta(delta)
    s = validate.positive("sensitivity", sensitivity)
    value = THM_1_GAUSSIAN.evaluate("sigma", epsilon=e, delta=d, sensitivity=s)
    achieved = gaussian.exact_delta(e, sigma=value, sensitivity=s)
    if achieved > d:
        warnings.warn(
            f"zhang17.thm_1_gaussian: sigma ({value!r}) at epsilon ({e!r}) is not (epsilon, delta)-DP: exact "
            f"delta {achieved:.3g} > delta ({d!r}); use spec.gaussian.analytic_sigma",
            PrivacyLeakWarning,
            stacklevel=2,
        )
    return value


def gaussian_failure_epsilon(delta) -> float:
    """Smallest epsilon at which zhang17's calibration stops being (epsilon, delta)-DP (rounded down).

    Parameters
    ----------
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float

    Privacy
    -------
    ``zhang17.thm_1_gaussian`` (flag), evaluated with ``gaussian.analytic``.
    """
    return gaussian.failure_epsilon(THM_1_GAUSSIAN, delta)



#: The records this module registers.
RECORDS = (THM_1_GAUSSIAN,)
