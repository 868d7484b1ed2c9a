"""reference.wang19.frank_wolfe_l1: Algorithm 4's exponential mechanism (range, scores, coefficient,
Gumbel-max on the tape), its per-step budgets, and the Frank-Wolfe step.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from reference import wang19
from reference.domains import L1Ball, L2Ball, Simplex
from reference.losses import Linear
from reference.tape import NoiseTape, Replay, TapeEntry
from reference.wang19 import frank_wolfe_l1 as fw1
from spec import wang19 as spec
from spec.errors import AssumptionError, ParameterError

LIN = Linear(data_norm=1.0)
DATA = np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6], [-0.1, 0.2, 0.7], [0.6, 0.0, 0.0]])


def test_vertices_and_scores():
    ball = L1Ball(radius=2.0, dim=3)
    g = np.array([0.5, -1.0, 0.25])
    v = fw1.vertices(ball)
    assert v.shape == (6, 3) and np.allclose(fw1.scores(ball, g), v @ (-g))
    simplex = Simplex(dim=3, scale=1.5)
    assert np.allclose(fw1.scores(simplex, g), fw1.vertices(simplex) @ (-g))
    with pytest.raises(ParameterError, match="L1Ball or a Simplex"):
        fw1.vertices(L2Ball(radius=1.0, dim=2))


def test_constants_are_the_records():
    ball = L1Ball(radius=1.0, dim=3)
    t, eps0, c, gamma, a = fw1.constants(loss=LIN, domain=ball, n=1000, epsilon=0.5, delta=1e-5)
    assert a == 6 and t == spec.THM_6.evaluate("steps", n=1000, epsilon=0.5, delta=1e-5, candidates=6,
                                               failure_probability=0.1)
    assert eps0 == spec.THM_6.evaluate("epsilon_step", epsilon=0.5, delta=1e-5, steps=t)
    assert c == spec.ALG_4.evaluate("coefficient_at", epsilon_step=eps0, lipschitz=1.0, n=1000, l1_diameter=2.0)
    # the default coefficient equals Theorem 6's 'coefficient' (up to the two roundings down)
    assert c == pytest.approx(spec.THM_6.evaluate("coefficient", epsilon=0.5, delta=1e-5, l1_diameter=2.0,
                                                  lipschitz=1.0, n=1000, steps=t), rel=1e-14)
    assert gamma == spec.THM_6.evaluate("learning_rate", steps=t, diameter=2.0)
    _, eps0_z, c_z, _, _ = fw1.constants(loss=LIN, domain=ball, n=1000, epsilon=0.5, delta=1e-5, composition="zcdp")
    assert eps0_z == spec.ALG_4.evaluate("epsilon_step_zcdp", epsilon=0.5, delta=1e-5, steps=t) and c_z > c
    # Lemma 1 needs epsilon < 1; the zCDP route does not
    with pytest.raises(AssumptionError, match="epsilon_lt_1"):
        fw1.constants(loss=LIN, domain=ball, n=1000, epsilon=2.0, delta=1e-5)
    fw1.constants(loss=LIN, domain=ball, n=1000, epsilon=2.0, delta=1e-5, composition="zcdp")


def test_selection_is_gumbel_max_at_the_coefficient_and_the_step_is_convex():
    ball = L1Ball(radius=1.0, dim=3)
    steps = 2
    _, _, c, gamma, _ = fw1.constants(loss=LIN, domain=ball, n=4, epsilon=0.5, delta=1e-5, steps=steps)
    gumbels = [np.array([[0.1, -0.3, 2.0, 0.0, 0.4, -1.0]]), np.array([[1.5, 0.2, -0.1, 0.3, 0.0, 0.9]])]
    tape = NoiseTape([TapeEntry(fw1.LABEL_INDEX, "integers", {"high": steps}, np.array([1]))]
                     + [TapeEntry(fw1.LABEL_SELECT, "gumbel", {}, g) for g in gumbels])
    res = wang19.dp_fw_l1(DATA, loss=LIN, domain=ball, epsilon=0.5, delta=1e-5, steps=steps, noise=Replay(tape),
                          transcript=True)
    u = fw1.vertices(ball) @ DATA.mean(axis=0)  # score <v, -grad F> with grad F = -mean(d)
    x = np.zeros(3)
    for t, g in enumerate(gumbels):
        k = int(np.argmax(c * (u - u.max()) + g[0]))
        assert res.transcript["selected"][t, 0] == k
        x = (1 - gamma) * x + gamma * fw1.vertices(ball)[k]
    assert np.allclose(res.transcript["x"][-1, 0], x) and np.allclose(res.x[0], res.transcript["x"][0, 0])


def test_selection_frequencies_match_the_exponential_mechanism():
    """One step on 20000 runs: counts against the softmax probabilities. Each of the 6 binomial two-sided
    tests is at level 1e-6 (false-alarm rate <= 6e-6, seeded)."""
    ball = L1Ball(radius=1.0, dim=3)
    runs = 20000
    res = wang19.dp_fw_l1(DATA, loss=LIN, domain=ball, epsilon=0.9, delta=1e-5, steps=1, runs=runs, rng=11,
                          transcript=True)
    u = fw1.vertices(ball) @ DATA.mean(axis=0)
    z = res.coefficient * (u - u.max())
    p = np.exp(z) / np.exp(z).sum()
    counts = np.bincount(res.transcript["selected"][0], minlength=6)
    for k in range(6):
        assert sps.binomtest(int(counts[k]), runs, p[k]).pvalue > 1e-6


def test_simplex_and_bad_input():
    res = wang19.dp_fw_l1(np.abs(DATA), loss=LIN, domain=Simplex(dim=3), epsilon=0.9, delta=1e-5, steps=3, runs=5,
                          rng=0)
    assert res.candidates == 3 and np.allclose(res.x.sum(axis=1), 1.0)
    with pytest.raises(ParameterError, match="L1Ball or a Simplex"):
        wang19.dp_fw_l1(DATA, loss=LIN, domain=L2Ball(radius=1.0, dim=3), epsilon=0.9, delta=1e-5)
    with pytest.raises(ParameterError, match="composition"):
        wang19.dp_fw_l1(DATA, loss=LIN, domain=L1Ball(radius=1.0, dim=3), epsilon=0.9, delta=1e-5, composition="rdp")
    with pytest.raises(AssumptionError, match="smoothness"):
        wang19.dp_fw_l1(DATA, loss=LIN, domain=L1Ball(radius=1.0, dim=3), epsilon=0.9, delta=1e-5,
                        learning_rate="tuned", initial_gap=1.0)
