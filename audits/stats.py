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

The point test: Poisson counts and a conditional binomial test
---------------------------------------------------------------
:func:`poisson_point_bound` is the test behind the verdict of point mode. With Poisson sample
sizes (``N ~ Poisson(m)`` runs on each dataset, drawn by the auditor) the two counts of an event
are independent Poisson variables, ``K_p ~ Poisson(m p)`` and ``K_q ~ Poisson(m q)`` (thinning),
and the claim for the event, ``p <= e^eps q + delta``, reads ``m p <= e^eps (m q + m delta
e^-eps)``. The auditor adds an independent ``B ~ Poisson(m delta e^-eps)`` to ``K_q``; then
``K_q + B ~ Poisson(m q + m delta e^-eps)`` and the claim is a bound on a *ratio* of two Poisson
means, which has an exact test free of nuisance parameters: given ``S = K_p + K_q + B = s``,
``K_p ~ Bin(s, pi)`` with ``pi = m p / (m p + m q + m delta e^-eps) <= e^eps / (1 + e^eps)``.
The test rejects the claim at ``eps`` when ``P[Bin(s, e^eps/(1 + e^eps)) >= K_p] <= alpha``;
since the binomial tail increases in ``pi``, its conditional size is at most ``alpha`` for every
``s``, hence unconditionally, for every ``p`` and ``q`` satisfying the claim. The ``B`` for
different ``eps`` are counts of one Poisson process of unit rate on ``[0, m delta]`` (the
``arrivals``): ``B(eps)`` is the number of arrivals below ``m delta e^-eps``.

Unlike two separate Clopper-Pearson bounds at ``alpha/2`` each (:func:`point_bound`), whose
errors add, the conditional test sees the two counts jointly (errors add in quadrature) and
spends all of ``alpha`` on one tail: for the Gaussian mechanism at (1, 1e-5) and 1e6 runs per
dataset the best single event gives a bound of about 0.82 instead of 0.76.

*Inversion.* ``epsilon_lower`` is the largest point ``g`` of the fixed grid
``{0, 0.001, 0.002, ...}`` such that the test rejects at every grid point ``<= g`` (0 if it does
not reject at 0). If the event's true value is ``eps* = ln((p - delta)/q)``, let ``g1`` be the
smallest grid point ``>= eps*``; the claim holds at ``g1``, and ``epsilon_lower >= eps*`` implies
a rejection at ``g1``, so ``P[epsilon_lower >= eps*] <= alpha``: a lower confidence bound,
without any monotonicity of the p-values in ``eps``.

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
    "EPSILON_STEP",
    "poisson_arrivals",
    "poisson_pvalue",
    "poisson_point_bound",
    "projected_point_bound",
    "normal_quantile",
    "runs_for_point",
    "runs_for_profile",
    "runs_for_gaussian",
    "runs_for_laplace",
    "cdf_band",
    "BANDS",
    "TAIL_SHARE",
]

#: Relative outward rounding applied to Clopper-Pearson bounds (floating-point safety margin).
OUTWARD = 1e-12

#: Spacing of the epsilon grid on which the point test is inverted.
EPSILON_STEP = 0.001
#: Largest epsilon of that grid.
EPSILON_MAX = 64.0
#: Grid points per block of :func:`poisson_point_bound`'s inversion (an epsilon range of 2).
_GRID_BLOCK = 2000
#: Relative safety margin on computed binomial tails. SciPy's ``bdtrc`` loses relative accuracy
#: roughly in proportion to the counts: compared with exact mpmath sums it under-estimates the
#: tail by up to 4e-9 (relative) at counts near 1e6 (``tests/audits/test_stats.py``), so the old
#: margin 1e-9 was on the unsafe side there. 1e-6 covers counts up to about 1e8 at that rate,
#: beyond what :func:`audits.privacy.audit_privacy`'s memory bound allows, and moves no verdict:
#: a p-value 1e-6 (relative) larger changes no bound by more than one grid step.
TAIL_MARGIN = 1e-6

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


#: Simultaneous bands around an empirical distribution function (profile mode): ``weighted`` (the
#: default: DKW intersected with order-statistic bounds, tight in the tails) or plain ``dkw``.
BANDS = ("weighted", "dkw")
#: Share of a weighted band's level spent on its order-statistic (tail) bounds; the DKW part gets
#: the rest. Small, because the DKW part decides near probability 1/2, where a noise-scale bug
#: shows most (a share of 1/2 measured 20/60 detections against the DKW band's 24/60 for the
#: Gaussian x0.9 at 1e5 runs, benchmarks/bench_profile_bands.py), while the tail bounds depend
#: on their level only logarithmically.
TAIL_SHARE = 0.1


def cdf_band(n, level, kind="weighted", counts=None) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous band on the probabilities of the threshold events of ``n`` iid values.

    Returns ``(lower, upper)``, arrays over counts ``c = 0, ..., n`` (or over the given
    ``counts`` only: the same values, without the O(n) work at large ``n``): with probability at least
    ``1 - level``, *every* event ``S = {T <= t}`` or ``S = {T > t}`` (every ``t`` at once) that
    holds ``c`` of the values has ``lower[c] <= P(S) <= upper[c]``. Valid for every law of ``T``,
    atoms included.

    * ``"dkw"``: ``c/n -+ r``, ``r =`` :func:`dkw_radius` ``(n, level)`` (Massart's constant).
    * ``"weighted"``: that band at level ``(1 - s) level``, intersected with order-statistic
      bounds at level ``s level`` (``s =`` :data:`TAIL_SHARE`): ``lower[c]`` is the
      Clopper-Pearson lower bound of ``c`` of ``n`` at level ``s level/(2n)``, ``upper[c]`` the
      upper one. In the tails, where the DKW radius is larger than the probabilities
      themselves, these are far tighter; in the middle the DKW part decides, at a radius 0.5%
      wider than at ``level`` (suite alphas).

    Proof for ``"weighted"``. Write ``T_i = F^{-1}(U_i)`` with ``U_i`` iid uniform, so the order
    statistics satisfy ``F(T_(i)) >= U_(i)`` and ``F(T_(i)-) <= U_(i)``. An event ``{T <= t}``
    holding ``c`` values has ``T_(c) <= t < T_(c+1)``, so ``U_(c) <= F(t) <= U_(c+1)``. ``U_(c)``
    is ``Beta(c, n - c + 1)``, whose ``lambda``-quantile is the Clopper-Pearson lower bound of
    ``c`` at level ``lambda``; ``U_(c+1)`` is ``Beta(c + 1, n - c)``, whose ``(1 - lambda)``-quantile
    is the upper bound. With ``lambda = s level/(2n)`` for each of the ``2n`` events ``U_(i) <
    a_i``, ``U_(i) > b_i``, all hold except with probability ``s level``; the complement ``{T >
    t}`` holding ``c`` values gets the same bounds by the symmetry of the Beta laws. Add the DKW
    band's ``(1 - s) level`` (union bound).
    """
    n = validate.integer("n", n, minimum=1)
    level = _level(level)
    kind = validate.choice("kind", kind, set(BANDS))
    c = np.arange(n + 1, dtype=float) if counts is None else np.asarray(counts, dtype=float)
    r = dkw_radius(n, level if kind == "dkw" else (1 - TAIL_SHARE) * level)
    lower, upper = np.clip(c / n - r, 0.0, 1.0), np.clip(c / n + r, 0.0, 1.0)
    if kind == "weighted":
        lam = TAIL_SHARE * level / (2 * n)
        lower = np.maximum(lower, clopper_pearson_lower(c, n, lam))
        upper = np.minimum(upper, clopper_pearson_upper(c, n, lam))
    return lower, upper


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


def poisson_arrivals(m, delta, *, rng) -> np.ndarray:
    """Sorted arrival times of a unit-rate Poisson process on ``[0, m delta]`` (see the module
    docstring): ``B(eps)`` is the number of arrivals ``<= m delta e^-eps``."""
    length = float(m) * float(delta)
    if length <= 0:
        return np.zeros(0)
    return np.sort(rng.uniform(0.0, length, size=int(rng.poisson(length))))


def _pi0(eps: np.ndarray) -> np.ndarray:
    # e^eps / (1 + e^eps), nudged up one ulp: a larger null proportion only raises the p-value.
    return np.nextafter(special.expit(eps), 1.0)


def poisson_pvalue(k_p, k_q, b, *, epsilon):
    """Conditional p-value ``P[Bin(k_p + k_q + b, e^eps/(1 + e^eps)) >= k_p]`` (module docstring).

    Parameters
    ----------
    k_p, k_q : int or array_like
        Poisson counts of the event on the dataset whose probability the claim bounds, and on
        the other dataset.
    b : int or array_like
        The auditor's ``Poisson(m delta e^-eps)`` count (0 when ``delta = 0``).
    epsilon : float or array_like
        Where the claim is tested (broadcast with the counts).

    Returns
    -------
    float or ndarray
        Rounded up by a relative :data:`TAIL_MARGIN`; 1 where ``k_p = 0``.
    """
    k_p = np.asarray(k_p, dtype=float)
    total = k_p + np.asarray(k_q, dtype=float) + np.asarray(b, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    with np.errstate(all="ignore"):
        # integer arguments: SciPy deprecates (warns on) float k and n, and the counts are integers
        pv = special.bdtrc(np.maximum(k_p - 1.0, 0.0).astype(np.int64), total.astype(np.int64), _pi0(eps))
    pv = np.where(k_p > 0, np.minimum(1.0, pv * (1.0 + TAIL_MARGIN)), 1.0)
    return float(pv) if pv.ndim == 0 else pv


def poisson_point_bound(k_p, k_q, m, *, delta=0.0, alpha, arrivals) -> float:
    """Lower confidence bound on epsilon from Poisson counts of one event (module docstring).

    Parameters
    ----------
    k_p, k_q : int
        Counts of the event on the dataset whose probability the claim bounds and on the other,
        from ``Poisson(m)`` runs each.
    m : float
        Mean number of runs per dataset (the Poisson parameter), ``>= 1``.
    delta : float
        Claimed delta in [0, 1).
    alpha : float
        Error level: ``P[epsilon_lower >= eps*] <= alpha`` for the event's true
        ``eps* = ln((p - delta)/q)``.
    arrivals : ndarray
        :func:`poisson_arrivals` for ``(m, delta)``, independent of the counts.

    Returns
    -------
    float
        The largest grid point (spacing :data:`EPSILON_STEP`, up to :data:`EPSILON_MAX`) below
        which the test rejects at every grid point; 0 if it does not reject at 0.
    """
    delta = validate.delta(delta, allow_zero=True)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    m = _trials(m)
    k_p = validate.integer("k_p", k_p, minimum=0)
    k_q = validate.integer("k_q", k_q, minimum=0)
    arrivals = np.asarray(arrivals, dtype=float)
    if k_p == 0:
        return 0.0
    grid = np.arange(int(round(EPSILON_MAX / EPSILON_STEP)) + 1) * EPSILON_STEP
    # Block by block from eps = 0, stopping at the first grid point not rejected: the bound is
    # the point before it. (The whole grid is 64001 p-values; the bound is usually a few units,
    # within the first block or two. The p-values are elementwise, so the blocks give the
    # values the whole grid would.)
    for start in range(0, grid.size, _GRID_BLOCK):
        here = grid[start:start + _GRID_BLOCK]
        b = np.searchsorted(arrivals, m * delta * np.exp(-here), side="right")
        rejected = poisson_pvalue(k_p, k_q, b, epsilon=here) <= alpha
        if not rejected.all():
            first = start + int(np.argmin(rejected))
            return 0.0 if first == 0 else float(grid[first - 1])
    return float(grid[-1])


def projected_point_bound(p, q, m, *, delta=0.0, alpha, tolerance=1e-6, best_only=False):
    """What :func:`poisson_point_bound` would give if the event frequencies were ``p`` and
    ``q`` at mean sample size ``m``: a smooth version for ranking candidate events.

    The counts are replaced by their means (fractional: the binomial tail is the regularised
    incomplete beta function, which extends to real arguments) and ``B`` by its mean
    ``m delta e^-eps``. For fixed ``B`` the largest ``eps`` where the tail is at most ``alpha``
    is ``logit`` of the Clopper-Pearson-type quantile ``I^{-1}(alpha; k_p, k_q + B + 1)`` (one
    inverse incomplete beta, no search); ``B`` depends on ``eps`` only when ``delta > 0``, and
    then the root lies between the values at ``B = m delta`` (``eps = 0``) and at ``B = 0``,
    where it is found by bisection to ``tolerance``. Arrays over candidates; ``-1`` where not
    even ``eps = 0`` is rejected; at most 30. Used only to choose the event, never for a
    verdict.

    ``best_only=True`` (the event choice, which needs only the largest entry and its index):
    candidates whose bound cannot reach the largest are not bisected and get ``-1``; every other
    entry is the one ``best_only=False`` gives, bit for bit. A candidate's bound lies between its
    root at ``B = m delta`` and its root without ``B``; one whose root without ``B`` is below the
    largest root at ``B = m delta`` (over candidates with ``kp >= 1`` and a root at least 0)
    cannot be the largest. The root without ``B`` is first bounded by a cheap ceiling
    (:func:`_quantile_ceiling`) and computed only where the ceiling reaches that largest root or
    the bracket might be among the widest. The bisection runs until the widest bracket is within
    ``tolerance``, so the brackets within a relative 1e-4 of the widest are always kept: the
    number of halvings, and hence every kept entry, is unchanged (benchmarks/bench_design.py:
    design simulations 2.4-4.5x faster, same powers).
    """
    delta = validate.delta(delta, allow_zero=True)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    m = _trials(m)
    kp = np.atleast_1d(np.asarray(p, dtype=float)) * m
    kq = np.atleast_1d(np.asarray(q, dtype=float)) * m
    a = np.maximum(kp, 1e-300)

    def at_fixed_b(b, at=slice(None)):
        with np.errstate(all="ignore"):
            return special.logit(special.betaincinv(a[at], np.maximum(kq[at] + b + 1.0, 1e-300), alpha))

    lo = at_fixed_b(m * delta)  # B at its largest (eps = 0): the root is at least this ...
    out = lo.copy()
    if delta > 0:
        hi = np.full(lo.shape, np.nan)
        if best_only:
            with np.errstate(invalid="ignore"):
                sure = np.where((kp >= 1.0) & (lo >= 0), np.minimum(lo, 30.0), -1.0)
            floor = float(np.max(sure))  # the largest entry is at least this
            ceiling = _quantile_ceiling(a, kq + 1.0, alpha)  # hi is at most this (cheap)
            known = ceiling >= floor
            hi[known] = at_fixed_b(0.0, known)
            widths = np.where(hi - lo > tolerance, hi - np.maximum(lo, 0.0), 0.0)
            widest = float(np.max(widths, initial=0.0, where=known & (hi > 0)))
            # the others are below the floor; those that might be among the widest brackets
            # (which set the number of halvings) are computed too
            more = ~known & (ceiling - np.maximum(lo, 0.0) >= (1.0 - 1e-4) * widest)
            hi[more] = at_fixed_b(0.0, more)
            known |= more
            out[~known] = -1.0
        else:
            hi = at_fixed_b(0.0)  # ... and at most the root without B
        with np.errstate(invalid="ignore"):
            todo = np.flatnonzero((hi - lo > tolerance) & (hi > 0))
        if best_only and todo.size:
            width = hi[todo] - np.maximum(lo[todo], 0.0)
            keep = (hi[todo] >= floor) | (width >= (1.0 - 1e-4) * np.max(width))
            out[todo[~keep]] = -1.0
            todo = todo[keep]
        if todo.size:
            left, right = np.maximum(lo[todo], 0.0), hi[todo]
            kpt, kqt = kp[todo], kq[todo]

            def rejects(eps):
                total = kpt + kqt + m * delta * np.exp(-eps)
                with np.errstate(all="ignore"):
                    tail = special.betainc(np.maximum(kpt, 1e-300), np.maximum(total - kpt + 1.0, 1e-300),
                                           special.expit(eps))
                return tail <= alpha

            while np.any(right - left > tolerance):
                mid = 0.5 * (left + right)
                r = rejects(mid)
                left, right = np.where(r, mid, left), np.where(r, right, mid)
            out[todo] = np.where(rejects(left), left, np.where(lo[todo] >= 0, lo[todo], -1.0))
    out = np.minimum(np.nan_to_num(out, nan=-1.0), 30.0)
    return np.where((kp >= 1.0) & (out >= 0), out, -1.0)


def _quantile_ceiling(a, b, alpha):
    """An upper bound on ``logit(I^{-1}(alpha; a, b))`` without the inverse: for ``a, b > 1`` the
    median of ``Beta(a, b)`` lies between its mode ``(a - 1)/(a + b - 2)`` and its mean ``a/(a +
    b)``, and the ``alpha <= 1/4`` quantile is below the median; widened by a relative 1e-9.
    ``inf`` where that does not apply."""
    with np.errstate(all="ignore"):
        top = np.maximum(a / (a + b), (a - 1.0) / (a + b - 2.0)) * (1.0 + 1e-9)
        ceiling = np.where(top < 1.0, special.logit(np.minimum(top, 1.0)), np.inf)
    return np.where((a > 1.0) & (b > 1.0) & (alpha <= 0.25), ceiling, np.inf)


def _grid_point_above(epsilon: float) -> float:
    """The smallest point of the inversion grid strictly above ``epsilon``: a verdict
    ``epsilon_lower > epsilon`` needs a rejection there."""
    return (math.floor(epsilon / EPSILON_STEP + 1e-9) + 1) * EPSILON_STEP


def point_power(p, q, m, *, epsilon, delta=0.0, alpha):
    """Exact power of the point test (:func:`poisson_point_bound`) at fixed events.

    For an event with probabilities ``p`` (the dataset whose probability the claim bounds) and
    ``q`` (the other one), ``Poisson(m)`` runs per dataset: the probability that the test
    rejects at the grid point just above ``epsilon`` (what ``violated`` needs; rejections at the
    grid points below it are then all but certain). ``K_q + B ~ Poisson(m (q + delta
    e^-eps'))`` and, given ``S = K_p + K_q + B = s``, ``K_p ~ Bin(s, p / (p + q + delta
    e^-eps'))``, so the power is ``sum_s P[S = s] P[Bin(s, pi_1) >= k*(s)]`` with ``k*(s)``
    the smallest count the test rejects (computed with the test's own p-value function,
    margin included). Summed over ``s`` within ``lambda -+ (10 sqrt(lambda) + 10)``: every
    ``s`` while ``lambda < 6400`` (exact up to the truncation), beyond that every
    ``floor(sqrt(lambda)/40)``-th term times that step (a Riemann sum of a smooth summand;
    checked against the full sum in the tests).

    Parameters
    ----------
    p, q : float or array_like
        Event probabilities (same shape).
    m : float
        Mean test runs per dataset.
    epsilon, delta, alpha : float
        The claim and the test's level.

    Returns
    -------
    float or ndarray
    """
    from scipy import stats as sps

    epsilon = validate.epsilon(epsilon)
    delta = validate.delta(delta, allow_zero=True)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    m = _trials(m)
    p_arr = np.atleast_1d(np.asarray(p, dtype=float))
    q_arr = np.atleast_1d(np.asarray(q, dtype=float))
    if p_arr.shape != q_arr.shape:
        raise ParameterError(f"p {p_arr.shape} and q {q_arr.shape} must have the same shape")
    eps1 = _grid_point_above(epsilon)
    pi0 = float(_pi0(np.asarray(eps1)))
    out = np.zeros(p_arr.shape)
    terms = []  # (index, s, step, lambda, pi_1) of every event with something to sum
    for i, (pi, qi) in enumerate(zip(p_arr.ravel(), q_arr.ravel())):
        qq = qi + delta * math.exp(-eps1)
        lam = m * (pi + qq)
        if pi <= 0 or lam <= 0:
            continue
        width = 10.0 * math.sqrt(lam) + 10.0
        # every s up to lambda ~ 6400; beyond, every step-th s with its term times step (the
        # summand is smooth in s there: a Riemann sum over about 800 points)
        step = max(1, int(math.sqrt(lam) / 40.0))
        s = np.arange(max(0, int(lam - width)), int(lam + width) + 2, step)
        terms.append((i, s, step, lam, pi / (pi + qq)))
    if terms:
        # k*(s) depends on s alone (and the claim and alpha): found once for all events
        s_all = np.unique(np.concatenate([t[1] for t in terms])).astype(float)
        k_all = _smallest_rejected(s_all, eps1, pi0, alpha)
        for i, s, step, lam, pi1 in terms:
            k = k_all[np.searchsorted(s_all, s)]
            weight = sps.poisson.pmf(s, lam) * step
            out.flat[i] = float(np.sum(weight * np.where(k <= s, sps.binom.sf(k - 1.0, s, pi1), 0.0)))
    return float(out[0]) if np.ndim(p) == 0 and np.ndim(q) == 0 else out.reshape(p_arr.shape)


def _smallest_rejected(s, eps1, pi0, alpha):
    """``k*(s)``: the smallest count ``K_p`` of ``s`` that the point test rejects at ``eps1``
    (``s + 1`` where none is)."""
    with np.errstate(all="ignore"):  # a continuous inverse of the binomial CDF, then ...
        k = np.ceil(np.nan_to_num(special.bdtrik(1.0 - alpha, s, pi0), nan=0.0)) + 1.0
    k = np.clip(k, 1.0, s + 1.0)
    # ... the test's own p-values decide
    for _ in range(2):
        k = np.where((k <= s) & (poisson_pvalue(k, s - k, 0, epsilon=eps1) > alpha), k + 1.0, k)
        lower = np.maximum(k - 1.0, 1.0)
        k = np.where((k > 1.0) & (poisson_pvalue(lower, s - lower, 0, epsilon=eps1) <= alpha), lower, k)
    return k


def normal_quantile(prob: float) -> float:
    """Standard normal quantile ``Phi^{-1}(prob)``."""
    prob = validate.interval("prob", prob, 0.0, 1.0, closed="neither")
    return float(special.ndtri(prob))


def _power(power) -> float:
    return validate.interval("power", power, 0.0, 1.0, closed="neither")


def runs_for_point(p, q, *, epsilon, delta=0.0, alpha, power=0.9,
                   selection_fraction=SELECTION_FRACTION, thresholds=False) -> int:
    """Runs per dataset for the point-mode audit to refute ``(epsilon, delta)`` with ``power``.

    ``p`` and ``q`` are arrays over candidate events: the probabilities of each event on the
    dataset whose probability the claim bounds and on the other one.

    * ``thresholds=False`` (separate candidates: a single event, or the values of a discrete
      output): the test runs ``m`` are the smallest for which the *exact* power of the test at
      the best candidate (:func:`point_power`) reaches ``power``, found by bisection from the
      normal approximation ``m ~ (z_{1-alpha} + z_power)^2 v / g^2`` (``g = p - delta - e^eps
      q``, ``v = p + e^{2 eps} q + e^eps delta``); the result is ``m / (1 - selection_fraction)``
      rounded up. This assumes the selection finds the best candidate, which holds for a few
      well-separated candidates (measured by ``benchmarks/bench_audit_power.py``).
    * ``thresholds=True``: ``p`` and ``q`` are the survival functions ``P_D[T > t]`` and
      ``P_D'[T > t]`` of one scalar statistic at increasing thresholds; the selection among its
      thresholds is simulated (:func:`audits.design.runs_for_thresholds`), because the power
      at a threshold the selection runs only roughly locate is below the power at the best one.

    Raises
    ------
    ParameterError
        If no event has ``p - delta > e^epsilon q``: the bug is invisible to this claim.
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
    if thresholds:
        from audits import design

        return design.runs_for_thresholds(p, q, epsilon=epsilon, delta=delta, alpha=alpha, power=power,
                                          selection_fraction=selection_fraction)
    c = math.exp(epsilon)
    gap = p - delta - c * q
    ok = (gap > 0) & (q >= 0) & (p <= 1)
    if not np.any(ok):
        raise ParameterError(
            f"no event has p - delta > e^epsilon q at epsilon ({epsilon!r}): the bug cannot be "
            "detected by this (epsilon, delta) claim"
        )
    var = p + c * c * q + c * delta
    z = normal_quantile(1 - alpha) + normal_quantile(power)
    need = np.full(p.shape, np.inf)
    need[ok] = z * z * var[ok] / gap[ok] ** 2
    # The exact power decides, at the few candidates the normal approximation ranks best.
    best = np.argsort(need, kind="stable")[:4]
    best = best[np.isfinite(need[best])]

    def achieved(m):
        return float(np.max(point_power(p[best], q[best], max(m, 1.0), epsilon=epsilon, delta=delta,
                                        alpha=alpha)))

    low, high = 0.0, max(float(need[best[0]]), 1.0)
    while achieved(high) < power:
        low, high = high, 1.5 * high
        if high > 1e13:
            raise ParameterError("no run count up to 1e13 reaches the power at these events")
    while high - low > max(1.0, 1e-3 * high):
        mid = 0.5 * (low + high)
        low, high = (low, mid) if achieved(mid) >= power else (mid, high)
    return int(math.ceil(math.ceil(high) / (1.0 - selection_fraction) - 1e-9))


def runs_for_profile(p, q, bound, slope, *, alpha, power=0.9, band="weighted") -> int:
    """Runs per dataset for the profile-mode (band) test to flag a bug with ``power``.

    Arrays over thresholds ``t``: ``p = P_D(S_t)``, ``q = P_D'(S_t)``, ``bound = B(q)`` the
    largest ``P_D(S_t)`` the claimed profile allows, ``slope = B'(q)``. The design uses the DKW
    part of each band (:func:`cdf_band`), of radius ``r = sqrt(ln(L/alpha) / (2n))`` with ``L =
    4/(1 - s)`` for the weighted band (level ``(1 - s) alpha/2``, ``s =`` :data:`TAIL_SHARE`) and
    ``L = 4`` for ``band="dkw"`` (level ``alpha/2``); the order-statistic part of the weighted band can only add power. The test
    flags when ``p_hat - r > B(q_hat + r)``. Linearising ``B`` at ``q``, power ``power`` needs

        sqrt(n) >= (sqrt(ln(L/alpha)/2) (1 + slope) + z_power sqrt(p(1-p) + slope^2 q(1-q)))
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
    band = validate.choice("band", band, set(BANDS))
    levels = 4.0 / (1 - TAIL_SHARE) if band == "weighted" else 4.0
    c = math.sqrt(math.log(levels / alpha) / 2.0)
    need = ((c * (1 + slope) + zp * np.sqrt(p * (1 - p) + slope**2 * q * (1 - q)))
            / np.where(ok, gap, 1.0)) ** 2
    return int(math.ceil(float(np.min(need[ok]))))


def _factor(factor) -> float:
    return validate.interval("factor", factor, 0.0, 1.0, closed="neither")


def runs_for_gaussian(*, sigma, sensitivity=1.0, factor, alpha, power=0.9, mode="profile",
                      epsilon=None, delta=None, selection_fraction=SELECTION_FRACTION, band="weighted") -> int:
    """Runs per dataset to flag a Gaussian mechanism whose noise is ``factor * sigma``.

    The claim is the one of the correctly calibrated mechanism (noise ``sigma`` for an l2
    ``sensitivity``). In units of the actual noise, the two output laws are ``N(0, 1)`` and
    ``N(mu1, 1)``, ``mu1 = sensitivity / (factor sigma)``, and a threshold event ``{X > x}``
    has ``q = Phi(-x)``, ``p = Phi(mu1 - x)``.

    * ``mode="profile"``: the claimed profile is the Gaussian trade-off curve with
      ``mu0 = sensitivity / sigma``, under which the largest allowed ``p`` is
      ``B(q) = Phi(mu0 - x)`` with slope ``B'(q) = exp(mu0 x - mu0^2 / 2)``
      (:func:`runs_for_profile`, with ``band``).
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
        return runs_for_profile(p[keep], q[keep], bound[keep], slope[keep], alpha=alpha, power=power, band=band)
    if epsilon is None or delta is None:
        raise ParameterError("mode 'point' needs epsilon and delta")
    return runs_for_point(p, q, epsilon=epsilon, delta=delta, alpha=alpha, power=power,
                          selection_fraction=selection_fraction, thresholds=True)


def runs_for_laplace(*, scale, sensitivity=1.0, factor, epsilon, alpha, power=0.9,
                     selection_fraction=SELECTION_FRACTION) -> int:
    """Runs per dataset to refute ``epsilon``-DP for Laplace noise of scale ``factor * scale``.

    Output laws ``Lap(0, b)`` and ``Lap(sensitivity, b)`` with ``b = factor * scale``; events
    ``{X <= t}``, ``t <= 0``, have the exact ratio ``exp(sensitivity / b)``. The released value
    is the statistic: its thresholds are a threshold family, and the run count is the one at
    which the audit, its selection simulated, reaches ``power``
    (:func:`runs_for_point` with ``thresholds=True``, ``delta = 0``).
    """
    scale = validate.positive("scale", scale)
    sensitivity = validate.positive("sensitivity", sensitivity)
    factor = _factor(factor)
    b = factor * scale
    t = np.linspace(-20.0 * b, sensitivity + 20.0 * b, 4001)

    def cdf(x, loc):
        z = (x - loc) / b
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1 - 0.5 * np.exp(-np.maximum(z, 0.0)))

    # survival functions P[X > t] of the two laws: a threshold family (selection simulated)
    return runs_for_point(1.0 - cdf(t, sensitivity), 1.0 - cdf(t, 0.0), epsilon=epsilon, delta=0.0,
                          alpha=alpha, power=power, selection_fraction=selection_fraction,
                          thresholds=True)
