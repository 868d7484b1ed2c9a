"""Audits on an executor: throughput, per-chunk overhead, driver memory and 1e8-run bounds (issue 22, item 6).

Run from the repository root (the Dask parts need the ``distributed`` extra)::

    python benchmarks/bench_execution.py throughput [--runs N] [--quick]
    python benchmarks/bench_execution.py memory [--sizes 1e6,1e7,1e8] [--executor dask:local:2]
    python benchmarks/bench_execution.py bounds [--runs 1e8] [--executor dask:local:2]

Every part prints its figures and the machine's load average (the machine may be shared: compare
figures within one run).

* ``throughput``: runs per second of one point-mode audit (scalar Laplace, the released value as
  statistic) and of a costlier mechanism (bst14's noisy gradient descent, Algorithm 2 style: T
  steps of a batched gradient on n records), on: this process (serial), ``processes:1``,
  ``processes:2``, ``dask:local:1``, ``dask:local:2``. Each executor runs one warm-up audit first
  (its workers import the modules once), then the timed one; the result is checked to be the
  serial one. Per-chunk overhead: the wall time per chunk of ``Job.map`` over chunks that do
  nothing, with the audit's shipped objects.
* ``memory``: each size runs in a fresh process (``ru_maxrss`` is a process's peak): the driver's
  peak resident memory for a point audit of the scalar Laplace with that many runs per dataset,
  and the same process's resident memory after its imports, its wall time and ``epsilon_lower``;
  ``--kind laplace_profile`` does the same for profile mode (the exact Laplace profile).
* ``bounds``: ``epsilon_lower / epsilon`` in point mode at ``--runs`` runs per dataset, one seed
  each, for Laplace(eps = 1) (released value) and the Gaussian (1, 1e-5) (log-likelihood ratio),
  next to the means at 1e6 runs of docs/audit-evidence.md (0.988 and 0.773, 50 seeds each).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run without installing

import numpy as np  # noqa: E402

from audits import audit_privacy, execution, replace_one  # noqa: E402
from reference import mechanisms as mech  # noqa: E402

R = 0.5
SEED = 20261128
LAPLACE = mech.LaplaceMechanism.calibrated(epsilon=1.0, data_norm=R)
GAUSS = mech.GaussianMechanism.calibrated(epsilon=1.0, delta=1e-5, data_norm=R)
LAPLACE_PROFILE = functools.lru_cache(maxsize=None)(LAPLACE.profile())
#: docs/audit-evidence.md, table 1: mean epsilon_lower / epsilon at 1e6 runs (50 seeds).
AT_1E6 = {"laplace": 0.988, "gaussian": 0.773}


def pair(dim=1):
    """Five records of norm at most R, the first (R, 0, ...) replaced by its negative: the sum
    moves by the replace-one sensitivity 2R = 1."""
    data = np.zeros((5, dim))
    data[0, 0] = R
    return replace_one(data, 0, -data[0])


def released_value(y):
    return np.asarray(y)[:, 0]


def noisy_gd(data, runs, rng, steps=50, sigma=1.0):
    """A costlier batched mechanism: ``steps`` noisy gradient steps of the mean-squared loss on
    the records (p = 3), from 0, each with fresh Gaussian noise (a stand-in for the papers'
    iterative algorithms; its privacy is not the point here)."""
    x = np.zeros((runs, data.shape[1]))
    for _ in range(steps):
        grad = x - data.mean(axis=0)
        x = x - 0.1 * (grad + sigma * rng.standard_normal(x.shape))
    return x


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:  # pragma: no cover
        return "n/a"


def audit(kind: str, runs: int, executor=None, seed: int = SEED):
    if kind == "laplace":
        return audit_privacy(LAPLACE, pair(), epsilon=1.0, runs=runs, seed=seed, statistic=released_value,
                             executor=executor)
    if kind == "gaussian":
        return audit_privacy(GAUSS, pair(), epsilon=1.0, delta=1e-5, runs=runs, seed=seed, executor=executor)
    if kind == "laplace_profile":  # profile mode against the exact profile (lru_cache: evaluated once)
        return audit_privacy(LAPLACE, pair(), epsilon=1.0, runs=runs, seed=seed, statistic=released_value,
                             profile=LAPLACE_PROFILE, executor=executor)
    if kind == "noisy_gd":
        return audit_privacy(noisy_gd, pair(3), epsilon=1.0, delta=1e-5, runs=runs, seed=seed, low_bits=False,
                             executor=executor)
    raise ValueError(kind)


def _noop(payload, chunk):
    return chunk.size


def per_chunk_overhead(ex: execution.Execution, chunks: int) -> float:
    """Seconds per chunk of ``Job.map`` over chunks that do nothing (shipped objects included)."""
    tasks = execution.split(chunks * 256, 256, seed=1, stream=0)
    with ex.job(runs=chunks * 256, label="overhead") as job:
        shared = (job.share((LAPLACE, pair().dataset), "payload"),)
        job.map(_noop, shared, tasks[:2])  # warm: the payload reaches the workers
        start = time.perf_counter()
        job.map(_noop, shared, tasks)
        return (time.perf_counter() - start) / chunks


def throughput(args) -> None:
    specs = ["serial", "processes:1", "processes:2"]
    if execution.distributed_available():
        specs += ["dask:local:1", "dask:local:2"]
    else:
        print(f"distributed is not installed ({execution.INSTALL_HINT}): Dask rows skipped")
    sizes = {"laplace": args.runs, "noisy_gd": max(args.runs // 40, 2000)}
    reference = {kind: audit(kind, runs) for kind, runs in sizes.items()}
    print(f"load average before: {load()}")
    print(f"{'executor':<14} {'mechanism':<10} {'runs/dataset':>12} {'chunks':>6} {'wall s':>8} "
          f"{'runs/s':>12} {'per-chunk overhead ms':>22}  same result")
    for spec in specs:
        with execution.open_executor(spec, progress=False) as ex:
            for kind, runs in sizes.items():
                audit(kind, min(runs, 20_000), executor=ex, seed=SEED + 1)  # warm-up: imports on the workers
                start = time.perf_counter()
                r = audit(kind, runs, executor=ex)
                wall = time.perf_counter() - start
                overhead = per_chunk_overhead(ex, 20 if args.quick else 200)
                print(f"{spec:<14} {kind:<10} {runs:>12} {r.counts['chunks']:>6} {wall:>8.2f} "
                      f"{2 * runs / wall:>12.0f} {1e3 * overhead:>22.2f}  {r == reference[kind]}")
    print(f"load average after: {load()}")


def _memory_child(args) -> None:
    """One audit in this fresh process: prints a JSON line with its peak memory."""
    after_imports = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    # Memory after imports, including the Dask client's: open the executor first.
    with execution.open_executor(args.executor, progress=_progress) as ex:
        ready = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        start = time.perf_counter()
        r = audit(args.kind, args.runs, executor=ex)
        wall = time.perf_counter() - start
    print(json.dumps({"runs": args.runs, "kind": args.kind, "executor": args.executor, "wall": wall,
                      "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                      "after_imports": after_imports, "executor_ready": ready, "epsilon_lower": r.epsilon_lower,
                      "epsilon": r.epsilon, "chunks": r.counts["chunks"], "chunk_runs": r.counts["chunk_runs"],
                      "summary": str(r)}))


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _child(kind: str, runs: int, spec: str) -> dict:
    cmd = [sys.executable, __file__, "_child", "--kind", kind, "--runs", str(runs), "--executor", spec]
    out = subprocess.run(cmd, capture_output=False, stdout=subprocess.PIPE, text=True, check=True,
                         env=dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
    return json.loads(out.stdout.strip().splitlines()[-1])


def _runs(text: str) -> int:
    return int(float(text))


def memory(args) -> None:
    mode = "profile" if args.kind == "laplace_profile" else "point"
    print(f"driver memory of a {mode} audit of the scalar Laplace ({args.executor}); load average {load()}")
    print(f"{'runs/dataset':>12} {'chunks':>6} {'chunk runs':>10} {'wall s':>8} {'after imports MiB':>18} "
          f"{'executor ready MiB':>18} {'peak MiB':>9} {'eps_lower':>9}")
    for runs in (_runs(x) for x in args.sizes.split(",")):
        d = _child(args.kind, runs, args.executor)
        print(f"{runs:>12.0e} {d['chunks']:>6} {d['chunk_runs']:>10} {d['wall']:>8.1f} "
              f"{d['after_imports'] / 2**20:>18.0f} {d['executor_ready'] / 2**20:>18.0f} {d['peak'] / 2**20:>9.0f} "
              f"{d['epsilon_lower']:>9.4f}   (load average {load()})")


def bounds(args) -> None:
    print(f"point mode at {args.runs:.0e} runs per dataset ({args.executor}, seed {SEED}); load average {load()}")
    print(f"{'mechanism':<22} {'eps_lower/eps':>13} {'at 1e6 (mean of 50)':>20} {'wall s':>8} {'peak MiB':>9}")
    labels = {"laplace": "Laplace eps=1", "gaussian": "Gaussian (1, 1e-5)"}
    for kind in args.kinds.split(","):
        label = labels[kind]
        d = _child(kind, args.runs, args.executor)
        print(f"{label:<22} {d['epsilon_lower'] / d['epsilon']:>13.4f} {AT_1E6[kind]:>20.3f} {d['wall']:>8.1f} "
              f"{d['peak'] / 2**20:>9.0f}   (load average {load()})")
        print(f"    {d['summary']}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="part", required=True)
    t = sub.add_parser("throughput")
    t.add_argument("--runs", type=_runs, default=4_000_000)
    t.add_argument("--quick", action="store_true", help="small runs, for a smoke test")
    m = sub.add_parser("memory")
    m.add_argument("--sizes", default="1e6,1e7,1e8")
    m.add_argument("--executor", default="dask:local:2")
    m.add_argument("--kind", default="laplace", choices=["laplace", "laplace_profile"])
    b = sub.add_parser("bounds")
    b.add_argument("--runs", type=_runs, default=10**8)
    b.add_argument("--executor", default="dask:local:2")
    b.add_argument("--kinds", default="laplace,gaussian", help="laplace, gaussian or both (comma-separated)")
    c = sub.add_parser("_child")
    c.add_argument("--kind", required=True)
    c.add_argument("--runs", type=_runs, required=True)
    c.add_argument("--executor", required=True)
    args = parser.parse_args(argv)
    if args.part == "throughput" and args.quick:
        args.runs = min(args.runs, 200_000)
    {"throughput": throughput, "memory": memory, "bounds": bounds, "_child": _memory_child}[args.part](args)


if __name__ == "__main__":
    main()
