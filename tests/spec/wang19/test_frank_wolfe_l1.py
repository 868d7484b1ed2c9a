"""spec.wang19.frank_wolfe_l1: Algorithm 4's reconstructed exponential mechanism and Theorem 6.

Oracles: brute force over the vertices of the l-infinity cube of gradient differences, the exact output
distribution of the exponential mechanism in mpmath (typed here, not taken from spec.exponential), the optimal
composition of pure-DP mechanisms (the k-fold randomized response of Kairouz, Oh and Viswanath 2015, typed
here), spec.composition and spec.zcdp for the budgets, sympy, and a seeded numpy simulation with Gumbel-max.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from spec import composition, zcdp
from spec.errors import AssumptionError
from spec.wang19 import frank_wolfe_l1 as fw1
from spec.wang19.symbols import A, D, D1, G, L, T, delta, eps, eta, gamma, h0, n

a_sym = sp.Symbol("a", positive=True)


def _text(record, word):
    (flag,) = [f for f in record.flags if word in f.summary]
    return flag.summary + " " + flag.reason


def _log_ratio(coef, scores_d, scores_dp):
    """max_v |ln p_D(v) - ln p_D'(v)| for p proportional to exp(coef * score), in mpmath."""
    with mpmath.workdps(40):
        def logp(scores):
            z = mpmath.log(mpmath.fsum(mpmath.exp(coef * s) for s in scores))
            return [coef * s - z for s in scores]
        return max(abs(x - y) for x, y in zip(logp(scores_d), logp(scores_dp)))


def test_exponential_mechanism_reconstruction():
    rec = fw1.ALG_4
    lip, n_, r, p = 1.0, 10, 1.0, 3
    vertices = [s * r * e for e in np.eye(p) for s in (1, -1)]
    # gradient differences of neighbours: (grad f(z) - grad f(z'))/n with both in [-G, G]^p; the extremes of the
    # convex functions below are at the vertices {+-2G/n}^p of that cube
    cube = [np.array(c) * 2 * lip / n_ for c in itertools.product((1, -1), repeat=p)]
    sensitivity = max(abs(float(v @ dlt)) for v in vertices for dlt in cube)
    oscillation = max(max(float(v @ dlt) for v in vertices) - min(float(v @ dlt) for v in vertices) for dlt in cube)
    kw = dict(lipschitz=lip, n=n_, l1_diameter=2 * r)
    assert rec.evaluate("score_sensitivity", **kw) == pytest.approx(sensitivity, rel=1e-15)
    assert rec.evaluate("oscillation", **kw) == pytest.approx(oscillation, rel=1e-15)
    # textbook and oscillation coefficients agree for the (symmetric) l1 ball
    assert sp.simplify(fw1.COEFFICIENT_AT - fw1.COEFFICIENT_TEXTBOOK_AT) == 0
    assert sp.simplify(fw1.COEFFICIENT_AT - fw1.EPSILON_STEP * n / (2 * G * D1)) == 0
    # privacy: exact log-likelihood ratios on random feasible neighbour pairs (p = 3) and on the extremal pair
    rng = np.random.default_rng(4)
    eps0 = 0.5
    n_big = 100
    coef = rec.evaluate("coefficient_at", epsilon_step=eps0, lipschitz=lip, n=n_big, l1_diameter=2 * r)
    worst = 0
    for _ in range(300):
        grad_d = rng.uniform(-lip, lip, p)
        diff = rng.choice([-1.0, 1.0], p) * rng.uniform(0, 2 * lip / n_big, p)
        grad_dp = np.clip(grad_d + diff, -lip, lip)
        scores_d = [float(v @ -grad_d) for v in vertices]
        scores_dp = [float(v @ -grad_dp) for v in vertices]
        worst = max(worst, _log_ratio(coef, scores_d, scores_dp))
    assert worst <= eps0
    # p = 1, A = {+r, -r}: grad_D = G - 2G/n, grad_D' = G concentrates p_D on -r, and the ratio at +r -> eps0
    g = lip - 2 * lip / n_big
    extremal = _log_ratio(coef, [-r * g, r * g], [-r * lip, r * lip])
    assert eps0 * (1 - 1e-9) < extremal <= eps0
    twin = _log_ratio(2 * coef, [-r * g, r * g], [-r * lip, r * lip])  # 'eps_0 instead of eps_0/2'
    assert twin > 2 * eps0 * (1 - 1e-9)
    text = _text(rec, "lost in extraction")
    assert "within 1e-9" in text and "2 epsilon_0" in text
    # the per-step budget is the composition record's, and Form A composes T of them to at most epsilon
    for e, d, steps in ((0.5, 1e-5, 100), (0.9, 1e-3, 7)):
        eps_step = fw1.THM_6.evaluate("epsilon_step", epsilon=e, delta=d, steps=steps)
        assert eps_step == composition.advanced_per_step(epsilon_total=e, steps=steps, delta_prime=d)
        total, total_delta = composition.advanced(epsilon=eps_step, delta=0.0, steps=steps, delta_prime=d)
        assert total <= e and total_delta <= d * (1 + 1e-15)
        c = fw1.THM_6.evaluate("coefficient", epsilon=e, delta=d, steps=steps, lipschitz=lip, n=1000, l1_diameter=2.0)
        assert c <= eps_step * 1000 / (2 * lip * 2.0)


def test_zcdp_per_step_budget():
    text = _text(fw1.ALG_4, "not the best composition")
    ratio = sp.simplify((fw1.EPSILON_STEP_ZCDP / fw1.EPSILON_STEP_FORM_B).subs(delta, sp.exp(-a_sym)))
    target = 4 * sp.sqrt(a_sym) / (sp.sqrt(a_sym + eps) + sp.sqrt(a_sym))
    assert sp.simplify(sp.expand(ratio**2) - sp.expand(target**2)) == 0
    # ratio > 1 iff 4 sqrt(a) > sqrt(a + eps) + sqrt(a) iff 9 a > a + eps iff eps < 8 a
    for e, a_val, above in ((1.0, 2.0, True), (15.9, 2.0, True), (16.1, 2.0, False)):
        value = float(target.subs({eps: e, a_sym: a_val}))
        assert (value > 1) is above
    value = float(target.subs({eps: 1, a_sym: math.log(1e5)}))
    assert f"{value:.3f}" == "1.958" and "1.958" in text
    # T steps at the zCDP budget are (epsilon, delta)-DP for every epsilon, checked with spec.zcdp
    for e, d, steps in ((0.5, 1e-5, 100), (3.0, 1e-6, 20), (20.0, 1e-3, 5)):
        e0 = fw1.ALG_4.evaluate("epsilon_step_zcdp", epsilon=e, delta=d, steps=steps)
        rho = steps * zcdp.FROM_PURE_DP.evaluate("rho", epsilon=e0)
        assert zcdp.epsilon(rho=rho, delta=d) <= e * (1 + 1e-12)


def _optimal_composition_delta(eps0, k, eps_target):
    """delta at eps_target of k-fold randomized response with parameter eps0 (optimal for eps0-DP, KOV15)."""
    e0 = mpmath.mpf(eps0)
    p = mpmath.exp(e0) / (1 + mpmath.exp(e0))
    q = 1 - p
    et = mpmath.exp(eps_target)
    return mpmath.fsum(max(mpmath.mpf(0), mpmath.binomial(k, j) * (p ** (k - j) * q**j - et * q ** (k - j) * p**j))
                       for j in range(k + 1))


def test_any_epsilon_needs_the_conditions():
    text = _text(fw1.THM_6, "any epsilon")
    with mpmath.workdps(30):
        d = _optimal_composition_delta(50 / mpmath.sqrt(8 * 1000 * mpmath.log(10)), 1000, 50)
        assert f"{float(d):.2f}" == "0.92" and "0.92" in text
        violations, worst_ok = [], 0.0
        for e in (0.5, 1, 2, 3, 5, 8, 20, 50):
            for dl in (0.9, 0.5, 0.1, 1e-2, 1e-5):
                a = mpmath.log(1 / mpmath.mpf(dl))
                for k in (1, 3, 10, 100, 1000):
                    ratio = _optimal_composition_delta(e / mpmath.sqrt(8 * k * a), k, e) / dl
                    if ratio > 1:
                        violations.append((e, dl, k, a >= e / 2))
                    elif a >= e / 2:
                        worst_ok = max(worst_ok, float(ratio))
    assert violations and not any(cond for *_, cond in violations)
    assert min(e for e, *_ in violations) == 5 and "is 5" in text
    assert worst_ok < 0.01 and "below 1% of the target" in text
    # the record enforces the conditions
    with pytest.raises(AssumptionError, match="epsilon_lt_1"):
        fw1.THM_6.evaluate("epsilon_step", epsilon=1.5, delta=1e-5, steps=10)
    with pytest.raises(AssumptionError, match="delta_condition"):
        fw1.THM_6.evaluate("epsilon_step", epsilon=0.9, delta=0.7, steps=10)


def test_steps_garble():
    text = _text(fw1.THM_6, "ln(1/k)")
    bound = fw1.GAP_BOUND_HIGH_PROBABILITY_AT.subs(gamma, fw1._PAPER_STEP)
    with_delta = bound.subs(T, fw1.STEPS).subs(delta, sp.exp(-a_sym))
    slope = sp.limit(sp.simplify(a_sym * sp.diff(sp.log(with_delta), a_sym)), a_sym, sp.oo)
    assert slope == sp.Rational(1, 4)
    free_of_delta = bound.subs(T, n * eps / sp.log(A * n / eta)).subs(delta, sp.exp(-a_sym))
    slope2 = sp.limit(sp.simplify(a_sym * sp.diff(sp.log(free_of_delta), a_sym)), a_sym, sp.oo)
    assert sp.simplify(sp.expand_log(slope2, force=True)) == sp.Rational(1, 2)  # force: n, |A|, 1/eta > 0
    assert "1/4" in text and "1/2" in text


def test_explicit_bound_algebra():
    c = sp.Symbol("c", positive=True)
    assert sp.simplify(fw1.ORACLE_ERROR - ((sp.log(A) + 1) / fw1.COEFFICIENT)) == 0
    # ... with 1/c = 2 G D_1 sqrt(8 T a)/(n epsilon)
    inv_c = 2 * G * D1 * sp.sqrt(8 * T * a_sym) / (n * eps)
    assert sp.simplify((1 / fw1.COEFFICIENT).subs(delta, sp.exp(-a_sym)) - inv_c) == 0
    # tuned bound: A'/sqrt(T) + B' sqrt(T) with A' = ||C||_2 sqrt(2 L h_0), B' = (ln|A| + 1) inv_c/sqrt(T)
    a_coef = D * sp.sqrt(2 * L * h0)
    b_coef = (sp.log(A) + 1) * inv_c / sp.sqrt(T)
    t_star = fw1.STEPS_TUNED.subs(delta, sp.exp(-a_sym))
    assert sp.simplify(sp.expand(t_star**2) - sp.expand((a_coef / b_coef) ** 2)) == 0
    closed = 2 * sp.sqrt(a_coef * b_coef)
    assert sp.simplify(sp.expand(fw1.GAP_BOUND.subs(delta, sp.exp(-a_sym)) ** 4) - sp.expand(closed**4)) == 0
    assert c not in fw1.GAP_BOUND.free_symbols
    v = dict(lipschitz=1.0, smoothness=1.0, n=10**5, epsilon=0.5, delta=1e-6, initial_gap=2.0, diameter=2.0,
             l1_diameter=2.0, candidates=200)
    got = fw1.THM_6.evaluate("gap_bound", **v)
    want = float(closed.subs({G: 1, L: 1, n: 10**5, eps: 0.5, a_sym: math.log(1e6), h0: 2, D: 2, D1: 2, A: 200})
                 .evalf(40))
    assert got == pytest.approx(want, rel=1e-14) and got >= want


def test_explicit_bound_in_simulation():
    """DP-FW-L1 on F = sum (1 - cos x_i) over the unit l1 ball (|A| = 2p), Gumbel-max sampling.

    The coefficient is the record's at (epsilon, delta, n, G, D_1, T); F stands for an average over n records
    (the utility bound uses only the coefficient). 2000 seeded runs, relative standard error below 1% (asserted).
    """
    rng = np.random.default_rng(1907)
    dim, runs, r = 20, 2000, 1.0
    vertices = np.concatenate([r * np.eye(dim), -r * np.eye(dim)])
    ratios = []
    for n_, steps, tuned in ((10**4, 50, False), (10**5, 100, True), (10**6, 200, False)):
        kw = dict(epsilon=0.5, delta=1e-5, steps=steps)
        coef = fw1.THM_6.evaluate("coefficient", lipschitz=1.0, n=n_, l1_diameter=2.0, **kw)
        h = 1 - math.cos(0.9)
        if tuned:
            gam = fw1.THM_6.evaluate("learning_rate_tuned", initial_gap=h, smoothness=1.0, steps=steps, diameter=2.0)
        else:
            gam = fw1.THM_6.evaluate("learning_rate", steps=steps, diameter=2.0)
        x = np.zeros((runs, dim))
        x[:, 0] = 0.9
        total = np.zeros(runs)
        for _ in range(steps):
            grad = np.sin(x)
            total += r * np.abs(grad).max(axis=1) + np.sum(grad * x, axis=1)
            scores = -grad @ vertices.T  # u(v) = <v, -grad F>
            pick = np.argmax(coef * scores + rng.gumbel(size=scores.shape), axis=1)
            x = x + gam * (vertices[pick] - x)
        measured = total.mean() / steps
        assert total.std() / math.sqrt(runs) / total.mean() < 0.01
        bound = fw1.THM_6.evaluate("gap_bound_at", initial_gap=h, steps=steps, learning_rate=gam, smoothness=1.0,
                                   diameter=2.0, candidates=2 * dim, lipschitz=1.0, n=n_, l1_diameter=2.0,
                                   epsilon=0.5, delta=1e-5)
        ratios.append(measured / bound)
    assert max(ratios) < 0.95, ratios
    text = _text(fw1.THM_6, "made explicit")
    assert f"{min(ratios):.2f}-{max(ratios):.2f}" in text, ratios


def _asymmetric_rr_delta(pa, pb, steps, epsilon_target):
    """delta(epsilon_target) of T i.i.d. two-outcome steps with laws Ber(pa) vs Ber(pb) (one order)."""
    return mpmath.fsum(max(0, mpmath.binomial(steps, k) * (pa**k * (1 - pa) ** (steps - k)
                                                           - mpmath.exp(epsilon_target) * pb**k * (1 - pb) ** (steps - k)))
                       for k in range(steps + 1))


def test_coefficient_factor_two_only_for_the_per_step_claim():
    text = _text(fw1.ALG_4, "factor 2 of the coefficient")
    # zCDP algebra: T (2 eps0)^2/8 with Lemma 1's eps0 = eps/sqrt(8 T a) is eps^2/(16 a); converted, eps/2 + ...
    e0 = eps / sp.sqrt(8 * T * a_sym)
    rho = sp.simplify(T * (2 * e0) ** 2 / 8)
    assert sp.simplify(rho - eps**2 / (16 * a_sym)) == 0
    assert sp.simplify(rho - T * zcdp.FROM_PURE_DP.formula("rho").expr.subs(
        zcdp.FROM_PURE_DP.symbol("epsilon"), e0)) == 0  # the zCDP of T epsilon_0-DP steps
    total = sp.simplify(rho + 2 * sp.sqrt(rho * a_sym))
    assert sp.simplify(total - (eps / 2 + eps**2 / (16 * a_sym))) == 0
    assert sp.solve(sp.Eq(total, eps), eps) == [8 * a_sym]
    # exact, on the pairs attaining the bounded range: the end-to-end claim holds ...
    with mpmath.workdps(30):
        for e, d in ((0.9, 1e-5), (0.5, 1e-3), (0.9, 1e-2)):
            a = math.log(1 / d)
            for steps in (1, 2, 4, 8):
                z0 = e / math.sqrt(8 * steps * a)
                worst = max(max(_asymmetric_rr_delta(pa, pb, steps, e), _asymmetric_rr_delta(pb, pa, steps, e))
                            for shift in np.linspace(-12, 12, 97)
                            for pa, pb in [(1 / (1 + mpmath.exp(-(shift + z0))), 1 / (1 + mpmath.exp(-(shift - z0))))])
                assert worst <= d, (e, d, steps, float(worst))
        # ... while one step breaks epsilon_0-DP: the audits' pair (0.9, 0.5), log-odds -2 eps0 vs -4 eps0
        z0 = 0.9 / mpmath.sqrt(8 * mpmath.log(2))
        pa, pb = 1 / (1 + mpmath.exp(2 * z0)), 1 / (1 + mpmath.exp(4 * z0))
        excess = pa - mpmath.exp(z0) * pb
        assert f"{float(excess):.3f}" == "0.057" and "0.057" in text
