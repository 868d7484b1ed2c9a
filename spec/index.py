"""What the listings show, without importing every paper: record ids, their modules, their calibrations.

``dperm spec``, ``dperm calibrate --list``, ``dperm epsilon --list`` and ``dperm run --list`` list
every record, calibration or algorithm; ``spec.get(id)`` must know which module defines ``id``.
Importing all five papers to answer costs seconds (sympy derives their formulas at import), so the
answers are built once from the live records and kept by :func:`spec.cache.cached`, keyed by the
contents of spec's sources: any edit rebuilds them, a stale entry is never read. Once every
record module is imported anyway (:func:`spec.registry.loaded`), the functions answer from the
live records.

>>> from spec import index
>>> index.module_of("wang19.thm_1")
'spec.wang19.noise'
>>> "bst14.alg_1" in index.algorithm_ids() and "bst14.thm_II_1" not in index.algorithm_ids()
True
"""

from __future__ import annotations

import functools

from spec import cache, registry

__all__ = ["build", "index", "module_of", "record_ids", "algorithm_ids", "record_rows", "calibration_rows",
           "accountant_rows"]


def build() -> dict:
    """The index from the live records (imports every record module)."""
    from spec import calibrations

    registry.load_all()
    # only records that a spec module registered (a test may slip one into the registry)
    ours = {r.id for r in registry.records() if (registry.module_of(r.id) or "").startswith("spec.")}
    return {
        "records": [{"id": r.id, "module": registry.module_of(r.id), "title": r.title,
                     "citation": str(r.citation), "summary": r.summary, "algorithm": bool(r.pseudocode)}
                    for r in registry.records() if r.id in ours],
        "calibrations": [t.describe() for t in calibrations.calibration_targets() if t.record.id in ours],
        "accountants": [t.describe() for t in calibrations.accountant_targets() if t.record.id in ours],
    }


@functools.lru_cache(maxsize=1)
def _stored() -> dict:
    return cache.cached("spec-index", build, packages=("spec",))


def index() -> dict:
    """The index: from the live records once they are all loaded, else the cached one."""
    return build() if registry.loaded() else _stored()


def module_of(record_id: str) -> str | None:
    """The module that defines ``record_id`` (None when no record has that id)."""
    found = registry.module_of(record_id)
    if found is not None:
        return found
    for row in _stored()["records"]:
        if row["id"] == record_id:
            return row["module"]
    return None


def record_ids() -> list[str]:
    """Every record id, sorted."""
    return [row["id"] for row in record_rows()]


def algorithm_ids() -> list[str]:
    """The ids of the algorithm boxes (records with pseudocode), sorted."""
    return [row["id"] for row in record_rows() if row["algorithm"]]


def record_rows() -> list[dict]:
    """``{id, module, title, citation, summary, algorithm}`` per record, sorted by id."""
    return index()["records"]


def calibration_rows() -> list[dict]:
    """Every record calibration as :meth:`spec.calibrations.Target.describe` gives it."""
    return index()["calibrations"]


def accountant_rows() -> list[dict]:
    """Every record accountant as :meth:`spec.calibrations.Target.describe` gives it."""
    return index()["accountants"]
