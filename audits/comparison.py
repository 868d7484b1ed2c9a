r"""Side-by-side measurements of several methods along one axis, recorded for the audit report.

:func:`compare` runs each method's ``measure(value, runs, rng)`` (per-run values of one quantity,
e.g. an excess population risk) at every value of an axis (e.g. a tail index) and returns a
:class:`ComparisonResult`: per method and value the mean with a two-sided Student-t interval at
level ``1 - alpha`` (descriptive; Bonferroni over the cells when ``alpha`` is the test's share).
Its :meth:`ComparisonResult.to_dict` carries every number, so :mod:`audits.report` can draw the
figure (``result_type = "comparison"``: one line per method against the axis) and a reader can redraw
it from ``report.json``. Methods that cannot be run (a reference not written yet) are listed under
``missing`` with the reason, never silently dropped.

Randomness: ``SeedSequence(seed)`` is spawned into one child per (method, value), in the order the
methods are given, so adding a method at the end changes no other number.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
from scipy import stats as sps

from audits.calls import call_with_runs_rng
from audits.jsonable import jsonable
from spec import validate
from spec.errors import ParameterError

__all__ = ["ComparisonResult", "compare"]




@dataclass(frozen=True)
class ComparisonResult:
    """Outcome of :func:`compare`.

    Attributes
    ----------
    axis : str
        Name of the varied quantity (``"tail_index"``).
    values : tuple of float
        Its values (``inf`` allowed: a light-tailed limit).
    quantity : str
        What the methods' values are (``"excess population risk"``).
    series : dict
        Method -> ``{"mean", "ci_low", "ci_high", "sd"}`` lists (one entry per value) and ``"runs"``.
    reference_lines : dict
        Name -> list of values (exact or precomputed curves drawn with the series, e.g. a bias
        floor or the risk of a trivial output).
    missing : dict
        Method -> why it was not run.
    alpha, seed
        Level of the intervals and the seed.
    passed : bool or None
        The verdict of the calling test, when it sets one (:meth:`with_verdict`).
    notes : tuple of str
    """

    axis: str
    values: tuple
    quantity: str
    series: Mapping[str, Mapping[str, Any]]
    reference_lines: Mapping[str, list] = field(default_factory=dict)
    missing: Mapping[str, str] = field(default_factory=dict)
    alpha: float = 0.05
    seed: int = 0
    passed: bool | None = None
    notes: tuple = ()
    name: str = ""

    def with_verdict(self, passed: bool, note: str = "") -> "ComparisonResult":
        """A copy carrying the test's verdict (and a note explaining it)."""
        notes = self.notes + ((note,) if note else ())
        return ComparisonResult(**{**asdict(self), "passed": bool(passed), "notes": notes})

    def table(self) -> str:
        """A markdown table: one row per value, one column per method and reference line."""
        names = list(self.series) + list(self.reference_lines)
        head = f"| {self.axis} | " + " | ".join(names) + " |"
        rows = [head, "|" + " --- |" * (len(names) + 1)]
        for i, v in enumerate(self.values):
            cells = []
            for name in self.series:
                s = self.series[name]
                cells.append(f"{s['mean'][i]:.3g} [{s['ci_low'][i]:.3g}, {s['ci_high'][i]:.3g}]")
            cells += [f"{self.reference_lines[name][i]:.3g}" for name in self.reference_lines]
            rows.append(f"| {v:g} | " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def __str__(self) -> str:
        parts = []
        for name, s in self.series.items():
            parts.append(f"{name}: " + ", ".join(f"{m:.3g}" for m in s["mean"]))
        missing = "; ".join(f"{k} not run ({v})" for k, v in self.missing.items())
        verdict = "" if self.passed is None else (" | passed" if self.passed else " | FAILED")
        return (f"{self.quantity} against {self.axis} {list(self.values)}: " + "; ".join(parts)
                + (f" | {missing}" if missing else "") + f" | seed {self.seed}{verdict}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["result_type"] = "comparison"
        d["summary"] = str(self)
        d["table"] = self.table()
        return jsonable(d)


def compare(methods: Mapping[str, Callable | None], *, axis: str, values, runs, quantity: str, alpha=0.05,
            seed: int, reference_lines: Mapping[str, Callable] | None = None,
            missing: Mapping[str, str] | None = None, name: str = "") -> ComparisonResult:
    """Measure every method at every value of ``axis``.

    Parameters
    ----------
    methods : dict
        Name -> ``measure(value, runs, rng) -> (runs,)`` values (:mod:`audits.calls` conventions).
    axis : str
    values : sequence of float
    runs : int or dict
        Runs per (method, value), or name -> runs.
    quantity : str
    alpha : float
        Level of the two-sided intervals (Student-t).
    seed : int
    reference_lines : dict, optional
        Name -> ``f(value) -> float``.
    missing : dict, optional
        Methods that could not be run -> reason.

    Returns
    -------
    ComparisonResult
    """
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    seed = validate.integer("seed", seed, minimum=0)
    values = tuple(float(v) for v in values)
    if not values:
        raise ParameterError("values (empty) must list at least one value of the axis")
    names = list(methods)
    children = np.random.SeedSequence(seed).spawn(len(names) * len(values))
    series = {}
    for m_i, method in enumerate(names):
        fn = methods[method]
        k = validate.integer("runs", runs[method] if isinstance(runs, Mapping) else runs, minimum=2)
        out = {"mean": [], "ci_low": [], "ci_high": [], "sd": [], "runs": k}
        for v_i, v in enumerate(values):
            rng = np.random.default_rng(children[m_i * len(values) + v_i])
            x = np.asarray(call_with_runs_rng(fn, v, runs=k, rng=rng), dtype=float).reshape(-1)
            if x.shape != (k,) or not np.all(np.isfinite(x)):
                raise ParameterError(f"method {method!r} must return {k} finite values at {axis} = {v}")
            mean, sd = float(x.mean()), float(x.std(ddof=1))
            half = float(sps.t.ppf(1 - alpha / 2, k - 1)) * sd / math.sqrt(k)
            out["mean"].append(mean)
            out["ci_low"].append(mean - half)
            out["ci_high"].append(mean + half)
            out["sd"].append(sd)
        series[method] = out
    lines = {key: [float(f(v)) for v in values] for key, f in (reference_lines or {}).items()}
    return ComparisonResult(axis=axis, values=values, quantity=quantity, series=series, reference_lines=lines,
                            missing=dict(missing or {}), alpha=alpha, seed=seed, name=name)
