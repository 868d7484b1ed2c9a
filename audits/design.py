"""Run counts for a target power in point mode, with the event selection simulated.

Point mode (:func:`audits.privacy.audit_privacy`) chooses its event on the selection runs and
tests it on the other runs. The test's power at a *fixed* event is exact
(:func:`audits.stats.point_power`), but the event the selection finds is random: with a scalar
statistic the power as a function of the threshold is peaked (for Laplace noise x0.8 at the
smoke tier's alpha it falls from 0.98 at the best threshold to 0.86 a third of a scale away),
and the selection runs locate the peak only roughly. Sizing the runs for the best event alone
therefore over-states the power: the planted Laplace audit designed that way for power 0.99
was measured at 0.926 (issue 13).

:func:`selection_power` simulates the whole point-mode audit on a *threshold family*: a
scalar statistic ``T`` given by its survival functions ``P_D[T > t_k]`` and ``P_D'[T > t_k]``
at increasing thresholds. The law of ``T`` is discretised on those thresholds (at most
:data:`MAX_BINS` bins, denser in both tails), selection outputs are drawn from it, the
harness's own selection (:func:`audits.selection.select_event`: the same candidates, shrinkage
and projected bound) picks the event, and the exact power of the test at that event and the test
sample size is averaged over :data:`SIMULATIONS` seeded repetitions. :func:`runs_for_thresholds`
searches the smallest run count whose simulated power reaches the target (the selection-free
requirement is the starting point; runs grow by 30% until a third of the repetitions reach the
target and all of them confirm it, then the bracket is bisected to 3%).

The simulation is a design calculation: the discretisation and the finite repetitions make it
approximate, and the benchmark ``benchmarks/bench_audit_power.py`` (section "planted") measures
the power of every planted point-mode audit of the suite at the run count this gives.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from audits import stats
from audits.selection import select_event
from spec import validate
from spec.errors import ParameterError

__all__ = ["MAX_BINS", "SIMULATIONS", "selection_power", "runs_for_thresholds"]

#: Largest number of thresholds the law of ``T`` is discretised on.
MAX_BINS = 192
#: Repetitions of the simulated selection per run count.
SIMULATIONS = 300


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


def selection_power(sf_d, sf_n, *, runs, epsilon, delta=0.0, alpha,
                    selection_fraction=stats.SELECTION_FRACTION, simulations=SIMULATIONS, seed=0):
    """Mean power of the point-mode audit of a threshold family, the selection simulated.

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
    float
        The average over the repetitions of the exact power (:func:`audits.stats.point_power`)
        at the selected event.
    """
    runs = validate.integer("runs", runs, minimum=2)
    simulations = validate.integer("simulations", simulations, minimum=1)
    sf_d, sf_n = _family(sf_d, sf_n)
    bins_d, bins_n = _bins(sf_d), _bins(sf_n)
    bins_d, bins_n = bins_d / bins_d.sum(), bins_n / bins_n.sum()
    cdf_d, cdf_n = np.cumsum(bins_d), np.cumsum(bins_n)
    n_sel = int(math.ceil(selection_fraction * runs - 1e-9))
    m = runs - n_sel
    if n_sel < 1 or m < 1:
        raise ParameterError(f"runs ({runs}) leaves no selection or test runs at selection_fraction "
                             f"({selection_fraction})")
    rng = np.random.default_rng(seed)
    cache: dict = {}
    total = 0.0
    for _ in range(simulations):
        t_sd = rng.choice(bins_d.size, size=n_sel, p=bins_d).astype(float)
        t_sn = rng.choice(bins_n.size, size=n_sel, p=bins_n).astype(float)
        (threshold, side, direction), _ = select_event(t_sd, t_sn, m, delta=delta, alpha=alpha)
        key = (threshold, side, direction)
        if key not in cache:
            j = int(threshold)
            le_d, le_n = float(min(cdf_d[j], 1.0)), float(min(cdf_n[j], 1.0))
            prob_d, prob_n = (1.0 - le_d, 1.0 - le_n) if side == ">" else (le_d, le_n)
            p, q = (prob_d, prob_n) if direction == "dataset" else (prob_n, prob_d)
            cache[key] = stats.point_power(p, q, m, epsilon=epsilon, delta=delta, alpha=alpha)
        total += cache[key]
    return total / simulations


@functools.lru_cache(maxsize=64)
def _runs_cached(sf_d: bytes, sf_n: bytes, epsilon, delta, alpha, power, selection_fraction, start):
    d, n = np.frombuffer(sf_d), np.frombuffer(sf_n)

    def _achieved(n_runs, simulations):
        return selection_power(d, n, runs=n_runs, epsilon=epsilon, delta=delta, alpha=alpha,
                               selection_fraction=selection_fraction, simulations=simulations)

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
    ``power``, the selection simulated (:func:`selection_power`).

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
