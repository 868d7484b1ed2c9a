"""Self-guards on the layout: our packages, the import direction, the API shape, module sizes."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["spec", "reference", "audits", "dperm"])
def test_package_resolves_to_this_repository(name):
    module = importlib.import_module(name)
    location = Path(module.__file__).resolve().parent
    assert location == ROOT / name, f"{name} imported from {location}, expected {ROOT / name}"


def test_spec_imports_nothing_else_of_ours():
    """Data flows spec <- reference <- audits: spec modules must not import the others."""
    offenders = []
    for path in sorted((ROOT / "spec").rglob("*.py")):
        text = path.read_text()
        for bad in ("import reference", "from reference", "import audits", "from audits",
                    "import dperm", "from dperm", "import numpy", "from numpy"):
            if bad in text:
                offenders.append(f"{path.name}: {bad}")
    assert not offenders, offenders


def test_reference_does_not_import_audits():
    offenders = [
        p.name
        for p in sorted((ROOT / "reference").rglob("*.py"))
        if "import audits" in p.read_text() or "from audits" in p.read_text()
    ]
    assert not offenders, offenders


# --------------------------------------------------------------------------- API shape and layout
#: Functions whose only job is to turn an ``rng`` into a generator take it positionally.
_RNG_CONVERTERS = {"as_generator", "resolve", "__init__"}


def _functions(root: str):
    for path in sorted((ROOT / root).rglob("*.py")):
        if "suite" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield path, node


@pytest.mark.parametrize("root", ["spec", "reference", "audits", "dperm"])
def test_rng_runs_and_noise_are_keyword_only(root):
    """``rng``, ``runs`` and ``noise`` are keyword-only in every public function and method."""
    offenders = []
    for path, node in _functions(root):
        if node.name.startswith("_") and node.name != "__call__" or node.name in _RNG_CONVERTERS:
            continue
        positional = [a.arg for a in node.args.posonlyargs + node.args.args]
        bad = [name for name in ("rng", "runs", "noise") if name in positional]
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} {bad}")
    assert not offenders, offenders


@pytest.mark.parametrize("root", ["spec", "reference"])
def test_no_module_is_a_monolith(root):
    """Small modules: none in spec/ or reference/ over ~800 lines."""
    big = [f"{p.relative_to(ROOT)} ({n})" for p in sorted((ROOT / root).rglob("*.py"))
           if (n := len(p.read_text().splitlines())) > 820]
    assert not big, big


def test_the_audit_suite_is_not_a_package_and_the_harness_does_not_import_it():
    suite = ROOT / "audits" / "suite"
    assert suite.is_dir() and not list(suite.rglob("__init__.py"))
    for path in sorted((ROOT / "audits").rglob("*.py")):
        if "suite" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("audits.suite"), path
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("audits.suite") for a in node.names), path


def test_audits_do_not_import_dperm():
    """The command line sits on top: spec <- reference <- audits <- dperm. audits/profiles.py imported
    dperm.calibration (the one upward arrow); the calibration targets now live in spec.calibrations."""
    offenders = []
    for path in sorted((ROOT / "audits").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                          if n == "dperm" or n.startswith("dperm.")]
    assert not offenders, offenders


#: Hand-written searches that are not calibrations (file -> (number of matches, why)). Every search
#: over a calibration goes through spec.inversion; a new match anywhere else fails the test below.
_NOT_CALIBRATIONS = {
    "reference/wang17/mirror_maps.py": (1, "the p-norm mirror step's multiplier (an algorithm step)"),
    "reference/domains/base.py": (1, "the centre of a bounding box (no search)"),
    "reference/domains/intersection.py": (2, "projection onto an intersection: its KKT multiplier"),
    "reference/wang19/mirror_descent.py": (1, "the p-norm step's multiplier (vectorised over runs)"),
    "audits/tradeoffs.py": (1, "a zCDP claim's trade-off bound on a grid (vectorised; kept on the claim's side)"),
    "audits/stats.py": (1, "the run count that reaches a power (experimental design)"),
    "audits/design.py": (1, "the run count that reaches a power in simulation (experimental design)"),
    "audits/search.py": (1, "the centre of a box (no search)"),
    "audits/one_run_bounds.py": (1, "the SNJ23 bound's crossing on its epsilon grid (a statistical test)"),
    "audits/one_run_gaussian.py": (1, "the noncentral-t confidence bound on mu (a statistical test)"),
    "dperm/crossref.py": (1, "the line of a character offset (the bisect module)"),
}
_SEARCH = (r"\(\s*lo\s*\+\s*hi\s*\)|\(\s*low\s*\+\s*high\s*\)|sqrt\(\s*lo\s*\*\s*hi\s*\)|sqrt\(\s*low\s*\*\s*high\s*\)"
           r"|findroot|brentq|optimize\.bisect|root_scalar|import bisect")


def test_one_inversion_helper():
    """grep finds no bisection over a calibration outside spec.inversion (issue 19)."""
    import re

    found = {}
    for root in ("spec", "reference", "audits", "dperm"):
        for path in sorted((ROOT / root).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            if rel == "spec/inversion.py":
                continue
            count = len(re.findall(_SEARCH, path.read_text()))
            if count:
                found[rel] = count
    assert found == {k: n for k, (n, _) in _NOT_CALIBRATIONS.items()}, found


def test_one_module_name_per_algorithm_box():
    """Each algorithm box has one module name in every layer: the spec module that defines its record,
    the reference module of its configured class, and their tests (issue 19: rrpsgd vs
    random_round_sgd, dp_pgd vs proximal_gradient, trimmed_mean vs bun_steinke were three names)."""
    from reference.algorithms import boxes

    for record_id, cls in boxes().items():
        paper = record_id.split(".")[0]
        name = cls.__module__.rsplit(".", 1)[1]
        defining = [p.stem for p in sorted((ROOT / "spec" / paper).glob("*.py")) if f'id="{record_id}"' in p.read_text()]
        assert defining == [name], (record_id, defining, cls.__module__)
        for layer in ("spec", "reference"):
            assert (ROOT / "tests" / layer / paper / f"test_{name}.py").is_file(), (record_id, layer, name)
