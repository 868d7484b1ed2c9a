"""Values as strict JSON, with one spelling of what JSON cannot hold.

Strict JSON (``json.dumps(allow_nan=False)``) has no infinity and no NaN. Everything dperm writes
as JSON -- the ``--json`` output of every verb, audit results and reports, the report of
``dperm vectors check``, known-answer vectors -- goes through :func:`strict`:

* a non-finite number is written as ``null``, and the object lists where: ``"infinite"`` holds
  the paths of the infinite values (``"-"`` before the path of a negative one), ``"nan"`` (present
  only when there is one) the paths of NaNs. A path is keys joined by dots, with ``[i]`` for list
  items: ``"epsilon"``, ``"series.a.ci_high[2]"``;
* numpy scalars and arrays become Python numbers and lists (recognised by their methods, so
  ``spec`` needs no numpy), mappings get string keys, tuples and sets become lists, dataclasses
  become dicts of their fields;
* anything else goes to ``default`` (a callable) or is refused with a TypeError.

:func:`restore` undoes it (for code that computes with a dict read back: a report's tables).

>>> strict({"epsilon": float("inf"), "order": 2, "curve": (1.5, float("-inf"))})
{'epsilon': None, 'order': 2, 'curve': [1.5, None], 'infinite': ['epsilon', '-curve[1]']}
>>> restore(_) == {"epsilon": float("inf"), "order": 2, "curve": [1.5, float("-inf")],
...                "infinite": ["epsilon", "-curve[1]"]}
True
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Mapping

__all__ = ["strict", "convert", "restore", "not_finite"]


def _path(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


def convert(value: Any, *, default: Callable[[Any], Any] | None = None, found: dict | None = None,
            path: str = "") -> Any:
    """``value`` as JSON values, non-finite numbers as None; their paths go into ``found``
    (``{"infinite": [...], "nan": [...]}``) when it is given, else a non-finite number is refused."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)  # a numpy float64 is a float: its plain value
        if found is None:
            raise ValueError(f"{path or 'value'} ({value!r}) must be finite")
        if math.isnan(value):
            found.setdefault("nan", []).append(path)
        else:
            found.setdefault("infinite", []).append(path if value > 0 else f"-{path}")
        return None
    if type(value).__module__ == "numpy":  # a numpy scalar or array: its Python value (spec has no numpy)
        item = value.tolist() if hasattr(value, "shape") and value.shape != () else value.item()
        return convert(item, default=default, found=found, path=path)
    if isinstance(value, Mapping):
        return {str(k): convert(v, default=default, found=found, path=_path(path, str(k))) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [convert(v, default=default, found=found, path=f"{path}[{i}]") for i, v in enumerate(items)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return convert({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, default=default,
                       found=found, path=path)
    if default is not None:
        return convert(default(value), default=default, found=found, path=path)
    raise TypeError(f"{path or 'value'} ({type(value).__name__}) is not a JSON value")


def strict(value: Any, *, default: Callable[[Any], Any] | None = None) -> Any:
    """``value`` as strict JSON (module docstring); a mapping gets ``"infinite"`` (and ``"nan"``).

    A value that is not a mapping cannot carry the list, so a non-finite number in it is refused
    (ValueError naming its path).
    """
    if not isinstance(value, Mapping):
        return convert(value, default=default)
    found: dict = {}
    out = convert(value, default=default, found=found)
    out["infinite"] = found.get("infinite", [])
    if "nan" in found:
        out["nan"] = found["nan"]
    return out


def not_finite(value: Mapping) -> list[str]:
    """The paths :func:`strict` listed in ``value`` (infinite and NaN), empty when all are finite."""
    return [*value.get("infinite", []), *value.get("nan", [])]


def restore(value: Mapping) -> dict:
    """The dict :func:`strict` was given back (up to tuples, which stay lists): the nulls it listed
    become ``inf``, ``-inf`` or ``nan`` again."""
    infinite = set(value.get("infinite", []))
    nan = set(value.get("nan", []))

    def walk(v, path):
        if v is None:
            if path in infinite:
                return math.inf
            if f"-{path}" in infinite:
                return -math.inf
            if path in nan:
                return math.nan
            return None
        if isinstance(v, Mapping):
            return {k: walk(x, _path(path, k)) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, f"{path}[{i}]") for i, x in enumerate(v)]
        return v

    return {k: (v if k in ("infinite", "nan") else walk(v, k)) for k, v in value.items()}
