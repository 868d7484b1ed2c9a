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

import functools

import numpy as np

from audits import stats

__all__ = ["MAX_CANDIDATES", "SHRINK", "EVENT_KINDS", "candidate_ranks", "candidates", "pooled_candidates", "at_or_below", "event_counts", "counts_at", "select_event", "choose",
           "select_among", "count", "describe_event"]

#: Candidate thresholds scored on the selection runs in point mode.
MAX_CANDIDATES = 2048
#: Level of the one-sided bounds that shrink selection frequencies before projection.
SHRINK = 0.05
#: The candidate events at each threshold, as (direction, side), in the order that breaks ties.
EVENT_KINDS = (("dataset", ">"), ("dataset", "<="), ("neighbour", ">"), ("neighbour", "<="))


def candidate_ranks(n: int, limit: int = MAX_CANDIDATES) -> np.ndarray:
    """Ranks (0-based, increasing) among ``n`` distinct pooled values that serve as thresholds:
    all of them, or ``limit`` (default :data:`MAX_CANDIDATES`) dense in rank near both tails."""
    if n <= limit:
        return np.arange(n)
    half = limit // 3
    ranks = np.unique(np.concatenate([
        np.round(np.geomspace(1, n / 2, half)).astype(int) - 1,
        n - np.round(np.geomspace(1, n / 2, half)).astype(int),
        np.round(np.linspace(0, n - 1, limit - 2 * half)).astype(int),
    ]))
    return np.unique(np.clip(ranks, 0, n - 1))


def candidates(values: np.ndarray, limit: int = MAX_CANDIDATES) -> np.ndarray:
    """Thresholds: all distinct pooled values, or ``limit`` of them dense in rank near both tails."""
    return _candidates_in_place(np.array(values, dtype=float).reshape(-1), limit)


def _candidates_in_place(pooled: np.ndarray, limit: int) -> np.ndarray:
    """:func:`candidates` of ``pooled``, which it sorts in place. Memory: one byte per value
    besides ``pooled`` (``np.unique`` would take three copies of it: at 1e8 runs the selection
    holds 3e7 values)."""
    pooled.sort()
    distinct = np.empty(pooled.size, dtype=bool)
    distinct[:1] = True
    np.not_equal(pooled[1:], pooled[:-1], out=distinct[1:])
    ranks = candidate_ranks(int(np.count_nonzero(distinct)), limit)
    return pooled[_nth_true(distinct, ranks)]


def _nth_true(mask: np.ndarray, ranks: np.ndarray, block: int = 1 << 20) -> np.ndarray:
    """Positions of the ``ranks``-th (0-based, increasing) True entries of ``mask``, found block
    by block (``np.flatnonzero(mask)[ranks]`` without its 8 bytes per entry)."""
    starts = np.arange(0, mask.size, block)
    before = np.concatenate([[0], np.cumsum([np.count_nonzero(mask[s:s + block]) for s in starts])])
    which = np.searchsorted(before, ranks, side="right") - 1
    out = np.empty(len(ranks), dtype=np.int64)
    for b in np.unique(which):
        here = which == b
        out[here] = starts[b] + np.flatnonzero(mask[starts[b]:starts[b] + block])[ranks[here] - before[b]]
    return out


def event_counts(t_d_sorted, t_n_sorted, thresholds):
    """Counts of the four event types at each threshold: dict (direction, side) -> (k_p, k_q)."""
    le_d = np.searchsorted(t_d_sorted, thresholds, side="right")
    le_n = np.searchsorted(t_n_sorted, thresholds, side="right")
    return counts_at(le_d, le_n, t_d_sorted.size, t_n_sorted.size)


def counts_at(le_d, le_n, n_d: int, n_n: int):
    """:func:`event_counts` from the counts at or below each threshold (``le_d`` of ``n_d``
    values, ``le_n`` of ``n_n``)."""
    gt_d, gt_n = n_d - le_d, n_n - le_n
    return {
        ("dataset", ">"): (gt_d, gt_n),
        ("dataset", "<="): (le_d, le_n),
        ("neighbour", ">"): (gt_n, gt_d),
        ("neighbour", "<="): (le_n, le_d),
    }


#: Largest selection size whose shrunk bounds are tabulated (and cached) for every count.
_TABLE_MAX = 2**16


@functools.lru_cache(maxsize=8)
def _shrunk(ns: int) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper-Pearson bounds at level SHRINK for every count 0..ns (a table: the
    design simulations of :mod:`audits.design` select thousands of times at one ``ns``)."""
    k = np.arange(ns + 1)
    lower, upper = stats.clopper_pearson_lower(k, ns, SHRINK), stats.clopper_pearson_upper(k, ns, SHRINK)
    lower.setflags(write=False)
    upper.setflags(write=False)
    return lower, upper


#: Largest selection size whose shrunk bounds :func:`choose` memoises count by count when asked
#: to (``memo=True``, the design simulations): 2 x 8 bytes per possible count, 64 MB at most.
_MEMO_MAX = 2**22


@functools.lru_cache(maxsize=2)
def _memo(ns: int) -> tuple[np.ndarray, np.ndarray]:
    """Shrunk bounds for the counts 0..ns, filled in as counts are met (NaN until then): a design
    simulation selects hundreds of times at one ``ns`` and meets a fraction of the counts."""
    return np.full(ns + 1, np.nan), np.full(ns + 1, np.nan)


def _shrunk_at(k: np.ndarray, ns: int) -> tuple[np.ndarray, np.ndarray]:
    """The lower and upper shrunk bounds at the counts ``k`` (of ``ns``), from :func:`_memo`,
    computing the counts not met before (the bounds are elementwise: the same values)."""
    lower, upper = _memo(ns)
    new = np.unique(k[np.isnan(lower[k])])
    if new.size:
        lower[new] = stats.clopper_pearson_lower(new, ns, SHRINK)
        upper[new] = stats.clopper_pearson_upper(new, ns, SHRINK)
    return lower[k], upper[k]


def select_event(t_sd, t_sn, m, *, delta, alpha):
    """Choose ``(threshold, side, direction)`` on selection statistics by the projected bound.

    Returns the choice and its projected bound (``-1`` when no candidate is rejected even at
    ``eps = 0``).
    """
    return _select(np.asarray, t_sd, t_sn, m, delta=delta, alpha=alpha)


def _select(apply, sel_d, sel_n, m, *, delta, alpha):
    """:func:`select_event` on ``apply(sel_d)`` and ``apply(sel_n)``, computed block by block
    and twice rather than held: at 1e8 runs the selection holds 1.5e7 outputs per dataset, and
    the peak is the pooled values and a mask (:func:`_candidates_in_place`). A statistic is a
    function of one output, so blocks give the values the whole arrays would."""
    thresholds = pooled_candidates(apply, sel_d, sel_n)
    le_d, le_n = at_or_below(apply, sel_d, thresholds), at_or_below(apply, sel_n, thresholds)
    j, side, direction, bound = choose(le_d, le_n, sel_d.shape[0], m, delta=delta, alpha=alpha)
    return (float(thresholds[j]), side, direction), bound


def pooled_candidates(apply, sel_d, sel_n, limit: int = MAX_CANDIDATES) -> np.ndarray:
    """:func:`candidates` of the pooled values ``apply(sel_d)``, ``apply(sel_n)``, holding them
    once (8 bytes per value) and a mask (1 byte)."""
    ns = sel_d.shape[0]
    pooled = np.empty(ns + sel_n.shape[0])
    _apply_into(apply, sel_d, pooled[:ns])
    _apply_into(apply, sel_n, pooled[ns:])
    return _candidates_in_place(pooled, limit)


def at_or_below(apply, outputs, thresholds) -> np.ndarray:
    """How many values of ``apply(outputs)`` are at or below each sorted threshold."""
    t = _apply_into(apply, outputs, np.empty(outputs.shape[0]))
    t.sort()
    return np.searchsorted(t, thresholds, side="right")


def _apply_into(apply, outputs, out, block: int = 1 << 20):
    """``out[:] = apply(outputs)``, ``block`` outputs at a time; returns ``out``."""
    for start in range(0, outputs.shape[0], block):
        out[start:start + block] = apply(outputs[start:start + block])
    return out


def choose(le_d, le_n, ns, m, *, delta, alpha, memo=False):
    """The choice of :func:`select_event` from the counts alone: ``le_d[i]``, ``le_n[i]`` selection
    values (of ``ns`` per dataset) at or below candidate threshold ``i``. Returns ``(i, side,
    direction, projected bound)``. ``memo=True`` (many choices at one ``ns``, as in
    :mod:`audits.design`): beyond the tabulated sizes, up to :data:`_MEMO_MAX`, the shrunk bounds
    are memoised count by count (same values, same choice)."""
    gt_d, gt_n = ns - le_d, ns - le_n
    counts = {("dataset", ">"): (gt_d, gt_n), ("dataset", "<="): (le_d, le_n),
              ("neighbour", ">"): (gt_n, gt_d), ("neighbour", "<="): (le_n, le_d)}
    kinds = [(key, *counts[key]) for key in EVENT_KINDS]  # in this order: ties go to the first
    k_p = np.concatenate([kind[1] for kind in kinds])
    k_q = np.concatenate([kind[2] for kind in kinds])
    # Selection frequencies, shrunk to one-sided bounds at level SHRINK so that an event seen a
    # handful of times cannot look better than it is, projected to m runs (all four kinds of
    # event at once). The bounds are elementwise, so the table and the direct values agree.
    if ns <= _TABLE_MAX:
        lower, upper = _shrunk(ns)
        shrunk_p, shrunk_q = lower[k_p], upper[k_q]
    elif memo and ns <= _MEMO_MAX:  # k_p and k_q are the same counts in another order
        shrunk_p, _ = _shrunk_at(k_p, ns)
        _, shrunk_q = _shrunk_at(k_q, ns)
    else:  # a table would hold 16 bytes per selection run (0.24 GB at 1e8 runs)
        shrunk_p = stats.clopper_pearson_lower(k_p, ns, SHRINK)
        shrunk_q = stats.clopper_pearson_upper(k_q, ns, SHRINK)
    bound = stats.projected_point_bound(shrunk_p, shrunk_q, m, delta=delta, alpha=alpha, best_only=True)
    j = int(np.argmax(bound))
    direction, side = kinds[j // le_d.size][0]
    return j % le_d.size, side, direction, float(bound[j])


def select_among(statistics, sel_d, sel_n, m, *, delta, alpha):
    """The best ``(statistic, (threshold, side, direction), projected bound)`` over several
    statistics (each applied to the selection outputs ``sel_d`` and ``sel_n``); the first wins
    ties, so a family's leading statistic is kept unless another one is strictly better."""
    best = None
    for st in statistics:
        choice, bound = _select(st.apply, sel_d, sel_n, m, delta=delta, alpha=alpha)
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
