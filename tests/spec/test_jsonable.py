"""spec.jsonable: the one conversion to strict JSON (what json.dumps(allow_nan=False) takes), and
its one spelling of non-finite numbers (null, the path listed in "infinite" or "nan")."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from audits.jsonable import jsonable
from spec.jsonable import convert, not_finite, restore, strict


def test_non_finite_numpy_and_nested_values():
    value = {"a": math.inf, "b": -math.inf, "c": math.nan, 2: (np.float64(0.25), np.int64(3), np.bool_(False)),
             "d": [np.float32(-np.inf), {"e": np.nan}], "f": np.array([[1.0, 2.0]])}
    out = strict(value)
    assert out == {"a": None, "b": None, "c": None, "2": [0.25, 3, False], "d": [None, {"e": None}],
                   "f": [[1.0, 2.0]], "infinite": ["a", "-b", "-d[0]"], "nan": ["c", "d[1].e"]}
    assert type(out["2"][0]) is float and type(out["2"][1]) is int and type(out["2"][2]) is bool
    json.dumps(out, allow_nan=False)  # raises if anything non-finite or non-JSON is left
    assert not_finite(out) == ["a", "-b", "-d[0]", "c", "d[1].e"]
    assert jsonable is strict  # the audits' results use the same function


def test_plain_values_dataclasses_and_the_default():
    assert strict("x") == "x" and strict(None) is None and strict(1.5) == 1.5
    assert strict({"x": 1}) == {"x": 1, "infinite": []}  # no "nan" unless there is one

    @dataclasses.dataclass
    class Point:
        x: float
        y: tuple

    assert strict({"p": Point(1.0, (2, 3))}) == {"p": {"x": 1.0, "y": [2, 3]}, "infinite": []}
    with pytest.raises(TypeError, match=r"o \(object\) is not a JSON value"):
        strict({"o": object()})
    assert strict({"o": object()}, default=lambda o: "an object") == {"o": "an object", "infinite": []}
    with pytest.raises(ValueError, match=r"^v\[1\] \(inf\) must be finite"):
        convert([1.0, math.inf], path="v")  # without a list to record it, a non-finite number is refused
    with pytest.raises(ValueError, match="must be finite"):
        strict([math.nan])  # a list cannot carry "infinite"


finite = st.floats(allow_nan=False, allow_infinity=False)
numbers = st.one_of(finite, st.sampled_from([math.inf, -math.inf, math.nan]), st.integers(-5, 5))
values = st.recursive(numbers | st.text(max_size=3) | st.none(),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                          st.text(alphabet="abc_.[]", min_size=1, max_size=3), inner, max_size=3),
                      max_leaves=12)


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@given(st.dictionaries(st.text(alphabet="xyz", min_size=1, max_size=2), values, max_size=4))
def test_restore_undoes_strict(value):
    """Round trip, whatever the keys (dots and brackets included) and however deep."""
    out = strict(value)
    json.dumps(out, allow_nan=False)
    back = restore(out)
    assert _same({k: v for k, v in back.items() if k not in ("infinite", "nan")}, value)
