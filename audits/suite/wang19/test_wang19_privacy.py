r"""Privacy audits of wang19 Algorithms 1-4 on worst-case neighbours, output and transcript mode, each with
the planted-bug twins the same audit must flag.

Every audit runs the reference (:mod:`reference.wang19`) on a replace-one pair built by
:func:`audits.pairs.replace_one` (one label or record flipped so that its gradient flips) from
:mod:`audits.twins.wang19`, which also holds the twins and the exact calculations that show each twin's
violation is real (checked in ``tests/audits/twins/test_wang19.py``).

Claims
------
*Transcript mode, Algorithms 1-3.* The released quantities are the ``T`` noisy gradients; the mechanism
returns them with the iterates ``x_2, ..., x_{T+1}`` (deterministic functions of them, so the density of
the whole output is that of the gradients). Its ``logpdf`` is exact for any loss: given ``x_t`` the
gradient is ``N(grad F(x_t; D), sigma^2 I)``, so the audit's statistic is the exact log-likelihood ratio
(optimal events, Neyman-Pearson). The claim is the whole profile of ``wang19.thm_1``
(:func:`spec.wang19.transcript_profile`: ``T`` Gaussian releases at sensitivity ``2G/n``, exact Gaussian-DP
composition) at the sigma the reference uses.
*Transcript mode, Algorithm 4.* The released quantities are the selections ``x~_t``; the ``logpdf`` is the
exponential mechanism's exact log-probability given ``x_t``. The claim is ``wang19.alg_4``'s: every step is
epsilon_0-DP, so the transcript has at most the profile of ``T`` composed epsilon_0-DP mechanisms
(:func:`spec.profiles.composed_pure_dp_profile`, Kairouz-Oh-Viswanath, exact).
*Output mode.* ``x_R`` against the same profile (post-processing of the transcript).

Instances (module docstring of :mod:`audits.twins.wang19`): Algorithm 1 on six records in R (``T = 2``),
Algorithm 2 on twelve records in ``[-1, 1]`` (``T = 2``), Algorithm 3 with the entropy on the simplex of
R^2 (``T = 3``), Algorithm 4 on four records (``T = 1``, the per-step claim) and on a hundred (``T = 4``).
The sigmoid instances use ``||x|| <= 0.1``, where ``s'`` is within 0.25% of ``s'(0) = 1/4`` on the whole
l2 ball, so the gradient difference of the flipped record is within that of ``2G/n``.

False alarms. Tests marked ``audit`` audit the correct algorithms; a test with ``k`` audit calls gives
each ``alpha/k`` (union bound: the test errs with probability at most its alpha). Tests marked
``planted`` run the same audits on the twins; their run counts are sized from the twin's exact
violation for power 0.9999 and floored by the tier's Gaussian run count.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from audits import audit_real_valued
from audits.twins import wang19 as planted
from reference import wang19 as alg
from reference.wang19 import frank_wolfe as fw2
from reference.wang19 import frank_wolfe_l1 as fw1
from reference.wang19 import mirror_descent as pmd
from reference.wang19 import proximal_gradient as pgd
from spec import wang19 as spec
from spec.profiles import composed_pure_dp_profile

#: Power of the planted tests' run counts.
PLANTED_POWER = 0.9999


@functools.lru_cache(maxsize=None)
def _transcript_profile(lipschitz, n, steps, sigma):
    """``spec.wang19.transcript_profile``, its values cached: every audit of one instance (and its twins)
    evaluates the same claim on the same epsilon grid."""
    return functools.lru_cache(maxsize=None)(spec.transcript_profile(lipschitz=lipschitz, n=n, steps=steps,
                                                                     sigma=sigma))


@functools.lru_cache(maxsize=None)
def _composed_profile(epsilon_step, steps):
    """``spec.profiles.composed_pure_dp_profile``, its values cached."""
    return functools.lru_cache(maxsize=None)(composed_pure_dp_profile(epsilon_step, steps=steps))


def _seeds(seed: int, k: int) -> list[int]:
    state = np.random.SeedSequence(seed).generate_state(k, dtype=np.uint64)
    return [int(s >> np.uint64(1)) for s in state]


# --------------------------------------------------------------------------------------------
# mechanisms


def _gaussian_transcript(fn, *, loss, domain, sigma, steps, name, **kwargs):
    """``mechanism(data, runs, rng) -> (runs, T 2p)``: the noisy gradients and the iterates, with the
    exact ``logpdf`` of the reference's model (noise ``sigma``)."""
    p = domain.dim
    x1 = domain.interior_point()

    def mechanism(data, runs, rng):
        r = fn(data, loss=loss, domain=domain, runs=runs, rng=rng, transcript=True, **kwargs)
        out = np.concatenate([r.transcript["noisy_gradient"], r.transcript["x"]], axis=-1)  # (T, runs, 2p)
        return out.transpose(1, 0, 2).reshape(runs, -1)

    def logpdf(data, outputs):
        out = np.asarray(outputs, dtype=float).reshape(-1, steps, 2 * p)
        g, xs = out[..., :p], out[..., p:]
        prev = np.concatenate([np.broadcast_to(x1, (out.shape[0], 1, p)), xs[:, :-1]], axis=1)
        mean = loss.total_gradient(prev, np.asarray(data, dtype=float), normalisation="average")
        z = (g - mean) / sigma
        return -0.5 * np.sum(z * z, axis=(1, 2)) - steps * p * math.log(sigma * math.sqrt(2 * math.pi))

    mechanism.logpdf = logpdf
    mechanism.__qualname__ = f"{name} transcript (noisy gradients, iterates)"
    return mechanism


def _output(fn, *, loss, domain, name, coordinate=0, **kwargs):
    """``mechanism(data, runs, rng) -> (runs,)``: coordinate ``coordinate`` of ``x_R`` (p = 1, or the simplex
    of R^2, where it determines the point)."""

    def mechanism(data, runs, rng):
        return fn(data, loss=loss, domain=domain, runs=runs, rng=rng, **kwargs).x[:, coordinate]

    mechanism.__qualname__ = f"{name} output x_R"
    return mechanism


def _selection_transcript(fn, *, loss, domain, coefficient, steps, name, **kwargs):
    """``mechanism(data, runs, rng) -> (runs, T (1 + p))``: the selected vertices' indices and the iterates,
    with the exponential mechanism's exact ``logpdf`` at the reference's coefficient."""
    p = domain.dim
    x1 = domain.interior_point()

    def mechanism(data, runs, rng):
        r = fn(data, loss=loss, domain=domain, runs=runs, rng=rng, transcript=True, **kwargs)
        sel = r.transcript["selected"].astype(float)[..., None]  # (T, runs, 1)
        return np.concatenate([sel, r.transcript["x"]], axis=-1).transpose(1, 0, 2).reshape(runs, -1)

    def logpdf(data, outputs):
        out = np.asarray(outputs, dtype=float).reshape(-1, steps, 1 + p)
        sel, xs = out[..., 0].astype(np.int64), out[..., 1:]
        prev = np.concatenate([np.broadcast_to(x1, (out.shape[0], 1, p)), xs[:, :-1]], axis=1)
        u = fw1.scores(domain, loss.total_gradient(prev, np.asarray(data, dtype=float), normalisation="average"))
        z = coefficient * (u - u.max(axis=-1, keepdims=True))
        logp = z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))
        return np.take_along_axis(logp, sel[..., None], axis=-1)[..., 0].sum(axis=1)

    mechanism.logpdf = logpdf
    mechanism.__qualname__ = f"{name} transcript (selections, iterates)"
    return mechanism


def _gaussian_runs(audit, *, sigma, steps, sensitivity, factor=None, share=2, minimum=4000):
    """Runs per data set: the tier's bug (noise ``factor`` x sigma) on the composed Gaussian (``T`` releases
    are one Gaussian at ``sigma/sqrt(T)``), at this test's share of alpha; a planted factor at
    PLANTED_POWER."""
    kw = {} if factor is None else {"factor": factor, "power": PLANTED_POWER}
    return audit.runs_for_gaussian(sigma=sigma / math.sqrt(steps), sensitivity=sensitivity, alpha=audit.alpha / share,
                                   minimum=minimum, **kw)


def _profile_audits(audit, mechanisms, pair, *, epsilon, delta, profile, runs):
    """One profile-mode audit per mechanism, alpha split evenly; returns the results."""
    seeds = _seeds(audit.seed, len(mechanisms))
    return [audit.record(audit_real_valued(m, pair, epsilon=epsilon, delta=delta, runs=runs,
                                       alpha=audit.alpha / len(mechanisms), seed=s, profile=profile))
            for m, s in zip(mechanisms, seeds)]


# --------------------------------------------------------------------------------------------
# Algorithm 1 (DP-PGD)


def _pgd_setting():
    pair, loss, domain = planted.pgd_pair()
    eps, delta = planted.PGD["epsilon"], planted.PGD["delta"]
    n = pair.dataset.shape[0]
    steps, sigma, _ = pgd.constants(loss=loss, n=n, dimension=1, epsilon=eps, delta=delta)
    profile = _transcript_profile(loss.constants.lipschitz, n, steps, sigma)
    sens = spec.DEF_2.evaluate("sensitivity", lipschitz=loss.constants.lipschitz, n=n)
    factor = planted.printed_sigma_factor(loss=loss, n=n, dimension=1, epsilon=eps, delta=delta)
    return pair, loss, domain, eps, delta, steps, sigma, profile, sens, factor


def _pgd_runs(audit, sigma, steps, sens, factor):
    return max(_gaussian_runs(audit, sigma=sigma, steps=steps, sensitivity=sens),
               _gaussian_runs(audit, sigma=sigma, steps=steps, sensitivity=sens, factor=factor))


@pytest.mark.spec("wang19.alg_1", "wang19.thm_1")
@pytest.mark.audit
def test_dp_pgd_privacy(audit):
    pair, loss, domain, eps, delta, steps, sigma, profile, sens, factor = _pgd_setting()
    mechs = [_gaussian_transcript(alg.dp_pgd, loss=loss, domain=domain, sigma=sigma, steps=steps, name="dp_pgd",
                                  epsilon=eps, delta=delta),
             _output(alg.dp_pgd, loss=loss, domain=domain, name="dp_pgd", epsilon=eps, delta=delta)]
    results = _profile_audits(audit, mechs, pair, epsilon=eps, delta=delta, profile=profile,
                              runs=_pgd_runs(audit, sigma, steps, sens, factor))
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang19.alg_1", "wang19.thm_1", "wang19.eq_3")
@pytest.mark.planted
def test_dp_pgd_printed_sigma_is_flagged(audit):
    pair, loss, domain, eps, delta, steps, sigma, profile, sens, factor = _pgd_setting()
    # a real violation: the first noisy gradient alone is (2.18, 1e-5)-DP at best (claim: 1)
    assert planted.printed_sigma_step_epsilon(loss=loss, n=6, epsilon=eps, delta=delta) > 2 * eps
    mech = _gaussian_transcript(planted.dp_pgd_printed_sigma, loss=loss, domain=domain, sigma=sigma, steps=steps,
                                name="dp_pgd_printed_sigma", epsilon=eps, delta=delta)
    results = _profile_audits(audit, [mech], pair, epsilon=eps, delta=delta, profile=profile,
                              runs=_pgd_runs(audit, sigma, steps, sens, factor))
    assert all(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang19.alg_1", "wang19.thm_1")
@pytest.mark.planted
def test_dp_pgd_data_dependent_index_is_flagged(audit):
    pair, loss, domain, eps, delta, steps, sigma, profile, sens, factor = _pgd_setting()
    facts = planted.index_twin_supports()  # the output is 0 surely on D and nonzero surely on D'
    assert facts["dataset_zero_only_at_start"] and facts["neighbour_largest_at_start"]
    mech = _output(planted.dp_pgd_data_dependent_index, loss=loss, domain=domain,
                   name="dp_pgd_data_dependent_index", epsilon=eps, delta=delta)
    results = _profile_audits(audit, [mech], pair, epsilon=eps, delta=delta, profile=profile, runs=2000)
    assert all(r.violated for r in results), [str(r) for r in results]


# --------------------------------------------------------------------------------------------
# Algorithm 2 (DP-FW-L2)


def _fw2_setting():
    pair, loss, domain = planted.fw_l2_pair()
    eps, delta = planted.FW_L2["epsilon"], planted.FW_L2["delta"]
    n = pair.dataset.shape[0]
    steps, sigma, _, _ = fw2.constants(loss=loss, domain=domain, n=n, epsilon=eps, delta=delta)
    profile = _transcript_profile(loss.constants.lipschitz, n, steps, sigma)
    sens = spec.DEF_2.evaluate("sensitivity", lipschitz=loss.constants.lipschitz, n=n)
    factor = planted.half_sensitivity_factor(loss=loss, domain=domain, n=n, epsilon=eps, delta=delta)
    runs = lambda audit: max(_gaussian_runs(audit, sigma=sigma, steps=steps, sensitivity=sens),  # noqa: E731
                             _gaussian_runs(audit, sigma=sigma, steps=steps, sensitivity=sens, factor=factor))
    return pair, loss, domain, eps, delta, steps, sigma, profile, runs


@pytest.mark.spec("wang19.alg_2", "wang19.thm_1")
@pytest.mark.audit
def test_dp_fw_l2_privacy(audit):
    pair, loss, domain, eps, delta, steps, sigma, profile, runs = _fw2_setting()
    mechs = [_gaussian_transcript(alg.dp_fw_l2, loss=loss, domain=domain, sigma=sigma, steps=steps,
                                  name="dp_fw_l2", epsilon=eps, delta=delta),
             _output(alg.dp_fw_l2, loss=loss, domain=domain, name="dp_fw_l2", epsilon=eps, delta=delta)]
    results = _profile_audits(audit, mechs, pair, epsilon=eps, delta=delta, profile=profile, runs=runs(audit))
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang19.alg_2", "wang19.thm_1")
@pytest.mark.planted
def test_dp_fw_l2_half_sensitivity_is_flagged(audit):
    pair, loss, domain, eps, delta, steps, sigma, profile, runs = _fw2_setting()
    # a real violation: the first noisy gradient alone is (1.08, 1e-5)-DP at best (claim: 1)
    assert planted.half_sensitivity_step_epsilon(loss=loss, domain=domain, n=12, epsilon=eps, delta=delta) > eps
    mech = _gaussian_transcript(planted.dp_fw_l2_half_sensitivity, loss=loss, domain=domain, sigma=sigma,
                                steps=steps, name="dp_fw_l2_half_sensitivity", epsilon=eps, delta=delta)
    results = _profile_audits(audit, [mech], pair, epsilon=eps, delta=delta, profile=profile, runs=runs(audit))
    assert all(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang19.alg_2", "wang19.thm_1", "wang19.thm_4")
@pytest.mark.planted
def test_dp_fw_l2_data_dependent_step_is_flagged(audit):
    pair, loss, domain, eps, delta, steps, sigma, profile, runs = _fw2_setting()
    atoms = planted.step_twin_atoms()  # x_2 = +-gamma: 0.90 on D, 0.52 on D', each with P[R = 2] = 1/2
    assert abs(atoms["dataset"]["learning_rate"] - atoms["neighbour"]["learning_rate"]) > 0.3
    mech = _output(planted.dp_fw_l2_data_dependent_step, loss=loss, domain=domain,
                   name="dp_fw_l2_data_dependent_step", epsilon=eps, delta=delta)
    results = _profile_audits(audit, [mech], pair, epsilon=eps, delta=delta, profile=profile, runs=2000)
    assert all(r.violated for r in results), [str(r) for r in results]


# --------------------------------------------------------------------------------------------
# Algorithm 3 (DP-PMD, entropy on the simplex)


@pytest.mark.spec("wang19.alg_3", "wang19.thm_1")
@pytest.mark.audit
def test_dp_pmd_privacy(audit):
    pair, loss, domain = planted.pmd_pair()
    eps, delta = planted.PMD["epsilon"], planted.PMD["delta"]
    n = pair.dataset.shape[0]
    steps, sigma, _, _, _ = pmd.constants(loss=loss, domain=domain, mirror="entropy", n=n, epsilon=eps, delta=delta)
    profile = _transcript_profile(loss.constants.lipschitz, n, steps, sigma)
    sens = spec.DEF_2.evaluate("sensitivity", lipschitz=loss.constants.lipschitz, n=n)
    mechs = [_gaussian_transcript(alg.dp_pmd, loss=loss, domain=domain, sigma=sigma, steps=steps, name="dp_pmd",
                                  epsilon=eps, delta=delta, mirror="entropy"),
             _output(alg.dp_pmd, loss=loss, domain=domain, name="dp_pmd", epsilon=eps, delta=delta, mirror="entropy")]
    results = _profile_audits(audit, mechs, pair, epsilon=eps, delta=delta, profile=profile,
                              runs=_gaussian_runs(audit, sigma=sigma, steps=steps, sensitivity=sens))
    assert not any(r.violated for r in results), [str(r) for r in results]


# --------------------------------------------------------------------------------------------
# Algorithm 4 (DP-FW-L1)


def _fw1_runs(audit) -> int:
    """Runs for the twin's excess over the per-step claim (one step, two outcomes) at PLANTED_POWER:
    :func:`audits.stats.runs_for_profile` on the event ``{+1}`` with the pure-DP bound of epsilon_0."""
    p_d, p_n, c = planted.fw_l1_selection_profile(coefficient_factor=2.0)
    e0 = c["epsilon_step"]
    bound = min(1.0, math.exp(e0) * p_n)  # the pure-DP claim's B(q) = e^eps0 q, slope e^eps0
    return audit.runs_for_profile([p_d], [p_n], [bound], [math.exp(e0)], alpha=audit.alpha / 3,
                                  power=PLANTED_POWER, minimum=4000)


def _fw1_step_audit(audit, fn, name, share):
    pair, loss, domain = planted.fw_l1_pair("step")
    budget = planted.FW_L1_STEP
    steps, eps0, c, _, _ = fw1.constants(loss=loss, domain=domain, n=pair.dataset.shape[0], **budget)
    mech = _selection_transcript(fn, loss=loss, domain=domain, coefficient=c, steps=steps, name=name, **budget)
    return audit.record(audit_real_valued(mech, pair, epsilon=eps0, delta=0.0, runs=_fw1_runs(audit),
                                      alpha=audit.alpha / share, seed=_seeds(audit.seed, 3)[0],
                                      profile=_composed_profile(eps0, steps)))


@pytest.mark.spec("wang19.alg_4", "wang19.thm_6", "wang19.lemma_1")
@pytest.mark.audit
def test_dp_fw_l1_privacy(audit):
    step = _fw1_step_audit(audit, alg.dp_fw_l1, "dp_fw_l1 (T = 1)", 3)
    pair, loss, domain = planted.fw_l1_pair("composed")
    budget = planted.FW_L1
    steps, eps0, c, _, _ = fw1.constants(loss=loss, domain=domain, n=pair.dataset.shape[0], **budget)
    profile = _composed_profile(eps0, steps)
    mechs = [_selection_transcript(alg.dp_fw_l1, loss=loss, domain=domain, coefficient=c, steps=steps,
                                   name=f"dp_fw_l1 (T = {steps})", **budget),
             _output(alg.dp_fw_l1, loss=loss, domain=domain, name=f"dp_fw_l1 (T = {steps})", **budget)]
    seeds = _seeds(audit.seed, 3)[1:]
    composed = [audit.record(audit_real_valued(m, pair, epsilon=budget["epsilon"], delta=budget["delta"],
                                           runs=_fw1_runs(audit), alpha=audit.alpha / 3, seed=s, profile=profile))
                for m, s in zip(mechs, seeds)]
    results = [step] + composed
    assert not any(r.violated for r in results), [str(r) for r in results]


@pytest.mark.spec("wang19.alg_4", "wang19.thm_6")
@pytest.mark.planted
def test_dp_fw_l1_full_exponent_is_flagged(audit):
    p_d, p_n, c = planted.fw_l1_selection_profile(coefficient_factor=2.0)
    # a real violation of the per-step claim: delta(epsilon_0) >= 0.057 where epsilon_0-DP allows 0
    assert planted.pure_step_excess(p_d, p_n, c["epsilon_step"]) > 0.05
    result = _fw1_step_audit(audit, planted.dp_fw_l1_full_exponent, "dp_fw_l1_full_exponent (T = 1)", 3)
    assert result.violated, str(result)
