"""How often does the slope interval of the rate audits miss, at the suite's small levels? (issues 13 and 21)

Run from the repository root::

    python benchmarks/bench_rate_tails.py [--reps-60 R] [--reps-200 R] [--reps-1200 R] [--seed S] [--quick]

At the small levels of the suite's audits (a per-side level of 1e-6 to 1e-5), the interval of a
log-log slope in :func:`audits.utility.audit_rate` and :func:`audits.utility.audit_band` is
``slope -+ t sd``. This benchmark measures, by direct simulation, the probability that the
interval misses the true slope on one side (the event that makes an upper-rate audit, a
lower-rate audit or a band fail falsely), against its nominal level, for two intervals:

* ``own``: the interval before issue 21, ``sd`` the slope's standard deviation from each point's
  own spread, ``t`` Student's ``t_{runs-1}`` quantile at the per-side level;
* ``pooled``: the interval of :func:`audits.utility._interval`, ``sd`` with the largest spread of
  any point's log-mean in place of each point's own, ``t`` at the level divided by
  :data:`audits.utility.SKEW_MARGIN`.

Model: three grid points ``x = 1, 2, 4`` with true means ``x^-1``; ``runs`` values per point of
``mean * W``, ``W`` of mean 1 from a law below. Per replication: the least-squares slope of the
log sample means; each point's spread of its log-mean is its relative variance over ``runs`` (the
delta method, what the bootstrap estimates), times ``chi2_{B-1}/(B-1)`` for the resampling noise
of ``B = 1000`` resamples, independently per point. Both sides are pooled: the slope's law is
symmetric about the truth here (swapping the points x = 1 and x = 4, which have the same law of
``W``, negates the error and keeps the spreads), so each side misses with the same probability
and the table gives ``misses / (2 reps)`` against the per-side level, with Clopper-Pearson 95%
intervals on that ratio.

Laws: ``normal`` (mean 1, sd 0.5), ``chi2_1`` (chi-square with 1 degree of freedom: the excess
risk of one Gaussian coordinate, skewness 2.8), ``chi2_4``, ``lognormal_1`` (sigma 1, skewness
6.2). Seeds: ``SeedSequence([master, law, runs])``; the two intervals see the same draws.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run without installing

import numpy as np  # noqa: E402
from scipy import special  # noqa: E402

from audits import stats  # noqa: E402
from audits.utility import SKEW_MARGIN  # noqa: E402

MASTER_SEED = 20261126
LEVELS = (1e-3, 1e-4, 1e-5, 1e-6)
LAWS = ("normal", "chi2_1", "chi2_4", "lognormal_1")
METHODS = ("own", "pooled")
BOOTSTRAP = 1000


def draw(law: str, rng, shape):
    """Values of mean 1 (chi-square and lognormal from normal draws: the fastest generator)."""
    z = rng.standard_normal(shape)
    if law == "normal":
        return 1.0 + 0.5 * z
    if law == "chi2_1":
        return z * z
    if law == "chi2_4":
        return (z * z + rng.standard_normal(shape) ** 2 + rng.standard_normal(shape) ** 2
                + rng.standard_normal(shape) ** 2) / 4.0
    return np.exp(z - 0.5)


def miss_counts(law: str, runs: int, reps: int, seed: int, chunk_values=2e7) -> dict:
    """``{method: misses per level}`` over ``reps`` replications, both sides counted."""
    rng = np.random.default_rng(seed)
    log_x = np.log([1.0, 2.0, 4.0])
    c = (log_x - log_x.mean()) / float(((log_x - log_x.mean()) ** 2).sum())
    quantiles = {"own": np.array([special.stdtrit(runs - 1, 1 - lv) for lv in LEVELS]),
                 "pooled": np.array([special.stdtrit(runs - 1, 1 - lv / SKEW_MARGIN) for lv in LEVELS])}
    misses = {m: np.zeros(len(LEVELS), dtype=np.int64) for m in METHODS}
    per_chunk = max(1, int(chunk_values // (3 * runs)))
    done = 0
    while done < reps:
        n = min(per_chunk, reps - done)
        w = draw(law, rng, (n, 3, runs))
        mean, var = w.mean(axis=2), w.var(axis=2, ddof=1)  # the factor x^-1 cancels in the error
        error = np.log(mean) @ c  # slope - true slope
        spread = var / (runs * mean * mean) * rng.chisquare(BOOTSTRAP - 1, size=(n, 3)) / (BOOTSTRAP - 1)
        sd = {"own": np.sqrt(spread @ (c * c)), "pooled": np.sqrt(spread.max(axis=1) * float(c @ c))}
        for m in METHODS:
            half = quantiles[m][None, :] * sd[m][:, None]
            misses[m] += (np.abs(error)[:, None] > half).sum(axis=0)
        done += n
    return misses


def main(argv=None, out=print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps-60", type=float, default=1e7)
    parser.add_argument("--reps-200", type=float, default=3e6)
    parser.add_argument("--reps-1200", type=float, default=5e5)
    parser.add_argument("--seed", type=int, default=MASTER_SEED)
    parser.add_argument("--laws", nargs="+", default=list(LAWS), choices=LAWS)
    parser.add_argument("--quick", action="store_true", help="a tiny run (smoke test of the script)")
    args = parser.parse_args(argv)
    plan = {60: int(args.reps_60), 200: int(args.reps_200), 1200: int(args.reps_1200)}
    if args.quick:
        plan = {60: 2000}
    out(f"master seed: {args.seed}; reps per runs: {plan}; bootstrap noise of B = {BOOTSTRAP}; skew margin "
        f"{SKEW_MARGIN:g}; per-side levels {LEVELS}")
    out(f"{'interval':<8} {'law':<12} {'runs':>5}  "
        + "  ".join(f"{f'{lv:g}: misses, rate/level [95% CI]':<34}" for lv in LEVELS))
    start = time.time()
    for i, law in enumerate(args.laws):
        for runs, reps in plan.items():
            seed = int(np.random.SeedSequence([args.seed, LAWS.index(law), runs]).generate_state(1)[0])
            counts = miss_counts(law, runs, reps, seed)
            for m in METHODS:
                cells = []
                for level, k in zip(LEVELS, counts[m]):
                    lo, hi = stats.clopper_pearson(int(k), 2 * reps, 0.05)
                    cells.append(f"{int(k):>7} {k / (2 * reps) / level:5.2f} [{lo / level:5.2f}, {hi / level:5.2f}]"
                                 .ljust(34))
                out(f"{m:<8} {law:<12} {runs:>5}  " + "  ".join(cells))
            sys.stdout.flush()
    out(f"wall time: {time.time() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
