r"""Profile mode of :func:`audits.privacy.audit_privacy`: simultaneous bands around both empirical
distribution functions of the statistic (:func:`audits.stats.cdf_band`: DKW-Massart, by default
intersected with order-statistic bounds that are tight in the tails), against the claimed bound
``B(a)`` of a declared privacy profile (the proof is in :mod:`audits.privacy`, "Profile mode").

How close the claim came: the profile scale
-------------------------------------------
A verdict alone does not say whether a claim that holds was nearly refuted. The *profile scale*
``c*`` does. For ``c >= 0`` let the *scaled claim* be

    B_c(a) = Phi(Phi^{-1}(a) + c (Phi^{-1}(B(a)) - Phi^{-1}(a))),

the claim with its allowance, measured on the probit scale, multiplied by ``c``: ``B_1 = B``,
``B_0(a) = a`` (perfect privacy), and ``B_c`` grows with ``c``. For a Gaussian claim (the
trade-off ``B(a) = Phi(Phi^{-1}(a) + mu)`` of Gaussian noise ``sigma``) ``B_c`` is exactly the
Gaussian claim for noise ``sigma / c``; for other claims it scales the probit allowance event by
event. For ``c <= 1``, ``B_c`` is nondecreasing in ``a`` (a mixture, on the probit scale, of the
nondecreasing ``Phi^{-1}(a)`` and ``Phi^{-1}(B(a))``).

``profile_scale = c*`` is the largest ratio, over the threshold events, of the probit distance the
bands show to the one the claim allows at the event's upper bound::

    c_e = (Phi^{-1}(L) - Phi^{-1}(U)) / (Phi^{-1}(B(U)) - Phi^{-1}(U))      (0 if L <= U or B(U) = 1)

with ``L = lower_p``, ``U = upper_q``: the largest ``c`` with ``L > B_c(U)``.
``profile_margin = c* - 1``.

* *What it means.* With confidence ``1 - alpha`` (the same bands as the verdict; no extra
  alpha), the mechanism violates every scaled claim with ``c < min(c*, 1)``: if the bands hold,
  ``P >= L > B_c(U) >= B_c(Q)`` since ``B_c`` is nondecreasing. So ``min(c*, 1)`` is a lower
  confidence bound on the true scale ``c_true``, the smallest ``c <= 1`` whose scaled claim the
  mechanism meets on threshold events of the statistic. For Gaussian noise ``sigma'`` audited
  against the Gaussian claim of ``sigma``, ``c_true = sigma / sigma'`` (for ``sigma' >= sigma``).
  Beyond 1 the scaled curves of a general claim need not be nondecreasing (for a claim with
  ``B(0) > 0`` they tend to 1 as ``a -> 0``), so there ``c*`` is only the ratio shown by the
  refuting event; for the Gaussian claim it is still a lower bound on ``sigma / sigma'``.
* *Reading it.* ``c* > 1`` (margin ``> 0``) exactly when the profile is refuted (the same exact
  ``B`` decides both). A claim that holds with ``c* = 0.95`` came within 5% (of its probit
  allowance) of being refuted; ``c* = 0.5`` means the data refute only claims that allow half
  the probit distance or less.
* *Runs to decide* (``profile_runs_to_refute``, approximate): if the profile is not refuted,
  the smallest run count, up to :data:`MAX_PROJECTION` times the band runs, at which the DKW part
  of the band would refute it if the event probabilities were the corners of a band at 50%
  confidence around the observed frequencies (:func:`runs_to_refute`): an extrapolation (the
  radius shrinks as ``1/sqrt(runs)``), not a power calculation; ``None`` when even that many runs
  would not, which for a mechanism that meets the claim happens with probability at least 1/2.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from audits import selection, stats
from audits.claims import ClaimBound

__all__ = ["profile_test", "profile_test_counts", "curve_points", "profile_scale", "runs_to_refute", "MAX_EXACT",
           "MAX_PROJECTION"]

#: Largest number of threshold events whose claimed bound is evaluated exactly.
MAX_EXACT = 4096
#: Largest multiple of the band runs that ``runs_to_refute`` extrapolates to.
MAX_PROJECTION = 1000.0


def profile_test(t_d, t_n, bound: ClaimBound, st, n_sel: int, common, result_type, band="weighted", alpha=None,
                 extra=None):
    """The band test of profile mode on band statistics ``t_d``, ``t_n`` (one per run), each band
    at level ``alpha/2`` (``alpha``: the share of the audit's level the bands spend, default all of
    it; ``band``: a kind of :func:`audits.stats.cdf_band`); ``result_type`` builds the result
    (``audits.privacy.AuditResult``). Every distinct value is a threshold. Also computes the
    profile scale (module docstring)."""
    thresholds = np.unique(np.concatenate([t_d, t_n]))
    le_d = np.searchsorted(np.sort(t_d), thresholds, side="right")
    le_n = np.searchsorted(np.sort(t_n), thresholds, side="right")
    return profile_test_counts(thresholds, le_d, le_n, t_d.size, bound, st, n_sel, common, result_type, band=band,
                               alpha=alpha, extra=extra)


def profile_test_counts(thresholds, le_d, le_n, n: int, bound: ClaimBound, st, n_sel: int, common, result_type,
                        band="weighted", alpha=None, extra=None):
    """:func:`profile_test` from counts: ``le_d[j]``, ``le_n[j]`` of the ``n`` band values per
    dataset at or below sorted ``thresholds[j]``. The bands hold for every threshold at once, so
    the test is sound for any set of thresholds (:mod:`audits.streaming`). ``extra``: entries
    added to the result's ``counts``."""
    epsilon, delta = common["epsilon"], common["delta"]
    alpha = common["alpha"] if alpha is None else alpha
    r = stats.dkw_radius(n, alpha / 2 if band == "dkw" else (1 - stats.TAIL_SHARE) * alpha / 2)
    counts = selection.counts_at(np.asarray(le_d), np.asarray(le_n), n, n)
    # The band by count (the same for both datasets), at the counts that occur only: at 1e8 runs
    # the whole band would be 1e8 Beta quantiles.
    needed = np.unique(np.concatenate([np.ravel(k) for pair in counts.values() for k in pair]))
    band_lower, band_upper = stats.cdf_band(n, alpha / 2, band, counts=needed)

    def low_at(k):
        return band_lower[np.searchsorted(needed, k)]

    def high_at(k):
        return band_upper[np.searchsorted(needed, k)]

    best_eps = (-1.0, None)  # (eps_lower, (direction, side, index))
    pending = []  # (lower_p, upper_q, key, index) of events that may violate the profile
    for key, (k_p, k_q) in counts.items():
        lo_p, hi_q = low_at(k_p), high_at(k_q)
        with np.errstate(divide="ignore"):
            eps = np.where(lo_p > delta, np.log(np.maximum(lo_p - delta, 1e-300) / hi_q), 0.0)
        j = int(np.argmax(eps))
        if eps[j] > best_eps[0]:
            best_eps = (float(eps[j]), (*key, j))
        # A cheap value of B discards events that cannot violate; the verdict below uses the
        # exact B, evaluated for the largest conservative margins first.
        maybe = np.flatnonzero(lo_p > bound.lower(hi_q))
        if maybe.size:
            pending.append((lo_p[maybe], hi_q[maybe], key, maybe))
    violating = None
    if pending:
        lo = np.concatenate([p[0] for p in pending])
        hi = np.concatenate([p[1] for p in pending])
        which = np.concatenate([np.full(p[3].size, i) for i, p in enumerate(pending)])
        index = np.concatenate([p[3] for p in pending])
        order = np.argsort(-(lo - bound.on_grid(hi)), kind="stable")[:MAX_EXACT]
        margins = lo[order] - bound.exact(hi[order])
        j = int(np.argmax(margins))
        if margins[j] > 0:
            violating = (*pending[which[order[j]]][2], int(index[order[j]]))

    keys = list(counts)
    lower = np.concatenate([low_at(counts[k][0]) for k in keys])
    upper = np.concatenate([high_at(counts[k][1]) for k in keys])
    include = []
    if violating is not None:  # the verdict's event is evaluated exactly, so c* >= 1 with it
        include = [keys.index(violating[:2]) * thresholds.size + violating[2]]
    scale, at = profile_scale(lower, upper, bound, include=include)
    profile_violated = bool(violating is not None or scale > 1.0)
    if profile_violated:  # the same exact B decides both, so this only guards rounding
        scale = max(scale, math.nextafter(1.0, 2.0))
    md, ms = keys[at // thresholds.size]
    mj = at % thresholds.size
    to_refute = None
    if not profile_violated:
        freq_p = np.concatenate([counts[k][0] for k in keys]) / n
        freq_q = np.concatenate([counts[k][1] for k in keys]) / n
        to_refute = runs_to_refute(freq_p, freq_q, n, r, bound)

    eps_lo = max(0.0, best_eps[0])
    point_violated = eps_lo > epsilon
    direction, side, j = best_eps[1]
    k_p, k_q = counts[(direction, side)]
    estimate = stats.point_estimate(int(k_p[j]), int(k_q[j]), n, delta=delta)
    threshold = float(thresholds[j])
    k_d, k_n = (k_p[j], k_q[j]) if direction == "dataset" else (k_q[j], k_p[j])
    result_counts = {"selection_runs": n_sel, "band_runs": n, "band": band, "band_radius": r,
                     "band_alpha": alpha, "dataset": int(k_d), "neighbour": int(k_n),
                     "p_lower": float(low_at(k_p[j])), "q_upper": float(high_at(k_q[j]))}
    result_counts.update(extra or {})
    curve = curve_points(counts, thresholds, n, (low_at, high_at), bound, md, ms)
    event = selection.describe_event(threshold, side, direction, st)
    values = {"status": "tested", "violated": bool(profile_violated or point_violated),
              "epsilon_lower": eps_lo, "epsilon_estimate": estimate, "alpha": alpha,
              "statistic": st.description, "event": event, "profile_violated": profile_violated,
              "point_violated": bool(point_violated), "profile_scale": scale,
              "test": f"simultaneous {band} bands (stats.cdf_band)"}
    return result_type(
        violated=values["violated"], epsilon_lower=eps_lo,
        epsilon_estimate=estimate, mode="profile", statistic=st.description,
        event=event, counts=result_counts,
        profile_violated=profile_violated, profile_margin=scale - 1.0, profile_scale=scale,
        profile_runs_to_refute=to_refute,
        profile_event=selection.describe_event(float(thresholds[mj]), ms, md, st), curve=curve,
        families={"values": values}, refuted_by=("values",) if values["violated"] else (), **common)


def _frontier(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Indices of the events no other event dominates (a smaller or equal ``upper`` with a larger
    or equal ``lower``): a claim ``lower > M(upper)`` with ``M`` nondecreasing that holds for any
    event holds for one of these."""
    order = np.lexsort((-lower, upper))
    lo = lower[order]
    best_before = np.concatenate([[-np.inf], np.maximum.accumulate(lo)[:-1]])
    return order[lo > best_before]


def _probit_ratio(lower, upper, b_upper):
    """``c_e`` of each event for ``c <= 1`` (module docstring); ``inf`` where the claim allows no
    advantage at ``upper`` but the bands show one."""
    with np.errstate(all="ignore"):
        zl, zu = special.ndtri(lower), special.ndtri(upper)
        zb = special.ndtri(np.minimum(b_upper, 1.0))
        num, den = zl - zu, zb - zu
        c = np.where(den > 0, num / den, np.inf)
    c = np.where((num > 0) & np.isfinite(zu) & (zb < np.inf), c, 0.0)
    return np.nan_to_num(c, nan=0.0, posinf=np.inf)


def profile_scale(lower, upper, bound: ClaimBound, include=()) -> tuple[float, int]:
    """``(c*, index)``: the profile scale of events with band bounds ``lower`` (on the dataset
    whose probability the claim bounds) and ``upper`` (on the other one), and the event that
    attains it (module docstring). ``include``: indices whose ``B`` is evaluated exactly in any
    case; the others are ranked with the cheap over-estimate of ``B`` (which can only lower a
    ratio) and the best :data:`MAX_EXACT` evaluated exactly, so ``c*`` is never over-stated."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    front = _frontier(lower, upper)
    cheap = _probit_ratio(lower[front], upper[front], bound.on_grid(upper[front]))
    top = np.unique(np.concatenate([front[np.argsort(-cheap, kind="stable")[:MAX_EXACT]],
                                    np.asarray(include, dtype=np.int64)]))
    c = _probit_ratio(lower[top], upper[top], bound.exact(upper[top]))
    j = int(np.argmax(c))
    return float(c[j]), int(top[j])


def runs_to_refute(freq_p, freq_q, n: int, radius: float, bound: ClaimBound) -> int | None:
    """Approximate runs per dataset at which the bands would refute the claim (module docstring):
    the event frequencies ``freq_p``, ``freq_q`` over ``n`` runs are replaced by their corners in
    the DKW band at level 1/4 per dataset (``L50 = freq_p - r50``, ``U50 = freq_q + r50``: beyond
    the true probabilities, for every event at once, with probability at most 1/2), and the result
    is the smallest ``k n``, ``1 <= k <=`` :data:`MAX_PROJECTION`, for which some event has
    ``L50 - radius/sqrt(k) > B(U50 + radius/sqrt(k))`` (``radius``: the DKW radius of the audit's
    band at ``n`` runs), by bisection on ``log k`` to 1%; ``None`` if there is none. For a
    mechanism that meets the claim it is ``None`` with probability at least 1/2."""
    r50 = stats.dkw_radius(n, 0.25)
    lo50 = np.asarray(freq_p, dtype=float) - r50
    hi50 = np.asarray(freq_q, dtype=float) + r50
    front = _frontier(lo50, hi50)  # shifting both by the radius keeps the order
    lo50, hi50 = lo50[front], hi50[front]

    def refuted(k):
        s = radius / math.sqrt(k)
        lo, hi = np.clip(lo50 - s, 0.0, 1.0), np.clip(hi50 + s, 0.0, 1.0)
        return bool(np.any(lo > bound.on_grid(hi)))

    if not refuted(MAX_PROJECTION):
        return None
    left, right = 0.0, math.log(MAX_PROJECTION)
    while right - left > 0.01:
        mid = 0.5 * (left + right)
        left, right = (left, mid) if refuted(math.exp(mid)) else (mid, right)
    return int(math.ceil(n * math.exp(right)))


def curve_points(counts, thresholds, n, r, bound, direction, side, points=200):
    """Empirical trade-off points (P_q, P_p) with bands and the claimed bound, downsampled.

    ``r``: the band, as a DKW radius or as ``(lower, upper)``: arrays over counts
    (:func:`audits.stats.cdf_band`) or functions of counts."""
    k_p, k_q = counts[(direction, side)]
    idx = np.unique(np.round(np.linspace(0, thresholds.size - 1, min(points, thresholds.size))).astype(int))
    q_hat = k_q[idx] / n
    p_hat = k_p[idx] / n
    a = np.linspace(0.0, 1.0, 201)
    return {
        "direction": direction,
        "side": side,
        "q_hat": q_hat.tolist(),
        "p_hat": p_hat.tolist(),
        "q_upper": (np.clip(q_hat + r, 0, 1) if np.isscalar(r) else _at(r[1], k_q[idx])).tolist(),
        "p_lower": (np.clip(p_hat - r, 0, 1) if np.isscalar(r) else _at(r[0], k_p[idx])).tolist(),
        "claim_a": a.tolist(),
        "claim_bound": np.minimum(1.0, bound.on_grid(a)).tolist(),
    }


def _at(band, k):
    """A band's values at counts ``k``: ``band`` is an array over counts or a function of them."""
    return band(k) if callable(band) else band[k]
