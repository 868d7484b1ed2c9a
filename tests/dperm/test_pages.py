"""Reference pages generated from the registry (dperm/pages.py)."""

from __future__ import annotations

import re

import pytest

import spec
from dperm import crossref, pages
from spec.render import formula_latex

ROOT = crossref.repository_root()


@pytest.fixture(scope="module")
def generated() -> dict:
    return pages.pages(ROOT)


def test_every_record_is_on_exactly_one_page():
    groups = pages.page_groups()
    on_pages = [r.id for records in groups.values() for r in records]
    assert sorted(on_pages) == spec.ids()
    papers = set(spec.paper_packages())
    for key, records in groups.items():
        for r in records:
            head = r.id.split(".")[0]
            assert (head == key) if head in papers else (key == pages.PRIMITIVES), r.id
    assert "bst14" in groups and pages.PRIMITIVES in groups
    assert {"gaussian.analytic", "rdp.gaussian", "composition.advanced"} <= {r.id for r in groups["primitives"]}


def test_one_file_per_group_and_an_index(generated):
    names = {p.name for p in generated}
    assert names == {"README.md"} | {f"{key}.md" for key in pages.page_groups()}
    index = generated[pages.PAGES_DIR / "README.md"]
    for key in pages.page_groups():
        assert f"]({key}.md)" in index
    assert all(text.startswith(pages.GENERATED_MARK) for text in generated.values())


def test_a_record_section_has_every_part(generated):
    text = generated[pages.PAGES_DIR / "bst14.md"]
    record = spec.get("bst14.thm_II_1")
    section = text[text.index("## bst14.thm_II_1\n"):text.index("## bst14.thm_II_4\n")]
    assert "Algorithm 1 (A_Noise-GD) is (epsilon, delta)-differentially private." in section
    for f in record.formulas:  # every formula as a LaTeX math block
        assert f"  ```math\n  {formula_latex(record, f.name)}\n  ```" in section, f.name
    for a in record.assumptions:
        assert f"- `{a.name}`: $`" in section
    for flag in record.flags:
        for node in flag.checked_by:
            assert f"[`{node}`](../../{node.partition('::')[0]})" in section
    assert "`spec.bst14.noisy_sgd_privacy.certified_epsilon`" in section  # the accountant
    assert "- `accountant`: `sigma` by spec.bst14.noisy_sgd_privacy.sigma_accountant" in section
    assert re.search(r"- Reference: \[`reference\.bst14[\w.]*\.noise_gd`\]", section)
    assert "- Audit: [`audits/" in section


def test_algorithm_pages_link_the_tagged_functions(generated):
    text = generated[pages.PAGES_DIR / "bst14.md"]
    section = text[text.index("## bst14.alg_1\n"):text.index("## bst14.alg_2\n")]
    # the box's tags, split between configure (the calibration) and the loop (the rest)
    found = re.findall(r"- Reference: \[`reference\.[\w.]+`\]\(\.\./\.\./reference/[\w/]+\.py\) \(lines? ([L\d, ]+)\)",
                       section)
    assert sorted(label for group in found for label in group.split(", ")) == ["L1", "L2", "L3", "L4", "L5", "L6"], \
        section[-600:]
    for line in spec.get("bst14.alg_1").pseudocode:
        assert f"{line.label[1:]}. " in section


def test_every_relative_link_resolves(generated):
    for rel, text in generated.items():
        for target in re.findall(r"\]\((\.\./[^)#]+)\)", text):
            assert (ROOT / rel.parent / target).resolve().is_file(), (rel, target)


def test_every_anchor_resolves(generated):
    for rel, text in generated.items():
        anchors = {pages.slug(h) for h in re.findall(r"^## (.+)$", text, re.M)}
        for anchor in re.findall(r"\]\(#([^)]+)\)", text):
            assert anchor in anchors, (rel, anchor)


@pytest.mark.parametrize("heading, anchor", [("bst14.thm_II_1", "bst14thm_ii_1"),
                                              ("report_noisy_max.laplace", "report_noisy_maxlaplace"),
                                              ("A b-c", "a-b-c")])
def test_slug_is_githubs(heading, anchor):
    assert pages.slug(heading) == anchor


def test_table_cells_cannot_be_split_by_a_norm(generated):
    for text in generated.values():
        for row in re.findall(r"^\| \$`.*$", text, re.M):
            assert row.count("|") - row.count("\\|") == 4, row  # three cells: four unescaped bars


def test_write_pages_writes_checks_and_removes_only_generated_files(tmp_path, monkeypatch):
    fake = {pages.PAGES_DIR / "README.md": pages.GENERATED_MARK + "\nindex\n",
            pages.PAGES_DIR / "p.md": pages.GENERATED_MARK + "\npage\n"}
    monkeypatch.setattr(pages, "pages", lambda root=None: fake)
    folder = tmp_path / pages.PAGES_DIR
    folder.mkdir(parents=True)
    (folder / "old.md").write_text(pages.GENERATED_MARK + "\na page of a record prefix that left\n")
    (folder / "notes.md").write_text("hand written\n")
    assert set(pages.write_pages(tmp_path, check=True)) == set(fake) | {pages.PAGES_DIR / "old.md"}
    assert not (folder / "p.md").exists()  # check writes nothing
    pages.write_pages(tmp_path)
    assert (folder / "p.md").read_text() == fake[pages.PAGES_DIR / "p.md"]
    assert not (folder / "old.md").exists() and (folder / "notes.md").read_text() == "hand written\n"
    assert pages.write_pages(tmp_path, check=True) == []
