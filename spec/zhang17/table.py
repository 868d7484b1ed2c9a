"""zhang17 Table 1: the paper's comparison of its results with bst14 (utility and running time).

``zhang17.table_1``
    The cells as sympy expressions (``L``, ``mu`` and ``beta`` treated as constants, as the paper
    says), the zhang17 cells as utility claims, the bst14 cells as data. The nonconvex utility cell
    was lost in extraction and is taken from Theorem 5 (RECONSTRUCTED).
"""

from __future__ import annotations

import sympy as sp

from spec.record import (
    BoundKind,
    Citation,
    Conventions,
    Flag,
    FlagKind,
    LossForm,
    Neighbouring,
    Quantity,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register
from spec.zhang17.symbols import DELTA_LT_1, S_D, S_DELTA, S_EPS, S_N, d, delta, eps, n

__all__ = ["TABLE_1", "RECORDS", "CELLS"]

_TESTS = "tests/spec/zhang17/test_table.py"
_RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))
_LOG_TERM = sp.log(1 / delta)

#: (setting, method, quantity, expression) for every cell of Table 1; "NA" cells are omitted.
CELLS = (
    ("strongly convex, eps-DP", "zhang17", Quantity.EXCESS_EMPIRICAL_RISK, d**2 / (n**2 * eps**2)),
    ("strongly convex, eps-DP", "zhang17", Quantity.RUNNING_TIME, n * d * sp.log(n * eps / d)),
    ("strongly convex, (eps, delta)-DP", "zhang17", Quantity.EXCESS_EMPIRICAL_RISK,
     d * _LOG_TERM / (n**2 * eps**2)),
    ("strongly convex, (eps, delta)-DP", "zhang17", Quantity.RUNNING_TIME,
     n * d * sp.log(n * eps / (d * _LOG_TERM))),
    ("nonconvex, (eps, delta)-DP", "zhang17", Quantity.GRADIENT_NORM,
     sp.sqrt(d * sp.log(n / delta) * _LOG_TERM) / (n * eps)),
    ("nonconvex, (eps, delta)-DP", "zhang17", Quantity.RUNNING_TIME, n**2 * d),
    ("strongly convex, eps-DP", "bst14", Quantity.EXCESS_EMPIRICAL_RISK, sp.log(n) * d**2 / (n**2 * eps**2)),
    ("strongly convex, eps-DP", "bst14", Quantity.RUNNING_TIME,
     n**3 * d**3 * sp.Min(1, eps * n, d * sp.log(d * n))),
    ("strongly convex, (eps, delta)-DP", "bst14", Quantity.EXCESS_EMPIRICAL_RISK,
     d * sp.log(n / delta) ** 3 / (n**2 * eps**2)),
    ("strongly convex, (eps, delta)-DP", "bst14", Quantity.RUNNING_TIME, n**2 * d),
)

TABLE_1 = register(SpecRecord(
    id="zhang17.table_1",
    title="Table 1: comparison with bst14",
    citation=Citation("zhang17", "Table 1"),
    summary=(
        "Strongly convex: zhang17 O(d^2/(n^2 eps^2)) in time O(n d log(n eps/d)) (eps-DP) and O(d log(1/delta)/"
        "(n^2 eps^2)) in O(n d log(n eps/(d log(1/delta)))) ((eps, delta)); bst14 O(log(n) d^2/(n^2 eps^2)) in "
        "O(n^3 d^3 min(1, eps n, d log(dn))) and O(d log^3(n/delta)/(n^2 eps^2)) in O(n^2 d). Nonconvex: "
        "zhang17 in O(n^2 d), bst14 not applicable."
    ),
    conventions=Conventions(
        LossForm.AVERAGE,
        Neighbouring.REPLACE_ONE,
        ("Only n, d, eps and delta are kept: L, beta and mu are treated as constants (footnote 1).",
         "bst14's bounds are for its sum loss; the table divides them by n (average loss)."),
    ),
    symbols=(S_N, S_D, S_EPS, S_DELTA),
    assumptions=(DELTA_LT_1,),
    utility=tuple(
        UtilityClaim(quantity, expr, BoundKind.BIG_O, f"zhang17, {setting}.", _RATES)
        for setting, method, quantity, expr in CELLS
        if method == "zhang17"
    ),
    flags=(
        Flag(
            FlagKind.RECONSTRUCTED,
            "The nonconvex utility cell is lost ('O( delta )'); we take Theorem 5's rate sqrt(d ln(n/delta) "
            "ln(1/delta))/(n eps) for E||grad F||^2. The other zhang17 cells have the exponents of "
            "Theorem 2.",
            "The test compares every zhang17 utility cell with the theorems' exponents and checks the "
            "running times against Algorithm 1's n T gradient evaluations of dimension d with Theorem 2's "
            "T = Theta(log(n eps/d)), and Algorithm 2's n^2 steps.",
            (f"{_TESTS}::test_table_1_matches_the_theorems",),
        ),
    ),
    notes=(
        "The audits measure the running-time claim (gradient evaluations of each algorithm at the same "
        "(eps, delta)) rather than assume it.",
        "The bst14 cells are in CELLS (data), not utility claims of this record: bst14's own records are "
        "bst14.thm_II_4 and bst14.table_I.",
    ),
    data=tuple((setting, method, quantity.value, expr) for setting, method, quantity, expr in CELLS),
))

#: The records this module registers.
RECORDS = (TABLE_1,)
