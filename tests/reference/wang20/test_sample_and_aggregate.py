"""reference.wang20.sample_and_aggregate (Algorithm 1): the subsets, the centre of attention and the
smooth bound against a brute-force implementation written from the record's docstring, constants
from the record, and replay."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reference import wang20 as alg
from reference.domains import L2Ball
from reference.losses import HeavyTailedHalfSquaredDistance, HeavyTailedLeastSquares
from reference.tape import Recorder, Replay
from reference.wang20 import sample_and_aggregate as sa
from spec.errors import ParameterError
from spec.wang20 import sample_and_aggregate as spec


def _brute_radius(z, i, t, cap):
    """r_i(t): distance from z_i to its t-th nearest neighbour among all z (itself first), cap beyond m."""
    m = len(z)
    if t > m:
        return cap
    d = sorted(float(np.linalg.norm(z[i] - z[j])) for j in range(m))
    return d[t - 1]


def _brute_bound(z, *, s, beta, t0, cap):
    """S = max_k e^{-beta k} 2 r_((k+1)s+1)(t0 + (k+1)s) over every k >= 0 (order statistics beyond m are the cap)."""
    m = len(z)
    best = 0.0
    for k in range(0, m + 2):
        t = t0 + (k + 1) * s
        radii = sorted(min(_brute_radius(z, i, t, cap), cap) for i in range(m))
        j = (k + 1) * s + 1
        r = radii[j - 1] if j <= m else cap
        best = max(best, math.exp(-beta * k) * 2 * r)
    return best


@pytest.mark.parametrize("m", [9, 16, 30, 50])
def test_smooth_bound_matches_the_brute_force(m):
    rng = np.random.default_rng(m)
    at = dict(epsilon=8.0, delta=0.1, dimension=2, subsets=m, n=10 * m, diameter=2.0)
    s = spec.ALG_1.evaluate("multiplicity", **at)
    beta = spec.ALG_1.evaluate("dilation", **at)
    t0 = spec.ALG_1.evaluate("attention_rank", **at)
    big_k = spec.ALG_1.evaluate("last_shift", **at)
    for trial in range(5):
        z = rng.normal(size=(m, 2)) * 10 ** rng.uniform(-2, 0)
        z = z / np.maximum(1.0, np.linalg.norm(z, axis=1))[:, None]  # in the unit ball (diameter 2)
        if trial == 0:
            z[: m // 2] = 0.0  # ties
        got = float(sa.smooth_bound(z, multiplicity=s, dilation=beta, attention_rank=t0, last_shift=big_k,
                                    radius_cap=2.0))
        want = _brute_bound(z, s=s, beta=beta, t0=t0, cap=2.0)
        assert want <= got <= want * (1 + 1e-13)


def test_parameters_subsets_and_centre():
    rng = np.random.default_rng(0)
    data = rng.standard_t(3, size=(64, 1))
    domain = L2Ball(radius=1.0, dim=1)
    rec = Recorder(1)
    res = alg.sample_aggregate(data, loss=HeavyTailedHalfSquaredDistance(), domain=domain, epsilon=1.0, delta=1e-5,
                               subsets=16, runs=3, noise=rec, block_function=alg.projected_mean_blocks)
    at = dict(epsilon=1.0, delta=1e-5, dimension=1, subsets=16, n=64, diameter=2.0)
    for name in ("multiplicity", "shift", "dilation", "noise_multiplier", "block_size", "attention_rank", "last_shift",
                 "radius_cap"):
        assert res.parameters[name] == spec.ALG_1.evaluate(name, **at), name
    assert res.parameters["attention_rank"] == 11 and res.parameters["multiplicity"] == 4
    # the subsets the tape chose: distinct records of size n/m, no record in more than s of them
    entries = [e for e in rec.tape.entries if e.label == sa.LABEL_SUBSET]
    assert len(entries) % 16 == 0
    final = entries[-16:] if res.redraws == 0 else None
    if final is not None:
        picks = np.stack([np.argsort(e.values, axis=-1, kind="stable")[:, :4] for e in final], axis=1)
        counts = np.stack([np.bincount(p.ravel(), minlength=64) for p in picks])
        assert counts.max() <= 4
        np.testing.assert_allclose(res.blocks, domain.project(data[picks].mean(axis=-2)))
    # the centre of attention is the block output with the smallest r_i(t0)
    for r in range(3):
        radii = [_brute_radius(res.blocks[r], i, 11, 2.0) for i in range(16)]
        assert res.centre[r] == pytest.approx(res.blocks[r][int(np.argmin(radii))])
    u = rec.tape.entries[-1]
    assert u.label == sa.LABEL_NOISE and u.values.shape == (3, 1)
    np.testing.assert_allclose(res.theta, res.centre + (res.smooth_bound * res.parameters["noise_multiplier"]
                                                        * (1 + 16 * 2.0**-53))[:, None] * u.values)
    again = alg.sample_aggregate(data, loss=HeavyTailedHalfSquaredDistance(), domain=domain, epsilon=1.0, delta=1e-5,
                                 subsets=16, runs=3, noise=Replay(rec.tape), block_function=alg.projected_mean_blocks)
    np.testing.assert_array_equal(again.theta, res.theta)


def test_default_block_function_is_the_certified_erm():
    rng = np.random.default_rng(1)
    x = rng.standard_t(4, size=(40, 2))
    y = x @ np.array([0.3, -0.2]) + 0.1 * rng.standard_t(3, size=40)
    data = np.column_stack([x, y])
    domain = L2Ball(radius=1.0, dim=2)
    res = alg.sample_aggregate(data, loss=HeavyTailedLeastSquares(), domain=domain, epsilon=1.0, delta=1e-5,
                               subsets=4, runs=1, rng=3)
    assert res.blocks.shape == (1, 4, 2) and np.all(domain.contains(res.blocks))
    half = alg.sample_aggregate(x, loss=HeavyTailedHalfSquaredDistance(), domain=domain, epsilon=1.0, delta=1e-5,
                                subsets=4, runs=2, rng=4)
    exact = alg.sample_aggregate(x, loss=HeavyTailedHalfSquaredDistance(), domain=domain, epsilon=1.0, delta=1e-5,
                                 subsets=4, runs=2, rng=4, block_function=alg.projected_mean_blocks)
    np.testing.assert_allclose(half.blocks, exact.blocks, atol=1e-6)


def test_block_outputs_outside_the_domain_are_rejected():
    data = np.ones((20, 1))

    def outside(blocks, domain):
        return np.full(blocks.shape[:2] + (1,), 5.0)

    with pytest.raises(ParameterError, match="outside the domain"):
        alg.sample_aggregate(data, loss=HeavyTailedHalfSquaredDistance(), domain=L2Ball(radius=1.0, dim=1),
                             epsilon=1.0, delta=1e-5, subsets=4, block_function=outside, rng=0)
    with pytest.raises(ParameterError, match="subsets"):
        alg.sample_aggregate(data, loss=HeavyTailedHalfSquaredDistance(), domain=L2Ball(radius=1.0, dim=1),
                             epsilon=1.0, delta=1e-5, subsets=30, rng=0)
