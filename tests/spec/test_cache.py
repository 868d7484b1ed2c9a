"""spec.cache: a cached value is the value a fresh build gives, and a stale one is never read."""

from __future__ import annotations

import sys

import pytest
import sympy as sp
from sympy.utilities.lambdify import implemented_function

from spec import cache


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DPERM_CACHE_DIR", str(tmp_path / "cache"))
    cache.fingerprint.cache_clear()
    yield tmp_path / "cache"
    cache.fingerprint.cache_clear()


def _package(root, text):
    pkg = root / "toy_pkg_for_cache"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text(text)
    return pkg


def test_cached_builds_once_and_rebuilds_when_a_source_changes(fresh_cache, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _package(tmp_path, "x = 1\n")
    calls = []

    def build():
        calls.append(1)
        return {"b": [1, 2], "a": "text"}

    first = cache.cached("toy", build, packages=("toy_pkg_for_cache",))
    again = cache.cached("toy", build, packages=("toy_pkg_for_cache",))
    assert first == again == {"b": [1, 2], "a": "text"} and len(calls) == 1
    assert list(again) == ["b", "a"]  # key order kept (listings show it)
    _package(tmp_path, "x = 2\n")  # an edit: a new fingerprint, a new build
    cache.fingerprint.cache_clear()
    cache.cached("toy", build, packages=("toy_pkg_for_cache",))
    assert len(calls) == 2


def test_a_damaged_entry_is_rebuilt_and_off_disables_the_disk(fresh_cache, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _package(tmp_path, "x = 3\n")
    cache.cached("toy", lambda: [1], packages=("toy_pkg_for_cache",))
    (entry,) = fresh_cache.glob("toy-*.json")
    entry.write_text("{not json")
    assert cache.cached("toy", lambda: [2], packages=("toy_pkg_for_cache",)) == [2]
    monkeypatch.setenv("DPERM_CACHE_DIR", "off")
    assert cache.directory() is None
    assert cache.cached("toy", lambda: [3], packages=("toy_pkg_for_cache",)) == [3]


def test_derivation_returns_what_the_function_returns(fresh_cache):
    x, y = sp.symbols("x y", positive=True)
    calls = []

    @cache.derivation
    def derive(expr, power):
        calls.append(1)
        return sp.simplify(expr**power)

    fresh = derive(sp.sqrt(x) * sp.sqrt(y), 2)
    again = derive(sp.sqrt(x) * sp.sqrt(y), 2)
    assert fresh == again == x * y and len(calls) == 1
    assert derive(sp.sqrt(x), 2) == x and len(calls) == 2  # another input, another key
    # an expression holding an implemented function cannot be pickled: computed, not stored
    phi = implemented_function("Phi_cache_test", lambda t: t)

    @cache.derivation
    def keep(expr):
        calls.append(1)
        return phi(expr)

    assert keep(x) == keep(x) and len(calls) == 4


def test_the_cached_sympy_operations_agree_with_sympy(fresh_cache):
    x = sp.Symbol("x", positive=True)
    assert cache.simplify(sp.sin(x) ** 2 + sp.cos(x) ** 2) == 1
    assert cache.solve(sp.Eq(x**2, 4), x) == [2]
    assert cache.subs(x + 1, {x: 2}) == 3
    assert cache.solve(sp.Eq(x**2, 4), x) == [2]  # from the disk the second time


def test_the_spec_index_is_a_fresh_build(fresh_cache):
    """The index the command line reads is the one the live records give."""
    from spec import index, registry

    index._stored.cache_clear()
    stored = index._stored()
    registry.load_all()
    assert stored == index.build()
    assert "spec.cache" in sys.modules
