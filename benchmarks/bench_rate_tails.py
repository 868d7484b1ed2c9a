"""How often does the normal slope interval of the rate audits miss, at small levels? (issue 13, item 6)

Run from the repository root::

    python benchmarks/bench_rate_tails.py [--reps R] [--seed S] [--quick]

At the small levels of the suite's audits (a per-side level of 1e-6 to 1e-4), the interval of a
log-log slope in :func:`audits.utility.audit_rate` and :func:`audits.utility.audit_band` is
``slope -+ z sd``, ``sd`` the bootstrap standard deviation of the slope: a normal approximation.
Its tails are only as good as the normality of the slope of log means, which for skewed per-run
values (excess risks are chi-square-like) converges slowly. This benchmark measures, by direct
simulation, the probability that the interval's lower end lies above the true slope (the event
that makes an upper-rate audit or a band fail falsely), against its nominal level.

Model: three grid points ``x = 1, 2, 4`` with true means ``x^-1``; ``runs`` per point of
``mean * W``, ``W`` of mean 1 from a law below. Per replication: the least-squares slope of the
log sample means, and its standard deviation by the delta method from the sample variances (what
the bootstrap estimates), multiplied by ``sqrt(chi2_{B-1} / (B-1))`` for the resampling noise of
``B = 1000`` bootstrap resamples. One-sided miss rates at nominal levels 1e-2, 1e-3, 1e-4, with
Clopper-Pearson 95% intervals, and the ratio to nominal; for ``z`` the normal quantile and
Student's t quantile with ``runs - 1`` degrees of freedom (what the audits use). The same seeds
for both quantiles: the two rows of a law see the same draws.

Laws: chi-square with k degrees of freedom over k (k = 1, 4, 16: the risk of Gaussian output
noise in dimension k), and the lognormal with sigma = 1 (heavier skew). Seeds:
``SeedSequence([master, law, runs])``.
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

MASTER_SEED = 20261126
LEVELS = (1e-2, 1e-3, 1e-4)
LAWS = ("chi2_1", "chi2_4", "chi2_16", "lognormal_1")
BOOTSTRAP = 1000


def draw(law: str, rng, shape):
    """Values of mean 1."""
    if law.startswith("chi2_"):
        k = int(law.split("_")[1])
        return rng.chisquare(k, size=shape) / k
    sigma = float(law.split("_")[1])
    return rng.lognormal(-sigma * sigma / 2, sigma, size=shape)


def miss_counts(law: str, runs: int, reps: int, seed: int, quantile="t", chunk_values=2e7):
    """Counts of ``slope - z sd > true slope`` at each level, over ``reps`` replications; ``z`` the
    normal quantile (``quantile="normal"``) or Student's t with ``runs - 1`` degrees of freedom."""
    rng = np.random.default_rng(seed)
    log_x = np.log([1.0, 2.0, 4.0])
    c = (log_x - log_x.mean()) / float(((log_x - log_x.mean()) ** 2).sum())
    if quantile == "normal":
        z = np.array([special.ndtri(1 - level) for level in LEVELS])
    else:
        z = np.array([special.stdtrit(runs - 1, 1 - level) for level in LEVELS])
    misses = np.zeros(len(LEVELS), dtype=np.int64)
    per_chunk = max(1, int(chunk_values // (3 * runs)))
    done = 0
    while done < reps:
        n = min(per_chunk, reps - done)
        w = draw(law, rng, (n, 3, runs))
        mean, var = w.mean(axis=2), w.var(axis=2, ddof=1)  # the common factor x^-1 cancels in the ratio
        slope = np.log(mean * np.exp(-log_x)) @ c  # true slope -1
        sd = np.sqrt(((c * c) * var / (runs * mean * mean)).sum(axis=1))
        sd *= np.sqrt(rng.chisquare(BOOTSTRAP - 1, size=n) / (BOOTSTRAP - 1))
        misses += ((slope[:, None] - z[None, :] * sd[:, None]) > -1.0).sum(axis=0)
        done += n
    return misses


def main(argv=None, out=print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=MASTER_SEED)
    parser.add_argument("--runs", type=int, nargs="+", default=[60, 200, 1200])
    parser.add_argument("--quantile", choices=("t", "normal"), nargs="+", default=["normal", "t"])
    parser.add_argument("--quick", action="store_true", help="a tiny run (smoke test of the script)")
    args = parser.parse_args(argv)
    reps = 2000 if args.quick else args.reps
    runs_list = [60] if args.quick else args.runs
    out(f"master seed: {args.seed}; reps: {reps}; bootstrap noise of B = {BOOTSTRAP}; one-sided levels {LEVELS}")
    header = f"{'quantile':<8} {'law':<12} {'runs':>5}  " + "  ".join(f"{f'level {lv:g}: misses, rate/level [95% CI]':<44}" for lv in LEVELS)
    out(header)
    start = time.time()
    for quantile in args.quantile:
        for i, law in enumerate(LAWS):
            for runs in runs_list:
                seed = int(np.random.SeedSequence([args.seed, i, runs]).generate_state(1)[0])
                k = miss_counts(law, runs, reps, seed, quantile=quantile)
                cells = []
                for level, kk in zip(LEVELS, k):
                    lo, hi = stats.clopper_pearson(int(kk), reps, 0.05)
                    cells.append(f"{int(kk):>6} {kk / reps / level:6.2f} [{lo / level:5.2f}, {hi / level:5.2f}]".ljust(44))
                out(f"{quantile:<8} {law:<12} {runs:>5}  " + "  ".join(cells))
    out(f"wall time: {time.time() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
