"""Throughput and certified accuracy of the bst14 Section III-C grid-walk sampler.

Run from the repository root::

    python benchmarks/bench_gridwalk.py [--runs 200] [--seed 0] [--skip-rule-2d]

For a few small problems (linear loss, unit rows; C = [-1, 1] for p = 1, the unit disc for
p = 2) it prints:

* the grid size N and the walk length K the rule chooses (``bst14.thm_III_4`` formula
  ``sampler_steps``, data independent);
* ``K_exact``: the smallest K whose exact multiplicative distance of ``P^K`` to ``pi`` (dense
  transition matrix of this data set's chain) is within the same ``xi`` -- how conservative the
  rule is (ratio ``K / K_exact``);
* the certified Dist_inf of one try (``2 xi(K) + 2 eta``) and of an accepted sample
  (twice that) at the rule's K, next to the budget ``epsilon/3``;
* samples/second of the whole sampler (walk, rejection, retries) at the rule's K, and at
  ``K_exact`` (a data-dependent K: shown for comparison only, it is not what the sampler uses).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run without installing

import numpy as np  # noqa: E402

from reference import domains, losses  # noqa: E402
from reference.bst14 import grid_walk as gw  # noqa: E402
from spec.errors import PrivacyLeakWarning  # noqa: E402

PROBLEMS = (
    # (p, n, epsilon)
    (1, 3, 0.5),
    (1, 10, 1.0),
    (2, 2, 0.5),
    (2, 4, 1.0),
)


def _data(p: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, p))
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def _rate(prepared, runs: int, seed: int) -> float:
    start = time.perf_counter()
    prepared.sample(runs=runs, rng=seed)
    return runs / (time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-rule-2d", action="store_true",
                        help="do not time p = 2 at the rule's K (millions of steps per sample)")
    args = parser.parse_args(argv)
    loss = losses.Linear(data_norm=1.0)
    header = (f"{'p':>2} {'n':>3} {'eps':>4} {'N':>4} {'K rule':>10} {'K exact':>8} {'ratio':>9} "
              f"{'DistInf try':>11} {'DistInf acc':>11} {'budget':>7} {'samp/s rule':>11} {'samp/s exact':>12}")
    print(header)
    for p, n, eps in PROBLEMS:
        domain = domains.Box(lower=[-1.0], upper=[1.0]) if p == 1 else domains.L2Ball(radius=1.0, dim=2)
        data = _data(p, n, args.seed)
        prepared = gw.GridWalkSampler().prepare(loss=loss, data=data, domain=domain, epsilon=eps)
        k = prepared.constants
        lw = prepared.log_weight_grid()
        k_exact = gw.required_steps(gw.transition_matrix(lw), gw.stationary_law(lw), k.mixing_dist)
        cert = prepared.certify()
        if p == 2 and args.skip_rule_2d:
            rate_rule = float("nan")
        else:
            rate_rule = _rate(prepared, max(1, args.runs // (10 if p == 2 else 1)), args.seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            fast = gw.GridWalkSampler(steps=k_exact).prepare(loss=loss, data=data, domain=domain, epsilon=eps)
        rate_exact = _rate(fast, args.runs, args.seed)
        print(f"{p:>2} {n:>3} {eps:>4} {k.grid_size:>4} {k.steps:>10} {k_exact:>8} {k.steps / k_exact:>9.0f} "
              f"{cert['dist_inf_cube']:>11.4g} {cert['dist_inf_accepted']:>11.4g} {k.dist_inf:>7.4g} "
              f"{rate_rule:>11.3g} {rate_exact:>12.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
