"""docs/vectors/ stays true: every tape label and every departure of a paper's vectors is on its page,
each departure where the page says what the paper prints, and the departures table is current."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reference.vectors import generate as gen

ROOT = Path(__file__).resolve().parents[3]
PAGES = ROOT / "docs" / "vectors"
VECTORS = [json.loads(p.read_text()) for p in gen.vector_files()]


@pytest.mark.parametrize("paper", gen.papers())
def test_every_tape_label_is_on_the_paper_s_page(paper):
    page = (PAGES / f"{paper}.md").read_text()
    labels = {e["label"] for v in VECTORS if v["algorithm"].startswith(paper + " ") for e in v["tape"]["entries"]}
    missing = sorted(label for label in labels if f'"{label}"' not in page)
    assert labels and not missing, missing


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n|\n(?=\d+\. |\* )", text)]


@pytest.mark.parametrize("paper", gen.papers())
def test_every_departure_is_explained_where_it_applies(paper):
    """Each departure a paper's vectors carry appears in a step of its page that says what the paper prints,
    what the vector uses instead, and why."""
    page = (PAGES / f"{paper}.md").read_text()
    tokens = {f for v in VECTORS if v["algorithm"].startswith(paper + " ") for f in v["flags"] if ":" in f}
    for token in tokens:
        where = [p for p in _paragraphs(page) if f"`{token}`" in p]
        assert where, f"{token} is not on docs/vectors/{paper}.md"
        assert any(all(word in p for word in ("prints", "uses", "because")) for p in where), \
            f"{token}: no 'the paper prints X; the vector uses Y, because Z' where it is explained"


def test_the_departures_table_is_current():
    from dperm.docs import VECTORS_PAGE, departures_table, update_block

    assert update_block(ROOT / VECTORS_PAGE, "departures", departures_table(ROOT), check=True), \
        "docs/vectors/README.md's departures table is stale: run `python -m dperm.docs`"
