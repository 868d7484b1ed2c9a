"""audits.jsonable: strict JSON values for the audit results (what json.dumps(allow_nan=False) takes)."""

from __future__ import annotations

import json
import math

import numpy as np

from audits.jsonable import jsonable


def test_non_finite_numpy_and_nested_values():
    value = {"a": math.inf, "b": -math.inf, "c": math.nan, 2: (np.float64(0.25), np.int64(3), np.bool_(False)),
             "d": [np.float32(-np.inf), {"e": np.nan}]}
    out = jsonable(value)
    assert out == {"a": "inf", "b": "-inf", "c": "nan", "2": [0.25, 3, False], "d": ["-inf", {"e": "nan"}]}
    assert type(out["2"][1]) is int and type(out["2"][2]) is bool
    json.dumps(out, allow_nan=False)  # raises if anything non-finite or non-JSON is left


def test_plain_values_pass_through():
    assert jsonable("x") == "x" and jsonable(None) is None and jsonable(1.5) == 1.5
