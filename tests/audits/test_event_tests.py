"""Tests of audits.event_tests: counting a chosen event chunk by chunk and testing it, against the
bounds of audits.stats computed directly on the oriented counts, and the closed-form pure-DP
bound B(a) = min(1, e^eps a, 1 - e^-eps (1 - a))."""

from __future__ import annotations

import math

import numpy as np
import pytest

from audits import event_tests, stats
from audits.claims import ClaimBound
from audits.statistics import identity_statistic

ST = identity_statistic()


def test_counts_add_over_chunks():
    y = np.random.default_rng(1).standard_normal((1000, 1))
    choice = (0.3, ">", "dataset")
    whole = event_tests.count(ST, choice, y)
    assert whole == int(np.sum(y[:, 0] > 0.3))
    assert sum(event_tests.count(ST, choice, chunk) for chunk in np.array_split(y, 7)) == whole
    assert event_tests.count(ST, choice, None) == 0 == event_tests.count(ST, choice, y[:0])


@pytest.mark.parametrize("direction", ["dataset", "neighbour"])
def test_poisson_test_is_the_conditional_test_of_the_oriented_counts(direction):
    arrivals = stats.poisson_arrivals(5000, 1e-4, rng=np.random.default_rng(2))
    r = event_tests.poisson_test(ST, (0.0, ">", direction), 300, 5010, 40, 4990, 5000, epsilon=1.0, delta=1e-4,
                                 alpha=0.01, arrivals=arrivals, family="low-bit")
    k_p, k_q = (300, 40) if direction == "dataset" else (40, 300)
    expected = stats.poisson_point_bound(k_p, k_q, 5000, delta=1e-4, alpha=0.01, arrivals=arrivals)
    assert r["epsilon_lower"] == expected and r["violated"] == (expected > 1.0)
    assert (r["dataset"], r["neighbour"], r["test_runs_dataset"], r["test_runs_neighbour"]) == (300, 40, 5010, 4990)
    assert r["family"] == "low-bit" and r["alpha"] == 0.01 and r["_k"][0] == k_p


def test_fixed_runs_test_uses_two_clopper_pearson_bounds_and_the_profile():
    """(k_p, k_q) = (60, 0) of n = 1000: the point bound is stats.point_bound's; against pure
    3-DP it does not refute the point claim eps = 3 (eps_lower < 3 here) but p_lower > B(q_upper)
    for pure 1-DP refutes the profile."""
    n = 1000
    eps_lo, p_lo, q_hi = stats.point_bound(60, 0, n, alpha=0.01)
    pure = ClaimBound(lambda e: max(0.0, (math.e - math.exp(e)) / (1 + math.e)), (1.0,))
    b = min(1.0, math.e * q_hi, 1 - (1 - q_hi) / math.e)
    assert p_lo > b and eps_lo < 3.0
    r = event_tests.fixed_runs_test(ST, (0.0, ">", "dataset"), 60, 0, n, epsilon=3.0, delta=0.0, alpha=0.01,
                                    family="low-bit", bound=pure)
    assert r["epsilon_lower"] == eps_lo and r["p_lower"] == p_lo and r["q_upper"] == q_hi
    assert r["violated"] and r["profile_violated"]
    alone = event_tests.fixed_runs_test(ST, (0.0, ">", "dataset"), 60, 0, n, epsilon=3.0, delta=0.0, alpha=0.01,
                                        family="low-bit")
    assert not alone["violated"]
    swapped = event_tests.fixed_runs_test(ST, (0.0, ">", "neighbour"), 0, 60, n, epsilon=3.0, delta=0.0,
                                          alpha=0.01, family="low-bit")
    assert swapped["epsilon_lower"] == eps_lo
