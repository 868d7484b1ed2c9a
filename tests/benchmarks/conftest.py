"""The benchmark scripts, loaded from their paths (``benchmarks`` is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def load_bench(monkeypatch):
    """``load_bench("bench_x")``: the module ``benchmarks/bench_x.py``, registered in
    ``sys.modules`` for the test only (dataclasses and pickling look modules up there)."""

    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, spec.name, module)
        spec.loader.exec_module(module)
        return module

    return load
