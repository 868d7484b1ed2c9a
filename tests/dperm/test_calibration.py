"""dperm/calibration.py: spec.calibrations in command-line words (options --n, one-line usage errors)."""

from __future__ import annotations

import pytest

from dperm import calibration
from dperm.arguments import UsageError


def test_errors_name_options_the_command_line_way():
    target = calibration.resolve("calibrate", "gaussian.classic")
    with pytest.raises(UsageError, match="--n does not apply to calibrate gaussian.classic"):
        calibration.calibrate(target, {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0, "n": 3})
    with pytest.raises(UsageError, match="required for calibrate gaussian.classic --calibration sigma: --delta"):
        calibration.calibrate(target, {"epsilon": 0.5, "sensitivity": 1.0})
    with pytest.raises(UsageError, match=r"--calibration \(best\) must be one of"):
        calibration.resolve("calibrate", "bst14.thm_II_1", "best")
    with pytest.raises(UsageError, match="is neither 'gaussian' nor a record id"):
        calibration.resolve("epsilon", "nope.nothing")


def test_epsilon_takes_a_calibration_and_the_alias_names_records():
    assert calibration.resolve("epsilon", "bst14.thm_II_1", "printed").calibration.name == "printed"
    assert calibration.resolve("calibrate", "gaussian", "classic").record.id == "gaussian.classic"
    assert calibration.resolve("epsilon", "gaussian", accountant="zcdp").record.id == "zcdp.gaussian_calibration"
