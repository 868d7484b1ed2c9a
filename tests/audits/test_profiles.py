"""Tests of audits.profiles: ready-made profiles against independent closed forms."""

from __future__ import annotations

import math

import pytest
from scipy import special

from audits import profiles, stats
from spec import gaussian as spec_gaussian
from spec.errors import ParameterError


def gaussian_delta(eps, sigma, sens=1.0):
    """Balle-Wang analytic Gaussian profile, written out here (the oracle)."""
    mu = sens / sigma
    return special.ndtr(mu / 2 - eps / mu) - math.exp(eps) * special.ndtr(-mu / 2 - eps / mu)


def laplace_delta(eps, scale, sens=1.0):
    """Laplace profile: 1 - exp((eps - sens/scale)/2) below sens/scale, 0 above."""
    return max(0.0, 1.0 - math.exp((eps - sens / scale) / 2.0))


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.25, 0.49, 0.5, 2.0])
def test_laplace_profile_matches_the_closed_form(eps):
    ready = profiles.ready_profile("laplace:scale=2", epsilon=1.0)
    assert ready.kind == "laplace" and ready.parameters == {"scale": 2.0, "sensitivity": 1.0}
    assert ready.profile(eps) == pytest.approx(laplace_delta(eps, 2.0), rel=1e-9, abs=1e-15)
    sens = profiles.ready_profile("laplace:scale=2,sensitivity=0.5", epsilon=1.0)
    assert sens.profile(eps) == pytest.approx(laplace_delta(eps, 2.0, 0.5), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 3.0])
def test_gaussian_profiles_match_the_closed_form(eps):
    ready = profiles.ready_profile("gaussian:sigma=3", epsilon=1.0)
    assert ready.profile(eps) == pytest.approx(gaussian_delta(eps, 3.0), rel=1e-9, abs=1e-15)
    # T steps of sigma compose to one Gaussian of sigma / sqrt(T)
    four = profiles.ready_profile("gaussian:sigma=6,steps=4", epsilon=1.0)
    assert four.profile(eps) == pytest.approx(gaussian_delta(eps, 3.0), rel=1e-9, abs=1e-15)


def test_gaussian_at_a_calibration_meets_its_claim_and_nothing_less():
    """gaussian:epsilon=1,delta=1e-5 is the analytic calibration (sigma rounded up): its delta
    at eps = 1 is within 1e-6 relative of 1e-5 and, by the exact profile, at most 1e-5. (The
    closed form here runs in float64, about 1e-14 relative error: sigma is the smallest double
    whose exact delta is <= 1e-5, so float64 alone cannot decide the last digits.)"""
    ready = profiles.ready_profile("gaussian:epsilon=1,delta=1e-5", epsilon=2.0)
    sigma = ready.parameters["sigma"]
    assert sigma == spec_gaussian.analytic_sigma(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert 1e-5 * (1 - 1e-6) <= gaussian_delta(1.0, sigma) <= 1e-5 * (1 + 1e-12)
    assert spec_gaussian.exact_delta(1.0, sigma=sigma, sensitivity=1.0) <= 1e-5


def test_pure_and_record_profiles():
    pure = profiles.ready_profile("pure", epsilon=0.7)
    assert pure.profile(0.7) == 0.0 and pure.profile(0.3) > 0.0
    assert profiles.ready_profile("pure:epsilon=0.5", epsilon=0.7).parameters == {"epsilon": 0.5}
    # a record's calibration at the audit's epsilon: laplace.mechanism gives scale = sens/eps
    rec = profiles.ready_profile("record:laplace.mechanism,sensitivity=1", epsilon=0.5)
    assert rec.kind == "record" and rec.parameters["scale"] == pytest.approx(2.0)
    assert rec.profile(0.25) == pytest.approx(laplace_delta(0.25, 2.0), rel=1e-9)
    gauss = profiles.ready_profile("record:gaussian.analytic,sensitivity=1", epsilon=1.0, delta=1e-5)
    assert gauss.profile(1.0) <= 1e-5


def test_is_ready_profile_tells_apart_module_references():
    assert profiles.is_ready_profile("laplace:scale=1")
    assert profiles.is_ready_profile("pure")
    assert profiles.is_ready_profile("record:laplace.mechanism")
    assert not profiles.is_ready_profile("my_module:PROFILE")
    assert not profiles.is_ready_profile("laplace:PROFILE")  # a module named laplace


@pytest.mark.parametrize("text,message", [
    ("laplace", "needs scale=B"),
    ("laplace:scale=x", "scale ('x') must be a number"),
    ("laplace:sigma=1", "sigma not among its parameters"),
    ("gaussian:sigma=1,epsilon=1", "not both"),
    ("gaussian:epsilon=1", "needs sigma=S, or epsilon=E and delta=D"),
    ("gaussian:sigma=1,steps=1.5", "steps (1.5) must be a positive integer"),
    ("record:profiles.pure_dp", "has no calibration"),
    ("record:no.such_record", "no spec record"),
    ("record:", "needs a record id"),
])
def test_bad_profiles_name_the_problem(text, message):
    with pytest.raises(ParameterError, match=None) as info:
        profiles.ready_profile(text, epsilon=1.0, delta=1e-5)
    assert message in str(info.value)


def test_suggested_runs_follow_the_described_mechanism():
    lap = profiles.ready_profile("laplace:scale=1", epsilon=1.0)
    assert profiles.suggested_runs(lap, epsilon=1.0, delta=0.0, alpha=0.05, factor=0.8) == \
        stats.runs_for_laplace(scale=1.0, factor=0.8, epsilon=1.0, alpha=0.05, power=0.9)
    # no profile and delta = 0: the Laplace calibrated to epsilon, the same number
    assert profiles.suggested_runs(None, epsilon=1.0, delta=0.0, alpha=0.05, factor=0.8) == \
        stats.runs_for_laplace(scale=1.0, factor=0.8, epsilon=1.0, alpha=0.05, power=0.9)
    # a smaller bug needs more runs; a higher power needs more runs
    small = profiles.suggested_runs(lap, epsilon=1.0, delta=0.0, alpha=0.05, factor=0.9)
    assert small > profiles.suggested_runs(lap, epsilon=1.0, delta=0.0, alpha=0.05, factor=0.8)
    gauss = profiles.ready_profile("gaussian:sigma=4", epsilon=1.0)
    assert profiles.suggested_runs(gauss, epsilon=1.0, delta=1e-5, alpha=0.05, power=0.99) > \
        profiles.suggested_runs(gauss, epsilon=1.0, delta=1e-5, alpha=0.05, power=0.5)
