"""spec.bst14.localization_algorithms: Algorithms 3 and 4, Theorems IV.1, IV.3 and Lemma IV.2 (explicit minimisers, Gamma tails).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import spec
from spec import bst14, composition
from spec.record import PrivacyModel


# --------------------------------------------------------------------------- Section IV
def test_alg_3_sensitivity_with_tolerance():
    rng = np.random.default_rng(2014)
    rec = bst14.ALG_3
    # 1. isotropic quadratics on a ball: l(theta; d) = (Delta/2) ||theta - d||^2, ||d|| <= r, C = B(0, R):
    #    the minimiser of the sum over C is the projection of the mean; L = Delta (R + r).
    for _ in range(200):
        n, p = int(rng.integers(2, 40)), int(rng.integers(1, 6))
        Delta, R, r = rng.uniform(0.1, 3), rng.uniform(0.1, 3), rng.uniform(0.1, 3)
        data = rng.normal(size=(n, p))
        data *= (r * rng.uniform(0, 1, size=(n, 1)) ** (1 / p)) / np.linalg.norm(data, axis=1, keepdims=True)
        other = data.copy()
        z = rng.normal(size=p)
        other[0] = r * z / np.linalg.norm(z)

        def minimiser(d):
            m = d.mean(axis=0)
            return m if np.linalg.norm(m) <= R else R * m / np.linalg.norm(m)

        gap_ = float(np.linalg.norm(minimiser(data) - minimiser(other)))
        sens = rec.evaluate("sensitivity", lipschitz=Delta * (R + r), n=n, strong_convexity=Delta)
        assert gap_ <= sens * (1 + 1e-12)
    # 2. tightness: l(theta; g) = (Delta/2) theta^2 - g theta on [-R, R], |g| <= G, so L = Delta R + G;
    #    records that cancel keep the minimiser inside C and the bound is attained as Delta R / G -> 0.
    n, Delta, G, R = 1000, 1.0, 1.0, 0.01
    g = np.array([G] + [G, -G] * ((n - 1) // 2) + [0.0] * ((n - 1) % 2))
    g2 = g.copy()
    g2[0] = -G
    thetas = [np.clip(v.sum() / (n * Delta), -R, R) for v in (g, g2)]
    assert all(abs(t) < R for t in thetas)
    sens = rec.evaluate("sensitivity", lipschitz=Delta * R + G, n=n, strong_convexity=Delta)
    assert 0.98 * sens <= abs(thetas[0] - thetas[1]) <= sens
    # 3. tolerance: for L_D = (n Delta/2) ||theta - m||^2 a point with gap exactly tau is at distance
    #    sqrt(2 tau/(n Delta)); two such points on either side reach the formula.
    n, Delta, L, tau = 50, 0.5, 2.0, 1e-3
    radius = math.sqrt(2 * tau / (n * Delta))
    m0, m1 = np.array([0.0, 0.0]), np.array([2 * L / (n * Delta), 0.0])
    u = np.array([1.0, 0.0])
    hat0, hat1 = m0 - radius * u, m1 + radius * u
    assert (n * Delta / 2) * np.sum((hat0 - m0) ** 2) == pytest.approx(tau, rel=1e-12)
    tol_sens = rec.evaluate("sensitivity_with_tolerance", lipschitz=L, n=n, strong_convexity=Delta, solver_tolerance=tau)
    assert np.linalg.norm(hat1 - hat0) == pytest.approx(tol_sens, rel=1e-12)
    assert rec.evaluate("sensitivity_with_tolerance", lipschitz=L, n=n, strong_convexity=Delta, solver_tolerance=0.0) == \
        rec.evaluate("sensitivity", lipschitz=L, n=n, strong_convexity=Delta)
    # 4. the noise: rate = eps/sensitivity; E||b|| = p/rate (radial density r^{p-1} e^{-c r}); the density
    #    ratio under a shift s is at most e^{c ||s||}
    e = rec.symbol("epsilon")
    assert sp.simplify(rec.formula("noise_rate").expr - e / rec.formula("sensitivity").expr) == 0
    assert sp.simplify(rec.formula("noise_rate_with_tolerance").expr
                       - e / rec.formula("sensitivity_with_tolerance").expr) == 0
    for p in (1, 3, 10):
        c = bst14.ALG_3.evaluate("noise_rate", epsilon=0.7, lipschitz=2.0, n=30, strong_convexity=0.2)
        assert c == pytest.approx(30 * 0.2 * 0.7 / 4.0, rel=1e-15)
        with mpmath.workdps(30):
            mean = (mpmath.quad(lambda x: x**p * mpmath.exp(-c * x), [0, mpmath.inf])
                    / mpmath.quad(lambda x: x ** (p - 1) * mpmath.exp(-c * x), [0, mpmath.inf]))
        assert rec.evaluate("expected_noise_norm", lipschitz=2.0, n=30, strong_convexity=0.2, epsilon=0.7,
                            dimension=p) == pytest.approx(float(mean), rel=1e-12)
        assert bst14.ALG_3.evaluate("radius", epsilon=0.7, lipschitz=2.0, n=30, strong_convexity=0.2,
                                    dimension=p, zeta=3.0) == pytest.approx(3 * float(mean), rel=1e-12)
    shift = np.array([0.3, -0.4])
    for b in rng.normal(size=(100, 2)):
        log_ratio = -c * np.linalg.norm(b - shift) + c * np.linalg.norm(b)
        assert log_ratio <= c * np.linalg.norm(shift) + 1e-12
    reduced = bst14.ALG_3.evaluate("noise_rate_with_tolerance", epsilon=0.7, lipschitz=2.0, n=30, strong_convexity=0.2,
                                    solver_tolerance=1e-4)
    assert reduced < c


def test_alg_3_zeta_condition_contradicts_alg_4():
    for n in (2, 3, 100):
        zeta = bst14.ALG_4.evaluate("zeta", n=n)
        assert zeta >= 3 * math.log(2) > 1
    # for p = 1, ||b|| is exponential: a radius zeta E||b|| with zeta < 1 misses theta* with prob. e^-zeta
    with mpmath.workdps(30):
        for zeta in (0.2, 0.9):
            c = mpmath.mpf(2)
            miss = mpmath.quad(lambda x: c * mpmath.exp(-c * x), [zeta / c, mpmath.inf])
            assert miss == pytest.approx(mpmath.exp(-zeta), rel=1e-20) and miss > 1 / mpmath.e
    assert not bst14.ALG_3.assumptions  # no zeta < 1 imposed


def test_alg_4_and_thm_IV_1():
    eps = spec.get("bst14.thm_IV_1").symbol("epsilon")
    assert bst14.THM_IV_1.privacy.epsilon == eps
    assert bst14.THM_IV_1.privacy.model is PrivacyModel.PURE_DP
    for e in (0.3, 1.0, 7.5):
        half = bst14.ALG_4.evaluate("epsilon_localization", epsilon=e)
        assert half == bst14.ALG_4.evaluate("epsilon_generic", epsilon=e) == e / 2
        assert composition.basic([half, half]) == (e, 0.0)
    params = bst14.localization_parameters(epsilon=1.0, lipschitz=2.0, n=50, strong_convexity=0.5, dimension=4)
    assert params["zeta"] == pytest.approx(3 * math.log(50), rel=1e-15)
    assert params["noise_rate"] == bst14.ALG_3.evaluate("noise_rate", epsilon=0.5, lipschitz=2.0, n=50,
                                                        strong_convexity=0.5)
    assert params["radius"] == pytest.approx(
        bst14.ALG_3.evaluate("radius", epsilon=0.5, lipschitz=2.0, n=50, strong_convexity=0.5, dimension=4,
                             zeta=3 * math.log(50)), rel=1e-14)
    assert params["radius"] == pytest.approx(12 * 2.0 * 4 * math.log(50) / (0.5 * 1.0 * 50), rel=1e-14)
    assert params["generic_coefficient"] == pytest.approx(
        bst14.ALG_2.evaluate("coefficient", epsilon=0.5, lipschitz=2.0, diameter=2 * params["radius"]), rel=1e-14)
    with_gap = bst14.localization_parameters(epsilon=1.0, lipschitz=2.0, n=50, strong_convexity=0.5, dimension=4,
                                             solver_tolerance=1e-6)
    assert with_gap["noise_rate"] == bst14.ALG_3.evaluate("noise_rate_with_tolerance", epsilon=0.5, lipschitz=2.0, n=50,
                                                          strong_convexity=0.5, solver_tolerance=1e-6)


def test_lemma_IV_2_and_thm_IV_3():
    # miss probability = Pr[Gamma(p, 1) > 3 p ln n], against quadrature of the Gamma density
    for p, n in ((1, 10), (3, 10), (10, 100)):
        got = bst14.LEMMA_IV_2.evaluate("miss_probability", dimension=p, n=n)
        with mpmath.workdps(30):
            z = 3 * p * mpmath.log(n)
            oracle = mpmath.quad(lambda x: x ** (p - 1) * mpmath.exp(-x), [z, z + 50, mpmath.inf]) / mpmath.gamma(p)
        assert got == pytest.approx(float(oracle), rel=1e-12)
    assert bst14.LEMMA_IV_2.evaluate("miss_probability", dimension=1, n=10) == pytest.approx(1e-3, rel=1e-12)
    # Theorem IV.3 = Theorem III.2's O(p L ||C||/eps) at the localised diameter of Lemma IV.2
    t3, l2, t4 = bst14.THM_III_2, bst14.LEMMA_IV_2, bst14.THM_IV_3
    composed = t3.utility[0].bound.subs(t3.symbol("diameter"), l2.formula("localized_diameter").expr)
    ratio = sp.simplify(composed / t4.utility[0].bound)
    assert ratio.is_number and ratio > 0
