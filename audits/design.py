"""Run counts for a target power in point mode, with the event selection simulated.

Point mode (:func:`audits.privacy.audit_privacy`) chooses its event on the selection runs and
tests it on the other runs. The test's power at a *fixed* event is exact
(:func:`audits.stats.point_power`), but the event the selection finds is random: with a scalar
statistic the power as a function of the threshold is peaked (for Laplace noise x0.8 at the
smoke tier's alpha it falls from 0.98 at the best threshold to 0.86 a third of a scale away),
and the selection runs locate the peak only roughly. Sizing the runs for the best event alone
therefore over-states the power: the planted Laplace audit designed that way for power 0.99
was measured at 0.926 (issue 13).

:func:`simulated_power` simulates the whole point-mode audit on a *threshold family*: a
scalar statistic ``T`` given by its survival functions ``P_D[T > t_k]`` and ``P_D'[T > t_k]``
at increasing thresholds. The law of ``T`` is discretised on those thresholds (at most
:data:`MAX_BINS` bins, denser in both tails) and taken uniform within each bin, so that the
selection values are continuous and the selection has as many distinct thresholds to choose
from as in the audit (its winner's curse is the audit's). The selection counts at the
harness's own candidates (:func:`audits.selection.candidate_ranks`) are drawn without drawing
the values (:func:`_selection_counts`: multinomial bin counts, multivariate hypergeometric
interleaving inside a bin), the harness's own rule (:func:`audits.selection.choose`: the same
shrinkage and projected bound) picks the event, and the exact power of the test at that event
and the test sample size is averaged over :data:`SIMULATIONS` seeded repetitions.
:func:`runs_for_thresholds` searches the smallest run count at which the simulated power, less
:data:`SIMULATION_Z` standard errors of the simulation, reaches the target (the selection-free
requirement is the starting point; runs grow by 30% until a third of the repetitions reach the
target and all of them confirm it, then the bracket is bisected to 3%).

History. Until the count-level simulation, the selection values were the bin indices: at most
``MAX_BINS + 1`` thresholds to choose from, a milder winner's curse than the audit's, and the
simulated power of the radial Laplace x0.8 audit at its 29608 runs was 0.992 while 1000 audits
measured 0.970 [0.957, 0.980]. The count-level simulation gives 0.972 there; sampling the true
law of that statistic and running the harness's ``select_event`` on the values gives 0.976
(600 repetitions), the two agree within their noise.

The simulation is a design calculation: the discretisation and the finite repetitions make it
approximate, and ``benchmarks/bench_planted_power.py`` measures the power of every planted
audit of the primitives at the run count this gives (docs/audit-evidence.md).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from audits import stats
from audits.selection import candidate_ranks, choose
from spec import validate
from spec.errors import ParameterError

__all__ = ["MAX_BINS", "SIMULATIONS", "SIMULATION_Z", "simulated_power", "runs_for_thresholds"]

#: Largest number of thresholds the law of ``T`` is discretised on.
MAX_BINS = 192
#: Repetitions of the simulated selection per run count.
SIMULATIONS = 300
#: A run count reaches the power when the simulated mean less this many standard errors does
#: (the one-sided 95% limit): the 300 repetitions resolve a power of 0.99 only to about +-0.006,
#: and without the margin the search stopped wherever the noise first crossed the target.
SIMULATION_Z = 1.645


def _family(sf_d, sf_n):
    sf_d = np.asarray(sf_d, dtype=float).reshape(-1)
    sf_n = np.asarray(sf_n, dtype=float).reshape(-1)
    if sf_d.shape != sf_n.shape or sf_d.size < 1:
        raise ParameterError("the survival functions must be non-empty arrays of one shape")
    if not (np.all(np.isfinite(sf_d)) and np.all(np.isfinite(sf_n))):
        raise ParameterError("the survival functions must be finite")
    if np.any(np.diff(sf_d) > 1e-12) or np.any(np.diff(sf_n) > 1e-12):
        raise ParameterError("the survival functions must be nonincreasing in the threshold")
    sf_d, sf_n = np.clip(sf_d, 0.0, 1.0), np.clip(sf_n, 0.0, 1.0)
    # Thin to MAX_BINS thresholds: even in the pooled law, and geometric in both tails.
    if sf_d.size > MAX_BINS:
        mix = 1.0 - 0.5 * (sf_d + sf_n)  # pooled CDF, nondecreasing
        third = MAX_BINS // 3
        targets = np.concatenate([np.geomspace(1e-9, 0.5, third), np.linspace(0.0, 1.0, third),
                                  1.0 - np.geomspace(1e-9, 0.5, third)])
        keep = np.unique(np.clip(np.searchsorted(mix, targets), 0, sf_d.size - 1))
        sf_d, sf_n = sf_d[keep], sf_n[keep]
    return sf_d, sf_n


def _bins(sf):
    """Probabilities of the bins (-inf, t_0], (t_0, t_1], ..., (t_{K-1}, inf)."""
    cdf = np.concatenate([[0.0], 1.0 - sf, [1.0]])
    return np.clip(np.diff(cdf), 0.0, None)


def _selection_counts(rng, n_sel, bins_d, bins_n, ranks):
    """One draw of the selection counts at the candidate thresholds, without drawing the values.

    ``n_sel`` values per dataset from the bin laws, uniform within their bin. Sorted pooled
    values at ``ranks`` are the thresholds; returns ``(threshold, le_d, le_n)``: the counts of
    each dataset's values at or below every threshold, and a function giving threshold ``i``'s
    position. Law-equivalent to drawing and sorting the values: given the bin counts, the order of
    the two datasets' values inside a bin is a uniformly random interleaving (so the counts up to
    successive thresholds in a bin are multivariate hypergeometric), independent of the sorted
    positions (the ``h``-th of ``c`` uniforms in its bin is ``Beta(h, c - h + 1)``).
    """
    c_d = rng.multinomial(n_sel, bins_d)
    c_n = rng.multinomial(n_sel, bins_n)
    pooled = c_d + c_n
    before = np.concatenate([[0], np.cumsum(pooled)])  # pooled values in the bins below j
    before_d = np.concatenate([[0], np.cumsum(c_d)])
    bins = np.searchsorted(before, ranks, side="right") - 1  # the bin of each ranked value
    within = ranks - before[bins] + 1  # its 1-based rank inside its bin
    starts = np.flatnonzero(np.diff(np.concatenate([[-1], bins])))  # first candidate of each bin
    ends = np.append(starts[1:], ranks.size)
    # The segments of every bin at once: the pooled values up to its first candidate, between
    # successive candidates, and after its last one (the bin's [h_0, h_1 - h_0, ..., c - h_last]).
    gaps = np.diff(within, prepend=0)
    gaps[starts] = within[starts]
    segments = np.insert(gaps, ends, pooled[bins[ends - 1]] - within[ends - 1])
    draws = np.empty(segments.size, dtype=np.int64)
    for a, b, j in zip((starts + np.arange(starts.size)).tolist(), (ends + np.arange(1, starts.size + 1)).tolist(),
                       bins[starts].tolist()):
        draws[a:b] = rng.multivariate_hypergeometric(segments[a:b], c_d[j])
    # le_d at each candidate: the dataset's values in the bins below plus those drawn up to it
    # (cumulative sums within each bin's segments, the last segment of each bin dropped)
    last = ends + np.arange(starts.size)
    running = np.cumsum(draws)
    offset = np.repeat(np.concatenate([[0], running[last[:-1]]]), ends - starts)
    le_d = before_d[bins] + np.delete(running, last) - offset
    le_n = ranks + 1 - le_d

    def threshold(i):
        j = bins[i]
        return j + rng.beta(within[i], pooled[j] - within[i] + 1)

    return threshold, le_d, le_n


def simulated_power(sf_d, sf_n, *, runs, epsilon, delta=0.0, alpha,
                    selection_fraction=stats.SELECTION_FRACTION, simulations=SIMULATIONS, seed=0):
    """Mean power of the point-mode audit of a threshold family, the selection simulated, and its
    standard error.

    Parameters
    ----------
    sf_d, sf_n : array_like
        ``P_D[T > t_k]`` and ``P_D'[T > t_k]`` at increasing thresholds ``t_k``.
    runs : int
        Runs per dataset (selection and test together).
    epsilon, delta, alpha : float
        The claim and the audit's level.
    selection_fraction : float
        As in :func:`audits.privacy.audit_privacy`.
    simulations : int
        Seeded repetitions of the selection.
    seed : int
        Seed of the repetitions (the same for every ``runs``: common random numbers).

    Returns
    -------
    (float, float)
        The average over the repetitions of the exact power (:func:`audits.stats.point_power`)
        at the selected event, and its standard error (the spread of the repetitions over the
        square root of their number).
    """
    runs = validate.integer("runs", runs, minimum=2)
    simulations = validate.integer("simulations", simulations, minimum=1)
    sf_d, sf_n = _family(sf_d, sf_n)
    bins_d, bins_n = _bins(sf_d), _bins(sf_n)
    bins_d, bins_n = bins_d / bins_d.sum(), bins_n / bins_n.sum()
    n_sel = int(math.ceil(selection_fraction * runs - 1e-9))
    m = runs - n_sel
    if n_sel < 1 or m < 1:
        raise ParameterError(f"runs ({runs}) leaves no selection or test runs at selection_fraction "
                             f"({selection_fraction})")
    # Positions: bin j of the discretised law is the interval [j, j + 1), the statistic uniform
    # inside it on both datasets (a constant likelihood ratio within a bin). The selection values
    # are continuous, as the audit's are, so the selection chooses among as many distinct
    # thresholds as the audit does and its winner's curse is the audit's. (Bin indices as values
    # made it choose among at most MAX_BINS + 1 thresholds, which over-stated the power: 0.992
    # simulated against 0.970 [0.957, 0.980] measured for the radial Laplace x0.8.)
    edges = np.arange(bins_d.size + 1, dtype=float)
    cdf_d_at = np.concatenate([[0.0], np.minimum(np.cumsum(bins_d), 1.0)])
    cdf_n_at = np.concatenate([[0.0], np.minimum(np.cumsum(bins_n), 1.0)])
    ranks = candidate_ranks(2 * n_sel)  # the pooled values are distinct almost surely
    rng = np.random.default_rng(seed)
    p_sel, q_sel = np.empty(simulations), np.empty(simulations)
    for i in range(simulations):
        threshold, le_d, le_n = _selection_counts(rng, n_sel, bins_d, bins_n, ranks)
        j, side, direction, _ = choose(le_d, le_n, n_sel, m, delta=delta, alpha=alpha, memo=True)
        at = threshold(j)
        le_d, le_n = float(np.interp(at, edges, cdf_d_at)), float(np.interp(at, edges, cdf_n_at))
        prob_d, prob_n = (1.0 - le_d, 1.0 - le_n) if side == ">" else (le_d, le_n)
        p_sel[i], q_sel[i] = (prob_d, prob_n) if direction == "dataset" else (prob_n, prob_d)
    power = np.atleast_1d(stats.point_power(p_sel, q_sel, m, epsilon=epsilon, delta=delta, alpha=alpha))
    spread = float(power.std(ddof=1)) / math.sqrt(simulations) if simulations > 1 else 0.0
    return float(np.mean(power)), spread


@functools.lru_cache(maxsize=64)
def _runs_cached(sf_d: bytes, sf_n: bytes, epsilon, delta, alpha, power, selection_fraction, start):
    d, n = np.frombuffer(sf_d), np.frombuffer(sf_n)

    def _achieved(n_runs, simulations):
        # the simulation's own error counted against the power: its one-sided 95% lower limit
        mean, spread = simulated_power(d, n, runs=n_runs, epsilon=epsilon, delta=delta, alpha=alpha,
                                       selection_fraction=selection_fraction, simulations=simulations)
        return mean - SIMULATION_Z * spread

    # Bracket cheaply (a third of the repetitions), then decide with all of them.
    low, high = None, int(start)
    while True:
        while _achieved(high, SIMULATIONS // 3) < power:
            low, high = high, int(math.ceil(high * 1.3))
            if high > 10**10:
                raise ParameterError("no run count up to 1e10 reaches the power in simulation")
        if _achieved(high, SIMULATIONS) >= power:
            break
        low, high = high, int(math.ceil(high * 1.15))
    if low is None:
        return high
    while high > 1.03 * low:
        mid = int(math.ceil(math.sqrt(low * high)))
        if _achieved(mid, SIMULATIONS) >= power:
            high = mid
        else:
            low = mid
    return high


def runs_for_thresholds(sf_d, sf_n, *, epsilon, delta=0.0, alpha, power=0.9,
                        selection_fraction=stats.SELECTION_FRACTION) -> int:
    """Runs per dataset for the point-mode audit of a threshold family to refute the claim with
    ``power``, the selection simulated (:func:`simulated_power`).

    ``sf_d`` and ``sf_n`` are the survival functions of the statistic on the two datasets at
    increasing thresholds; every threshold, side and direction is a candidate, as in the audit.
    The search starts at the selection-free requirement
    (:func:`audits.stats.runs_for_point` with the events of the family) and stops within 3% of
    the smallest run count whose simulated power reaches ``power``. Results are cached per
    arguments (the suite asks the same question for an audit and its planted twin).
    """
    epsilon = validate.epsilon(epsilon)
    delta = validate.delta(delta, allow_zero=True)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    power = validate.interval("power", power, 0.0, 1.0, closed="neither")
    selection_fraction = validate.interval("selection_fraction", selection_fraction, 0.01, 0.9,
                                           closed="both")
    d, n = _family(sf_d, sf_n)
    p = np.concatenate([d, 1.0 - d, n, 1.0 - n])
    q = np.concatenate([n, 1.0 - n, d, 1.0 - d])
    start = stats.runs_for_point(p, q, epsilon=epsilon, delta=delta, alpha=alpha, power=power,
                                 selection_fraction=selection_fraction)
    return _runs_cached(np.ascontiguousarray(d).tobytes(), np.ascontiguousarray(n).tobytes(),
                        epsilon, delta, alpha, power, selection_fraction, start)
