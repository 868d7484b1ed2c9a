"""``dperm spec ID --eval name=value ...``: a record's formulas at given canonical values.

The record's assumptions are checked first (a failure is a usage error naming the assumption and
the values); then every formula whose symbols are all given is evaluated with
:meth:`spec.record.SpecRecord.evaluate`, so each value is rounded in its formula's safe direction
(noise up, budgets down), and the formulas that still miss values are listed with the names they
need.

>>> import spec
>>> out = evaluate(spec.get("gaussian.classic"), {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0})
>>> out["formulas"], out["rounding"]
({'sigma': 9.68961052521078}, {'sigma': 'up'})
"""

from __future__ import annotations

import mpmath

from dperm.arguments import UsageError
from spec.record import SpecRecord

__all__ = ["evaluate", "to_text"]


_ROUNDING_TEXT = {
    "up": "rounded up",
    "down": "rounded down",
    "ceil": "rounded up to an integer",
    "floor": "rounded down to an integer",
    "nearest": "rounded to nearest",
}


def _names(record: SpecRecord, expr) -> list[str]:
    """Canonical names of the symbols of ``expr``, in the record's symbol order."""
    free = expr.free_symbols
    return [s.name for s in record.symbols if s.symbol in free]


def _show(values: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


def evaluate(record: SpecRecord, values: dict, *, check: bool = True) -> dict:
    """Everything ``--eval`` reports, JSON-ready except for +-infinite floats.

    Parameters
    ----------
    record : SpecRecord
    values : dict
        Canonical names of the record's symbols and their values.
    check : bool
        Raise :class:`~spec.errors.AssumptionError` when an assumption decidable at ``values``
        fails (default). With False, failing assumptions are listed under
        ``assumptions["fail"]`` and the formulas are evaluated anyway (to explore where a
        calibration stops holding, as the records' flags do).

    Returns
    -------
    dict
        ``id``, ``values``, ``checked``, ``assumptions`` (``hold``, ``fail``, and ``undecided``:
        name -> canonical names still needed), ``formulas`` (name -> rounded value), ``rounding``
        (name -> direction), ``needs`` (formula -> canonical names still needed) and
        ``undefined`` (formula -> why it has no real value at ``values``).

    Raises
    ------
    UsageError
        If a name in ``values`` is not one of the record's symbols.
    AssumptionError
        With ``check``, if an assumption fails at ``values``.
    """
    known = [s.name for s in record.symbols]
    unknown = [k for k in values if k not in known]
    if unknown:
        raise UsageError(f"{record.id} has no parameter {', '.join(unknown)}; its canonical names are "
                         f"{', '.join(known) or '(none)'}")
    if check:
        record.check(**values)
    failed = {a.name for a in record.failed_assumptions(**values)}
    undecided = {a.name: [k for k in _names(record, a.relation) if k not in values]
                 for a in record.unchecked_assumptions(**values)}
    formulas, rounding, needs, undefined = {}, {}, {}, {}
    for f in record.formulas:
        missing = [k for k in _names(record, f.expr) if k not in values]
        if missing:
            needs[f.name] = missing
            continue
        exact = record.evaluate_exact(f.name, **values)
        if isinstance(exact, mpmath.mpc) or mpmath.isnan(exact):  # only reachable with check=False
            undefined[f.name] = f"no real value at {_show(values)} (outside the formula's domain)"
            continue
        formulas[f.name] = record.evaluate(f.name, check=False, **values)
        rounding[f.name] = f.rounding.value
    return {
        "id": record.id,
        "values": dict(values),
        "checked": check,
        "assumptions": {
            "hold": [a.name for a in record.assumptions if a.name not in failed and a.name not in undecided],
            "fail": [a.name for a in record.assumptions if a.name in failed],
            "undecided": undecided,
        },
        "formulas": formulas,
        "rounding": rounding,
        "needs": needs,
        "undefined": undefined,
    }


def to_text(result: dict, record: SpecRecord) -> str:
    """Plain-text rendering of :func:`evaluate`'s result."""
    out = [f"{result['id']} at {_show(result['values']) or '(no values)'}"]
    a = result["assumptions"]
    if a["hold"]:
        out.append(f"assumptions that hold: {', '.join(a['hold'])}")
    if a["fail"]:
        out.append(f"assumptions that FAIL (--no-check: evaluated anyway): {', '.join(a['fail'])}")
    for name, need in a["undecided"].items():
        out.append(f"assumption {name} undecided: needs {', '.join(need)}")
    width = max((len(f.name) for f in record.formulas), default=0)
    shown = {name: repr(value) for name, value in result["formulas"].items()}
    column = max((len(v) for v in shown.values()), default=0)
    for name, value in shown.items():
        out.append(f"{name:<{width}} = {value:<{column}}  ({_ROUNDING_TEXT[result['rounding'][name]]})")
    for name, why in result["undefined"].items():
        out.append(f"{name:<{width}}   undefined: {why}")
    if result["needs"]:
        out.append("not evaluated (values missing):")
        for name, need in result["needs"].items():
            out.append(f"  {name:<{width}} needs {', '.join(need)}")
    if not record.formulas:
        out.append(f"{record.id} has no formulas")
    return "\n".join(out)
