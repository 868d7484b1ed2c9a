"""audits.tradeoffs: the tabulated trade-offs are never below the exact claim, and they refute what
they should."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats as sps

from audits import audit_privacy, replace_one
from audits.tradeoffs import GaussianTradeoff, ZcdpTradeoff, binary_renyi, zcdp_tradeoff
from spec import gaussian
from spec.errors import PrivacyParameterError

A = np.concatenate([[0.0], np.geomspace(1e-15, 1e-3, 200), np.linspace(1e-3, 1 - 1e-3, 2001),
                    1 - np.geomspace(1e-3, 1e-15, 200), [1.0]])


def test_binary_renyi_matches_mpmath():
    for b, a, order in [(0.3, 0.2, 1.0), (0.9, 0.5, 2.0), (1e-9, 1e-6, 7.5), (0.5, 0.5, 3.0), (1.0, 0.4, 1.5)]:
        with mpmath.workdps(40):
            B, Aa, o = mpmath.mpf(b), mpmath.mpf(a), mpmath.mpf(order)
            if order == 1.0:
                want = B * mpmath.log(B / Aa) + ((1 - B) * mpmath.log((1 - B) / (1 - Aa)) if b < 1 else 0)
            else:
                want = mpmath.log(B**o * Aa ** (1 - o) + (1 - B) ** o * (1 - Aa) ** (1 - o)) / (o - 1)
        assert float(binary_renyi(b, a, order)) == pytest.approx(float(want), rel=1e-10, abs=1e-15)


@pytest.mark.parametrize("rho", [0.005, 0.08, 0.5, 2.0])
def test_zcdp_tradeoff_contains_the_gaussian_mechanism(rho):
    """N(0, 1) against N(mu, 1) with mu^2/2 = rho is exactly rho-zCDP: its trade-off must lie inside."""
    z = zcdp_tradeoff(rho)
    mu = math.sqrt(2 * rho)
    with np.errstate(divide="ignore"):
        gauss = sps.norm.cdf(sps.norm.ppf(A) + mu)
    assert np.all(gauss <= z.bound(A) + 1e-12)
    assert np.all(np.diff(z.bound(A)) >= 0) and z.bound(0.0) == 0.0 and z.bound(1.0) == 1.0
    # not vacuous: at a = Phi(-mu/2) the allowance is within 0.2 of the Gaussian's (0.1 for rho <= 0.5)
    a = sps.norm.cdf(-mu / 2)
    assert z.bound(a) - sps.norm.cdf(mu / 2) < (0.1 if rho <= 0.5 else 0.2)


def test_zcdp_tradeoff_is_sound_for_randomized_response():
    """Randomized response with log-ratio eps is eps^2/2-zCDP (pure DP => zCDP, Bun-Steinke Prop. 1.4):
    its two probabilities must be allowed, and they are refuted at a smaller rho."""
    for eps in (0.1, 0.5, 1.0):
        p = math.exp(eps) / (1 + math.exp(eps))
        assert ZcdpTradeoff(eps**2 / 2).bound(1 - p) >= p
        kl = float(binary_renyi(p, 1 - p, 1.0))
        assert ZcdpTradeoff(kl / 2).bound(1 - p) < p


def test_gaussian_tradeoff_is_never_below_the_exact_one():
    g = GaussianTradeoff(sigma=2.0, sensitivity=0.7, steps=3)
    assert g.mu == pytest.approx(math.sqrt(3) * 0.35, rel=1e-11)
    pts = np.concatenate([np.geomspace(1e-12, 1e-2, 25), np.linspace(0.02, 0.98, 25), 1 - np.geomspace(1e-2, 1e-12, 25)])
    exact = np.array([1 - gaussian.tradeoff(a, sigma=2.0, sensitivity=0.7, steps=3) for a in pts])
    got = g.bound(pts)
    assert np.all(got >= exact) and np.max(got - exact) < 5e-4
    assert g.tradeoff(0.3) == pytest.approx(1 - g.bound(0.3))


def test_validation():
    with pytest.raises(PrivacyParameterError):
        ZcdpTradeoff(0.0)
    with pytest.raises(PrivacyParameterError):
        GaussianTradeoff(sigma=-1.0, sensitivity=1.0)


def test_profile_mode_with_a_zcdp_claim():
    """A Gaussian mechanism audited against its own rho: not refuted; against rho/4: refuted (alpha 1e-3).
    The real-valued mechanism (low_bits=False): its doubles leak through their low bits, which the
    low-bit test, run in profile mode too, may find at this run count."""
    pair = replace_one(np.zeros(1), 0, 1.0)

    def mechanism(data, runs, rng):
        return data[0] + rng.normal(size=runs)

    ok = audit_privacy(mechanism, pair, epsilon=10.0, delta=1e-5, runs=40000, alpha=1e-3, seed=1,
                       profile=zcdp_tradeoff(0.5), low_bits=False)
    bad = audit_privacy(mechanism, pair, epsilon=10.0, delta=1e-5, runs=40000, alpha=1e-3, seed=1,
                        profile=zcdp_tradeoff(0.125), low_bits=False)
    assert not ok.violated and bad.violated
