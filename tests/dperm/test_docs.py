"""``python -m dperm.docs`` (dperm/docs.py): one command regenerates the generated documentation (the
pages and their records table, tests/test_docs.py; the vectors' departures table, below)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dperm import docs, pages


def test_update_block_rewrites_only_between_its_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("intro\n<!-- t -->\nold\n<!-- /t -->\nend\n")
    assert docs.update_block(page, "t", "new", check=True) is False
    assert "old" in page.read_text()  # check writes nothing
    assert docs.update_block(page, "t", "new") is False
    assert page.read_text() == "intro\n<!-- t -->\nnew\n<!-- /t -->\nend\n"
    assert docs.update_block(page, "t", "new") is True
    with pytest.raises(ValueError, match="no <!-- u --> ... <!-- /u --> block"):
        docs.update_block(page, "u", "x")


def test_main_reports_what_is_stale_and_writes_the_departures_table(tmp_path, monkeypatch, capsys):
    written = []
    monkeypatch.setattr(pages, "write_pages", lambda root, check=False: [] if check else written.append(root) or [])
    page = tmp_path / docs.VECTORS_PAGE
    page.parent.mkdir(parents=True)
    page.write_text("# Vectors\n<!-- departures -->\n<!-- /departures -->\n")
    assert docs.main(["--root", str(tmp_path), "--check"]) == 1
    assert f"{page}: stale" in capsys.readouterr().out and "erratum:" not in page.read_text()
    assert docs.main(["--root", str(tmp_path)]) == 0 and written == [Path(tmp_path)]
    assert "`erratum:wang17.alg_3:noisy-y-step`" in page.read_text()
    assert docs.main(["--root", str(tmp_path), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_the_records_table_is_on_the_spec_index_page():
    index = pages.render_index(pages.page_groups())
    assert "## Spec records" in index and docs.spec_table() in index
