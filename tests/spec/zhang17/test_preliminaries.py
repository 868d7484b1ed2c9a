"""spec.zhang17.preliminaries: Assumption 1, Definitions 1-2, Lemma 1.

Oracles: sympy identities, the logistic loss's gradient typed here, the Balle-Wang profile typed here
with mpmath erfc (not the record's expression). Random points are seeded.
"""

from __future__ import annotations

import math
import random

import mpmath
import pytest
import sympy as sp

from spec import gaussian, laplace, zhang17
from spec.record import FlagKind


def _flag(record, kind):
    (flag,) = [f for f in record.flags if f.kind is kind]
    return flag.summary + " " + flag.reason


def _logistic(w, x, y):
    m = y * sum(a * b for a, b in zip(w, x))
    return math.log1p(math.exp(-m)) if m > -30 else -m + math.log1p(math.exp(m))


def _logistic_grad(w, x, y):
    m = y * sum(a * b for a, b in zip(w, x))
    s = 1.0 / (1.0 + math.exp(m))  # sigmoid(-m)
    return [-y * s * a for a in x]


def test_assumption_1_smoothness_constant():
    # equality for the quadratic (beta/2)||w||^2: the constant beta/2 cannot be smaller
    b = sp.Symbol("beta", positive=True)
    u = sp.symbols("u1:4", real=True)
    v = sp.symbols("v1:4", real=True)
    f = lambda w: b / 2 * sum(c**2 for c in w)  # noqa: E731
    lhs = f(u) - f(v) - sum(b * vi * (ui - vi) for ui, vi in zip(u, v))
    assert sp.simplify(lhs - b / 2 * sum((ui - vi) ** 2 for ui, vi in zip(u, v))) == 0
    # logistic losses: beta = ||x||^2/4 (the Hessian is s(1-s) x x^T <= x x^T/4)
    rng = random.Random(20170901)
    worst = 0.0
    for _ in range(2000):
        x = [rng.uniform(-1, 1) for _ in range(3)]
        y = rng.choice((-1.0, 1.0))
        beta = sum(c * c for c in x) / 4
        uu = [rng.gauss(0, 3) for _ in range(3)]
        vv = [rng.gauss(0, 3) for _ in range(3)]
        g = _logistic_grad(vv, x, y)
        gap = _logistic(uu, x, y) - _logistic(vv, x, y) - sum(a * (p - q) for a, p, q in zip(g, uu, vv))
        bound = beta / 2 * sum((p - q) ** 2 for p, q in zip(uu, vv))
        assert -1e-12 <= gap <= bound + 1e-12  # convex, and within the smoothness bound
        worst = max(worst, gap / bound)
    assert 0.5 < worst <= 1.0  # the bound is approached, not vacuous
    assert "(beta/2) ||u - v||^2" in _flag(zhang17.ASSUMPTION_1, FlagKind.RECONSTRUCTED)


def _oracle_delta(eps, mu, dps=60):
    """Balle-Wang profile of N(0,1) vs N(mu,1), typed with erfc."""
    with mpmath.workdps(dps):
        eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
        a = mpmath.erfc(-(mu / 2 - eps / mu) / mpmath.sqrt(2)) / 2
        b = mpmath.exp(eps) * mpmath.erfc((mu / 2 + eps / mu) / mpmath.sqrt(2)) / 2
        return a - b


def test_lemma_1_gaussian_needs_a_range():
    delta = 1e-5
    c = math.sqrt(2 * math.log(1.25 / delta))  # the quoted calibration, sigma = c Delta / eps

    def fails(e):
        return _oracle_delta(e, e / c) > delta

    lo, hi = 1.0, 20.0
    assert not fails(lo) and fails(hi)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if fails(mid) else (mid, hi)
    assert gaussian.classic_failure_epsilon(delta) == pytest.approx(lo, rel=1e-9)
    text = _flag(zhang17.LEMMA_1, FlagKind.CAVEAT)
    assert f"{lo:.2f}" == "8.42" and "8.42" in text
    # below 1 it holds (Dwork-Roth's range) on a grid
    for e in (0.05, 0.3, 0.7, 0.99):
        assert _oracle_delta(e, e / c) <= delta
    # zhang17's own ln(2/delta) calibration fails later than the quoted one
    assert zhang17.gaussian_failure_epsilon(delta) > lo


def test_lemma_1_formulas_are_the_shared_primitives():
    vals = dict(epsilon=0.7, delta=1e-6, sensitivity=2.5)
    assert zhang17.LEMMA_1.evaluate("gaussian_sigma", **vals) == gaussian.classic_sigma(**vals)
    assert zhang17.LEMMA_1.evaluate("laplace_scale", epsilon=0.7, sensitivity=2.5) == laplace.laplace_scale(
        epsilon=0.7, sensitivity=2.5)
    by_hand = math.sqrt(2 * math.log(1.25 / 1e-6)) * 2.5 / 0.7
    assert zhang17.LEMMA_1.evaluate("gaussian_sigma", **vals) == pytest.approx(by_hand, rel=1e-14)


def test_definitions_state_replace_one_neighbours():
    from spec.record import Neighbouring

    for record in (zhang17.DEF_1, zhang17.DEF_2, zhang17.LEMMA_1):
        assert record.conventions.neighbouring is Neighbouring.REPLACE_ONE
    assert zhang17.DEF_1.privacy.epsilon == zhang17.DEF_1.symbol("epsilon")
