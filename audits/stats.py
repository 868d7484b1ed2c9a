"""Confidence bounds behind every audit verdict, and run counts derived from a target power.

Binomial bounds (Clopper-Pearson)
---------------------------------
A privacy audit counts how often an event ``S`` happens in ``n`` independent runs of a
mechanism. The count ``K`` is ``Binomial(n, p)``. The exact one-sided Clopper-Pearson bounds at
level ``a`` are

* lower: the ``p_lo`` with ``P[Bin(n, p_lo) >= K] = a``, i.e. ``p_lo = I^{-1}(a; K, n - K + 1)``
  (``0`` when ``K = 0``);
* upper: the ``p_hi`` with ``P[Bin(n, p_hi) <= K] = a``, i.e.
  ``p_hi = I^{-1}(1 - a; K + 1, n - K)`` (``1`` when ``K = n``),

where ``I^{-1}`` inverts the regularised incomplete beta function. They are *exact* in the
sense that ``P_p[p_lo(K) > p] <= a`` and ``P_p[p_hi(K) < p] <= a`` for every ``p`` (the
binomial tail is monotone in ``p``). The floating-point inverse is accurate to a few ulps; we
round it outward by a relative ``1e-12`` (:data:`OUTWARD`) so that rounding can only make a
bound more conservative. The tests compare with exact binomial tail sums in mpmath.

Counts may be fractional: :func:`audits.privacy.audit_privacy` *projects* the counts of its
selection runs onto the test sample size to rank candidate events, and the incomplete-beta
formula extends smoothly to real ``K``. Only integer counts are used for verdicts.

Distribution-function bands (Dvoretzky-Kiefer-Wolfowitz-Massart)
----------------------------------------------------------------
For the empirical CDF ``F_n`` of ``n`` i.i.d. draws from *any* distribution ``F`` (atoms
allowed), ``P[sup_t |F_n(t) - F(t)| > r] <= 2 exp(-2 n r^2)`` whenever
``exp(-2 n r^2) <= 1/2`` (Massart, 1990). :func:`dkw_radius` returns the radius for a given
level; the level is always at most 1/2 in our use, which meets Massart's condition. Because the
band holds for every ``t`` at once, it brackets the probability of every threshold event
``{T <= t}`` and ``{T > t}`` (and of ``{T < t}``, by left limits) simultaneously.

Run counts for a target power
-----------------------------
:func:`runs_for_point` and :func:`runs_for_profile` invert a normal approximation of the two
tests to give the runs per dataset that flag a given bug with a given power;
:func:`runs_for_gaussian` and :func:`runs_for_laplace` build the event probabilities for the
two textbook mechanisms with under-scaled noise. They are design calculations (the normal
approximation is rough for events with few expected counts), used so that audit suites ask
"runs for this bug size" instead of guessing; the verdicts themselves use only the exact
bounds above.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from spec import validate
from spec.errors import ParameterError

__all__ = [
    "OUTWARD",
    "SELECTION_FRACTION",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "clopper_pearson",
    "dkw_radius",
    "dkw_level",
    "point_bound",
    "point_estimate",
    "normal_quantile",
    "runs_for_point",
    "runs_for_profile",
    "runs_for_gaussian",
    "runs_for_laplace",
]

#: Relative outward rounding applied to Clopper-Pearson bounds (floating-point safety margin).
OUTWARD = 1e-12

#: Fraction of the runs per dataset held out to choose the event in point mode
#: (see :mod:`audits.privacy` for why 15%).
SELECTION_FRACTION = 0.15


def _counts(name: str, k, n):
    k = np.asarray(k, dtype=float)
    if not np.all(np.isfinite(k)):
        raise ParameterError(f"{name} must be finite counts")
    if np.any(k < 0) or np.any(k > n):
        raise ParameterError(f"{name} must lie in [0, n] with n = {n}")
    return k


def _trials(n) -> float:
    # Real-valued n is allowed (projected sample sizes); it must be finite and >= 1.
    if isinstance(n, (bool, np.bool_)):
        raise TypeError(f"n ({n!r}) must be a number of trials, not a boolean")
    n = validate.real("n", n)
    if n < 1:
        raise ParameterError(f"n ({n!r}) must be >= 1")
    return n


def _level(level) -> float:
    return validate.interval("level", level, 0.0, 1.0, closed="neither")


def clopper_pearson_lower(k, n, level):
    """Exact lower confidence bound on a binomial proportion.

    Parameters
    ----------
    k : float or array_like
        Number of successes, ``0 <= k <= n`` (fractional values allowed).
    n : float
        Number of trials, ``>= 1``.
    level : float
        One-sided error level in (0, 1): ``P_p[bound > p] <= level`` for every ``p``.

    Returns
    -------
    float or ndarray
        ``I^{-1}(level; k, n - k + 1)``, ``0`` where ``k == 0``, rounded down by
        :data:`OUTWARD`.
    """
    n = _trials(n)
    level = _level(level)
    k = _counts("k", k, n)
    with np.errstate(all="ignore"):
        lo = special.betaincinv(np.where(k > 0, k, 1.0), n - k + 1.0, level)
    lo = np.where(k > 0, lo * (1.0 - OUTWARD), 0.0)
    lo = np.clip(lo, 0.0, 1.0)
    return float(lo) if lo.ndim == 0 else lo


def clopper_pearson_upper(k, n, level):
    """Exact upper confidence bound on a binomial proportion.

    ``P_p[bound < p] <= level`` for every ``p``. Returns ``I^{-1}(1 - level; k + 1, n - k)``,
    ``1`` where ``k == n``, rounded up by :data:`OUTWARD`. Arguments as in
    :func:`clopper_pearson_lower`.
    """
    n = _trials(n)
    level = _level(level)
    k = _counts("k", k, n)
    with np.errstate(all="ignore"):
        # I^{-1}(1 - level; k+1, n-k) = 1 - I^{-1}(level; n-k, k+1); the second form keeps
        # precision when the upper bound is close to 1.
        hi = 1.0 - special.betaincinv(np.where(k < n, n - k, 1.0), k + 1.0, level)
    hi = np.where(k < n, hi + OUTWARD * np.maximum(hi, 1e-300), 1.0)
    hi = np.clip(hi, 0.0, 1.0)
    return float(hi) if hi.ndim == 0 else hi


def clopper_pearson(k, n, alpha):
    """Two-sided exact interval with ``alpha / 2`` in each tail: ``(lower, upper)``."""
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    return clopper_pearson_lower(k, n, alpha / 2), clopper_pearson_upper(k, n, alpha / 2)


def dkw_radius(n, level) -> float:
    """Radius ``r`` of a simultaneous DKW-Massart band: ``2 exp(-2 n r^2) = level``.

    Parameters
    ----------
    n : int
        Sample size (``>= 1``).
    level : float
        Probability, in (0, 1), that the band fails somewhere. Massart's constant 2 needs
        ``exp(-2 n r^2) <= 1/2``, i.e. ``level <= 1``: always met.
    """
    n = validate.integer("n", n, minimum=1)
    level = _level(level)
    return math.sqrt(math.log(2.0 / level) / (2.0 * n))


def dkw_level(n, radius) -> float:
    """Failure probability bound ``min(1, 2 exp(-2 n r^2))`` of a band of radius ``r``."""
    n = validate.integer("n", n, minimum=1)
    radius = validate.positive("radius", radius)
    return min(1.0, 2.0 * math.exp(-2.0 * n * radius * radius))


def point_bound(k_p, k_q, n, *, delta=0.0, alpha):
    """Lower confidence bound on epsilon from one event's counts on the two datasets.

    With ``K_p ~ Bin(n, p)`` (the dataset whose probability the claim bounds) and
    ``K_q ~ Bin(n, q)`` independent, ``p_lo`` is the Clopper-Pearson lower bound on ``p`` and
    ``q_hi`` the upper bound on ``q``, each at level ``alpha / 2``. By the union bound,
    ``p_lo <= p`` and ``q_hi >= q`` hold together with probability ``>= 1 - alpha``. If the claim
    ``p <= e^eps q + delta`` holds, then on that event ``(p_lo - delta) / q_hi <= e^eps``.

    Returns
    -------
    (epsilon_lower, p_lo, q_hi) : tuple of float or ndarray
        ``epsilon_lower = max(0, ln((p_lo - delta) / q_hi))`` and ``0`` when
        ``p_lo <= delta``. ``q_hi > 0`` always (the upper bound at ``K_q = 0`` is
        ``1 - (alpha/2)^(1/n)``).
    """
    delta = validate.delta(delta, allow_zero=True)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    p_lo = clopper_pearson_lower(k_p, n, alpha / 2)
    q_hi = clopper_pearson_upper(k_q, n, alpha / 2)
    p_lo_a = np.asarray(p_lo, dtype=float)
    q_hi_a = np.asarray(q_hi, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(p_lo_a > delta, (p_lo_a - delta) / q_hi_a, 1.0)
        eps_lo = np.maximum(np.log(np.maximum(ratio, 1e-300)), 0.0)
    if eps_lo.ndim == 0:
        return float(eps_lo), float(p_lo_a), float(q_hi_a)
    return eps_lo, p_lo_a, q_hi_a


def point_estimate(k_p, k_q, n, *, delta=0.0) -> float:
    """Plug-in estimate ``ln((k_p/n - delta) / (k_q/n))`` of the privacy loss of one event.

    Edge cases: ``0`` when ``k_p/n <= delta`` (the event shows no loss beyond delta; also the
    clamp for negative values: a loss estimate is never below 0); ``inf`` when ``k_q = 0`` and
    ``k_p/n > delta`` (the event never happened on the other dataset).
    """
    delta = validate.delta(delta, allow_zero=True)
    n = _trials(n)
    p_hat = float(k_p) / n
    q_hat = float(k_q) / n
    if p_hat <= delta:
        return 0.0
    if q_hat == 0.0:
        return math.inf
    return max(0.0, math.log((p_hat - delta) / q_hat))


def normal_quantile(prob: float) -> float:
    """Standard normal quantile ``Phi^{-1}(prob)``."""
    prob = validate.interval("prob", prob, 0.0, 1.0, closed="neither")
    return float(special.ndtri(prob))


def _power(power) -> float:
    return validate.interval("power", power, 0.0, 1.0, closed="neither")


def runs_for_point(p, q, *, epsilon, delta=0.0, alpha, power=0.9,
                   selection_fraction=SELECTION_FRACTION) -> int:
    """Runs per dataset for the point-mode test to refute ``(epsilon, delta)`` with ``power``.

    Normal approximation of the Clopper-Pearson test at one event with true probabilities
    ``p`` (dataset) and ``q`` (neighbour): with ``m`` test runs, ``ln(p_hat - delta)`` and
    ``ln(q_hat)`` have standard deviations ``c_p / sqrt(m)`` and ``c_q / sqrt(m)``,
    ``c_p = sqrt(p(1-p)) / (p - delta)``, ``c_q = sqrt((1-q)/q)``; the test rejects when
    ``ln((p_hat - delta)/q_hat) - z (c_p + c_q)/sqrt(m) > epsilon`` with
    ``z = Phi^{-1}(1 - alpha/2)``. Power ``power`` needs

        sqrt(m) >= (z (c_p + c_q) + z_power sqrt(c_p^2 + c_q^2)) / (ln((p - delta)/q) - epsilon).

    ``p`` and ``q`` may be arrays over candidate events; the smallest requirement wins. The
    result is ``m / (1 - selection_fraction)`` rounded up (the selection runs come on top).

    Raises
    ------
    ParameterError
        If no event has ``ln((p - delta)/q) > epsilon``: the bug is invisible to this claim.
    """
    epsilon = validate.epsilon(epsilon)
    delta = validate.delta(delta, allow_zero=True)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    power = _power(power)
    selection_fraction = validate.interval("selection_fraction", selection_fraction, 0.0, 1.0,
                                           closed="left")
    p = np.atleast_1d(np.asarray(p, dtype=float))
    q = np.atleast_1d(np.asarray(q, dtype=float))
    if p.shape != q.shape or not (np.all(np.isfinite(p)) and np.all(np.isfinite(q))):
        raise ParameterError("p and q must be finite arrays of the same shape")
    ok = (p > delta) & (q > 0) & (q < 1) & (p < 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.where(ok, np.log(np.where(ok, p - delta, 1.0) / np.where(ok, q, 1.0)) - epsilon, -1.0)
        ok &= gap > 0
        c_p = np.sqrt(p * (1 - p)) / np.where(ok, p - delta, 1.0)
        c_q = np.sqrt((1 - q) / np.where(ok, q, 1.0))
    if not np.any(ok):
        raise ParameterError(
            f"no event has ln((p - delta)/q) > epsilon ({epsilon!r}): the bug cannot be detected "
            "by this (epsilon, delta) claim"
        )
    z = normal_quantile(1 - alpha / 2)
    zp = normal_quantile(power)
    need = ((z * (c_p + c_q) + zp * np.sqrt(c_p**2 + c_q**2)) / np.where(ok, gap, 1.0)) ** 2
    m = float(np.min(need[ok]))
    return int(math.ceil(m / (1.0 - selection_fraction)))


def runs_for_profile(p, q, bound, slope, *, alpha, power=0.9) -> int:
    """Runs per dataset for the profile-mode (DKW band) test to flag a bug with ``power``.

    Arrays over thresholds ``t``: ``p = P_D(S_t)``, ``q = P_D'(S_t)``, ``bound = B(q)`` the
    largest ``P_D(S_t)`` the claimed profile allows, ``slope = B'(q)``. Each band has radius
    ``r = sqrt(ln(4/alpha) / (2n))`` (level ``alpha/2``); the test flags when
    ``p_hat - r > B(q_hat + r)``. Linearising ``B`` at ``q``, power ``power`` needs

        sqrt(n) >= (sqrt(ln(4/alpha)/2) (1 + slope) + z_power sqrt(p(1-p) + slope^2 q(1-q)))
                   / (p - bound).

    The smallest requirement over ``t`` is returned (rounded up). All runs count: scalar
    statistics use every run for the bands.
    """
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    power = _power(power)
    arrays = [np.atleast_1d(np.asarray(a, dtype=float)) for a in (p, q, bound, slope)]
    if len({a.shape for a in arrays}) != 1 or not all(np.all(np.isfinite(a)) for a in arrays):
        raise ParameterError("p, q, bound and slope must be finite arrays of one shape")
    p, q, bound, slope = arrays
    gap = p - bound
    ok = gap > 0
    if not np.any(ok):
        raise ParameterError("no threshold has p > B(q): the bug cannot be detected by this profile")
    zp = normal_quantile(power)
    c = math.sqrt(math.log(4.0 / alpha) / 2.0)
    need = ((c * (1 + slope) + zp * np.sqrt(p * (1 - p) + slope**2 * q * (1 - q)))
            / np.where(ok, gap, 1.0)) ** 2
    return int(math.ceil(float(np.min(need[ok]))))


def _factor(factor) -> float:
    return validate.interval("factor", factor, 0.0, 1.0, closed="neither")


def runs_for_gaussian(*, sigma, sensitivity=1.0, factor, alpha, power=0.9, mode="profile",
                      epsilon=None, delta=None, selection_fraction=SELECTION_FRACTION) -> int:
    """Runs per dataset to flag a Gaussian mechanism whose noise is ``factor * sigma``.

    The claim is the one of the correctly calibrated mechanism (noise ``sigma`` for an l2
    ``sensitivity``). In units of the actual noise, the two output laws are ``N(0, 1)`` and
    ``N(mu1, 1)``, ``mu1 = sensitivity / (factor sigma)``, and a threshold event ``{X > x}``
    has ``q = Phi(-x)``, ``p = Phi(mu1 - x)``.

    * ``mode="profile"``: the claimed profile is the Gaussian trade-off curve with
      ``mu0 = sensitivity / sigma``, under which the largest allowed ``p`` is
      ``B(q) = Phi(mu0 - x)`` with slope ``B'(q) = exp(mu0 x - mu0^2 / 2)``
      (:func:`runs_for_profile`).
    * ``mode="point"``: the ``(epsilon, delta)`` claim (:func:`runs_for_point`).
    """
    sigma = validate.positive("sigma", sigma)
    sensitivity = validate.positive("sensitivity", sensitivity)
    factor = _factor(factor)
    validate.choice("mode", mode, {"profile", "point"})
    mu0 = sensitivity / sigma
    mu1 = mu0 / factor
    x = np.linspace(-6.0, 12.0, 3601)
    q = special.ndtr(-x)
    p = special.ndtr(mu1 - x)
    if mode == "profile":
        bound = special.ndtr(mu0 - x)
        slope = np.exp(mu0 * x - mu0**2 / 2)
        keep = (q > 1e-12) & (q < 1 - 1e-12)
        return runs_for_profile(p[keep], q[keep], bound[keep], slope[keep], alpha=alpha, power=power)
    if epsilon is None or delta is None:
        raise ParameterError("mode 'point' needs epsilon and delta")
    return runs_for_point(p, q, epsilon=epsilon, delta=delta, alpha=alpha, power=power,
                          selection_fraction=selection_fraction)


def runs_for_laplace(*, scale, sensitivity=1.0, factor, epsilon, alpha, power=0.9,
                     selection_fraction=SELECTION_FRACTION) -> int:
    """Runs per dataset to refute ``epsilon``-DP for Laplace noise of scale ``factor * scale``.

    Output laws ``Lap(0, b)`` and ``Lap(sensitivity, b)`` with ``b = factor * scale``; events
    ``{X <= t}``, ``t <= 0``, have the exact ratio ``exp(sensitivity / b)``; ``t`` ranges over
    a grid so that the best trade-off between ratio and count is found
    (:func:`runs_for_point`, ``delta = 0``).
    """
    scale = validate.positive("scale", scale)
    sensitivity = validate.positive("sensitivity", sensitivity)
    factor = _factor(factor)
    b = factor * scale
    t = np.linspace(-20.0 * b, sensitivity, 2001)

    def cdf(x, loc):
        z = (x - loc) / b
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1 - 0.5 * np.exp(-np.maximum(z, 0.0)))

    return runs_for_point(cdf(t, 0.0), cdf(t, sensitivity), epsilon=epsilon, delta=0.0,
                          alpha=alpha, power=power, selection_fraction=selection_fraction)
