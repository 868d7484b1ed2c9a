"""Tests of reference.losses.bounds: public bounds every data set within a loss's bounds satisfies.

Oracles: each origin bound is attained by a witness row within the bounds and never exceeded on
random rows; the minimiser-norm bound is checked against certified minimisers
(reference.solver) of random and of adversarial data sets, and against its closed forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from reference.domains import L2Ball
from reference.losses import (
    HalfSquaredDistance,
    Hinge,
    Huber,
    L1Regulariser,
    L2Regulariser,
    LeastSquares,
    Linear,
    Logistic,
    Regularised,
    Sigmoid,
    Welsch,
    minimiser_norm_bound,
    origin_value_bound,
)
from reference.solver import minimise
from spec.errors import ParameterError

CASES = [
    # loss, bound, a witness row attaining it
    (Logistic(feature_norm=2.0), math.log(2), np.array([1.0, 0.0, 1.0])),
    (Sigmoid(feature_norm=2.0), 0.5, np.array([1.0, 0.0, -1.0])),
    (Hinge(feature_norm=2.0), 1.0, np.array([1.0, 0.0, 1.0])),
    (Huber(feature_norm=1.0, label_bound=3.0, width=1.0), 2.5, np.array([1.0, 0.0, -3.0])),
    (Huber(feature_norm=1.0, label_bound=0.5, width=2.0), 0.0625, np.array([1.0, 0.0, 0.5])),
    (LeastSquares(feature_norm=1.0, label_bound=2.0, domain_radius=1.0), 2.0, np.array([0.0, 1.0, 2.0])),
    (HalfSquaredDistance(data_norm=3.0, domain_radius=1.0), 4.5, np.array([3.0, 0.0])),
    (Welsch(scale=1.0, data_norm=0.7), 0.5 * -math.expm1(-0.49), np.array([0.7, 0.0])),
    (Regularised(Logistic(feature_norm=1.0), L2Regulariser(strength=0.3), domain_radius=2.0), math.log(2),
     np.array([1.0, 0.0, 1.0])),
]


@pytest.mark.parametrize("loss,bound,witness", CASES, ids=lambda v: repr(v)[:30])
def test_origin_bound_is_attained_and_rounded_up(loss, bound, witness):
    got = origin_value_bound(loss)
    assert bound <= got <= bound * (1 + 1e-15) + 1e-300
    loss.check_data(witness[None])
    assert float(loss.value(np.zeros(loss.dim_of_row(witness.size)), witness)) == pytest.approx(bound, rel=1e-14)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, len(CASES) - 1))
def test_origin_bound_holds_on_random_rows(seed, case):
    loss, _, witness = CASES[case]
    rng = np.random.default_rng(seed)
    rows = rng.uniform(-1, 1, size=(200, witness.size))
    p = loss.dim_of_row(witness.size)
    # scale each row into the declared bounds (features / points, then labels)
    bound = getattr(loss, "feature_norm", None) or getattr(loss, "data_norm", None) \
        or getattr(getattr(loss, "loss", None), "feature_norm", 1.0)
    rows[:, :p] *= (bound / np.maximum(np.linalg.norm(rows[:, :p], axis=1), 1.0))[:, None] * 0.999
    if loss.supervised:
        base = getattr(loss, "loss", loss)
        if hasattr(base, "label_bound"):
            rows[:, -1] *= base.label_bound
        else:
            rows[:, -1] = np.where(rows[:, -1] >= 0, 1.0, -1.0)
    loss.check_data(rows)
    assert np.all(loss.value(np.zeros(p), rows) <= origin_value_bound(loss))


def test_origin_bound_refuses_losses_that_are_not_nonnegative():
    with pytest.raises(ParameterError, match="no public bound"):
        origin_value_bound(Linear(data_norm=1.0))
    with pytest.raises(TypeError):
        origin_value_bound("logistic")


def test_minimiser_bound_closed_forms():
    lam = 0.25
    reg_log = Regularised(Logistic(feature_norm=1.0), L2Regulariser(strength=lam), domain_radius=1.0)
    # min(X/lambda, sqrt(2 ln 2/lambda)) = min(4, 2.355)
    assert minimiser_norm_bound(reg_log) == pytest.approx(math.sqrt(2 * math.log(2) / lam), rel=1e-15)
    strong = Regularised(Logistic(feature_norm=1.0), L2Regulariser(strength=4.0), domain_radius=1.0)
    assert minimiser_norm_bound(strong) == pytest.approx(0.25, rel=1e-15)  # X/lambda < sqrt(2 ln 2/4)
    ridge = Regularised(LeastSquares(feature_norm=1.0, label_bound=2.0, domain_radius=1.0),
                        L2Regulariser(strength=4.0), domain_radius=1.0)
    assert minimiser_norm_bound(ridge) == pytest.approx(1.0, rel=1e-15)  # Y/sqrt(lambda)
    assert minimiser_norm_bound(HalfSquaredDistance(data_norm=0.5, domain_radius=1.0)) == 0.5
    for bad in (Logistic(feature_norm=1.0),
                Regularised(Logistic(feature_norm=1.0), L1Regulariser(strength=1.0), dim=2)):
        with pytest.raises(ParameterError, match="no public bound"):
            minimiser_norm_bound(bad)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.05, 0.5, 4.0]))
def test_minimiser_bound_holds_for_solved_data_sets(seed, lam):
    """Certified minimisers of random and of adversarial (all rows aligned, labels agreeing) data."""
    rng = np.random.default_rng(seed)
    p = 3
    for loss_kind in ("logistic", "ridge"):
        if loss_kind == "logistic":
            make = lambda radius: Regularised(Logistic(feature_norm=1.0), L2Regulariser(strength=lam),  # noqa: E731
                                              domain_radius=radius)
        else:
            make = lambda radius: Regularised(LeastSquares(feature_norm=1.0, label_bound=1.0,  # noqa: E731
                                                           domain_radius=radius),
                                              L2Regulariser(strength=lam), domain_radius=radius)
        d = minimiser_norm_bound(make(1.0))
        loss = make(4 * d)
        x = rng.normal(size=(30, p))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
        aligned = np.tile(np.r_[1.0, 0.0, 0.0], (30, 1))
        for rows in (np.column_stack([x, y]), np.column_stack([aligned, np.ones(30)])):
            solved = minimise(loss, rows, L2Ball(radius=4 * d, dim=p), normalisation="average", tolerance=1e-12,
                              distance_tolerance=1e-9)
            assert np.linalg.norm(solved.theta) <= d + 1e-8
