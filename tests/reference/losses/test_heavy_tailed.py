"""reference.losses.heavy_tailed: the formulas of the bounded losses without their bounds or constants."""

from __future__ import annotations

import numpy as np
import pytest

from reference.losses import (
    HalfSquaredDistance,
    HeavyTailedHalfSquaredDistance,
    HeavyTailedLeastSquares,
    HeavyTailedLinear,
    HeavyTailedLogistic,
    LeastSquares,
    Linear,
    Logistic,
)
from spec.errors import AssumptionError, DataBoundError, ParameterError

PAIRS = [
    (HeavyTailedLinear(), lambda rows: Linear(data_norm=1e13), 2),
    (HeavyTailedHalfSquaredDistance(), lambda rows: HalfSquaredDistance(data_norm=1e13, domain_radius=1.0), 2),
    (HeavyTailedLeastSquares(), lambda rows: LeastSquares(feature_norm=1e13, label_bound=1e13, domain_radius=1.0), 3),
    (HeavyTailedLogistic(), lambda rows: Logistic(feature_norm=1e13), 3),
]


@pytest.mark.parametrize("loss,bounded,k", PAIRS, ids=lambda p: repr(p) if not callable(p) or isinstance(p, type) else "")
def test_same_formulas_as_the_bounded_loss(loss, bounded, k):
    rng = np.random.default_rng(0)
    rows = rng.standard_t(2, size=(20, k)) * 1e3
    rows[0, :-1] = 1e12
    if loss.supervised and isinstance(loss, HeavyTailedLogistic):
        rows[:, -1] = np.where(rows[:, -1] > 0, 1.0, -1.0)
    theta = rng.normal(size=(3, k - 1 if loss.supervised else k)) * 0.3
    ref = bounded(rows)
    checked = loss.validate_data(rows)
    np.testing.assert_array_equal(loss.value(theta[:, None, :], checked), ref.value(theta[:, None, :], checked, check=False))
    np.testing.assert_array_equal(loss.gradient(theta[:, None, :], checked),
                                  ref.gradient(theta[:, None, :], checked, check=False))
    with pytest.raises(AssumptionError, match="declares no"):
        loss.constants  # noqa: B018
    assert loss.convex


def test_only_non_finite_rows_and_bad_labels_are_rejected():
    with pytest.raises(DataBoundError, match="nan or inf"):
        HeavyTailedLeastSquares().validate_data([[1.0, np.inf, 0.0]])
    with pytest.raises(DataBoundError, match="label"):
        HeavyTailedLogistic().validate_data([[1e300, 2.0, 0.5]])
    HeavyTailedLinear().validate_data([[1e300, -1e300]])


def test_bounded_on_covers_the_rows():
    rows = np.array([[3.0, 4.0, -7.0], [0.0, 1.0, 2.0]])
    ls = HeavyTailedLeastSquares().bounded_on(rows, domain_radius=2.0)
    assert isinstance(ls, LeastSquares) and ls.feature_norm == 5.0 and ls.label_bound == 7.0
    ls.check_data(rows)  # the rows are within the bounds
    hs = HeavyTailedHalfSquaredDistance().bounded_on(rows[:, :2], domain_radius=1.0)
    assert hs.data_norm == 5.0 and hs.constants.strong_convexity == 1.0
    assert HeavyTailedLinear().bounded_on(np.zeros((2, 2))).data_norm == 1.0  # all-zero rows: bound 1
    with pytest.raises(ParameterError, match="domain_radius"):
        HeavyTailedLeastSquares().bounded_on(rows)
