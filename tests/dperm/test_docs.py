"""``python -m dperm.docs`` (dperm/docs.py): one command regenerates the README table and the pages."""

from __future__ import annotations

from dperm import docs


def test_check_reports_a_stale_readme_without_writing(tmp_path, capsys):
    readme = tmp_path / "README.md"
    stale = f"intro\n{docs.BEGIN}\nold table\n{docs.END}\n"
    readme.write_text(stale)
    assert docs.main([str(readme), "--check"]) == 1
    assert readme.read_text() == stale and f"{readme}: stale" in capsys.readouterr().out
    assert docs.main([str(readme)]) == 0
    assert docs.spec_table() in readme.read_text() and docs.main([str(readme), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out

