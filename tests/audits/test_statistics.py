"""Tests of audits.statistics: black-box float leaks and per-coordinate statistics.

The acceptance demonstrations of issue 13, item 1: mechanisms written here independently (numpy's
``laplace``/``normal`` added to a count, as third-party code does), given as plain
``mechanism(data, runs, rng)`` with no ``logpdf``, audited by ``audit_privacy`` with default
options. Every audit is seeded; a correct mechanism is refuted with probability at most alpha
= 0.05 for a random seed, and the seeds here were not chosen (seed 1 throughout).
"""

from __future__ import annotations

import numpy as np
import pytest

from audits import audit_privacy, replace_one
from audits import statistics as stat

EPSILON = 1.0


def float_laplace(data, runs, rng):
    """The textbook float Laplace on a count (scale 1/eps): its low bits leak (Mironov 2012)."""
    return np.sum(data) + rng.laplace(0.0, 1.0 / EPSILON, size=runs)


def float_gaussian(data, runs, rng):
    """A float Gaussian on a count, sigma 5 (ample for (1, 1e-5) at sensitivity 1 in real arithmetic)."""
    return np.sum(data) + rng.normal(0.0, 5.0, size=runs)


def _geometric(rng, epsilon, runs):
    p = 1.0 - np.exp(-epsilon)
    return rng.geometric(p, runs) - rng.geometric(p, runs)


def geometric(data, runs, rng):
    """Integer-valued Laplace (two-sided geometric) on a count: exactly eps-DP."""
    return int(np.sum(data)) + _geometric(rng, EPSILON, runs)


def snapped_laplace(data, runs, rng):
    """Laplace rounded to the grid 2^-5 (the count is on the grid): the probability of a grid
    point is the Laplace mass of one interval, shifted by the count, so eps-DP exactly."""
    grain = 2.0**-5
    return np.round((np.sum(data) + rng.laplace(0.0, 1.0 / EPSILON, size=runs)) / grain) * grain


def exact_second_coordinate(data, runs, rng):
    """Two coordinates: the count with float Laplace noise, and the count itself."""
    c = float(np.sum(data))
    return np.column_stack([c + rng.laplace(0.0, 2.0 / EPSILON, size=runs), np.full(runs, c)])


def exact_second_coordinate_integer(data, runs, rng):
    """The same with integer noise on the first coordinate (no float leak to help)."""
    c = int(np.sum(data))
    return np.column_stack([c + _geometric(rng, EPSILON / 2, runs), np.full(runs, c)])


def little_noise_second_coordinate(data, runs, rng):
    """Two noisy counts, the second with 8 times less noise than eps-DP needs (true eps 4.5)."""
    c = int(np.sum(data))
    return np.column_stack([c + _geometric(rng, EPSILON / 2, runs), c + _geometric(rng, 4 * EPSILON, runs)])


def correct_vector(data, runs, rng):
    """Two counts with integer noise of eps/2 each: eps-DP (L1 sensitivity 2)."""
    c = int(np.sum(data))
    return np.column_stack([c + _geometric(rng, EPSILON / 2, runs), c + _geometric(rng, EPSILON / 2, runs)])


def count_pair(ones=4):
    """Replace-one: a record 1 replaced by 0, so the count moves from ``ones`` to ``ones - 1``."""
    return replace_one(np.array([1.0] * ones + [0.0] * 3), 0, 0.0)


# --- acceptance: float leaks as black boxes ------------------------------------------------


@pytest.mark.parametrize("ones", [4, 6])  # across a binade boundary (4 vs 3) and within one (6 vs 5)
def test_float_laplace_is_refuted_as_a_black_box_and_the_low_bits_decide(ones):
    result = audit_privacy(float_laplace, count_pair(ones), epsilon=EPSILON, runs=100_000, seed=1)
    assert result.violated, str(result)
    value, bits = result.tests
    assert value["family"] == "value" and not value["violated"]  # the value alone holds the claim
    assert bits["family"] == "low-bit" and bits["violated"] and bits["epsilon_lower"] > 3
    assert value["alpha"] == pytest.approx(0.04) and bits["alpha"] == pytest.approx(0.01)  # alpha split


def test_float_laplace_is_refuted_already_at_ten_thousand_runs():
    assert audit_privacy(float_laplace, count_pair(), epsilon=EPSILON, runs=10_000, seed=1).violated


def test_float_gaussian_is_refuted_as_a_black_box():
    result = audit_privacy(float_gaussian, count_pair(), epsilon=EPSILON, delta=1e-5, runs=100_000, seed=1)
    assert result.violated and result.tests[1]["family"] == "low-bit", str(result)


@pytest.mark.parametrize("mechanism", [geometric, snapped_laplace])
def test_integer_and_snapped_mechanisms_are_not_refuted(mechanism):
    result = audit_privacy(mechanism, count_pair(), epsilon=EPSILON, runs=100_000, seed=1)
    assert not result.violated, str(result)
    # the geometric's outputs are integers: no low-bit test; the snapped ones are tried and pass
    assert [t["family"] for t in result.tests] == (["value"] if mechanism is geometric else ["value", "low-bit"])
    assert result.epsilon_lower > 0.9  # and the value test is close to the true epsilon 1


def test_low_bits_off_audits_the_real_valued_idealisation():
    result = audit_privacy(float_laplace, count_pair(), epsilon=EPSILON, runs=100_000, seed=1, low_bits=False)
    assert not result.violated and [t["family"] for t in result.tests] == ["value"]


# --- acceptance: vector outputs with an exact (or nearly exact) coordinate ------------------


@pytest.mark.parametrize("mechanism", [exact_second_coordinate, exact_second_coordinate_integer,
                                       little_noise_second_coordinate])
def test_a_coordinate_with_no_or_little_noise_is_refuted_at_ten_thousand_runs(mechanism):
    result = audit_privacy(mechanism, count_pair(), epsilon=EPSILON, runs=10_000, seed=1)
    assert result.violated and result.epsilon_lower > 3, str(result)


def test_the_exact_coordinate_is_found_by_its_own_statistic():
    result = audit_privacy(exact_second_coordinate, count_pair(), epsilon=EPSILON, runs=2000, seed=1)
    assert result.violated and result.statistic == "coordinate 1 of 2", str(result)


def test_a_correct_vector_release_is_not_refuted():
    assert not audit_privacy(correct_vector, count_pair(), epsilon=EPSILON, runs=10_000, seed=1).violated


# --- the pieces ----------------------------------------------------------------------------


def test_continuous_float_tells_floats_from_integers_and_grids():
    rng = np.random.default_rng(0)
    z = rng.laplace(size=(500, 1))
    assert stat.continuous_float(z, z + 1.0)
    assert not stat.continuous_float(np.round(z), np.round(z) + 1.0)  # discrete: few values
    assert not stat.continuous_float(rng.integers(0, 1000, (500, 1)), rng.integers(0, 1000, (500, 1)))


def test_bits_family_separates_the_grains_of_three_and_four():
    """Near 0, 3 + z is a multiple of 2^-51 and 4 + z of 2^-50 (subtracting the count back
    exactly): outputs are classified by their trailing zero bits, so the learned score of the
    class "odd multiple of 2^-51" is higher for the dataset whose count is 3."""
    rng = np.random.default_rng(3)
    d = (3.0 + rng.laplace(size=4000)).reshape(-1, 1)
    n = (4.0 + rng.laplace(size=4000)).reshape(-1, 1)
    family = stat.bits_family(d[:2000], n[:2000])
    assert family, "a low-bit statistic for the coordinate"
    scores_d, scores_n = family[0].apply(d[2000:]), family[0].apply(n[2000:])
    assert np.mean(scores_d) > np.mean(scores_n)
