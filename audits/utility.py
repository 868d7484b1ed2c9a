"""Utility-rate audits: does the measured error scale in n, p, epsilon as the theorem says?

``audit_rate(measure, grid=..., base=..., runs=..., expected=...)`` evaluates a utility
quantity (the theorem's own: excess empirical risk against an exactly computed optimum, a
gradient norm, ...) at grid points that vary one axis at a time around ``base``, and fits the
log-log slope of the mean along each axis. ``audit_level(samples, reference, low=..., high=...)``
checks the *level* that slopes cannot see: the mean over a reference value (a bound, a
predicted risk) at every point.

Statistics
----------
* Per grid point: the mean of ``runs`` independent values with a Student-t interval at level
  ``1 - alpha`` (descriptive; the means of bounded-variance quantities are close to normal at
  the run counts used).
* Per axis: the least-squares slope of ``log(mean)`` on ``log(value)``, with a bootstrap
  interval: ``bootstrap`` times, the runs of every grid point are resampled with replacement
  (independently per point, seeded), the means recomputed and the slope refitted. The interval
  has level ``1 - alpha / k`` for ``k`` axes (Bonferroni). It is the percentile interval when
  each tail holds at least 10 resamples (``bootstrap * alpha / (2k) >= 10``); at the small
  levels of a suite's audits it is ``slope -+ t sd``, because a percentile beyond the resampling
  resolution is just the extreme resample, an interval narrower than its level. There ``sd`` is
  the slope's standard deviation with the largest resampled spread of any point's log-mean on
  the axis in place of each point's own (a point whose mean came out low on a right-skewed law
  also has a low spread), and ``t`` is Student's ``t_{runs - 1}`` quantile at the per-side level
  divided by :data:`SKEW_MARGIN` (2). That interval is approximate, and its tails were measured
  by simulation (``benchmarks/bench_rate_tails.py``, docs/audit-evidence.md "Rate intervals
  after issue 21"): for normal, chi-square(1), chi-square(4) and lognormal (sigma 1) values at
  60, 200 and 1200 runs per point, its one-sided miss rate was 0.01 to 0.35 times its nominal
  level wherever misses were frequent enough to count, with every 95% upper limit below nominal
  at per-side levels 1e-3 and 1e-4, at 1e-5 but for two 1200-run cells of one miss each (0.20
  [0.01, 1.11]), and at 1e-6 with 60 runs but for chi-square(1) (0.50 [0.16, 1.17]); at 1e-6
  with 200 or 1200 runs simulation did not resolve it (1 miss in all). The interval it replaced,
  each point's own spread and no margin, missed 1.76 [1.68, 1.85] times as often as nominal at
  1e-4 and 3.2 [2.2, 4.5] times at 1e-6 for chi-square(1) values at 60 runs.
* Tested quantity per axis: with a ``bound(params)`` callable, the slope of
  ``log(mean / bound)`` (which should be <= 0 for an upper bound: the ratio must not grow);
  without one, ``slope - expected[axis]``.
* Verdict: ``kind="upper"`` fails when the tested quantity's interval lies above
  ``tolerance`` (the error grows faster than the bound allows, with confidence);
  ``kind="lower"`` fails when it lies below ``-tolerance``. The measured slopes (tightness) are
  always reported next to the expected exponents.
* Levels (:func:`audit_level`): per point, a one-sided Student-t limit of the mean on each
  finite side of the band ``[low, high]`` for ``mean / reference``; a point fails only when the
  limit lies outside the band (the whole confidence set is outside).

False alarms (the share an audit spends)
----------------------------------------
An audit test splits its own alpha into explicit shares, one per statistical check, and passes
each check its share, so the test errs with probability at most the sum (union bound):

* ``audit_rate(alpha=a)`` spends at most ``a / 2``: each of the ``k`` axes fails only on one
  side of its two-sided interval at level ``1 - a/k``, i.e. with probability ``a / (2k)`` when
  the claim holds with equality (approximate: bootstrap intervals, whose measured tails are
  above; at the suite's levels the nominal rate is ``a / 4``, the rest is the skew margin).
* ``audit_band(alpha=a)`` (acceptance bands on the slopes) spends at most ``a``: a band can be
  missed on both sides, each at ``a / (2k)`` per axis (nominal ``a / (4k)`` with the skew
  margin). Measured at ``a = 0.05`` for normal, chi-square(1) and lognormal values at 60, 200
  and 1200 runs with the true slope at the band's edge: every rate at most ``a`` with its 95%
  interval (docs/audit-evidence.md, "Acceptance bands").
* What alpha does not cover: a slope measured on a finite grid is not the exponent of an
  ``O()``. Lower-order terms, log factors and regime changes bend the curve; a rate or band
  verdict is about the slope on the grid that was run.
* ``audit_level(alpha=a)`` spends at most ``a``: with ``m`` points and ``s`` finite sides of the
  band, every one-sided limit is at level ``1 - a/(m s)``; when the true ratio is in the band a
  point fails with probability at most ``a/m`` (exact for normal values, approximate otherwise).

Helpers for audit tests
-----------------------
:func:`utility_bound` (a record's utility claim as ``params -> value``), :func:`expected_slopes`
(a formula's own least-squares slopes on a grid), :func:`largest_allowed` (the largest value a
record's assumption allows, solved with sympy and rounded down) and :class:`Memo` (one simulation
shared by several claims, the base point simulated once per grid).

Randomness: ``SeedSequence(seed)`` is spawned into one child per (axis, grid value) for the
measure and one per axis for the bootstrap.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

import numpy as np
import sympy as sp
from scipy import stats as sps

from audits.calls import call_with_runs_rng
from audits.jsonable import jsonable
from reference.rng import fresh_seed
from spec import validate
from spec.errors import ParameterError

__all__ = [
    "RateResult",
    "audit_rate",
    "BandResult",
    "audit_band",
    "LevelResult",
    "audit_level",
    "utility_bound",
    "expected_slopes",
    "largest_allowed",
    "grid_points",
    "Memo",
]




@dataclass(frozen=True)
class RateResult:
    """Outcome of :func:`audit_rate`.

    Attributes
    ----------
    passed : bool
        No axis shows, with confidence, a rate beyond the claim and the tolerance.
    slopes : dict
        Axis -> fitted log-log slope of the measured mean.
    intervals : dict
        Axis -> bootstrap interval ``(low, high)`` of that slope.
    expected : dict
        Axis -> the claimed exponent.
    tested : dict
        Axis -> the tested quantity (slope of measured/bound, or slope - expected).
    tested_intervals : dict
        Axis -> its bootstrap interval.
    failed_axes : tuple
        Axes whose verdict failed.
    points : tuple of dict
        One row per grid point: ``axis, value, mean, ci_low, ci_high, bound, ratio``.
    kind, tolerance, alpha, runs, seed, bootstrap
        The audit's settings.
    standard_errors : dict
        Axis -> the slope's standard deviation from the bootstrap, with the largest spread of
        any point's log-mean on the axis in place of each point's own (module docstring).
    interval_method : {"percentile", "t"}
        How the intervals were formed from the bootstrap (see :func:`audit_rate`).
    execution : dict or None
        Where the grid points were simulated: ``executor``, ``workers`` and ``chunks`` (one per
        point simulated) (:mod:`audits.execution`); not part of the outcome (not compared).
    """

    passed: bool
    slopes: Mapping[str, float]
    intervals: Mapping[str, tuple[float, float]]
    expected: Mapping[str, float]
    tested: Mapping[str, float]
    tested_intervals: Mapping[str, tuple[float, float]]
    failed_axes: tuple[str, ...]
    points: tuple[Mapping[str, Any], ...]
    kind: str
    tolerance: float
    alpha: float
    runs: int
    seed: int
    bootstrap: int
    has_bound: bool = False
    name: str = ""
    standard_errors: Mapping[str, float] = field(default_factory=dict)
    interval_method: str = "percentile"
    execution: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        tested = "measured/bound slope" if self.has_bound else "slope - expected"
        parts = []
        for axis, slope in self.slopes.items():
            lo, hi = self.intervals[axis]
            t_lo, t_hi = self.tested_intervals[axis]
            parts.append(f"{axis} slope {slope:.3g} [{lo:.3g}, {hi:.3g}] (expected {self.expected[axis]:.3g}; "
                         f"{tested} {self.tested[axis]:+.3g} [{t_lo:+.3g}, {t_hi:+.3g}])")
        rule = (f"fails above +{self.tolerance:g}" if self.kind == "upper" else f"fails below -{self.tolerance:g}")
        verdict = "passed" if self.passed else f"FAILED ({', '.join(self.failed_axes)})"
        return (f"{self.kind}-bound rate: {'; '.join(parts)} | {tested} interval {rule} at "
                f"{100 * (1 - self.alpha):.6g}% ({APPROXIMATE}) | {self.runs} runs/point | seed {self.seed} | "
                f"{verdict}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["result_type"] = "rate"
        d["summary"] = str(self)
        return jsonable(d)


#: How the lines of rate, band and level results label their confidence levels: the intervals
#: and limits are approximations for values that are not normal, measured, not exact.
APPROXIMATE = "approximate: t/bootstrap, measured in docs/audit-evidence.md"

#: The percentile interval is used when at least this many resamples lie beyond each end.
MIN_TAIL_RESAMPLES = 10
#: The t interval's quantile is taken at its per-side level divided by this: a margin for the
#: skew of per-run values, which makes a studentised slope's tails heavier than Student's
#: (measured, with the pooled spread below: docs/audit-evidence.md, "Rate intervals").
SKEW_MARGIN = 2.0


def _method(level: float, bootstrap: int) -> str:
    return "percentile" if level / 2 * bootstrap >= MIN_TAIL_RESAMPLES else "t"


def _quantile(level: float, runs: int) -> float:
    """``t_{runs - 1}`` quantile at ``1 - level/(2 SKEW_MARGIN)``: the multiplier of the slope's
    standard deviation in a two-sided interval at ``1 - level``."""
    return float(sps.t.isf(level / 2 / SKEW_MARGIN, runs - 1))


def _pooled_sd(log_x: np.ndarray, log_boot_means: np.ndarray) -> float:
    """Standard deviation of the least-squares slope with the largest spread of any point's
    resampled log-mean (``log_boot_means``: ``(B, J)``) in place of each point's own.

    A point whose sample mean came out low on a right-skewed law (excess risks are chi-square
    like) also has a low sample variance; its own spread would make the interval narrowest where
    the slope is most wrong. The largest spread on the axis breaks that link and is never below
    a point's own (so the interval is never narrower than with the points' own spreads).
    """
    xc = log_x - log_x.mean()
    c = xc / float(xc @ xc)
    spread = float(np.max(log_boot_means.var(axis=0, ddof=1)))
    return math.sqrt(float(c @ c) * spread)


def _interval(estimate: float, boot: np.ndarray, level: float, runs: int, sd: float) -> tuple[float, float]:
    """Two-sided interval at ``1 - level`` from bootstrap replicates ``boot`` of ``estimate``.

    Percentile when each tail holds at least :data:`MIN_TAIL_RESAMPLES` resamples; otherwise
    ``estimate -+ t_{runs - 1, 1 - level/(2 SKEW_MARGIN)} sd`` with ``sd`` the pooled standard
    deviation (:func:`_pooled_sd`): a percentile at a tail finer than the resampling resolution
    would only return the extreme resamples, an interval narrower than its level. Student's t
    rather than the normal quantile because the spread is estimated from the runs; the pooled
    spread and the margin because skewed values make the studentised slope's tails heavier still.
    Measured one-sided miss rates (``benchmarks/bench_rate_tails.py``; docs/audit-evidence.md,
    "Rate intervals after issue 21"): with each point's own spread and no margin, 1.76 [1.68,
    1.85] times nominal at 1e-4, 2.14 [1.86, 2.45] at 1e-5 and 3.2 [2.2, 4.5] at 1e-6 for
    chi-square(1) values at 60 runs per point; with the pooled spread and the margin, at most
    nominal down to 1e-5 (and 1e-6 at 60 runs: chi-square(1) 0.50 [0.16, 1.17]), unresolved at 1e-6 with 200 or more runs.
    """
    if _method(level, boot.size) == "percentile":
        return float(np.quantile(boot, level / 2)), float(np.quantile(boot, 1 - level / 2))
    half = _quantile(level, runs) * sd
    return estimate - half, estimate + half


def _slopes(log_x: np.ndarray, log_y: np.ndarray) -> np.ndarray:
    """Least-squares slopes of log_y (..., J) on log_x (J,), along the last axis."""
    xc = log_x - log_x.mean()
    return (log_y - log_y.mean(axis=-1, keepdims=True)) @ xc / float(xc @ xc)


def _number(name, value) -> float:
    try:
        return validate.real(name, float(value))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ParameterError):
            raise
        raise TypeError(f"{name} ({value!r}) must be a real number") from None


def audit_rate(measure, *, grid, base, runs, expected, bound=None, kind="upper", tolerance=0.2,
               alpha=0.05, seed=None, bootstrap=1000, executor=None) -> RateResult:
    """Check the growth of a utility quantity along each grid axis against claimed exponents.

    Parameters
    ----------
    measure : callable
        ``measure(params: dict, runs: int, rng) -> ndarray (runs,)`` (:mod:`audits.calls`) of finite per-run values
        of the utility quantity at ``params`` (a Generator ``rng``).
    grid : dict
        Axis name -> at least two distinct positive values.
    base : dict
        Parameter values; each axis is varied with the others held at ``base``.
    runs : int
        Runs per grid point (>= 2).
    expected : dict
        Axis -> claimed exponent (e.g. from ``record.exponents()``; sympy numbers accepted).
    bound : callable, optional
        ``bound(params) -> float > 0``: the claimed bound's value; the ratio measured/bound is
        tested (slope <= 0 for an upper bound).
    kind : {"upper", "lower"}
        Whether the claim bounds the quantity from above or from below.
    tolerance : float
        Slack on the tested slope (>= 0).
    alpha : float
        Error level in (0, 1), shared over the axes.
    seed : int or None
        Seed; ``None`` draws one (stored on the result).
    bootstrap : int
        Bootstrap resamples (>= 100).
    executor : concurrent.futures.Executor, distributed.Client or None
        Where the grid points are simulated, one chunk per point, each from its own stream (as
        without an executor, so the result is the same bit for bit); ``None``: the one set by
        :func:`audits.execution.using`, else this process (:mod:`audits.execution`).

    Returns
    -------
    RateResult
    """
    if not callable(measure):
        raise TypeError(f"measure ({measure!r}) must be callable as measure(params, runs, rng)")
    if bound is not None and not callable(bound):
        raise TypeError(f"bound ({bound!r}) must be callable as bound(params)")
    if not isinstance(grid, Mapping) or not grid:
        raise TypeError("grid must be a non-empty dict mapping axis names to lists of values")
    if not isinstance(base, Mapping):
        raise TypeError("base must be a dict of parameter values")
    if not isinstance(expected, Mapping):
        raise TypeError("expected must be a dict mapping axis names to exponents")
    kind = validate.choice("kind", kind, {"upper", "lower"})
    tolerance = validate.nonnegative("tolerance", tolerance)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    runs = validate.integer("runs", runs, minimum=2)
    bootstrap = validate.integer("bootstrap", bootstrap, minimum=100)
    axes = list(grid)
    values = {}
    for axis in axes:
        if not isinstance(axis, str):
            raise TypeError(f"grid axis names must be strings, got {axis!r}")
        vals = [_number(f"grid[{axis!r}]", v) for v in grid[axis]]
        if any(v <= 0 for v in vals):
            raise ParameterError(f"grid[{axis!r}] ({vals}) must contain positive values (log-log fit)")
        if len(set(vals)) < 2:
            raise ParameterError(f"grid[{axis!r}] ({vals}) must contain at least two distinct values")
        values[axis] = np.array(vals)
        if axis not in expected:
            raise ParameterError(f"expected has no exponent for axis {axis!r}")
    exp = {axis: _number(f"expected[{axis!r}]", expected[axis]) for axis in axes}
    if seed is None:
        seed = fresh_seed()
    seed = validate.integer("seed", seed, minimum=0)
    label = getattr(measure, "__qualname__", type(measure).__name__)

    n_points = sum(v.size for v in values.values())
    children = np.random.SeedSequence(seed).spawn(n_points + len(axes))
    boot_streams = children[n_points:]
    level = alpha / len(axes)
    tcrit = float(sps.t.ppf(1 - alpha / 2, runs - 1))
    slopes, intervals, tested, tested_iv, failed, points, ses = {}, {}, {}, {}, [], [], {}
    all_params = [dict(base, **{axis: raw}) for axis in axes for raw in list(grid[axis])]  # caller's types kept
    simulated, ex = _simulate(measure, all_params, runs, children[:n_points], executor, label)
    c = 0
    for a_i, axis in enumerate(axes):
        samples, bounds = [], []
        for raw, v in zip(list(grid[axis]), values[axis]):
            params = all_params[c]
            out = np.asarray(simulated[c], dtype=float)
            c += 1
            if out.shape not in ((runs,), (runs, 1)):
                raise ParameterError(f"measure {label} must return shape ({runs},), got {out.shape} at {params}")
            out = out.reshape(-1)
            if not np.all(np.isfinite(out)):
                raise ParameterError(f"measure {label} returned NaN or infinite values at {params}")
            mean = float(out.mean())
            if not mean > 0:
                raise ParameterError(f"measure {label} has a non-positive mean ({mean!r}) at {params}: "
                                     "a log-log rate needs positive values")
            half = tcrit * float(out.std(ddof=1)) / math.sqrt(runs)
            b = None
            if bound is not None:
                b = _number("bound", bound(dict(params)))
                if not b > 0:
                    raise ParameterError(f"bound ({b!r}) must be > 0 at {params}")
            samples.append(out)
            bounds.append(b)
            points.append({"axis": axis, "value": float(v), "mean": mean, "ci_low": mean - half,
                           "ci_high": mean + half, "bound": b, "ratio": None if b is None else mean / b})
        data = np.stack(samples)  # (J, runs)
        log_x = np.log(values[axis])
        log_mean = np.log(data.mean(axis=1))
        rng = np.random.default_rng(boot_streams[a_i])
        idx = rng.integers(0, runs, size=(bootstrap, runs))
        boot_means = np.stack([d[idx].mean(axis=1) for d in data], axis=1)  # (B, J)
        if np.any(boot_means <= 0):
            raise ParameterError(f"measure {label}: a bootstrap mean along {axis!r} is not positive; "
                                 "use more runs or a positive quantity")
        boot_slopes = _slopes(log_x, np.log(boot_means))
        slope = float(_slopes(log_x, log_mean))
        slopes[axis] = slope
        ses[axis] = _pooled_sd(log_x, np.log(boot_means))
        intervals[axis] = _interval(slope, boot_slopes, level, runs, ses[axis])
        if bound is not None:
            log_b = np.log(np.array(bounds, dtype=float))
            t = float(_slopes(log_x, log_mean - log_b))
            boot_t = _slopes(log_x, np.log(boot_means) - log_b)
        else:
            t = slope - exp[axis]
            boot_t = boot_slopes - exp[axis]
        tested[axis] = t
        tiv = _interval(t, boot_t, level, runs, ses[axis])  # the bound is fixed: the same spread
        tested_iv[axis] = tiv
        if (kind == "upper" and tiv[0] > tolerance) or (kind == "lower" and tiv[1] < -tolerance):
            failed.append(axis)
    return RateResult(passed=not failed, slopes=slopes, intervals=intervals, expected=exp,
                      tested=tested, tested_intervals=tested_iv, failed_axes=tuple(failed),
                      points=tuple(points), kind=kind, tolerance=tolerance, alpha=alpha, runs=runs,
                      seed=seed, bootstrap=bootstrap, has_bound=bound is not None, name=label,
                      standard_errors=ses, interval_method=_method(level, bootstrap), execution=ex)


def _measure_point(measure, task):
    """One grid point, on whichever worker runs it: ``measure(params, runs, rng)``."""
    params, runs, seed_sequence = task
    return np.asarray(call_with_runs_rng(measure, dict(params), runs=runs, rng=np.random.default_rng(seed_sequence)))


def _simulate(measure, all_params, runs, streams, executor, label):
    """The samples at every point (point ``i`` from ``streams[i]``), one chunk per point, and the
    execution's description. A :class:`Memo` is consulted and filled here, in point order, so a
    point it holds is not simulated again and a point met twice is simulated once, from the
    stream of its first occurrence (as the memo's own call does)."""
    from audits import execution

    memo = measure if isinstance(measure, Memo) else None
    fn = memo.measure if memo is not None else measure
    keys = [Memo.key(p, runs=runs) for p in all_params] if memo is not None else [None] * len(all_params)
    first: dict = {}
    tasks, owner = [], []
    for i, (params, key) in enumerate(zip(all_params, keys)):
        if memo is not None:
            if key in memo.cache or key in first:
                continue
            first[key] = i
        tasks.append((dict(params), runs, streams[i]))
        owner.append(i)
    ex = execution.resolve(executor)
    with ex.job(runs=runs * max(len(tasks), 1), label=f"measure {label}") as job:
        results = job.map(_measure_point, (job.share(fn, f"measure {label}"),), tasks, runs=lambda t: t[1],
                          what="grid point")
        timing = job.timing()
    out: list = [None] * len(all_params)
    for i, value in zip(owner, results):
        out[i] = value
        if memo is not None:
            memo.cache[keys[i]] = value
    if memo is not None:
        out = [memo.cache[k] for k in keys]
    return out, {**ex.describe(), "chunks": len(tasks), **timing}


# --------------------------------------------------------------------------------------------
# acceptance bands on the slopes


@dataclass(frozen=True)
class BandResult:
    """Outcome of :func:`audit_band`: are the measured slopes of a rate audit within a band?

    Attributes
    ----------
    passed : bool
        No axis is refuted: every slope's interval meets ``target +- half_width``.
    confirmed : bool
        Every slope's interval lies inside its band (the band holds with confidence).
    slopes : dict
        Axis -> measured slope.
    bands : dict
        Axis -> the band ``(low, high)`` (``low`` may be ``-inf``, ``high`` ``inf``).
    intervals : dict
        Axis -> two-sided interval ``slope -+ z sd`` at level ``1 - alpha/k`` (``sd`` the rate
        audit's bootstrap standard deviation, ``k`` axes).
    verdicts : dict
        Axis -> ``"inside"``, ``"outside"`` (refuted) or ``"undecided"``.
    alpha, name
        The error level spent, and a label.
    """

    passed: bool
    confirmed: bool
    slopes: Mapping[str, float]
    bands: Mapping[str, tuple[float, float]]
    intervals: Mapping[str, tuple[float, float]]
    verdicts: Mapping[str, str]
    alpha: float
    name: str = ""

    def __str__(self) -> str:
        parts = [f"{a} {self.slopes[a]:+.3f} [{self.intervals[a][0]:+.3f}, {self.intervals[a][1]:+.3f}] "
                 f"in [{self.bands[a][0]:+g}, {self.bands[a][1]:+g}]: {self.verdicts[a]}" for a in self.slopes]
        verdict = "REFUTED" if not self.passed else ("confirmed" if self.confirmed else "not refuted")
        return (f"acceptance band {self.name}: {'; '.join(parts)} | intervals at "
                f"{100 * (1 - self.alpha):.6g}% ({APPROXIMATE}) | {verdict}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["result_type"] = "band"
        d["summary"] = str(self)
        return jsonable(d)


def audit_band(result: RateResult, targets, *, half_width=0.0, alpha, name="") -> BandResult:
    """Test whether the slopes of a rate audit lie within ``targets -+ half_width``.

    An acceptance criterion of the form "the measured slope is within ``h`` of the exponent" as
    a test inside the error budget: per axis, the interval ``slope -+ t sd`` at level ``1 -
    alpha/k`` for ``k`` axes, ``sd`` the rate audit's standard deviation of the slope
    (``standard_errors``: bootstrap, pooled spread) and ``t`` Student's ``t_{runs - 1}`` quantile
    at ``1 - alpha/(2k SKEW_MARGIN)`` (:data:`SKEW_MARGIN` = 2, a margin for skewed values); the
    band is *refuted* on an axis when the interval misses it, *confirmed* when the interval lies
    inside it.

    False alarms: when every true slope (the slope of the true means on this grid) is inside its
    band, a refutation needs an interval beyond one of the band's ends. Each end is missed with
    probability ``alpha/(2k)`` per axis (nominally ``alpha/(4k)``; the skew margin takes the rest),
    and a band of width 0 (``half_width=0``, a point) can be missed on both sides, so the band
    errs with probability at most ``alpha``; a band wider than the intervals, with the true slope
    at one edge, at most about ``alpha/2``. Approximate (the slope is not exactly normal), and
    measured: at ``alpha = 0.05``, 5000 repetitions per cell, normal, chi-square(1) and lognormal
    values at 60, 200 and 1200 runs, the true slope at the band's edge, every rate's 95% upper
    limit is at most ``alpha`` (``benchmarks/bench_band_alarms.py``; docs/audit-evidence.md,
    "Acceptance bands"). (The former interval, each point's own spread and no margin, stated
    ``alpha/2`` and measured 0.060 [0.053, 0.067] for chi-square(1) values with a point band.)

    What alpha does not cover: the slope on a finite grid is not the exponent of the theorem's
    ``O()``. Lower-order terms, log factors and regime changes bend the curve, so a band around
    the exponent can be refuted on a grid where the theorem holds, and confirmed on one where it
    fails further out. The band says what the data show on this grid, nothing more.

    Parameters
    ----------
    result : RateResult
        From :func:`audit_rate` (its ``slopes`` and ``standard_errors``).
    targets : dict
        Axis -> centre of its band (``centre -+ half_width``), or the band itself as a pair
        ``(low, high)`` (one-sided: ``(-inf, high)``); every axis must have been measured.
    half_width : float
        Half width ``h >= 0`` of the bands given by their centre.
    alpha : float
        Error level in (0, 1) spent by this check.
    name : str
        Label in the summary.
    """
    if not isinstance(result, RateResult):
        raise TypeError(f"result ({type(result).__name__}) must be a RateResult from audit_rate")
    if not isinstance(targets, Mapping) or not targets:
        raise TypeError("targets must be a non-empty dict mapping axis names to slopes")
    half_width = validate.nonnegative("half_width", half_width)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    missing = [axis for axis in targets if axis not in result.slopes]
    if missing:
        raise ParameterError(f"targets ({missing}) name axes the rate audit did not measure "
                             f"({list(result.slopes)})")
    z = _quantile(alpha / len(targets), result.runs)
    slopes, bands, intervals, verdicts = {}, {}, {}, {}
    for axis, want in targets.items():
        if isinstance(want, (tuple, list)):
            if len(want) != 2:
                raise ParameterError(f"targets[{axis!r}] ({want!r}) must be a slope or a (low, high) pair")
            low, high = (float(sp.sympify(w)) for w in want)
            if not low < high or math.isnan(low) or math.isnan(high):
                raise ParameterError(f"targets[{axis!r}] ({want!r}) must have low < high")
        else:
            centre = _number(f"targets[{axis!r}]", want)
            low, high = centre - half_width, centre + half_width
        s, sd = float(result.slopes[axis]), float(result.standard_errors[axis])
        lo, hi = s - z * sd, s + z * sd
        slopes[axis], bands[axis], intervals[axis] = s, (low, high), (lo, hi)
        if hi < low or lo > high:
            verdicts[axis] = "outside"
        elif low <= lo and hi <= high:
            verdicts[axis] = "inside"
        else:
            verdicts[axis] = "undecided"
    return BandResult(passed="outside" not in verdicts.values(),
                      confirmed=all(v == "inside" for v in verdicts.values()), slopes=slopes,
                      bands=bands, intervals=intervals, verdicts=verdicts, alpha=alpha,
                      name=name or result.name)


# --------------------------------------------------------------------------------------------
# levels


@dataclass(frozen=True)
class LevelResult:
    """Outcome of :func:`audit_level`.

    Attributes
    ----------
    passed : bool
        No point's ``mean / reference`` lies outside ``[low, high]`` with confidence.
    low, high : float
        The band for ``mean / reference`` (``0`` or ``inf`` for an open side).
    alpha : float
        The share of the error budget this check spends.
    tail : float
        One-sided error level of every limit: ``alpha / (points * finite sides)``.
    points : tuple of dict
        One row per point: ``params, runs, mean, reference, ratio, ratio_low, ratio_high`` (the
        limits of ``mean / reference`` at ``1 - tail`` on each side).
    failed : tuple of int
        Indices of the points outside the band.
    reference_name, name : str
        What the reference value and the measure are.
    """

    passed: bool
    low: float
    high: float
    alpha: float
    tail: float
    points: tuple[Mapping[str, Any], ...]
    failed: tuple[int, ...]
    reference_name: str = ""
    name: str = ""

    def __str__(self) -> str:
        ratios = [p["ratio"] for p in self.points]
        lows = [p["ratio_low"] for p in self.points]
        highs = [p["ratio_high"] for p in self.points]
        band = f"[{self.low:.4g}, {self.high:.4g}]"
        verdict = "passed" if self.passed else f"FAILED ({len(self.failed)} of {len(self.points)} points outside)"
        return (f"level of measured / {self.reference_name or 'reference'}: ratio {min(ratios):.4g} to "
                f"{max(ratios):.4g} over {len(self.points)} points, one-sided {100 * (1 - self.tail):.6g}% limits "
                f"from {min(lows):.4g} to {max(highs):.4g} (approximate: Student t); band {band} | alpha "
                f"{self.alpha:.4g} | {verdict}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["result_type"] = "level"
        d["summary"] = str(self)
        return jsonable(d)


def audit_level(samples, reference, *, low=0.0, high=math.inf, alpha, reference_name="",
                name="") -> LevelResult:
    """Check that ``mean / reference(params)`` lies in ``[low, high]`` at every point.

    Parameters
    ----------
    samples : Memo or iterable of (dict, array_like)
        The per-run values at each point (a :class:`Memo` gives its cached samples).
    reference : callable
        ``reference(params) -> float > 0``: a bound, a predicted mean, ...
    low, high : float
        The band (``0 <= low < high``; at least one side finite). ``low`` alone checks a lower
        bound ("at least low times the reference"), ``high`` alone an upper bound.
    alpha : float
        The share of the error budget this check may spend, in (0, 1): with ``m`` points and
        ``s`` finite sides, each one-sided Student-t limit is at level ``1 - alpha/(m s)``, and a
        point fails only when its limit lies outside the band, so when every true ratio is in
        the band the check fails with probability at most ``alpha`` (exactly so for normal
        values; approximately for means of other bounded-variance values).
    reference_name, name : str
        Labels for the printed line.

    Returns
    -------
    LevelResult
    """
    if not callable(reference):
        raise TypeError(f"reference ({reference!r}) must be callable as reference(params)")
    low = validate.nonnegative("low", low)
    high = float(high)
    if math.isnan(high) or not high > low:
        raise ParameterError(f"high ({high!r}) must be > low ({low!r})")
    sides = int(low > 0) + int(math.isfinite(high))
    if sides == 0:
        raise ParameterError("low (0) and high (inf) leave nothing to check: give a finite side")
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    items = samples.samples() if isinstance(samples, Memo) else list(samples)
    if not items:
        raise ParameterError("samples must contain at least one point")
    tail = alpha / (len(items) * sides)
    points, failed = [], []
    for i, (params, values) in enumerate(items):
        out = np.asarray(values, dtype=float).reshape(-1)
        if out.size < 2 or not np.all(np.isfinite(out)):
            raise ParameterError(f"samples at {params} must hold at least 2 finite values, got {out.size}")
        ref = _number("reference", reference(dict(params)))
        if not ref > 0:
            raise ParameterError(f"reference ({ref!r}) must be > 0 at {params}")
        mean = float(out.mean())
        half = float(sps.t.ppf(1 - tail, out.size - 1)) * float(out.std(ddof=1)) / math.sqrt(out.size)
        row = {"params": dict(params), "runs": int(out.size), "mean": mean, "reference": ref,
               "ratio": mean / ref, "ratio_low": (mean - half) / ref, "ratio_high": (mean + half) / ref}
        points.append(row)
        if row["ratio_high"] < low or row["ratio_low"] > high:
            failed.append(i)
    return LevelResult(passed=not failed, low=low, high=high, alpha=alpha, tail=tail, points=tuple(points),
                       failed=tuple(failed), reference_name=str(reference_name) or _label(reference),
                       name=str(name))


# --------------------------------------------------------------------------------------------
# helpers for audit tests


def _label(obj) -> str:
    return getattr(obj, "__qualname__", None) or type(obj).__name__


def utility_bound(record, index=0, *, constant=1.0):
    """``params -> value`` of utility claim ``index`` of a spec record, times ``constant``.

    The O/Omega claims of a record hide their constant; ``constant`` (default 1) makes it
    explicit. ``params`` uses the record's canonical symbol names (``n``, ``dimension``,
    ``epsilon``, ...); extra keys are ignored. Evaluated with mpmath (50 digits) and returned as
    a float.

    Parameters
    ----------
    record : spec.record.SpecRecord
    index : int
        Position in ``record.utility``.
    constant : float
        Multiplies the bound (> 0).
    """
    claims = getattr(record, "utility", ())
    if not isinstance(index, int) or not 0 <= index < len(claims):
        raise ParameterError(f"index ({index!r}) must be in [0, {len(claims)}) for record {record.id}")
    constant = validate.positive("constant", constant)
    claim = claims[index]
    names = {s.symbol: s.name for s in record.symbols}
    symbols = sorted(claim.bound.free_symbols, key=lambda s: s.name)
    args = [names[s] for s in symbols]
    fn = sp.lambdify(symbols, claim.bound, modules="mpmath")

    def bound(params):
        missing = [a for a in args if a not in params]
        if missing:
            raise ParameterError(f"params ({sorted(params)}) lack {missing} for {record.id} utility[{index}]")
        return constant * float(fn(*[params[a] for a in args]))

    bound.__qualname__ = f"{record.id} utility[{index}]" + ("" if constant == 1 else f" x {constant:g}")
    return bound


def expected_slopes(fn, grid, base) -> dict[str, float]:
    """The least-squares log-log slope of ``fn(params)`` along each axis of ``grid`` around ``base``.

    The same fit :func:`audit_rate` applies to the measured means, so a formula's slopes (log
    factors and all) can be printed next to the measured ones on the very same grid.
    """
    out = {}
    for axis, values in grid.items():
        log_x = np.log(np.asarray(values, dtype=float))
        log_y = np.array([math.log(fn(dict(base, **{axis: v}))) for v in values])
        out[axis] = float(_slopes(log_x, log_y))
    return out


def largest_allowed(record, assumption, name, *, digits=3, **values) -> float:
    """The largest ``name``, rounded down to ``digits`` decimals, that ``record``'s assumption allows.

    The assumption (a relation ``lhs <= rhs`` or ``lhs < rhs``) is solved for ``name`` with the
    other ``values`` substituted exactly (floats through their decimal representation); the
    largest real root is rounded down. The result is checked: the assumption holds there and
    fails ``10**-digits`` above it (so the relation is an upper limit on ``name``).

    Examples
    --------
    ``largest_allowed(spec.bst14.THM_II_1, "lemma_II_2_condition", "epsilon", delta=1e-3)`` is
    ``floor(2 sqrt(ln 1000) 10^3) / 10^3 = 5.256``.
    """
    found = [a for a in record.assumptions if a.name == assumption]
    if not found:
        raise ParameterError(f"assumption ({assumption!r}) is not one of {record.id}'s: "
                             f"{[a.name for a in record.assumptions]}")
    digits = validate.integer("digits", digits, minimum=0)
    rel = found[0].relation
    if not isinstance(rel, sp.core.relational.Relational):
        raise ParameterError(f"assumption {assumption!r} ({rel}) must be a single relation")
    x = record.symbol(name)
    subs = {record.symbol(k): sp.Rational(repr(float(v))) for k, v in values.items()}
    roots = [r for r in sp.solve(sp.Eq(rel.lhs.subs(subs), rel.rhs.subs(subs)), x) if r.is_real]
    if not roots:
        raise ParameterError(f"assumption {assumption!r} has no real boundary in {name} at {values}")
    scale = sp.Integer(10) ** digits
    top = max(roots, key=lambda r: float(r))
    value = sp.floor(top * scale) / scale
    at = {**subs, x: value}
    above = {**subs, x: value + 1 / scale}
    if not found[0].holds(at) or found[0].holds(above):
        raise ParameterError(f"assumption {assumption!r} ({rel}) is not an upper limit on {name} "
                             f"near {float(top)}")
    return float(value)


def grid_points(grid, base):
    """The parameter dicts :func:`audit_rate` evaluates: ``base`` with one axis of ``grid`` changed.

    Yields one dict per (axis, value), axes in order (the base point once per axis that contains
    it), e.g. to check a theorem's assumptions at every point before simulating.
    """
    for axis, values in grid.items():
        for v in values:
            yield dict(base, **{axis: v})


class Memo:
    """Cache a measure's samples by (grid point, runs), so several checks use one simulation.

    ``audit_rate`` draws each point from its own stream; with a memo, a second ``audit_rate``
    call (another claim on the same grid) or :func:`audit_level` reuses the samples instead of
    simulating again. Points shared by several axes (the base point) are simulated once, with
    the stream of the first axis that asks for them.
    """

    def __init__(self, measure):
        if not callable(measure):
            raise TypeError(f"measure ({measure!r}) must be callable as measure(params, runs, rng)")
        self.measure, self.cache = measure, {}
        self.__qualname__ = _label(measure)

    @staticmethod
    def key(params, *, runs):
        """The cache key of a point: its sorted parameters and the runs."""
        return (tuple(sorted(params.items())), runs)

    def __call__(self, params, *, runs, rng):
        key = self.key(params, runs=runs)
        if key not in self.cache:
            self.cache[key] = np.asarray(call_with_runs_rng(self.measure, params, runs=runs, rng=rng))
        return self.cache[key]

    def samples(self) -> list[tuple[dict, np.ndarray]]:
        """``(params, values)`` of every cached point, in the order they were first simulated."""
        return [(dict(items), values) for (items, _), values in self.cache.items()]
