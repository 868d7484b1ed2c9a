"""reference.bst14.noisy_sgd: Algorithm 1 against hand computations, the spec records and its tape.
"""

from __future__ import annotations
import math
import numpy as np
import pytest
from reference import bst14
from reference.domains import Box, L2Ball, Rp
from reference.losses import HalfSquaredDistance, Hinge, Linear, Logistic
from reference.schedules import evaluate_over_steps
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry
from spec import bst14 as spec
from spec.errors import AssumptionError, DataBoundError, ParameterError
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

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
