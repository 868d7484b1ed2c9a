"""Tests of audits.adapters: one-sample functions as batched mechanisms."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from audits import audit_privacy, replace_one
from audits.adapters import per_sample
from audits.privacy import RngWarning
from spec.errors import ParameterError


def noisy_count(data, rng):  # module level: picklable for worker processes
    return float(np.sum(data)) + rng.laplace(0.0, 1.0)


def noisy_pair(data, rng):
    return np.array([float(np.sum(data)), 0.0]) + rng.normal(size=2)


def unseeded_count(data):  # draws from Python's global generator: cannot be seeded
    return float(np.sum(data)) + random.gauss(0.0, 1.0)


class Model:
    def __init__(self, coef):
        self.coef_ = coef


def fit(data, rng):
    return Model(np.array([np.mean(data) + rng.normal(), 1.0]))


def test_shapes_and_stacking():
    rng = np.random.default_rng(0)
    assert per_sample(noisy_count)(np.ones(4), runs=7, rng=rng).shape == (7,)
    assert per_sample(noisy_pair, chunk=3)(np.ones(4), runs=7, rng=rng).shape == (7, 2)
    out = per_sample(fit, output=lambda m: m.coef_)(np.ones(4), runs=5, rng=rng)
    assert out.shape == (5, 2) and np.all(out[:, 1] == 1.0)


def test_outputs_depend_on_the_seed_only_not_on_jobs():
    """Chunks are seeded from the audit's rng, so the result is the same with 1 or 2 workers,
    different for another seed, and the chunk-by-chunk draws are independent (no repeats)."""
    data = np.arange(5.0)
    serial = per_sample(noisy_count, chunk=50)(data, runs=300, rng=np.random.default_rng(11))
    parallel = per_sample(noisy_count, chunk=50, jobs=2)(data, runs=300, rng=np.random.default_rng(11))
    other = per_sample(noisy_count, chunk=50)(data, runs=300, rng=np.random.default_rng(12))
    assert np.array_equal(serial, parallel)
    assert not np.array_equal(serial, other)
    assert np.unique(serial).size == serial.size  # chunks do not repeat each other's draws
    assert abs(np.mean(serial) - 10.0) < 6 * np.sqrt(2.0 / 300)  # Laplace(1) variance 2


def test_unseeded_functions_run_in_workers_without_repeating_draws():
    """With seeded=False and jobs > 1 each worker reseeds the global generators from the OS:
    no two chunks repeat each other's draws (forked workers would otherwise share state)."""
    mechanism = per_sample(unseeded_count, seeded=False, jobs=2, chunk=20)
    out = mechanism(np.zeros(3), runs=80, rng=np.random.default_rng(0))
    assert out.shape == (80,) and np.unique(out).size == 80


def test_seeded_adapter_audits_reproducibly_and_unseeded_one_does_not_warn():
    pair = replace_one(np.array([0.5, 0.0, 0.0]), 0, -0.5)
    mech = per_sample(noisy_count)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RngWarning)
        a = audit_privacy(mech, pair, epsilon=1.0, runs=400, seed=5, low_bits=False)
        b = audit_privacy(mech, pair, epsilon=1.0, runs=400, seed=5, low_bits=False)
        audit_privacy(per_sample(unseeded_count, seeded=False), pair, epsilon=1.0, runs=400, seed=5,
                      low_bits=False)  # declared unseeded: no warning
    outcome = [{k: v for k, v in r.to_dict().items() if k != "execution"} for r in (a, b)]  # timings differ
    assert outcome[0] == outcome[1]
    # the same function without the declaration: the probe warns that it cannot be reproduced
    with pytest.warns(RngWarning, match="draws randomness outside its rng"):
        audit_privacy(per_sample(lambda d, rng: unseeded_count(d)), pair, epsilon=1.0, runs=400, seed=5,
                      low_bits=False)


def test_bad_arguments():
    with pytest.raises(TypeError, match="must be callable"):
        per_sample(3)
    with pytest.raises(TypeError, match="seeded"):
        per_sample(noisy_count, seeded="yes")
    with pytest.raises(TypeError, match="output"):
        per_sample(noisy_count, output=2)
    with pytest.raises((ParameterError, TypeError), match="jobs"):
        per_sample(noisy_count, jobs=0)
    with pytest.raises((ParameterError, TypeError), match="chunk"):
        per_sample(noisy_count, chunk=1.5)
    assert "per_sample(noisy_count)" in repr(per_sample(noisy_count))
