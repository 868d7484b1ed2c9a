"""Wall time of the privacy accountants for 10^4 steps of the sampled Gaussian mechanism.

Run from the repository root::

    python benchmarks/bench_accounting.py [--repeats 5] [--steps 10000] [--sigma 1.1] [--rate 0.01]

Prints one row per method: the certified epsilon at delta and the median wall time of
``--repeats`` cold computations (the accountants' caches are cleared before each one).

* ``rdp poisson (MTZ19)``: Poisson sampling, add/remove-one, ``spec.rdp.DEFAULT_ORDERS``.
* ``rdp without-replacement (WBK19)``: uniform sampling without replacement, replace-one,
  Theorem 27, ``spec.rdp.DEFAULT_INTEGER_ORDERS``.
* ``rdp gaussian, no sampling``: the unsampled Gaussian curve, for reference.
* ``exact gaussian profile, no sampling``: ``spec.gaussian.exact_epsilon`` (tight, unsampled).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run without installing

from spec import rdp  # noqa: E402
from spec.gaussian import exact_epsilon  # noqa: E402


def _timed(fn, repeats: int):
    times, value = [], None
    for _ in range(repeats):
        rdp.clear_caches()
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return value, statistics.median(times)


def main(argv=None, out=print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--sigma", type=float, default=1.1, help="noise multiplier (sensitivity 1)")
    parser.add_argument("--rate", type=float, default=0.01, help="sampling rate")
    parser.add_argument("--delta", type=float, default=1e-5)
    args = parser.parse_args(argv)

    common = dict(sigma=args.sigma, sensitivity=1.0, delta=args.delta, steps=args.steps)
    rows = []
    for label, kw in [
        ("rdp poisson (MTZ19)", dict(sampling_rate=args.rate, sampling="poisson")),
        ("rdp without-replacement (WBK19)", dict(sampling_rate=args.rate, sampling="without-replacement")),
        ("rdp gaussian, no sampling", {}),
    ]:
        (eps, order), seconds = _timed(lambda kw=kw: rdp.epsilon_and_order(**common, **kw), args.repeats)
        rows.append((label, f"{eps:.6g}", f"{order}", f"{seconds:.3f}"))

    eps, seconds = _timed(
        lambda: exact_epsilon(args.delta, sigma=args.sigma, sensitivity=1.0, steps=args.steps), args.repeats)
    rows.append(("exact gaussian profile, no sampling", f"{eps:.6g}", "-", f"{seconds:.3f}"))

    out(f"steps={args.steps} sigma/sensitivity={args.sigma} sampling_rate={args.rate} delta={args.delta} "
        f"(median of {args.repeats} cold runs)")
    header = ("method", "epsilon", "order", "seconds")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(4)]
    for row in [header] + rows:
        out("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
