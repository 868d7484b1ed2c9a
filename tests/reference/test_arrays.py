"""Tests of reference.arrays (l2_norm's row maximum; the validators are tested where they are used)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from reference import arrays
from reference.arrays import l2_norm

# finite and non-finite entries, zeros of both signs, and magnitudes that overflow when squared
ENTRIES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-300, -1e300, 5e-324]),
)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), rows=st.integers(0, 600), p=st.integers(0, 12), lead=st.booleans())
def test_row_max_is_the_reduction_bit_for_bit(data, rows, p, lead):
    """The column-by-column branch (short rows, many of them) returns the numbers the reduction
    along the last axis returns, NaN and infinities included; so does every other shape."""
    shape = (2, rows, p) if lead else (rows, p)
    x = data.draw(hnp.arrays(np.float64, shape, elements=ENTRIES))
    a = np.abs(x)
    got = arrays._row_max(a)
    want = a.max(axis=-1, initial=0.0)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_row_max_column_branch_on_the_batched_shapes():
    """The shapes that take the column branch (at least 256 rows of 2 to 8 entries), seeded, with
    NaN, infinities and zero rows, equal the reduction bit for bit."""
    gen = np.random.default_rng(3)
    for shape in [(256, 2), (1200, 8), (4000, 8), (2, 300, 3)]:
        a = np.abs(gen.standard_cauchy(size=shape))
        flat = a.reshape(-1, shape[-1])
        flat[0] = np.nan
        flat[1, 0] = np.inf
        flat[2] = 0.0
        np.testing.assert_array_equal(arrays._row_max(a), a.max(axis=-1, initial=0.0))


def test_l2_norm_matches_the_scaled_formula_on_batched_shapes():
    """l2_norm on (1200, 8) rows: the largest magnitude times the root of the scaled squares, zero
    rows 0 and rows with an infinity inf, as its docstring states."""
    x = np.random.default_rng(7).normal(size=(1200, 8)) * 10.0 ** np.arange(-3, 5)
    x[3] = 0.0
    x[5, 2] = np.inf
    top = np.abs(x).max(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = x / top[:, None]
    expected = top * np.sqrt(np.einsum("ij,ij->i", y, y))
    expected[3], expected[5] = 0.0, np.inf
    np.testing.assert_array_equal(l2_norm(x), expected)


def _selected_norm(x):
    """l2_norm's general expression, written out: both selections, for every shape."""
    top = np.abs(x).max(axis=-1, initial=0.0)
    finite = np.isfinite(top) & (top > 0)
    safe = np.where(finite, top, 1.0)
    y = x / safe[..., None]
    return np.where(finite, safe * np.sqrt(np.einsum("...i,...i->...", y, y)), top)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(5,), (1, 5), (3, 72), (16, 4), (17, 4), (2, 9, 3), (300, 8)]))
def test_l2_norm_is_its_general_expression_bit_for_bit(data, shape):
    """Arrays whose rows are all finite and non-zero skip the two selections (checked in Python for
    at most 16 rows); the result is the general expression's, bit for bit, type and shape included,
    whatever the entries (NaN, infinities, zero rows, tiny and huge magnitudes)."""
    x = data.draw(hnp.arrays(np.float64, shape, elements=ENTRIES))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        got, want = l2_norm(x), _selected_norm(x)
    assert type(got) is type(want) and got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_l2_norm_takes_each_branch():
    """Both row-maximum checks (Python for few rows, numpy for many) and the general branch are reached
    and agree with the general expression on seeded data."""
    gen = np.random.default_rng(11)
    for rows in (1, 3, 16, 17, 1200):
        x = gen.normal(size=(rows, 8))
        assert arrays._finite_positive(np.abs(x).max(axis=-1))
        np.testing.assert_array_equal(l2_norm(x), _selected_norm(x))
        x[0] = 0.0
        assert not arrays._finite_positive(np.abs(x).max(axis=-1))
        np.testing.assert_array_equal(l2_norm(x), _selected_norm(x))
