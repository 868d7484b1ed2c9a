"""spec.calibrations: record calibrations and accountants as targets (dperm calibrate/epsilon/run use them)."""

from __future__ import annotations

import warnings

import pytest

import spec
from spec import calibrations
from spec.calibrations import TargetError
from spec.errors import AssumptionError, PrivacyLeakWarning


def test_targets_come_from_the_registry():
    found = calibrations.calibration_targets()
    assert [(t.record.id, t.name) for t in found] == [
        (r.id, c.name) for r in spec.records() for c in r.calibrations()]
    accountants = calibrations.accountant_targets()
    assert [t.record.id for t in accountants] == [
        r.id for r in spec.records() if r.privacy is not None and r.privacy.accountant is not None]


def test_resolve_default_and_named():
    default = calibrations.calibration_target("bst14.thm_II_1")
    assert (default.name, default.source, default.required) == ("printed", "formula sigma",
                                                                ("lipschitz", "n", "epsilon", "delta"))
    accountant = calibrations.calibration_target("bst14.thm_II_1", "accountant")
    assert accountant.required == ("n", "epsilon", "delta") and accountant.optional == {"lipschitz": 1.0}
    eps = calibrations.accountant_target("bst14.thm_II_1")
    assert eps.computes == "epsilon" and eps.rounding.value == "up" and eps.calibration is None
    with pytest.raises(TargetError, match=r"calibration \(best\) must be one of printed") as info:
        calibrations.calibration_target("bst14.thm_II_1", "best")
    assert info.value.kind == "not-offered" and info.value.takes[0] == "printed"
    with pytest.raises(TargetError, match="did you mean bst14.thm_II_1") as info:
        calibrations.calibration_target("bst14.thm_II_1x")
    assert info.value.kind == "unknown"
    with pytest.raises(TargetError, match="has no accountant"):
        calibrations.accountant_target("composition.basic")


def test_every_calibration_a_record_offers_is_reachable_by_name():
    """The spec functions' calibration= choices are the records' calibrations, by the same names (the
    names dperm run --calibration passes to the reference)."""
    from spec import bst14, wang19, zhang17

    assert calibrations.offered("bst14.thm_II_1") == bst14.CALIBRATIONS
    assert calibrations.offered("zhang17.thm_1") == zhang17.output_perturbation.CALIBRATIONS
    for rid in ("wang19.thm_1", "wang19.alg_1", "wang19.alg_2", "wang19.alg_3"):
        assert calibrations.offered(rid) == wang19.noise.CALIBRATIONS, rid
    values = dict(lipschitz=1.0, n=1000, epsilon=1.0, delta=1e-5, steps=100)
    for name in wang19.noise.CALIBRATIONS:
        out = calibrations.calibrate(calibrations.calibration_target("wang19.thm_1", name), values)
        assert out["sigma"] == wang19.sigma(**values, calibration=name), name
    for name in zhang17.output_perturbation.CALIBRATIONS:
        kw = dict(epsilon=0.5, delta=1e-5, sensitivity=1.0)
        out = calibrations.calibrate(calibrations.calibration_target("zhang17.thm_1", name), kw)
        assert out["sigma"] == zhang17.gaussian_sigma(**kw, calibration=name), name


def test_calibrate_formula_target_checks_assumptions_and_reports():
    target = calibrations.calibration_target("gaussian.classic")
    out = calibrations.calibrate(target, {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0})
    assert out["sigma"] == spec.get("gaussian.classic").evaluate("sigma", epsilon=0.5, delta=1e-5, sensitivity=1.0)
    assert out["profile_delta"] <= 1e-5  # checked against the record's exact profile
    with pytest.raises(AssumptionError, match="epsilon_lt_1"):
        calibrations.calibrate(target, {"epsilon": 2.0, "delta": 1e-5, "sensitivity": 1.0})
    with pytest.raises(TargetError, match="n does not apply") as info:
        calibrations.calibrate(target, {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0, "n": 3})
    assert info.value.kind == "extra" and info.value.extra == ("n",)
    with pytest.raises(TargetError, match="required for calibrate gaussian.classic --calibration sigma: delta"):
        calibrations.calibrate(target, {"epsilon": 0.5, "sensitivity": 1.0})


def test_profile_check_warns_exactly_when_the_exact_delta_exceeds_the_target():
    """The warning names the record's calibration that is private there, by an option that exists."""
    target = calibrations.calibration_target("zhang17.thm_1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        calibrations.calibrate(target, {"epsilon": 5.0, "delta": 1e-5, "sensitivity": 1.0})  # valid up to 9.39
    with pytest.warns(PrivacyLeakWarning, match=r"calibration analytic is private here \(--calibration analytic\)"):
        out = calibrations.calibrate(target, {"epsilon": 10.0, "delta": 1e-5, "sensitivity": 1.0})
    assert out["profile_delta"] > 1e-5
    analytic = calibrations.calibrate(calibrations.calibration_target("zhang17.thm_1", "analytic"),
                                      {"epsilon": 10.0, "delta": 1e-5, "sensitivity": 1.0})
    assert analytic["profile_delta"] <= 1e-5  # the profile takes the calibrated sigma, not the printed one


def test_epsilon_target_runs_the_accountant():
    from spec.bst14 import certified_epsilon

    target = calibrations.accountant_target("bst14.thm_II_1")
    out = calibrations.epsilon(target, {"n": 10, "delta": 1e-5, "sigma": 100.0})
    assert out["epsilon"] == certified_epsilon(n=10, delta=1e-5, sigma=100.0)
    assert out["defaults"] == {"lipschitz": 1.0}


def test_epsilon_of_a_calibration_accounts_its_noise():
    """zhang17's printed sigma at epsilon = 20 certifies only epsilon = 24.8 (exact profile)."""
    from spec import gaussian

    target = calibrations.accountant_target("zhang17.thm_1", "printed")
    assert target.required == ("epsilon", "delta", "sensitivity")
    out = calibrations.epsilon(target, {"epsilon": 20.0, "delta": 1e-5, "sensitivity": 1.0})
    assert out["sigma"] == spec.get("zhang17.thm_1").evaluate("sigma", epsilon=20.0, delta=1e-5, sensitivity=1.0)
    assert out["epsilon"] == gaussian.exact_epsilon(1e-5, sigma=out["sigma"], sensitivity=1.0) > 20.0
    analytic = calibrations.epsilon(calibrations.accountant_target("zhang17.thm_1", "analytic"),
                                    {"epsilon": 20.0, "delta": 1e-5, "sensitivity": 1.0})
    assert analytic["epsilon"] <= 20.0


def test_the_gaussian_alias_is_the_records():
    from spec import gaussian, zcdp

    kw = {"epsilon": 0.5, "delta": 1e-6, "sensitivity": 2.0}
    assert calibrations.calibrate(calibrations.alias_calibration("gaussian"), kw)["sigma"] \
        == gaussian.analytic_sigma(**kw)
    assert calibrations.calibrate(calibrations.alias_calibration("gaussian", "zcdp"), kw)["sigma"] \
        == zcdp.gaussian_sigma(**kw)  # steps defaults to 1 for the alias
    assert calibrations.alias_accountant("gaussian").record.id == "gaussian.analytic"
    sampled = calibrations.alias_accountant("gaussian", "rdp", "poisson")
    out = calibrations.epsilon(sampled, {"sigma": 1.5, "sensitivity": 1.0, "delta": 1e-5, "steps": 10,
                                         "sampling_rate": 0.1})
    assert out["order"] >= 2 and out["epsilon"] > 0
    with pytest.raises(TargetError, match="does not handle subsampling"):
        calibrations.alias_accountant("gaussian", "exact", "poisson")
