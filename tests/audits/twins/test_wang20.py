"""Tests of audits.twins.wang20: each twin is the reference except for its bug (tape replay, draw for
draw), and each violation is real (exact probabilities, quadrature, or the exact Gaussian profile)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import special

from audits.tradeoffs import binary_renyi
from audits.twins import wang20 as planted
from reference import wang20 as alg
from reference.samplers import ArsinhNormal
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry
from reference.wang20 import bun_steinke
from reference.wang20 import gradient_descent as gd
from spec import gaussian
from spec.wang20 import gradient_descent as spec_gd
from spec.wang20 import bun_steinke as spec_tm

U = 2.0**-53


def _edited(tape: NoiseTape, label: str, edit) -> NoiseTape:
    return NoiseTape([TapeEntry(e.label, e.kind, dict(e.params), edit(e.values) if e.label == label else e.values)
                      for e in tape.entries])


# --------------------------------------------------------------------------------------------
# Algorithm 2


def _alg2_kwargs():
    c = planted.ALG2_COUNTEREXAMPLE
    return dict(epsilon=c["epsilon"], trim=c["trim"], mean_lower=c["mean_lower"], mean_upper=c["mean_upper"])


def test_printed_bound_twin_is_the_reference_with_the_printed_scale():
    pair = planted.alg2_counterexample_pair()
    kw = _alg2_kwargs()
    for data in (pair.dataset, pair.neighbour):
        rec = Recorder(3)
        twin = planted.trimmed_mean_printed_bound(data, runs=50, noise=rec, **kw)
        ratio = planted.printed_ratio(data, **kw)
        ref = alg.trimmed_mean(data, runs=50, noise=Replay(_edited(rec.tape, bun_steinke.LABEL_Y,
                                                                    lambda y: np.arcsinh(ratio * np.sinh(y)))), **kw)
        np.testing.assert_array_equal(twin.value, ref.value)
        # the noise added is (S_printed/s) sinh(Y), Y the recorded draws
        printed = float(bun_steinke.smooth_bound(data, trim=1, dilation=ref.dilation, mean_lower=0.0, mean_upper=4.0,
                                                 form="printed"))
        y = rec.tape.entries[0].values
        np.testing.assert_allclose(twin.value, twin.statistic + printed / ref.shift * np.sinh(y), rtol=1e-12)


def test_printed_bound_violation_on_the_counterexample_is_real():
    """Exact: both outputs are 2 + c sinh(Y); c = 39.6 and 3333 for the printed bound."""
    pair = planted.alg2_counterexample_pair()
    kw = _alg2_kwargs()
    probes = [alg.trimmed_mean(d, runs=1, rng=0, **kw) for d in (pair.dataset, pair.neighbour)]
    assert [p.statistic for p in probes] == [2.0, 2.0]
    scales = [p.noise_scale * planted.printed_ratio(d, **kw) for p, d in zip(probes, (pair.dataset, pair.neighbour))]
    assert scales[0] == pytest.approx(39.6, abs=0.01) and scales[1] == pytest.approx(3333.3, abs=0.5)
    tau = scales[0] * math.sinh(3.0)
    p_x, p_y = planted.alg2_counterexample_probabilities(tau, scales=scales)
    assert p_x == pytest.approx(2 * special.ndtr(-3.0), rel=1e-12)
    assert p_y > 0.9
    rho = spec_tm.ALG_2.evaluate("rho", epsilon=kw["epsilon"])
    # the claim's Renyi bound fails on this one event (data processing makes it a lower bound)
    assert float(binary_renyi(p_y, p_x, 2.0)) > 2.0 * rho * 20
    # and so does the (1, delta) point the claim converts to: delta(1) = exp(-(1 - rho)^2/(4 rho))
    assert p_y - math.e * p_x > math.exp(-((1 - rho) ** 2) / (4 * rho)) + 0.8
    # the corrected bound changes the scale by exactly e^t on this pair: the reference is fine
    assert probes[1].noise_scale / probes[0].noise_scale == pytest.approx(math.exp(0.01), rel=1e-12)


def test_shift_pair_moves_the_release_by_its_whole_smooth_bound():
    v, w = planted.shift_values()
    kw = dict(trim=1, mean_lower=-1.0, mean_upper=1.0)
    means = [float(bun_steinke.clipped_trimmed_mean(x, **kw)) for x in (v, w)]
    bounds = [float(bun_steinke.smooth_bound(x, dilation=0.01, **kw)) for x in (v, w)]
    assert means == [-1.0, 1.0]
    assert bounds == [2.0 * (1 + 16 * U)] * 2


# --------------------------------------------------------------------------------------------
# Algorithm 3


def _alg3_kwargs():
    p = planted.ALG3
    _, loss, domain = planted.alg3_pair()
    return dict(loss=loss, domain=domain, epsilon=p["epsilon"], delta=p["delta"], mean_lower=p["mean_lower"],
                mean_upper=p["mean_upper"], smoothness=1.0, strong_convexity=1.0, trim=p["trim"])


def test_printed_budget_twin_rebuilds_the_reference_and_changes_only_the_budget():
    pair = planted.alg3_pair()[0]
    kw = _alg3_kwargs()
    ref = alg.trimmed_mean_gd(pair.neighbour, runs=20, rng=7, transcript=True, **kw)
    same = planted.trimmed_mean_gd_printed_budget(pair.neighbour, runs=20, rng=7, transcript=True, budget="corrected",
                                                  **kw)
    np.testing.assert_array_equal(same.theta, ref.theta)
    np.testing.assert_array_equal(same.transcript["gradient"], ref.transcript["gradient"])
    for name in ("coordinate_epsilon", "dilation", "shift", "trim"):
        assert same.parameters[name] == ref.parameters[name]
    twin = planted.trimmed_mean_gd_printed_budget(pair.neighbour, runs=20, rng=7, **kw)
    d, steps = planted.ALG3["dimension"], ref.steps
    assert twin.parameters["coordinate_epsilon"] == spec_gd.ALG_3.evaluate(
        "coordinate_epsilon_printed", epsilon=1.0, delta=planted.ALG3["delta"], dimension=d, steps=steps) == 0.5
    assert ref.parameters["coordinate_epsilon"] == pytest.approx(0.0518, abs=1e-4)


def test_arsinh_kl_quadrature():
    law = ArsinhNormal()
    with mpmath.workdps(30):
        def integrand(y):
            z = mpmath.sinh(y)
            f = lambda u: -mpmath.asinh(u) ** 2 / 2 - mpmath.log(mpmath.sqrt(1 + u * u))  # noqa: E731
            return mpmath.npdf(y) * (f(z) - f(z + mpmath.mpf("0.125")))
        want = float(mpmath.quad(integrand, [-30, -3, 0, 3, 30]))
    assert planted.arsinh_kl(0.125) == pytest.approx(want, rel=1e-8)
    assert float(law.logpdf(0.0)) == pytest.approx(-0.5 * math.log(2 * math.pi))
    # small shifts: KL ~ I s^2/2 with the Fisher information of sinh(Y): with z = sinh(y),
    # d/dz log f = -(y + tanh y)/cosh y, so I = E[(Y + tanh Y)^2/cosh^2 Y] = 0.747
    with mpmath.workdps(30):
        fisher = float(mpmath.quad(lambda y: mpmath.npdf(y) * (y + mpmath.tanh(y)) ** 2 / mpmath.cosh(y) ** 2,
                                   [-mpmath.inf, 0, mpmath.inf]))
    assert fisher == pytest.approx(0.747, abs=5e-4)
    assert planted.arsinh_kl(1e-3) / 1e-6 * 2 == pytest.approx(fisher, rel=1e-3)
    # hence a call's divergence is about I/16 = 0.047 of epsilon_0^2/2 (the spec's numerical check, wang20.thm_3)
    assert fisher / 16 == pytest.approx(0.0467, abs=1e-3)


def test_printed_budget_violation_is_real():
    """The transcript's d T calls are i.i.d. given the data: its KL is d T KL(Z + s || Z) (quadrature)."""
    p = planted.ALG3
    d, steps = p["dimension"], 2
    rho = spec_gd.ALG_3.evaluate("rho_total", epsilon=1.0, delta=p["delta"], dimension=d, steps=steps)
    twin_shift = spec_tm.ALG_2.evaluate("shift", epsilon=1.0 / math.sqrt(d * steps))
    ref_shift = spec_tm.ALG_2.evaluate("shift", epsilon=spec_gd.ALG_3.evaluate(
        "coordinate_epsilon", epsilon=1.0, delta=p["delta"], dimension=d, steps=steps))
    twin_kl = d * steps * planted.arsinh_kl(twin_shift)
    assert twin_kl > 4.3 * rho  # KL <= rho is the zCDP claim at order 1: violated 4.3-fold
    assert d * steps * planted.arsinh_kl(ref_shift) < 0.06 * rho  # the reference is 20 times inside


# --------------------------------------------------------------------------------------------
# Algorithm 4


def _alg4(fn, data, domain, loss, **kw):
    p = planted.ALG4
    return fn(data, loss=loss, domain=domain, epsilon=p["epsilon"], delta=p["delta"], second_moment=p["second_moment"],
              failure_probability=p["failure_probability"], smoothness=1.0, strong_convexity=1.0, **kw)


def test_without_sqrt_d_twin_is_the_reference_with_z_scaled():
    pair, loss, domain = planted.alg4_pair()
    rec = Recorder(2)
    twin = _alg4(planted.catoni_giulini_gd_without_sqrt_d, pair.dataset, domain, loss, runs=6, noise=rec,
                 transcript=True)
    d = planted.ALG4["dimension"]
    ref = _alg4(alg.catoni_giulini_gd, pair.dataset, domain, loss, runs=6, transcript=True,
                noise=Replay(_edited(rec.tape, gd.LABEL_Z, lambda z: z / math.sqrt(d))))
    np.testing.assert_array_equal(twin.transcript["gradient"], ref.transcript["gradient"])


def test_without_sqrt_d_violation_is_real():
    """The transcript is exactly the Gaussian mechanism; its mu doubles (d = 4)."""
    pair, loss, domain = planted.alg4_pair()
    ref = _alg4(alg.catoni_giulini_gd, pair.dataset, domain, loss, runs=1, rng=0)
    p = planted.ALG4
    sigma, sens, steps = ref.parameters["sigma"], ref.parameters["sensitivity"], ref.steps
    # the pair realises the sensitivity: c' = c (1 - 2 Phi(-sqrt beta)) within 2e-7
    realised = 2 * planted.ALG4["dimension"] ** 0.5 * float(alg.smoothed_truncation(
        np.array([planted.H / ref.parameters["truncation_scale"]]),
        np.array([planted.H / ref.parameters["truncation_scale"] / math.sqrt(ref.parameters["noise_precision"])]))[0]) \
        * ref.parameters["truncation_scale"] / p["n"]
    assert realised == pytest.approx(sens, rel=2e-7)
    assert gaussian.exact_delta(1.0, sigma=sigma, sensitivity=sens, steps=steps) <= p["delta"]
    twin = gaussian.exact_delta(1.0, sigma=sigma / 2, sensitivity=realised, steps=steps)
    assert twin > 100 * p["delta"]


def test_empirical_moment_twin_is_the_reference_at_the_estimated_v():
    pair, loss, domain = planted.alg4_pair(replacement=1.0)
    for data in (pair.dataset, pair.neighbour):
        v_hat = planted.empirical_second_moment(data, loss=loss, domain=domain)
        twin = planted.catoni_giulini_gd_empirical_moment(data, loss=loss, domain=domain, epsilon=1.0, delta=1e-5,
                                                          second_moment=1.0, failure_probability=1e-6, smoothness=1.0,
                                                          strong_convexity=1.0, runs=4, rng=3)
        ref = alg.catoni_giulini_gd(data, loss=loss, domain=domain, epsilon=1.0, delta=1e-5, second_moment=v_hat,
                                    failure_probability=1e-6, smoothness=1.0, strong_convexity=1.0, runs=4, rng=3)
        np.testing.assert_array_equal(twin.theta, ref.theta)


def test_empirical_moment_violation_is_real():
    """sigma follows sqrt(v_hat): 1e11 on the data set, below 1 on the neighbour. An event on one
    released coordinate has exact Gaussian probabilities."""
    pair, loss, domain = planted.alg4_pair(replacement=1.0)
    p = planted.ALG4
    sig = []
    for data in (pair.dataset, pair.neighbour):
        v_hat = planted.empirical_second_moment(data, loss=loss, domain=domain)
        sig.append(spec_gd.ALG_4.evaluate("sigma", epsilon=1.0, delta=1e-5, n=p["n"], dimension=p["dimension"], steps=3,
                                          second_moment=v_hat, failure_probability=1e-6))
    s_big, s_small = sig
    assert s_big > 1e10 and s_small < 1
    # |g| > 1e3 for one released coordinate g ~ N(m, sigma^2): P >= 2 Phi(-tau/sigma) whatever m, and on
    # the neighbour |m| <= c s'/n < 1, so P <= 2 Phi(-(tau - 1)/sigma')
    tau = 1e3
    p_big = 2 * special.ndtr(-tau / s_big)
    p_small = 2 * special.ndtr(-(tau - 1.0) / s_small)
    assert p_big > 0.999 and p_small == 0.0
    assert p_big - math.e * p_small > 0.99  # delta(1) > 0.99: far beyond any claim


def test_raw_mean_twin_rebuilds_the_reference():
    pair, loss, domain = planted.alg4_pair()
    ref = _alg4(alg.catoni_giulini_gd, pair.dataset, domain, loss, runs=5, rng=11, transcript=True)
    same = _alg4(planted.catoni_giulini_gd_raw_mean, pair.dataset, domain, loss, runs=5, rng=11, transcript=True,
                 truncate=True)
    np.testing.assert_array_equal(same.transcript["gradient"], ref.transcript["gradient"])
    rec = Recorder(11)
    raw = _alg4(planted.catoni_giulini_gd_raw_mean, pair.dataset, domain, loss, runs=5, noise=rec, transcript=True)
    # the raw mean of the gradients -d is -H/n (1, ..., 1) at every w: the extreme record shows through,
    # plus the reference's sigma times the recorded standard normals
    z = np.stack([e.values for e in rec.tape.entries])
    assert all(e.label == gd.LABEL_Z for e in rec.tape.entries)
    np.testing.assert_allclose(raw.transcript["gradient"], -planted.H / planted.ALG4["n"] + ref.parameters["sigma"] * z,
                               rtol=0, atol=1e-3)


def test_raw_mean_violation_is_real():
    pair, loss, domain = planted.alg4_pair()
    ref = _alg4(alg.catoni_giulini_gd, pair.dataset, domain, loss, runs=1, rng=0)
    shift = 2 * planted.H / planted.ALG4["n"] * math.sqrt(planted.ALG4["dimension"])  # l2 change of the raw mean
    assert gaussian.exact_delta(1.0, sigma=ref.parameters["sigma"], sensitivity=shift, steps=ref.steps) > 0.999


def test_mapped_draws_forward_other_kinds():
    rec = Recorder(1)
    src = planted.MappedDraws(rec, "x", lambda v: v * 0)
    a = src.normal("x", (3,))
    b = src.normal("y", (3,))
    c = src.integers("i", 5, (2,))
    g = src.gamma("g", 2.0, (2,))
    assert np.all(a == 0) and np.all(b == rec.tape.entries[1].values)
    assert np.array_equal(c, rec.tape.entries[2].values) and np.array_equal(g, rec.tape.entries[3].values)
    with pytest.raises(TypeError):
        planted.MappedDraws(object(), "x", abs)
