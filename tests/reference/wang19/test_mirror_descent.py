"""reference.wang19.mirror_descent: the distance-generating functions (moduli, divergences, mirror steps)
and Algorithm 3 against the records and a hand computation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from reference import wang19
from reference.domains import Box, L1Ball, L2Ball, Simplex
from reference.losses import L1Regulariser, L2Regulariser, Sigmoid
from reference.proximal import prox
from reference.tape import NoiseTape, Replay, TapeEntry
from reference.wang19 import mirror_descent as md
from spec import wang19 as spec
from spec.errors import ParameterError


def test_moduli_are_the_records():
    assert md.SquaredL2().modulus(L2Ball(radius=0.5, dim=7)) == spec.DEF_9.evaluate(
        "modulus_squared_l2_on_l2_ball", diameter=1.0)
    assert md.SquaredL2().modulus(L1Ball(radius=2.0, dim=7)) == spec.DEF_9.evaluate(
        "modulus_squared_l2_on_l1_ball", l1_diameter=4.0, dimension=7)
    assert md.PNorm().modulus(L1Ball(radius=2.0, dim=100)) == spec.DEF_9.evaluate(
        "modulus_pnorm_on_l1_ball", l1_diameter=4.0, dimension=100)
    assert md.Entropy().modulus(Simplex(dim=5)) == 1.0
    for w, domain in ((md.SquaredL2(), Box(lower=[-1.0], upper=[1.0])), (md.PNorm(), L2Ball(radius=1.0, dim=3)),
                      (md.Entropy(), Simplex(dim=3, scale=2.0)), (md.SquaredL2(), L2Ball(radius=1, dim=2, center=[1, 0]))):
        with pytest.raises(ParameterError, match="def_9"):
            w.modulus(domain)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_divergences_and_gradients(seed):
    rng = np.random.default_rng(seed)
    p = 5
    u, x = rng.normal(size=p), rng.normal(size=p)
    assert md.SquaredL2().divergence(u, x) == pytest.approx(0.5 * np.sum((u - x) ** 2), rel=1e-12)
    w = md.PNorm()
    q = w.exponent(p)
    value = lambda z: 0.5 * np.sum(np.abs(z) ** q) ** (2 / q)  # noqa: E731
    assert w.value(x) == pytest.approx(value(x), rel=1e-12)
    h = 1e-6
    numeric = np.array([(value(x + h * e) - value(x - h * e)) / (2 * h) for e in np.eye(p)])
    assert np.allclose(w.gradient(x), numeric, rtol=1e-6, atol=1e-8)
    # strong convexity of ||.||_q^2/2 w.r.t. ||.||_q with modulus q - 1 (Ball-Carlen-Lieb)
    lhs = (x - u) @ (w.gradient(x) - w.gradient(u))
    assert lhs >= (q - 1) * np.sum(np.abs(x - u) ** q) ** (2 / q) * (1 - 1e-9)
    a, b = rng.dirichlet(np.ones(p)), rng.dirichlet(np.ones(p))
    assert md.Entropy().divergence(a, b) == pytest.approx(np.sum(a * np.log(a / b)), rel=1e-10)  # KL


def test_squared_l2_step_is_the_prox():
    rng = np.random.default_rng(2)
    ball = L2Ball(radius=1.0, dim=3)
    x, g = ball.project(rng.normal(size=(4, 3))), rng.normal(size=(4, 3))
    reg = L2Regulariser(strength=0.3)
    assert np.allclose(md.SquaredL2().step(x, g, 0.7, ball, reg), prox(x - 0.7 * g, step=0.7, domain=ball,
                                                                         regulariser=reg))


def _pnorm_step_numeric(x, g, eta, radius, lam=0.0):
    """argmin_{||u||_1 <= R} w(u) - <grad w(x) - eta g, u> + eta lam ||u||_1 by SLSQP on u = a - b."""
    w = md.PNorm()
    p = x.size
    theta = w.gradient(x) - eta * g

    def f(z):
        u = z[:p] - z[p:]
        return float(w.value(u)) - theta @ u + eta * lam * np.sum(z)

    cons = [{"type": "ineq", "fun": lambda z: radius - np.sum(z)}]
    z0 = np.full(2 * p, radius / (4 * p))
    res = optimize.minimize(f, z0, method="SLSQP", bounds=[(0, None)] * (2 * p), constraints=cons,
                            options={"ftol": 1e-14, "maxiter": 500})
    return res.x[:p] - res.x[p:], res.fun


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lam", [0.0, 0.2])
def test_pnorm_step_solves_its_problem(seed, lam):
    rng = np.random.default_rng(seed)
    p, radius, eta = 6, 0.8, float(rng.uniform(0.1, 3.0))
    ball = L1Ball(radius=radius, dim=p)
    x = ball.project(0.5 * rng.normal(size=p))
    g = rng.normal(size=p)
    w = md.PNorm()
    reg = None if lam == 0 else L1Regulariser(strength=lam)
    u = w.step(x[None], g[None], eta, ball, reg)[0]
    assert np.abs(u).sum() <= radius * (1 + 1e-12)
    theta = w.gradient(x) - eta * g
    obj = float(w.value(u)) - theta @ u + eta * lam * np.abs(u).sum()
    v, best = _pnorm_step_numeric(x, g, eta, radius, lam)
    assert obj <= best + 1e-9
    assert np.linalg.norm(u - v) < 1e-3  # SLSQP's own accuracy


def test_entropy_step_is_the_multiplicative_update():
    x = np.array([[0.2, 0.3, 0.5]])
    g = np.array([[1.0, -2.0, 0.5]])
    want = x * np.exp(-0.4 * g)
    assert np.allclose(md.Entropy().step(x, g, 0.4, Simplex(dim=3), None), want / want.sum())


def test_hand_computation_entropy_on_the_simplex():
    data = np.array([[0.1, 0.0, 1.0], [0.0, 0.1, -1.0], [0.1, 0.1, 1.0]])
    loss = Sigmoid(feature_norm=0.2)
    zs = [[[0.3, -0.2]], [[-1.0, 0.4]]]
    tape = NoiseTape([TapeEntry(md.LABEL_INDEX, "integers", {"high": 2}, np.array([0]))]
                     + [TapeEntry(md.LABEL_NOISE, "normal", {}, np.array(z)) for z in zs])
    res = wang19.dp_pmd(data, loss=loss, domain=Simplex(dim=2), mirror="entropy", epsilon=1.0, delta=1e-5, steps=2,
                        noise=Replay(tape), transcript=True)
    steps, sigma, gamma, alpha, _ = md.constants(loss=loss, domain=Simplex(dim=2), mirror="entropy", n=3,
                                                 epsilon=1.0, delta=1e-5, steps=2)
    assert gamma == spec.THM_5.evaluate("learning_rate", smoothness=loss.constants.smoothness,
                                        diameter=math.sqrt(2)) and alpha == 1.0
    x = np.array([0.5, 0.5])
    for z in zs:
        g = loss.total_gradient(x, data, normalisation="average") + sigma * np.array(z[0])
        x = x * np.exp(-gamma * g)
        x = x / x.sum()
    assert np.allclose(res.transcript["x"][-1, 0], x, rtol=1e-12)
    assert res.mirror == "entropy" and res.index.tolist() == [1] and np.allclose(res.x[0], [0.5, 0.5])


def test_constants_and_unsupported_pairs():
    loss = Sigmoid(feature_norm=1.0)
    ball = L1Ball(radius=1.0, dim=20)
    steps, sigma, gamma, alpha, width = md.constants(loss=loss, domain=ball, mirror="pnorm", n=400, epsilon=1.0,
                                                     delta=1e-5)
    assert steps == spec.THM_5.evaluate("steps", n=400, epsilon=1.0, delta=1e-5, diameter=2.0, gaussian_width=width)
    assert gamma == spec.THM_5.evaluate("learning_rate", smoothness=loss.constants.smoothness, diameter=2.0)
    assert alpha == md.PNorm().modulus(ball)
    data = np.column_stack([np.eye(20)[:5], np.ones(5)])
    with pytest.raises(ParameterError, match="PNorm"):
        wang19.dp_pmd(data, loss=loss, domain=ball, mirror="pnorm", regulariser=L2Regulariser(strength=1.0),
                      epsilon=1.0, delta=1e-5)
    with pytest.raises(ParameterError, match="mirror"):
        wang19.dp_pmd(data, loss=loss, domain=ball, mirror="kl", epsilon=1.0, delta=1e-5)
    with pytest.raises(ParameterError, match="positive entries"):
        wang19.dp_pmd(np.array([[0.5, 0.5, 1.0], [0.5, -0.5, -1.0]]), loss=loss, domain=Simplex(dim=2), mirror="entropy",
                      x_1=[1.0, 0.0], epsilon=1.0, delta=1e-5)
