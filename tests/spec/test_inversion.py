"""spec.inversion: the one search behind every calibration.

Oracles: mpmath at 60 digits (exact roots of the certificates), and the doubles next to the result
(the certificate must hold at the result and fail one double below it).
"""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spec import gaussian, inversion
from spec.inversion import TOLERANCE, CertificateError

DIGITS = 60


def _power_margin(a, b, power, target):
    """margin of ``a / x^power + b <= target`` (nonincreasing in x), decided in 60-digit arithmetic."""
    def margin(x):
        with mpmath.workdps(DIGITS):
            return inversion.log_ratio(mpmath.mpf(a) / mpmath.mpf(x) ** power + mpmath.mpf(b), mpmath.mpf(target))
    return margin


def _power_root(a, b, power, target):
    with mpmath.workdps(DIGITS):
        return (mpmath.mpf(a) / (mpmath.mpf(target) - mpmath.mpf(b))) ** (1 / mpmath.mpf(power))


def _check_rounded_up(result: float, root) -> None:
    """``result`` is the smallest double at or above ``root``: within one ulp, on the safe side."""
    with mpmath.workdps(DIGITS):
        assert mpmath.mpf(result) >= root
        assert mpmath.mpf(math.nextafter(result, 0.0)) < root
        assert mpmath.mpf(result) - root <= TOLERANCE * root


positive = st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(a=positive, b=st.floats(0.0, 1.0), power=st.sampled_from([0.5, 1.0, 2.0, 3.0]),
       excess=st.floats(1e-3, 1e3), start=st.floats(1e-6, 1e6))
def test_smallest_is_the_root_rounded_up(a, b, power, excess, start):
    """Never overshoots (holds at the result), never undershoots (fails one double below), and is
    within TOLERANCE of the exact root; the start point does not matter."""
    target = b + excess
    margin = _power_margin(a, b, power, target)
    result = inversion.smallest(margin, start=start)
    assert margin(result) <= 0 < margin(math.nextafter(result, 0.0))
    _check_rounded_up(result, _power_root(a, b, power, target))
    assert inversion.smallest(margin, start=1.0) == result


@settings(max_examples=40, deadline=None)
@given(a=positive, power=st.sampled_from([1.0, 2.0]), targets=st.lists(st.floats(1e-3, 1e3), min_size=2, max_size=4))
def test_smallest_is_monotone_in_the_target(a, power, targets):
    """A stricter target (smaller certified value allowed) never gets a smaller parameter."""
    results = [inversion.smallest(_power_margin(a, 0.0, power, t), start=1.0) for t in sorted(targets)]
    assert all(x >= y for x, y in zip(results, results[1:]))


@settings(max_examples=40, deadline=None)
@given(a=positive, power=st.sampled_from([1.0, 2.0, 3.0]), target=st.floats(1e-3, 1e3), start=st.floats(1e-6, 1e6))
def test_largest_is_the_root_rounded_down(a, power, target, start):
    """largest: the certificate ``a x^power <= target`` holds at the result and fails one double above."""
    def margin(x):
        with mpmath.workdps(DIGITS):
            return inversion.log_ratio(mpmath.mpf(a) * mpmath.mpf(x) ** power, mpmath.mpf(target))

    result = inversion.largest(margin, start=start)
    assert margin(result) <= 0 < margin(math.nextafter(result, math.inf))
    with mpmath.workdps(DIGITS):
        root = (mpmath.mpf(target) / mpmath.mpf(a)) ** (1 / mpmath.mpf(power))
        assert mpmath.mpf(result) <= root < mpmath.mpf(math.nextafter(result, math.inf))
        assert root - mpmath.mpf(result) <= TOLERANCE * root


@settings(max_examples=40, deadline=None)
@given(need=st.integers(1, 10**12), start=st.integers(1, 10**12))
def test_integer_search_is_exact(need, start):
    calls = []

    def margin(k):
        calls.append(k)
        return need - k

    assert inversion.smallest(margin, start=start, integer=True) == need
    assert all(isinstance(k, int) for k in calls)


def test_a_boolean_certificate_and_the_edges_of_the_range():
    # a certificate that only says yes or no still gives the smallest double (by halving)
    assert inversion.smallest(lambda x: -1.0 if x >= 0.3 else 1.0, start=7.0) == 0.3
    # holding everywhere above the lower bound: the smallest value above it
    assert inversion.smallest(lambda x: -1.0, start=2.0, lower=1.0) == math.nextafter(1.0, 2.0)
    assert inversion.smallest(lambda k: -1.0, start=5, lower=3, integer=True) == 4
    with pytest.raises(CertificateError, match="no value up to"):
        inversion.smallest(lambda x: 1.0, start=1.0, upper=10.0)
    with pytest.raises(CertificateError, match="still holds"):
        inversion.largest(lambda x: -1.0, start=1.0, upper=10.0)
    with pytest.raises(CertificateError, match="fails already"):
        inversion.largest(lambda x: 1.0, start=1.0)
    with pytest.raises(CertificateError, match="nan"):
        inversion.smallest(lambda x: math.nan, start=1.0)
    with pytest.raises(ValueError, match="start"):
        inversion.smallest(lambda x: x, start=0.0)


def test_the_verify_step_catches_a_margin_that_is_not_a_function_of_x():
    seen = set()

    def flaky(x):  # holds above 1 the first time it is asked about a point, never again
        if x in seen:
            return 1.0
        seen.add(x)
        return -1.0 if x >= 1.0 else 1.0

    with pytest.raises(CertificateError, match="verify step"):
        inversion.smallest(flaky, start=3.0)


def test_few_evaluations_on_a_smooth_certificate():
    """Regula falsi (Illinois) on the bit patterns: far fewer evaluations than the 52+ of halving."""
    calls = []

    def margin(x):
        calls.append(x)
        return _power_margin(2.0, 0.0, 2.0, 1e-5)(x)

    inversion.smallest(margin, start=1.0)
    assert len(calls) <= 30


def _gaussian_sigma_root(epsilon, delta):
    """Oracle: the sigma (sensitivity 1) whose exact Balle-Wang delta equals ``delta``, at 60 digits."""
    with mpmath.workdps(DIGITS):
        e, d = mpmath.mpf(epsilon), mpmath.mpf(delta)

        def profile(s):
            mu = 1 / s
            return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu) - d

        lo, hi = mpmath.mpf("1e-3"), mpmath.mpf(1e4)  # profile(lo) > 0 > profile(hi)
        for _ in range(250):  # plain bisection at 60 digits: slow, obviously right
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if profile(mid) > 0 else (lo, mid)
        return hi


@settings(max_examples=15, deadline=None)
@given(epsilon=st.floats(0.05, 20.0), delta=st.sampled_from([1e-3, 1e-5, 1e-8]))
def test_analytic_sigma_against_the_mpmath_oracle(epsilon, delta):
    """gaussian.analytic_sigma (through spec.inversion) is the exact root rounded up."""
    sigma = gaussian.analytic_sigma(epsilon=epsilon, delta=delta, sensitivity=1.0)
    _check_rounded_up(sigma, _gaussian_sigma_root(epsilon, delta))
    assert gaussian.exact_delta(epsilon, sigma=sigma, sensitivity=1.0) <= delta


@settings(max_examples=10, deadline=None)
@given(epsilons=st.lists(st.floats(0.05, 10.0), min_size=2, max_size=3), delta=st.sampled_from([1e-3, 1e-6]))
def test_analytic_sigma_is_monotone_in_the_target(epsilons, delta):
    sigmas = [gaussian.analytic_sigma(epsilon=e, delta=delta, sensitivity=1.0) for e in sorted(epsilons)]
    assert all(x >= y for x, y in zip(sigmas, sigmas[1:]))
    assert gaussian.analytic_sigma(epsilon=1.0, delta=delta / 10, sensitivity=1.0) \
        >= gaussian.analytic_sigma(epsilon=1.0, delta=delta, sensitivity=1.0)


def test_exact_epsilon_is_the_smallest_double_that_certifies():
    eps = gaussian.exact_epsilon(1e-5, sigma=3.0, sensitivity=1.0)
    assert gaussian.exact_delta(eps, sigma=3.0, sensitivity=1.0) <= 1e-5
    assert gaussian.exact_delta(math.nextafter(eps, 0.0), sigma=3.0, sensitivity=1.0) > 1e-5


def test_classic_failure_epsilon_is_the_largest_private_double():
    eps = gaussian.classic_failure_epsilon(1e-5)
    sigma = gaussian.CLASSIC.evaluate_exact("sigma", epsilon=eps, delta=1e-5, sensitivity=1.0)
    above = math.nextafter(eps, math.inf)
    sigma_above = gaussian.CLASSIC.evaluate_exact("sigma", epsilon=above, delta=1e-5, sensitivity=1.0)
    # exact_delta takes a float sigma; the record's sigma is exact, so compare the exact profile directly
    assert gaussian._delta_upper(eps, sigma, 1, 1) <= 1e-5 < gaussian._delta_upper(above, sigma_above, 1, 1)
