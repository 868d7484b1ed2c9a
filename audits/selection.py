"""Threshold events of a scalar statistic, and their choice on the selection runs (point mode).

An event is ``{T > t}`` or ``{T <= t}`` for a statistic ``T`` and a threshold ``t``, read in one
of two directions: ``dataset`` (the claim bounds ``P[M(D) in S]`` by ``e^eps P[M(D') in S] +
delta``) or ``neighbour`` (the same with the datasets swapped). :func:`select_event` ranks every
candidate by the bound the point test would give at the test sample size if the selection
frequencies held (:func:`audits.stats.projected_point_bound`), after shrinking the frequencies
to one-sided Clopper-Pearson bounds at level :data:`SHRINK` (the winner's curse: among
thousands of candidates, plain frequencies let tail events that happened to look good win).
The choice depends on the selection runs only, which is what keeps the test's error rate
(:mod:`audits.privacy`).
"""

from __future__ import annotations

import numpy as np

from audits import stats

__all__ = ["MAX_CANDIDATES", "SHRINK", "candidates", "event_counts", "select_event",
           "select_among", "count", "describe_event"]

#: Candidate thresholds scored on the selection runs in point mode.
MAX_CANDIDATES = 2048
#: Level of the one-sided bounds that shrink selection frequencies before projection.
SHRINK = 0.05


def candidates(values: np.ndarray) -> np.ndarray:
    """Thresholds: all pooled values, or a subset dense in rank near both tails."""
    v = np.unique(values)
    n = v.size
    if n <= MAX_CANDIDATES:
        return v
    half = MAX_CANDIDATES // 3
    ranks = np.unique(np.concatenate([
        np.round(np.geomspace(1, n / 2, half)).astype(int) - 1,
        n - np.round(np.geomspace(1, n / 2, half)).astype(int),
        np.round(np.linspace(0, n - 1, MAX_CANDIDATES - 2 * half)).astype(int),
    ]))
    return v[np.clip(ranks, 0, n - 1)]


def event_counts(t_d_sorted, t_n_sorted, thresholds):
    """Counts of the four event types at each threshold: dict (direction, side) -> (k_p, k_q)."""
    n_d, n_n = t_d_sorted.size, t_n_sorted.size
    le_d = np.searchsorted(t_d_sorted, thresholds, side="right")
    le_n = np.searchsorted(t_n_sorted, thresholds, side="right")
    gt_d, gt_n = n_d - le_d, n_n - le_n
    return {
        ("dataset", ">"): (gt_d, gt_n),
        ("dataset", "<="): (le_d, le_n),
        ("neighbour", ">"): (gt_n, gt_d),
        ("neighbour", "<="): (le_n, le_d),
    }


def select_event(t_sd, t_sn, m, *, delta, alpha):
    """Choose ``(threshold, side, direction)`` on selection statistics by the projected bound.

    Returns the choice and its projected bound (``-1`` when no candidate is rejected even at
    ``eps = 0``).
    """
    ns = t_sd.size
    thresholds = candidates(np.concatenate([t_sd, t_sn]))
    counts = event_counts(np.sort(t_sd), np.sort(t_sn), thresholds)
    keys = list(counts)
    k_p = np.concatenate([counts[k][0] for k in keys])
    k_q = np.concatenate([counts[k][1] for k in keys])
    # Selection frequencies, shrunk to one-sided bounds at level SHRINK so that an event seen a
    # handful of times cannot look better than it is, projected to m runs (all four kinds of
    # event at once; ties go to the first, in the order of event_counts).
    p_sel = stats.clopper_pearson_lower(k_p, ns, SHRINK)
    q_sel = stats.clopper_pearson_upper(k_q, ns, SHRINK)
    bound = stats.projected_point_bound(p_sel, q_sel, m, delta=delta, alpha=alpha)
    j = int(np.argmax(bound))
    direction, side = keys[j // thresholds.size]
    return (float(thresholds[j % thresholds.size]), side, direction), float(bound[j])


def select_among(statistics, sel_d, sel_n, m, *, delta, alpha):
    """The best ``(statistic, (threshold, side, direction), projected bound)`` over several
    statistics (each applied to the selection outputs ``sel_d`` and ``sel_n``); the first wins
    ties, so a family's leading statistic is kept unless another one is strictly better."""
    best = None
    for st in statistics:
        choice, bound = select_event(st.apply(sel_d), st.apply(sel_n), m, delta=delta, alpha=alpha)
        if best is None or bound > best[2]:
            best = (st, choice, bound)
    return best


def count(t, threshold, side) -> int:
    """How many of the statistic values ``t`` fall in the event."""
    return int(np.count_nonzero(t > threshold if side == ">" else t <= threshold))


def describe_event(threshold, side, direction, st) -> str:
    """One line: the event in the statistic's terms and the direction of the claim tested."""
    other = "neighbour" if direction == "dataset" else "dataset"
    rel = f"P[{direction}] vs e^eps P[{other}] + delta"
    if st.describe is not None:
        return f"{st.describe(threshold, side)}; {rel}"
    return f"T {side} {threshold:.6g}; {rel}"
