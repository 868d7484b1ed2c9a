r"""Privacy audits of zhang17 Algorithms 1 and 2, each with the planted-bug twins the same audit must flag.

Every audit runs the reference (:mod:`reference.zhang17`) black-box on a worst-case pair of
replace-one neighbours from :mod:`audits.twins.zhang17` (built with :func:`audits.pairs.replace_one`,
which asserts the relation) and tests the theorem's claim with :func:`audits.audit_real_valued` (the low-bit float test off: the theorems are about the real-valued algorithm). All
instances are one-dimensional, so the true privacy loss of the reference and of every twin on its
pair is an exact formula or finite sum (:mod:`audits.twins.zhang17`, checked in
``tests/audits/twins/test_zhang17.py``).

False alarms. Tests marked ``audit`` audit the correct algorithms and err with probability at most
the plugin's per-audit alpha (zhang17's share: 0.001 over 12 slots); a test with ``k`` calls gives
each ``alpha/k``. Tests marked ``planted`` run the same audits on the twins at the same alpha and
assert that they are flagged; their run counts come from the twin's exact event probabilities at
power 0.9999 (:func:`audits.stats.runs_for_point`).

Algorithm 1 (Theorem 1) on the Huber pair, Theorem 3 (convex), n = 10, T = 10
---------------------------------------------------------------------------
``w_T = +-1`` exactly (``eta = 1``): the pair attains Lemma 2's tight sensitivity ``2 eta L T/n = 2``.

* *Radial law* (delta = 0, epsilon = 1) with ``sensitivity_tight``: the pair attains the declared
  Delta, so the true loss is epsilon exactly; point mode and profile mode against the exact
  profile of the one-dimensional radial (Laplace) law, ``spec.laplace.profile`` (the record's own
  ``output_noise_profile`` returns the looser pure-DP profile). Runs: the tier's Laplace count
  (noise x0.8 flagged at power 0.9), at least the twins' counts. Twins: Lemma 2 evaluated at
  T = 1 (true loss ``T epsilon = 10``) and Theorem 2's sensitivity for this merely convex loss
  declared ``mu = beta`` (``eta = 1/2``, ``Delta = 1``, T = 100: shift 10, true loss ``10 epsilon``).
* *Gaussian law* (epsilon = 1, delta = 1e-5) with the printed ``Delta = 3 eta L T/n`` (the
  reference's default): profile mode against the record's exact profile (``output_noise_profile``:
  the Gaussian profile at Delta = 3; the pair's shift is 2) and point mode. Twin: Lemma 2 at T = 1
  (``mu = 2/(sigma/10) = 1.35``: exact delta at epsilon 1 is 0.26).
* *Beyond the printed Gaussian's validity*: at (epsilon, delta) = (9, 0.3) the printed sigma's
  exact delta is 0.558 (:func:`spec.zhang17.gaussian_failure_epsilon` (0.3) = 6.60); the correct
  mechanism there is ``calibration="analytic"``. With ``sensitivity_tight`` the pair attains Delta,
  so the analytic calibration's true delta at 9 is exactly 0.3 (no slack) and the twin's is the
  printed calibration's exact delta. Point mode (a large-epsilon claim is refuted only on events
  of probability about ``1e-5`` under the neighbour, hence the millions of runs). At delta = 1e-5
  the failure (beyond epsilon = 9.39) lives on events of probability ``e^-9`` and below: about
  1e10 runs, beyond any black-box audit.

Algorithm 1, Theorem 2 (strongly convex), on the regularised Huber pair (lambda = 0.1)
------------------------------------------------------------------------------------
Gradient descent converges to ``+-1/(n lambda) = +-1``: the shift is about 2 against Lemma 3's
printed ``Delta = 5 L (mu + beta)/(n mu beta) = 16.4`` (``L = 1 + lambda 2D = 3``): the paper's
constant 5 and the regulariser's part of L leave a factor 8 that no pair can close. Both laws
(epsilon = 1; delta = 0 against the record's pure-DP profile, delta = 1e-5 in point mode), alpha/2
each: it checks that nothing else (the step size, T, the ball of radius 2D) breaks the claim.

Algorithm 2 (Theorem 4: (1, 1e-5), n = 10, the Huber pair and the step-size pair)
----------------------------------------------------------------------------------
The certificate (``spec.zhang17.certified_epsilon``) gives 0.597; on the Huber pair the whole
transcript is about 0.074-GDP (``2 sqrt(N)/(n sigma_z)``-ish: one record of ten, sampled once in
ten steps, noise multiplier 13.5), so the correct algorithm's loss is tiny and both twins are
large bugs:

* *Output* ``w_R`` (black box), on the step-size pair, point mode: the data-dependent ``D_F`` twin
  changes the step by a factor 894: ``P_S[w_R > 1]`` is about 0.5 against 0 on the neighbour.
  The correct algorithm is also audited on the Huber pair (alpha/2 each).
* *Transcript* ``(G_0, ..., G_{N-1})`` with ``R = N = n^2`` fixed (:class:`audits.twins.zhang17.FixedDraws`;
  the certificate covers N steps and a data-independent R mixes private mechanisms): two
  post-processings at alpha/2 each, ``S_1 = sum_t G_t`` (the likelihood-ratio direction) and
  ``S_2 = sum_t (G_t - median_s G_s)`` (blind to a noise vector shared by all steps): with the
  noise reused ``S_2 = -s K`` and its sign is the secret with probability ``1 - 2.7e-5``.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from scipy import special
from scipy import stats as sps

from audits import audit_real_valued
from audits.twins import zhang17 as planted
from reference import zhang17 as alg
from reference.tape import noise_source
from spec import gaussian as spec_gaussian
from spec import laplace as spec_laplace
from spec import zhang17 as spec
from spec.errors import PrivacyLeakWarning

#: Power of the planted tests' run counts (they must be flagged, so they are sized generously).
PLANTED_POWER = 0.9999


def _seeds(seed: int, k: int) -> list[int]:
    state = np.random.SeedSequence(seed).generate_state(k, dtype=np.uint64)
    return [int(s >> np.uint64(1)) for s in state]


# --------------------------------------------------------------------------------------------
# Algorithm 1, convex (Theorem 3) on the Huber pair

N1, T1 = 10, 10
EPS1, DELTA1 = 1.0, 1e-5
SHIFT1 = 2.0  # ||w_T - w'_T|| = 2 eta L T/n with eta = L = 1


def _alg1_mechanism(fn, name, **kw):
    _, loss = planted.huber_pair(N1)

    def mechanism(data, runs, rng):
        return fn(data, loss=loss, minimiser_norm=planted.HUBER_LABEL_BOUND, runs=runs, rng=rng, **kw).theta

    mechanism.__qualname__ = name
    return mechanism


def _alg1_consts(**kw):
    _, loss = planted.huber_pair(N1)
    return alg.gd_constants(loss=loss, n=N1, dimension=1, minimiser_norm=planted.HUBER_LABEL_BOUND, **kw)


def _laplace_events(scale, shift):
    """Exact ``P_D[w > t]``, ``P_D'[w > t]`` for Laplace noise around ``+shift/2`` and ``-shift/2``."""
    t = np.linspace(-shift / 2 - 30 * scale, shift / 2, 4001)
    return sps.laplace.sf(t, loc=shift / 2, scale=scale), sps.laplace.sf(t, loc=-shift / 2, scale=scale)


def _gauss_events(sigma, shift):
    t = np.linspace(-8 * sigma, 8 * sigma + shift, 4001)
    return special.ndtr((shift / 2 - t) / sigma), special.ndtr((-shift / 2 - t) / sigma)


# ---- radial law, tight sensitivity: the pair attains the claim

RADIAL = dict(epsilon=EPS1, delta=0.0, steps=T1, sensitivity_formula="sensitivity_tight")


def _radial_runs(audit) -> int:
    consts = _alg1_consts(**RADIAL)
    runs = audit.runs_for_laplace(scale=consts["sensitivity"] / EPS1, sensitivity=SHIFT1, epsilon=EPS1,
                                  alpha=audit.alpha / 2, minimum=4000)
    # both twins at power PLANTED_POWER (scale Delta(1)/eps, and the strongly convex twin's)
    twin_scale = _alg1_consts(**dict(RADIAL, steps=1))["sensitivity"] / EPS1
    runs = max(runs, audit.runs_for_point(*_laplace_events(twin_scale, SHIFT1), epsilon=EPS1,
                                          alpha=audit.alpha / 2, power=PLANTED_POWER))
    return runs


def _radial_audit(audit, mechanism, pair, profile):
    s = _seeds(audit.seed, 2)
    runs = _radial_runs(audit)
    point = audit.record(audit_real_valued(mechanism, pair, epsilon=EPS1, delta=0.0, runs=runs,
                                       alpha=audit.alpha / 2, seed=s[0]))
    prof = audit.record(audit_real_valued(mechanism, pair, epsilon=EPS1, delta=0.0, runs=runs,
                                      alpha=audit.alpha / 2, seed=s[1], profile=profile))
    return point, prof


def _radial_profile():
    consts = _alg1_consts(**RADIAL)
    # one dimension: the radial law is Laplace(Delta/eps); its exact profile at shift Delta
    return spec_laplace.profile(scale=consts["sensitivity"] / EPS1, sensitivity=consts["sensitivity"])


@pytest.mark.spec("zhang17.alg_1", "zhang17.thm_1", "zhang17.lemma_2")
@pytest.mark.audit
def test_alg1_radial_privacy(audit):
    consts = _alg1_consts(**RADIAL)
    rate = spec.ALG_1.evaluate("noise_rate", epsilon=EPS1, sensitivity=consts["sensitivity"])
    assert planted.radial_epsilon(rate, SHIFT1) == pytest.approx(EPS1, rel=1e-12)  # the pair attains Delta
    pair = planted.huber_pair(N1)[0]
    mech = _alg1_mechanism(alg.output_perturbation_gd, "output_perturbation_gd (radial, tight Delta)", **RADIAL)
    results = _radial_audit(audit, mech, pair, _radial_profile())
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("zhang17.alg_1", "zhang17.thm_1", "zhang17.lemma_2")
@pytest.mark.planted
def test_alg1_sensitivity_at_one_step_is_flagged(audit):
    rate = spec.ALG_1.evaluate("noise_rate", epsilon=EPS1,
                               sensitivity=_alg1_consts(**dict(RADIAL, steps=1))["sensitivity"])
    assert planted.radial_epsilon(rate, SHIFT1) == pytest.approx(T1 * EPS1, rel=1e-12)  # true loss 10
    pair = planted.huber_pair(N1)[0]
    mech = _alg1_mechanism(planted.output_perturbation_gd_steps_as_one, "Lemma 2 at T = 1 (radial)", **RADIAL)
    results = _radial_audit(audit, mech, pair, _radial_profile())
    assert any(r.violated for r in results), [str(r) for r in results]


SC_TWIN = dict(epsilon=EPS1, delta=0.0, steps=100, strong_convexity=1.0)


@pytest.mark.spec("zhang17.alg_1", "zhang17.thm_1", "zhang17.lemma_2", "zhang17.lemma_3")
@pytest.mark.planted
def test_alg1_strongly_convex_sensitivity_for_convex_loss_is_flagged(audit):
    pair, loss = planted.huber_pair(N1)
    out = planted.output_perturbation_gd_strongly_convex_sensitivity(
        pair.dataset, loss=loss, minimiser_norm=planted.HUBER_LABEL_BOUND, runs=1, rng=0, **SC_TWIN)
    shift = 2 * SC_TWIN["steps"] * out.learning_rate / N1  # w_T = +-T eta/n on the Huber pair
    assert out.sensitivity == pytest.approx(1.0) and shift == pytest.approx(10.0)
    assert planted.radial_epsilon(out.rate, shift) == pytest.approx(10 * EPS1, rel=1e-12)  # true loss 10

    def mechanism(data, runs, rng):
        return planted.output_perturbation_gd_strongly_convex_sensitivity(
            data, loss=loss, minimiser_norm=planted.HUBER_LABEL_BOUND, runs=runs, rng=rng, **SC_TWIN).theta

    mechanism.__qualname__ = "Theorem 2's sensitivity for a convex loss (radial)"
    results = _radial_audit(audit, mechanism, pair, _radial_profile())
    assert any(r.violated for r in results), [str(r) for r in results]


# ---- Gaussian law, printed sensitivity (the reference's default)

GAUSS = dict(epsilon=EPS1, delta=DELTA1, steps=T1)


def _gauss_runs(audit) -> int:
    twin_sigma = spec.gaussian_sigma(epsilon=EPS1, delta=DELTA1,
                                     sensitivity=_alg1_consts(**dict(GAUSS, steps=1))["sensitivity"])
    p, q = _gauss_events(twin_sigma, SHIFT1)
    return audit.runs_for_point(p, q, epsilon=EPS1, delta=DELTA1, alpha=audit.alpha / 2, power=PLANTED_POWER,
                                minimum=20000)


@functools.lru_cache(maxsize=None)
def _gauss_profile():
    """The record's exact profile (``output_noise_profile``), memoised: the harness evaluates it on
    8001 epsilons at 50 digits (about 10 s), and the correct test and its twin share the claim."""
    consts = _alg1_consts(**GAUSS)
    return functools.lru_cache(maxsize=None)(
        spec.output_noise_profile(epsilon=EPS1, delta=DELTA1, sensitivity=consts["sensitivity"]))


def _gauss_audit(audit, mechanism, pair):
    profile = _gauss_profile()
    s = _seeds(audit.seed, 2)
    runs = _gauss_runs(audit)
    prof = audit.record(audit_real_valued(mechanism, pair, epsilon=EPS1, delta=DELTA1, runs=runs, alpha=audit.alpha / 2,
                                      seed=s[0], profile=profile))
    point = audit.record(audit_real_valued(mechanism, pair, epsilon=EPS1, delta=DELTA1, runs=runs,
                                       alpha=audit.alpha / 2, seed=s[1]))
    return prof, point


@pytest.mark.spec("zhang17.alg_1", "zhang17.thm_1", "zhang17.lemma_2")
@pytest.mark.audit
def test_alg1_gaussian_privacy(audit):
    pair = planted.huber_pair(N1)[0]
    mech = _alg1_mechanism(alg.output_perturbation_gd, "output_perturbation_gd (Gaussian, printed Delta)", **GAUSS)
    results = _gauss_audit(audit, mech, pair)
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("zhang17.alg_1", "zhang17.thm_1", "zhang17.lemma_2")
@pytest.mark.planted
def test_alg1_gaussian_sensitivity_at_one_step_is_flagged(audit):
    twin_sigma = spec.gaussian_sigma(epsilon=EPS1, delta=DELTA1,
                                     sensitivity=_alg1_consts(**dict(GAUSS, steps=1))["sensitivity"])
    assert spec_gaussian.exact_delta(EPS1, sigma=twin_sigma, sensitivity=SHIFT1) > 0.2  # claim: 1e-5
    pair = planted.huber_pair(N1)[0]
    mech = _alg1_mechanism(planted.output_perturbation_gd_steps_as_one, "Lemma 2 at T = 1 (Gaussian)", **GAUSS)
    results = _gauss_audit(audit, mech, pair)
    assert any(r.violated for r in results), [str(r) for r in results]


# ---- beyond the printed Gaussian's validity: (9, 0.3), tight sensitivity

WIDE_EPS, WIDE_DELTA = 9.0, 0.3
WIDE = dict(epsilon=WIDE_EPS, delta=WIDE_DELTA, steps=T1, sensitivity_formula="sensitivity_tight")


def _printed_wide_sigma() -> float:
    sens = _alg1_consts(**WIDE)["sensitivity"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the point: it is not (9, 0.3)-DP
        return spec.gaussian_sigma(epsilon=WIDE_EPS, delta=WIDE_DELTA, sensitivity=sens)


def _wide_runs(audit) -> int:
    sigma = _printed_wide_sigma()
    p, q = _gauss_events(sigma, SHIFT1)
    return audit.runs_for_point(p, q, epsilon=WIDE_EPS, delta=WIDE_DELTA, alpha=audit.alpha, power=PLANTED_POWER)


def _wide_audit(audit, mechanism):
    pair = planted.huber_pair(N1)[0]
    return audit.record(audit_real_valued(mechanism, pair, epsilon=WIDE_EPS, delta=WIDE_DELTA, runs=_wide_runs(audit),
                                      alpha=audit.alpha, seed=audit.seed))


@pytest.mark.spec("zhang17.alg_1", "zhang17.thm_1")
@pytest.mark.audit
def test_alg1_analytic_gaussian_beyond_printed_validity(audit):
    sens = _alg1_consts(**WIDE)["sensitivity"]
    assert sens == pytest.approx(SHIFT1)  # the pair attains Delta: no slack
    mech = _alg1_mechanism(alg.output_perturbation_gd, "output_perturbation_gd (analytic sigma, tight Delta)",
                           calibration="analytic", **WIDE)
    result = _wide_audit(audit, mech)
    assert not result.violated, str(result)


@pytest.mark.spec("zhang17.alg_1", "zhang17.thm_1")
@pytest.mark.planted
def test_alg1_printed_gaussian_beyond_validity_is_flagged(audit):
    assert spec.gaussian_failure_epsilon(WIDE_DELTA) < WIDE_EPS
    with pytest.warns(PrivacyLeakWarning):
        spec.gaussian_sigma(epsilon=WIDE_EPS, delta=WIDE_DELTA, sensitivity=SHIFT1)
    sigma = _printed_wide_sigma()
    assert spec_gaussian.exact_delta(WIDE_EPS, sigma=sigma, sensitivity=SHIFT1) > 0.55  # 0.558; claim 0.3
    mech = _alg1_mechanism(planted.output_perturbation_gd_printed_gaussian, "printed sigma at (9, 0.3)", **WIDE)
    result = _wide_audit(audit, mech)
    assert result.violated, str(result)


# --------------------------------------------------------------------------------------------
# Algorithm 1, strongly convex (Theorem 2) on the regularised Huber pair

SC_STRENGTH = 0.1


@pytest.mark.spec("zhang17.alg_1", "zhang17.thm_1", "zhang17.lemma_3")
@pytest.mark.audit
def test_alg1_strongly_convex_privacy(audit):
    pair, loss = planted.regularised_huber_pair(N1, strength=SC_STRENGTH)
    s = _seeds(audit.seed, 2)
    results = []
    for k, delta in enumerate((0.0, DELTA1)):
        # T = 400 steps: both runs have converged (|w_T| = 1/(n lambda) to 1e-15), the worst case over T
        out = alg.output_perturbation_gd(pair.dataset, loss=loss, epsilon=EPS1, delta=delta, steps=400, runs=1, rng=0)
        assert out.w_T[0] == pytest.approx(1 / (N1 * SC_STRENGTH), rel=1e-9)

        def mechanism(data, runs, rng, delta=delta):
            return alg.output_perturbation_gd(data, loss=loss, epsilon=EPS1, delta=delta, steps=400, runs=runs,
                                              rng=rng).theta

        mechanism.__qualname__ = f"output_perturbation_gd (Theorem 2, delta={delta:g})"
        # radial: the record's (pure-DP) profile; Gaussian: point mode (its profile costs 10 s per sigma)
        profile = spec.output_noise_profile(epsilon=EPS1, delta=0.0, sensitivity=out.sensitivity) if delta == 0 else None
        results.append(audit.record(audit_real_valued(mechanism, pair, epsilon=EPS1, delta=delta, runs=20000,
                                                  alpha=audit.alpha / 2, seed=s[k], profile=profile)))
    assert not any(r.violated for r in results), [str(r) for r in results]


# --------------------------------------------------------------------------------------------
# Algorithm 2

N2, EPS2, DELTA2 = 10, 1.0, 1e-5


def _alg2_output_mechanism(fn, name, loss):
    def mechanism(data, runs, rng):
        return fn(data, loss=loss, epsilon=EPS2, delta=DELTA2, runs=runs, rng=rng).theta

    mechanism.__qualname__ = name
    return mechanism


def _step_twin_constants():
    pair, loss = planted.step_size_pair(N2)
    out = []
    for data in (pair.dataset, pair.neighbour):
        gap = float(loss.mean(np.zeros(1), data))
        out.append(alg.rrpsgd_constants(loss=loss, n=N2, dimension=1, epsilon=EPS2, delta=DELTA2, initial_gap=gap))
    return out


def _alg2_output_runs(audit) -> int:
    (ds, nb) = _step_twin_constants()
    t = np.linspace(0.5, 30.0, 60)
    p = planted.rrpsgd_output_probabilities(t, n=N2, sigma=ds["sigma"], eta=ds["learning_rate"], sign=+1)
    q = np.array([p_ - planted.step_size_twin_delta(0.0, x, n=N2, sigma=ds["sigma"], eta=ds["learning_rate"],
                                                    eta_neighbour=nb["learning_rate"]) for x, p_ in zip(t, p)])
    return audit.runs_for_point(p, q, epsilon=EPS2, delta=DELTA2, alpha=audit.alpha / 2, power=PLANTED_POWER,
                                minimum=20000)


def _alg2_output_audit(audit, fn, name, pairs):
    s = _seeds(audit.seed, len(pairs))
    runs = _alg2_output_runs(audit)
    return [audit.record(audit_real_valued(_alg2_output_mechanism(fn, f"{name} on the {label} pair", loss), pair,
                                       epsilon=EPS2, delta=DELTA2, runs=runs, alpha=audit.alpha / len(pairs),
                                       seed=s[k]))
            for k, (label, (pair, loss)) in enumerate(pairs)]


@pytest.mark.spec("zhang17.alg_2", "zhang17.thm_4")
@pytest.mark.audit
def test_alg2_output_privacy(audit):
    pairs = [("step-size", planted.step_size_pair(N2)), ("Huber", planted.huber_pair(N2))]
    results = _alg2_output_audit(audit, alg.rrpsgd, "rrpsgd output w_R", pairs)
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("zhang17.alg_2", "zhang17.thm_4", "zhang17.thm_5")
@pytest.mark.planted
def test_alg2_data_dependent_step_is_flagged(audit):
    ds, nb = _step_twin_constants()
    assert ds["learning_rate"] / nb["learning_rate"] > 800  # sqrt(8 (Y - 1/2)) = 894
    # a real violation: P_S[w_R > 1] - e^eps P_S'[w_R > 1] >= 0.45 (claim: delta = 1e-5)
    assert planted.step_size_twin_delta(EPS2, 1.0, n=N2, sigma=ds["sigma"], eta=ds["learning_rate"],
                                        eta_neighbour=nb["learning_rate"]) > 0.45
    pairs = [("step-size", planted.step_size_pair(N2))]
    results = _alg2_output_audit(audit, planted.rrpsgd_data_dependent_step, "rrpsgd with data-dependent D_F", pairs)
    assert any(r.violated for r in results), [str(r) for r in results]


def _alg2_transcript_mechanism(fn, name):
    _, loss = planted.huber_pair(N2)
    big_n = N2 * N2

    def mechanism(data, runs, rng):
        src = planted.FixedDraws(noise_source(rng=rng), planted.ROUND_LABEL, big_n - 1)  # R = n^2
        out = fn(data, loss=loss, epsilon=EPS2, delta=DELTA2, runs=runs, noise=src, transcript=True)
        g = out.transcript["G"][:, :, 0]  # (N, runs): the released noisy gradients
        s1 = g.sum(axis=0)
        s2 = s1 - big_n * np.median(g, axis=0)
        return np.stack([s1, s2], axis=1)

    mechanism.__qualname__ = f"{name} transcript [S_1, S_2], R = n^2"
    return mechanism


def _alg2_transcript_audit(audit, fn, name, runs):
    pair = planted.huber_pair(N2)[0]
    mech = _alg2_transcript_mechanism(fn, name)
    s = _seeds(audit.seed, 2)
    return [audit.record(audit_real_valued(mech, pair, epsilon=EPS2, delta=DELTA2, runs=runs, alpha=audit.alpha / 2,
                                       seed=s[k], statistic=(lambda out, k=k: out[:, k])))
            for k in range(2)]


TRANSCRIPT_RUNS = {"smoke": 20000, "standard": 50000, "deep": 200000}


@pytest.mark.spec("zhang17.alg_2", "zhang17.thm_4")
@pytest.mark.audit
def test_alg2_transcript_privacy(audit):
    results = _alg2_transcript_audit(audit, alg.rrpsgd, "rrpsgd", TRANSCRIPT_RUNS[audit.tier])
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("zhang17.alg_2", "zhang17.thm_4")
@pytest.mark.planted
def test_alg2_reused_noise_is_flagged(audit):
    assert planted.rrpsgd_reuse_sign_probability(N2) > 1 - 3e-5  # delta(eps) ~ 1: a real violation
    results = _alg2_transcript_audit(audit, planted.rrpsgd_reused_noise, "rrpsgd_reused_noise",
                                     TRANSCRIPT_RUNS[audit.tier])
    assert any(r.violated for r in results), [str(r) for r in results]
