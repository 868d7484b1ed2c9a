"""spec.bst14.exponential_sampling: Algorithm 2, Theorems III.1 and III.2 (exact output laws on grids, 1-D integrals).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import pytest
import sympy as sp

from spec import bst14
from spec.bst14 import exponential_sampling, symbols


# --------------------------------------------------------------------------- Section III
def em_log_ratio_on_grid(coefficient, n, R=0.5, points=401):
    """Largest |log p_D(theta)/p_D'(theta)| of exp(-c L(theta; .)) on a grid of C = [-R, R].

    l(theta; d) = d theta with d in [-1, 1] (1-Lipschitz); D = n copies of +1, D' replaces one by -1.
    """
    with mpmath.workdps(40):
        c = mpmath.mpf(coefficient)
        grid = [-R + 2 * R * mpmath.mpf(i) / (points - 1) for i in range(points)]
        wD = [mpmath.exp(-c * n * x) for x in grid]
        wD1 = [mpmath.exp(-c * (n - 2) * x) for x in grid]
        zD, zD1 = mpmath.fsum(wD), mpmath.fsum(wD1)
        return max(abs(mpmath.log((a / zD) / (b / zD1))) for a, b in zip(wD, wD1))


def test_thm_III_1_factor_two_slip():
    L, R = 1.0, 0.5
    diameter = 2 * R
    for eps in (0.1, 1.0, 3.0):
        c = bst14.ALG_2.evaluate("coefficient", epsilon=eps, lipschitz=L, diameter=diameter)
        assert c <= eps / (2 * L * diameter)
        worst = em_log_ratio_on_grid(c, n=4000)
        assert worst <= eps
        assert worst >= 0.95 * eps  # the oscillation bound is nearly attained
        # the exponent the proof writes, epsilon/(L ||C||), loses a factor 2
        c_proof = bst14.THM_III_1.evaluate("proof_coefficient", epsilon=eps, lipschitz=L, diameter=diameter)
        assert c_proof == pytest.approx(2 * c, rel=1e-15)
        assert em_log_ratio_on_grid(c_proof, n=4000) >= 1.9 * eps
    # the record is exponential.oscillation at osc = 2 L ||C||
    osc = bst14.ALG_2.evaluate("oscillation", lipschitz=L, diameter=diameter)
    from spec import exponential
    assert exponential.exponent_oscillation(epsilon=1.0, oscillation=osc) == bst14.ALG_2.evaluate("coefficient", epsilon=1.0, lipschitz=L, diameter=diameter)


def linear_instance_moments(p, kappa, M, tail_radii=()):
    """E R and Pr[R >= r] for the exponential mechanism on the unit ball with linear loss.

    s = <theta, u> has density proportional to e^{kappa s} (1 - s^2)^{(p-1)/2} on [-1, 1] and
    R = M (1 - s).
    """
    with mpmath.workdps(30):
        k = mpmath.mpf(kappa)
        # shift the exponent by kappa so nothing overflows
        w = lambda s: mpmath.exp(k * (s - 1)) * (1 - s**2) ** (mpmath.mpf(p - 1) / 2)  # noqa: E731
        pts = sorted({-1, 0, 1 - min(1, 10 / max(k, 1)), 1 - min(1, 1 / max(k, 1)), 1})
        z = mpmath.quad(w, pts)
        er = M * mpmath.quad(lambda s: (1 - s) * w(s), pts) / z
        probs = []
        for r in tail_radii:
            cut = 1 - mpmath.mpf(r) / M
            probs.append(0 if cut <= -1 else mpmath.quad(w, [-1, cut]) / z)
        return er, probs


def test_thm_III_2_peeling_and_explicit_bound():
    # the closed form of the peeling sum: 3^p e^-x / (1 - 2^p e^-x) <= (3/7) e^-t at x = (p+1) ln 3 + t
    p_, t_ = sp.symbols("p t", positive=True)
    x0 = (p_ + 1) * sp.log(3) + t_
    assert sp.simplify(3**p_ * sp.exp(-x0) - sp.exp(-t_) / 3) == 0
    ratio = sp.lambdify([symbols.p, exponential_sampling._X], exponential_sampling.PEELING_RATIO, "mpmath")
    for p in (1, 2, 3, 10, 50, 200):
        for t in (0.0, 0.01, 1.0, 5.0, 30.0):
            x = (p + 1) * mpmath.log(3) + t
            assert 2**p * mpmath.exp(-x) <= mpmath.mpf(2) / 9 * (1 + mpmath.mpf(10) ** -20)  # equality at p=1, t=0
            value = ratio(p, x)
            assert 0 < value <= mpmath.mpf(3) / 7 * mpmath.exp(-t) <= mpmath.exp(-t)
            if p <= 10:  # the sum itself (using i - 1 <= 3 * 2^(i-4))
                direct = mpmath.nsum(lambda i: (i - 1) ** p * mpmath.exp(-x * (i - 3)), [4, mpmath.inf])
                assert direct <= value
    # E R <= explicit bound on the linear instance: unit ball (diameter 2), ||d|| = 1 (L = 1)
    for p, eps, M in itertools.product((1, 2, 5, 20), (0.1, 1.0, 5.0), (1.0, 10.0, 1000.0)):
        kappa = bst14.ALG_2.evaluate("coefficient", epsilon=eps, lipschitz=1.0, diameter=2.0) * M
        bound = bst14.THM_III_2.evaluate("expected_risk_bound", epsilon=eps, lipschitz=1.0, diameter=2.0, dimension=p)
        assert bound == pytest.approx(16 / eps * ((p + 1) * math.log(3) + 1), rel=1e-14)
        radii = [bst14.THM_III_2.evaluate("tail_radius_proof", epsilon=eps, lipschitz=1.0, diameter=2.0,
                                           dimension=p, tail=t) for t in (0.5, 2.0)]
        er, probs = linear_instance_moments(p, kappa, M, radii)
        assert er <= bound
        for t, pr in zip((0.5, 2.0), probs):
            assert pr <= math.exp(-t)
    # printed tail radius >= the proof's (8 vs 6)
    a = bst14.THM_III_2.evaluate("tail_radius", epsilon=1.0, lipschitz=1.0, diameter=2.0, dimension=3, tail=1.0)
    b = bst14.THM_III_2.evaluate("tail_radius_proof", epsilon=1.0, lipschitz=1.0, diameter=2.0, dimension=3,
                                 tail=1.0)
    assert a == pytest.approx(b * 8 / 6, rel=1e-14)
