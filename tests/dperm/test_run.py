"""``dperm run``: a reference algorithm on the user's data (dperm/run.py)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from dperm.cli import main
from dperm.run import load_data
from reference import bst14, domains, losses
from reference.algorithms import boxes, label

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


def test_text_output_is_the_configuration_then_the_run(here, capsys):
    """The configuration table (constants with their source, calibration, claim, work, spec ids),
    then the seed and the output."""
    status, out, err = run(capsys, *ALG1, "--seed", "7")
    assert status == 0 and err == ""
    want = direct(7)
    assert out.startswith("bst14.alg_1: bst14 Algorithm 1 -- ")
    assert "lipschitz  1.0  (declared by Hinge(feature_norm=1.0) for rows within its bounds)" in out
    assert f"sigma " in out and repr(want.sigma) in out
    assert "claim: (epsilon = 1.0, delta = 1e-05)-DP under replace-one: proven" in out
    assert "spec ids: bst14.alg_1, bst14.thm_II_1, bst14.thm_II_4" in out
    assert "work: 15 gradient evaluations per run" in out and "flags: printed-calibration" in out
    assert "seed: 7 (--seed 7 reproduces this run)" in out
    assert out.splitlines()[-1] == f"theta[0]  = {want.theta[0].tolist()!r}"


def test_json_output_and_reproducibility(here, capsys):
    status, out, _ = run(capsys, *ALG1, "--seed", "11", "--runs", "3", "--json")
    assert status == 0
    got = json.loads(out)
    want = direct(11, runs=3)
    assert got["result"]["theta"] == want.theta.tolist() and got["result"]["sigma"] == want.sigma
    assert got["configuration"]["calibration"]["learning_rates"] == want.learning_rates.tolist()
    assert got["configuration"]["constants"][0] == {
        "name": "lipschitz", "value": 1.0, "source": "declared by Hinge(feature_norm=1.0) for rows within its bounds"}
    assert got["configuration"]["claim"]["proven"] is True
    assert got["seed"] == 11 and got["spec_ids"] == list(want.spec_ids)
    assert got["parameters"] == {"epsilon": 1.0, "delta": 1e-5, "schedule": "lipschitz"}
    assert got["vector"] is None and got["infinite"] == [] and got["warnings"] == []
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
    assert vector["flags"] == ["printed-calibration"]
    assert ("vector: My Run.json (30 tape entries; flags: printed-calibration); compare your implementation's "
            "outputs with: dperm vectors check My Run.json --outputs MINE.json") in out
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
loss = {name = "Hinge", feature_norm = 1}
domain = {name = "L2Ball", radius = 1.0, dim = 3}
[parameters]
epsilon = 1
delta = 1e-5
schedule = "lipschitz"
''')
    status, out, err = run(capsys, "run", "--config", "sub/run.toml", "--json")
    assert status == 0, err
    assert json.loads(out)["result"]["theta"] == direct(7).theta.tolist()
    # the command line overrides the file
    _, out, _ = run(capsys, "run", "--config", "sub/run.toml", "--json", "--seed", "8")
    assert json.loads(out)["result"]["theta"] == direct(8).theta.tolist()
    # one spelling: keywords beside the name; a nested table is refused with the spelling that works
    (here / "sub" / "nested.toml").write_text('algorithm = "bst14.alg_1"\n[loss]\nname = "Hinge"\nbounds = {feature_norm = 1}\n')
    status, _, err = run(capsys, "run", "--config", "sub/nested.toml", "data.csv")
    assert status == 2 and "write the keywords beside the name" in err and err.count("\n") == 1
    (here / "run.json").write_text(json.dumps({
        "algorithm": "bst14.alg_3", "data": "q.csv", "seed": 2,
        "loss": {"name": "HalfSquaredDistance", "data_norm": 1, "domain_radius": 1},
        "domain": {"name": "L2Ball", "radius": 1, "dim": 2},
        "parameters": {"epsilon": 1.0, "zeta": 2}}))
    np.save(here / "q.npy", np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]]))
    (here / "q.csv").write_text("0.6,0.8\n1.0,0.0\n0.0,-1.0\n")
    status, out, err = run(capsys, "run", "--config", "run.json", "--json")
    assert status == 0, err
    got = json.loads(out)
    assert got["algorithm"] == "bst14.alg_3" and got["parameters"]["zeta"] == 2.0
    status, out2, _ = run(capsys, "run", "--config", "run.json", "q.npy", "--json")
    assert json.loads(out2)["result"] == got["result"]


def test_every_algorithm_has_a_usage_line(capsys):
    """dperm run --list covers every box of the registry (any paper), and each has --help."""
    status, out, _ = run(capsys, "run", "--list", "--json")
    assert status == 0
    listed = json.loads(out)
    assert [r["algorithm"] for r in listed["algorithms"]] == list(boxes())
    assert "Hinge" in listed["losses"] and listed["domains"]["L2Ball"] == ["radius", "dim", "center=None"]
    assert set(listed["regularisers"]) >= {"L1Regulariser", "L2Regulariser"}
    for record_id in boxes():
        with pytest.raises(SystemExit) as info:
            main(["run", record_id, "--help"])
        assert info.value.code == 0
        assert f"options of {record_id}" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["run"], "run needs an algorithm: dperm run ALGORITHM DATA"),
    (["run", "bst14.alg_9", "data.csv"], "ALGORITHM (bst14.alg_9) is not an algorithm record id"),
    (["run", "bst14.alg1", "data.csv"], "did you mean bst14.alg_1"),
    (["run", "bst14.alg_1"], "run bst14.alg_1 needs DATA"),
    (["run", "bst14.alg_1", "missing.csv"], "data (missing.csv) must be an existing file"),
    (ALG1[:3] + ["--epsilon", "1"], "bst14.alg_1 needs --loss NAME KEY=VALUE"),
    (ALG1[:10], "the following arguments are required for bst14.alg_1: --epsilon, --delta, --schedule"),
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


# ------------------------------------------------------------------------------------------------
# The "Why": each of these failed on the code before configure-then-run (issue 19).

LOGISTIC_ROWS = [[0.3, 0.4, 0.1, 1.0], [-0.5, 0.1, 0.2, -1.0], [0.2, -0.6, 0.0, 1.0], [0.0, 0.5, -0.3, -1.0],
                 [0.4, 0.4, 0.4, 1.0], [-0.3, -0.2, 0.5, -1.0]]


@pytest.fixture
def logistic(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.csv").write_text("\n".join(",".join(map(repr, r)) for r in LOGISTIC_ROWS) + "\n")
    return tmp_path


def _check_own_outputs(capsys, path):
    """dperm vectors check with the vector's own outputs, derived values and checkpoints: ok, exit 0."""
    vector = json.loads(path.read_text())
    mine = path.with_name("mine.json")
    mine.write_text(json.dumps({k: vector[k] for k in ("output", "derived", "checkpoints")}))
    status, out, err = run(capsys, "vectors", "check", str(path), "--outputs", str(mine))
    assert status == 0 and " ok: " in out, out + err
    return vector


@pytest.mark.parametrize("argv", [
    ["wang19.alg_1", "--domain", "L2Ball", "radius=1", "dim=3", "--steps", "3"],
    ["wang17.alg_1", "--regulariser", "L2Regulariser", "strength=0.5", "--epochs", "1", "--epoch-length", "2",
     "--learning-rate", "0.1"],
    ["zhang17.alg_1", "--regulariser", "L2Regulariser", "strength=0.5", "--steps", "2"],
], ids=["wang19-theta_1", "wang17-domain", "zhang17-regulariser"])
def test_vector_of_the_papers_that_raised_key_errors(logistic, capsys, argv):
    """wang19.alg_1 raised KeyError 'theta_1', wang17.alg_1 'domain', zhang17.alg_1 regularised 'regulariser'."""
    status, out, err = run(capsys, "run", *argv[:1], "d.csv", "--loss", "Logistic", "feature_norm=1", *argv[1:],
                           "--epsilon", "1", "--delta", "1e-5", "--seed", "3", "--vector", "v.json")
    assert status == 0, err
    _check_own_outputs(capsys, logistic / "v.json")


def test_regulariser_as_json_is_a_regulariser_not_a_mirror_map(logistic, capsys):
    """'--regulariser {"name": "L2Regulariser", ...}' was looked up among wang17's mirror maps."""
    status, out, err = run(capsys, "run", "wang17.alg_1", "d.csv", "--loss", "Logistic", "feature_norm=1",
                           "--regulariser", '{"name": "L2Regulariser", "strength": 0.5}', "--epsilon", "1",
                           "--delta", "1e-5", "--seed", "1", "--json")
    assert status == 0, err
    got = json.loads(out)
    assert got["configuration"]["regulariser"] == "L2Regulariser(strength=0.5)"
    assert got["configuration"]["calibration"]["contraction"] < 0.5  # Theorem 4.2's strongly convex defaults


def test_config_reaches_dp_svrgs_strongly_convex_route(logistic, capsys):
    (logistic / "svrg.json").write_text(json.dumps({
        "algorithm": "wang17.alg_1", "data": "d.csv", "seed": 2, "loss": {"name": "Logistic", "feature_norm": 1},
        "regulariser": {"name": "L2Regulariser", "strength": 0.5}, "parameters": {"epsilon": 1, "delta": 1e-5}}))
    status, out, err = run(capsys, "run", "--config", "svrg.json", "--json")
    assert status == 0, err
    assert json.loads(out)["configuration"]["constants"][-1]["name"] == "regulariser strong_convexity"


def test_logistic_with_a_regulariser_runs_zhang17_and_prints_the_lipschitz_constant(logistic, capsys):
    """Logistic(feature_norm=1) was refused by zhang17.alg_1, and no run printed the L it used."""
    status, out, err = run(capsys, "run", "zhang17.alg_1", "d.csv", "--loss", "Logistic", "feature_norm=1",
                           "--regulariser", "L2Regulariser", "strength=0.5", "--epsilon", "1", "--delta", "1e-5",
                           "--seed", "1")
    assert status == 0, err
    assert re.search(r"^  lipschitz +\d", out, re.M) and "declared by Regularised(Logistic(feature_norm=1.0)" in out


def test_a_default_that_degenerates_prints_a_note(logistic, capsys):
    """zhang17 Theorem 2's T is 1 on six records: the note says what it means and names --steps."""
    status, out, err = run(capsys, "run", "zhang17.alg_1", "d.csv", "--loss", "Logistic", "feature_norm=1",
                           "--regulariser", "L2Regulariser", "strength=0.5", "--epsilon", "1", "--delta", "1e-5",
                           "--seed", "1")
    assert status == 0
    notes = [line for line in err.splitlines() if line.startswith("dperm: note: ")]
    assert len(notes) == 1 and "T = 1" in notes[0] and "--steps" in notes[0], err


def test_a_claim_that_does_not_hold_is_refused_and_allowed_only_marked(logistic, capsys):
    """zhang17 at epsilon = 20 ran and exited 0, suggesting a '--method analytic' that does not exist."""
    argv = ["run", "zhang17.alg_1", "d.csv", "--loss", "Logistic", "feature_norm=1", "--regulariser",
            "L2Regulariser", "strength=0.5", "--epsilon", "20", "--delta", "1e-5", "--seed", "1"]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "is not proven" in err and "--calibration analytic" in err and "--method" not in err
    status, out, err = run(capsys, *argv, "--allow-unproven", "--vector", "u.json")
    assert status == 0 and "NOT PROVEN" in out and "unproven-claim" in out
    assert "(--calibration analytic), private for every epsilon" in err and "--method" not in err
    assert "unproven-claim" in json.loads((logistic / "u.json").read_text())["flags"]
    status, _, err = run(capsys, *argv, "--calibration", "analytic")
    assert status == 0, err


def test_a_long_run_prints_its_work_and_ctrl_c_exits_130_with_one_line(logistic, capsys, monkeypatch):
    """--steps 1000000000000 ran silently; Ctrl-C printed a traceback. (The interrupt is raised at the first
    progress line; test_ctrl_c_on_a_real_process sends a real SIGINT.)"""
    from dperm import run as run_module

    def interrupt(self, done, total):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module._Progress, "__call__", interrupt)
    status, out, err = run(capsys, "run", "wang19.alg_1", "d.csv", "--loss", "Logistic", "feature_norm=1",
                           "--domain", "L2Ball", "radius=1", "dim=3", "--epsilon", "1", "--delta", "1e-5",
                           "--steps", "1000000000000", "--seed", "1")
    assert status == 130 and out == ""
    lines = err.strip().splitlines()
    assert lines[0] == ("dperm: wang19.alg_1: 6,000,000,000,000 gradient evaluations (1 run); progress and ETA "
                        "follow, Ctrl-C stops")
    assert lines[-1] == "dperm: interrupted (Ctrl-C)" and len(lines) == 2


def test_ctrl_c_on_a_real_process(logistic):
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "dperm", "run", "wang19.alg_1", "d.csv", "--loss", "Logistic",
                             "feature_norm=1", "--domain", "L2Ball", "radius=1", "dim=3", "--epsilon", "1",
                             "--delta", "1e-5", "--steps", "1000000000", "--seed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a test runner's worker may ignore SIGINT, and a child inherits that
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = proc.stderr.readline()  # the work line: the loop has started
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert proc.returncode == 130
    assert first.startswith("dperm: wang19.alg_1: 6,000,000,000 gradient evaluations")
    assert "Traceback" not in rest and rest.strip().splitlines()[-1] == "dperm: interrupted (Ctrl-C)"


@pytest.mark.parametrize("verb", ["run", "calibrate"])
def test_a_misspelt_algorithm_gets_did_you_mean_whatever_options_follow(here, capsys, verb):
    status, out, err = run(capsys, verb, "wang19.alg1", "data.csv", "--epsilon", "1", "--delta", "1e-5")
    assert status == 2 and err.count("\n") == 1 and "did you mean wang19.alg_1" in err, err


def test_one_record_is_refused_like_every_paper(logistic, capsys):
    """wang19.alg_1 accepted one row; every box now refuses n < 2 with the same message."""
    (logistic / "one.csv").write_text("0.3,0.4,0.1,1.0\n")
    status, _, err = run(capsys, "run", "wang19.alg_1", "one.csv", "--loss", "Logistic", "feature_norm=1",
                         "--domain", "L2Ball", "radius=1", "dim=3", "--epsilon", "1", "--delta", "1e-5")
    assert status == 2 and "n (1) must be >= 2 (wang19.alg_1: neighbours differ in one of n >= 2 records)" in err


@pytest.mark.parametrize("record_id", list(boxes()))
def test_help_texts_are_whole_sentences(capsys, record_id):
    """'--regulariser VALUE The convex r (e.g' was cut mid-sentence."""
    from dperm.arguments import Parser
    from dperm.run import add_arguments

    parser = Parser(prog="dperm run")
    add_arguments(parser, record_id)
    for action in parser._actions:  # argparse has no public walk over its actions
        text = action.help or ""
        if action.dest == "help":
            continue
        assert text[:1].isupper() and text.rstrip().endswith("."), (action.dest, text)
        opened = text.count("(") + text.count("[")  # intervals close either way: (0, 1]
        assert opened == text.count(")") + text.count("]"), (action.dest, text)


def test_calibrate_an_algorithm_prints_its_configuration_without_data(capsys):
    status, out, err = run(capsys, "calibrate", "bst14.alg_1", "--n", "569", "--loss", "Logistic", "feature_norm=1",
                           "--domain", "L2Ball", "radius=1", "dim=30", "--epsilon", "1", "--delta", "1e-5",
                           "--schedule", "lipschitz")
    assert status == 0, err
    want = bst14.NoiseGD.configure(loss=losses.Logistic(feature_norm=1.0), domain=domains.L2Ball(radius=1.0, dim=30),
                                   n=569, epsilon=1.0, delta=1e-5, schedule="lipschitz")
    assert out.strip() == want.describe()
    status, out, _ = run(capsys, "calibrate", "zhang17.alg_2", "--n", "100", "--dimension", "3", "--loss", "Sigmoid",
                         "feature_norm=1", "--epsilon", "0.5", "--delta", "1e-5", "--json")
    assert status == 0 and json.loads(out)["calibration"]["max_rounds"] == 10_000


#: A tiny instance of every box on a CSV: (data rows, options).
XY = [r[:2] + r[3:] for r in LOGISTIC_ROWS]
X = [r[:2] for r in LOGISTIC_ROWS]
LOG = ["--loss", "Logistic", "feature_norm=1"]
QUAD = ["--loss", "HalfSquaredDistance", "data_norm=1", "domain_radius=1"]
HEAVY = ["--loss", "HeavyTailedHalfSquaredDistance"]
B2 = ["--domain", "L2Ball", "radius=1", "dim=2"]
EPS = ["--epsilon", "1", "--delta", "1e-5"]
EIGHTEEN = {
    "bst14.alg_1": (XY, [*LOG, *B2, *EPS, "--schedule", "lipschitz"]),
    "bst14.alg_2": (X, ["--loss", "Linear", "data_norm=1", *B2, "--epsilon", "1", "--sampler", "LinearBallSampler"]),
    "bst14.alg_3": (X, [*QUAD, *B2, "--epsilon", "1", "--zeta", "2"]),
    "bst14.alg_4": (X, [*QUAD, *B2, "--epsilon", "1", "--sampler", "QuadraticRejectionSampler"]),
    "zhang17.alg_1": (XY, [*LOG, "--regulariser", "L2Regulariser", "strength=0.5", *EPS, "--steps", "2"]),
    "zhang17.alg_2": (XY, ["--loss", "Sigmoid", "feature_norm=1", "--epsilon", "1", "--delta", "1e-3"]),
    "wang17.alg_1": (XY, [*LOG, "--regulariser", "L2Regulariser", "strength=0.5", *EPS, "--epochs", "1",
                          "--epoch-length", "2", "--learning-rate", "0.1"]),
    "wang17.alg_2": (XY, [*LOG, *EPS, "--epochs", "1", "--epoch-length", "1"]),
    "wang17.alg_3": (XY, [*LOG, *B2, *EPS, "--steps", "2"]),
    "wang17.alg_4": (XY, [*LOG, *EPS, "--steps", "2"]),
    "wang19.alg_1": (XY, [*LOG, *B2, "--regulariser", "L1Regulariser", "strength=0.1", *EPS, "--steps", "2"]),
    "wang19.alg_2": (XY, [*LOG, *B2, *EPS, "--steps", "2"]),
    "wang19.alg_3": (XY, [*LOG, *B2, *EPS, "--steps", "2"]),
    "wang19.alg_4": (XY, [*LOG, "--domain", "L1Ball", "radius=1", "dim=2", "--epsilon", "0.9", "--delta", "1e-5",
                          "--steps", "2"]),
    "wang20.alg_1": (X, [*QUAD, *B2, *EPS, "--subsets", "2"]),
    "wang20.alg_2": ([r[:1] for r in X], ["--epsilon", "1", "--mean-lower", "-1", "--mean-upper", "1"]),
    "wang20.alg_3": (X, [*HEAVY, *B2, *EPS, "--mean-lower", "-2", "--mean-upper", "2", "--smoothness", "1",
                         "--strong-convexity", "1"]),
    "wang20.alg_4": (X, [*HEAVY, *B2, *EPS, "--second-moment", "1", "--failure-probability", "1e-3",
                         "--smoothness", "1", "--strong-convexity", "1"]),
}


def test_the_instances_cover_every_box():
    assert set(EIGHTEEN) == set(boxes())


@pytest.mark.parametrize("record_id", list(EIGHTEEN))
def test_every_box_runs_on_a_csv_writes_a_vector_that_checks_with_its_own_outputs(tmp_path, capsys, record_id):
    """Configure, run on a CSV, --vector, then dperm vectors check with the vector's own outputs: ok,
    exit 0; the vector is schema-valid and its tape replays to its output through the configured box."""
    rows, options = EIGHTEEN[record_id]
    csv = tmp_path / "data.csv"
    csv.write_text("\n".join(",".join(map(repr, r)) for r in rows) + "\n")
    status, out, err = run(capsys, "run", record_id, str(csv), *options, "--runs", "2", "--seed", "4",
                           "--vector", str(tmp_path / "v.json"))
    assert status == 0, err
    vector = _check_own_outputs(capsys, tmp_path / "v.json")
    assert vector["algorithm"] == label(record_id) and len(vector["output"]["theta"]) == 2
    jsonschema = pytest.importorskip("jsonschema")
    from reference.vectors.generate import SCHEMA_PATH

    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text())).validate(vector)
