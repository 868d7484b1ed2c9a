"""Tests of spec.profiles: the profile implied by pure DP and the radial-Laplace rate.

Oracles: the hockey-stick divergence of binary randomized response computed in mpmath by
``spec.exponential.exact_discrete_profile`` (attainment), a brute-force maximisation of
``x - e^e y`` over the two epsilon-DP constraints on an event and its complement (the bound),
and random epsilon-DP pairs of finite distributions (the bound holds for all of them).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spec
from spec import profiles
from spec.errors import PrivacyParameterError
from spec.exponential import exact_discrete_profile


def rr(epsilon):
    """Binary randomized response: the output laws on the two neighbours (mpmath)."""
    with mpmath.workdps(50):
        e = mpmath.exp(epsilon)
        return (e / (1 + e), 1 / (1 + e)), (1 / (1 + e), e / (1 + e))


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 3.0, 10.0])
def test_randomized_response_attains_the_profile(epsilon):
    p, q = rr(epsilon)
    hockey = exact_discrete_profile(p, q)
    f = profiles.pure_dp_profile(epsilon)
    for at in np.concatenate([np.linspace(0, epsilon, 23), [epsilon * 1.5, epsilon + 5]]):
        # The oracle rounds p and q to floats: agreement to 1e-15 absolute.
        assert f(at) == pytest.approx(hockey(at), rel=1e-12, abs=1e-15)


def brute_force_delta(epsilon, at, grid=200_001):
    """max over x in [0,1] of x - e^at * y_min(x), y_min(x) = max(x e^-eps, 1 - e^eps (1 - x), 0).

    For an event S with P(S) = x, the two epsilon-DP inequalities (S in one order, S^c in the
    other) force Q(S) >= y_min(x); the hockey-stick divergence is the largest x - e^at Q(S)."""
    x = np.linspace(0.0, 1.0, grid)
    y = np.maximum.reduce([x * math.exp(-epsilon), 1 - math.exp(epsilon) * (1 - x), np.zeros_like(x)])
    return max(0.0, float(np.max(x - math.exp(at) * y)))


@pytest.mark.parametrize("epsilon,at", [(1.0, 0.0), (1.0, 0.3), (1.0, 0.99), (2.5, 1.0), (0.2, 0.1),
                                        (1.0, 1.0), (1.0, 2.0)])
def test_profile_is_the_largest_delta_the_constraints_allow(epsilon, at):
    # The grid contains x = e^eps/(1+e^eps) only approximately: agreement to 1e-5.
    assert profiles.pure_dp_delta(at, epsilon=epsilon) == pytest.approx(
        brute_force_delta(epsilon, at), abs=1e-5)


@settings(max_examples=60, deadline=None)
@given(epsilon=st.floats(0.01, 5.0), size=st.integers(2, 6), seed=st.integers(0, 2**32 - 1),
       at=st.floats(0.0, 6.0))
def test_every_pure_dp_pair_is_below_the_profile(epsilon, size, seed, at):
    """Random pairs with likelihood ratios in [e^-eps, e^eps]: their hockey-stick divergence at
    any epsilon' is at most the profile."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(size))
    ratio = np.exp(rng.uniform(-epsilon, epsilon, size))
    p = q * ratio
    p /= p.sum()
    # Normalising moves ratios by at most the normaliser: rescale the budget accordingly.
    true_eps = float(np.max(np.abs(np.log(p / q))))
    assert exact_discrete_profile(p, q)(at) <= profiles.pure_dp_delta(at, epsilon=true_eps) + 1e-12


def test_profile_shape_and_values():
    f = profiles.pure_dp_profile(1.0)
    assert f.epsilon == 1.0
    assert f(0.0) == pytest.approx((math.e - 1) / (math.e + 1), rel=1e-15)  # total variation of RR
    values = [f(x) for x in np.linspace(0, 1, 50)]
    assert all(a > b for a, b in zip(values[:-2], values[1:-1]))
    assert f(1.0) == 0.0 and f(7.0) == 0.0


def test_rounded_up_against_mpmath():
    with mpmath.workdps(60):
        for eps_, at in [(1.0, 0.1), (0.3, 0.0), (4.0, 3.999)]:
            exact = (mpmath.exp(eps_) - mpmath.exp(at)) / (1 + mpmath.exp(eps_))
            got = profiles.pure_dp_delta(at, epsilon=eps_)
            assert mpmath.mpf(got) >= exact
            assert mpmath.mpf(got) - exact <= abs(exact) * 2**-52


def test_record_evaluates_to_the_same_function():
    rec = spec.get("profiles.pure_dp")
    assert rec.evaluate("delta", epsilon=0.7, epsilon_prime=0.2) == profiles.pure_dp_delta(0.2, epsilon=0.7)
    assert rec.privacy.profile is profiles.pure_dp_profile


def test_radial_laplace_rate_from_its_record():
    rec = spec.get("profiles.radial_laplace")
    assert profiles.radial_laplace_rate(epsilon=0.5, sensitivity=3.0) == rec.evaluate(
        "rate", epsilon=0.5, sensitivity=3.0)
    with mpmath.workdps(60):
        for e, s in [(1.0, 3.0), (0.1, 0.7), (2.0, 1e-3)]:
            assert mpmath.mpf(profiles.radial_laplace_rate(epsilon=e, sensitivity=s)) <= mpmath.mpf(e) / s


@pytest.mark.parametrize("call,message", [
    (lambda: profiles.pure_dp_profile(0.0), r"epsilon \(0.0\) must be > 0"),
    (lambda: profiles.pure_dp_profile(-1.0), r"epsilon \(-1.0\) must be > 0"),
    (lambda: profiles.pure_dp_profile(1.0)(-0.5), r"epsilon_prime \(-0.5\) must be >= 0"),
    (lambda: profiles.pure_dp_delta(math.nan, epsilon=1.0), r"epsilon_prime \(nan\)"),
    (lambda: profiles.radial_laplace_rate(epsilon=1.0, sensitivity=0.0), r"sensitivity \(0.0\) must be > 0"),
])
def test_bad_values_are_rejected(call, message):
    with pytest.raises(PrivacyParameterError, match=message):
        call()


def test_bad_types_are_rejected():
    with pytest.raises(TypeError):
        profiles.pure_dp_profile("1")
    with pytest.raises(TypeError):
        profiles.pure_dp_profile(1.0)(True)


# --------------------------------------------------------------------------- composed pure DP (kov15)


def _k_fold_randomized_response(epsilon, k):
    """The two laws of k-fold binary randomized response on all 2^k outcomes (brute force)."""
    import itertools

    p = mpmath.exp(epsilon) / (1 + mpmath.exp(epsilon))
    a, b = [], []
    for bits in itertools.product((0, 1), repeat=k):
        j = sum(bits)
        a.append(p ** (k - j) * (1 - p) ** j)
        b.append((1 - p) ** (k - j) * p**j)
    return a, b


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("epsilon", [0.1, 0.7, 2.0])
def test_composed_profile_is_k_fold_randomized_response(epsilon, k):
    from spec.exponential import exact_discrete_profile

    with mpmath.workdps(40):
        a, b = _k_fold_randomized_response(mpmath.mpf(epsilon), k)
        exact = exact_discrete_profile(a, b)
    f = profiles.composed_pure_dp_profile(epsilon, steps=k)
    for at in (0.0, epsilon / 3, epsilon, 1.5 * epsilon, k * epsilon * 0.9):
        want = float(exact(at))
        got = profiles.composed_pure_dp_delta(at, epsilon=epsilon, steps=k)
        assert got == f(at)
        # both are rounded up from 40 and 50 digits: they agree to an ulp
        assert want * (1 - 1e-14) - 1e-15 <= got <= want * (1 + 1e-12) + 1e-300
    assert f(k * epsilon * (1 + 1e-12)) == 0.0 and f(k * epsilon + 1) == 0.0


def test_composed_profile_of_one_step_is_the_pure_profile():
    for e in (0.05, 1.0, 4.0):
        for at in (0.0, e / 2, e):
            assert profiles.composed_pure_dp_delta(at, epsilon=e, steps=1) == profiles.pure_dp_delta(at, epsilon=e)


def test_composed_profile_is_below_advanced_composition():
    """Dwork-Rothblum-Vadhan (Form A) is a valid bound on the same composition, so KOV's exact profile is
    below it at every delta' (its epsilon')."""
    from spec import composition

    for e, k in ((0.1, 10), (0.3, 5)):
        for dprime in (1e-2, 1e-4):
            eps_total, _ = composition.advanced(epsilon=e, delta=0.0, steps=k, delta_prime=dprime)
            assert profiles.composed_pure_dp_delta(eps_total, epsilon=e, steps=k) <= dprime


def test_composed_profile_rejects_bad_values():
    with pytest.raises(Exception, match="steps"):
        profiles.composed_pure_dp_profile(1.0, steps=0)
    with pytest.raises(Exception, match="epsilon"):
        profiles.composed_pure_dp_delta(0.5, epsilon=-1.0, steps=2)
