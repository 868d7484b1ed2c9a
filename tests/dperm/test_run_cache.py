"""What dperm run --list and ALGORITHM --help read from spec.cache is what the algorithms give now
(kept apart from test_run.py, which exercises running)."""

from __future__ import annotations

from dperm import run
from reference.algorithms import algorithms
from spec import index


def test_the_algorithm_ids_of_the_index_are_the_reference_algorithms():
    assert index.algorithm_ids() == sorted(algorithms())


def test_the_cached_run_table_is_a_fresh_build():
    stored = run._table()
    assert stored == {"listing": run._listing_data(), "parameters": run._parameter_table()}
    assert set(stored["parameters"]) == set(algorithms())
