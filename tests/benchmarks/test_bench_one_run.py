"""Smoke test of ``benchmarks/bench_one_run.py`` (loaded from its path): the soundness table and
the idealised curve run (tiny repetitions) and print rows of the shape the evidence page quotes."""

from __future__ import annotations


def test_soundness_and_curve_rows(load_bench, capsys, monkeypatch):
    bench = load_bench("bench_one_run")
    monkeypatch.setattr(bench, "CLAIMS", ((1.0, 1e-5),))
    monkeypatch.setattr(bench, "SIZES", (100,))
    bench.soundness(reps=20, alpha=0.05, seed=1)
    out = capsys.readouterr().out
    row = [line for line in out.splitlines() if line.startswith("| 100 |")]
    assert len(row) == 1 and "(1, 1e-05)" in row[0]
    # the oracle curve's crossing agrees with the grid bound to the grid step
    e = bench._crossing(1000, 100, 75, 1e-4, 0.05)
    assert 0.6729 < e < 0.6731
