"""spec.wang19.proximal_gradient: Algorithm 1's step 3 (three typos) and Theorem 2's explicit bound.

Oracles: sympy (derivatives of the sigmoid, series, the minimisation in T, an exact expectation), the exact
Gaussian-DP epsilon of spec.gaussian, and a seeded numpy simulation of DP-PGD on a non-convex instance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from spec import gaussian
from spec.wang19 import noise
from spec.wang19 import proximal_gradient as dp_pgd
from spec.wang19.symbols import G, L, T, delta, eps, gamma, h0, n, p, sigma

A = sp.Symbol("a", positive=True)  # ln(1/delta)


def _s(expr):
    """simplify with delta = exp(-a), a > 0 (sympy cannot infer ln(1/delta) > 0 from delta > 0)."""
    return sp.simplify(expr.subs(delta, sp.exp(-A)))


def _flag(record, word):
    (flag,) = [f for f in record.flags if word in f.summary]
    return flag.summary + " " + flag.reason


def _at(expr, **values):
    names = {"G": G, "L": L, "n": n, "T": T, "epsilon": eps, "delta": delta}
    return float(expr.subs({names[k]: v for k, v in values.items()}).evalf(40))


def _exact_epsilon(sigma_value, lip, n_, steps, d=1e-5):
    return gaussian.exact_epsilon(d, sigma=sigma_value, sensitivity=2 * lip / n_, steps=steps)


def test_step_3_lipschitz_typo():
    text = _flag(dp_pgd.ALG_1, "prints L")
    # alone, the typo multiplies sigma by L/G
    assert sp.simplify(noise.SIGMA_PRINTED_L_ONLY / noise.SIGMA - L / G) == 0
    # the paper's sigmoid loss 1/(1 + exp(y <theta, x>)) with |x| <= 1: G = max |s'|, L = max |s''|
    z = sp.Symbol("z", real=True)
    s = 1 / (1 + sp.exp(z))
    s1, s2, s3 = (sp.diff(s, z, k) for k in (1, 2, 3))
    lipschitz = sp.simplify(abs(s1.subs(z, 0)))  # |s'| is largest at 0
    crit = [c for c in sp.solve(sp.simplify(s3), z) if c.is_real]
    smooth = max(sp.simplify(abs(s2.subs(z, c))) for c in crit)
    assert lipschitz == sp.Rational(1, 4) and sp.simplify(smooth - 1 / (6 * sp.sqrt(3))) == 0
    ratio = float(smooth / lipschitz)
    assert f"{ratio:.3f}" == "0.385" and "0.385" in text
    # the printed noise with L (rho to the first power) is not (1, 1e-5)-DP, for any n and T
    for n_, steps in ((1000, 100), (50, 3)):
        printed = _at(noise.SIGMA_PRINTED_L_ONLY, G=0.25, L=float(smooth), n=n_, T=steps, epsilon=1.0, delta=1e-5)
        got = _exact_epsilon(printed, 0.25, n_, steps)
        assert f"{got:.2f}" == "2.13"
    assert "2.13" in text


def test_step_3_rho_squared_typo():
    text = _flag(dp_pgd.ALG_1, "rho^2")
    rho_star = noise.RHO_STAR
    assert _s(noise.SIGMA_PRINTED_RHO2_ONLY / noise.SIGMA - 1 / sp.sqrt(rho_star)) == 0
    factor = _at(noise.SIGMA_PRINTED_RHO2_ONLY / noise.SIGMA, G=1, n=1000, T=100, epsilon=1.0, delta=1e-5)
    assert f"{factor:.2f}" == "6.93" and "6.93" in text
    # rho* = 1 at epsilon = 1 + 2 sqrt(ln(1/delta)): beyond it the rho^2 noise is too small
    e = sp.Symbol("e", positive=True)
    rho_e = rho_star.subs({eps: e, delta: sp.exp(-A)})
    # rho* = (sqrt(a + e) - sqrt(a))^2 = 1 iff a + e = (1 + sqrt(a))^2, i.e. e = 1 + 2 sqrt(a)
    assert sp.expand((1 + sp.sqrt(A)) ** 2 - (A + 1 + 2 * sp.sqrt(A))) == 0
    for a_value in (sp.Integer(1), sp.Rational(23, 2), sp.Integer(30)):
        assert abs(rho_e.subs({A: a_value, e: 1 + 2 * sp.sqrt(a_value)}).evalf(50) - 1) < 1e-40
    # sqrt(rho*) = e/(sqrt(a + e) + sqrt(a)) = sqrt(a + e) - sqrt(a) increases in e: the root is unique
    assert sp.simplify(sp.sqrt(rho_e) * (sp.sqrt(A + e) + sp.sqrt(A)) - e) == 0
    assert sp.diff(sp.sqrt(A + e) - sp.sqrt(A), e).is_positive
    threshold = 1 + 2 * math.sqrt(math.log(1e5))
    assert f"{threshold:.2f}" == "7.79" and "7.79" in text
    printed20 = _at(noise.SIGMA_PRINTED_RHO2_ONLY, G=1, n=1000, T=100, epsilon=20.0, delta=1e-5)
    needed20 = _at(noise.SIGMA, G=1, n=1000, T=100, epsilon=20.0, delta=1e-5)
    got = _exact_epsilon(printed20, 1.0, 1000, 100)
    assert got > 20 and f"{printed20 / needed20:.3f}" == "0.450" and f"{got:.1f}" == "53.3"
    assert "0.450" in text and "53.3" in text
    # the paper's approximation is the leading term with rho, not with rho^2 (and with sensitivity 2G/n)
    lead = sp.limit(noise.SIGMA_SQUARED.subs(delta, sp.exp(-A)) * eps**2, eps, 0)
    approx = (noise.SIGMA_PRINTED_APPROXIMATION**2 * eps**2).subs({L: G, delta: sp.exp(-A)})
    assert sp.simplify(lead - approx) == 0
    lead2 = sp.limit(noise.SIGMA_PRINTED_RHO2_ONLY.subs(delta, sp.exp(-A)) ** 2 * eps**4, eps, 0)
    assert sp.simplify(lead2 - 32 * G**2 * T * A**2 / n**2) == 0


def test_remark_misplaced_root():
    text = _flag(dp_pgd.ALG_1, "misplaces")
    # the printed closed form is epsilon^2; the positive root of r^2 + 2 sqrt(a) r = epsilon gives rho*
    assert noise.RHO_MISPLACED_ROOT == eps**2
    r = sp.Symbol("r", positive=True)
    (root,) = sp.solve(sp.Eq(r**2 + 2 * sp.sqrt(A) * r, eps), r)
    assert sp.simplify(root**2 - noise.RHO_STAR.subs(delta, sp.exp(-A))) == 0
    ratio = sp.simplify((noise.SIGMA_MISPLACED_ROOT / noise.SIGMA).subs(delta, sp.exp(-A)))
    assert sp.simplify(ratio - 1 / (sp.sqrt(A + eps) + sp.sqrt(A))) == 0
    factor = _at(noise.SIGMA_MISPLACED_ROOT / noise.SIGMA, G=1, n=1000, T=100, epsilon=1.0, delta=1e-5)
    assert f"{factor:.3f}" == "0.144" and "0.144" in text
    got = _exact_epsilon(_at(noise.SIGMA_MISPLACED_ROOT, G=1, n=1000, T=100, epsilon=1.0), 1.0, 1000, 100)
    assert f"{got:.2f}" == "6.57" and "6.57" in text
    # the record's formulas are the module's expressions
    assert dp_pgd.ALG_1.formula("sigma_printed").expr is noise.SIGMA_PRINTED
    assert dp_pgd.ALG_1.formula("sigma").expr is noise.SIGMA


def test_explicit_bound_algebra():
    # the descent coefficient at gamma = 1/(2L) and the bound there
    at_paper = dp_pgd.BOUND_SQUARED_AT.subs(gamma, dp_pgd.LEARNING_RATE)
    assert sp.simplify(at_paper - (8 * L * h0 / (3 * T) + sp.Rational(4, 3) * p * sigma**2)) == 0
    # T* is the stationary point and a minimum, and the bound matches the closed form typed here
    K = 2 * G**2 * (sp.sqrt(A) + sp.sqrt(A + eps)) ** 2 / (n**2 * eps**2)
    t = sp.Symbol("t", positive=True)
    f = 8 * L * h0 / (3 * t) + sp.Rational(4, 3) * p * K * t
    t_star = dp_pgd.STEPS_TUNED.subs(delta, sp.exp(-A))
    assert sp.simplify(sp.diff(f, t).subs(t, t_star)) == 0 and sp.simplify(sp.diff(f, t, 2).subs(t, t_star)) > 0
    target = n * eps * sp.sqrt(L * h0) / (G * sp.sqrt(p) * (sp.sqrt(A) + sp.sqrt(A + eps)))
    assert sp.simplify(sp.expand(1 / t_star**2) - sp.expand(1 / target**2)) == 0  # both positive
    closed = 4 * sp.sqrt(G * (sp.sqrt(A) + sp.sqrt(A + eps)) * sp.sqrt(L * h0 * p) / (3 * n * eps))
    # both sides positive: compare fourth powers, where the nested roots expand away
    assert sp.simplify(sp.expand(dp_pgd.BOUND.subs(delta, sp.exp(-A)) ** 4) - sp.expand(closed**4)) == 0
    # numerically through the record (rounding up)
    v = dict(lipschitz=1.0, smoothness=2.0, n=10_000, dimension=20, epsilon=0.5, delta=1e-6, initial_gap=3.0)
    got = dp_pgd.THM_2.evaluate("bound", **v)
    want = float(closed.subs({G: 1, L: 2, n: 10_000, p: 20, eps: 0.5, A: math.log(1e6), h0: 3}).evalf(40))
    assert got == pytest.approx(want, rel=1e-14) and got >= want


def test_descent_step_is_tight():
    """F = (L/2)||x||^2 on R^p, r = 0: E F(x+) equals the one-step bound F(x) - (gamma - L gamma^2/2) E||P||^2 +
    gamma p sigma^2 exactly (per coordinate; E eps = 0, E eps^2 = sigma^2), so its constants cannot be improved."""
    x, e = sp.symbols("x e", real=True)
    F = L * x**2 / 2
    g = L * x + e
    x_plus = x - gamma * g
    P = (x - x_plus) / gamma

    def expect(expr):  # E over e with E e = 0, E e^2 = sigma^2 (polynomial of degree 2)
        poly = sp.Poly(sp.expand(expr), e)
        return sum(c * {0: 1, 1: 0, 2: sigma**2}[k[0]] for k, c in zip(poly.monoms(), poly.coeffs()))

    lhs = expect(F.subs(x, x_plus))
    rhs = F - (gamma - L * gamma**2 / 2) * expect(P**2) + gamma * sigma**2
    assert sp.simplify(lhs - rhs) == 0


def _prox(v, thr, box):
    return np.clip(np.sign(v) * np.maximum(np.abs(v) - thr, 0.0), -box, box)


def test_explicit_bound_in_simulation():
    """DP-PGD on F(x) = sum_i (1 - cos x_i) (1-smooth, non-convex) + lam ||x||_1 over the box [-3, 3]^p.

    inf F^r = 0 at x = 0, so h_0 = F^r(x_1) exactly. The bound holds in expectation; the measured mean over 4000
    seeded runs has a relative standard error below 1% (asserted), so ratio < 0.95 is 5 standard errors from 1.
    """
    rng = np.random.default_rng(20190127)
    lam, box, dim, runs = 0.05, 3.0, 5, 4000
    ratios = []
    for steps, sig in ((30, 0.1), (30, 0.5), (100, 0.3)):
        gam = dp_pgd.THM_2.evaluate("learning_rate", smoothness=1.0)
        x = np.full((runs, dim), 2.5)
        h = dim * (1 - math.cos(2.5)) + lam * dim * 2.5
        total = np.zeros(runs)  # per run: sum_k ||P_k||^2
        for _ in range(steps):
            g = np.sin(x) + sig * rng.standard_normal((runs, dim))
            x_next = _prox(x - gam * g, gam * lam, box)
            total += np.sum(((x - x_next) / gam) ** 2, axis=1)
            x = x_next
        measured = total.mean() / steps
        assert total.std() / math.sqrt(runs) / total.mean() < 0.01  # relative standard error of the mean
        bound = dp_pgd.THM_2.evaluate("bound_at", smoothness=1.0, learning_rate=gam, initial_gap=h, steps=steps,
                                      dimension=dim, sigma=sig) ** 2
        ratios.append(measured / bound)
    assert all(r < 0.95 for r in ratios), ratios  # below the bound by more than 5 standard errors
    text = _flag(dp_pgd.THM_2, "made explicit")
    assert f"{min(ratios):.2f}-{max(ratios):.2f}" in text, ratios


def test_noisy_versus_true_mapping():
    text = _flag(dp_pgd.THM_2, "noisy gradient")
    # nonexpansiveness of the prox mapping on seeded random instances (soft-threshold + box)
    rng = np.random.default_rng(7)
    for _ in range(200):
        dim = int(rng.integers(1, 8))
        x = rng.uniform(-2, 2, dim)
        g1, g2 = rng.normal(0, 3, dim), rng.normal(0, 3, dim)
        gam, lam = float(rng.uniform(0.05, 2)), float(rng.uniform(0, 1))
        P1 = (x - _prox(x - gam * g1, gam * lam, 2.0)) / gam
        P2 = (x - _prox(x - gam * g2, gam * lam, 2.0)) / gam
        assert np.linalg.norm(P1 - P2) <= np.linalg.norm(g1 - g2) * (1 + 1e-12)
    # unconstrained, r = 0, at a stationary point: P = grad F + eps = eps, E||P||^2 = p sigma^2
    assert "p sigma^2" in text
    v = dict(smoothness=1.0, learning_rate=0.5, initial_gap=1.0, steps=10, dimension=4, sigma=0.3)
    gap = dp_pgd.THM_2.evaluate("true_mapping_bound_at", **v) - dp_pgd.THM_2.evaluate("bound_at", **v)
    assert gap == pytest.approx(math.sqrt(4) * 0.3, rel=1e-12)
