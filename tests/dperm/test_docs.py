"""``python -m dperm.docs`` (dperm/docs.py): one command regenerates the pages and their records table."""

from __future__ import annotations

from dperm import docs, pages


def test_check_reports_a_stale_page_without_writing(tmp_path, capsys):
    index = tmp_path / pages.PAGES_DIR / "README.md"
    index.parent.mkdir(parents=True)
    stale = pages.GENERATED_MARK + "\nold index\n"
    index.write_text(stale)
    assert docs.main(["--root", str(tmp_path), "--check"]) == 1
    assert index.read_text() == stale and f"{index}: stale" in capsys.readouterr().out
    assert docs.main(["--root", str(tmp_path)]) == 0
    assert docs.spec_table() in index.read_text() and docs.main(["--root", str(tmp_path), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
