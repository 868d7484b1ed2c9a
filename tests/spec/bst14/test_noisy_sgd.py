"""spec.bst14.noisy_sgd: Algorithm 1's calibration, Theorem II.4 and Lemmas II.2-II.6 (formulas by hand, sympy identities).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from spec import bst14, composition


# --------------------------------------------------------------------------- Algorithm 1
def printed_sigma_by_hand(L, n, eps, delta):
    with mpmath.workdps(40):
        return mpmath.sqrt(32 * mpmath.mpf(L) ** 2 * n**2 * mpmath.log(n / mpmath.mpf(delta))
                           * mpmath.log(1 / mpmath.mpf(delta))) / eps


@pytest.mark.parametrize("L, n, eps, delta", [(1.0, 10, 1.0, 1e-5), (2.5, 3, 0.1, 1e-9), (0.3, 1000, 2.0, 1e-3)])
def test_alg_1_calibration_by_hand(L, n, eps, delta):
    exact = printed_sigma_by_hand(L, n, eps, delta)
    sigma = bst14.noise_gd_sigma(lipschitz=L, n=n, epsilon=eps, delta=delta)
    assert mpmath.mpf(sigma) >= exact and mpmath.mpf(math.nextafter(sigma, 0)) < exact
    assert bst14.ALG_1.evaluate("sigma", lipschitz=L, n=n, epsilon=eps, delta=delta) == sigma
    variance = bst14.ALG_1.evaluate("sigma_squared", lipschitz=L, n=n, epsilon=eps, delta=delta)
    with mpmath.workdps(40):
        assert mpmath.mpf(variance) >= exact**2 and mpmath.mpf(math.nextafter(variance, 0)) < exact**2
    assert bst14.ALG_1.evaluate("noisy_steps", n=n) == n * n - 1
    assert bst14.ALG_1.evaluate("iterates", n=n) == n * n
    rate = bst14.ALG_1.evaluate("sampling_rate", n=n)
    assert Fraction(rate) >= Fraction(1, n) and Fraction(math.nextafter(rate, 0)) < Fraction(1, n)
    assert bst14.ALG_1.evaluate("sensitivity", lipschitz=L, n=n) >= 2 * L * n
    # the same expression object drives the algorithm and the theorem
    assert bst14.ALG_1.formula("sigma").expr is bst14.THM_II_1.formula("sigma").expr


@settings(max_examples=40)
@given(
    st.lists(st.floats(-1, 1), min_size=3, max_size=3),
    st.lists(st.floats(-1, 1), min_size=3, max_size=3),
    st.integers(2, 1000),
    st.floats(0.1, 10),
)
def test_alg_1_step_sensitivity(g, h, n, L):
    """Gradients of an L-Lipschitz loss have norm <= L: ||n g - n h|| <= 2 L n, attained at h = -g."""
    g, h = np.array(g), np.array(h)
    for v in (g, h):
        if np.linalg.norm(v) > 1:
            v /= np.linalg.norm(v)
    g, h = L * g, L * h
    sens = bst14.ALG_1.evaluate("sensitivity", lipschitz=L, n=n)
    assert np.linalg.norm(n * g - n * h) <= sens * (1 + 1e-12)
    e = np.zeros(3)
    e[0] = L
    assert math.isclose(np.linalg.norm(n * e + n * e), sens, rel_tol=1e-12)


def form_a_by_hand(eps_step, steps, delta_prime):
    with mpmath.workdps(30):
        e = mpmath.mpf(eps_step)
        return mpmath.sqrt(2 * steps * mpmath.log(1 / mpmath.mpf(delta_prime))) * e + steps * e * mpmath.expm1(e)


def test_lemma_II_3_is_form_a_without_delta():
    expr = bst14.LEMMA_II_3.formula("epsilon_total").expr
    adv = composition.ADVANCED
    assert sp.simplify(expr - adv.formula("epsilon_total").expr.subs(adv.symbol("delta"), 0)) == 0
    for eps, T, dp in [(0.01, 100, 1e-5), (0.5, 3, 0.5), (1e-3, 10**6, 1e-9)]:
        got = bst14.LEMMA_II_3.evaluate("epsilon_total", epsilon=eps, steps=T, delta_prime=dp)
        assert got == composition.advanced(epsilon=eps, delta=0.0, steps=T, delta_prime=dp)[0]
        assert got == pytest.approx(float(form_a_by_hand(eps, T, dp)), rel=1e-14)
    assert bst14.LEMMA_II_3.privacy.delta == adv.symbol("delta_prime")


# --------------------------------------------------------------------------- Theorem II.4, Lemmas II.5-II.6
def test_thm_II_4_learning_rates():
    rec = bst14.THM_II_4
    sym = rec.symbol
    L, n, p, eps, delta, C, t, sigma = (sym(k) for k in ("lipschitz", "n", "dimension", "epsilon", "delta",
                                                          "diameter", "step", "sigma"))
    # eta_lipschitz is eta_lipschitz_sigma at the printed sigma (the expression object of Algorithm 1)
    printed2 = bst14.ALG_1.formula("sigma_squared").expr
    assert sp.simplify(rec.formula("eta_lipschitz").expr
                       - rec.formula("eta_lipschitz_sigma").expr.subs(sigma, sp.sqrt(printed2))) == 0
    # "as used": Lemma II.5 with G^2 = (2), Lemma II.6 with lambda = n Delta
    l5, l6 = bst14.LEMMA_II_5, bst14.LEMMA_II_6
    G = sp.sqrt(rec.formula("gradient_second_moment").expr)
    eta5 = l5.formula("eta").expr.subs({l5.symbol("gradient_bound"): G, l5.symbol("diameter"): C,
                                        l5.symbol("step"): t}, simultaneous=True)
    assert sp.simplify(eta5 - rec.formula("eta_lipschitz_sigma").expr) == 0
    eta6 = l6.formula("eta").expr.subs({l6.symbol("total_strong_convexity"): n * sym("strong_convexity"),
                                        l6.symbol("step"): t}, simultaneous=True)
    assert sp.simplify(eta6 - rec.formula("eta_strongly_convex").expr) == 0
    # numbers by hand
    lr = bst14.THM_II_4.evaluate("eta_lipschitz_sigma", step=7, n=10, lipschitz=2.0, dimension=5, diameter=3.0,
                                  sigma=40.0)
    assert lr == pytest.approx(3.0 / math.sqrt(7 * (100 * 4.0 + 5 * 1600.0)), rel=1e-15)
    assert bst14.THM_II_4.evaluate("eta_strongly_convex", step=7, n=10, strong_convexity=0.5) == pytest.approx(1 / 35, rel=1e-15)
    printed = bst14.noise_gd_sigma(lipschitz=1.0, n=10, epsilon=1.0, delta=1e-5)
    assert rec.evaluate("eta_lipschitz", step=3, n=10, lipschitz=1.0, dimension=4, diameter=2.0, epsilon=1.0,
                        delta=1e-5) == pytest.approx(
        rec.evaluate("eta_lipschitz_sigma", step=3, n=10, lipschitz=1.0, dimension=4, diameter=2.0, sigma=printed), rel=1e-14)


def test_thm_II_4_bounds_follow_from_the_lemmas():
    """Lemma II.5/II.6 at G^2 = n^2 L^2 + p sigma^2 (printed sigma), T = n^2, lambda = n Delta, divided by
    the theorem's bound: at most 2 sqrt(32) (Lipschitz) and 64 (strongly convex), up to 0.1%."""
    for n, p, eps, delta in itertools.product((10, 1000, 10**6), (1, 100), (0.1, 1.0), (1e-5, 1e-9)):
        with mpmath.workdps(30):
            a, b = mpmath.log(n / mpmath.mpf(delta)), mpmath.log(1 / mpmath.mpf(delta))
            sigma2 = 32 * n**2 * a * b / eps**2
            G2 = n**2 + p * sigma2
            T = n**2
            lip = mpmath.sqrt(G2) * mpmath.log(T) / mpmath.sqrt(T)
            lip_thm = a**1.5 * mpmath.sqrt(p * b) / eps
            assert lip / lip_thm <= 2 * math.sqrt(32) * 1.001
            sc = G2 * mpmath.log(T) / (n * T)  # Delta = 1
            sc_thm = a**2 * p * b / (n * eps**2)
            assert sc / sc_thm <= 64 * 1.001
