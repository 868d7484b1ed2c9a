"""wang20 Algorithms 3 and 4 and Theorems 4, 5, 7, 8 (spec.wang20.gradient_descent)."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp

from spec import zcdp
from spec.errors import AssumptionError
from spec.wang20 import gradient_descent as gd
from spec.wang20 import bun_steinke as tm


def _flag_text(record, kind_name, index=0):
    flags = [f for f in record.flags if f.kind.name == kind_name]
    return flags[index].summary + " " + flags[index].reason


def _sym(record, name):
    return record.symbol(name)


# --------------------------------------------------------------------------- Algorithm 3, Theorem 4
def test_thm_4_epsilon_tilde_solved():
    rec = gd.THM_4
    eps, delta = _sym(rec, "epsilon"), _sym(rec, "delta")
    a = sp.Symbol("a", positive=True)  # ln(1/delta)
    r = sp.Symbol("r", positive=True)  # eps~
    # d T calls with eps~/sqrt(d T) are (eps~^2/2)-zCDP in total; solve rho + 2 sqrt(rho a) = epsilon
    roots = sp.solve(sp.Eq(r**2 / 2 + 2 * sp.sqrt(r**2 / 2 * a), eps), r)
    assert len(roots) == 1
    line_1 = sp.sqrt(2 * a + 2 * eps) - sp.sqrt(2 * a)
    assert sp.simplify(roots[0] - line_1) == 0
    log_delta = sp.log(1 / delta)
    for name in ("epsilon_tilde", "epsilon_tilde_printed"):
        assert sp.simplify(rec.formula(name).expr.subs(log_delta, a) - line_1) == 0
    # the record's total: rho = eps~^2/2 (composition) converts to exactly epsilon (zcdp.to_dp)
    assert sp.simplify(rec.formula("rho_total").expr - rec.formula("epsilon_tilde").expr ** 2 / 2) == 0
    assert sp.simplify(rec.formula("epsilon_total").expr.subs(log_delta, a) - eps) == 0
    for e, dl, d, T in ((1.0, 1e-5, 10, 20), (0.1, 1e-9, 3, 500), (1.0, 0.5, 1, 1)):
        values = dict(epsilon=e, delta=dl, dimension=d, steps=T)
        assert rec.evaluate("epsilon_total", **values) == pytest.approx(e, rel=1e-14)
        rho = rec.evaluate("rho_total", **values)
        assert rho <= zcdp.rho_star(epsilon=e, delta=dl) * (1 + 1e-14)
        eps0 = rec.evaluate("coordinate_epsilon", **values)
        assert d * T * eps0**2 / 2 <= zcdp.rho_star(epsilon=e, delta=dl) * (1 + 1e-14)
    # Algorithm 2's parameters at the coordinate budget come from Algorithm 2's expressions
    eps0 = gd.COORDINATE_EPSILON
    assert sp.simplify(gd.ALG_3.formula("dilation").expr - eps0**2 / 16) == 0
    assert sp.simplify(gd.ALG_3.formula("shift").expr - eps0 / 4) == 0
    with pytest.raises(AssumptionError, match="epsilon_le_1"):
        rec.evaluate("epsilon_tilde", epsilon=1.5, delta=1e-5)


def test_alg_3_line_4_erratum():
    rec = gd.ALG_3
    eps, delta = _sym(rec, "epsilon"), _sym(rec, "delta")
    printed = rec.formula("epsilon_total_printed").expr
    assert sp.simplify(printed - (eps**2 / 2 + eps * sp.sqrt(2 * sp.log(1 / delta)))) == 0
    values = dict(epsilon=1.0, delta=1e-5, dimension=10, steps=20)
    assert f"{rec.evaluate('epsilon_total_printed', **values):.2f}" == "5.30"
    other = rec.evaluate("epsilon_total_printed", epsilon=0.5, delta=1e-3, dimension=4, steps=7)
    # as printed the composition exceeds epsilon for every delta < 1 / e^(1/8)
    for e in (0.05, 0.5, 1.0):
        for dl in (1e-2, 1e-5, 1e-9):
            assert rec.evaluate("epsilon_total_printed", epsilon=e, delta=dl, dimension=2, steps=3) > e
    assert rec.evaluate("coordinate_epsilon_printed", **values) > rec.evaluate("coordinate_epsilon", **values)
    text = _flag_text(rec, "ERRATUM")
    assert "5.30" in text and f"{other:.2f} at epsilon = 0.5, delta = 1e-3" in text
    assert gd.THM_4.flags == rec.flags


def test_lemma_2_and_thm_5_rates():
    assert gd.LEMMA_2.exponents(0) == {"n": sp.Rational(-1, 2), "dimension": 1, "epsilon": -1}
    assert gd.THM_5.exponents(0) == {"n": -1, "dimension": 2, "epsilon": -2}


# --------------------------------------------------------------------------- step counts
def test_strongly_convex_steps():
    for rec in (gd.THM_5, gd.THM_7):
        assert rec.formula("steps").expr == gd.STEPS_STRONGLY_CONVEX
    for beta, alpha in ((1.0, 1.0), (4.0, 1.0), (100.0, 0.5), (10.0, 9.0)):
        for n in (2, 10, 1000, 10**6):
            T = gd.THM_5.evaluate("steps", smoothness=beta, strong_convexity=alpha, n=n)
            assert (1 - alpha / beta) ** T <= 1 / n
            if T > 1 and alpha < beta:
                assert math.exp(-(T - 1) * alpha / beta) > 1 / n  # the smallest T with e^{-T alpha/beta} <= 1/n
    # the contraction on a quadratic f(w) = (alpha w_1^2 + beta w_2^2)/2 with eta = 1/beta, projected on a ball
    alpha, beta, n = 1.0, 8.0, 500
    T = gd.THM_5.evaluate("steps", smoothness=beta, strong_convexity=alpha, n=n)
    w = [3.0, -2.0]
    start = w[0] ** 2 + w[1] ** 2
    for _ in range(T):
        w = [w[0] - alpha * w[0] / beta, w[1] - beta * w[1] / beta]
        norm = math.hypot(*w)
        if norm > 10:
            w = [c * 10 / norm for c in w]
    assert (w[0] ** 2 + w[1] ** 2) <= start / n
    with pytest.raises(AssumptionError, match="smoothness_ge_strong_convexity"):
        gd.THM_5.evaluate("steps", smoothness=1.0, strong_convexity=2.0, n=10)
    text = _flag_text(gd.THM_5, "CONSTANT_MADE_CONCRETE")
    assert "T = ceil((beta/alpha) ln n)" in text


def test_convex_steps_balance():
    R, beta, d, n, e = sp.symbols("R beta d n eps_tilde", positive=True)
    T = sp.Symbol("T", positive=True)
    # optimisation error beta R^2/T plus R times the noise-driven gradient error d sqrt(T/(n eps~))
    bound = beta * R**2 / T + R * d * sp.sqrt(T / (n * e))
    (T_star,) = sp.solve(sp.diff(bound, T), T)
    ratio = sp.simplify(T_star / (R * sp.sqrt(n * e) / d) ** sp.Rational(2, 3))
    assert ratio.free_symbols == {beta}  # T* = const(beta) (R sqrt(n eps~)/d)^(2/3)
    best = sp.simplify(bound.subs(T, T_star))
    for x, slope in ((n, sp.Rational(-1, 3)), (d, sp.Rational(2, 3)), (R, sp.Rational(4, 3)), (e, sp.Rational(-1, 3))):
        assert sp.simplify(x * sp.diff(sp.log(best), x)) == slope
    # eps~ = rho* ~ epsilon^2/(4 ln(1/delta)): the bound's epsilon exponent is -2/3, as in eq. (14)
    assert gd.THM_8.exponents(0) == {"n": sp.Rational(-1, 3), "dimension": sp.Rational(2, 3),
                                     "epsilon": sp.Rational(-2, 3)}
    # the record's T has the balancing exponents in n, d and eps~
    rec = gd.THM_8
    steps = rec.formula("steps").expr.args[0]  # inside the ceiling
    nn, dd, diam = _sym(rec, "n"), _sym(rec, "dimension"), _sym(rec, "diameter")
    for x, slope in ((nn, sp.Rational(1, 3)), (dd, sp.Rational(-2, 3)), (diam, sp.Rational(2, 3))):
        assert sp.simplify(x * sp.diff(sp.log(steps), x)) == slope
    assert rec.evaluate("steps", epsilon=1.0, delta=1e-5, n=10**4, dimension=10, diameter=2.0) == 3
    text = _flag_text(rec, "CONSTANT_MADE_CONCRETE")
    assert "(-1/3, 2/3, -2/3)" in text


# --------------------------------------------------------------------------- Algorithm 4
def test_alg_4_sigma_from_zcdp():
    rec = gd.ALG_4
    eps, delta, n = _sym(rec, "epsilon"), _sym(rec, "delta"), _sym(rec, "n")
    d, T = _sym(rec, "dimension"), _sym(rec, "steps")
    v, dp = _sym(rec, "second_moment"), _sym(rec, "failure_probability")
    rho_star = (sp.sqrt(sp.log(1 / delta) + eps) - sp.sqrt(sp.log(1 / delta))) ** 2  # line 1, typed
    s = sp.sqrt(n * v / (2 * sp.log(1 / dp)))
    sigma2 = sp.Symbol("sigma2", positive=True)
    # one step: a d-vector with sensitivity sqrt(d) (s/n)(4 sqrt 2/3) is Delta^2/(2 sigma^2)-zCDP; T steps add up
    total = T * d * (4 * sp.sqrt(2) * s / (3 * n)) ** 2 / (2 * sigma2)
    (solution,) = sp.solve(sp.Eq(total, rho_star), sigma2)
    printed = 8 * v * d * T / (9 * sp.log(1 / dp) * n * rho_star)
    assert sp.simplify(solution - printed) == 0
    assert sp.simplify(rec.formula("sigma_squared").expr - printed) == 0
    assert sp.simplify(rec.formula("sigma_squared_printed").expr - printed) == 0
    assert sp.simplify(rec.formula("rho_total").expr - rho_star) == 0
    assert sp.simplify(rec.formula("epsilon_tilde").expr - rho_star) == 0
    values = dict(epsilon=1.0, delta=1e-5, n=10**4, dimension=10, steps=20, second_moment=1.0,
                  failure_probability=1e-3)
    sigma = rec.evaluate("sigma", **values)
    assert sigma**2 == pytest.approx(rec.evaluate("sigma_squared_printed", **values), rel=1e-14)
    # rounding: s down, sigma up -> the T releases are at most rho*-zCDP, i.e. (epsilon, delta)-DP
    s_used = rec.evaluate("truncation_scale", **values)
    sensitivity = math.sqrt(10) * s_used / 10**4 * 4 * math.sqrt(2) / 3
    assert zcdp.epsilon_gaussian(sigma=sigma, sensitivity=sensitivity, delta=1e-5, steps=20) <= 1.0 * (1 + 1e-12)
    assert rec.evaluate("sensitivity", **values) >= sensitivity * (1 - 1e-15)
    text = _flag_text(rec, "CAVEAT", 1)
    assert "simplifies to 0" in text


def test_thm_7_and_8_records():
    assert gd.THM_7.exponents(0) == {"n": -1, "dimension": 2, "epsilon": -2}
    values = dict(smoothness=4.0, strong_convexity=1.0, n=10**4, failure_probability=1e-4)
    T = gd.THM_7.evaluate("steps", **{k: values[k] for k in ("smoothness", "strong_convexity", "n")})
    assert T == math.ceil(4 * math.log(10**4)) == 37
    assert gd.THM_7.evaluate("failure", **values) == pytest.approx(2 * 1e-4 * T)
    assert gd.THM_7.evaluate("learning_rate", smoothness=4.0) == 0.25
    # Algorithm 4's beta defaults to Lemma 3's value; Algorithm 4's printed value is kept beside it
    fp = 1e-3
    assert gd.ALG_4.evaluate("noise_precision", failure_probability=fp) == pytest.approx(2 * math.log(1 / fp))
    assert gd.ALG_4.evaluate("noise_precision_printed", failure_probability=fp) == pytest.approx(math.log(1 / fp))
    assert [line.label for line in gd.ALG_4.pseudocode] == [f"L{k}" for k in range(1, 7)]
    assert [line.label for line in gd.ALG_3.pseudocode] == [f"L{k}" for k in range(1, 7)]


def test_trim_default_at_the_coordinate_budget():
    values = dict(epsilon=0.5, delta=1e-6, dimension=2, steps=3)
    eps0 = gd.ALG_3.evaluate("coordinate_epsilon", **values)
    for n in (100, 10**6, 10**9):
        m3 = gd.ALG_3.evaluate("trim_default", n=n, mean_lower=0.0, mean_upper=3.0, **values)
        m2 = tm.ALG_2.evaluate("trim_default", epsilon=eps0, n=n, mean_lower=0.0, mean_upper=3.0)
        assert abs(m3 - m2) <= 1  # the same expression; eps0 rounded down once in m2
        assert 2 * m3 < n


# --------------------------------------------------------------------------- findings of the reference phase
def _arsinh_kl(shift):
    """KL(Z || Z + shift), Z = sinh(Y), by mpmath quadrature over y."""
    def log_density(u):
        return -mpmath.asinh(u) ** 2 / 2 - mpmath.log(mpmath.sqrt(1 + u * u))

    return mpmath.quad(lambda y: mpmath.npdf(y) * (log_density(mpmath.sinh(y)) - log_density(mpmath.sinh(y) + shift)),
                       [-30, -3, 0, 3, 30])


def test_alg_3_line_4_erratum_size():
    with mpmath.workdps(30):
        fisher = mpmath.quad(lambda y: mpmath.npdf(y) * (y + mpmath.tanh(y)) ** 2 / mpmath.cosh(y) ** 2,
                             [-mpmath.inf, 0, mpmath.inf])
        small = _arsinh_kl(mpmath.mpf("1e-3"))
        assert float(small / mpmath.mpf("1e-6") * 2) == pytest.approx(float(fisher), rel=1e-3)
        eps_0 = tm.ALG_2.evaluate("shift", epsilon=0.5) * 4  # line 4 as printed at epsilon = 1, d T = 4
        kl = 4 * _arsinh_kl(mpmath.mpf(eps_0) / 4)
    assert eps_0 == gd.ALG_3.evaluate("coordinate_epsilon_printed", epsilon=1.0, delta=1e-5, dimension=2, steps=2)
    rho_5 = zcdp.rho_star(epsilon=1.0, delta=1e-5)
    rho_20 = zcdp.rho_star(epsilon=1.0, delta=1e-20)
    numbers = {"0.747": float(fisher), "0.047": float(fisher) / 16, "0.0233": float(kl), "1.12": float(kl) / rho_5,
               "4.34": float(kl) / rho_20, "0.0208": rho_5, "0.00537": rho_20}
    for text, value in numbers.items():
        assert f"{value:.{len(text.split('.')[1])}f}" == text, (text, value)
    assert f"{float(kl) / rho_5:.1f}" == "1.1" and f"{float(kl) / rho_20:.1f}" == "4.3"
    flag = _flag_text(gd.ALG_3, "CAVEAT")
    assert all(text in flag for text in numbers) and "1.1-fold" in flag and "4.3-fold" in flag


def test_thm_7_epsilon_slope_through_rho_star():
    e, a = sp.symbols("epsilon a", positive=True)
    r = sp.sqrt(a + e) - sp.sqrt(a)  # sqrt(rho*), a = ln(1/delta)
    slope = sp.diff(sp.log(r**2), e) * e
    assert sp.simplify(slope - (2 - r / (r + sp.sqrt(a)))) == 0
    assert sp.simplify(r**2 + 2 * r * sp.sqrt(a) - e) == 0
    measured = {}
    for delta in (1e-5, 1e-10):
        x = [math.log(v) for v in (1.0, 2.0, 4.0)]
        y = [-math.log(zcdp.rho_star(epsilon=v, delta=delta)) for v in (1.0, 2.0, 4.0)]
        xm, ym = sum(x) / 3, sum(y) / 3
        measured[delta] = sum((u - xm) * (w - ym) for u, w in zip(x, y)) / sum((u - xm) ** 2 for u in x)
    assert f"{measured[1e-5]:.2f}" == "-1.92" and f"{measured[1e-10]:.2f}" == "-1.96"
    flag = _flag_text(gd.THM_7, "CAVEAT")
    assert "-1.92" in flag and "-1.96" in flag
