"""Measured power of every planted audit at its configured run count (issue 13, item 6).

Run from the repository root::

    python benchmarks/bench_planted_power.py [--reps R] [--seed S] [--jobs J] [--only SUBSTRING]

Every test marked ``planted`` in ``audits/suite/primitives/test_primitives.py`` is run ``R``
times exactly as the suite runs it at the smoke tier (same pair, claim, statistic, run count,
alpha = the primitives' per-audit share 0.01/64 = 1.5625e-4, design power
``DESIGN_POWER = 0.99`` of the module), each repetition with its own seed
``SeedSequence([master, test index, rep]).generate_state(1)[0]`` in place of the plugin's.
A repetition *detects* when the test passes (its assertion that the bug is flagged holds).

Output: one row per planted test: mode (point or profile, from the result), runs per dataset,
detections / repetitions, the two-sided 95% Clopper-Pearson interval of the power, the design
power, and whether the interval's upper end reaches the design power (``ok``: the measurement
does not contradict it) and whether the point estimate is at least the design power.
This is also what a miss costs under ``--audit-seed random``: each planted test misses with
probability one minus its power.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run without installing

import numpy as np  # noqa: E402

from audits import budget, stats  # noqa: E402
from audits.plugin import TIERS, AuditContext  # noqa: E402

SUITE = ROOT / "audits" / "suite" / "primitives" / "test_primitives.py"
MASTER_SEED = 20261125



def load_suite():
    spec = importlib.util.spec_from_file_location("bench_planted_suite", SUITE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def planted_tests(module):
    """Names of the planted tests, in file order."""
    out = []
    for name, fn in vars(module).items():
        marks = getattr(fn, "pytestmark", [])
        if callable(fn) and name.startswith("test_") and any(m.name == "planted" for m in marks):
            out.append(name)
    return out


_RUNS_CACHE: dict = {}


def _key(value):
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.tobytes())
    if isinstance(value, dict):
        return tuple(sorted((k, _key(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_key(v) for v in value)
    return value


class CachedContext(AuditContext):
    """The plugin's context; run counts (which depend on the design, not on the seed) are
    computed once per process and reused by the repetitions."""


def _cached(method):
    def wrapper(self, *args, **kw):
        key = (method.__name__, _key(args), _key(kw), self.alpha, self.factor, self.power)
        if key not in _RUNS_CACHE:
            _RUNS_CACHE[key] = method(self, *args, **kw)
        return _RUNS_CACHE[key]
    return wrapper


for _name in ("runs_for_gaussian", "runs_for_laplace", "runs_for_point", "runs_for_profile"):
    setattr(CachedContext, _name, _cached(getattr(AuditContext, _name)))


def context(name: str, seed: int) -> AuditContext:
    alpha = budget.share_named("primitives").alpha_per_slot
    return CachedContext(nodeid=f"{SUITE.name}::{name}", tier="smoke", seed=seed, alpha=alpha,
                        factor=TIERS["smoke"], power=0.9, family_alpha=0.01)


def run_one(task):
    index, name, rep, master = task
    module = load_suite() if not hasattr(run_one, "module") else run_one.module
    run_one.module = module
    seed = int(np.random.SeedSequence([master, index, rep]).generate_state(1)[0])
    ctx = context(name, seed)  # records each result's dict, as the plugin's recorder does
    try:
        getattr(module, name)(ctx)
        hit = True
    except AssertionError:
        hit = False
    result = ctx._sink[-1]
    return name, hit, result["mode"], result["runs"]


def main(argv=None, out=print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=MASTER_SEED)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default="", help="run only tests whose name contains one of these "
                                                   "comma-separated substrings")
    parser.add_argument("--skip", default="classic_gaussian",
                        help="skip tests whose name contains this (default: the 2.4e6-run classic Gaussian, "
                             "about 5 minutes per repetition)")
    args = parser.parse_args(argv)
    module = load_suite()
    wanted = [w for w in args.only.split(",") if w] or [""]
    names = [n for n in planted_tests(module)
             if any(w in n for w in wanted) and not (args.skip and args.skip in n)]
    design = module.DESIGN_POWER
    out(f"master seed: {args.seed}; reps: {args.reps}; jobs: {args.jobs}; alpha per audit: "
        f"{budget.share_named('primitives').alpha_per_slot:g}; tier: smoke (factor {TIERS['smoke']}); "
        f"design power: {design}")
    tasks = [(i, n, rep, args.seed) for i, n in enumerate(names) for rep in range(args.reps)]
    start = time.time()
    if args.jobs == 1:
        rows = [run_one(t) for t in tasks]
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            # one test's repetitions per worker chunk: its run count is computed once there
            rows = list(pool.map(run_one, tasks, chunksize=max(1, args.reps // 2)))
    header = ("planted test", "mode", "runs", "detected", "power 95% CP", "design", "ok", "est>=design")
    lines = []
    for n in names:
        mine = [r for r in rows if r[0] == n]
        k, total = sum(r[1] for r in mine), len(mine)
        lo, hi = stats.clopper_pearson(k, total, 0.05)
        lines.append((n.removeprefix("test_planted_").removeprefix("test_"), mine[0][2], str(mine[0][3]),
                      f"{k}/{total}", f"[{lo:.3f}, {hi:.3f}]", f"{design}", "yes" if hi >= design else "NO",
                      "yes" if k / total >= design else "no"))
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    out("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    out("  ".join("-" * w for w in widths))
    for line in lines:
        out("  ".join(c.ljust(w) for c, w in zip(line, widths)))
    out(f"wall time: {time.time() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
