"""reference.wang20.catoni_giulini: every regime of the float evaluation against the spec's mpmath
oracle, the clamp where eq. (10) in floats fails, and the robust mean's sensitivity."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.wang20 import catoni_giulini as cg
from spec.wang20 import catoni_giulini as oracle

C = 2 * math.sqrt(2) / 3

#: (a, b) in every regime: negligible tails, the erfc closed form, the tail regime, b = 0, extremes.
POINTS = [(a * s, b) for a in (0.0, 1e-8, 1e-3, 0.3, 1.0, 1.41, 1.5, 3.0, 7.9, 8.1, 30.0, 1e3, 1e6, 1e12, 1e100)
          for b in (0.0, 1e-6, 0.01, 0.3, 1.0, 4.0, 10.0, 1e3, 1e12) for s in (1, -1)]


def _oracle(a, b):
    return float(oracle.smoothed_truncation(a, b))


def test_smoothed_truncation_matches_mpmath_in_every_regime():
    a = np.array([p[0] for p in POINTS])
    b = np.array([p[1] for p in POINTS])
    got = cg.smoothed_truncation(a, b)
    want = np.array([_oracle(x, y) for x, y in POINTS])
    np.testing.assert_allclose(got, want, rtol=0, atol=5e-14)


@settings(max_examples=200, deadline=None)
@given(x=st.one_of(st.just(0.0), st.floats(min_value=1e-30, max_value=1e15), st.floats(min_value=-1e15, max_value=-1e-30)),
       beta=st.floats(min_value=1e-2, max_value=1e4), s=st.floats(min_value=1e-3, max_value=1e3))
def test_the_terms_of_eq_10_match_mpmath(x, beta, s):
    a, b = x / s, abs(x) / (s * math.sqrt(beta))
    assert float(cg.smoothed_truncation(a, b)) == pytest.approx(_oracle(a, b), abs=5e-14)


def test_the_clamp_keeps_every_term_inside_the_bound_where_floats_fail():
    """The spec's hazard: eq. (10) in float64 at a = 1e6 (beta = 2 ln 1e5) is off by more than c."""
    beta = 2 * math.log(1e5)
    a = 1e6
    b = a / math.sqrt(beta)
    naive = a * (1 - b * b / 2) - a**3 / 6 + float(cg.correction(np.array([a]), np.array([b]))[0])
    assert abs(naive - _oracle(a, b)) > 0.9  # eq. (9)/(10) as printed, in floats: garbage (the spec's flag)
    assert float(cg.smoothed_truncation(a, b)) == pytest.approx(_oracle(a, b), abs=1e-14)
    extreme = np.concatenate([np.logspace(-3, 300, 400), -np.logspace(-3, 300, 400)])
    terms = cg.smoothed_truncation(extreme, np.abs(extreme) / math.sqrt(beta))
    assert np.all(np.abs(terms) <= cg.PHI_BOUND)
    # the clamp is no wider than the exact bound the sensitivity uses
    with mpmath.workdps(60):
        assert mpmath.mpf(cg.PHI_BOUND) <= 2 * mpmath.sqrt(2) / 3
    assert cg.PHI_BOUND == pytest.approx(C, rel=1e-15)


def test_correction_matches_the_spec_where_it_is_used():
    pts = [(a, b) for a, b in POINTS if abs(a) + b <= 8]
    a = np.array([p[0] for p in pts])
    b = np.array([p[1] for p in pts])
    want = np.array([float(oracle.correction(x, y)) for x, y in pts])
    np.testing.assert_allclose(cg.correction(a, b), want, rtol=0, atol=1e-13)


def test_phi_is_eq_6():
    x = np.array([-3.0, -math.sqrt(2), -0.5, 0.0, 0.5, math.sqrt(2), 3.0])
    want = [float(oracle.PHI.subs(oracle.x, v)) for v in x]
    np.testing.assert_allclose(cg.phi(x), want, rtol=1e-15)


def test_smoothed_truncation_rejects_bad_input():
    with pytest.raises(ValueError):
        cg.smoothed_truncation(1.0, -1.0)
    with pytest.raises(ValueError):
        cg.smoothed_truncation(np.inf, 1.0)


def test_robust_mean_matches_the_oracle_average():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_t(2, size=200) * 10 ** rng.uniform(-3, 12, size=200), [0.0, 1e12, -1e12]])
    for beta in (0.1, 2 * math.log(1e3), 27.6, 1e4):
        for s in (0.01, 1.0, 100.0):
            got = float(cg.robust_mean(x, truncation_scale=s, noise_precision=beta))
            want = s * np.mean([_oracle(v / s, abs(v) / (s * math.sqrt(beta))) for v in x])
            assert got == pytest.approx(want, abs=1e-12 * s)


def test_robust_mean_axis_and_shape():
    rng = np.random.default_rng(1)
    g = rng.standard_t(3, size=(4, 50, 3))
    a = cg.robust_mean(g, truncation_scale=2.0, noise_precision=10.0, axis=-2)
    b = cg.robust_mean(np.swapaxes(g, -1, -2), truncation_scale=2.0, noise_precision=10.0)
    assert a.shape == (4, 3)
    np.testing.assert_allclose(a, b, rtol=1e-14)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), min_size=2, max_size=20),
       replacement=st.floats(min_value=-1e300, max_value=1e300, allow_nan=False),
       s=st.floats(min_value=1e-3, max_value=1e3), beta=st.floats(min_value=1e-2, max_value=1e3))
def test_replacing_one_value_moves_the_robust_mean_by_at_most_the_sensitivity(values, replacement, s, beta):
    """|change| <= 2 c s/n (wang20.eq_9: each term in [-c s, c s]), up to the rounding of the mean."""
    x = np.array(values)
    y = x.copy()
    y[0] = replacement
    n = x.size
    change = abs(float(cg.robust_mean(x, truncation_scale=s, noise_precision=beta))
                 - float(cg.robust_mean(y, truncation_scale=s, noise_precision=beta)))
    assert change <= 2 * C * s / n * (1 + 1e-12) + 4 * n * 2.0**-53 * C * s
