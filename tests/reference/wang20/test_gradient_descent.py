"""reference.wang20.gradient_descent (Algorithms 3 and 4): constants from the records, the transcript
against the update rule, the released gradients against their tape, and replay."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reference import wang20 as alg
from reference.domains import L2Ball, Rp
from reference.losses import HeavyTailedHalfSquaredDistance, HeavyTailedLeastSquares
from reference.tape import Recorder, Replay
from reference.wang20 import bun_steinke, catoni_giulini
from reference.wang20 import gradient_descent as gd
from reference.wang20 import heavy_tails as ht
from spec.errors import AssumptionError, ParameterError
from spec.wang20 import gradient_descent as spec


def _regression(n=400, d=2, seed=0):
    prob = ht.LinearRegression(minimiser=np.full(d, 0.2), features=ht.law("student_t", 5),
                               noise=ht.law("pareto", 3.0), noise_scale=0.5)
    return prob, prob.sample(n, rng=seed), L2Ball(radius=1.0, dim=d)


def _alg4(data, prob, domain, **kw):
    return alg.catoni_giulini_gd(data, loss=prob.loss, domain=domain, epsilon=1.0, delta=1e-5,
                                 second_moment=prob.second_moment(domain), failure_probability=1e-3,
                                 smoothness=prob.smoothness, strong_convexity=prob.strong_convexity, **kw)


def test_steps_and_learning_rate_are_the_theorems():
    steps, eta = gd.steps_and_learning_rate(schedule="strongly_convex", n=1000, smoothness=2.0, strong_convexity=0.5)
    assert steps == spec.THM_7.evaluate("steps", smoothness=2.0, strong_convexity=0.5, n=1000) == math.ceil(4 * math.log(1000))
    assert eta == 0.5
    steps, eta = gd.steps_and_learning_rate(schedule="convex", n=1000, smoothness=4.0, epsilon=1.0, delta=1e-5,
                                            dimension=3, diameter=2.0)
    assert steps == spec.THM_8.evaluate("steps", epsilon=1.0, delta=1e-5, n=1000, dimension=3, diameter=2.0)
    assert eta == 0.25
    with pytest.raises(ParameterError, match="schedule"):
        gd.steps_and_learning_rate(schedule="sgd", n=10, smoothness=1.0)


def test_alg4_constants_come_from_the_record():
    prob, data, domain = _regression()
    res = _alg4(data, prob, domain, runs=2, rng=1)
    at = dict(epsilon=1.0, delta=1e-5, n=400, dimension=2, steps=res.steps, second_moment=prob.second_moment(domain),
              failure_probability=1e-3)
    for name in ("epsilon_tilde", "truncation_scale", "noise_precision", "coordinate_sensitivity", "sensitivity",
                 "sigma", "rho_total"):
        assert res.parameters[name] == spec.ALG_4.evaluate(name, **at), name
    assert res.parameters["noise_precision"] == pytest.approx(2 * math.log(1e3))  # Lemma 3's default
    assert res.parameters["sigma"] ** 2 == pytest.approx(spec.ALG_4.evaluate("sigma_squared_printed", **at), rel=1e-12)
    assert res.spec_ids == gd.ALG4_SPEC_IDS and res.steps == math.ceil(math.log(400))


def test_alg4_gradient_is_the_robust_mean_plus_the_taped_noise():
    prob, data, domain = _regression(n=300)
    rec = Recorder(2)
    res = _alg4(data, prob, domain, runs=3, noise=rec, transcript=True)
    z = np.stack([e.values for e in rec.tape.entries])
    assert [e.label for e in rec.tape.entries] == [gd.LABEL_Z] * res.steps and z.shape == (res.steps, 3, 2)
    x, y = prob.loss.split(data)
    prev = res.theta_1
    for t in range(res.steps):
        grads = prob.loss.gradient(prev[:, None, :], data)
        robust = catoni_giulini.robust_mean(grads, truncation_scale=res.parameters["truncation_scale"],
                                            noise_precision=res.parameters["noise_precision"], axis=-2)
        np.testing.assert_allclose(res.transcript["gradient"][t], robust + res.parameters["sigma"] * z[t],
                                   rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(res.transcript["theta"][t],
                                   domain.project(prev - res.learning_rate * res.transcript["gradient"][t]),
                                   rtol=1e-12, atol=1e-14)
        prev = res.transcript["theta"][t]
    np.testing.assert_array_equal(res.theta, prev)
    again = _alg4(data, prob, domain, runs=3, noise=Replay(rec.tape))
    np.testing.assert_array_equal(again.theta, res.theta)


def test_alg4_noise_precision_is_a_parameter_that_privacy_ignores():
    prob, data, domain = _regression(n=200)
    a = _alg4(data, prob, domain, runs=2, rng=5)
    b = _alg4(data, prob, domain, runs=2, rng=5, noise_precision=math.log(1e3))  # Algorithm 4 as printed
    assert a.parameters["sigma"] == b.parameters["sigma"]
    assert b.parameters["noise_precision"] == math.log(1e3)
    assert not np.array_equal(a.theta, b.theta)


def test_alg4_convex_schedule():
    prob, data, domain = _regression(n=500)
    res = alg.catoni_giulini_gd(data, loss=prob.loss, domain=domain, epsilon=2.0, delta=1e-5, second_moment=10.0,
                                failure_probability=1e-3, smoothness=4.0, schedule="convex", runs=2, rng=0)
    assert res.steps == spec.THM_8.evaluate("steps", epsilon=2.0, delta=1e-5, n=500, dimension=2, diameter=2.0)
    assert res.learning_rate == 0.25


def test_alg3_constants_and_releases():
    prob = ht.MeanEstimation(mean=[0.1, -0.1], law=ht.law("laplace"))
    domain = L2Ball(radius=1.0, dim=2)
    data = prob.sample(60, rng=3)
    rec = Recorder(4)
    kw = dict(loss=prob.loss, domain=domain, epsilon=1.0, delta=1e-3, mean_lower=-2.0, mean_upper=2.0, smoothness=1.0,
              strong_convexity=1.0, trim=5)
    res = alg.trimmed_mean_gd(data, runs=3, noise=rec, transcript=True, **kw)
    at = dict(epsilon=1.0, delta=1e-3, dimension=2, steps=res.steps, n=60, mean_lower=-2.0, mean_upper=2.0)
    for name in ("epsilon_tilde", "coordinate_epsilon", "dilation", "shift", "rho_total"):
        assert res.parameters[name] == spec.ALG_3.evaluate(name, **at), name
    assert res.parameters["coordinate_epsilon"] == pytest.approx(res.parameters["epsilon_tilde"] / math.sqrt(2 * res.steps))
    assert [e.label for e in rec.tape.entries] == [gd.LABEL_Y] * res.steps
    prev = res.theta_1
    for t, entry in enumerate(rec.tape.entries):
        coords = np.swapaxes(prob.loss.gradient(prev[:, None, :], data), -1, -2)
        stat = bun_steinke.clipped_trimmed_mean(coords, trim=5, mean_lower=-2.0, mean_upper=2.0)
        scale = bun_steinke.noise_scale(coords, trim=5, dilation=res.parameters["dilation"],
                                        shift=res.parameters["shift"], mean_lower=-2.0, mean_upper=2.0)
        np.testing.assert_allclose(res.transcript["gradient"][t], stat + scale * np.sinh(entry.values), rtol=1e-12)
        prev = res.transcript["theta"][t]
    again = alg.trimmed_mean_gd(data, runs=3, noise=Replay(rec.tape), **kw)
    np.testing.assert_array_equal(again.theta, res.theta)
    default = alg.trimmed_mean_gd(data, runs=1, rng=0, **{k: v for k, v in kw.items() if k != "trim"})
    assert default.parameters["trim"] == spec.ALG_3.evaluate("trim_default", **at) == 29  # capped at (n - 1)/2


def test_errors():
    prob, data, domain = _regression(n=50)
    with pytest.raises(ParameterError, match="bounded"):
        alg.catoni_giulini_gd(data, loss=prob.loss, domain=Rp(dim=2), epsilon=1.0, delta=1e-5, second_moment=1.0,
                              failure_probability=1e-3, smoothness=1.0, strong_convexity=1.0)
    with pytest.raises(ParameterError, match="theta_1"):
        _alg4(data, prob, domain, theta_1=[2.0, 0.0])
    with pytest.raises(ParameterError, match="second_moment"):
        alg.catoni_giulini_gd(data, loss=prob.loss, domain=domain, epsilon=1.0, delta=1e-5, second_moment=0.0,
                              failure_probability=1e-3, smoothness=1.0, strong_convexity=1.0)
    with pytest.raises(AssumptionError):  # Algorithm 3's epsilon <= 1 (Theorem 4)
        alg.trimmed_mean_gd(data, loss=prob.loss, domain=domain, epsilon=2.0, delta=1e-5, mean_lower=-1.0,
                            mean_upper=1.0, smoothness=1.0, strong_convexity=1.0)
    with pytest.raises(AssumptionError):  # beta >= alpha (Theorem 5)
        alg.trimmed_mean_gd(data, loss=prob.loss, domain=domain, epsilon=1.0, delta=1e-5, mean_lower=-1.0,
                            mean_upper=1.0, smoothness=1.0, strong_convexity=2.0)
    with pytest.raises(TypeError, match="transcript"):
        _alg4(data, prob, domain, transcript="yes")


def test_heavy_tailed_data_are_accepted_and_the_bounded_loss_is_not_needed():
    loss = HeavyTailedHalfSquaredDistance()
    data = np.array([[1e12, -1e12], [0.0, 1.0], [2.0, -3.0], [1e-300, 5.0]])
    res = alg.catoni_giulini_gd(data, loss=loss, domain=L2Ball(radius=1.0, dim=2), epsilon=1.0, delta=1e-5,
                                second_moment=5.0, failure_probability=1e-3, smoothness=1.0, strong_convexity=1.0,
                                runs=2, rng=0)
    assert np.all(np.isfinite(res.theta))
    with pytest.raises(AssumptionError):
        HeavyTailedLeastSquares().constants  # noqa: B018 - the property raises
