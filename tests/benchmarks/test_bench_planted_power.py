"""Smoke test of ``benchmarks/bench_planted_power.py``: it runs the planted audits as the suite
does and prints a sane row per test (loaded from its path: ``benchmarks`` is not a package)."""

from __future__ import annotations

import re


def test_every_planted_test_is_found_and_a_quick_run_prints_its_row(load_bench):
    bench = load_bench("bench_planted_power")
    names = bench.planted_tests(bench.load_suite())
    assert "test_planted_laplace_scaled_noise_is_flagged" in names and len(names) >= 10
    lines: list[str] = []
    # the two cheapest planted audits (about 1e3 runs each), two repetitions, one process
    assert bench.main(["--reps", "2", "--jobs", "1", "--only", "best_iterate"], out=lines.append) == 0
    text = "\n".join(lines)
    assert "design power: 0.99" in text and "alpha per audit: 0.00015625" in text
    row = next(line for line in lines if line.startswith("best_iterate"))
    k, n, lo, hi = re.search(r"(\d+)/(\d+)\s+\[([\d.]+), ([\d.]+)\]", row).groups()
    assert int(n) == 2 and 0 <= int(k) <= 2 and 0.0 <= float(lo) <= float(hi) <= 1.0
    assert " point " in row
