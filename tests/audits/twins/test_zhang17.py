"""Tests of audits.twins.zhang17: each twin differs from the reference only where intended, and the
exact privacy-loss calculations behind the planted audits are right.

Twins are checked by replaying one noise tape through the twin and through the reference with the
intended edit applied to the tape (exact equality). The exact calculations are checked against
independent computations: mpmath sums and normal CDFs, the noise laws' own log-densities, and
seeded Kolmogorov-Smirnov tests of the reference's simulated statistics against the exact CDFs
(false-alarm rate 1e-4 each, fixed seeds).
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from scipy import stats as sps

from audits.twins import zhang17 as planted
from reference import zhang17 as alg
from reference.samplers import RadialLaplace
from reference.tape import NoiseTape, Recorder, Replay, TapeEntry, noise_source
from spec import gaussian as spec_gaussian
from spec import zhang17 as spec
from spec.errors import PrivacyLeakWarning

KS_ALPHA = 1e-4
N, Y = 10, planted.HUBER_LABEL_BOUND


def _edited(tape: NoiseTape, label: str, edit) -> NoiseTape:
    return NoiseTape([TapeEntry(e.label, e.kind, dict(e.params), edit(e.values) if e.label == label else e.values)
                      for e in tape.entries])


# --------------------------------------------------------------------------------------------
# the instances


def test_huber_pair_moves_gd_by_exactly_t_eta_over_n():
    pair, loss = planted.huber_pair(N)
    assert pair.relation.value == "replace-one"
    for steps in (1, 10, 100):
        for data, sign in ((pair.dataset, +1), (pair.neighbour, -1)):
            out = alg.output_perturbation_gd(data, loss=loss, epsilon=1.0, minimiser_norm=Y, steps=steps, runs=1,
                                             rng=0, iterates=True)
            np.testing.assert_allclose(out.iterates[:, 0], sign * np.arange(steps + 1) * out.learning_rate / N,
                                       rtol=1e-12)
    assert loss.constants.lipschitz == 1.0 and loss.constants.smoothness == 1.0


def test_regularised_huber_pair_is_strongly_convex_on_its_ball():
    pair, loss = planted.regularised_huber_pair(N, strength=0.1)
    c = loss.constants
    assert (c.strong_convexity, c.smoothness) == (0.1, pytest.approx(1.1)) and c.lipschitz == pytest.approx(3.0)
    out = alg.output_perturbation_gd(pair.dataset, loss=loss, epsilon=1.0, steps=400, runs=1, rng=0)
    assert out.minimiser_norm == pytest.approx(10.0) and out.w_T[0] == pytest.approx(1.0, rel=1e-12)


# --------------------------------------------------------------------------------------------
# Algorithm 1 twins


@pytest.mark.parametrize("delta,label", [(0.0, planted.RADIAL_RADIUS_LABEL), (1e-5, planted.GAUSSIAN_LABEL)])
def test_steps_as_one_twin_is_the_reference_with_the_noise_scaled(delta, label):
    pair, loss = planted.huber_pair(N)
    kw = dict(loss=loss, epsilon=1.0, delta=delta, minimiser_norm=Y, steps=10, runs=5)
    rec = Recorder(3)
    twin = planted.output_perturbation_gd_steps_as_one(pair.dataset, noise=rec, **kw)
    ref = alg.output_perturbation_gd(pair.dataset, noise=Replay(_edited(rec.tape, label, lambda v: v / 10)), **kw)
    np.testing.assert_allclose(twin.theta, ref.theta, rtol=1e-15, atol=1e-15)
    # = the reference calibrated to Delta(1): the record's sensitivity at T = 1 is Delta(10)/10
    one = spec.THM_3.evaluate("sensitivity", lipschitz=1.0, smoothness=1.0, n=N, steps=1)
    assert one == pytest.approx(ref.sensitivity / 10, rel=1e-15)
    plain = alg.output_perturbation_gd(pair.dataset, noise=Replay(rec.tape), **kw)
    assert not np.allclose(plain.theta, twin.theta)


def test_steps_as_one_twin_true_loss():
    """Radial law in one dimension = Laplace: the log density ratio at any point beyond both centres
    is rate * shift; with Delta(1) = 2 eta L/n (tight) and the shift 2 eta L T/n it is T epsilon."""
    consts = alg.gd_constants(loss=planted.huber_pair(N)[1], n=N, dimension=1, epsilon=1.0, minimiser_norm=Y,
                              steps=1, sensitivity_formula="sensitivity_tight")
    rate = spec.ALG_1.evaluate("noise_rate", epsilon=1.0, sensitivity=consts["sensitivity"])
    law = RadialLaplace(rate=rate, dim=1)
    x = np.array([[1.5], [3.0], [40.0]])  # beyond +1 and -1 (w_T on the two data sets at T = 10)
    ratio = law.logpdf(x - 1.0) - law.logpdf(x + 1.0)
    np.testing.assert_allclose(ratio, planted.radial_epsilon(rate, 2.0), rtol=1e-12)
    assert planted.radial_epsilon(rate, 2.0) == pytest.approx(10.0, rel=1e-12)


def test_strongly_convex_twin_uses_theorem_2_for_a_convex_loss():
    pair, loss = planted.huber_pair(N)
    declared = planted.DeclaredStrongConvexity(loss, 1.0)
    rows = np.array([[0.3, 2.0], [1.0, -5.0]])
    np.testing.assert_array_equal(declared.value(np.array([0.7]), rows), loss.value(np.array([0.7]), rows))
    np.testing.assert_array_equal(declared.gradient(np.array([0.7]), rows), loss.gradient(np.array([0.7]), rows))
    assert declared.constants.strong_convexity == 1.0 and loss.constants.strong_convexity == 0.0
    out = planted.output_perturbation_gd_strongly_convex_sensitivity(
        pair.dataset, loss=loss, strong_convexity=1.0, epsilon=1.0, minimiser_norm=Y, steps=100, runs=2, rng=1)
    ref = alg.output_perturbation_gd(pair.dataset, loss=declared, epsilon=1.0, minimiser_norm=Y, steps=100, runs=2,
                                     rng=1)
    np.testing.assert_array_equal(out.theta, ref.theta)
    assert out.setting == "strongly_convex" and out.learning_rate == 0.5
    assert out.sensitivity == pytest.approx(5 * 1.0 * 2.0 / (N * 1.0 * 1.0))  # 5 L (mu + beta)/(n mu beta) = 1
    # the real distance after T steps on the pair: 2 eta T/n = 10, ten times the T-free Delta
    other = alg.output_perturbation_gd(pair.neighbour, loss=declared, epsilon=1.0, minimiser_norm=Y, steps=100,
                                       runs=1, rng=1)
    assert abs(out.w_T[0] - other.w_T[0]) == pytest.approx(10.0, rel=1e-12)


def test_printed_gaussian_twin_and_its_true_delta():
    pair, loss = planted.huber_pair(N)
    kw = dict(loss=loss, epsilon=9.0, delta=0.3, minimiser_norm=Y, steps=10, sensitivity_formula="sensitivity_tight",
              runs=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # the twin silences the reference's warning
        twin = planted.output_perturbation_gd_printed_gaussian(pair.dataset, rng=4, **kw)
    with pytest.warns(PrivacyLeakWarning):
        ref = alg.output_perturbation_gd(pair.dataset, rng=4, calibration="printed", **kw)
    np.testing.assert_array_equal(twin.theta, ref.theta)
    assert twin.sensitivity == pytest.approx(2.0)  # attained by the pair
    # independent exact delta: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), mu = shift/sigma
    with mpmath.workdps(40):
        mu = mpmath.mpf(2.0) / mpmath.mpf(twin.sigma)
        exact = mpmath.ncdf(-9 / mu + mu / 2) - mpmath.exp(9) * mpmath.ncdf(-9 / mu - mu / 2)
    assert float(exact) == pytest.approx(spec_gaussian.exact_delta(9.0, sigma=twin.sigma, sensitivity=2.0), rel=1e-9)
    assert 0.55 < float(exact) < 0.56
    analytic = alg.output_perturbation_gd(pair.dataset, rng=4, calibration="analytic", **kw)
    assert spec_gaussian.exact_delta(9.0, sigma=analytic.sigma, sensitivity=2.0) <= 0.3


# --------------------------------------------------------------------------------------------
# Algorithm 2 twins


def test_reused_noise_twin_is_the_reference_with_one_z():
    pair, loss = planted.huber_pair(4)
    rec = Recorder(5)
    twin = planted.rrpsgd_reused_noise(pair.dataset, loss=loss, epsilon=1.0, delta=1e-3, runs=3, noise=rec,
                                       transcript=True)
    z_entries = [e for e in rec.tape.entries if e.label == planted.NOISE_LABEL]
    assert len(z_entries) == 1
    entries, first = [], z_entries[0].values
    for e in rec.tape.entries:
        if e.label == planted.NOISE_LABEL:
            continue
        entries.append(e)
        if e.label == alg.random_round_sgd.LABEL_INDEX:
            entries.append(TapeEntry(planted.NOISE_LABEL, "normal", {}, first))
    ref = alg.rrpsgd(pair.dataset, loss=loss, epsilon=1.0, delta=1e-3, runs=3, noise=Replay(NoiseTape(entries)),
                     transcript=True)
    np.testing.assert_array_equal(twin.theta, ref.theta)
    np.testing.assert_array_equal(twin.transcript["G"], ref.transcript["G"])


def test_data_dependent_step_twin_and_its_step_ratio():
    pair, loss = planted.step_size_pair(N)
    gaps = [float(loss.mean(np.zeros(1), d)) for d in (pair.dataset, pair.neighbour)]
    assert gaps == [pytest.approx((Y - 0.5) / N), pytest.approx(0.125 / N)]
    for data, gap in zip((pair.dataset, pair.neighbour), gaps):
        twin = planted.rrpsgd_data_dependent_step(data, loss=loss, epsilon=1.0, delta=1e-5, runs=2, rng=3)
        ref = alg.rrpsgd(data, loss=loss, epsilon=1.0, delta=1e-5, initial_gap=gap, runs=2, rng=3)
        np.testing.assert_array_equal(twin.theta, ref.theta)
    steps = [alg.rrpsgd_constants(loss=loss, n=N, dimension=1, epsilon=1.0, delta=1e-5, initial_gap=g)["learning_rate"]
             for g in gaps]
    assert steps[0] / steps[1] == pytest.approx(math.sqrt(8 * (Y - 0.5)), rel=1e-12)  # 894
    # the correct algorithm's step is the public one on both data sets
    public = alg.rrpsgd_constants(loss=loss, n=N, dimension=1, epsilon=1.0, delta=1e-5)["learning_rate"]
    assert public == alg.rrpsgd(pair.neighbour, loss=loss, epsilon=1.0, delta=1e-5, runs=1, rng=0).learning_rate


def test_fixed_draws_fix_the_round_and_keep_the_tape_layout():
    pair, loss = planted.huber_pair(4)
    rec = Recorder(1)
    out = alg.rrpsgd(pair.dataset, loss=loss, epsilon=1.0, delta=1e-3, runs=6,
                     noise=planted.FixedDraws(rec, planted.ROUND_LABEL, 15))
    assert np.all(out.rounds == 16) and rec.tape.entries[0].values.shape == (6,)
    assert len(rec.tape) == 1 + 2 * 16


# --------------------------------------------------------------------------------------------
# the exact laws on the Huber pair (Algorithm 2)


def _constants():
    return alg.rrpsgd_constants(loss=planted.huber_pair(N)[1], n=N, dimension=1, epsilon=1.0, delta=1e-5)


def test_transcript_sum_law_matches_simulation():
    """S_1 = -s K + sigma sqrt(N) Z with R = N: KS against the exact mixture CDF (seeded, 1e-4)."""
    pair, loss = planted.huber_pair(N)
    c = _constants()
    for data, sign, seed in ((pair.dataset, +1, 11), (pair.neighbour, -1, 12)):
        src = planted.FixedDraws(noise_source(rng=seed), planted.ROUND_LABEL, N * N - 1)
        out = alg.rrpsgd(data, loss=loss, epsilon=1.0, delta=1e-5, runs=4000, noise=src, transcript=True)
        assert np.max(np.abs(out.transcript["w"])) < Y - 1  # the linear regime held
        s1 = out.transcript["G"][:, :, 0].sum(axis=0)
        cdf = lambda t, sign=sign: planted.rrpsgd_sum_probabilities(t, n=N, sigma=c["sigma"], sign=sign)  # noqa: E731
        assert sps.kstest(s1, cdf).pvalue > KS_ALPHA
    # the sum is a proper CDF and agrees with an mpmath evaluation at one point
    with mpmath.workdps(30):
        t, total = 5.0, mpmath.mpf(0)
        for k in range(N * N + 1):
            pk = mpmath.binomial(N * N, k) * mpmath.mpf(1 / N) ** k * mpmath.mpf(1 - 1 / N) ** (N * N - k)
            total += pk * mpmath.ncdf((t + k) / (c["sigma"] * N))
    assert planted.rrpsgd_sum_probabilities(t, n=N, sigma=c["sigma"], sign=+1) == pytest.approx(float(total),
                                                                                              rel=1e-10)


def test_output_law_matches_simulation():
    pair, loss = planted.huber_pair(N)
    c = _constants()
    out = alg.rrpsgd(pair.dataset, loss=loss, epsilon=1.0, delta=1e-5, runs=4000, rng=21)
    cdf = lambda t: 1 - planted.rrpsgd_output_probabilities(t, n=N, sigma=c["sigma"], eta=c["learning_rate"],  # noqa: E731
                                                            sign=+1)
    assert sps.kstest(out.theta[:, 0], cdf).pvalue > KS_ALPHA


def test_reuse_sign_probability():
    with mpmath.workdps(30):
        want = sum(mpmath.binomial(100, k) * mpmath.mpf(0.1) ** k * mpmath.mpf(0.9) ** (100 - k) for k in range(1, 50))
    assert planted.rrpsgd_reuse_sign_probability(N) == pytest.approx(float(want), rel=1e-12)
    assert 1 - planted.rrpsgd_reuse_sign_probability(N) == pytest.approx(0.9**100, rel=1e-6)  # 2.66e-5
    # and on the twin the sign of S_2 is -s whenever K >= 1
    pair, loss = planted.huber_pair(N)
    for data, sign in ((pair.dataset, +1), (pair.neighbour, -1)):
        src = planted.FixedDraws(noise_source(rng=2), planted.ROUND_LABEL, N * N - 1)
        out = planted.rrpsgd_reused_noise(data, loss=loss, epsilon=1.0, delta=1e-5, runs=2000, noise=src,
                                          transcript=True)
        g = out.transcript["G"][:, :, 0]
        s2 = g.sum(axis=0) - N * N * np.median(g, axis=0)
        k = np.round(-sign * s2)
        assert np.all(np.abs(-sign * s2 - k) < 1e-6) and np.all(k >= 0)


def test_step_size_twin_delta_is_a_valid_lower_bound():
    pair, loss = planted.step_size_pair(N)
    gaps = [float(loss.mean(np.zeros(1), d)) for d in (pair.dataset, pair.neighbour)]
    ds, nb = [alg.rrpsgd_constants(loss=loss, n=N, dimension=1, epsilon=1.0, delta=1e-5, initial_gap=g) for g in gaps]
    bound = planted.step_size_twin_delta(1.0, 1.0, n=N, sigma=ds["sigma"], eta=ds["learning_rate"],
                                         eta_neighbour=nb["learning_rate"])
    assert bound > 0.45
    # its two parts against simulation of the twin: P_S[w_R > 1] (exact) and the neighbour's tail (a bound)
    on_s = planted.rrpsgd_data_dependent_step(pair.dataset, loss=loss, epsilon=1.0, delta=1e-5, runs=20000, rng=5)
    on_n = planted.rrpsgd_data_dependent_step(pair.neighbour, loss=loss, epsilon=1.0, delta=1e-5, runs=20000, rng=6)
    p = float(planted.rrpsgd_output_probabilities([1.0], n=N, sigma=ds["sigma"], eta=ds["learning_rate"], sign=+1)[0])
    assert abs(np.mean(on_s.theta[:, 0] > 1.0) - p) < 5 * math.sqrt(p * (1 - p) / 20000)
    assert np.max(np.abs(on_n.theta[:, 0])) < 1.0  # the neighbour's outputs never reach 1
