"""Speed of the point-mode design simulation and of the point bound's inversion, with and without
their shortcuts (same results: the script checks them equal).

Run from the repository root::

    python benchmarks/bench_design.py [--simulations N]

1. :func:`audits.design.simulated_power` of the Gaussian x0.5 threshold family at the claim
   (1, 1e-5) (the design of ``tests/audits/test_privacy.py``'s planted point-mode audit), at
   2e4 and 2e5 runs, with the event choice's ``projected_point_bound(..., best_only=True)``
   (what :func:`audits.selection.choose` uses) against ``best_only=False`` (every candidate
   bisected).
2. :func:`audits.stats.poisson_point_bound` (the inversion stops at the first block of grid
   points with a non-rejection) against the whole 64001-point grid, on 400 seeded counts of the
   boundary event of ``tests/audits/test_stats.py``'s false-alarm simulation (the whole grid:
   one block of all its points).

Figures are wall times within one run (the machine may be shared): compare the ratios.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import special

from audits import design, stats


def bench_design(simulations: int) -> None:
    sigma = 3.7306  # the analytic Gaussian's sigma at (1, 1e-5), sensitivity 1
    x = np.linspace(-6.0, 12.0, 3601)
    sf_d, sf_n = special.ndtr(1.0 / (0.5 * sigma) - x), special.ndtr(-x)
    original = stats.projected_point_bound
    print(f"design simulation ({simulations} repetitions), Gaussian x0.5, claim (1, 1e-5), alpha 0.05")
    print(f"{'runs':>8} {'all bisected s':>15} {'best only s':>12} {'ratio':>6}  same power")
    try:
        for runs in (20_000, 200_000):
            figures = []
            for best_only in (False, True):
                stats.projected_point_bound = (
                    lambda *a, best_only=False, _keep=best_only, **k: original(*a, best_only=_keep, **k))
                start = time.perf_counter()
                power = design.simulated_power(sf_d, sf_n, runs=runs, epsilon=1.0, delta=1e-5, alpha=0.05,
                                               simulations=simulations)
                figures.append((time.perf_counter() - start, power))
            (slow, p_slow), (fast, p_fast) = figures
            print(f"{runs:>8} {slow:>15.2f} {fast:>12.2f} {slow / fast:>6.1f}  {p_slow == p_fast}")
    finally:
        stats.projected_point_bound = original


def bench_inversion(reps: int = 400) -> None:
    eps, delta, q, m, alpha = 1.0, 0.01, 0.02, 2000, 0.05
    p = math.exp(eps) * q + delta
    rng = np.random.default_rng(2024)
    cases = []
    for _ in range(reps):
        arrivals = stats.poisson_arrivals(m, delta, rng=rng)
        cases.append((int(rng.poisson(m * p)), int(rng.poisson(m * q)), arrivals))
    times, values = [], []
    block = stats._GRID_BLOCK
    try:
        for stats._GRID_BLOCK in (int(round(stats.EPSILON_MAX / stats.EPSILON_STEP)) + 1, block):
            start = time.perf_counter()  # one block: the whole grid at once
            values.append([stats.poisson_point_bound(kp, kq, m, delta=delta, alpha=alpha, arrivals=a)
                           for kp, kq, a in cases])
            times.append(time.perf_counter() - start)
    finally:
        stats._GRID_BLOCK = block
    print(f"\npoint bound inversion, {reps} boundary events (m {m}, claim ({eps}, {delta}))")
    print(f"whole grid {times[0]:.2f} s, blocks {times[1]:.2f} s, ratio {times[0] / times[1]:.1f}, "
          f"same bounds {values[0] == values[1]}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--simulations", type=int, default=60, help="design repetitions (default 60)")
    args = parser.parse_args(argv)
    bench_design(args.simulations)
    bench_inversion()


if __name__ == "__main__":
    main()
