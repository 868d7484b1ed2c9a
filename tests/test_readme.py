"""README stays true: generated tables current, the two set-up commands present and runnable."""

from __future__ import annotations

import re
from pathlib import Path

from dperm.docs import update_readme

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def test_spec_table_is_current():
    assert update_readme(README, check=True), "README spec table is stale: run `python -m dperm.docs`"


def test_two_setup_commands():
    text = README.read_text()
    commands = re.findall(r"^python3 -m venv \.venv && .*$", text, re.M)
    assert len(commands) == 2, commands
    audit_cmd, test_cmd = commands
    assert audit_cmd.endswith("pytest audits")
    assert "pip install -e '.[test]'" in audit_cmd and "pip install -e '.[test]'" in test_cmd
    assert test_cmd.endswith("pytest tests audits")


def test_ci_runs_the_readme_test_command():
    block = re.search(r"<!-- ci:test-command -->\n```sh\n(.*)\n```\n<!-- /ci:test-command -->", README.read_text())
    assert block and block.group(1).endswith("pytest tests audits")
    assert "ci:test-command" in (ROOT / ".ci" / "run").read_text()
