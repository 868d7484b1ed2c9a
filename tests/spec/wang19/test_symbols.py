"""spec.wang19.symbols: the helpers every wang19 module builds its expressions with."""

from __future__ import annotations

import pytest
import sympy as sp

from spec import zcdp
from spec.wang19.symbols import LOG_INV_DELTA, T, delta, eps, from_record, minimise_in_steps


def test_minimise_in_steps():
    a, b = sp.symbols("a b", positive=True)
    t_star, value = minimise_in_steps(a / T + b * T)
    assert sp.simplify(t_star - sp.sqrt(a / b)) == 0 and sp.simplify(value - 2 * sp.sqrt(a * b)) == 0
    t_star, value = minimise_in_steps(a / sp.sqrt(T) + b * sp.sqrt(T) * sp.sqrt(LOG_INV_DELTA))
    assert sp.simplify(t_star - a / (b * sp.sqrt(LOG_INV_DELTA))) == 0
    with pytest.raises(ValueError, match="one stationary point"):
        minimise_in_steps(a * T)


def test_from_record_substitutes_simultaneously():
    expr = from_record(zcdp.RHO_STAR, "rho", {"epsilon": 2 * eps, "delta": delta})
    assert sp.simplify(expr - zcdp.RHO_STAR.formula("rho").expr.subs(eps, 2 * eps)) == 0
    with pytest.raises(KeyError):
        from_record(zcdp.RHO_STAR, "rho", {"no_such_name": eps})
