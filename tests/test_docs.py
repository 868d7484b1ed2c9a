"""The documentation a reader browses stays true: generated pages current, docstring sections
naming registered spec ids, and the Sphinx configuration rendering those sections.

Runs without Sphinx (the napoleon rendering check is skipped when Sphinx is not installed).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import spec
from dperm import crossref, pages
from spec.record import PAPERS

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = crossref.documented(ROOT)
IDS = set(spec.ids())
#: Prefixes under which an id-shaped token is taken for a record id.
HEADS = {i.split(".")[0] for i in IDS} | set(spec.paper_packages()) | set(PAPERS)

#: Sections that name no record yet, each with the record it should name. Owned elsewhere: fixed
#: where their module is maintained (an entry that starts naming its record makes the xfail fail).
NAMES_NO_RECORD_YET: dict = {}


def test_reference_pages_are_current():
    stale = pages.write_pages(ROOT, check=True)
    assert stale == [], f"stale pages {stale}: run `python -m dperm.docs`"


def test_the_scan_finds_the_sections_it_must():
    found = {(s.qualname, s.heading) for s in SECTIONS}
    assert ("spec.gaussian.analytic_sigma", "Privacy") in found
    assert ("spec.bst14.noisy_sgd_privacy.certified_epsilon", "Privacy") in found
    assert any(s.path.startswith("reference/") and s.heading == "Utility" for s in SECTIONS)
    assert not any(Path(s.path).name.startswith("test_") for s in SECTIONS)


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: f"{s.qualname}:{s.heading}")
def test_docstring_sections_name_only_registered_ids(section):
    """A renamed or removed record cannot leave a dangling reference in a Privacy/Utility section."""
    dangling = crossref.id_candidates(section.text, HEADS) - IDS
    assert not dangling, f"{section.path}:{section.lineno} {section.qualname} ({section.heading}) names {dangling}"


def _names_a_record_params():
    out = []
    for s in SECTIONS:
        should = NAMES_NO_RECORD_YET.get((s.qualname, s.heading))
        marks = [pytest.mark.xfail(strict=True, reason=f"should name {should}")] if should else []
        out.append(pytest.param(s, marks=marks, id=f"{s.qualname}:{s.heading}"))
    return out


@pytest.mark.parametrize("section", _names_a_record_params())
def test_every_docstring_section_names_a_record(section):
    assert crossref.record_ids(section.text, IDS), (
        f"{section.path}:{section.lineno} {section.qualname}: its {section.heading} section names no spec id"
    )


def _conf() -> dict:
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out


def test_sphinx_conf_declares_the_custom_sections():
    conf = _conf()
    assert "sphinx.ext.napoleon" in conf["extensions"] and conf["napoleon_numpy_docstring"] is True
    assert set(crossref.SECTIONS) <= set(conf["napoleon_custom_sections"])


def test_napoleon_renders_the_sections_as_titled_sections():
    napoleon = pytest.importorskip("sphinx.ext.napoleon")
    from sphinx.ext.napoleon.docstring import NumpyDocstring

    from spec import gaussian

    doc = inspect.cleandoc(gaussian.analytic_sigma.__doc__)
    rendered = str(NumpyDocstring(doc, napoleon.Config(napoleon_custom_sections=_conf()["napoleon_custom_sections"])))
    assert ".. rubric:: Privacy" in rendered and "``gaussian.analytic``" in rendered
    # without the declaration napoleon folds the section into the Returns field: the conf matters
    assert ".. rubric:: Privacy" not in str(NumpyDocstring(doc, napoleon.Config()))
