"""The examples in docstrings run: every module of the spec package (paper subpackages included,
found by walking the package) and of the command line package."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dperm
import spec


def _modules(package) -> list[str]:
    return [package.__name__] + [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]


SPEC_MODULES = _modules(spec)
DPERM_MODULES = _modules(dperm)


def test_the_walk_finds_the_paper_subpackages():
    for paper in spec.paper_packages():
        assert f"spec.{paper}" in SPEC_MODULES
    assert "spec.bst14.noisy_sgd_privacy" in SPEC_MODULES


@pytest.mark.parametrize("name", SPEC_MODULES + DPERM_MODULES)
def test_doctests_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # failures are printed (captured)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (see output)"


@pytest.mark.parametrize("name", ["spec", "spec.record", "spec.vocabulary", "spec.gaussian", "dperm.crossref",
                                  "dperm.evaluation", "dperm.arguments"])
def test_key_modules_have_examples(name):
    """The quick-start modules carry examples (a doctest run that attempts nothing proves nothing)."""
    assert doctest.testmod(importlib.import_module(name)).attempted >= 2, name
