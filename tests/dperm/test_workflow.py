"""The researcher's day, as the README tells it: run bst14 Algorithm 1 on a CSV of your own with
``dperm run``, write a vector, replay it in your own code, and check the hand-written outputs
with ``dperm vectors check`` -- one mismatch reported precisely after a number is perturbed.

The commands are the README's own (the block between the ``researcher:workflow`` markers), run
by bash in a fresh directory with the installed ``dperm`` command; "your own code" is the
standard-library replay of tests/reference/vectors/test_replay_independent.py, written from the
README alone.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def _workflow() -> tuple[str, str]:
    """(commands up to the replay comment, the check command) of the README's workflow block."""
    block = re.search(r"<!-- researcher:workflow -->\n```sh\n(.*?)```\n<!-- /researcher:workflow -->",
                      README.read_text(), re.S)
    assert block, "README has no researcher:workflow block"
    before, _, after = block.group(1).partition("\n# ...")
    check = after.split("\n", 1)[1].strip()
    assert check.startswith("dperm vectors check ")
    return before, check


def _replayer():
    path = ROOT / "tests" / "reference" / "vectors" / "test_replay_independent.py"
    spec = importlib.util.spec_from_file_location("replay_independent", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def shell(tmp_path):
    """bash in a fresh directory, with the installed ``dperm`` first on PATH (a shim running this
    interpreter's ``-m dperm`` when the script is not next to it)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    installed = Path(sys.executable).parent / "dperm"
    if installed.exists():
        shutil.copy(installed, bin_dir / "dperm")
    else:  # pragma: no cover - an environment without the console script
        (bin_dir / "dperm").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m dperm "$@"\n')
    (bin_dir / "dperm").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}

    def run(script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", "set -euo pipefail\n" + script], cwd=work, env=env,
                              capture_output=True, text=True, timeout=600)

    run.work = work
    return run


def test_run_write_a_vector_and_check_hand_written_outputs(shell):
    setup, check = _workflow()
    done = shell(setup)
    assert done.returncode == 0, done.stderr
    assert "spec ids: bst14.alg_1, bst14.thm_II_1, bst14.thm_II_4" in done.stdout
    assert "seed: 7" in done.stdout and "vector: my-run.json" in done.stdout
    vector = json.loads((shell.work / "my-run.json").read_text())
    assert vector["algorithm"] == "bst14 Alg.1" and vector["inputs"]["data"][3] == [-0.6, 0.0, 0.8, -1.0]

    # your implementation: replays the tape and writes its outputs
    mine = _replayer().replay_alg1(vector)
    outputs = json.loads(json.dumps({  # a copy: the replay's last state is its output
        "output": {"theta": mine["output"]},
        "checkpoints": [{"step": c["step"], "theta": mine["states"][c["step"]]} for c in vector["checkpoints"]]}))
    (shell.work / "mine.json").write_text(json.dumps(outputs))
    ok = shell(check)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("my-run: ok: ") and "values match" in ok.stdout

    # one number off by 1e-6: the first (and only) mismatch, precisely
    want = vector["output"]["theta"][0][2]
    outputs["output"]["theta"][0][2] = want + 1e-6
    (shell.work / "mine.json").write_text(json.dumps(outputs))
    bad = shell(check)
    assert bad.returncode == 1 and bad.stderr == ""
    first = bad.stdout.splitlines()[0]
    allowed = 1e-9 + 1e-9 * abs(want)
    assert first == (f"my-run: MISMATCH at output.theta[0][2]: got {want + 1e-6!r}, want {want!r}, "
                     f"|got - want| = 1e-06 > allowed {allowed:.3g} (absolute 1e-09 + relative 1e-09 x |want|)")
    assert bad.stdout.splitlines()[1].endswith("; 1 mismatch")
    # the README quotes this very line (when this numpy build draws the README's tape from seed 7)
    shown = re.search(r"A mismatch reads `(.*?)`", " ".join(README.read_text().split())).group(1)
    if f"want {want!r}" in shown and "relative 1e-09" in shown:  # the README's quote, once updated
        assert shown == first
