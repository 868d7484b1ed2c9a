"""False-alarm rate of the acceptance bands (audits.utility.audit_band), measured end to end (issue 21, item 4).

Run from the repository root::

    python benchmarks/bench_band_alarms.py [--reps R] [--alpha A] [--runs N ...] [--jobs J] [--quick]

A band ``[low, high]`` on a rate's slope is refuted when the slope's interval misses it. When the
true slope lies in the band, a refutation is a false alarm, which :func:`audits.utility.audit_band`
allows with probability at most ``alpha``. This benchmark measures that probability where it is
largest, with the true slope *at the band's edge*, for three bands around the true slope -1:

* ``point``: ``half_width = 0`` (the band ``[-1, -1]``): both ends of the interval can miss it;
* ``low edge``: ``[-1, -0.8]`` (only the interval's upper end can miss it, below -1);
* ``high edge``: ``[-1.2, -1]`` (only the lower end can miss it, above -1).

Every repetition runs the real :func:`audits.utility.audit_rate` (3 grid points ``n = 1, 2, 4``,
``runs`` values per point, 1000 bootstrap resamples) on ``measure(params, runs, rng) = W / n``,
``W`` of mean 1 from a law below (so the true slope of the means is exactly -1), then
:func:`audits.utility.audit_band` on the result for each band. Laws: ``normal`` (mean 1, sd
0.5), ``chi2_1`` (chi-square with 1 degree of freedom: the excess risk of one Gaussian
coordinate), ``lognormal_1`` (sigma 1, heavier skew). Each cell: the share of repetitions that
refuted the band, with its 95% Clopper-Pearson interval; the claim holds in a cell when the
interval's upper end is at most ``alpha``. Repetition ``i`` of (law, runs) uses the seed
``SeedSequence([master, law, runs, i])``, so the table does not depend on ``--jobs``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run without installing

import numpy as np  # noqa: E402

from audits import stats  # noqa: E402
from audits.utility import audit_band, audit_rate  # noqa: E402

MASTER_SEED = 20261128
LAWS = ("normal", "chi2_1", "lognormal_1")
BANDS = {"point": (-1.0, -1.0), "low edge": (-1.0, -0.8), "high edge": (-1.2, -1.0)}


def draw(law: str, rng, size):
    """Values of mean 1."""
    if law == "normal":
        return 1.0 + 0.5 * rng.standard_normal(size)
    if law == "chi2_1":
        return rng.chisquare(1, size=size)
    return rng.lognormal(-0.5, 1.0, size=size)


def _measure(law):
    def measure(params, runs, rng):
        return draw(law, rng, runs) / params["n"]

    return measure


def _band(result, band, alpha):
    low, high = band
    targets = {"n": -1.0} if low == high else {"n": (low, high)}
    return not audit_band(result, targets, alpha=alpha).passed


def chunk(law: str, runs: int, first: int, count: int, alpha: float, master: int) -> np.ndarray:
    """Refutations per band over repetitions ``first .. first + count - 1``."""
    refuted = np.zeros(len(BANDS), dtype=np.int64)
    li = LAWS.index(law)
    for i in range(first, first + count):
        seed = int(np.random.SeedSequence([master, li, runs, i]).generate_state(1)[0])
        result = audit_rate(_measure(law), grid={"n": [1, 2, 4]}, base={"n": 1}, runs=runs,
                            expected={"n": -1.0}, alpha=alpha, seed=seed)
        refuted += [_band(result, band, alpha) for band in BANDS.values()]
    return refuted


def main(argv=None, out=print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5000)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=MASTER_SEED)
    parser.add_argument("--runs", type=int, nargs="+", default=[60, 200, 1200])
    parser.add_argument("--laws", nargs="+", default=list(LAWS), choices=LAWS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--quick", action="store_true", help="a tiny run (smoke test of the script)")
    args = parser.parse_args(argv)
    reps = 40 if args.quick else args.reps
    runs_list = [60] if args.quick else args.runs
    out(f"master seed: {args.seed}; reps: {reps}; alpha: {args.alpha:g}; jobs: {args.jobs}; grid n = 1, 2, 4; "
        "true slope -1")
    out(f"{'law':<12} {'runs':>5}  " + "  ".join(f"{name + ': refuted, rate [95% CI]':<36}" for name in BANDS)
        + "  holds")
    start = time.time()
    pieces = max(1, min(args.jobs * 4, reps))
    bounds = np.linspace(0, reps, pieces + 1).astype(int)
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for law in args.laws:
            for runs in runs_list:
                futures = [pool.submit(chunk, law, runs, int(a), int(b - a), args.alpha, args.seed)
                           for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
                k = sum(f.result() for f in futures)
                cells, holds = [], True
                for kk in k:
                    lo, hi = stats.clopper_pearson(int(kk), reps, 0.05)
                    holds &= hi <= args.alpha
                    cells.append(f"{int(kk):>5} {kk / reps:.4f} [{lo:.4f}, {hi:.4f}]".ljust(36))
                out(f"{law:<12} {runs:>5}  " + "  ".join(cells) + f"  {'yes' if holds else 'NO'}")
    out(f"wall time: {time.time() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
