"""``dperm run``: a reference algorithm on the user's data (dperm/run.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dperm.cli import main
from dperm.run import load_data
from reference import bst14, domains, losses
from reference.algorithms import algorithms

HINGE_ROWS = [[0.6, 0.0, 0.0, 1.0], [0.0, 0.8, 0.0, -1.0], [0.3, 0.4, 0.0, 1.0], [-0.6, 0.0, 0.8, -1.0]]
ALG1 = ["run", "bst14.alg_1", "data.csv", "--loss", "Hinge", "feature_norm=1", "--domain", "L2Ball", "radius=1", "dim=3",
        "--epsilon", "1", "--delta", "1e-5", "--schedule", "lipschitz"]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = ["x1,x2,x3,y"] + [",".join(repr(v) for v in row) for row in HINGE_ROWS]
    (tmp_path / "data.csv").write_text("\n".join(lines) + "\n")
    return tmp_path


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def direct(seed, runs=1):
    return bst14.noise_gd(np.array(HINGE_ROWS), loss=losses.Hinge(feature_norm=1.0),
                          domain=domains.L2Ball(radius=1.0, dim=3), epsilon=1.0, delta=1e-5, schedule="lipschitz",
                          runs=runs, rng=seed)


def test_text_output_names_spec_ids_calibration_seed_and_output(here, capsys):
    status, out, err = run(capsys, *ALG1, "--seed", "7")
    assert status == 0 and err == ""
    want = direct(7)
    lines = out.splitlines()
    assert lines[0] == "bst14.alg_1: bst14 Algorithm 1 (reference.bst14.noisy_sgd.noise_gd)"
    assert "loss Hinge(feature_norm=1.0); domain L2Ball(radius=1.0, dim=3)" in lines[1]
    assert "n = 4 rows of 4 columns" in lines[1]
    assert lines[2] == ("parameters: epsilon=1.0, delta=1e-05, schedule='lipschitz', runs=1; "
                        "defaults: calibration='printed'")
    assert lines[3] == "spec ids: bst14.alg_1, bst14.thm_II_1, bst14.thm_II_4"
    assert lines[4] == "seed: 7 (--seed 7 reproduces this run)"
    shown = {line.split("=")[0].strip(): line.split("=", 1)[1].strip() for line in lines[5:]}
    assert shown == {"sigma": repr(want.sigma), "steps": "15", "schedule": "'lipschitz'",
                     "calibration": "'printed'", "theta[0]": repr(want.theta[0].tolist())}
    assert list(shown)[-1] == "theta[0]"  # the calibration first, then the output


def test_json_output_and_reproducibility(here, capsys):
    status, out, _ = run(capsys, *ALG1, "--seed", "11", "--runs", "3", "--json")
    assert status == 0
    got = json.loads(out)
    want = direct(11, runs=3)
    assert got["result"]["theta"] == want.theta.tolist() and got["result"]["sigma"] == want.sigma
    assert got["result"]["learning_rates"] == want.learning_rates.tolist()
    assert got["seed"] == 11 and got["spec_ids"] == list(want.spec_ids)
    assert got["parameters"] == {"epsilon": 1.0, "delta": 1e-5, "schedule": "lipschitz", "runs": 3}
    assert got["defaults"] == {"calibration": "printed"} and got["vector"] is None
    assert got["infinite"] == [] and got["warnings"] == []
    assert out.startswith('{\n  "algorithm": "bst14.alg_1"')  # the verbs' one JSON style: indented by 2


def test_a_drawn_seed_is_printed_and_reproduces_the_run(here, capsys):
    _, out, _ = run(capsys, *ALG1, "--json")
    first = json.loads(out)
    _, out, _ = run(capsys, *ALG1, "--json", "--seed", str(first["seed"]))
    assert json.loads(out)["result"] == first["result"]


def test_more_runs_than_shown(here, capsys):
    _, out, _ = run(capsys, *ALG1, "--seed", "1", "--runs", "12")
    assert "theta[9] " in out and "theta[10]" not in out
    assert "... 2 more runs (--json or --vector has them all)" in out


def test_vector_is_written(here, capsys):
    status, out, _ = run(capsys, *ALG1, "--seed", "3", "--vector", "My Run.json")
    assert status == 0
    vector = json.loads((here / "My Run.json").read_text())
    assert vector["id"] == "my-run" and vector["output"]["theta"] == direct(3).theta.tolist()
    assert len(vector["tape"]["entries"]) == 30 and [c["step"] for c in vector["checkpoints"]] == [1, 2, 7, 15]
    assert ("vector: My Run.json (30 tape entries, 4 checkpoints); compare your implementation's outputs with: "
            "dperm vectors check My Run.json --outputs MINE.json") in out
    jsonschema = pytest.importorskip("jsonschema")
    from reference.vectors.generate import SCHEMA_PATH

    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text())).validate(vector)


def test_config_files(here, capsys):
    pytest.importorskip("tomllib")
    (here / "sub").mkdir()
    (here / "sub" / "run.toml").write_text('''
algorithm = "bst14.alg_1"
data = "../data.csv"
seed = 7
[loss]
name = "Hinge"
bounds = {feature_norm = 1}
[domain]
name = "L2Ball"
parameters = {radius = 1.0, dim = 3}
[parameters]
epsilon = 1
delta = 1e-5
schedule = "lipschitz"
''')
    status, out, err = run(capsys, "run", "--config", "sub/run.toml", "--json")
    assert status == 0, err
    assert status == 0 and json.loads(out)["result"]["theta"] == direct(7).theta.tolist()
    # the command line overrides the file
    _, out, _ = run(capsys, "run", "--config", "sub/run.toml", "--json", "--seed", "8")
    assert json.loads(out)["result"]["theta"] == direct(8).theta.tolist()
    # the keywords beside the name, as dperm/run.py's docstring shows them
    (here / "sub" / "flat.toml").write_text('''
algorithm = "bst14.alg_1"
data = "../data.csv"
seed = 7
[loss]
name = "Hinge"
feature_norm = 1
[domain]
name = "L2Ball"
radius = 1.0
dim = 3
[parameters]
epsilon = 1
delta = 1e-5
schedule = "lipschitz"
''')
    status, out, err = run(capsys, "run", "--config", "sub/flat.toml", "--json")
    assert status == 0, err
    assert json.loads(out)["result"]["theta"] == direct(7).theta.tolist()
    (here / "sub" / "bad.toml").write_text('algorithm = "bst14.alg_1"\n[loss]\nname = "Hinge"\nbounds = 1\n')
    status, _, err = run(capsys, "run", "--config", "sub/bad.toml", "data.csv")
    assert status == 2 and err == "dperm: error: --loss in the config: bounds (1) must be a table of keywords\n"
    (here / "run.json").write_text(json.dumps({
        "algorithm": "bst14.alg_3", "data": "q.csv", "seed": 2,
        "loss": {"name": "HalfSquaredDistance", "bounds": {"data_norm": 1, "domain_radius": 1}},
        "domain": {"name": "L2Ball", "parameters": {"radius": 1, "dim": 2}},
        "parameters": {"epsilon": 1.0, "zeta": 2}}))
    np.save(here / "q.npy", np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]]))
    (here / "q.csv").write_text("0.6,0.8\n1.0,0.0\n0.0,-1.0\n")
    status, out, err = run(capsys, "run", "--config", "run.json", "--json")
    assert status == 0, err
    assert status == 0
    got = json.loads(out)
    assert got["algorithm"] == "bst14.alg_3" and got["parameters"]["zeta"] == 2.0
    status, out2, _ = run(capsys, "run", "--config", "run.json", "q.npy", "--json")
    assert json.loads(out2)["result"] == got["result"]


def test_every_algorithm_has_a_usage_line(capsys):
    """dperm run --list covers every algorithm of the registry (any paper), and each has --help."""
    status, out, _ = run(capsys, "run", "--list", "--json")
    assert status == 0
    listed = json.loads(out)
    assert [r["algorithm"] for r in listed["algorithms"]] == list(algorithms())
    assert "Hinge" in listed["losses"] and listed["domains"]["L2Ball"] == ["radius", "dim", "center=None"]
    for record_id in algorithms():
        with pytest.raises(SystemExit) as info:
            main(["run", record_id, "--help"])
        assert info.value.code == 0
        assert f"parameters of {record_id}" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["run"], "run needs an algorithm: dperm run ALGORITHM DATA"),
    (["run", "bst14.alg_9", "data.csv"], "ALGORITHM (bst14.alg_9) must be an algorithm record id"),
    (["run", "bst14.alg1", "data.csv"], "did you mean bst14.alg_1"),
    (["run", "bst14.alg_1"], "run bst14.alg_1 needs DATA"),
    (["run", "bst14.alg_1", "missing.csv"], "data (missing.csv) must be an existing file"),
    (ALG1[:3] + ["--epsilon", "1"], "run bst14.alg_1 needs --loss NAME KEY=VALUE"),
    (ALG1[:10], "the following arguments are required for run bst14.alg_1: --epsilon, --delta, --schedule"),
    (ALG1 + ["--zeta", "2"], "unrecognized arguments: --zeta 2"),
    (ALG1 + ["--runs", "1.5"], "--runs (1.5) must be an integer"),
    ([*ALG1[:-4], "--delta", "abc", "--schedule", "lipschitz"], "--delta (abc) must be a real number"),
    ([*ALG1[:-1], "newton"], "schedule ('newton') must be one of"),
    ([*ALG1[:5], "feature_norm=0.5", *ALG1[6:]], "DataBoundError"),
    ([*ALG1[:4], "Hinge", "feature_nrm=1", *ALG1[6:]], "--loss Hinge: unknown keyword feature_nrm"),
    ([*ALG1[:4], "Hinge", "1", *ALG1[6:]], "--loss Hinge: '1' must look like key=value"),
    ([*ALG1[:8], "radius=1", "dim=2", *ALG1[10:]], "domain (dimension 2) must have the data's dimension p (3)"),
    ([*ALG1, "--theta-1", "[[5, 0, 0]]"], "theta_1 ([[5.0, 0.0, 0.0]]) must lie in the domain"),
    (["run", "--list", "bst14.alg_1"], "--list takes no other argument (got algorithm)"),
])
def test_bad_arguments_exit_2_with_one_line(here, capsys, argv, message):
    if argv and argv[0] != "run":
        argv = ["run", *argv]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("dperm: error: ") and err.count("\n") == 1, err
    if message == "DataBoundError":
        assert "feature_norm" in err and "0.5" in err
    else:
        assert message in err, err


def test_load_data(tmp_path):
    (tmp_path / "a.csv").write_text("a,b\n1,2\n\n3,4\n")
    assert load_data(tmp_path / "a.csv").tolist() == [[1.0, 2.0], [3.0, 4.0]]
    (tmp_path / "b.csv").write_text("1,2\n3,x\n")
    with pytest.raises(Exception, match=r"line 2: 'x' is not a number"):
        load_data(tmp_path / "b.csv")
    (tmp_path / "c.csv").write_text("1,2\n3\n")
    with pytest.raises(Exception, match="row 2 has 1, row 1 has 2"):
        load_data(tmp_path / "c.csv")
    np.save(tmp_path / "d.npy", np.arange(3.0))
    assert load_data(tmp_path / "d.npy").shape == (3, 1)
    np.save(tmp_path / "e.npy", np.array(["a", "b"]))
    with pytest.raises(Exception, match="must be a numeric array"):
        load_data(tmp_path / "e.npy")
