"""Smoke test of ``benchmarks/bench_cli_startup.py`` (it prints figures; nothing is asserted about
them: performance is measured by the benchmark, never by a timed test), and the import claims
behind its figures: ``dperm --help`` loads neither the spec registry nor numpy, and the verbs that
answer about all papers or about one import no paper, or only that one (issue 19: ``dperm run
--list`` took 9.8 s, ``dperm spec`` 3.1 s, importing every paper)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_cli_startup.py"


def test_tiny_run_prints_a_ratio_per_command(monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("bench_cli_startup", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    assert module.main(["--repeats", "1", "--commands", "vectors --help", "spec --help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "load average" in lines[0] and lines[1].startswith("baseline: import numpy, scipy.stats, sympy")
    assert lines[2].split() == ["command", "cold", "s", "median", "s", "ratio", "range"]
    rows = [line.split() for line in lines[3:5]]
    assert [row[:3] for row in rows] == [["dperm", "vectors", "--help"], ["dperm", "spec", "--help"]]
    assert all(float(row[-3]) > 0 and row[-1] in ("ok", "SLOW") for row in rows)
    assert lines[5].startswith("largest ratio") and "load average" in lines[5]
    assert module.COMMANDS[0] == "--help"


def test_top_level_help_imports_no_registry_and_no_numpy():
    code = ("import sys\nfrom dperm.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = sorted(m for m in ('spec', 'numpy', 'sympy', 'reference', 'audits') if m in sys.modules)\n"
            "print('HEAVY', heavy, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "HEAVY []" in out.stderr, out.stderr


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    """One cache directory for this module's commands (shared by xdist workers: filled once)."""
    return tmp_path_factory.getbasetemp().parent / "dperm-cache"


def _modules_after(argv, cache) -> set[str]:
    """The spec/reference modules imported by ``dperm ARGV`` (after a run that fills the cache)."""
    code = ("import sys\nfrom dperm.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('MODULES', ' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('spec', 'reference', 'numpy'))), file=sys.stderr)\n")
    env = {"DPERM_CACHE_DIR": str(cache), "PATH": "", "OPENBLAS_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True, check=True, env=env)
    out = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True, check=True,
                         env=env)
    line = next(x for x in out.stderr.splitlines() if x.startswith("MODULES"))
    return set(line.split()[1:])


PAPERS = ("bst14", "zhang17", "wang17", "wang19", "wang20")


@pytest.mark.parametrize("argv", [["spec"], ["calibrate", "--list"], ["epsilon", "--list"], ["run", "--list"],
                                  ["run", "bst14.alg_1", "--help"], ["calibrate", "--help"]])
def test_listings_and_help_import_no_paper(cache_dir, argv):
    loaded = _modules_after(argv, cache_dir)
    papers = sorted(m for m in loaded if m.split(".")[0] in ("spec", "reference") and len(m.split(".")) > 2
                    and m.split(".")[1] in PAPERS)
    # run --list lists the losses and domains (reference.losses, reference.domains), never a paper
    assert papers == [], papers


def test_one_record_imports_its_paper_section_only(cache_dir):
    loaded = _modules_after(["spec", "wang19.thm_1"], cache_dir)
    sections = {m for m in loaded if m.count(".") == 2 and m.split(".")[1] in PAPERS}
    assert "spec.wang19.noise" in sections
    assert not any(m.startswith(("spec.bst14.", "spec.zhang17.", "spec.wang17.", "spec.wang20.")) for m in sections)
    assert "spec.wang19.mirror_descent" not in sections and "numpy" not in loaded
