"""spec.zcdp: zCDP of the Gaussian, composition, conversion, its exact inverse and the calibration.

Oracles: sympy (solving the conversion for rho, series), mpmath quadrature of Renyi divergences,
the exact Gaussian profile of spec.gaussian (itself checked by quadrature), exact rational sums.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

import spec
from spec import gaussian, zcdp
from spec.errors import ParameterError, PrivacyParameterError
from spec.record import Neighbouring

ROOT = Path(__file__).resolve().parents[2]

EPS = st.floats(-3, math.log10(50)).map(lambda x: 10**x)
DELTA = st.floats(-12, math.log10(0.5)).map(lambda x: 10**x)


# --------------------------------------------------------------------------- the inverse, symbolically
def test_rho_star_solves_the_conversion():
    r, a, e = sp.symbols("r a epsilon", positive=True)  # r = rho, a = ln(1/delta)
    solutions = sp.solve(sp.Eq(r + 2 * sp.sqrt(r * a), e), r)
    difference_form = (sp.sqrt(a + e) - sp.sqrt(a)) ** 2
    assert len(solutions) == 1 and sp.simplify(solutions[0] - difference_form) == 0
    # the record's (cancellation-free) form equals the difference form
    rec = zcdp.RHO_STAR
    delta = rec.symbol("delta")
    record_form = rec.formula("rho").expr.subs(sp.log(1 / delta), a).subs(rec.symbol("epsilon"), e)
    assert sp.simplify(record_form - difference_form) == 0
    # and it converts back exactly: rho* + 2 sqrt(rho* a) = epsilon
    assert sp.simplify(record_form + 2 * sp.sqrt(record_form * a) - e) == 0
    # Taylor expansion: epsilon^2 / (4 a) + O(epsilon^3)
    series = sp.series(record_form, e, 0, 3).removeO()
    assert sp.simplify(series - e**2 / (4 * a)) == 0


def test_gaussian_calibration_is_the_composed_expression():
    rec = zcdp.GAUSSIAN_CALIBRATION
    rho_expr = zcdp.RHO_STAR.formula("rho").expr
    T, D = rec.symbol("steps"), rec.symbol("sensitivity")
    # sigma^2 = T Delta^2 / (2 rho*), i.e. T releases of zcdp.gaussian compose to exactly rho*
    sigma = rec.formula("sigma").expr
    assert sp.simplify(sigma**2 - T * D**2 / (2 * rho_expr)) == 0
    rho_gauss = zcdp.GAUSSIAN.formula("rho").expr.subs(
        {zcdp.GAUSSIAN.symbol("sigma"): sigma, zcdp.GAUSSIAN.symbol("steps"): T,
         zcdp.GAUSSIAN.symbol("sensitivity"): D}
    )
    assert sp.simplify(rho_gauss - rho_expr) == 0


# --------------------------------------------------------------------------- round trips
@settings(max_examples=40)
@given(EPS, DELTA)
def test_rho_star_round_trip(eps, delta):
    rho = zcdp.rho_star(epsilon=eps, delta=delta)
    back = zcdp.epsilon(rho=rho, delta=delta)
    assert back <= eps  # rho rounded down, epsilon rounded up: never above the target
    assert back >= eps * (1 - 1e-12)
    with mpmath.workdps(60):
        a = mpmath.log(1 / mpmath.mpf(delta))
        exact = (mpmath.sqrt(a + mpmath.mpf(eps)) - mpmath.sqrt(a)) ** 2
        assert mpmath.mpf(rho) <= exact < mpmath.mpf(math.nextafter(rho, 1e9))


@settings(max_examples=40)
@given(EPS, DELTA, st.floats(-3, 3).map(lambda x: 10**x), st.integers(1, 10_000))
def test_gaussian_sigma_calibrate_then_verify(eps, delta, sensitivity, steps):
    sigma = zcdp.gaussian_sigma(epsilon=eps, delta=delta, sensitivity=sensitivity, steps=steps)
    # zCDP is looser than the exact profile, so the exact delta must be within the target
    assert gaussian.exact_delta(eps, sigma=sigma, sensitivity=sensitivity, steps=steps) <= delta
    # and the zCDP accountant gives back the target epsilon
    back = zcdp.epsilon_gaussian(sigma=sigma, sensitivity=sensitivity, delta=delta, steps=steps)
    assert eps * (1 - 1e-12) <= back <= eps
    # more noise than the analytic calibration needs
    assert sigma >= gaussian.analytic_sigma(epsilon=eps, delta=delta, sensitivity=sensitivity, steps=steps)


@settings(max_examples=30)
@given(st.floats(-1, 2).map(lambda x: 10**x), DELTA, st.integers(1, 1000))
def test_epsilon_gaussian_upper_bounds_the_exact_epsilon(sigma, delta, steps):
    loose = zcdp.epsilon_gaussian(sigma=sigma, sensitivity=1.0, delta=delta, steps=steps)
    tight = gaussian.exact_epsilon(delta, sigma=sigma, sensitivity=1.0, steps=steps)
    assert loose >= tight


# --------------------------------------------------------------------------- the Gaussian's zCDP
@pytest.mark.parametrize("alpha", [1.5, 2.0, 5.0])
@pytest.mark.parametrize("sigma, sensitivity", [(1.0, 1.0), (2.5, 0.7), (0.5, 0.2)])
def test_gaussian_rho_is_the_renyi_divergence_over_alpha(alpha, sigma, sensitivity):
    # D_alpha(N(Delta, s^2) || N(0, s^2)) = (1/(alpha-1)) ln integral p^alpha q^(1-alpha), by quadrature
    with mpmath.workdps(30):
        a, s, d = mpmath.mpf(alpha), mpmath.mpf(sigma), mpmath.mpf(sensitivity)
        integral = mpmath.quad(
            lambda x: mpmath.npdf(x, d, s) ** a * mpmath.npdf(x, 0, s) ** (1 - a), [-mpmath.inf, 0, d, mpmath.inf]
        )
        divergence = mpmath.log(integral) / (a - 1)
        rho = zcdp.gaussian_rho(sigma=sigma, sensitivity=sensitivity)
        # zCDP: D_alpha <= rho alpha for all alpha > 1, with equality for the Gaussian
        assert abs(divergence / a - rho) <= 1e-15 * rho
        assert mpmath.mpf(rho) >= divergence / a * (1 - mpmath.mpf(10) ** -25)
    assert zcdp.gaussian_rho(sigma=sigma, sensitivity=sensitivity, steps=7) == pytest.approx(7 * rho, rel=1e-15)


def test_compose_is_the_exact_sum_rounded_up():
    rhos = [0.1, 0.2, 1e-20, 0.7]
    total = zcdp.compose(rhos)
    exact = sum(map(Fraction, rhos))
    assert Fraction(total) >= exact and Fraction(math.nextafter(total, 0)) < exact
    assert zcdp.COMPOSITION.evaluate("rho_total", rho=0.1, steps=3) >= 0.3


def test_to_dp_matches_the_statement():
    with mpmath.workdps(60):
        want = mpmath.mpf(0.05) + 2 * mpmath.sqrt(mpmath.mpf(0.05) * mpmath.log(1 / mpmath.mpf(1e-6)))
        got = zcdp.epsilon(rho=0.05, delta=1e-6)
        assert mpmath.mpf(got) >= want and mpmath.mpf(math.nextafter(got, 0)) < want


# --------------------------------------------------------------------------- the papers' numbers
@pytest.mark.parametrize("eps, delta, constant", [(1.0, 1e-5, 8.344), (0.1, 1e-5, 8.035), (5.0, 1e-3, 10.70)])
def test_wang19_implied_constant(eps, delta, constant):
    """sigma^2 = c G^2 T ln(1/delta) / (n^2 eps^2) with c = 2 (1 + sqrt(1 + eps/ln(1/delta)))^2."""
    G, n, T = 1.0, 1000, 50
    sigma = zcdp.gaussian_sigma(epsilon=eps, delta=delta, sensitivity=2 * G / n, steps=T)
    c = sigma**2 * n**2 * eps**2 / (G**2 * T * math.log(1 / delta))
    assert c == pytest.approx(2 * (1 + math.sqrt(1 + eps / math.log(1 / delta))) ** 2, rel=1e-12)
    assert round(c, 3 if constant < 10 else 2) == constant


# --------------------------------------------------------------------------- records and bad input
@pytest.mark.parametrize("record", zcdp.RECORDS, ids=lambda r: r.id)
def test_record_renders_registers_and_flags_resolve(record):
    assert spec.get(record.id) is record
    assert record.id in str(record) and r"\begin{description}" in record.to_latex()
    assert record.conventions.neighbouring is Neighbouring.REPLACE_ONE
    assert record.privacy.neighbouring is Neighbouring.REPLACE_ONE


CALLS = [
    (zcdp.gaussian_rho, dict(sigma=1.0, sensitivity=1.0, steps=2)),
    (zcdp.epsilon, dict(rho=0.1, delta=1e-5)),
    (zcdp.rho_star, dict(epsilon=1.0, delta=1e-5)),
    (zcdp.gaussian_sigma, dict(epsilon=1.0, delta=1e-5, sensitivity=1.0, steps=2)),
    (zcdp.epsilon_gaussian, dict(sigma=1.0, sensitivity=1.0, delta=1e-5, steps=2)),
]
RANGE = {
    "epsilon": [(0.0, "epsilon (0.0) must be > 0"), (-1.0, "epsilon (-1.0) must be > 0")],
    "delta": [(0.0, "delta (0.0) must be in (0, 1)"), (1.0, "delta (1.0) must be in (0, 1)"),
              (1.5, "delta (1.5) must be in (0, 1)")],
    "rho": [(0.0, "rho (0.0) must be > 0")],
    "sigma": [(-1.0, "sigma (-1.0) must be > 0")],
    "sensitivity": [(0.0, "sensitivity (0.0) must be > 0")],
    "steps": [(0, "steps (0) must be >= 1")],
}


@pytest.mark.parametrize("fn, good", CALLS, ids=lambda x: getattr(x, "__name__", ""))
def test_bad_values_rejected(fn, good):
    for param in good:
        if param != "steps":
            for bad in (math.nan, math.inf, -math.inf):
                with pytest.raises(PrivacyParameterError, match=rf"^{param} \((nan|inf|-inf)\) must be"):
                    fn(**dict(good, **{param: bad}))
        for bad in ("1", None, True, 1j):
            with pytest.raises(TypeError, match=rf"^{param} "):
                fn(**dict(good, **{param: bad}))
        for bad, message in RANGE[param]:
            with pytest.raises(PrivacyParameterError) as info:
                fn(**dict(good, **{param: bad}))
            assert str(info.value) == message


def test_compose_bad_input():
    with pytest.raises(PrivacyParameterError, match=r"^rhos\[1\] \(-0.1\) must be > 0"):
        zcdp.compose([0.1, -0.1])
    with pytest.raises(PrivacyParameterError, match=r"^rhos\[0\] \(inf\)"):
        zcdp.compose([math.inf])
    with pytest.raises(ParameterError, match="empty"):
        zcdp.compose([])
    with pytest.raises(TypeError):
        zcdp.compose(0.1)
