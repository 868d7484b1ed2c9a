"""A disk cache for what is slow to derive and never changes between two edits of the sources.

Two kinds of entry, both keyed so that a stale entry can never be used:

* :func:`cached` -- a JSON value (a listing: record ids and the modules that define them,
  calibration targets, algorithm parameters) keyed by a fingerprint of the *source files* of the
  packages it describes (their contents, and the versions of Python and sympy). Editing any
  source file makes a new fingerprint, so the value is rebuilt on first use.
* :func:`derivation` -- the result of a pure sympy function (a ``solve``, a ``simplify``, a limit)
  keyed by the exact input expressions (``srepr``), the function's own source and the versions.
  Importing a paper then rebuilds nothing it derived before.

The directory is ``$DPERM_CACHE_DIR``, else ``$XDG_CACHE_HOME/dperm``, else ``~/.cache/dperm``;
the :data:`KEEP` most recent listings of each kind are kept. Like Python's ``__pycache__``, the
directory must be writable by you alone: its entries are loaded as they are (pickles).
``DPERM_CACHE_DIR=off`` (or an unwritable directory) disables the disk: values are then computed
every time, with the same results. Writes are atomic (a temporary file renamed into place), so
concurrent processes (pytest-xdist workers) never read half a file.

What is cached is a convenience, never a source of truth: the tests build every entry afresh
and compare it with the cached one.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable

__all__ = ["KEEP", "directory", "fingerprint", "cached", "derivation", "simplify", "solve", "subs"]

_VERSION = 1  # of the entries' layout


def directory() -> Path | None:
    """The cache directory (created on demand), or None when disabled."""
    chosen = os.environ.get("DPERM_CACHE_DIR")
    if chosen is not None and chosen.strip().lower() in ("", "off", "0", "none"):
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dperm"


@functools.lru_cache(maxsize=None)
def _versions() -> str:
    try:
        from importlib.metadata import version

        sympy_version = version("sympy")
    except Exception:  # pragma: no cover - sympy always present; metadata may not be
        import sympy

        sympy_version = sympy.__version__
    return f"python {sys.version_info[:3]} sympy {sympy_version} layout {_VERSION}"


def _package_root(package: str) -> Path:
    """The directory of a top-level package, found without importing it."""
    import importlib.util

    found = importlib.util.find_spec(package)
    if found is None or not found.submodule_search_locations:
        raise ValueError(f"package ({package!r}) must be an importable package")
    return Path(next(iter(found.submodule_search_locations)))


@functools.lru_cache(maxsize=None)
def fingerprint(packages: tuple[str, ...]) -> str:
    """A hash of every ``.py`` file under the packages (path and contents) and of the versions."""
    h = hashlib.sha256(_versions().encode())
    for package in packages:
        root = _package_root(package)
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root.parent)).encode())
            h.update(b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()[:32]


def _read(path: Path, loader: Callable[[bytes], Any]):
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return loader(data)
    except Exception:  # a foreign or damaged file: ignore it, it is rebuilt
        return None


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:  # read-only home, full disk: the cache is only a convenience
        pass


def cached(name: str, build: Callable[[], Any], *, packages: Iterable[str]) -> Any:
    """``build()`` (a JSON value), stored under ``name`` for the current sources of ``packages``."""
    key = fingerprint(tuple(packages))
    where = directory()
    path = None if where is None else where / f"{name}-{key}.json"
    if path is not None:
        hit = _read(path, json.loads)
        if hit is not None:
            return hit
    value = build()
    if path is not None:
        _write(path, json.dumps(value).encode())  # key order kept: listings show it
        _prune(where, name)
    return value


#: Entries kept per name: older fingerprints (earlier states of the sources, other checkouts).
KEEP = 8


def _prune(where: Path, name: str) -> None:
    try:
        old = sorted(where.glob(f"{name}-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP:]
        for p in old:
            p.unlink()
    except OSError:  # another process pruned first
        pass


def _implemented(value) -> bool:
    """Whether ``value`` holds an implemented function (``srepr`` shows its name, not its code)."""
    import sympy as sp
    from sympy.core.function import AppliedUndef

    if not isinstance(value, sp.Basic):
        return False
    return any(hasattr(f.func, "_imp_") for f in value.atoms(AppliedUndef))


def derivation(function: Callable) -> Callable:
    """Decorate a pure function of sympy expressions (and plain values) with a disk memo.

    The key is the function's qualified name and source, the ``srepr`` of every argument and the
    versions; the value is pickled. An argument holding an implemented function (whose ``srepr`` is
    its name only) bypasses the cache, and a result that cannot be pickled is simply not stored.
    """
    source = inspect.getsource(function)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        import sympy as sp

        where = directory()
        if where is None or any(_implemented(a) for a in (*args, *kwargs.values())):
            return function(*args, **kwargs)
        text = repr((function.__module__, function.__qualname__, source, _versions(),
                     [sp.srepr(a) for a in args], sorted((k, sp.srepr(v)) for k, v in kwargs.items())))
        path = where / "derivations" / f"{hashlib.sha256(text.encode()).hexdigest()[:40]}.pickle"
        hit = _read(path, pickle.loads)
        if hit is not None:
            return hit
        value = function(*args, **kwargs)
        try:
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            return value
        _write(path, data)
        return value

    return wrapper


# Cached forms of the sympy operations that dominate importing the papers (each is a pure function
# of its arguments). The records' modules call these instead of sympy's at import time.
@derivation
def simplify(expr: Any, **options: Any) -> Any:
    """``sympy.simplify``, cached."""
    import sympy

    return sympy.simplify(expr, **options)


@derivation
def solve(*args: Any, **options: Any) -> Any:
    """``sympy.solve``, cached."""
    import sympy

    return sympy.solve(*args, **options)


@derivation
def subs(expr: Any, mapping: Any, **options: Any) -> Any:
    """``expr.subs(mapping)``, cached (substituting into the RDP bounds' sums and minima is slow)."""
    return expr.subs(mapping, **options)
