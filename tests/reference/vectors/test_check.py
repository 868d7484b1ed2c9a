"""reference.vectors.check: comparing a researcher's outputs with a vector under its tolerance."""

from __future__ import annotations

import copy
import json
import math

import pytest

from reference.vectors import check as C
from reference.vectors.generate import vector_files
from spec.errors import ParameterError

VECTORS = vector_files()


def load(stem: str) -> dict:
    return C.load_vector(stem)


def outputs_of(vector: dict) -> dict:
    """Everything a replayer can report, copied from the vector itself."""
    return {"derived": copy.deepcopy(vector["derived"]),
            "checkpoints": [{"step": c["step"], "iterate": c["iterate"], "theta": copy.deepcopy(c["theta"])}
                            for c in vector["checkpoints"]],
            "output": copy.deepcopy(vector["output"])}


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_a_vector_matches_itself_in_every_field(path):
    vector = C.load_vector(path)
    result = C.check(vector, outputs_of(vector))
    assert result.ok and result.first is None
    steps = [c["step"] for c in vector["checkpoints"]]
    expected = {f"output.{k}" for k in vector["output"]} | {f"derived.{k}" for k in vector["derived"]} | {
        f"checkpoints[step={c['step']}].theta" if steps.count(c["step"]) == 1 else
        f"checkpoints[step={c['step']}, iterate={c['iterate']}].theta" for c in vector["checkpoints"]}
    assert set(result.compared) == expected
    assert str(result).startswith(f"{vector['id']}: ok: {result.count} values match")


def test_first_mismatch_is_reported_precisely():
    vector = load("bst14-alg1-hinge-box-lipschitz")
    mine = outputs_of(vector)
    want = vector["output"]["theta"][0][2]
    mine["output"]["theta"][0][2] = want + 1e-6
    result = C.check(vector, {"output": mine["output"]})
    assert not result.ok and len(result.mismatches) == 1
    m = result.first
    assert (m.field, m.index, m.got, m.want, m.reason) == ("output.theta", (0, 2), want + 1e-6, want, "value")
    assert m.allowed == vector["tolerance"]["absolute"]
    assert str(m) == (f"output.theta[0][2]: got {want + 1e-6!r}, want {want!r}, |got - want| = 1e-06 > allowed 1e-09 "
                      "(absolute 1e-09 + relative 0 x |want|)")
    assert str(result).splitlines()[0] == f"bst14-alg1-hinge-box-lipschitz: MISMATCH at {m}"


def test_the_earliest_divergence_comes_first():
    """derived, then checkpoints by step (whatever order the outputs list them in), then output."""
    vector = load("bst14-alg1-linear-ball-lipschitz")
    mine = outputs_of(vector)
    mine["output"]["theta"][0][0] += 1.0
    mine["checkpoints"][-1]["theta"][1][1] += 1.0
    mine["checkpoints"][1]["theta"][0][1] += 1.0
    mine["checkpoints"].reverse()
    mine["derived"]["sigma"] *= 1 + 1e-9
    result = C.check(vector, mine)
    where = [m.where for m in result.mismatches]
    steps = [c["step"] for c in vector["checkpoints"]]
    assert where == ["derived.sigma", f"checkpoints[step={steps[1]}].theta[0][1]",
                     f"checkpoints[step={steps[-1]}].theta[1][1]", "output.theta[0][0]"]


def test_tolerance_rule_at_its_boundary():
    vector = {"id": "v", "tolerance": {"absolute": 0.25, "relative": 0.5, "justification": ""},
              "derived": {"n": 3}, "checkpoints": [], "output": {"theta": [[2.0]]}}
    allowed = 0.25 + 0.5 * 2.0
    assert C.check(vector, {"output": {"theta": [[2.0 + allowed]]}}).ok
    assert not C.check(vector, {"output": {"theta": [[math.nextafter(2.0 + allowed, 9)]]}}).ok
    assert not C.check(vector, {"output": {"theta": [[float("nan")]]}}).ok
    assert C.check(vector, {"output": {"theta": [[float("inf")]]}}).first.reason == "not finite"
    # integers must be equal; derived values use 1e-12 relative, not the vector's tolerance
    assert C.check(vector, {"derived": {"n": 4}}).first.reason == "not equal (an integer)"
    assert C.check(vector, {"derived": {"n": 3}}).ok


def test_shape_missing_field_and_type_mismatches():
    vector = load("bst14-alg3-quadratic-ball")
    runs, p = len(vector["output"]["theta"]), len(vector["output"]["theta"][0])
    m = C.check(vector, {"output": {"theta": vector["output"]["theta"][:1]}}).first
    assert (m.reason, m.got, m.want) == ("shape", [1, p], [runs, p])
    assert "got shape [1, 3], want shape [2, 3]" in str(m)
    assert C.check(vector, {"output": {"theta": [[1.0, 2.0], [3.0]]}}).first.got == "ragged"
    m = C.check(vector, {"output": {"thetas": [[0.0]]}}).first
    assert m.reason == "missing" and "the vector has no such field (it has radius, theta)" in str(m)
    m = C.check(vector, {"output": {"radius": "big"}}).first
    assert m.reason == "not a number"
    m = C.check(vector, {"checkpoints": [{"step": 99, "theta": [[0.0]]}]}).first
    assert m.reason == "missing" and "its checkpoints are at steps 3" in str(m)
    m = C.check(vector, {"checkpoints": [{"step": 3, "iterate": "theta_4", "theta": [[0.0]]}]}).first
    assert m.reason == "a different iterate" and m.want == "b"


@pytest.mark.parametrize("outputs, message", [
    ([], "must be a JSON object"),
    ({}, "must give at least one field"),
    ({"outputs": {}}, "outputs key ('outputs') must be one of derived, checkpoints, output"),
    ({"checkpoints": {"step": 1}}, "must be a list"),
    ({"checkpoints": [{"theta": [[0.0]]}]}, "must look like"),
    ({"output": [[0.0]]}, "outputs output (list) must be a JSON object"),
])
def test_bad_outputs_are_parameter_errors(outputs, message):
    with pytest.raises(ParameterError) as info:
        C.check(load("bst14-alg3-quadratic-ball"), outputs)
    assert message in str(info.value)


def test_loading(tmp_path):
    by_id = C.load_vector("bst14-alg3-quadratic-ball")
    assert by_id == json.loads(C.find_vector("bst14-alg3-quadratic-ball").read_text())
    with pytest.raises(ParameterError, match="did you mean bst14-alg3-quadratic-ball"):
        C.load_vector("bst14-alg3-quadratic-bal")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ParameterError, match=r"outputs \(.*bad.json\) is not JSON: line 1, column 2"):
        C.load_outputs(bad)
    with pytest.raises(ParameterError, match="cannot be read"):
        C.load_outputs(tmp_path / "missing.json")
    (tmp_path / "other.json").write_text('{"a": 1}')
    with pytest.raises(ParameterError, match="must be a known-answer vector"):
        C.load_vector(tmp_path / "other.json")


def test_result_to_dict_is_strict_json():
    vector = load("bst14-alg3-quadratic-ball")
    result = C.check(vector, {"output": {"theta": [[float("inf")] * 3] * 2}})
    d = result.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["ok"] is False and d["mismatches"][0]["got"] is None
    assert d["mismatches"][0]["infinite"] == ["got"]  # spec.jsonable: one spelling of infinity


def test_several_iterates_at_one_step_are_told_apart():
    """A vector may record several iterates at one step (wang20's g_0 and w_1): each is compared
    with its own, a checkpoint without ``iterate`` there is ambiguous, a wrong one is reported."""
    vector = next(v for v in map(C.load_vector, VECTORS)
                  if len({c["step"] for c in v["checkpoints"]}) < len(v["checkpoints"]))
    outputs = outputs_of(vector)
    step = next(c["step"] for c in outputs["checkpoints"]
                if sum(d["step"] == c["step"] for d in outputs["checkpoints"]) > 1)
    same = [c for c in outputs["checkpoints"] if c["step"] == step]
    assert C.check(vector, {"checkpoints": same}).ok
    swapped = [dict(same[0], theta=same[1]["theta"]), dict(same[1], theta=same[0]["theta"])]
    if same[0]["theta"] != same[1]["theta"]:
        assert not C.check(vector, {"checkpoints": swapped}).ok
    bare = {k: v for k, v in same[0].items() if k != "iterate"}
    result = C.check(vector, {"checkpoints": [bare]})
    assert not result.ok and "ambiguous" in result.first.reason
    wrong = dict(same[0], iterate="no_such_iterate")
    result = C.check(vector, {"checkpoints": [wrong]})
    assert not result.ok and result.first.reason == "a different iterate"

