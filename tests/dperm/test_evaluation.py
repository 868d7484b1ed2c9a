"""``dperm spec ID --eval`` as a function (dperm/evaluation.py)."""

from __future__ import annotations

import pytest

import spec
from dperm.arguments import UsageError
from dperm.evaluation import evaluate, to_text
from spec.errors import AssumptionError, ParameterError


def test_evaluate_uses_record_evaluate_and_reports_everything():
    record = spec.get("bst14.alg_1")
    values = {"n": 10, "epsilon": 0.5, "delta": 1e-6}  # lipschitz missing
    out = evaluate(record, values)
    assert out["formulas"] == {name: record.evaluate(name, **values)
                               for name in ("iterates", "noisy_steps", "sampling_rate", "noise_multiplier")}
    assert out["needs"] == {"sigma_squared": ["lipschitz"], "sigma": ["lipschitz"], "sensitivity": ["lipschitz"]}
    assert out["rounding"] == {"iterates": "ceil", "noisy_steps": "ceil", "sampling_rate": "up",
                               "noise_multiplier": "down"}
    assert out["assumptions"] == {"hold": ["delta_lt_1", "n_ge_2"], "fail": [], "undecided": {}}


def test_noise_multiplier_cancels_the_lipschitz_constant():
    """sigma / (2 L n) does not depend on L: evaluable without lipschitz (sympy cancels it)."""
    record = spec.get("bst14.alg_1")
    out = evaluate(record, {"n": 10, "epsilon": 0.5, "delta": 1e-6})
    assert "noise_multiplier" in out["formulas"]
    with_l = record.evaluate("noise_multiplier", n=10, epsilon=0.5, delta=1e-6, lipschitz=7.0)
    assert out["formulas"]["noise_multiplier"] == with_l


def test_checks_and_errors():
    record = spec.get("gaussian.classic")
    with pytest.raises(AssumptionError, match="epsilon_lt_1"):
        evaluate(record, {"epsilon": 2.0})
    with pytest.raises(UsageError, match="no parameter n"):
        evaluate(record, {"n": 3})
    with pytest.raises(ParameterError, match="must be > 0"):
        evaluate(record, {"epsilon": -1.0})
    out = evaluate(record, {"epsilon": 2.0}, check=False)
    assert out["checked"] is False and out["assumptions"]["fail"] == ["epsilon_lt_1"]
    assert out["needs"] == {"sigma": ["delta", "sensitivity"]}


def test_text_rendering():
    record = spec.get("gaussian.classic")
    out = evaluate(record, {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0})
    text = to_text(out, record)
    assert text.splitlines()[0] == "gaussian.classic at epsilon=0.5, delta=1e-05, sensitivity=1.0"
    assert f"sigma = {out['formulas']['sigma']!r}  (rounded up)" in text
    assert to_text(evaluate(spec.get("bst14.table_I"), {}), spec.get("bst14.table_I")).endswith("has no formulas")
