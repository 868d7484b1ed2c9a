"""spec.zhang17.table: Table 1 against the theorems' records (zhang17 and bst14)."""

from __future__ import annotations

import math

import sympy as sp

from spec import bst14, zhang17
from spec.record import Quantity


def _cells(method, quantity):
    return [(setting, expr) for setting, m, q, expr in zhang17.table.CELLS if m == method and q is quantity]


def test_table_1_matches_the_theorems():
    table = zhang17.TABLE_1
    risk = [i for i, u in enumerate(table.utility) if u.quantity is Quantity.EXCESS_EMPIRICAL_RISK]
    grad = [i for i, u in enumerate(table.utility) if u.quantity is Quantity.GRADIENT_NORM]
    assert [table.exponents(i) for i in risk] == [zhang17.THM_2.exponents(0), zhang17.THM_2.exponents(1)]
    assert [table.exponents(i) for i in grad] == [zhang17.THM_5.exponents(2)]
    # running times: Algorithm 1 computes n T gradients of dimension d with T = Theta(log(n eps/d))
    # (Theorem 2's steps, up to constants); Algorithm 2 at most n^2 of them
    n, d, eps, delta = (table.symbol(k) for k in ("n", "dimension", "epsilon", "delta"))
    evals = zhang17.ALG_1.formula("gradient_evaluations").expr
    T = zhang17.ALG_1.symbol("steps")
    times = dict(_cells("zhang17", Quantity.RUNNING_TIME))
    assert sp.simplify(times["strongly convex, eps-DP"] - (evals * d).subs(
        {T: sp.log(n * eps / d), zhang17.ALG_1.symbol("n"): n})) == 0
    assert sp.simplify(times["nonconvex, (eps, delta)-DP"] - zhang17.ALG_2.formula("rounds").expr.subs(
        zhang17.ALG_2.symbol("n"), n) * d) == 0
    # Theorem 2's steps grow like log(n eps/d): compare its argument with the table's (beta, mu, L, D fixed)
    thm = zhang17.THM_2
    v = dict(lipschitz=1.0, smoothness=1.0, strong_convexity=0.5, dimension=4, epsilon=1.0, delta=1e-5,
             minimiser_norm=1.0)
    small, large = (thm.evaluate("steps_pure", n=10**k, **v) for k in (4, 8))
    q2 = thm.evaluate("contraction_squared", smoothness=1.0, strong_convexity=0.5)
    # T = ceil(ln(c n^2)/ln(1/q^2)): multiplying n by 1e4 adds 2 ln(1e4)/ln(1/q^2) steps (up to the ceil)
    assert abs((large - small) - 2 * math.log(1e4) / math.log(1 / q2)) <= 1
    # bst14's (eps, delta) cell is bst14's strongly convex bound divided by n (sum -> average)
    bst = dict(_cells("bst14", Quantity.EXCESS_EMPIRICAL_RISK))
    cell = bst["strongly convex, (eps, delta)-DP"]
    rec = bst14.THM_II_4
    average = rec.utility[1].bound / rec.symbol("n")
    sub = {rec.symbol("n"): n, rec.symbol("dimension"): d, rec.symbol("epsilon"): eps, rec.symbol("delta"): delta,
           rec.symbol("lipschitz"): 1, rec.symbol("strong_convexity"): 1}
    for x, where in ((n, sp.oo), (d, sp.oo)):
        for expr in (cell, average.subs(sub)):
            assert sp.limit(x * sp.diff(sp.log(expr), x), x, where) in (-2, 1)
