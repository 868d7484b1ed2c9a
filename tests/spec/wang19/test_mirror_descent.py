"""spec.wang19.mirror_descent: Definition 9's moduli, Algorithm 3's erratum and Theorem 5's explicit bound.

Oracles: Cauchy-Schwarz and Hoelder extremal vectors, seeded random pairs for strong convexity and Pinsker's
inequality, sympy (one-dimensional mirror steps, minimisers), and a seeded numpy simulation of DP-PMD on the l2
ball.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from spec.wang19 import gaussian_width as gw
from spec.wang19 import mirror_descent as md
from spec.wang19.symbols import D, GC, G, L, T, alpha_w, delta, eps, gamma, h0, n, sigma

A = sp.Symbol("a", positive=True)


def _text(record, word):
    (flag,) = [f for f in record.flags if word in f.summary]
    return flag.summary + " " + flag.reason


def _pnorm_grad(x, q):
    norm = np.linalg.norm(x, ord=q, axis=-1, keepdims=True)
    return norm ** (2 - q) * np.sign(x) * np.abs(x) ** (q - 1)


def test_moduli():
    rec = md.DEF_9
    text = _text(rec, "modulus 1")
    rng = np.random.default_rng(99)
    # squared l2 on the l1 ball of radius r: modulus r^2 min ||d||_2^2/||d||_1^2 = r^2/p, attained at d = 1
    for p in (1, 2, 7, 100):
        d = rng.normal(size=(5000, p))
        ratios = np.sum(d**2, axis=1) / np.sum(np.abs(d), axis=1) ** 2
        assert ratios.min() >= 1 / p * (1 - 1e-12)
        assert np.sum(np.ones(p) ** 2) / p**2 == pytest.approx(1 / p)
        assert rec.evaluate("modulus_squared_l2_on_l1_ball", l1_diameter=2.0, dimension=p) == pytest.approx(1 / p)
    assert rec.evaluate("modulus_squared_l2_on_l2_ball", diameter=3.0) == pytest.approx(2.25)
    # the p-norm: (q - 1)-strong convexity w.r.t. ||.||_q on seeded random pairs, then Hoelder to ||.||_1
    for p in (3, 10, 100):
        q = rec.evaluate("pnorm_exponent", dimension=p)
        assert q == pytest.approx(1 + 1 / math.log(p)) and 1 < q <= 2
        x, z = rng.normal(size=(4000, p)), rng.normal(size=(4000, p))
        lhs = np.sum((x - z) * (_pnorm_grad(x, q) - _pnorm_grad(z, q)), axis=1)
        assert np.all(lhs >= (q - 1) * np.linalg.norm(x - z, ord=q, axis=1) ** 2 * (1 - 1e-9))
        dq = np.linalg.norm(x - z, ord=q, axis=1)
        assert np.all(dq >= p ** (1 / q - 1) * np.abs(x - z).sum(axis=1) * (1 - 1e-12))
    assert rec.evaluate("pnorm_exponent", dimension=2) == 2
    # the lower bound r^2/(e^2 ln p) for p = 3 .. 10^6
    for p in (3, 4, 10, 100, 10**4, 10**6):
        modulus = rec.evaluate("modulus_pnorm_on_l1_ball", l1_diameter=2.0, dimension=p)
        assert modulus >= 1 / (math.e**2 * math.log(p))
    m100 = rec.evaluate("modulus_pnorm_on_l1_ball", l1_diameter=2.0, dimension=100)
    assert f"{m100:.4f}" == "0.0420" and f"{1 / (math.e**2 * math.log(100)):.4f}" == "0.0294"
    assert "0.0420" in text and "0.0294" in text and "0.01 at r = 1, p = 100" in text
    # entropy on the simplex: <x - z, log x - log z> >= ||x - z||_1^2 (Pinsker, symmetrised)
    for p in (2, 5, 50):
        x, z = rng.dirichlet(np.ones(p), 4000), rng.dirichlet(np.ones(p), 4000)
        lhs = np.sum((x - z) * (np.log(x) - np.log(z)), axis=1)
        assert np.all(lhs >= np.abs(x - z).sum(axis=1) ** 2 * (1 - 1e-9))
    assert rec.evaluate("modulus_entropy_on_simplex") == 1


def test_generalised_projection_erratum():
    u, x, g = sp.symbols("u x g", real=True)
    gam = sp.Symbol("gamma", positive=True)
    w = u**2 / 2
    V = w - w.subs(u, x) - sp.diff(w, u).subs(u, x) * (u - x)
    assert sp.simplify(V - (u - x) ** 2 / 2) == 0
    (mirror,) = sp.solve(sp.diff(g * u + V / gam, u), u)
    (prox,) = sp.solve(sp.diff(g * u + (x - u) ** 2 / (2 * gam), u), u)  # (2) with r = 0, C = R
    assert sp.simplify(mirror - prox) == 0 and sp.simplify(mirror - (x - gam * g)) == 0
    (printed,) = sp.solve(sp.diff(g * u + V / 2, u), u)
    assert sp.simplify(printed - (x - 2 * g)) == 0 and gam not in printed.free_symbols
    text = _text(md.ALG_3, "printed with V(u, x)/2")
    assert "||x - u||^2/4" in text


def test_explicit_bound_algebra():
    r = D / 2
    at_paper = md.BOUND_SQUARED_AT.subs({gamma: md.LEARNING_RATE, alpha_w: 1}, simultaneous=True)
    expected = r**2 * sp.Rational(16, 15) * (2 * L * D**2 * h0 / T + sigma**2 * (GC**2 + r**2))
    assert sp.simplify(at_paper - expected) == 0
    K = 2 * G**2 * (sp.sqrt(A) + sp.sqrt(A + eps)) ** 2 / (n**2 * eps**2)
    t_star = md.STEPS_TUNED.subs(delta, sp.exp(-A))
    target = sp.sqrt(2 * L * D**2 * h0 / (K * (GC**2 + r**2)))
    assert sp.simplify(sp.expand(t_star**2) - sp.expand(target**2)) == 0
    closed_sq = 2 * sp.Rational(16, 15) * r**2 * sp.sqrt(2 * L * D**2 * h0 * K * (GC**2 + r**2))
    assert sp.simplify(sp.expand(md.BOUND.subs(delta, sp.exp(-A)) ** 4) - sp.expand(closed_sq**2)) == 0
    # the descent coefficient needs gamma < 2 alpha / L_C
    with pytest.raises(Exception, match="step_below_2_alpha_over_L_C"):
        md.THM_5.evaluate("bound_at", modulus=1.0, learning_rate=3.0, smoothness=1.0, diameter=2.0, initial_gap=1.0,
                          steps=10, sigma=0.1, gaussian_width=1.0)


def test_explicit_bound_in_simulation():
    """DP-PMD on the l2 ball of radius rad, w = ||x||^2/2 (modulus rad^2 w.r.t. ||.||_C, i.e. normalised when
    rad = 1), F = sum (1 - cos x_i): the step is the projection of x - gamma g. The bound is nearly tight here
    (l2 ball: ||P||_2 = r ||P||_C, E||eps||_{C*}^2 ~ sigma^2 (G_C^2 + r^2), Hessian ~ I near 0), so the test asserts
    measured + 5 standard errors < bound directly, with 4000 seeded runs."""
    rng = np.random.default_rng(555)
    dim, runs = 10, 4000
    ratios = []
    for rad, steps, sig in ((1.0, 50, 0.1), (1.0, 100, 0.5), (2.0, 60, 0.3)):
        diam = 2 * rad
        gam = md.THM_5.evaluate("learning_rate", smoothness=1.0, diameter=diam)
        modulus = md.DEF_9.evaluate("modulus_squared_l2_on_l2_ball", diameter=diam)
        x = np.zeros((runs, dim))
        x[:, 0] = 0.9 * rad
        h = 1 - math.cos(0.9 * rad)
        total = np.zeros(runs)
        for _ in range(steps):
            y = x - gam * (np.sin(x) + sig * rng.standard_normal((runs, dim)))
            norms = np.linalg.norm(y, axis=1, keepdims=True)
            x_next = y / np.maximum(1.0, norms / rad)
            total += np.sum(((x - x_next) / gam) ** 2, axis=1)
            x = x_next
        measured = total.mean() / steps
        se = total.std() / math.sqrt(runs) / steps
        width = gw.DEF_8.evaluate("width_l2_ball", dimension=dim, diameter=diam)
        bound = md.THM_5.evaluate("bound_at", modulus=modulus, learning_rate=gam, smoothness=1.0, diameter=diam,
                                  initial_gap=h, steps=steps, sigma=sig, gaussian_width=width) ** 2
        assert measured + 5 * se < bound, (measured, se, bound)
        ratios.append(measured / bound)
    text = _text(md.THM_5, "made explicit")
    assert f"{min(ratios):.2f}-{max(ratios):.2f}" in text, ratios
