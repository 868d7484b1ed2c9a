"""spec.wang19.definitions: Definitions 2-7, the gradient mapping, the Frank-Wolfe gap, Lemmas 1 and 3.

Oracles: exact extremal values (Hoelder/Cauchy-Schwarz attained at explicit vectors), brute-force linear
minimisation over the vertices of polytopes, sympy (scalar proximal problems, integrals, composition algebra),
seeded numpy instances.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sympy as sp

from spec import composition, exponential, gaussian
from spec.wang19 import definitions as d


def _text(flag):
    return flag.summary + " " + flag.reason


def test_def_2_l1_case_typo():
    (flag,) = [f for f in d.DEF_2.flags if f.kind.name == "ERRATUM"]
    text = _text(flag)
    p = 100
    x = np.ones(p)  # f(theta) = <x, theta>, |x_ij| = O(1)
    # smallest G with |f(a) - f(b)| <= G ||a - b||: sup_u |<x, u>|/||u||, attained at u = x (l2) and u = e_1 (l1)
    l2_constant = abs(x @ x) / np.linalg.norm(x, 2)
    l1_constant = abs(x[0]) / 1.0
    assert l2_constant == pytest.approx(math.sqrt(p)) and l1_constant == 1.0
    rng = np.random.default_rng(2)
    u = rng.normal(size=(10_000, p))
    assert np.max(np.abs(u @ x) / np.linalg.norm(u, 2, axis=1)) <= l2_constant * (1 + 1e-12)
    assert np.max(np.abs(u @ x) / np.linalg.norm(u, 1, axis=1)) <= l1_constant * (1 + 1e-12)
    assert "p = 100: 10 versus 1" in text and f"{l2_constant:.0f}" == "10"
    # the l1 reading is ||grad f||_inf <= G, whose replace-one sensitivity (in l-infinity) is 2G/n
    assert d.DEF_2.evaluate("sensitivity", lipschitz=1.5, n=30) == pytest.approx(0.1, rel=1e-15)
    assert d.DEF_2.evaluate("sensitivity", lipschitz=1.0, n=3) >= 2 / 3


def _gap_brute(grad, x, vertices):
    return max(float(v @ -grad - x @ -grad) for v in vertices)


def test_frank_wolfe_gap_reconstruction():
    (flag,) = d.FRANK_WOLFE_GAP.flags
    assert flag.kind.name == "RECONSTRUCTED"
    rng = np.random.default_rng(11)
    p, r = 4, 1.7
    l1_vertices = [s * r * e for e in np.eye(p) for s in (1, -1)]
    box_vertices = [r * np.array(v) for v in itertools.product((1, -1), repeat=p)]
    simplex_vertices = list(np.eye(p))
    for _ in range(200):
        g = rng.normal(size=p)
        # l1 ball: x inside, closed form r ||g||_inf + <g, x>
        x = rng.normal(size=p)
        x *= r * rng.uniform() / np.abs(x).sum()
        assert _gap_brute(g, x, l1_vertices) == pytest.approx(r * np.abs(g).max() + g @ x, abs=1e-12)
        # box
        xb = rng.uniform(-r, r, p)
        assert _gap_brute(g, xb, box_vertices) == pytest.approx(r * np.abs(g).sum() + g @ xb, abs=1e-12)
        # simplex
        xs = rng.dirichlet(np.ones(p))
        assert _gap_brute(g, xs, simplex_vertices) == pytest.approx(g @ xs - g.min(), abs=1e-12)
        # l2 ball: the maximiser of <v, -g> is -r g/||g||
        x2 = rng.normal(size=p)
        x2 *= r * rng.uniform() / np.linalg.norm(x2)
        v = -r * g / np.linalg.norm(g)
        assert float(v @ -g - x2 @ -g) == pytest.approx(r * np.linalg.norm(g) + g @ x2, abs=1e-12)
        for gap in (r * np.abs(g).max() + g @ x, r * np.abs(g).sum() + g @ xb, g @ xs - g.min()):
            assert gap >= -1e-12  # nonnegative on C (take v = x)
    # zero exactly at stationary points: interior point with grad 0, or a vertex where -g is in the normal cone
    interior = np.array([0.2, -0.1, 0.0, 0.3])
    assert _gap_brute(np.zeros(p), interior, l1_vertices) == 0.0
    assert _gap_brute(np.array([0.0, 1e-3, 0, 0]), interior, l1_vertices) > 0  # any nonzero gradient inside
    x = np.array([r, 0, 0, 0])  # vertex of the l1 ball; g = -(1, 0.5, 0.5, 0.5) points out of C
    g = -np.array([1.0, 0.5, 0.5, 0.5])
    assert _gap_brute(g, x, l1_vertices) == pytest.approx(0.0, abs=1e-15)
    g_bad = -np.array([0.5, 1.0, 0.0, 0.0])  # not stationary: moving towards r e_2 decreases F
    assert _gap_brute(g_bad, x, l1_vertices) > 0
    for word in ("l2 ball", "l1 ball", "box", "simplex"):
        assert word in " ".join(d.FRANK_WOLFE_GAP.notes)


def test_lemma_1_garble():
    (flag,) = [f for f in d.LEMMA_1.flags if f.kind.name == "ERRATUM"]
    assert "ln(1/(delta t'))" in flag.summary
    rec = composition.ADVANCED
    eps_step = composition.ADVANCED_PER_STEP.formula("epsilon").expr
    dp = composition.ADVANCED_PER_STEP.symbol("delta_prime")
    k = composition.ADVANCED_PER_STEP.symbol("steps")
    first = sp.sqrt(2 * rec.symbol("steps") * sp.log(1 / rec.symbol("delta_prime"))) * rec.symbol("epsilon")
    first = first.subs({rec.symbol("steps"): k, rec.symbol("delta_prime"): dp, rec.symbol("epsilon"): eps_step},
                       simultaneous=True)
    e_total = composition.ADVANCED_PER_STEP.symbol("epsilon_total")
    a = sp.Symbol("a", positive=True)
    assert sp.simplify(first.subs(dp, sp.exp(-a)) - e_total / 2) == 0
    # the lemma shares composition's objects (one source of truth)
    assert d.LEMMA_1.formulas is composition.ADVANCED_PER_STEP.formulas
    assert set(composition.ADVANCED_PER_STEP.flags) <= set(d.LEMMA_1.flags)


def test_lemma_3_expected_gap():
    c, s, R = sp.symbols("c s R", positive=True)
    # E g = int_0^oo min(1, R e^{-c s}) ds, split at s0 = ln(R)/c where R e^{-c s0} = 1
    s0 = sp.log(R) / c
    integral = s0 + sp.integrate(R * sp.exp(-c * s), (s, s0, sp.oo))
    assert sp.simplify(integral - (sp.log(R) + 1) / c) == 0
    rec = d.LEMMA_3
    Du, e = rec.symbol("sensitivity"), rec.symbol("epsilon")
    expected = rec.formula("expected_gap").expr
    assert sp.simplify(expected - ((sp.log(rec.symbol("candidates")) + 1) / c).subs(c, e / (2 * Du))) == 0
    # exact expectation of the gap on a finite range is below the bound (textbook coefficient)
    rng = np.random.default_rng(3)
    for _ in range(50):
        scores = rng.uniform(-1, 1, size=int(rng.integers(2, 40)))
        eps = float(rng.uniform(0.1, 5))
        coef = exponential.exponent_textbook(epsilon=eps, sensitivity=1.0)
        probs = np.array([float(x) for x in exponential.output_distribution(scores.tolist(), coefficient=coef)])
        gap = float(probs @ (scores.max() - scores))
        assert gap <= rec.evaluate("expected_gap", epsilon=eps, sensitivity=1.0, candidates=len(scores))


def test_smoothness_minkowski():
    L, r = 1.3, 0.8
    value = d.DEF_3.evaluate("smoothness_minkowski", smoothness=L, diameter=2 * r)
    assert value == pytest.approx(L * r**2, rel=1e-15)
    # F = (L/2)||x||^2: ||grad F(x) - grad F(y)||_{C*} / ||x - y||_C on the l2 ball (equality) and l1 ball (<=)
    rng = np.random.default_rng(5)
    for _ in range(500):
        u = rng.normal(size=6)
        l2_ratio = (r * np.linalg.norm(L * u)) / (np.linalg.norm(u) / r)
        l1_ratio = (r * np.abs(L * u).max()) / (np.abs(u).sum() / r)
        assert l2_ratio == pytest.approx(value, rel=1e-12) and l1_ratio <= value * (1 + 1e-12)
    e1 = np.eye(6)[0]
    assert (r * np.abs(L * e1).max()) / (np.abs(e1).sum() / r) == pytest.approx(value, rel=1e-12)


def test_prox_closed_forms():
    u, v = sp.symbols("u v", real=True)
    gam, lam = sp.symbols("gamma lambda", positive=True)
    # r = lambda u^2 on R: argmin (u - v)^2/(2 gamma) + lambda u^2 = v/(1 + 2 gamma lambda)
    (sol,) = sp.solve(sp.diff((u - v) ** 2 / (2 * gam) + lam * u**2, u), u)
    shrink = d.GRADIENT_MAPPING.formula("shrinkage").expr
    assert sp.simplify(sol - v * shrink.subs({d.GRADIENT_MAPPING.symbol("learning_rate"): gam,
                                              d.GRADIENT_MAPPING.symbol("regularisation"): lam})) == 0
    # r = lambda |u|: soft-threshold at gamma lambda (checked on a grid of v against brute-force minimisation)
    thr = d.GRADIENT_MAPPING.evaluate("soft_threshold", learning_rate=0.5, regularisation=0.3)
    grid = np.linspace(-3, 3, 60001)
    for value in (-2.0, -0.1, 0.0, 0.14, 0.16, 1.7):
        objective = (grid - value) ** 2 / (2 * 0.5) + 0.3 * np.abs(grid)
        soft = math.copysign(max(abs(value) - thr, 0.0), value)
        assert grid[np.argmin(objective)] == pytest.approx(soft, abs=2e-4)


def test_minkowski_norm_closed_forms():
    rng = np.random.default_rng(9)
    r, p = 1.5, 3
    l1_vertices = np.array([s * r * e for e in np.eye(p) for s in (1, -1)])
    box_vertices = r * np.array(list(itertools.product((1, -1), repeat=p)))
    for _ in range(100):
        v = rng.normal(size=p)
        assert np.max(np.abs(l1_vertices @ v)) == pytest.approx(r * np.abs(v).max())
        assert np.max(np.abs(box_vertices @ v)) == pytest.approx(r * np.abs(v).sum())
        # ||v||_C for the l1 ball: v / (||v||_1 / r) lies on the boundary
        assert np.abs(v / (np.abs(v).sum() / r)).sum() == pytest.approx(r)
    assert "l2 ball" in " ".join(d.DEF_7.notes)


def test_aliases_share_objects():
    assert d.DEF_5.formulas is gaussian.CLASSIC.formulas and d.DEF_5.flags is gaussian.CLASSIC.flags
    assert d.DEF_6.formulas is exponential.TEXTBOOK.formulas
    assert d.LEMMA_3.utility is exponential.UTILITY.utility
    assert d.SENSITIVITY is d.DEF_2.formula("sensitivity").expr
