"""Exact evaluation of the records' formulas, and the decision of their assumptions.

A formula is a sympy expression evaluated by mpmath at :data:`PRECISION_DIGITS` significant
digits (then rounded to a double on the safe side by :func:`spec.record.round_safe`); an
assumption is a sympy relation decided at the same precision (:class:`Assumption`). Split from
:mod:`spec.record`, which re-exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import mpmath
import sympy as sp

__all__ = ["PRECISION_DIGITS", "ROUNDING_NOTE", "Assumption"]

#: Decimal digits used when evaluating formulas and accountants with mpmath.
PRECISION_DIGITS = 50


def _mp(value):
    """Exact conversion of a finite float/int to mpmath."""
    if isinstance(value, int):
        return mpmath.mpf(value)
    return mpmath.mpf(float(value))


_COMPILED: dict = {}


def _compiled(expr: sp.Basic):
    """``(symbols, mpmath function)`` for ``expr``, built once (lambdify is slow)."""
    key = expr
    hit = _COMPILED.get(key)
    if hit is None:
        free = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
        hit = (free, sp.lambdify(free, expr, modules="mpmath"))
        _COMPILED[key] = hit
    return hit


def _evaluate_expr(expr: sp.Basic, subs: Mapping[sp.Symbol, object]):
    """Evaluate a sympy expression exactly enough: mpmath at PRECISION_DIGITS."""
    free, fn = _compiled(expr)
    missing = [s for s in free if s not in subs]
    if missing:
        raise KeyError(", ".join(s.name for s in missing))
    with mpmath.workdps(PRECISION_DIGITS):
        return fn(*[_mp(subs[s]) for s in free])


#: How an assumption that fails exactly is decided again, in the words of the error message.
ROUNDING_NOTE = ("decided exactly, and again with each side rounded to the nearest double, as a value typed "
                 "as a decimal is")


@dataclass(frozen=True)
class Assumption:
    """A hypothesis of a theorem as a sympy relation (or boolean combination of relations).

    Decided in 50-digit arithmetic; a relation that fails exactly is decided again with each side
    rounded to the nearest double (:data:`ROUNDING_NOTE`), so ``learning_rate = 10`` typed for
    ``1/smoothness`` at ``smoothness = 0.1`` (whose double is a little above 1/10) is on the
    boundary, not beyond it. Never more than that half ulp; strict stays strict (``epsilon < 1``
    refuses ``1.0``); a negated relation is decided exactly.
    """

    name: str
    relation: sp.Basic
    statement: str

    def holds(self, subs: Mapping[sp.Symbol, object], *, exact: bool = False) -> bool:
        """Decide the relation at the given values (50-digit mpmath arithmetic; ``exact=False``:
        within the rounding of each side to the nearest double, see the class docstring)."""
        return _decide(self.relation, subs, not exact)


_OPERATORS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
              "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _decide(rel, subs, rounding: bool = True) -> bool:
    if rel is sp.true or rel is True:
        return True
    if rel is sp.false or rel is False:
        return False
    if isinstance(rel, sp.And):
        return all(_decide(a, subs, rounding) for a in rel.args)
    if isinstance(rel, sp.Or):
        return any(_decide(a, subs, rounding) for a in rel.args)
    if isinstance(rel, sp.Not):
        return not _decide(rel.args[0], subs, False)
    if isinstance(rel, sp.core.relational.Relational):
        lhs = _evaluate_expr(rel.lhs, subs)
        rhs = _evaluate_expr(rel.rhs, subs)
        if isinstance(lhs, mpmath.mpc) or isinstance(rhs, mpmath.mpc):
            # outside the expressions' real domain (sqrt(ln(1/delta)) at delta > 1): the relation does not hold
            if mpmath.im(lhs) != 0 or mpmath.im(rhs) != 0:
                return False
            lhs, rhs = mpmath.re(lhs), mpmath.re(rhs)
        compare = _OPERATORS[rel.rel_op]
        if bool(compare(lhs, rhs)):
            return True
        # the boundary typed as a decimal: each side as the double nearest to it
        return rounding and rel.rel_op in ("<", "<=", ">", ">=") and bool(compare(float(lhs), float(rhs)))
    raise TypeError(f"cannot decide assumption {rel!r}")
