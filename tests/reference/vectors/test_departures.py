"""reference.vectors.departures: one source (the spec flags with a slug), one function, every vector's
departures from the printed papers."""

from __future__ import annotations

import json

import pytest

import spec
from reference.vectors import generate as gen
from reference.vectors.departures import WHEN, departure, departure_flags, departures
from spec.record import Flag, FlagKind

VECTORS = {p.stem: json.loads(p.read_text()) for p in gen.vector_files()}


def test_the_table_is_the_slugged_spec_flags_and_every_one_has_a_rule():
    slugged = {(r.id, f.slug) for r in spec.records() for f in r.flags if f.slug}
    table = departures()
    assert {(rid, d.flag.slug) for d in table.values() for rid in d.records} == slugged
    assert set(WHEN) == set(table)  # a new slugged flag must be given a rule
    for token, d in table.items():
        kind, record, slug = token.split(":")
        assert kind == {FlagKind.ERRATUM: "erratum", FlagKind.RECONSTRUCTED: "reconstructed"}[d.flag.kind]
        assert record == d.record and slug == d.flag.slug and record in d.records


def test_a_flag_shared_by_two_records_is_one_departure_named_after_the_box():
    d = departure("erratum:wang20.alg_4:noise-precision")
    assert set(d.records) == {"wang20.alg_4", "wang20.lemma_3"}
    assert departure_flags(["wang20.lemma_3"], {}) == ["erratum:wang20.alg_4:noise-precision"]
    with pytest.raises(KeyError, match="not a departure token"):
        departure("erratum:wang20.lemma_3:noise-precision")


def test_the_schema_lists_exactly_the_departure_tokens():
    schema = json.loads(gen.SCHEMA_PATH.read_text())
    plain, tokens = schema["properties"]["flags"]["items"]["anyOf"]
    assert tokens["enum"] == list(departures())
    assert not set(plain["enum"]) & set(tokens["enum"])


@pytest.mark.parametrize("options, expected", [
    ({"calibration": "printed"}, []), ({}, []),
    ({"calibration": "rigorous"}, ["erratum:bst14.thm_II_1:proof-does-not-close"]),
    ({"calibration": "accountant"}, ["erratum:bst14.thm_II_1:proof-does-not-close"]),
])
def test_options_decide_a_departure(options, expected):
    assert departure_flags(["bst14.alg_1", "bst14.thm_II_1", "bst14.thm_II_4"], options) == expected


def test_defaults_stand_for_the_papers_formulas():
    ids = ["wang20.alg_2", "wang20.thm_3"]
    assert "erratum:wang20.alg_2:trim-default" in departure_flags(ids, {"trim": None})
    assert "erratum:wang20.alg_2:trim-default" not in departure_flags(ids, {"trim": 2})
    assert departure_flags(["zhang17.alg_1", "zhang17.thm_1"], {"delta": 1e-3, "calibration": "analytic"}) == [
        "erratum:zhang17.thm_1:gaussian-large-epsilon"]
    assert departure_flags(["zhang17.alg_1", "zhang17.thm_1"], {"delta": 0.0, "calibration": "analytic"}) == []


@pytest.mark.parametrize("algorithm", ["wang17 Alg.3", "wang20 Alg.2", "wang20 Alg.3", "wang19 Alg.1", "zhang17 Alg.2"])
def test_the_issue_s_boxes_carry_errata(algorithm):
    chosen = [v for v in VECTORS.values() if v["algorithm"] == algorithm]
    assert chosen and all(any(f.startswith("erratum:") for f in v["flags"]) for v in chosen)


@pytest.mark.parametrize("vid", sorted(VECTORS))
def test_every_vector_lists_the_departures_of_its_spec_and_parameters(vid):
    v = VECTORS[vid]
    carried = [f for f in v["flags"] if ":" in f]
    assert carried == departure_flags(v["spec"], v["parameters"])
    assert v["flags"][len(v["flags"]) - len(carried):] == carried  # after the plain flags


def test_a_slug_is_only_for_a_departure():
    with pytest.raises(ValueError, match="slug"):
        Flag(FlagKind.CAVEAT, "s", "r", slug="x")
    with pytest.raises(ValueError, match="slug"):
        Flag(FlagKind.ERRATUM, "s", "r", slug="Not_kebab")


def test_the_module_examples_run():
    import doctest

    from reference.vectors import departures as module

    result = doctest.testmod(module)
    assert result.attempted >= 4 and result.failed == 0
