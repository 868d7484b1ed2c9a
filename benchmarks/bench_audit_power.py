"""Tightness, power and coverage of the privacy audit harness (issue "Audit harness", item 6).

Run from the repository root::

    python benchmarks/bench_audit_power.py [--seed S] [--reps R] [--jobs J] [--quick]

Every audit uses the replace-one pair of ``audits/suite/primitives/test_primitives.py``: five scalar records,
the first ``+1/2`` replaced by ``-1/2``, so the released sum moves by the full replace-one
sensitivity 1 (``data_norm = 1/2``) and the mechanisms' exact profiles are attained.

Sections (each prints one plain-text table):

1. *Tightness*: ``epsilon_lower / epsilon`` of correctly calibrated mechanisms at their own
   claims, at 1e5 and 1e6 runs per dataset, ``alpha = 0.05``: Laplace (eps = 0.1 and 1; point
   mode and profile mode against ``LaplaceMechanism.profile()``) and the analytic Gaussian
   (eps = 1, delta = 1e-5; point mode and profile mode against ``GaussianMechanism.profile()``).
   Mean, median and 10% quantile over seeded repetitions, and the fraction flagged.
2. *Power*: detection rate (fraction of repetitions with ``violated``) of the Gaussian with its
   noise scaled by ``factor`` (:func:`audits.twins.primitives.gaussian_scaled_noise`), claim
   (1, 1e-5), at 2e5 runs per dataset, point mode and profile mode, with Clopper-Pearson 95%
   intervals; plus the run count :func:`audits.stats.runs_for_gaussian` predicts for power 0.9
   at factor 0.9 in profile mode, and the power measured at that count.
3. *Coverage*: how often a correct mechanism is flagged at its true epsilon (must be at most
   ``alpha``), with Clopper-Pearson 95% intervals.

Statistics: the Laplace audits pass the released value itself as the statistic
(:func:`released_value`). The default log-likelihood-ratio statistic would audit the floating-
point mechanism, whose low-order bits are not private (Mironov 2012); threshold events on the
value measure the idealised mechanism. The Gaussian audits use the harness's default statistic
(the log-likelihood ratio from ``logpdf``), which is a strictly monotone function of the value.

Profiles are wrapped in a memoising cache (:func:`functools.lru_cache`) so that the harness's
8001-point epsilon grid is evaluated once per process instead of once per audit; the values
passed to the harness are identical.

Seeds: audit ``rep`` of configuration ``config`` in section ``section`` uses the seed
``SeedSequence([master, section, config, rep]).generate_state(1)[0]``
(:func:`audit_seed`), so results do not depend on ``--jobs`` or on the order of execution.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run without installing

import numpy as np  # noqa: E402

from audits import audit_privacy, replace_one, stats  # noqa: E402
from audits.twins import primitives as planted  # noqa: E402
from reference import mechanisms as mech  # noqa: E402

#: Default master seed (printed; pass ``--seed`` to change it).
DEFAULT_SEED = 20240611
ALPHA = 0.05
R = 0.5  # record norm bound: replace-one sensitivity of the sum is 2R = 1
GAUSS_EPSILON, GAUSS_DELTA = 1.0, 1e-5
LAPLACE_EPSILONS = (0.1, 1.0)
FACTORS = (0.5, 0.7, 0.8, 0.9, 0.95)
#: Issue acceptance: smallest epsilon_lower/epsilon at 1e6 runs, and the smallest power.
ACCEPT_LAPLACE = 0.95
ACCEPT_GAUSS = 0.70
ACCEPT_POWER = 0.9

SECTION_TIGHTNESS, SECTION_POWER, SECTION_COVERAGE = 1, 2, 3


# --------------------------------------------------------------------------------------------
# Mechanisms, pair, statistic


def released_value(outputs):
    """Statistic for the Laplace audits: the released scalar value itself.

    Parameters
    ----------
    outputs : ndarray, shape (runs, 1)
        Outputs of the mechanism.

    Returns
    -------
    ndarray, shape (runs,)
    """
    return np.asarray(outputs)[:, 0]


def value_pair():
    """The replace-one pair: five records of norm at most 1/2, ``+1/2`` replaced by ``-1/2``.

    Returns
    -------
    audits.pairs.NeighbouringPair
    """
    data = np.zeros((5, 1))
    data[0, 0] = R
    return replace_one(data, 0, np.array([-R]))


@functools.lru_cache(maxsize=None)
def gaussian(factor: float = 1.0):
    """The analytic Gaussian for (1, 1e-5), its noise scaled by ``factor`` (1: correct).

    Parameters
    ----------
    factor : float
        Noise scale relative to the calibrated sigma.

    Returns
    -------
    reference.mechanisms.GaussianMechanism
    """
    correct = mech.GaussianMechanism.calibrated(epsilon=GAUSS_EPSILON, delta=GAUSS_DELTA, data_norm=R)
    if factor == 1.0:
        return correct
    return planted.gaussian_scaled_noise(correct, factor=factor)


@functools.lru_cache(maxsize=None)
def laplace(epsilon: float):
    """The calibrated Laplace mechanism for ``epsilon`` (sensitivity 1).

    Parameters
    ----------
    epsilon : float

    Returns
    -------
    reference.mechanisms.LaplaceMechanism
    """
    return mech.LaplaceMechanism.calibrated(epsilon=epsilon, data_norm=R)


@functools.lru_cache(maxsize=None)
def cached_profile(kind: str, epsilon: float):
    """Memoised exact profile ``delta(eps)`` of the correct mechanism (same values, cached).

    Parameters
    ----------
    kind : {"gaussian", "laplace"}
    epsilon : float
        Laplace: the calibration epsilon (ignored for the Gaussian).

    Returns
    -------
    callable
    """
    base = gaussian(1.0).profile() if kind == "gaussian" else laplace(epsilon).profile()
    return functools.lru_cache(maxsize=None)(base)


@dataclass(frozen=True)
class Config:
    """One audit configuration.

    Attributes
    ----------
    kind : {"gaussian", "laplace"}
    epsilon, delta : float
        The claim (of the correct mechanism).
    mode : {"point", "profile"}
    runs : int
        Runs per dataset.
    factor : float
        Gaussian noise factor (1: correct).
    """

    kind: str
    epsilon: float
    delta: float
    mode: str
    runs: int
    factor: float = 1.0

    def label(self) -> str:
        """Short row label."""
        if self.kind == "laplace":
            return f"Laplace eps={self.epsilon:g}, {self.mode}"
        return f"Gaussian ({self.epsilon:g}, {self.delta:g}), {self.mode}"


def audit_seed(master: int, section: int, config: int, rep: int) -> int:
    """Seed of one audit, derived from the master seed.

    Parameters
    ----------
    master, section, config, rep : int

    Returns
    -------
    int
        ``SeedSequence([master, section, config, rep]).generate_state(1)[0]``.
    """
    return int(np.random.SeedSequence([master, section, config, rep]).generate_state(1)[0])


def run_one(task):
    """Run one audit.

    Parameters
    ----------
    task : tuple
        ``(config, seed)``.

    Returns
    -------
    tuple
        ``(epsilon_lower, violated)``.
    """
    cfg, seed = task
    kw = dict(epsilon=cfg.epsilon, delta=cfg.delta, runs=cfg.runs, alpha=ALPHA, seed=seed)
    if cfg.kind == "laplace":
        mechanism = laplace(cfg.epsilon)
        kw["statistic"] = released_value
    else:
        mechanism = gaussian(cfg.factor)
    if cfg.mode == "profile":
        kw["profile"] = cached_profile(cfg.kind, cfg.epsilon)
    result = audit_privacy(mechanism, value_pair(), **kw)
    return float(result.epsilon_lower), bool(result.violated)


def run_all(tasks, jobs: int):
    """Run audits, in a process pool when ``jobs > 1``; results in task order."""
    if jobs <= 1:
        return [run_one(t) for t in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(run_one, tasks, chunksize=max(1, len(tasks) // (8 * jobs))))


def run_configs(configs, section: int, master: int, reps, jobs: int):
    """Run ``reps(cfg)`` seeded repetitions of every config; returns one result list per config."""
    tasks, index = [], []
    for c, cfg in enumerate(configs):
        for rep in range(reps(cfg)):
            tasks.append((cfg, audit_seed(master, section, c, rep)))
            index.append(c)
    results = run_all(tasks, jobs)
    return [[r for r, i in zip(results, index) if i == c] for c in range(len(configs))]


# --------------------------------------------------------------------------------------------
# Output


def table(title: str, header, rows) -> str:
    """Plain-text table with a title line and left-aligned columns."""
    cells = [list(map(str, header))] + [list(map(str, r)) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    fmt = "  ".join("{:<%d}" % w for w in widths)
    lines = [title, fmt.format(*cells[0]), fmt.format(*["-" * w for w in widths])]
    lines += [fmt.format(*r) for r in cells[1:]]
    return "\n".join(lines)


def rate_cells(k: int, n: int):
    """``(k/n, "[lo, hi]")`` with the two-sided Clopper-Pearson 95% interval."""
    lo, hi = stats.clopper_pearson(k, n, 0.05)
    return f"{k / n:.3f}", f"[{lo:.3f}, {hi:.3f}]"


# --------------------------------------------------------------------------------------------
# Sections


def tightness(master, runs_list, reps_list, jobs, out):
    """Section 1; returns ``{(label, runs): (mean ratio, median ratio)}``."""
    configs = []
    for runs in runs_list:
        for eps in LAPLACE_EPSILONS:
            for mode in ("point", "profile"):
                configs.append(Config("laplace", eps, 0.0, mode, runs))
        for mode in ("point", "profile"):
            configs.append(Config("gaussian", GAUSS_EPSILON, GAUSS_DELTA, mode, runs))
    reps_of = dict(zip(runs_list, reps_list))
    grouped = run_configs(configs, SECTION_TIGHTNESS, master, lambda cfg: reps_of[cfg.runs], jobs)
    rows, means = [], {}
    for c, cfg in enumerate(configs):
        lows = np.array([r[0] for r in grouped[c]])
        flagged = sum(r[1] for r in grouped[c])
        ratio = lows / cfg.epsilon
        means[(cfg.label(), cfg.runs)] = (float(ratio.mean()), float(np.median(ratio)))
        rows.append((cfg.label(), f"{cfg.runs:.0e}", lows.size, f"{ratio.mean():.3f}",
                     f"{np.median(ratio):.3f}", f"{np.quantile(ratio, 0.1):.3f}",
                     f"{ratio.min():.3f}", f"{ratio.max():.3f}", f"{flagged}/{lows.size}"))
    out(table(f"TABLE 1. Tightness: epsilon_lower / epsilon of correct mechanisms at their claims "
              f"(alpha = {ALPHA})",
              ["mechanism, mode", "runs", "reps", "mean", "median", "q10", "min", "max", "flagged"],
              rows))
    return means


def power(master, runs, reps, jobs, out):
    """Section 2; returns ``{(mode, factor): (k, n)}`` and the predicted-run-count result."""
    g = gaussian(1.0)
    predicted = stats.runs_for_gaussian(sigma=g.sigma, sensitivity=g.sensitivity, factor=0.9,
                                        alpha=ALPHA, power=0.9, mode="profile")
    configs = [Config("gaussian", GAUSS_EPSILON, GAUSS_DELTA, mode, runs, f)
               for f in FACTORS for mode in ("point", "profile")]
    configs.append(Config("gaussian", GAUSS_EPSILON, GAUSS_DELTA, "profile", predicted, 0.9))
    grouped = run_configs(configs, SECTION_POWER, master, lambda cfg: reps, jobs)
    counts = {}
    for c, cfg in enumerate(configs):
        flags = [r[1] for r in grouped[c]]
        counts[(cfg.mode, cfg.factor, cfg.runs)] = (sum(flags), len(flags))
    rows = []
    for f in FACTORS:
        row = [f"{f:g}", f"{runs:.0e}", reps]
        for mode in ("point", "profile"):
            k, n = counts[(mode, f, runs)]
            row += rate_cells(k, n)
        rows.append(row)
    out(table(f"TABLE 2. Power: detection rate of the Gaussian (1, 1e-5) with noise factor x sigma "
              f"(alpha = {ALPHA}; 95% Clopper-Pearson intervals)",
              ["factor", "runs", "reps", "point rate", "point 95% CI", "profile rate",
               "profile 95% CI"], rows))
    k, n = counts[("profile", 0.9, predicted)]
    rate, ci = rate_cells(k, n)
    out("")
    out(f"runs_for_gaussian(sigma={g.sigma:.6g}, sensitivity={g.sensitivity:g}, factor=0.9, "
        f"alpha={ALPHA}, power=0.9, mode='profile') = {predicted}")
    out(f"profile mode, factor 0.9, at the predicted {predicted} runs: rate {rate} {ci} "
        f"({n} reps)")
    return counts, predicted


def coverage(master, runs, reps, jobs, out):
    """Section 3; returns ``{label: (k, n)}``."""
    configs = [
        Config("laplace", 1.0, 0.0, "point", runs),
        Config("laplace", 1.0, 0.0, "profile", runs),
        Config("gaussian", GAUSS_EPSILON, GAUSS_DELTA, "point", runs),
        Config("gaussian", GAUSS_EPSILON, GAUSS_DELTA, "profile", runs),
    ]
    grouped = run_configs(configs, SECTION_COVERAGE, master, lambda cfg: reps, jobs)
    rows, counts = [], {}
    for c, cfg in enumerate(configs):
        flags = [r[1] for r in grouped[c]]
        k, n = sum(flags), len(flags)
        counts[cfg.label()] = (k, n)
        what = ("epsilon_lower > true eps" if cfg.mode == "point"
                else "violated (profile or point)")
        rows.append((cfg.label(), what, f"{runs:.0e}", n, k, *rate_cells(k, n), ALPHA))
    out(table("TABLE 3. Coverage: correct mechanisms flagged at their true epsilon "
              "(must be <= alpha; 95% Clopper-Pearson intervals)",
              ["mechanism, mode", "event", "runs", "reps", "flagged", "rate", "95% CI", "alpha"],
              rows))
    return counts


# --------------------------------------------------------------------------------------------


def main(argv=None, out=print) -> int:
    """Run the benchmark and print the tables.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default ``sys.argv[1:]``).
    out : callable
        Receives each line of output (default :func:`print`).

    Returns
    -------
    int
        0.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="master seed")
    parser.add_argument("--reps", type=int, default=None,
                        help="repetitions of each tightness configuration at the largest run "
                             "count (default 50; 10 with --quick); 4x that at the smaller one")
    parser.add_argument("--power-reps", type=int, default=None,
                        help="repetitions per power cell (default 200; 5 with --quick)")
    parser.add_argument("--coverage-reps", type=int, default=None,
                        help="repetitions per coverage row (default 500; 10 with --quick)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (1: run in this process)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny run (small run counts and few repetitions), < 60 s")
    args = parser.parse_args(argv)

    if args.quick:
        runs_list, power_runs, coverage_runs = (2_000, 10_000), 10_000, 2_000
        reps = args.reps if args.reps is not None else 3
        power_reps = args.power_reps if args.power_reps is not None else 5
        coverage_reps = args.coverage_reps if args.coverage_reps is not None else 10
    else:
        runs_list, power_runs, coverage_runs = (100_000, 1_000_000), 200_000, 100_000
        reps = args.reps if args.reps is not None else 50
        power_reps = args.power_reps if args.power_reps is not None else 200
        coverage_reps = args.coverage_reps if args.coverage_reps is not None else 500
    reps_list = (4 * reps, reps)

    start = time.perf_counter()
    out(f"master seed: {args.seed}")
    out(f"alpha: {ALPHA}; jobs: {args.jobs}; quick: {args.quick}")
    out(f"tightness: runs {list(runs_list)}, reps {list(reps_list)}; power: runs {power_runs}, "
        f"reps {power_reps}; coverage: runs {coverage_runs}, reps {coverage_reps}")
    out("")
    means = tightness(args.seed, runs_list, reps_list, args.jobs, out)
    out("")
    counts, predicted = power(args.seed, power_runs, power_reps, args.jobs, out)
    out("")
    coverage(args.seed, coverage_runs, coverage_reps, args.jobs, out)
    out("")

    big = runs_list[-1]
    lap = means[(Config("laplace", 1.0, 0.0, "point", big).label(), big)]
    gau = means[(Config("gaussian", GAUSS_EPSILON, GAUSS_DELTA, "point", big).label(), big)]
    k, n = counts[("profile", 0.9, power_runs)]
    lo, _ = stats.clopper_pearson(k, n, 0.05)
    note = " -- QUICK RUN, not the acceptance configuration" if args.quick else ""
    out(f"ACCEPTANCE (runs {big:.0e} per dataset, alpha {ALPHA}; mean and median over reps){note}")
    for label, (mean, median), bar in (
        ("Laplace eps=1 point mode", lap, ACCEPT_LAPLACE),
        ("Gaussian (1, 1e-5) point mode", gau, ACCEPT_GAUSS),
    ):
        out(f"  {label}: epsilon_lower/epsilon mean {mean:.3f}, median {median:.3f} >= {bar}: "
            f"mean {'HOLDS' if mean >= bar else 'FAILS'}, "
            f"median {'HOLDS' if median >= bar else 'FAILS'}")
    out(f"  Gaussian x0.9 profile mode at {power_runs} runs: power {k / n:.3f} (95% CI lower "
        f"{lo:.3f}) >= {ACCEPT_POWER}: {'HOLDS' if k / n >= ACCEPT_POWER else 'FAILS'}")
    out("")
    out(f"total wall time: {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
