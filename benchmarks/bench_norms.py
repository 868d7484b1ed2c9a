"""Row maximum inside ``reference.arrays.l2_norm``: column by column against numpy's reduction.

Run from the repository root::

    python benchmarks/bench_norms.py [--repeat 7]

For each shape (the batched loops' ``(runs, p)`` and the one-run instances' long rows) prints the
time of ``abs(x).max(axis=-1)``, of the column-by-column maximum, and of what
``reference.arrays._row_max`` does (it takes the column branch for at least 256 rows of 2 to 8
entries), with the ratio reduction / chosen. Times are the second best of ``--repeat`` rounds, so
a loaded machine shows in the figures less than in a single round.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run without installing

import numpy as np  # noqa: E402

from reference import arrays  # noqa: E402

SHAPES = [(1200, 8), (4000, 8), (12000, 8), (1200, 2), (256, 8), (64, 16), (1200, 16), (300, 33), (100, 50), (3, 72), (3, 1032)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="rounds per timing (at least 2: the second best is kept)")
    args = ap.parse_args(argv)
    if args.repeat < 2:
        ap.error(f"--repeat ({args.repeat}) must be >= 2 (the second best round is kept)")
    print(f"{'shape':>12} {'reduction us':>13} {'columns us':>11} {'_row_max us':>12} {'ratio':>6}")
    for shape in SHAPES:
        a = np.abs(np.random.default_rng(0).normal(size=shape))
        number = max(20, 200_000 // a.size)
        times = {}
        for name, fn in (("reduction", lambda: a.max(axis=-1, initial=0.0)), ("columns", lambda: arrays._column_max(a)),
                         ("chosen", lambda: arrays._row_max(a))):
            times[name] = sorted(timeit.repeat(fn, number=number, repeat=args.repeat))[1] / number * 1e6
        assert np.array_equal(arrays._row_max(a), a.max(axis=-1, initial=0.0))
        print(f"{str(shape):>12} {times['reduction']:13.1f} {times['columns']:11.1f} {times['chosen']:12.1f} "
              f"{times['reduction'] / times['chosen']:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
