"""Tests of audits.twins.bst14: each twin differs from the reference only where intended, and
the exact privacy-loss calculations behind the planted audits are right.

Twins are checked by replaying one noise tape through the twin and through the reference with
the intended edit applied to the tape (exact equality). The exact calculations are checked
against independent computations: mpmath sums, the reference's own log-weights and noise
log-densities, and (for the model of the Algorithm 1 transcript) a Kolmogorov-Smirnov test of
the reference's simulated statistic against the exact CDF (false-alarm rate 1e-4, fixed seed).
"""

from __future__ import annotations

import dataclasses
import math
from unittest import mock

import mpmath
import numpy as np
import pytest
from scipy import stats as sps

from audits.twins import bst14 as planted
from reference import bst14 as alg
from reference.bst14 import grid_walk as gw
from reference.bst14 import noisy_sgd
from reference.samplers import RadialLaplace
from reference.solver import minimise
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry, noise_source
from spec import bst14 as spec
from spec.errors import PrivacyLeakWarning

N1, EPS1, DELTA1 = 6, 1.0, 1e-3


def _alg1(fn, data, **kw):
    _, loss, domain = planted.alg1_pair(data.shape[0])
    return fn(data, loss=loss, domain=domain, epsilon=EPS1, delta=DELTA1, schedule="lipschitz", **kw)


def _edited(tape: NoiseTape, label: str, edit) -> NoiseTape:
    return NoiseTape([TapeEntry(e.label, e.kind, dict(e.params), edit(e.values) if e.label == label else e.values)
                      for e in tape.entries])


# --------------------------------------------------------------------------------------------
# the twins, by tape replay


def test_sigma_over_n_twin_is_the_reference_with_b_t_scaled():
    pair, _, _ = planted.alg1_pair(N1)
    rec = Recorder(3)
    twin = _alg1(planted.noise_gd_sigma_over_n, pair.dataset, runs=4, noise=rec, transcript=True)
    replay = Replay(_edited(rec.tape, planted.B_T_LABEL, lambda z: z * (1.0 / N1)))
    ref = _alg1(alg.noise_gd, pair.dataset, runs=4, noise=replay, transcript=True)
    replay.assert_consumed()
    # sigma/n times z against sigma times z/n: equal up to the rounding of one product
    np.testing.assert_allclose(twin.theta, ref.theta, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(twin.transcript["G"], ref.transcript["G"], rtol=1e-13, atol=1e-13)
    # the one field replaced: sigma (the learning rates stay the reference's)
    assert twin.sigma == ref.sigma / N1
    np.testing.assert_array_equal(twin.configuration.learning_rates, ref.configuration.learning_rates)
    # and it is a different algorithm: the unedited tape gives other outputs
    plain = _alg1(alg.noise_gd, pair.dataset, runs=4, noise=Replay(rec.tape))
    assert not np.allclose(plain.theta, twin.theta)
    # the noise actually added is sigma z / n, z the recorded standard normal draws
    idx = np.stack([e.values for e in rec.tape.entries if e.label == noisy_sgd.LABEL_INDEX])
    z = np.stack([e.values for e in rec.tape.entries if e.label == planted.B_T_LABEL])
    grad_part = N1 * (-pair.dataset[idx])  # n grad l(theta; d) = -n d for the linear loss
    np.testing.assert_allclose(twin.transcript["G"] - grad_part, ref.sigma * z / N1, rtol=1e-12, atol=1e-12)


def test_reused_noise_twin_is_the_reference_with_one_b():
    pair, _, _ = planted.alg1_pair(N1)
    rec = Recorder(5)
    twin = _alg1(planted.noise_gd_reused_noise, pair.dataset, runs=3, noise=rec, transcript=True)
    b_entries = [e for e in rec.tape.entries if e.label == planted.B_T_LABEL]
    assert len(b_entries) == 1  # drawn once
    first = b_entries[0].values
    # the reference, fed the same indices and the first b at every step, gives the same run
    entries = []
    for e in rec.tape.entries:
        if e.label == planted.B_T_LABEL:
            continue
        entries.append(e)
        entries.append(TapeEntry(planted.B_T_LABEL, "normal", {}, first.copy()))
    replay = Replay(NoiseTape(entries))
    ref = _alg1(alg.noise_gd, pair.dataset, runs=3, noise=replay, transcript=True)
    replay.assert_consumed()
    np.testing.assert_array_equal(twin.theta, ref.theta)
    np.testing.assert_array_equal(twin.transcript["G"], ref.transcript["G"])
    # G_t minus the data part is the same vector at every step
    noise = twin.transcript["G"] - twin.transcript["G"][:1]
    assert set(np.unique(np.round(noise / N1))) <= {-2.0, -1.0, 0.0, 1.0, 2.0}


def test_double_coefficient_twin_is_algorithm_2_at_twice_the_coefficient():
    pair, loss, domain, net = planted.alg2_net_pair()
    sampler = alg.NetSampler(net)
    twin = planted.exp_sampling_double_coefficient(pair.dataset, loss=loss, domain=domain, epsilon=0.7,
                                                   runs=50, sampler=sampler, rng=1).theta
    ref = alg.exp_sampling(pair.dataset, loss=loss, domain=domain, epsilon=1.4, runs=50, sampler=sampler, rng=1).theta
    np.testing.assert_array_equal(twin, ref)
    c = spec.ALG_2.evaluate("coefficient", epsilon=0.7, lipschitz=1.0, diameter=2.0)
    c2 = spec.ALG_2.evaluate("coefficient", epsilon=1.4, lipschitz=1.0, diameter=2.0)
    assert c2 == pytest.approx(2 * c, rel=1e-15)
    assert c2 == pytest.approx(0.7 / (1.0 * 2.0), rel=1e-15)  # epsilon / (L ||C||_2): the proof's slip


def test_half_sensitivity_twin_halves_only_the_noise_radius():
    pair, loss, domain = planted.alg3_pair()
    rec = Recorder(9)
    twin = planted.output_perturbation_half_sensitivity(pair.dataset, loss=loss, domain=domain, epsilon=1.0,
                                                        zeta=1.0, runs=20, noise=rec)
    replay = Replay(_edited(rec.tape, planted.ALG3_RADIUS_LABEL, lambda g: g * 0.5))
    ref = alg.output_perturbation(pair.dataset, loss=loss, domain=domain, epsilon=1.0, zeta=1.0, runs=20,
                                  noise=replay)
    replay.assert_consumed()
    np.testing.assert_array_equal(twin.centres, ref.centres)
    np.testing.assert_array_equal(twin.noise, ref.noise)
    assert twin.radius == ref.radius and twin.rate == 2 * ref.rate  # the one field replaced; nothing else
    plain = alg.output_perturbation(pair.dataset, loss=loss, domain=domain, epsilon=1.0, zeta=1.0, runs=20,
                                    noise=Replay(rec.tape))
    np.testing.assert_allclose(np.abs(twin.noise), 0.5 * np.abs(plain.noise), rtol=1e-15)


def test_wrong_schedule_twin_uses_the_lipschitz_rate():
    from reference.bst14.instances import quadratic_instance

    inst = quadratic_instance(dimension=2)
    data = inst.dataset(n=5, M=2.0, rng=0)
    twin = planted.noise_gd_wrong_schedule(data, loss=inst.loss, domain=inst.domain, epsilon=1.0, delta=1e-3,
                                           schedule="strongly_convex", runs=2, rng=4)
    ref = alg.noise_gd(data, loss=inst.loss, domain=inst.domain, epsilon=1.0, delta=1e-3, schedule="lipschitz",
                       runs=2, rng=4)
    assert twin.schedule == "lipschitz"
    np.testing.assert_array_equal(twin.theta, ref.theta)


def test_wrappers_reject_a_non_source():
    with pytest.raises(TypeError, match="NoiseSource"):
        planted.ScaledDraws(np.random.default_rng(0), "x", 2.0)
    with pytest.raises(TypeError, match="NoiseSource"):
        planted.ReusedDraws(None, "x")
    with pytest.raises(TypeError, match="NoiseSource"):
        planted.StackedDraws([noise_source(rng=0), None])


def test_stacked_draws_give_each_row_its_own_sources_draws():
    # row k of a stacked draw is what source k alone gives for one run; each source keeps its state
    rows = [noise_source(rng=1), planted.ScaledDraws(noise_source(rng=2), "b", 0.5), planted.ReusedDraws(noise_source(rng=3), "b")]
    alone = [noise_source(rng=1), planted.ScaledDraws(noise_source(rng=2), "b", 0.5), planted.ReusedDraws(noise_source(rng=3), "b")]
    stacked = planted.StackedDraws(rows)
    for _ in range(3):
        got_b, got_i = stacked.normal("b", (3, 4)), stacked.integers("i", 7, (3,))
        want_b = np.concatenate([a.normal("b", (1, 4)) for a in alone])
        want_i = np.concatenate([a.integers("i", 7, (1,)) for a in alone])
        np.testing.assert_array_equal(got_b, want_b)
        np.testing.assert_array_equal(got_i, want_i)
    with pytest.raises(ValueError, match="number of rows"):
        stacked.normal("b", (2, 4))


# --------------------------------------------------------------------------------------------
# the exact calculations


def test_alg1_sum_probabilities_match_an_mpmath_sum():
    n, sigma_b, t = 5, 7.0, 3.5
    steps = n * n - 1
    with mpmath.workdps(40):
        want = {}
        for s in (+1, -1):
            total = mpmath.mpf(0)
            for k in range(steps + 1):
                w = mpmath.binomial(steps, k) * mpmath.mpf(1) / n**k * (1 - mpmath.mpf(1) / n) ** (steps - k)
                total += w * mpmath.ncdf((t + n * s * k) / (sigma_b * mpmath.sqrt(steps)))
            want[s] = float(total)
    for s in (+1, -1):
        got = planted.alg1_sum_probabilities([t], n=n, sigma_b=sigma_b, sign=s)[0]
        assert got == pytest.approx(want[s], rel=1e-12)


def test_alg1_transcript_statistic_has_the_exact_law():
    """The reference's S_1 on the pair follows the exact mixture law (KS test, false alarm 1e-4)."""
    n = 8
    pair, _, _ = planted.alg1_pair(n)
    sigma = spec.noise_gd_sigma(lipschitz=1.0, n=n, epsilon=EPS1, delta=DELTA1)
    for fn, sigma_b in ((alg.noise_gd, sigma), (planted.noise_gd_sigma_over_n, sigma / n)):
        for data, sign in ((pair.dataset, +1), (pair.neighbour, -1)):
            out = _alg1(fn, data, runs=3000, rng=11 + sign, transcript=True)
            s1 = out.transcript["G"][..., 0].sum(axis=0)

            def cdf(x, sigma_b=sigma_b, sign=sign):
                return planted.alg1_sum_probabilities(x, n=n, sigma_b=sigma_b, sign=sign)

            assert sps.kstest(s1, cdf).pvalue > 1e-4 / 4


def test_alg1_twin_is_a_real_violation_and_the_reference_is_not():
    n = 20
    sigma = spec.noise_gd_sigma(lipschitz=1.0, n=n, epsilon=EPS1, delta=DELTA1)
    twin = planted.alg1_delta_lower_bound(EPS1, n=n, sigma_b=sigma / n)
    assert twin > 0.05  # the claim allows 1e-3
    assert planted.alg1_delta_lower_bound(2.5, n=n, sigma_b=sigma / n) > DELTA1  # epsilon >= 2.5 at delta
    assert planted.alg1_delta_lower_bound(EPS1, n=n, sigma_b=sigma) < 1e-12
    assert spec.certified_epsilon(n=n, delta=DELTA1, epsilon=EPS1) < 0.25  # the reference's slack
    # a single event, recomputed: the bound is at least P - e^eps Q there
    t = -120.0
    p = planted.alg1_sum_probabilities([t], n=n, sigma_b=sigma / n, sign=+1)[0]
    q = planted.alg1_sum_probabilities([t], n=n, sigma_b=sigma / n, sign=-1)[0]
    assert twin >= p - math.e * q - 1e-15


def test_alg1_reuse_probability():
    n = 6
    k = np.arange(n * n)
    w = sps.binom.pmf(k, n * n - 1, 1 / n)
    assert planted.alg1_reuse_sign_probability(n) == pytest.approx(w[(k >= 1) & (2 * k < n * n - 1)].sum())
    # with reused noise, S_2 < 0 on the data set and > 0 on the neighbour on that event
    pair, _, _ = planted.alg1_pair(n)
    for data, sign in ((pair.dataset, -1), (pair.neighbour, +1)):
        g = _alg1(planted.noise_gd_reused_noise, data, runs=400, rng=2, transcript=True).transcript["G"][..., 0]
        s2 = g.sum(axis=0) - g.shape[0] * np.median(g, axis=0)
        frac = np.mean(np.sign(s2) == sign)
        assert frac > 0.98  # P[event] = 0.9985 here; binomial tail of the complement < 1e-4


def test_alg2_net_epsilon_matches_the_reference_log_weights():
    pair, loss, domain, net = planted.alg2_net_pair()
    sampler = alg.NetSampler(net)
    for eps in (1.0, 2.0):  # the reference, and the twin (coefficient doubled)
        lw_d = sampler.log_weights(loss=loss, data=pair.dataset, domain=domain, epsilon=eps)
        lw_n = sampler.log_weights(loss=loss, data=pair.neighbour, domain=domain, epsilon=eps)
        c = spec.ALG_2.evaluate("coefficient", epsilon=eps, lipschitz=1.0, diameter=2.0)
        assert planted.alg2_net_epsilon(c) == pytest.approx(float(np.max(np.abs(lw_d - lw_n))), rel=1e-12)
    c = spec.ALG_2.evaluate("coefficient", epsilon=1.0, lipschitz=1.0, diameter=2.0)
    assert planted.alg2_net_epsilon(c) == pytest.approx(0.7273, abs=1e-4)
    assert planted.alg2_net_epsilon(2 * c) == pytest.approx(1.7353, abs=1e-4)


def test_alg3_pair_attains_the_sensitivity_up_to_L():
    pair, loss, domain = planted.alg3_pair()
    n = pair.dataset.shape[0]
    for data, sign in ((pair.dataset, 1), (pair.neighbour, -1)):
        theta = minimise(loss, data, domain, tolerance=1e-12).theta
        assert theta[0] == pytest.approx(sign / n, abs=1e-6)  # interior minimiser +-1/n
    lip = loss.constants.lipschitz
    assert lip == pytest.approx(1.1)
    rate = alg.output_perturbation(pair.dataset, loss=loss, domain=domain, epsilon=1.0, zeta=1.0, rng=0).rate
    assert rate == pytest.approx(n * 1.0 / (2 * lip), rel=1e-5)  # n Delta eps / (2 L), minus the tolerance term
    # the noise log-density ratio beyond both minimisers is rate * 2/n (the radial-Laplace logpdf)
    noise = RadialLaplace(rate=rate, dim=1)
    x = np.array([[0.06], [0.5], [3.0]])
    ratio = noise.logpdf(x - 1 / n) - noise.logpdf(x + 1 / n)
    np.testing.assert_allclose(ratio, planted.alg3_epsilon(rate, n), rtol=1e-12)
    assert planted.alg3_epsilon(rate, n) == pytest.approx(1 / 1.1, rel=1e-5)
    assert planted.alg3_epsilon(2 * rate, n) == pytest.approx(2 / 1.1, rel=1e-5)


# --------------------------------------------------------------------------------------------
# Algorithm 4: the budget-split twin and the exact transcript law


def _alg4(fn, data, eps, **kw):
    _, loss, domain = planted.alg3_pair()
    return fn(data, loss=loss, domain=domain, epsilon=eps, sampler=alg.QuadraticRejectionSampler(), **kw)


def test_no_budget_split_twin_runs_both_steps_at_the_full_budget():
    pair, _, _ = planted.alg3_pair()
    rec = Recorder(11)
    twin = _alg4(planted.localization_no_budget_split, pair.dataset, 1.0, runs=5, noise=rec)
    assert twin.parameters["epsilon_localization"] == twin.parameters["epsilon_generic"] == pytest.approx(1.0)
    replay = Replay(rec.tape)
    ref = _alg4(alg.localization, pair.dataset, 2.0, runs=5, noise=replay)
    replay.assert_consumed()
    np.testing.assert_array_equal(twin.theta, ref.theta)
    np.testing.assert_array_equal(twin.localization.centres, ref.localization.centres)


def test_alg4_constants_are_the_reference_constants():
    pair, _, _ = planted.alg3_pair()
    for eps in (2.0, 4.0):
        out = _alg4(alg.localization, pair.dataset, eps, runs=2, rng=0)
        c = planted.alg4_constants(eps)
        assert c["rate"] == out.localization.rate and c["radius"] == pytest.approx(out.localization.radius)
        c0 = out.localization.localized_domain(0)
        want = spec.ALG_2.evaluate("coefficient", epsilon=eps / 2, lipschitz=1.1, diameter=c0.diameter)
        assert c["coefficient"] == pytest.approx(want, rel=1e-12)
        assert c["localized_is_whole"]


def test_alg4_log_likelihood_ratio_is_the_sum_of_the_two_log_density_ratios():
    """Independent: the radial-Laplace logpdf for theta_0 (interior points) and the truncated
    normal logpdf (scipy) for theta, each evaluated on both data sets."""
    n, r = planted.ALG3_N, planted.ALG3_RADIUS
    c = planted.alg4_constants(2.0)
    noise = RadialLaplace(rate=c["rate"], dim=1)
    sd = 1 / math.sqrt(c["coefficient"] * n)
    t0 = np.array([-0.09, -0.01, 0.0, 0.03, 0.08])
    th = np.array([-0.1, -0.05, 0.0, 0.02, 0.099])
    lap = noise.logpdf((t0 - 1 / n)[:, None]) - noise.logpdf((t0 + 1 / n)[:, None])

    def tn(mu):
        return sps.truncnorm.logpdf(th, (-r - mu) / sd, (r - mu) / sd, loc=mu, scale=sd)

    want = lap + tn(1 / n) - tn(-1 / n)
    got = planted.alg4_log_likelihood_ratio(t0, th, rate=c["rate"], coefficient=c["coefficient"])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_alg4_rectangle_probability_matches_the_reference():
    """Binomial check of the exact event probability against 20 000 runs of the reference (per
    data set); the bound is the two-sided 1e-4 binomial interval (false-alarm rate 2e-4, seed 5)."""
    pair, _, _ = planted.alg3_pair()
    eps = 2.0
    c = planted.alg4_constants(eps)
    runs = 20_000
    for data, sign in ((pair.dataset, +1), (pair.neighbour, -1)):
        out = _alg4(alg.localization, data, eps, runs=runs, rng=5)
        hits = int(np.sum((out.localization.centres[:, 0] >= 1 / planted.ALG3_N) & (out.theta[:, 0] > 0.02)))
        p = planted.alg4_rectangle_probability(1 / planted.ALG3_N, 0.02, rate=c["rate"],
                                               coefficient=c["coefficient"], sign=sign)
        lo, hi = sps.binom.ppf([5e-5, 1 - 5e-5], runs, p)
        assert lo <= hits <= hi, (sign, hits, p * runs)


def test_alg4_twin_is_a_real_violation_and_the_reference_is_not():
    eps = 2.0
    ref, twin = planted.alg4_constants(eps), planted.alg4_constants(2 * eps)
    n, r = planted.ALG3_N, planted.ALG3_RADIUS
    # the supremum of the transcript's log ratio: theta_0 beyond 1/n and theta = R
    assert ref["rate"] * 2 / n + 2 * ref["coefficient"] * r == pytest.approx(eps * (1 / 1.1) * (1 / 2 + 1 / 4),
                                                                             rel=1e-5)
    t1, p, q = planted.alg4_best_rectangle(eps, rate=twin["rate"], coefficient=twin["coefficient"])
    assert math.log(p / q) > eps + 0.2 and p > 0.1


# --------------------------------------------------------------------------------------------
# Theorem III.4: the warm-start twin and the exact output law of the grid walk


def _gw(sampler, data, **kw):
    _, loss, domain = planted.gridwalk_pair()
    return alg.exp_sampling(data, loss=loss, domain=domain, epsilon=1.0, sampler=sampler, **kw).theta


def test_warm_start_twin_is_the_reference_started_at_the_mode_with_2N_steps():
    pair, loss, domain = planted.gridwalk_pair()
    ref_prep = gw.GridWalkSampler().prepare(loss=loss, data=pair.dataset, domain=domain, epsilon=1.0)
    twin_prep = planted.WarmStartGridWalk().prepare(loss=loss, data=pair.dataset, domain=domain, epsilon=1.0)
    big_n = ref_prep.constants.grid_size
    assert twin_prep.constants == dataclasses.replace(ref_prep.constants, steps=2 * big_n)
    mode = int(np.argmax(ref_prep.log_weight_grid()))
    assert mode == big_n - 1  # the data set's minimiser is +1: the last cell
    np.testing.assert_array_equal(twin_prep.start_cells(3), np.full((3, 1), mode))
    rec = Recorder(4)
    twin = _gw(planted.WarmStartGridWalk(), pair.dataset, runs=50, noise=rec)
    # the reference with exactly those two edits, fed the same tape
    replay = Replay(rec.tape)
    with pytest.warns(PrivacyLeakWarning), mock.patch.object(
            gw.PreparedGridWalk, "start_cells", lambda self, m: np.full((m, 1), mode, dtype=np.int64)):
        ref = _gw(gw.GridWalkSampler(steps=2 * big_n), pair.dataset, runs=50, noise=replay)
    replay.assert_consumed()
    np.testing.assert_array_equal(twin, ref)


def test_gridwalk_output_law_at_the_rule_is_the_exponential_mechanism():
    """At the rule's K the exact law is within the certified Dist_inf of ``exp(c S y)`` on [-1, 1]."""
    pair, loss, domain = planted.gridwalk_pair()
    y = np.linspace(-1, 1, 2001)
    for data, s in ((pair.dataset, 1.0), (pair.neighbour, -1.0)):
        prep = gw.GridWalkSampler().prepare(loss=loss, data=data, domain=domain, epsilon=1.0)
        law = planted.gridwalk_output_law(prep, start=int(prep.start_cells(1)[0, 0]), steps=prep.constants.steps)
        assert law["cells"].sum() == pytest.approx(1.0, abs=1e-9)
        c = prep.constants.coefficient
        exact = c * s * y - math.log(2 * math.sinh(c) / c)  # log density of exp(c S y), S = s
        assert np.max(np.abs(law["log_density"](y) - exact)) <= prep.constants.dist_inf
    laws = [planted.gridwalk_output_law(p, start=int(p.start_cells(1)[0, 0]), steps=p.constants.steps)
            for p in (gw.GridWalkSampler().prepare(loss=loss, data=d, domain=domain, epsilon=1.0)
                      for d in (pair.dataset, pair.neighbour))]
    assert planted.gridwalk_exact_epsilon(*laws) == pytest.approx(2 * c, rel=1e-3)  # 2 c = epsilon/6


@pytest.mark.parametrize("sampler", [gw.GridWalkSampler(), planted.WarmStartGridWalk()], ids=["rule", "twin"])
def test_gridwalk_output_law_matches_the_sampler(sampler):
    """Kolmogorov-Smirnov test of 3000 sampler outputs against the exact CDF (false-alarm rate
    1e-4 per data set, seed 8)."""
    pair, loss, domain = planted.gridwalk_pair()
    for data in (pair.dataset, pair.neighbour):
        prep = sampler.prepare(loss=loss, data=data, domain=domain, epsilon=1.0)
        law = planted.gridwalk_output_law(prep, start=int(prep.start_cells(1)[0, 0]), steps=prep.constants.steps)
        out = prep.sample(runs=3000, rng=8)[:, 0]
        result = sps.kstest(out, lambda t: planted.gridwalk_threshold_probabilities(law, t))
        assert result.pvalue > 1e-4, result


# --------------------------------------------------------------------------------------------
# the Lipschitz-rate twin (learning rate at sigma = 0), by tape replay


def test_noiseless_rate_twin_is_the_reference_with_eta_at_sigma_zero():
    """One tape through the twin and through the reference whose learning rate is edited to
    ``sigma = 0`` (the intended edit, applied by patching ``learning_rates`` in this test only).
    The twin's rate is ``D' / sqrt(t (n^2 L^2 + p sigma^2))`` with the declared ``D'``, equal
    to ``||C|| / sqrt(t n^2 L^2)`` up to rounding, hence the tolerance."""
    from reference.bst14.instances import linear_instance

    n, p = 6, 3
    inst = linear_instance(dimension=p)
    data = inst.dataset(n=n, M=5.0, rng=0)
    kw = dict(loss=inst.loss, domain=inst.domain, epsilon=1.0, delta=1e-3, schedule="lipschitz", runs=4,
              transcript=True)
    rec = Recorder(21)
    twin = planted.noise_gd_noiseless_rate(data, noise=rec, **kw)
    original = alg.learning_rates

    def edited(schedule, **k):
        return original(schedule, **{**k, "sigma": 0.0})

    replay = Replay(rec.tape)
    with mock.patch.object(noisy_sgd, "learning_rates", edited):
        ref = alg.noise_gd(data, noise=replay, **kw)
    replay.assert_consumed()
    assert twin.sigma == ref.sigma  # the noise added is the reference's
    t = np.arange(1, twin.steps + 1)
    np.testing.assert_allclose(ref.learning_rates, 2.0 / np.sqrt(t * n * n * 1.0), rtol=1e-15)  # ||C|| = 2, L = 1
    np.testing.assert_allclose(twin.learning_rates, ref.learning_rates, rtol=1e-14)
    np.testing.assert_allclose(twin.transcript["theta"], ref.transcript["theta"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(twin.theta, ref.theta, rtol=0, atol=1e-12)
    # the projection is exercised, and the unedited reference is a different run
    assert np.any(np.isclose(np.linalg.norm(twin.transcript["theta"], axis=-1), 1.0))
    plain = alg.noise_gd(data, noise=Replay(rec.tape), **kw)
    assert not np.allclose(plain.theta, twin.theta)


def test_declared_diameter_changes_only_the_diameter():
    from reference.domains import L2Ball

    inner = L2Ball(radius=2.0, dim=3)
    wrapped = planted.DeclaredDiameter(inner, 7.5)
    x = np.random.default_rng(0).normal(scale=3.0, size=(50, 3))
    assert wrapped.diameter == 7.5 and inner.diameter == 4.0
    np.testing.assert_array_equal(wrapped.project(x), inner.project(x))
    np.testing.assert_array_equal(wrapped.contains(x), inner.contains(x))
    np.testing.assert_array_equal(wrapped.support(x), inner.support(x))
    np.testing.assert_array_equal(wrapped.lmo(x), inner.lmo(x))
    np.testing.assert_array_equal(wrapped.gauge(x), inner.gauge(x))
    assert wrapped.max_norm == inner.max_norm and wrapped.dim == inner.dim
    np.testing.assert_array_equal(wrapped.interior_point(), inner.interior_point())
    with pytest.raises(TypeError, match="Domain"):
        planted.DeclaredDiameter(np.zeros(3), 1.0)
