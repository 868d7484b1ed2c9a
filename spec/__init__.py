"""dperm spec: the five papers' theorems as frozen, checkable records.

>>> import spec
>>> record = spec.get("bst14.thm_II_1")          # doctest: +SKIP
>>> record.evaluate("sigma", lipschitz=1, n=100, epsilon=0.5, delta=1e-6)  # doctest: +SKIP

``spec`` is pure: sympy formulas, mpmath evaluation, no randomness and no numpy arrays. It
imports nothing else of dperm; ``reference`` and ``audits`` import it.
"""

from __future__ import annotations

import importlib

from spec.errors import (
    AssumptionError,
    DataBoundError,
    ParameterError,
    PrivacyLeakWarning,
    PrivacyParameterError,
)
from spec.record import (
    Assumption,
    BoundKind,
    Citation,
    Conventions,
    Flag,
    FlagKind,
    Formula,
    LossForm,
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Quantity,
    Rounding,
    SpecRecord,
    Symbol,
    UtilityClaim,
)
from spec.registry import get, ids, records, register

__all__ = [
    "get",
    "ids",
    "records",
    "register",
    "SpecRecord",
    "Citation",
    "Conventions",
    "Symbol",
    "Assumption",
    "Formula",
    "PrivacyClaim",
    "UtilityClaim",
    "Flag",
    "FlagKind",
    "Neighbouring",
    "LossForm",
    "PrivacyModel",
    "Quantity",
    "BoundKind",
    "Rounding",
    "ParameterError",
    "PrivacyParameterError",
    "AssumptionError",
    "DataBoundError",
    "PrivacyLeakWarning",
]

#: Modules that define and register records, imported so that the registry is complete.
RECORD_MODULES: tuple[str, ...] = (
    "gaussian",
    "laplace",
    "exponential",
    "composition",
    "zcdp",
    "rdp",
    "bst14",
    "profiles",
)



def _load_record_modules() -> None:
    for name in RECORD_MODULES:
        importlib.import_module(f"spec.{name}")


_load_record_modules()
