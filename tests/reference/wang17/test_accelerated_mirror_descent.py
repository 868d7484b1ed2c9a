"""Tests of reference.wang17.accelerated_mirror_descent (Algorithm 3, corrected): the constants come
from the records, one noisy gradient drives both steps, the run is post-processing of the released
gradients, tapes replay, and without noise the method converges at the accelerated rate."""

from __future__ import annotations

import numpy as np
import pytest

from reference.domains import L1Ball, L2Ball
from reference.losses import Huber, LeastSquares
from reference.solver import minimise
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry
from reference.wang17 import accelerated_mirror_descent as accmd
from reference.wang17 import mirror_maps as mm
from spec.errors import AssumptionError, ParameterError
from spec.wang17 import accelerated_mirror_descent as spec

LOSS = LeastSquares(feature_norm=1.0, label_bound=1.0, domain_radius=1.0)


def _data(n=25, p=4, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.clip(x @ np.linspace(0.8, -0.8, p) + 0.1 * rng.normal(size=n), -1, 1)
    return np.column_stack([x, y])


DOMAINS = [(L2Ball(radius=1.0, dim=4), "squared_l2"), (L1Ball(radius=1.0, dim=4), "squared_l2"),
           (L1Ball(radius=1.0, dim=4), "p_norm")]


@pytest.mark.parametrize("domain, w", DOMAINS)
def test_constants_come_from_the_records(domain, w):
    data = _data()
    res = accmd.dp_accmd(data, loss=LOSS, domain=domain, epsilon=1.0, delta=1e-5, runs=2, rng=0, mirror_map=w)
    L, G = LOSS.constants.smoothness, LOSS.constants.lipschitz
    width = domain.gaussian_width()[0]
    T = spec.THM_5_4.evaluate("steps", smoothness=L, diameter=2.0, initial_divergence=res.mirror_map.max_divergence,
                              n=25, epsilon=1.0, lipschitz=G, delta=1e-5, gaussian_width=width)
    assert res.steps == T
    assert res.sigma == spec.THM_5_3.evaluate("sigma", lipschitz=G, n=25, steps=T, epsilon=1.0, delta=1e-5)
    assert res.y_step_smoothness == pytest.approx(L * 4.0)
    for k in range(T):
        assert res.alphas[k] == pytest.approx((k + 2) / (4 * L * 4.0))
        assert res.couplings[k] == pytest.approx(2 / (k + 2))
    printed = accmd.dp_accmd(data, loss=LOSS, domain=domain, epsilon=1.0, delta=1e-5, steps=3, rng=0,
                             step_rule="printed", mirror_map=w)
    np.testing.assert_allclose(printed.alphas, [(k + 2) / (4 * L) for k in range(3)])
    assert res.spec_ids == accmd.SPEC_IDS


@pytest.mark.parametrize("domain, w", DOMAINS)
def test_one_noisy_gradient_drives_both_steps(domain, w):
    data = _data()
    rec = Recorder(5)
    res = accmd.dp_accmd(data, loss=LOSS, domain=domain, epsilon=1.0, delta=1e-5, steps=6, runs=3, noise=rec,
                         mirror_map=w, transcript=True)
    tr = res.transcript
    z_draws = [e.values for e in rec.tape.entries]
    assert [e.label for e in rec.tape.entries] == [accmd.LABEL_NOISE] * 6
    y = z = np.zeros((3, 4))
    for k in range(6):
        x = res.couplings[k] * z + (1 - res.couplings[k]) * y
        np.testing.assert_allclose(tr["x"][k], x, rtol=1e-14, atol=1e-15)
        g = LOSS.mean_gradient(x, data) + res.sigma * z_draws[k]
        np.testing.assert_allclose(tr["g"][k], g, rtol=1e-12, atol=1e-13)
        y = mm.gradient_step(domain, x, g, res.y_step_smoothness)  # line 6 with the noisy g
        z = res.mirror_map.step(z, g, res.alphas[k])  # line 7 with the same g
        np.testing.assert_allclose(tr["y"][k], y, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(tr["z"][k], z, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(res.theta, y, rtol=1e-12, atol=1e-13)


def test_the_output_is_post_processing_of_the_released_gradients():
    """Given only the released g's (no data), the whole run, hence y_T, is recomputed exactly."""
    data = _data()
    domain = L1Ball(radius=1.0, dim=4)
    res = accmd.dp_accmd(data, loss=LOSS, domain=domain, epsilon=1.0, delta=1e-5, steps=5, runs=2, rng=8,
                         mirror_map="p_norm", transcript=True)
    w = mm.PNorm(domain)
    y = z = np.zeros((2, 4))
    for k, g in enumerate(res.transcript["g"]):
        x = res.couplings[k] * z + (1 - res.couplings[k]) * y
        y, z = mm.gradient_step(domain, x, g, res.y_step_smoothness), w.step(z, g, res.alphas[k])
    np.testing.assert_array_equal(y, res.theta)


def test_tape_replay_and_run_independence():
    data = _data()
    kw = dict(loss=LOSS, domain=L2Ball(radius=1.0, dim=4), epsilon=1.0, delta=1e-5, steps=4)
    rec = Recorder(12)
    a = accmd.dp_accmd(data, runs=3, noise=rec, **kw)
    rep = Replay(rec.tape)
    np.testing.assert_array_equal(accmd.dp_accmd(data, runs=3, noise=rep, **kw).theta, a.theta)
    rep.assert_consumed()
    sliced = NoiseTape([TapeEntry(e.label, e.kind, dict(e.params), e.values[2:3]) for e in rec.tape.entries])
    # (equal up to the rounding of the batched matrix product behind the full gradient)
    np.testing.assert_allclose(accmd.dp_accmd(data, runs=1, noise=Replay(sliced), **kw).theta[0], a.theta[2],
                               rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("domain, w", DOMAINS)
def test_without_noise_the_accelerated_rate(domain, w):
    """Zero noise: F(y_T) - F* <= C / T^2 for linear coupling; checked as a fall by a factor >= 10 from T = 4 to 40."""
    data = _data(n=40)
    star = minimise(LOSS, data, domain, normalisation="average", tolerance=1e-12).value
    gaps = []
    for T in (4, 40):
        rec = Recorder(0)
        accmd.dp_accmd(data, loss=LOSS, domain=domain, epsilon=1.0, delta=1e-5, steps=T, mirror_map=w, noise=rec)
        zero = NoiseTape([TapeEntry(e.label, e.kind, {}, np.zeros_like(e.values)) for e in rec.tape.entries])
        res = accmd.dp_accmd(data, loss=LOSS, domain=domain, epsilon=1.0, delta=1e-5, steps=T, mirror_map=w,
                             noise=Replay(zero))
        gaps.append(float(LOSS.mean(res.theta[0], data) - star))
    assert gaps[0] > 0 and -1e-10 <= gaps[1] <= gaps[0] / 10, gaps


def test_bad_inputs():
    data = _data()
    kw = dict(epsilon=1.0, delta=1e-5, steps=2)
    with pytest.raises(ParameterError, match="L2Ball centred at 0 or an L1Ball"):
        accmd.dp_accmd(data, loss=LOSS, domain=L2Ball(radius=1.0, dim=4, center=[0.1, 0, 0, 0]), **kw)
    with pytest.raises(ParameterError, match="mirror_map"):
        accmd.dp_accmd(data, loss=LOSS, domain=L2Ball(radius=1.0, dim=4), mirror_map="entropy", **kw)
    with pytest.raises(ParameterError, match="L1Ball for the p-norm"):
        accmd.dp_accmd(data, loss=LOSS, domain=L2Ball(radius=1.0, dim=4), mirror_map="p_norm", **kw)
    with pytest.raises(ParameterError, match="built on the domain"):
        accmd.dp_accmd(data, loss=LOSS, domain=L2Ball(radius=1.0, dim=4),
                       mirror_map=mm.SquaredL2(L2Ball(radius=1.0, dim=4)), **kw)
    with pytest.raises(ParameterError, match="step_rule"):
        accmd.dp_accmd(data, loss=LOSS, domain=L2Ball(radius=1.0, dim=4), step_rule="other", **kw)
    with pytest.raises(AssumptionError, match="domain_radius"):  # the loss's constants hold on the unit ball only
        accmd.dp_accmd(data, loss=LOSS, domain=L2Ball(radius=2.0, dim=4), **kw)
    huber = Huber(feature_norm=1.0, label_bound=1.0, width=0.5)
    res = accmd.dp_accmd(data, loss=huber, domain=L2Ball(radius=3.0, dim=4), rng=0, **kw)
    assert res.theta.shape == (1, 4)
