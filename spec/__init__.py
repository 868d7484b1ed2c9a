"""dperm spec: the five papers' theorems as frozen, checkable records.

>>> import spec
>>> record = spec.get("bst14.thm_II_1")
>>> record.evaluate("sigma", lipschitz=1, n=100, epsilon=0.5, delta=1e-6)
18048.50741495797
>>> record.formula("sigma").rounding.value      # noise is rounded up, never below the exact value
'up'
>>> record.privacy.accountant(n=100, delta=1e-6, sigma=18048.50741495797) <= 0.5   # RDP certificate
True
>>> spec.get("gaussian.analytc")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
KeyError: "no spec record with id 'gaussian.analytc'; did you mean gaussian.analytic, ..."

Every record is listed by ``spec.records()`` (sorted by id) and rendered by ``dperm spec ID``.

Importing ``spec`` imports no record module: ``spec.get(id)`` imports the one that defines ``id``
(:mod:`spec.index`), a paper package imports a section when one of its names is used
(:mod:`spec.lazy`), and ``spec.records()`` imports them all.

``spec`` is pure: sympy formulas, mpmath evaluation, no randomness and no numpy arrays. It
imports nothing else of dperm; ``reference`` and ``audits`` import it.
"""

from __future__ import annotations

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
from spec.registry import get, ids, load_all, records, register

__all__ = [
    "get",
    "ids",
    "records",
    "register",
    "load_all",
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
#: registers records (imported on demand: :func:`spec.registry.load_all`).
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

