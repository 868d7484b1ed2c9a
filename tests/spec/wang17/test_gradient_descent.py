"""spec.wang17.gradient_descent: DP-GD (Algorithm 4), Theorems 6.1-6.3.

Oracles: sympy (descent lemma, telescoping, the optimal T); the exact first two moments of noisy
gradient descent on quadratics (a linear Gaussian recursion), computed in closed form per coordinate.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

import spec
from spec.record import FlagKind
from spec.wang17 import calibration as cal
from spec.wang17 import gradient_descent as gd
from spec.wang17.symbols import G, L, T, delta as DELTA, eps, h0, mu, n, p


def _descent_step():
    """E F(x - eta (g + z)) <= F - eta ||g||^2 + (L eta^2 / 2)(||g||^2 + p sigma^2) at eta = 1/L."""
    f, gg, ps2, eta_ = sp.symbols("F gg ps2 eta", positive=True)
    upper = f - eta_ * gg + L * eta_**2 / 2 * (gg + ps2)  # descent lemma, E<g, z> = 0, E||z||^2 = p sigma^2
    return sp.simplify(upper.subs(eta_, 1 / L)), f, gg, ps2


def _quadratic_moments(lams, x0, sigma, lr, steps):
    """Exact per-coordinate mean and variance of x_t, t = 0..steps, for F = sum_i lam_i x_i^2 / 2."""
    out = []
    for lam, start in zip(lams, x0):
        a = 1 - lr * lam
        out.append([(a**t * start, lr**2 * sigma**2 * sum(a ** (2 * j) for j in range(t))) for t in range(steps + 1)])
    return out


def test_output_index_range():
    upper, f, gg, ps2 = _descent_step()
    assert sp.simplify(upper - (f - gg / (2 * L) + ps2 / (2 * L))) == 0
    # telescoping over t = 0..T-1: (1/T) sum_{t<T} E||g_t||^2 <= 2 L (F(x_0) - F*) / T + p sigma^2
    k = sp.Symbol("k", integer=True, nonnegative=True)
    Fk, gk = sp.Function("F"), sp.Function("g")
    per_step = Fk(k) - Fk(k + 1) + ps2 / (2 * L)  # >= gk(k)/(2L) by the step above
    total = sp.summation(per_step, (k, 0, T - 1))
    assert sp.simplify(total - (Fk(0) - Fk(T) + T * ps2 / (2 * L))) == 0  # exactly the indices 0..T-1
    # exact check on quadratics (F* = 0), eta = 1/L: the average over {0, ..., T-1}
    lams, x0, sigma, L_ = [1.0, 0.3, 0.05], [2.0, -1.0, 3.0], 0.2, 1.0
    for steps in (1, 3, 10, 40):
        mom = _quadratic_moments(lams, x0, sigma, 1 / L_, steps)
        grad_sq = [sum(lam**2 * (m_**2 + v) for lam, row in zip(lams, mom) for (m_, v) in [row[t]])
                   for t in range(steps + 1)]
        h_0 = sum(lam * s**2 / 2 for lam, s in zip(lams, x0))
        avg = sum(grad_sq[:steps]) / steps
        assert avg <= 2 * L_ * h_0 / steps + len(lams) * sigma**2 + 1e-12
    assert gd.ALG_4.evaluate("output_candidates", steps=17) == 17
    assert "{0, 1, ..., T-1}" in gd.ALG_4.pseudocode[4].statement


def test_thm_6_1_uses_the_full_batch_calibration():
    r = gd.THM_6_1
    assert r.formula("sigma").expr == cal.FULL_BATCH_SIGMA
    values = dict(lipschitz=2.0, n=500, steps=25, epsilon=0.5, delta=1e-6)
    s = r.evaluate("sigma", **values)
    assert s == cal.FULL_BATCH.evaluate("sigma", **values)
    assert round(r.evaluate("implied_constant", epsilon=1.0, delta=1e-5), 2) == 8.34
    assert r.evaluate("implied_constant_of_sigma", sigma=s, **values) == pytest.approx(
        r.evaluate("implied_constant", epsilon=0.5, delta=1e-6), rel=1e-12)
    assert r.privacy.profile(sigma=s, lipschitz=2.0, n=500, steps=25)(0.5) <= 1e-6


def _pl_values(**kw):
    values = dict(lipschitz=1.0, smoothness=1.0, polyak_lojasiewicz=0.1, n=10**4, dimension=10, epsilon=1.0,
                  delta=1e-5, initial_gap=1.0)
    values.update(kw)
    return values


def test_pl_explicit_bound():
    upper, f, gg, ps2 = _descent_step()
    fstar = sp.Symbol("Fstar")
    # PL: gg >= 2 mu (F - F*), so the step contracts the gap by (1 - mu/L) plus p sigma^2 / (2L)
    contracted = upper.subs(gg, 2 * mu * (f - fstar)) - fstar
    assert sp.simplify(contracted - ((1 - mu / L) * (f - fstar) + ps2 / (2 * L))) == 0
    # the geometric sum of the noise term is at most p sigma^2 / (2 mu)
    j = sp.Symbol("j", integer=True, nonnegative=True)
    assert sp.simplify(sp.summation((1 - mu / L) ** j, (j, 0, sp.oo)).subs({mu: 1, L: 4}) * ps2 / (2 * 4)
                       - ps2 / (2 * 1)) == 0
    # exact check on strongly convex quadratics (PL with mu = min eigenvalue), eta = 1/L
    lams, x0, sigma = [1.0, 0.4, 0.1], [1.0, -2.0, 0.5], 0.3
    h_0 = sum(lam * s**2 / 2 for lam, s in zip(lams, x0))
    for steps in (1, 5, 30, 200):
        mom = _quadratic_moments(lams, x0, sigma, 1.0, steps)
        exact = sum(lam / 2 * (m_**2 + v) for lam, row in zip(lams, mom) for (m_, v) in [row[steps]])
        assert exact <= (1 - 0.1) ** steps * h_0 + len(lams) * sigma**2 / (2 * 0.1) + 1e-12
    # at the record's T: at most (p G^2 a / (mu n^2 eps^2)) (1 + c T / 2), c the full-batch constant
    r = gd.THM_6_2
    for kw in ({}, dict(n=10**6), dict(dimension=1000, epsilon=0.2), dict(polyak_lojasiewicz=0.9, initial_gap=50.0)):
        values = _pl_values(**kw)
        steps = r.evaluate("steps", **values)
        bound = r.evaluate("excess_risk_bound", steps=steps, **values)
        c = cal.FULL_BATCH.evaluate("implied_constant", epsilon=values["epsilon"], delta=values["delta"])
        scale = values["dimension"] * math.log(1 / values["delta"]) / (
            values["polyak_lojasiewicz"] * values["n"] ** 2 * values["epsilon"] ** 2)
        assert bound <= scale * (1 + c * steps / 2) * (1 + 1e-12)
        # T = O(log n): the bound is O(log(n) / n^2)
        assert steps <= 1 + values["smoothness"] / values["polyak_lojasiewicz"] * math.log(
            1 + values["initial_gap"] / scale)
    assert r.evaluate("learning_rate", smoothness=4.0) == 0.25


def test_pl_rates():
    r = gd.THM_6_2
    assert r.exponents(0) == {"n": -2, "dimension": 1, "epsilon": -2}

    def explicit(**kw):
        values = _pl_values(**dict(dict(n=10**6), **kw))
        return r.evaluate("excess_risk_bound", steps=r.evaluate("steps", **values), **values)

    # local slopes around n = 10^6, p = 10, epsilon = 1: the exponents up to the log factor of T
    slope_n = math.log(explicit(n=10**7) / explicit()) / math.log(10)
    slope_p = math.log(explicit(dimension=100) / explicit()) / math.log(10)
    slope_e = math.log(explicit(epsilon=0.1) / explicit()) / math.log(0.1)
    assert -2 < slope_n < -1.85
    assert 0.9 < slope_p <= 1
    assert -2 < slope_e < -1.85
    lower = p / (n**2 * eps**2)  # the strongly convex lower bound the paper compares with
    for name, x, where in (("n", n, sp.oo), ("dimension", p, sp.oo), ("epsilon", eps, 0)):
        assert sp.limit(x * sp.diff(sp.log(lower), x), x, where) == r.exponents(0)[name]


def test_nonconvex_explicit_bound():
    # minimise 2 L h0 / T + p k T (sigma^2 = k T): T* = sqrt(2 L h0 / (p k)), value 2 sqrt(2 L h0 p k)
    T_, k_ = sp.symbols("T k", positive=True)
    bound = 2 * L * h0 / T_ + p * k_ * T_
    t_star = sp.solve(sp.diff(bound, T_), T_)
    assert len(t_star) == 1 and sp.simplify(t_star[0] - sp.sqrt(2 * L * h0 / (p * k_))) == 0
    assert sp.simplify(bound.subs(T_, t_star[0]) - 2 * sp.sqrt(2 * L * h0 * p * k_)) == 0
    a = sp.Symbol("a", positive=True)  # a = ln(1/delta)
    at_a = lambda e: sp.simplify(e.subs(DELTA, sp.exp(-a)))
    k_full = at_a(cal.FULL_BATCH_SIGMA_SQUARED / T)
    closed = 4 * G * sp.sqrt(L * h0 * p) * (sp.sqrt(a + eps) + sp.sqrt(a)) / (n * eps)
    assert sp.simplify(at_a(gd.NC_BOUND_AT_OPTIMUM) - closed) == 0
    assert sp.simplify(at_a(gd.NC_STEPS_REAL) - t_star[0].subs(k_, k_full)) == 0
    # numbers: T* by hand, and the explicit bound at T* is the optimum's value up to the rounding of T
    values = dict(lipschitz=1.0, smoothness=2.0, n=10**4, dimension=10, epsilon=1.0, delta=1e-5, initial_gap=3.0)
    a_ = math.log(1e5)
    t_hand = 10**4 * math.sqrt(2.0 * 3.0 / 10) / (math.sqrt(a_ + 1) + math.sqrt(a_))
    steps = gd.THM_6_3.evaluate("steps", **values)
    assert steps == math.ceil(t_hand)
    at_t = gd.THM_6_3.evaluate("gradient_norm_bound", steps=steps, **values)
    optimum = 4 * math.sqrt(2.0 * 3.0 * 10) * (math.sqrt(a_ + 1) + math.sqrt(a_)) / 10**4
    assert optimum <= at_t <= optimum * (1 + 1e-6)
    # the explicit bound holds on quadratics at the record's T (exact moments), eta = 1/L
    lams, x0 = [2.0, 0.5, 0.01], [1.0, 1.0, -1.0]
    h_0 = sum(lam * s**2 / 2 for lam, s in zip(lams, x0))
    sig = gd.THM_6_1.evaluate("sigma", lipschitz=1.0, n=200, steps=50, epsilon=1.0, delta=1e-5)
    mom = _quadratic_moments(lams, x0, sig, 1 / 2.0, 50)
    avg = sum(sum(lam**2 * (m_**2 + v) for lam, row in zip(lams, mom) for (m_, v) in [row[t]]) for t in range(50)) / 50
    assert avg <= gd.THM_6_3.evaluate("gradient_norm_bound", lipschitz=1.0, smoothness=2.0, n=200, dimension=3,
                                      epsilon=1.0, delta=1e-5, initial_gap=h_0, steps=50)


def test_nonconvex_rates():
    r = gd.THM_6_3
    assert r.exponents(0) == {"n": -1, "dimension": sp.Rational(1, 2), "epsilon": -1}
    assert r.exponents(1) == r.exponents(0)
    a = sp.Symbol("a", positive=True)  # a = ln(1/delta)
    ratio_a = sp.simplify((gd.NC_BOUND_AT_OPTIMUM / (gd.NC_PAPER_BOUND * sp.sqrt(h0))).subs(DELTA, sp.exp(-a)))
    assert sp.simplify(ratio_a - 4 * (1 + sp.sqrt(1 + eps / a))) == 0
    assert sp.limit(ratio_a, eps, 0) == 8


def test_records_and_flags():
    assert gd.RECORDS == (gd.ALG_4, gd.THM_6_1, gd.THM_6_2, gd.THM_6_3)
    for r in gd.RECORDS:
        assert spec.get(r.id) is r
    assert {f.kind for f in gd.ALG_4.flags} == {FlagKind.ERRATUM}
    assert [line.label for line in gd.ALG_4.pseudocode] == ["L1", "L2", "L3", "L4", "L5"]
    assert gd.ALG_4.evaluate("learning_rate", smoothness=5.0) == 0.2
    with pytest.raises(spec.AssumptionError, match="learning_rate_le_1_over_L"):
        gd.ALG_4.check(smoothness=5.0, learning_rate=0.3)
    with pytest.raises(spec.AssumptionError, match="pl_le_smoothness"):
        gd.THM_6_2.check(smoothness=1.0, polyak_lojasiewicz=2.0)
