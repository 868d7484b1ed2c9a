"""Paper packages that import their section modules only when a name from them is used.

A paper package (``spec.wang19``) re-exports the records and functions of its section modules
(``spec.wang19.noise``, ...). Importing every section to answer a question about one record is
what made ``dperm spec ID`` slow, so a package's ``__init__`` declares *where* each name lives
and :func:`package` turns that into a module ``__getattr__`` (PEP 562): ``spec.wang19.THM_1``
imports ``spec.wang19.noise`` (and what it needs) on first use, and nothing else.
:func:`load` imports every section of a package (the registry does that for ``spec.records()``).

>>> import spec.wang19
>>> spec.wang19.THM_1.id          # imports spec.wang19.noise (and what it needs) here
'wang19.thm_1'
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from typing import Callable, Mapping

__all__ = ["package", "load"]


def load(name: str) -> None:
    """Import package ``name`` and every module in it (their records register themselves)."""
    pkg = importlib.import_module(name)
    for info in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"{name}.{info.name}")


def package(name: str, exports: Mapping[str, str],
            records: Callable[[object], tuple] | None = None) -> tuple[Callable, Callable]:
    """``(__getattr__, __dir__)`` for the paper package ``name``.

    Parameters
    ----------
    name : str
        The package (``__name__`` of its ``__init__``).
    exports : mapping
        Exported name -> the section module (relative name) that defines it.
    records : callable, optional
        ``package -> tuple of records``: the package's ``RECORDS`` (computed on first use, with
        every section it names imported).
    """
    def __getattr__(attribute: str):
        module = sys.modules[name]
        if attribute in exports:
            value = getattr(importlib.import_module(f"{name}.{exports[attribute]}"), attribute)
        elif attribute == "RECORDS" and records is not None:
            value = records(module)
        elif not attribute.startswith("__") and importlib.util.find_spec(f"{name}.{attribute}") is not None:
            value = importlib.import_module(f"{name}.{attribute}")  # a section module by its name
        else:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        setattr(module, attribute, value)
        return value

    def __dir__():
        module = sys.modules[name]
        sections = [info.name for info in pkgutil.iter_modules(module.__path__)]
        return sorted(set(vars(module)) | set(exports) | set(sections) | ({"RECORDS"} if records else set()))

    return __getattr__, __dir__

