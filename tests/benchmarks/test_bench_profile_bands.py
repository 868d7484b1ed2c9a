"""Smoke test of ``benchmarks/bench_profile_bands.py`` (loaded from its path): its configurations
are the planted bug and the correct mechanisms it says, and one repetition prints both bands."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_profile_bands.py"


def _load(monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_profile_bands", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_one_repetition_runs_both_bands_on_the_same_outputs(monkeypatch):
    bench = _load(monkeypatch)
    assert bench.CONFIGS["gauss x0.9"][0].sigma == 0.9 * bench.GAUSS.sigma
    # the cheapest configuration, one repetition: both bands, same seed
    name, out = bench.run_one(("gauss as pure 1-DP", 2, 0, 1, 0.05))
    assert name == "gauss as pure 1-DP" and set(out) == {"weighted", "dkw"}
    assert all(ratio >= 0 for _, ratio in out.values())
