"""spec.zhang17.convex_utility: Theorems 2 and 3 and the excess-risk corollaries.

Oracles: the contraction and balance conditions evaluated in mpmath from quantities typed here; sympy
integrals (Gamma moments), solves and minimisations; gradient descent on ridge and regularised
logistic losses (numpy, seeded) with the minimiser from a linear solve or a long run.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from spec import zhang17
from spec.zhang17 import convex_utility
from spec.record import FlagKind


def _flag(record, kind, contains=""):
    flags = [f for f in record.flags if f.kind is kind and contains in f.summary + f.reason]
    assert len(flags) == 1, (record.id, kind)
    return flags[0].summary + " " + flags[0].reason


def _slope(expr, x, at=None):
    """Rate exponent lim x d log(expr)/dx, as record.exponents computes it."""
    point = sp.oo if at is None else at
    direction = "-" if at is None else "+"
    return sp.nsimplify(sp.limit(sp.simplify(x * sp.diff(sp.log(expr), x)), x, point, dir=direction))


THM2_GRID = [
    dict(lipschitz=L, smoothness=b, strong_convexity=m, dimension=dd, n=nn, epsilon=e, delta=1e-5, minimiser_norm=D)
    for L, (m, b), dd, nn, e, D in itertools.product(
        (0.5, 2.0), ((0.01, 1.0), (0.1, 1.0), (1.0, 1.0), (0.5, 4.0)), (1, 20), (100, 100_000), (0.1, 1.0), (1.0, 30.0))
]


# --------------------------------------------------------------------------- Theorem 2
def test_thm_2_steps_balance():
    thm = zhang17.THM_2
    checked = 0
    for v in THM2_GRID:
        m, b, D = (mpmath.mpf(v[k]) for k in ("strong_convexity", "smoothness", "minimiser_norm"))
        q2 = (m**2 + b**2) / (m + b) ** 2  # typed here (Nesterov's contraction at eta = 1/(mu + beta))
        sens = 5 * v["lipschitz"] * (m + b) / (v["n"] * m * b)
        ez2 = {"pure": v["dimension"] * (v["dimension"] + 1) * sens**2 / v["epsilon"] ** 2,
               "approx": 2 * v["dimension"] * mpmath.log(2 / mpmath.mpf(v["delta"])) * sens**2 / v["epsilon"] ** 2}
        for mode in ("pure", "approx"):
            T = thm.evaluate(f"steps_{mode}", **v)
            assert isinstance(T, int) and T >= 1
            assert q2**T * D**2 <= ez2[mode]  # optimisation term <= noise term
            if T > 1:
                # the smallest such T (up to a tie within the 50-digit evaluation, e.g. q^2 D^2 = E||z||^2 exactly)
                with mpmath.workdps(50):
                    assert q2 ** (T - 1) * D**2 > ez2[mode] * (1 - mpmath.mpf(10) ** -30)
                log_ratio = mpmath.log(D**2 / ez2[mode])
                assert (m**2 + b**2) / (2 * m * b) * log_ratio <= T <= (m + b) ** 2 / (2 * m * b) * log_ratio + 1
                checked += 1
            at_T = dict(v, steps=T)
            bound = thm.evaluate(f"utility_bound_{mode}", **at_T)
            assert bound <= thm.evaluate(f"utility_bound_{mode}_balanced", **v) * (1 + 1e-12)
            assert float(ez2[mode]) == pytest.approx(thm.evaluate(f"noise_second_moment_{mode}", **v), rel=1e-12)
    assert checked > 40
    assert "(mu^2 + beta^2)/(mu beta)" in _flag(thm, FlagKind.RECONSTRUCTED)


def test_thm_2_contraction_on_quadratics():
    rng = np.random.default_rng(20170904)
    thm = zhang17.THM_2
    for mu, beta in ((0.1, 1.0), (1.0, 1.0), (0.3, 5.0)):
        q2 = thm.evaluate("contraction_squared", strong_convexity=mu, smoothness=beta)
        assert q2 == pytest.approx((mu**2 + beta**2) / (mu + beta) ** 2, rel=1e-14)
        eta = thm.evaluate("learning_rate", strong_convexity=mu, smoothness=beta)
        for _ in range(5):
            eig = np.concatenate(([mu, beta], rng.uniform(mu, beta, 3)))
            Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
            A = Q @ np.diag(eig) @ Q.T
            w_hat = rng.normal(size=5)
            w = np.zeros(5)
            D2 = float(w_hat @ w_hat)
            for t in range(1, 60):
                w = w - eta * (A @ (w - w_hat))
                dist2 = float((w - w_hat) @ (w - w_hat))
                assert dist2 <= q2**t * D2 * (1 + 1e-9)
                gap = 0.5 * float((w - w_hat) @ A @ (w - w_hat))
                assert gap <= beta / 2 * q2**t * D2 * (1 + 1e-9)  # optimisation_error


def test_thm_2_noise_term_half():
    thm = zhang17.THM_2
    r, c = sp.symbols("r c", positive=True)
    d = thm.symbol("dimension")
    # E||z||^2 of the Gamma(d, rate c) radius, for symbolic d
    moment = sp.integrate(r ** (d + 1) * sp.exp(-c * r), (r, 0, sp.oo), conds="none") / sp.integrate(
        r ** (d - 1) * sp.exp(-c * r), (r, 0, sp.oo), conds="none")
    assert sp.simplify(sp.gammasimp(moment) - d * (d + 1) / c**2) == 0
    L, mu, beta, n, eps = (thm.symbol(k) for k in ("lipschitz", "strong_convexity", "smoothness", "n", "epsilon"))
    sens = thm.formula("sensitivity").expr
    assert sp.simplify(sens - 5 * L * (1 + beta / mu) / (n * beta)) == 0  # the theorem's own form
    noise_term = beta / 2 * d * (d + 1) * sens**2 / eps**2
    assert sp.simplify(noise_term / thm.formula("printed_noise_term_pure").expr) == sp.Rational(1, 2)
    assert sp.simplify(beta / 2 * thm.formula("noise_second_moment_pure").expr - noise_term) == 0
    assert "factor 1/2" in _flag(thm, FlagKind.ERRATUM)


def test_thm_2_hidden_constants():
    thm = zhang17.THM_2
    mu, beta, d, delta = (thm.symbol(k) for k in ("strong_convexity", "smoothness", "dimension", "delta"))
    pure = thm.formula("big_o_constant_pure").expr
    approx = thm.formula("big_o_constant_approx").expr
    assert sp.simplify(pure - 25 * (1 + mu / beta) ** 2 * (1 + 1 / d)) == 0
    assert sp.simplify(sp.expand_log(approx - 50 * (1 + mu / beta) ** 2 * sp.log(2 / delta) / sp.log(1 / delta),
                                     force=True)) == 0
    # the maxima under mu <= beta, d >= 1, delta <= 0.01 (both increase in mu/beta; pure decreases in d,
    # approx in 1/delta)
    assert pure.subs({mu: 1, beta: 1, d: 1}) == 200
    worst = float(approx.subs({mu: 1, beta: 1, delta: sp.Rational(1, 100)}))
    assert f"{worst:.1f}" == "230.1" and worst <= 231
    assert f"{math.log(200) / math.log(100):.4f}" == "1.1505"
    for m, b, dd, dl in itertools.product((0.01, 0.5, 1.0), (1.0,), (1, 2, 50), (1e-2, 1e-5, 1e-12)):
        assert thm.evaluate("big_o_constant_pure", strong_convexity=m, smoothness=b, dimension=dd) <= 200
        assert thm.evaluate("big_o_constant_approx", strong_convexity=m, smoothness=b, delta=dl) <= 231
    text = _flag(thm, FlagKind.CONSTANT_MADE_CONCRETE)
    for number in ("200", "231", "1.1505"):
        assert number in text
    # the O(.) claims have the exponents the issue lists
    assert thm.exponents(0) == {"n": -2, "dimension": 2, "epsilon": -2}
    assert thm.exponents(1) == {"n": -2, "dimension": 1, "epsilon": -2}


def _gd_distances(grad, w_hat, eta, steps, dim):
    w = np.zeros(dim)
    out = [float(np.linalg.norm(w - w_hat))]
    norms = [0.0]
    for _ in range(steps):
        w = w - eta * grad(w)
        out.append(float(np.linalg.norm(w - w_hat)))
        norms.append(float(np.linalg.norm(w)))
    return out, norms


def test_thm_2_iterates_stay_in_ball():
    rng = np.random.default_rng(20170905)
    n, dim, mu = 40, 4, 0.2
    for _ in range(5):
        X = rng.normal(size=(n, dim))
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
        y = rng.normal(size=n)
        # ridge: f = (<w, x> - y)^2/2 + (mu/2)||w||^2, beta = max ||x||^2 + mu
        A = X.T @ X / n + mu * np.eye(dim)
        w_hat = np.linalg.solve(A, X.T @ y / n)
        beta = 1.0 + mu
        dists, norms = _gd_distances(lambda w: A @ w - X.T @ y / n, w_hat, 1 / (mu + beta), 200, dim)
        assert all(b <= a * (1 + 1e-12) for a, b in zip(dists, dists[1:]))
        assert max(norms) <= 2 * np.linalg.norm(w_hat) * (1 + 1e-12)
        # regularised logistic: minimiser from a long run
        labels = np.sign(y)

        def grad(w):
            m = labels * (X @ w)
            return -(X * (labels / (1 + np.exp(m)))[:, None]).mean(axis=0) + mu * w

        beta = 0.25 + mu
        w_star = np.zeros(dim)
        for _ in range(5000):
            w_star = w_star - grad(w_star) / (mu + beta)
        assert np.linalg.norm(grad(w_star)) < 1e-12
        dists, norms = _gd_distances(grad, w_star, 1 / (mu + beta), 200, dim)
        assert all(b <= a * (1 + 1e-9) + 1e-14 for a, b in zip(dists, dists[1:]))
        assert max(norms) <= 2 * np.linalg.norm(w_star) * (1 + 1e-9)
    assert "{||w|| <= 2D}" in _flag(zhang17.THM_2, FlagKind.CAVEAT)


# --------------------------------------------------------------------------- Theorem 3
def test_thm_3_steps_and_constants():
    thm = zhang17.THM_3
    T = sp.Symbol("T_real", positive=True)
    Ts = thm.symbol("steps")
    L, beta, d, n, eps, delta, D = (thm.symbol(k) for k in (
        "lipschitz", "smoothness", "dimension", "n", "epsilon", "delta", "minimiser_norm"))
    for mode, ez2 in (("pure", "noise_second_moment_pure"), ("approx", "noise_second_moment_approx")):
        opt = thm.formula("optimisation_error").expr.subs(Ts, T)
        noise = beta / 2 * thm.formula(ez2).expr.subs(Ts, T)
        star = thm.formula(f"steps_{mode}").expr.args  # Max(1, T*)
        t_star = [a for a in star if a != 1][0]
        # T* balances the two terms (the only positive root: opt decreases and noise increases in T)
        assert sp.simplify(sp.expand_log((opt - noise).subs(T, t_star), force=True)) == 0
        assert sp.diff(opt, T).is_negative and not sp.simplify(noise / T**2).has(T)  # noise = c T^2, c > 0
        balanced = thm.formula(f"utility_bound_{mode}_balanced").expr
        assert sp.simplify(sp.expand_log((opt + noise).subs(T, t_star) - balanced, force=True)) == 0
    pure_c = thm.formula("big_o_constant_pure").expr
    approx_c = thm.formula("big_o_constant_approx").expr
    assert sp.simplify(pure_c**3 - 9 * (1 + 1 / d)) == 0
    assert sp.simplify(sp.expand_log(approx_c**3 - 18 * sp.log(2 / delta) / sp.log(1 / delta), force=True)) == 0
    top_pure = float(pure_c.subs(d, 1))
    top_approx = float(approx_c.subs(delta, sp.Rational(1, 100)))
    assert f"{top_pure:.2f}" == "2.62" and f"{top_approx:.2f}" == "2.75"
    text = _flag(thm, FlagKind.RECONSTRUCTED)
    assert "2.62" in text and "2.75" in text
    assert thm.exponents(0) == {"n": sp.Rational(-2, 3), "dimension": sp.Rational(2, 3), "epsilon": sp.Rational(-2, 3)}
    assert thm.exponents(1) == {"n": sp.Rational(-2, 3), "dimension": sp.Rational(1, 3), "epsilon": sp.Rational(-2, 3)}
    # evaluation: the integer T and the sensitivity at that T
    v = dict(lipschitz=1.0, smoothness=2.0, dimension=5, n=10_000, epsilon=0.5, delta=1e-6, minimiser_norm=3.0)
    t_int = thm.evaluate("steps_pure", **v)
    exact = (2.0**2 * 1e8 * 0.25 * 9.0 / (9 * 30)) ** (1 / 3)
    assert t_int == math.ceil(exact)
    assert thm.evaluate("sensitivity", lipschitz=1.0, smoothness=2.0, n=10_000, steps=t_int) == pytest.approx(
        3 * t_int / (2.0 * 10_000), rel=1e-15)


# --------------------------------------------------------------------------- excess risk
def test_excess_risk_strongly_convex_rates():
    rec = zhang17.EXCESS_RISK_STRONGLY_CONVEX
    L, beta, mu, d, n, eps, gamma = (rec.symbol(k) for k in (
        "lipschitz", "smoothness", "strong_convexity", "dimension", "n", "epsilon", "failure_probability"))
    log_term = sp.Symbol("ell", positive=True)  # ln(1/delta), a constant here
    empirical = beta * L**2 * d * log_term / (gamma * mu**2 * n**2 * eps**2)  # Markov on Theorem 2
    route = sp.sqrt(2 * L**2 * empirical / mu) + 4 * L**2 / (gamma * mu * n)
    encoded = rec.exponents(0)
    assert _slope(route, n) == encoded["n"] == -1
    assert _slope(route, d) == encoded["dimension"] == sp.Rational(1, 2)
    assert _slope(route, eps, 0) == encoded["epsilon"] == -1
    assert "(-1, 1/2, -1)" in _flag(rec, FlagKind.CAVEAT)


def test_excess_risk_convex_regularisation():
    rec = zhang17.EXCESS_RISK_CONVEX
    L, beta, d, n, eps, gamma, R = (rec.symbol(k) for k in (
        "lipschitz", "smoothness", "dimension", "n", "epsilon", "failure_probability", "population_minimiser_norm"))
    m = sp.Symbol("mu", positive=True)
    objective = 2 * L * sp.sqrt(beta * d) / (n * eps * gamma * m) + m * R**2 / 2
    (crit,) = sp.solve(sp.diff(objective, m), m)
    assert sp.simplify(crit - rec.formula("regularisation").expr) == 0
    assert sp.simplify(sp.diff(objective, m, 2).subs(m, crit)) > 0
    assert sp.simplify(objective.subs(m, crit) - 2 * rec.utility[0].bound) == 0
    assert rec.exponents(0) == {"n": sp.Rational(-1, 2), "dimension": sp.Rational(1, 4),
                                "epsilon": sp.Rational(-1, 2), "failure_probability": sp.Rational(-1, 2)}


def test_thm_3_trace_exponents():
    flag = [f for f in zhang17.THM_3.flags if "tr(H) <= beta" in f.summary][0]
    assert flag.kind is FlagKind.CAVEAT
    thm = zhang17.THM_3
    d, T = thm.symbol("dimension"), thm.symbol("steps")
    for pure, want_noise, want_trace in ((True, sp.Rational(2, 3), -sp.Rational(1, 3)),
                                         (False, sp.Rational(1, 3), -sp.Rational(2, 3))):
        t_star = convex_utility.T_STAR_C_PURE if pure else convex_utility.T_STAR_C_APPROX
        ez2 = (convex_utility.EZ2_C_PURE if pure else convex_utility.EZ2_C_APPROX).subs(T, t_star)
        noise_exponent = sp.limit(sp.simplify(d * sp.diff(sp.log(ez2), d)), d, sp.oo)
        assert noise_exponent == want_noise
        assert thm.exponents(0 if pure else 1)["dimension"] == want_noise  # the record's claim
        trace_term = thm.symbol("smoothness") * ez2 / (2 * d)  # tr(H) <= beta, divided by d
        assert sp.limit(sp.simplify(d * sp.diff(sp.log(trace_term), d)), d, sp.oo) == want_trace
    # tr(H) <= beta for the logistic loss on ||x|| <= X: phi'' <= 1/4 and beta = X^2/4
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 6))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    m = x @ rng.normal(size=6)
    s = 1 / (1 + np.exp(-m))
    hessian = (x.T * (s * (1 - s))) @ x / 200
    assert np.trace(hessian) <= 0.25 + 1e-12
