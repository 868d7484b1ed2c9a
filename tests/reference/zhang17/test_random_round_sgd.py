"""Tests of reference.zhang17.random_round_sgd (zhang17 Algorithm 2, RRPSGD).

Oracles: the spec records (sigma, eta, the distribution of R); an independent per-run replay of
the tape in plain Python; seeded chi-square / Kolmogorov-Smirnov tests of R and of the noise
(false-alarm rate 1e-6 each).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from reference import zhang17 as alg
from reference.losses import Huber, Linear, Logistic, Sigmoid, Welsch, origin_value_bound
from reference.tape import Recorder, Replay
from reference.zhang17 import instances
from reference.zhang17.random_round_sgd import LABEL_INDEX, LABEL_NOISE, LABEL_ROUND
from spec import zhang17 as spec
from spec.errors import AssumptionError, DataBoundError, ParameterError

STAT_ALPHA = 1e-6


def _rows(seed, n=6, d=2):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]
    return np.column_stack([x, np.where(rng.random(n) < 0.5, 1.0, -1.0)])


def test_constants_are_the_records_with_a_public_gap():
    loss = Sigmoid(feature_norm=2.0)
    c = loss.constants
    consts = alg.rrpsgd_constants(loss=loss, n=40, dimension=3, epsilon=0.5, delta=1e-4)
    assert consts["initial_gap"] == origin_value_bound(loss) == 0.5
    assert consts["sigma"] == spec.ALG_2.evaluate("sigma", lipschitz=c.lipschitz, n=40, epsilon=0.5, delta=1e-4)
    assert consts["learning_rate"] == spec.THM_5.evaluate(
        "learning_rate", lipschitz=c.lipschitz, smoothness=c.smoothness, dimension=3, n=40, epsilon=0.5, delta=1e-4,
        initial_gap=0.5)
    assert consts["max_rounds"] == 1600 and consts["round_probability"] == pytest.approx(1 / 1600)
    # a caller's public bound replaces the default
    other = alg.rrpsgd_constants(loss=loss, n=40, dimension=3, epsilon=0.5, delta=1e-4, initial_gap=2.0)
    assert other["learning_rate"] > consts["learning_rate"]


def _plain_replay(rows, loss_grad, tape, sigma, eta, runs, d):
    """Per-run replay of Algorithm 2 from its tape, in plain Python (independent of the reference)."""
    entries = tape.entries
    rounds = [int(v) + 1 for v in entries[0].values]
    out = []
    for r in range(runs):
        w = [0.0] * d
        for t in range(rounds[r]):
            i = int(entries[1 + 2 * t].values[r])
            z = entries[2 + 2 * t].values[r]
            g = loss_grad(w, rows[i])
            w = [wj - eta * (gj + sigma * zj) for wj, gj, zj in zip(w, g, z)]
        out.append(w)
    return rounds, out


def _sigmoid_grad(w, row):
    x, y = row[:-1], row[-1]
    s = 1.0 / (1.0 + math.exp(y * sum(a * b for a, b in zip(w, x))))
    return [-y * s * (1 - s) * xi for xi in x]


def test_replay_matches_a_plain_implementation():
    rows = _rows(3)
    loss = Sigmoid(feature_norm=1.0)
    rec = Recorder(9)
    out = alg.rrpsgd(rows, loss=loss, epsilon=1.0, delta=1e-3, runs=4, noise=rec)
    tape = rec.tape
    assert tape.entries[0].label == LABEL_ROUND and tape.entries[0].params == {"high": 36}
    steps = int(out.rounds.max())
    assert len(tape) == 1 + 2 * steps
    assert {e.label for e in tape.entries[1::2]} == {LABEL_INDEX} and {e.label for e in tape.entries[2::2]} == {
        LABEL_NOISE}
    rounds, want = _plain_replay(rows.tolist(), _sigmoid_grad, tape, out.sigma, out.learning_rate, 4, 2)
    assert rounds == out.rounds.tolist()
    np.testing.assert_allclose(out.theta, want, rtol=1e-12, atol=1e-14)
    again = alg.rrpsgd(rows, loss=loss, epsilon=1.0, delta=1e-3, runs=4, noise=Replay(tape))
    np.testing.assert_array_equal(again.theta, out.theta)


def test_round_is_uniform_on_one_to_n_squared():
    rows = _rows(1, n=3)
    out = alg.rrpsgd(rows, loss=Sigmoid(feature_norm=1.0), epsilon=1.0, delta=1e-3, runs=45000, rng=2)
    counts = np.bincount(out.rounds, minlength=10)[1:]
    assert out.rounds.min() >= 1 and out.rounds.max() <= 9 and counts.size == 9
    assert sps.chisquare(counts).pvalue > STAT_ALPHA


def test_transcript_and_noise_law():
    rows = _rows(5, n=4)
    loss = Welsch(scale=1.0, data_norm=2.0)
    out = alg.rrpsgd(np.asarray(rows[:, :2]), loss=loss, epsilon=1.0, delta=1e-3, runs=3000, rng=4, transcript=True)
    g, w, active = out.transcript["G"], out.transcript["w"], out.transcript["active"]
    assert g.shape[0] == out.rounds.max() and active.shape == g.shape[:2]
    np.testing.assert_array_equal(active, np.arange(g.shape[0])[:, None] < out.rounds[None, :])
    for r in range(5):  # the final iterate is w after the run's last active step
        np.testing.assert_array_equal(w[out.rounds[r] - 1, r], out.theta[r])
    # G_t - grad f = sigma z: the gradient part is bounded by L, so G_t/sigma is N(0, 1) up to L/sigma = 0.01
    first = g[0, :, 0] / out.sigma
    assert abs(float(np.mean(first))) < 6 / math.sqrt(first.size) + loss.constants.lipschitz / out.sigma
    hooked = []
    alg.rrpsgd(np.asarray(rows[:, :2]), loss=loss, epsilon=1.0, delta=1e-3, runs=3, rng=4,
               transcript=lambda t, state: hooked.append((t, state["G"].shape, state["active"].sum())))
    assert [h[0] for h in hooked] == list(range(len(hooked))) and hooked[0][1] == (3, 2)


def test_noise_is_standard_normal_times_sigma():
    rows = _rows(6, n=3)
    rec = Recorder(8)
    out = alg.rrpsgd(rows, loss=Sigmoid(feature_norm=1.0), epsilon=2.0, delta=1e-3, runs=5000, noise=rec)
    z = np.concatenate([e.values.reshape(-1) for e in rec.tape.entries if e.label == LABEL_NOISE])
    assert sps.kstest(z, "norm").pvalue > STAT_ALPHA
    assert out.sigma == spec.ALG_2.evaluate("sigma", lipschitz=0.25, n=3, epsilon=2.0, delta=1e-3)


def test_step_size_never_depends_on_the_data():
    loss = Huber(feature_norm=1.0, label_bound=10.0, width=1.0)
    a = np.array([[1.0, 10.0], [0.0, 0.0], [0.0, 0.0]])
    b = np.array([[1.0, 0.5], [0.0, 0.0], [0.0, 0.0]])  # F(0, b) is 1/76 of F(0, a)
    ra = alg.rrpsgd(a, loss=loss, epsilon=1.0, delta=1e-3, runs=2, rng=1)
    rb = alg.rrpsgd(b, loss=loss, epsilon=1.0, delta=1e-3, runs=2, rng=1)
    assert (ra.learning_rate, ra.sigma, ra.initial_gap) == (rb.learning_rate, rb.sigma, rb.initial_gap)
    assert ra.initial_gap == origin_value_bound(loss) == 9.5


def test_instances_location_data_is_within_the_welsch_bound():
    data = instances.location_data(n=500, dimension=3, centre=0.1, spread=0.1, rng=0)
    Welsch(scale=1.0, data_norm=0.7).check_data(data)
    assert data.shape == (500, 3)


class _NegativeQuadratic(Welsch):
    """A Welsch loss minus a constant: smooth, but not non-negative (no public initial gap)."""

    def __init__(self):
        super().__init__(scale=1.0, data_norm=2.0)

    def _value(self, theta, x, y):
        return super()._value(theta, x, y) - 1.0


def test_rejected_inputs():
    rows = _rows(0)
    ok = dict(epsilon=1.0, delta=1e-3, runs=1, rng=0)
    with pytest.raises(AssumptionError, match="domain_radius"):
        alg.rrpsgd(rows, loss=instances.ridge_loss(strength=1.0), **ok)
    with pytest.raises(AssumptionError, match="smoothness"):
        alg.rrpsgd(rows[:, :2], loss=Linear(data_norm=2.0), **ok)
    with pytest.raises(ParameterError, match="no public bound"):  # a smooth loss that may be negative
        alg.rrpsgd(rows[:, :2], loss=_NegativeQuadratic(), **ok)
    for bad in ({"delta": 0.0}, {"delta": 1.0}, {"epsilon": -1.0}, {"initial_gap": 0.0}, {"runs": 0}):
        with pytest.raises(ParameterError):
            alg.rrpsgd(rows, loss=Logistic(feature_norm=1.0), **{**ok, **bad})
    with pytest.raises(ParameterError, match="n \\(1\\)"):
        alg.rrpsgd(rows[:1], loss=Logistic(feature_norm=1.0), **ok)
    out_of_bounds = rows.copy()
    out_of_bounds[2, 0] = 5.0
    with pytest.raises(DataBoundError, match="row 2"):
        alg.rrpsgd(out_of_bounds, loss=Logistic(feature_norm=1.0), **ok)
    with pytest.raises(TypeError, match="transcript"):
        alg.rrpsgd(rows, loss=Logistic(feature_norm=1.0), transcript="yes", **ok)
