"""spec.lazy and the lazy registry: importing spec imports no paper; one record, one section."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import spec
from spec import index, registry

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ("bst14", "zhang17", "wang17", "wang19", "wang20")


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    """A cache directory shared by this module's subprocesses, with the index in it."""
    import os

    env = {**os.environ, "DPERM_CACHE_DIR": str(tmp_path_factory.getbasetemp().parent / "dperm-cache")}
    subprocess.run([sys.executable, "-c", "from spec import index; index.record_ids()"], cwd=ROOT, check=True, env=env)
    return env


def _sections_after(code: str, env: dict) -> list[str]:
    probe = (f"import sys\n{code}\nprint('SECTIONS', ' '.join(sorted(m for m in sys.modules "
             f"if m.count('.') == 2 and m.split('.')[0] == 'spec' and m.split('.')[1] in {PAPERS!r})))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True,
                         env=env)
    line = next(x for x in out.stdout.splitlines() if x.startswith("SECTIONS"))
    return line.split()[1:]


def test_importing_spec_imports_no_paper(env):
    assert _sections_after("import spec, spec.wang19, spec.bst14", env) == []


def test_a_paper_name_imports_its_section_only(env):
    sections = _sections_after("import spec.wang19\nspec.wang19.THM_1", env)
    assert "spec.wang19.noise" in sections and "spec.wang19.mirror_descent" not in sections
    assert not any(s.startswith(("spec.bst14", "spec.wang20")) for s in sections)


def test_get_imports_the_module_that_registered_the_record():
    for row in index.record_rows():
        assert spec.get(row["id"]).id == row["id"]
        assert registry.module_of(row["id"]) == row["module"]


def test_paper_packages_export_what_they_did():
    from spec import bst14, wang19, zhang17

    assert bst14.sigma_accountant.__module__ == "spec.bst14.noisy_sgd_privacy"
    assert zhang17.certified_epsilon.__module__ == "spec.zhang17.random_round_sgd"
    assert wang19.sigma.__module__ == "spec.wang19.noise"
    assert "THM_1" in dir(wang19) and "noise" in dir(wang19)
    every = {r.id for r in spec.records() if r.id.startswith("wang19.")}
    assert {r.id for r in wang19.RECORDS} == every
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        wang19.nothing  # noqa: B018


def test_an_unknown_id_is_suggested_without_importing_every_paper(env):
    sections = _sections_after("import spec\ntry:\n    spec.get('gaussian.analytc')\nexcept KeyError as e:\n"
                               "    print(e)", env)
    assert sections == []
    with pytest.raises(KeyError, match="did you mean gaussian.analytic"):
        spec.get("gaussian.analytc")
