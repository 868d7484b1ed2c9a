r"""Black-box privacy audits: a hypothesis test of a DP claim with a stated error rate.

``audit_privacy(mechanism, dataset, neighbour, epsilon=..., delta=..., runs=...)`` runs the
mechanism ``runs`` times on each of two neighbouring datasets and tests the claim

    P[M(D) in S] <= e^eps P[M(D') in S] + delta   and the same with D and D' swapped,

for events ``S`` of the form ``{T > t}`` or ``{T <= t}``, ``T`` a scalar statistic of the
output. The verdict ``violated`` is True only when the data refute the claim at confidence
``1 - alpha``. Under the claim, ``P[violated] <= alpha`` for **every** mechanism (proofs below).

Randomness
----------
``numpy.random.SeedSequence(seed).spawn(5)`` gives five independent streams, in this order:
(dataset, selection), (neighbour, selection), (dataset, test), (neighbour, test), and the
auditor's own stream. Each of the first four draws ``n`` runs of the mechanism on its dataset:
``n_sel = ceil(selection_fraction * runs)`` selection runs (default 15%) or test runs. In
profile mode the test runs are the remaining ``m = runs - n_sel`` runs; in point mode each test
stream gets ``N ~ Poisson(m)`` runs, drawn from the auditor's stream (which also draws the
Poisson process that absorbs ``delta``; see below). With a caller's ``event`` there is no
selection: the two test streams get ``Poisson(runs)`` runs each. The ``n`` runs of a stream are
drawn in chunks (:mod:`audits.execution`): chunk ``c`` of stream ``s`` is one call
``mechanism(data, size, rng)`` with ``rng`` seeded by ``SeedSequence(seed, spawn_key=(s, c))``,
so the outputs do not depend on the executor (``executor=``), its workers or the order in which
chunks finish. The mechanism must draw its randomness only from ``rng`` and return ``size``
independent outputs along the leading axis (the batched-runs contract of ``reference/``).

*Streaming.* The selection outputs are kept in memory; the test outputs are reduced chunk by
chunk, where they are drawn, to what the test needs (:mod:`audits.streaming`): the counts of
the chosen events (point mode), the statistic's values or its counts at a grid of thresholds
fixed by the selection runs (profile mode). Driver memory therefore grows with the selection
runs only.

*Probe.* Before those calls the mechanism is called three times on the dataset with
:data:`PROBE_RUNS` runs, from children 5 and 6 of ``SeedSequence(seed).spawn(7)`` (independent
of the five streams; the probe outputs take no part in the test): twice with the same seed and
once with another. Different outputs from the same seed mean the mechanism draws randomness
outside ``rng``: the run cannot be reproduced from its seed (the error guarantee still holds if
those draws are fresh and independent); identical, non-constant outputs from different seeds
mean it ignores ``rng`` and repeats its draws, so selection and test runs are not independent
and the error guarantee is lost. Both raise an :class:`RngWarning` (the first is skipped for a
mechanism with ``seeded = False``, e.g. :func:`audits.adapters.per_sample` of an unseedable
function). The probe also gives the bytes per output, which set the chunk size
(:func:`audits.execution.chunk_runs`), and ``runs`` is refused (ParameterError) when the runs the
audit keeps in memory -- the selection runs and a chunk -- would not fit (:func:`memory_needed`).

The statistic
-------------
Chosen in this order (``statistic`` in the result describes it):

1. ``statistic(outputs) -> (runs,)`` given by the caller;
2. the log-likelihood ratio ``mechanism.logpdf(D, y) - mechanism.logpdf(D', y)`` when the
   mechanism has a ``logpdf(data, outputs)`` attribute: by Neyman-Pearson its threshold events
   are the optimal rejection regions, so nothing is learned except the threshold;
3. otherwise the *value family* of :mod:`audits.statistics`: a score learned from the
   selection counts for discrete outputs, the output itself for scalars, and for vectors the
   projection on the selection mean difference together with each coordinate on its own; in
   point mode the selection chooses among them (profile mode uses the projection).

With the default statistic (3.) and floating-point outputs that are not discrete, the
*low-bit family* (:func:`audits.statistics.bits_family`: classes of sign, binade and trailing
zero bits of the significand, and repeated values, per coordinate) is tested beside it, in
point and in profile mode, as a second test with its own share of alpha (below;
:mod:`audits.low_bits`). ``low_bits=False`` turns it off (to audit the real-valued idealisation
of a floating-point mechanism); ``low_bits=True`` adds it to a caller's statistic, a ``logpdf``
or a caller's event as well, and is an error for outputs without low bits (integers, discrete
values). Whether it ran, and why not, is in the result (``families["low_bits"]``) and on its
line: it is never skipped silently.

Verdicts name every finding
---------------------------
The tests behind a verdict come in two *families*: ``"values"`` (the value test, a caller's
statistic or event, or profile mode's bands) and ``"low_bits"``. The result records each
(``families``: whether it refutes, its bound, estimate, share of alpha, event), the families
that refute (``refuted_by``) and a ``verdict``: ``"not refuted"``, ``"refuted by values"``
(whether or not the low bits refute too) or ``"refuted only by low bits"`` -- a floating-point
leak of a mechanism whose real-valued idealisation the values do not refute, fixed by a discrete
or snapped sampler (``dperm audit`` exits 1 and 4 for the two refutations). The result line
names each family that refutes, with its bound, and when only the low bits refute it gives the
values' bound and estimate beside them.

Point mode (no ``profile``)
---------------------------
*Selection.* On the selection runs only, every candidate event of every statistic of the
family (threshold ``t`` among the pooled selection values -- up to 2048 of them, spaced
geometrically in rank from both tails so that rare tail events are represented -- times side
``>``/``<=`` times direction ``D over D'``/``D' over D``) is scored by its *projected* lower
bound (:func:`audits.selection.select_event`): the bound the test below would give if the
selection frequencies held at the test sample size, after shrinking them to one-sided
Clopper-Pearson bounds at level 0.05 (a winner's curse guard). The low-bit statistics learn
their class scores on the first half of the selection runs and choose their event on the
second half (scores fitted and judged on the same runs would make every rare class look
decisive).

*Two tests, one alpha.* With the low-bit family, the value test spends ``(1 - s) alpha`` and the
low-bit test ``s alpha``, ``s =`` :data:`LOW_BITS_SHARE` ``= 0.2``, on the same test runs; the
claim is refuted when either rejects at its share, and ``epsilon_lower`` is the larger of the
two bounds. By the union bound, under the claim both verdicts together err with probability at
most ``alpha``, and the larger bound exceeds the true loss with probability at most ``alpha``.
``tests`` in the result lists each test (family, alpha, statistic, event, counts, bound).

*Test.* On the test runs the chosen event is counted: ``K_p`` on the dataset whose probability
the claim bounds and ``K_q`` on the other one, from ``Poisson(m)`` runs each, so
``K_p ~ Poisson(m p)`` and ``K_q ~ Poisson(m q)`` are independent. The claim for the event,
``p <= e^eps q + delta``, is tested by the exact conditional test of
:func:`audits.stats.poisson_point_bound`: the auditor adds ``B ~ Poisson(m delta e^-eps)`` to
``K_q`` (a Poisson process drawn from its own stream), which turns the claim into a bound
``e^eps / (1 + e^eps)`` on the binomial proportion of ``K_p`` given ``K_p + K_q + B``; the test
is inverted on the grid ``{0, 0.001, ...}``::

    epsilon_lower    = largest grid point g such that the test rejects at every grid point <= g
                       (0 if it does not reject at 0)
    epsilon_estimate = ln((K_p/m - delta) / (K_q/m))        (0 if K_p/m <= delta, clamped at 0;
                                                             inf if K_q = 0 < K_p/m - delta)
    violated         = epsilon_lower > epsilon

Compared with two Clopper-Pearson bounds at ``alpha/2`` each (the previous test, still reported
as ``p_lower`` and ``q_upper`` for reference), the conditional test uses both counts jointly;
simulated at 1e6 runs per dataset and alpha = 0.05 (100 seeds), the Gaussian point claim
(1, 1e-5) at the analytic sigma gives a median ``epsilon_lower`` of 0.78 (10% quantile 0.72;
before: 0.73 and 0.66), and Laplace at eps = 1 a mean of 0.99 (see ``docs/audit-evidence.md``).

*Proof that P[violated] <= alpha under the claim.* The event ``S`` (statistic, threshold,
side, direction) is a function of the selection outputs only, which come from streams
independent of the test streams and of the auditor's stream. Conditional on the selection
outputs, ``S`` is fixed; the test sample sizes ``N ~ Poisson(m)`` are independent of the
outputs, so by Poisson thinning ``K_p ~ Poisson(m p)`` and ``K_q ~ Poisson(m q)``, independent,
with the true ``p = P[M(x) in S]``, ``q = P[M(x') in S]``, and independent of the arrivals.
If the claim holds (it covers both orders of the pair), ``p <= e^eps q + delta`` with eps the
claimed epsilon, so ``eps* = ln((p - delta)/q) <= eps`` (or ``p <= delta``). By
:func:`audits.stats.poisson_point_bound`, ``P[epsilon_lower >= eps*] <= alpha`` at every grid
point argument: let ``g1`` be the smallest grid point ``>= eps*`` (any grid point when
``p <= delta``); the claim holds at ``g1``, where the conditional test has size at most
``alpha``, and ``epsilon_lower >= eps*`` needs a rejection at ``g1``. Since
``epsilon_lower > eps >= eps*`` is such an outcome, ``P[violated] <= alpha`` conditionally on
every selection outcome, hence unconditionally. Binomial tails are rounded up (relative 1e-6, :data:`audits.stats.TAIL_MARGIN`)
and the null proportion up by one ulp, so floating point can only make the test conservative.

User events (``event`` given)
-----------------------------
When the caller names the event -- ``event(outputs) -> bool (runs,)``, or a number ``t`` for the
event ``{T > t}`` of the statistic (or of a scalar output) -- nothing is selected: all runs go
to the test (``Poisson(runs)`` per dataset) and the event is tested in both directions at
``alpha / 2`` each (``direction="dataset"`` or ``"neighbour"`` spends all of ``alpha`` on one).
A rare event that decides the claim is then counted on every run instead of dying in the 15%
selection share. Soundness: the event is fixed in advance, so each direction's test has size at
most its share (the proof above with a fixed ``S``); the union bound covers both. With
``low_bits=True`` the selection share is held out after all, from the selection streams, for the
low-bit test (learned and chosen as in point mode, tested on the same ``Poisson(runs - n_sel)``
test runs at ``s alpha``; the event's directions share ``(1 - s) alpha``); by default a caller's
event runs no low-bit test, and the result says so.

Profile mode (``profile`` given)
--------------------------------
``profile`` declares the whole privacy profile: a callable ``delta(eps)`` valid for every
``eps >= 0`` and both orders of the pair, or an object with a ``tradeoff(a)`` method (an f-DP
trade-off function: the smallest type-II error at type-I error ``a``; nonincreasing). The
claim allows, for an event with probability ``a`` on one dataset, at most

    B(a) = min(1, inf_eps [e^eps a + delta(eps)], inf_eps [1 - e^-eps (1 - a - delta(eps))])

on the other (the second term is the claim for the complement in the other order), or
``B(a) = 1 - f(a)`` for a trade-off function ``f``.

The statistic uses all ``runs`` when nothing is learned (a caller's statistic, ``logpdf``, or
scalar floating-point outputs: the selection outputs are then simply pooled with the test
outputs); otherwise (vectors, integer outputs) it is learned on the selection runs as in point
mode and the bands use the test runs. The decision depends only on the outputs' shape and dtype,
which must agree across the four calls.

With ``n`` band runs per dataset, a simultaneous band at level ``alpha/2`` is put around each
empirical CDF of ``T`` (:func:`audits.stats.cdf_band`): for an event holding ``c`` of the ``n``
values, probabilities ``lower[c] <= P <= upper[c]``. The default band (``band="weighted"``) is
the DKW-Massart band at level ``0.9 alpha/2`` (radius ``r = sqrt(ln(4/(0.9 alpha))/(2n))``)
intersected with order-statistic (Clopper-Pearson) bounds at level ``0.1 alpha/(4n)`` per count
and side (``audits.stats.TAIL_SHARE = 0.1`` of the band's level), which
are far tighter than ``r`` for events of small probability; ``band="dkw"`` is the DKW-Massart
band at level ``alpha/2`` alone (radius ``sqrt(ln(4/alpha)/(2n))``). With ``lower_p`` the lower
bound of an event on the dataset whose probability the claim bounds and ``upper_q`` the upper
bound on the other, the claim is refuted when for some threshold event ``S_t`` (both sides,
both directions)

    lower_p(S_t) > B(upper_q(S_t)),

and also when the point claim fails under the same bands:
``epsilon_lower = max_t ln((lower_p(S_t) - delta) / upper_q(S_t)) > epsilon``.

*Proof that P[violated] <= alpha under the claim.* ``T`` is fixed given the selection runs,
which are independent of the band runs (or ``T`` is fixed outright). By
:func:`audits.stats.cdf_band` (DKW-Massart, the order-statistic bounds) and the union bound, with
probability ``>= 1 - alpha`` both bands hold for *every* ``t`` at once, so for every threshold
event ``lower_p <= P_p(S_t)`` and ``upper_q >= P_q(S_t)``. Under the claim
``P_p(S_t) <= B_true(P_q(S_t)) <= B_true(upper_q)`` because ``B_true`` is nondecreasing (an
infimum of nondecreasing functions of ``a``; ``1 - f`` for nonincreasing ``f``). The ``B`` we
compute is never below ``B_true``: the infimum over ``eps`` is replaced by a minimum over a
finite grid (which can only be larger), values of ``delta(eps)`` slightly below 0 are raised to
0, and a slack of ``1e-9`` is added for floating-point error. Hence
``lower_p <= B(upper_q)`` for every ``t`` and nothing is flagged; the point-claim part is the
same argument with ``B(a) = e^eps a + delta``. Coarse grids cost power, never soundness.

*The low-bit test in profile mode.* When it runs (see "The statistic"), the bands spend
``(1 - s) alpha`` (``alpha`` above becomes ``(1 - s) alpha``) and the low-bit test ``s alpha``:
its event is learned and chosen on the selection runs as in point mode and counted on the ``m``
test runs of each dataset (fixed, not Poisson), and the claim is refuted when Clopper-Pearson
bounds at ``s alpha/2`` each (:func:`audits.event_tests.fixed_runs_test`) put the event beyond the
point claim or beyond ``B``. The event is fixed by runs independent of the test runs, so this
test errs with probability at most ``s alpha`` under the claim; the union bound adds the bands'.
The selection runs may also join the bands (scalar floats): the two tests are not independent,
which the union bound does not need.

*How close the claim came.* ``profile_scale`` (and ``profile_margin = profile_scale - 1``): the
largest multiple of the claim's allowance, on the probit scale, that the same bands refute; a
lower confidence bound on the true multiple up to 1 (for a Gaussian claim of noise ``sigma``
and Gaussian noise ``sigma'``, on ``sigma / sigma'``), above 1 exactly when the bands refute the
profile. Definition, proof and the approximate ``profile_runs_to_refute`` in
:mod:`audits.profile_mode`.

Power: for a Gaussian mechanism with noise ``0.9 x`` the analytically calibrated sigma
(eps = 1, delta = 1e-5, sensitivity 1) audited against the calibrated profile,
:func:`audits.stats.runs_for_gaussian` asks for 1.1e5 runs per dataset at ``alpha = 0.05`` and
1.9e5 at ``alpha = 5e-4`` (power 0.9 by a normal approximation at the best single threshold);
simulated with 50 seeds each, the power was 1.00 and 0.96 (0.98 at 2e5 runs), since the test
uses every threshold. A single ``(eps, delta)`` point needs orders of magnitude more runs
(2.2e7 by the same calculation): the profile is violated most clearly near ``a = 1/2``, where
counts are large.
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from audits import event_tests, execution, selection, stats, streaming
from audits import low_bits as low_bits_test
from audits import statistics as stat
from audits.calls import call_with_runs_rng
from audits.claims import ClaimBound, claim_bound
from audits.jsonable import jsonable
from audits.pairs import NeighbouringPair, _columns, as_relation, assert_neighbours
from audits.profile_mode import profile_test, profile_test_counts
from reference.rng import fresh_seed
from spec import validate
from spec.errors import ParameterError
from spec.record import Neighbouring

__all__ = ["AuditResult", "audit_privacy", "claim_bound", "memory_needed", "RngWarning",
           "MIN_RUNS", "LOW_BITS_SHARE", "PROBE_RUNS"]

#: Smallest number of runs per dataset accepted.
MIN_RUNS = 100
#: Share of alpha spent by the low-bit test when it runs beside the value test (every mode).
LOW_BITS_SHARE = low_bits_test.SHARE
#: The families of tests a verdict can name (``AuditResult.families``, ``refuted_by``).
FAMILIES = ("values", "low_bits")
#: Runs of each of the three probe calls (module docstring, "Probe").
PROBE_RUNS = 256
#: Bytes per run kept besides the outputs (statistics, sorted copies, event masks), per dataset.
_WORKING_BYTES = 96


class RngWarning(UserWarning):
    """The mechanism's outputs do not behave as draws from its ``rng`` (module docstring)."""


# --------------------------------------------------------------------------------------------
# Result




def _fmt(x: float) -> str:
    return f"{x:.3g}"


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_privacy`.

    Attributes
    ----------
    violated : bool
        The claim is refuted at confidence ``1 - alpha``.
    epsilon_lower : float
        Lower confidence bound on the privacy loss at the claimed ``delta``.
    epsilon_estimate : float
        Point estimate of the privacy loss at the reported event (``inf`` when the event never
        occurred on the other dataset; see the module docstring).
    epsilon, delta : float
        The claim.
    runs : int
        Runs per dataset (selection and test together).
    alpha : float
        Error level of the test.
    seed : int
        Seed of the ``SeedSequence`` that drove every random draw.
    mode : {"point", "profile"}
    statistic : str
        How the scalar statistic ``T`` was obtained.
    event : str
        The event behind ``epsilon_lower`` (and the point verdict).
    counts : dict
        Sample sizes and counts behind the bound (see :func:`audit_privacy`).
    mechanism : str
        Name of the audited mechanism.
    relation : str
        Neighbouring relation of the pair.
    profile_violated : bool or None
        Profile mode: the bands refute the declared profile (the low-bit test's own verdict on
        the profile is ``families["low_bits"]["profile_violated"]``).
    profile_margin : float or None
        Profile mode: ``profile_scale - 1``; positive exactly when the bands refute the profile.
    profile_scale : float or None
        Profile mode: how close the claim came (:mod:`audits.profile_mode`, "How close the
        claim came"): the largest multiple ``c*`` of the claim's allowance (on the probit scale)
        that the bands refute; ``min(c*, 1)`` is a lower confidence bound on the true multiple
        (for a Gaussian claim of noise ``sigma`` and Gaussian noise ``sigma'``: ``sigma/sigma'``).
    profile_runs_to_refute : int or None
        Profile mode, approximate: the runs per dataset at which the bands would refute the
        profile if the event probabilities were the corners of a 50% band around the observed
        frequencies (:func:`audits.profile_mode.runs_to_refute`; None: refuted already, or not
        within ``audits.profile_mode.MAX_PROJECTION`` times the runs).
    profile_event : str or None
        Profile mode: the event that attains ``profile_scale``.
    curve : dict or None
        Profile mode: a downsampled empirical trade-off curve with its bands and the claimed
        bound, for plots.
    tests : tuple of dict
        The point tests behind the verdict (``family``: ``"value"``, ``"user event"`` or
        ``"low-bit"``; ``alpha``, ``statistic``, ``event``, ``dataset``/``neighbour`` counts,
        ``epsilon_lower``, ``violated``); profile mode: the low-bit test, if it ran.
    families : dict
        One entry per family of tests, ``"values"`` (the value test, a caller's statistic or
        event, or profile mode's bands) and ``"low_bits"`` (the floating-point low-bit test):
        ``status`` (``"tested"``, ``"off"``, ``"not run"``, ``"not applicable"``; with
        ``reason`` when not tested) and, when tested, ``violated``, ``epsilon_lower``,
        ``epsilon_estimate``, ``alpha`` (the family's share), ``statistic`` and ``event``
        (profile mode adds ``profile_violated``, ``point_violated`` and ``profile_scale``).
    refuted_by : tuple of str
        The families that refute the claim (``()``, ``("values",)``, ``("low_bits",)`` or both).
    execution : dict or None
        Where the runs executed: ``executor`` (``serial``, ``processes``, ``dask``, ...) and
        ``workers`` (:mod:`audits.execution`); not part of the outcome (not compared).
    """

    violated: bool
    epsilon_lower: float
    epsilon_estimate: float
    epsilon: float
    delta: float
    runs: int
    alpha: float
    seed: int
    mode: str
    statistic: str
    event: str
    counts: Mapping[str, Any]
    mechanism: str = ""
    relation: str = ""
    profile_violated: bool | None = None
    profile_margin: float | None = None
    profile_event: str | None = None
    curve: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)
    tests: tuple = ()
    profile_scale: float | None = None
    profile_runs_to_refute: int | None = None
    families: Mapping[str, Any] = field(default_factory=dict)
    refuted_by: tuple = ()
    execution: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def confidence(self) -> float:
        return 1.0 - self.alpha

    @property
    def verdict(self) -> str:
        """``"not refuted"``, ``"refuted by values"`` (whether or not the low bits refute too) or
        ``"refuted only by low bits"`` (the floating-point leak; the real-valued mechanism is not
        refuted). ``dperm audit`` exits with 0, 1 and 4 for them."""
        if not self.violated:
            return "not refuted"
        return "refuted only by low bits" if self.refuted_by == ("low_bits",) else "refuted by values"

    def _claim(self) -> str:
        point = f"({self.epsilon:g}, {self.delta:g})-DP"
        return f"profile + {point}" if self.mode == "profile" else point

    def _profile_text(self) -> str:
        scale = self.profile_scale
        if scale is None:  # a result built without the scale: the margin alone
            return f"profile {'refuted' if self.profile_violated else 'holds'} (margin {self.profile_margin:+.2g})"
        values = self.families.get("values", {})
        if values.get("profile_violated", self.profile_violated):
            text = f"profile refuted: at {_fmt(scale)}x its allowance (margin {scale - 1:+.2g})"
        else:
            text = f"profile holds: refuted only at {_fmt(scale)}x its allowance (margin {scale - 1:+.2g})"
            if self.profile_runs_to_refute is not None:
                text += (f", about {self.profile_runs_to_refute:.2g} runs/dataset would refute it if the "
                         "observed frequencies held (approximate)")
        return text

    @staticmethod
    def _numbers(family: Mapping[str, Any]) -> str:
        text = f"lower bound {_fmt(family['epsilon_lower'])}"
        if family.get("profile_violated") and not family.get("point_violated", True):
            if "profile_scale" in family:  # the bands
                return f"profile scale {_fmt(family['profile_scale'])}"
            return f"{text}, beyond the declared profile"
        return text

    def _verdict_text(self) -> str:
        values, bits = self.families.get("values"), self.families.get("low_bits", {})
        if values is None or bits.get("status") != low_bits_test.TESTED:
            text = "REFUTED" if self.violated else "not refuted"
            if bits.get("status") == low_bits_test.NOT_RUN or (
                    bits.get("status") == low_bits_test.OFF and "real-valued" in bits.get("reason", "")):
                text += f" (low-bit test {bits['status']}: {bits['reason']})"
            return text
        v, b = self._numbers(values), self._numbers(bits)
        if values["violated"] and bits["violated"]:
            return f"REFUTED by its values ({v}) and by its float low bits ({b})"
        if values["violated"]:
            return f"REFUTED by its values ({v}); its float low bits do not refute it ({b})"
        if bits["violated"]:
            return (f"REFUTED only by its float low bits ({b}); the real-valued mechanism is not refuted: its "
                    f"values give {v} (estimate {_fmt(values['epsilon_estimate'])}). A floating-point leak, "
                    "not a calibration bug: a discrete or snapped sampler fixes it; low_bits=False "
                    "(dperm audit --low-bits off) audits the real-valued idealisation")
        return f"not refuted (values: {v}; float low bits: {b})"

    def __str__(self) -> str:
        conf = f"{100 * (1 - self.alpha):.6g}%"
        extra = f" | {self._profile_text()}" if self.mode == "profile" else ""
        return (f"{self._claim()} claim: estimate {_fmt(self.epsilon_estimate)}, lower bound "
                f"{_fmt(self.epsilon_lower)} at {conf}{extra} | {self.runs} runs/dataset | "
                f"seed {self.seed} | {self._verdict_text()}")

    def to_dict(self) -> dict:
        """Strict-JSON dictionary (:func:`spec.jsonable.strict`: a non-finite number is null, its
        path listed in ``"infinite"``), with the derived ``verdict`` and the one-line ``summary``."""
        d = asdict(self)
        d["result_type"] = "privacy"
        d["verdict"] = self.verdict
        d["summary"] = str(self)
        return jsonable(d)


# --------------------------------------------------------------------------------------------
# Calling the mechanism


def _name(mechanism) -> str:
    return getattr(mechanism, "__qualname__", None) or getattr(mechanism, "__name__", None) or type(mechanism).__name__


def _call(mechanism, data, n: int, rng, name: str, runs: int) -> np.ndarray:
    """``mechanism(data, n, rng)`` as a checked numeric array; ``runs`` is the caller's total,
    quoted in messages next to the ``n`` of this call."""
    out = call_with_runs_rng(mechanism, data, runs=n, rng=rng)
    try:
        arr = np.asarray(out)
    except Exception:  # pragma: no cover - exotic objects
        raise ParameterError(f"mechanism {name} must return a numpy array, got {type(out).__name__}") from None
    if arr.dtype.kind not in "biuf":
        raise ParameterError(f"mechanism {name} must return a numeric array, got dtype {arr.dtype}")
    if arr.ndim == 0 or arr.shape[0] != n:
        raise ParameterError(
            f"mechanism {name} must return one output per run along the first axis: called with "
            f"runs={n} (the audit splits the runs={runs} you asked for into calls like this one), "
            f"it returned shape {arr.shape}"
        )
    if arr[0].size == 0:
        raise ParameterError(f"mechanism {name} returned empty outputs (shape {arr.shape})")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ParameterError(f"mechanism {name} returned NaN or infinite outputs")
    return arr


def _available_memory() -> int:
    """Bytes of memory available to this process (MemAvailable, else physical memory)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - exotic platforms
        return 2**34


def memory_needed(*, runs: int, bytes_per_output: int) -> int:
    """Estimated peak bytes of ``runs`` outputs per dataset held in memory (both datasets, plus
    Poisson slack) with the working arrays of the statistics. An audit holds its selection runs
    and one chunk of test runs per dataset (the test runs stream: :mod:`audits.streaming`); the
    mechanism's own working memory is not included."""
    slack = 6.0 * math.sqrt(runs) + 100
    return int(2 * (runs + slack) * (bytes_per_output + _WORKING_BYTES))


def _probe(mechanism, dataset, seed: int, name: str, runs: int) -> np.ndarray:
    """The probe calls (module docstring): warnings about ``rng``; returns the first call's
    outputs (their size and type)."""
    def child(i):  # a fresh SeedSequence per call: a mechanism that spawns from its rng advances
        # the sequence's spawn counter, so reusing one object would hand the repeat other children
        return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,)))

    first = _call(mechanism, dataset, PROBE_RUNS, child(5), name, runs)
    again = _call(mechanism, dataset, PROBE_RUNS, child(5), name, runs)
    other = _call(mechanism, dataset, PROBE_RUNS, child(6), name, runs)
    seeded = getattr(mechanism, "seeded", True) is not False
    if seeded and not np.array_equal(first, again):
        warnings.warn(
            f"mechanism {name}: the same seed gave different outputs, so it draws randomness outside "
            "its rng argument; this audit cannot be reproduced from its seed (its error rate still "
            "holds if those draws are fresh and independent; audits.adapters.per_sample(..., "
            "seeded=False) declares such a mechanism)", RngWarning, stacklevel=3)
    varied = not np.all(first == first[:1])
    if varied and np.array_equal(first, other):
        warnings.warn(
            f"mechanism {name}: different seeds gave identical outputs, so it ignores its rng "
            "argument and repeats its draws; the audit's runs are then not independent and its "
            "error rate does not hold", RngWarning, stacklevel=3)
    return first


def audit_real_valued(mechanism, pair, **kwargs) -> AuditResult:
    """:func:`audit_privacy` of the real-valued algorithm that a floating-point implementation computes.

    The papers' theorems are about algorithms over the reals; a reference that computes in doubles
    releases low-order bits that leak whatever the algorithm (Mironov 2012), and the default
    low-bit test refutes it for that reason alone. The repository's paper audits test the
    theorem's claim on the released values, so they switch the low-bit test off
    (``low_bits=False``); the float leak itself is audited on the primitives
    (``audits/suite/primitives``, ``test_float_laplace_low_bits_are_flagged``). Auditing your own
    release, use :func:`audit_privacy`, which keeps the low-bit test.

    Parameters
    ----------
    mechanism, pair, **kwargs
        As :func:`audit_privacy`, without ``low_bits``.
    """
    if "low_bits" in kwargs:
        raise TypeError(f"low_bits ({kwargs['low_bits']!r}) is set by audit_real_valued itself (False)")
    return audit_privacy(mechanism, pair, low_bits=False, **kwargs)


def _check_memory(runs: int, held: int, bytes_per_output: int, extra: int = 0) -> None:
    """Refuse ``runs`` when the ``held`` runs per dataset kept in memory (the selection runs and
    one chunk), with ``extra`` bytes, would not fit."""
    need, have = memory_needed(runs=held, bytes_per_output=bytes_per_output) + extra, _available_memory()
    if need > have:
        raise ParameterError(
            f"runs ({runs}) needs about {need:.2g} bytes of memory for the {held} runs per dataset it keeps "
            f"(the selection runs and one chunk of test runs; {bytes_per_output} bytes per output, two datasets) "
            f"but about {have:.2g} bytes are available: use at most about {int(runs * have / need)} runs, or a "
            "smaller selection_fraction"
        )


# --------------------------------------------------------------------------------------------
# Chunks of runs (audits.execution)

#: The streams of ``SeedSequence(seed)``: selection and test runs of each dataset, the auditor's.
SEL_D, SEL_N, TEST_D, TEST_N, AUDITOR = range(5)


def _chunk(payload, reduction, chunk):
    """One chunk, on whichever worker runs it: the mechanism's outputs for the chunk's runs
    (``reduction`` None) or their reduction (:mod:`audits.streaming`)."""
    mechanism, datasets, name, runs = payload
    out = _call(mechanism, datasets[chunk.data], chunk.size, chunk.rng(), name, runs)
    return out if reduction is None else reduction(out)


def _chunk_size(chunk) -> int:
    return chunk.size


class _Draws:
    """The runs of one audit, in chunks on its execution: outputs kept (selection runs) or
    reduced as they arrive (test runs). ``calls`` are ``(dataset index, stream, runs)``."""

    def __init__(self, job, mechanism, datasets, *, seed, name, runs, chunk_runs):
        self.job, self.seed, self.name, self.chunk_runs = job, seed, name, chunk_runs
        self.payload = job.share((mechanism, tuple(datasets), name, runs), f"mechanism {name} and its datasets")
        self.where = job.execution.describe()  # completed by chunking()

    def _split(self, calls):
        return [execution.split(n, self.chunk_runs, seed=self.seed, stream=stream, data=data)
                for data, stream, n in calls]

    def outputs(self, calls) -> list[np.ndarray]:
        """The outputs of each call, each chunk copied to its runs' rows as it arrives (so the
        driver holds the outputs and one chunk, not the chunks and their concatenation)."""
        per_call = self._split(calls)
        tasks = [c for chunks in per_call for c in chunks]
        where = [(j, c.index * self.chunk_runs) for j, chunks in enumerate(per_call) for c in chunks]
        out: list = [None] * len(calls)

        def consume(i, value):
            j, offset = where[i]
            if out[j] is None:
                out[j] = np.empty((calls[j][2], *value.shape[1:]), dtype=value.dtype)
            elif value.shape[1:] != out[j].shape[1:] or value.dtype != out[j].dtype:
                raise ParameterError(
                    f"mechanism {self.name} returned outputs of different shapes or dtypes across calls "
                    f"({out[j].shape[1:]}/{out[j].dtype} vs {value.shape[1:]}/{value.dtype})")
            out[j][offset:offset + value.shape[0]] = value

        self.job.map(_chunk, (self.payload, None), tasks, runs=_chunk_size, consume=consume)
        return out

    def reduce(self, reduction, calls) -> list[list]:
        """The reduction's totals for each call, combined as the chunks arrive (in any order)."""
        per_call = self._split(calls)
        totals = [reduction.start(n) for _, _, n in calls]
        where = [(j, c.index * self.chunk_runs) for j, chunks in enumerate(per_call) for c in chunks]
        tasks = [c for chunks in per_call for c in chunks]
        shared = (self.payload, self.job.share(reduction, f"the statistics of mechanism {self.name}"))

        def consume(i, value):
            j, offset = where[i]
            totals[j] = reduction.add(totals[j], value, offset)

        self.job.map(_chunk, shared, tasks, runs=_chunk_size, consume=consume)
        return totals

    def chunking(self) -> dict:
        """What the result reports about the chunks (the same whatever the executor); also added
        to the description of the execution."""
        chunking = {"chunk_runs": self.chunk_runs, "chunks": self.job.chunks}
        self.where.update(chunking, **self.job.timing())
        return chunking


# --------------------------------------------------------------------------------------------
# Pairs


def _as_pair(obj):
    """A NeighbouringPair or a (dataset, neighbour) tuple from ``obj`` or from calling it."""
    if callable(obj) and not isinstance(obj, (tuple, NeighbouringPair, np.ndarray)):
        obj = obj()
    return obj


def _resolve_pair(dataset, neighbour, relation):
    """The pair forms of ``dperm audit``: a NeighbouringPair, a ``(dataset, neighbour)`` tuple,
    a zero-argument callable returning either, or two datasets."""
    if neighbour is None:
        dataset = _as_pair(dataset)
        if isinstance(dataset, tuple) and len(dataset) == 2 and not isinstance(dataset, NeighbouringPair):
            dataset, neighbour = dataset
    if isinstance(dataset, NeighbouringPair):
        if neighbour is not None:
            raise ParameterError("give either a NeighbouringPair or two datasets, not both")
        if relation is not None and as_relation(relation) is not dataset.relation:
            raise ParameterError(
                f"relation ({as_relation(relation).value}) differs from the pair's ({dataset.relation.value})"
            )
        return dataset.dataset, dataset.neighbour, dataset.relation
    if neighbour is None:
        raise ParameterError("neighbour is required unless dataset is a NeighbouringPair, a (dataset, "
                             "neighbour) tuple or a callable returning one")
    _columns("dataset", dataset)
    _columns("neighbour", neighbour)
    if relation is not None:
        relation = as_relation(relation)
        assert_neighbours(dataset, neighbour, relation)
        return dataset, neighbour, relation
    errors = []
    for rel in (Neighbouring.REPLACE_ONE, Neighbouring.ADD_REMOVE_ONE):
        try:
            assert_neighbours(dataset, neighbour, rel)
            return dataset, neighbour, rel
        except ParameterError as exc:
            errors.append(str(exc))
    raise ParameterError("dataset and neighbour are not neighbours: " + "; ".join(errors))


def _check_consistent(outputs, name):
    ref = outputs[0]
    for o in outputs[1:]:
        if o.shape[1:] != ref.shape[1:] or stat.integer_kind(o) != stat.integer_kind(ref):
            raise ParameterError(
                f"mechanism {name} returned outputs of different shapes or dtypes across calls "
                f"({ref.shape[1:]}/{ref.dtype} vs {o.shape[1:]}/{o.dtype})"
            )


# --------------------------------------------------------------------------------------------
# Point tests


def _point_test(st, choice, k_d, n_d, k_n, n_n, m, *, epsilon, delta, alpha, arrivals, family):
    """Test the chosen event at ``alpha`` from its test counts ``k_d`` of ``n_d`` runs and ``k_n``
    of ``n_n`` (module docstring; :func:`audits.event_tests.poisson_test`)."""
    return event_tests.poisson_test(st, choice, k_d, n_d, k_n, n_n, m, epsilon=epsilon, delta=delta,
                                    alpha=alpha, arrivals=arrivals, family=family)


def _headline(results, epsilon):
    """The test reported on the result line: a refuting one with the largest bound, else the
    largest bound (the first test on ties)."""
    return max(results, key=lambda r: (r["violated"], r["epsilon_lower"]))


def _family(tests, *, m, delta, **extra) -> dict:
    """``families[...]`` entry of the tests of one family (each a ``tests`` entry with ``_k``)."""
    top = max(tests, key=lambda r: (r["violated"], r["epsilon_lower"]))
    k_p, n_p, k_q, n_q = top["_k"]
    return {"status": low_bits_test.TESTED, "violated": any(r["violated"] for r in tests),
            "epsilon_lower": max(r["epsilon_lower"] for r in tests),
            "epsilon_estimate": stats.point_estimate(k_p, k_q, m, delta=delta),
            "alpha": sum(r["alpha"] for r in tests), "statistic": top["statistic"], "event": top["event"],
            **extra}


def _not_tested(status, reason) -> dict:
    return {"status": status, "reason": reason}


def _refuted_by(families) -> tuple:
    return tuple(name for name in FAMILIES if families.get(name, {}).get("violated"))


def _user_event(event, statistic, name):
    """``(description, indicator(outputs) -> bool (runs,))`` of a caller's event."""
    if callable(event):
        label = getattr(event, "__qualname__", None) or type(event).__name__

        def indicator(outputs):
            hit = np.asarray(event(outputs))
            if hit.shape not in ((outputs.shape[0],), (outputs.shape[0], 1)) or hit.dtype.kind not in "biuf":
                raise ParameterError(f"event {label} must return one boolean per output (shape "
                                     f"({outputs.shape[0]},) for {outputs.shape[0]} outputs), got "
                                     f"{hit.shape}/{hit.dtype}")
            return hit.reshape(-1).astype(bool)

        return f"event {label}", indicator
    threshold = validate.real("event", event)
    st = stat.user_statistic(statistic) if statistic is not None else None

    def indicator(outputs):
        if st is not None:
            t = st.apply(outputs)
        elif stat.rows(outputs).shape[1] == 1:
            t = stat.rows(outputs)[:, 0].astype(float)
        else:
            raise ParameterError(f"event ({threshold!r}) is a threshold, which needs a statistic for the "
                                 f"vector outputs of mechanism {name}")
        return t > threshold

    what = st.description if st is not None else "output"
    return f"{what} > {threshold:.6g}", indicator


def _selection_runs(runs: int, selection_fraction: float) -> int:
    return int(math.ceil(selection_fraction * runs - 1e-9))  # 0.15 * 1000 is 150, not 151


def _event_audit(draws, like, event, statistic, direction, auditor, common, name, *, mechanism, low_bits, n_sel):
    """User event: all runs to the test, both directions at alpha/2 unless one is named; with
    ``low_bits=True`` ``n_sel`` selection runs are held out for the low-bit test (module docstring)."""
    runs, epsilon, delta, alpha = common["runs"], common["epsilon"], common["delta"], common["alpha"]
    what, indicator = _user_event(event, statistic, name)
    sel = draws.outputs([(0, SEL_D, n_sel), (1, SEL_N, n_sel)]) if n_sel else []
    if sel:
        _check_consistent([like, *sel], name)
    m = runs - n_sel
    n_d, n_n = int(auditor.poisson(m)), int(auditor.poisson(m))
    arrivals = stats.poisson_arrivals(m, delta, rng=auditor)
    # what the low-bit rule looks at: the selection runs, else (only to word the result) the probe's
    looked = sel or [like, like]
    bits, status, reason = low_bits_test.plan(low_bits, statistic=statistic, mechanism=mechanism, event=event,
                                              sel_d=looked[0], sel_n=looked[1], name=name)
    a_value = alpha * (1.0 - LOW_BITS_SHARE) if bits else alpha
    reducers = [streaming.Hits(indicator)]
    if bits:
        b_st, b_choice = low_bits_test.choose(sel[0], sel[1], m, delta=delta, alpha=alpha - a_value)
        reducers.append(streaming.Count(b_st.apply, b_choice[0], b_choice[1]))
    del sel, looked
    # The probe's outputs are the reference of shape and type the test outputs must match.
    reduction = streaming.Reduction(reducers, like=like, name=name)
    k_ds, k_ns = draws.reduce(reduction, [(0, TEST_D, n_d), (1, TEST_N, n_n)])
    k_d, k_n = k_ds[0], k_ns[0]
    directions = ("dataset", "neighbour") if direction == "both" else (direction,)
    share = a_value / len(directions)
    results = []
    for d in directions:
        k_p, k_q = (k_d, k_n) if d == "dataset" else (k_n, k_d)
        eps_lo = stats.poisson_point_bound(k_p, k_q, m, delta=delta, alpha=share, arrivals=arrivals)
        other = "neighbour" if d == "dataset" else "dataset"
        results.append({"family": "user event", "alpha": share, "statistic": what,
                        "event": f"{what}; P[{d}] vs e^eps P[{other}] + delta", "dataset": k_d,
                        "neighbour": k_n, "test_runs_dataset": n_d, "test_runs_neighbour": n_n,
                        "epsilon_lower": eps_lo, "violated": bool(eps_lo > epsilon),
                        "test": "conditional Poisson (stats.poisson_point_bound)",
                        "_k": (k_p, n_d if d == "dataset" else n_n, k_q, n_n if d == "dataset" else n_d)})
    if bits:
        results.append(_point_test(b_st, b_choice, k_ds[1], n_d, k_ns[1], n_n, m, epsilon=epsilon, delta=delta,
                                   alpha=alpha - a_value, arrivals=arrivals, family="low-bit"))
    return _point_result(results, m, n_sel, runs, common, low=(status, reason), chunking=draws.chunking())


def _point_result(results, m, n_sel, runs, common, projected=None, *, low, chunking=None):
    """The result of point mode and of user events from the tests behind it; ``low``: the
    low-bit status when its test did not run; ``chunking``: added to the counts."""
    epsilon, delta, alpha = common["epsilon"], common["delta"], common["alpha"]
    top = _headline(results, epsilon)
    k_p, n_p, k_q, n_q = top["_k"]
    # Reported for reference: Clopper-Pearson bounds at alpha/2 on the realised sample sizes.
    p_lo = stats.clopper_pearson_lower(k_p, max(n_p, 1), alpha / 2) if n_p else 0.0
    q_hi = stats.clopper_pearson_upper(k_q, max(n_q, 1), alpha / 2) if n_q else 1.0
    counts = {"selection_runs": n_sel, "test_runs": m, "dataset": top["dataset"],
              "neighbour": top["neighbour"], "test_runs_dataset": top["test_runs_dataset"],
              "test_runs_neighbour": top["test_runs_neighbour"], "p_lower": p_lo, "q_upper": q_hi,
              "test": "conditional Poisson (stats.poisson_point_bound)"}
    if projected is not None:
        counts["projected_bound"] = projected
    values = [r for r in results if r["family"] != "low-bit"]
    bits = [r for r in results if r["family"] == "low-bit"]
    families = {"values": _family(values, m=m, delta=delta),
                "low_bits": _family(bits, m=m, delta=delta) if bits else _not_tested(*low)}
    counts.update(chunking or {})
    tests = tuple({k: v for k, v in r.items() if k != "_k"} for r in results)
    return AuditResult(violated=any(r["violated"] for r in results),
                       epsilon_lower=max(r["epsilon_lower"] for r in results),
                       epsilon_estimate=stats.point_estimate(k_p, k_q, m, delta=delta), mode="point",
                       statistic=top["statistic"], event=top["event"], counts=counts, tests=tests,
                       families=families, refuted_by=_refuted_by(families), **common)


# --------------------------------------------------------------------------------------------
# The audit


def audit_privacy(mechanism, dataset, neighbour=None, *, epsilon, delta=0.0, runs, alpha=0.05,
                  seed=None, statistic=None, event=None, direction="both", profile=None, relation=None,
                  selection_fraction=stats.SELECTION_FRACTION, whiten=False, low_bits=None,
                  band="weighted", executor=None) -> AuditResult:
    """Test a differential-privacy claim on one neighbouring pair (black box).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, runs, rng) -> ndarray`` with a leading axis of ``runs`` independent
        outputs (scalars, vectors or discrete values), drawing only from ``rng`` (a numpy
        Generator). An optional ``mechanism.logpdf(data, outputs)`` enables the
        likelihood-ratio statistic. :mod:`audits.adapters` turns a one-sample function into one.
    dataset, neighbour : ndarray or tuple of ndarray
        The pair: two datasets; or, as ``dataset`` alone, a
        :class:`audits.pairs.NeighbouringPair`, a ``(dataset, neighbour)`` tuple or a
        zero-argument callable returning either (the forms ``dperm audit --pair`` takes). The
        relation is checked (``relation``, or else either relation must hold).
    epsilon : float
        Claimed epsilon (> 0, finite).
    delta : float
        Claimed delta in [0, 1).
    runs : int
        Runs per dataset (>= 100), selection and test together; bounded by an estimate of the
        memory the selection outputs need (:func:`memory_needed`): the test runs stream.
    alpha : float
        Error level: under the claim, ``P[violated] <= alpha``.
    seed : int or None
        Seed of all randomness; ``None`` draws one (stored on the result and printed).
    statistic : callable, optional
        ``statistic(outputs) -> (runs,)`` replaces the default statistic.
    event : callable or float, optional
        The event to test: ``event(outputs) -> bool (runs,)``, or a threshold ``t`` for
        ``{T > t}`` (``T`` the statistic, or a scalar output). No selection: all runs go to the
        test (module docstring, "User events"). Not with ``profile``.
    direction : {"both", "dataset", "neighbour"}
        With ``event``: which order of the claim to test (``both``: alpha/2 each).
    profile : callable or object with ``tradeoff``, optional
        Declared privacy profile ``delta(eps)`` (or f-DP trade-off curve): profile mode.
    relation : Neighbouring or str, optional
        Neighbouring relation to assert for the two datasets.
    selection_fraction : float
        Share of the runs held out to choose the event (and to learn a statistic), in
        [0.01, 0.9]. Default 0.15.
    whiten : bool
        Vector outputs: whiten the mean difference with the pooled covariance.
    low_bits : bool or None
        The low-bit test of floating-point outputs (share :data:`LOW_BITS_SHARE` of alpha), in
        every mode (:mod:`audits.low_bits`). ``None`` (default): when the audit picks the
        statistic itself (no ``statistic``, ``logpdf`` or ``event``) and the outputs are
        floating-point values that are not discrete; ``False``: never (the real-valued
        idealisation); ``True``: also beside a caller's statistic, a ``logpdf`` or an ``event``
        (with an event, a selection share is held out for it); an error for outputs without low
        bits. The result says whether it ran (``families["low_bits"]``).
    band : {"weighted", "dkw"}
        Profile mode: the simultaneous band around each empirical distribution function
        (:func:`audits.stats.cdf_band`): DKW intersected with order-statistic bounds (default;
        tight in the tails), or DKW alone.
    executor : concurrent.futures.Executor, distributed.Client or None
        Where the chunks of runs execute (:mod:`audits.execution`): a process pool, a Dask
        client or its ``get_executor()``, loky, ...; ``None``: the one set by
        :func:`audits.execution.using` (``pytest audits --audit-executor``), else this process.
        The result is the same, bit for bit, whatever executes it.

    Returns
    -------
    AuditResult
        ``counts`` holds ``selection_runs``, ``test_runs`` (point: the mean ``m`` of the Poisson
        test sample sizes, which are ``test_runs_dataset`` and ``test_runs_neighbour``) or
        ``band_runs`` and ``band_radius`` (profile), the event counts ``dataset`` and
        ``neighbour``, and the bounds ``p_lower``, ``q_upper`` (point mode: Clopper-Pearson at
        ``alpha/2`` each, for reference; the verdict uses the conditional test), and the chunking
        ``chunk_runs`` and ``chunks``; profile mode also ``band_thresholds``. ``tests`` lists the
        point tests behind the verdict; ``families``, ``refuted_by`` and ``verdict`` tell which
        families of tests (values, low bits) refute the claim; ``execution`` the executor and its
        workers.

    Raises
    ------
    TypeError
        Wrong types (mechanism or statistic not callable, non-integer runs or seed, ...).
    PrivacyParameterError
        ``epsilon`` not in (0, inf), ``delta`` not in [0, 1), ``alpha`` not in (0, 1).
    ParameterError
        ``runs < 100`` or more than memory allows, datasets that are not neighbours, outputs of
        the wrong shape or non-finite, a profile returning NaN, ``low_bits=True`` on outputs
        without floating-point low bits.

    Warns
    -----
    RngWarning
        The outputs do not behave as draws from ``rng`` (module docstring, "Probe").

    Privacy
    -------
    ``P[violated] <= alpha`` whenever the mechanism satisfies the claim on this pair (module
    docstring for the proof, in both modes).
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism ({mechanism!r}) must be callable as mechanism(data, runs, rng)")
    epsilon = validate.epsilon(epsilon)
    delta = validate.delta(delta, allow_zero=True)
    runs = validate.integer("runs", runs, minimum=MIN_RUNS)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    selection_fraction = validate.interval("selection_fraction", selection_fraction, 0.01, 0.9,
                                           closed="both")
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic ({statistic!r}) must be callable as statistic(outputs)")
    if not isinstance(whiten, (bool, np.bool_)):
        raise TypeError(f"whiten ({whiten!r}) must be a boolean")
    band = validate.choice("band", band, set(stats.BANDS))
    if low_bits is not None and not isinstance(low_bits, (bool, np.bool_)):
        raise TypeError(f"low_bits ({low_bits!r}) must be True, False or None")
    direction = validate.choice("direction", direction, {"both", "dataset", "neighbour"})
    if event is not None and profile is not None:
        raise ParameterError("event tests one event in point mode; it cannot be combined with a profile")
    if event is not None and isinstance(event, (bool, np.bool_)):
        raise TypeError(f"event ({event!r}) must be a callable or a threshold")
    bound = ClaimBound(profile, (epsilon,)) if profile is not None else None
    dataset, neighbour, rel = _resolve_pair(dataset, neighbour, relation)
    if seed is None:
        seed = fresh_seed()
    seed = validate.integer("seed", seed, minimum=0)
    name = _name(mechanism)

    ex = execution.resolve(executor)

    probe = _probe(mechanism, dataset, seed, name, runs)
    bytes_per_output = max(1, int(probe.nbytes // PROBE_RUNS))
    chunk = execution.chunk_runs(runs=runs, bytes_per_output=bytes_per_output)
    # a caller's event spends every run on its test, unless the low-bit test needs a selection share
    n_sel = _selection_runs(runs, selection_fraction) if event is None or low_bits is True else 0
    m = runs - n_sel
    # Held in memory: the selection runs and a chunk of test runs per dataset; in profile mode
    # with every value kept, the band values too (and the copies that sort them).
    exact = bound is not None and runs <= streaming.EXACT_RUNS
    _check_memory(runs, n_sel + chunk, bytes_per_output, extra=2 * 3 * 8 * runs if exact else 0)
    auditor = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(AUDITOR,)))
    with ex.job(runs=2 * runs, label=f"mechanism {name}") as job:
        draws = _Draws(job, mechanism, (dataset, neighbour), seed=seed, name=name, runs=runs, chunk_runs=chunk)
        common = dict(epsilon=epsilon, delta=delta, runs=runs, alpha=alpha, seed=seed,
                      mechanism=name, relation=rel.value, execution=draws.where)
        if event is not None:
            return _event_audit(draws, probe, event, statistic, direction, auditor, common, name,
                                mechanism=mechanism, low_bits=low_bits, n_sel=n_sel)
        selection_outputs = draws.outputs([(0, SEL_D, n_sel), (1, SEL_N, n_sel)])
        _check_consistent(selection_outputs, name)
        if bound is None:
            return _point_audit(draws, selection_outputs, mechanism, dataset, neighbour, auditor, m, common,
                                statistic=statistic, whiten=whiten, low_bits=low_bits)
        return _profile_audit(draws, selection_outputs, mechanism, dataset, neighbour, bound, m, common,
                              statistic=statistic, whiten=whiten, band=band, low_bits=low_bits)


def _point_audit(draws, selection_outputs, mechanism, dataset, neighbour, auditor, m, common, *, statistic,
                 whiten, low_bits):
    """Point mode (module docstring): events chosen on the selection outputs (which this frees
    once the events are chosen), counted on the test runs as they stream in."""
    epsilon, delta, alpha, name = common["epsilon"], common["delta"], common["alpha"], common["mechanism"]
    sel_d, sel_n = selection_outputs
    selection_outputs.clear()
    n_sel = sel_d.shape[0]
    # Poisson sample sizes make the two counts independent Poisson variables.
    n_d, n_n = int(auditor.poisson(m)), int(auditor.poisson(m))
    arrivals = stats.poisson_arrivals(m, delta, rng=auditor)
    family = stat.value_family(mechanism, dataset, neighbour, statistic, sel_d, sel_n,
                               mode="point", whiten=whiten, name=name)
    bits, status, reason = low_bits_test.plan(low_bits, statistic=statistic, mechanism=mechanism,
                                              event=None, sel_d=sel_d, sel_n=sel_n, name=name)
    a_value = alpha * (1.0 - LOW_BITS_SHARE) if bits else alpha
    st, choice, projected = selection.select_among(family, sel_d, sel_n, m, delta=delta, alpha=a_value)
    chosen = [(st, choice, a_value, "value")]
    if bits:
        b_st, b_choice = low_bits_test.choose(sel_d, sel_n, m, delta=delta, alpha=alpha - a_value)
        chosen.append((b_st, b_choice, alpha - a_value, "low-bit"))
    like = sel_d[:1].copy()
    del sel_d, sel_n, family
    reduction = streaming.Reduction([streaming.Count(s.apply, c[0], c[1]) for s, c, _, _ in chosen],
                                    like=like, name=name)
    k_d, k_n = draws.reduce(reduction, [(0, TEST_D, n_d), (1, TEST_N, n_n)])
    kw = dict(epsilon=epsilon, delta=delta, arrivals=arrivals)
    results = [_point_test(s, c, k_d[i], n_d, k_n[i], n_n, m, alpha=a, family=f, **kw)
               for i, (s, c, a, f) in enumerate(chosen)]
    return _point_result(results, m, n_sel, common["runs"], common, projected, low=(status, reason),
                         chunking=draws.chunking())


def _profile_audit(draws, selection_outputs, mechanism, dataset, neighbour, bound, m, common, *, statistic,
                   whiten, band, low_bits):
    """Profile mode (module docstring): the band test on the test runs (and the selection runs
    when the statistic learns nothing from them), summarised as :mod:`audits.streaming` says, and
    beside it the low-bit test, its event counted in the same pass over the test runs."""
    epsilon, delta, alpha, name = common["epsilon"], common["delta"], common["alpha"], common["mechanism"]
    sel_d, sel_n = selection_outputs
    selection_outputs.clear()
    bits, status, reason = low_bits_test.plan(low_bits, statistic=statistic, mechanism=mechanism, event=None,
                                              sel_d=sel_d, sel_n=sel_n, name=name)
    a_bands = alpha * (1.0 - LOW_BITS_SHARE) if bits else alpha
    (st,) = stat.value_family(mechanism, dataset, neighbour, statistic, sel_d, sel_n,
                              mode="profile", whiten=whiten, name=name)
    # The selection runs join the bands unless the statistic learns from them.
    learned = stat.needs_selection(statistic, mechanism, sel_d)
    used_sel = sel_d.shape[0] if learned else 0
    n_band = m if learned else common["runs"]
    test_calls = [(0, TEST_D, m), (1, TEST_N, m)]
    low = []
    if bits:
        b_st, b_choice = low_bits_test.choose(sel_d, sel_n, m, delta=delta, alpha=alpha - a_bands)
        low = [streaming.Count(b_st.apply, b_choice[0], b_choice[1])]
    if n_band <= streaming.EXACT_RUNS:
        [t_d, *k_d], [t_n, *k_n] = draws.reduce(
            streaming.Reduction([streaming.Values(st.apply), *low], like=sel_d, name=name), test_calls)
        if not learned:
            t_d, t_n = np.concatenate([st.apply(sel_d), t_d]), np.concatenate([st.apply(sel_n), t_n])
        extra = {"band_thresholds": "every distinct band value", **draws.chunking()}
        result = profile_test(t_d, t_n, bound, st, used_sel, common, AuditResult, band=band, alpha=a_bands,
                              extra=extra)
    else:
        thresholds = streaming.grid(st.apply, sel_d, sel_n)
        at_sel = [] if learned else [selection.at_or_below(st.apply, x, thresholds) for x in (sel_d, sel_n)]
        like = sel_d[:1].copy()
        del sel_d, sel_n
        [le_d, *k_d], [le_n, *k_n] = draws.reduce(
            streaming.Reduction([streaming.AtOrBelow(st.apply, thresholds), *low], like=like, name=name),
            test_calls)
        for le, extra_counts in zip((le_d, le_n), at_sel):
            le += extra_counts
        extra = {"band_thresholds": f"grid of {thresholds.size} thresholds from the selection runs",
                 **draws.chunking()}
        result = profile_test_counts(thresholds, le_d, le_n, n_band, bound, st, used_sel, common, AuditResult,
                                     band=band, alpha=a_bands, extra=extra)
    if not bits:
        return replace(result, families={**result.families, "low_bits": _not_tested(status, reason)})
    test = event_tests.fixed_runs_test(b_st, b_choice, k_d[0], k_n[0], m, epsilon=epsilon, delta=delta,
                                       alpha=alpha - a_bands, family="low-bit", bound=bound)
    families = {**result.families, "low_bits": _family([test], m=m, delta=delta,
                                                       profile_violated=test["profile_violated"],
                                                       point_violated=bool(test["epsilon_lower"] > epsilon))}
    values = families["values"]
    top = values if not test["violated"] or values["violated"] else families["low_bits"]
    return replace(result, violated=result.violated or test["violated"],
                   epsilon_lower=max(result.epsilon_lower, test["epsilon_lower"]),
                   epsilon_estimate=top["epsilon_estimate"], statistic=top["statistic"], event=top["event"],
                   tests=({k: v for k, v in test.items() if k != "_k"},), families=families,
                   refuted_by=_refuted_by(families))
