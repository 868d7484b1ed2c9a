"""Smoke test of ``benchmarks/bench_rate_tails.py`` (loaded from its path: ``benchmarks`` is not a
package): a quick run prints its rows, and the miss counter measures a known level."""

from __future__ import annotations

from scipy import stats as sps


def test_quick_run_prints_a_row_per_law_and_interval(load_bench):
    bench = load_bench("bench_rate_tails")
    lines: list[str] = []
    assert bench.main(["--quick"], out=lines.append) == 0
    rows = [line for line in lines if line.startswith(("own ", "pooled "))]
    assert len(rows) == 2 * len(bench.LAWS)


def test_miss_counter_recovers_the_level_of_a_nearly_normal_law(load_bench):
    """Normal values at 1200 runs make the studentised slope nearly t: the 'own' interval's miss
    count at the per-side level 1e-3, both sides over 20000 seeded replications (40000 sides),
    must lie within the 0.0005 and 0.9995 quantiles of Binomial(40000, p) for some p in
    [0.0007, 0.0013] (a broken quantile, e.g. two-sided where one-sided is meant, gives 0.0005 or
    0.002); the pooled interval, at half the level and a spread never below the own, misses less."""
    bench = load_bench("bench_rate_tails")
    counts = bench.miss_counts("normal", 1200, 20_000, seed=3)
    assert sps.binom.ppf(0.0005, 40_000, 0.0007) <= counts["own"][0] <= sps.binom.ppf(0.9995, 40_000, 0.0013)
    assert counts["pooled"][0] < counts["own"][0]
