"""Tests of reference.bst14.instances: the Section V data sets, exact optima and neighbours.

Oracles: brute force over all integers of the right parity (column sums), exact integer counts
(the data construction), the certified solver of ``reference.solver`` and mpmath sums at 50
digits (minimisers and excess risks), and a chi-square test of the sign placement (false-alarm
rate 1e-3, fixed seed, so deterministic).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from audits.pairs import replace_one
from reference.bst14 import instances as inst
from reference.solver import minimise
from reference.tape import Recorder
from spec.errors import ParameterError


# --------------------------------------------------------------------------------------------
# column sums


@given(n=st.integers(1, 40), frac=st.floats(0.0, 1.0))
def test_column_sum_is_the_nearest_integer_of_the_parity_of_n(n, frac):
    m = frac * n
    c0 = inst.marginals_column_sum(n=n, M=m)
    candidates = [c for c in range(0, n + 1) if c % 2 == n % 2]
    best = min(abs(c - m) for c in candidates)
    assert c0 in candidates
    assert abs(c0 - m) == pytest.approx(best, abs=1e-12)
    assert abs(c0 - m) <= 1.0


def test_column_sum_breaks_ties_upwards():
    assert inst.marginals_column_sum(n=4, M=1.0) == 2
    assert inst.marginals_column_sum(n=5, M=0.0) == 1
    assert inst.marginals_column_sum(n=5, M=5.0) == 5
    assert inst.marginals_column_sum(n=6, M=6.0) == 6


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=0, M=0.0), r"n \(0\) must be >= 1"),
    (dict(n=5, M=-0.5), r"M \(-0.5\) must be in \[0, 5\]"),
    (dict(n=5, M=5.5), r"M \(5.5\) must be in \[0, 5\]"),
    (dict(n=5, M=float("nan")), r"M \(nan\)"),
])
def test_column_sum_rejects_bad_input(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        inst.marginals_column_sum(**kwargs)


# --------------------------------------------------------------------------------------------
# the data set


@settings(max_examples=40)
@given(n=st.integers(1, 30), p=st.integers(1, 12), frac=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_marginals_dataset_is_in_the_cube_with_exact_column_sums(n, p, frac, seed):
    m = frac * n
    data = inst.marginals_dataset(n=n, dimension=p, M=m, rng=seed)
    c0 = inst.marginals_column_sum(n=n, M=m)
    assert data.shape == (n, p)
    signs = data * math.sqrt(p)
    assert np.all(np.isin(np.rint(signs), (-1.0, 1.0)))
    assert np.allclose(signs, np.rint(signs), atol=1e-15)
    assert np.allclose(np.linalg.norm(data, axis=1), 1.0, atol=1e-14)
    # exact integer column sums, hence ||S|| = c0 exactly and within [M - 1, M + 1]
    assert np.all(np.rint(signs).sum(axis=0) == c0)
    norm = np.linalg.norm(data.sum(axis=0))
    assert norm == pytest.approx(c0, abs=1e-9)
    assert m - 1 - 1e-9 <= norm <= m + 1 + 1e-9


def test_marginals_dataset_is_reproducible_and_replays_from_its_tape():
    a = inst.marginals_dataset(n=9, dimension=4, M=3.2, rng=7)
    b = inst.marginals_dataset(n=9, dimension=4, M=3.2, rng=7)
    np.testing.assert_array_equal(a, b)
    rec = Recorder(11)
    c = inst.marginals_dataset(n=9, dimension=4, M=3.2, noise=rec)
    assert len(rec.tape) == 1
    entry = rec.tape.entries[0]
    assert (entry.label, entry.kind, entry.values.shape) == (inst.PERMUTATION_LABEL, "uniform", (4, 9))
    replay = rec.tape.replay()
    np.testing.assert_array_equal(inst.marginals_dataset(n=9, dimension=4, M=3.2, noise=replay), c)
    replay.assert_consumed()


def test_columns_are_placed_independently():
    data = inst.marginals_dataset(n=40, dimension=30, M=10.0, rng=3)
    # 30 columns with 25 plus signs among 40 rows: identical columns would be a placement bug
    assert len({tuple(col) for col in data.T}) == 30
    assert len({tuple(row) for row in data}) > 30


def test_sign_placement_is_uniform_over_subsets():
    """n = 4, c0 = 0: each column has 2 plus signs; all 6 placements must be equally likely.

    Chi-square test with 5 degrees of freedom at false-alarm rate 1e-3 (seeded).
    """
    draws = 600
    data = inst.marginals_dataset(n=4, dimension=draws, M=0.0, rng=2024)
    subsets = list(itertools.combinations(range(4), 2))
    index = {s: i for i, s in enumerate(subsets)}
    counts = np.zeros(len(subsets))
    for col in data.T:
        counts[index[tuple(np.flatnonzero(col > 0))]] += 1
    stat = float(((counts - draws / 6) ** 2 / (draws / 6)).sum())
    assert stat < sps.chi2.ppf(1 - 1e-3, df=5), counts


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(n=0, dimension=2, M=0.0), ParameterError, r"n \(0\) must be >= 1"),
    (dict(n=4, dimension=0, M=0.0), ParameterError, r"dimension \(0\) must be >= 1"),
    (dict(n=4, dimension=2, M=4.5), ParameterError, r"M \(4.5\) must be in \[0, 4\]"),
    (dict(n=4.0, dimension=2, M=1.0), TypeError, r"n \(4.0\) must be an integer"),
])
def test_marginals_dataset_rejects_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        inst.marginals_dataset(rng=0, **kwargs)


# --------------------------------------------------------------------------------------------
# instances and exact optima


def test_instances_declare_the_section_V_losses_and_the_unit_ball():
    a = inst.linear_instance(dimension=3)
    b = inst.quadratic_instance(dimension=3)
    assert a.name == "V-A" and b.name == "V-B"
    assert a.loss.constants.lipschitz == 1.0 and a.loss.constants.strong_convexity == 0.0
    # V-B: 2-Lipschitz on the unit ball (the paper's "1" is an erratum), 1-strongly convex
    assert b.loss.constants.lipschitz == 2.0 and b.loss.constants.strong_convexity == 1.0
    for i in (a, b):
        assert i.dimension == 3 and i.domain.diameter == 2.0
        np.testing.assert_array_equal(i.domain.center, np.zeros(3))
        data = i.dataset(n=7, M=3.0, rng=1)
        i.loss.check_data(data)  # within the declared bounds


def _mp_total(kind, theta, data):
    """Sum loss at 50 digits (independent of the closed forms under test)."""
    with mpmath.workdps(50):
        th = [mpmath.mpf(float(x)) for x in theta]
        total = mpmath.mpf(0)
        for row in data:
            d = [mpmath.mpf(float(x)) for x in row]
            if kind == "V-A":
                total += -mpmath.fsum(t * x for t, x in zip(th, d))
            else:
                total += mpmath.fsum((t - x) ** 2 for t, x in zip(th, d)) / 2
        return total


@pytest.mark.parametrize("make", [inst.linear_instance, inst.quadratic_instance])
def test_minimiser_agrees_with_the_certified_solver(make):
    i = make(dimension=3)
    data = i.dataset(n=11, M=5.0, rng=5)
    result = minimise(i.loss, data, i.domain, tolerance=1e-12)
    exact = i.minimiser(data)
    assert i.domain.contains(exact)
    # the solver's point is certified within 1e-12 of the optimum value; its value cannot beat ours
    assert float(_mp_total(i.name, exact, data)) <= float(_mp_total(i.name, result.theta, data)) + 1e-11
    assert np.linalg.norm(exact - result.theta) < 1e-4


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(1, 6), n=st.integers(2, 20))
def test_excess_risk_closed_forms_match_mpmath(seed, p, n):
    rng = np.random.default_rng(seed)
    m = float(rng.uniform(1.0, n))
    for i in (inst.linear_instance(dimension=p), inst.quadratic_instance(dimension=p)):
        data = i.dataset(n=n, M=m, rng=rng)
        if i.name == "V-A" and not np.any(np.rint(data.sum(axis=0) * math.sqrt(p))):
            continue  # S = 0: no unique V-A minimiser (tested separately)
        theta = i.domain.project(rng.normal(size=(4, p)))
        star = i.minimiser(data)
        ref = _mp_total(i.name, star, data)
        got = i.excess_risk(theta, data)
        assert got.shape == (4,)
        for r in range(4):
            want = float(_mp_total(i.name, theta[r], data) - ref)
            assert got[r] == pytest.approx(want, rel=1e-9, abs=1e-10 * n)
        assert np.all(got >= -1e-12)
        assert i.excess_risk(star, data) == pytest.approx(0.0, abs=1e-12 * n)
        if i.name == "V-A":
            # the proof's inequality: R >= ||S|| ||theta - theta*||^2 / 2 on the ball
            s = np.linalg.norm(data.sum(axis=0))
            assert np.all(got >= 0.5 * s * np.sum((theta - star) ** 2, axis=1) - 1e-9)
        else:
            # the exact minimiser beats every feasible point
            assert np.all(got >= 0)


def test_excess_risk_accepts_a_single_theta():
    i = inst.quadratic_instance(dimension=2)
    data = i.dataset(n=5, M=3.0, rng=0)
    value = i.excess_risk(np.zeros(2), data)
    assert isinstance(value, float)
    assert value == pytest.approx(0.5 * 5 * float(np.sum(data.mean(axis=0) ** 2)))


def test_linear_minimiser_needs_a_nonzero_sum():
    data = inst.marginals_dataset(n=4, dimension=3, M=0.0, rng=0)  # c0 = 0
    with pytest.raises(ParameterError, match="must be nonzero"):
        inst.linear_minimiser(data)
    with pytest.raises(ParameterError, match="must be nonzero"):
        inst.linear_excess_risk(np.zeros(3), data)


@pytest.mark.parametrize("fn", [inst.linear_minimiser, inst.quadratic_minimiser])
def test_minimisers_reject_bad_data(fn):
    with pytest.raises(ParameterError, match=r"must have shape \(n, p\)"):
        fn(np.ones(3))
    with pytest.raises(ParameterError, match="NaN or infinite"):
        fn(np.array([[1.0, np.nan]]))
    with pytest.raises(TypeError, match="numeric"):
        fn(np.array([["a"]]))


def test_quadratic_minimiser_rejects_data_outside_the_ball():
    with pytest.raises(ParameterError, match=r"must be <= 1"):
        inst.quadratic_minimiser(np.full((3, 2), 2.0))


def test_excess_risk_rejects_theta_of_the_wrong_shape():
    data = inst.marginals_dataset(n=5, dimension=3, M=3.0, rng=0)
    with pytest.raises(ParameterError, match=r"theta \(shape \(2,\)\)"):
        inst.linear_excess_risk(np.zeros(2), data)
    with pytest.raises(ParameterError, match="NaN or infinite"):
        inst.quadratic_excess_risk(np.full(3, np.inf), data)


# --------------------------------------------------------------------------------------------
# neighbours


def test_worst_case_neighbour_negates_one_record_and_flips_its_gradient():
    i_a, i_b = inst.linear_instance(dimension=3), inst.quadratic_instance(dimension=3)
    data = inst.marginals_dataset(n=6, dimension=3, M=2.0, rng=4)
    nb = inst.worst_case_neighbour(data, 2)
    pair = replace_one(data, 2, nb[2])  # the audits' pair generator asserts the relation
    np.testing.assert_array_equal(pair.neighbour, nb)
    np.testing.assert_array_equal(nb[2], -data[2])
    np.testing.assert_array_equal(np.delete(nb, 2, axis=0), np.delete(data, 2, axis=0))
    np.testing.assert_array_equal(data, inst.worst_case_neighbour(nb, 2) * 1.0)  # involution
    theta = np.zeros(3)
    g, g2 = i_a.loss.gradient(theta, data[2]), i_a.loss.gradient(theta, nb[2])
    np.testing.assert_allclose(g2, -g)
    g, g2 = i_b.loss.gradient(theta, data[2]), i_b.loss.gradient(theta, nb[2])
    np.testing.assert_allclose(g2, -g)
    # the sum moves by 2 ||d|| = 2, the largest move a replacement can make in the cube
    assert np.linalg.norm(data.sum(axis=0) - nb.sum(axis=0)) == pytest.approx(2.0)
    assert inst.worst_case_neighbour(data, -1)[-1].tolist() == (-data[-1]).tolist()


def test_worst_case_neighbour_rejects_bad_input():
    data = np.ones((3, 2))
    with pytest.raises(ParameterError, match=r"index \(3\) must be in \[0, 3\)"):
        inst.worst_case_neighbour(data, 3)
    with pytest.raises(TypeError, match="must be an integer"):
        inst.worst_case_neighbour(data, 1.0)
    with pytest.raises(ParameterError, match="is zero"):
        inst.worst_case_neighbour(np.zeros((3, 2)), 0)
