"""Tests of reference/bst14/grid_walk.py: bst14 Section III-C's efficient exponential sampler.

Oracles: closed forms and mpmath quadrature for the target laws, a brute-force grid minimum for
the inf-convolution, exact transition matrices (numpy eigenvalues / matrix powers) for the
chain. Statistical tests are seeded; each states its false-alarm rate (the probability that a
correct implementation fails it for a random seed).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.stats

from reference import domains, losses
from reference.bst14 import grid_walk as gw
from reference.tape import Recorder
from spec import bst14
from spec.errors import AssumptionError, DataBoundError, ParameterError, PrivacyLeakWarning

LINEAR = losses.Linear(data_norm=1.0)
DISC = domains.L2Ball(radius=1.0, dim=2)
INTERVAL = domains.Box(lower=[-1.0], upper=[1.0])
P_MIN = 1e-3  # per-test false-alarm rate of the goodness-of-fit tests below


def _unit_rows(rng, n, p):
    d = rng.normal(size=(n, p))
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def _chi2_pvalue(counts, probs):
    counts, probs = np.asarray(counts, float), np.asarray(probs, float)
    expected = counts.sum() * probs / probs.sum()
    stat = float(np.sum((counts - expected) ** 2 / expected))
    return scipy.stats.chi2.sf(stat, len(counts) - 1)


# --------------------------------------------------------------------------- step 2: extension
def _brute_force_disc(theta, loss, data, lip, k=400):
    """min over a polar grid of the unit disc (radii k/4, angles 2k): an upper bound on Lbar within
    M * (mesh size) of it. Returns (value, mesh)."""
    r = np.linspace(0, 1, k // 4 + 1)
    a = np.linspace(0, 2 * np.pi, 2 * k, endpoint=False)
    u = np.stack([np.outer(r, np.cos(a)).ravel(), np.outer(r, np.sin(a)).ravel()], axis=1)
    big_m = data.shape[0] * lip
    lu = loss.total(u, data)
    vals = lu[None, :] + big_m * np.linalg.norm(theta[:, None, :] - u[None, :, :], axis=-1)
    mesh = max(1.0 / (k // 4), np.pi / k)  # every point of the disc is within this of a grid point
    return vals.min(axis=1), mesh


@pytest.mark.parametrize("kind", ["linear", "logistic"])
def test_inf_convolution_matches_brute_force_and_loss_on_C(kind):
    rng = np.random.default_rng(11)
    if kind == "linear":
        loss, data, lip = LINEAR, _unit_rows(rng, 5, 2), 1.0
    else:
        loss = losses.Logistic(feature_norm=1.0)
        x = _unit_rows(rng, 5, 2) * rng.uniform(0.2, 1, (5, 1))
        data = np.column_stack([x, rng.choice([-1.0, 1.0], 5)])
        lip = loss.constants.lipschitz
    theta = rng.uniform(-1, 1, (40, 2))
    value, err = gw.inf_convolution(theta, loss=loss, data=data, domain=DISC, lipschitz=lip, tol=1e-6)
    assert np.all(err <= 1e-6 * 1.01)
    inside = np.linalg.norm(theta, axis=1) <= 1
    assert inside.any() and (~inside).any()
    assert np.allclose(value[inside], loss.total(theta[inside], data), rtol=0, atol=1e-12)
    brute, mesh = _brute_force_disc(theta, loss, data, lip)
    big_m = data.shape[0] * lip
    # brute >= Lbar >= brute - M * mesh
    assert np.all(value - err <= brute + 1e-12)
    assert np.all(value + err >= brute - big_m * mesh - 1e-12)


def test_inf_convolution_convex_lipschitz_and_below_shortcut():
    rng = np.random.default_rng(12)
    data = _unit_rows(rng, 4, 2)
    big_m = 4.0
    a, b = rng.uniform(-1, 1, (200, 2)), rng.uniform(-1, 1, (200, 2))
    t = rng.uniform(0, 1, (200, 1))
    pts = np.concatenate([a, b, t * a + (1 - t) * b])
    v, e = gw.inf_convolution(pts, loss=LINEAR, data=data, domain=DISC, lipschitz=1.0, tol=1e-8)
    va, vb, vt = v[:200], v[200:400], v[400:]
    ea, eb, et = e[:200], e[200:400], e[400:]
    slack = ea + eb + et
    assert np.all(vt <= t[:, 0] * va + (1 - t[:, 0]) * vb + slack)  # convex along the segments
    assert np.all(np.abs(va - vb) <= big_m * np.linalg.norm(a - b, axis=1) + ea + eb)  # nL-Lipschitz
    shortcut = gw.projection_extension(pts, loss=LINEAR, data=data, domain=DISC, lipschitz=1.0)
    assert np.all(v - e <= shortcut + 1e-12)


def test_projection_shortcut_is_not_convex_but_inf_convolution_is():
    """L(theta) = 2 theta_1 on the unit disc (two rows d = (-1, 0)), so nL = 2 = |grad L|.

    Then Lbar >= <g, theta> everywhere (Cauchy-Schwarz) with equality where a u in C sees theta in
    direction g, so Lbar is the linear function at these points; the shortcut is not even
    midpoint-convex on the segment below (both ends and the midpoint lie in A = [-1, 1]^2).
    """
    data = np.array([[-1.0, 0.0], [-1.0, 0.0]])
    a, b = np.array([0.88, 0.95]), np.array([0.38, 0.93])
    pts = np.stack([a, b, (a + b) / 2])
    s = gw.projection_extension(pts, loss=LINEAR, data=data, domain=DISC, lipschitz=1.0)
    assert s[2] - (s[0] + s[1]) / 2 > 0.01  # shortcut violates convexity
    v, e = gw.inf_convolution(pts, loss=LINEAR, data=data, domain=DISC, lipschitz=1.0, tol=1e-10)
    assert np.allclose(v, 2 * pts[:, 0], atol=1e-9)  # the linear extension (oracle above)
    assert v[2] <= (v[0] + v[1]) / 2 + 1e-9
    assert s[0] - v[0] > 0.1 and s[2] - v[2] > 0.1  # and it strictly differs from the inf-convolution


# --------------------------------------------------------------------------- the chain
def _prepared(domain, data, epsilon, **kw):
    return gw.GridWalkSampler(**kw).prepare(loss=LINEAR, data=data, domain=domain, epsilon=epsilon)


def test_transition_matrix_detailed_balance_and_stationarity():
    rng = np.random.default_rng(13)
    pg = _prepared(DISC, _unit_rows(rng, 3, 2), 1.0)
    lw = pg.log_weight_grid()
    mat, pi = gw.transition_matrix(lw), gw.stationary_law(lw)
    assert np.allclose(mat.sum(axis=1), 1, atol=1e-14) and np.all(mat >= 0)
    assert np.all(np.diag(mat) >= 0.5 - 1e-15)  # lazy
    flow = pi[:, None] * mat
    assert np.allclose(flow, flow.T, rtol=1e-12, atol=1e-300)  # detailed balance
    assert np.allclose(pi @ mat, pi, rtol=1e-12)


@pytest.mark.parametrize("p, n, eps", [(1, 3, 0.5), (1, 6, 2.0), (2, 2, 1.0), (2, 3, 0.5)])
def test_rule_bounds_hold_on_exact_chains(p, n, eps):
    """The canonical-path bound 1/gap <= sampler_inverse_gap, the pi_min bound, and the rule's K
    against the exact multiplicative distance (which decreases in K)."""
    rng = np.random.default_rng(100 + p * 10 + n)
    dom = INTERVAL if p == 1 else DISC
    data = rng.uniform(-1, 1, (n, 1)) if p == 1 else _unit_rows(rng, n, 2) * rng.uniform(0, 1, (n, 1))
    pg = _prepared(dom, data, eps)
    k = pg.constants
    lw = pg.log_weight_grid()
    mat, pi = gw.transition_matrix(lw), gw.stationary_law(lw)
    sym = np.sqrt(pi)[:, None] * mat / np.sqrt(pi)[None, :]
    eig = np.sort(np.linalg.eigvalsh((sym + sym.T) / 2))
    assert eig[0] >= -1e-12  # lazy: spectrum in [0, 1]
    gap = 1 - eig[-2]
    vals = dict(epsilon=eps, lipschitz=1.0, diameter=dom.diameter, n=n, dimension=p,
                linf_diameter=dom.linf_diameter, inner_radius=1.0, grid_size=k.grid_size)
    assert 1 / gap <= bst14.THM_III_4.evaluate("sampler_inverse_gap", **vals)
    osc = bst14.THM_III_4.evaluate("sampler_log_weight_oscillation", **vals)
    assert lw.max() - lw.min() <= osc
    dists = [gw.multiplicative_distance(mat, pi, s * k.grid_size) for s in (1, 4, 16, 64)]
    assert all(x >= y for x, y in zip(dists, dists[1:]))
    assert gw.multiplicative_distance(mat, pi, k.grid_size - 2) == math.inf if k.grid_size > 2 else True
    cert = pg.certify()
    assert cert["xi"] <= k.mixing_dist
    assert cert["dist_inf_accepted"] <= k.dist_inf
    need = gw.required_steps(mat, pi, k.mixing_dist)
    assert need <= k.steps_rule
    assert gw.multiplicative_distance(mat, pi, need) <= k.mixing_dist < gw.multiplicative_distance(mat, pi, need - 1)


def test_multiplicative_distance_matches_matrix_power():
    rng = np.random.default_rng(14)
    pg = _prepared(DISC, _unit_rows(rng, 2, 2), 1.0)
    lw = pg.log_weight_grid()
    mat, pi = gw.transition_matrix(lw), gw.stationary_law(lw)
    for steps in (40, 97):
        direct = np.linalg.matrix_power(mat, steps) / pi[None, :]
        assert gw.multiplicative_distance(mat, pi, steps) == pytest.approx(np.max(np.abs(np.log(direct))), rel=1e-9)


def test_walk_implements_the_transition_matrix():
    """Histogram of 50000 chains after K = 40 steps from the start cell vs the exact row of P^K,
    on the disc with strongly varying weights (penalty outside C); cells with expected count < 5
    pooled (chi-square, false-alarm rate P_MIN)."""
    data = np.tile([[0.6, 0.8]], (4, 1))
    pg = _prepared(DISC, data, 3.0, grid_size=12)
    lw = pg.log_weight_grid()
    mat = gw.transition_matrix(lw)
    start = pg.start_cells(50_000)
    row = np.linalg.matrix_power(mat, 40)[np.ravel_multi_index(tuple(start[0]), lw.shape)]
    cells = start.copy()
    pg.walk(cells, 40, noise=Recorder(16))
    counts = np.bincount(np.ravel_multi_index(tuple(cells.T), lw.shape), minlength=row.size)
    keep = row * 50_000 >= 5
    probs = np.append(row[keep], row[~keep].sum())
    obs = np.append(counts[keep], counts[~keep].sum())
    assert keep.sum() > 60
    assert _chi2_pvalue(obs, probs) > P_MIN


# --------------------------------------------------------------------------- rejection step
def test_rejection_step_is_exact_in_1d():
    """C = A = [-1, 1], L(theta) = -s theta: F is proportional to exp(b theta), b = c s. Cells are
    drawn exactly from pi. (i) The accepted y follow the closed-form CDF; (ii) the offsets
    u = (y - left edge)/h, pooled over cells, follow the density proportional to exp(b h u) on
    [0, 1] (F is exponential, so every cell has the same within-cell shape): this checks the
    within-cell acceptance itself. A coarse grid (N = 12) makes the within-cell tilt b h = 0.83.
    Two KS tests at P_MIN each."""
    data = np.full((20, 1), 1.0)
    pg = _prepared(INTERVAL, data, 3.0, grid_size=12)
    k = pg.constants
    rate = k.coefficient * 20.0
    rng = np.random.default_rng(17)
    pi = gw.stationary_law(pg.log_weight_grid())
    cells = rng.choice(pi.size, size=400_000, p=pi)[:, None]
    y, acc = pg.rejection_step(cells, noise=Recorder(18))
    ys = y[acc, 0]
    assert acc.sum() > 3000
    cdf = lambda x: np.expm1(rate * (x + 1)) / np.expm1(2 * rate)  # noqa: E731
    assert scipy.stats.kstest(ys, cdf).pvalue > P_MIN
    tilt = rate * k.spacing
    offsets = (ys + 1) / k.spacing - cells[acc, 0]
    assert np.all((offsets >= 0) & (offsets <= 1))
    assert scipy.stats.kstest(offsets, lambda u: np.expm1(tilt * u) / np.expm1(tilt)).pvalue > P_MIN


def test_rejection_step_is_exact_in_2d_including_outside_C():
    """Disc in the square A (N = 9): accepted y vs F / int_A F on 2 x 2 bins per cell (so the
    within-cell shape matters), bin masses by a 20 x 20 midpoint rule per bin of the (separately
    verified) ln F (chi-square, P_MIN)."""
    rng = np.random.default_rng(19)
    data = np.tile([[0.6, 0.8]], (4, 1))
    pg = _prepared(DISC, data, 3.0, grid_size=9)
    pi = gw.stationary_law(pg.log_weight_grid())
    flat = rng.choice(pi.size, size=1_500_000, p=pi)
    cells = np.array(np.unravel_index(flat, (9, 9))).T
    y, acc = pg.rejection_step(cells, noise=Recorder(20))
    ys = y[acc]
    assert len(ys) > 20_000
    nb = 18
    g = -1 + (np.arange(nb * 20) + 0.5) * 2 / (nb * 20)
    pts = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
    mass = np.exp(pg.log_f(pts)[0]).reshape(nb, 20, nb, 20).sum(axis=(1, 3)).ravel()
    bins = np.minimum(((ys + 1) / (2 / nb)).astype(int), nb - 1)
    counts = np.bincount(bins[:, 0] * nb + bins[:, 1], minlength=nb * nb)
    assert _chi2_pvalue(counts, mass) > P_MIN
    assert np.sum(np.linalg.norm(ys, axis=1) > 1) > 1000  # the outside-C part is exercised


def test_probability_of_C_at_least_half():
    """Pr_F[C] >= 1/2 (the reason for sampler_alpha), by midpoint quadrature on A, for data that
    push the mass to the boundary (all rows equal: the loss slope is n L)."""
    for n, eps in ((3, 1.0), (8, 2.0)):
        data = np.tile([[0.6, 0.8]], (n, 1))
        pg = _prepared(DISC, data, eps)
        g = -1 + (np.arange(300) + 0.5) * 2 / 300
        pts = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
        w = np.exp(pg.log_f(pts)[0])
        assert w[np.linalg.norm(pts, axis=1) <= 1].sum() / w.sum() >= 0.5


# --------------------------------------------------------------------------- end to end
def test_end_to_end_1d_at_the_rule_K():
    """Whole sampler at the rule's K (no override) on C = [-1, 1]: KS against the exact
    exponential-sampling law exp(-c L) on C (closed form), false-alarm rate P_MIN. The sampler's
    law is within Dist_inf epsilon/3 of it; at 1500 samples that is far below KS resolution only
    for small epsilon, so epsilon = 0.5 (Dist_inf <= 1/6, and the certified value is ~0)."""
    rng = np.random.default_rng(21)
    data = rng.uniform(-1, 1, (3, 1))
    pg = _prepared(INTERVAL, data, 0.5)
    k = pg.constants
    assert k.steps == k.steps_rule
    assert pg.certify()["xi"] < 1e-6
    out = pg.sample(runs=1500, rng=22)
    assert out.shape == (1500, 1) and np.all(np.abs(out) <= 1)
    rate = k.coefficient * data.sum()
    cdf = lambda x: np.expm1(rate * (x + 1)) / np.expm1(2 * rate)  # noqa: E731
    assert scipy.stats.kstest(out[:, 0], cdf).pvalue > P_MIN


def test_end_to_end_2d_matches_exponential_sampling_law():
    """Unit disc, linear loss; K from the exact certificate (xi <= 1e-3, with the warning the
    override must raise). Marginals of <theta, s/|s|> (density sqrt(1 - t^2) e^(c|s|t)) and of the
    orthogonal coordinate (density sinh(c|s| sqrt(1 - u^2))), bin masses by mpmath quadrature;
    two chi-square tests at P_MIN each."""
    rng = np.random.default_rng(23)
    data = np.tile([[0.6, 0.8]], (4, 1))
    base = _prepared(DISC, data, 2.0)
    lw = base.log_weight_grid()
    need = gw.required_steps(gw.transition_matrix(lw), gw.stationary_law(lw), 1e-3)
    with pytest.warns(PrivacyLeakWarning, match="below the rule"):
        pg = _prepared(DISC, data, 2.0, steps=need)
    out = pg.sample(runs=3000, rng=24)
    assert np.all(np.linalg.norm(out, axis=1) <= 1 + 1e-15)
    s = data.sum(axis=0)
    a = pg.constants.coefficient * np.linalg.norm(s)
    e1 = s / np.linalg.norm(s)
    e2 = np.array([-e1[1], e1[0]])
    edges = np.linspace(-1, 1, 11)
    with mpmath.workdps(20):
        par = [float(mpmath.quad(lambda t: mpmath.sqrt(1 - t * t) * mpmath.exp(a * t), [lo, hi]))
               for lo, hi in zip(edges[:-1], edges[1:])]
        orth = [float(mpmath.quad(lambda u: mpmath.sinh(a * mpmath.sqrt(1 - u * u)), [lo, hi]))
                for lo, hi in zip(edges[:-1], edges[1:])]
    c1 = np.histogram(out @ e1, edges)[0]
    c2 = np.histogram(out @ e2, edges)[0]
    assert _chi2_pvalue(c1, par) > P_MIN
    assert _chi2_pvalue(c2, orth) > P_MIN


def test_fallback_returns_uniform_points_of_the_unit_ball():
    """retries = 0 forces the fallback: every output is in B; |theta|^2 is uniform on [0, 1] for
    the uniform law on the disc (KS, P_MIN)."""
    data = _unit_rows(np.random.default_rng(25), 3, 2)
    out = _prepared(DISC, data, 1.0, retries=0).sample(runs=3000, rng=26)
    r2 = np.sum(out**2, axis=1)
    assert np.all(r2 <= 1)
    assert scipy.stats.kstest(r2, "uniform").pvalue > P_MIN


def test_retries_and_fallback_weight_constants():
    data = _unit_rows(np.random.default_rng(27), 5, 2)
    k = _prepared(DISC, data, 1.0).constants
    assert k.retries == 5
    q = mpmath.exp(-mpmath.mpf(1) / 6) / 2
    assert k.try_in_c == pytest.approx(float(q), rel=1e-15)
    assert k.fallback_weight >= float((1 - q) ** 5) and k.fallback_weight == pytest.approx(float((1 - q) ** 5))
    # a user-chosen retries count enters the same record formula (no second copy in the reference)
    k3 = _prepared(DISC, data, 1.0, retries=3).constants
    assert k3.retries == 3 and k3.fallback_weight == pytest.approx(float((1 - q) ** 3))


def test_sampler_replays_from_a_tape():
    data = _unit_rows(np.random.default_rng(28), 2, 2)
    with pytest.warns(PrivacyLeakWarning):
        pg = _prepared(DISC, data, 1.0, steps=50)
    rec = Recorder(29)
    first = pg.sample(runs=5, noise=rec)
    again = pg.sample(runs=5, noise=rec.tape.replay())
    assert np.array_equal(first, again)


def test_lazy_weights_match_the_precomputed_table():
    """max_cells = 1 forces lazy evaluation with a cache; same tape, same outputs."""
    data = _unit_rows(np.random.default_rng(31), 2, 2)
    with pytest.warns(PrivacyLeakWarning):
        table = _prepared(DISC, data, 1.0, steps=30)
    with pytest.warns(PrivacyLeakWarning):
        lazy = _prepared(DISC, data, 1.0, steps=30, max_cells=1)
    assert lazy._table is None and table._table is not None
    rec = Recorder(32)
    first = table.sample(runs=50, noise=rec)
    assert np.array_equal(first, lazy.sample(runs=50, noise=rec.tape.replay()))
    assert 0 < len(lazy._cache) <= lazy.constants.grid_size**2


def test_through_algorithm_2_and_round_cap():
    """reference.bst14.exp_sampling with the grid-walk sampler (the sampler interface), and the
    loud failure when the round cap is hit."""
    from reference import bst14 as ref_bst14

    data = np.random.default_rng(33).uniform(-1, 1, (3, 1))
    out = ref_bst14.exp_sampling(data, loss=LINEAR, domain=INTERVAL, epsilon=0.5, runs=30,
                                 sampler=gw.GridWalkSampler(), rng=34).theta
    assert out.shape == (30, 1) and np.all(np.abs(out) <= 1)
    with pytest.raises(ref_bst14.SamplerExhaustedError, match="max_rounds"):
        gw.GridWalkSampler(max_rounds=1, grid_size=1).sample(
            loss=LINEAR, data=data, domain=INTERVAL, epsilon=0.5, runs=2000, rng=35)


# --------------------------------------------------------------------------- bad input
def test_bad_input():
    data = _unit_rows(np.random.default_rng(30), 3, 2)
    with pytest.raises(AssumptionError, match="inner_radius"):
        _prepared(domains.L2Ball(radius=0.5, dim=2), data, 1.0)  # unit ball not inside C
    with pytest.raises(AssumptionError, match="inner_radius"):
        _prepared(DISC, data, 1.0, centre=[0.5, 0.0])
    with pytest.raises(ParameterError, match="epsilon"):
        _prepared(DISC, data, -1.0)
    with pytest.raises(DataBoundError):
        _prepared(DISC, 2 * data, 1.0)
    with pytest.raises(ParameterError, match="dim"):
        _prepared(domains.L2Ball(radius=1.0, dim=3), data, 1.0)
    with pytest.raises(ParameterError, match="inner_radius"):
        gw.GridWalkSampler(inner_radius=0.0)
    with pytest.raises(ParameterError, match="retries"):
        gw.GridWalkSampler(retries=-1)
    with pytest.raises(ParameterError, match="bounded"):
        _prepared(domains.Rp(dim=2), data, 1.0)
    pg = _prepared(DISC, data, 1.0)
    with pytest.raises(ParameterError, match="max_cells"):
        pg.certify(max_cells=10)  # the exact verification is for small grids only
    with pytest.raises(ParameterError, match="tol"):
        gw.inf_convolution([[2.0, 0.0]], loss=LINEAR, data=data, domain=DISC, lipschitz=1.0, tol=0.0)
    with pytest.raises(gw.CertificateError):
        gw.inf_convolution([[0.99, 0.99]], loss=LINEAR, data=data, domain=DISC, lipschitz=1.0,
                           tol=1e-14, max_iterations=1)
