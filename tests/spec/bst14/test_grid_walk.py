"""spec.bst14.grid_walk: Theorem III.4's sampler constants and the fallback bound.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from spec import bst14
from spec.record import FlagKind


# --------------------------------------------------------------------------- Section III
def em_log_ratio_on_grid(coefficient, n, R=0.5, points=401):
    """Largest |log p_D(theta)/p_D'(theta)| of exp(-c L(theta; .)) on a grid of C = [-R, R].

    l(theta; d) = d theta with d in [-1, 1] (1-Lipschitz); D = n copies of +1, D' replaces one by -1.
    """
    with mpmath.workdps(40):
        c = mpmath.mpf(coefficient)
        grid = [-R + 2 * R * mpmath.mpf(i) / (points - 1) for i in range(points)]
        wD = [mpmath.exp(-c * n * x) for x in grid]
        wD1 = [mpmath.exp(-c * (n - 2) * x) for x in grid]
        zD, zD1 = mpmath.fsum(wD), mpmath.fsum(wD1)
        return max(abs(mpmath.log((a / zD) / (b / zD1))) for a, b in zip(wD, wD1))


def test_thm_III_4_budget_split():
    """EM at epsilon/(6 L ||C||) is epsilon/3-DP on C; sampler errors of Dist_inf epsilon/3 on each side add
    2 epsilon/3, and an adversarial choice of them attains the total epsilon."""
    L, R, n, eps = 1.0, 0.5, 4000, 1.5
    c = bst14.THM_III_4.evaluate("coefficient", epsilon=eps, lipschitz=L, diameter=2 * R)
    xi = bst14.THM_III_4.evaluate("sampler_dist_inf", epsilon=eps)
    assert em_log_ratio_on_grid(c, n=n) <= eps / 3
    assert em_log_ratio_on_grid(c, n=n) >= 0.95 * eps / 3
    with mpmath.workdps(40):
        grid = [-R + 2 * R * mpmath.mpf(i) / 400 for i in range(401)]
        pD = [mpmath.exp(-c * n * x) for x in grid]
        pD1 = [mpmath.exp(-c * (n - 2) * x) for x in grid]
        pD = [v / mpmath.fsum(pD) for v in pD]
        pD1 = [v / mpmath.fsum(pD1) for v in pD1]
        top = max(range(401), key=lambda i: pD1[i] / pD[i])

        def distort(law, up):
            f = [mpmath.exp((xi / 2) * (1 if (i == top) == up else -1)) for i in range(401)]
            w = [a * b for a, b in zip(law, f)]
            return [v / mpmath.fsum(w) for v in w]

        qD1, qD = distort(pD1, True), distort(pD, False)
        for law, ref in ((qD1, pD1), (qD, pD)):
            assert max(abs(mpmath.log(a / b)) for a, b in zip(law, ref)) <= xi * (1 + 1e-30)
        worst = max(abs(mpmath.log(a / b)) for a, b in zip(qD1, qD))
        assert worst <= eps
        assert worst >= 0.95 * eps


def test_thm_III_4_extension_and_penalty():
    """C = [-1, 1] inside A = [-2, 2]; l(theta; d) = |theta - d| (1-Lipschitz, convex)."""
    rng = np.random.default_rng(20140814)
    n, L = 7, 1.0
    data = rng.uniform(-1, 1, size=n)
    loss = lambda u: float(np.sum(np.abs(u - data)))  # noqa: E731
    candidates = np.concatenate([[-1.0, 1.0], data])

    def extension(theta):
        # min over u in C of L(u) + n L |theta - u|: piecewise linear, so a breakpoint or clip(theta) wins
        us = np.concatenate([candidates, [np.clip(theta, -1, 1)]])
        return min(loss(u) + n * L * abs(theta - u) for u in us)

    xs = np.linspace(-2, 2, 801)
    ext = np.array([extension(x) for x in xs])
    inside = np.abs(xs) <= 1
    assert np.allclose(ext[inside], [loss(x) for x in xs[inside]], rtol=0, atol=1e-12)
    slopes = np.diff(ext) / np.diff(xs)
    assert np.max(np.abs(slopes)) <= n * L * (1 + 1e-12)
    assert np.min(np.diff(slopes)) >= -1e-9  # convex
    assert bst14.THM_III_4.evaluate("extension_lipschitz", n=n, lipschitz=L) == n * L
    # the penalty vanishes on C, so the normalised weight restricted to C does not depend on alpha
    c = bst14.THM_III_4.evaluate("coefficient", epsilon=1.0, lipschitz=L, diameter=2.0)
    gauge = np.abs(xs)
    weights = []
    for alpha in (0.1, bst14.THM_III_4.evaluate("alpha_penalty", epsilon=1.0, n=n, diameter=2.0), 1e3):
        w = np.exp(-c * ext - alpha * np.maximum(0.0, gauge - 1))
        weights.append(w[inside] / w[inside].sum())
    assert np.allclose(weights[0], weights[1], rtol=1e-13) and np.allclose(weights[0], weights[2], rtol=1e-13)
    assert bst14.THM_III_4.evaluate("alpha_penalty", epsilon=0.5, n=100, diameter=2.0) == 25.0
    assert bst14.THM_III_4.evaluate("retries", n=100) == 100


def test_thm_III_4_fallback_bound():
    """Exact output laws (1 - w) nu + w U of random finite instances against the bound."""
    rng = np.random.default_rng(7)
    eps, n, K = 1.0, 30, 30
    a = eps * n / 6 + eps / 3  # nu' >= e^{-a} / Vol C: the mechanism's floor times the sampler's error
    covered = 0
    for _ in range(300):
        m = int(rng.integers(3, 30))  # points of C (unit volume each)
        size_b = int(rng.integers(1, m + 1))  # the first size_b points form B
        nu1 = rng.uniform(np.exp(-a), 1.0, size=m)
        nu1 /= nu1.sum()
        nu = nu1 * np.exp(rng.uniform(-eps, eps, size=m))
        nu /= nu.sum()
        r_max = float(np.max(nu / nu1))
        U = np.zeros(m)
        U[:size_b] = 1.0 / size_b
        wD, wD1 = rng.uniform(0, 2.0**-K, size=2)
        pD = (1 - wD) * nu + wD * U
        pD1 = (1 - wD1) * nu1 + wD1 * U
        actual = float(np.max(np.log(pD / pD1)))
        # the general inequality (a + b)/(c + d) <= (a + b)/c behind the bound
        general = math.log(r_max + wD * float(np.max(U / nu1))) - math.log(1 - wD1)
        assert actual <= general + 1e-12
        if float(np.min(nu1)) >= np.exp(-a) / m and r_max <= math.exp(eps):
            covered += 1
            bound = bst14.fallback_log_ratio_bound(epsilon=eps, n=n, retries=K, volume_ratio=m / size_b)
            assert actual <= bound + 1e-12
    assert covered >= 50
    # nearly attained: w_D = 2^-K, w_D' = 0, nu/nu' = e^eps at a one-point B where nu' sits at the floor
    with mpmath.workdps(30):
        m, w = 10, mpmath.mpf(2) ** -K
        floor = mpmath.exp(-a) / m
        attained = mpmath.log((1 - w) * mpmath.exp(eps) + w * 1 / floor)
        bound = bst14.fallback_log_ratio_bound(epsilon=eps, n=n, retries=K, volume_ratio=m)
        assert attained <= bound <= attained + 2 * w
    # negligible for small epsilon and many retries, vacuous once epsilon >= 6 ln 2
    # (the exact excess is about 1e-40: the rounded-up float is within one ulp of epsilon)
    assert bst14.fallback_log_ratio_bound(epsilon=1.0, n=200, retries=200, volume_ratio=1e6) <= math.nextafter(1.0, 2)
    assert bst14.fallback_log_ratio_bound(epsilon=5.0, n=200, retries=200, volume_ratio=1.0) > 10.0
    # the floor: the exponential mechanism on C at c = eps/(6 L ||C||) has density >= e^{-eps n/6}/Vol C
    c = bst14.THM_III_4.evaluate("coefficient", epsilon=eps, lipschitz=1.0, diameter=1.0)
    xs = np.linspace(-0.5, 0.5, 1001)
    weights = np.exp(-c * n * xs)  # linear loss, all records +1: L varies by n L ||C|| on C
    density = weights / (weights.mean() * 1.0)  # with respect to Lebesgue measure on C (Vol C = 1)
    assert density.min() >= math.exp(-eps * n / 6) * (1 - 1e-9)


# --------------------------------------------------------------------------- Theorem III.4 sampler
_SAMPLER_POINTS = [
    dict(epsilon=1.0, lipschitz=1.0, diameter=2.0, n=10, dimension=1, linf_diameter=2.0, inner_radius=1.0),
    dict(epsilon=0.5, lipschitz=2.0, diameter=2 * math.sqrt(2), n=4, dimension=2, linf_diameter=2.0,
         inner_radius=1.0),
    dict(epsilon=3.0, lipschitz=1.0, diameter=6.0, n=50, dimension=3, linf_diameter=4.0, inner_radius=1.5),
]


@pytest.mark.parametrize("vals", _SAMPLER_POINTS)
def test_thm_III_4_sampler_constants(vals):
    """The sampler constants, retyped from the derivation and evaluated with mpmath."""
    rec = bst14.THM_III_4
    mp = mpmath.mpf
    with mpmath.workdps(50):
        eps, n_, p_ = mp(vals["epsilon"]), vals["n"], vals["dimension"]
        tau_, r_, diam_ = mp(vals["linf_diameter"]), mp(vals["inner_radius"]), mp(vals["diameter"])
        # budget: one try within 2 xi + 2 eta = eps/6, the accepted sample within twice that = eps/3
        eta = rec.evaluate_exact("sampler_log_eval_error", **vals)
        xi = rec.evaluate_exact("sampler_mixing_dist", **vals)
        assert abs(2 * (2 * xi + 2 * eta) - rec.evaluate_exact("sampler_dist_inf", **vals)) < mp(10) ** -45
        assert abs(rec.evaluate_exact("sampler_cube_dist", **vals) - eps / 6) < mp(10) ** -45
        alpha = eps * n_ / 3 + (1 + 2 * mpmath.log(2)) * (p_ - 1) + 2
        lam = eps * n_ / (6 * diam_) + alpha / r_
        big_n = int(mpmath.ceil(tau_ * lam * mpmath.sqrt(p_)))
        assert rec.evaluate("sampler_grid_size", **vals) == big_n
        assert rec.evaluate("sampler_alpha", **vals) >= float(alpha) * (1 - 1e-15)
        assert rec.evaluate("sampler_log_weight_lipschitz", **vals) >= float(lam) * (1 - 1e-15)
        v = dict(vals, grid_size=big_n)
        h = tau_ / big_n
        assert lam * mpmath.sqrt(p_) * h <= 1  # acceptance >= e^(-1 - 3 eta)
        env = rec.evaluate_exact("sampler_envelope_log", **v)
        assert abs(env - (lam * mpmath.sqrt(p_) * h / 2 + 2 * eta)) < mp(10) ** -40
        delta = lam * mpmath.sqrt(p_) * h + 2 * eta
        osc = lam * mpmath.sqrt(p_) * (tau_ - h) + 2 * eta
        rho = 4 * p_**2 * max(big_n - 1, 1) * mp(big_n) ** p_ * mpmath.exp(delta)
        k_steps = rec.evaluate("sampler_steps", **v)
        assert k_steps == int(mpmath.ceil(rho * (osc + p_ * mpmath.log(big_n) - mpmath.log(1 - mpmath.exp(-xi)))))
        # the defining property: (1 - 1/rho)^K / pi_min <= e^(-K/rho) N^p e^osc <= 1 - e^-xi, not at K - 1
        bound = lambda k: mpmath.exp(-k / rho + osc) * mp(big_n) ** p_  # noqa: E731
        assert bound(k_steps) <= 1 - mpmath.exp(-xi) < bound(k_steps - 1)
        # and then e^-xi <= P^K/pi <= 2 - e^-xi <= e^xi
        assert 2 - mpmath.exp(-xi) <= mpmath.exp(xi)
        q = mpmath.exp(-eps / 6) / 2
        assert rec.evaluate("sampler_try_in_c", **vals) <= float(q)
        assert rec.evaluate("sampler_fallback_weight", retries=n_, **vals) >= float((1 - q) ** n_)
    flag = next(f for f in rec.flags if any(c.endswith("test_thm_III_4_sampler_constants") for c in f.checked_by))
    assert flag.kind == FlagKind.RECONSTRUCTED


@pytest.mark.parametrize("p_", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("a", [0.0, 0.3, 1.0, 5.0, 40.0, 300.0])
def test_thm_III_4_sampler_alpha(a, p_):
    """sampler_alpha = 2a + (1 + 2 ln 2)(p - 1) + 2 makes I_out <= I_in (so Pr_F[C] >= 1/2), with the
    exact integrals of the derivation evaluated by mpmath quadrature (a = c n L R)."""
    with mpmath.workdps(30):
        alpha = 2 * a + (1 + 2 * mpmath.log(2)) * (p_ - 1) + 2
        beta = alpha - a
        i_out = mpmath.quad(lambda u: p_ * (1 + u) ** (p_ - 1) * mpmath.exp(-beta * u), [0, 1, 10, mpmath.inf])
        i_in = mpmath.quad(lambda t: p_ * t ** (p_ - 1) * mpmath.exp(-a * (1 - t)), [0, 0.9, 0.99, 1])
        assert i_out <= i_in
    # the record's alpha is this expression at a = c n L ||C||_2 = epsilon n / 6 (the bound R <= ||C||_2)
    eps, n_ = 0.7, 13
    assert bst14.THM_III_4.evaluate("sampler_alpha", epsilon=eps, n=n_, dimension=p_) == pytest.approx(
        2 * eps * n_ / 6 + (1 + 2 * math.log(2)) * (p_ - 1) + 2, rel=1e-14)
