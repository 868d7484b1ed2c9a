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
auditor's own stream. The mechanism is called once per stream, ``mechanism(data, n, rng)``,
with ``n`` selection runs (``ceil(selection_fraction * runs)``, default 15%) or test runs. In
profile mode the test runs are the remaining ``m = runs - n_sel`` runs; in point mode each test
call gets ``N ~ Poisson(m)`` runs, drawn from the auditor's stream (which also draws the
Poisson process that absorbs ``delta``; see below). The mechanism must draw its randomness only
from ``rng`` and return ``n`` independent outputs along the leading axis (the batched-runs
contract of ``reference/``); the audit cannot check this.

The statistic
-------------
Chosen in this order (``statistic`` in the result describes it):

1. ``statistic(outputs) -> (runs,)`` given by the caller;
2. the log-likelihood ratio ``mechanism.logpdf(D, y) - mechanism.logpdf(D', y)`` when the
   mechanism has a ``logpdf(data, outputs)`` attribute: by Neyman-Pearson its threshold events
   are the optimal rejection regions, so nothing is learned except the threshold;
3. discrete outputs (at most 64 distinct values or rows in the pooled selection runs, and at
   most a quarter as many as selection outputs): each value ``y`` gets the score
   ``ln((c_D(y) + 1/2) / (c_D'(y) + 1/2))`` from the selection counts (0 for values unseen in
   the selection runs), so threshold events on the score are the top-k sets ranked by the
   estimated likelihood ratio;
4. scalar outputs: the output itself;
5. vector outputs: the projection on the difference of the selection means (or, with
   ``whiten=True``, on the pooled-covariance-whitened difference, ridge 1e-8 of the mean
   variance), i.e. the likelihood-ratio direction for Gaussian noise.

Point mode (no ``profile``)
---------------------------
*Selection.* On the selection runs only, every candidate event (threshold ``t`` among the
pooled selection values -- up to 2048 of them, spaced geometrically in rank from both tails so
that rare tail events are represented -- times side ``>``/``<=`` times direction
``D over D'``/``D' over D``) is scored by its *projected* lower bound: the bound the test below
would give if the selection frequencies held at the test sample size
(:func:`audits.stats.projected_point_bound`). Ranking by that bound rather than by the raw ratio
keeps events whose counts are too small to pay from being chosen. The selection frequencies are
first shrunk to one-sided Clopper-Pearson bounds at level 0.05 (:data:`SHRINK`; lower for the
bounded side, upper for the other): among thousands of candidates, plain frequencies let tail
events that happened to look good in the selection runs win (a winner's curse).

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
every selection outcome, hence unconditionally. Binomial tails are rounded up (relative 1e-9)
and the null proportion up by one ulp, so floating point can only make the test conservative.

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

With ``n`` band runs per dataset, DKW-Massart bands of radius ``r = sqrt(ln(4/alpha)/(2n))``
(level ``alpha/2`` each) are put around both empirical CDFs of ``T``. The claim is refuted when
for some threshold event ``S_t`` (both sides, both directions)

    max(0, P_hat_p(S_t) - r) > B(min(1, P_hat_q(S_t) + r)),

and also when the point claim fails under the same bands:
``epsilon_lower = max_t ln((P_hat_p(S_t) - r - delta) / (P_hat_q(S_t) + r)) > epsilon``.

*Proof that P[violated] <= alpha under the claim.* ``T`` is fixed given the selection runs,
which are independent of the band runs (or ``T`` is fixed outright). By DKW-Massart and the
union bound, with probability ``>= 1 - alpha`` both bands hold for *every* ``t`` at once, so for
every threshold event ``lower_p <= P_p(S_t)`` and ``upper_q >= P_q(S_t)``. Under the claim
``P_p(S_t) <= B_true(P_q(S_t)) <= B_true(upper_q)`` because ``B_true`` is nondecreasing (an
infimum of nondecreasing functions of ``a``; ``1 - f`` for nonincreasing ``f``). The ``B`` we
compute is never below ``B_true``: the infimum over ``eps`` is replaced by a minimum over a
finite grid (which can only be larger), values of ``delta(eps)`` slightly below 0 are raised to
0, and a slack of ``1e-9`` is added for floating-point error. Hence
``lower_p <= B(upper_q)`` for every ``t`` and nothing is flagged; the point-claim part is the
same argument with ``B(a) = e^eps a + delta``. Coarse grids cost power, never soundness.

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
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from audits import stats
from audits.calls import call_with_runs_rng
from audits.pairs import NeighbouringPair, _columns, as_relation, assert_neighbours
from reference.rng import fresh_seed
from spec import validate
from spec.errors import ParameterError
from spec.record import Neighbouring

__all__ = ["AuditResult", "audit_privacy", "claim_bound", "MIN_RUNS"]

#: Smallest number of runs per dataset accepted.
MIN_RUNS = 100
#: Outputs with at most this many distinct values (rows) are treated as discrete.
MAX_CATEGORIES = 64
#: Candidate thresholds scored on the selection runs in point mode.
MAX_CANDIDATES = 2048
#: Added to the claimed bound B(a) to absorb floating-point error (never lowers B).
SLACK = 1e-9
#: Level of the one-sided bounds that shrink selection frequencies before projection.
SHRINK = 0.05
#: Largest number of threshold events whose claimed bound is evaluated exactly.
MAX_EXACT = 4096

# eps grid for inf_eps (a finite grid can only over-estimate B: safe) and the a grid used to
# pre-screen events (the verdict always evaluates B exactly at the event's own a).
_EPS_GRID = np.concatenate([[0.0], np.geomspace(1e-6, 64.0, 8000)])
_A_GRID = np.unique(np.concatenate([
    [0.0, 1.0],
    np.geomspace(1e-16, 1e-3, 600),
    np.linspace(0.0, 1.0, 4001),
    1.0 - np.geomspace(1e-16, 1e-3, 600),
]))


# --------------------------------------------------------------------------------------------
# Result


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (np.floating,)):
        return _jsonable(float(value))
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


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
        Profile mode: the declared profile is refuted.
    profile_margin : float or None
        Profile mode: ``max_t lower_p - B(upper_q)`` (positive means refuted).
    profile_event : str or None
        Profile mode: the event with the largest margin.
    curve : dict or None
        Profile mode: a downsampled empirical trade-off curve with its bands and the claimed
        bound, for plots.
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

    @property
    def confidence(self) -> float:
        return 1.0 - self.alpha

    def _claim(self) -> str:
        point = f"({self.epsilon:g}, {self.delta:g})-DP"
        return f"profile + {point}" if self.mode == "profile" else point

    def __str__(self) -> str:
        conf = f"{100 * (1 - self.alpha):.6g}%"
        verdict = "REFUTED" if self.violated else "not refuted"
        extra = ""
        if self.mode == "profile":
            extra = (f" | profile {'refuted' if self.profile_violated else 'holds'} "
                     f"(margin {self.profile_margin:+.2g})")
        return (f"{self._claim()} claim: estimate {_fmt(self.epsilon_estimate)}, lower bound "
                f"{_fmt(self.epsilon_lower)} at {conf}{extra} | {self.runs} runs/dataset | "
                f"seed {self.seed} | {verdict}")

    def to_dict(self) -> dict:
        """JSON-ready dictionary (non-finite floats become the strings ``"inf"``/``"nan"``)."""
        d = asdict(self)
        d["result_type"] = "privacy"
        d["summary"] = str(self)
        return _jsonable(d)


# --------------------------------------------------------------------------------------------
# Claimed bound B(a) for profile mode


class _ClaimBound:
    """``B(a)``: the largest probability the claim allows given probability ``a`` on the
    other dataset (module docstring), never below the true value.

    *Profile* ``delta(eps)``: for every ``eps`` on a grid, ``e^eps a + delta(eps)`` and
    ``1 - e^-eps (1 - a - delta(eps))`` are lines in ``a``; ``B`` is ``min(1, lower envelope)``.
    The envelope is built once (a convex-hull pass over the lines) and evaluated by bisection;
    whatever floating-point error does to the hull, every value returned is the value of one of
    the lines, hence at least the grid minimum, which is at least the infimum over all eps.

    *Trade-off* ``f``: ``B(a) = 1 - f(a)``, evaluated exactly (one call per value) for the
    events that matter; a grid of ``f`` values pre-screens the rest (``lower``), which relies on
    ``f`` being nonincreasing (checked on the grid) only to save work, never for the verdict.
    """

    def __init__(self, profile, epsilons=()):
        tradeoff = getattr(profile, "tradeoff", None)
        if tradeoff is not None and callable(tradeoff):
            self.kind = "tradeoff"
            self._f = tradeoff
            f = self._tradeoff(_A_GRID)
            if np.any(np.diff(f) > 1e-12):
                raise ParameterError("profile.tradeoff must be nonincreasing on [0, 1]")
            self._grid = np.maximum.accumulate(np.minimum(1.0, 1.0 - f))
        elif callable(profile):
            self.kind = "profile"
            self._f = profile
            # The claimed epsilons join the grid: a profile with a kink there (pure DP,
            # randomized response) then has its exact B at the kink.
            grid = np.unique(np.concatenate([_EPS_GRID, np.asarray(epsilons, dtype=float)]))
            d = np.array([self._delta_value(float(e)) for e in grid])
            growth = np.exp(grid)
            slopes = np.concatenate([growth, 1.0 / growth])
            intercepts = np.concatenate([d, 1.0 - (1.0 - d) / growth])
            self._slopes, self._intercepts, self._breaks = _lower_envelope(slopes, intercepts)
        else:
            raise TypeError(
                f"profile ({profile!r}) must be a callable delta(epsilon) or have a tradeoff(alpha) method"
            )

    def _delta_value(self, e: float) -> float:
        try:
            v = float(self._f(e))
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"profile({e!r}) must return a real number ({exc})") from None
        if math.isnan(v):
            raise ParameterError(f"profile({e!r}) returned nan")
        if v < -1e-12:
            raise ParameterError(f"profile({e!r}) ({v!r}) must be in [0, 1]")
        # Raising a value is safe (it weakens the claim); so is capping at 1.
        return min(max(v, 0.0), 1.0)

    def _tradeoff(self, a: np.ndarray) -> np.ndarray:
        out = np.empty(a.shape, dtype=float)
        for i, x in enumerate(a.ravel()):
            try:
                v = float(self._f(float(x)))
            except (TypeError, ValueError) as exc:
                raise ParameterError(f"profile.tradeoff({x!r}) must return a real number ({exc})") from None
            if math.isnan(v) or v < -1e-12 or v > 1 + 1e-12:
                raise ParameterError(f"profile.tradeoff({x!r}) ({v!r}) must be in [0, 1]")
            out.flat[i] = min(max(v, 0.0), 1.0)
        return out

    def _envelope(self, a: np.ndarray) -> np.ndarray:
        j = np.searchsorted(self._breaks, a, side="right")
        return np.minimum(1.0, self._slopes[j] * a + self._intercepts[j])

    def exact(self, a) -> np.ndarray:
        """``B(a)`` (an upper bound on the true value) plus the slack ``SLACK``."""
        a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
        if self.kind == "tradeoff":
            b = np.minimum(1.0, 1.0 - self._tradeoff(a))
        else:
            b = self._envelope(a)
        return b + SLACK

    def lower(self, a) -> np.ndarray:
        """Cheap value used to discard events that cannot violate (``exact`` for profiles)."""
        a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
        if self.kind == "profile":
            return self._envelope(a) + SLACK
        j = np.searchsorted(_A_GRID, a, side="right") - 1
        return self._grid[np.clip(j, 0, _A_GRID.size - 1)]

    def on_grid(self, a) -> np.ndarray:
        """Cheap over-estimate (trade-off: grid point at or above ``a``), for ranking and plots."""
        a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
        if self.kind == "profile":
            return self._envelope(a) + SLACK
        j = np.searchsorted(_A_GRID, a, side="left")
        return self._grid[np.clip(j, 0, _A_GRID.size - 1)] + SLACK


def _lower_envelope(slopes: np.ndarray, intercepts: np.ndarray):
    """Lower envelope of the lines ``y = s x + c``: the lines in order of use and the
    breakpoints between them (line ``k`` is used on ``[breaks[k-1], breaks[k])``)."""
    order = np.lexsort((intercepts, -slopes))  # slope descending, then intercept ascending
    s_sorted, c_sorted = slopes[order], intercepts[order]
    hull_s: list[float] = []
    hull_c: list[float] = []
    for s, c in zip(s_sorted.tolist(), c_sorted.tolist()):
        if hull_s and s == hull_s[-1]:
            continue  # same slope, larger intercept: never below the kept line
        while len(hull_s) >= 2:
            # The last line is useless if the new one crosses the one before it no later.
            x_new = (c - hull_c[-2]) / (hull_s[-2] - s)
            x_old = (hull_c[-1] - hull_c[-2]) / (hull_s[-2] - hull_s[-1])
            if x_new <= x_old:
                hull_s.pop()
                hull_c.pop()
            else:
                break
        hull_s.append(s)
        hull_c.append(c)
    hs, hc = np.array(hull_s), np.array(hull_c)
    breaks = (hc[1:] - hc[:-1]) / (hs[:-1] - hs[1:])
    return hs, hc, breaks


def claim_bound(profile, a, *, epsilons=()):
    """``B(a)`` of a declared profile (or trade-off object), as used by profile mode.

    Returns the minimum over a grid of ``eps`` values (8001 geometric points in [1e-6, 64],
    0, and the given ``epsilons``; never below the exact infimum) plus a ``1e-9`` slack. For
    a smooth profile the grid costs about 1e-8 of B (the minimum is flat); at a kink that is
    not on the grid it costs up to 0.2% of ``e^eps a``. Exposed for tests and reports.
    """
    return _ClaimBound(profile, epsilons).exact(a)


# --------------------------------------------------------------------------------------------
# Mechanism calls and statistics


def _name(mechanism) -> str:
    return getattr(mechanism, "__qualname__", None) or getattr(mechanism, "__name__", None) or type(mechanism).__name__


def _call(mechanism, data, n: int, rng, name: str) -> np.ndarray:
    out = call_with_runs_rng(mechanism, data, runs=n, rng=rng)
    try:
        arr = np.asarray(out)
    except Exception:  # pragma: no cover - exotic objects
        raise ParameterError(f"mechanism {name} must return a numpy array, got {type(out).__name__}") from None
    if arr.dtype.kind not in "biuf":
        raise ParameterError(f"mechanism {name} must return a numeric array, got dtype {arr.dtype}")
    if arr.ndim == 0 or arr.shape[0] != n:
        raise ParameterError(
            f"mechanism {name} must return an array with a leading axis of length runs ({n}), "
            f"got shape {arr.shape}"
        )
    if arr[0].size == 0:
        raise ParameterError(f"mechanism {name} returned empty outputs (shape {arr.shape})")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ParameterError(f"mechanism {name} returned NaN or infinite outputs")
    return arr


def _rows(arr: np.ndarray) -> np.ndarray:
    return arr.reshape(arr.shape[0], -1)


def _integer_kind(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "biu"


@dataclass
class _Statistic:
    apply: Callable[[np.ndarray], np.ndarray]
    description: str
    learned: bool
    categories: np.ndarray | None = None  # rows, for describing discrete events
    scores: np.ndarray | None = None


def _user_statistic(statistic, name: str) -> _Statistic:
    label = getattr(statistic, "__qualname__", None) or type(statistic).__name__

    def apply(outputs):
        t = np.asarray(statistic(outputs))
        if t.dtype.kind not in "biuf":
            raise ParameterError(f"statistic {label} must return numbers, got dtype {t.dtype}")
        if t.shape not in ((outputs.shape[0],), (outputs.shape[0], 1)):
            raise ParameterError(
                f"statistic {label} must return shape ({outputs.shape[0]},), got {t.shape}"
            )
        t = t.reshape(-1).astype(float)
        if np.any(np.isnan(t)):
            raise ParameterError(f"statistic {label} returned NaN")
        return t

    return _Statistic(apply, f"statistic {label}", learned=False)


def _logpdf_statistic(logpdf, dataset, neighbour, name: str) -> _Statistic:
    def apply(outputs):
        with np.errstate(invalid="ignore"):
            a = np.asarray(logpdf(dataset, outputs), dtype=float).reshape(-1)
            b = np.asarray(logpdf(neighbour, outputs), dtype=float).reshape(-1)
            if a.shape != (outputs.shape[0],) or b.shape != (outputs.shape[0],):
                raise ParameterError(
                    f"mechanism {name}.logpdf must return one value per output "
                    f"({outputs.shape[0]}), got {a.shape} and {b.shape}"
                )
            t = a - b
        if np.any(np.isnan(t)):
            raise ParameterError(f"mechanism {name}.logpdf gave an undefined likelihood ratio (nan)")
        return t

    return _Statistic(apply, "log-likelihood ratio (mechanism.logpdf)", learned=False)


def _categorical_statistic(sel_d: np.ndarray, sel_n: np.ndarray, cats: np.ndarray, inverse) -> _Statistic:
    ns = sel_d.shape[0]
    k = cats.shape[0]
    c_d = np.bincount(inverse[:ns], minlength=k)
    c_n = np.bincount(inverse[ns:], minlength=k)
    scores = np.log((c_d + 0.5) / (c_n + 0.5))

    def apply(outputs):
        rows = _rows(outputs).astype(float)
        if rows.shape[1] == 1:  # scalar values: cats is sorted, look them up by bisection
            x = rows[:, 0]
            j = np.minimum(np.searchsorted(cats[:, 0], x), k - 1)
            return np.where(cats[j, 0] == x, scores[j], 0.0)
        both = np.vstack([cats, rows])
        uniq, inv = np.unique(both, axis=0, return_inverse=True)
        inv = np.asarray(inv).reshape(-1)
        lookup = np.zeros(uniq.shape[0])
        lookup[inv[:k]] = scores
        return lookup[inv[k:]]

    desc = f"discrete outputs ({k} values) ranked by the selection likelihood ratio"
    return _Statistic(apply, desc, learned=True, categories=cats, scores=scores)


def _projection_statistic(sel_d: np.ndarray, sel_n: np.ndarray, whiten: bool) -> _Statistic:
    xd = _rows(sel_d).astype(float)
    xn = _rows(sel_n).astype(float)
    diff = xd.mean(axis=0) - xn.mean(axis=0)
    p = diff.size
    label = "mean difference"
    if whiten and xd.shape[0] > 1:
        cov = np.atleast_2d(0.5 * (np.cov(xd, rowvar=False) + np.cov(xn, rowvar=False)))
        ridge = 1e-8 * float(np.trace(cov)) / p
        if ridge > 0:  # constant outputs have nothing to whiten
            diff = np.linalg.solve(cov + ridge * np.eye(p), diff)
            label = "pooled-covariance-whitened mean difference"
    if not np.any(diff):
        diff = np.ones(p)
        label += " (zero; fell back to the all-ones direction)"
    w = diff / np.linalg.norm(diff)

    def apply(outputs):
        return _rows(outputs).astype(float) @ w

    return _Statistic(apply, f"projection on the selection {label} (p={p})", learned=True)


def _identity_statistic() -> _Statistic:
    def apply(outputs):
        return _rows(outputs)[:, 0].astype(float)

    return _Statistic(apply, "output (scalar)", learned=False)


def _discrete_categories(sel_d, sel_n):
    rows = np.vstack([_rows(sel_d), _rows(sel_n)]).astype(float)
    cats, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    if cats.shape[0] <= MAX_CATEGORIES and 4 * cats.shape[0] <= rows.shape[0]:
        return cats, inverse
    return None, None


def _build_statistic(mechanism, dataset, neighbour, statistic, sel_d, sel_n, *, mode, whiten, name):
    if statistic is not None:
        return _user_statistic(statistic, name)
    logpdf = getattr(mechanism, "logpdf", None)
    if logpdf is not None and callable(logpdf):
        return _logpdf_statistic(logpdf, dataset, neighbour, name)
    scalar = _rows(sel_d).shape[1] == 1
    if mode == "profile" and scalar and not _integer_kind(sel_d):
        return _identity_statistic()
    cats, inverse = _discrete_categories(sel_d, sel_n)
    if cats is not None:
        return _categorical_statistic(sel_d, sel_n, cats, inverse)
    if scalar:
        return _identity_statistic()
    return _projection_statistic(sel_d, sel_n, whiten)


def _needs_selection(statistic, mechanism, sel_d) -> bool:
    """Profile mode: whether the statistic is learned (decided by shape and dtype only)."""
    if statistic is not None or callable(getattr(mechanism, "logpdf", None)):
        return False
    return _rows(sel_d).shape[1] > 1 or _integer_kind(sel_d)


# --------------------------------------------------------------------------------------------
# Events


def _candidates(values: np.ndarray) -> np.ndarray:
    """Thresholds: all pooled values, or a subset dense in rank near both tails."""
    v = np.unique(values)
    n = v.size
    if n <= MAX_CANDIDATES:
        return v
    half = MAX_CANDIDATES // 3
    ranks = np.unique(np.concatenate([
        np.round(np.geomspace(1, n / 2, half)).astype(int) - 1,
        n - np.round(np.geomspace(1, n / 2, half)).astype(int),
        np.round(np.linspace(0, n - 1, MAX_CANDIDATES - 2 * half)).astype(int),
    ]))
    return v[np.clip(ranks, 0, n - 1)]


def _event_counts(t_d_sorted, t_n_sorted, thresholds):
    """Counts of the four event types at each threshold: dict (direction, side) -> (k_p, k_q)."""
    n_d, n_n = t_d_sorted.size, t_n_sorted.size
    le_d = np.searchsorted(t_d_sorted, thresholds, side="right")
    le_n = np.searchsorted(t_n_sorted, thresholds, side="right")
    gt_d, gt_n = n_d - le_d, n_n - le_n
    return {
        ("dataset", ">"): (gt_d, gt_n),
        ("dataset", "<="): (le_d, le_n),
        ("neighbour", ">"): (gt_n, gt_d),
        ("neighbour", "<="): (le_n, le_d),
    }


def _describe_event(threshold, side, direction, st: _Statistic) -> str:
    other = "neighbour" if direction == "dataset" else "dataset"
    rel = f"P[{direction}] vs e^eps P[{other}] + delta"
    if st.categories is None:
        return f"T {side} {threshold:.6g}; {rel}"
    chosen = st.scores > threshold if side == ">" else st.scores <= threshold
    values = st.categories[chosen]
    shown = []
    for row in values[:8]:
        items = [f"{float(v):g}" for v in row]
        shown.append(items[0] if len(items) == 1 else "(" + ", ".join(items) + ")")
    text = ", ".join(shown) + (", ..." if values.shape[0] > 8 else "")
    # Values never seen in the selection runs have score 0.
    unseen = (0.0 > threshold) if side == ">" else (0.0 <= threshold)
    extra = " or a value unseen in the selection runs" if unseen else ""
    return f"output in {{{text}}}{extra}; {rel}"


def _select_event(t_sd, t_sn, m, *, delta, alpha):
    """Choose (threshold, side, direction) on selection statistics by the projected bound."""
    ns = t_sd.size
    thresholds = _candidates(np.concatenate([t_sd, t_sn]))
    counts = _event_counts(np.sort(t_sd), np.sort(t_sn), thresholds)
    best = (-np.inf, None)
    for (direction, side), (k_p, k_q) in counts.items():
        # Selection frequencies, shrunk to one-sided bounds at level SHRINK so that an event
        # seen a handful of times cannot look better than it is, projected to m runs.
        p_sel = stats.clopper_pearson_lower(k_p, ns, SHRINK)
        q_sel = stats.clopper_pearson_upper(k_q, ns, SHRINK)
        bound = stats.projected_point_bound(p_sel, q_sel, m, delta=delta, alpha=alpha)
        j = int(np.argmax(bound))
        if bound[j] > best[0]:
            best = (float(bound[j]), (float(thresholds[j]), side, direction))
    return best[1], best[0]


def _count(t, threshold, side) -> int:
    return int(np.count_nonzero(t > threshold if side == ">" else t <= threshold))


# --------------------------------------------------------------------------------------------
# The audit


def _resolve_pair(dataset, neighbour, relation):
    if isinstance(dataset, NeighbouringPair):
        if neighbour is not None:
            raise ParameterError("give either a NeighbouringPair or two datasets, not both")
        if relation is not None and as_relation(relation) is not dataset.relation:
            raise ParameterError(
                f"relation ({as_relation(relation).value}) differs from the pair's ({dataset.relation.value})"
            )
        return dataset.dataset, dataset.neighbour, dataset.relation
    if neighbour is None:
        raise ParameterError("neighbour is required unless dataset is a NeighbouringPair")
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
        if o.shape[1:] != ref.shape[1:] or _integer_kind(o) != _integer_kind(ref):
            raise ParameterError(
                f"mechanism {name} returned outputs of different shapes or dtypes across calls "
                f"({ref.shape[1:]}/{ref.dtype} vs {o.shape[1:]}/{o.dtype})"
            )


def audit_privacy(mechanism, dataset, neighbour=None, *, epsilon, delta=0.0, runs, alpha=0.05,
                  seed=None, statistic=None, profile=None, relation=None,
                  selection_fraction=stats.SELECTION_FRACTION, whiten=False) -> AuditResult:
    """Test a differential-privacy claim on one neighbouring pair (black box).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, runs, rng) -> ndarray`` with a leading axis of ``runs`` independent
        outputs (scalars, vectors or discrete values), drawing only from ``rng`` (a numpy
        Generator). An optional ``mechanism.logpdf(data, outputs)`` enables the
        likelihood-ratio statistic.
    dataset, neighbour : ndarray or tuple of ndarray
        The pair; or pass a :class:`audits.pairs.NeighbouringPair` as ``dataset`` alone. The
        relation is checked (``relation``, or else either relation must hold).
    epsilon : float
        Claimed epsilon (> 0, finite).
    delta : float
        Claimed delta in [0, 1).
    runs : int
        Runs per dataset (>= 100), selection and test together.
    alpha : float
        Error level: under the claim, ``P[violated] <= alpha``.
    seed : int or None
        Seed of all randomness; ``None`` draws one (stored on the result and printed).
    statistic : callable, optional
        ``statistic(outputs) -> (runs,)`` replaces the default statistic.
    profile : callable or object with ``tradeoff``, optional
        Declared privacy profile ``delta(eps)`` (or f-DP trade-off curve): profile mode.
    relation : Neighbouring or str, optional
        Neighbouring relation to assert for the two datasets.
    selection_fraction : float
        Share of the runs held out to choose the event (and to learn a statistic), in
        [0.01, 0.9]. Default 0.15.
    whiten : bool
        Vector outputs: whiten the mean difference with the pooled covariance.

    Returns
    -------
    AuditResult
        ``counts`` holds ``selection_runs``, ``test_runs`` (point: the mean ``m`` of the Poisson
        test sample sizes, which are ``test_runs_dataset`` and ``test_runs_neighbour``) or
        ``band_runs`` and ``band_radius`` (profile), the event counts ``dataset`` and
        ``neighbour``, and the bounds ``p_lower``, ``q_upper`` (point mode: Clopper-Pearson at
        ``alpha/2`` each, for reference; the verdict uses the conditional test).

    Raises
    ------
    TypeError
        Wrong types (mechanism or statistic not callable, non-integer runs or seed, ...).
    PrivacyParameterError
        ``epsilon`` not in (0, inf), ``delta`` not in [0, 1), ``alpha`` not in (0, 1).
    ParameterError
        ``runs < 100``, datasets that are not neighbours, outputs of the wrong shape or
        non-finite, a profile returning NaN.

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
    bound = _ClaimBound(profile, (epsilon,)) if profile is not None else None
    dataset, neighbour, rel = _resolve_pair(dataset, neighbour, relation)
    if seed is None:
        seed = fresh_seed()
    seed = validate.integer("seed", seed, minimum=0)
    name = _name(mechanism)

    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(5)]
    auditor = streams[4]
    n_sel = int(math.ceil(selection_fraction * runs - 1e-9))  # 0.15 * 1000 is 150, not 151
    m = runs - n_sel
    sel_d = _call(mechanism, dataset, n_sel, streams[0], name)
    sel_n = _call(mechanism, neighbour, n_sel, streams[1], name)
    common = dict(epsilon=epsilon, delta=delta, runs=runs, alpha=alpha, seed=seed,
                  mechanism=name, relation=rel.value)

    if bound is None:
        # Poisson sample sizes make the two counts independent Poisson variables.
        n_d, n_n = int(auditor.poisson(m)), int(auditor.poisson(m))
        arrivals = stats.poisson_arrivals(m, delta, rng=auditor)
        tests = [_call(mechanism, data, n, rng, name)
                 for data, n, rng in ((dataset, n_d, streams[2]), (neighbour, n_n, streams[3])) if n > 0]
        _check_consistent([sel_d, sel_n, *tests], name)
        st = _build_statistic(mechanism, dataset, neighbour, statistic, sel_d, sel_n,
                              mode="point", whiten=whiten, name=name)
        t_sd, t_sn = st.apply(sel_d), st.apply(sel_n)
        (threshold, side, direction), projected = _select_event(t_sd, t_sn, m, delta=delta, alpha=alpha)
        empty = np.zeros(0)
        t_td = st.apply(tests[0]) if n_d > 0 else empty
        t_tn = st.apply(tests[-1]) if n_n > 0 else empty
        k_d, k_n = _count(t_td, threshold, side), _count(t_tn, threshold, side)
        (k_p, n_p), (k_q, n_q) = ((k_d, n_d), (k_n, n_n)) if direction == "dataset" else ((k_n, n_n), (k_d, n_d))
        eps_lo = stats.poisson_point_bound(k_p, k_q, m, delta=delta, alpha=alpha, arrivals=arrivals)
        estimate = stats.point_estimate(k_p, k_q, m, delta=delta)
        # Reported for reference: Clopper-Pearson bounds at alpha/2 on the realised sample sizes.
        p_lo = stats.clopper_pearson_lower(k_p, max(n_p, 1), alpha / 2) if n_p else 0.0
        q_hi = stats.clopper_pearson_upper(k_q, max(n_q, 1), alpha / 2) if n_q else 1.0
        counts = {"selection_runs": n_sel, "test_runs": m, "dataset": k_d, "neighbour": k_n,
                  "test_runs_dataset": n_d, "test_runs_neighbour": n_n,
                  "p_lower": p_lo, "q_upper": q_hi, "projected_bound": projected,
                  "test": "conditional Poisson (stats.poisson_point_bound)"}
        return AuditResult(violated=bool(eps_lo > epsilon), epsilon_lower=eps_lo,
                           epsilon_estimate=estimate, mode="point", statistic=st.description,
                           event=_describe_event(threshold, side, direction, st), counts=counts,
                           **common)

    test_d = _call(mechanism, dataset, m, streams[2], name)
    test_n = _call(mechanism, neighbour, m, streams[3], name)
    _check_consistent([sel_d, sel_n, test_d, test_n], name)

    # Profile mode: the selection runs join the bands unless the statistic learns from them.
    st = _build_statistic(mechanism, dataset, neighbour, statistic, sel_d, sel_n,
                          mode="profile", whiten=whiten, name=name)
    if _needs_selection(statistic, mechanism, sel_d):
        band_d, band_n = st.apply(test_d), st.apply(test_n)
        used_sel = n_sel
    else:
        band_d = np.concatenate([st.apply(sel_d), st.apply(test_d)])
        band_n = np.concatenate([st.apply(sel_n), st.apply(test_n)])
        used_sel = 0
    return _profile_test(band_d, band_n, bound, st, used_sel, common)


def _profile_test(t_d, t_n, bound: _ClaimBound, st: _Statistic, n_sel: int, common) -> AuditResult:
    epsilon, delta, alpha = common["epsilon"], common["delta"], common["alpha"]
    n = t_d.size
    r = stats.dkw_radius(n, alpha / 2)
    thresholds = np.unique(np.concatenate([t_d, t_n]))
    counts = _event_counts(np.sort(t_d), np.sort(t_n), thresholds)

    best_eps = (-1.0, None)  # (eps_lower, (direction, side, index))
    best_cheap = (-np.inf, None)  # largest conservative margin, if no event comes near B
    pending = []  # (lower_p, upper_q, key, index) of events that may violate the profile
    for key, (k_p, k_q) in counts.items():
        lo_p = np.clip(k_p / n - r, 0.0, 1.0)
        hi_q = np.clip(k_q / n + r, 0.0, 1.0)
        with np.errstate(divide="ignore"):
            eps = np.where(lo_p > delta, np.log(np.maximum(lo_p - delta, 1e-300) / hi_q), 0.0)
        j = int(np.argmax(eps))
        if eps[j] > best_eps[0]:
            best_eps = (float(eps[j]), (*key, j))
        # A cheap value of B discards events that cannot violate; the verdict below uses the
        # exact B, evaluated for the largest conservative margins first.
        maybe = np.flatnonzero(lo_p > bound.lower(hi_q))
        if maybe.size:
            pending.append((lo_p[maybe], hi_q[maybe], key, maybe))
        elif not pending:
            margin = lo_p - bound.on_grid(hi_q)
            # The empty event and the whole output space say nothing: not reported.
            margin[((k_p == n) & (k_q == n)) | ((k_p == 0) & (k_q == 0))] = -np.inf
            j = int(np.argmax(margin))
            if margin[j] > best_cheap[0]:
                best_cheap = (float(margin[j]), (*key, j))
    if pending:
        lo = np.concatenate([p[0] for p in pending])
        hi = np.concatenate([p[1] for p in pending])
        which = np.concatenate([np.full(p[3].size, i) for i, p in enumerate(pending)])
        index = np.concatenate([p[3] for p in pending])
        order = np.argsort(-(lo - bound.on_grid(hi)), kind="stable")[:MAX_EXACT]
        margins = lo[order] - bound.exact(hi[order])
        j = int(np.argmax(margins))
        best_margin = (float(margins[j]),
                       (*pending[which[order[j]]][2], int(index[order[j]])))
    else:  # nothing comes near the claim: report the largest (negative) conservative margin
        best_margin = best_cheap

    profile_violated = best_margin[0] > 0
    eps_lo = max(0.0, best_eps[0])
    point_violated = eps_lo > epsilon
    direction, side, j = best_eps[1]
    k_p, k_q = counts[(direction, side)]
    estimate = stats.point_estimate(int(k_p[j]), int(k_q[j]), n, delta=delta)
    threshold = float(thresholds[j])
    k_d, k_n = (k_p[j], k_q[j]) if direction == "dataset" else (k_q[j], k_p[j])
    md, ms, mj = best_margin[1]
    result_counts = {"selection_runs": n_sel, "band_runs": n, "band_radius": r,
                     "dataset": int(k_d), "neighbour": int(k_n),
                     "p_lower": float(max(0.0, k_p[j] / n - r)),
                     "q_upper": float(min(1.0, k_q[j] / n + r))}
    curve = _curve(counts, thresholds, n, r, bound, md, ms)
    return AuditResult(
        violated=bool(profile_violated or point_violated), epsilon_lower=eps_lo,
        epsilon_estimate=estimate, mode="profile", statistic=st.description,
        event=_describe_event(threshold, side, direction, st), counts=result_counts,
        profile_violated=bool(profile_violated), profile_margin=best_margin[0],
        profile_event=_describe_event(float(thresholds[mj]), ms, md, st), curve=curve, **common)


def _curve(counts, thresholds, n, r, bound, direction, side, points=200):
    """Empirical trade-off points (P_q, P_p) with bands and the claimed bound, downsampled."""
    k_p, k_q = counts[(direction, side)]
    idx = np.unique(np.round(np.linspace(0, thresholds.size - 1, min(points, thresholds.size))).astype(int))
    q_hat = k_q[idx] / n
    p_hat = k_p[idx] / n
    a = np.linspace(0.0, 1.0, 201)
    return {
        "direction": direction,
        "side": side,
        "q_hat": q_hat.tolist(),
        "p_hat": p_hat.tolist(),
        "q_upper": np.clip(q_hat + r, 0, 1).tolist(),
        "p_lower": np.clip(p_hat - r, 0, 1).tolist(),
        "claim_a": a.tolist(),
        "claim_bound": np.minimum(1.0, bound.on_grid(a)).tolist(),
    }
