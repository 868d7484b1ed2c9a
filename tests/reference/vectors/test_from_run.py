"""reference.vectors.from_run: a vector of a user's own run, from the configured box and the tape."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import reference.bst14 as bst14
from reference.bst14 import vectors as cases
from reference.domains import L2Ball
from reference.losses import Linear
from reference.tape import NoiseTape, Replay
from reference.vectors.from_run import GENERIC_TOLERANCE, main_output, record_run, vector_id
from reference.vectors.generate import SCHEMA_PATH, vector_dir

HERE = Path(__file__).resolve().parent
ALGORITHM = {"bst14 Alg.1": "bst14.alg_1", "bst14 Alg.2": "bst14.alg_2", "bst14 Alg.3": "bst14.alg_3",
             "bst14 Alg.4": "bst14.alg_4"}


def _replayer():
    """The standard-library replay of tests/reference/vectors/test_replay_independent.py."""
    spec = importlib.util.spec_from_file_location("replay_independent", HERE / "test_replay_independent.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _validate(vector):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text())).validate(vector)


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c["id"])
def test_a_run_with_a_case_inputs_and_seed_agrees_with_the_committed_vector(case):
    """The committed vectors were drawn from their cases' seeds: recording the same run with the
    generic builder gives the same inputs, tape and output (when this numpy build draws the same
    tape from the seed); its own checkpoints are a subset of the committed ones' where both have them."""
    stored = json.loads((vector_dir("bst14") / f"{case['id']}.json").read_text())
    keywords = dict(case["parameters"])
    if case["algorithm"] == "bst14 Alg.1":
        keywords["theta_1"] = case["theta_1"]
    if "sampler" in keywords:
        keywords["sampler"] = getattr(bst14, keywords["sampler"])()
    runs = keywords.pop("runs")
    result, vector = record_run(ALGORITHM[case["algorithm"]], np.asarray(case["data"]), id=case["id"],
                                rng=case["seed"], runs=runs, loss=case["loss"], domain=case["domain"], **keywords)
    _validate(vector)
    if vector["tape"] != stored["tape"]:
        pytest.skip("this numpy build draws another tape from the case's seed")
    assert vector["inputs"]["data"] == stored["inputs"]["data"] and vector["spec"] == stored["spec"]
    assert np.array_equal(main_output(result), np.asarray(stored["output"]["theta"]))
    stored_points = {c["step"]: c["theta"] for c in stored["checkpoints"]}
    for c in vector["checkpoints"]:
        if c["step"] in stored_points and c["iterate"].startswith("theta"):
            assert c["theta"] == stored_points[c["step"]]
    for name in ("sigma", "steps", "rate", "radius"):
        if name in stored["derived"] and name in vector["derived"]:
            assert vector["derived"][name] == stored["derived"][name]


@pytest.mark.parametrize("calibration, expected", [("printed", []),
                                                    ("rigorous", ["erratum:bst14.thm_II_1:proof-does-not-close"])])
def test_a_run_carries_the_departures_it_follows(calibration, expected):
    """A user's run (``dperm run --vector``) lists the departures from the printed paper it follows, as
    the committed vectors do: bst14 Algorithm 1 with the printed sigma follows none; with the rigorous
    calibration, which replaces the sigma whose proof does not close, it carries that erratum."""
    from reference.vectors.departures import departure_flags

    case = next(c for c in cases.CASES if c["id"] == "bst14-alg1-quadratic-ball-lipschitz-rigorous")
    keywords = {**case["parameters"], "calibration": calibration}
    _, vector = record_run("bst14.alg_1", np.asarray(case["data"]), id="mine", rng=3, loss=case["loss"],
                           domain=case["domain"], theta_1=case["theta_1"], **keywords)
    assert [f for f in vector["flags"] if ":" in f] == expected == departure_flags(vector["spec"], vector["parameters"])
    _validate(vector)


def test_generic_vector_for_an_algorithm_without_cases():
    """bst14 Algorithm 2 has no case in reference/bst14/vectors.py: the vector holds the configuration's
    calibrated scalars, the output and the tape; replaying the tape reproduces the output."""
    data = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]])
    result, vector = record_run("bst14.alg_2", data, id="My Alg2 run", rng=5, runs=3,
                                loss={"name": "Linear", "bounds": {"data_norm": 1.0}},
                                domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}},
                                epsilon=1.0, sampler=bst14.LinearBallSampler())
    _validate(vector)
    assert vector["id"] == "my-alg2-run" and vector["algorithm"] == "bst14 Alg.2"
    assert vector["spec"] == list(result.spec_ids)
    assert vector["parameters"] == {"epsilon": 1.0, "runs": 3, "sampler": "LinearBallSampler"}
    assert vector["derived"] == {"n": 3, "p": 2, "lipschitz": 1.0, "diameter": 2.0, "coefficient": 0.25,
                                 "sampler_epsilon": 1.0}
    assert vector["checkpoints"] == [] and vector["tolerance"] == GENERIC_TOLERANCE
    again = bst14.exp_sampling(data, loss=Linear(data_norm=1.0), domain=L2Ball(radius=1.0, dim=2), epsilon=1.0,
                               runs=3, sampler=bst14.LinearBallSampler(),
                               noise=Replay(NoiseTape.from_dict(vector["tape"])))
    assert np.array_equal(again.theta, np.asarray(vector["output"]["theta"]))


def test_a_long_run_replays_within_its_scaled_tolerance():
    """dperm run on n = 12 records (T = 143 steps): the tolerance is the cases' allowance per step,
    scaled to T; the independent replay's largest difference is measured far below it."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 3))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]
    data = np.column_stack([x, np.where(rng.random(12) < 0.5, -1.0, 1.0)])
    _, vector = record_run("bst14.alg_1", data, id="long", rng=11, runs=2,
                           loss={"name": "Logistic", "bounds": {"feature_norm": 1.0}},
                           domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 3}},
                           epsilon=1.0, delta=1e-5, schedule="lipschitz")
    _validate(vector)
    tol = vector["tolerance"]
    assert vector["derived"]["steps"] == 143
    assert tol["absolute"] == pytest.approx(1e-9 * 143 / 35) and "143 steps" in tol["justification"]
    replay = _replayer().replay_alg1(vector)
    diffs = [abs(g - w) for c in vector["checkpoints"] for gr, wr in zip(replay["states"][c["step"]], c["theta"])
             for g, w in zip(gr, wr)]
    diffs += [abs(g - w) for gr, wr in zip(replay["output"], vector["output"]["theta"]) for g, w in zip(gr, wr)]
    assert max(diffs) <= 1e-3 * tol["absolute"], max(diffs)  # measured: a few ulps


def test_vector_id():
    assert vector_id("My Run_1.json") == "my-run-1-json"
    assert vector_id("***") == "run"


def test_objects_that_cannot_be_described_are_refused():
    data = np.array([[1.0], [1.0], [-1.0]])
    with pytest.raises(ValueError, match="sampler .* cannot be written in a vector"):
        record_run("bst14.alg_2", data, id="x", rng=1,
                   loss={"name": "Linear", "bounds": {"data_norm": 1.0}},
                   domain={"name": "Box", "parameters": {"lower": [-1.0], "upper": [1.0]}},
                   epsilon=1.0, sampler=bst14.NetSampler(np.array([[-1.0], [1.0]])))
