"""bst14 Table I: excess empirical risk bounds, previous work and this paper, as data.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from spec import validate
from spec.bst14.symbols import (
    RATES,
    S_DELTA,
    S_DELTA_SC,
    S_EPS,
    S_N,
    S_P,
    TABLE_CONVENTIONS,
    Delta,
    delta,
    eps,
    n,
    p,
)
from spec.errors import ParameterError
from spec.record import (
    Assumption,
    BoundKind,
    Citation,
    Flag,
    FlagKind,
    Quantity,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register


# --------------------------------------------------------------------------- Table I
@dataclass(frozen=True)
class TableCell:
    """One cell of bst14 Table I (normalised to L = ||C||_2 = 1).

    Attributes
    ----------
    row : {"lipschitz", "lipschitz+smooth", "strongly_convex", "strongly_convex+smooth"}
    model : {"pure", "approx"}
        (epsilon, 0) or (epsilon, delta)-DP.
    source : {"previous", "this work"}
    kind : {"upper", "lower"}
    bound : sympy expression
        In ``n``, ``p``, ``epsilon``, ``delta``, ``Delta`` (the record's symbols).
    reference : str
        Where the bound comes from.
    record : str
        Id of the bst14 record that proves it ('' for previous work).
    """

    row: str
    model: str
    source: str
    kind: str
    bound: sp.Basic
    reference: str
    record: str = ""


_ROWS = ("lipschitz", "lipschitz+smooth", "strongly_convex", "strongly_convex+smooth")
_MODELS = ("pure", "approx")
_SOURCES = ("previous", "this work")
_KINDS = ("upper", "lower")
_CMS11 = "[11] Chaudhuri, Monteleoni, Sarwate 2011"
_KST12 = "[29] Kifer, Smith, Thakurta 2012"
_lg = sp.log

TABLE_CELLS = (
    # (epsilon, 0)
    TableCell("lipschitz", "pure", "previous", "upper", p * sp.sqrt(n) / eps, _CMS11),
    TableCell("lipschitz", "pure", "this work", "upper", p / eps, "Theorem III.2", "bst14.thm_III_2"),
    TableCell("lipschitz", "pure", "this work", "lower", p / eps, "Theorem V.2", "bst14.thm_V_2"),
    TableCell("lipschitz+smooth", "pure", "previous", "upper", p / eps, _CMS11),
    TableCell("lipschitz+smooth", "pure", "this work", "lower", p / eps, "Theorem V.2", "bst14.thm_V_2"),
    TableCell("strongly_convex", "pure", "previous", "upper", p**2 / (sp.sqrt(n) * Delta * eps**2), _CMS11),
    TableCell("strongly_convex", "pure", "this work", "upper", _lg(n) / Delta * p**2 / (n * eps**2),
              "Theorem IV.3", "bst14.thm_IV_3"),
    TableCell("strongly_convex", "pure", "this work", "lower", p**2 / (n * eps**2), "Theorem V.4", "bst14.thm_V_4"),
    TableCell("strongly_convex+smooth", "pure", "previous", "upper", p**2 / (n * Delta * eps**2), _CMS11),
    TableCell("strongly_convex+smooth", "pure", "this work", "lower", p**2 / (n * eps**2), "Theorem V.4",
              "bst14.thm_V_4"),
    # (epsilon, delta)
    TableCell("lipschitz", "approx", "previous", "upper", sp.sqrt(p * n * _lg(1 / delta)) / eps, _KST12),
    TableCell("lipschitz", "approx", "this work", "upper", sp.sqrt(p) * _lg(n / delta) ** 2 / eps,
              "Theorem II.4 (1)", "bst14.thm_II_4"),
    TableCell("lipschitz", "approx", "this work", "lower", sp.sqrt(p) / eps, "Theorem V.3", "bst14.thm_V_3"),
    TableCell("lipschitz+smooth", "approx", "previous", "upper", sp.sqrt(p) * _lg(1 / delta) / eps, _KST12),
    TableCell("lipschitz+smooth", "approx", "this work", "lower", sp.sqrt(p) / eps, "Theorem V.3", "bst14.thm_V_3"),
    TableCell("strongly_convex", "approx", "previous", "upper", p * _lg(1 / delta) / (sp.sqrt(n) * Delta * eps**2),
              _KST12),
    TableCell("strongly_convex", "approx", "this work", "upper", _lg(n / delta) ** 3 / Delta * p / (n * eps**2),
              "Theorem II.4 (2)", "bst14.thm_II_4"),
    TableCell("strongly_convex", "approx", "this work", "lower", p / (n * eps**2), "Theorem V.5", "bst14.thm_V_5"),
    TableCell("strongly_convex+smooth", "approx", "previous", "upper", p * _lg(1 / delta) / (n * Delta * eps**2),
              _KST12),
    TableCell("strongly_convex+smooth", "approx", "this work", "lower", p / (n * eps**2), "Theorem V.5",
              "bst14.thm_V_5"),
)

TABLE_I = register(SpecRecord(
    id="bst14.table_I",
    title="Table I: upper and lower bounds for the excess risk of DP convex ERM",
    citation=Citation("bst14", "Table I"),
    summary=(
        "Excess empirical risk bounds for (epsilon, 0)- and (epsilon, delta)-DP convex ERM, previous work "
        "and this paper, for Lipschitz and strongly convex losses (with or without smoothness), at "
        "L = ||C||_2 = 1 and delta < 1/n. The cells are in data (TableCell); each is also a utility claim."
    ),
    conventions=TABLE_CONVENTIONS,
    symbols=(S_N, S_P, S_EPS, S_DELTA, S_DELTA_SC),
    assumptions=(
        Assumption("delta_lt_1_over_n", sp.Lt(delta, 1 / n), "delta < 1/n, assumed by the table to simplify"),
    ),
    utility=tuple(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, c.bound,
            BoundKind.BIG_O if c.kind == "upper" else BoundKind.BIG_OMEGA,
            f"{c.row}, {'(epsilon, 0)' if c.model == 'pure' else '(epsilon, delta)'}, {c.source}, {c.kind}: "
            f"{c.reference}.",
            RATES,
        )
        for c in TABLE_CELLS
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "The (epsilon, delta) upper bounds of this work carry log^2(n/delta) (Lipschitz) and "
            "log^3(n/delta) (strongly convex) where Theorem II.4 has log^{3/2}(n/delta) sqrt(log(1/delta)) "
            "and log^2(n/delta) log(1/delta): the same order under the table's delta < 1/n.",
            "For delta < 1/n, ln(1/delta) <= ln(n/delta) < 2 ln(1/delta), so table/theorem = "
            "sqrt(ln(n/delta)/ln(1/delta)) is in [1, sqrt(2)) and ln(n/delta)/ln(1/delta) in [1, 2). Every "
            "'this work' cell has the rate exponents of its theorem (at L = ||C||_2 = 1), and every lower "
            "bound cell equals its theorem's bound.",
            ("tests/spec/bst14/test_table_i.py::test_table_I_matches_theorems",),
        ),
    ),
    notes=(
        "The smooth rows have no 'this work' upper bound: previous work (objective perturbation) is "
        "already optimal there, since the lower-bound instances are smooth.",
        "Query cells with spec.bst14.table_cells(row=..., model=..., source=..., kind=...).",
    ),
    data=TABLE_CELLS,
))


def table_cells(*, row: str | None = None, model: str | None = None, source: str | None = None,
                kind: str | None = None) -> tuple[TableCell, ...]:
    """The Table I cells matching every given attribute (all cells when none is given).

    Parameters
    ----------
    row : {"lipschitz", "lipschitz+smooth", "strongly_convex", "strongly_convex+smooth"}, optional
    model : {"pure", "approx"}, optional
    source : {"previous", "this work"}, optional
    kind : {"upper", "lower"}, optional

    Returns
    -------
    tuple of TableCell
        In the order of the printed table (the (epsilon, 0) columns first).
    """
    want = {}
    for name, value, options in (("row", row, _ROWS), ("model", model, _MODELS),
                                 ("source", source, _SOURCES), ("kind", kind, _KINDS)):
        if value is not None:
            want[name] = validate.choice(name, value, options)
    return tuple(c for c in TABLE_CELLS if all(getattr(c, k) == v for k, v in want.items()))


def table_cell(*, row: str, model: str, source: str, kind: str) -> TableCell:
    """The single Table I cell at ``(row, model, source, kind)``.

    Raises
    ------
    ParameterError
        For an unknown attribute value, or for a cell the printed table leaves empty (the smooth rows
        have no 'this work' upper bound).
    """
    hits = table_cells(row=row, model=model, source=source, kind=kind)
    if not hits:
        raise ParameterError(
            f"Table I has no cell at row ({row!r}), model ({model!r}), source ({source!r}), kind ({kind!r}): "
            "the smooth rows have no 'this work' upper bound and previous work has no lower bounds"
        )
    return hits[0]
