"""Sensitivities of sum and average queries, as records shared by the mechanisms and the papers.

A query that adds (or averages) one bounded term per record -- the record itself, or a
per-example gradient whose norm the Lipschitz constant bounds -- changes by a computable amount
between neighbouring datasets. Every sensitivity the reference uses is one of these formulas,
evaluated (never retyped):

``sensitivity.sum``
    ``q(D) = sum_i v_i`` with ``||v_i|| <= R``: replace-one ``2R`` (``||v - v'|| <= 2R``),
    add/remove-one ``R``.
``sensitivity.average``
    ``q(D) = (1/n) sum_i v_i``: replace-one ``2R/n`` (``n`` is public and fixed, so only
    replace-one is meaningful).

The norm is whichever norm bounds the terms (l2 for the Gaussian, l1 for Laplace). Paper
records that need a sensitivity (bst14's ``2 L n`` for ``n`` times one sampled gradient, the
SVRG difference ``4G``, ...) state it in their own records; these two are the building blocks the
mechanisms use.

>>> import spec
>>> spec.get("sensitivity.average").evaluate("replace_one", norm_bound=1.0, n=4)
0.5
"""

from __future__ import annotations

import sympy as sp

from spec.record import (
    Citation,
    Conventions,
    Formula,
    LossForm,
    Neighbouring,
    Rounding,
    SpecRecord,
    Symbol,
)
from spec.registry import register

__all__ = ["SUM", "AVERAGE", "RECORDS"]

R = sp.Symbol("R", positive=True)
n = sp.Symbol("n", positive=True, integer=True)

_S_R = Symbol("norm_bound", R, "bound R on the norm of every term of the query")
_S_N = Symbol("n", n, "number of records (public, fixed under replace-one)")

_NOTE = (
    "The bound must hold for every possible record (a declared, public bound, e.g. a loss's "
    "Lipschitz constant for gradients); data outside it is rejected, never clipped."
)

SUM = register(SpecRecord(
    id="sensitivity.sum",
    title="Sensitivity of a sum of bounded terms",
    citation=Citation("dwork-roth14", "Definition 3.1 (l1 sensitivity), applied to a sum query"),
    summary=(
        "If every record contributes a term of norm at most R, the sum changes by at most 2R when one "
        "record is replaced and by at most R when one is added or removed."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE,
        (_NOTE, "Formula replace_one is the sensitivity under replace-one; add_remove_one under "
                "add/remove-one (the triangle inequality: ||v - v'|| <= ||v|| + ||v'|| <= 2R)."),
    ),
    symbols=(_S_R,),
    formulas=(
        Formula("replace_one", 2 * R, "sensitivity under replace-one neighbours", Rounding.UP),
        Formula("add_remove_one", R, "sensitivity under add/remove-one neighbours", Rounding.UP),
    ),
))

AVERAGE = register(SpecRecord(
    id="sensitivity.average",
    title="Sensitivity of an average of bounded terms",
    citation=Citation("dwork-roth14", "Definition 3.1 (l1 sensitivity), applied to an average query"),
    summary=(
        "If every record contributes a term of norm at most R, the average over n records changes by "
        "at most 2R/n when one record is replaced (n fixed and public)."
    ),
    conventions=Conventions(LossForm.AVERAGE, Neighbouring.REPLACE_ONE, (_NOTE,)),
    symbols=(_S_R, _S_N),
    formulas=(
        Formula("replace_one", 2 * R / n, "sensitivity under replace-one neighbours", Rounding.UP),
    ),
))

#: The records this module registers.
RECORDS = (SUM, AVERAGE)
