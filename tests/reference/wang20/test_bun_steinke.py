"""reference.wang20.bun_steinke (Algorithm 2): the numpy smooth bound against the spec's exact one,
the trimmed mean against exact fractions, the release against its tape, and the constants against
the records."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.tape import Recorder, Replay
from reference.wang20 import bun_steinke as bs
from spec.errors import AssumptionError, ParameterError
from spec.wang20 import bun_steinke as spec

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(finite, min_size=3, max_size=12), data=st.data(),
       t=st.floats(min_value=1e-4, max_value=2.0), form=st.sampled_from(bs.FORMS))
def test_smooth_bound_matches_the_exact_spec_function(values, data, t, form):
    n = len(values)
    m = data.draw(st.integers(min_value=0, max_value=(n - 1) // 2))
    a = data.draw(st.floats(min_value=-10, max_value=9))
    b = a + data.draw(st.floats(min_value=0.01, max_value=10))
    got = float(bs.smooth_bound(values, trim=m, dilation=t, mean_lower=a, mean_upper=b, form=form))
    exact = spec.smooth_bound(values, trim=m, dilation=t, mean_lower=a, mean_upper=b, form=form)
    # never below the exact bound (the noise scale is rounded up), within a few ulps above it
    assert exact <= got <= exact * (1 + 1e-14)


def test_smooth_bound_is_batched_and_handles_huge_values():
    rng = np.random.default_rng(0)
    x = rng.standard_t(2, size=(4, 3, 9)) * 1e3
    x[0, 0, 0] = 1e300
    x[1, 1, 1] = -1e300
    got = bs.smooth_bound(x, trim=2, dilation=0.1, mean_lower=-1.0, mean_upper=1.0)
    assert got.shape == (4, 3)
    for idx in np.ndindex(4, 3):
        exact = spec.smooth_bound(x[idx].tolist(), trim=2, dilation=0.1, mean_lower=-1.0, mean_upper=1.0)
        assert exact <= got[idx] <= exact * (1 + 1e-14)
    assert got[0, 0] <= 2.0 * (1 + 1e-14)  # capped by b - a whatever the extreme value


def test_counterexample_of_the_erratum():
    """n = 5, m = 1, [0, 4], t = 0.01: the printed bound jumps by 84.2, the corrected one by e^t."""
    x, y = [0, 1, 2, 3, 4], [0, 1, 2, 3, 1000]
    kw = dict(trim=1, dilation=0.01, mean_lower=0.0, mean_upper=4.0)
    printed = [float(bs.smooth_bound(v, form="printed", **kw)) for v in (x, y)]
    corrected = [float(bs.smooth_bound(v, **kw)) for v in (x, y)]
    assert printed[1] / printed[0] == pytest.approx(84.2, abs=0.05)
    assert corrected[1] / corrected[0] == pytest.approx(math.exp(0.01), rel=1e-13)


def _exact_clipped_trimmed_mean(values, m, a, b):
    xs = sorted(Fraction(v) for v in values)
    middle = xs[m:len(xs) - m]
    mean = sum(middle) / len(middle)
    return float(min(max(mean, Fraction(a)), Fraction(b)))


@settings(max_examples=100, deadline=None)
@given(values=st.lists(finite, min_size=3, max_size=15), data=st.data())
def test_clipped_trimmed_mean_matches_exact_fractions(values, data):
    n = len(values)
    m = data.draw(st.integers(min_value=0, max_value=(n - 1) // 2))
    a = data.draw(st.floats(min_value=-1e6, max_value=1e6))
    b = a + data.draw(st.floats(min_value=1e-3, max_value=1e6))
    got = float(bs.clipped_trimmed_mean(values, trim=m, mean_lower=a, mean_upper=b))
    assert got == pytest.approx(_exact_clipped_trimmed_mean(values, m, a, b), rel=1e-13, abs=1e-9)


def test_a_trimmed_extreme_value_does_not_perturb_the_mean():
    """Sum-then-subtract would lose the middle values to the rounding of 1e300; averaging the middle does not."""
    base = [0.1, 0.2, 0.3, 0.4, 0.5]
    for extreme in (1e300, -1e300, 1e17):
        got = float(bs.clipped_trimmed_mean(base + [extreme], trim=1, mean_lower=-1.0, mean_upper=1.0))
        assert got == _exact_clipped_trimmed_mean(base + [extreme], 1, -1.0, 1.0)


def test_release_is_statistic_plus_scaled_sinh_of_the_tape():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 2, 11))
    rec = Recorder(3)
    out, stat, bound, scale = bs.release(x, trim=2, dilation=0.05, shift=0.1, mean_lower=-1.0, mean_upper=1.0,
                                         noise=rec, label="wang20 Alg.2 L3 Y")
    (entry,) = rec.tape.entries
    assert entry.label == "wang20 Alg.2 L3 Y" and entry.values.shape == (5, 2)
    np.testing.assert_allclose(out, stat + scale * np.sinh(entry.values), rtol=0, atol=0)
    np.testing.assert_allclose(scale, bound / 0.1 * (1 + 16 * 2.0**-53))
    np.testing.assert_array_equal(scale, bs.noise_scale(x, trim=2, dilation=0.05, shift=0.1, mean_lower=-1.0,
                                                         mean_upper=1.0))


def test_trimmed_mean_takes_every_constant_from_the_record_and_replays():
    rng = np.random.default_rng(2)
    x = rng.standard_t(3, size=4000)
    res = bs.trimmed_mean(x, epsilon=1.0, mean_lower=-1.0, mean_upper=1.0, runs=7, noise=(rec := Recorder(4)))
    at = dict(epsilon=1.0, n=x.size, mean_lower=-1.0, mean_upper=1.0)
    assert res.trim == spec.ALG_2.evaluate("trim_default", **at)
    assert res.dilation == spec.ALG_2.evaluate("dilation", trim=res.trim, **at)
    assert res.shift == spec.ALG_2.evaluate("shift", trim=res.trim, **at)
    exact = spec.noise_scale(x.tolist(), trim=res.trim, dilation=res.dilation, shift=res.shift, mean_lower=-1.0,
                             mean_upper=1.0)
    assert exact <= res.noise_scale <= exact * (1 + 1e-13)
    assert res.value.shape == (7,) and res.spec_ids == bs.SPEC_IDS
    again = bs.trimmed_mean(x, epsilon=1.0, mean_lower=-1.0, mean_upper=1.0, runs=7, noise=Replay(rec.tape))
    np.testing.assert_array_equal(res.value, again.value)
    assert rec.tape.entries[0].label == bs.LABEL_Y


def test_trimmed_mean_rejects_bad_input():
    with pytest.raises(ParameterError, match="trim"):
        bs.trimmed_mean([1.0, 2.0, 3.0], epsilon=0.5, mean_lower=0.0, mean_upper=1.0, trim=2)
    with pytest.raises(ParameterError, match="mean_lower"):
        bs.trimmed_mean([1.0, 2.0, 3.0], epsilon=0.5, mean_lower=1.0, mean_upper=1.0)
    with pytest.raises(ParameterError, match="values"):
        bs.trimmed_mean([1.0, np.nan, 3.0], epsilon=0.5, mean_lower=0.0, mean_upper=1.0)
    with pytest.raises(AssumptionError):
        bs.trimmed_mean([1.0, 2.0, 3.0], epsilon=1.5, mean_lower=0.0, mean_upper=1.0, trim=0)
    with pytest.raises(ParameterError, match="form"):
        bs.smooth_bound([1.0, 2.0, 3.0], trim=0, dilation=0.1, mean_lower=0.0, mean_upper=1.0, form="seed")
