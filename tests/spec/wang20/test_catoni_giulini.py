"""wang20 eq. (6), (9), Lemma 3 and Theorem 6 (spec.wang20.catoni_giulini)."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from spec import zcdp
from spec.errors import ParameterError
from spec.wang20 import catoni_giulini as cg
from spec.wang20 import gradient_descent as gd

C_BOUND = 2 * math.sqrt(2) / 3


def _flag_text(record, kind_name, index=0):
    flags = [f for f in record.flags if f.kind.name == kind_name]
    return flags[index].summary + " " + flags[index].reason


def phi(x):
    """eq. (6), typed independently of the module."""
    x = mpmath.mpf(x)
    if x > mpmath.sqrt(2):
        return 2 * mpmath.sqrt(2) / 3
    if x < -mpmath.sqrt(2):
        return -2 * mpmath.sqrt(2) / 3
    return x - x**3 / 6


def smoothed_by_quadrature(a, b, dps=40):
    """E phi(a + b Z) by mpmath quadrature, split where phi has kinks."""
    with mpmath.workdps(dps):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        kinks = {(-mpmath.sqrt(2) - a) / b, (mpmath.sqrt(2) - a) / b}
        points = [-mpmath.inf] + sorted(kinks | {-8, -3, 0, 3, 8}) + [mpmath.inf]
        return mpmath.quad(lambda z: phi(a + b * z) * mpmath.npdf(z), points)


# --------------------------------------------------------------------------- phi and its bound
def test_phi_bound():
    x = cg.x
    inner = x - x**3 / 6
    assert sp.simplify(inner.subs(x, sp.sqrt(2)) - cg.PHI_BOUND) == 0
    assert sp.solve(sp.diff(inner, x), x) == [-sp.sqrt(2), sp.sqrt(2)]  # phi' = 1 - x^2/2 >= 0 inside
    assert cg.PHI.subs(x, 3) == cg.PHI_BOUND and cg.PHI.subs(x, -3) == -cg.PHI_BOUND
    assert sp.simplify(cg.PHI.subs(x, sp.Rational(1, 2)) - sp.Rational(23, 48)) == 0
    # continuity at +-sqrt 2 and monotonicity on a grid
    grid = [sp.Rational(k, 50) for k in range(-150, 151)]
    values = [cg.PHI.subs(x, g) for g in grid]
    assert all(u <= w for u, w in zip(values, values[1:]))
    assert max(abs(float(w)) for w in values) <= float(cg.PHI_BOUND)
    assert cg.EQ_9.evaluate("phi_bound") >= float(cg.PHI_BOUND)
    printed = cg.EQ_9.evaluate("phi_bound_printed")
    assert printed == pytest.approx(math.sqrt(2)) and printed > cg.EQ_9.evaluate("phi_bound")
    text = _flag_text(cg.EQ_9, "ERRATUM")
    assert f"{C_BOUND:.3f}" == "0.943" and f"{math.sqrt(2):.3f}" == "1.414"
    assert "0.943" in text and "1.414" in text


# --------------------------------------------------------------------------- the correction C(a, b)
def test_correction_symbolic():
    """Derive C from truncated-normal moments with sympy; it equals the module's CORRECTION."""
    a, b = cg.a, cg.b
    z = sp.Symbol("z", real=True)
    v = sp.Symbol("v", real=True)
    density = sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)
    cubic = sp.Poly(sp.expand((a + b * z) - (a + b * z) ** 3 / 6), z)
    upper = {k: sp.integrate(z**k * density, (z, v, sp.oo)) for k in range(4)}
    lower = {k: sp.integrate(z**k * density, (z, -sp.oo, v)) for k in range(4)}
    c = 2 * sp.sqrt(2) / 3
    v_minus, v_plus = (sp.sqrt(2) - a) / b, (sp.sqrt(2) + a) / b
    # E[(c - g(X)) 1{X > sqrt 2}] + E[(-c - g(X)) 1{X < -sqrt 2}], X = a + b z
    above = c * upper[0].subs(v, v_minus) - sum(coef * upper[k].subs(v, v_minus) for (k,), coef in cubic.terms())
    below = -c * lower[0].subs(v, -v_plus) - sum(coef * lower[k].subs(v, -v_plus) for (k,), coef in cubic.terms())
    difference = sp.simplify(sp.expand((above + below - cg.CORRECTION).rewrite(sp.erfc)))
    assert difference == 0
    # and eq. (9): E[X - X^3/6] = a (1 - b^2/2) - a^3/6
    gaussian_moments = {0: 1, 1: 0, 2: 1, 3: 0}  # E z^k, z ~ N(0, 1)
    moment = sum(coef * gaussian_moments[k] for (k,), coef in cubic.terms())
    assert sp.simplify(moment - (a * (1 - b**2 / 2) - a**3 / 6)) == 0


_POINTS = ((0, 0.1), (0.3, 0.5), (1, 1), (-1.2, 0.7), (2.5, 0.3), (-3, 2), (0, 3), (1.4, 0.01),
           (5, 5), (1.5, 1e-3), (-0.2, 40))


def test_correction_quadrature():
    worst = 0
    for a, b in _POINTS:
        oracle = smoothed_by_quadrature(a, b)
        value = cg.smoothed_truncation(a, b)
        correction = cg.correction(a, b)
        with mpmath.workdps(60):
            am, bm = mpmath.mpf(a), mpmath.mpf(b)
            via_correction = am * (1 - bm**2 / 2) - am**3 / 6 + correction
            worst = max(worst, abs(value - oracle), abs(via_correction - oracle))
    assert worst < 1e-25
    assert len(_POINTS) == 11
    # heavy tail: a = x/s = 1e6, b = a/sqrt(beta) with beta = 2 ln(1e5)
    a = 1e6
    b = a / math.sqrt(2 * math.log(1e5))
    assert abs(cg.smoothed_truncation(a, b) - smoothed_by_quadrature(a, b, dps=60)) < 1e-25
    text = _flag_text(cg.EQ_9, "RECONSTRUCTED")
    assert "1e-25" in text and "11 points" in text and "1e6" in text


def test_correction_at_b_zero():
    for a in (0, 0.5, -1.0, 1.4, 1.5, 3, -2):
        limit = cg.correction(a, 0)
        with mpmath.workdps(60):
            assert abs(limit - (phi(a) - a + mpmath.mpf(a) ** 3 / 6)) < 1e-40
        near = cg.correction(a, 1e-9)
        at_zero, near_zero = cg.smoothed_truncation(a, 0), cg.smoothed_truncation(a, 1e-9)
        with mpmath.workdps(60):
            assert abs(near - limit) < 1e-6
            assert abs(at_zero - phi(a)) < 1e-45
            assert abs(near_zero - phi(a)) < 1e-6
    assert cg.smoothed_truncation(0, 0) == 0 and cg.correction(0, 0) == 0
    # inside the interval, far from the kinks, the correction vanishes (to within Gaussian tails)
    assert abs(cg.correction(0.3, 0.1)) < 1e-12
    with pytest.raises(ParameterError, match=r"b \(-1.0\) must be >= 0"):
        cg.correction(0.0, -1.0)
    with pytest.raises(TypeError):
        cg.smoothed_truncation("1", 0.5)


def _eq_10_in_float(a, b):
    """eq. (10)'s term a (1 - b^2/2) - a^3/6 + C(a, b) in float64, as a direct implementation would."""
    c = C_BOUND
    vm, vp = (math.sqrt(2) - a) / b, (math.sqrt(2) + a) / b
    fm, fp = math.erfc(vm / math.sqrt(2)) / 2, math.erfc(vp / math.sqrt(2)) / 2
    em, ep = math.exp(-vm * vm / 2), math.exp(-vp * vp / 2)
    r = math.sqrt(2 * math.pi)
    corr = (c * (fm - fp) - (a - a**3 / 6) * (fm + fp) + b * (1 - a * a / 2) * (ep - em) / r
            + a * b * b / 2 * (fp + fm + (vp * ep + vm * em) / r)
            + b**3 * ((2 + vm * vm) * em - (2 + vp * vp) * ep) / (6 * r))
    polynomial = a * (1 - b * b / 2) - a**3 / 6
    return polynomial + corr, polynomial, corr


def test_float_evaluation_of_eq_10_cancels():
    beta = 2 * math.log(1e5)
    a = 1e6
    b = a / math.sqrt(beta)
    value, polynomial, corr = _eq_10_in_float(a, b)
    exact = cg.smoothed_truncation(a, b)
    assert abs(exact) <= C_BOUND
    assert abs(value - float(exact)) > C_BOUND  # the float result is off by more than the whole range
    assert f"{abs(polynomial):.0e}" == "2e+17" and f"{abs(corr):.0e}" == "2e+17"
    # at moderate a the float evaluation is fine: the hazard is the heavy tail
    ok, _, _ = _eq_10_in_float(0.8, 0.8 / math.sqrt(beta))
    assert ok == pytest.approx(float(cg.smoothed_truncation(0.8, 0.8 / math.sqrt(beta))), abs=1e-12)
    text = _flag_text(cg.EQ_9, "CAVEAT")
    assert "1e6" in text and "2e17" in text and "2 ln(1e5)" in text


@settings(max_examples=60)
@given(
    a=st.floats(min_value=-50, max_value=50, allow_nan=False),
    b=st.floats(min_value=1e-6, max_value=50, allow_nan=False),
)
def test_smoothed_truncation_properties(a, b):
    value = cg.smoothed_truncation(a, b)
    mirrored = cg.smoothed_truncation(-a, b)
    shifted = cg.smoothed_truncation(a + 0.25, b)
    assert abs(value) <= C_BOUND
    with mpmath.workdps(60):
        assert abs(mirrored + value) < 1e-40  # odd in a
        assert shifted >= value - 1e-40  # non-decreasing in a
    if abs(a) + 8 * b < math.sqrt(2):
        assert abs(cg.correction(a, b)) < 1e-12


# --------------------------------------------------------------------------- Lemma 3, Theorem 6
def test_noise_precision_does_not_affect_privacy():
    fp = 1e-3
    s = 1.0
    for beta in (math.log(1 / fp), 2 * math.log(1 / fp), 0.1, 100.0):
        for x in (0.0, 1e-3, 0.5, 1.0, 3.0, 10.0, 1e3, 1e8):
            for sign in (1, -1):
                term = cg.smoothed_truncation(sign * x / s, x / (s * math.sqrt(beta)))
                assert abs(term) <= C_BOUND
    # sigma and the sensitivity of Algorithm 4 are functions of public parameters without beta
    names = {s.name for s in gd.ALG_4.symbols}
    assert "noise_precision" not in names
    canonical = {s.symbol: s.name for s in gd.ALG_4.symbols}
    for name in ("sensitivity", "sigma", "rho_total"):
        used = {canonical[x] for x in gd.ALG_4.formula(name).expr.free_symbols}
        assert used <= {"epsilon", "delta", "n", "dimension", "steps", "second_moment", "failure_probability"}
    assert cg.LEMMA_3.evaluate("noise_precision", failure_probability=fp) == pytest.approx(2 * math.log(1 / fp))
    assert cg.LEMMA_3.evaluate("noise_precision_printed", failure_probability=fp) == pytest.approx(math.log(1 / fp))
    assert gd.ALG_4.formula("noise_precision").expr == cg.NOISE_PRECISION
    text = _flag_text(cg.LEMMA_3, "ERRATUM")
    assert "{ln(1/delta'), 2 ln(1/delta'), 0.1, 100}" in text and "1e8" in text


def test_thm_6_sigma_from_zcdp():
    rec = cg.THM_6
    eps, delta = rec.symbol("epsilon"), rec.symbol("delta")
    s, n = rec.symbol("truncation_scale"), rec.symbol("n")
    rho_star = zcdp.RHO_STAR.formula("rho").expr.subs(
        {zcdp.RHO_STAR.symbol("epsilon"): eps, zcdp.RHO_STAR.symbol("delta"): delta}, simultaneous=True)
    sigma2 = rec.formula("sigma_squared").expr
    assert sp.simplify(sigma2 - 16 * s**2 / (9 * n**2 * rho_star)) == 0
    # one release with this sigma is exactly rho*-zCDP
    sens = rec.formula("sensitivity").expr
    assert sp.simplify(sens - 4 * sp.sqrt(2) * s / (3 * n)) == 0
    assert sp.simplify(sens**2 / (2 * sigma2) - rho_star) == 0
    # leading term as epsilon -> 0: 64 s^2 ln(1/delta)/(9 n^2 epsilon^2), the printed O(.)
    leading = sp.limit(sigma2 * eps**2, eps, 0)
    assert sp.simplify(leading - 64 * s**2 * sp.log(1 / delta) / (9 * n**2)) == 0
    values = dict(epsilon=0.7, delta=1e-6, n=1000, truncation_scale=3.0)
    sigma = rec.evaluate("sigma", **values)
    assert zcdp.epsilon_gaussian(sigma=sigma, sensitivity=rec.evaluate("sensitivity", **values),
                                 delta=1e-6) <= 0.7 * (1 + 1e-12)
    assert rec.exponents(0) == {"n": sp.Rational(-1, 2), "epsilon": -1}
    assert cg.LEMMA_3.exponents(0) == {"n": sp.Rational(-1, 2)}


def test_tiny_records_do_not_overflow_the_oracle():
    """mpmath's erfc raises OverflowError above about 1e154; the oracle uses the asymptotic series there."""
    for a in (1e-100, 1e-160, 1e-300):
        value = cg.smoothed_truncation(a, a)
        with mpmath.workdps(60):
            assert abs(value - (a - a**3 / 6 - a**3 / 2)) < mpmath.mpf(10) ** -60 * a
    with mpmath.workdps(60):
        for v in (mpmath.mpf("1e21"), mpmath.mpf("1e50"), mpmath.mpf("1e100")):
            assert abs(cg._erfc(v) / mpmath.erfc(v) - 1) < mpmath.mpf(10) ** -50
        assert cg._erfc(mpmath.mpf(3)) == mpmath.erfc(3)
