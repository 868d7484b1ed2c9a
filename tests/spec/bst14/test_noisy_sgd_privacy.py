"""spec.bst14.noisy_sgd_privacy: Theorem II.1, its proof chain, the rigorous closed form and the RDP certificate.

Oracles: formulas retyped by hand and evaluated with mpmath; quadrature of privacy-loss tails and of
hockey-stick divergences of subsampled Gaussians; the accounting modules only to run the rigorous chain
through the functions it is built from.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import pytest

from spec import bst14, composition, gaussian
from spec.errors import AssumptionError, ParameterError


def ncdf(x):
    return mpmath.ncdf(x)


# --------------------------------------------------------------------------- Algorithm 1
def printed_sigma_by_hand(L, n, eps, delta):
    with mpmath.workdps(40):
        return mpmath.sqrt(32 * mpmath.mpf(L) ** 2 * n**2 * mpmath.log(n / mpmath.mpf(delta))
                           * mpmath.log(1 / mpmath.mpf(delta))) / eps


# --------------------------------------------------------------------------- Theorem II.1: the erratum
# Reference values, computed independently beforehand (mpmath, 40 digits): (A) n^2 Pr[|W| > eps_1]/(delta/2)
# and (C) eps_total/eps with delta' = delta/2 and delta' = delta.
NOTES_TABLE = [
    (10, 0.1, 1e-5, 2.94, 1.465, 1.423), (10, 0.1, 1e-9, 2.30, 1.443, 1.419),
    (10, 1.0, 1e-5, 2.94, 1.544, 1.502), (10, 1.0, 1e-9, 2.31, 1.487, 1.463),
    (100, 0.1, 1e-5, 27.3, 1.465, 1.423), (100, 0.1, 1e-9, 22.0, 1.443, 1.419),
    (100, 1.0, 1e-5, 27.4, 1.543, 1.501), (100, 1.0, 1e-9, 22.0, 1.486, 1.463),
    (1000, 0.1, 1e-5, 256, 1.465, 1.423), (1000, 0.1, 1e-9, 211, 1.443, 1.419),
    (1000, 1.0, 1e-5, 257, 1.543, 1.501), (1000, 1.0, 1e-9, 211, 1.486, 1.463),
]


def union_ratio_by_quadrature(n, eps, delta):
    """n^2 Pr[|W| > eps_1] / (delta/2) with W ~ N(s^2/2, s^2) integrated numerically."""
    with mpmath.workdps(30):
        eps, delta = mpmath.mpf(eps), mpmath.mpf(delta)
        a, b = mpmath.log(n / delta), mpmath.log(1 / delta)
        s = 2 * n / mpmath.sqrt(32 * n**2 * a * b / eps**2)
        mu = s**2 / 2
        e1 = eps / (2 * mpmath.sqrt(b))
        f = lambda w: mpmath.npdf(w, mu, s)  # noqa: E731
        upper = mpmath.quad(f, [e1, e1 + 5 * s, e1 + 20 * s, mpmath.inf])
        lower = mpmath.quad(f, [-mpmath.inf, -e1 - 20 * s, -e1 - 5 * s, -e1])
        return n**2 * (upper + lower) / (delta / 2)


def form_a_by_hand(eps_step, steps, delta_prime):
    with mpmath.workdps(30):
        e = mpmath.mpf(eps_step)
        return mpmath.sqrt(2 * steps * mpmath.log(1 / mpmath.mpf(delta_prime))) * e + steps * e * mpmath.expm1(e)


@pytest.mark.parametrize("row", NOTES_TABLE, ids=lambda r: f"n{r[0]}-eps{r[1]}-delta{r[2]}")
def test_thm_II_1_chain_overshoot(row):
    n, eps, delta, ratio_a, ratio_c_half, ratio_c_full = row
    # (A) the union bound: the module's closed form against quadrature, and the reference value
    ratio = bst14.union_bound_overshoot(n=n, epsilon=eps, delta=delta)
    assert ratio == pytest.approx(float(union_ratio_by_quadrature(n, eps, delta)), rel=1e-8)
    assert ratio == pytest.approx(ratio_a, rel=6e-3)
    assert ratio > 2  # the proof needs <= 1
    # (C) strong composition of eps_2 = eps/(n sqrt(ln(1/delta))) over n^2 steps
    eps2 = eps / (n * math.sqrt(math.log(1 / delta)))
    for dprime, expected in ((delta / 2, ratio_c_half), (delta, ratio_c_full)):
        got = bst14.composition_overshoot(n=n, epsilon=eps, delta=delta, delta_prime=dprime)
        assert got == pytest.approx(float(form_a_by_hand(eps2, n * n, dprime) / eps), rel=1e-12)
        assert got == pytest.approx(expected, abs=6e-4)
        # the first term alone is already sqrt(2 ln(1/delta')/ln(1/delta)) eps >= sqrt(2) eps
        first = math.sqrt(2 * n * n * math.log(1 / dprime)) * eps2
        assert first >= math.sqrt(2) * eps * (1 - 1e-12)
    assert bst14.composition_overshoot(n=n, epsilon=eps, delta=delta) == bst14.composition_overshoot(
        n=n, epsilon=eps, delta=delta, delta_prime=delta / 2)


def test_thm_II_1_union_overshoot_grows_linearly_in_n():
    r = [bst14.union_bound_overshoot(n=n, epsilon=1.0, delta=1e-5) for n in (10, 100, 1000, 10_000)]
    for a, b in zip(r, r[1:]):
        assert 8 < b / a < 10.5  # n^2 times a tail at level ln(n/delta): roughly linear in n


# --------------------------------------------------------------------------- Theorem II.1: the certificate
_BASE = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64)


ORDER_LADDER = (_BASE, _BASE + (80, 96, 128), _BASE + (80, 96, 128, 160, 192, 256),
                _BASE + (80, 96, 128, 160, 192, 256, 320, 384, 448, 512))


GRID_N = (2, 5, 10, 50, 100, 1000)


GRID_EPS = (0.05, 0.1, 0.5, 1.0)


GRID_DELTA = (1e-3, 1e-5, 1e-9)


def test_certified_epsilon_grid():
    """The printed sigma is certified at <= 0.6 epsilon on the whole grid.

    Each point uses the cheapest rung of a ladder of order sets that certifies <= 0.6 epsilon; every
    rung is a subset of spec.rdp.DEFAULT_INTEGER_ORDERS, and any subset of orders gives a valid
    certificate, so the default certificate is at most the value asserted here.
    """
    from spec import rdp

    assert set(ORDER_LADDER[-1]) <= set(rdp.DEFAULT_INTEGER_ORDERS)
    worst = 0.0
    for n, eps, delta in itertools.product(GRID_N, GRID_EPS, GRID_DELTA):
        bst14.THM_II_1.check(n=n, epsilon=eps, delta=delta)
        for orders in ORDER_LADDER:
            certified = bst14.certified_epsilon(n=n, epsilon=eps, delta=delta, orders=orders)
            if certified <= 0.6 * eps:
                break
        assert certified <= 0.6 * eps, (n, eps, delta, certified)
        worst = max(worst, certified / eps)
    assert worst > 0.5  # the grid does reach the interesting region (flag: worst 0.571)


def test_certified_epsilon_defaults_and_sigma_argument():
    default = bst14.certified_epsilon(n=10, epsilon=1.0, delta=1e-5)
    assert 0.20 < default < 0.21  # 0.208 in an earlier independent computation (CKS20 conversion)
    sigma = bst14.noise_gd_sigma(lipschitz=1.0, n=10, epsilon=1.0, delta=1e-5)
    assert bst14.certified_epsilon(n=10, delta=1e-5, sigma=sigma) == default
    # the accountant depends on sigma/L only
    scaled = bst14.certified_epsilon(n=10, epsilon=1.0, delta=1e-5, lipschitz=3.0)
    assert scaled == pytest.approx(default, rel=1e-12)
    # less noise, more epsilon
    assert bst14.certified_epsilon(n=10, delta=1e-5, sigma=sigma / 4) > default
    # the record's accountant is called with the record's canonical values
    assert bst14.THM_II_1.privacy.accountant(lipschitz=1.0, n=10, epsilon=1.0, delta=1e-5) == default


# --------------------------------------------------------------------------- Theorem II.1: rigorous options
def rigorous_chain_by_hand(L, n, eps, delta):
    """(eps_2, delta_2, eps_1, delta_1, sigma) of the rigorous chain, retyped from the docstring."""
    with mpmath.workdps(40):
        eps, delta = mpmath.mpf(eps), mpmath.mpf(delta)
        T = n * n - 1
        e2 = eps / (2 * mpmath.sqrt(2 * T * mpmath.log(2 / delta)))
        d2 = delta / (2 * T)
        e1 = mpmath.log(1 + n * mpmath.expm1(e2))
        d1 = n * d2
        sigma = 2 * L * n * mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / d1)) / e1
        return e2, d2, e1, d1, sigma


RIGOROUS_GRID = [
    (n, eps, delta)
    for n in (2, 3, 10, 100, 10_000)
    for delta in (0.5, 1e-3, 1e-9, 1e-15)
    for eps in (0.01, 0.5, 1.0, 2 * math.sqrt(math.log(1 / delta)) * (1 - 1e-9))
]


def test_rigorous_chain_closes():
    """sigma_rigorous is a complete proof on the theorem's whole range: eps_1 < 1 (classical Gaussian),
    second Form A term <= eps/2, and the chain composed by spec.gaussian/spec.composition gives
    (eps, delta)."""
    # the constants of the docstring's proof
    assert 2 / math.sqrt(6) * math.exp(1 / math.sqrt(6)) < 1.23 and math.log(2.23) < 0.81
    assert 3.01**2 - 16 * 4 * math.log(2) < 0 and 2 * math.exp(1 / math.sqrt(6)) < 3.01
    for n, eps, delta in RIGOROUS_GRID:
        values = dict(n=n, epsilon=eps, delta=delta)
        bst14.THM_II_1.check(**values)
        e2, d2, e1, d1, sigma = rigorous_chain_by_hand(1.0, n, eps, delta)
        assert e1 < 0.81
        T = n * n - 1
        second = T * e2 * mpmath.expm1(e2)
        assert second <= eps / 2
        # the record's formulas are the hand formulas
        assert abs(bst14.THM_II_1.evaluate_exact("sigma_rigorous", lipschitz=1.0, **values) - sigma) <= 1e-30 * sigma
        assert abs(bst14.THM_II_1.evaluate_exact("rigorous_epsilon_gaussian", **values) - e1) <= 1e-30 * e1
        s_rig = bst14.noise_gd_sigma(lipschitz=1.0, calibration="rigorous", **values)
        assert mpmath.mpf(s_rig) >= sigma
        # run the chain through the accounting functions
        eps_1 = bst14.THM_II_1.evaluate("rigorous_epsilon_gaussian", **values)
        delta_1 = bst14.THM_II_1.evaluate("rigorous_delta_gaussian", **values)
        sens = 2.0 * n
        assert gaussian.exact_delta(eps_1, sigma=s_rig, sensitivity=sens) <= delta_1
        e_step, d_step = composition.amplify_bbg18(epsilon=eps_1, delta=delta_1, sampling_rate=1.0 / n)
        total_eps, total_delta = composition.advanced(epsilon=e_step, delta=d_step, steps=T, delta_prime=delta / 2)
        assert total_eps <= eps * (1 + 1e-12) and total_delta <= delta * (1 + 1e-12)
        assert total_eps >= eps / 2  # the first term is exactly eps/2: the check is not vacuous


def test_analytic_chain_is_exact_per_step_and_below_the_closed_form():
    for n, eps, delta in [(10, 1.0, 1e-5), (100, 0.1, 1e-9), (2, 0.5, 1e-3)]:
        values = dict(n=n, epsilon=eps, delta=delta)
        s_an = bst14.sigma_analytic_chain(lipschitz=1.0, **values)
        eps_1 = bst14.THM_II_1.evaluate("rigorous_epsilon_gaussian", **values)
        delta_1 = bst14.THM_II_1.evaluate("rigorous_delta_gaussian", **values)
        assert gaussian.exact_delta(eps_1, sigma=s_an, sensitivity=2.0 * n) <= delta_1
        assert gaussian.exact_delta(eps_1, sigma=s_an * (1 - 1e-6), sensitivity=2.0 * n) > delta_1
        assert s_an < bst14.noise_gd_sigma(lipschitz=1.0, calibration="rigorous", **values)
        assert bst14.noise_gd_sigma(lipschitz=1.0, calibration="analytic-chain", **values) == s_an


def analytic_sigma_by_bisection(eps, delta, sens):
    """Smallest sigma with Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) <= delta, mu = sens/sigma."""
    with mpmath.workdps(40):
        eps, delta = mpmath.mpf(eps), mpmath.mpf(delta)

        def profile(sig):
            mu = sens / sig
            return ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * ncdf(-mu / 2 - eps / mu)

        lo, hi = mpmath.mpf(sens) / 100, mpmath.mpf(sens) * 10**6
        assert profile(hi) <= delta < profile(lo)
        for _ in range(200):
            mid = mpmath.sqrt(lo * hi)
            lo, hi = (lo, mid) if profile(mid) <= delta else (mid, hi)
        return hi


# Analytic-chain ratios computed independently beforehand, with T = n^2 instead of n^2 - 1.
NOTES_RATIOS = {
    (100, 0.1, 1e-5): 0.974, (100, 0.1, 1e-9): 1.112, (100, 1.0, 1e-5): 1.149, (100, 1.0, 1e-9): 1.227,
    (1000, 0.1, 1e-5): 1.029, (1000, 0.1, 1e-9): 1.137, (1000, 1.0, 1e-5): 1.188, (1000, 1.0, 1e-9): 1.246,
    (10, 0.1, 1e-5): 0.901, (10, 1.0, 1e-9): 1.201,
}


def test_calibration_table():
    rows = bst14.calibration_table(ns=(10, 100, 1000), epsilons=(0.1, 1.0), deltas=(1e-5, 1e-9))
    assert len(rows) == 12
    for row in rows:
        assert 1.45 < row.rigorous_ratio < 1.58
        assert 0.89 < row.analytic_chain_ratio < 1.25
        key = (row.n, row.epsilon, row.delta)
        if key in NOTES_RATIOS:
            tol = 0.01 if row.n == 10 else 0.002  # T = n^2 - 1 vs n^2 matters at n = 10
            assert row.analytic_chain_ratio == pytest.approx(NOTES_RATIOS[key], abs=tol)
    # two rows recomputed from scratch
    for row in (rows[0], rows[-1]):
        _, _, e1, d1, s_rig = rigorous_chain_by_hand(1.0, row.n, row.epsilon, row.delta)
        printed = printed_sigma_by_hand(1.0, row.n, row.epsilon, row.delta)
        assert row.rigorous_ratio == pytest.approx(float(s_rig / printed), rel=1e-12)
        # bisection from the rounded-down per-step budget, as the module does
        e1f = bst14.THM_II_1.evaluate("rigorous_epsilon_gaussian", n=row.n, epsilon=row.epsilon, delta=row.delta)
        d1f = bst14.THM_II_1.evaluate("rigorous_delta_gaussian", n=row.n, epsilon=row.epsilon, delta=row.delta)
        oracle = analytic_sigma_by_bisection(e1f, d1f, 2 * row.n)
        assert row.analytic_chain == pytest.approx(float(oracle), rel=1e-9)


def test_sigma_accountant_is_the_smallest_certified_sigma():
    n, eps, delta = 10, 1.0, 1e-5
    sigma = bst14.sigma_accountant(n=n, epsilon=eps, delta=delta, lipschitz=2.0)
    orders = bst14.ACCOUNTANT_ORDERS
    assert bst14.certified_epsilon(n=n, delta=delta, sigma=sigma, lipschitz=2.0, orders=orders) <= eps
    assert bst14.certified_epsilon(n=n, delta=delta, sigma=sigma * (1 - 2e-4), lipschitz=2.0, orders=orders) > eps
    assert sigma < bst14.noise_gd_sigma(lipschitz=2.0, n=n, epsilon=eps, delta=delta)
    assert bst14.noise_gd_sigma(lipschitz=2.0, n=n, epsilon=eps, delta=delta, calibration="accountant") == sigma
    # below what any sigma can be certified at with orders up to 512: a clear error, not an endless search
    with pytest.raises(ParameterError, match="orders up to 512"):
        bst14.sigma_accountant(n=n, epsilon=0.02, delta=1e-9)
    with pytest.raises(ParameterError, match="orders up to 8"):
        bst14.sigma_accountant(n=n, epsilon=1.0, delta=1e-9, orders=(2, 4, 8))


# --------------------------------------------------------------------------- Lemmas II.2, II.3
def test_lemma_II_2_caveat():
    rec = bst14.LEMMA_II_2
    assert rec.formula("epsilon").expr is composition.BBKN14.formula("epsilon").expr
    # pure DP: valid (dominates the tight BBG18 value) for eps' <= 1 ...
    for eps in (1e-3, 0.1, 0.5, 1.0):
        for gamma in (1e-4, 0.01, 0.3, 1.0):
            tight = mpmath.log(1 + gamma * mpmath.expm1(eps))
            assert rec.evaluate("epsilon", epsilon=eps, sampling_rate=gamma) >= tight
    # ... and the condition matters: it fails beyond eps' = 1.2564 for small gamma
    assert 2 * 1e-4 * 1.3 < mpmath.log(1 + 1e-4 * mpmath.expm1(1.3))
    with pytest.raises(AssumptionError):
        rec.check(epsilon=1.3, sampling_rate=1e-4)
    # The Gaussian use: P = (1 - g) N(0, s^2) + g N(D, s^2) against Q = N(0, s^2), a replace-one pair
    # of the one-record subsample. Its exact delta at 2 g eps_1 is at most g * delta_G(eps_1) (BBG18),
    # hence at most the Gaussian's delta_G(eps_1), which is what the informal proof concludes.
    g, sig, sens, eps1 = 0.1, 2.0, 1.0, 0.5
    with mpmath.workdps(30):
        mu = mpmath.mpf(sens) / sig
        delta_g = ncdf(mu / 2 - eps1 / mu) - mpmath.exp(eps1) * ncdf(-mu / 2 - eps1 / mu)
        p = lambda x: (1 - g) * mpmath.npdf(x, 0, sig) + g * mpmath.npdf(x, sens, sig)  # noqa: E731
        q = lambda x: mpmath.npdf(x, 0, sig)  # noqa: E731
        e = 2 * g * eps1
        for a, b in ((p, q), (q, p)):
            hockey = mpmath.quad(lambda x: max(0, a(x) - mpmath.exp(e) * b(x)), [-40, -5, 0, 0.5, 1, 5, 40])
            assert hockey <= g * delta_g <= delta_g
            assert hockey > 0
        bbg_eps, bbg_delta = composition.amplify_bbg18(epsilon=eps1, delta=float(delta_g), sampling_rate=g)
        assert bbg_eps <= e and bbg_delta <= g * delta_g * (1 + 1e-12)
