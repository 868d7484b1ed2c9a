"""Record calibrations and accountants as command-line targets (dperm/calibration.py)."""

from __future__ import annotations

import warnings

import pytest

import spec
from dperm import calibration
from dperm.arguments import UsageError
from spec.errors import AssumptionError, PrivacyLeakWarning


def test_targets_come_from_the_registry():
    calibrations = calibration.calibration_targets()
    assert [(t.record.id, t.name) for t in calibrations] == [
        (r.id, c.name) for r in spec.records() for c in r.calibrations()]
    accountants = calibration.accountant_targets()
    assert [t.record.id for t in accountants] == [
        r.id for r in spec.records() if r.privacy is not None and r.privacy.accountant is not None]


def test_resolve_default_and_named():
    default = calibration.resolve("calibrate", "bst14.thm_II_1")
    assert (default.name, default.source, default.required) == ("printed", "formula sigma",
                                                                ("lipschitz", "n", "epsilon", "delta"))
    accountant = calibration.resolve("calibrate", "bst14.thm_II_1", "accountant")
    assert accountant.required == ("n", "epsilon", "delta") and accountant.optional == {"lipschitz": 1.0}
    eps = calibration.resolve("epsilon", "bst14.thm_II_1")
    assert eps.computes == "epsilon" and eps.rounding.value == "up"
    with pytest.raises(UsageError, match="--calibration applies only to dperm calibrate"):
        calibration.resolve("epsilon", "bst14.thm_II_1", "printed")


def test_calibrate_formula_target_checks_assumptions_and_reports():
    target = calibration.resolve("calibrate", "gaussian.classic")
    out = calibration.calibrate(target, {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0})
    assert out["sigma"] == spec.get("gaussian.classic").evaluate("sigma", epsilon=0.5, delta=1e-5, sensitivity=1.0)
    assert out["profile_delta"] <= 1e-5  # checked against the record's exact profile
    with pytest.raises(AssumptionError, match="epsilon_lt_1"):
        calibration.calibrate(target, {"epsilon": 2.0, "delta": 1e-5, "sensitivity": 1.0})
    with pytest.raises(UsageError, match="--n does not apply"):
        calibration.calibrate(target, {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0, "n": 3})
    with pytest.raises(UsageError, match="required for calibrate gaussian.classic --calibration sigma: --delta"):
        calibration.calibrate(target, {"epsilon": 0.5, "sensitivity": 1.0})


def test_profile_check_warns_exactly_when_the_exact_delta_exceeds_the_target():
    target = calibration.resolve("calibrate", "zhang17.thm_1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        calibration.calibrate(target, {"epsilon": 5.0, "delta": 1e-5, "sensitivity": 1.0})  # valid up to 9.39
    with pytest.warns(PrivacyLeakWarning, match="is not \\(epsilon, delta\\)-DP"):
        out = calibration.calibrate(target, {"epsilon": 10.0, "delta": 1e-5, "sensitivity": 1.0})
    assert out["profile_delta"] > 1e-5


def test_epsilon_target_runs_the_accountant():
    from spec.bst14 import certified_epsilon

    target = calibration.resolve("epsilon", "bst14.thm_II_1")
    out = calibration.epsilon(target, {"n": 10, "delta": 1e-5, "sigma": 100.0})
    assert out["epsilon"] == certified_epsilon(n=10, delta=1e-5, sigma=100.0)
    assert out["defaults"] == {"lipschitz": 1.0}
