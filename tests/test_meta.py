"""The import packages are this repository's, not PyPI's unrelated `spec`/`reference`/`audits`."""

from __future__ import annotations

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
