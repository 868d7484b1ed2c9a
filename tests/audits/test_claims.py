"""Tests of audits.claims: the claimed bound B(a) of profile mode.

Oracles (none computed by the code under test):

* pure eps-DP: ``B(a) = min(1, e^eps a, 1 - e^-eps (1 - a))`` in closed form;
* profiles that are piecewise ``A - C e^eps`` between kinks (mixtures of pure-DP profiles, the
  k-fold composition of eps-DP): each line of ``B``'s definition is monotone in ``e^eps`` (or
  ``e^-eps``) between kinks, so the infimum over ``eps >= 0`` is a minimum over ``{0} u kinks``,
  evaluated here in mpmath;
* trade-off objects: ``B(a) = 1 - f(a)`` with ``f`` in closed form.

The upper tolerances come from the documented eps grid (geometric in [1e-6, 64], 8000 points):
every eps in that range has a grid point in ``[eps, eps r]`` with ``r = (64/1e-6)^(1/7999)``.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audits.claims import SLACK, ClaimBound, claim_bound
from spec import profiles
from spec.errors import ParameterError

#: Largest ratio between neighbouring points of the documented eps grid.
RATIO = (64.0 / 1e-6) ** (1.0 / 7999)
#: Float error of evaluating the closed forms and the hull (far below SLACK).
TINY = 1e-12
A = np.concatenate([[0.0, 1.0], np.geomspace(1e-12, 0.5, 150), 1 - np.geomspace(1e-12, 0.5, 150),
                    np.linspace(0, 1, 101)])


def pure_b(a, eps):
    """Closed-form B(a) of pure eps-DP."""
    a = np.asarray(a, dtype=float)
    return np.minimum(1.0, np.minimum(math.exp(eps) * a, 1.0 - math.exp(-eps) * (1.0 - a)))


def pure_delta(eps):
    """Float closed form of the pure-DP profile max(0, (e^eps - e^e)/(1 + e^eps))."""
    return lambda e: max(0.0, (math.exp(eps) - math.exp(e)) / (1.0 + math.exp(eps)))


def b_from_kinks(delta, kinks, a):
    """Exact B(a) (mpmath) of a profile that is A - C e^eps between the given kinks."""
    with mpmath.workdps(40):
        out = []
        for x in np.atleast_1d(a):
            x = mpmath.mpf(float(x))
            best = mpmath.mpf(1)
            for e in {0.0, *kinks}:
                d, g = mpmath.mpf(delta(e)), mpmath.exp(mpmath.mpf(e))
                best = min(best, g * x + d, 1 - (1 - x - d) / g)
            out.append(float(best))
    return np.array(out)


class PureTradeoff:
    """Pure eps-DP as a trade-off function f(a) = max(0, 1 - e^eps a, e^-eps (1 - a))."""

    def __init__(self, eps):
        self.eps = eps

    def tradeoff(self, a):
        return max(0.0, 1.0 - math.exp(self.eps) * a, math.exp(-self.eps) * (1.0 - a))


# --------------------------------------------------------------------------------------------
# Profiles delta(eps)


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.01, 8.0), a=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_pure_dp_profile_off_grid_is_never_below_and_within_the_grid_step(eps, a):
    """Without eps on the grid: B_true <= B <= (the lines at eps r, where delta = 0) + SLACK."""
    got = claim_bound(pure_delta(eps), a)
    assert np.all(got >= pure_b(a, eps))
    assert np.all(got <= pure_b(a, eps * RATIO) + SLACK + TINY)


@settings(max_examples=25, deadline=None)
@given(eps=st.floats(0.01, 8.0), a=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_pure_dp_profile_with_the_kink_on_the_grid_is_exact(eps, a):
    got = claim_bound(pure_delta(eps), a, epsilons=(eps,))
    assert np.all(got >= pure_b(a, eps))
    assert np.all(got <= pure_b(a, eps) + SLACK + TINY)


def test_spec_pure_dp_profile_gives_the_closed_form():
    """The spec's mpmath profile (rounded up) through the public entry point, eps = 1.3."""
    got = claim_bound(profiles.pure_dp_profile(1.3), A, epsilons=(1.3,))
    assert np.all(got >= pure_b(A, 1.3)) and np.max(got - pure_b(A, 1.3)) <= SLACK + TINY


@pytest.mark.parametrize("eps0,steps", [(0.5, 3), (0.3, 4)])
def test_composed_pure_dp_profile_against_the_minimum_over_its_kinks(eps0, steps):
    """k-fold composition of eps0-DP (spec.profiles, Kairouz et al.): kinks at (k - 2j) eps0.
    With the kinks on the grid B is exact to SLACK; without them it is never below, and above
    by at most the grid step times the lines' eps-Lipschitz constant (e^eps max(a, C) <= e^eps
    for the first line, at most 1 for the second)."""
    delta = profiles.composed_pure_dp_profile(eps0, steps=steps)
    kinks = [(steps - 2 * j) * eps0 for j in range(steps + 1) if (steps - 2 * j) * eps0 > 0]
    exact = b_from_kinks(delta, kinks, A)
    on = ClaimBound(delta, kinks).exact(A)
    assert np.all(on >= exact) and np.max(on - exact) <= SLACK + TINY
    off = ClaimBound(delta).exact(A)
    top = max(kinks)
    assert np.all(off >= exact)
    assert np.max(off - exact) <= math.exp(top * RATIO) * top * (RATIO - 1) + SLACK
    assert np.max(off - exact) > 1e-6  # the kinks matter: the grid alone is not exact here


@settings(max_examples=30, deadline=None)
@given(eps=st.lists(st.floats(0.05, 5.0), min_size=1, max_size=4, unique=True),
       w=st.lists(st.floats(0.05, 1.0), min_size=4, max_size=4))
def test_mixtures_of_pure_dp_profiles_are_exact_at_their_kinks(eps, w):
    """A weighted sum of pure-DP profiles is A - C e^eps between its kinks: the hull of the
    grid lines (kinks added) must reproduce the exact minimum over {0} u kinks."""
    parts = [(wi / sum(w[: len(eps)]), pure_delta(e)) for wi, e in zip(w, eps)]

    def delta(e):
        return sum(wi * f(e) for wi, f in parts)

    exact = b_from_kinks(delta, eps, A)
    got = claim_bound(delta, A, epsilons=eps)
    assert np.all(got >= exact)
    assert np.all(got <= exact + SLACK + 1e-11)
    # B is nondecreasing in a (the proof of profile mode relies on it)
    order = np.argsort(A, kind="stable")
    assert np.all(np.diff(got[order]) >= 0)


def test_trivial_profiles():
    """delta = 0 means identical laws (B(a) = a); delta >= 1 allows anything (B = 1); values a
    hair below 0 are raised to 0; a outside [0, 1] is clipped."""
    assert np.allclose(claim_bound(lambda e: 0.0, A), A + SLACK, rtol=0, atol=TINY)
    assert np.allclose(claim_bound(lambda e: -1e-13, A), A + SLACK, rtol=0, atol=TINY)
    assert np.all(claim_bound(lambda e: 3.0, A) == 1.0 + SLACK)
    clipped = claim_bound(pure_delta(1.0), [-0.5, 1.5], epsilons=(1.0,))
    assert np.allclose(clipped, [SLACK, 1 + SLACK], rtol=0, atol=TINY)


def test_profile_lower_and_on_grid_equal_exact():
    """For a profile every method evaluates the same envelope (no separate screening grid)."""
    bound = ClaimBound(pure_delta(0.7), (0.7,))
    assert bound.kind == "profile"
    assert np.array_equal(bound.lower(A), bound.exact(A))
    assert np.array_equal(bound.on_grid(A), bound.exact(A))


@pytest.mark.parametrize("value", [math.nan, -0.01, "x", None])
def test_profile_values_that_are_not_probabilities_are_refused(value):
    with pytest.raises(ParameterError):
        ClaimBound(lambda e: value)


def test_objects_that_are_neither_profile_nor_tradeoff_are_refused():
    with pytest.raises(TypeError):
        ClaimBound(0.5)
    with pytest.raises(TypeError):
        ClaimBound(type("T", (), {"tradeoff": 0.3})())  # a tradeoff attribute must be callable


# --------------------------------------------------------------------------------------------
# Trade-off functions f(a)


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.01, 8.0), a=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_tradeoff_exact_is_one_minus_f_and_brackets_the_cheap_values(eps, a):
    """exact = 1 - f(a) + SLACK; the screening value (grid point at or below a) is never above
    1 - f(a), so it cannot discard an event the verdict would flag; on_grid is never below it."""
    bound = ClaimBound(PureTradeoff(eps))
    assert bound.kind == "tradeoff"
    true = pure_b(a, eps)
    exact = bound.exact(a)
    assert np.allclose(exact, true + SLACK, rtol=0, atol=TINY)
    assert np.all(bound.lower(a) <= true + TINY)
    assert np.all(bound.on_grid(a) >= exact - TINY)


def test_tradeoff_takes_precedence_over_call():
    """An object that is both callable and has tradeoff(a) is read as the trade-off: here the
    call would claim nothing (delta = 1), the trade-off claims pure 1-DP."""
    obj = type("Both", (PureTradeoff,), {"__call__": lambda self, e: 1.0})(1.0)
    assert np.allclose(claim_bound(obj, A), pure_b(A, 1.0) + SLACK, rtol=0, atol=TINY)


@pytest.mark.parametrize("f", [lambda a: a, lambda a: 1.5, lambda a: math.nan, lambda a: "x"],
                         ids=["increasing", "above-one", "nan", "not-a-number"])
def test_invalid_tradeoffs_are_refused(f):
    obj = type("F", (), {"tradeoff": staticmethod(f)})()
    with pytest.raises(ParameterError):
        ClaimBound(obj)
