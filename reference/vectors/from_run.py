"""A known-answer vector of your own run: any configured algorithm box, your data, a recorded tape.

::

    from reference.bst14 import NoiseGD
    from reference.vectors.from_run import vector_of_run
    from reference.vectors.generate import dumps
    gd = NoiseGD.configure(loss=Hinge(feature_norm=1), domain=L2Ball(radius=1, dim=3), n=len(data),
                           epsilon=1.0, delta=1e-5, schedule="lipschitz")
    result, vector = vector_of_run(gd, data, id="my-run", runs=2, rng=7)
    open("my-run.json", "w").write(dumps(vector))

One builder for all 18 boxes, from the configured object (:mod:`reference.configured`) and the tape
the run consumed: the inputs (data, loss, domain, regulariser, the start point), the parameters (the
target, the runs and every option, defaults written out), the tape, what the configuration derived
(n, p, the loss constants it used, every calibrated scalar and short array), the output ``theta``
and the flags. The vector follows ``reference/vectors/schema.json`` like the committed ones (which
the per-paper case modules build, with checkpoints); replay it in your own code from the tape, then
compare with :func:`reference.vectors.check.check` (``dperm vectors check``). Before returning, the
builder replays the tape through the configured object and checks that it reproduces the output.

:func:`vector_flags` is the one place where a configuration's flags become the vector's: its
own flags, then the departures from the printed paper that the run follows
(:func:`reference.vectors.departures.departure_flags`).
"""

from __future__ import annotations

import json
import math

from typing import TYPE_CHECKING, Any

import numpy as np

from reference.arrays import ArrayLike
from reference.rng import RngLike
from reference.tape import Recorder, Replay
from reference.vectors.build import build_domain, build_loss, describe
from spec.jsonable import convert

if TYPE_CHECKING:
    from reference.configured import Configured
    from reference.results import AlgorithmResult

__all__ = ["vector_of_run", "record_run", "vector_flags", "main_output", "vector_id", "GENERIC_TOLERANCE",
           "HOOKS", "configure"]

#: Keywords of a reference algorithm that are not parameters of the run.
HOOKS = ("rng", "noise", "transcript")

#: Tolerance of a generated vector of T loop steps: this allowance per 35 steps (the committed cases'
#: unit), scaled by T/35 for longer runs.
GENERIC_TOLERANCE = {
    "absolute": 1e-9, "relative": 1e-9,
    "justification": "dperm run's generic vector: the reference's own double arithmetic, replayed from the tape; "
                     "1e-9 leaves about 10^6 ulps for an independent implementation's different order of operations",
}

#: Calibrated arrays longer than this are left out of ``derived`` (a replayer recomputes them).
MAX_DERIVED_ARRAY = 1000


def vector_id(text: str) -> str:
    """A schema-valid id (lower case, ``-`` separated) from a file name: ``My Run_1`` -> ``my-run-1``."""
    import re

    parts = re.findall(r"[a-z0-9]+", str(text).lower())
    return "-".join(parts) or "run"


def main_output(result: AlgorithmResult) -> np.ndarray:
    """The algorithm's output, ``runs x p``: ``result.theta`` (every result has it)."""
    return np.asarray(result.theta)


def _schema_flags() -> set[str]:
    """The schema's plain flags (its first ``anyOf`` branch; the second lists the departure tokens)."""
    from reference.vectors.generate import SCHEMA_PATH

    return set(json.loads(SCHEMA_PATH.read_text())["properties"]["flags"]["items"]["anyOf"][0]["enum"])


def vector_flags(configured: Configured) -> list[str]:
    """The flags a vector of ``configured`` carries: the configuration's own (its calibration, noise law,
    composition, mirror map, trim; ``unproven-claim`` when its certificate does not hold), those the
    schema knows, in order, then the departures from the printed papers that the configuration follows
    (:func:`reference.vectors.departures.departure_flags` of its spec ids and options). The one place
    where a configuration's flags become a vector's."""
    from reference.vectors.departures import departure_flags

    known = _schema_flags()
    own = [flag for flag in configured.all_flags() if flag in known]
    options = {**configured.options, "epsilon": configured.epsilon, "delta": configured.delta}
    return own + departure_flags(configured.spec_ids, options)


def _jsonable(value, what: str):
    """``value`` as JSON values for a vector (:func:`spec.jsonable.convert`): numbers must be finite, and
    a loss, domain or sampler is written as its description."""
    def described(obj):
        try:
            d = describe(obj)
        except ValueError as err:
            raise ValueError(f"{what} ({obj!r}) cannot be written in a vector: {err}") from None
        return d["name"] if not d["parameters"] else {"name": d["name"], "parameters": d["parameters"]}

    try:
        return convert(value, default=described, path=what)
    except ValueError as err:
        if "must be finite" in str(err):
            raise ValueError(f"{err} to be written in a vector") from None
        raise


def _loss_input(loss) -> dict:
    """A loss as the schema spells it: ``{"name", "bounds"}``; a regularised loss nests its parts."""
    from reference.losses import Regularised

    if isinstance(loss, Regularised):
        bounds = {} if loss.domain_radius is None else {"domain_radius": float(loss.domain_radius)}
        if loss.dim is not None:
            bounds["dim"] = int(loss.dim)
        return {"name": "Regularised", "bounds": bounds, "loss": _loss_input(loss.loss),
                "regulariser": _regulariser_input(loss.regulariser)}
    d = describe(loss)
    return {"name": d["name"], "bounds": _jsonable(d["parameters"], d["name"])}


def _regulariser_input(regulariser) -> dict:
    d = describe(regulariser)
    return {"name": d["name"], "bounds": _jsonable(d["parameters"], d["name"])}


def _start(configured, runs: int):
    """The configured start point as ``runs x p`` (the schema keeps it with the inputs), if the box has one."""
    for name in ("theta_1", "x_1", "x0"):
        value = getattr(configured, name, None)
        if isinstance(value, np.ndarray):
            return np.broadcast_to(value, (runs, configured.p)).tolist()
    if "theta_1" in type(configured).__dataclass_fields__ and configured.domain is not None:
        return np.broadcast_to(np.asarray(configured.domain.interior_point(), dtype=float),
                               (runs, configured.p)).tolist()
    return None


class _Checkpoints:
    """The transcript hook that keeps the iterates of steps 1, 2, T/2 and T (the committed cases'
    choice) for boxes that declare ``CHECKPOINT = (transcript key, iterate name, offset)``: the
    iterate after step t is called ``name_{t + offset}``."""

    def __init__(self, configured) -> None:
        spec = getattr(type(configured), "CHECKPOINT", None)
        self.key, self.name, self.offset = spec if spec else (None, None, 0)
        length = max(1, int(configured.loop_length()))
        self.picks = {1, 2, length // 2, length} - {0}
        self.count = 0
        self.kept: dict[int, list] = {}

    def __call__(self, t, state) -> None:
        self.count += 1
        if self.count in self.picks:
            self.kept[self.count] = np.asarray(state[self.key], dtype=np.float64).tolist()

    def checkpoints(self) -> list[dict]:
        return [{"step": t, "iterate": f"{self.name}_{t + self.offset}", "theta": self.kept[t]}
                for t in sorted(self.kept)]


def _derived(configured) -> dict:
    derived = {"n": int(configured.n), "p": int(configured.p)}
    for c in configured.constants():
        if " " not in c.name and math.isfinite(c.value):
            derived[c.name] = float(c.value)
    domain = configured.domain
    if domain is not None and math.isfinite(domain.diameter):
        derived["diameter"] = float(domain.diameter)
    for name, value, _, _ in configured.quantities():
        if isinstance(value, bool) or value is None or isinstance(value, str):
            continue
        if isinstance(value, np.ndarray):
            if value.ndim == 1 and value.size <= MAX_DERIVED_ARRAY and np.all(np.isfinite(value)) \
                    and name not in ("theta_1", "x_1", "x0"):
                derived[name] = value.tolist()
            continue
        if isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value):
            derived[name] = value.item() if hasattr(value, "item") else value
    return derived


def _tolerance(configured) -> dict:
    steps = max(1, int(configured.loop_length()))
    if steps <= 35:
        return dict(GENERIC_TOLERANCE)
    scale = steps / 35
    return {"absolute": GENERIC_TOLERANCE["absolute"] * scale, "relative": GENERIC_TOLERANCE["relative"] * scale,
            "justification": f"{GENERIC_TOLERANCE['justification']}; scaled by T/35 for this run's {steps} steps "
                             "(rounding errors add up over the steps)"}


def vector_of_run(configured: Configured, data: ArrayLike, *, id: str, runs: int = 1, rng: RngLike = None) -> tuple[object, dict]:
    """Run ``configured`` on ``data`` with a :class:`~reference.tape.Recorder` and write its vector.

    Parameters
    ----------
    configured : reference.configured.Configured
        Any configured box (``reference.<paper>.BOXES[id].configure(...)``).
    data : array_like, shape (n, k)
    id : str
        The vector's id (:func:`vector_id` makes one from a file name).
    runs : int
        Independent runs recorded on the tape.
    rng
        Seed of the recorded draws (an int reproduces them on the same numpy build).

    Returns
    -------
    (result, vector)
        The run's result and the vector (a dict; write it with
        :func:`reference.vectors.generate.dumps`).
    """
    from reference.algorithms import label

    recorder = Recorder(rng)
    keep = _Checkpoints(configured)
    result = configured.run(data, runs=runs, noise=recorder, transcript=keep if keep.key else False)
    rows = np.asarray(data, dtype=np.float64)
    if rows.ndim == 1:
        rows = rows[:, None]
    inputs = {"data": _jsonable(rows, "data")}
    if configured.loss is not None:
        inputs["loss"] = _loss_input(configured.loss)
    if configured.domain is not None:
        d = describe(configured.domain)
        inputs["domain"] = {"name": d["name"], "parameters": _jsonable(d["parameters"], d["name"])}
    if configured.regulariser is not None and "loss" in inputs and inputs["loss"]["name"] != "Regularised":
        inputs["regulariser"] = _regulariser_input(configured.regulariser)
    start = _start(configured, runs)
    if start is not None:
        inputs["theta_1"] = start
    parameters = {"epsilon": float(configured.epsilon)}
    if configured.delta:
        parameters["delta"] = float(configured.delta)
    parameters["runs"] = int(runs)
    for name, value in configured.options.items():
        if value is None or name in ("theta_1", "x_1", "x0", "regulariser"):
            continue
        parameters[name] = _jsonable(value, name)
    vector = {"id": vector_id(id), "algorithm": label(configured.ALGORITHM), "spec": list(configured.spec_ids),
              "flags": vector_flags(configured), "inputs": inputs, "parameters": parameters,
              "derived": _derived(configured), "tape": recorder.tape.to_dict(), "checkpoints": keep.checkpoints(),
              "output": {"theta": _jsonable(main_output(result), "theta")}, "tolerance": _tolerance(configured)}
    replay = Replay(recorder.tape)
    again = configured.run(data, runs=runs, noise=replay)
    replay.assert_consumed()
    if not np.array_equal(main_output(again), main_output(result)):  # pragma: no cover - a broken loop
        raise RuntimeError(f"{configured.ALGORITHM}: replaying the recorded tape does not reproduce the run")
    return result, vector


def configure(algorithm: str, data: ArrayLike, **keywords: Any) -> Configured:
    """The configured box of ``algorithm`` for ``data``: ``n`` (and the dimension) from the data's
    shape; ``loss``, ``domain`` and ``regulariser`` as objects or as the vectors spell them
    (``{"name": ..., "bounds": {...}}``, ``{"name": ..., "parameters": {...}}``); the other keywords
    are the box's options."""
    import inspect

    from reference.algorithms import box

    cls = box(algorithm)
    call = dict(keywords)
    if isinstance(call.get("loss"), dict):
        call["loss"] = build_loss(call["loss"])
    if isinstance(call.get("domain"), dict):
        call["domain"] = build_domain(call["domain"])
    if isinstance(call.get("regulariser"), dict):
        from reference import losses

        reg = call["regulariser"]
        call["regulariser"] = getattr(losses, reg["name"])(**reg.get("bounds", reg.get("parameters", {})))
    rows = np.asarray(data, dtype=np.float64)
    takes = inspect.signature(cls.configure).parameters
    call["n"] = rows.shape[0]
    if "dimension" in takes and "dimension" not in call:
        call["dimension"] = call["loss"].dim_of_row(rows.shape[1])
    return cls.configure(**call)


def record_run(algorithm: str, data: ArrayLike, *, id: str, rng: RngLike = None, runs: int = 1,
               **keywords: object) -> tuple[object, dict]:
    """:func:`configure` then :func:`vector_of_run` (the function form, by record id)."""
    return vector_of_run(configure(algorithm, data, **keywords), data, id=id, runs=runs, rng=rng)
