"""Tests of audits.twins.wang17: each twin is the reference except for its bug (tape replay), each
violation is real (exact or a certified numerical lower bound on delta(epsilon) above the claim),
the instances are what the module says, and the numerical lower bound is checked against exact
profiles."""

from __future__ import annotations

import math

import numpy as np
import pytest

from audits.twins import wang17 as planted
from reference import wang17 as alg
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry
from reference.wang17 import gradient_descent as gd_ref
from reference.wang17 import mirror_maps as mm
from reference.wang17 import svrg as svrg_ref
from spec import gaussian
from spec.wang17 import calibration as cal
from spec.wang17 import svrg

EPS, DELTA = 1.0, 1e-5
N_SVRG, M_SVRG = 200, 50  # the privacy audits' DP-SVRG instance


def _edited(tape, label, edit):
    return NoiseTape([TapeEntry(e.label, e.kind, dict(e.params), edit(i, e.values) if e.label == label else e.values)
                      for i, e in enumerate(tape.entries)])


# --------------------------------------------------------------------------------------------
# the numerical lower bound


@pytest.mark.parametrize("steps, sigma", [(1, 1.0), (20, 3.0), (200, 8.0)])
def test_delta_lower_bound_against_the_exact_gaussian_profile(steps, sigma):
    pairs = [([(1.0, 1.0)], [(1.0, 0.0)], steps)]
    exact = gaussian.profile(sigma=sigma, sensitivity=1.0, steps=steps)
    for e in (0.1, 0.5, 1.0, 2.0):
        lb = planted.delta_lower_bound(e, pairs, sigma=sigma)
        assert lb <= exact(e) * (1 + 1e-9) + 1e-15  # a lower bound ...
        # ... and a close one: each step's loss is rounded down by at most h = 1e-3, so the bound is at
        # least the exact value at epsilon + steps * h, less the (small) cost of bucketing
        assert lb >= exact(e + steps * 1e-3) * 0.99 - 1e-12


def test_delta_lower_bound_against_the_exact_mixture_step():
    """One step (1 - 1/n) N(0) + (1/n) N(2G) vs N(0): spec.wang17.calibration's exact mpmath hockey-stick."""
    n, s = 100, 0.8
    pairs = [([(1 - 1 / n, 0.0), (1 / n, 2.0)], [(1.0, 0.0)], 1)]
    for e in (0.5, 1.0, 3.0):
        exact = cal.step_delta_lower_bound(e, sigma=s, lipschitz=1.0, n=n)
        lb = planted.delta_lower_bound(e, pairs, sigma=s, h=1e-4, resolution=400)
        assert exact * 0.97 <= lb <= exact * (1 + 1e-9) + 1e-15, (e, lb, exact)


# --------------------------------------------------------------------------------------------
# DP-SVRG instance


def _svrg_run(fn, data, runs, noise, transcript=True, **kw):
    inst = planted.svrg_instance(n=N_SVRG)
    return fn(data, loss=inst["loss"], regulariser=inst["regulariser"], epsilon=EPS, delta=DELTA, epochs=1,
              epoch_length=M_SVRG, x0=inst["x0"], runs=runs, noise=noise, transcript=transcript, **kw)


def test_svrg_instance_is_the_4g_configuration_at_every_step():
    """Every released direction's data part is exactly the module docstring's: 4G cos(a) jumps when record 0 is drawn."""
    inst = planted.svrg_instance(n=N_SVRG)
    c, G = inst["cos"], 1.0
    for data, record0 in ((inst["pair"].dataset, 3 * G * c - 2 * G * c / N_SVRG), (inst["pair"].neighbour, -G * c)):
        rec = Recorder(4)
        res = _svrg_run(alg.dp_svrg, data, 200, rec)
        idx = np.stack([e.values for e in rec.tape.entries if e.label == svrg_ref.LABEL_INDEX_1])
        z = np.stack([e.values for e in rec.tape.entries if e.label == svrg_ref.LABEL_NOISE_1])
        part = res.transcript["v"] - res.sigma * z  # (K, runs, 2): the data part of line 7
        bulk = -G * c - 2 * G * c / N_SVRG if data is inst["pair"].dataset else -G * c
        snap0 = (N_SVRG - 2) * G * c / N_SVRG if data is inst["pair"].dataset else G * c
        np.testing.assert_allclose(part[0, :, 0], snap0, rtol=0, atol=1e-12)  # step 1: x = x~, the snapshot gradient
        want = np.where(idx[1:] == 0, record0, bulk)
        np.testing.assert_allclose(part[1:, :, 0], want, rtol=0, atol=1e-12)
        # the second coordinate's data part is the same under both data sets
        np.testing.assert_allclose(part[1:, :, 1], 2 * G * math.sin(math.acos(c)) - G * math.sin(math.acos(c)),
                                   atol=1e-12)
        assert np.abs(res.transcript["x"]).max() < 1e-2  # every iterate near the origin, above both ramps


def test_svrg_reference_is_far_inside_its_claim_on_the_instance():
    inst = planted.svrg_instance(n=N_SVRG)
    sigma = svrg.calibrate(n=N_SVRG, epochs=1, epoch_length=M_SVRG, epsilon=EPS, delta=DELTA).sigma
    pairs = planted.svrg_step_pairs(n=N_SVRG, steps=M_SVRG, cos=inst["cos"])
    assert planted.delta_lower_bound(EPS, pairs, sigma=sigma) < DELTA * 1e-3


def test_difference_2g_twin_is_the_reference_with_scaled_noise_and_really_leaks():
    inst = planted.svrg_instance(n=N_SVRG)
    ref_sigma = svrg.calibrate(n=N_SVRG, epochs=1, epoch_length=M_SVRG, epsilon=EPS, delta=DELTA).sigma
    s2 = planted.sigma_difference_2g(epsilon=EPS, delta=DELTA, lipschitz=1.0, n=N_SVRG, steps=M_SVRG)
    # the twin's own (buggy) certificate accepts s2; the correct one does not
    assert planted._difference_2g_epsilon(s2, 1.0, N_SVRG, M_SVRG, DELTA, tuple(range(2, 33))) <= EPS
    assert svrg.certified_epsilon(n=N_SVRG, epochs=1, epoch_length=M_SVRG, delta=DELTA, sigma=s2) > EPS
    assert 0.45 * ref_sigma < s2 < 0.6 * ref_sigma
    rec = Recorder(6)
    twin = _svrg_run(planted.dp_svrg_difference_2g, inst["pair"].dataset, 5, rec)
    replay = Replay(_edited(rec.tape, svrg_ref.LABEL_NOISE_1, lambda i, v: v * (s2 / ref_sigma)))
    ref = _svrg_run(alg.dp_svrg, inst["pair"].dataset, 5, replay)
    replay.assert_consumed()
    np.testing.assert_allclose(twin.theta, ref.theta, rtol=1e-15, atol=0)
    np.testing.assert_allclose(twin.transcript["v"], ref.transcript["v"], rtol=1e-15, atol=0)
    # real: the instance's transcript needs delta(1) >= 1.5e-3 and delta(3) > 1e-5 (true epsilon > 3)
    pairs = planted.svrg_step_pairs(n=N_SVRG, steps=M_SVRG, cos=inst["cos"])
    lb = planted.delta_lower_bound([EPS, 3 * EPS], pairs, sigma=s2)
    assert lb[0] > 100 * DELTA and lb[1] > DELTA, lb


def test_full_batch_constant_twin_is_the_paper_calibration_and_really_leaks():
    inst = planted.svrg_instance(n=N_SVRG)
    c = planted.full_batch_constant(epsilon=EPS, delta=DELTA)
    assert c == pytest.approx(2 * (1 + math.sqrt(1 + EPS / math.log(1 / DELTA))) ** 2, rel=1e-12)  # 8.34
    twin = _svrg_run(planted.dp_svrg_full_batch_constant, inst["pair"].dataset, 2, None, transcript=None)
    assert twin.sigma == svrg.THM_4_1.evaluate("sigma_paper", n=N_SVRG, epochs=1, epoch_length=M_SVRG, epsilon=EPS,
                                               delta=DELTA, lipschitz=1.0, noise_constant=c)
    assert twin.calibration == "paper" and twin.implied_constant == pytest.approx(c, rel=1e-12)
    # real: already one mixture step of the transcript (a post-processing of it) needs delta(1) > 1e-3
    one = [p for p in planted.svrg_step_pairs(n=N_SVRG, steps=2, cos=inst["cos"]) if len(p[0]) == 2]
    one = [(one[0][0], one[0][1], 1)]
    assert planted.delta_lower_bound(EPS, one, sigma=twin.sigma) > 100 * DELTA


@pytest.mark.parametrize("n, threshold", [(200, 0.0141), (10**4, 0.0034)])
def test_full_batch_constant_twin_fails_below_a_threshold_of_tm_over_n2(n, threshold):
    """Where the single full-batch c (8.34) is provably not private for DP-SVRG: sigma_paper grows like
    sqrt(T m), the exact per-step lower bound (``cal.step_sigma_lower_bound``, epsilon = 1, delta = 1e-5)
    does not, so one step alone is non-private once T m / n^2 < lb^2 / (c ln(1/delta)): 0.0141 at
    n = 200 (the audit's instance runs T m / n^2 = 0.00125) and 0.0034 at n = 10^4."""
    c = planted.full_batch_constant(epsilon=EPS, delta=DELTA)
    lb = cal.step_sigma_lower_bound(epsilon=EPS, delta=DELTA, lipschitz=1.0, n=n)
    steps = lb**2 * n**2 / (c * math.log(1 / DELTA))
    assert round(steps / n**2, 4) == threshold
    assert M_SVRG / N_SVRG**2 < 0.0141

    def sigma(tm):
        return svrg.THM_4_1.evaluate("sigma_paper", noise_constant=c, lipschitz=1.0, n=n, epochs=1, epoch_length=tm,
                                     epsilon=EPS, delta=DELTA)

    below, above = math.floor(steps / 2), math.ceil(2 * steps)
    assert sigma(below) < lb and cal.step_delta_lower_bound(EPS, sigma=sigma(below), lipschitz=1.0, n=n) > DELTA
    # above the threshold the per-step bound certifies nothing (the proven c there is still >= 143: no c works)
    assert sigma(above) > lb and cal.step_delta_lower_bound(EPS, sigma=sigma(above), lipschitz=1.0, n=n) < DELTA


def test_noiseless_snapshot_twin_releases_the_snapshot_gradient():
    inst = planted.svrg_instance(n=N_SVRG)
    rec = Recorder(7)
    kw = dict(loss=inst["loss"], regulariser=inst["regulariser"], epsilon=EPS, delta=DELTA, epochs=2, x0=inst["x0"],
              runs=4, transcript=True)
    twin = planted.dp_svrg_noiseless_snapshot(inst["pair"].dataset, epoch_length=5, noise=rec, **kw)
    replay = Replay(_edited(rec.tape, svrg_ref.LABEL_NOISE_1,
                            lambda i, v: v * 0 if (i // 2) % 5 == 0 else v))  # entries alternate index, noise
    ref = alg.dp_svrg(inst["pair"].dataset, epoch_length=5, noise=replay, **kw)
    replay.assert_consumed()
    np.testing.assert_array_equal(twin.transcript["v"], ref.transcript["v"])
    # real: the first released direction of each epoch is grad F(x~; D), a point mass that moves with the data
    for data in (inst["pair"].dataset, inst["pair"].neighbour):
        res = planted.dp_svrg_noiseless_snapshot(data, epoch_length=5, rng=1, **kw)
        want = inst["loss"].mean_gradient(inst["x0"], data)
        np.testing.assert_allclose(res.transcript["v"][0], np.broadcast_to(want, (4, 2)), rtol=1e-13)  # two summation orders of one mean
    d = inst["loss"].mean_gradient(inst["x0"], inst["pair"].dataset) - inst["loss"].mean_gradient(
        inst["x0"], inst["pair"].neighbour)
    assert np.linalg.norm(d) > 1e-3  # different point masses: delta(eps) = 1 for every eps


# --------------------------------------------------------------------------------------------
# full batch: DP-GD and DP-AccMD


def test_full_batch_instance_attains_the_sensitivity_everywhere():
    pair, loss, free, l2, _ = planted.full_batch_instance(n=10, dimension=2)
    rng = np.random.default_rng(0)
    for theta in rng.normal(size=(50, 2)) * 100:
        d = free.mean_gradient(theta, pair.dataset) - free.mean_gradient(theta, pair.neighbour)
        np.testing.assert_allclose(d, [2.0 / 10, 0.0], rtol=1e-14)
    assert loss.constants.lipschitz == free.constants.lipschitz == 1.0


def test_gd_half_sensitivity_twin_and_its_exact_violation():
    pair, _, free, _, _ = planted.full_batch_instance(n=20)
    kw = dict(loss=free, epsilon=EPS, delta=DELTA, steps=6, runs=3, transcript=True)
    rec = Recorder(2)
    twin = planted.dp_gd_half_sensitivity(pair.dataset, noise=rec, **kw)
    replay = Replay(_edited(rec.tape, gd_ref.LABEL_NOISE, lambda i, v: v * 0.5))
    ref = alg.dp_gd(pair.dataset, noise=replay, **kw)
    np.testing.assert_array_equal(twin.theta, ref.theta)
    # the transcript's exact profile is the composed Gaussian at sigma/2: mu doubles
    sigma = ref.sigma
    claimed = cal.full_batch_profile(sigma=sigma, lipschitz=1.0, n=20, steps=6)
    actual = cal.full_batch_profile(sigma=sigma / 2, lipschitz=1.0, n=20, steps=6)
    assert claimed(EPS) <= DELTA and actual(EPS) > 100 * DELTA  # 1.5e-3: 154 times the claim


def test_printed_accmd_uses_the_noiseless_gradient_in_the_y_step_only():
    pair, loss, _, l2, _ = planted.full_batch_instance(n=20)
    kw = dict(loss=loss, domain=l2, epsilon=EPS, delta=DELTA, steps=5, runs=3, transcript=True)
    rec = Recorder(3)
    twin = planted.dp_accmd_printed(pair.dataset, noise=rec, **kw)
    ref = alg.dp_accmd(pair.dataset, noise=Replay(rec.tape), **kw)
    tr = twin.transcript
    for k in range(5):
        clean = loss.mean_gradient(tr["x"][k], pair.dataset)
        np.testing.assert_allclose(tr["y"][k], mm.gradient_step(l2, tr["x"][k], clean, twin.y_step_smoothness),
                                   rtol=1e-14, atol=1e-15)
        prev = np.zeros_like(tr["z"][0]) if k == 0 else tr["z"][k - 1]
        np.testing.assert_allclose(tr["z"][k], twin.mirror_map.step(prev, tr["g"][k], twin.alphas[k]),
                                   rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(tr["g"][0], ref.transcript["g"][0])  # same first release
    assert not np.allclose(twin.theta, ref.theta)  # and another algorithm
    # the patch does not outlive the call
    assert mm.gradient_step is planted._mm.gradient_step and mm.gradient_step.__name__ == "gradient_step"


def test_printed_accmd_at_one_step_is_deterministic_and_moves_with_the_data():
    """Real: with T = 1 the printed output is a point mass, different for the neighbours: delta(eps) = 1."""
    pair, loss, _, l2, _ = planted.full_batch_instance(n=20)
    outs = []
    for data in (pair.dataset, pair.neighbour):
        res = planted.dp_accmd_printed(data, loss=loss, domain=l2, epsilon=EPS, delta=DELTA, steps=1, runs=50, rng=4)
        assert np.ptp(res.theta) == 0.0  # no noise reaches y_1
        outs.append(res.theta[0, 0])
    L = loss.constants.smoothness
    assert outs[0] == pytest.approx(18 / 20 / (4 * L), rel=1e-12) and outs[1] == pytest.approx(1 / (4 * L), rel=1e-12)
    # the corrected algorithm's y_1 is spread by the noise
    ref = alg.dp_accmd(pair.dataset, loss=loss, domain=l2, epsilon=EPS, delta=DELTA, steps=1, runs=50, rng=4)
    assert np.ptp(ref.theta) > 0.0
