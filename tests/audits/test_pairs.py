"""Tests of audits.pairs: generated pairs are neighbours, non-neighbours are rejected."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from audits.pairs import NeighbouringPair, add_remove_one, as_relation, assert_neighbours, replace_one
from spec.errors import ParameterError
from spec.record import Neighbouring

REPLACE = Neighbouring.REPLACE_ONE
ADD_REMOVE = Neighbouring.ADD_REMOVE_ONE


def test_replace_one_changes_exactly_the_given_record():
    data = np.arange(12.0).reshape(4, 3)
    pair = replace_one(data, 2, [-1.0, -2.0, -3.0])
    assert pair.relation is REPLACE
    assert np.array_equal(pair.dataset, data)
    differing = np.flatnonzero(np.any(pair.dataset != pair.neighbour, axis=1))
    assert differing.tolist() == [2]
    assert pair.neighbour[2].tolist() == [-1.0, -2.0, -3.0]
    d, n = pair  # iterable
    assert d is pair.dataset and n is pair.neighbour


def test_replace_one_with_tuple_dataset_and_negative_index():
    X = np.ones((5, 2))
    y = np.array([1, -1, 1, -1, 1])
    pair = replace_one((X, y), -1, (np.array([0.5, 0.5]), -1))
    Xn, yn = pair.neighbour
    assert yn[-1] == -1 and Xn[-1].tolist() == [0.5, 0.5]
    assert np.array_equal(Xn[:-1], X[:-1]) and np.array_equal(yn[:-1], y[:-1])


def test_add_remove_one_add_and_remove():
    data = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    added = add_remove_one(data, record=[5.0, 6.0])
    assert added.relation is ADD_REMOVE
    assert added.neighbour.shape == (4, 2) and added.neighbour[-1].tolist() == [5.0, 6.0]
    removed = add_remove_one(data, index=0)
    assert removed.neighbour.tolist() == [[3.0, 4.0], [1.0, 2.0]]
    # A duplicate record added again is fine (multiset semantics).
    assert add_remove_one(data, record=[1.0, 2.0]).neighbour.shape == (4, 2)
    # Removing the only record gives the empty dataset.
    assert add_remove_one(np.array([3.0]), index=0).neighbour.shape == (0,)


def test_pairs_are_frozen_read_only_copies():
    data = np.zeros(4)
    pair = replace_one(data, 0, 1.0)
    data[1] = 7.0  # the caller's array is not the pair's
    assert pair.dataset[1] == 0.0
    with pytest.raises(ValueError):
        pair.neighbour[1] = 5.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.neighbour = np.zeros(4)
    swapped = pair.swapped()
    assert np.array_equal(swapped.dataset, pair.neighbour) and swapped.relation is REPLACE


@pytest.mark.parametrize("a,b,message", [
    (np.zeros(3), np.zeros(3), "exactly one record, got 0"),
    (np.zeros(3), np.array([1.0, 1.0, 0.0]), "exactly one record, got 2"),
    (np.zeros(3), np.zeros(4), "same number of records"),
    (np.zeros((3, 2)), np.zeros((3, 3)), "same shape"),
])
def test_replace_one_rejects_non_neighbours(a, b, message):
    with pytest.raises(ParameterError, match=message):
        assert_neighbours(a, b, REPLACE)
    with pytest.raises(ParameterError):
        NeighbouringPair(a, b, REPLACE)


@pytest.mark.parametrize("a,b,message", [
    (np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0, 5.0]), "sub-multiset"),
    (np.array([1.0, 1.0, 2.0]), np.array([1.0, 2.0, 2.0, 3.0]), "sub-multiset"),
    (np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0, 4.0]), "differ in size by exactly one"),
    (np.array([1.0, 2.0]), np.array([2.0, 1.0]), "differ in size by exactly one"),
])
def test_add_remove_one_rejects_non_neighbours(a, b, message):
    with pytest.raises(ParameterError, match=message):
        assert_neighbours(a, b, ADD_REMOVE)
    with pytest.raises(ParameterError, match=message):
        assert_neighbours(b, a, "add/remove-one")


def test_add_remove_ignores_order():
    assert_neighbours(np.array([3.0, 1.0, 2.0]), np.array([2.0, 3.0]), ADD_REMOVE)


def test_replace_one_rejects_an_identical_record():
    with pytest.raises(ParameterError, match="exactly one record, got 0"):
        replace_one(np.arange(3.0), 1, 1.0)


@pytest.mark.parametrize("call,error", [
    (lambda: replace_one(np.array([1.0, np.nan]), 0, 2.0), ParameterError),
    (lambda: replace_one(np.array([1.0, np.inf]), 0, 2.0), ParameterError),
    (lambda: replace_one(np.zeros(3), 0, np.nan), ParameterError),
    (lambda: replace_one(np.zeros(3), 3, 1.0), ParameterError),
    (lambda: replace_one(np.zeros(3), 1.0, 1.0), TypeError),
    (lambda: replace_one(np.zeros((3, 2)), 0, [1.0]), ParameterError),
    (lambda: replace_one(np.array(["a", "b"]), 0, "c"), TypeError),
    (lambda: replace_one("abc", 0, 1.0), TypeError),
    (lambda: replace_one(np.float64(1.0), 0, 1.0), ParameterError),
    (lambda: replace_one((np.zeros(3), np.zeros(4)), 0, (1.0, 1.0)), ParameterError),
    (lambda: replace_one((np.zeros(3), np.zeros(3)), 0, 1.0), ParameterError),
    (lambda: add_remove_one(np.zeros(3)), ParameterError),
    (lambda: add_remove_one(np.zeros(3), record=1.0, index=0), ParameterError),
    (lambda: add_remove_one(np.zeros(0), index=0), ParameterError),
    (lambda: as_relation("swap-one"), ParameterError),
    (lambda: as_relation(3), TypeError),
    (lambda: assert_neighbours(np.zeros(3), (np.zeros(3),), REPLACE), ParameterError),
])
def test_bad_input_is_rejected(call, error):
    with pytest.raises(error):
        call()


@settings(max_examples=50)
@given(data=hnp.arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 3)),
                       elements=st.floats(-10, 10, allow_nan=False, width=32)),
       index=st.integers(0, 7), shift=st.floats(0.5, 5))
def test_generated_pairs_always_satisfy_their_relation(data, index, shift):
    index = index % data.shape[0]
    record = data[index] + shift
    pair = replace_one(data, index, record)
    assert_neighbours(pair.dataset, pair.neighbour, REPLACE)
    with pytest.raises(ParameterError):
        assert_neighbours(pair.dataset, pair.neighbour, ADD_REMOVE)
    added = add_remove_one(data, record=record)
    assert_neighbours(added.neighbour, data, ADD_REMOVE)
    removed = add_remove_one(added.neighbour, index=-1)
    assert np.array_equal(removed.neighbour, data)
    # Shuffling keeps add/remove-one neighbours (multisets) neighbours.
    perm = np.random.default_rng(index).permutation(added.neighbour.shape[0])
    assert_neighbours(data, added.neighbour[perm], ADD_REMOVE)
