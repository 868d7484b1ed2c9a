"""``dperm vectors list`` and ``dperm vectors check`` (dperm/vectors_cli.py)."""

from __future__ import annotations

import json

import pytest

from dperm.cli import main
from reference.vectors.check import load_vector
from reference.vectors.generate import vector_files


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_list(capsys):
    status, out, _ = run(capsys, "vectors", "list")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["id", "algorithm", "flags;", "spec", "ids"]
    assert len(lines) == 1 + len(vector_files())
    row = next(line for line in lines if line.startswith("bst14-alg1-hinge-ball-kink "))
    assert "printed-calibration, projection-active, subgradient, kink; bst14.alg_1, bst14.thm_II_1" in row
    status, out, _ = run(capsys, "vectors", "list", "--paper", "bst14", "--json")
    rows = json.loads(out)
    assert {r["file"] for r in rows} == {f"reference/vectors/bst14/{p.name}" for p in vector_files()
                                         if p.parent.name == "bst14"}
    assert run(capsys, "vectors", "list", "--paper", "nope")[0] == 2


@pytest.fixture
def mine(tmp_path):
    vector = load_vector("bst14-alg3-quadratic-ball")

    def write(perturb=None):
        outputs = {"output": json.loads(json.dumps(vector["output"])),
                   "checkpoints": [{"step": c["step"], "theta": c["theta"]} for c in vector["checkpoints"]]}
        if perturb:
            perturb(outputs)
        path = tmp_path / "mine.json"
        path.write_text(json.dumps(outputs))
        return str(path)

    write.vector = vector
    return write


def test_check_ok_and_mismatch_exit_statuses(capsys, mine):
    status, out, err = run(capsys, "vectors", "check", "bst14-alg3-quadratic-ball", "--outputs", mine())
    assert status == 0 and err == "" and out.startswith("bst14-alg3-quadratic-ball: ok: 13 values match")

    def two_off(o):
        o["output"]["theta"][1][0] += 1e-3
        o["output"]["radius"] *= 2

    status, out, err = run(capsys, "vectors", "check", "bst14-alg3-quadratic-ball", "--outputs", mine(two_off))
    assert status == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("bst14-alg3-quadratic-ball: MISMATCH at output.radius: got ")  # the file's order
    assert lines[1].endswith("; 2 mismatches") and len(lines) == 2
    status, out, _ = run(capsys, "vectors", "check", "bst14-alg3-quadratic-ball", "--outputs", mine(two_off), "--all")
    assert status == 1 and [line.split(":")[0] for line in out.splitlines()[2:]] == [
        "  output.radius", "  output.theta[1][0]"]
    status, out, _ = run(capsys, "vectors", "check", "bst14-alg3-quadratic-ball", "--outputs", mine(two_off), "--json")
    got = json.loads(out)
    assert status == 1 and got["ok"] is False and [m["where"] for m in got["mismatches"]] == [
        "output.radius", "output.theta[1][0]"]
    assert out.startswith('{\n  "vector": ')  # one JSON style: indented by 2


@pytest.mark.parametrize("argv, message", [
    (["vectors"], "vectors needs an action: list or check"),
    (["vectors", "check", "bst14-alg3-quadratic-ball"], "the following arguments are required: --outputs"),
    (["vectors", "check", "bst14-alg3-quadratic", "--outputs", "x.json"], "did you mean bst14-alg3-quadratic-ball"),
    (["vectors", "check", "bst14-alg3-quadratic-ball", "--outputs", "missing.json"], "outputs (missing.json) cannot be read"),
    (["vectors", "frob"], "invalid choice: 'frob'"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("dperm: error: ") and err.count("\n") == 1 and message in err, err


def test_bad_outputs_exit_2(capsys, tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"outputs": {}}))
    status, _, err = run(capsys, "vectors", "check", "bst14-alg3-quadratic-ball", "--outputs", str(path))
    assert status == 2 and "outputs key ('outputs') must be one of derived, checkpoints, output" in err
