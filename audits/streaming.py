"""What a chunk of test runs is reduced to, and the summaries that keep each test's guarantee.

The audit keeps its selection runs in memory (they choose the statistic and the event) and
streams its test runs: each chunk of outputs is reduced on the worker that drew it, and the
driver combines the reductions (:mod:`audits.execution`). A reduction is a list of *parts*, each
a function of the chunk's outputs with a way to combine its values over chunks that does not
depend on the order in which chunks finish:

* :class:`Count` -- how many outputs fall in one event ``{T > t}`` or ``{T <= t}`` of a
  statistic ``T`` (point mode: the counts ``K_p``, ``K_q`` the conditional test needs), or in a
  caller's event (:class:`Hits`); summed.
* :class:`AtOrBelow` -- for fixed sorted thresholds ``t_1 < ... < t_K``, how many values of ``T``
  are ``<= t_j`` (every threshold event's count, both sides); summed.
* :class:`Values` -- the values of ``T`` themselves, placed at their runs' positions.

Profile mode and the low-bit test
---------------------------------
Profile mode's bands hold for *every* threshold at once (:func:`audits.stats.cdf_band`), so the
test stays valid when it examines only some thresholds, however they were chosen; the
thresholds only decide its power. Hence the smallest summary that keeps the guarantee:

* up to :data:`EXACT_RUNS` band runs per dataset: the values (:class:`Values`), every distinct
  value a threshold -- the exact test, as before streaming (8 bytes per run and dataset);
* beyond: :class:`AtOrBelow` counts at a *grid* of at most :data:`GRID_SIZE` thresholds fixed by
  the selection runs before any test run is drawn (:func:`grid`): all distinct selection values
  when there are few of them -- a statistic with a finite support, such as the scores of a
  discrete output or of the low-bit classes, is then summarised exactly -- else values at ranks
  dense in both tails (:func:`audits.selection.candidate_ranks`). Memory: ``8 GRID_SIZE`` bytes
  per dataset (0.5 MiB at ``GRID_SIZE = 65536``) whatever the runs; at 1e8 runs per dataset the
  values alone would take 0.8 GB per dataset, plus the copies sorting them needs.

The low-bit statistic (:func:`audits.statistics.bits_family`) maps an output to the learned
score of its class (sign, binade, trailing zero bits, or a repeated value), so its values take at
most one value per class plus the 0 of unseen classes: the grid of its selection values is its
whole support, and :class:`AtOrBelow` at that grid is an exact histogram of a few hundred counts
in any mode. In point mode its test needs a single :class:`Count`.
"""

from __future__ import annotations

import numpy as np

from audits import selection
from audits import statistics as stat
from spec.errors import ParameterError

__all__ = ["EXACT_RUNS", "GRID_SIZE", "Count", "Hits", "AtOrBelow", "Values", "Reduction", "grid"]

#: Band runs per dataset up to which profile mode keeps every value (the exact test).
EXACT_RUNS = 2**22
#: Most thresholds of the grid beyond EXACT_RUNS.
GRID_SIZE = 2**16


class Count:
    """Outputs whose statistic falls in ``{T > threshold}`` (side ``">"``) or ``{T <= threshold}``."""

    def __init__(self, apply, threshold: float, side: str):
        self.apply, self.threshold, self.side = apply, float(threshold), side

    def __call__(self, outputs) -> int:
        return selection.count(self.apply(outputs), self.threshold, self.side)

    @staticmethod
    def start(n: int):
        return 0

    @staticmethod
    def add(total, value, offset: int):
        return total + int(value)


class Hits(Count):
    """Outputs in a caller's event: ``indicator(outputs) -> bool (runs,)``."""

    def __init__(self, indicator):
        self.indicator = indicator

    def __call__(self, outputs) -> int:
        return int(np.count_nonzero(self.indicator(outputs)))


class AtOrBelow:
    """``[#{T <= t_j}]_j`` at fixed sorted thresholds ``t_j`` (int64)."""

    def __init__(self, apply, thresholds):
        self.apply = apply
        self.thresholds = np.asarray(thresholds, dtype=float)

    def __call__(self, outputs) -> np.ndarray:
        return np.searchsorted(np.sort(self.apply(outputs)), self.thresholds, side="right").astype(np.int64)

    def start(self, n: int):
        return np.zeros(self.thresholds.size, dtype=np.int64)

    @staticmethod
    def add(total, value, offset: int):
        total += value
        return total


class Values:
    """The statistic's values, one per run, at the runs' positions."""

    def __init__(self, apply):
        self.apply = apply

    def __call__(self, outputs) -> np.ndarray:
        return np.asarray(self.apply(outputs), dtype=float)

    @staticmethod
    def start(n: int):
        return np.empty(n, dtype=float)

    @staticmethod
    def add(total, value, offset: int):
        total[offset:offset + value.size] = value
        return total


class Reduction:
    """The parts a chunk's outputs are reduced to, after checking that the outputs look like the
    selection outputs (shape of one output, integer or not: ``like``)."""

    def __init__(self, parts, *, like=None, name: str = ""):
        self.parts = list(parts)
        self.like = None if like is None else (tuple(like.shape[1:]), stat.integer_kind(like), str(like.dtype))
        self.name = name

    def __call__(self, outputs):
        if self.like is not None:
            shape, integer, dtype = self.like
            if outputs.shape[1:] != shape or stat.integer_kind(outputs) != integer:
                raise ParameterError(
                    f"mechanism {self.name} returned outputs of different shapes or dtypes across calls "
                    f"({shape}/{dtype} vs {outputs.shape[1:]}/{outputs.dtype})")
        return [part(outputs) for part in self.parts]

    def start(self, n: int) -> list:
        return [part.start(n) for part in self.parts]

    def add(self, totals: list, values: list, offset: int) -> list:
        return [part.add(t, v, offset) for part, t, v in zip(self.parts, totals, values)]


def grid(apply, sel_d, sel_n, size: int | None = None) -> np.ndarray:
    """Thresholds fixed by the selection values ``apply(sel_d)`` and ``apply(sel_n)`` (module
    docstring): all distinct values when there are at most ``size`` (default
    :data:`GRID_SIZE`), else ``size`` of them at ranks dense in both tails."""
    return selection.pooled_candidates(apply, sel_d, sel_n, GRID_SIZE if size is None else size)
