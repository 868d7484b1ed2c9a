"""Self-guards over every registered spec record, in one place.

* every flag names at least one test, and each named test exists (module-level or in a class);
* every symbol's canonical name is in :mod:`spec.vocabulary` (also enforced when a record is
  built; checked here once more over the registry);
* every record renders (text, LaTeX, dict) and its id starts with a known paper or module.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import spec
from spec.render import to_dict
from spec.vocabulary import VOCABULARY

ROOT = Path(__file__).resolve().parents[1]
RECORDS = list(spec.records())


@functools.lru_cache(maxsize=None)
def _defined_tests(path: Path) -> frozenset[str]:
    """Names of test functions defined in ``path`` (module level and in classes)."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            names.add(node.name)
    return frozenset(names)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.id)
def test_every_flag_names_existing_tests(record):
    for flag in record.flags:
        assert isinstance(flag.checked_by, tuple) and flag.checked_by, (record.id, flag.summary)
        for node in flag.checked_by:
            path, _, name = node.partition("::")
            assert (ROOT / path).is_file(), f"{record.id}: {node} (no such file)"
            assert name in _defined_tests(ROOT / path), f"{record.id}: {node} (no such test)"


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.id)
def test_symbols_use_the_vocabulary(record):
    for s in record.symbols:
        assert s.name in VOCABULARY, (record.id, s.name)
        assert VOCABULARY[s.name].integer == bool(s.symbol.is_integer), (record.id, s.name)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.id)
def test_every_record_renders(record):
    assert record.id in str(record)
    assert r"\begin{description}" in record.to_latex()
    assert to_dict(record)["id"] == record.id


def test_vocabulary_is_sorted_and_meaningful():
    names = list(VOCABULARY)
    assert names == sorted(names)
    for term in VOCABULARY.values():
        assert term.name.isidentifier() and term.name == term.name.lower()
        assert len(term.meaning) > 10


# --------------------------------------------------------------------------- algorithm boxes
_TAG = re.compile(r"#.*\[(?P<paper>[a-z0-9]+) Alg\.(?P<alg>\d+) L(?P<lo>\d+)(?:-(?P<hi>\d+))?[\] ]")
ALGORITHMS = [r for r in RECORDS if re.fullmatch(r"[a-z0-9]+\.alg_\d+", r.id)]


@functools.lru_cache(maxsize=None)
def _reference_tags() -> frozenset[tuple[str, int, int]]:
    """(paper, algorithm, line) for every ``# [paper Alg.N Lk]`` / ``Lj-k`` tag in reference/."""
    tags = set()
    for path in (ROOT / "reference").rglob("*.py"):
        for m in _TAG.finditer(path.read_text()):
            lo = int(m["lo"])
            hi = int(m["hi"] or lo)
            for k in range(lo, hi + 1):
                tags.add((m["paper"], int(m["alg"]), k))
    return frozenset(tags)


def test_there_are_algorithm_records():
    assert {"bst14.alg_1", "bst14.alg_2", "bst14.alg_3", "bst14.alg_4"} <= {r.id for r in ALGORITHMS}


@pytest.mark.parametrize("record", ALGORITHMS, ids=lambda r: r.id)
def test_every_pseudocode_line_is_tagged_in_the_reference(record):
    assert record.pseudocode, f"{record.id}: an algorithm record lists its pseudocode lines"
    paper = record.citation.paper
    if not ((ROOT / "reference" / paper).is_dir() or (ROOT / "reference" / f"{paper}.py").is_file()):
        pytest.skip(f"reference/{paper} is not written yet (a paper's spec can land before its reference)")
    number = int(record.id.rsplit("_", 1)[1])
    labels = [line.label for line in record.pseudocode]
    assert labels == [f"L{k}" for k in range(1, len(labels) + 1)], labels
    missing = [lab for lab in labels
               if (record.citation.paper, number, int(lab[1:])) not in _reference_tags()]
    assert not missing, f"{record.id}: no '# [{record.citation.paper} Alg.{number} Lk]' tag in reference/ for {missing}"


@pytest.mark.parametrize("record", ALGORITHMS, ids=lambda r: r.id)
def test_every_algorithm_record_has_a_reference_function(record):
    """``reference.<paper>.ALGORITHMS`` maps each algorithm record to its function, whose result
    reports the record among its spec ids."""
    import importlib

    paper = record.citation.paper
    if not (ROOT / "reference" / paper).is_dir():
        pytest.skip(f"reference/{paper} is not written yet")
    algorithms = importlib.import_module(f"reference.{paper}").ALGORITHMS
    assert record.id in algorithms and callable(algorithms[record.id])
    assert set(algorithms) <= {r.id for r in ALGORITHMS}
