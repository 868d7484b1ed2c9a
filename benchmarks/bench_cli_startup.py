"""Start-up of ``dperm`` commands, as a ratio to importing numpy, scipy.stats and sympy.

Run from the repository root::

    python benchmarks/bench_cli_startup.py [--repeats 7] [--commands "spec" "run --list"]

The target (issue 19): any ``--help``, ``dperm spec``, ``dperm spec ID``, ``dperm run --list`` and
``dperm calibrate ...`` take at most 1.5 times as long as ``python -c "import numpy, scipy.stats,
sympy"`` in the same environment. Each round runs the baseline and then every command once, each
in a fresh interpreter (``python -m dperm ...``, the same main as the installed script), so slow
phases of a shared machine hit both; the ratio of a command is the median over rounds of its
time divided by that round's baseline. Printed per command: the median wall time, the median
ratio and its range over the rounds, and ``ok`` or ``SLOW`` against 1.5; then the machine's load
average before and after.

The commands answer from :mod:`spec.cache` (listings, derivations) once it is warm: one untimed
run of every command fills it first, and its time is printed as the cold start. Set
``DPERM_CACHE_DIR`` to measure with a fresh cache directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The verbs of the target, and a few for comparison.
COMMANDS = (
    "--help",
    "--version",
    "spec --help",
    "spec",
    "spec gaussian.analytic",
    "spec bst14.thm_II_1",
    "spec wang19.alg_3",
    "spec wang17.thm_4_1",
    "calibrate --help",
    "calibrate --list",
    "calibrate gaussian --epsilon 1 --delta 1e-5 --sensitivity 1",
    "calibrate bst14.thm_II_1 --n 100 --epsilon 1 --delta 1e-5",
    "calibrate wang19.thm_1 --calibration rdp --lipschitz 1 --n 1000 --epsilon 1 --delta 1e-5 --steps 100",
    "epsilon --help",
    "epsilon gaussian --sigma 2 --sensitivity 1 --delta 1e-5",
    "calibrate zhang17.alg_1 --n 569 --dimension 30 --loss Logistic feature_norm=1 --regulariser L2Regulariser "
    "strength=0.5 --epsilon 1 --delta 1e-5",
    "calibrate wang19.alg_1 --n 569 --dimension 30 --loss Logistic feature_norm=1 --domain L2Ball radius=1 dim=30 "
    "--epsilon 1 --delta 1e-5",
    "run --help",
    "run --list",
    "run bst14.alg_1 --help",
    "run zhang17.alg_1 --help",
    "vectors --help",
    "audit --help",
)
BASELINE = ("-c", "import numpy, scipy.stats, sympy")
LIMIT = 1.5


def _time(argv) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *argv], cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    return time.perf_counter() - start


def _load() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--commands", nargs="*", default=None, metavar="ARGS",
                        help="only these commands, each as one quoted string (default: the built-in list)")
    args = parser.parse_args(argv)
    commands = [tuple(c.split()) for c in (args.commands or COMMANDS)]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average {_load()} (before); "
          f"{args.repeats} rounds")
    cold = {c: _time(["-m", "dperm", *c]) for c in commands}  # fills spec.cache; not part of the ratios
    base, times = [], {c: [] for c in commands}
    for _ in range(args.repeats):
        base.append(_time(BASELINE))
        for c in commands:
            times[c].append(_time(["-m", "dperm", *c]))
    print(f"baseline: import numpy, scipy.stats, sympy  median {statistics.median(base):.3f} s")
    print(f"{'command':<58} {'cold s':>7} {'median s':>9} {'ratio':>6} {'range':>13}")
    worst = 0.0
    for c in commands:
        ratios = [t / b for t, b in zip(times[c], base)]
        ratio = statistics.median(ratios)
        worst = max(worst, ratio)
        name = "dperm " + " ".join(c)
        name = name if len(name) <= 58 else name[:55] + "..."
        print(f"{name:<58} {cold[c]:>7.2f} {statistics.median(times[c]):>9.3f} {ratio:>6.2f} "
              f"{min(ratios):>6.2f}-{max(ratios):<6.2f} {'ok' if ratio <= LIMIT else 'SLOW'}")
    print(f"largest ratio {worst:.2f} (target <= {LIMIT}); load average {_load()} (after)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
