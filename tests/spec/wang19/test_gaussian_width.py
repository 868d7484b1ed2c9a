"""spec.wang19.gaussian_width: Definition 8's widths and Lemma 4's constant.

Oracles: seeded Monte Carlo (numpy), closed forms at p = 1, 2 typed here, mpmath quadrature with explicit
breakpoints (independent of the record's plain quadrature), sympy for the bound's minimisation.

Monte Carlo error rates: each comparison allows 5 standard errors of the mean (two-sided normal false-alarm
rate 5.7e-7); the file makes 24 such comparisons (family-wise rate below 1.4e-5), and the seeds are fixed.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from spec.wang19 import gaussian_width as gw

DRAWS = 200_000
CHUNK = 20_000


def _monte_carlo(p, statistic, seed):
    """Mean and standard error of statistic(b) over DRAWS standard normal vectors in R^p."""
    rng = np.random.default_rng(seed)
    values = np.concatenate([statistic(rng.standard_normal((CHUNK, p))) for _ in range(DRAWS // CHUNK)])
    return values.mean(), values.std(ddof=1) / math.sqrt(DRAWS)


def test_l1_ball_bound_derivation():
    lam, m = sp.symbols("lambda m", positive=True)  # m = 2p Gaussians
    f = sp.log(m) / lam + lam / 2
    (best,) = sp.solve(sp.diff(f, lam), lam)
    assert sp.simplify(best - sp.sqrt(2 * sp.log(m))) == 0
    assert sp.simplify(f.subs(lam, best) - sp.sqrt(2 * sp.log(m))) == 0
    bound = gw.DEF_8.formula("width_l1_ball_bound").expr
    p, d1 = gw.DEF_8.symbol("dimension"), gw.DEF_8.symbol("l1_diameter")
    assert sp.simplify(bound - d1 / 2 * sp.sqrt(2 * sp.log(2 * p))) == 0
    exact = gw.DEF_8.evaluate("width_l1_ball", dimension=1000, l1_diameter=2.0)
    upper = gw.DEF_8.evaluate("width_l1_ball_bound", dimension=1000, l1_diameter=2.0)
    assert f"{exact:.3f}" == "3.435" and f"{upper:.3f}" == "3.899"
    text = gw.DEF_8.flags[0].summary
    assert "3.435" in text and "3.899" in text
    for p_value in (1, 2, 3, 10, 100, 10_000, 10**6):
        assert gw.DEF_8.evaluate("width_l1_ball", dimension=p_value, l1_diameter=2.0) <= gw.DEF_8.evaluate(
            "width_l1_ball_bound", dimension=p_value, l1_diameter=2.0)
        assert gw.DEF_8.evaluate("width_simplex", dimension=p_value) <= gw.DEF_8.evaluate(
            "width_simplex_bound", dimension=p_value) + 1e-15
        assert gw.DEF_8.evaluate("width_l2_ball", dimension=p_value, diameter=2.0) <= gw.DEF_8.evaluate(
            "width_l2_ball_bound", dimension=p_value, diameter=2.0)


def _quad_linf(p, power=1):
    """E||b||_inf^power by quadrature with breakpoints around sqrt(2 ln 2p) (independent of the record)."""
    with mpmath.workdps(30):
        c = mpmath.sqrt(2 * mpmath.log(2 * p))
        f = lambda x: power * x ** (power - 1) * (1 - mpmath.erf(x / mpmath.sqrt(2)) ** p)  # noqa: E731
        return mpmath.quad(f, [0, c / 2, c, c + 1, c + 3, c + 8, mpmath.inf])


@pytest.mark.parametrize("p", [1, 2, 5, 30, 120])
def test_widths_against_monte_carlo(p):
    seed = 1000 + p
    cases = [
        ("width_l2_ball", dict(diameter=2.0), lambda b: np.linalg.norm(b, axis=1)),
        ("width_l1_ball", dict(l1_diameter=2.0), lambda b: np.abs(b).max(axis=1)),
        ("width_simplex", dict(), lambda b: b.max(axis=1)),
        ("width_box", dict(linf_diameter=2.0), lambda b: np.abs(b).sum(axis=1)),
    ]
    for k, (name, extra, statistic) in enumerate(cases):
        mean, se = _monte_carlo(p, statistic, seed + 17 * k)
        value = gw.DEF_8.evaluate(name, dimension=p, **extra)
        assert abs(value - mean) <= 5 * se, (name, p, value, mean, se)
    # the record's plain quadrature agrees with a quadrature that splits the range
    assert gw.DEF_8.evaluate("width_l1_ball", dimension=p, l1_diameter=2.0) == pytest.approx(
        float(_quad_linf(p)), rel=1e-12)


def test_widths_small_dimensions():
    # p = 1: l2 and l1 balls both have width E|g| = sqrt(2/pi) (radius 1); the simplex {1} has width 0
    assert gw.DEF_8.evaluate("width_l2_ball", dimension=1, diameter=2.0) == pytest.approx(math.sqrt(2 / math.pi))
    assert gw.DEF_8.evaluate("width_l1_ball", dimension=1, l1_diameter=2.0) == pytest.approx(math.sqrt(2 / math.pi))
    assert abs(gw.DEF_8.evaluate("width_simplex", dimension=1)) < 1e-30
    # p = 2: E||b||_2 = sqrt(pi/2); E max(b1, b2) = 1/sqrt(pi); E max(|b1|, |b2|) = 2/sqrt(pi)
    assert gw.DEF_8.evaluate("width_l2_ball", dimension=2, diameter=2.0) == pytest.approx(math.sqrt(math.pi / 2))
    assert gw.DEF_8.evaluate("width_simplex", dimension=2) == pytest.approx(1 / math.sqrt(math.pi))
    assert gw.DEF_8.evaluate("width_l1_ball", dimension=2, l1_diameter=2.0) == pytest.approx(2 / math.sqrt(math.pi))
    # linear scaling and the box
    assert gw.DEF_8.evaluate("width_l2_ball", dimension=7, diameter=6.0) == pytest.approx(
        3 * gw.DEF_8.evaluate("width_l2_ball", dimension=7, diameter=2.0))
    assert gw.DEF_8.evaluate("width_box", dimension=4, linf_diameter=1.0) == pytest.approx(4 / math.sqrt(2 * math.pi))
    text = gw.DEF_8.flags[0].reason
    assert f"{DRAWS}" in text and "5 standard errors" in text and "6e-7" in text


@pytest.mark.parametrize("p", [1, 2, 10, 100, 1000])
def test_lemma_4_constant(p):
    r = 1.0  # radius; every set below is centrally symmetric with largest l2 norm r
    rec, width = gw.LEMMA_4, gw.DEF_8
    cases = [
        ("second_moment_l2_ball", dict(diameter=2 * r), width.evaluate("width_l2_ball", dimension=p, diameter=2 * r),
         2 * r),
        ("second_moment_l1_ball", dict(l1_diameter=2 * r),
         width.evaluate("width_l1_ball", dimension=p, l1_diameter=2 * r), 2 * r),
        ("second_moment_box", dict(linf_diameter=2 * r),
         width.evaluate("width_box", dimension=p, linf_diameter=2 * r), 2 * r * math.sqrt(p)),
    ]
    for name, extra, g_c, diameter in cases:
        second = rec.evaluate(name, dimension=p, **extra)
        bound = rec.evaluate("second_moment_bound", gaussian_width=g_c, diameter=diameter)
        # Var = E W - G_C^2 <= (largest norm)^2 = (diameter/2)^2
        assert 0 <= second - g_c**2 <= (diameter / 2) ** 2 * (1 + 1e-12), (name, p)
        assert second <= bound
    # the l2 ball: Var ||b||_2 = p - (E||b||)^2 < 1/2
    g = width.evaluate("width_l2_ball", dimension=p, diameter=2.0)
    assert p - g**2 < 0.5
    # the l1 ball's second moment against an independent quadrature and Monte Carlo
    assert rec.evaluate("second_moment_l1_ball", dimension=p, l1_diameter=2.0) == pytest.approx(
        float(_quad_linf(p, power=2)), rel=1e-12)
    if p <= 100:
        mean, se = _monte_carlo(p, lambda b: np.abs(b).max(axis=1) ** 2, 77 + p)
        assert abs(rec.evaluate("second_moment_l1_ball", dimension=p, l1_diameter=2.0) - mean) <= 5 * se


def test_l2_width_exponent_and_bound():
    """The l2 ball's exact width grows like sqrt(p) (exponent 1/2, ratio to the Jensen bound -> 1), so the
    utility claims that use the bound (wang19.thm_4, thm_5) carry the exponent of the exact width."""
    p = gw.DEF_8.symbol("dimension")
    exact = gw.DEF_8.formula("width_l2_ball").expr
    bound = gw.DEF_8.formula("width_l2_ball_bound").expr
    slope = sp.limit(sp.simplify(p * sp.diff(sp.log(exact), p)), p, sp.oo)
    assert slope == sp.Rational(1, 2)
    assert sp.limit(exact / bound, p, sp.oo) == 1
