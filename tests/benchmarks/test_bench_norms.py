"""Smoke test of ``benchmarks/bench_norms.py``: a quick run prints one row per shape, and each row
checked the chosen row maximum against the reduction bit for bit (the script asserts it)."""

from __future__ import annotations


def test_quick_run_prints_a_row_per_shape(load_bench, capsys):
    bench = load_bench("bench_norms")
    assert bench.main(["--repeat", "2"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("(")]
    assert len(rows) == len(bench.SHAPES)
