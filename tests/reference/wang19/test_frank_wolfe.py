"""reference.wang19.frank_wolfe: Algorithm 2 against a hand computation, the records, its tape.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from reference import wang19
from reference.domains import L1Ball, L2Ball, Polytope, Rp
from reference.losses import Linear, Sigmoid
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry
from reference.wang19 import frank_wolfe as fw2
from spec import wang19 as spec
from spec.errors import AssumptionError, ParameterError

DATA = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0], [-0.6, 0.8]])  # points for the linear loss
LIN = Linear(data_norm=1.0)


def test_hand_computation_on_the_l2_ball():
    eps, delta, steps = 1.0, 1e-3, 3
    ball = L2Ball(radius=2.0, dim=2)
    zs = [[[0.4, -1.3]], [[2.0, 0.1]], [[-0.7, 0.9]]]
    tape = NoiseTape([TapeEntry(fw2.LABEL_INDEX, "integers", {"high": steps}, np.array([2]))]
                     + [TapeEntry(fw2.LABEL_NOISE, "normal", {}, np.array(z)) for z in zs])
    src = Replay(tape)
    res = wang19.dp_fw_l2(DATA, loss=LIN, domain=ball, epsilon=eps, delta=delta, steps=steps, noise=src,
                          transcript=True)
    src.assert_consumed()
    a = math.log(1 / delta)
    sigma = math.sqrt(2 * 1.0 * steps / (16 * (math.sqrt(a + eps) - math.sqrt(a)) ** 2))
    width = 2.0 * math.sqrt(math.pi / 2)  # r E||b||, p = 2: E||b|| = sqrt(pi/2)
    gamma = ((16 + width**2) * a) ** 0.25 / (4 * math.sqrt(4 * eps))  # Theorem 4, ||C||_2 = 4
    assert res.sigma == pytest.approx(sigma, rel=1e-14)
    assert res.gaussian_width == pytest.approx(width, rel=1e-12)
    assert res.learning_rate == pytest.approx(gamma, rel=1e-12)
    grad = -DATA.mean(axis=0)  # the linear loss: grad F = -mean(d), constant
    x = np.zeros(2)
    for z in zs:
        g = grad + sigma * np.array(z[0])
        v = -2.0 * g / np.linalg.norm(g)  # argmax_{||v|| <= 2} <v, -g>
        x = x + gamma * (v - x)
    assert np.allclose(res.transcript["x"][-1, 0], x, rtol=1e-12)
    assert res.index.tolist() == [3] and np.allclose(res.x[0], res.transcript["x"][1, 0])


def test_constants_are_the_records():
    sig = Sigmoid(feature_norm=1.0)
    ball = L1Ball(radius=1.0, dim=50)
    steps, sigma, gamma, width = fw2.constants(loss=sig, domain=ball, n=1000, epsilon=0.5, delta=1e-5)
    geometry = {"diameter": 2.0, "gaussian_width": width}
    assert width == spec.DEF_8.evaluate("width_l1_ball", l1_diameter=2.0, dimension=50)
    assert steps == spec.THM_4.evaluate("steps", n=1000, epsilon=0.5, delta=1e-5, **geometry)
    assert sigma == spec.EQ_3.evaluate("sigma", lipschitz=0.25, n=1000, epsilon=0.5, delta=1e-5, steps=steps)
    assert gamma == spec.THM_4.evaluate("learning_rate", n=1000, epsilon=0.5, delta=1e-5, **geometry)
    t2, _, g2, _ = fw2.constants(loss=sig, domain=ball, n=1000, epsilon=0.5, delta=1e-5, steps="tuned",
                                 learning_rate="tuned", initial_gap=0.5)
    assert t2 == spec.THM_4.evaluate("steps_tuned", n=1000, epsilon=0.5, delta=1e-5, lipschitz=0.25,
                                     smoothness=sig.constants.smoothness, initial_gap=0.5, **geometry)
    assert g2 == spec.THM_4.evaluate("learning_rate_tuned", initial_gap=0.5, smoothness=sig.constants.smoothness,
                                     steps=t2, diameter=2.0)
    # no width formula: a public T and the tuned step still work
    poly = Polytope(vertices=np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]))
    t3, _, _, w3 = fw2.constants(loss=sig, domain=poly, n=10, epsilon=1.0, delta=1e-5, steps=5,
                                 learning_rate="tuned", initial_gap=1.0)
    assert t3 == 5 and w3 is None


def test_iterates_stay_in_the_domain_and_R_is_uniform():
    ball = L1Ball(radius=0.5, dim=3)
    data = np.random.default_rng(0).uniform(-0.5, 0.5, size=(20, 3))
    res = wang19.dp_fw_l2(data, loss=LIN, domain=ball, epsilon=1.0, delta=1e-5, steps=8, runs=400, rng=1,
                          transcript=True)
    assert np.all(ball.contains(res.transcript["x"].reshape(-1, 3)))
    counts = np.bincount(res.index, minlength=9)[1:]
    # 400 uniform draws on 8 values: each count is Binomial(400, 1/8); [25, 75] has probability > 1 - 1e-5 each
    assert counts.min() >= 25 and counts.max() <= 75
    rec = Recorder(2)
    batch = wang19.dp_fw_l2(data, loss=LIN, domain=ball, epsilon=1.0, delta=1e-5, steps=3, runs=2, noise=rec)
    one = NoiseTape([TapeEntry(e.label, e.kind, e.params, e.values[1:2]) for e in rec.tape.entries])
    single = wang19.dp_fw_l2(data, loss=LIN, domain=ball, epsilon=1.0, delta=1e-5, steps=3, noise=Replay(one))
    assert np.array_equal(single.x[0], batch.x[1])


def test_bad_input():
    with pytest.raises(ParameterError, match="bounded"):
        wang19.dp_fw_l2(DATA, loss=LIN, domain=Rp(dim=2), epsilon=1.0, delta=1e-5, steps=3)
    with pytest.raises(AssumptionError, match="smoothness"):
        wang19.dp_fw_l2(DATA, loss=LIN, domain=L2Ball(radius=1.0, dim=2), epsilon=1.0, delta=1e-5,
                        learning_rate="tuned", initial_gap=1.0)
    with pytest.raises(AssumptionError, match="initial_gap"):
        fw2.constants(loss=Sigmoid(feature_norm=1.0), domain=L2Ball(radius=1.0, dim=1), n=3, epsilon=1.0,
                      delta=1e-5, learning_rate="tuned")
    with pytest.raises(ParameterError, match="learning_rate"):
        wang19.dp_fw_l2(DATA, loss=LIN, domain=L2Ball(radius=1.0, dim=2), epsilon=1.0, delta=1e-5,
                        learning_rate="fast")
