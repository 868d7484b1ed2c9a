"""A known-answer vector of your own run: any reference algorithm, your data, a recorded tape.

::

    from reference.vectors.from_run import record_run
    from reference.vectors.generate import dumps
    result, vector = record_run("bst14.alg_1", data, id="my-run", rng=7,
                                loss={"name": "Hinge", "bounds": {"feature_norm": 1.0}},
                                domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 3}},
                                epsilon=1.0, delta=1e-5, schedule="lipschitz")
    open("my-run.json", "w").write(dumps(vector))

The vector follows ``reference/vectors/schema.json`` like the committed ones: the inputs, every
parameter (defaults written out), the noise tape the run consumed, and what the reference
computed from them. Replay it in your own code from the tape, then compare with
:func:`reference.vectors.check.check` (``dperm vectors check``).

When the paper's vector module (``reference/<paper>/vectors.py``) describes the algorithm (its
``SPEC_IDS`` has the algorithm's label), the derived values, checkpoints, flags and tolerance are
that module's, exactly as for the committed vectors. Otherwise the vector holds the result's
scalar fields as derived values, the output, no checkpoints, and :data:`GENERIC_TOLERANCE`.
Either way the flags end with the departures from the printed paper that the run follows
(:func:`reference.vectors.departures.departure_flags`).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import math
import re

import numpy as np

from reference import algorithms as _algorithms
from reference.arrays import ArrayLike
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import Recorder
from reference.vectors.build import build_domain, build_loss, describe, with_departures

__all__ = ["record_run", "main_output", "vector_id", "GENERIC_TOLERANCE", "HOOKS"]

#: Keywords of a reference algorithm that are not parameters of the run.
HOOKS = ("rng", "noise", "transcript")

#: Tolerance of a vector whose paper module does not describe the algorithm.
GENERIC_TOLERANCE = {
    "absolute": 1e-9, "relative": 1e-9,
    "justification": "dperm run's default for an algorithm without a vector builder: the reference's own "
                     "double arithmetic, replayed from the tape; 1e-9 leaves about 10^6 ulps for an "
                     "independent implementation's different order of operations",
}


def vector_id(text: str) -> str:
    """A schema-valid id (lower case, ``-`` separated) from a file name: ``My Run_1`` -> ``my-run-1``."""
    parts = re.findall(r"[a-z0-9]+", str(text).lower())
    return "-".join(parts) or "run"


def main_output(result: AlgorithmResult) -> np.ndarray:
    """The algorithm's output, ``runs x p``: ``result.theta``, else the first 2-D array field."""
    if isinstance(getattr(result, "theta", None), np.ndarray):
        return result.theta
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, np.ndarray) and value.ndim == 2:
            return value
    raise ValueError(f"{type(result).__name__} has no theta and no 2-D array field to write as output")


def _jsonable(value, what: str):
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{what} ({value!r}) must be finite to be written in a vector")
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, what) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v, f"{what}.{k}") for k, v in value.items()}
    try:
        d = describe(value)
    except ValueError as err:
        raise ValueError(f"{what} ({value!r}) cannot be written in a vector: {err}") from None
    return d["name"] if not d["parameters"] else {"name": d["name"], "parameters": _jsonable(d["parameters"], what)}


def _described(value, build, key: str):
    """(object, description) of a loss or domain given as an object or as ``{"name": ..., key: {...}}``."""
    if isinstance(value, dict):
        return build({"name": value["name"], key: value.get(key, value.get("parameters", {}))}), \
            {"name": value["name"], key: _jsonable(value.get(key, value.get("parameters", {})), value["name"])}
    d = describe(value)
    return value, {"name": d["name"], key: d["parameters"]}


def _schema_flags() -> set[str]:
    """The schema's plain flags (its first ``anyOf`` branch; the second lists the departure tokens)."""
    from reference.vectors.generate import SCHEMA_PATH

    return set(json.loads(SCHEMA_PATH.read_text())["properties"]["flags"]["items"]["anyOf"][0]["enum"])


def _paper_module(paper: str):
    try:
        return importlib.import_module(f"reference.{paper}.vectors")
    except ModuleNotFoundError:
        return None


def record_run(algorithm: str, data: ArrayLike, *, id: str, rng: RngLike = None,
               **keywords: object) -> tuple[AlgorithmResult, dict]:
    """Run ``algorithm`` (a record id, ``"bst14.alg_1"``) on ``data`` with a :class:`~reference.tape.Recorder`.

    Parameters
    ----------
    algorithm : str
        Key of ``reference.<paper>.ALGORITHMS`` (:func:`reference.algorithms.algorithms`).
    data : array_like, shape (n, k)
    id : str
        The vector's id (:func:`vector_id` makes one from a file name).
    rng
        Seed of the recorded draws (an int reproduces them on the same numpy build).
    **keywords
        The algorithm's keywords: ``loss`` and ``domain`` as objects or as ``{"name": ...,
        "bounds": {...}}`` / ``{"name": ..., "parameters": {...}}``, ``runs`` and the rest.

    Returns
    -------
    (result, vector)
        The algorithm's result and the vector (a dict; write it with
        :func:`reference.vectors.generate.dumps`).
    """
    function = _algorithms.get(algorithm)
    label = _algorithms.label(algorithm)
    signature = inspect.signature(function)
    call = dict(keywords)
    inputs = {"data": _jsonable(np.asarray(data, dtype=np.float64), "data")}
    if "loss" in call:
        call["loss"], inputs["loss"] = _described(call["loss"], build_loss, "bounds")
    if "domain" in call:
        call["domain"], inputs["domain"] = _described(call["domain"], build_domain, "parameters")
    recorder = Recorder(rng)
    result = function(data, noise=recorder, **call)

    parameters = {}
    for p in list(signature.parameters.values())[1:]:
        if p.name in HOOKS or p.name in ("loss", "domain"):
            continue
        if call.get(p.name) is not None:
            parameters[p.name] = _jsonable(call[p.name], p.name)
        elif p.default is not inspect.Parameter.empty and p.default is not None:
            parameters[p.name] = _jsonable(p.default, p.name)
    if "theta_1" in parameters:  # the schema keeps the starting point with the inputs
        inputs["theta_1"] = parameters.pop("theta_1")
    if "theta_1" not in inputs and isinstance(getattr(result, "theta_1", None), np.ndarray):
        inputs["theta_1"] = result.theta_1.tolist()  # line 2's default, written out
    elif "theta_1" in inputs:
        inputs["theta_1"] = np.broadcast_to(np.asarray(inputs["theta_1"], float),
                                            main_output(result).shape).tolist()
    vector = {"id": vector_id(id), "algorithm": label, "spec": list(result.spec_ids), "inputs": inputs,
              "parameters": parameters, "tape": recorder.tape.to_dict()}

    module = _paper_module(label.split()[0])
    if module is not None and label in getattr(module, "SPEC_IDS", {}):
        if hasattr(module, "cites"):  # the records this run is an instance of (e.g. by its setting)
            vector["spec"] = module.cites(vector)
        vector["tolerance"] = (module.tolerance(vector) if hasattr(module, "tolerance")
                               else dict(GENERIC_TOLERANCE))
        computed = module.compute(vector, recorder.tape)
        if not np.array_equal(np.asarray(computed["output"]["theta"]), main_output(result)):
            raise RuntimeError(f"reference.{label.split()[0]}.vectors.compute does not reproduce this run of "
                               f"{algorithm} from its tape: a parameter it does not pass on?")
        vector.update(with_departures(vector, computed))
    else:
        vector.update(with_departures(vector, _generic(result, call, len(inputs["data"]))))
        vector["tolerance"] = dict(GENERIC_TOLERANCE)
    return result, vector


def _generic(result, call: dict, n: int) -> dict:
    output = main_output(result)
    derived = {"n": int(n), "p": int(output.shape[1])}
    loss, domain = call.get("loss"), call.get("domain")
    if loss is not None:
        for name, value in dataclasses.asdict(loss.constants).items():
            if math.isfinite(value):
                derived[name] = float(value)
    if domain is not None and math.isfinite(domain.diameter):
        derived["diameter"] = float(domain.diameter)
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if f.name in ("seed", "spec_ids") or isinstance(value, bool):
            continue
        if isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value):
            derived[f.name] = value.item() if hasattr(value, "item") else value
    flags = []
    calibration = call.get("calibration")
    if isinstance(calibration, str) and f"{calibration}-calibration" in _schema_flags():
        flags.append(f"{calibration}-calibration")
    return {"derived": derived, "checkpoints": [], "output": {"theta": output.tolist()}, "flags": flags}
