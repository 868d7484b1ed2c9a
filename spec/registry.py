"""The registry of spec records: ``spec.get(id)`` and ``spec.records()``.

Record modules call :func:`register` at import time; importing :mod:`spec` imports them all.
"""

from __future__ import annotations

import difflib
from typing import Iterator

from spec.record import SpecRecord

__all__ = ["register", "get", "records", "ids"]

_REGISTRY: dict[str, SpecRecord] = {}


def register(record: SpecRecord) -> SpecRecord:
    """Add ``record`` to the registry and return it; ids must be unique."""
    if not isinstance(record, SpecRecord):
        raise TypeError(f"record ({record!r}) must be a SpecRecord")
    if record.id in _REGISTRY and _REGISTRY[record.id] is not record:
        raise ValueError(f"record id {record.id!r} is already registered")
    _REGISTRY[record.id] = record
    return record


def get(record_id: str) -> SpecRecord:
    """The record with id ``record_id``; a KeyError suggests close ids."""
    if not isinstance(record_id, str):
        raise TypeError(f"record id ({record_id!r}) must be a string")
    try:
        return _REGISTRY[record_id]
    except KeyError:
        close = difflib.get_close_matches(record_id, list(_REGISTRY), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"no spec record with id {record_id!r}{hint}") from None


def records() -> Iterator[SpecRecord]:
    """All registered records, sorted by id."""
    for rid in sorted(_REGISTRY):
        yield _REGISTRY[rid]


def ids() -> list[str]:
    return sorted(_REGISTRY)
