"""spec.wang17.calibration: the zCDP closed form for full-batch methods and the DP-SVRG step accountant.

Oracles: sympy identities; formulas retyped by hand and evaluated with mpmath; the zCDP functions of
spec.zcdp and the exact Gaussian profile; mpmath quadrature of Renyi and hockey-stick divergences of
one-step mixture pairs; explicit gradients of Huber losses.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp

import spec
from spec import gaussian, zcdp
from spec.errors import ParameterError, PrivacyParameterError
from spec.record import ALPHA, FlagKind, PrivacyModel
from spec.wang17 import calibration as cal
from spec.wang17.symbols import G, LOG_INV_DELTA, T, delta, eps, implied_constant, n, sigma


# --------------------------------------------------------------------------- full batch
def _sigma_by_hand(lipschitz, n_, steps, e, d):
    with mpmath.workdps(40):
        a = mpmath.log(1 / mpmath.mpf(d))
        e = mpmath.mpf(e)
        return mpmath.sqrt(2 * lipschitz**2 * steps) * (mpmath.sqrt(a + e) + mpmath.sqrt(a)) / (n_ * e)


@pytest.mark.parametrize("lipschitz,n_,steps,e,d", [
    (1.0, 1000, 100, 1.0, 1e-5), (2.5, 50, 7, 0.1, 1e-9), (0.3, 10**6, 10**4, 5.0, 1e-3),
])
def test_full_batch_sigma_is_zcdp_calibration(lipschitz, n_, steps, e, d):
    values = dict(lipschitz=lipschitz, n=n_, steps=steps, epsilon=e, delta=d)
    s = cal.FULL_BATCH.evaluate("sigma", **values)
    sens = cal.FULL_BATCH.evaluate("sensitivity", lipschitz=lipschitz, n=n_)
    # the same number as zcdp.gaussian_calibration at sensitivity 2G/n (rounding of the sensitivity aside)
    assert s == pytest.approx(zcdp.gaussian_sigma(epsilon=e, delta=d, sensitivity=sens, steps=steps), rel=1e-14)
    assert s >= _sigma_by_hand(lipschitz, n_, steps, e, d) * (1 - 1e-15)
    assert s == pytest.approx(float(_sigma_by_hand(lipschitz, n_, steps, e, d)), rel=1e-14)
    # private: zCDP conversion at most epsilon, exact profile at most delta
    assert zcdp.epsilon_gaussian(sigma=s, sensitivity=sens, delta=d, steps=steps) <= e * (1 + 1e-12)
    assert cal.full_batch_profile(sigma=s, lipschitz=lipschitz, n=n_, steps=steps)(e) <= d
    # the expression is built from the zcdp record, not retyped
    zc = zcdp.GAUSSIAN_CALIBRATION
    assert cal.FULL_BATCH_SIGMA == zc.formula("sigma").expr.subs(
        {zc.symbol("sensitivity"): 2 * G / n, zc.symbol("steps"): T}, simultaneous=True)


def test_full_batch_implied_constant_closed_form():
    a = sp.Symbol("a", positive=True)  # a = ln(1/delta) > 0 for delta < 1
    implied = implied_constant(T).subs(sigma, cal.FULL_BATCH_SIGMA).subs(LOG_INV_DELTA, a)
    assert sp.simplify(implied - cal.FULL_BATCH_IMPLIED_CONSTANT.subs(LOG_INV_DELTA, a)) == 0
    assert sp.limit(cal.FULL_BATCH_IMPLIED_CONSTANT, eps, 0) == 8
    # the flag's numbers (delta = 1e-5)
    c = lambda e: cal.FULL_BATCH.evaluate("implied_constant", epsilon=e, delta=1e-5)
    assert round(c(1.0), 2) == 8.34
    assert round(c(5.0), 2) == 9.66
    assert round(c(0.1), 2) == 8.03
    # decreasing towards 8 as epsilon / ln(1/delta) -> 0, always above 8
    assert 8 < c(1e-6) < c(0.1) < c(1.0) < c(5.0)
    # the generic formula agrees with the closed form at a concrete sigma
    values = dict(lipschitz=1.7, n=321, steps=40, epsilon=0.7, delta=1e-6)
    s = cal.FULL_BATCH.evaluate("sigma", **values)
    assert cal.FULL_BATCH.evaluate("implied_constant_of_sigma", sigma=s, **values) == pytest.approx(
        cal.FULL_BATCH.evaluate("implied_constant", epsilon=0.7, delta=1e-6), rel=1e-12)


def test_full_batch_record():
    r = spec.get("wang17.full_batch_calibration")
    assert r is cal.FULL_BATCH
    assert r.privacy.profile is cal.full_batch_profile
    assert sp.simplify(r.privacy.rho - eps**2 / (sp.sqrt(LOG_INV_DELTA + eps) + sp.sqrt(LOG_INV_DELTA)) ** 2) == 0
    assert r.evaluate("rho", epsilon=1.0, delta=1e-5) == zcdp.rho_star(epsilon=1.0, delta=1e-5)
    assert {f.kind for f in r.flags} == {FlagKind.CONSTANT_MADE_CONCRETE}


# --------------------------------------------------------------------------- the split step
def _ridge_gradient(x, v, b, lipschitz, width):
    """grad of G h_w(<v, x> - b), a convex, G-Lipschitz, (G/w)-smooth ridge function (|v| = 1)."""
    t = (v[0] * x[0] + v[1] * x[1] - b) / width
    slope = lipschitz * max(-1.0, min(1.0, t))
    return (slope * v[0], slope * v[1])


def test_difference_sensitivity_is_attained():
    """4G is the supremum for convex, G-Lipschitz, L-smooth losses: approached in 2-D, capped at 2G in 1-D."""
    G_, L_ = 1.5, 3.0
    w = G_ / L_
    x_snap, x_cur = (0.0, 0.0), (0.0, 400.0)  # d = x - x~ along e2, L ||d|| / G = 800
    dist = x_cur[1] - x_snap[1]
    sin_t = 2 * w / dist
    cos_t = math.sqrt(1 - sin_t**2)
    # z: ridge direction (cos t, sin t); z': (-cos t, sin t); offsets put x~ left and x right of each ramp
    for v_sign in (1.0, -1.0):
        v = (v_sign * cos_t, sin_t)
        b = (dist * sin_t) / 2  # <v, x~> - b = -w and <v, x> - b = +w
        assert _ridge_gradient(x_snap, v, b, G_, w) == pytest.approx((-G_ * v[0], -G_ * v[1]))
        assert _ridge_gradient(x_cur, v, b, G_, w) == pytest.approx((G_ * v[0], G_ * v[1]))

    def diff(v):
        b = (dist * sin_t) / 2
        gx, gs = _ridge_gradient(x_cur, v, b, G_, w), _ridge_gradient(x_snap, v, b, G_, w)
        return (gx[0] - gs[0], gx[1] - gs[1])

    a, a_prime = diff((cos_t, sin_t)), diff((-cos_t, sin_t))
    gap = math.hypot(a[0] - a_prime[0], a[1] - a_prime[1])
    assert gap == pytest.approx(4 * G_ * cos_t, rel=1e-12) and gap > 3.9999 * G_
    assert gap <= 4 * G_
    # in one dimension a convex loss has (grad f(x) - grad f(x~)) (x - x~) >= 0: both differences lie in
    # [0, 2G] when x > x~, so their gap is at most 2G (checked on a grid of Huber losses)
    one_d = [_ridge_gradient((5.0, 0.0), (1.0, 0.0), z, G_, w)[0] - _ridge_gradient((0.0, 0.0), (1.0, 0.0), z, G_, w)[0]
             for z in [i / 4 for i in range(-40, 61)]]
    assert min(one_d) >= 0.0 and max(one_d) - min(one_d) == pytest.approx(2 * G_)
    assert cal.SVRG_STEP.evaluate("difference_sensitivity", lipschitz=G_) == 4 * G_
    assert spec.get("wang17.alg_1").evaluate("difference_sensitivity", lipschitz=G_) == 4 * G_


def _mixture(q, s, shift_all, shift_sampled):
    return lambda x: (1 - q) * mpmath.npdf(x, shift_all, s) + q * mpmath.npdf(x, shift_all + shift_sampled, s)


def _renyi(p, q_, alpha):
    with mpmath.workdps(20):
        f = lambda x: p(x) ** alpha * q_(x) ** (1 - alpha)
        pts = [-mpmath.inf, -30, -10, -3, 0, 3, 10, 30, mpmath.inf]
        return mpmath.log(mpmath.quad(f, pts)) / (alpha - 1)


@pytest.mark.parametrize("n_,sig", [(10, 2.0), (4, 5.0)])
def test_split_bound_dominates_exact_step_divergence(n_, sig):
    """One step on a worst-case pair: sampled difference +2G vs -2G (4G apart), snapshot gradients 2G/n apart."""
    G_ = 1.0
    q = 1 / n_
    p_d = _mixture(q, sig, 0.0, 2 * G_)
    p_dp = _mixture(q, sig, -2 * G_ / n_, -2 * G_)
    for alpha in (2, 4, 8):
        exact = max(_renyi(p_d, p_dp, alpha), _renyi(p_dp, p_d, alpha))
        for lam in (0.5, 0.8, 0.95):
            bound = cal.split_step_rdp(alpha, sigma=sig, lipschitz=G_, n=n_, split=lam)
            assert exact <= bound, (alpha, lam, float(exact), bound)
        # subsampling helps: the best split beats releasing the 4G difference without amplification
        best = min(cal.split_step_rdp(alpha, sigma=sig, lipschitz=G_, n=n_, split=lam) for lam in cal.DEFAULT_SPLITS)
        assert best < alpha * (4 * G_) ** 2 / (2 * sig**2)


def test_split_step_rdp_is_the_sum_of_the_two_parts():
    from spec import rdp

    values = dict(sigma=7.0, lipschitz=2.0, n=100, split=0.8)
    got = cal.split_step_rdp(12, **values)
    sub = rdp.without_replacement_gaussian(12, sigma=7.0 * math.sqrt(0.8), sensitivity=8.0, sampling_rate=0.01)
    snap = rdp.gaussian(12, sigma=7.0 * math.sqrt(0.2), sensitivity=0.04)
    assert got == pytest.approx(sub + snap, rel=1e-12)
    assert got >= sub + snap - 1e-300
    # the record's snapshot term is the Gaussian RDP formula at the split noise
    assert cal.SVRG_STEP.evaluate("snapshot_rdp", order=12, **values) == pytest.approx(snap, rel=1e-12)
    assert cal.SVRG_STEP.privacy.model is PrivacyModel.RDP and ALPHA in cal.SVRG_STEP.privacy.rdp.free_symbols


def test_split_epsilon_composes_and_converts():
    from spec import rdp

    orders = (8, 16, 24)
    c = cal.split_epsilon(sigma=20.0, lipschitz=1.0, n=1000, delta=1e-5, steps=10**5, orders=orders)
    by_hand = []
    for a in (8, 16, 24):
        per_step = min(cal.split_step_rdp(a, sigma=20.0, lipschitz=1.0, n=1000, split=lam) for lam in cal.DEFAULT_SPLITS)
        by_hand.append(10**5 * per_step)
    e, order = rdp.to_epsilon((8, 16, 24), by_hand, delta=1e-5)
    assert c.epsilon == pytest.approx(e, rel=1e-12) and c.order == order
    assert c.split in cal.DEFAULT_SPLITS
    # more steps, more epsilon; more noise, less
    assert cal.split_epsilon(sigma=20.0, lipschitz=1.0, n=1000, delta=1e-5, steps=2 * 10**5,
                             orders=orders).epsilon > c.epsilon
    assert cal.split_epsilon(sigma=40.0, lipschitz=1.0, n=1000, delta=1e-5, steps=10**5, orders=orders).epsilon < c.epsilon
    # the default orders start at 64 and reach 512 only when the optimum is near the top
    assert cal.split_epsilon(sigma=20.0, lipschitz=1.0, n=1000, delta=1e-5, steps=10**5).epsilon <= c.epsilon
    # only sigma / G matters
    assert cal.split_epsilon(sigma=60.0, lipschitz=3.0, n=1000, delta=1e-5, steps=10**5, orders=(8, 16, 24)).epsilon \
        == pytest.approx(c.epsilon, rel=1e-9)
    # Mironov's conversion is never tighter
    m = cal.split_epsilon(sigma=20.0, lipschitz=1.0, n=1000, delta=1e-5, steps=10**5, orders=(8, 16, 24),
                          conversion="mironov")
    assert m.epsilon >= c.epsilon


def test_split_sigma_is_the_smallest_certified_sigma():
    got = cal.split_sigma(epsilon=1.0, delta=1e-5, lipschitz=2.0, n=1000, steps=10**5)
    assert got.certified_epsilon <= 1.0
    check = cal.split_epsilon(sigma=got.sigma, lipschitz=2.0, n=1000, delta=1e-5, steps=10**5, orders=got.orders)
    assert check.epsilon == got.certified_epsilon <= 1.0
    below = cal.split_epsilon(sigma=math.nextafter(got.sigma, 0.0), lipschitz=2.0, n=1000, delta=1e-5, steps=10**5,
                              orders=got.orders)
    assert below.epsilon > 1.0  # spec.inversion: the smallest certified double
    assert got.sigma == pytest.approx(2 * 13.12106, rel=2e-4)  # scales with G (test_svrg: 13.12 G at G = 1)
    assert max(got.orders) == 64 and got.steps == 10**5


def test_floor_errors_and_validation():
    floor = cal.accountant_floor(cal.DEFAULT_ORDERS + cal.EXTRA_ORDERS, 1e-9)
    with pytest.raises(ParameterError, match="epsilon"):
        cal.split_sigma(epsilon=floor, delta=1e-9, lipschitz=1.0, n=100, steps=10)
    with pytest.raises(ParameterError, match="epsilon"):
        cal.split_sigma(epsilon=0.5, delta=1e-5, lipschitz=1.0, n=100, steps=10, orders=(2, 3))
    with pytest.raises(PrivacyParameterError, match=r"split \(1.0\)"):
        cal.split_step_rdp(3, sigma=1.0, lipschitz=1.0, n=10, split=1.0)
    with pytest.raises(ParameterError, match=r"splits\[1\] \(0.0\)"):
        cal.split_epsilon(sigma=1.0, lipschitz=1.0, n=10, delta=1e-5, splits=(0.5, 0.0))
    with pytest.raises(TypeError, match="orders"):
        cal.split_epsilon(sigma=1.0, lipschitz=1.0, n=10, delta=1e-5, orders="23")
    with pytest.raises(ParameterError, match="orders"):
        cal.split_epsilon(sigma=1.0, lipschitz=1.0, n=10, delta=1e-5, orders=(1, 2))
    with pytest.raises(ParameterError, match=r"n \(1\)"):
        cal.split_epsilon(sigma=1.0, lipschitz=1.0, n=1, delta=1e-5)
    with pytest.raises(PrivacyParameterError, match="delta"):
        cal.split_epsilon(sigma=1.0, lipschitz=1.0, n=10, delta=1.0)
    with pytest.raises(ParameterError, match="conversion"):
        cal.split_epsilon(sigma=1.0, lipschitz=1.0, n=10, delta=1e-5, conversion="abadi")


# --------------------------------------------------------------------------- the lower bound
def test_lower_bound_instance_realises_the_pair():
    """Huber losses: snapshot gradients agree, a_I(D') = 0 and a_I(D) = 2G 1{I = k} (module docstring)."""
    G_, L_ = 2.0, 4.0
    w = G_ / L_
    x_snap, x_cur = 0.0, 3 * w  # x - x~ >= 2w
    others = [x_cur + w + 0.1 * i for i in range(5)]  # at z >= x + w
    z_k, z_prime = (x_snap + x_cur) / 2, x_cur + 2 * w
    D, D_prime = others + [z_k], others + [z_prime]

    def grad(x, z):
        return _ridge_gradient((x, 0.0), (1.0, 0.0), z, G_, w)[0]

    grad_snap = lambda data: sum(grad(x_snap, z) for z in data) / len(data)
    diff = lambda z: grad(x_cur, z) - grad(x_snap, z)
    assert grad_snap(D) == grad_snap(D_prime) == -G_
    assert [diff(z) for z in D_prime] == [0.0] * 6
    assert [diff(z) for z in D] == [0.0] * 5 + [2 * G_]


def test_step_delta_lower_bound_matches_quadrature():
    """Against the hockey-stick integral of the two densities, split where they cross e^eps."""
    for n_, sig, e in ((10, 1.0, 0.5), (100, 0.7, 1.0), (20, 2.0, 0.2)):
        with mpmath.workdps(30):
            q = mpmath.mpf(1) / n_
            p_d = _mixture(q, sig, 0.0, 2.0)
            p_dp = lambda x: mpmath.npdf(x, 0, sig)
            ee = mpmath.exp(e)
            log_ratio = lambda x: mpmath.log(p_d(x)) - mpmath.log(p_dp(x)) - e
            lo, hi = mpmath.mpf(-50), mpmath.mpf(50)
            for _ in range(200):  # bisection: the likelihood ratio is increasing in x
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if log_ratio(mid) < 0 else (lo, mid)
            x_star = hi
            assert p_d(x_star + 1) > ee * p_dp(x_star + 1) and p_d(x_star - 1) < ee * p_dp(x_star - 1)
            exact = mpmath.quad(lambda x: p_d(x) - ee * p_dp(x), [x_star, x_star + 10 * sig, mpmath.inf])
        got = cal.step_delta_lower_bound(e, sigma=sig, lipschitz=1.0, n=n_)
        assert got == pytest.approx(float(exact), rel=1e-9)
        assert got <= exact * (1 + 1e-12)


def test_single_step_floor_and_lower_bound():
    one = cal.split_sigma(epsilon=1.0, delta=1e-5, lipschitz=1.0, n=10**4, steps=1)
    assert round(one.sigma, 3) == 2.834  # and 2.967 at 2000 steps (tests/spec/wang17/test_svrg.py)
    lb = cal.step_sigma_lower_bound(epsilon=1.0, delta=1e-5, lipschitz=1.0, n=10**4)
    assert round(lb, 3) == 0.572
    # at the returned sigma and below the step is not (1, 1e-5)-DP; just above it the instance proves nothing
    assert cal.step_delta_lower_bound(1.0, sigma=lb, lipschitz=1.0, n=10**4) > 1e-5
    assert cal.step_delta_lower_bound(1.0, sigma=0.5 * lb, lipschitz=1.0, n=10**4) > 1e-5
    assert cal.step_delta_lower_bound(1.0, sigma=lb * 1.001, lipschitz=1.0, n=10**4) <= 1e-5
    # the lower bound is decreasing in sigma and below the certificate, as it must be
    sigmas = [0.2, 0.4, 0.6, 1.0, 2.0]
    deltas = [cal.step_delta_lower_bound(1.0, sigma=s, lipschitz=1.0, n=10**4) for s in sigmas]
    assert deltas == sorted(deltas, reverse=True)
    assert lb < one.sigma
    # no information when delta >= 1/n
    assert cal.step_sigma_lower_bound(epsilon=1.0, delta=1e-3, lipschitz=1.0, n=1000) == 0.0


def test_records_registered():
    assert cal.RECORDS == (cal.FULL_BATCH, cal.SVRG_STEP)
    for r in cal.RECORDS:
        assert spec.get(r.id) is r
    assert cal.SVRG_STEP.privacy.accountant is cal.split_epsilon
    # the per-step accountant can be called with the record's canonical names plus delta
    e = cal.SVRG_STEP.privacy.accountant(sigma=10.0, lipschitz=1.0, n=1000, delta=1e-5, steps=1000,
                                         orders=(4, 8, 16))
    assert 0 < e.epsilon < 1
    gaussian_record = gaussian.CLASSIC  # shared primitive untouched
    assert gaussian_record.id == "gaussian.classic"
    assert delta in cal.FULL_BATCH_SIGMA.free_symbols
