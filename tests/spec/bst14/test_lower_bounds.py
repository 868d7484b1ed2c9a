"""spec.bst14.lower_bounds: Lemma V.1 and Theorems V.2-V.5.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from spec import bst14
from spec.record import BoundKind


# --------------------------------------------------------------------------- Section V
def test_lower_bounds_follow_from_lemma_V_1():
    lem = bst14.LEMMA_V_1
    pure, approx = lem.utility[0].bound, lem.utility[1].bound
    n = lem.symbol("n")
    # (3): excess = (n/2) ||theta - q||^2 with ||theta - q|| = Omega(error)
    assert sp.simplify(bst14.THM_V_4.utility[0].bound / (n / 2 * pure**2)).is_number
    assert sp.simplify(bst14.THM_V_5.utility[0].bound / (n / 2 * approx**2)).is_number
    # V-A: excess >= ||sum d|| ||theta - theta*||^2 / 2 with ||sum d|| ~ M and ||theta - theta*|| = Omega(1)
    assert bst14.THM_V_2.utility[0].bound in lem.formula("M_pure").expr.args
    assert bst14.THM_V_3.utility[0].bound in lem.formula("M_approx").expr.args
    # the min formulas switch branch where the assumption says
    assert bst14.THM_V_4.evaluate("bound_with_min", check=False, n=10, dimension=100, epsilon=0.1) == 10
    assert bst14.THM_V_4.evaluate("bound_with_min", n=1000, dimension=10, epsilon=1.0) == pytest.approx(0.1)
    assert lem.evaluate("error_pure", n=10, dimension=100, epsilon=1.0) == 1
    for rec in (bst14.THM_V_2, bst14.THM_V_3, bst14.THM_V_4, bst14.THM_V_5, lem):
        assert all(u.kind is BoundKind.BIG_OMEGA for u in rec.utility)


def test_lower_bound_instance_identities():
    p_, n_ = 3, 4
    theta = sp.Matrix(sp.symbols("x0:3", real=True))
    ds = [sp.Matrix(sp.symbols(f"d{i}_0:3", real=True)) for i in range(n_)]
    # V-B, equation (3)
    q = sum(ds, sp.zeros(p_, 1)) / n_
    loss = lambda th: sum(((th - d).T * (th - d))[0] / 2 for d in ds)  # noqa: E731
    assert sp.expand(loss(theta) - loss(q) - sp.Rational(n_, 2) * ((theta - q).T * (theta - q))[0]) == 0
    # V-A: L(theta) - L(theta*) = ||S|| (1 - <theta, theta*>) >= ||S|| ||theta - theta*||^2 / 2 on the ball
    rng = np.random.default_rng(5)
    for _ in range(200):
        p = int(rng.integers(1, 6))
        S = rng.normal(size=p) * rng.uniform(0.1, 10)
        th = rng.normal(size=p)
        th *= rng.uniform(0, 1) ** (1 / p) / np.linalg.norm(th)
        star = S / np.linalg.norm(S)
        excess = -th @ S + star @ S
        assert excess == pytest.approx(np.linalg.norm(S) * (1 - th @ star), abs=1e-12)
        assert excess >= np.linalg.norm(S) * np.sum((th - star) ** 2) / 2 - 1e-12


def test_thm_V_4_lipschitz_erratum():
    rng = np.random.default_rng(11)
    for p in (1, 2, 5, 10):
        for _ in range(20):
            d = rng.choice([-1.0, 1.0], size=p) / math.sqrt(p)
            assert np.linalg.norm(d) == pytest.approx(1.0)
            # gradient theta - d: norm <= ||theta|| + ||d|| <= 2 on the unit ball, attained at theta = -d
            assert np.linalg.norm(-d - d) == pytest.approx(2.0)
            th = rng.normal(size=p)
            th *= rng.uniform(0, 1) ** (1 / p) / np.linalg.norm(th)
            assert np.linalg.norm(th - d) <= 2.0 + 1e-12
        # the minimiser q(D) is in the ball (a mean of unit vectors), so it is the constrained minimiser
        data = rng.choice([-1.0, 1.0], size=(9, p)) / math.sqrt(p)
        assert np.linalg.norm(data.mean(axis=0)) <= 1.0 + 1e-12
