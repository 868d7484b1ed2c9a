"""The registry of spec records: ``spec.get(id)`` and ``spec.records()``.

Record modules call :func:`register` at import time. Nothing is imported until it is needed:
``get(id)`` imports the one module that defines ``id`` (found in :mod:`spec.index`), and
``records()``/``ids()`` import every record module (:func:`load_all`). So ``dperm spec ID``
pays for one paper section, not for five papers.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from typing import Iterator

from spec.record import SpecRecord

__all__ = ["register", "get", "records", "ids", "load_all", "loaded", "module_of"]

_REGISTRY: dict[str, SpecRecord] = {}
_MODULES: dict[str, str] = {}  # record id -> the module that registered it
_OWNERS: dict[str, dict] = {}  # record id -> the namespace of the module copy that registered it
_LOADED = False


def register(record: SpecRecord) -> SpecRecord:
    """Add ``record`` to the registry and return it; ids must be unique.

    A second record with a registered id is an error, unless it comes from a new copy of the
    module that registered the first: a module dropped from ``sys.modules`` and imported again
    (pytest's ``pytester`` restores ``sys.modules`` after each in-process run) registers its
    records again, and they replace the old copy's."""
    if not isinstance(record, SpecRecord):
        raise TypeError(f"record ({record!r}) must be a SpecRecord")
    namespace = sys._getframe(1).f_globals
    caller = namespace.get("__name__", "")
    if record.id in _REGISTRY and _REGISTRY[record.id] is not record:
        owner = _OWNERS.get(record.id)
        if owner is None or owner is namespace or owner.get("__name__", "") != caller:
            raise ValueError(f"record id {record.id!r} is already registered")
    _REGISTRY[record.id] = record
    _OWNERS[record.id] = namespace
    _MODULES.setdefault(record.id, caller)
    return record


def load_all() -> None:
    """Import every record module: the shared primitives and each paper package's sections."""
    global _LOADED
    if _LOADED:
        return
    import spec
    from spec import lazy

    for name in spec.PRIMITIVE_MODULES:
        importlib.import_module(f"spec.{name}")
    for name in spec.paper_packages():
        lazy.load(f"spec.{name}")
    _LOADED = True


def loaded() -> bool:
    """Whether every record module has been imported (then listings come from the live records)."""
    return _LOADED


def module_of(record_id: str) -> str | None:
    """The module that registered ``record_id`` (None if it is not registered yet)."""
    return _MODULES.get(record_id)


def get(record_id: str) -> SpecRecord:
    """The record with id ``record_id``, importing only its module; a KeyError suggests close ids."""
    if not isinstance(record_id, str):
        raise TypeError(f"record id ({record_id!r}) must be a string")
    found = _REGISTRY.get(record_id)
    if found is not None:
        return found
    if not _LOADED:
        from spec import index

        module = index.module_of(record_id)
        if module is not None:
            importlib.import_module(module)
            found = _REGISTRY.get(record_id)
            if found is not None:
                return found
        known = index.record_ids()
        if record_id not in known:  # not a record: suggest, without importing every paper
            raise _unknown(record_id, set(known) | set(_REGISTRY))
        load_all()  # the index is out of date (it is rebuilt when the sources change)
    try:
        return _REGISTRY[record_id]
    except KeyError:
        raise _unknown(record_id, _REGISTRY) from None


def _unknown(record_id: str, known) -> KeyError:
    close = difflib.get_close_matches(record_id, sorted(known), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return KeyError(f"no spec record with id {record_id!r}{hint}")


def records() -> Iterator[SpecRecord]:
    """All registered records, sorted by id (every record module is imported first)."""
    load_all()
    for rid in sorted(_REGISTRY):
        yield _REGISTRY[rid]


def ids() -> list[str]:
    """All record ids, sorted (every record module is imported first)."""
    load_all()
    return sorted(_REGISTRY)
