"""reference.configured: every algorithm box configured without data, described, then run; one result shape."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from reference import bst14, configured, domains, losses, wang19, wang20, zhang17
from reference.algorithms import boxes
from reference.tape import Recorder, Replay
from spec.errors import ParameterError

DATA = np.array([[0.6, 0.0, 0.0, 1.0], [0.0, 0.8, 0.0, -1.0], [0.3, 0.4, 0.0, 1.0], [-0.6, 0.0, 0.8, -1.0]])
HINGE = losses.Hinge(feature_norm=1.0)
BALL = domains.L2Ball(radius=1.0, dim=3)


def noise_gd(**kw):
    return bst14.NoiseGD.configure(loss=HINGE, domain=BALL, n=4, epsilon=1.0, delta=1e-5, schedule="lipschitz", **kw)


def test_configure_reads_no_data_and_run_gives_the_function_result():
    """The box holds sigma, T and the learning rates before any data; running it is the old function."""
    box = noise_gd()
    assert box.n == 4 and box.steps == 15 and box.learning_rates.shape == (15,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        box.sigma = 1.0
    res = box.run(DATA, runs=3, rng=7)
    want = bst14.noise_gd(DATA, loss=HINGE, domain=BALL, epsilon=1.0, delta=1e-5, schedule="lipschitz", runs=3, rng=7)
    np.testing.assert_array_equal(res.theta, want.theta)
    assert res.sigma == box.sigma and res.seed == 7 and res.spec_ids == box.spec_ids
    assert res.configuration is box and want.configuration.sigma == box.sigma


def test_describe_lists_the_constants_with_their_source_and_the_claim():
    text = noise_gd().describe()
    assert "lipschitz  1.0  (declared by Hinge(feature_norm=1.0)" in text
    assert "claim: (epsilon = 1.0, delta = 1e-05)-DP under replace-one: proven" in text
    assert "RDP certificate of the printed sigma" in text and "work: 15 gradient evaluations per run" in text
    assert "sigma " in text and "bst14.thm_II_4" in text and "flags: printed-calibration" in text


def test_run_checks_the_data_against_the_configuration():
    box = noise_gd()
    with pytest.raises(ParameterError, match=r"data \(3 rows\) must have the n \(4\)"):
        box.run(DATA[:3], rng=1)
    with pytest.raises(ParameterError):  # outside the loss's declared bounds: rejected, never clipped
        box.run(DATA * 2, rng=1)


def test_an_unproven_claim_is_refused_and_names_the_calibration_that_holds():
    """zhang17's printed Gaussian at epsilon = 20 is not (epsilon, delta)-DP (its record's ERRATUM)."""
    ridge = losses.Regularised(losses.LeastSquares(feature_norm=1.0, label_bound=1.0, domain_radius=1.0),
                               losses.L2Regulariser(strength=4.0), domain_radius=1.0)
    kw = dict(loss=ridge, n=50, dimension=3, epsilon=20.0, delta=1e-5)
    with pytest.warns(Warning), pytest.raises(configured.UnprovenClaimError, match="calibration 'analytic' holds"):
        zhang17.OutputPerturbationGD.configure(**kw)
    with pytest.warns(Warning):
        allowed = zhang17.OutputPerturbationGD.configure(**kw, allow_unproven=True)
    assert not allowed.certificate.proven and "unproven-claim" in allowed.all_flags()
    assert zhang17.OutputPerturbationGD.configure(**kw, calibration="analytic").certificate.proven


def test_a_twin_is_the_configured_box_with_one_field_replaced():
    """The sigma-over-n bug as a replaced field: the same tape gives the reference run with the
    noise draws divided by 20 (and its certificate no longer holds)."""
    box = noise_gd()
    twin = dataclasses.replace(box, sigma=box.sigma / 20)
    rec = Recorder(3)
    got = twin.run(DATA, runs=2, noise=rec)
    assert not twin.certificate.proven  # its own certificate sees the smaller noise
    tape = rec.tape
    for entry in tape.entries:
        if entry.label == bst14.noisy_sgd.LABEL_NOISE:
            entry.values = entry.values / 20
    want = box.run(DATA, runs=2, noise=Replay(tape))
    np.testing.assert_allclose(got.theta, want.theta, rtol=1e-12, atol=1e-12)


def _eighteen():
    """A tiny configuration of every box (n = 4 or 6), for the shape tests."""
    x = np.array([[0.3, 0.4], [-0.5, 0.1], [0.2, -0.6], [0.0, 0.5], [0.4, 0.4], [-0.3, -0.2]])
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    xy = np.column_stack([x, y])
    log, b2 = losses.Logistic(feature_norm=1.0), domains.L2Ball(radius=1.0, dim=2)
    quad = losses.HalfSquaredDistance(data_norm=1.0, domain_radius=1.0)
    heavy = losses.HeavyTailedHalfSquaredDistance()
    out = {
        "bst14.alg_1": (dict(loss=log, domain=b2, epsilon=1.0, delta=1e-5, schedule="lipschitz"), xy),
        "bst14.alg_2": (dict(loss=losses.Linear(data_norm=1.0), domain=b2, epsilon=1.0,
                             sampler=bst14.LinearBallSampler()), x),
        "bst14.alg_3": (dict(loss=quad, domain=b2, epsilon=1.0, zeta=2.0), x),
        "bst14.alg_4": (dict(loss=quad, domain=b2, epsilon=1.0, sampler=bst14.QuadraticRejectionSampler()), x),
        "zhang17.alg_1": (dict(loss=log, regulariser=losses.L2Regulariser(strength=0.5), dimension=2, epsilon=1.0,
                               delta=1e-5, steps=2), xy),
        "zhang17.alg_2": (dict(loss=losses.Sigmoid(feature_norm=1.0), dimension=2, epsilon=1.0, delta=1e-3), xy),
        "wang17.alg_1": (dict(loss=log, regulariser=losses.L2Regulariser(strength=0.5), dimension=2, epsilon=1.0,
                              delta=1e-5, epochs=1, epoch_length=2, learning_rate=0.1), xy),
        "wang17.alg_2": (dict(loss=log, dimension=2, epsilon=1.0, delta=1e-5, epochs=1, epoch_length=1), xy),
        "wang17.alg_3": (dict(loss=log, domain=b2, epsilon=1.0, delta=1e-5, steps=2), xy),
        "wang17.alg_4": (dict(loss=log, dimension=2, epsilon=1.0, delta=1e-5, steps=2), xy),
        "wang19.alg_1": (dict(loss=log, domain=b2, epsilon=1.0, delta=1e-5, steps=2), xy),
        "wang19.alg_2": (dict(loss=log, domain=b2, epsilon=1.0, delta=1e-5, steps=2), xy),
        "wang19.alg_3": (dict(loss=log, domain=b2, epsilon=1.0, delta=1e-5, steps=2), xy),
        "wang19.alg_4": (dict(loss=log, domain=domains.L1Ball(radius=1.0, dim=2), epsilon=0.9, delta=1e-5, steps=2),
                         xy),
        "wang20.alg_1": (dict(loss=quad, domain=b2, epsilon=1.0, delta=1e-5, subsets=2), x),
        "wang20.alg_2": (dict(epsilon=1.0, mean_lower=-1.0, mean_upper=1.0), x[:, :1]),
        "wang20.alg_3": (dict(loss=heavy, domain=b2, epsilon=1.0, delta=1e-5, mean_lower=-2.0, mean_upper=2.0,
                              smoothness=1.0, strong_convexity=1.0), x),
        "wang20.alg_4": (dict(loss=heavy, domain=b2, epsilon=1.0, delta=1e-5, second_moment=1.0,
                              failure_probability=1e-3, smoothness=1.0, strong_convexity=1.0), x),
    }
    assert set(out) == set(boxes())
    return out


EIGHTEEN = _eighteen()


@pytest.mark.parametrize("record_id", list(EIGHTEEN))
def test_every_box_has_one_result_shape(record_id):
    """theta (runs, p), spec_ids, seed and the configuration, whatever the box (wang19's x and wang20
    Algorithm 2's value were other names)."""
    kw, data = EIGHTEEN[record_id]
    box = boxes()[record_id].configure(n=data.shape[0], **kw)
    assert box.ALGORITHM == record_id and isinstance(box.describe(), str)
    res = box.run(data, runs=2, rng=5)
    assert res.theta.shape == (2, box.p) and res.seed == 5
    assert res.spec_ids == box.spec_ids and res.configuration is box
    assert box.gradient_evaluations(runs=2) >= 1


@pytest.mark.parametrize("record_id", list(EIGHTEEN))
def test_every_box_refuses_one_record_the_same_way(record_id):
    kw, _ = EIGHTEEN[record_id]
    with pytest.raises(ParameterError, match=rf"n \(1\) must be >= 2 \({record_id}: "):
        boxes()[record_id].configure(n=1, **kw)


def test_the_old_names_stay_as_aliases():
    x = np.array([[0.3], [-0.5], [0.2], [0.9]])
    assert np.array_equal(wang20.trimmed_mean(x[:, 0], epsilon=1.0, mean_lower=-1.0, mean_upper=1.0, rng=1).value,
                          wang20.TrimmedMean.configure(n=4, epsilon=1.0, mean_lower=-1.0, mean_upper=1.0)
                          .run(x, rng=1).theta[:, 0])
    kw, data = EIGHTEEN["wang19.alg_1"]
    res = wang19.ProximalGradient.configure(n=6, **kw).run(data, rng=2)
    assert res.x is res.theta


def test_theorem_defaults_that_degenerate_carry_a_note():
    """zhang17 Theorem 2's T and wang20 Theorem 8's T are 1 on small data: the box says so."""
    ridge = losses.Regularised(losses.LeastSquares(feature_norm=1.0, label_bound=1.0, domain_radius=1.0),
                               losses.L2Regulariser(strength=4.0), domain_radius=1.0)
    box = zhang17.OutputPerturbationGD.configure(loss=ridge, n=50, dimension=3, epsilon=1.0, delta=1e-5)
    assert box.steps == 1 and box.notes and box.notes[0].startswith("T = 1") and "--steps" in box.notes[0]
    cg = wang20.CatoniGiuliniGD.configure(loss=losses.HeavyTailedHalfSquaredDistance(),
                                          domain=domains.L2Ball(radius=1.0, dim=10), n=569, epsilon=1.0, delta=1e-5,
                                          second_moment=1.0, failure_probability=0.01, smoothness=1.0,
                                          schedule="convex")
    assert cg.steps == 1 and "Theorem 8" in cg.notes[0]
