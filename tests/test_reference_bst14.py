"""Tests of reference.bst14 (Algorithms 1-4 of bst14) and reference.schedules.

Oracles: hand computations in plain Python (``math``) on replayed tapes; the spec functions
(50-digit mpmath) for sigma and learning rates; exact laws for the samplers (mpmath
quadrature of the CDF of the linear-ball marginal, the exact truncated Gaussian CDF, the
softmax probabilities of the net, the Gamma law of the output-perturbation noise norm).

Statistical tests are seeded (deterministic). Each uses a level of 1e-3: on a correct sampler
a fresh seed would fail with probability 1e-3 per test (about 1% over the ~10 such tests).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.stats

from reference import bst14
from reference.bst14 import grid_walk as gridwalk
from reference.domains import Box, Intersection, L2Ball, Rp
from reference.losses import HalfSquaredDistance, Hinge, Linear, Logistic
from reference.schedules import evaluate_over_steps
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry
from spec import bst14 as spec
from spec.errors import AssumptionError, DataBoundError, ParameterError

LEVEL = 1e-3

DATA2 = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]])
BALL2 = L2Ball(radius=1.0, dim=2)
LIN = Linear(data_norm=1.0)
QUAD = HalfSquaredDistance(data_norm=1.0, domain_radius=1.0)


def _tape(entries):
    return NoiseTape([TapeEntry(label, kind, params, np.asarray(values)) for label, kind, params, values in entries])


def _alg1_tape(indices, normals):
    """A tape for Algorithm 1: per step an index entry then a b_t entry."""
    entries = []
    for idx, z in zip(indices, normals):
        entries.append(("bst14 Alg.1 L4 index", "integers", {"high": int(idx[1])}, np.asarray(idx[0], dtype=np.int64)))
        entries.append(("bst14 Alg.1 L5 b_t", "normal", {}, np.asarray(z, dtype=np.float64)))
    return _tape(entries)


# ------------------------------------------------------------------------------ Algorithm 1


def _hand_sigma(lip, n, eps, delta):
    return math.sqrt(32 * lip**2 * n**2 * math.log(n / delta) * math.log(1 / delta)) / eps


def test_alg1_hand_computation_linear_ball_projection_active():
    # n = 2 -> T = 3 steps; p = 2; linear loss l = -<theta, d>, gradient -d; unit ball
    data = np.array([[0.6, 0.8], [0.0, -1.0]])
    n, p, eps, delta = 2, 2, 1.0, 1e-3
    zs = [np.array([[0.4, -0.3]]), np.array([[0.9, 0.2]]), np.array([[-0.3, 0.5]])]
    idx = [0, 1, 1]
    tape = _alg1_tape([(np.array([i]), n) for i in idx], zs)
    src = Replay(tape)
    res = bst14.noise_gd(data, loss=LIN, domain=BALL2, epsilon=eps, delta=delta, schedule="lipschitz", noise=src)
    src.assert_consumed()
    # hand computation (independent of the spec machinery)
    sigma = _hand_sigma(1.0, n, eps, delta)
    theta = [0.0, 0.0]
    projected = False
    for t in (1, 2, 3):
        eta = 2.0 / math.sqrt(t * (n**2 * 1.0 + p * sigma**2))
        d = data[idx[t - 1]]
        g = [n * (-d[j]) + sigma * zs[t - 1][0, j] for j in range(p)]
        x = [theta[j] - eta * g[j] for j in range(p)]
        norm = math.hypot(*x)
        if norm > 1.0:
            projected = True
            x = [xj / norm for xj in x]
        theta = x
    assert projected  # the instance exercises the projection
    assert res.steps == 3
    np.testing.assert_allclose(res.theta[0], theta, rtol=1e-12, atol=1e-14)
    assert res.sigma == pytest.approx(sigma, rel=1e-12)


def test_alg1_hand_computation_hinge_box_strongly_convex_rejected_and_lipschitz_subgradient():
    # hinge: subgradient -y x where y <theta, x> < 1, else 0; Box [-1, 1]^2 projection = clipping
    data = np.array([[0.6, 0.0, 1.0], [0.0, 0.8, -1.0]])
    box = Box(lower=[-1.0, -1.0], upper=[1.0, 1.0])
    loss = Hinge(feature_norm=1.0)
    with pytest.raises(AssumptionError, match="strong_convexity"):
        bst14.noise_gd(data, loss=loss, domain=box, epsilon=1.0, delta=1e-3, schedule="strongly_convex", rng=0)
    n, p, eps, delta = 2, 2, 2.0, 1e-2
    zs = [np.array([[0.002, 0.001]]), np.array([[-0.001, 0.003]]), np.array([[0.0, -0.002]])]
    idx = [0, 1, 0]
    src = Replay(_alg1_tape([(np.array([i]), n) for i in idx], zs))
    theta_1 = np.array([0.5, -0.5])
    res = bst14.noise_gd(data, loss=loss, domain=box, epsilon=eps, delta=delta, schedule="lipschitz",
                         theta_1=theta_1, noise=src)
    src.assert_consumed()
    sigma = _hand_sigma(1.0, n, eps, delta)
    diam = math.sqrt(8.0)
    theta = list(theta_1)
    for t in (1, 2, 3):
        eta = diam / math.sqrt(t * (n**2 + p * sigma**2))
        x, y = data[idx[t - 1], :2], data[idx[t - 1], 2]
        margin = y * (theta[0] * x[0] + theta[1] * x[1])
        grad = [-y * x[j] if margin < 1 else 0.0 for j in range(p)]
        g = [n * grad[j] + sigma * zs[t - 1][0, j] for j in range(p)]
        theta = [min(1.0, max(-1.0, theta[j] - eta * g[j])) for j in range(p)]
    np.testing.assert_allclose(res.theta[0], theta, rtol=1e-12, atol=1e-14)


def test_alg1_batched_equals_per_run_with_tape_slices():
    runs = 5
    for loss, domain, schedule, data in (
        (LIN, BALL2, "lipschitz", DATA2),
        (QUAD, BALL2, "strongly_convex", DATA2),
        (Logistic(feature_norm=1.0), Box(lower=[-2.0, -1.0], upper=[1.0, 3.0]), "lipschitz",
         np.array([[0.6, 0.0, 1.0], [0.0, 0.8, -1.0], [0.3, 0.4, 1.0]])),
    ):
        rec = Recorder(7)
        batched = bst14.noise_gd(data, loss=loss, domain=domain, epsilon=0.5, delta=1e-4, schedule=schedule,
                                 runs=runs, noise=rec)
        for r in range(runs):
            tape = NoiseTape([TapeEntry(e.label, e.kind, e.params, e.values[r:r + 1]) for e in rec.tape.entries])
            src = Replay(tape)
            single = bst14.noise_gd(data, loss=loss, domain=domain, epsilon=0.5, delta=1e-4, schedule=schedule,
                                    noise=src)
            src.assert_consumed()
            np.testing.assert_array_equal(single.theta[0], batched.theta[r])


def test_alg1_tape_structure_and_projection_keeps_iterates_in_c():
    rec = Recorder(3)
    res = bst14.noise_gd(DATA2, loss=LIN, domain=BALL2, epsilon=1.0, delta=1e-5, schedule="lipschitz", runs=4,
                         noise=rec, transcript=True)
    n = 3
    assert len(rec.tape) == 2 * (n**2 - 1)
    for k, e in enumerate(rec.tape.entries):
        if k % 2 == 0:
            assert (e.label, e.kind, e.params, e.values.shape) == ("bst14 Alg.1 L4 index", "integers", {"high": n}, (4,))
        else:
            assert (e.label, e.kind, e.values.shape) == ("bst14 Alg.1 L5 b_t", "normal", (4, 2))
    thetas = res.transcript["theta"]
    assert thetas.shape == (n**2 - 1, 4, 2)
    assert np.all(np.linalg.norm(thetas, axis=-1) <= 1.0 + 1e-12)
    # sigma is huge relative to the gradient at this n: the projection must have been active
    assert np.any(np.isclose(np.linalg.norm(thetas, axis=-1), 1.0))
    np.testing.assert_array_equal(res.theta, thetas[-1])


def test_alg1_transcript_callable_matches_stacked_and_update_rule():
    seen = []
    a = bst14.noise_gd(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, delta=1e-5, schedule="strongly_convex",
                       runs=3, rng=11, transcript=lambda t, s: seen.append((t, s)))
    b = bst14.noise_gd(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, delta=1e-5, schedule="strongly_convex",
                       runs=3, rng=11, transcript=True)
    assert [t for t, _ in seen] == list(range(1, 9))
    assert set(seen[0][1]) == {"G", "theta", "eta"}  # no index: it is internal
    for t, s in seen:
        np.testing.assert_array_equal(s["G"], b.transcript["G"][t - 1])
        np.testing.assert_array_equal(s["theta"], b.transcript["theta"][t - 1])
        prev = b.theta_1 if t == 1 else b.transcript["theta"][t - 2]
        np.testing.assert_allclose(s["theta"], BALL2.project(prev - s["eta"] * s["G"]), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(a.theta, b.theta)
    assert a.transcript is None


def test_alg1_sigma_and_schedules_equal_spec():
    for calibration in ("printed", "rigorous"):
        res = bst14.noise_gd(DATA2, loss=LIN, domain=BALL2, epsilon=0.7, delta=1e-6, schedule="lipschitz",
                             calibration=calibration, rng=0)
        assert res.sigma == spec.noise_gd_sigma(lipschitz=1.0, n=3, epsilon=0.7, delta=1e-6, calibration=calibration)
        want = [spec.THM_II_4.evaluate("eta_lipschitz_sigma", step=t, n=3, lipschitz=1.0, dimension=2, diameter=2.0,
                                       sigma=res.sigma)
                for t in range(1, 9)]
        np.testing.assert_allclose(res.learning_rates, want, rtol=1e-14)
    res = bst14.noise_gd(DATA2, loss=QUAD, domain=BALL2, epsilon=0.7, delta=1e-6, schedule="strongly_convex", rng=0)
    want = [spec.THM_II_4.evaluate("eta_strongly_convex", step=t, n=3, strong_convexity=1.0) for t in range(1, 9)]
    np.testing.assert_allclose(res.learning_rates, want, rtol=1e-14)
    # the printed-sigma formula eta_lipschitz coincides with eta_lipschitz_sigma at the printed sigma
    printed = spec.noise_gd_sigma(lipschitz=1.0, n=3, epsilon=0.7, delta=1e-6)
    e1 = evaluate_over_steps(spec.THM_II_4, "eta_lipschitz", np.arange(1, 9), n=3, lipschitz=1.0, dimension=2,
                             diameter=2.0, epsilon=0.7, delta=1e-6)
    e2 = evaluate_over_steps(spec.THM_II_4, "eta_lipschitz_sigma", np.arange(1, 9), n=3, lipschitz=1.0, dimension=2,
                             diameter=2.0, sigma=printed)
    np.testing.assert_allclose(e1, e2, rtol=1e-14)


def test_schedules_evaluate_over_steps_errors():
    with pytest.raises(ParameterError, match="steps"):
        evaluate_over_steps(spec.THM_II_4, "eta_strongly_convex", np.array([0, 1]), n=3, strong_convexity=1.0)
    with pytest.raises(ParameterError, match="missing"):
        evaluate_over_steps(spec.THM_II_4, "eta_strongly_convex", np.array([1]), n=3)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(epsilon=0.0), Exception, "epsilon"),
        (dict(epsilon=float("nan")), Exception, "epsilon"),
        (dict(delta=1.5), Exception, "delta"),
        (dict(delta=0.0), Exception, "delta"),
        (dict(schedule="adam"), ParameterError, "schedule"),
        (dict(runs=0), ParameterError, "runs"),
        (dict(theta_1=[2.0, 0.0]), ParameterError, "theta_1"),
        (dict(theta_1=[0.0, 0.0, 0.0]), ParameterError, "theta_1"),
        (dict(theta_1=[float("nan"), 0.0]), ParameterError, "theta_1"),
        (dict(calibration="magic"), ParameterError, "calibration"),
        (dict(schedule="strongly_convex"), AssumptionError, "strong_convexity"),
        (dict(transcript=3), TypeError, "transcript"),
        (dict(domain=L2Ball(radius=1.0, dim=3)), ParameterError, "dimension"),
        (dict(domain=Rp(dim=2)), AssumptionError, "bounded"),
    ],
)
def test_alg1_bad_parameters(kwargs, error, match):
    args = dict(loss=LIN, domain=BALL2, epsilon=1.0, delta=1e-5, schedule="lipschitz", rng=0)
    args.update(kwargs)
    with pytest.raises(error, match=match):
        bst14.noise_gd(DATA2, **args)


@pytest.mark.parametrize(
    "data, error",
    [
        (np.array([[0.6, np.nan], [1.0, 0.0]]), ParameterError),
        (np.array([[0.6, np.inf], [1.0, 0.0]]), ParameterError),
        (np.array([[2.0, 0.0], [1.0, 0.0]]), DataBoundError),
        (np.array([[0.5, 0.0]]), ParameterError),  # n = 1
        (np.array([0.5, 0.0]), ParameterError),  # not (n, k)
    ],
)
def test_alg1_bad_data(data, error):
    with pytest.raises(error):
        bst14.noise_gd(data, loss=LIN, domain=BALL2, epsilon=1.0, delta=1e-5, schedule="lipschitz", rng=0)


def test_alg1_rejects_domain_larger_than_loss_domain_radius():
    with pytest.raises(AssumptionError, match="domain_radius"):
        bst14.noise_gd(DATA2, loss=QUAD, domain=L2Ball(radius=2.0, dim=2), epsilon=1.0, delta=1e-5,
                       schedule="strongly_convex", rng=0)


def test_alg1_type_errors():
    with pytest.raises(TypeError, match="loss"):
        bst14.noise_gd(DATA2, loss=object(), domain=BALL2, epsilon=1.0, delta=1e-5, schedule="lipschitz")
    with pytest.raises(TypeError, match="domain"):
        bst14.noise_gd(DATA2, loss=LIN, domain=object(), epsilon=1.0, delta=1e-5, schedule="lipschitz")


# ------------------------------------------------------------------------------ Algorithm 2


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
    theta = bst14.exp_sampling(data, loss=LIN, domain=domain, epsilon=epsilon, runs=m, sampler=sampler, rng=99)
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
                               sampler=bst14.LinearBallSampler(), rng=5)
    assert np.all(np.linalg.norm(theta - domain.center, axis=1) <= 0.5 + 1e-12)
    kappa = spec.ALG_2.evaluate("coefficient", epsilon=30.0, lipschitz=1.0, diameter=1.0) * 0.5 * np.linalg.norm(data.sum(0))
    e = data.sum(0) / np.linalg.norm(data.sum(0))
    s = (theta - domain.center) @ e / 0.5
    cdf = _s_cdf_factory(kappa, 2)
    assert scipy.stats.kstest(s, lambda x: np.clip(cdf(x), 0, 1)).pvalue > LEVEL


def test_linear_ball_sampler_replays_and_checks_its_problem():
    rec = Recorder(0)
    a = bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=5.0, runs=7, sampler=bst14.LinearBallSampler(),
                           noise=rec)
    src = Replay(rec.tape)
    b = bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=5.0, runs=7, sampler=bst14.LinearBallSampler(),
                           noise=src)
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
                               sampler=bst14.QuadraticRejectionSampler(), rng=21)[:, 0]
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
    theta = bst14.exp_sampling(DATA2, loss=LIN, domain=BALL2, epsilon=eps, runs=m, sampler=sampler, rng=8)
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


# ------------------------------------------------------------------------------ Algorithm 3


def test_alg3_minimiser_noise_law_and_radius():
    data = np.array([[0.6, 0.8, 0.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]])
    n, p = 4, 3
    domain = L2Ball(radius=1.0, dim=3)
    eps, zeta, tol = 1.0, 2.0, 1e-12
    res = bst14.output_perturbation(data, loss=QUAD, domain=domain, epsilon=eps, zeta=zeta, runs=5000,
                                    solver_tolerance=tol, rng=3)
    # theta*: the exact minimiser of the sum of half squared distances is the mean (inside the ball)
    np.testing.assert_allclose(res.theta_star, data.mean(0), atol=1e-9)
    lip, delta_sc = 2.0, 1.0
    exact_rate = n * delta_sc * eps / (2 * lip)
    corrected = eps / (2 * lip / (n * delta_sc) + 2 * math.sqrt(2 * tol / (n * delta_sc)))
    assert res.rate == pytest.approx(corrected, rel=1e-12)
    assert res.rate < exact_rate
    assert res.rate == spec.ALG_3.evaluate("noise_rate_with_tolerance", epsilon=eps, lipschitz=lip, n=n, strong_convexity=1.0,
                                                     solver_tolerance=tol)
    # ||b|| ~ Gamma(p, scale 1/rate), before projection
    norms = np.linalg.norm(res.noise, axis=1)
    assert scipy.stats.kstest(norms, scipy.stats.gamma(p, scale=1 / res.rate).cdf).pvalue > LEVEL
    # direction uniform: the first coordinate of b/||b|| is U(-1, 1) for p = 3 (Archimedes)
    assert scipy.stats.kstest(res.noise[:, 0] / norms, scipy.stats.uniform(-1, 2).cdf).pvalue > LEVEL
    np.testing.assert_allclose(res.centres, domain.project(res.theta_star + res.noise), rtol=0, atol=0)
    assert res.radius == pytest.approx(zeta * 2 * lip * p / (delta_sc * eps * n), rel=1e-15)
    assert res.radius >= zeta * 2 * lip * p / (delta_sc * eps * n)
    c0 = res.localized_domain(1)
    assert isinstance(c0, Intersection)
    assert len(res.localized_domains()) == 5000
    assert bool(c0.contains(res.centres[1]))


def test_alg3_errors():
    with pytest.raises(AssumptionError, match="strong_convexity"):
        bst14.output_perturbation(DATA2, loss=LIN, domain=BALL2, epsilon=1.0, zeta=1.0, rng=0)
    with pytest.raises(ParameterError, match="zeta"):
        bst14.output_perturbation(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, zeta=0.0, rng=0)
    with pytest.raises(ParameterError, match="solver_tolerance"):
        bst14.output_perturbation(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, zeta=1.0, solver_tolerance=0.0,
                                  rng=0)
    with pytest.raises(Exception, match="epsilon"):
        bst14.output_perturbation(DATA2, loss=QUAD, domain=BALL2, epsilon=float("inf"), zeta=1.0, rng=0)
    res = bst14.output_perturbation(DATA2, loss=QUAD, domain=BALL2, epsilon=1.0, zeta=1.0, rng=0)
    with pytest.raises(ParameterError, match="run"):
        res.localized_domain(1)


# ------------------------------------------------------------------------------ Algorithm 4


def test_alg4_budgets_constants_and_outputs_in_c0():
    data = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0], [0.8, 0.6], [0.6, -0.8], [1.0, 0.0]])
    n, p, eps = 6, 2, 4.0
    rec = Recorder(17)
    res = bst14.localization(data, loss=QUAD, domain=BALL2, epsilon=eps, runs=6,
                             sampler=bst14.QuadraticRejectionSampler(), noise=rec)
    params = spec.localization_parameters(epsilon=eps, lipschitz=2.0, n=n, strong_convexity=1.0, dimension=p,
                                          solver_tolerance=1e-12)
    assert res.parameters == params
    # basic composition of the two steps: their budgets sum to at most epsilon
    assert params["epsilon_localization"] + params["epsilon_generic"] <= eps
    assert params["epsilon_localization"] == eps / 2
    step1 = res.localization
    assert step1.rate == pytest.approx(params["noise_rate"], rel=1e-14)
    assert step1.radius == pytest.approx(params["radius"], rel=1e-14)
    assert step1.radius == pytest.approx(3 * math.log(n) * 2 * 2.0 * p / (1.0 * (eps / 2) * n), rel=1e-14)
    for r in range(6):
        assert bool(step1.localized_domain(r).contains(res.theta[r], tol=0.0))
    # tape: Algorithm 3's two entries first, then the generic step run by run
    labels = [e.label for e in rec.tape.entries]
    assert labels[:2] == ["bst14 Alg.3 L3 b: radius", "bst14 Alg.3 L3 b: direction"]
    assert all(lab.startswith("bst14 Alg.2 L2 quadratic") for lab in labels[2:])
    src = Replay(rec.tape)
    again = bst14.localization(data, loss=QUAD, domain=BALL2, epsilon=eps, runs=6,
                               sampler=bst14.QuadraticRejectionSampler(), noise=src)
    src.assert_consumed()
    np.testing.assert_array_equal(again.theta, res.theta)


def test_alg4_errors():
    with pytest.raises(AssumptionError, match="strong_convexity"):
        bst14.localization(DATA2, loss=LIN, domain=BALL2, epsilon=1.0, sampler=bst14.LinearBallSampler(), rng=0)
    with pytest.raises(Exception, match="epsilon"):
        bst14.localization(DATA2, loss=QUAD, domain=BALL2, epsilon=0.0, sampler=bst14.QuadraticRejectionSampler(),
                           rng=0)


# ------------------------------------------------------------------------------ bad input, properties


@pytest.mark.parametrize("which", ["alg2", "alg3", "alg4"])
def test_algorithms_2_to_4_reject_out_of_bound_and_nonfinite_data(which):
    bad = np.array([[0.6, 0.8], [1.5, 0.0]])
    nan = np.array([[0.6, 0.8], [np.nan, 0.0]])
    for data, error in ((bad, DataBoundError), (nan, ParameterError)):
        with pytest.raises(error):
            if which == "alg2":
                bst14.exp_sampling(data, loss=QUAD, domain=BALL2, epsilon=1.0,
                                   sampler=bst14.QuadraticRejectionSampler(), rng=0)
            elif which == "alg3":
                bst14.output_perturbation(data, loss=QUAD, domain=BALL2, epsilon=1.0, zeta=1.0, rng=0)
            else:
                bst14.localization(data, loss=QUAD, domain=BALL2, epsilon=1.0,
                                   sampler=bst14.QuadraticRejectionSampler(), rng=0)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    half=st.floats(0.05, 3.0),
    eps=st.floats(0.05, 5.0),
    n=st.integers(2, 5),
)
def test_alg1_iterates_stay_in_box_property(seed, half, eps, n):
    """Every iterate lies in C (projection) and the output equals the last transcript iterate."""
    g = np.random.default_rng(seed)
    x = g.standard_normal((n, 2))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))
    data = np.hstack([x, g.choice([-1.0, 1.0], size=(n, 1))])
    box = Box(lower=[-half, -2 * half], upper=[half, half])
    res = bst14.noise_gd(data, loss=Hinge(feature_norm=1.0), domain=box, epsilon=eps, delta=1e-3,
                         schedule="lipschitz", runs=3, rng=seed, transcript=True)
    th = res.transcript["theta"]
    assert np.all(th >= box.lower) and np.all(th <= box.upper)
    np.testing.assert_array_equal(res.theta, th[-1])


def test_exp_sampling_accepts_the_grid_walk_sampler_interface():
    """The efficient sampler plugs into Algorithm 2 through the same interface (shape, membership)."""
    data = np.array([[1.0], [1.0], [-1.0]])
    theta = bst14.exp_sampling(data, loss=LIN, domain=L2Ball(radius=1.0, dim=1), epsilon=1.0, runs=3,
                               sampler=gridwalk.GridWalkSampler(), rng=0)
    assert theta.shape == (3, 1) and np.all(np.abs(theta) <= 1.0)
