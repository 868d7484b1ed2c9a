"""Tests of audits.utility.audit_rate: wrong rates fail, right rates pass, slopes are right.

Synthetic measures with known exponents: value = C * n^b * eps^c * L, where L is lognormal
with mean 1 (so the mean is exactly C n^b eps^c and log-log slopes are b and c). Oracles:
numpy.polyfit for the least-squares slope; the known exponents. All seeded.
"""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
from scipy import stats as sps

from audits import audit_rate
from audits.utility import (
    BandResult,
    Memo,
    RateResult,
    audit_band,
    audit_level,
    expected_slopes,
    grid_points,
    largest_allowed,
    utility_bound,
)
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


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_mean_intervals_are_student_t(alpha):
    """Each point's interval is mean -/+ t_{1 - alpha/2, runs - 1} s / sqrt(runs), with s the
    sample standard deviation of the runs the measure returned (recorded here), at level
    1 - alpha whatever the number of axes. At 30 runs the t quantile is 2-4% above the normal
    one (2.045 vs 1.960 at alpha = 0.05; 1.311 vs 1.282 at 0.2), far outside the tolerance."""
    seen = {}
    base_measure = power_law(-1.0, b_eps=-1.0)

    def measure(params, runs, rng):
        out = base_measure(params, runs, rng)
        seen[(params["n"], params["epsilon"])] = out
        return out

    runs = 30
    result = audit_rate(measure, grid={"n": [10, 20], "epsilon": [0.5, 1.0]}, base=BASE, runs=runs,
                        expected={"n": -1, "epsilon": -1}, alpha=alpha, bootstrap=100, seed=8)
    quantile = sps.t.ppf(1 - alpha / 2, runs - 1)
    assert quantile > sps.norm.ppf(1 - alpha / 2) * 1.02
    assert len(result.points) == len(seen) == 4
    for p in result.points:
        key = (p["value"], BASE["epsilon"]) if p["axis"] == "n" else (BASE["n"], p["value"])
        out = seen[key]
        half = quantile * out.std(ddof=1) / math.sqrt(runs)
        assert p["mean"] == pytest.approx(out.mean(), rel=1e-12)
        assert p["ci_low"] == pytest.approx(out.mean() - half, rel=1e-9)
        assert p["ci_high"] == pytest.approx(out.mean() + half, rel=1e-9)


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


def test_result_line_shows_the_tested_interval_that_decides():
    """The verdict is decided on the tested quantity's interval; the line shows it next to the slope."""
    result = audit_rate(power_law(-0.5), grid=GRID, base=BASE, runs=100, expected={"n": -1.0}, seed=9)
    lo, hi = result.tested_intervals["n"]
    line = str(result)
    assert f"slope - expected {result.tested['n']:+.3g} [{lo:+.3g}, {hi:+.3g}]" in line
    assert "fails above +0.2" in line and lo > 0.2
    with_bound = audit_rate(power_law(-1.0), grid=GRID, base=BASE, runs=100, expected={"n": -1.0},
                            bound=lambda p: 1.0 / p["n"], kind="lower", seed=9)
    t_lo, t_hi = with_bound.tested_intervals["n"]
    assert f"measured/bound slope {with_bound.tested['n']:+.3g} [{t_lo:+.3g}, {t_hi:+.3g}]" in str(with_bound)
    assert "fails below -0.2" in str(with_bound)


# --------------------------------------------------------------------------------------------
# audit_level


def _normal_samples(means, runs, sd, seed):
    rng = np.random.default_rng(seed)
    return [({"n": i, "x": m}, m + sd * rng.standard_normal(runs)) for i, m in enumerate(means)]


def test_level_limits_are_one_sided_student_t_with_bonferroni_over_points_and_sides():
    samples = _normal_samples([1.0, 2.0, 4.0], runs=40, sd=0.5, seed=1)
    ref = lambda p: p["x"]  # noqa: E731 - true ratio 1 at every point
    both = audit_level(samples, ref, low=0.5, high=2.0, alpha=0.06)
    assert both.passed and both.tail == pytest.approx(0.06 / 6)
    one = audit_level(samples, ref, low=0.5, alpha=0.06)
    assert one.tail == pytest.approx(0.06 / 3)
    for (params, values), row in zip(samples, one.points):
        q = sps.t.ppf(1 - 0.02, 39)
        half = q * values.std(ddof=1) / math.sqrt(40)
        assert row["ratio"] == pytest.approx(values.mean() / params["x"], rel=1e-12)
        assert row["ratio_low"] == pytest.approx((values.mean() - half) / params["x"], rel=1e-12)
        assert row["ratio_high"] == pytest.approx((values.mean() + half) / params["x"], rel=1e-12)


def test_level_fails_only_when_the_limit_is_outside_the_band():
    samples = _normal_samples([1.0, 1.0], runs=200, sd=0.1, seed=2)
    assert not audit_level(samples, lambda p: 0.5, high=1.5, alpha=0.01).passed  # ratio 2 > 1.5
    assert audit_level(samples, lambda p: 0.5, high=2.5, alpha=0.01).passed
    low = audit_level(samples, lambda p: 2.0, low=1.0, alpha=0.01)  # ratio 0.5 < 1
    assert not low.passed and low.failed == (0, 1)
    # a ratio just inside the band by less than the limit's half-width is not a failure
    edge = audit_level(samples, lambda p: 1.0, low=1.005, alpha=0.01)
    assert edge.passed and edge.points[0]["ratio"] < 1.005 < edge.points[0]["ratio_high"]


def test_level_false_alarm_rate_at_the_band_edge():
    """Meta-test (seeded): 300 checks of 3 normal points whose true ratio sits exactly on the lower
    edge (the worst case) at alpha = 0.15: each fails with probability at most 0.15 (exactly 1 -
    (1 - 0.05)^3 = 0.143 here). Allowed: the 0.999 quantile of Binomial(300, 0.15)."""
    fails = 0
    for s in range(300):
        samples = _normal_samples([1.0, 2.0, 3.0], runs=10, sd=0.8, seed=100 + s)
        fails += not audit_level(samples, lambda p: p["x"], low=1.0, alpha=0.15).passed
    assert fails <= sps.binom.ppf(0.999, 300, 0.15)
    assert fails >= sps.binom.ppf(0.001, 300, 0.143)  # and the limits are not needlessly loose


def test_level_result_printing_json_and_errors():
    samples = _normal_samples([1.0, 2.0], runs=20, sd=0.1, seed=3)
    result = audit_level(samples, lambda p: p["x"], low=0.9, high=1.1, alpha=0.01, reference_name="thing")
    line = str(result)
    assert "\n" not in line and "measured / thing" in line and line.endswith("passed") and "[0.9, 1.1]" in line
    d = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert d["result_type"] == "level" and d["passed"] is True and len(d["points"]) == 2
    with pytest.raises(ParameterError, match="nothing to check"):
        audit_level(samples, lambda p: 1.0, alpha=0.01)
    with pytest.raises(ParameterError, match="high"):
        audit_level(samples, lambda p: 1.0, low=2.0, high=1.0, alpha=0.01)
    with pytest.raises(ParameterError, match="reference"):
        audit_level(samples, lambda p: 0.0, low=0.5, alpha=0.01)
    with pytest.raises(PrivacyParameterError, match="alpha"):
        audit_level(samples, lambda p: 1.0, low=0.5, alpha=0.0)
    with pytest.raises(ParameterError, match="at least 2 finite"):
        audit_level([({"n": 1}, np.array([1.0, np.nan]))], lambda p: 1.0, low=0.5, alpha=0.01)
    with pytest.raises(TypeError, match="reference"):
        audit_level(samples, 1.0, low=0.5, alpha=0.01)


# --------------------------------------------------------------------------------------------
# helpers for audit tests


def test_utility_bound_evaluates_the_record_claim():
    from spec import bst14 as spec

    b = utility_bound(spec.THM_V_5, 0)
    assert b({"n": 100, "dimension": 8, "epsilon": 2.0, "delta": 1e-3, "extra": 1}) == pytest.approx(8 / (4 * 100))
    c = utility_bound(spec.THM_V_5, 0, constant=0.25)
    assert c({"n": 100, "dimension": 8, "epsilon": 2.0}) == pytest.approx(0.25 * 8 / (4 * 100))
    # Theorem II.4 (2): L^2 ln^2(n/delta) p ln(1/delta) / (n Delta eps^2), by hand
    params = {"lipschitz": 3.0, "n": 50, "delta": 1e-4, "dimension": 5, "strong_convexity": 0.5, "epsilon": 0.7}
    want = 9 * math.log(50 / 1e-4) ** 2 * 5 * math.log(1e4) / (50 * 0.5 * 0.49)
    assert utility_bound(spec.THM_II_4, 1)(params) == pytest.approx(want, rel=1e-12)
    with pytest.raises(ParameterError, match="index"):
        utility_bound(spec.THM_V_5, 3)
    with pytest.raises(ParameterError, match="lack"):
        b({"n": 100, "dimension": 8})


def test_expected_slopes_are_the_least_squares_slopes_of_the_formula():
    grid = {"n": [10, 40, 90], "epsilon": [0.5, 1.0, 4.0]}
    base = {"n": 40, "epsilon": 1.0}
    power = expected_slopes(lambda p: 3 * p["n"] ** -1 * p["epsilon"] ** -2, grid, base)
    assert power["n"] == pytest.approx(-1.0, abs=1e-12) and power["epsilon"] == pytest.approx(-2.0, abs=1e-12)
    bent = expected_slopes(lambda p: math.log(p["n"]) / p["n"], grid, base)
    x = np.log(grid["n"])
    assert bent["n"] == pytest.approx(np.polyfit(x, np.log(np.log(grid["n"])) - x, 1)[0], rel=1e-12)


def test_largest_allowed_solves_the_assumption_and_rounds_down():
    from spec import bst14 as spec

    for delta, digits in ((1e-3, 3), (1e-5, 6)):
        got = largest_allowed(spec.THM_II_1, "lemma_II_2_condition", "epsilon", digits=digits, delta=delta)
        with mpmath.workdps(40):
            root = 2 * mpmath.sqrt(mpmath.log(1 / mpmath.mpf(repr(delta))))
            want = float(mpmath.floor(root * 10**digits) / 10**digits)
        assert got == want and got <= float(root) < got + 10.0**-digits
        spec.THM_II_1.check(n=10, epsilon=got, delta=delta)  # inside the theorem
    assert largest_allowed(spec.THM_II_1, "lemma_II_2_condition", "epsilon", delta=1e-3) == 5.256
    with pytest.raises(ParameterError, match="not one of"):
        largest_allowed(spec.THM_II_1, "no_such", "epsilon", delta=1e-3)
    with pytest.raises(ParameterError, match="not an upper limit"):
        largest_allowed(spec.THM_II_1, "n_ge_2", "n")  # n >= 2 is a lower limit


def test_memo_caches_by_point_and_runs_and_lists_its_samples():
    calls = []

    def measure(params, runs, rng):
        calls.append((params["n"], params["p"], runs))
        return rng.random(runs)

    memo = Memo(measure)
    a = memo({"n": 1, "p": 2}, runs=5, rng=np.random.default_rng(0))
    b = memo({"p": 2, "n": 1}, runs=5, rng=np.random.default_rng(1))  # same point, other rng: cached
    c = memo({"n": 1, "p": 2}, runs=6, rng=np.random.default_rng(2))
    assert a is b and c.shape == (6,) and calls == [(1, 2, 5), (1, 2, 6)]
    assert [(p, v.shape) for p, v in memo.samples()] == [({"n": 1, "p": 2}, (5,)), ({"n": 1, "p": 2}, (6,))]
    # through audit_rate the base point is simulated once for all axes that contain it
    calls.clear()
    audit_rate(memo, grid={"n": [1, 2], "p": [2, 3]}, base={"n": 1, "p": 2}, runs=4, expected={"n": 0, "p": 0},
               seed=0, bootstrap=100)
    assert calls == [(1, 2, 4), (2, 2, 4), (1, 3, 4)] and len(memo.samples()) == 5
    with pytest.raises(TypeError, match="callable"):
        Memo(3)


def test_grid_points_vary_one_axis_at_a_time():
    pts = list(grid_points({"n": [1, 2], "p": [5]}, {"n": 1, "p": 3, "q": 0}))
    assert pts == [{"n": 1, "p": 3, "q": 0}, {"n": 2, "p": 3, "q": 0}, {"n": 1, "p": 5, "q": 0}]


def test_small_levels_use_a_t_interval_with_the_bootstrap_spread():
    """At alpha/(2k) below 10 resamples per tail, a percentile would be the extreme resample; the
    interval is slope -+ t sd instead, t the t_{runs-1} quantile at the per-side level over the
    skew margin 2."""
    kw = dict(grid=GRID, base=BASE, runs=100, expected={"n": -1.0}, seed=11, bootstrap=1000)
    tiny = audit_rate(power_law(-1.0), alpha=1e-6, **kw)
    assert tiny.interval_method == "t"
    z = float(mpmath.findroot(lambda x: mpmath.betainc(49.5, 0.5, 0, 99 / (99 + x * x), regularized=True) - 5e-7,
                              5.5))  # two-sided t_99 tail 1e-6 / 2: I_{99/(99+x^2)}(99/2, 1/2)
    lo, hi = tiny.intervals["n"]
    assert (hi - lo) / 2 == pytest.approx(z * tiny.standard_errors["n"], rel=1e-12)
    assert (lo + hi) / 2 == pytest.approx(tiny.slopes["n"], rel=1e-12)
    wide = audit_rate(power_law(-1.0), alpha=0.05, **kw)  # 25 resamples per tail: percentile
    assert wide.interval_method == "percentile"
    assert wide.standard_errors["n"] == pytest.approx(tiny.standard_errors["n"], rel=1e-12)  # same resamples


def test_the_t_interval_uses_the_largest_spread_of_the_axis():
    """Three points, relative spreads 0.1, 0.1 and 0.5: the slope's standard deviation is the one
    of the largest spread at every point, sqrt(sum c_j^2) 0.5 / sqrt(runs) by the delta method
    (c the least-squares weights), not the points' own sqrt(sum c_j^2 cv_j^2 / runs); seeded,
    within the sampling error of 400 runs and 1000 resamples (10%)."""
    spreads = {100: 0.1, 200: 0.1, 400: 0.5}

    def measure(params, runs, rng):
        return (1.0 + spreads[params["n"]] * rng.standard_normal(runs)) / params["n"]

    r = audit_rate(measure, grid={"n": [100, 200, 400]}, base=BASE, runs=400, expected={"n": -1.0}, seed=3,
                   alpha=1e-6)
    xc = np.log([100, 200, 400]) - np.log([100, 200, 400]).mean()
    c = xc / (xc @ xc)
    pooled = math.sqrt(c @ c) * 0.5 / math.sqrt(400)
    own = math.sqrt(np.sum(c**2 * np.array([0.1, 0.1, 0.5]) ** 2) / 400)
    assert r.standard_errors["n"] == pytest.approx(pooled, rel=0.1) and pooled > 1.3 * own


def test_false_fail_rate_of_the_t_interval():
    """Meta-test (seeded), as above but on the t path (alpha = 0.1 with 100 resamples: 5 per
    tail): each audit fails with probability about 0.05; allowed: the 0.999 quantile of
    Binomial(60, 0.1)."""
    results = [audit_rate(power_law(-1.0), grid={"n": [100, 400, 1600]}, base=BASE, runs=40, expected={"n": -1.0},
                          tolerance=0.0, alpha=0.1, bootstrap=100, seed=2000 + s) for s in range(60)]
    assert {r.interval_method for r in results} == {"t"}
    assert sum(not r.passed for r in results) <= sps.binom.ppf(0.999, 60, 0.1)


# --------------------------------------------------------------------------------------------
# audit_band


def test_band_intervals_are_t_with_the_bootstrap_spread_bonferroni_over_axes():
    result = audit_rate(power_law(-1.0, b_eps=-2.0), grid={"n": [100, 400, 1600], "epsilon": [0.5, 1.0, 2.0]},
                        base=BASE, runs=200, expected={"n": -1.0, "epsilon": -2.0}, seed=5)
    band = audit_band(result, {"n": -1.0, "epsilon": -2.0}, half_width=0.2, alpha=1e-3)
    z = sps.t.isf(1e-3 / 4 / 2, 199)  # two axes, two-sided, t with runs - 1 degrees of freedom, skew margin 2
    for axis in ("n", "epsilon"):
        lo, hi = band.intervals[axis]
        assert (hi - lo) / 2 == pytest.approx(z * result.standard_errors[axis], rel=1e-12)
        assert (lo + hi) / 2 == pytest.approx(result.slopes[axis], rel=1e-12)
    assert band.passed and isinstance(band, BandResult)
    assert band.bands == {"n": (-1.2, -0.8), "epsilon": (-2.2, -1.8)}


def test_band_verdicts_inside_outside_undecided():
    """Three bands around one measured slope, placed by the interval's own ends: one that
    contains it, one it misses, one it straddles."""
    result = audit_rate(power_law(-1.0), grid={"n": [100, 400, 1600]}, base=BASE, runs=400,
                        expected={"n": -1.0}, seed=6)
    probe = audit_band(result, {"n": 0.0}, half_width=100.0, alpha=0.01)
    lo, hi = probe.intervals["n"]
    inside = audit_band(result, {"n": (lo - 0.01, hi + 0.01)}, alpha=0.01)
    outside = audit_band(result, {"n": (hi + 0.01, hi + 1.0)}, alpha=0.01)
    straddle = audit_band(result, {"n": ((lo + hi) / 2, hi + 1.0)}, alpha=0.01)
    one_sided = audit_band(result, {"n": (-math.inf, lo - 0.01)}, alpha=0.01)
    assert (inside.verdicts["n"], inside.passed, inside.confirmed) == ("inside", True, True)
    assert (outside.verdicts["n"], outside.passed, outside.confirmed) == ("outside", False, False)
    assert (straddle.verdicts["n"], straddle.passed, straddle.confirmed) == ("undecided", True, False)
    assert (one_sided.verdicts["n"], one_sided.passed) == ("outside", False)


def test_band_refutes_a_wrong_rate_and_rarely_a_right_one():
    """Seeded meta-test: a rate of exponent -0.5 is refuted against the band -1 +- 0.2; 60 audits of
    the exponent -0.8 (the band's edge) at alpha = 0.3 are refuted at most about alpha/2 of the time
    (nominally alpha/4 with the skew margin), and the test allows the 0.999 quantile of
    Binomial(60, 0.3) (chance failure < 0.001)."""
    wrong = audit_rate(power_law(-0.5), grid={"n": [100, 400, 1600]}, base=BASE, runs=200, expected={"n": -1.0},
                       seed=7)
    assert not audit_band(wrong, {"n": -1.0}, half_width=0.2, alpha=1e-4).passed
    refuted = sum(not audit_band(audit_rate(power_law(-0.8), grid={"n": [100, 400, 1600]}, base=BASE, runs=40,
                                            expected={"n": -1.0}, bootstrap=200, seed=3000 + s),
                                 {"n": -1.0}, half_width=0.2, alpha=0.3).passed for s in range(60))
    assert refuted <= sps.binom.ppf(0.999, 60, 0.3)


def test_band_printing_json_and_errors():
    result = audit_rate(power_law(-1.0), grid={"n": [100, 400]}, base=BASE, runs=50, expected={"n": -1.0}, seed=8)
    band = audit_band(result, {"n": -1.0}, half_width=0.3, alpha=0.01, name="demo")
    line = str(band)
    assert "\n" not in line and line.startswith("acceptance band demo:") and "in [-1.3, -0.7]" in line
    d = json.loads(json.dumps(band.to_dict(), allow_nan=False))
    assert d["result_type"] == "band" and d["passed"] is True
    with pytest.raises(ParameterError, match="did not measure"):
        audit_band(result, {"epsilon": -1.0}, half_width=0.2, alpha=0.01)
    with pytest.raises(ParameterError, match=r"half_width \(-0.1\)"):
        audit_band(result, {"n": -1.0}, half_width=-0.1, alpha=0.01)
    with pytest.raises(ParameterError, match="low < high"):
        audit_band(result, {"n": (1.0, 0.0)}, alpha=0.01)
    with pytest.raises(TypeError, match="RateResult"):
        audit_band(band, {"n": -1.0}, half_width=0.2, alpha=0.01)
