"""reference.bst14.exponential_sampling: Algorithm 2 and the exact samplers against their exact laws.
"""

from __future__ import annotations
import math
import mpmath
import numpy as np
import pytest
import scipy.stats
from reference import bst14
from reference.bst14 import grid_walk as gridwalk
from reference.domains import Box, Intersection, L2Ball
from reference.losses import HalfSquaredDistance, Linear
from reference.tape import Recorder, Replay
from spec import bst14 as spec
from spec.errors import AssumptionError, ParameterError

LEVEL = 1e-3


DATA2 = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]])


BALL2 = L2Ball(radius=1.0, dim=2)


LIN = Linear(data_norm=1.0)


QUAD = HalfSquaredDistance(data_norm=1.0, domain_radius=1.0)


def _s_cdf_factory(kappa, p):
    """Exact CDF of s ~ e^{kappa s}(1 - s^2)^{(p-1)/2} on [-1, 1] by mpmath quadrature.

    The CDF is integrated exactly (mpmath, 20 digits) on a grid refined geometrically towards
    s = 1 (where the mass concentrates for large kappa) and interpolated monotonically (PCHIP)
    in between; the interpolation error is far below the KS resolution 1/sqrt(m).
    """
    from scipy.interpolate import PchipInterpolator

    grid = np.unique(np.concatenate([np.linspace(-1, 1, 161), 1 - np.geomspace(1e-7, 1.0, 160)]))
    with mpmath.workdps(20):
        k = mpmath.mpf(kappa)
        f = lambda s: mpmath.exp(k * (s - 1)) * (1 - s * s) ** (mpmath.mpf(p - 1) / 2)  # noqa: E731
        pieces = [mpmath.quad(f, [mpmath.mpf(a), mpmath.mpf(b)]) for a, b in zip(grid[:-1], grid[1:])]
        acc = np.cumsum([float(x) for x in pieces])
    vals = np.concatenate([[0.0], acc / acc[-1]])
    return PchipInterpolator(grid, vals)


@pytest.mark.parametrize("p, epsilon", [(1, 3.0), (3, 0.0), (3, 1.0), (2, 40.0)])
def test_linear_ball_sampler_law_of_s_and_orthogonal_part(p, epsilon):
    rng = np.random.default_rng(1234 + p)
    n = 6
    data = rng.choice([-1.0, 1.0], size=(n, p)) / math.sqrt(p)
    data[:, 0] = np.abs(data[:, 0])  # S != 0
    domain = L2Ball(radius=1.0, dim=p)
    sampler = bst14.LinearBallSampler()
    m = 4000
    if epsilon == 0.0:
        data = np.vstack([data, -data])  # S = 0: the uniform ball
        epsilon = 1.0
    theta = bst14.exp_sampling(data, loss=LIN, domain=domain, epsilon=epsilon, runs=m, sampler=sampler, rng=99).theta
    assert np.all(np.linalg.norm(theta, axis=1) <= 1.0 + 1e-12)
    total = data.sum(axis=0)
    norm_s = np.linalg.norm(total)
    e = total / norm_s if norm_s > 0 else np.eye(p)[0]
    kappa = spec.ALG_2.evaluate("coefficient", epsilon=epsilon, lipschitz=1.0, diameter=2.0) * norm_s
    assert sampler.kappa(loss=LIN, data=data, domain=domain, epsilon=epsilon) == pytest.approx(kappa, rel=1e-14)
    s = theta @ e
    cdf = _s_cdf_factory(kappa, p)
    assert scipy.stats.kstest(s, lambda x: np.clip(cdf(x), 0, 1)).pvalue > LEVEL
    # power check: the same sample rejects the law with the exponent of dimension p + 1
    wrong = _s_cdf_factory(kappa, p + 1)
    assert scipy.stats.kstest(s, lambda x: np.clip(wrong(x), 0, 1)).pvalue < LEVEL
    if p >= 2:
        # given s, the orthogonal part is uniform in a (p-1)-ball of radius sqrt(1 - s^2):
        # (||v|| / sqrt(1 - s^2))^(p-1) ~ U(0, 1)
        v = theta - s[:, None] * e[None, :]
        u = (np.linalg.norm(v, axis=1) / np.sqrt(1 - s * s)) ** (p - 1)
        assert scipy.stats.kstest(u, "uniform").pvalue > LEVEL


def test_linear_ball_sampler_shifted_ball_and_radius():
    domain = L2Ball(radius=0.5, dim=2, center=[0.2, -0.1])
    data = np.array([[1.0, 0.0], [0.6, 0.8]])
    theta = bst14.exp_sampling(data, loss=LIN, domain=domain, epsilon=30.0, runs=2000,
                               sampler=bst14.LinearBallSampler(), rng=5).theta
    assert np.all(np.linalg.norm(theta - domain.center, axis=1) <= 0.5 + 1e-12)
    kappa = spec.ALG_2.evaluate("coefficient", epsilon=30.0, lipschitz=1.0, diameter=1.0) * 0.5 * np.linalg.norm(data.sum(0))
    e = data.sum(0) / np.linalg.norm(data.sum(0))
    s = (theta - domain.center) @ e / 0.5
    cdf = _s_cdf_factory(kappa, 2)
    assert scipy.stats.kstest(s, lambda x: np.clip(cdf(x), 0, 1)).pvalue > LEVEL


def test_linear_ball_sampler_replays_and_checks_its_problem():
    rec = Recorder(0)
    a = bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=5.0, runs=7, sampler=bst14.LinearBallSampler(),
                           noise=rec).theta
    src = Replay(rec.tape)
    b = bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=5.0, runs=7, sampler=bst14.LinearBallSampler(),
                           noise=src).theta
    src.assert_consumed()
    np.testing.assert_array_equal(a, b)
    with pytest.raises(AssumptionError, match="Linear"):
        bst14.exp_sampling(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, sampler=bst14.LinearBallSampler(), rng=0)
    with pytest.raises(AssumptionError, match="L2Ball"):
        bst14.exp_sampling(DATA2, loss=LIN, domain=Box(lower=[-1, -1], upper=[1, 1]), epsilon=1.0,
                           sampler=bst14.LinearBallSampler(), rng=0)


def test_quadratic_rejection_sampler_truncated_gaussian_1d():
    data = np.array([[0.9], [1.0], [0.7], [1.0]])
    n = 4
    domain = L2Ball(radius=1.0, dim=1)
    eps = 2.0
    theta = bst14.exp_sampling(data, loss=QUAD, domain=domain, epsilon=eps, runs=4000,
                               sampler=bst14.QuadraticRejectionSampler(), rng=21).theta[:, 0]
    c = spec.ALG_2.evaluate("coefficient", epsilon=eps, lipschitz=2.0, diameter=2.0)
    mu, sd = data.mean(), 1.0 / math.sqrt(c * n)
    law = scipy.stats.truncnorm((-1 - mu) / sd, (1 - mu) / sd, loc=mu, scale=sd)
    assert np.all(np.abs(theta) <= 1.0)
    assert scipy.stats.kstest(theta, law.cdf).pvalue > LEVEL


def test_quadratic_rejection_sampler_cap_fails_loudly():
    data = np.array([[1.0, 0.0], [1.0, 0.0]])
    tiny = Intersection(BALL2, L2Ball(radius=1e-3, dim=2, center=[-0.99, 0.0]))
    with pytest.raises(bst14.SamplerExhaustedError, match="max_attempts"):
        bst14.exp_sampling(data, loss=QUAD, domain=tiny, epsilon=1.0, runs=2,
                           sampler=bst14.QuadraticRejectionSampler(max_attempts=5), rng=0)
    with pytest.raises(AssumptionError, match="HalfSquaredDistance"):
        bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=1.0, sampler=bst14.QuadraticRejectionSampler(),
                           rng=0)


def test_net_sampler_frequencies_chi_square():
    points = np.array([[0.0, 0.0], [0.5, 0.5], [1.0, 0.0], [-0.6, 0.8], [0.0, -1.0]])
    eps = 6.0
    sampler = bst14.NetSampler(points)
    m = 20000
    theta = bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=eps, runs=m, sampler=sampler, rng=8).theta
    counts = np.array([np.sum(np.all(theta == pt, axis=1)) for pt in points])
    assert counts.sum() == m
    # independent oracle: softmax of -c L(x_j; D) = c <x_j, S> in mpmath
    c = spec.ALG_2.evaluate("coefficient", epsilon=eps, lipschitz=1.0, diameter=2.0)
    total = DATA2.sum(0)
    w = [mpmath.exp(c * mpmath.mpf(float(pt @ total))) for pt in points]
    probs = np.array([float(x / sum(w)) for x in w])
    lw = sampler.log_weights(loss=LIN, data=DATA2, domain=BALL2, epsilon=eps)
    np.testing.assert_allclose(np.exp(lw), probs, rtol=1e-12)
    assert scipy.stats.chisquare(counts, probs * m).pvalue > LEVEL


def test_net_sampler_errors():
    with pytest.raises(ParameterError, match="points"):
        bst14.NetSampler(np.array([1.0, 2.0]))
    with pytest.raises(ParameterError, match="lie in the domain"):
        bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=1.0, sampler=bst14.NetSampler([[2.0, 0.0]]),
                           rng=0)
    with pytest.raises(TypeError, match="sampler"):
        bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=1.0, sampler=object(), rng=0)
    with pytest.raises(Exception, match="epsilon"):
        bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=-1.0, sampler=bst14.LinearBallSampler(), rng=0)


def test_exp_sampling_accepts_the_grid_walk_sampler_interface():
    """The efficient sampler plugs into Algorithm 2 through the same interface (shape, membership)."""
    data = np.array([[1.0], [1.0], [-1.0]])
    theta = bst14.exp_sampling(data, loss=LIN, domain=L2Ball(radius=1.0, dim=1), epsilon=1.0, runs=3,
                               sampler=gridwalk.GridWalkSampler(), rng=0).theta
    assert theta.shape == (3, 1) and np.all(np.abs(theta) <= 1.0)
