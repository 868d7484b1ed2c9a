"""Smoke test of ``benchmarks/bench_execution.py`` (loaded from its path): one small audit in the
memory benchmark's child prints its figures, and the per-chunk overhead is measured."""

from __future__ import annotations

import argparse
import json

from audits import execution


def test_the_child_prints_one_audits_figures_and_the_overhead_is_measured(load_bench, capsys):
    bench = load_bench("bench_execution")
    bench._memory_child(argparse.Namespace(kind="laplace", runs=20_000, executor="serial"))
    d = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert d["runs"] == 20_000 and d["executor"] == "serial" and d["chunks"] >= 2
    assert d["peak"] >= d["executor_ready"] >= d["after_imports"] > 0 and d["wall"] > 0
    # the correct Laplace at its own claim (fixed seed: reproducible)
    assert 0 < d["epsilon_lower"] <= d["epsilon"] == 1.0 and "not refuted" in d["summary"]
    assert bench.per_chunk_overhead(execution.Execution(None, progress=False), 4) >= 0
