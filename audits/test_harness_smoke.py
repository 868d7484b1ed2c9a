"""Smoke suite of the audit harness itself: two correct mechanisms and one planted bug.

These are plain numpy mechanisms written here (not the reference implementations), so that
``pytest audits`` exercises the plugin, the run-count helpers and both audit modes even on
their own. False-alarm rate: each ``audit`` test errs with probability at most the per-audit
alpha the plugin assigns (family-wise 0.01 over the run). The planted test flags its bug with
probability close to 1 (its noise is halved, while the run counts are sized for the tier's
milder bug at power 0.9).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, special

from audits import audit_privacy, replace_one

SENSITIVITY = 1.0
EPSILON = 1.0
DELTA = 1e-5


def gaussian_delta(eps: float, mu: float) -> float:
    """Exact privacy profile of the Gaussian mechanism with mu = sensitivity / sigma.

    delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) (Balle and Wang 2018). Written
    out here so the smoke suite stands on its own; mechanism suites take it from ``spec``.
    """
    a = special.ndtr(mu / 2 - eps / mu)
    b = math.exp(eps) * special.ndtr(-mu / 2 - eps / mu) if eps < 700 else 0.0
    return max(0.0, float(a - b))


def analytic_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest sigma with gaussian_delta(epsilon) <= delta (bisection; rounded up)."""
    s = optimize.brentq(lambda s: gaussian_delta(epsilon, sensitivity / s) - delta,
                        1e-3 * sensitivity, 1e3 * sensitivity, xtol=1e-12)
    return s * (1 + 1e-9)


SIGMA = analytic_sigma(EPSILON, DELTA, SENSITIVITY)


def gaussian_mechanism(sigma):
    def mechanism(data, runs, rng):
        return data.sum() + sigma * rng.standard_normal(runs)

    mechanism.__qualname__ = f"gaussian(sigma={sigma:.4g})"
    return mechanism


def laplace_mechanism(scale):
    def mechanism(data, runs, rng):
        return data.sum() + scale * rng.laplace(size=runs)

    mechanism.__qualname__ = f"laplace(scale={scale:.4g})"
    return mechanism


class GaussianProfile:
    def __init__(self, sigma):
        self.mu = SENSITIVITY / sigma

    def __call__(self, eps):
        return gaussian_delta(float(eps), self.mu)


@pytest.fixture
def pair():
    data = np.zeros(10)
    return replace_one(data, 0, SENSITIVITY)


@pytest.mark.audit
def test_gaussian_profile_holds(audit, pair):
    runs = audit.runs_for_gaussian(sigma=SIGMA, sensitivity=SENSITIVITY, mode="profile")
    result = audit.record(audit_privacy(gaussian_mechanism(SIGMA), pair, epsilon=EPSILON,
                                        delta=DELTA, runs=runs, alpha=audit.alpha, seed=audit.seed,
                                        profile=GaussianProfile(SIGMA)))
    assert not result.violated, str(result)


@pytest.mark.audit
def test_laplace_point_holds(audit, pair):
    scale = SENSITIVITY / EPSILON
    runs = audit.runs_for_laplace(scale=scale, sensitivity=SENSITIVITY, epsilon=EPSILON)
    result = audit.record(audit_privacy(laplace_mechanism(scale), pair, epsilon=EPSILON,
                                        runs=runs, alpha=audit.alpha, seed=audit.seed))
    assert not result.violated, str(result)


@pytest.mark.planted
def test_planted_gaussian_with_half_the_noise_is_flagged(audit, pair):
    runs = audit.runs_for_gaussian(sigma=SIGMA, sensitivity=SENSITIVITY, mode="profile")
    result = audit.record(audit_privacy(gaussian_mechanism(0.5 * SIGMA), pair, epsilon=EPSILON,
                                        delta=DELTA, runs=runs, alpha=audit.alpha,
                                        seed=audit.seed, profile=GaussianProfile(SIGMA)))
    assert result.violated, str(result)
