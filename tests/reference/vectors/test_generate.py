"""Tests of the known-answer vectors in reference/vectors (schema, replay, regeneration).

Oracles: (1) a small validator for the JSON Schema keywords the schema uses, and the full
``jsonschema`` validator (test extra); (2) the reference replaying each vector's tape; (3) an
independent plain-Python replay of the Algorithm 3 and 4 vectors (Algorithm 1's is in
``tests/reference/vectors/test_replay_independent.py``, written from docs/vectors/bst14.md alone).
"""

from __future__ import annotations

import copy
import json
import math
import re

import numpy as np
import pytest

from reference.tape import NoiseTape
from reference.vectors import generate as gen

VECTORS = gen.vector_files()
SCHEMA = json.loads(gen.SCHEMA_PATH.read_text())
_TYPES = {
    "object": dict, "array": list, "string": str, "boolean": bool,
}


def _validate(instance, schema, path="$"):
    """Errors of ``instance`` against ``schema`` (keywords: type, required, properties,
    additionalProperties, items, enum, const, minimum, minItems, pattern, anyOf)."""
    errors = []
    if "anyOf" in schema:
        branches = [_validate(instance, sub, path) for sub in schema["anyOf"]]
        if all(branches):
            return [f"{path}: matches no branch of anyOf ({'; '.join(b[0] for b in branches)})"]
    t = schema.get("type")
    if t is not None:
        if t == "integer":
            ok = isinstance(instance, int) and not isinstance(instance, bool)
        elif t == "number":
            ok = isinstance(instance, (int, float)) and not isinstance(instance, bool)
        else:
            ok = isinstance(instance, _TYPES[t])
        if not ok:
            return [f"{path}: {type(instance).__name__} is not of type {t}"]
    if "enum" in schema and instance not in schema["enum"]:
        errors.append(f"{path}: {instance!r} not in enum")
    if "const" in schema and instance != schema["const"]:
        errors.append(f"{path}: {instance!r} != const")
    if "minimum" in schema and isinstance(instance, (int, float)) and instance < schema["minimum"]:
        errors.append(f"{path}: {instance!r} < minimum {schema['minimum']}")
    if "pattern" in schema and isinstance(instance, str) and not re.search(schema["pattern"], instance):
        errors.append(f"{path}: {instance!r} does not match {schema['pattern']}")
    if isinstance(instance, list):
        if "minItems" in schema and len(instance) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(instance):
                errors += _validate(item, schema["items"], f"{path}[{i}]")
    if isinstance(instance, dict):
        for key in schema.get("required", ()):
            if key not in instance:
                errors.append(f"{path}: missing required {key!r}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, value in instance.items():
            if key in props:
                errors += _validate(value, props[key], f"{path}.{key}")
            elif extra is False:
                errors.append(f"{path}: additional property {key!r}")
            elif isinstance(extra, dict):
                errors += _validate(value, extra, f"{path}.{key}")
    return errors


_USED = {"type", "required", "properties", "additionalProperties", "items", "enum", "const", "minimum", "minItems", "$comment",
         "pattern", "anyOf", "$schema", "$id", "title"}


def _keywords(schema):
    if isinstance(schema, dict):
        yield from (k for k in schema if k not in ("properties",))
        for key, value in schema.items():
            if key == "properties":
                for sub in value.values():
                    yield from _keywords(sub)
            elif isinstance(value, dict):
                yield from _keywords(value)
            elif isinstance(value, list):
                for sub in value:
                    yield from _keywords(sub)


def test_schema_uses_only_supported_keywords_and_vectors_exist():
    assert set(_keywords(SCHEMA)) <= _USED
    assert len(VECTORS) == sum(len(gen.cases_of(p)) for p in gen.papers())
    assert {p.parent.name for p in VECTORS} == set(gen.papers())
    algorithms = {json.loads(p.read_text())["algorithm"] for p in VECTORS}
    assert algorithms == {c["algorithm"] for p in gen.papers() for c in gen.cases_of(p)}


def test_every_algorithm_box_has_a_vector():
    """Every entry of every paper's ALGORITHMS (reference/<paper>/__init__.py) has a committed vector."""
    from reference.algorithms import algorithms, label

    boxes = algorithms()
    covered = {json.loads(p.read_text())["algorithm"] for p in VECTORS}
    missing = [rid for rid in boxes if label(rid) not in covered]
    assert not missing, f"algorithm boxes without a known-answer vector: {missing}"
    assert len(boxes) == 18 and {p for p in gen.papers()} == {rid.split(".")[0] for rid in boxes}


def test_minimal_validator_any_of():
    """parameters.steps is an integer >= 1 or the word "paper"; anything else is rejected."""
    steps = SCHEMA["properties"]["parameters"]["properties"]["steps"]
    assert _validate(3, steps) == [] and _validate("paper", steps) == []
    assert _validate(0, steps) and _validate("auto", steps) and _validate(2.5, steps)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_validates(path):
    vector = json.loads(path.read_text())
    assert _validate(vector, SCHEMA) == []
    assert vector["id"] == path.stem
    assert path.read_text() == gen.dumps(vector)  # canonical form


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_validates_with_jsonschema(path):
    """The same check with a full, independent Draft 2020-12 validator (the `test` extra installs
    it; without it the test is reported as skipped, never silently passed)."""
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(path.read_text()))


def test_jsonschema_rejects_a_broken_vector():
    jsonschema = pytest.importorskip("jsonschema")
    vector = json.loads(VECTORS[0].read_text())
    del vector["tape"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMA).validate(vector)


def test_schema_rejects_broken_vectors():
    vector = json.loads(VECTORS[0].read_text())
    broken = []
    v = copy.deepcopy(vector)
    del v["tape"]
    broken.append(v)
    v = copy.deepcopy(vector)
    v["algorithm"] = "bst14 Algorithm 1"
    broken.append(v)
    v = copy.deepcopy(vector)
    v["tape"]["entries"][0]["kind"] = "cauchy"
    broken.append(v)
    v = copy.deepcopy(vector)
    v["parameters"]["runs"] = 0
    broken.append(v)
    v = copy.deepcopy(vector)
    v["extra"] = 1
    broken.append(v)
    v = copy.deepcopy(vector)
    v["id"] = "Bad Id"
    broken.append(v)
    v = copy.deepcopy(vector)
    v["checkpoints"][0]["step"] = "one"
    broken.append(v)
    try:
        import jsonschema
    except ImportError:  # pragma: no cover
        jsonschema = None
    for b in broken:
        assert _validate(b, SCHEMA), b
        if jsonschema is not None:
            assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(b)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_names_registered_records(path):
    """The schema admits any ``paper Alg.N``; the registry decides which exist."""
    import spec

    vector = json.loads(path.read_text())
    paper, alg = vector["algorithm"].split()
    assert path.parent.name == paper and vector["id"].startswith(paper + "-")
    assert f"{paper}.alg_{alg.split('.')[1]}" in spec.ids()
    assert set(vector["spec"]) <= set(spec.ids())


def _close(got, want, tol):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol["relative"], atol=tol["absolute"])


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_reference_reproduces_vector(path):
    vector = json.loads(path.read_text())
    tape = NoiseTape.from_dict(vector["tape"])
    got = gen.compute(vector, tape)  # replays with Replay(...) and assert_consumed()
    tol = vector["tolerance"]
    for a, b in zip(got["checkpoints"], vector["checkpoints"], strict=True):
        assert (a["step"], a["iterate"]) == (b["step"], b["iterate"])
        _close(a["theta"], b["theta"], tol)
    _close(got["output"]["theta"], vector["output"]["theta"], tol)
    assert got["flags"] == vector["flags"]
    for key, value in vector["derived"].items():
        _close(got["derived"][key], value, {"absolute": 0.0, "relative": 1e-15})


def test_regeneration_is_deterministic(tmp_path):
    gen.generate(tmp_path, source_root=gen.VECTOR_ROOT)
    for path in VECTORS:
        old = json.loads(path.read_text())
        new = json.loads((tmp_path / path.parent.name / path.name).read_text())
        # exact: everything that is an input or a 50-digit spec evaluation rounded once
        for key in ("id", "algorithm", "spec", "inputs", "parameters", "tape", "tolerance", "flags", "derived"):
            assert new[key] == old[key], key
        # computed in floating point by the reference (BLAS and libm may differ in the last bit
        # between machines): within the vector's own tolerance, as a replayer is judged
        _close(new["output"]["theta"], old["output"]["theta"], old["tolerance"])
        for a, b in zip(new["checkpoints"], old["checkpoints"], strict=True):
            assert (a["step"], a["iterate"]) == (b["step"], b["iterate"])
            _close(a["theta"], b["theta"], old["tolerance"])


# ------------------------------------------------------------------ helpers of the independent replays
# (Algorithms 1-2 are replayed from docs/vectors/bst14.md alone in tests/reference/vectors/test_replay_independent.py)


def _project(domain, x):
    prm = domain["parameters"]
    if domain["name"] == "L2Ball":
        norm = math.sqrt(sum(v * v for v in x))
        return [v * prm["radius"] / norm for v in x] if norm > prm["radius"] else list(x)
    return [min(hi, max(lo, v)) for v, lo, hi in zip(x, prm["lower"], prm["upper"])]


# ------------------------------------------------------------- independent Algorithms 3-4 replay


def _norm(v):
    return math.sqrt(sum(x * x for x in v))


def _outpert(data, entries, rate, runs, p):
    """Algorithm 3 line 3 from the tape: b_r = (G_r / rate) z_r / ||z_r||, theta_0 = Pi_ball(theta* + b_r)."""
    radius_entry, direction_entry = entries[0], entries[1]
    assert radius_entry["label"] == "bst14 Alg.3 L3 b: radius" and radius_entry["params"] == {"k": float(p)}
    assert direction_entry["label"] == "bst14 Alg.3 L3 b: direction" and direction_entry["shape"] == [runs, p]
    mean = [sum(row[j] for row in data) / len(data) for j in range(p)]
    bs, centres = [], []
    for r in range(runs):
        z = direction_entry["values"][r * p:(r + 1) * p]
        b = [radius_entry["values"][r] / rate * zj / _norm(z) for zj in z]
        bs.append(b)
        centres.append(_project({"name": "L2Ball", "parameters": {"radius": 1.0}}, [m + bj for m, bj in zip(mean, b)]))
    return mean, bs, centres


@pytest.mark.parametrize("path", [p for p in VECTORS if p.parent.name == "bst14" and ("alg3" in p.stem or "alg4" in p.stem)],
                         ids=lambda p: p.stem)
def test_independent_replay_of_algorithms_3_and_4(path):
    v = json.loads(path.read_text())
    data, prm, der = v["inputs"]["data"], v["parameters"], v["derived"]
    assert v["inputs"]["loss"]["name"] == "HalfSquaredDistance" and v["inputs"]["domain"]["name"] == "L2Ball"
    n, p, runs, tau = len(data), len(data[0]), prm["runs"], prm["solver_tolerance"]
    lip, sc = 2.0, 1.0  # data_norm 1 + domain_radius 1; Hessian identity
    eps = prm["epsilon"] if v["algorithm"] == "bst14 Alg.3" else prm["epsilon"] / 2
    zeta = prm["zeta"] if v["algorithm"] == "bst14 Alg.3" else 3 * math.log(n)
    rate = eps / (2 * lip / (n * sc) + 2 * math.sqrt(2 * tau / (n * sc)))
    radius = zeta * 2 * lip * p / (sc * eps * n)
    key = "rate" if v["algorithm"] == "bst14 Alg.3" else "noise_rate"
    assert der[key] == pytest.approx(rate, rel=1e-13) and der[key] <= rate * (1 + 1e-15)
    assert der["radius"] == pytest.approx(radius, rel=1e-13) and der["radius"] >= radius * (1 - 1e-15)
    entries = v["tape"]["entries"]
    mean, bs, centres = _outpert(data, entries, der[key], runs, p)
    tol = v["tolerance"]
    _close(mean, der["theta_star"], tol)
    if v["algorithm"] == "bst14 Alg.3":
        _close(bs, v["checkpoints"][0]["theta"], tol)
        _close(centres, v["output"]["theta"], tol)
        return
    _close(centres, v["checkpoints"][0]["theta"], tol)
    c = prm["epsilon"] / 2 / (2 * lip * min(2.0, 2 * der["radius"]))
    assert der["generic_coefficient_used"] == pytest.approx(c, rel=1e-14)
    k = 2
    out = []
    for r in range(runs):
        while True:
            e = entries[k]
            k += 1
            assert e["label"] == "bst14 Alg.2 L2 quadratic: gaussian" and e["shape"] == [1, p]
            theta = [mean[j] + e["values"][j] / math.sqrt(c * n) for j in range(p)]
            if _norm(theta) <= 1.0 and _norm([a - b for a, b in zip(theta, centres[r])]) <= der["radius"]:
                out.append(theta)
                break
    assert k == len(entries)
    _close(out, v["output"]["theta"], tol)
