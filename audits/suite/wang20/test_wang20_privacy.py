r"""Privacy audits of wang20 Algorithms 1-4 on heavy-tailed neighbours, with the planted-bug twins.

Every pair has one extreme record far out in the tail (``H = 1e12``), which bounded-data neighbours
never test; the instances, the twins and the twins' true privacy loss are in
:mod:`audits.twins.wang20` (checked by ``tests/audits/twins/test_wang20.py``).

Claims. Algorithm 2 is ``epsilon^2/2``-zCDP (``wang20.thm_3``); Algorithm 3's d T calls are
``rho*(epsilon, delta)``-zCDP (``wang20.alg_3`` formula ``rho_total``); both are audited in profile
mode against the binary-event trade-off of the zCDP claim (:class:`audits.tradeoffs.ZcdpTradeoff`:
every event's two probabilities must keep ``D_alpha(Bern(p) || Bern(q)) <= alpha rho``), together
with the (epsilon, delta) point the claim converts to. Algorithm 4's T releases are exactly the
Gaussian mechanism with sensitivity ``sqrt(T) sqrt(d)(s/n)(4 sqrt 2/3)`` (``wang20.alg_4``), audited
against that exact trade-off (:class:`audits.tradeoffs.GaussianTradeoff`). Algorithm 1 (no exact
profile) is audited at its (epsilon, delta) point.

Transcripts. For Algorithms 3 and 4 the linear loss makes the per-record gradients independent of
the iterate, so the released gradients ``g^0, ..., g^{T-1}`` (the reference's transcript hook) are
i.i.d. given the data and the exact log-likelihood ratio of the transcript is a fixed function of
it: the audits' statistic. The claims cover the transcript (the proofs compose the releases).

False alarms and power. Tests marked ``audit`` get the plugin's per-audit alpha (wang20's share,
1/10 of 0.01 over 12 slots); a test with two audit calls gives each half. Tests marked
``planted`` run the same audit on a twin and must flag it; their run counts come from the twins'
exact laws where those are Gaussian (:func:`audits.stats.runs_for_profile`, power 0.9999) and
otherwise from the measured margins quoted below.

Measured (default seed, smoke tier):

* Algorithm 2, counterexample pair, printed bound: refuted with profile margin +0.75 at 2000 runs
  (the runs helper's minimum; epsilon lower bound 2.77 against the claim's 1.999). The twin's
  scales are 39.6 and 3333: ``{|out - 2| > tau}`` has probabilities 0.0027 and 0.905 at
  ``tau = 39.6 sinh 3``.
* Algorithm 3 with line 4 as printed, at ``(epsilon, delta) = (1, 1e-20)``: each call's budget is
  ``epsilon/sqrt(d T) = 0.5`` instead of ``0.0518``; the transcript's exact KL divergence is
  ``d T KL(Z + s || Z)`` = 4.3 times the claimed rho (quadrature, the twins' tests). A Monte Carlo
  of the best LLR event (4e5 draws) gives a margin of 0.037 over the zCDP trade-off; at 60000 runs
  per data set the band radius is 0.0095, so the expected margin is 0.018 with a standard deviation
  of 0.003 (measured: +0.014). At ``delta = 1e-5`` the same bug is real but invisible: Bun and
  Steinke's arsinh-normal is about 20 times more private than its claim (a call's divergence is at most 0.053 of
  ``epsilon_0^2/2``, ``wang20.thm_3``'s flag), which hides a 24-fold budget error in rho.
* Algorithm 4 without the sqrt(d) factor (d = 4): ``mu`` doubles (0.204 to 0.408).
* Algorithm 4 with v estimated from the data, or with the raw mean gradient: the extreme record
  moves the noise scale (or the mean) by about 1e11 standard deviations: ``delta(eps) ~ 1``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from audits import audit_real_valued
from audits.tradeoffs import GaussianTradeoff, zcdp_tradeoff
from audits.twins import wang20 as planted
from reference import wang20 as alg
from reference.wang20 import bun_steinke
from reference.samplers import ArsinhNormal
from spec import zcdp
from spec.wang20 import gradient_descent as spec_gd
from spec.wang20 import bun_steinke as spec_tm

#: Power of the planted tests' run counts.
PLANTED_POWER = 0.9999
#: delta of the (epsilon, delta) point a zCDP claim is also audited at.
POINT_DELTA = 1e-5


def _two_seeds(seed: int) -> tuple[int, int]:
    state = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64)
    return int(state[0] >> np.uint64(1)), int(state[1] >> np.uint64(1))


def _slope(tradeoff, q, step=1e-2):
    """``B'(q)`` by a difference over ``step`` (wider than the tabulation grid of ``B``)."""
    return (tradeoff.bound(np.minimum(q + step, 1.0)) - tradeoff.bound(q)) / step


def _zcdp_audit(audit, mechanism, pair, rho, runs, *, alpha, seed, statistic):
    """Profile mode against the binary-event trade-off of rho-zCDP, plus its (epsilon, 1e-5) point."""
    return audit.record(audit_real_valued(mechanism, pair, epsilon=zcdp.epsilon(rho=rho, delta=POINT_DELTA),
                                      delta=POINT_DELTA, runs=runs, alpha=alpha, seed=seed,
                                      profile=zcdp_tradeoff(rho), statistic=statistic))


# --------------------------------------------------------------------------------------------
# Algorithm 1


@pytest.mark.spec("wang20.alg_1", "wang20.thm_1")
@pytest.mark.audit
def test_alg1_privacy(audit):
    """Sample-and-aggregate on 24 records at -1/2 and 24 at +1/2 against the first replaced by 1e12.

    The blocks holding the extreme record move to the boundary of W; the centre of attention and
    the smooth bound barely move. At m = 16 the bound is its floor ``2 Lambda e^{-beta K}`` (3.92
    of at most 4): sample-and-aggregate needs ``beta K >> 1``, i.e. ``m`` of order ``(2/beta)^2``,
    about 1e4 blocks at epsilon = 1.
    """
    pair, loss, domain = planted.alg1_pair()
    p = planted.ALG1

    def mechanism(data, runs, rng):
        return alg.sample_aggregate(data, loss=loss, domain=domain, epsilon=p["epsilon"], delta=p["delta"],
                                    subsets=p["subsets"], runs=runs, rng=rng,
                                    block_function=alg.projected_mean_blocks).theta

    mechanism.__qualname__ = "sample_aggregate (projected block means), m = 16"
    result = audit.record(audit_real_valued(mechanism, pair, epsilon=p["epsilon"], delta=p["delta"],
                                        runs={"smoke": 20000, "standard": 100000, "deep": 400000}[audit.tier],
                                        alpha=audit.alpha, seed=audit.seed))
    assert not result.violated, str(result)


# --------------------------------------------------------------------------------------------
# Algorithm 2


def _alg2_mechanism(fn, params, name):
    def mechanism(data, runs, rng):
        return fn(data, epsilon=params["epsilon"], trim=params["trim"], mean_lower=params["mean_lower"],
                  mean_upper=params["mean_upper"], runs=runs, rng=rng).value

    mechanism.__qualname__ = name
    return mechanism


def _centred(out):
    return np.abs(out - 2.0)  # both clipped trimmed means of the counterexample are 2


def _alg2_counterexample_runs(audit) -> int:
    """Runs for the printed twin on the counterexample: its exact events ``{|out - 2| > tau}``."""
    c = planted.ALG2_COUNTEREXAMPLE
    x = planted.alg2_counterexample_pair()
    scales = []
    for data in (x.dataset, x.neighbour):
        probe = planted.trimmed_mean_printed_bound(data, epsilon=c["epsilon"], trim=c["trim"],
                                                   mean_lower=c["mean_lower"], mean_upper=c["mean_upper"], rng=0)
        scales.append(probe.noise_scale * float(planted.printed_ratio(data, **c)))
    tau = scales[0] * np.sinh(np.linspace(0.5, 3.5, 31))
    q, p = (np.array([planted.alg2_counterexample_probabilities(t, scales=[s])[0] for t in tau]) for s in scales)
    tr = zcdp_tradeoff(spec_tm.ALG_2.evaluate("rho", epsilon=c["epsilon"]))
    bound = tr.bound(q)
    slope = _slope(tr, q)
    return audit.runs_for_profile(p, q, bound, slope, alpha=audit.alpha, power=PLANTED_POWER, minimum=2000)


@pytest.mark.spec("wang20.alg_2", "wang20.thm_3")
@pytest.mark.audit
def test_alg2_privacy(audit):
    """The corrected bound on the counterexample pair and on the shift pair (alpha/2 each)."""
    c = planted.ALG2_COUNTEREXAMPLE
    rho_c = spec_tm.ALG_2.evaluate("rho", epsilon=c["epsilon"])
    seeds = _two_seeds(audit.seed)
    counter = _zcdp_audit(audit, _alg2_mechanism(alg.trimmed_mean, c, "trimmed_mean, counterexample pair"),
                          planted.alg2_counterexample_pair(), rho_c, 20000, alpha=audit.alpha / 2, seed=seeds[0],
                          statistic=_centred)
    s = dict(planted.SHIFT, epsilon=1.0)
    shift = _zcdp_audit(audit, _alg2_mechanism(alg.trimmed_mean, s, "trimmed_mean, shift pair"),
                        planted.shift_pair(), spec_tm.ALG_2.evaluate("rho", epsilon=1.0), 20000,
                        alpha=audit.alpha / 2, seed=seeds[1], statistic=None)
    assert not counter.violated, str(counter)
    assert not shift.violated, str(shift)


@pytest.mark.spec("wang20.alg_2", "wang20.thm_3")
@pytest.mark.planted
def test_alg2_printed_bound_is_flagged_on_the_counterexample(audit):
    c = planted.ALG2_COUNTEREXAMPLE
    pair = planted.alg2_counterexample_pair()
    ratios = [float(planted.printed_ratio(d, **c)) for d in (pair.dataset, pair.neighbour)]
    assert ratios[0] == pytest.approx(1.0) and ratios[1] > 80  # the printed bound jumps, the corrected does not
    result = _zcdp_audit(audit, _alg2_mechanism(planted.trimmed_mean_printed_bound, c,
                                                "trimmed_mean with the printed bound, counterexample pair"),
                         pair, spec_tm.ALG_2.evaluate("rho", epsilon=c["epsilon"]), _alg2_counterexample_runs(audit),
                         alpha=audit.alpha, seed=audit.seed, statistic=_centred)
    assert result.violated, str(result)


# --------------------------------------------------------------------------------------------
# Algorithm 3

#: Runs per data set of the Algorithm 3 audits (the twin's margin needs about 4e4: module docstring).
ALG3_RUNS = {"smoke": 60000, "standard": 150000, "deep": 400000}


def _alg3_kwargs():
    p = planted.ALG3
    _, loss, domain = planted.alg3_pair()
    return dict(loss=loss, domain=domain, epsilon=p["epsilon"], delta=p["delta"], mean_lower=p["mean_lower"],
                mean_upper=p["mean_upper"], smoothness=p["smoothness"], strong_convexity=p["strong_convexity"],
                trim=p["trim"])


def _alg3_audit(audit, fn, name):
    pair = planted.alg3_pair()[0]
    kw = _alg3_kwargs()
    probe = fn(pair.dataset, runs=1, rng=0, **kw)
    # every released coordinate is -1 + c sinh(Y) on the data set and +1 + c sinh(Y) on the neighbour,
    # with the same c = S/s on both (S = b - a = 2: planted.shift_values)
    c = [float(bun_steinke.noise_scale(v, trim=kw["trim"], dilation=probe.parameters["dilation"],
                                       shift=probe.parameters["shift"], mean_lower=kw["mean_lower"],
                                       mean_upper=kw["mean_upper"])) for v in planted.shift_values()]
    assert c[0] == c[1]
    c = c[0]
    law = ArsinhNormal()

    def statistic(out):  # the exact log-likelihood ratio of the transcript, neighbour over data set
        return np.sum(law.logpdf((out - 1.0) / c) - law.logpdf((out + 1.0) / c), axis=1)

    def mechanism(data, runs, rng):
        res = fn(data, runs=runs, rng=rng, transcript=True, **kw)
        return np.swapaxes(res.transcript["gradient"], 0, 1).reshape(runs, -1)

    mechanism.__qualname__ = f"{name} transcript, shift pair"
    rho = spec_gd.ALG_3.evaluate("rho_total", epsilon=kw["epsilon"], delta=kw["delta"], dimension=planted.ALG3["dimension"],
                                 steps=probe.steps)
    return _zcdp_audit(audit, mechanism, pair, rho, ALG3_RUNS[audit.tier], alpha=audit.alpha, seed=audit.seed,
                       statistic=statistic)


@pytest.mark.spec("wang20.alg_3", "wang20.thm_4")
@pytest.mark.audit
def test_alg3_transcript_privacy(audit):
    result = _alg3_audit(audit, alg.trimmed_mean_gd, "trimmed_mean_gd")
    assert not result.violated, str(result)


@pytest.mark.spec("wang20.alg_3", "wang20.thm_4")
@pytest.mark.planted
def test_alg3_printed_line_4_is_flagged(audit):
    p = planted.ALG3
    steps = 2
    rho = spec_gd.ALG_3.evaluate("rho_total", epsilon=p["epsilon"], delta=p["delta"], dimension=p["dimension"],
                                 steps=steps)
    shift = spec_tm.ALG_2.evaluate("shift", epsilon=p["epsilon"] / math.sqrt(p["dimension"] * steps))
    # a real violation of the zCDP claim: the transcript's KL divergence exceeds rho (quadrature)
    assert p["dimension"] * steps * planted.arsinh_kl(shift) > 4 * rho
    result = _alg3_audit(audit, planted.trimmed_mean_gd_printed_budget, "trimmed_mean_gd with line 4 as printed")
    assert result.violated, str(result)


# --------------------------------------------------------------------------------------------
# Algorithm 4


def _alg4_kwargs(domain, loss):
    p = planted.ALG4
    return dict(loss=loss, domain=domain, epsilon=p["epsilon"], delta=p["delta"], second_moment=p["second_moment"],
                failure_probability=p["failure_probability"], smoothness=p["smoothness"],
                strong_convexity=p["strong_convexity"])


def _alg4_mechanism(fn, kw, name):
    def mechanism(data, runs, rng):
        res = fn(data, runs=runs, rng=rng, transcript=True, **kw)
        return np.swapaxes(res.transcript["gradient"], 0, 1).reshape(runs, -1)

    mechanism.__qualname__ = name
    return mechanism


def _sum(out):
    return out.sum(axis=1)  # the LLR direction: the extreme record is +-H (1, ..., 1)


def _alg4_reference():
    pair, loss, domain = planted.alg4_pair()
    kw = _alg4_kwargs(domain, loss)
    probe = alg.catoni_giulini_gd(pair.dataset, runs=1, rng=0, **kw)
    return pair, kw, probe


def _alg4_twin_runs(audit, probe, sigma_factor):
    """Runs for a twin whose transcript is Gaussian with sigma scaled by ``sigma_factor`` (exact events of the sum)."""
    d, steps = planted.ALG4["dimension"], probe.steps
    tr = GaussianTradeoff(sigma=probe.parameters["sigma"], sensitivity=probe.parameters["sensitivity"], steps=steps)
    # the sum of the T d released coordinates: mean +-T d c' s/n, sd sqrt(T d) sigma'
    half = steps * probe.parameters["sensitivity"] * math.sqrt(d) / 2
    sd = math.sqrt(steps * d) * probe.parameters["sigma"] * sigma_factor
    t = np.linspace(-3 * sd, 3 * sd, 61)
    q = special.ndtr((-half - t) / sd)  # P[sum > t] on the data set (mean -half: gradients are -d)
    p = special.ndtr((half - t) / sd)
    bound = tr.bound(q)
    slope = _slope(tr, q)
    return audit.runs_for_profile(p, q, bound, slope, alpha=audit.alpha, power=PLANTED_POWER, minimum=2000)


@pytest.mark.spec("wang20.alg_4", "wang20.thm_7")
@pytest.mark.audit
def test_alg4_transcript_privacy(audit):
    pair, kw, probe = _alg4_reference()
    tr = GaussianTradeoff(sigma=probe.parameters["sigma"], sensitivity=probe.parameters["sensitivity"], steps=probe.steps)
    result = audit.record(audit_real_valued(_alg4_mechanism(alg.catoni_giulini_gd, kw, "catoni_giulini_gd transcript"),
                                        pair, epsilon=kw["epsilon"], delta=kw["delta"],
                                        runs={"smoke": 40000, "standard": 200000, "deep": 800000}[audit.tier],
                                        alpha=audit.alpha, seed=audit.seed, profile=tr, statistic=_sum))
    assert not result.violated, str(result)


@pytest.mark.spec("wang20.alg_4", "wang20.thm_7")
@pytest.mark.planted
def test_alg4_without_sqrt_d_is_flagged(audit):
    pair, kw, probe = _alg4_reference()
    d = planted.ALG4["dimension"]
    tr = GaussianTradeoff(sigma=probe.parameters["sigma"], sensitivity=probe.parameters["sensitivity"], steps=probe.steps)
    twin = GaussianTradeoff(sigma=probe.parameters["sigma"] / math.sqrt(d), sensitivity=probe.parameters["sensitivity"],
                            steps=probe.steps)
    assert twin.mu > 1.9 * tr.mu  # a real violation: the transcript is the Gaussian mechanism with mu doubled
    result = audit.record(audit_real_valued(
        _alg4_mechanism(planted.catoni_giulini_gd_without_sqrt_d, kw, "catoni_giulini_gd without sqrt(d)"), pair,
        epsilon=kw["epsilon"], delta=kw["delta"], runs=_alg4_twin_runs(audit, probe, 1 / math.sqrt(d)),
        alpha=audit.alpha, seed=audit.seed, profile=tr, statistic=_sum))
    assert result.violated, str(result)


@pytest.mark.spec("wang20.alg_4", "wang20.thm_7")
@pytest.mark.planted
def test_alg4_raw_mean_gradient_is_flagged(audit):
    pair, kw, probe = _alg4_reference()
    tr = GaussianTradeoff(sigma=probe.parameters["sigma"], sensitivity=probe.parameters["sensitivity"], steps=probe.steps)
    result = audit.record(audit_real_valued(
        _alg4_mechanism(planted.catoni_giulini_gd_raw_mean, kw, "catoni_giulini_gd with the raw mean gradient"), pair,
        epsilon=kw["epsilon"], delta=kw["delta"], runs=2000, alpha=audit.alpha, seed=audit.seed, profile=tr,
        statistic=_sum))
    assert result.violated, str(result)


@pytest.mark.spec("wang20.alg_4", "wang20.thm_7")
@pytest.mark.planted
def test_alg4_empirical_second_moment_is_flagged(audit):
    """v estimated from the data: the pair is the extreme record against a record at 1 (v changes, not its sign)."""
    pair, loss, domain = planted.alg4_pair(replacement=1.0)
    kw = _alg4_kwargs(domain, loss)
    v = [planted.empirical_second_moment(d, loss=loss, domain=domain) for d in (pair.dataset, pair.neighbour)]
    assert v[0] > 1e20 * v[1]  # the noise scale follows sqrt(v): a real, enormous violation (twins' tests)
    rho = spec_gd.ALG_4.evaluate("rho_total", epsilon=kw["epsilon"], delta=kw["delta"], n=planted.ALG4["n"],
                                 dimension=planted.ALG4["dimension"], steps=3, second_moment=1.0,
                                 failure_probability=kw["failure_probability"])
    mech = _alg4_mechanism(planted.catoni_giulini_gd_empirical_moment, kw, "catoni_giulini_gd with v from the data")
    result = _zcdp_audit(audit, mech, pair, rho, 2000, alpha=audit.alpha, seed=audit.seed,
                         statistic=lambda out: np.sum(out * out, axis=1))
    assert result.violated, str(result)
