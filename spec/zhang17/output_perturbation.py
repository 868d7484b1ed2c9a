r"""zhang17 Algorithm 1 (gradient descent, then one output noise draw) and Theorem 1 (its privacy).

``zhang17.alg_1``
    The box: T full-batch gradient steps with constant step eta, then ``w_priv = w_T + z`` with ``z``
    from one of two noise laws. Its formulas are what the reference evaluates for the noise; the step
    size, T and the sensitivity come from ``zhang17.thm_2`` (strongly convex) or ``zhang17.thm_3``
    (convex).
``zhang17.thm_1``
    Privacy, both noise laws: epsilon-DP with density ``exp(-epsilon ||z||/Delta)`` (delta = 0), and
    the Gaussian ``sigma = sqrt(2 ln(2/delta)) Delta/epsilon`` claimed (epsilon, delta)-DP for every
    epsilon > 0 (ERRATUM: false beyond :func:`gaussian_failure_epsilon`).

The two noise laws
------------------
*delta = 0.* The density ``exp(-c ||z||)`` with ``c = epsilon/Delta`` is radial; in polar coordinates
the radius has density proportional to ``r^(d-1) e^(-c r)``, i.e. ``||z|| ~ Gamma(shape d, rate c)``
(scale ``Delta/epsilon``), independent of a uniform direction. Hence ``E||z|| = d Delta/epsilon`` and
``E||z||^2 = d (d+1) Delta^2/epsilon^2``. Privacy: the density ratio at any output is
``exp(c (||x - a'|| - ||x - a||)) <= exp(c ||a - a'||) <= e^epsilon`` (profiles.radial_laplace).

*delta > 0.* ``exp(-epsilon^2 ||z||^2/(4 ln(2/delta) Delta^2))`` is ``N(0, sigma^2 I_d)`` with
``2 sigma^2 = 4 ln(2/delta) Delta^2/epsilon^2``, i.e. ``sigma = sqrt(2 ln(2/delta)) Delta/epsilon``:
the classical calibration with ``ln(2/delta)`` for ``ln(1.25/delta)``. It is (epsilon, delta)-DP
exactly when the Balle-Wang profile at ``mu = Delta/sigma`` is at most delta (gaussian.analytic);
``E||z||^2 = d sigma^2``.
"""

from __future__ import annotations

import warnings
from typing import Callable

import sympy as sp

from spec import gaussian, profiles, validate
from spec.errors import PrivacyLeakWarning
from spec.record import (
    Calibration,
    Citation,
    Flag,
    FlagKind,
    Formula,
    Line,
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Rounding,
    SpecRecord,
)
from spec.registry import register
from spec.zhang17.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    S_D,
    S_DELTA,
    S_EPS,
    S_N,
    S_SENS,
    S_T,
    T,
    Delta,
    d,
    delta,
    eps,
    n,
)

__all__ = [
    "ALG_1",
    "THM_1",
    "RECORDS",
    "CALIBRATIONS",
    "NOISE_RATE",
    "SIGMA",
    "SIGMA_SQUARED",
    "EXPECTED_NOISE_NORM_SQUARED_PURE",
    "EXPECTED_NOISE_NORM_SQUARED_GAUSSIAN",
    "gaussian_sigma",
    "sigma_analytic",
    "output_noise_epsilon",
    "gaussian_failure_epsilon",
    "output_noise_profile",
]

_TESTS = "tests/spec/zhang17/test_output_perturbation.py"

_RADIAL = profiles.RADIAL_LAPLACE
#: delta = 0 (line 5): rate c of the density exp(-c ||z||), shared with profiles.radial_laplace.
NOISE_RATE = _RADIAL.formula("rate").expr.subs(
    {_RADIAL.symbol("epsilon"): eps, _RADIAL.symbol("sensitivity"): Delta}, simultaneous=True,
)
NOISE_GAMMA_SCALE = 1 / NOISE_RATE
#: delta > 0 (line 7): the Gaussian read off the density exp(-eps^2 ||z||^2 / (4 ln(2/delta) Delta^2)).
SIGMA_SQUARED = 2 * sp.log(2 / delta) * Delta**2 / eps**2
SIGMA = sp.sqrt(2 * sp.log(2 / delta)) * Delta / eps
#: Second moments of the two noise laws (used by the utility theorems).
EXPECTED_NOISE_NORM_SQUARED_PURE = d * (d + 1) * NOISE_GAMMA_SCALE**2
EXPECTED_NOISE_NORM_SQUARED_GAUSSIAN = d * SIGMA_SQUARED

#: Calibrations offered by :func:`gaussian_sigma`.
CALIBRATIONS = ("printed", "analytic")

_NOISE_FORMULAS = (
    Formula("noise_rate", NOISE_RATE, "delta = 0: rate c = epsilon/Delta of the density exp(-c ||z||)",
            Rounding.DOWN),
    Formula("noise_gamma_shape", d, "delta = 0: ||z|| ~ Gamma(shape d, scale Delta/epsilon)", Rounding.CEIL),
    Formula("noise_gamma_scale", NOISE_GAMMA_SCALE, "delta = 0: scale Delta/epsilon of the Gamma radius",
            Rounding.UP),
    Formula("sigma", SIGMA, "delta > 0: standard deviation of each coordinate of z", Rounding.UP),
    Formula("sigma_squared", SIGMA_SQUARED, "delta > 0: variance of each coordinate of z", Rounding.UP),
    Formula("expected_noise_norm_squared_pure", EXPECTED_NOISE_NORM_SQUARED_PURE,
            "delta = 0: E||z||^2 = d (d+1) Delta^2/epsilon^2", Rounding.NEAREST),
    Formula("expected_noise_norm_squared_gaussian", EXPECTED_NOISE_NORM_SQUARED_GAUSSIAN,
            "delta > 0: E||z||^2 = d sigma^2", Rounding.NEAREST),
)

ALG_1 = register(SpecRecord(
    id="zhang17.alg_1",
    title="Algorithm 1: output perturbation full gradient descent",
    citation=Citation("zhang17", "Algorithm 1"),
    summary=(
        "From w_0, run T steps w_{t+1} = w_t - (eta/n) sum_i grad f(w_t, xi_i); output w_priv = w_T + z with "
        "z of density proportional to exp(-epsilon ||z||/Delta) if delta = 0, else N(0, sigma^2 I_d), "
        "sigma = sqrt(2 ln(2/delta)) Delta/epsilon; Delta is the sensitivity of w_T (Lemmas 2-3)."
    ),
    conventions=CONVENTIONS,
    symbols=(S_EPS, S_DELTA, S_SENS, S_D, S_N, S_T),
    assumptions=(DELTA_LT_1,),
    formulas=_NOISE_FORMULAS + (
        Formula("gradient_evaluations", n * T, "per-example gradients computed: n per step, T steps",
                Rounding.CEIL),
    ),
    notes=(
        "Inputs: the data, a convex loss with Lipschitz constant L, T, (epsilon, delta), eta, Delta, w_0. "
        "eta, T and Delta are set by zhang17.thm_2 (strongly convex: formulas learning_rate, "
        "steps_pure / steps_approx, sensitivity) or zhang17.thm_3 (convex); Delta is never computed "
        "from the data.",
        "Sampling the delta = 0 noise: ||z|| ~ Gamma(noise_gamma_shape, scale noise_gamma_scale) times a "
        "uniform direction (reference.samplers.RadialLaplace).",
        "The output line is not numbered in the paper; it is labelled L9 here.",
        "The privacy claim is zhang17.thm_1.",
    ),
    pseudocode=(
        Line("L1", "for t = 0 to T - 1 do"),
        Line("L2", "w_{t+1} := w_t - (eta/n) sum_{i=1}^n grad f(w_t, xi_i)."),
        Line("L3", "end for"),
        Line("L4", "if delta = 0 then"),
        Line("L5", "sample z ~ P(z) proportional to exp(-epsilon ||z||_2 / Delta) (this is for epsilon-DP)."),
        Line("L6", "else"),
        Line("L7", "sample z ~ P(z) proportional to exp(-epsilon^2 ||z||_2^2 / (4 log(2/delta) Delta^2)) "
                   "(this is for (epsilon, delta)-DP)."),
        Line("L8", "end if"),
        Line("L9", "Output: w_priv = w_T + z."),
    ),
))


def output_noise_profile(*, epsilon, delta, sensitivity, sigma=None) -> Callable[[float], float]:
    """Privacy profile ``epsilon' -> delta'`` of Algorithm 1's output noise at its calibration.

    Parameters
    ----------
    epsilon : float
        The budget the noise is calibrated to, ``> 0``.
    delta : float
        ``0`` (the radial law of line 5) or in ``(0, 1)`` (the Gaussian of line 7).
    sensitivity : float
        l2 sensitivity ``Delta > 0`` the noise is calibrated to.
    sigma : float, optional
        ``delta > 0``: the noise actually used (another calibration's, e.g. ``"analytic"``); default
        the record's sigma (line 7).

    Returns
    -------
    callable
        For ``delta > 0``: the exact Gaussian profile (``gaussian.profile``) at the record's sigma
        (or at ``sigma``).
        For ``delta = 0``: the profile every epsilon-DP mechanism satisfies (``profiles.pure_dp``),
        an upper bound on the radial law's profile; it is not attained even in dimension 1, where
        the radial law is the Laplace law and its exact profile is ``laplace.profile`` (smaller:
        0.393 against 0.462 at epsilon' = 0 for epsilon = 1).

    Privacy
    -------
    ``zhang17.thm_1``.
    """
    e = validate.epsilon(epsilon)
    dl = validate.delta(delta, allow_zero=True)
    s = validate.positive("sensitivity", sensitivity)
    if dl == 0:
        return profiles.pure_dp_profile(e)
    if sigma is None:
        sigma = THM_1.evaluate("sigma", epsilon=e, delta=dl, sensitivity=s)
    return gaussian.profile(sigma=sigma, sensitivity=s)


def sigma_analytic(*, epsilon, delta, sensitivity) -> float:
    """Line 7's noise replaced by the smallest sigma the exact Gaussian profile accepts (rounded up).

    ``gaussian_sigma(calibration="analytic")``: (epsilon, delta)-DP for every epsilon, where the
    printed sigma is not beyond :func:`gaussian_failure_epsilon`.

    Privacy
    -------
    ``zhang17.thm_1`` (calibration ``analytic``), ``gaussian.analytic``.
    """
    return gaussian_sigma(epsilon=epsilon, delta=delta, sensitivity=sensitivity, calibration="analytic")


def output_noise_epsilon(*, delta, sigma, sensitivity) -> float:
    """The exact epsilon at ``delta`` of line 7's output noise ``z ~ N(0, sigma^2 I_d)`` (rounded up).

    One Gaussian release of sensitivity ``Delta``: ``gaussian.exact_epsilon``, tight.

    Privacy
    -------
    ``zhang17.thm_1`` (its accountant), ``gaussian.analytic``.
    """
    return gaussian.exact_epsilon(delta, sigma=sigma, sensitivity=sensitivity)


THM_1 = register(SpecRecord(
    id="zhang17.thm_1",
    title="Privacy of Algorithm 1 (both noise laws)",
    citation=Citation("zhang17", "Theorem 1 and Algorithm 1, lines 4-8"),
    summary=(
        "Algorithm 1 is (epsilon, delta)-DP for any epsilon > 0 and delta in [0, 1): with delta = 0 the noise "
        "has density proportional to exp(-epsilon ||z||/Delta) (a Gamma(d) radius, epsilon-DP); with "
        "delta > 0 it is N(0, sigma^2 I_d), sigma = sqrt(2 ln(2/delta)) Delta/epsilon."
    ),
    conventions=CONVENTIONS,
    symbols=(S_EPS, S_DELTA, S_SENS, S_D),
    assumptions=(DELTA_LT_1,),
    formulas=_NOISE_FORMULAS,
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "delta = 0: epsilon-DP for every epsilon > 0 (radial law, profiles.radial_laplace). delta > 0: "
        "(epsilon, delta)-DP claimed for every epsilon > 0; true up to gaussian_failure_epsilon(delta) "
        "(flag). Both need Delta >= sup ||w_T - w'_T||, which Lemmas 2-3 give under the conditions of "
        "Theorems 2-3. profile = output_noise_profile.",
        epsilon=eps,
        delta=delta,
        accountant=output_noise_epsilon,
        profile=output_noise_profile,
        calibrations=(
            Calibration("printed", "sigma", "line 7 as printed, sqrt(2 ln(2/delta)) Delta/epsilon (not "
                        "(epsilon, delta)-DP beyond gaussian_failure_epsilon: see the ERRATUM flag)", formula="sigma"),
            Calibration("analytic", "sigma", "the smallest sigma whose exact Gaussian profile meets (epsilon, delta) "
                        "(gaussian.analytic; private for every epsilon)", function=sigma_analytic),
        ),
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "The Gaussian law is claimed (epsilon, delta)-DP for every epsilon > 0, but it is not for large "
            "epsilon: at delta = 1e-5 it first fails at epsilon = 9.39.",
            "Since ln(2/delta) > ln(1.25/delta) this sigma exceeds the classical one, so it is "
            "(epsilon, delta)-DP for epsilon < 1 (Dwork-Roth Theorem A.1), and the exact profile "
            "shows it holds up to epsilon = 9.39 at delta = 1e-5 (gaussian_failure_epsilon). "
            "Beyond that the exact delta exceeds the target: 1.4e-5 at epsilon = 10 and 9.7e-4 at "
            "epsilon = 20 (delta = 1e-5). gaussian_sigma emits a PrivacyLeakWarning when the "
            "returned sigma is not (epsilon, delta)-DP, and offers the analytic calibration "
            "(calibration='analytic', gaussian.analytic_sigma), which is (epsilon, delta)-DP for every "
            "epsilon and smaller than the printed sigma on the whole tested range.",
            (f"{_TESTS}::test_gaussian_failure_epsilon_at_1e_5",
             f"{_TESTS}::test_analytic_calibration_is_private_and_smaller"),
            slug="gaussian-large-epsilon",
        ),
        Flag(
            FlagKind.CAVEAT,
            "The delta = 0 law is the radial density exp(-epsilon ||z||/Delta): sampled as a Gamma(shape d, "
            "scale Delta/epsilon) radius times a uniform direction, with E||z||^2 = d (d+1) Delta^2/epsilon^2 "
            "(not the per-coordinate Laplace of Lemma 1).",
            "In polar coordinates the radius has density proportional to r^(d-1) e^(-r epsilon/Delta). The "
            "test integrates the density in d = 1, 2, 3 (normalising constant and second moment against "
            "the Gamma formulas) and reads the Gaussian's sigma^2 off the exponent of line 7.",
            (f"{_TESTS}::test_noise_laws_from_the_densities",),
        ),
    ),
    notes=(
        "The paper's experiments use epsilon <= 2 (delta = 1e-3), where the Gaussian calibration is valid.",
        "The radial law is epsilon-DP for every epsilon > 0 (triangle inequality); its exact profile has no "
        "closed form in d > 1, and output_noise_profile returns the pure-DP bound (profiles.pure_dp).",
    ),
))


def gaussian_sigma(*, epsilon, delta, sensitivity, calibration="printed") -> float:
    """Noise standard deviation of zhang17 Algorithm 1 (line 7), or its analytic replacement.

    Parameters
    ----------
    epsilon : float
        Privacy budget, ``> 0``.
    delta : float
        In ``(0, 1)``.
    sensitivity : float
        l2 sensitivity, ``> 0``.
    calibration : {"printed", "analytic"}
        ``"printed"`` (default): ``sqrt(2 ln(2/delta)) Delta/epsilon``, warning where it is not
        (epsilon, delta)-DP. ``"analytic"``: the smallest sigma the exact profile accepts
        (``gaussian.analytic_sigma``), private for every epsilon.

    Returns
    -------
    float
        Rounded up.

    Warns
    -----
    PrivacyLeakWarning
        When the printed sigma is *not* (epsilon, delta)-DP under the exact profile (large
        epsilon; see the record's flag).

    Privacy
    -------
    ``zhang17.thm_1`` (claimed for every epsilon; true for epsilon < 1 and, at delta = 1e-5, up to
    ``gaussian_failure_epsilon(1e-5)``); ``gaussian.analytic`` for ``calibration="analytic"``.
    """
    c = validate.choice("calibration", calibration, CALIBRATIONS)
    e = validate.epsilon(epsilon)
    d_ = validate.delta(delta)
    s = validate.positive("sensitivity", sensitivity)
    if c == "analytic":
        return gaussian.analytic_sigma(epsilon=e, delta=d_, sensitivity=s)
    value = THM_1.evaluate("sigma", epsilon=e, delta=d_, sensitivity=s)
    achieved = gaussian.exact_delta(e, sigma=value, sensitivity=s)
    if achieved > d_:
        warnings.warn(
            f"zhang17.thm_1: sigma ({value!r}) at epsilon ({e!r}) is not (epsilon, delta)-DP: exact "
            f"delta {achieved:.3g} > delta ({d_!r}); use calibration 'analytic' (--calibration analytic), "
            "private for every epsilon",
            PrivacyLeakWarning,
            stacklevel=2,
        )
    return value


def gaussian_failure_epsilon(delta) -> float:
    """Smallest epsilon at which zhang17's Gaussian calibration stops being (epsilon, delta)-DP.

    Parameters
    ----------
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        Rounded down: at the returned epsilon the calibration is still (epsilon, delta)-DP.

    Privacy
    -------
    ``zhang17.thm_1`` (flag), evaluated with ``gaussian.analytic``.
    """
    return gaussian.failure_epsilon(THM_1, delta)


#: The records this module registers.
RECORDS = (ALG_1, THM_1)
