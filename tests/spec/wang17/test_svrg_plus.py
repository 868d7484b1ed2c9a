"""spec.wang17.svrg_plus: DP-SVRG++ (Algorithm 2), Theorems 4.3 and 4.4."""

from __future__ import annotations

import math

import pytest
import sympy as sp

import spec
from spec.errors import PrivacyParameterError
from spec.record import FlagKind
from spec.wang17 import svrg, svrg_plus
from spec.wang17.symbols import G, L, T, eps, m, n, p, s_epoch


def test_noisy_step_count():
    total = sp.summation(2**s_epoch * m, (s_epoch, 1, T))
    assert sp.simplify(total - svrg_plus.NOISY_STEPS) == 0
    assert sp.simplify(svrg_plus.NOISY_STEPS / svrg_plus.PAPER_COUNT - (2 - 2 ** (1 - T))) == 0
    r = svrg_plus.ALG_2
    assert r.evaluate("noisy_steps", n=10, epochs=10, epoch_length=100) == 204600
    assert sum(r.evaluate("epoch_steps", step=s, epoch_length=100) for s in range(1, 11)) == 204600
    assert r.evaluate("gradient_evaluations", n=1000, epochs=10, epoch_length=100) == 10 * 1000 + 2 * 204600
    assert [line.label for line in r.pseudocode] == [f"L{k}" for k in range(1, 14)]
    # eq. (6) uses ln(2/delta)
    assert sp.log(2 / sp.Symbol("delta", positive=True)) in svrg_plus.THM_4_3.formula("sigma_squared_paper").expr.atoms(sp.log)


def test_calibration_and_implied_constant():
    long = svrg_plus.calibrate(n=1000, epochs=10, epoch_length=100, epsilon=1.0, delta=1e-5)
    assert long.steps == 204600 and long.certified_epsilon <= 1.0
    assert round(long.sigma, 2) == 18.53
    assert round(long.implied_constant, 1) == 274.8
    # eq. (6)'s form: sigma^2 n^2 eps^2 / (G^2 2^T m ln(2/delta))
    assert long.implied_constant == pytest.approx(long.sigma**2 * 1000**2 / (2**10 * 100 * math.log(2e5)), rel=1e-12)
    # the same accountant as DP-SVRG at the same number of steps
    same = svrg.calibrate(n=1000, epochs=1, epoch_length=204600, epsilon=1.0, delta=1e-5)
    assert same.sigma == long.sigma
    short = svrg_plus.calibrate(n=1000, epochs=4, epoch_length=100, epsilon=1.0, delta=1e-5)
    assert short.steps == 3000
    assert round(short.sigma, 2) == 3.85
    assert round(short.implied_constant) == 760
    assert short.implied_constant > 2.5 * long.implied_constant  # no constant c, as for DP-SVRG
    # certified_epsilon agrees, with sigma or with the paper's c
    assert svrg_plus.certified_epsilon(n=1000, epochs=10, epoch_length=100, delta=1e-5, sigma=long.sigma,
                                       orders=long.orders) == long.certified_epsilon
    paper = svrg_plus.certified_epsilon(n=1000, epochs=10, epoch_length=100, delta=1e-5, epsilon=1.0,
                                        noise_constant=long.implied_constant * (1 + 1e-9), orders=long.orders)
    assert paper <= 1.0
    with pytest.raises(PrivacyParameterError, match="noise_constant"):
        svrg_plus.certified_epsilon(n=1000, epochs=10, epoch_length=100, delta=1e-5)


def test_thm_4_4_reconstruction():
    r = svrg_plus.THM_4_4
    assert r.exponents(0) == {"n": -1, "dimension": sp.Rational(1, 2), "epsilon": -1}
    # Table 2 of the paper for this paper: sqrt(p) / (n epsilon)
    table_2 = sp.sqrt(p) / (n * eps)
    for name, x, where in (("n", n, sp.oo), ("dimension", p, sp.oo), ("epsilon", eps, 0)):
        assert sp.limit(sp.simplify(x * sp.diff(sp.log(table_2), x)), x, where) == r.exponents(0)[name]
    # optimisation error L R^2 / N against noise N p G^2 a / (L n^2 eps^2), N = 2^T m total inner steps
    N, R, a = sp.symbols("N R a", positive=True)
    err = L * R**2 / N + N * p * G**2 * a / (L * n**2 * eps**2)
    n_star = sp.solve(sp.diff(err, N), N)
    assert len(n_star) == 1
    assert sp.simplify(n_star[0] - L * n * eps * R / (G * sp.sqrt(p * a))) == 0
    assert sp.simplify(err.subs(N, n_star[0]) - 2 * R * G * sp.sqrt(p * a) / (n * eps)) == 0
    # T = log2(N*/m) with m = Theta(L): the reconstructed T up to the hidden L R (and base)
    values = dict(lipschitz=1.0, n=10**4, dimension=100, epsilon=1.0, delta=1e-5)
    t_ = r.evaluate("epochs", **values)
    assert t_ == math.ceil(math.log2(10**4 / math.sqrt(100 * math.log(1e5))))
    assert r.evaluate("epochs", **dict(values, n=2)) == 1
    assert r.evaluate("learning_rate", smoothness=2.0) == 1 / 26


def test_epoch_length_cannot_scale_with_smoothness():
    """DP-SVRG++'s update is invariant under f -> a f (G, L, sigma, gradients times a, eta = 1/(13 L))."""
    a, L_, g_x, g_snap, v_snap, u = sp.symbols("a L g_x g_snap v_snap u", positive=True)
    eta_ = 1 / (13 * L_)
    step = eta_ * (g_x - g_snap + v_snap + u)
    scaled = step.subs({L_: a * L_, g_x: a * g_x, g_snap: a * g_snap, v_snap: a * v_snap, u: a * u},
                       simultaneous=True)
    assert sp.simplify(scaled - step) == 0
    # the prox of the rescaled regulariser with the rescaled step is the same map: (eta/a) (a r) = eta r
    r_weight = sp.Symbol("r", positive=True)
    assert sp.simplify((eta_ / a) * (a * r_weight) - eta_ * r_weight) == 0
    # so the iterates are identical while "m = Theta(L)" would multiply m by a; the records leave m free
    assert "epoch_length" not in {f.name for f in svrg_plus.THM_4_4.formulas}
    assert svrg_plus.THM_4_4.symbol("epoch_length") == m


def test_records_and_flags():
    assert svrg_plus.RECORDS == (svrg_plus.ALG_2, svrg_plus.THM_4_3, svrg_plus.THM_4_4)
    for r in svrg_plus.RECORDS:
        assert spec.get(r.id) is r
    kinds = {r.id: {f.kind for f in r.flags} for r in svrg_plus.RECORDS}
    assert kinds["wang17.thm_4_3"] == {FlagKind.CAVEAT, FlagKind.CONSTANT_MADE_CONCRETE}
    assert kinds["wang17.thm_4_4"] == {FlagKind.RECONSTRUCTED, FlagKind.CAVEAT}
    assert svrg_plus.THM_4_3.privacy.accountant is svrg_plus.certified_epsilon
    values = dict(lipschitz=1.0, n=1000, epochs=10, epoch_length=100, epsilon=1.0, delta=1e-5)
    s = svrg_plus.THM_4_3.evaluate("sigma_paper", noise_constant=274.8, **values)
    assert s == pytest.approx(18.53, rel=1e-3)
