"""Tests of reference.wang17.gradient_descent (Algorithm 4): constants from the records, the update,
the two outputs (the random index uniform on {0, ..., T-1}), tapes and the learning-rate check."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from reference.losses import Huber, LeastSquares, Sigmoid
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry
from reference.wang17 import gradient_descent as gd
from spec.errors import AssumptionError, ParameterError
from spec.wang17 import gradient_descent as spec

LOSS = Huber(feature_norm=1.0, label_bound=2.0, width=0.5)


def _data(n=30, p=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return np.column_stack([x, np.clip(x @ np.linspace(0.5, -0.5, p) + 0.1 * rng.normal(size=n), -2, 2)])


def test_defaults_come_from_the_records():
    data = _data()
    L, G = LOSS.constants.smoothness, LOSS.constants.lipschitz
    last = gd.dp_gd(data, loss=LOSS, epsilon=1.0, delta=1e-5, initial_gap=2.0, polyak_lojasiewicz=0.1, rng=0)
    T = spec.THM_6_2.evaluate("steps", initial_gap=2.0, polyak_lojasiewicz=0.1, smoothness=L, n=30, epsilon=1.0,
                              dimension=3, lipschitz=G, delta=1e-5)
    assert last.steps == T and last.learning_rate == pytest.approx(1 / L, rel=1e-15) and last.learning_rate <= 1 / L
    assert last.sigma == spec.THM_6_1.evaluate("sigma", lipschitz=G, n=30, steps=T, epsilon=1.0, delta=1e-5)
    rnd = gd.dp_gd(data, loss=LOSS, epsilon=1.0, delta=1e-5, initial_gap=2.0, output="random", rng=0)
    assert rnd.steps == spec.THM_6_3.evaluate("steps", initial_gap=2.0, smoothness=L, n=30, epsilon=1.0, dimension=3,
                                              lipschitz=G, delta=1e-5)
    assert rnd.spec_ids == gd.SPEC_IDS


def test_update_and_last_iterate():
    data = _data()
    rec = Recorder(3)
    res = gd.dp_gd(data, loss=LOSS, epsilon=1.0, delta=1e-5, steps=7, learning_rate=0.3, runs=2, noise=rec,
                   transcript=True)
    x = np.zeros((2, 3))
    for t, e in enumerate(rec.tape.entries):
        assert e.label == gd.LABEL_NOISE
        g = LOSS.mean_gradient(x, data) + res.sigma * e.values
        np.testing.assert_allclose(res.transcript["g"][t], g, rtol=1e-13, atol=1e-15)
        x = x - 0.3 * g
        np.testing.assert_allclose(res.transcript["x"][t + 1], x, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(res.theta, res.transcript["x"][-1])


def test_random_output_index_is_uniform_on_0_to_T_minus_1():
    """Section 6.2 (erratum): m uniform on {0, ..., T-1}; chi-square test at level 1e-4 (seeded)."""
    data = _data()
    T, runs = 5, 20000
    rec = Recorder(7)
    res = gd.dp_gd(data, loss=LOSS, epsilon=1.0, delta=1e-5, steps=T, output="random", runs=runs, noise=rec,
                   transcript=True)
    last = rec.tape.entries[-1]
    assert last.label == gd.LABEL_OUTPUT and last.params == {"high": T}
    np.testing.assert_array_equal(res.index, last.values)
    np.testing.assert_array_equal(res.theta, res.transcript["x"][res.index, np.arange(runs)])
    counts = np.bincount(res.index, minlength=T + 1)
    assert counts[T] == 0  # x_T is never the output
    assert stats.chisquare(counts[:T]).pvalue > 1e-4


def test_tape_replay_and_zero_noise_is_gradient_descent():
    data = _data()
    kw = dict(loss=LOSS, epsilon=1.0, delta=1e-5, steps=6)
    rec = Recorder(1)
    a = gd.dp_gd(data, runs=2, noise=rec, **kw)
    np.testing.assert_array_equal(gd.dp_gd(data, runs=2, noise=Replay(rec.tape), **kw).theta, a.theta)
    zero = NoiseTape([TapeEntry(e.label, e.kind, {}, np.zeros_like(e.values)) for e in rec.tape.entries])
    b = gd.dp_gd(data, runs=2, noise=Replay(zero), **kw)
    x = np.zeros(3)
    for _ in range(6):
        x = x - b.learning_rate * LOSS.mean_gradient(x, data)
    np.testing.assert_allclose(b.theta, np.stack([x, x]), rtol=1e-13)


def test_bad_inputs_and_non_convex_losses():
    data = _data()
    with pytest.raises(AssumptionError, match="learning_rate_le_1_over_L"):
        gd.dp_gd(data, loss=LOSS, epsilon=1.0, delta=1e-5, steps=3, learning_rate=3.0)
    with pytest.raises(ParameterError, match="initial_gap"):
        gd.dp_gd(data, loss=LOSS, epsilon=1.0, delta=1e-5)
    with pytest.raises(ParameterError, match="polyak_lojasiewicz"):
        gd.dp_gd(data, loss=LOSS, epsilon=1.0, delta=1e-5, initial_gap=1.0)
    with pytest.raises(ParameterError, match="output"):
        gd.dp_gd(data, loss=LOSS, epsilon=1.0, delta=1e-5, steps=2, output="best")
    with pytest.raises(AssumptionError, match="domain_radius"):
        gd.dp_gd(data, loss=LeastSquares(feature_norm=1.0, label_bound=2.0, domain_radius=1.0), epsilon=1.0,
                 delta=1e-5, steps=2)
    labels = np.where(data[:, -1] > 0, 1.0, -1.0)
    res = gd.dp_gd(np.column_stack([data[:, :-1], labels]), loss=Sigmoid(feature_norm=1.0), epsilon=1.0, delta=1e-5,
                   steps=3, output="random", rng=0)  # a non-convex loss is accepted
    assert res.theta.shape == (1, 3)
