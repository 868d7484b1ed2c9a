"""Tests of audits.utility.audit_rate: wrong rates fail, right rates pass, slopes are right.

Synthetic measures with known exponents: value = C * n^b * eps^c * L, where L is lognormal
with mean 1 (so the mean is exactly C n^b eps^c and log-log slopes are b and c). Oracles:
numpy.polyfit for the least-squares slope; the known exponents. All seeded.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as sps

from audits import audit_rate
from audits.utility import RateResult
from spec.errors import ParameterError, PrivacyParameterError

GRID = {"n": [100, 200, 400, 800, 1600]}
BASE = {"n": 400, "epsilon": 1.0}


def power_law(b_n, b_eps=0.0, spread=0.3, const=2.0):
    def measure(params, runs, rng):
        z = rng.standard_normal(runs)
        noise = np.exp(spread * z - spread**2 / 2)  # mean exactly 1
        return const * params["n"] ** b_n * params["epsilon"] ** b_eps * noise

    return measure


def test_upper_bound_violated_by_a_slower_rate_is_flagged():
    """Exponent -0.5 measured where -1 is claimed as an upper bound: the error grows relative to
    the bound (slope difference +0.5 > tolerance 0.2)."""
    result = audit_rate(power_law(-0.5), grid=GRID, base=BASE, runs=200, expected={"n": -1.0}, seed=1)
    assert not result.passed and result.failed_axes == ("n",)
    assert result.slopes["n"] == pytest.approx(-0.5, abs=0.05)
    assert result.tested_intervals["n"][0] > 0.2


def test_correct_and_faster_rates_pass_an_upper_bound():
    ok = audit_rate(power_law(-1.0), grid=GRID, base=BASE, runs=200, expected={"n": -1.0}, seed=2)
    assert ok.passed, str(ok)
    lo, hi = ok.intervals["n"]
    assert lo < -1.0 < hi
    faster = audit_rate(power_law(-1.5), grid=GRID, base=BASE, runs=200, expected={"n": -1.0}, seed=2)
    assert faster.passed  # an upper bound is not violated by doing better
    assert faster.slopes["n"] == pytest.approx(-1.5, abs=0.05)  # ... but the slope says it is loose


def test_lower_bound_mode_is_symmetric():
    wrong = audit_rate(power_law(-1.5), grid=GRID, base=BASE, runs=200, expected={"n": -1.0},
                       kind="lower", seed=3)
    assert not wrong.passed and wrong.tested_intervals["n"][1] < -0.2
    right = audit_rate(power_law(-1.0), grid=GRID, base=BASE, runs=200, expected={"n": -1.0},
                       kind="lower", seed=3)
    assert right.passed
    slower = audit_rate(power_law(-0.5), grid=GRID, base=BASE, runs=200, expected={"n": -1.0},
                        kind="lower", seed=3)
    assert slower.passed


def test_bound_callable_tests_the_ratio_including_log_factors():
    """measured ~ log(n)/n and bound = 5 log(n)/n: the ratio is flat, although the pure power
    -1 would be off by the log factor."""
    def measure(params, runs, rng):
        n = params["n"]
        return math.log(n) / n * np.exp(0.2 * rng.standard_normal(runs) - 0.02)

    def bound(params):
        return 5 * math.log(params["n"]) / params["n"]

    grid = {"n": [10, 100, 1000, 10_000, 100_000]}
    result = audit_rate(measure, grid=grid, base={"n": 100}, runs=200, expected={"n": -1.0},
                        bound=bound, tolerance=0.05, seed=4)
    assert result.passed and result.has_bound
    assert abs(result.tested["n"]) < 0.02
    ratios = [p["ratio"] for p in result.points]
    assert all(0.15 < r < 0.25 for r in ratios)
    # The same bound applied to a measure without the log factor decays: fine for an upper bound
    # ... and for a wrong bound 5/n^2 the ratio grows: flagged.
    wrong = audit_rate(measure, grid=grid, base={"n": 100}, runs=200, expected={"n": -2.0},
                       bound=lambda p: 5 / p["n"] ** 2, seed=4)
    assert not wrong.passed


def test_two_axes_each_against_its_exponent():
    grid = {"n": [100, 400, 1600], "epsilon": [0.25, 0.5, 1.0, 2.0]}
    measure = power_law(-1.0, b_eps=-2.0)
    good = audit_rate(measure, grid=grid, base=BASE, runs=300, expected={"n": -1, "epsilon": -2}, seed=5)
    assert good.passed
    assert good.slopes["epsilon"] == pytest.approx(-2.0, abs=0.06)
    bad = audit_rate(measure, grid=grid, base=BASE, runs=300, expected={"n": -1, "epsilon": -3}, seed=5)
    assert bad.failed_axes == ("epsilon",)
    # Each axis varies alone around the base point.
    assert {p["axis"] for p in good.points} == {"n", "epsilon"} and len(good.points) == 7


def test_slope_agrees_with_polyfit_and_intervals_are_seeded():
    result = audit_rate(power_law(-0.7), grid=GRID, base=BASE, runs=50, expected={"n": -0.7}, seed=6)
    x = np.log([p["value"] for p in result.points])
    y = np.log([p["mean"] for p in result.points])
    assert result.slopes["n"] == pytest.approx(np.polyfit(x, y, 1)[0], rel=1e-12)
    again = audit_rate(power_law(-0.7), grid=GRID, base=BASE, runs=50, expected={"n": -0.7}, seed=6)
    assert again == result
    other = audit_rate(power_law(-0.7), grid=GRID, base=BASE, runs=50, expected={"n": -0.7}, seed=7)
    assert other != result


def test_mean_intervals_are_student_t():
    result = audit_rate(power_law(-1.0), grid={"n": [10, 20]}, base=BASE, runs=30, expected={"n": -1}, seed=8)
    p = result.points[0]
    half = (p["ci_high"] - p["ci_low"]) / 2
    assert p["ci_low"] < p["mean"] < p["ci_high"] and half > 0
    assert p["mean"] == pytest.approx((p["ci_low"] + p["ci_high"]) / 2)


def test_false_fail_rate_of_a_correct_rate():
    """Meta-test (seeded): 60 audits of a correct rate with tolerance 0 at alpha = 0.3. Each
    fails with probability about alpha / 2 (one side of a bootstrap interval); the test allows the
    0.999 quantile of Binomial(60, 0.3), so it fails by chance with probability < 0.001 unless the
    bootstrap undercovers grossly."""
    fails = sum(not audit_rate(power_law(-1.0), grid={"n": [100, 400, 1600]}, base=BASE, runs=40,
                               expected={"n": -1.0}, tolerance=0.0, alpha=0.3, bootstrap=200,
                               seed=1000 + s).passed for s in range(60))
    assert fails <= sps.binom.ppf(0.999, 60, 0.3)


def test_result_printing_and_json():
    result = audit_rate(power_law(-0.5), grid=GRID, base=BASE, runs=100, expected={"n": -1.0}, seed=9)
    assert isinstance(result, RateResult)
    line = str(result)
    assert "\n" not in line and "seed 9" in line and "expected -1" in line and line.endswith("FAILED (n)")
    d = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert d["passed"] is False and d["result_type"] == "rate" and d["seed"] == 9
    fresh = audit_rate(power_law(-1.0), grid=GRID, base=BASE, runs=20, expected={"n": -1.0})
    assert isinstance(fresh.seed, int)


def test_measure_receives_the_grid_values_and_independent_streams():
    seen = []

    def measure(params, runs, rng):
        seen.append((dict(params), rng.random()))
        return np.full(runs, 1.0 / params["n"]) * (1 + 0.01 * rng.random(runs))

    audit_rate(measure, grid={"n": [10, 20]}, base={"n": 15, "p": 3}, runs=5, expected={"n": -1}, seed=10)
    assert [s[0] for s in seen] == [{"n": 10, "p": 3}, {"n": 20, "p": 3}]
    assert isinstance(seen[0][0]["n"], int) and seen[0][1] != seen[1][1]


GOOD = dict(grid=GRID, base=BASE, runs=20, expected={"n": -1.0}, seed=0)


@pytest.mark.parametrize("change,error,message", [
    (dict(kind="both"), ParameterError, "kind"),
    (dict(tolerance=-0.1), ParameterError, "tolerance"),
    (dict(tolerance=float("nan")), ParameterError, "tolerance"),
    (dict(alpha=1.5), PrivacyParameterError, "alpha"),
    (dict(runs=1), ParameterError, "runs"),
    (dict(runs=20.0), TypeError, "runs"),
    (dict(bootstrap=10), ParameterError, "bootstrap"),
    (dict(grid={"n": [100]}), ParameterError, "two distinct"),
    (dict(grid={"n": [100, -5]}), ParameterError, "positive"),
    (dict(grid={"n": [100, float("inf")]}), ParameterError, "finite"),
    (dict(grid={}), TypeError, "grid"),
    (dict(expected={"p": 1.0}), ParameterError, "no exponent for axis 'n'"),
    (dict(expected={"n": float("nan")}), ParameterError, "expected"),
    (dict(bound=3.0), TypeError, "bound"),
    (dict(bound=lambda p: -1.0), ParameterError, "bound"),
    (dict(seed=-2), ParameterError, "seed"),
])
def test_bad_parameters_are_rejected(change, error, message):
    with pytest.raises(error, match=message):
        audit_rate(power_law(-1.0), **{**GOOD, **change})


@pytest.mark.parametrize("measure,message", [
    (lambda params, runs, rng: np.ones(runs + 1), "must return shape"),
    (lambda params, runs, rng: np.full(runs, np.nan), "NaN or infinite"),
    (lambda params, runs, rng: -np.ones(runs), "non-positive mean"),
])
def test_bad_measures_are_rejected(measure, message):
    with pytest.raises(ParameterError, match=message):
        audit_rate(measure, **GOOD)
    with pytest.raises(TypeError):
        audit_rate("not callable", **GOOD)
