"""dperm spec: the five papers' theorems as frozen, checkable records.

>>> import spec
>>> record = spec.get("bst14.thm_II_1")
>>> record.evaluate("sigma", lipschitz=1, n=100, epsilon=0.5, delta=1e-6)
18048.50741495797

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
    Line,
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
    "Line",
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

#: Flat modules of privacy primitives and accountants shared by several papers; each defines and
#: registers records.
PRIMITIVE_MODULES: tuple[str, ...] = (
    "gaussian",
    "laplace",
    "exponential",
    "composition",
    "zcdp",
    "rdp",
    "profiles",
    "sensitivity",
)


def paper_packages() -> tuple[str, ...]:
    """The per-paper subpackages of ``spec`` (``bst14``, ``zhang17``, ...), found on disk.

    A paper package's ``__init__`` imports its section modules, which register their records;
    discovering the packages (rather than listing them) lets a new paper land without touching
    this file.
    """
    import pkgutil

    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg))


def _load_record_modules() -> None:
    for name in PRIMITIVE_MODULES:
        importlib.import_module(f"spec.{name}")
    for name in paper_packages():
        importlib.import_module(f"spec.{name}")


_load_record_modules()
