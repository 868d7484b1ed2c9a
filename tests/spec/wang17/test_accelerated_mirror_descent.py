"""spec.wang17.accelerated_mirror_descent: DP-AccMD's erratum and reading, Lemmas 5.1-5.2, Theorems 5.3-5.4.

Oracles: sympy (the y-step's minimiser, the coupling condition, the balance behind Theorem 5.4);
a direct numpy run of the printed and the corrected iteration on the l2 ball (seeded); closed forms
and mpmath quadrature for Gaussian dual norms.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import spec
from spec.record import FlagKind
from spec.wang17 import accelerated_mirror_descent as amd
from spec.wang17 import calibration as cal
from spec.wang17.symbols import B_w, G, G_C, L, diam, eps, n, t


# --------------------------------------------------------------------------- the y-step erratum
def test_printed_y_step_is_noiseless():
    """On the l2 ball of radius R: ||v||_C = ||v||/R, ||C||_2 = 2R, so the y-step is a projection of x - g/(4L)."""
    R, L_ = sp.symbols("R L", positive=True)
    x1, x2, y1, y2, gF1, gF2, b1, b2 = sp.symbols("x1 x2 y1 y2 gF1 gF2 b1 b2", real=True)
    y, x = sp.Matrix([y1, y2]), sp.Matrix([x1, x2])

    def objective(g):
        return L_ * (2 * R) ** 2 / 2 * ((y - x).dot(y - x) / R**2) + g.dot(y - x)

    def minimiser(g):
        sol = sp.solve([sp.diff(objective(g), v) for v in (y1, y2)], [y1, y2], dict=True)[0]
        return sp.Matrix([sol[y1], sol[y2]])

    noisy, printed = sp.Matrix([gF1 + b1, gF2 + b2]), sp.Matrix([gF1, gF2])
    y_printed, y_noisy = minimiser(printed), minimiser(noisy)
    assert sp.simplify(y_printed - (x - printed / (4 * L_))) == sp.zeros(2, 1)
    # the objective is 2L ||y - (x - g/(4L))||^2 + const: the constrained minimiser is the projection
    shifted = 2 * L_ * (y - (x - noisy / (4 * L_))).dot(y - (x - noisy / (4 * L_)))
    assert not sp.simplify(objective(noisy) - shifted).free_symbols & {y1, y2}
    # no noise symbol reaches the printed y-step; the corrected one carries b
    assert not y_printed.free_symbols & {b1, b2}
    assert {b1, b2} <= y_noisy.free_symbols


def _project_ball(v, radius):
    norm = np.linalg.norm(v)
    return v if norm <= radius else v * (radius / norm)


def _accmd(data, *, steps, sigma, noise, smoothness, radius, printed):
    """DP-AccMD on the l2 ball with w(z) = ||z||^2 / (2 R^2) and f(x, z) = ||x - z||^2 / 2 (L = 1).

    y-step: Proj(x - g/(4L)) (the ||C||_2^2 factor cancels on a ball); z-step: Proj(z - alpha R^2 g) with
    alpha = (k+2)/(4 L ||C||_2^2). ``printed`` uses the noiseless gradient in the y-step.
    """
    x0 = np.zeros(data.shape[1])
    y, z = x0.copy(), x0.copy()
    ys = []
    diam_sq = (2 * radius) ** 2
    for k in range(steps):
        alpha = (k + 2) / (4 * smoothness * diam_sq)
        r = 1 / (2 * alpha * smoothness * diam_sq)
        x = r * z + (1 - r) * y
        grad = x - data.mean(axis=0)
        noisy = grad + sigma * noise[k]
        y = _project_ball(x - (grad if printed else noisy) / (4 * smoothness), radius)
        z = _project_ball(z - alpha * radius**2 * noisy, radius)
        ys.append((x, y))
    return ys


def _neighbours():
    rng = np.random.default_rng(20170)
    data = rng.uniform(-0.4, 0.4, size=(50, 3))
    other = data.copy()
    other[0] = [0.5, -0.5, 0.3]  # replace one record
    return data, other


def test_printed_output_is_deterministic_at_T_1():
    data, other = _neighbours()
    tapes = [np.random.default_rng(seed).standard_normal((1, 3)) for seed in (1, 2, 3)]
    kw = dict(steps=1, sigma=0.3, smoothness=1.0, radius=1.0)
    printed = [_accmd(data, noise=tape, printed=True, **kw)[-1][1] for tape in tapes]
    corrected = [_accmd(data, noise=tape, printed=False, **kw)[-1][1] for tape in tapes]
    # printed: the same output whatever the noise (r_0 = 1, so x_1 = x_0 is public)
    assert all(np.array_equal(printed[0], y) for y in printed)
    assert not np.allclose(corrected[0], corrected[1])
    # and a different point mass on the neighbour: P_D[y = y_D] = 1, P_D'[y = y_D] = 0, so delta(eps) = 1
    printed_other = _accmd(other, noise=tapes[0], printed=True, **kw)[-1][1]
    assert np.linalg.norm(printed_other - printed[0]) > 1e-3
    expected = _project_ball(np.zeros(3) - (np.zeros(3) - data.mean(axis=0)) / 4, 1.0)
    np.testing.assert_allclose(printed[0], expected, rtol=0, atol=1e-15)


def test_printed_y_iterates_differ_given_the_same_noise():
    data, other = _neighbours()
    tape = np.random.default_rng(7).standard_normal((6, 3))
    kw = dict(steps=6, sigma=0.3, noise=tape, smoothness=1.0, radius=1.0, printed=True)
    run_d, run_o = _accmd(data, **kw), _accmd(other, **kw)
    for (x_d, y_d), (x_o, y_o) in zip(run_d, run_o):
        assert np.linalg.norm(y_d - y_o) > 1e-4
        # given x_{k+1}, the printed y_{k+1} is the deterministic map of the unperturbed gradient
        np.testing.assert_allclose(y_d, _project_ball(x_d - (x_d - data.mean(axis=0)) / 4, 1.0), atol=1e-15)
        np.testing.assert_allclose(y_o, _project_ball(x_o - (x_o - other.mean(axis=0)) / 4, 1.0), atol=1e-15)


# --------------------------------------------------------------------------- coupling reading
def test_coupling_condition_reading():
    k = sp.Symbol("k", nonnegative=True, integer=True)
    L_, d = sp.symbols("L d", positive=True)
    big_m = 2 * L_ * d**2  # r_k = 1/(2 alpha L) reads as AGM with smoothness 2 x (the y-step's L ||C||^2)

    def slack(alpha):  # alpha_{k+1}^2 M - alpha_{k+1} - alpha_k^2 M, must be <= 0 for every k
        return sp.simplify(big_m * (alpha(k + 1) ** 2 - alpha(k) ** 2) - alpha(k + 1))

    minkowski = lambda j: (j + 1) / (4 * L_ * d**2)  # alpha_j = (j+1)/(4 L ||C||^2), so alpha_{k+1} = (k+2)/...
    printed = lambda j: (j + 1) / (4 * L_)
    assert sp.simplify(slack(minkowski) + 1 / (8 * L_ * d**2)) == 0  # = -1/(8 L d^2) < 0 for every k
    assert sp.simplify(slack(printed) - (d**2 * (2 * k + 3) - 2 * (k + 2)) / (8 * L_)) == 0
    # the printed reading holds for every k iff d <= 1: at d = 1 the slack is -1/(8L); at d = 1.01 it fails
    assert sp.simplify(slack(printed).subs(d, 1)) == -1 / (8 * L_)
    assert (slack(printed).subs({d: sp.Rational(101, 100), L_: 1, k: 100})) > 0
    # r_k = 2/(k+2) under both readings; the record's formulas
    r = amd.ALG_3
    assert sp.simplify(amd.COUPLING - 2 / (t + 1)) == 0
    assert r.evaluate("coupling", smoothness=3.0, diameter=2.0, step=4, steps=10) == pytest.approx(2 / 5)
    assert r.evaluate("alpha", smoothness=3.0, diameter=2.0, step=4, steps=10) == pytest.approx(5 / (4 * 3 * 4))
    assert r.evaluate("alpha_printed", smoothness=3.0, step=4, steps=10) == pytest.approx(5 / 12)


# --------------------------------------------------------------------------- lemmas
def test_lemma_5_1_tight_constant():
    rng = np.random.default_rng(51)
    p_ = 6
    v = rng.standard_normal((2000, p_))
    cases = {  # name: (Minkowski norm, dual norm, l2 diameter)
        "l2 ball": (lambda u: np.linalg.norm(u, axis=1), lambda u: np.linalg.norm(u, axis=1), 2.0),
        "l1 ball": (lambda u: np.abs(u).sum(axis=1), lambda u: np.abs(u).max(axis=1), 2.0),
        "box": (lambda u: np.abs(u).max(axis=1), lambda u: np.abs(u).sum(axis=1), 2 * math.sqrt(p_)),
    }
    attainers = {"l2 ball": np.eye(p_)[:1], "l1 ball": np.eye(p_)[:1], "box": np.ones((1, p_))}
    for name, (gauge, dual, dia) in cases.items():
        ratio = np.linalg.norm(v, axis=1) / gauge(v)
        assert ratio.max() <= dia / 2 + 1e-12, name
        top = np.linalg.norm(attainers[name], axis=1) / gauge(attainers[name])
        assert top[0] == pytest.approx(dia / 2), name  # the radius is attained: ||C||_2 / 2 is tight
        # dual norm <= radius * l2 norm, hence L-smooth (l2) gives L ||C||_2^2 / 4 in ||.||_C
        assert (dual(v) <= dia / 2 * np.linalg.norm(v, axis=1) + 1e-12).all(), name
    r = amd.LEMMA_5_1
    assert r.evaluate("norm_ratio", diameter=2.0) == 1.0 and r.evaluate("norm_ratio_printed", diameter=2.0) == 2.0
    assert r.evaluate("minkowski_smoothness", smoothness=3.0, diameter=2.0) == 3.0
    assert r.evaluate("minkowski_smoothness_printed", smoothness=3.0, diameter=2.0) == 12.0


def test_lemma_5_2_explicit_constant():
    bound = lambda width: amd.LEMMA_5_2.evaluate("second_moment_bound", gaussian_width=width, diameter=2.0)
    with mpmath.workdps(30):
        for p_ in (1, 2, 5, 10, 100, 1000):
            # unit l2 ball: sup_w <w, v> = ||v||, E||v||^2 = p, G_C = E||v|| = sqrt(2) Gamma((p+1)/2) / Gamma(p/2)
            width = float(mpmath.sqrt(2) * mpmath.gamma(mpmath.mpf(p_ + 1) / 2) / mpmath.gamma(mpmath.mpf(p_) / 2))
            assert p_ <= bound(width) * (1 + 1e-12)
            # unit l1 ball: sup_w <w, v> = max_i |v_i|, tail P(M > t) = 1 - (2 Phi(t) - 1)^p
            tail = lambda s: 1 - (2 * mpmath.ncdf(s) - 1) ** p_
            mean = mpmath.quad(tail, [0, 1, 3, 6, 12])
            second = mpmath.quad(lambda s: 2 * s * tail(s), [0, 1, 3, 6, 12])
            assert second <= bound(float(mean)) * (1 + 1e-12)
            assert second > float(mean) ** 2  # a variance, so the bound's second term is needed
    # the O-form of the paper is weaker than the explicit bound
    assert amd.SECOND_MOMENT - amd.SECOND_MOMENT_TIGHT == 3 * diam**2 / 4
    assert amd.LEMMA_5_2.exponents(1) == {"gaussian_width": 2}


# --------------------------------------------------------------------------- theorems
def test_thm_5_3_uses_the_full_batch_calibration():
    r = amd.THM_5_3
    assert r.formula("sigma").expr == cal.FULL_BATCH_SIGMA
    values = dict(lipschitz=1.0, n=1000, steps=30, epsilon=1.0, delta=1e-5)
    assert r.evaluate("sigma", **values) == cal.FULL_BATCH.evaluate("sigma", **values)
    assert round(r.evaluate("implied_constant", epsilon=1.0, delta=1e-5), 2) == 8.34
    s = r.evaluate("sigma", **values)
    assert r.evaluate("sigma_paper", noise_constant=r.evaluate("implied_constant", epsilon=1.0, delta=1e-5),
                      **values) == pytest.approx(s, rel=1e-12)
    assert r.privacy.profile is cal.full_batch_profile
    assert r.privacy.profile(sigma=s, lipschitz=1.0, n=1000, steps=30)(1.0) <= 1e-5


def test_thm_5_4_reconstruction():
    T_, c_, a, w2 = sp.symbols("T c a W", positive=True)
    l_c = L * diam**2
    k_ = c_ * G**2 * a / (n**2 * eps**2)  # sigma^2 = k T (eq. 9)
    err = l_c * B_w / T_**2 + T_ * (k_ * T_) * w2 / l_c
    t_sq = sp.solve(sp.diff(err, T_), T_)
    assert len(t_sq) == 1
    t2 = sp.simplify(t_sq[0] ** 2)
    expected_t2 = amd.STEPS_SQUARED.subs(sp.log(1 / sp.Symbol("delta", positive=True)), a)
    width_sq = G_C**2 + diam**2
    assert sp.simplify(t2.subs({c_: 1, w2: width_sq}) - expected_t2) == 0
    value = sp.simplify(err.subs(T_, t_sq[0]))
    expected_bound = amd.UTILITY_BOUND.subs(sp.log(1 / sp.Symbol("delta", positive=True)), a)
    assert sp.simplify(value.subs({c_: 1, w2: width_sq}) - 2 * expected_bound) == 0  # the surviving '2G'
    # gradient evaluations n T grow like n^1.5 sqrt(epsilon) (Table 3)
    grads = n * sp.sqrt(expected_t2)
    assert sp.limit(n * sp.diff(sp.log(grads), n), n, sp.oo) == sp.Rational(3, 2)
    assert sp.limit(eps * sp.diff(sp.log(grads), eps), eps, 0) == sp.Rational(1, 2)
    assert amd.THM_5_4.exponents(0) == {"n": -1, "epsilon": -1, "gaussian_width": 1}
    values = dict(lipschitz=1.0, smoothness=2.0, diameter=2.0, gaussian_width=3.0, initial_divergence=0.5,
                  n=10**4, epsilon=1.0, delta=1e-5)
    steps = amd.THM_5_4.evaluate("steps", **values)
    by_hand = math.sqrt(2.0 * 4 * math.sqrt(0.5) * 10**4 / (math.sqrt(math.log(1e5)) * math.sqrt(9 + 4)))
    assert steps == math.ceil(by_hand)


def test_records_and_flags():
    assert amd.RECORDS == (amd.ALG_3, amd.LEMMA_5_1, amd.LEMMA_5_2, amd.THM_5_3, amd.THM_5_4)
    for r in amd.RECORDS:
        assert spec.get(r.id) is r
    kinds = {r.id: {f.kind for f in r.flags} for r in amd.RECORDS}
    assert kinds["wang17.alg_3"] == {FlagKind.ERRATUM, FlagKind.RECONSTRUCTED}
    assert FlagKind.ERRATUM in kinds["wang17.thm_5_3"]
    lines = {line.label: line.statement for line in amd.ALG_3.pseudocode}
    assert "b_{k+1}" in lines["L6"] and "printed" in lines["L6"]
    assert amd.ALG_3.evaluate("gradient_evaluations", n=100, steps=7) == 700
