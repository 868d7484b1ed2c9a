"""Tests of reference.wang17.svrg (Algorithms 1 and 2): the constants come from the records, every
line does what the box says (checked on the transcript), tapes replay, runs are independent, and
without noise the iterates converge."""

from __future__ import annotations

import numpy as np
import pytest

from reference.losses import Huber, L1Regulariser, L2Regulariser, LeastSquares
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry
from reference.wang17 import svrg, svrg_plus
from spec.errors import AssumptionError, DataBoundError, ParameterError
from spec.wang17 import svrg as spec_svrg
from spec.wang17 import svrg_plus as spec_plus

LOSS = Huber(feature_norm=1.0, label_bound=2.0, width=1.0)


def _data(n=30, p=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = x @ np.linspace(0.3, -0.3, p) + 0.05 * rng.normal(size=n)
    return np.column_stack([x, y])


def _zero_noise(tape: NoiseTape, label: str) -> NoiseTape:
    return NoiseTape([TapeEntry(e.label, e.kind, dict(e.params), np.zeros_like(e.values) if e.label == label
                                else e.values) for e in tape.entries])


def _objective(theta, data, reg):
    return LOSS.mean(theta, data) + (0.0 if reg is None else reg.value(theta))


def _huber_minimiser(data, strength):
    """All residuals in the quadratic region (checked): the minimiser of mean Huber + strength/2 ||.||^2."""
    x, y = data[:, :-1], data[:, -1]
    n, p = x.shape
    theta = np.linalg.solve(x.T @ x / (n * LOSS.width) + strength * np.eye(p), x.T @ y / (n * LOSS.width))
    assert np.all(np.abs(x @ theta - y) < LOSS.width)
    return theta


def test_defaults_and_sigma_come_from_the_records():
    data = _data()
    reg = L2Regulariser(strength=0.2)
    res = svrg.dp_svrg(data, loss=LOSS, regulariser=reg, epsilon=1.0, delta=1e-5, runs=2, rng=1)
    L, G, mu = LOSS.constants.smoothness, LOSS.constants.lipschitz, 0.2
    eta = spec_svrg.THM_4_2.evaluate("learning_rate", smoothness=L)
    assert res.learning_rate == eta == pytest.approx(1 / (48 * L))
    assert res.epoch_length == spec_svrg.THM_4_2.evaluate("epoch_length", learning_rate=eta, smoothness=L,
                                                           total_strong_convexity=mu)
    assert res.epochs == spec_svrg.THM_4_2.evaluate("epochs", n=30, epsilon=1.0, delta=1e-5, dimension=3,
                                                     lipschitz=G, total_strong_convexity=mu)
    cal = spec_svrg.calibrate(n=30, epochs=res.epochs, epoch_length=res.epoch_length, epsilon=1.0, delta=1e-5,
                              lipschitz=G)
    assert res.sigma == cal.sigma and res.implied_constant == cal.implied_constant
    assert res.noisy_steps == res.epochs * res.epoch_length
    assert res.gradient_evaluations == res.epochs * (30 + 2 * res.epoch_length)
    assert 0 < res.contraction < 0.5  # inequality (4) holds at the defaults
    assert res.spec_ids == svrg.SPEC_IDS_1 and res.seed == 1


def test_paper_calibration_with_an_explicit_constant():
    data = _data()
    kw = dict(loss=LOSS, epsilon=1.0, delta=1e-5, epochs=2, epoch_length=5, learning_rate=0.01)
    res = svrg.dp_svrg(data, calibration="paper", noise_constant=200.0, rng=0, **kw)
    want = spec_svrg.THM_4_1.evaluate("sigma_paper", n=30, epochs=2, epoch_length=5, epsilon=1.0, delta=1e-5,
                                      lipschitz=1.0, noise_constant=200.0)
    assert res.sigma == want and res.implied_constant == pytest.approx(200.0, rel=1e-12)
    with pytest.raises(ParameterError, match="noise_constant"):
        svrg.dp_svrg(data, calibration="paper", rng=0, **kw)
    with pytest.raises(ParameterError, match="only used with calibration 'paper'"):
        svrg.dp_svrg(data, noise_constant=3.0, rng=0, **kw)
    with pytest.raises(ParameterError, match="calibration"):
        svrg.dp_svrg(data, calibration="printed", rng=0, **kw)


def test_bad_inputs():
    data = _data()
    kw = dict(epsilon=1.0, delta=1e-5, epochs=1, epoch_length=3, learning_rate=0.01)
    with pytest.raises(AssumptionError, match="total strong convexity"):
        svrg.dp_svrg(data, loss=LOSS, epsilon=1.0, delta=1e-5)  # mu = 0 and no T, m, eta
    with pytest.raises(AssumptionError, match="domain_radius"):  # constants that need a ball: not on R^p
        svrg.dp_svrg(data, loss=LeastSquares(feature_norm=1.0, label_bound=2.0, domain_radius=1.0), **kw)
    with pytest.raises(DataBoundError):
        svrg.dp_svrg(data * 3, loss=LOSS, **kw)
    with pytest.raises(TypeError, match="regulariser"):
        svrg.dp_svrg(data, loss=LOSS, regulariser=lambda x: 0.0, **kw)
    with pytest.raises(ParameterError, match="x0"):
        svrg.dp_svrg(data, loss=LOSS, x0=[0.0, 0.0], **kw)
    with pytest.raises(ParameterError, match="epoch_length"):
        svrg.dp_svrg(data, loss=LOSS, **{**kw, "epoch_length": 0})
    # Theorem 4.2's defaults are evaluated with its assumptions: a given eta in (1/(24L), 1/(12L)]
    # satisfies the extracted range but no m satisfies inequality (4) there
    with pytest.raises(AssumptionError, match="learning_rate_lt_1_over_24L"):
        svrg.dp_svrg(data, loss=LOSS, regulariser=L2Regulariser(strength=0.2), epsilon=1.0, delta=1e-5,
                     learning_rate=0.05)


def _check_transcript(res, data, reg, plus=False):
    """Recompute every v and x from the box, the recorded indices and noise."""
    x_rows, y_rows = data[:, :-1], data[:, -1]
    eta = res.learning_rate
    k = 0
    snap = res.x0
    x = snap.copy()
    for s in range(1, res.epochs + 1):
        m_s = (2**s) * res.epoch_length if plus else res.epoch_length
        v_snap = LOSS.total_gradient(snap, data, normalisation="average")
        if not plus:
            x = snap.copy()
        total = 0
        for _ in range(m_s):
            v = res.transcript["v"][k]
            x_new = x - eta * v
            if reg is not None:
                x_new = reg.prox(x_new, eta)
            np.testing.assert_allclose(res.transcript["x"][k], x_new, rtol=1e-13, atol=1e-15)
            x = x_new
            total = total + x
            k += 1
        snap = total / m_s
        np.testing.assert_allclose(res.snapshots[s - 1], snap, rtol=1e-12, atol=1e-15)
        _ = (v_snap, x_rows, y_rows)
    assert k == res.noisy_steps
    np.testing.assert_allclose(res.theta, snap, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("plus", [False, True])
def test_lines_7_8_10_on_the_transcript(plus):
    data = _data()
    reg = L1Regulariser(strength=0.05)
    rec = Recorder(4)
    fn = svrg_plus.dp_svrg_plus if plus else svrg.dp_svrg
    res = fn(data, loss=LOSS, regulariser=reg, epsilon=1.0, delta=1e-5, epochs=2, epoch_length=4,
             learning_rate=0.05, runs=3, noise=rec, transcript=True)
    _check_transcript(res, data, reg, plus)
    # line 7: v = grad f(x_{t-1}, z_i) - grad f(x~, z_i) + grad F(x~) + sigma * (recorded standard normal)
    labels = (svrg_plus.LABEL_INDEX_2, svrg_plus.LABEL_NOISE_2) if plus else (svrg.LABEL_INDEX_1, svrg.LABEL_NOISE_1)
    idx = [e.values for e in rec.tape.entries if e.label == labels[0]]
    z = [e.values for e in rec.tape.entries if e.label == labels[1]]
    assert len(idx) == len(z) == res.noisy_steps
    prev = res.x0.copy()
    k = 0
    snap = res.x0
    for s in range(1, res.epochs + 1):
        m_s = (2**s) * 4 if plus else 4
        v_snap = LOSS.total_gradient(snap, data, normalisation="average")
        if not plus:
            prev = snap.copy()
        for _ in range(m_s):
            rows = data[idx[k]]
            want = LOSS.gradient(prev, rows) - LOSS.gradient(snap, rows) + v_snap + res.sigma * z[k]
            np.testing.assert_allclose(res.transcript["v"][k], want, rtol=1e-12, atol=1e-12)
            prev = res.transcript["x"][k]
            k += 1
        snap = res.snapshots[s - 1]
    # DP-SVRG++ carries the iterate: epoch 2 starts from x^1_{m_1}, not from x~_1
    if plus:
        assert not np.allclose(res.transcript["x"][7], res.snapshots[0])


@pytest.mark.parametrize("plus", [False, True])
def test_tape_replay_and_run_independence(plus):
    data = _data()
    fn = svrg_plus.dp_svrg_plus if plus else svrg.dp_svrg
    kw = dict(loss=LOSS, epsilon=1.0, delta=1e-5, epochs=2, epoch_length=3, learning_rate=0.05)
    rec = Recorder(11)
    a = fn(data, runs=3, noise=rec, **kw)
    rep = Replay(rec.tape)
    b = fn(data, runs=3, noise=rep, **kw)
    rep.assert_consumed()
    np.testing.assert_array_equal(a.theta, b.theta)
    assert b.seed is None
    # run 1 of the batch is the run a 1-run execution makes on its slice of the tape
    sliced = NoiseTape([TapeEntry(e.label, e.kind, dict(e.params), e.values[1:2]) for e in rec.tape.entries])
    one = fn(data, runs=1, noise=Replay(sliced), **kw)
    np.testing.assert_array_equal(one.theta[0], a.theta[1])
    # and a seed reproduces
    np.testing.assert_array_equal(fn(data, runs=3, rng=a.seed if a.seed is not None else 11, **kw).theta, a.theta)


def test_without_noise_dp_svrg_converges_linearly():
    """Zero noise on the tape: Prox-SVRG with the record's eta and m reaches the exact minimiser."""
    data = _data(n=40)
    strength = 0.5
    reg = L2Regulariser(strength=strength)
    theta_star = _huber_minimiser(data, strength)
    kw = dict(loss=LOSS, regulariser=reg, epsilon=1.0, delta=1e-5, epochs=8, runs=2)
    rec = Recorder(2)
    svrg.dp_svrg(data, noise=rec, **kw)
    res = svrg.dp_svrg(data, noise=Replay(_zero_noise(rec.tape, svrg.LABEL_NOISE_1)), **kw)
    gaps = [_objective(s, data, reg) - _objective(theta_star, data, reg) for s in res.snapshots]
    gap0 = _objective(np.zeros(3), data, reg) - _objective(theta_star, data, reg)
    # inequality (4)'s contraction below 1/2 per epoch, in expectation; over 8 epochs far below 2^-8
    assert np.all(np.asarray(gaps[-1]) <= gap0 * 2.0**-8)
    assert np.all(np.asarray(gaps[-1]) >= -1e-12)
