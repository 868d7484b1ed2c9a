"""Profile mode of :func:`audits.privacy.audit_privacy`: simultaneous bands around both empirical
distribution functions of the statistic (:func:`audits.stats.cdf_band`: DKW-Massart, by default
intersected with order-statistic bounds that are tight in the tails), against the claimed bound
``B(a)`` of a declared privacy profile (the proof is in :mod:`audits.privacy`, "Profile mode").
"""

from __future__ import annotations

import numpy as np

from audits import selection, stats
from audits.claims import ClaimBound

__all__ = ["profile_test", "profile_test_counts", "curve_points", "MAX_EXACT"]

#: Largest number of threshold events whose claimed bound is evaluated exactly.
MAX_EXACT = 4096


def profile_test(t_d, t_n, bound: ClaimBound, st, n_sel: int, common, result_type, band="weighted", extra=None):
    """The band test of profile mode on band statistics ``t_d``, ``t_n`` (one per run), each band
    at level ``alpha/2`` (``band``: a kind of :func:`audits.stats.cdf_band`); ``result_type``
    builds the result (``audits.privacy.AuditResult``). Every distinct value is a threshold."""
    thresholds = np.unique(np.concatenate([t_d, t_n]))
    le_d = np.searchsorted(np.sort(t_d), thresholds, side="right")
    le_n = np.searchsorted(np.sort(t_n), thresholds, side="right")
    return profile_test_counts(thresholds, le_d, le_n, t_d.size, bound, st, n_sel, common, result_type, band=band,
                               extra=extra)


def profile_test_counts(thresholds, le_d, le_n, n: int, bound: ClaimBound, st, n_sel: int, common, result_type,
                        band="weighted", extra=None):
    """:func:`profile_test` from counts: ``le_d[j]``, ``le_n[j]`` of the ``n`` band values per
    dataset at or below sorted ``thresholds[j]``. The bands hold for every threshold at once, so
    the test is sound for any set of thresholds (:mod:`audits.streaming`). ``extra``: entries
    added to the result's ``counts``."""
    epsilon, delta, alpha = common["epsilon"], common["delta"], common["alpha"]
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
    best_cheap = (-np.inf, None)  # largest conservative margin, if no event comes near B
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
        elif not pending:
            margin = lo_p - bound.on_grid(hi_q)
            # The empty event and the whole output space say nothing: not reported.
            margin[((k_p == n) & (k_q == n)) | ((k_p == 0) & (k_q == 0))] = -np.inf
            j = int(np.argmax(margin))
            if margin[j] > best_cheap[0]:
                best_cheap = (float(margin[j]), (*key, j))
    if pending:
        lo = np.concatenate([p[0] for p in pending])
        hi = np.concatenate([p[1] for p in pending])
        which = np.concatenate([np.full(p[3].size, i) for i, p in enumerate(pending)])
        index = np.concatenate([p[3] for p in pending])
        order = np.argsort(-(lo - bound.on_grid(hi)), kind="stable")[:MAX_EXACT]
        margins = lo[order] - bound.exact(hi[order])
        j = int(np.argmax(margins))
        best_margin = (float(margins[j]),
                       (*pending[which[order[j]]][2], int(index[order[j]])))
    else:  # nothing comes near the claim: report the largest (negative) conservative margin
        best_margin = best_cheap

    profile_violated = best_margin[0] > 0
    eps_lo = max(0.0, best_eps[0])
    point_violated = eps_lo > epsilon
    direction, side, j = best_eps[1]
    k_p, k_q = counts[(direction, side)]
    estimate = stats.point_estimate(int(k_p[j]), int(k_q[j]), n, delta=delta)
    threshold = float(thresholds[j])
    k_d, k_n = (k_p[j], k_q[j]) if direction == "dataset" else (k_q[j], k_p[j])
    md, ms, mj = best_margin[1]
    result_counts = {"selection_runs": n_sel, "band_runs": n, "band": band, "band_radius": r,
                     "dataset": int(k_d), "neighbour": int(k_n),
                     "p_lower": float(low_at(k_p[j])), "q_upper": float(high_at(k_q[j]))}
    result_counts.update(extra or {})
    curve = curve_points(counts, thresholds, n, (low_at, high_at), bound, md, ms)
    return result_type(
        violated=bool(profile_violated or point_violated), epsilon_lower=eps_lo,
        epsilon_estimate=estimate, mode="profile", statistic=st.description,
        event=selection.describe_event(threshold, side, direction, st), counts=result_counts,
        profile_violated=bool(profile_violated), profile_margin=best_margin[0],
        profile_event=selection.describe_event(float(thresholds[mj]), ms, md, st), curve=curve, **common)


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
