"""Results as strict JSON values: the one conversion the audit results' ``to_dict`` methods share.

Non-finite floats become the strings ``"nan"``, ``"inf"`` and ``"-inf"`` (strict JSON has no
infinity), numpy scalars become Python scalars, mappings get string keys, tuples become lists.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

__all__ = ["jsonable"]


def jsonable(value: Any) -> Any:
    """``value`` with every nested float, numpy scalar, mapping and sequence made strict JSON.

    >>> jsonable({"eps": float("inf"), 1: (np.float64(0.5), np.bool_(True))})
    {'eps': 'inf', '1': [0.5, True]}
    """
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value
