"""audits.comparison: the means and intervals, the record in the report (table, JSON, plot)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as sps

from audits.comparison import ComparisonResult, compare
from audits.report import Report, matplotlib_available
from spec.errors import ParameterError


def _methods():
    return {
        "constant": lambda value, runs, rng: np.full(runs, 1.0 if math.isinf(value) else value),
        "noisy": lambda value, runs, rng: (1.0 if math.isinf(value) else value) + rng.normal(size=runs),
    }


def test_means_and_intervals():
    res = compare(_methods(), axis="tail_index", values=[2.5, math.inf], runs={"constant": 3, "noisy": 50},
                  quantity="risk", alpha=0.1, seed=4, reference_lines={"double": lambda v: 2 * v},
                  missing={"later": "not written yet"})
    assert res.series["constant"]["mean"] == [2.5, 1.0]
    assert res.series["constant"]["ci_low"] == [2.5, 1.0]
    noisy = res.series["noisy"]
    rng = np.random.default_rng(np.random.SeedSequence(4).spawn(4)[2])
    x = 2.5 + rng.normal(size=50)
    half = sps.t.ppf(0.95, 49) * x.std(ddof=1) / math.sqrt(50)
    assert noisy["mean"][0] == pytest.approx(x.mean()) and noisy["ci_high"][0] == pytest.approx(x.mean() + half)
    assert res.reference_lines["double"] == [5.0, math.inf]
    d = res.to_dict()
    assert d["result_type"] == "comparison" and d["values"][1] is None and "values[1]" in d["infinite"]
    assert "later" in d["missing"]
    json.dumps(d)
    assert "| tail_index |" in res.table() and "not written yet" in str(res)
    assert res.with_verdict(True, "why").passed and res.with_verdict(True, "why").notes == ("why",)


def test_a_method_added_at_the_end_changes_no_other_number():
    """The seeds are spawned per (method, value) in order, so a comparison can gain a method (the
    heavy-tail comparison gained wang19 DP-PGD) without moving the numbers already reported."""
    kw = dict(axis="tail_index", values=[2.5, 4.0, math.inf], runs=20, quantity="risk", seed=7)
    before = compare(_methods(), **kw)
    extra = {**_methods(), "later": lambda value, runs, rng: rng.exponential(size=runs)}
    after = compare(extra, **kw)
    assert after.series["constant"] == before.series["constant"] and after.series["noisy"] == before.series["noisy"]
    assert list(after.series) == ["constant", "noisy", "later"]
    # and the new method's draws are its own: the stream of child 2 * 3 + v_i of the spawned seeds
    rng = np.random.default_rng(np.random.SeedSequence(7).spawn(9)[6])
    assert after.series["later"]["mean"][0] == pytest.approx(rng.exponential(size=20).mean())


def test_bad_methods_are_reported():
    with pytest.raises(ParameterError, match="finite"):
        compare({"nan": lambda v, runs, rng: np.full(runs, np.nan)}, axis="x", values=[1.0], runs=3, quantity="q",
                seed=0)
    with pytest.raises(ParameterError, match="values"):
        compare(_methods(), axis="x", values=[], runs=3, quantity="q", seed=0)


def test_report_writes_the_table_and_the_plot(tmp_path):
    res = compare(_methods(), axis="tail_index", values=[2.5, 4.0, math.inf], runs=5, quantity="risk", seed=1)
    report = Report(seed=1, tier="smoke", family_alpha=0.01)
    report.add("audits/x.py::test_c", res.with_verdict(True, "a note"), marker="audit")
    paths = report.write(tmp_path)
    text = paths["md"].read_text()
    assert "## Comparisons" in text and "| tail_index |" in text and "a note" in text
    data = json.loads(paths["json"].read_text())
    assert data["entries"][0]["results"][0]["result_type"] == "comparison"
    if matplotlib_available():
        assert any(p.endswith(".png") for p in data["plots"])
        assert all((tmp_path / p).exists() for p in data["plots"])


def test_result_type():
    assert isinstance(compare(_methods(), axis="x", values=[1.0], runs=2, quantity="q", seed=0), ComparisonResult)


def test_report_takes_a_side_by_side_record_without_a_table(tmp_path):
    """A suite may record its own comparison (result_type "comparison", rows and a summary, as
    zhang17's side by side with bst14 does): the report shows its summary, beside a table."""

    class SideBySide:
        def to_dict(self):
            return {"result_type": "comparison", "rows": [{"n": 100, "risk": 1.0}], "summary": "a vs b: 1.0 vs 2.0",
                    "seed": 0}

    res = compare(_methods(), axis="tail_index", values=[2.5, math.inf], runs=5, quantity="risk", seed=1)
    report = Report(seed=1, tier="smoke", family_alpha=0.01)
    report.add("audits/x.py::test_own", SideBySide(), marker="audit")
    report.add("audits/x.py::test_c", res, marker="audit")
    text = report.write(tmp_path)["md"].read_text()
    assert "a vs b: 1.0 vs 2.0" in text and "| tail_index |" in text

