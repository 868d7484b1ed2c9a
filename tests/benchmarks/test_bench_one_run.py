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


def test_verdict_reuses_the_soundness_draws(load_bench, capsys, monkeypatch):
    # at J = 1 the verdict part's Gaussian alarms are the soundness table's (same seeds, same draws)
    bench = load_bench("bench_one_run")
    monkeypatch.setattr(bench, "CLAIMS", ((1.0, 1e-5),))
    monkeypatch.setattr(bench, "SIZES", (100,))
    bench.soundness(reps=40, alpha=0.3, seed=3)
    sound = _cells(capsys.readouterr().out)
    bench.verdict(reps=40, alpha=0.3, seed=3, tests=1)
    row = _cells(capsys.readouterr().out)
    assert row[2:4] == sound[5:7] and int(row[2]) > 0


def _cells(out):
    line = [line for line in out.splitlines() if line.startswith("| 100 |")][0]
    return [c.strip() for c in line.strip("| ").split("|")]
