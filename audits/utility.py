"""Utility-rate audits: does the measured error scale in n, p, epsilon as the theorem says?

``audit_rate(measure, grid=..., base=..., runs=..., expected=...)`` evaluates a utility
quantity (the theorem's own: excess empirical risk against an exactly computed optimum, a
gradient norm, ...) at grid points that vary one axis at a time around ``base``, and fits the
log-log slope of the mean along each axis.

Statistics
----------
* Per grid point: the mean of ``runs`` independent values with a Student-t interval at level
  ``1 - alpha`` (descriptive; the means of bounded-variance quantities are close to normal at
  the run counts used).
* Per axis: the least-squares slope of ``log(mean)`` on ``log(value)``, with a percentile
  bootstrap interval: ``bootstrap`` times, the runs of every grid point are resampled with
  replacement (independently per point, seeded), the means recomputed and the slope refitted.
  The interval has level ``1 - alpha / k`` for ``k`` axes (Bonferroni), so the family of
  verdicts errs with probability about ``alpha`` (bootstrap intervals are approximate).
* Tested quantity per axis: with a ``bound(params)`` callable, the slope of
  ``log(mean / bound)`` (which should be <= 0 for an upper bound: the ratio must not grow);
  without one, ``slope - expected[axis]``.
* Verdict: ``kind="upper"`` fails when the tested quantity's interval lies above
  ``tolerance`` (the error grows faster than the bound allows, with confidence);
  ``kind="lower"`` fails when it lies below ``-tolerance``. The measured slopes (tightness) are
  always reported next to the expected exponents.

Randomness: ``SeedSequence(seed)`` is spawned into one child per (axis, grid value) for the
measure and one per axis for the bootstrap.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
from scipy import stats as sps

from reference.rng import fresh_seed
from spec import validate
from spec.errors import ParameterError

__all__ = ["RateResult", "audit_rate"]


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


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

    def __str__(self) -> str:
        parts = []
        for axis, slope in self.slopes.items():
            lo, hi = self.intervals[axis]
            parts.append(f"{axis} slope {slope:.3g} [{lo:.3g}, {hi:.3g}] (expected {self.expected[axis]:.3g})")
        verdict = "passed" if self.passed else f"FAILED ({', '.join(self.failed_axes)})"
        return (f"{self.kind}-bound rate: {'; '.join(parts)} | tolerance {self.tolerance:g} at "
                f"{100 * (1 - self.alpha):.6g}% | {self.runs} runs/point | seed {self.seed} | {verdict}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["result_type"] = "rate"
        d["summary"] = str(self)
        return _jsonable(d)


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
               alpha=0.05, seed=None, bootstrap=1000) -> RateResult:
    """Check the growth of a utility quantity along each grid axis against claimed exponents.

    Parameters
    ----------
    measure : callable
        ``measure(params: dict, runs: int, rng) -> ndarray (runs,)`` of finite per-run values
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
    slopes, intervals, tested, tested_iv, failed, points = {}, {}, {}, {}, [], []
    c = 0
    for a_i, axis in enumerate(axes):
        samples, bounds = [], []
        for raw, v in zip(list(grid[axis]), values[axis]):
            params = dict(base)
            params[axis] = raw  # the caller's value, type kept (n stays an int)
            out = np.asarray(measure(dict(params), runs, np.random.default_rng(children[c])), dtype=float)
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
        lo_q, hi_q = level / 2, 1 - level / 2
        slopes[axis] = slope
        intervals[axis] = (float(np.quantile(boot_slopes, lo_q)), float(np.quantile(boot_slopes, hi_q)))
        if bound is not None:
            log_b = np.log(np.array(bounds, dtype=float))
            t = float(_slopes(log_x, log_mean - log_b))
            boot_t = _slopes(log_x, np.log(boot_means) - log_b)
        else:
            t = slope - exp[axis]
            boot_t = boot_slopes - exp[axis]
        tested[axis] = t
        tiv = (float(np.quantile(boot_t, lo_q)), float(np.quantile(boot_t, hi_q)))
        tested_iv[axis] = tiv
        if (kind == "upper" and tiv[0] > tolerance) or (kind == "lower" and tiv[1] < -tolerance):
            failed.append(axis)
    return RateResult(passed=not failed, slopes=slopes, intervals=intervals, expected=exp,
                      tested=tested, tested_intervals=tested_iv, failed_axes=tuple(failed),
                      points=tuple(points), kind=kind, tolerance=tolerance, alpha=alpha, runs=runs,
                      seed=seed, bootstrap=bootstrap, has_bound=bound is not None, name=label)
