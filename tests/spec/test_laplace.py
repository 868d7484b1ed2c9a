"""spec.laplace: the calibration and the exact profile, against mpmath quadrature."""

from __future__ import annotations

import math
from pathlib import Path

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

import spec
from spec import laplace
from spec.errors import PrivacyParameterError
from spec.record import Neighbouring

ROOT = Path(__file__).resolve().parents[2]


def quad_delta(eps, scale, sensitivity):
    """integral of max(0, p - e^eps q) for p = Lap(0, scale), q = Lap(sensitivity, scale)."""
    with mpmath.workdps(40):
        eps, b, d = mpmath.mpf(eps), mpmath.mpf(scale), mpmath.mpf(sensitivity)
        factor = mpmath.exp(eps)

        def p(x):
            return mpmath.exp(-abs(x) / b) / (2 * b)

        def q(x):
            return mpmath.exp(-abs(x - d) / b) / (2 * b)

        def gap(x):
            return p(x) - factor * q(x)

        # Split at the densities' kinks (0, d) and, if the sign of p - e^eps q changes inside (0, d),
        # at the crossing found numerically by bisection (not from the closed form).
        points = [-mpmath.inf, mpmath.mpf(0), d, mpmath.inf]
        if gap(0) > 0 > gap(d):
            lo, hi = mpmath.mpf(0), d
            for _ in range(200):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if gap(mid) > 0 else (lo, mid)
            points = [-mpmath.inf, mpmath.mpf(0), lo, d, mpmath.inf]
        return mpmath.quad(lambda x: max(mpmath.mpf(0), gap(x)), points)


@pytest.mark.parametrize(
    "eps, scale, sensitivity",
    [(0.0, 1.0, 1.0), (0.25, 1.0, 1.0), (0.9, 1.0, 1.0), (0.5, 0.1, 1.0), (3.0, 0.2, 1.0),
     (0.01, 10.0, 2.0), (1.0, 1.0, 1.0), (2.0, 1.0, 1.0)],
)
def test_profile_matches_quadrature(eps, scale, sensitivity):
    exact = laplace.exact_delta(eps, scale=scale, sensitivity=sensitivity)
    numeric = quad_delta(eps, scale, sensitivity)
    if eps >= sensitivity / scale:
        assert exact == 0.0 and numeric < mpmath.mpf(10) ** -30
    else:
        assert abs(exact - numeric) <= 1e-10 * numeric
        assert mpmath.mpf(exact) >= 1 - mpmath.exp((mpmath.mpf(eps) - mpmath.mpf(sensitivity) / scale) / 2)


def test_profile_at_zero_is_total_variation():
    # TV(Lap(0,1), Lap(1,1)) = (1/2) integral |p - q|, computed by quadrature
    with mpmath.workdps(30):
        tv = mpmath.quad(  # split at the kinks of |p - q|
            lambda x: abs(mpmath.exp(-abs(x)) - mpmath.exp(-abs(x - 1))) / 4, [-mpmath.inf, 0, 0.5, 1, mpmath.inf]
        )
    assert laplace.exact_delta(0.0, scale=1.0, sensitivity=1.0) == pytest.approx(float(tv), rel=1e-14)


@settings(max_examples=50)
@given(st.floats(-3, 2).map(lambda x: 10**x), st.floats(-3, 3).map(lambda x: 10**x))
def test_calibrated_scale_is_pure_dp(eps, sensitivity):
    b = laplace.laplace_scale(epsilon=eps, sensitivity=sensitivity)
    assert b >= sensitivity / eps * (1 - 1e-15)
    with mpmath.workdps(60):
        assert mpmath.mpf(b) >= mpmath.mpf(sensitivity) / mpmath.mpf(eps)  # rounded up
    assert laplace.exact_delta(eps, scale=b, sensitivity=sensitivity) == 0.0
    # and not DP at any smaller epsilon: the profile is positive just below
    assert laplace.exact_delta(eps * (1 - 1e-6), scale=b, sensitivity=sensitivity) > 0.0


@settings(max_examples=50)
@given(st.floats(0, 5), st.floats(0, 5), st.floats(-2, 2).map(lambda x: 10**x))
def test_profile_decreases_in_epsilon_and_scale(e1, e2, scale):
    lo, hi = sorted((e1, e2))
    at_lo = laplace.exact_delta(lo, scale=scale, sensitivity=1.0)
    assert laplace.exact_delta(hi, scale=scale, sensitivity=1.0) <= at_lo
    assert laplace.exact_delta(lo, scale=2 * scale, sensitivity=1.0) <= at_lo


def test_profile_callable():
    f = laplace.profile(scale=2.0, sensitivity=1.0)
    assert (f.scale, f.sensitivity) == (2.0, 1.0)
    assert f(0.1) == laplace.exact_delta(0.1, scale=2.0, sensitivity=1.0)
    assert laplace.MECHANISM.privacy.profile is laplace.profile


@pytest.mark.parametrize("record", laplace.RECORDS, ids=lambda r: r.id)
def test_record_renders_registers_and_flags_resolve(record):
    assert spec.get(record.id) is record
    assert record.id in str(record) and r"\begin{description}" in record.to_latex()
    assert record.conventions.neighbouring is Neighbouring.REPLACE_ONE
    assert record.privacy.neighbouring is Neighbouring.REPLACE_ONE


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_rejected(bad):
    for call, name in (
        (lambda v: laplace.laplace_scale(epsilon=v, sensitivity=1.0), "epsilon"),
        (lambda v: laplace.laplace_scale(epsilon=1.0, sensitivity=v), "sensitivity"),
        (lambda v: laplace.exact_delta(v, scale=1.0, sensitivity=1.0), "epsilon"),
        (lambda v: laplace.exact_delta(1.0, scale=v, sensitivity=1.0), "scale"),
        (lambda v: laplace.exact_delta(1.0, scale=1.0, sensitivity=v), "sensitivity"),
        (lambda v: laplace.profile(scale=v, sensitivity=1.0), "scale"),
        (lambda v: laplace.profile(scale=1.0, sensitivity=v), "sensitivity"),
        (lambda v: laplace.profile(scale=1.0, sensitivity=1.0)(v), "epsilon"),
    ):
        with pytest.raises(PrivacyParameterError, match=rf"^{name} \((nan|inf|-inf)\) must be"):
            call(bad)


@pytest.mark.parametrize("bad", ["1", None, True, 1j])
def test_wrong_types_rejected(bad):
    with pytest.raises(TypeError, match="^epsilon"):
        laplace.laplace_scale(epsilon=bad, sensitivity=1.0)
    with pytest.raises(TypeError, match="^scale"):
        laplace.exact_delta(1.0, scale=bad, sensitivity=1.0)
    with pytest.raises(TypeError, match="^sensitivity"):
        laplace.profile(scale=1.0, sensitivity=bad)


def test_out_of_range_messages():
    with pytest.raises(PrivacyParameterError) as info:
        laplace.laplace_scale(epsilon=0.0, sensitivity=1.0)
    assert str(info.value) == "epsilon (0.0) must be > 0"
    with pytest.raises(PrivacyParameterError) as info:
        laplace.exact_delta(-0.5, scale=1.0, sensitivity=1.0)
    assert str(info.value) == "epsilon (-0.5) must be >= 0"
    with pytest.raises(PrivacyParameterError) as info:
        laplace.profile(scale=-1.0, sensitivity=1.0)
    assert str(info.value) == "scale (-1.0) must be > 0"
    with pytest.raises(PrivacyParameterError) as info:
        laplace.laplace_scale(epsilon=1.0, sensitivity=0.0)
    assert str(info.value) == "sensitivity (0.0) must be > 0"
