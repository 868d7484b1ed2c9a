"""Throughput of bst14 Algorithm 1 (``reference.bst14.noise_gd``): batched runs against a per-run loop.

Run from the repository root::

    python benchmarks/bench_bst14.py [--n 50] [--p 10] [--runs 256] [--loop-runs 256] [--seed 0]

Instance: logistic loss (feature norm 1) on the unit l2 ball in R^p, n rows with unit-norm
features and +-1 labels, printed calibration at (epsilon, delta) = (1, 1e-5), Lipschitz
schedule; T = n^2 - 1 steps per run. Prints runs/second of one batched call with ``runs=R``
and of ``R'`` sequential calls with ``runs=1`` (the same function), and their ratio, by wall clock
and by process CPU time (the latter is robust to a loaded machine; numpy may use more than one
thread, so CPU time can exceed wall time).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run without installing

import numpy as np  # noqa: E402

from reference.bst14 import noise_gd  # noqa: E402
from reference.domains import L2Ball  # noqa: E402
from reference.losses import Logistic  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--runs", type=int, default=256, help="R: runs of the batched call")
    ap.add_argument("--loop-runs", type=int, default=256, help="R': sequential runs=1 calls")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    gen = np.random.default_rng(args.seed)
    x = gen.standard_normal((args.n, args.p))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = gen.choice([-1.0, 1.0], size=(args.n, 1))
    data = np.hstack([x, y])
    kw = dict(loss=Logistic(feature_norm=1.0), domain=L2Ball(radius=1.0, dim=args.p), epsilon=1.0, delta=1e-5,
              schedule="lipschitz")

    t0, c0 = time.perf_counter(), time.process_time()
    noise_gd(data, runs=args.runs, rng=args.seed, **kw)
    batched, batched_cpu = time.perf_counter() - t0, time.process_time() - c0

    t0, c0 = time.perf_counter(), time.process_time()
    for r in range(args.loop_runs):
        noise_gd(data, runs=1, rng=args.seed + 1 + r, **kw)
    looped, looped_cpu = time.perf_counter() - t0, time.process_time() - c0

    steps = args.n**2 - 1
    b_rate, l_rate = args.runs / batched, args.loop_runs / looped
    print(f"bst14 Alg.1 noise_gd: n={args.n} p={args.p} T={steps} steps")
    print(f"batched  runs={args.runs:5d}: {batched:8.3f} s  {b_rate:10.1f} runs/s")
    print(f"loop     runs={args.loop_runs:5d} x 1: {looped:8.3f} s  {l_rate:10.1f} runs/s")
    print(f"ratio (batched / loop runs per second): {b_rate / l_rate:.1f}  (wall clock)")
    print(f"ratio by process CPU time: {(args.runs / batched_cpu) / (args.loop_runs / looped_cpu):.1f}  "
          f"(batched {batched_cpu:.3f} s, loop {looped_cpu:.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
