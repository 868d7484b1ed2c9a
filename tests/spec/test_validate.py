from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from spec import validate
from spec.errors import ParameterError, PrivacyParameterError


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: validate.delta(1.5), "delta (1.5) must be in (0, 1)"),
        (lambda: validate.delta(0.0), "delta (0.0) must be in (0, 1)"),
        (lambda: validate.epsilon(-1.0), "epsilon (-1.0) must be > 0"),
        (lambda: validate.epsilon(0), "epsilon (0.0) must be > 0"),
        (lambda: validate.epsilon(math.nan), "epsilon (nan) must be a finite real number"),
        (lambda: validate.epsilon(math.inf), "epsilon (inf) must be finite"),
        (lambda: validate.positive_integer("runs", 0), "runs (0) must be >= 1"),
    ],
)
def test_messages_name_value_and_rule(call, message):
    with pytest.raises(ParameterError) as info:
        call()
    assert str(info.value) == message


def test_privacy_parameters_raise_privacy_error():
    with pytest.raises(PrivacyParameterError):
        validate.positive("sigma", -1)
    with pytest.raises(ParameterError) as info:
        validate.positive("radius", -1)
    assert not isinstance(info.value, PrivacyParameterError)


@pytest.mark.parametrize("bad", ["1", None, True, np.bool_(True), 1j, [1.0], np.ones(2)])
def test_wrong_types_raise_type_error(bad):
    with pytest.raises(TypeError):
        validate.real("epsilon", bad)


def test_integer_rejects_floats_and_accepts_numpy_ints():
    assert validate.integer("n", np.int64(5)) == 5
    with pytest.raises(TypeError):
        validate.integer("n", 5.0)


def test_delta_allow_zero():
    assert validate.delta(0.0, allow_zero=True) == 0.0
    with pytest.raises(PrivacyParameterError, match=r"delta \(1.0\) must be in \[0, 1\)"):
        validate.delta(1.0, allow_zero=True)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_real_round_trips_finite_floats(x):
    assert validate.real("x", x) == x
    assert validate.real("x", np.float64(x)) == x


def test_choice():
    assert validate.choice("method", "classic", {"classic", "analytic"}) == "classic"
    with pytest.raises(ParameterError, match="method .'exact'. must be one of analytic, classic"):
        validate.choice("method", "exact", {"classic", "analytic"})
