"""README stays true: the two set-up commands present and runnable, the
Python quick start and the command-line examples print what they show."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


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


def test_python_quick_start_runs():
    """The README's `>>>` examples are doctests: they print what they show."""
    import doctest

    result = doctest.testfile(str(README), module_relative=False)
    assert result.attempted >= 16 and result.failed == 0


def _console_examples():
    """(command, shown output) for every `$ dperm ...` line of the README's console blocks."""
    import shlex

    out = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), re.S):
        lines = block.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for k, i in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(lines)
            argv = shlex.split(lines[i][2:])
            out.append((argv, "\n".join(lines[i + 1:end])))
    return out


@pytest.mark.parametrize("argv, shown", _console_examples(), ids=lambda x: " ".join(x) if isinstance(x, list) else "")
def test_console_examples_print_what_they_show(capsys, argv, shown):
    """Each command's stderr then stdout, as a terminal shows them (warnings come first)."""
    from dperm.cli import main

    assert argv[0] == "dperm"
    assert main(argv[1:]) == 0
    out, err = capsys.readouterr()
    assert (err + out).rstrip("\n") == shown


def test_the_readme_documents_the_record_verbs():
    verbs = {tuple(argv[1:2]) + (("--eval",) if "--eval" in argv else ()) for argv, _ in _console_examples()}
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
