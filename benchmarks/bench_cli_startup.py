"""Wall time of ``dperm`` commands that should answer at once (``--help``, ``--version``), and of
a few that load the registry, for comparison.

Run from the repository root::

    python benchmarks/bench_cli_startup.py [--repeats 7]

Each command runs ``--repeats`` times in a fresh interpreter (``python -m dperm ...``, the same
main as the installed ``dperm`` script); prints the minimum and the median wall time and the
machine's load average (the machine may be shared). ``dperm --help`` builds no verb's options,
so it imports neither the spec registry (sympy) nor numpy; a verb's ``--help`` builds only that
verb's.
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

COMMANDS = (
    ("--help",),
    ("--version",),
    ("vectors", "--help"),
    ("calibrate", "--help"),
    ("run", "--list"),
)


def time_command(argv, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "dperm", *argv], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs per command (default 7)")
    parser.add_argument("--commands", nargs="*", default=None, metavar="ARGS",
                        help="only these commands, each as one quoted string (default: the built-in list)")
    args = parser.parse_args(argv)
    commands = [tuple(c.split()) for c in args.commands] if args.commands else COMMANDS
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}; {args.repeats} runs each")
    print(f"{'command':<28} {'min s':>8} {'median s':>9}")
    for command in commands:
        times = time_command(command, args.repeats)
        print(f"{'dperm ' + ' '.join(command):<28} {min(times):>8.3f} {statistics.median(times):>9.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
