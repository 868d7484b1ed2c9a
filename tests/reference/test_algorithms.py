"""reference.algorithms: every paper package's ALGORITHMS, found without a hand-kept list."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import reference
from reference import algorithms as A


def test_every_paper_package_with_algorithms_is_found():
    packages = [m.name for m in pkgutil.iter_modules(reference.__path__) if m.ispkg
                and hasattr(importlib.import_module(f"reference.{m.name}"), "ALGORITHMS")]
    assert A.paper_packages() == sorted(packages) and "bst14" in packages
    table = A.algorithms()
    for paper in packages:
        for record_id, function in importlib.import_module(f"reference.{paper}").ALGORITHMS.items():
            assert table[record_id] is function


def test_order_and_lookup():
    ids = list(A.algorithms())
    assert ids[:4] == ["bst14.alg_1", "bst14.alg_2", "bst14.alg_3", "bst14.alg_4"]
    assert A.get("bst14.alg_3").__name__ == "output_perturbation"
    with pytest.raises(KeyError, match="did you mean bst14.alg_1"):
        A.get("bst14.alg1")
    assert A.label("wang19.alg_12") == "wang19 Alg.12"
    with pytest.raises(ValueError, match="must look like paper.alg_N"):
        A.label("bst14.thm_II_1")
