r"""Privacy audits of wang17 Algorithms 1-4 (output and transcript mode), with the planted twins that must be flagged.

Every audit runs the reference (:mod:`reference.wang17`) on a worst-case pair of neighbours from
:mod:`audits.twins.wang17` (where the instances, the twins and the twins' true privacy loss are;
``tests/audits/twins/test_wang17.py`` checks them) and tests the theorem's claim with
:func:`audits.audit_real_valued` (the low-bit float test off: the theorems are about the real-valued algorithm). Claims: ``(epsilon, delta) = (1, 1e-5)`` throughout.

False alarms. Tests marked ``audit`` audit the correct algorithms (8 of wang17's 12 slots): each
errs with probability at most the plugin's per-audit alpha; a test that makes two
``audit_real_valued`` calls gives each half. Tests marked ``planted`` run the same audits on the twins
and assert they are flagged; their run counts come from the twin's exact (or certified numerical)
event probabilities at power ``PLANTED_POWER`` (:func:`audits.stats.runs_for_point`).

DP-SVRG and DP-SVRG++ (Theorems 4.1, 4.3; the proven sigma of the RDP accountant)
--------------------------------------------------------------------------------
The two-dimensional instance :func:`audits.twins.wang17.svrg_instance` (n = 200, one epoch of m = 50
inner steps; DP-SVRG++ with T = 1 runs ``2m`` steps): after the first step, every step's sampled
difference is at the 4G configuration. *Transcript mode* releases every ``v^s_t`` (and the iterates,
which are functions of them); the mechanism reduces it to two post-processings, each tested at
alpha/2: ``S_a``, the first coordinate of the first released direction (at ``x = x~``: the snapshot
gradient plus noise), and ``S_b = sum_{t >= 2} ln(p/q)(v_t)``, the exact log-likelihood ratio of the
mixture steps at the mechanism's own sigma. *Output mode* audits ``x~_T`` with the default statistic.

The reference is far inside its claim here: the certified numerical lower bound on its transcript's
delta(1) is below 1e-8 (the accountant is loose: noise splitting and the worst-case 4G). The twins
are not (exact numbers in :mod:`audits.twins.wang17`, checked by its tests):

* 2G instead of 4G: sigma 2.11 instead of 4.06; the transcript needs delta(1) >= 1.5e-3 and
  delta(3) > 1e-5 (true epsilon above 3 at delta = 1e-5);
* one c for all (the full-batch c = 8.34 in eq. (3)): sigma 0.35; one mixture step alone needs
  delta(1) > 1e-3;
* noiseless snapshot step: ``S_a`` is a point mass at ``grad F(x~; D)``: delta(eps) = 1.

DP-AccMD and DP-GD (Theorems 5.3, 6.1; the proven zCDP sigma)
------------------------------------------------------------
The full-batch instance :func:`audits.twins.wang17.full_batch_instance` (n = 20, p = 1): the noisy
gradients of D and D' differ by exactly ``2G/n`` at every step, so the transcript statistic
``sum_t g_t`` has exactly the composed Gaussian profile the records claim
(``wang17.full_batch_calibration.profile``): the transcript audits run in profile mode against it
(which also tests the point claim under the same bands), at the edge of the claim. The half-sensitivity twin has ``mu`` doubled:
delta(1) = 1.5e-3. The printed DP-AccMD (noiseless y-step) with T = 1 outputs a point mass that
moves with the data: audited on its output, eps_lower is limited only by the run count.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from audits import audit_real_valued
from audits.twins import wang17 as planted
from reference import wang17 as alg
from spec.wang17 import calibration as cal
from spec.wang17 import svrg as spec_svrg
from spec.wang17 import svrg_plus as spec_plus

EPS, DELTA = 1.0, 1e-5
#: Power of the planted tests' run counts.
PLANTED_POWER = 0.9999
#: The largest batch a mechanism hands the reference at once (the snapshot gradient is runs x n).
CHUNK = 20000


def _two_seeds(seed: int) -> tuple[int, int]:
    state = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64)
    return int(state[0] >> np.uint64(1)), int(state[1] >> np.uint64(1))


def _chunked(run):
    """``mechanism(data, runs, rng)`` from ``run(data, runs, rng) -> (runs, ...)``, in batches of CHUNK."""
    def mechanism(data, runs, rng):
        parts, left = [], runs
        for child in rng.spawn(max(1, math.ceil(runs / CHUNK))):
            k = min(CHUNK, left)
            if k > 0:
                parts.append(run(data, k, child))
            left -= k
        return np.concatenate(parts)
    return mechanism


# --------------------------------------------------------------------------------------------
# DP-SVRG and DP-SVRG++

N_SVRG, M_SVRG = 200, 50
SVRG = planted.svrg_instance(n=N_SVRG)
#: Runs per data set for the correct algorithms' SVRG audits (they are far inside their claim here:
#: no run count could show a violation; the tiers only sharpen the bounds reported).
SVRG_RUNS = {"smoke": 20000, "standard": 100000, "deep": 400000}


def _svrg_kwargs(plus):
    kw = dict(loss=SVRG["loss"], regulariser=SVRG["regulariser"], epsilon=EPS, delta=DELTA, epochs=1,
              x0=SVRG["x0"])
    kw["epoch_length"] = M_SVRG // 2 if plus else M_SVRG
    return kw


def _svrg_steps(plus):
    return 2 * (M_SVRG // 2) if plus else M_SVRG  # m (2^2 - 2) for DP-SVRG++ with T = 1


def _svrg_sigma(fn, plus):
    return fn(SVRG["pair"].dataset, runs=1, rng=0, transcript=None, **_svrg_kwargs(plus)).sigma


def _svrg_transcript_mechanism(fn, name, plus=False, sigma=None):
    """``(runs, 2)``: ``[S_a, S_b]`` of the transcript of ``fn`` (module docstring); ``S_b`` at the noise
    ``sigma`` the mechanism actually adds (default: the one its result reports)."""
    sigma = _svrg_sigma(fn, plus) if sigma is None else sigma

    def run(data, runs, rng):
        out = np.zeros((runs, 2))

        def hook(k, state):
            v1 = state["v"][:, 0]
            if k == 1:
                out[:, 0] = v1
            else:
                out[:, 1] += planted.svrg_log_ratio(v1, sigma=sigma, n=N_SVRG, cos=SVRG["cos"],
                                                     mean_neighbour=SVRG["mean_neighbour"])

        fn(data, runs=runs, rng=rng, transcript=hook, **_svrg_kwargs(plus))
        return out

    mech = _chunked(run)
    mech.__qualname__ = f"{name} transcript [S_a, S_b]"
    return mech, sigma


def _svrg_transcript_audit(audit, fn, name, runs, plus=False, which=(0, 1), sigma=None):
    mech, _ = _svrg_transcript_mechanism(fn, name, plus, sigma)
    results = []
    seeds = _two_seeds(audit.seed)
    for k in which:
        results.append(audit.record(audit_real_valued(
            mech, SVRG["pair"], epsilon=EPS, delta=DELTA, runs=runs, alpha=audit.alpha / 2, seed=seeds[k],
            statistic=(lambda out, k=k: out[:, k]))))
    return results


def _svrg_output_audit(audit, fn, name, plus=False):
    def run(data, runs, rng):
        return fn(data, runs=runs, rng=rng, **_svrg_kwargs(plus)).theta

    mech = _chunked(run)
    mech.__qualname__ = f"{name} output x~_T"
    return audit.record(audit_real_valued(mech, SVRG["pair"], epsilon=EPS, delta=DELTA, runs=SVRG_RUNS[audit.tier],
                                      alpha=audit.alpha, seed=audit.seed))


@pytest.mark.spec("wang17.alg_1", "wang17.thm_4_1")
@pytest.mark.audit
def test_svrg_transcript_privacy(audit):
    results = _svrg_transcript_audit(audit, alg.dp_svrg, "dp_svrg", SVRG_RUNS[audit.tier])
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang17.alg_1", "wang17.thm_4_1")
@pytest.mark.audit
def test_svrg_output_privacy(audit):
    result = _svrg_output_audit(audit, alg.dp_svrg, "dp_svrg")
    assert not result.violated, str(result)


@pytest.mark.spec("wang17.alg_2", "wang17.thm_4_3")
@pytest.mark.audit
def test_svrg_plus_transcript_privacy(audit):
    assert _svrg_steps(True) == spec_plus.ALG_2.evaluate("noisy_steps", n=N_SVRG, epochs=1, epoch_length=M_SVRG // 2)
    results = _svrg_transcript_audit(audit, alg.dp_svrg_plus, "dp_svrg_plus", SVRG_RUNS[audit.tier], plus=True)
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang17.alg_2", "wang17.thm_4_3")
@pytest.mark.audit
def test_svrg_plus_output_privacy(audit):
    result = _svrg_output_audit(audit, alg.dp_svrg_plus, "dp_svrg_plus", plus=True)
    assert not result.violated, str(result)


def _planted_svrg_runs(audit, sigma, minimum, h=1e-3):
    """Runs for the twin's events {S_b > t} (their probabilities from the composed loss distribution)."""
    t = np.linspace(0.0, 8.0, 161)
    p, q = planted.svrg_statistic_tails(t, sigma=sigma, n=N_SVRG, steps=M_SVRG, cos=SVRG["cos"], h=h)
    return audit.runs_for_point(p, q, epsilon=EPS, delta=DELTA, alpha=audit.alpha / 2, power=PLANTED_POWER,
                                minimum=minimum)


@pytest.mark.spec("wang17.alg_1", "wang17.thm_4_1")
@pytest.mark.planted
def test_svrg_difference_2g_is_flagged(audit):
    twin = planted.dp_svrg_difference_2g
    # the noise the twin adds (it scales the reference's standard normal draws to this sigma)
    sigma = planted.sigma_difference_2g(epsilon=EPS, delta=DELTA, lipschitz=1.0, n=N_SVRG, steps=M_SVRG)
    pairs = planted.svrg_step_pairs(n=N_SVRG, steps=M_SVRG, cos=SVRG["cos"])
    assert planted.delta_lower_bound(EPS, pairs, sigma=sigma) > 100 * DELTA  # a real violation
    results = _svrg_transcript_audit(audit, twin, "dp_svrg_difference_2g", _planted_svrg_runs(audit, sigma, 20000),
                                     which=(1,), sigma=sigma)
    assert any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang17.alg_1", "wang17.thm_4_1", "wang17.full_batch_calibration")
@pytest.mark.planted
def test_svrg_full_batch_constant_is_flagged(audit):
    twin = planted.dp_svrg_full_batch_constant
    sigma = _svrg_sigma(twin, False)
    one = [(pr[0], pr[1], 1) for pr in planted.svrg_step_pairs(n=N_SVRG, steps=2, cos=SVRG["cos"])[1:]]
    assert planted.delta_lower_bound(EPS, one, sigma=sigma) > 100 * DELTA  # one step alone is a real violation
    # at sigma = 0.35 one step's losses span ~65 nats: a coarse loss grid (h = 0.05) keeps the sizing fast
    results = _svrg_transcript_audit(audit, twin, "dp_svrg_full_batch_constant",
                                     _planted_svrg_runs(audit, sigma, 2000, h=0.05), which=(1,))
    assert any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang17.alg_1", "wang17.thm_4_1")
@pytest.mark.planted
def test_svrg_noiseless_snapshot_is_flagged(audit):
    # S_a is a point mass at grad F(x~; D)'s first coordinate, different for the neighbours
    results = _svrg_transcript_audit(audit, planted.dp_svrg_noiseless_snapshot, "dp_svrg_noiseless_snapshot", 2000,
                                     which=(0,))
    assert any(r.violated for r in results), [str(r) for r in results]


# --------------------------------------------------------------------------------------------
# DP-AccMD and DP-GD: the tight full-batch pair

N_FB, STEPS_FB = 20, 4
FB_PAIR, FB_LOSS, FB_FREE, FB_BALL, _ = planted.full_batch_instance(n=N_FB)
SENSITIVITY = cal.FULL_BATCH.evaluate("sensitivity", lipschitz=1.0, n=N_FB)


def _fb_runs(audit, sigma):
    """Profile-mode runs for the tier's bug (noise x factor) on the summed transcript, a Gaussian mechanism."""
    return audit.runs_for_gaussian(sigma=sigma * math.sqrt(STEPS_FB), sensitivity=SENSITIVITY * STEPS_FB,
                                   minimum=5000)


def _fb_transcript_mechanism(fn, name, **kw):
    def run(data, runs, rng):
        total = np.zeros(runs)

        def hook(t, state):
            total[:] += state["g"][:, 0]

        fn(data, runs=runs, rng=rng, transcript=hook, **kw)
        return total

    mech = _chunked(run)
    mech.__qualname__ = f"{name} transcript sum_t g_t"
    return mech


def _fb_transcript_audit(audit, mech, claimed_sigma):
    """Profile mode against the record's exact profile at the claimed sigma (it also tests the point claim)."""
    profile = cal.full_batch_profile(sigma=claimed_sigma, lipschitz=1.0, n=N_FB, steps=STEPS_FB)
    return audit.record(audit_real_valued(mech, FB_PAIR, epsilon=EPS, delta=DELTA, runs=_fb_runs(audit, claimed_sigma),
                                      alpha=audit.alpha, seed=audit.seed, profile=profile))


def _gd_kwargs():
    return dict(loss=FB_FREE, epsilon=EPS, delta=DELTA, steps=STEPS_FB)


def _accmd_kwargs(steps=STEPS_FB):
    return dict(loss=FB_LOSS, domain=FB_BALL, epsilon=EPS, delta=DELTA, steps=steps)


def _gd_sigma():
    return cal.FULL_BATCH.evaluate("sigma", lipschitz=1.0, n=N_FB, steps=STEPS_FB, epsilon=EPS, delta=DELTA)


@pytest.mark.spec("wang17.alg_4", "wang17.thm_6_1")
@pytest.mark.audit
def test_gd_transcript_privacy(audit):
    result = _fb_transcript_audit(audit, _fb_transcript_mechanism(alg.dp_gd, "dp_gd", **_gd_kwargs()), _gd_sigma())
    assert not result.violated, str(result)


@pytest.mark.spec("wang17.alg_4", "wang17.thm_6_1")
@pytest.mark.audit
def test_gd_output_privacy(audit):
    def run(data, runs, rng):
        return alg.dp_gd(data, runs=runs, rng=rng, output="random", **_gd_kwargs()).theta

    mech = _chunked(run)
    mech.__qualname__ = "dp_gd output x_m (m uniform on {0..T-1})"
    result = audit.record(audit_real_valued(mech, FB_PAIR, epsilon=EPS, delta=DELTA, runs=_fb_runs(audit, _gd_sigma()),
                                        alpha=audit.alpha, seed=audit.seed))
    assert not result.violated, str(result)


@pytest.mark.spec("wang17.alg_4", "wang17.thm_6_1")
@pytest.mark.planted
def test_gd_half_sensitivity_is_flagged(audit):
    sigma = _gd_sigma()
    actual = cal.full_batch_profile(sigma=sigma / 2, lipschitz=1.0, n=N_FB, steps=STEPS_FB)
    assert actual(EPS) > 100 * DELTA  # exact: mu doubled
    mech = _fb_transcript_mechanism(planted.dp_gd_half_sensitivity, "dp_gd_half_sensitivity", **_gd_kwargs())
    result = _fb_transcript_audit(audit, mech, sigma)
    assert result.violated, str(result)


@pytest.mark.spec("wang17.alg_3", "wang17.thm_5_3")
@pytest.mark.audit
def test_accmd_transcript_privacy(audit):
    sigma = cal.FULL_BATCH.evaluate("sigma", lipschitz=1.0, n=N_FB, steps=STEPS_FB, epsilon=EPS, delta=DELTA)
    mech = _fb_transcript_mechanism(alg.dp_accmd, "dp_accmd", **_accmd_kwargs())
    result = _fb_transcript_audit(audit, mech, sigma)
    assert not result.violated, str(result)


def _accmd_output_mechanism(fn, name, steps):
    def run(data, runs, rng):
        return fn(data, runs=runs, rng=rng, **_accmd_kwargs(steps)).theta

    mech = _chunked(run)
    mech.__qualname__ = f"{name} output y_T (T = {steps})"
    return mech


@pytest.mark.spec("wang17.alg_3", "wang17.thm_5_3")
@pytest.mark.audit
def test_accmd_output_privacy(audit):
    """T = 1 (where the printed algorithm is a point mass) and T = STEPS_FB, alpha/2 each."""
    seeds = _two_seeds(audit.seed)
    results = [audit.record(audit_real_valued(_accmd_output_mechanism(alg.dp_accmd, "dp_accmd", steps), FB_PAIR,
                                          epsilon=EPS, delta=DELTA, runs=10000, alpha=audit.alpha / 2, seed=seed))
               for steps, seed in ((1, seeds[0]), (STEPS_FB, seeds[1]))]
    assert not any(r.violated for r in results), [str(r) for r in results]


#: Runs for the printed DP-AccMD (point masses: eps_lower grows like ln(runs / ln(2/alpha))).
PRINTED_RUNS = {"smoke": 10000, "standard": 100000, "deep": 1000000}


@pytest.mark.spec("wang17.alg_3", "wang17.thm_5_3")
@pytest.mark.planted
def test_accmd_printed_is_flagged_far_above_epsilon(audit):
    mech = _accmd_output_mechanism(planted.dp_accmd_printed, "dp_accmd_printed (noiseless y-step)", 1)
    result = audit.record(audit_real_valued(mech, FB_PAIR, epsilon=EPS, delta=DELTA, runs=PRINTED_RUNS[audit.tier],
                                        alpha=audit.alpha, seed=audit.seed))
    assert result.violated and result.epsilon_lower > 5 * EPS, str(result)
    print(f"\n  printed DP-AccMD: eps_lower {result.epsilon_lower:.3f} against the claimed {EPS}")


def test_svrg_instance_matches_the_records():
    """Not an audit: the SVRG instance's constants are the records' (eta, the step count)."""
    assert SVRG["learning_rate"] == spec_svrg.THM_4_2.evaluate("learning_rate", smoothness=SVRG["loss"].constants.smoothness)
    assert spec_svrg.ALG_1.evaluate("noisy_steps", n=N_SVRG, epochs=1, epoch_length=M_SVRG) == _svrg_steps(False)
