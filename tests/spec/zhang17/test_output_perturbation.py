"""zhang17 Algorithm 1's noise and Theorem 1 (spec.zhang17.output_perturbation)."""

from __future__ import annotations

import math

import mpmath
import pytest

from spec import gaussian, zhang17
from spec.errors import PrivacyLeakWarning


def oracle_profile(eps, mu, dps=80):
    """delta(eps) for N(0,1) vs N(mu,1), typed from Balle-Wang Theorem 8 with erfc (not the record)."""
    with mpmath.workdps(dps):
        eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
        a = mpmath.erfc(-(mu / 2 - eps / mu) / mpmath.sqrt(2)) / 2
        b = mpmath.exp(eps) * mpmath.erfc((mu / 2 + eps / mu) / mpmath.sqrt(2)) / 2
        return a - b


def _independent_failure_epsilon(constant, delta):
    """Scan eps on a 0.01 grid with the oracle profile (sigma = constant(delta)/eps), then bisect."""
    c = constant(delta)

    def fails(e):
        return oracle_profile(e, e / c, dps=60) > delta

    grid = [1 + 0.01 * i for i in range(1, 2000)]
    first = next(e for e in grid if fails(e))
    lo, hi = mpmath.mpf(first - 0.01), mpmath.mpf(first)
    assert not fails(lo)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if fails(mid) else (mid, hi)
    return float(lo)


def _flag_text(record):
    (flag,) = record.flags
    return flag.summary + " " + flag.reason


def test_gaussian_failure_epsilon_at_1e_5():
    got = zhang17.gaussian_failure_epsilon(1e-5)
    assert gaussian.classic_failure_epsilon(1e-5) < got < 10
    oracle = _independent_failure_epsilon(lambda d: math.sqrt(2 * math.log(2 / d)), 1e-5)
    assert got == pytest.approx(oracle, rel=1e-9)
    text = _flag_text(zhang17.THM_1_GAUSSIAN)
    assert f"{got:.3g}" in text
    for eps, printed in ((10.0, "1.4e-5"), (20.0, "9.7e-4")):
        sigma = math.sqrt(2 * math.log(2 / 1e-5)) / eps
        value = gaussian.exact_delta(eps, sigma=sigma, sensitivity=1.0)
        assert f"{value:.1e}".replace("e-0", "e-") == printed
        assert printed in text
    # the function warns beyond the failure point, and not below it
    with pytest.warns(PrivacyLeakWarning, match="not \\(epsilon, delta\\)-DP"):
        zhang17.gaussian_sigma(epsilon=20.0, delta=1e-5, sensitivity=1.0)
    zhang17.gaussian_sigma(epsilon=got * 0.999, delta=1e-5, sensitivity=1.0)  # no warning (would fail)
