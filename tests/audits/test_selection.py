"""Tests of audits.selection: candidate thresholds, event counts and the choice of event.

Oracles: brute-force counting over Python lists; the Clopper-Pearson bounds as beta quantiles
(scipy.stats.beta.ppf); a direct re-implementation of the documented selection rule (every
threshold x side x direction scored by stats.projected_point_bound, ties to the first in the
order of event_counts, then the lowest threshold); samples whose best event is known by
construction. The few random samples are seeded, and no verdict here is statistical.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from audits import selection, stats
from audits.selection import MAX_CANDIDATES, SHRINK
from audits.statistics import Statistic, identity_statistic

KINDS = [("dataset", ">"), ("dataset", "<="), ("neighbour", ">"), ("neighbour", "<=")]
samples = st.lists(st.integers(-6, 6), min_size=1, max_size=40)


def inside(x, t, side):
    return x > t if side == ">" else x <= t


def brute_force_choice(t_sd, t_sn, m, alpha):
    """The documented rule at delta = 0 (where projected_point_bound is elementwise)."""
    ns = len(t_sd)
    best = None
    for direction, side in KINDS:
        tp, tq = (t_sd, t_sn) if direction == "dataset" else (t_sn, t_sd)
        for t in sorted(set(t_sd) | set(t_sn)):
            k_p = sum(inside(x, t, side) for x in tp)
            k_q = sum(inside(x, t, side) for x in tq)
            p = stats.clopper_pearson_lower(k_p, ns, SHRINK)
            q = stats.clopper_pearson_upper(k_q, ns, SHRINK)
            b = float(stats.projected_point_bound(p, q, m, alpha=alpha)[0])
            if best is None or b > best[1]:
                best = ((float(t), side, direction), b)
    return best


# --------------------------------------------------------------------------------------------
# Candidate thresholds


@settings(max_examples=200, deadline=None)
@given(n=st.one_of(st.integers(1, 3 * MAX_CANDIDATES), st.integers(1, 10**8)))
@example(n=MAX_CANDIDATES)
@example(n=MAX_CANDIDATES + 1)
def test_candidate_ranks(n):
    """Increasing unique ranks in [0, n), both extremes and the ten ranks at each tail kept,
    at most MAX_CANDIDATES of them, all of them when n <= MAX_CANDIDATES, and no gap in the
    middle wider than the uniform part's spacing."""
    ranks = selection.candidate_ranks(n)
    assert ranks.dtype.kind == "i"
    if n <= MAX_CANDIDATES:
        assert np.array_equal(ranks, np.arange(n))
        return
    assert np.all(np.diff(ranks) > 0) and ranks[0] == 0 and ranks[-1] == n - 1
    assert ranks.size <= MAX_CANDIDATES
    assert set(range(10)) | set(range(n - 10, n)) <= set(ranks.tolist())
    assert np.max(np.diff(ranks)) <= (n - 1) / (MAX_CANDIDATES - 2 * (MAX_CANDIDATES // 3) - 1) + 1


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=300))
def test_candidates_are_the_sorted_distinct_values_when_few(values):
    assert selection.candidates(np.array(values)).tolist() == sorted(set(values))


def test_candidates_of_many_values_are_a_subset_with_both_extremes():
    values = np.random.default_rng(0).standard_normal(10_000)
    c = selection.candidates(np.concatenate([values, values[:100]]))  # with repeats
    assert c.size <= MAX_CANDIDATES and np.all(np.diff(c) > 0)
    assert np.isin(c, values).all() and c[0] == values.min() and c[-1] == values.max()
    assert np.array_equal(c[:10], np.sort(values)[:10])  # dense at the tails


# --------------------------------------------------------------------------------------------
# Counts


@settings(max_examples=100, deadline=None)
@given(t_d=samples, t_n=samples, thresholds=st.lists(st.integers(-8, 8), min_size=1, max_size=10))
def test_event_counts_match_brute_force(t_d, t_n, thresholds):
    counts = selection.event_counts(np.sort(np.array(t_d, float)), np.sort(np.array(t_n, float)),
                                    np.array(thresholds, float))
    assert list(counts) == KINDS  # the order ties are broken in
    for (direction, side), (k_p, k_q) in counts.items():
        tp, tq = (t_d, t_n) if direction == "dataset" else (t_n, t_d)
        assert k_p.tolist() == [sum(inside(x, t, side) for x in tp) for t in thresholds]
        assert k_q.tolist() == [sum(inside(x, t, side) for x in tq) for t in thresholds]


@given(t=samples, threshold=st.integers(-8, 8), side=st.sampled_from([">", "<="]))
def test_count_matches_brute_force(t, threshold, side):
    got = selection.count(np.array(t, float), float(threshold), side)
    assert type(got) is int and got == sum(inside(x, threshold, side) for x in t)


@pytest.mark.parametrize("ns", [1, 2, 17, 300])
def test_shrunk_table_is_the_one_sided_clopper_pearson_bounds(ns):
    """Equal to the stats functions at level SHRINK (what select_event used before the table),
    within 1e-9 of the beta quantiles that define them, and read-only since it is cached."""
    lower, upper = selection._shrunk(ns)
    k = np.arange(ns + 1)
    assert np.array_equal(lower, stats.clopper_pearson_lower(k, ns, SHRINK))
    assert np.array_equal(upper, stats.clopper_pearson_upper(k, ns, SHRINK))
    with np.errstate(all="ignore"):
        beta_lo = np.where(k > 0, sps.beta.ppf(SHRINK, k, ns - k + 1), 0.0)
        beta_hi = np.where(k < ns, sps.beta.ppf(1 - SHRINK, k + 1, ns - k), 1.0)
    assert np.allclose(lower, beta_lo, rtol=1e-9, atol=1e-15)
    assert np.allclose(upper, beta_hi, rtol=1e-9, atol=1e-15)
    assert np.all(lower <= k / ns) and np.all(upper >= k / ns)
    assert selection._shrunk(ns) is selection._shrunk(ns)
    with pytest.raises(ValueError):
        lower[0] = 0.5


def test_memoised_shrunk_bounds_and_choice_equal_the_direct_ones():
    """Beyond the table (ns > 2^16) choose(memo=True) fills the bounds count by count: the same
    values as the stats functions, in any order of arrival, and the same choice as memo=False."""
    ns, m = 100_003, 500_000
    rng = np.random.default_rng(8)
    for _ in range(3):
        k = rng.integers(0, ns + 1, 3000)
        lower, upper = selection._shrunk_at(k, ns)
        assert np.array_equal(lower, stats.clopper_pearson_lower(k, ns, SHRINK))
        assert np.array_equal(upper, stats.clopper_pearson_upper(k, ns, SHRINK))
    le_d = np.sort(rng.integers(0, ns + 1, 500))
    le_n = np.minimum(le_d + rng.integers(0, 3000, 500), ns)
    for delta in (0.0, 1e-3):
        assert selection.choose(le_d, le_n, ns, m, delta=delta, alpha=0.01, memo=True) == \
            selection.choose(le_d, le_n, ns, m, delta=delta, alpha=0.01)


def test_shrink_level_is_the_documented_one():
    assert SHRINK == 0.05  # audits.privacy: "one-sided Clopper-Pearson bounds at level 0.05"


# --------------------------------------------------------------------------------------------
# The choice


@settings(max_examples=40, deadline=None)
@given(t_sd=samples, t_sn=samples, m=st.integers(10, 10**6), alpha=st.sampled_from([1e-3, 0.05, 0.3]))
def test_select_event_follows_the_documented_rule(t_sd, t_sn, m, alpha):
    """Selection samples of equal size; the brute-force rule scores each event on its own."""
    ns = min(len(t_sd), len(t_sn))
    t_sd, t_sn = t_sd[:ns], t_sn[:ns]
    choice, bound = selection.select_event(np.array(t_sd, float), np.array(t_sn, float), m,
                                           delta=0.0, alpha=alpha)
    assert (choice, bound) == brute_force_choice(t_sd, t_sn, m, alpha)


@settings(max_examples=60, deadline=None)
@given(t_sd=samples, t_sn=samples, m=st.integers(10, 10**6), delta=st.sampled_from([0.0, 1e-5, 0.02]),
       alpha=st.sampled_from([1e-3, 0.05]))
def test_choose_on_counts_gives_the_choice_of_select_event(t_sd, t_sn, m, delta, alpha):
    ns = min(len(t_sd), len(t_sn))
    t_d, t_n = np.array(t_sd[:ns], float), np.array(t_sn[:ns], float)
    thresholds = np.array(sorted(set(t_d) | set(t_n)))
    le_d = np.array([np.sum(t_d <= t) for t in thresholds])
    le_n = np.array([np.sum(t_n <= t) for t in thresholds])
    i, side, direction, bound = selection.choose(le_d, le_n, ns, m, delta=delta, alpha=alpha)
    assert selection.select_event(t_d, t_n, m, delta=delta, alpha=alpha) == \
        ((float(thresholds[i]), side, direction), bound)


@given(t=samples, m=st.integers(1, 10**7), alpha=st.floats(1e-6, 0.5), delta=st.sampled_from([0.0, 1e-3]))
def test_identical_selection_samples_reject_nothing(t, m, alpha, delta):
    """Equal counts everywhere: the shrunk p is below the shrunk q, so not even eps = 0 is
    rejected for any event, and the documented -1 comes back."""
    t = np.array(t, float)
    assert selection.select_event(t, t.copy(), m, delta=delta, alpha=alpha)[1] == -1.0


def test_separated_selection_samples_choose_the_separating_event():
    """t_sd all above t_sn: {T > max t_sn} has all dataset runs and no neighbour run; so has
    {T <= max t_sn} read in the neighbour direction, which comes later in the order."""
    rng = np.random.default_rng(2)
    t_sd, t_sn = 5 + rng.uniform(size=200), rng.uniform(size=200)
    (threshold, side, direction), bound = selection.select_event(t_sd, t_sn, 10_000, delta=1e-5, alpha=0.05)
    assert (threshold, side, direction) == (t_sn.max(), ">", "dataset")
    assert 0 < bound <= 30


def _stat(name, f):
    return Statistic(f, name, learned=False)


@settings(max_examples=30, deadline=None)
@given(t_sd=samples, t_sn=samples, perm=st.permutations(range(4)))
def test_select_among_keeps_the_first_best_statistic(t_sd, t_sn, perm):
    """The winner is the first statistic (in the order given) of the largest projected bound;
    two copies of one statistic never displace the earlier one."""
    ns = min(len(t_sd), len(t_sn))
    sel_d, sel_n = np.array(t_sd[:ns], float), np.array(t_sn[:ns], float)
    family = [_stat("x", lambda x: x), _stat("-x", lambda x: -x), _stat("x copy", lambda x: x),
              _stat("|x|", np.abs)]
    family = [family[i] for i in perm]
    bounds = [selection.select_event(s.apply(sel_d), s.apply(sel_n), 1000, delta=0.0, alpha=0.05)[1]
              for s in family]
    st_, choice, bound = selection.select_among(family, sel_d, sel_n, 1000, delta=0.0, alpha=0.05)
    assert st_ is family[bounds.index(max(bounds))] and bound == max(bounds)
    assert choice == selection.select_event(st_.apply(sel_d), st_.apply(sel_n), 1000, delta=0.0, alpha=0.05)[0]


def test_select_among_prefers_a_strictly_better_later_statistic():
    rng = np.random.default_rng(4)
    sel_d, sel_n = 5 + rng.uniform(size=100), rng.uniform(size=100)
    constant = _stat("constant", np.zeros_like)
    first, second = _stat("a", lambda x: x), _stat("b", lambda x: x)
    assert selection.select_among([constant, first], sel_d, sel_n, 1000, delta=0.0, alpha=0.05)[0] is first
    assert selection.select_among([first, second], sel_d, sel_n, 1000, delta=0.0, alpha=0.05)[0] is first
    assert selection.select_among([second, first], sel_d, sel_n, 1000, delta=0.0, alpha=0.05)[0] is second


def test_describe_event():
    plain = identity_statistic()
    assert selection.describe_event(1.23456789, ">", "dataset", plain) == \
        "T > 1.23457; P[dataset] vs e^eps P[neighbour] + delta"
    assert selection.describe_event(-2e-7, "<=", "neighbour", plain) == \
        "T <= -2e-07; P[neighbour] vs e^eps P[dataset] + delta"
    told = Statistic(lambda x: x, "c", learned=True, describe=lambda t, s: f"coordinate 3 {s} {t}")
    assert selection.describe_event(0.5, ">", "neighbour", told) == \
        "coordinate 3 > 0.5; P[neighbour] vs e^eps P[dataset] + delta"
