"""The profile scale of profile mode: how close a Gaussian claim came, and whether it bounds the truth (issue 21, item 3).

Run from the repository root::

    python benchmarks/bench_profile_scale.py [--reps R] [--runs N] [--seed S] [--jobs J] [--quick]

The claim is the Gaussian trade-off of the analytic sigma for (1, 1e-5) at sensitivity 1
(:class:`audits.tradeoffs.GaussianTradeoff`); the mechanism adds Gaussian noise of ``factor x
sigma`` to a count (float outputs; the low-bit test is off: this measures the values). For a
Gaussian claim the scaled claim ``B_c`` is the Gaussian claim of noise ``sigma / c``, so the
true scale is ``c_true = 1 / factor`` (:mod:`audits.profile_mode`). Per factor, over ``reps``
seeded audits at alpha = 0.05: the mean, 10% quantile and range of ``profile_scale``, how often
it exceeded ``c_true`` (a lower confidence bound does so with probability at most alpha), how
often the profile was refuted, and how often an approximate ``profile_runs_to_refute`` was given
(with its median). Seeds: ``SeedSequence([master, factor index, rep])``.
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

from audits import audit_privacy, replace_one, stats  # noqa: E402
from audits.tradeoffs import GaussianTradeoff  # noqa: E402
from spec import gaussian  # noqa: E402

MASTER_SEED = 20261128
FACTORS = (2.0, 1.05, 1.0, 0.95, 0.8)
SIGMA = gaussian.analytic_sigma(epsilon=1.0, delta=1e-5, sensitivity=1.0)
PAIR = replace_one(np.array([1.0, 1.0, 1.0, 0.0]), 0, 0.0)


def _mechanism(factor):
    def mechanism(data, runs, rng):
        return float(np.sum(data)) + factor * SIGMA * rng.standard_normal(runs)

    return mechanism


def run_one(task):
    """``(factor, rep, runs, master)`` -> ``(factor, scale, refuted, runs_to_refute)``."""
    factor, rep, runs, master = task
    seed = int(np.random.SeedSequence([master, FACTORS.index(factor), rep]).generate_state(1)[0])
    r = audit_privacy(_mechanism(factor), PAIR, epsilon=1.0, delta=1e-5, runs=runs, seed=seed,
                      profile=GaussianTradeoff(sigma=SIGMA, sensitivity=1.0), low_bits=False)
    return factor, r.profile_scale, bool(r.profile_violated), r.profile_runs_to_refute


def main(argv=None, out=print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--runs", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=MASTER_SEED)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--quick", action="store_true", help="a tiny run (smoke test of the script)")
    args = parser.parse_args(argv)
    reps = 2 if args.quick else args.reps
    runs = 2000 if args.quick else args.runs
    out(f"master seed: {args.seed}; reps: {reps}; runs/dataset: {runs}; alpha 0.05; claim: Gaussian sigma "
        f"{SIGMA:.5g}")
    out(f"{'factor':>6} {'c_true':>6}  {'mean':>6} {'q10':>6} {'min':>6} {'max':>6}  {'above c_true [95% CI]':<26} "
        f"{'refuted':>8}  runs to refute given (median)")
    start = time.time()
    tasks = [(f, rep, runs, args.seed) for f in FACTORS for rep in range(reps)]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(run_one, tasks, chunksize=4))
    for f in FACTORS:
        rows = [r for r in results if r[0] == f]
        scale = np.array([r[1] for r in rows])
        truth = 1.0 / f
        above = int(np.sum(scale > truth))
        lo, hi = stats.clopper_pearson(above, len(rows), 0.05)
        given = [r[3] for r in rows if r[3] is not None]
        median = f"{np.median(given):.3g}" if given else "-"
        out(f"{f:>6g} {truth:>6.3f}  {scale.mean():>6.3f} {np.quantile(scale, 0.1):>6.3f} {scale.min():>6.3f} "
            f"{scale.max():>6.3f}  {f'{above}/{len(rows)} [{lo:.3f}, {hi:.3f}]':<26} "
            f"{sum(r[2] for r in rows):>4}/{len(rows):<3}  {len(given)}/{len(rows)} ({median})")
    out(f"wall time: {time.time() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
