"""spec.bst14.table_i: Table I against the theorems.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

import spec
from spec import bst14
from spec.bst14 import symbols
from spec.errors import ParameterError
from spec.record import BoundKind


# --------------------------------------------------------------------------- Table I
def test_table_I_matches_theorems():
    cells = bst14.table_cells()
    assert len(cells) == 20 and bst14.TABLE_I.data == cells
    assert len(bst14.TABLE_I.utility) == 20
    assert len(bst14.table_cells(source="this work", kind="upper")) == 4
    assert len(bst14.table_cells(kind="lower")) == 8 and len(bst14.table_cells(source="previous")) == 8
    for row in ("lipschitz+smooth", "strongly_convex+smooth"):
        assert not bst14.table_cells(row=row, source="this work", kind="upper")
    tab = bst14.TABLE_I
    assert tab.symbol("n") is symbols.n and tab.symbol("delta") is symbols.delta  # shared with the theorems
    # "this work" upper cells: same rate exponents as the theorem (at L = ||C||_2 = 1)
    uppers = {("pure", "lipschitz"): (bst14.THM_III_2, 0), ("pure", "strongly_convex"): (bst14.THM_IV_3, 0),
              ("approx", "lipschitz"): (bst14.THM_II_4, 0), ("approx", "strongly_convex"): (bst14.THM_II_4, 1)}
    for (model, row), (record, index) in uppers.items():
        cell = bst14.table_cell(row=row, model=model, source="this work", kind="upper")
        assert cell.record == record.id
        i = cells.index(cell)
        theirs = record.exponents(index)
        ours = tab.exponents(i)
        assert {k: v for k, v in ours.items() if k in theirs} == theirs
        normalised = record.utility[index].bound.subs({symbols.L: 1, symbols.diam: 1})
        ratio = sp.simplify(cell.bound / normalised)
        if model == "pure":
            assert ratio == 1
        else:
            # log powers differ: the ratio is sqrt(ln(n/delta)/ln(1/delta)) or ln(n/delta)/ln(1/delta)
            f = sp.lambdify([symbols.n, symbols.delta], ratio, "mpmath")
            top = math.sqrt(2) if row == "lipschitz" else 2
            for n in (2, 10, 10**3, 10**6):
                for delta in (0.99 / n, 1e-3 / n, 1e-9, 1e-30):
                    if delta < 1 / n:
                        assert 1 <= f(n, delta) < top
    # lower cells: exactly the theorems' bounds
    for cell in bst14.table_cells(kind="lower"):
        record = spec.get(cell.record)
        assert sp.simplify(cell.bound - record.utility[0].bound) == 0
        assert tab.utility[cells.index(cell)].kind is BoundKind.BIG_OMEGA


def test_table_queries_reject_bad_input():
    with pytest.raises(ParameterError, match="row"):
        bst14.table_cells(row="smooth")
    with pytest.raises(TypeError):
        bst14.table_cells(kind=1)
    with pytest.raises(ParameterError, match="no cell"):
        bst14.table_cell(row="lipschitz+smooth", model="approx", source="this work", kind="upper")
    cell = bst14.table_cell(row="strongly_convex", model="approx", source="this work", kind="upper")
    assert cell.reference == "Theorem II.4 (2)"
