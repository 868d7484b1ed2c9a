"""spec.wang17.moments_accountant: Definition 3.4 and Theorem 3.1 (Abadi et al.'s moments accountant, as cited).

Oracles: the exact Gaussian profile (spec.gaussian); mpmath quadrature of the log moments of one-step
mixture pairs, cross-checked with the MTZ19 accountant (spec.rdp.poisson_gaussian); sympy.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import spec
from spec import gaussian, rdp
from spec.record import FlagKind, Neighbouring
from spec.wang17 import moments_accountant as ma
from spec.wang17 import svrg, svrg_plus
from spec.wang17.symbols import G, T, c1, c2, eps, m, n, q, sigma


def test_def_3_4_needs_epsilon_range():
    r = ma.DEF_3_4
    assert r.formulas is gaussian.CLASSIC.formulas  # shared, not retyped
    assert round(gaussian.classic_failure_epsilon(1e-5), 2) == 8.42
    s10 = r.evaluate("sigma", epsilon=10.0, delta=1e-5, sensitivity=1.0)
    assert round(gaussian.exact_delta(10.0, sigma=s10, sensitivity=1.0), 6) == 2.3e-5
    s_half = r.evaluate("sigma", epsilon=0.5, delta=1e-5, sensitivity=1.0)
    assert gaussian.exact_delta(0.5, sigma=s_half, sensitivity=1.0) <= 1e-5


def _log_moment(p_, q_, lam):
    with mpmath.workdps(30):
        f = lambda x: p_(x) ** (lam + 1) * q_(x) ** (-lam)
        return mpmath.log(mpmath.quad(f, [-mpmath.inf, -20, -5, 0, 5, 20, mpmath.inf]))


def test_add_remove_does_not_transfer_to_replace_one():
    qq, s, lam = mpmath.mpf("0.01"), mpmath.mpf(4), 8
    with mpmath.workdps(30):
        mix_up = lambda x: (1 - qq) * mpmath.npdf(x, 0, s) + qq * mpmath.npdf(x, 1, s)
        mix_down = lambda x: (1 - qq) * mpmath.npdf(x, 0, s) + qq * mpmath.npdf(x, -1, s)
        base = lambda x: mpmath.npdf(x, 0, s)
        add_remove = max(_log_moment(mix_up, base, lam), _log_moment(base, mix_up, lam))
        replace_one = max(_log_moment(mix_up, mix_down, lam), _log_moment(mix_down, mix_up, lam))
        leading = qq**2 * lam * (lam + 1) / ((1 - qq) * s**2)
        cubic = qq**3 * lam**3 / s**3
    # the add/remove pair is the MTZ19 curve (independent code path)
    mtz = lam * rdp.poisson_gaussian(lam + 1, sigma=4.0, sensitivity=1.0, sampling_rate=0.01)
    assert float(add_remove) == pytest.approx(mtz, rel=1e-8)
    assert round(float(add_remove), 6) == 2.33e-4
    assert round(float(leading), 7) == 4.545e-4 and round(float(cubic), 6) == 8e-6
    assert round(float(replace_one), 6) == 9.0e-4
    assert round(float(replace_one / leading), 2) == 1.98
    assert round(float(replace_one / add_remove), 2) == 3.86
    assert replace_one - leading > 50 * cubic  # not within the O(q^3 lam^3 / sigma^3) term
    assert add_remove <= leading  # the moment bound does hold for the relation it was proved under


def test_theorem_4_1_is_theorem_3_1_at_q_1_over_n():
    k = sp.Symbol("K", positive=True, integer=True)
    r = ma.THM_3_1
    multiplier = r.formula("noise_multiplier").expr.subs({q: 1 / n, T: k})
    # noise G sigma on one sampled gradient (lot size 1): variance c2^2 G^2 K ln(1/delta) / (n^2 eps^2)
    c = sp.Symbol("c", positive=True)
    eq3 = svrg.THM_4_1.formula("sigma_squared_paper").expr  # c G^2 T m ln(1/delta) / (n^2 eps^2)
    assert sp.simplify((G * multiplier) ** 2 - eq3.subs({c: c2**2, T: k / m})) == 0
    # the side condition epsilon < c1 q^2 T becomes epsilon < c1 T m / n^2
    regime = ma.THM_3_1.formula("regime_bound").expr.subs({q: 1 / n, T: T * m}, simultaneous=True)
    assert sp.simplify(regime - svrg.THM_4_1.formula("regime_bound").expr) == 0
    # and for DP-SVRG++ at the paper's count 2^T m
    regime_plus = r.formula("regime_bound").expr.subs({q: 1 / n, T: 2**T * m}, simultaneous=True)
    assert sp.simplify(regime_plus - svrg_plus.THM_4_3.formula("regime_bound").expr) == 0


def test_printed_normalisation_contradicts_theorem_4_1():
    k = sp.Symbol("K", positive=True, integer=True)
    r = ma.THM_3_1
    multiplier = r.formula("noise_multiplier").expr.subs({q: 1 / n, T: k})
    printed_std = r.formula("noise_std_printed").expr.subs(sigma, multiplier)
    printed_var = sp.simplify(printed_std**2)
    # with (G/n) sigma the variance carries n^4, not eq. (3)'s n^2
    assert sp.simplify(printed_var * n**4 * eps**2 / (c2**2 * G**2 * k * sp.log(1 / sp.Symbol("delta", positive=True)))) == 1
    lot_std = (G * multiplier) ** 2  # (G/l) sigma with l = 1
    assert sp.simplify(lot_std / printed_var) == n**2


def test_records_and_flags():
    assert ma.RECORDS == (ma.DEF_3_4, ma.THM_3_1)
    for r in ma.RECORDS:
        assert spec.get(r.id) is r
    assert ma.THM_3_1.conventions.neighbouring is Neighbouring.ADD_REMOVE_ONE
    assert ma.THM_3_1.privacy.neighbouring is Neighbouring.ADD_REMOVE_ONE
    assert {f.kind for f in ma.THM_3_1.flags} == {FlagKind.ERRATUM, FlagKind.CONSTANT_MADE_CONCRETE, FlagKind.CAVEAT}
    # the side condition is decided only with c1
    values = dict(sampling_rate=0.01, steps=10**4, epsilon=1.0, delta=1e-5)
    ma.THM_3_1.check(**values)
    with pytest.raises(spec.AssumptionError, match="side_condition"):
        ma.THM_3_1.check(regime_constant=0.5, **values)
    assert ma.THM_3_1.evaluate("noise_multiplier", noise_constant=2.0, **values) == pytest.approx(
        2 * 0.01 * (10**4 * 11.512925464970229) ** 0.5, rel=1e-12)
    assert c1 in ma.THM_3_1.formula("regime_bound").expr.free_symbols
