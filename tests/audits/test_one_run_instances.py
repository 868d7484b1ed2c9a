"""Tests of audits.one_run_instances on small instances: the exact Gaussian model the suite relies
on (with the noise switched off, every canary's signal is one constant times its secret), the
separations behind the planted tests' power, the twins, the tiers."""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pytest

from audits import execution
from audits import one_run_instances as oi
from audits.one_run_gaussian import gdp_mu
from audits.twins.bst14 import ReusedDraws, ScaledDraws
from reference.bst14 import noisy_sgd as _bst14
from reference.domains import L2Ball
from reference.losses import Huber, Linear
from reference.tape import noise_source
from reference.wang17 import svrg as _svrg
from reference.wang19 import proximal_gradient as _pgd
from reference.wang20 import gradient_descent as _cg
from reference.zhang17 import output_perturbation as _op

SMALL = dict(n=600, canaries=16)


def _silenced(instance, label, secrets):
    """Run the reference with its Gaussian draws multiplied by 0: the released quantities without noise."""
    fit = instance.fits["reference"]
    data = instance.design.assemble(instance.base, secrets)
    real = oi.noise_source

    def zero(rng=None, noise=None):
        return ScaledDraws(real(rng=rng, noise=noise), label, 0.0)

    oi.noise_source = zero
    try:
        return fit(data, rng=np.random.default_rng(0))
    finally:
        oi.noise_source = real


def _constant_times_secret(signal, secrets):
    """The signal is +a on the canaries in and -a on the others (one a for all): returns a."""
    a = float(np.mean(signal * secrets))
    np.testing.assert_allclose(signal, a * secrets, rtol=1e-9, atol=1e-12 * max(1.0, abs(a)))
    return a


@pytest.mark.parametrize("build, label, family", [
    (oi.wang19_instance, _pgd.LABEL_NOISE, "white-box"),
    (oi.wang20_instance, _cg.LABEL_Z, "white-box"),
    (oi.zhang17_instance, _op.LABEL_GAUSSIAN, "black-box"),
])
def test_exact_model_signal_is_a_constant_times_the_secret(build, label, family):
    inst = build(**SMALL)
    secrets = inst.design.secrets(rng=np.random.default_rng(1))
    out = _silenced(inst, label, secrets)
    a = _constant_times_secret(inst.scores()[family](out), secrets)
    assert a > 0


def test_wang19_separation_matches_the_constants():
    inst = oi.wang19_instance(**SMALL)
    secrets = inst.design.secrets(rng=np.random.default_rng(2))
    out = _silenced(inst, _pgd.LABEL_NOISE, secrets)
    a = _constant_times_secret(inst.scores()["white-box"](out), secrets)
    steps, sigma, _ = _pgd.constants(loss=Huber(feature_norm=1.0, label_bound=10.0, width=1.0), n=SMALL["n"],
                                     dimension=SMALL["canaries"] + oi.BASE_FEATURES, epsilon=inst.epsilon,
                                     delta=inst.delta)
    assert out["steps"] == steps
    # the aligned sum has noise sd sigma sqrt(T): separation 2a / (sigma sqrt(T))
    assert 2 * a / (sigma * math.sqrt(steps)) == pytest.approx(inst.separations["reference"], rel=1e-9)


def test_zhang17_reference_sits_at_the_claim():
    inst = oi.zhang17_instance(**SMALL)
    secrets = inst.design.secrets(rng=np.random.default_rng(3))
    data = inst.design.assemble(inst.base, secrets)
    res = _op.output_perturbation_gd(data, loss=Huber(feature_norm=1.0, label_bound=10.0, width=1.0), epsilon=4.0,
                                     delta=1e-8, setting="convex", steps=20, minimiser_norm=1.0,
                                     sensitivity_formula="sensitivity_tight", calibration="analytic", rng=0)
    shift = 2 * abs(res.w_T[0])  # a canary coordinate moves by eta L T/n either way
    assert shift == pytest.approx(res.sensitivity, rel=1e-12)
    assert shift / res.sigma == pytest.approx(gdp_mu(4.0, 1e-8), rel=1e-6)
    assert shift / res.sigma <= gdp_mu(4.0, 1e-8)  # sigma rounded up: at, never beyond, the claim


def test_wang17_canaries_only_through_the_snapshot():
    inst = oi.wang17_instance(**SMALL)
    secrets = inst.design.secrets(rng=np.random.default_rng(4))
    out = _silenced(inst, _svrg.LABEL_NOISE_1, secrets)
    a = _constant_times_secret(inst.scores()["white-box"](out), secrets)
    assert a == pytest.approx(out["steps"] * 1.0 / SMALL["n"], rel=1e-9)  # X/n at each inner step
    assert out["steps"] == oi.wang17_constants(**SMALL)["noisy_steps"]  # the run's own count of releases
    assert inst.separations["reference"] < 0.1 * gdp_mu(inst.epsilon, inst.delta)  # far inside the claim


def test_half_lipschitz_declares_half_and_computes_the_same():
    loss = Huber(feature_norm=1.0, label_bound=10.0, width=1.0)
    half = oi.HalfLipschitz(loss)
    assert half.constants.lipschitz == loss.constants.lipschitz / 2
    rows = np.array([[0.3, -0.2, 1.0], [0.0, 0.5, -2.0]])
    theta = np.array([[0.1, 0.2]])
    np.testing.assert_array_equal(half.total_gradient(theta, rows), loss.total_gradient(theta, rows))
    _, s_half, _ = _pgd.constants(loss=half, n=100, dimension=2, epsilon=1.0, delta=1e-6)
    _, s_full, _ = _pgd.constants(loss=loss, n=100, dimension=2, epsilon=1.0, delta=1e-6)
    assert s_half == pytest.approx(s_full / 2, rel=1e-9)


def test_base_records_avoid_the_canary_coordinates():
    for build in (oi.wang19_instance, oi.wang20_instance, oi.bst14_instance):
        inst = build(n=300, canaries=16)
        assert inst.records == 300
        assert np.all(inst.base[:, :16] == 0)
        assert np.any(inst.base[:, 16:oi.BASE_FEATURES + 16] != 0)


def test_power_is_tiny_for_the_reference_and_high_for_the_twins():
    inst = oi.zhang17_instance()
    assert inst.power("reference", alpha=8e-5) <= 8e-5 / 2 + 1e-12  # at the boundary: the test's size
    assert inst.power("noise x0.5", alpha=8e-5) > 1 - 1e-9


def test_tiers():
    assert oi.runs_in_tier("zhang17.alg_1", "smoke")
    assert not oi.runs_in_tier("wang19.alg_1", "smoke") and oi.runs_in_tier("wang19.alg_1", "standard")
    assert not oi.runs_in_tier("bst14.alg_1", "standard") and oi.runs_in_tier("bst14.alg_1", "deep")
    assert set(oi.TIER) == set(oi.INSTANCES)


def test_small_instance_audits_run():
    inst = oi.wang20_instance(n=1500, canaries=256)
    assert inst.power("noise / sqrt(d)", alpha=0.01) > 1 - 1e-9
    res = inst.audit("noise / sqrt(d)", alpha=0.01, seed=1)
    assert res.violated and res.records == 1500
    assert any(t["violated"] for t in res.tests if t["family"].startswith("gaussian"))
    ref = inst.audit("reference", alpha=0.01, seed=1)
    assert not ref.violated
    assert noise_source is oi.noise_source  # _silenced restored the module's source


def test_bst14_reused_noise_flagged_at_a_small_n():
    # the deep-tier audit's machinery end to end at n = 80 (6399 steps instead of 10^8): the
    # reference is not refuted, the reused noise is, by the guess bound on the reuse family alone
    inst = oi.bst14_instance(n=80, canaries=40)
    assert not inst.audit("reference", alpha=0.05, seed=2).violated
    res = inst.audit("reused noise", alpha=0.05, seed=2)
    assert res.violated and res.family_bounds()["reuse"] > inst.epsilon, str(res)


def test_bst14_loop_reports_its_steps(monkeypatch):
    # n^2 - 1 steps (10^8 at n = 10^4): the shared loop prints progress lines with an ETA on the
    # current execution's sink, naming the rows it runs; the other fits reuse it and print nothing
    monkeypatch.setattr(execution, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(execution, "PROGRESS_EVERY", 0.0)
    n, lines = 30, []
    inst = oi.bst14_instance(n=n, canaries=8)
    data = inst.design.assemble(inst.base, inst.design.secrets(rng=np.random.default_rng(3)))
    with execution.using(None, progress=lines.append):
        inst.fits["reference"](data, rng=np.random.default_rng(1))
        inst.fits["reused noise"](data, rng=np.random.default_rng(1))
    assert len(lines) == n * n - 1
    label = f"[audit] bst14 Algorithm 1 at n = {n} (reference, sigma / n, reused noise): "
    assert lines[0].startswith(label + "1 of 899 steps (0%), ")
    assert lines[-1].startswith(label + "899 of 899 steps (100%), ")


def test_bst14_fits_share_one_loop_and_each_row_is_the_fit_alone():
    # the reference and its twins run as rows of one batched loop (_OneLoop); each row must be the
    # run that fit gives alone, bit for bit, and leave the generator where that run leaves it
    n = 40
    inst = oi.bst14_instance(n=n, canaries=8)
    data = inst.design.assemble(inst.base, inst.design.secrets(rng=np.random.default_rng(3)))
    p = data.shape[1]
    alone_sources = {"reference": lambda g: noise_source(rng=g),
                     "sigma / n": lambda g: ScaledDraws(noise_source(rng=g), _bst14.LABEL_NOISE, 1.0 / n),
                     "reused noise": lambda g: ReusedDraws(noise_source(rng=g), _bst14.LABEL_NOISE)}
    calls = []
    real = _bst14.noise_gd
    run = _bst14.NoiseGD.run

    def counting(self, *args, **kwargs):
        calls.append(kwargs.get("runs", 1))
        return run(self, *args, **kwargs)

    for name, source in alone_sources.items():
        rng, g = np.random.default_rng(11), np.random.default_rng(11)
        with mock.patch.object(_bst14.NoiseGD, "run", counting):
            got = inst.fits[name](data, rng=rng)
        acc = oi._Accumulator("G", p)
        res = real(data, loss=Linear(data_norm=1.0), domain=L2Ball(dim=p, radius=1.0), epsilon=inst.epsilon,
                   delta=inst.delta, schedule="lipschitz", noise=source(g), transcript=acc)
        want = acc.released(0, res.theta[0], median=True)
        for key in ("theta", "released", "first", "reference"):
            np.testing.assert_array_equal(got[key], want[key], err_msg=f"{name}: {key}")
        assert got["steps"] == want["steps"] == n * n - 1
        assert rng.bit_generator.state == g.bit_generator.state, name
    assert calls == [3], calls  # one batched loop served all three fits
