"""Smoke test of ``benchmarks/bench_cli_startup.py`` (it prints figures; nothing is asserted about
them: performance is measured by the benchmark, never by a timed test), and the import claim
behind its first figure: ``dperm --help`` loads neither the spec registry nor numpy."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_cli_startup.py"


def test_tiny_run_prints_a_row_per_command(monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("bench_cli_startup", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    assert module.main(["--repeats", "1", "--commands", "vectors --help", "spec --help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "load average" in lines[0] and lines[1].split() == ["command", "min", "s", "median", "s"]
    assert [line.split()[:3] for line in lines[2:]] == [["dperm", "vectors", "--help"], ["dperm", "spec", "--help"]]
    assert module.COMMANDS[0] == ("--help",)


def test_top_level_help_imports_no_registry_and_no_numpy():
    code = ("import sys\nfrom dperm.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = sorted(m for m in ('spec', 'numpy', 'sympy', 'reference', 'audits') if m in sys.modules)\n"
            "print('HEAVY', heavy, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "HEAVY []" in out.stderr, out.stderr
