"""Tests of reference.zhang17.output_perturbation (zhang17 Algorithm 1).

Oracles: the spec records (every constant is the record's formula at public values); an
independent plain-Python gradient descent; the noise laws by tape replay and by seeded
Kolmogorov-Smirnov tests (false-alarm rate 1e-6 each); and the sensitivity property
(hypothesis): for random data sets and neighbours, the measured ``||w_T - w'_T||`` never exceeds
the record's tight sensitivity (hence nor the printed one), and the worst case built in
audits/twins/zhang17.py attains Lemma 2's tight constant exactly.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats as sps

from reference import zhang17 as alg
from reference.losses import Hinge, Huber, L2Regulariser, Logistic, Regularised, Sigmoid
from reference.tape import NoiseTape, Recorder, Replay
from reference.zhang17 import instances
from reference.zhang17.output_perturbation import LABEL_GAUSSIAN, LABEL_RADIAL
from spec import gaussian as spec_gaussian
from spec import zhang17 as spec
from spec.errors import AssumptionError, DataBoundError, ParameterError, PrivacyLeakWarning

KS_ALPHA = 1e-6


def _logistic_rows(rng, n, d, feature_norm=1.0):
    x = rng.normal(size=(n, d))
    x *= (feature_norm * rng.uniform(0.1, 1.0, size=n) / np.linalg.norm(x, axis=1))[:, None]
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return np.column_stack([x, y])


def _huber_pair(n, label_bound=1000.0):
    data = np.zeros((n, 2))
    data[0] = (1.0, label_bound)
    neighbour = data.copy()
    neighbour[0] = (1.0, -label_bound)
    return data, neighbour, Huber(feature_norm=1.0, label_bound=label_bound, width=1.0)


# --------------------------------------------------------------------------------------------
# constants from the records


def test_strongly_convex_constants_are_theorem_2s():
    loss = instances.regularised_logistic_loss(strength=0.5)
    c = loss.constants
    for delta, steps_name in ((0.0, "steps_pure"), (1e-5, "steps_approx")):
        consts = alg.gd_constants(loss=loss, n=500, dimension=3, epsilon=0.7, delta=delta)
        values = dict(lipschitz=c.lipschitz, smoothness=c.smoothness, strong_convexity=c.strong_convexity, n=500,
                      dimension=3, epsilon=0.7, minimiser_norm=consts["minimiser_norm"])
        if delta:
            values["delta"] = delta
        assert consts["setting"] == "strongly_convex" and consts["record"] == "zhang17.thm_2"
        assert consts["learning_rate"] == spec.THM_2.evaluate("learning_rate", strong_convexity=c.strong_convexity,
                                                              smoothness=c.smoothness)
        assert consts["steps"] == spec.THM_2.evaluate(steps_name, **values)
        assert consts["sensitivity"] == spec.THM_2.evaluate("sensitivity", lipschitz=c.lipschitz, n=500,
                                                            smoothness=c.smoothness,
                                                            strong_convexity=c.strong_convexity)
        # D is the loss's public bound min(X/lambda, sqrt(2 ln 2/lambda))
        assert consts["minimiser_norm"] == pytest.approx(min(2.0, math.sqrt(2 * math.log(2) / 0.5)), rel=1e-15)


def test_convex_sensitivity_is_evaluated_at_the_steps_run():
    loss = Logistic(feature_norm=2.0)
    c = loss.constants
    auto = alg.gd_constants(loss=loss, n=300, dimension=2, epsilon=1.0, delta=1e-6, minimiser_norm=4.0)
    assert auto["steps"] == spec.THM_3.evaluate("steps_approx", lipschitz=2.0, smoothness=1.0, n=300, dimension=2,
                                                epsilon=1.0, delta=1e-6, minimiser_norm=4.0)
    for steps in (1, 7, 40):
        for form in ("sensitivity", "sensitivity_tight"):
            got = alg.gd_constants(loss=loss, n=300, dimension=2, epsilon=1.0, minimiser_norm=4.0, steps=steps,
                                   sensitivity_formula=form)
            assert got["sensitivity"] == spec.THM_3.evaluate(form, lipschitz=c.lipschitz, smoothness=c.smoothness,
                                                             n=300, steps=steps)
            assert got["learning_rate"] == 1 / c.smoothness


def test_constants_never_depend_on_the_data():
    loss = instances.ridge_loss(strength=4.0)
    rng = np.random.default_rng(0)
    a = instances.ridge_data(n=50, dimension=3, rng=rng)
    b = instances.ridge_data(n=50, dimension=3, rng=rng)
    ra = alg.output_perturbation_gd(a, loss=loss, epsilon=1.0, delta=1e-5, runs=2, rng=1)
    rb = alg.output_perturbation_gd(b, loss=loss, epsilon=1.0, delta=1e-5, runs=2, rng=1)
    for field in ("steps", "learning_rate", "sensitivity", "sigma", "minimiser_norm", "gradient_evaluations"):
        assert getattr(ra, field) == getattr(rb, field)
    np.testing.assert_array_equal(ra.noise, rb.noise)  # same seed, same draws
    assert not np.allclose(ra.w_T, rb.w_T)
    assert ra.gradient_evaluations == 50 * ra.steps


# --------------------------------------------------------------------------------------------
# lines 1-3: gradient descent


def _plain_gd(rows, eta, steps):
    """Independent gradient descent for the logistic loss, in plain Python floats."""
    n, d = len(rows), len(rows[0]) - 1
    w = [0.0] * d
    for _ in range(steps):
        g = [0.0] * d
        for row in rows:
            x, y = row[:-1], row[-1]
            m = y * sum(wi * xi for wi, xi in zip(w, x))
            s = 1.0 / (1.0 + math.exp(m))
            for j in range(d):
                g[j] += -y * s * x[j]
        w = [wi - eta / n * gj for wi, gj in zip(w, g)]
    return w


def test_gradient_descent_matches_a_plain_implementation():
    rows = _logistic_rows(np.random.default_rng(3), 12, 3)
    out = alg.output_perturbation_gd(rows, loss=Logistic(feature_norm=1.0), epsilon=1.0, minimiser_norm=2.0,
                                     steps=9, runs=1, rng=0, iterates=True)
    np.testing.assert_allclose(out.w_T, _plain_gd(rows.tolist(), out.learning_rate, 9), rtol=1e-13, atol=1e-15)
    assert out.iterates.shape == (10, 3) and np.all(out.iterates[0] == 0)
    np.testing.assert_array_equal(out.iterates[-1], out.w_T)


def test_iterates_stay_in_the_ball_of_radius_2D():
    """Theorem 2's region: the loss's constants must hold where the iterates go (record's CAVEAT)."""
    loss = instances.regularised_logistic_loss(strength=0.05)
    for seed in range(5):
        rows = _logistic_rows(np.random.default_rng(seed), 40, 2)
        rows[:, -1] = np.sign(rows[:, 0]) + (rows[:, 0] == 0)  # separable: the minimiser is large
        out = alg.output_perturbation_gd(rows, loss=loss, epsilon=1.0, steps=300, runs=1, rng=0, iterates=True)
        assert np.max(np.linalg.norm(out.iterates, axis=1)) <= 2 * out.minimiser_norm


# --------------------------------------------------------------------------------------------
# lines 4-9: the noise


def test_radial_noise_is_the_tape_scaled_and_has_the_gamma_radius():
    rows = _logistic_rows(np.random.default_rng(1), 30, 3)
    loss = instances.regularised_logistic_loss(strength=0.5)
    rec = Recorder(11)
    out = alg.output_perturbation_gd(rows, loss=loss, epsilon=0.8, runs=20000, noise=rec)
    assert [e.label for e in rec.tape.entries] == [LABEL_RADIAL + ": radius", LABEL_RADIAL + ": direction"]
    radius, direction = rec.tape.entries[0].values, rec.tape.entries[1].values
    assert rec.tape.entries[0].params == {"k": 3.0}
    assert out.rate == spec.ALG_1.evaluate("noise_rate", epsilon=0.8, sensitivity=out.sensitivity)
    want = (radius / out.rate)[:, None] * direction / np.linalg.norm(direction, axis=1, keepdims=True)
    np.testing.assert_allclose(out.noise, want, rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(out.theta, out.w_T + out.noise)
    # ||z|| ~ Gamma(shape d, scale Delta/epsilon): KS at 1e-6 (seeded)
    scale = spec.ALG_1.evaluate("noise_gamma_scale", epsilon=0.8, sensitivity=out.sensitivity)
    assert sps.kstest(np.linalg.norm(out.noise, axis=1), sps.gamma(3, scale=scale).cdf).pvalue > KS_ALPHA
    # a uniform direction: the first coordinate of z/||z|| in R^3 is uniform on [-1, 1] (Archimedes)
    u = out.noise[:, 0] / np.linalg.norm(out.noise, axis=1)
    assert sps.kstest(u, sps.uniform(-1, 2).cdf).pvalue > KS_ALPHA
    # replaying the tape gives the same outputs
    again = alg.output_perturbation_gd(rows, loss=loss, epsilon=0.8, runs=20000, noise=Replay(rec.tape))
    np.testing.assert_array_equal(again.theta, out.theta)


def test_gaussian_noise_printed_and_analytic():
    rows = _logistic_rows(np.random.default_rng(2), 30, 2)
    loss = instances.regularised_logistic_loss(strength=0.5)
    rec = Recorder(5)
    out = alg.output_perturbation_gd(rows, loss=loss, epsilon=1.0, delta=1e-5, runs=20000, noise=rec)
    assert [e.label for e in rec.tape.entries] == [LABEL_GAUSSIAN]
    assert out.sigma == spec.THM_1.evaluate("sigma", epsilon=1.0, delta=1e-5, sensitivity=out.sensitivity)
    np.testing.assert_array_equal(out.noise, out.sigma * rec.tape.entries[0].values)
    np.testing.assert_array_equal(out.theta, out.w_T + out.noise)
    assert sps.kstest(out.noise[:, 1] / out.sigma, "norm").pvalue > KS_ALPHA
    analytic = alg.output_perturbation_gd(rows, loss=loss, epsilon=1.0, delta=1e-5, runs=1, rng=0,
                                          calibration="analytic")
    assert analytic.sigma == spec_gaussian.analytic_sigma(epsilon=1.0, delta=1e-5, sensitivity=out.sensitivity)
    assert analytic.sigma < out.sigma and analytic.calibration == "analytic"
    # beyond spec.zhang17.gaussian_failure_epsilon the printed sigma warns, the analytic one does not
    with pytest.warns(PrivacyLeakWarning):
        alg.output_perturbation_gd(rows, loss=loss, epsilon=12.0, delta=1e-5, runs=1, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        alg.output_perturbation_gd(rows, loss=loss, epsilon=12.0, delta=1e-5, runs=1, rng=0, calibration="analytic")


def test_runs_share_w_T_and_the_seed_reproduces():
    rows = _logistic_rows(np.random.default_rng(4), 20, 2)
    loss = Logistic(feature_norm=1.0)
    a = alg.output_perturbation_gd(rows, loss=loss, epsilon=1.0, minimiser_norm=2.0, runs=7, rng=42)
    b = alg.output_perturbation_gd(rows, loss=loss, epsilon=1.0, minimiser_norm=2.0, runs=7, rng=a.seed)
    np.testing.assert_array_equal(a.theta, b.theta)
    np.testing.assert_array_equal(a.theta, a.w_T[None, :] + a.noise)
    assert a.spec_ids == alg.output_perturbation.SETTING_SPEC_IDS["convex"] and a.seed == 42
    assert Replay(NoiseTape()).exhausted


# --------------------------------------------------------------------------------------------
# the sensitivity: measured ||w_T - w'_T|| against the records (hypothesis)


def _distance(rows, neighbour, loss, consts):
    w, _ = alg.gradient_descent(loss.validate_data(rows), loss=loss, learning_rate=consts["learning_rate"],
                                steps=consts["steps"])
    w2, _ = alg.gradient_descent(loss.validate_data(neighbour), loss=loss, learning_rate=consts["learning_rate"],
                                 steps=consts["steps"])
    return float(np.linalg.norm(w - w2))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 25), d=st.integers(1, 4), steps=st.integers(1, 60))
def test_convex_sensitivity_is_never_exceeded(seed, n, d, steps):
    rng = np.random.default_rng(seed)
    loss = Logistic(feature_norm=1.0)
    rows = _logistic_rows(rng, n, d)
    neighbour = rows.copy()
    neighbour[rng.integers(n)] = _logistic_rows(rng, 1, d)[0]
    tight = alg.gd_constants(loss=loss, n=n, dimension=d, epsilon=1.0, minimiser_norm=1.0, steps=steps,
                             sensitivity_formula="sensitivity_tight")
    printed = alg.gd_constants(loss=loss, n=n, dimension=d, epsilon=1.0, minimiser_norm=1.0, steps=steps)
    dist = _distance(rows, neighbour, loss, tight)
    assert dist <= tight["sensitivity"] * (1 + 1e-12) <= printed["sensitivity"]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 25), d=st.integers(1, 4), steps=st.integers(1, 80),
       strength=st.sampled_from([0.05, 0.5, 4.0]), kind=st.sampled_from(["logistic", "ridge"]))
def test_strongly_convex_sensitivity_is_never_exceeded(seed, n, d, steps, strength, kind):
    rng = np.random.default_rng(seed)
    if kind == "logistic":
        loss = instances.regularised_logistic_loss(strength=strength)
        rows = _logistic_rows(rng, n + 1, d)
    else:
        loss = instances.ridge_loss(strength=strength)
        rows = instances.ridge_data(n=n + 1, dimension=d, rng=rng)
    data, neighbour = rows[:n], rows[:n].copy()
    neighbour[rng.integers(n)] = rows[n]
    tight = alg.gd_constants(loss=loss, n=n, dimension=d, epsilon=1.0, steps=steps,
                             sensitivity_formula="sensitivity_tight")
    printed = alg.gd_constants(loss=loss, n=n, dimension=d, epsilon=1.0, steps=steps)
    assert _distance(data, neighbour, loss, tight) <= tight["sensitivity"] * (1 + 1e-12) <= printed["sensitivity"]


@pytest.mark.parametrize("n,steps", [(2, 1), (5, 7), (10, 10), (20, 60)])
def test_worst_case_attains_the_tight_convex_constant(n, steps):
    """The Huber pair: ||w_T - w'_T|| = 2 eta L T/n exactly (Lemma 2's tight constant), 2/3 of the printed one."""
    data, neighbour, loss = _huber_pair(n)
    tight = alg.gd_constants(loss=loss, n=n, dimension=1, epsilon=1.0, minimiser_norm=1000.0, steps=steps,
                             sensitivity_formula="sensitivity_tight")
    printed = alg.gd_constants(loss=loss, n=n, dimension=1, epsilon=1.0, minimiser_norm=1000.0, steps=steps)
    dist = _distance(data, neighbour, loss, tight)
    assert dist == pytest.approx(tight["sensitivity"], rel=1e-12)
    assert dist / printed["sensitivity"] == pytest.approx(2 / 3, rel=1e-12)


def test_strongly_convex_worst_case_approaches_the_contraction_limit():
    """The Huber pair plus (lambda/2) w^2: GD converges to +-1/(n lambda), so the distance tends to
    2 L_base/(n mu) with L_base = 1, the base loss's gradient bound: beta/(mu + beta) of the tight
    constant 2 L (mu + beta)/(n mu beta) written with L_base (0.990 at lambda = 0.01). The record's
    L is the regularised loss's (1 + lambda 2D = 3 with the public D = 1/lambda), a third more slack."""
    n, lam = 10, 0.01
    data, neighbour, base = _huber_pair(n, label_bound=1e6)
    loss = Regularised(base, L2Regulariser(strength=lam), domain_radius=2 / lam)
    c = loss.constants
    consts = alg.gd_constants(loss=loss, n=n, dimension=1, epsilon=1.0, steps=6000,
                              sensitivity_formula="sensitivity_tight")
    dist = _distance(data, neighbour, loss, consts)
    assert dist == pytest.approx(2 / (n * lam), rel=1e-9)
    with_base = 2 * 1.0 * (lam + c.smoothness) / (n * lam * c.smoothness)
    assert dist / with_base == pytest.approx(c.smoothness / (lam + c.smoothness), rel=1e-9)
    assert dist / with_base > 0.99
    assert dist / consts["sensitivity"] == pytest.approx(dist / with_base / c.lipschitz, rel=1e-9)
    assert c.lipschitz == pytest.approx(3.0)


# --------------------------------------------------------------------------------------------
# bad input


def test_rejected_inputs():
    rows = _logistic_rows(np.random.default_rng(0), 10, 2)
    ok = dict(epsilon=1.0, minimiser_norm=1.0, runs=1, rng=0)
    with pytest.raises(AssumptionError, match="strong_convexity"):
        alg.output_perturbation_gd(rows, loss=Logistic(feature_norm=1.0), setting="strongly_convex", **ok)
    with pytest.raises(AssumptionError, match="smoothness"):
        alg.output_perturbation_gd(rows, loss=Hinge(feature_norm=1.0), **ok)
    with pytest.raises(AssumptionError, match="convex"):
        alg.output_perturbation_gd(rows, loss=Sigmoid(feature_norm=1.0), **ok)
    reg = Regularised(Logistic(feature_norm=1.0), L2Regulariser(strength=0.5), domain_radius=1.0)
    with pytest.raises(AssumptionError, match="2 \\* minimiser_norm"):
        alg.output_perturbation_gd(rows, loss=reg, epsilon=1.0, runs=1, rng=0)  # D = 1.67 > 1/2
    with pytest.raises(AssumptionError, match="Theorem 3"):
        alg.output_perturbation_gd(rows, loss=reg, setting="convex", **ok)
    with pytest.raises(ParameterError, match="no public bound"):
        alg.output_perturbation_gd(rows, loss=Logistic(feature_norm=1.0), epsilon=1.0, runs=1, rng=0)
    for bad in ({"delta": 1.0}, {"epsilon": 0.0}, {"steps": 0}, {"sensitivity_formula": "loose"},
                {"calibration": "classic", "delta": 1e-5}, {"minimiser_norm": -1.0}):
        with pytest.raises(ParameterError):
            alg.output_perturbation_gd(rows, loss=Logistic(feature_norm=1.0), **{**ok, **bad})
    with pytest.raises(ParameterError, match="n \\(1\\)"):
        alg.output_perturbation_gd(rows[:1], loss=Logistic(feature_norm=1.0), **ok)
    outside = rows.copy()
    outside[3, :2] = [3.0, 0.0]
    with pytest.raises(DataBoundError, match="row 3"):
        alg.output_perturbation_gd(outside, loss=Logistic(feature_norm=1.0), **ok)
    with pytest.raises(TypeError):
        alg.output_perturbation_gd(rows, Logistic(feature_norm=1.0), 1.0)
