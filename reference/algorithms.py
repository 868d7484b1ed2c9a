"""Every reference algorithm, found in the paper packages: ``reference.<paper>.ALGORITHMS``.

Each paper package exports ``ALGORITHMS = {"<paper>.alg_N": function}`` (checked by the records
meta-test); this module gathers them without a hand-kept list, so a paper's algorithms are
available to ``dperm run`` as soon as its package lands.

>>> from reference.algorithms import algorithms, get
>>> "bst14.alg_1" in algorithms()
True
>>> get("bst14.alg_1").__name__
'noise_gd'
>>> label("bst14.alg_1")
'bst14 Alg.1'
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import pkgutil
import re
from typing import Callable

import reference

__all__ = ["paper_packages", "algorithms", "get", "label", "boxes", "box", "ids"]

_ID = re.compile(r"^(?P<paper>[a-z0-9]+)\.alg_(?P<number>\d+)$")


def paper_packages() -> list[str]:
    """The subpackages of ``reference`` that export ``ALGORITHMS`` (``bst14``, ...), sorted."""
    out = []
    for m in pkgutil.iter_modules(reference.__path__):
        if m.ispkg and hasattr(importlib.import_module(f"reference.{m.name}"), "ALGORITHMS"):
            out.append(m.name)
    return sorted(out)


def algorithms() -> dict[str, Callable]:
    """Record id -> reference function, for every paper package, sorted by paper then number."""
    found = {}
    for paper in paper_packages():
        found.update(importlib.import_module(f"reference.{paper}").ALGORITHMS)

    def key(record_id: str):
        m = _ID.match(record_id)
        return (m["paper"], int(m["number"])) if m else (record_id, 0)

    return {k: found[k] for k in sorted(found, key=key)}


def boxes() -> dict[str, type]:
    """Record id -> configured class (``reference.<paper>.BOXES``), sorted like :func:`algorithms`."""
    found = {}
    for paper in paper_packages():
        found.update(getattr(importlib.import_module(f"reference.{paper}"), "BOXES", {}))
    return {k: found[k] for k in sorted(found, key=_key)}


def _key(record_id: str):
    m = _ID.match(record_id)
    return (m["paper"], int(m["number"])) if m else (record_id, 0)


def ids() -> list[str]:
    """Every algorithm record id (imports every paper package)."""
    return list(boxes())


def box(record_id: str) -> type:
    """The configured class of ``record_id``, importing only its paper's package (KeyError with
    suggestions for an unknown id)."""
    m = _ID.match(str(record_id))
    if m is not None and importlib.util.find_spec(f"reference.{m['paper']}") is not None:
        table = getattr(importlib.import_module(f"reference.{m['paper']}"), "BOXES", {})
        if record_id in table:
            return table[record_id]
    known = ids()
    close = difflib.get_close_matches(str(record_id), known, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; one of {', '.join(known)}"
    raise KeyError(f"no reference algorithm {record_id!r}{hint}")


def get(record_id: str) -> Callable:
    """The reference function of algorithm record ``record_id`` (KeyError with suggestions)."""
    table = algorithms()
    if record_id in table:
        return table[record_id]
    close = difflib.get_close_matches(record_id, list(table), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; one of {', '.join(table)}"
    raise KeyError(f"no reference algorithm {record_id!r}{hint}")


def label(record_id: str) -> str:
    """The vector and tape spelling of an algorithm record id: ``bst14.alg_1`` -> ``bst14 Alg.1``."""
    m = _ID.match(record_id)
    if m is None:
        raise ValueError(f"record_id ({record_id!r}) must look like paper.alg_N")
    return f"{m['paper']} Alg.{m['number']}"
