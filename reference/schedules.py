"""Evaluate a spec formula over an array of step indices (learning-rate schedules).

Step sizes are not privacy-critical, but they are still the spec record's expression: this
module substitutes the fixed (public) values into the record's sympy expression and compiles
what remains, a function of the step index alone, with :func:`sympy.lambdify` for numpy. The
result agrees with ``record.evaluate(name, step=t, ...)`` to double rounding (the test checks
it against the 50-digit evaluation); it never retypes the formula.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from reference.arrays import ArrayLike
from spec import validate
from spec.errors import ParameterError
from spec.record import SpecRecord

__all__ = ["evaluate_over_steps"]


def evaluate_over_steps(record: SpecRecord, name: str, steps: ArrayLike, *, step_name: str = "step",
                        **values: float) -> np.ndarray:
    """Formula ``name`` of ``record`` at every step index in ``steps``.

    Parameters
    ----------
    record : SpecRecord
        The record holding the formula.
    name : str
        Formula name, e.g. ``"eta_lipschitz_sigma"``.
    steps : array_like of int
        Step indices (>= 1).
    step_name : str
        Canonical name of the step symbol in ``record`` (default ``"step"``).
    **values
        Canonical values of every other free symbol of the formula (finite reals).

    Returns
    -------
    ndarray of float64, shape of ``steps``.
    """
    t = np.asarray(steps)
    if t.dtype.kind not in "iu" or (t.size and t.min() < 1):
        raise ParameterError(f"steps (dtype {t.dtype}, min {t.min() if t.size else None}) must be integers >= 1")
    expr = record.formula(name).expr
    step_symbol = record.symbol(step_name)
    subs = {}
    for key, value in values.items():
        v = validate.real(key, value)
        # sp.Float(v) with the float's exact binary value: no decimal re-rounding
        subs[record.symbol(key)] = sp.Rational(v) if float(v).is_integer() else sp.Float(v, 30)
    reduced = expr.subs(subs)
    free = reduced.free_symbols - {step_symbol}
    if free:
        raise ParameterError(f"values (missing {sorted(str(s) for s in free)}) must fix every symbol but the step")
    fn = sp.lambdify([step_symbol], reduced, modules="numpy")
    out = np.asarray(fn(t.astype(np.float64)), dtype=np.float64)
    return np.broadcast_to(out, t.shape).copy()
