"""spec.wang19.noise: equation (3) with its constant, Theorem 1's calibration options, Lemma 2.

Oracles: sympy (the implied constant typed here from math-notes and compared with the record's derived
expression), spec.gaussian's exact Gaussian-DP profile (itself checked by quadrature in its own tests), spec.rdp's
accountant (independent code path from the closed-form order search), spec.zcdp.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from spec import gaussian, rdp, zcdp
from spec.errors import AssumptionError, ParameterError, PrivacyParameterError
from spec.wang19 import noise
from spec.wang19.symbols import ORDER, G, T, delta, eps, n


def _c_notes(e, a):
    """math-notes 3.2: c = 2 (1 + sqrt(1 + epsilon/a))^2, a = ln(1/delta) (typed here, not taken from spec)."""
    return 2 * (1 + sp.sqrt(1 + e / a)) ** 2


def test_implied_constant_symbolic():
    a = sp.Symbol("a", positive=True)
    c = noise.IMPLIED_CONSTANT.subs(delta, sp.exp(-a))
    assert sp.simplify(c - _c_notes(eps, a)) == 0
    # c > 8 and c -> 8 as epsilon/a -> 0
    assert sp.limit(_c_notes(eps, a), eps, 0) == 8
    assert sp.simplify(sp.diff(_c_notes(eps, a), eps)) .is_positive
    # (3) with this c is the zCDP calibration: sigma_eq3 == sigma
    assert sp.simplify((noise.SIGMA_EQ3**2 - noise.SIGMA**2).subs(delta, sp.exp(-a))) == 0
    # and the zCDP calibration spends exactly rho*: T (2G/n)^2 / (2 sigma^2) = rho*
    spent = T * (2 * G / n) ** 2 / (2 * noise.SIGMA**2)
    assert sp.simplify((spent - noise.RHO_STAR).subs(delta, sp.exp(-a))) == 0


@pytest.mark.parametrize("e, d, printed", [(1.0, 1e-5, "8.344"), (0.1, 1e-5, "8.035"), (5.0, 1e-3, "10.70")])
def test_implied_constant_values(e, d, printed):
    value = noise.EQ_3.evaluate("implied_constant", epsilon=e, delta=d)
    with mpmath.workdps(40):
        exact = 2 * (1 + mpmath.sqrt(1 + mpmath.mpf(e) / mpmath.log(1 / mpmath.mpf(d)))) ** 2
    assert mpmath.mpf(value) >= exact and value == pytest.approx(float(exact), rel=1e-15)
    assert f"{value:#.4g}" == printed
    (flag,) = noise.EQ_3.flags
    assert printed in flag.reason
    # sigma^2 n^2 eps^2 / (G^2 T a) recovers c from the evaluated sigma (G = 1.5, n = 1000, T = 50)
    sigma = noise.EQ_3.evaluate("sigma", lipschitz=1.5, n=1000, epsilon=e, delta=d, steps=50)
    assert sigma**2 * 1000**2 * e**2 / (1.5**2 * 50 * math.log(1 / d)) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("e", [0.01, 1.0, 50.0])
def test_no_condition_on_epsilon(e):
    """c_1 = infinity: the zCDP sigma is (epsilon, delta)-DP under the exact Gaussian-DP profile for every epsilon."""
    for d in (1e-3, 1e-8):
        s = noise.sigma(lipschitz=1.0, n=500, epsilon=e, delta=d, steps=20)
        assert gaussian.exact_delta(e, sigma=s, sensitivity=2 / 500, steps=20) <= d
        assert noise.certified_epsilon(lipschitz=1.0, n=500, steps=20, delta=d, sigma=s) <= e
    (flag,) = noise.EQ_3.flags
    assert "epsilon = 0.01" in flag.reason and "epsilon = 50" in flag.reason


def test_calibration_options():
    (flag,) = noise.THM_1.flags
    text = flag.summary
    for lip, n_, T_ in ((1.0, 1000, 100), (3.0, 50, 7)):
        kw = dict(lipschitz=lip, n=n_, epsilon=1.0, delta=1e-5, steps=T_)
        z = noise.sigma(**kw)
        r = noise.sigma(calibration="rdp", **kw)
        m = noise.sigma(calibration="rdp-mironov", **kw)
        x = noise.sigma(calibration="exact", **kw)
        sens = 2 * lip / n_
        # each is certified by an independent accountant
        _, order = noise._sigma_rdp("rdp", lip, n_, 1.0, 1e-5, T_)  # the order that certifies r
        assert rdp.epsilon(sigma=r, sensitivity=sens, delta=1e-5, steps=T_, orders=[order]) <= 1.0 + 1e-12
        assert gaussian.exact_delta(1.0, sigma=x, sensitivity=sens, steps=T_) <= 1e-5
        assert zcdp.epsilon_gaussian(sigma=z, sensitivity=sens, delta=1e-5, steps=T_) <= 1.0 + 1e-12
        # Mironov's conversion minimised over real orders is the zCDP conversion
        assert m == pytest.approx(z, rel=1e-9) and m >= z * (1 - 1e-12)
        assert x <= r <= z
        assert f"{r / z:.3f}" in text and f"{x / z:.3f}" in text
        assert f"{noise.certified_epsilon(lipschitz=lip, n=n_, steps=T_, delta=1e-5, sigma=z):.3f}" in text
    # the ordering on a grid
    for e in (0.1, 1.0, 4.0):
        for d in (1e-3, 1e-9):
            kw = dict(lipschitz=1.0, n=100, epsilon=e, delta=d, steps=10)
            x, r, z = (noise.sigma(calibration=c, **kw) for c in ("exact", "rdp", "zcdp"))
            assert x <= r <= z


def test_rdp_order_search_is_certified_at_its_order():
    s, order = noise._sigma_rdp("rdp", 1.0, 200, 0.5, 1e-6, 40)
    at = noise.THM_1.evaluate("sigma_cks_at_order", order=order, lipschitz=1.0, n=200, epsilon=0.5, delta=1e-6,
                              steps=40)
    assert at == pytest.approx(s, rel=1e-12)
    # any other order certifies a larger sigma; Mironov's conversion a larger one still
    for other in (order * 0.8, order * 1.25, 64):
        assert noise.THM_1.evaluate("sigma_cks_at_order", order=other, lipschitz=1.0, n=200, epsilon=0.5,
                                    delta=1e-6, steps=40) >= s * (1 - 1e-12)
    assert noise.THM_1.evaluate("sigma_mironov_at_order", order=order, lipschitz=1.0, n=200, epsilon=0.5,
                                delta=1e-6, steps=40) > s
    # an order whose budget is negative certifies nothing: a clear AssumptionError
    with pytest.raises(AssumptionError, match="order_admissible"):
        noise.THM_1.evaluate("sigma_cks_at_order", order=2, lipschitz=1.0, n=200, epsilon=0.5, delta=1e-6, steps=40)
    # CKS20's budget exceeds Mironov's by ln(alpha)/(alpha - 1) - ln((alpha - 1)/alpha) > 0 (both terms > 0)
    diff = sp.expand_log(noise.RDP_BUDGET_CKS - noise.RDP_BUDGET_MIRONOV, force=True)
    expected = sp.expand_log(sp.log(ORDER) / (ORDER - 1) - sp.log((ORDER - 1) / ORDER), force=True)
    assert sp.simplify(diff - expected) == 0
    # one order suffices for a certificate: spec.rdp at exactly that order
    got = rdp.epsilon(sigma=s, sensitivity=2 / 200, delta=1e-6, steps=40, orders=[order])
    assert got <= 0.5 * (1 + 1e-12)
    # and the grid search alone is never better than the refined one
    grid = rdp.epsilon(sigma=s * (1 - 1e-6), sensitivity=2 / 200, delta=1e-6, steps=40)
    assert grid > 0.5


def test_lemma_2_normalisation():
    (flag,) = noise.LEMMA_2.flags
    # replace-one doubles the sensitivity of the average gradient, hence the noise
    for e, d in ((1.0, 1e-5), (0.3, 1e-7)):
        s_replace = zcdp.gaussian_sigma(epsilon=e, delta=d, sensitivity=2 / 100, steps=30)
        s_addremove = zcdp.gaussian_sigma(epsilon=e, delta=d, sensitivity=1 / 100, steps=30)
        assert s_replace / s_addremove == pytest.approx(2.0, rel=1e-12)
    # c_2 = sqrt(c) for q = 1: std = (G/n) c_2 sqrt(T ln(1/delta))/epsilon
    a = sp.Symbol("a", positive=True)
    c2 = noise.LEMMA_2.formula("c2_full_batch").expr
    std_over_g_n = noise.SIGMA / (G / n)
    assert sp.simplify((std_over_g_n - c2 * sp.sqrt(T * sp.log(1 / delta)) / eps).subs(delta, sp.exp(-a))) == 0
    value = noise.LEMMA_2.evaluate("c2_full_batch", epsilon=1.0, delta=1e-5)
    assert f"{value:.4g}" == "2.889" and "2.889" in flag.reason
    multiplier = noise.LEMMA_2.evaluate("noise_multiplier_full_batch", epsilon=1.0, delta=1e-5, steps=30)
    assert multiplier == pytest.approx(math.sqrt(30 / (2 * zcdp.rho_star(epsilon=1.0, delta=1e-5))), rel=1e-12)


def test_certified_epsilon_and_profile():
    s = noise.sigma(lipschitz=2.0, n=300, epsilon=0.7, delta=1e-6, steps=25)
    prof = noise.transcript_profile(lipschitz=2.0, n=300, steps=25, sigma=s)
    e = noise.certified_epsilon(lipschitz=2.0, n=300, steps=25, delta=1e-6, sigma=s)
    assert prof(e) <= 1e-6 and prof(e * 0.99) > 1e-6
    assert noise.THM_1.privacy.accountant is noise.certified_epsilon
    assert noise.THM_1.privacy.profile is noise.transcript_profile


@settings(max_examples=25, deadline=None)
@given(st.floats(-2, 1.3).map(lambda x: 10**x), st.floats(-12, -1).map(lambda x: 10**x), st.integers(1, 2000))
def test_zcdp_sigma_is_rounded_up_and_private(e, d, steps):
    s = noise.sigma(lipschitz=1.0, n=1000, epsilon=e, delta=d, steps=steps)
    exact = noise.EQ_3.evaluate_exact("sigma", lipschitz=1.0, n=1000, epsilon=e, delta=d, steps=steps)
    assert mpmath.mpf(s) >= exact
    # the float 2/1000 is a hair above the exact 2G/n the record uses
    assert zcdp.epsilon_gaussian(sigma=s, sensitivity=2 / 1000, delta=d, steps=steps) <= e * (1 + 1e-12)


def test_sigma_bad_input():
    good = dict(lipschitz=1.0, n=100, epsilon=1.0, delta=1e-5, steps=10)
    with pytest.raises(PrivacyParameterError, match=r"^delta \(1.5\) must be in \(0, 1\)$"):
        noise.sigma(**dict(good, delta=1.5))
    with pytest.raises(PrivacyParameterError, match=r"^epsilon \(0.0\) must be > 0$"):
        noise.sigma(**dict(good, epsilon=0.0))
    with pytest.raises(PrivacyParameterError, match=r"^steps \(0\) must be >= 1$"):
        noise.sigma(**dict(good, steps=0))
    with pytest.raises(ParameterError, match=r"^calibration \('moments'\) must be one of"):
        noise.sigma(calibration="moments", **good)
    with pytest.raises(TypeError, match=r"^n "):
        noise.sigma(**dict(good, n=100.0))
    with pytest.raises(AssumptionError, match="delta_lt_1"):
        noise.EQ_3.check(delta=1.0)
    # an epsilon so small that no Renyi order up to the grid's largest certifies it: a clear error, not a guess
    with pytest.raises(ParameterError, match=r"cannot be certified by any Renyi order up to"):
        noise.sigma(**dict(good, epsilon=1e-5, delta=1e-10), calibration="rdp")
    assert noise.sigma(**dict(good, epsilon=1e-5, delta=1e-10)) > 0  # zcdp has no such limit
