"""README and the guides stay true: the two set-up commands present and runnable, the Python
examples and the command-line examples print what they show, the README a front door (<= 250
lines) whose links resolve."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The README and the guides that carry what it held before it became a front door: their examples
#: are checked here (docs/auditing-your-code.md has its own test; the generated docs/spec pages are
#: checked by tests/test_docs.py).
PAGES = [README] + [ROOT / "docs" / name for name in ("quick-start.md", "command-line.md", "auditing.md")] + sorted(
    (ROOT / "docs" / "vectors").glob("*.md"))
#: Every hand-written Markdown page, for the link check.
ALL_PAGES = [README] + sorted(p for p in (ROOT / "docs").rglob("*.md") if "spec" not in p.relative_to(ROOT / "docs").parts)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_two_setup_commands():
    text = README.read_text()
    commands = re.findall(r"^python3 -m venv \.venv && .*$", text, re.M)
    assert len(commands) == 2, commands
    audit_cmd, test_cmd = commands
    assert audit_cmd.endswith("pytest audits")
    assert "pip install -e '.[test]'" in audit_cmd and "pip install -e '.[test]'" in test_cmd
    assert test_cmd.endswith("pytest tests audits -n 2")  # both cores (pytest-xdist, in the test extra)


def test_ci_runs_the_readme_test_command():
    block = re.search(r"<!-- ci:test-command -->\n```sh\n(.*)\n```\n<!-- /ci:test-command -->", README.read_text())
    assert block and block.group(1).endswith("pytest tests audits -n 2")
    assert "ci:test-command" in (ROOT / ".ci" / "run").read_text()


def test_readme_is_a_front_door():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    for heading in ("## Set up", "### Reader", "### Researcher", "### Auditor", "## Layout", "## Further reading"):
        assert heading in text, heading


@pytest.mark.parametrize("page", ALL_PAGES, ids=_rel)
def test_relative_links_resolve(page):
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
        if "://" in target:
            continue
        assert (page.parent / target).exists(), f"{_rel(page)} links to {target}, which does not exist"


@pytest.mark.parametrize("page", [p for p in PAGES if ">>> " in p.read_text()], ids=_rel)
def test_python_examples_run(page, monkeypatch):
    """A page's `>>>` examples are doctests: they print what they show (run from the repository root,
    where the examples' relative paths point)."""
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 1 and result.failed == 0


def test_the_readme_keeps_a_first_result_for_each_reader():
    """Python examples for the reader and the auditor, the researcher's command-line workflow."""
    text = README.read_text()
    assert len(re.findall(r"^>>> ", text, re.M)) >= 12
    assert "<!-- researcher:workflow -->" in text and "dperm vectors check " in text


def _console_examples():
    """(page, command, shown output) for every `$ dperm ...` line of the pages' console blocks."""
    import shlex

    out = []
    for page in PAGES:
        for block in re.findall(r"```console\n(.*?)```", page.read_text(), re.S):
            lines = block.splitlines()
            starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
            for k, i in enumerate(starts):
                end = starts[k + 1] if k + 1 < len(starts) else len(lines)
                argv = shlex.split(lines[i][2:])
                out.append((page, argv, "\n".join(lines[i + 1:end])))
    return out


@pytest.mark.parametrize("page, argv, shown", _console_examples(),
                         ids=lambda x: " ".join(x) if isinstance(x, list) else (_rel(x) if isinstance(x, Path) else ""))
def test_console_examples_print_what_they_show(capsys, page, argv, shown):
    """Each command's stderr then stdout, as a terminal shows them (warnings come first)."""
    from dperm.cli import main

    assert argv[0] == "dperm"
    assert main(argv[1:]) == 0
    out, err = capsys.readouterr()
    assert (err + out).rstrip("\n") == shown


def test_the_docs_document_the_record_verbs():
    verbs = {tuple(argv[1:2]) + (("--eval",) if "--eval" in argv else ()) for _, argv, _ in _console_examples()}
    assert {("spec", "--eval"), ("calibrate",), ("epsilon",), ("vectors",)} <= verbs
    text = README.read_text()
    for verb in ("dperm run ", "dperm vectors check ", "dperm calibrate ", "dperm epsilon ", "dperm spec "):
        assert verb in text, verb


def test_the_readme_states_the_default_audit_seed():
    from audits.plugin import DEFAULT_SEED

    assert f"fixed default seed {DEFAULT_SEED}" in README.read_text()


def test_pyproject_test_extra_has_xdist():
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        pytest.skip("tomllib needs Python 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert any(dep.startswith("pytest-xdist") for dep in project["optional-dependencies"]["test"])
    assert not any(dep.startswith("pytest-xdist") for dep in project["dependencies"])
