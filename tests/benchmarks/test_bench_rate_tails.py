"""Smoke test of ``benchmarks/bench_rate_tails.py`` (loaded from its path: ``benchmarks`` is not a
package): a quick run prints its rows, and the miss counter measures a known level."""

from __future__ import annotations

from scipy import stats as sps


def test_quick_run_prints_a_row_per_law_and_quantile(load_bench):
    bench = load_bench("bench_rate_tails")
    lines: list[str] = []
    assert bench.main(["--quick"], out=lines.append) == 0
    rows = [line for line in lines if line.startswith(("normal ", "t "))]
    assert len(rows) == 2 * len(bench.LAWS)


def test_miss_counter_recovers_the_level_of_a_nearly_normal_law(load_bench):
    """chi-square(16)/16 values at 1200 runs make the slope nearly normal: the t interval's
    one-sided miss count at level 1e-2 over 20000 seeded replications must lie within the
    0.0005 and 0.9995 quantiles of Binomial(20000, p) for some p in [0.007, 0.013] (a broken
    quantile, e.g. two-sided where one-sided is meant, gives 0.005 or 0.02)."""
    bench = load_bench("bench_rate_tails")
    misses = bench.miss_counts("chi2_16", 1200, 20_000, seed=3, quantile="t")[0]
    assert sps.binom.ppf(0.0005, 20_000, 0.007) <= misses <= sps.binom.ppf(0.9995, 20_000, 0.013)
