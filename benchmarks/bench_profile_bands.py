"""Profile mode with the weighted band against the DKW band: power and tightness, paired (issue 13, item 6).

Run from the repository root::

    python benchmarks/bench_profile_bands.py [--reps R] [--seed S] [--jobs J] [--quick]

Every repetition runs :func:`audits.audit_privacy` in profile mode twice with the *same* seed, so
on the same outputs, once with ``band="dkw"`` (DKW-Massart bands at level ``alpha/2``) and once
with ``band="weighted"`` (DKW at ``0.9 alpha/2`` intersected with order-statistic bounds at
``0.1 alpha/2``; :func:`audits.stats.cdf_band`). ``alpha`` is the primitives' per-audit share of the
suite, 1.5625e-4. The pair is the primitives' value pair: five scalar records of norm 1/2, the
first ``+1/2`` replaced by ``-1/2`` (sum sensitivity 1).

Configurations:

* ``gauss x0.9``: the Gaussian mechanism calibrated to (1, 1e-5) with its noise scaled, audited against the correct mechanism's profile (the planted bug of the suite):
  detection rate (violated) with a Clopper-Pearson 95% interval.
* ``gauss as pure 1-DP``: a Gaussian of sigma 1 claimed as pure 1-DP (the Laplace profile): its
  privacy loss is unbounded, a violation that lives in the tails.
* ``gauss correct``, ``laplace correct``: the correct mechanisms at their own profiles:
  ``epsilon_lower / epsilon`` (mean), and the false alarms (must be none).

Statistic: the log-likelihood ratio for the Gaussians (``logpdf``), the released value for
Laplace (the real-valued idealisation; see docs/audit-evidence.md on the float leak).
Seeds: ``SeedSequence([master, config, rep])``.
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

from audits import audit_privacy, budget, replace_one, stats  # noqa: E402
from audits.twins import primitives as planted  # noqa: E402
from reference import mechanisms as mech  # noqa: E402
from spec import profiles as spec_profiles  # noqa: E402

MASTER_SEED = 20261126
R = 0.5


def pair():
    data = np.zeros((5, 1))
    data[0, 0] = R
    return replace_one(data, 0, np.array([-R]))


def released_value(y):
    return np.asarray(y)[:, 0]


GAUSS = mech.GaussianMechanism.calibrated(epsilon=1.0, delta=1e-5, data_norm=R)
LAP = mech.LaplaceMechanism.calibrated(epsilon=1.0, data_norm=R)
WIDE = mech.GaussianMechanism(sigma=1.0, data_norm=R)

#: name -> (mechanism, claim kwargs, runs, kind); kind "power" counts detections, "tight" ratios
CONFIGS = {
    "gauss x0.9": (planted.gaussian_scaled_noise(GAUSS, factor=0.9), dict(epsilon=1.0, delta=1e-5), 100_000,
                   "power"),
    "gauss as pure 1-DP": (WIDE, dict(epsilon=1.0, delta=0.0), 1_500, "power"),
    "gauss correct": (GAUSS, dict(epsilon=1.0, delta=1e-5), 100_000, "tight"),
    "laplace correct": (LAP, dict(epsilon=1.0, delta=0.0), 100_000, "tight"),
}


def _profile(name):
    if name == "gauss as pure 1-DP" or name == "laplace correct":
        return spec_profiles.pure_dp_profile(1.0)
    return GAUSS.profile()


def run_one(task):
    name, index, rep, master, alpha = task
    mechanism, claim, runs, kind = CONFIGS[name]
    seed = int(np.random.SeedSequence([master, index, rep]).generate_state(1)[0])
    statistic = released_value if name == "laplace correct" else None
    out = {}
    for band in stats.BANDS:
        r = audit_privacy(mechanism, pair(), runs=runs, alpha=alpha, seed=seed, profile=_profile(name),
                          statistic=statistic, band=band, **claim)
        out[band] = (bool(r.violated), float(r.epsilon_lower) / claim["epsilon"])
    return name, out


def main(argv=None, out=print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=MASTER_SEED)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--quick", action="store_true", help="3 repetitions (smoke test of the script)")
    args = parser.parse_args(argv)
    reps = 3 if args.quick else args.reps
    alpha = budget.share_named("primitives").alpha_per_slot
    out(f"master seed: {args.seed}; reps: {reps}; alpha: {alpha:g}; jobs: {args.jobs}")
    tasks = [(name, i, rep, args.seed, alpha) for i, name in enumerate(CONFIGS) for rep in range(reps)]
    start = time.time()
    if args.jobs == 1:
        rows = [run_one(t) for t in tasks]
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(run_one, tasks, chunksize=max(1, reps // 4)))
    out(f"{'configuration':<20} {'runs':>7}  {'band':<9} {'violated':>9}  {'95% CP':<15} "
        f"{'eps_lower/eps mean':>18} {'q10':>6}")
    for name, (_, _, runs, kind) in CONFIGS.items():
        mine = [r[1] for r in rows if r[0] == name]
        for band in stats.BANDS:
            hits = sum(m[band][0] for m in mine)
            lo, hi = stats.clopper_pearson(hits, len(mine), 0.05)
            ratio = np.array([m[band][1] for m in mine])
            out(f"{name:<20} {runs:>7}  {band:<9} {hits:>4}/{len(mine):<4}  [{lo:.3f}, {hi:.3f}]  "
                f"{ratio.mean():>18.3f} {np.quantile(ratio, 0.1):>6.3f}")
    out(f"wall time: {time.time() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
