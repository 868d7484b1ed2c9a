"""Compare your implementation's outputs with a known-answer vector, under the vector's tolerance.

::

    from reference.vectors.check import check, load_vector
    result = check(load_vector("bst14-alg1-hinge-box-lipschitz"), mine)
    result.ok          # True when every number matches
    print(result)      # the first mismatch, precisely: field, index, got, want, allowed

The same from the command line: ``dperm vectors check FILE --outputs MINE.json``.

Outputs
-------
``mine`` (a dict, or the JSON file ``dperm vectors check`` reads) has the shapes of the vector's
own fields; give any of them, at least one:

* ``"output"``: ``{"theta": [[...], ...]}`` (``runs x p``; Algorithm 3 also ``"radius"``);
* ``"checkpoints"``: ``[{"step": t, "theta": [[...]]}, ...]``, matched by ``step`` (and by
  ``iterate`` when you give one); you may give a subset of the vector's checkpoints;
* ``"derived"``: ``{"sigma": ..., "learning_rates": [...], ...}``, any subset.

Rule
----
A number ``got`` matches ``want`` when ``abs(got - want) <= absolute + relative * abs(want)``:
with the vector's ``tolerance`` for ``output`` and ``checkpoints``, and with
:data:`DERIVED_TOLERANCE` (1e-12 relative, docs/vectors/README.md's rule for derived values, which are
50-digit evaluations rounded once) for ``derived``; integers (``n``, ``p``, ``steps``) must be
equal. Shapes must be equal. Fields are compared in the order a computation produces them --
``derived``, then the checkpoints by step, then ``output`` -- and arrays in row-major order, so
the first mismatch reported is the earliest divergence.

>>> vector = {"id": "v", "tolerance": {"absolute": 1e-9, "relative": 0.0, "justification": ""},
...           "derived": {}, "checkpoints": [], "output": {"theta": [[0.5, 0.25]]}}
>>> print(check(vector, {"output": {"theta": [[0.5, 0.2500001]]}}).first)
output.theta[0][1]: got 0.2500001, want 0.25, |got - want| = 1e-07 > allowed 1e-09 (absolute 1e-09 + relative 0 x |want|)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from spec.errors import ParameterError
from spec.jsonable import strict

__all__ = ["DERIVED_TOLERANCE", "Mismatch", "CheckResult", "check", "load_vector", "load_outputs", "find_vector"]

#: Tolerance for ``derived`` values: 50-digit evaluations rounded once to a double, so a replayer's
#: double-precision evaluation agrees to a few ulps (docs/vectors/README.md, "Derived values").
DERIVED_TOLERANCE = {"absolute": 0.0, "relative": 1e-12,
                     "justification": "derived values are 50-digit evaluations rounded once; a double "
                                      "evaluation agrees to a few ulps"}

#: The fields of an outputs file, in the order they are compared.
FIELDS = ("derived", "checkpoints", "output")


@dataclass(frozen=True)
class Mismatch:
    """One difference between your outputs and the vector.

    Attributes
    ----------
    field : str
        ``"output.theta"``, ``"checkpoints[step=7].theta"``, ``"derived.sigma"``, ...
    index : tuple of int
        Position in the array (``(run, coordinate)`` for a ``theta``), ``()`` for a scalar or a
        whole field.
    got, want
        Your value and the vector's (``None`` where one is missing).
    allowed : float or None
        ``absolute + relative * abs(want)`` for a numeric comparison.
    reason : str
        ``"value"`` (outside the tolerance), ``"shape"``, ``"missing"`` (the vector has no such
        field), ``"not a number"``.
    """

    field: str
    index: tuple = ()
    got: object = None
    want: object = None
    allowed: float | None = None
    reason: str = "value"
    rule: str = ""

    @property
    def where(self) -> str:
        """The field and its index: ``output.theta[0][2]``."""
        return self.field + "".join(f"[{i}]" for i in self.index)

    def __str__(self) -> str:
        if self.reason == "value":
            diff = abs(float(self.got) - float(self.want))
            return (f"{self.where}: got {self.got!r}, want {self.want!r}, |got - want| = {diff:.3g} > "
                    f"allowed {self.allowed:.3g} ({self.rule})")
        if self.reason == "shape":
            return f"{self.where}: got shape {self.got}, want shape {self.want}"
        if self.reason == "missing":
            return f"{self.where}: the vector has no such field ({self.want})"
        return f"{self.where}: got {self.got!r}, want {self.want!r} ({self.reason})"

    def to_dict(self) -> dict:
        """Strict JSON (:func:`spec.jsonable.strict`: a non-finite number is null, listed in "infinite")."""
        return strict({"field": self.field, "index": list(self.index), "where": self.where, "got": self.got,
                       "want": self.want, "allowed": self.allowed, "reason": self.reason, "message": str(self)})


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`check`.

    Attributes
    ----------
    vector_id : str
    compared : dict
        Field -> number of values compared (``{"output.theta": 6, ...}``), in comparison order.
    mismatches : tuple of Mismatch
        Every mismatch, earliest first.
    tolerance : dict
        The vector's tolerance (``absolute``, ``relative``, ``justification``).
    """

    vector_id: str
    compared: dict
    mismatches: tuple = field(default=())
    tolerance: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    @property
    def first(self) -> Mismatch | None:
        return self.mismatches[0] if self.mismatches else None

    @property
    def count(self) -> int:
        """Number of values compared."""
        return sum(self.compared.values())

    def __str__(self) -> str:
        t = self.tolerance
        rule = f"absolute {t.get('absolute', 0):g} + relative {t.get('relative', 0):g} x |want|"
        fields = ", ".join(f"{k} ({v})" for k, v in self.compared.items())
        if self.ok:
            return f"{self.vector_id}: ok: {self.count} values match ({fields}); tolerance {rule}"
        k = len(self.mismatches)
        return (f"{self.vector_id}: MISMATCH at {self.first}\n"
                f"compared {self.count} values ({fields}); {k} mismatch{'es' if k != 1 else ''}")

    def to_dict(self) -> dict:
        """Strict JSON (:func:`spec.jsonable.strict`)."""
        return strict({"vector": self.vector_id, "ok": self.ok, "compared": dict(self.compared), "count": self.count,
                       "tolerance": dict(self.tolerance), "mismatches": [m.to_dict() for m in self.mismatches]})


def _shape(value, where: str):
    """Shape of a nested list of numbers; ``None`` for a ragged or non-list value."""
    if isinstance(value, list):
        if not value:
            return (0,)
        shapes = {_shape(v, where) for v in value}
        if len(shapes) != 1 or None in shapes:
            return None
        return (len(value), *shapes.pop())
    return ()


def _flatten(value, index=()):
    if isinstance(value, list):
        for i, v in enumerate(value):
            yield from _flatten(v, index + (i,))
    else:
        yield index, value


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compare(where: str, got, want, tol: dict, out: list) -> int:
    """Append the mismatches of ``got`` against ``want`` to ``out``; returns the number of values compared."""
    g_shape, w_shape = _shape(got, where), _shape(want, where)
    if g_shape is None or g_shape != w_shape:
        out.append(Mismatch(where, (), "ragged" if g_shape is None else list(g_shape), list(w_shape or ()),
                            reason="shape"))
        return 0
    absolute, relative = float(tol.get("absolute", 0.0)), float(tol.get("relative", 0.0))
    rule = f"absolute {absolute:g} + relative {relative:g} x |want|"
    n = 0
    for (index, g), (_, w) in zip(_flatten(got), _flatten(want)):
        n += 1
        if not _is_number(g):
            out.append(Mismatch(where, index, g, w, reason="not a number"))
            continue
        if isinstance(w, int) and isinstance(g, int):  # integers (n, p, steps, tape-free counts): equal
            if g != w:
                out.append(Mismatch(where, index, g, w, reason="not equal (an integer)"))
            continue
        allowed = absolute + relative * abs(float(w))
        if not (math.isfinite(float(g)) and abs(float(g) - float(w)) <= allowed):
            if not math.isfinite(float(g)):
                out.append(Mismatch(where, index, g, w, reason="not finite"))
            else:
                out.append(Mismatch(where, index, g, w, allowed, "value", rule))
    return n


def check(vector: dict, outputs: dict) -> CheckResult:
    """Compare ``outputs`` (module docstring) with ``vector`` under the vector's tolerance.

    Parameters
    ----------
    vector : dict
        A known-answer vector (``reference/vectors/schema.json``).
    outputs : dict
        Any of ``"derived"``, ``"checkpoints"``, ``"output"``, shaped like the vector's fields.

    Returns
    -------
    CheckResult
        ``ok``, ``first`` (the earliest mismatch) and every mismatch.

    Raises
    ------
    ParameterError
        If ``outputs`` is not a dict, has an unknown top-level key, or none of the three fields.
    """
    if not isinstance(outputs, dict):
        raise ParameterError(f"outputs ({type(outputs).__name__}) must be a JSON object with any of "
                             f"{', '.join(FIELDS)}")
    unknown = [k for k in outputs if k not in FIELDS]
    if unknown:
        raise ParameterError(f"outputs key ({', '.join(map(repr, unknown))}) must be one of {', '.join(FIELDS)}")
    if not any(k in outputs for k in FIELDS):
        raise ParameterError(f"outputs (no {', '.join(FIELDS)}) must give at least one field to compare")
    tol = dict(vector["tolerance"])
    mismatches: list[Mismatch] = []
    compared: dict[str, int] = {}

    def section(name: str, got: dict, want: dict, rule: dict):
        if not isinstance(got, dict):
            raise ParameterError(f"outputs {name} ({type(got).__name__}) must be a JSON object")
        # the vector's order (the order of computation), then what the vector lacks
        for key in [k for k in want if k in got] + [k for k in got if k not in want]:
            where = f"{name}.{key}"
            if key not in want:
                mismatches.append(Mismatch(where, (), got[key], f"it has {', '.join(want) or 'none'}",
                                           reason="missing"))
                continue
            compared[where] = _compare(where, got[key], want[key], rule, mismatches)

    if "derived" in outputs:
        section("derived", outputs["derived"], vector.get("derived", {}), DERIVED_TOLERANCE)
    if "checkpoints" in outputs:
        got = outputs["checkpoints"]
        if not isinstance(got, list):
            raise ParameterError(f"outputs checkpoints ({type(got).__name__}) must be a list of "
                                 '{"step": t, "theta": [[...]]}')
        at_step: dict = {}  # step -> the vector's checkpoints there (several iterates may share a step)
        for c in vector.get("checkpoints", []):
            at_step.setdefault(c["step"], []).append(c)
        for i, c in enumerate(got):
            if not isinstance(c, dict) or not _is_number(c.get("step")) or "theta" not in c:
                raise ParameterError(f"outputs checkpoints[{i}] ({json.dumps(c)[:60]}) must look like "
                                     '{"step": t, "theta": [[...]]}')
        for c in sorted(got, key=lambda c: c["step"]):  # the order of computation
            candidates = at_step.get(c["step"], [])
            where = f"checkpoints[step={c['step']}]"
            if not candidates:
                steps = ", ".join(map(str, at_step)) or "none"
                mismatches.append(Mismatch(where, (), c["theta"], f"its checkpoints are at steps {steps}",
                                           reason="missing"))
                continue
            names = [w["iterate"] for w in candidates]
            if len(candidates) > 1:
                if "iterate" not in c:
                    mismatches.append(Mismatch(where, (), c["theta"], f"one of the iterates {', '.join(names)}",
                                               reason="ambiguous: give the checkpoint's iterate"))
                    continue
                where = f"checkpoints[step={c['step']}, iterate={c['iterate']}]"
            if "iterate" in c and c["iterate"] not in names:
                mismatches.append(Mismatch(f"{where}.iterate", (), c["iterate"], " or ".join(names),
                                           reason="a different iterate"))
                continue
            w = candidates[names.index(c["iterate"])] if "iterate" in c else candidates[0]
            compared[f"{where}.theta"] = _compare(f"{where}.theta", c["theta"], w["theta"], tol, mismatches)
    if "output" in outputs:
        section("output", outputs["output"], vector["output"], tol)
    return CheckResult(vector_id=vector.get("id", "?"), compared=compared, mismatches=tuple(mismatches),
                       tolerance=tol)


def find_vector(name: str) -> Path:
    """The committed vector file with id ``name`` (``reference/vectors/<paper>/<name>.json``)."""
    from reference.vectors.generate import vector_files

    found = [p for p in vector_files() if p.stem == name]
    if not found:
        import difflib

        ids = [p.stem for p in vector_files()]
        close = difflib.get_close_matches(name, ids, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else " (dperm vectors list shows them)"
        raise ParameterError(f"vector ({name!r}) must be a vector file or the id of a committed vector{hint}")
    return found[0]


def _read_json(path: Path, what: str):
    try:
        text = path.read_text()
    except OSError as err:
        raise ParameterError(f"{what} ({path}) cannot be read: {err.strerror or err}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ParameterError(f"{what} ({path}) is not JSON: line {err.lineno}, column {err.colno}: {err.msg}") from None


def load_vector(path_or_id: str | Path) -> dict:
    """A vector from a file path, or from the id of a committed vector."""
    path = Path(path_or_id)
    if not path.exists() and path.suffix != ".json" and "/" not in str(path_or_id):
        path = find_vector(str(path_or_id))
    vector = _read_json(path, "vector")
    if not isinstance(vector, dict) or not {"tolerance", "output"} <= set(vector):
        raise ParameterError(f"vector ({path}) must be a known-answer vector (reference/vectors/schema.json): "
                             "it has no tolerance or output")
    return vector


def load_outputs(path: str | Path) -> dict:
    """Your outputs from a JSON file (module docstring)."""
    return _read_json(Path(path), "outputs")
