"""One-run audits: soundness at the boundary, the idealised curve, the cost per algorithm, and the
comparison with the multi-run audits at equal compute (issue 23).

Run from the repository root (each part alone; ``all`` runs the first five)::

    python benchmarks/bench_one_run.py soundness [--reps 2000] [--alpha 0.05] [--seed 23]
    python benchmarks/bench_one_run.py verdict [--reps 2000] [--alpha 0.05] [--seed 23]
    python benchmarks/bench_one_run.py curve [--reps 200] [--seed 23]
    python benchmarks/bench_one_run.py cost
    python benchmarks/bench_one_run.py compute [--alpha 0.05]
    python benchmarks/bench_one_run.py bst14 [--n 1000] [--alpha 1.5625e-4] [--seed 1]
    python benchmarks/bench_one_run.py svrg [--reps 20] [--seed 23]

``soundness``
    m independent Gaussian channels ``N((mu/2) S_i, 1)`` calibrated *exactly* to the claim
    (``mu = mu*(eps, delta)``, the boundary), for m in {100, 1000, 10000} and the claims (1, 1e-5)
    and (4, 1e-8): the false-alarm rate of the verdict (the SNJ23 guess test, union rule) and of
    the Gaussian test (exact model) over ``--reps`` seeded repetitions, with two-sided 95%
    Clopper-Pearson intervals. The guess test must stay at or below alpha (its interval's upper
    end too); the Gaussian test is exact, so its rate must be alpha itself (the interval contains
    it). Each repetition's seed is ``SeedSequence([seed, cell, rep])``.
``verdict``
    The same draws (same seeds) as ``soundness``, the Gaussian test at ``alpha/2``: its share in a
    verdict of two tests (one guess family and the Gaussian test, alpha split equally, as in
    :func:`audits.one_run.audit_one_run`). The verdict's alarms are at most these plus the guess
    test's alarms at ``alpha/2``, which are among those ``soundness`` counts at ``alpha``.
``curve``
    The idealised setting of SNJ23: m Gaussian channels at ``mu*(eps, 1e-5)`` for eps in {1, 2,
    4, 8} and m from 10^2 to 10^6, 95% confidence. Two curves: the bound at the *expected*
    numbers of correct guesses with the number of guesses chosen by an oracle on a fine grid
    (what an idealised figure plots), and the median over ``--reps`` simulated audits with the
    union rule (what an audit gets; m <= 10^4).
``cost``
    Wall time of one reference run of each suite instance (:mod:`audits.one_run_instances`) at
    n = 10^4, and bst14 Algorithm 1's time per step (measured on 2 10^4 steps; one run at
    n = 10^4 takes ``n^2 - 1`` of them).
``bst14``
    bst14 Algorithm 1's one-run instance at ``--n`` records (default 1000: 10^6 steps per run,
    where the suite's n = 10^4 takes 10^8): the reference and its two twins, one run each (the
    rows of one batched loop), at ``--alpha`` (the suite's share for bst14 is 1.5625e-4) and ``--seed``.
``svrg``
    wang17 DP-SVRG at the suite instance's n = 10^4, K, sigma and claim (4, 1e-8), at wang17's
    per-audit alpha: could *any* canary flag its noise x0.5 and sensitivity-halved twins in one
    run? Each of m canaries (m = 1024, the suite's, and m = n) is an independent copy of the
    multi-run suite's worst-case pair (:func:`audits.twins.wang17.svrg_step_pairs`: the replaced
    record's sampled difference 4G, the supremum, at every step that samples it; one index of n per
    step), scored by its exact log-likelihood ratio over the K releases (the most powerful score),
    guessed by the union rule over the 8 fractions with both symmetric and one-sided ("in" only)
    guesses at ``alpha/16`` each. Printed per fit: the exact lower bound on its delta(4) on that
    pair (:func:`audits.twins.wang17.delta_lower_bound`: above 1e-8 means a real violation), the
    fewest guesses, all right, that can flag the claim, and over ``--reps`` seeded runs the alarms
    (95% Clopper-Pearson), the median epsilon lower bound and the median number of canaries whose
    log-likelihood ratio exceeds 4, beside the expected number of canaries that are in and sampled
    at least once (no score sees the others' sampled term). Noise x0.25 (not a suite twin) shows
    that ceiling: nearly every sampled canary is exposed. A repetition's seed is
    ``SeedSequence([seed, fit, size, rep])``.
``compute``
    For zhang17 Algorithm 1, wang19 DP-PGD and wang20 Algorithm 4: the one-run audit at n = 10^4
    (eps_lower/eps per family at ``--alpha``, its wall time W), beside the suite's multi-run audit
    of the same algorithm on its small worst-case pair with as many runs per dataset as the whole
    audit (the runs and its own work: sorting the outputs, the privacy profile) does in W, priced
    by a pilot audit of 20000 runs/dataset after a warm-up (at least 1000); its measured wall time is
    printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run without installing

import numpy as np  # noqa: E402
from scipy import optimize  # noqa: E402
from scipy import stats as sps  # noqa: E402

from audits import one_run_bounds as ob  # noqa: E402
from audits import one_run_gaussian as og  # noqa: E402
from audits.stats import clopper_pearson  # noqa: E402

CLAIMS = ((1.0, 1e-5), (4.0, 1e-8))
SIZES = (100, 1000, 10_000)


def _cp(k, n, level=0.05):
    lo, hi = clopper_pearson(k, n, level)
    return f"{k / n:.4f} [{lo:.4f}, {hi:.4f}]"


def _boundary_draw(seed, cell, rep, m, mu):
    """Repetition ``rep`` of cell ``cell``: fair secrets and m Gaussian channels ``N((mu/2) S_i, 1)``
    (the generator is returned too: the guess test breaks ties with it)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, cell, rep]))
    s = rng.choice((-1, 1), m)
    return rng, s, rng.standard_normal(m) + mu * s / 2


def _gauss_alarm(y, s, mu, alpha, thresholds):
    """Whether the Gaussian test at level ``alpha`` rejects separation ``mu`` (noncentral-t tail;
    ``thresholds`` caches them per number of canaries in)."""
    t, df, scale, _ = og.pooled_t(y, s)
    key = int(np.sum(s == 1))
    if key not in thresholds:
        thresholds[key] = sps.nct.ppf(1 - alpha, df, mu / scale)
    return bool(t > thresholds[key])


def verdict(reps: int, alpha: float, seed: int, tests: int = 2) -> None:
    print(f"## The verdict's Gaussian share at the boundary (alpha = {alpha:g} over {tests} tests, "
          f"{reps} repetitions per cell, the draws of soundness)")
    print()
    print("| m | claim | Gaussian test at alpha/J: alarms | rate [95% CI] |")
    print("| --- | --- | --- | --- |")
    cell = 0
    for eps, delta in CLAIMS:
        mu = og.gdp_mu(eps, delta)
        for m in SIZES:
            cell += 1
            thresholds, alarms = {}, 0
            for rep in range(reps):
                _, s, y = _boundary_draw(seed, cell, rep, m, mu)
                alarms += _gauss_alarm(y, s, mu, alpha / tests, thresholds)
            print(f"| {m} | ({eps:g}, {delta:g}) | {alarms} | {_cp(alarms, reps)} |", flush=True)
    print()


def soundness(reps: int, alpha: float, seed: int) -> None:
    print(f"## Soundness at the boundary (alpha = {alpha:g}, {reps} repetitions per cell, 95% Clopper-Pearson)")
    print()
    print("| m | claim | mu* | guess test (union of 8): alarms | rate [95% CI] | Gaussian test (exact): alarms | "
          "rate [95% CI] | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    cell = 0
    for eps, delta in CLAIMS:
        mu = og.gdp_mu(eps, delta)
        for m in SIZES:
            cell += 1
            start = time.perf_counter()
            guess_alarms = gauss_alarms = 0
            thresholds = {}
            for rep in range(reps):
                rng, s, y = _boundary_draw(seed, cell, rep, m, mu)
                tests = ob.union_test(y, s, epsilon=eps, delta=delta, alpha=alpha, rng=rng, invert=False)
                guess_alarms += any(t.violated for t in tests)
                gauss_alarms += _gauss_alarm(y, s, mu, alpha, thresholds)
            took = time.perf_counter() - start
            print(f"| {m} | ({eps:g}, {delta:g}) | {mu:.4f} | {guess_alarms} | {_cp(guess_alarms, reps)} | "
                  f"{gauss_alarms} | {_cp(gauss_alarms, reps)} | {took:.0f} |", flush=True)
    print()


def _crossing(m, r, v, delta, alpha):
    """Where the p-value (SNJ) crosses alpha (bisection to 1e-4, assuming it increases in eps): the
    curve's value. The verdicts use :func:`audits.one_run_bounds.epsilon_lower`, which checks every
    grid point; the two agree to the grid step wherever the p-value is monotone."""
    def p(e):
        return ob._p_values(m, r, v, np.array([e]), delta)[0]

    if p(0.0) > alpha:
        return 0.0
    lo, hi = 0.0, 1.0
    while p(hi) <= alpha:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-4:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if p(mid) <= alpha else (lo, mid)
    return lo


def _expected_bound(m, mu, delta, alpha, ks):
    """The oracle curve: the bound at the expected counts (rounded down), best over ``ks`` guesses
    per side (positive guesses on the top k of m/2 N(mu, 1) and m/2 N(0, 1) scores, negative on the
    bottom k)."""
    best = (0.0, None)
    for k in ks:
        # threshold t with k scores above it in expectation, and the expected correct ones among them
        t_hi = optimize.brentq(lambda t: m / 2 * (sps.norm.sf(t - mu) + sps.norm.sf(t)) - k, -40, 40)
        t_lo = optimize.brentq(lambda t: m / 2 * (sps.norm.cdf(t - mu) + sps.norm.cdf(t)) - k, -40, 40)
        v = m / 2 * sps.norm.sf(t_hi - mu) + m / 2 * sps.norm.cdf(t_lo)
        e = _crossing(m, 2 * k, int(math.floor(v)), delta, alpha)
        if e > best[0]:
            best = (e, k)
    return best


def curve(reps: int, seed: int) -> None:
    delta, alpha = 1e-5, 0.05
    sizes = (100, 1000, 10_000, 100_000, 1_000_000)
    print(f"## Idealised setting: m Gaussian channels at mu*(eps, {delta:g}), 95% confidence")
    print()
    print("eps_lower at the expected counts with the oracle's number of guesses per side (k); in brackets the "
          f"median [10%, 90%] of {reps} simulated audits with the union rule (m <= 10^4); crossings by bisection "
          "to 1e-4")
    print()
    print("| eps | mu* | " + " | ".join(f"m = {m:g}" for m in sizes) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in sizes) + " |")
    for eps in (1.0, 2.0, 4.0, 8.0):
        mu = og.gdp_mu(eps, delta)
        cells = []
        for m in sizes:
            ks = sorted({max(1, int(round(m * f))) for f in np.geomspace(1e-4, 0.49, 40)} - {0})
            ks = [k for k in ks if 2 * k <= m]
            e, k = _expected_bound(m, mu, delta, alpha, ks)
            cell = f"{e:.2f}" + (f" (k {k})" if k is not None else "")  # k None: no k certifies anything
            if m <= 10_000:
                sims = []
                for rep in range(reps):
                    rng = np.random.default_rng(np.random.SeedSequence([seed, int(eps * 10), m, rep]))
                    s = rng.choice((-1, 1), m)
                    y = rng.standard_normal(m) + mu * s / 2
                    tests = ob.union_test(y, s, epsilon=eps, delta=delta, alpha=alpha, rng=rng, invert=False)
                    sims.append(max(_crossing(m, t.guesses, t.correct, delta, t.alpha) for t in tests))
                q = np.quantile(sims, [0.5, 0.1, 0.9])
                cell += f" [{q[0]:.2f}; {q[1]:.2f}, {q[2]:.2f}]"
            cells.append(cell)
        print(f"| {eps:g} | {mu:.3f} | " + " | ".join(cells) + " |", flush=True)
    print()


def cost() -> None:
    from audits import one_run_instances as oi
    from reference.bst14 import noisy_sgd
    from reference.domains import L2Ball
    from reference.losses import Linear

    print("## Cost of one run at n = 10^4 (this machine; wall time)")
    print()
    print("| instance | build s | one reference run s | notes |")
    print("| --- | --- | --- | --- |")
    for key in ("zhang17.alg_1", "wang20.alg_4", "wang17.alg_1", "wang19.alg_1"):
        start = time.perf_counter()
        inst = oi.INSTANCES[key]()
        built = time.perf_counter() - start
        res = inst.audit("reference", alpha=0.05, seed=1)
        print(f"| {key} ({oi.TIER[key]}) | {built:.1f} | {res.seconds:.1f} | {inst.notes} |", flush=True)
    p = 64 + oi.BASE_FEATURES
    n = 142  # 142^2 - 1 = 20163 steps; one step's work does not depend on n (one sampled record)
    data = np.zeros((n, p))
    data[:, 0] = 1.0
    start = time.perf_counter()
    res = noisy_sgd.noise_gd(data, loss=Linear(data_norm=1.0), domain=L2Ball(dim=p, radius=1.0), epsilon=1.0,
                             delta=1e-8, schedule="lipschitz", rng=1, transcript=lambda t, st: None)
    per = (time.perf_counter() - start) / res.steps
    total = per * (10_000 ** 2 - 1)
    print(f"| bst14.alg_1 (deep) | - | {total / 3600:.1f} h (extrapolated) | {per * 1e6:.0f} us per step over "
          f"{res.steps} steps; n = 10^4 takes 10^8 - 1 steps |")
    print()


def bst14_small(n: int, alpha: float, seed: int) -> None:
    from audits import one_run_instances as oi

    print(f"## bst14 Algorithm 1, one run each at n = {n} ({n * n - 1} steps), alpha {alpha:g}, seed {seed}")
    print()
    inst = oi.bst14_instance(n=n)
    start = time.perf_counter()
    for which in ("reference", "sigma / n", "reused noise"):
        res = inst.audit(which, alpha=alpha, seed=seed)
        print(f"* {which}: {res}", flush=True)
    took = time.perf_counter() - start
    # the three fits are the rows of one batched loop (the first audit runs it; the result lines'
    # own times are of that call, or of reading its row)
    print(f"\n{took:.0f} s for the three audits (one loop of {n * n - 1} steps, "
          f"{took / (n * n - 1) * 1e6:.1f} us per step for three runs)")
    print()


def _svrg_scores(rng, secrets, *, n, steps, sigma, lipschitz, chunk=512):
    """Log-likelihood ratios of ``secrets.size`` independent copies of the DP-SVRG worst-case pair
    (``svrg_step_pairs``, cos 1, relative to the neighbour's mean): a canary in (+1) adds the
    snapshot shift ``-2G/n`` to all K releases and the jump ``4G`` to the steps that sample it;
    a canary out (-1) releases ``N(0, sigma^2)``. Steps 2..K each sample one index of n."""
    from audits.twins import wang17 as tw

    m = secrets.size
    # the pair's means, from the twins module (D: (1 - q) N(shift) + q N(shift + jump); D': N(0))
    ((_, shift), (_, high)), _, _ = tw.svrg_step_pairs(n=n, steps=steps, lipschitz=lipschitz, cos=1.0)[-1]
    jump = high - shift
    sampled = rng.integers(n, size=steps - 1)  # the index of steps 2..K (canaries are 0..m-1)
    scores = np.empty(m)
    for lo in range(0, m, chunk):
        hi = min(m, lo + chunk)
        y = sigma * rng.standard_normal((hi - lo, steps))
        inside = secrets[lo:hi] == 1
        y[inside] += shift
        t = np.nonzero((sampled >= lo) & (sampled < hi))[0]
        rows = sampled[t] - lo
        hit = inside[rows]
        y[rows[hit], t[hit] + 1] += jump
        first = (y[:, 0] * shift - shift**2 / 2) / sigma**2
        rest = tw.svrg_log_ratio(y[:, 1:], sigma=sigma, n=n, lipschitz=lipschitz, cos=1.0, mean_neighbour=0.0)
        scores[lo:hi] = first + rest.sum(axis=1)
    return scores


def _best_guesses(scores, secrets, *, epsilon, delta, alpha, rng):
    """(flagged, epsilon lower bound): the union over the 8 fractions of symmetric and one-sided
    ("in" only) guesses, each at ``alpha / 16``."""
    m = scores.size
    ks = ob.guess_counts(m)
    share = alpha / (2 * len(ks))
    flagged, lower = False, 0.0
    for k in ks:
        for plus, minus in ((k, k), (2 * k, 0)):
            r, v = ob.count_correct(ob.guess(scores, plus=plus, minus=minus, rng=rng), secrets)
            flagged |= ob.p_value(canaries=m, guesses=r, correct=v, epsilon=epsilon, delta=delta) <= share
            lower = max(lower, ob.epsilon_lower(canaries=m, guesses=r, correct=v, delta=delta, alpha=share))
    return flagged, lower


def _fewest_guesses(m, *, epsilon, delta, alpha):
    """The fewest guesses, all right, whose p-value at the claim is at most ``alpha / 16``."""
    share = alpha / (2 * len(ob.guess_counts(m)))
    r = 1
    while r <= m and ob.p_value(canaries=m, guesses=r, correct=r, epsilon=epsilon, delta=delta) > share:
        r += 1
    return r


def svrg_ceiling(reps: int, seed: int) -> None:
    from audits import one_run_instances as oi
    from audits.budget import share_named
    from audits.twins import wang17 as tw

    eps, delta = 4.0, 1e-8
    n = oi.RECORDS
    c = oi.wang17_constants(n=n, epsilon=eps, delta=delta)
    K, sigma, G = c["noisy_steps"], c["sigma"], c["lipschitz"]
    alpha = share_named("wang17").alpha_per_slot
    sigma_2g = tw.sigma_difference_2g(epsilon=eps, delta=delta, lipschitz=G, n=n, steps=K)
    fits = (("reference", sigma), ("sensitivity halved", sigma_2g), ("noise x0.5", sigma / 2),
            ("noise x0.25", sigma / 4))
    pairs = tw.svrg_step_pairs(n=n, steps=K, lipschitz=G, cos=1.0)
    print(f"## wang17 DP-SVRG's twins against idealised canaries, one run at n = {n} (K = {K} releases, "
          f"sigma = {sigma:.4g}, claim ({eps:g}, {delta:g}), alpha {alpha:.3g}, {reps} runs per cell, seed {seed})")
    print()
    reached = 1.0 - (1.0 - 1.0 / n) ** (K - 1)  # a canary is sampled at least once in steps 2..K
    sizes = (oi.CANARIES, n)
    fewest = {m: _fewest_guesses(m, epsilon=eps, delta=delta, alpha=alpha) for m in sizes}
    print("| fit | sigma | delta(4) on the pair, lower bound | m | fewest guesses (all right) | canaries in and "
          "sampled (expected) | alarms | rate [95% CI] | median eps_lower | median canaries with LLR > 4 | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for f, (name, sig) in enumerate(fits):
        # the exact composition is slow where the jump is many sigmas (the control): left out there
        low = f"{tw.delta_lower_bound(eps, pairs, sigma=sig):.3g}" if f < 3 else "-"
        for size, m in enumerate(sizes):
            start = time.perf_counter()
            alarms, lowers, exposed = 0, [], []
            for rep in range(reps):
                rng = np.random.default_rng(np.random.SeedSequence([seed, f, size, rep]))
                s = rng.choice((-1, 1), m)
                scores = _svrg_scores(rng, s, n=n, steps=K, sigma=sig, lipschitz=G)
                hit, lower = _best_guesses(scores, s, epsilon=eps, delta=delta, alpha=alpha, rng=rng)
                alarms += hit
                lowers.append(lower)
                exposed.append(int(np.sum(scores > eps)))
            took = time.perf_counter() - start
            print(f"| {name} | {sig:.4g} | {low} | {m} | {fewest[m]} | {m / 2 * reached:.0f} | {alarms} | "
                  f"{_cp(alarms, reps)} | {np.median(lowers):.3g} | {np.median(exposed):g} | {took:.0f} |", flush=True)
    print()


def _load(path):
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _multi_run_setups():
    """``key -> dict(mechanism, pair, epsilon, delta, profile, statistic)``: the suite's multi-run
    audits of the same algorithms, built by the suite modules' own helpers (loaded by path)."""
    from audits.twins import zhang17 as t17
    from reference import wang19 as r19
    from reference import wang20 as r20
    from reference import zhang17 as r17
    from audits.tradeoffs import GaussianTradeoff

    suite = ROOT / "audits" / "suite"
    out = {}
    s19 = _load(suite / "wang19" / "test_wang19_privacy.py")
    pair, loss, domain, eps, delta, steps, sigma, profile, _, _ = s19._pgd_setting()
    out["wang19.alg_1"] = dict(
        mechanism=s19._gaussian_transcript(r19.dp_pgd, loss=loss, domain=domain, sigma=sigma, steps=steps,
                                           name="dp_pgd", epsilon=eps, delta=delta),
        pair=pair, epsilon=eps, delta=delta, profile=profile, statistic=None)
    s17 = _load(suite / "zhang17" / "test_zhang17_privacy.py")
    out["zhang17.alg_1"] = dict(
        mechanism=s17._alg1_mechanism(r17.output_perturbation_gd, "output_perturbation_gd (Gaussian)", **s17.GAUSS),
        pair=t17.huber_pair(s17.N1)[0], epsilon=s17.EPS1, delta=s17.DELTA1, profile=s17._gauss_profile(),
        statistic=None)
    s20 = _load(suite / "wang20" / "test_wang20_privacy.py")
    pair20, kw, probe = s20._alg4_reference()
    out["wang20.alg_4"] = dict(
        mechanism=s20._alg4_mechanism(r20.catoni_giulini_gd, kw, "catoni_giulini_gd transcript"), pair=pair20,
        epsilon=kw["epsilon"], delta=kw["delta"],
        profile=GaussianTradeoff(sigma=probe.parameters["sigma"], sensitivity=probe.parameters["sensitivity"],
                                 steps=probe.steps),
        statistic=s20._sum)
    return out


def compute(alpha: float, pilot: int = 20_000) -> None:
    from audits import audit_real_valued
    from audits import one_run_instances as oi

    print(f"## One run at n = 10^4 against the multi-run audit at equal compute (alpha = {alpha:g})")
    print()
    print("| algorithm | one run: n, canaries, seconds | one run: eps_lower/eps by family | multi-run (suite pair): "
          "runs/dataset, seconds | multi-run: eps_lower/eps |")
    print("| --- | --- | --- | --- | --- |")
    setups = _multi_run_setups()
    for key in ("zhang17.alg_1", "wang19.alg_1", "wang20.alg_4"):
        inst = oi.INSTANCES[key]()
        start = time.perf_counter()
        res = inst.audit("reference", alpha=alpha, seed=2)
        wall = time.perf_counter() - start
        fams = "; ".join(f"{k} {v:.3g}/{inst.epsilon:g} = {v / inst.epsilon:.2f}"
                         for k, v in res.family_bounds().items())
        setup = setups[key]
        mech, pair, eps = setup["mechanism"], setup["pair"], setup["epsilon"]

        def multi_run(runs):
            t0 = time.perf_counter()
            out = audit_real_valued(mech, pair, epsilon=eps, delta=setup["delta"], runs=runs, alpha=alpha, seed=2,
                                    profile=setup["profile"], statistic=setup["statistic"])
            return out, time.perf_counter() - t0

        # a warm-up audit fills the memoised profile tables (not charged to the audit compared); a pilot
        # then prices one run/dataset of the *whole* audit (the runs, sorting the outputs, the profile)
        multi_run(1000)
        _, took = multi_run(pilot)
        runs = max(1000, int(wall * pilot / took))
        multi, multi_wall = multi_run(runs)
        print(f"| {key} | {res.records}, {res.canaries}, {wall:.0f} | {fams} | {runs}, {multi_wall:.0f} | "
              f"{multi.epsilon_lower:.3g}/{eps:g} = {multi.epsilon_lower / eps:.2f} |", flush=True)
    print()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("soundness", "verdict", "curve", "cost", "compute", "bst14", "svrg", "all"))
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--n", type=int, default=1000, help="bst14: records (n^2 - 1 steps)")
    args = parser.parse_args(argv)
    if args.part in ("soundness", "all"):
        soundness(args.reps or 2000, args.alpha, args.seed)
    if args.part in ("verdict", "all"):
        verdict(args.reps or 2000, args.alpha, args.seed)
    if args.part in ("curve", "all"):
        curve(args.reps or 200, args.seed)
    if args.part in ("cost", "all"):
        cost()
    if args.part in ("compute", "all"):
        compute(args.alpha)
    if args.part == "bst14":  # not in "all": n = 1000 takes 10^6 steps per run
        bst14_small(args.n, args.alpha, args.seed)
    if args.part == "svrg":  # not in "all": 12 minutes at 20 repetitions, most of it the exact delta bounds
        svrg_ceiling(args.reps or 20, args.seed)


if __name__ == "__main__":
    main()
