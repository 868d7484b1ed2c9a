from __future__ import annotations

import numpy as np
import pytest

from reference.rng import as_generator, fresh_seed


def test_int_and_seedsequence_are_reproducible():
    a = as_generator(123).standard_normal(5)
    b = as_generator(123).standard_normal(5)
    c = as_generator(np.random.SeedSequence(123)).standard_normal(5)
    assert np.array_equal(a, b) and np.array_equal(a, c)


def test_generator_passes_through():
    g = np.random.default_rng(0)
    assert as_generator(g) is g


def test_none_gives_fresh_entropy():
    assert not np.array_equal(as_generator(None).random(4), as_generator(None).random(4))


@pytest.mark.parametrize("bad", [True, 1.5, "1", np.random.RandomState(0), [1]])
def test_bad_types(bad):
    with pytest.raises(TypeError):
        as_generator(bad)


def test_negative_seed():
    with pytest.raises(ValueError, match=r"rng \(-1\) must be >= 0"):
        as_generator(-1)


def test_fresh_seed_is_nonnegative_int():
    s = fresh_seed()
    assert isinstance(s, int) and 0 <= s < 2**63


def test_no_global_state_touched():
    saved = np.random.get_state()  # restored so that this test leaves the legacy state as found
    try:
        np.random.seed(7)
        before = np.random.get_state()
        as_generator(1).standard_normal(10)
        as_generator(None).standard_normal(10)
        after = np.random.get_state()
        assert np.array_equal(after[1], before[1]) and after[2:] == before[2:]
    finally:
        np.random.set_state(saved)
