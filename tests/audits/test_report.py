"""The audit report (audits/report.py) without pytest sessions and without matplotlib: verdict
counts by role, the deterministic order, the markdown's sections, legend and overview rows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from audits import audit_level, audit_privacy, audit_rate, replace_one
from audits.report import LEGEND, Report
from spec.jsonable import restore


def laplace(scale):
    def mechanism(data, runs, rng):
        return data.sum() + scale * rng.laplace(size=runs)

    return mechanism


PAIR = replace_one(np.zeros(3), 0, 1.0)


@pytest.fixture(scope="module")
def results():
    holds = audit_privacy(laplace(1.0), PAIR, epsilon=1.0, runs=3000, alpha=1e-3, seed=1, low_bits=False)
    refuted = audit_privacy(laplace(0.25), PAIR, epsilon=1.0, runs=2000, alpha=1e-3, seed=2)
    profile = audit_privacy(laplace(1.0), PAIR, epsilon=1.0, runs=3000, alpha=1e-3, seed=3, low_bits=False,
                            profile=lambda e: 0.0 if e >= 1 else 1.0 - np.exp(e - 1.0))
    float_only = audit_privacy(laplace(1.0), PAIR, epsilon=1.0, runs=20_000, alpha=1e-3, seed=5)

    def measure(params, runs, rng):
        return np.exp(0.1 * rng.standard_normal(runs)) / params["n"]

    rate = audit_rate(measure, grid={"n": [10, 100, 1000]}, base={"n": 10}, runs=50, expected={"n": -1},
                      alpha=1e-3, seed=4, bootstrap=200)
    samples = [({"n": n}, np.full(20, 1.0 / n) * (1 + 0.01 * np.arange(20))) for n in (10, 100)]
    level = audit_level(samples, lambda p: 1.0 / p["n"], low=0.5, high=2.0, alpha=1e-3, reference_name="1/n")
    return {"holds": holds, "refuted": refuted, "profile": profile, "rate": rate, "level": level,
            "float_only": float_only}


def make_report(results) -> Report:
    report = Report(seed=7, tier="smoke", family_alpha=0.01, audits=3, planted=2, factor=0.8, power=0.9,
                    split=[{"share": "bst14", "fraction": "1/4", "share_alpha": 0.0025, "slots": 16, "audits": 3,
                            "planted": 2, "per_audit_alpha": 0.0025 / 16, "over_budget_slots": False}])
    # added out of file order, as a parallel run's controller receives them
    report.note("s/test_b.py::test_twin", marker="planted", spec=["laplace.mechanism"], location=("s/test_b.py", 9))
    report.add("s/test_b.py::test_twin", results["refuted"])
    report.outcome("s/test_b.py::test_twin", "passed", 0.5)
    report.note("s/test_a.py::test_rate", marker="audit", spec=["bst14.alg_1", "bst14.thm_II_4"],
                location=("s/test_a.py", 30))
    report.add("s/test_a.py::test_rate", results["rate"])
    report.add("s/test_a.py::test_rate", results["level"])
    report.outcome("s/test_a.py::test_rate", "passed", 1.0)
    report.note("s/test_a.py::test_privacy", marker="audit", spec=["bst14.alg_1"], location=("s/test_a.py", 10))
    report.add("s/test_a.py::test_privacy", results["holds"])
    report.add("s/test_a.py::test_privacy", results["profile"])
    report.outcome("s/test_a.py::test_privacy", "passed", 2.0)
    report.note("s/test_b.py::test_missed", marker="planted", location=("s/test_b.py", 20))
    report.outcome("s/test_b.py::test_missed", "failed", 0.1)
    report.note("s/test_b.py::test_false_alarm", marker="audit", spec=["gaussian.analytic"], location=("s/test_b.py", 30))
    report.add("s/test_b.py::test_false_alarm", results["refuted"])
    report.outcome("s/test_b.py::test_false_alarm", "failed", 0.1)
    return report


def test_verdicts_count_roles_apart(results):
    v = make_report(results).verdicts()
    assert v["correct"] == {"total": 3, "passed": 2, "failed": ["s/test_b.py::test_false_alarm"], "other": []}
    assert v["planted"] == {"total": 2, "flagged": 1, "missed": ["s/test_b.py::test_missed"], "other": []}
    lines = make_report(results).summary_lines()
    assert lines[0].startswith("correct-mechanism audits: 2 of 3 passed, 1 FAILED (a false alarm or a bug: "
                               "s/test_b.py::test_false_alarm)")
    assert lines[1].startswith("planted twins: 1 of 2 flagged, as they must be, 1 MISSED (s/test_b.py::test_missed)")


def test_entries_are_sorted_by_file_and_line_whatever_the_arrival_order(results):
    report = make_report(results)
    assert [e.nodeid for e in report.entries] == [
        "s/test_a.py::test_privacy", "s/test_a.py::test_rate", "s/test_b.py::test_twin",
        "s/test_b.py::test_missed", "s/test_b.py::test_false_alarm"]


def test_write_without_matplotlib(results, tmp_path, monkeypatch):
    monkeypatch.setattr("audits.report.matplotlib_available", lambda: False)
    paths = make_report(results).write(tmp_path)
    data = json.loads(paths["json"].read_text())
    assert "timings" not in data and json.loads(paths["timings"].read_text())["s/test_a.py::test_privacy"] == 2.0
    assert data["plots"] == [] and "plots skipped" in data["plots_note"]
    assert [e["spec"] for e in data["entries"]][:2] == [["bst14.alg_1"], ["bst14.alg_1", "bst14.thm_II_4"]]
    again = make_report(results).write(tmp_path / "again")
    assert again["json"].read_bytes() == paths["json"].read_bytes()
    assert again["md"].read_bytes() == paths["md"].read_bytes()


def test_a_refutation_by_the_low_bits_alone_is_named_so(results):
    """The correctly scaled float Laplace: its overview row says the low bits alone refute it and
    gives both families' bounds."""
    from audits.report import _describe

    d = restore(results["float_only"].to_dict())  # as the report reads results back
    assert d["refuted_by"] == ["low_bits"]
    _, numbers, verdict = _describe(d)
    assert verdict == "REFUTED (low bits only)"
    values, bits = d["families"]["values"]["epsilon_lower"], d["families"]["low_bits"]["epsilon_lower"]
    assert f"values eps_lower {values:.3g}, low bits eps_lower {bits:.3g}" in numbers


def test_markdown_reads_right(results):
    md = make_report(results).markdown()
    sections = [line for line in md.splitlines() if line.startswith("## ")]
    assert sections == ["## Verdicts", "## Overview by algorithm", "## Legend", "## Plots"]
    assert "<br>" not in md
    assert "* correct-mechanism audits: 2 of 3 passed" in md and "* planted twins: 1 of 2 flagged" in md
    # one group per algorithm, with the record's citation and every spec id of its tests
    assert "### bst14.alg_1 (bst14 Algorithm 1)" in md
    assert "spec ids: bst14.alg_1, bst14.thm_II_4" in md
    assert "### gaussian.analytic" in md and "### laplace.mechanism" in md and "### tests without a spec marker" in md
    assert md.index("### bst14.alg_1") < md.index("### gaussian.analytic") < md.index("### tests without")
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    assert len(rows) == 2 + 2 + 1 + 1 + 1  # one row per result; a test without results gets one row
    privacy = rows[0]
    holds = make_report(results).results("s/test_a.py::test_privacy")[0]
    ratio = holds["epsilon_lower"] / holds["epsilon"]
    assert f"eps_lower/eps = {holds['epsilon_lower']:.3g}/1 = {ratio:.2f}" in privacy
    assert "| correct |" in privacy and "| not refuted |" in privacy
    assert "profile scale" in rows[1] and "(margin " in rows[1]
    rate = rows[2]
    d = make_report(results).results("s/test_a.py::test_rate")[0]
    lo, hi = d["intervals"]["n"]
    assert f"n {d['slopes']['n']:+.2f} [{lo:+.2f}, {hi:+.2f}] vs -1" in rate and "| passed |" in rate
    assert "ratio" in rows[3] and "band [0.5, 2]" in rows[3]
    # the float Laplace at a quarter of its scale: refuted by its values and by its low bits
    assert "REFUTED (values and low bits) (false alarm?)" in rows[4] and "| correct |" in rows[4]
    assert "REFUTED (values and low bits) (flagged, expected)" in rows[5] and "| twin |" in rows[5]
    assert "; values eps_lower " in rows[5] and ", low bits eps_lower " in rows[5]
    assert "no result recorded" in rows[6] and rows[6].endswith("| failed |")
    for term, _ in LEGEND:
        assert f"* **{term}**:" in md
    assert "Durations are in `timings.json`." in md


def test_add_rejects_objects_without_to_dict():
    report = Report(seed=1, tier="smoke", family_alpha=0.01)
    with pytest.raises(TypeError, match="must have a to_dict"):
        report.add("x", object())


def test_empty_report(tmp_path):
    paths = Report(seed=1, tier="smoke", family_alpha=0.01).write(tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["entries"] == [] and data["audits"] == 0 and data["plots"] == []
    assert data["plots_note"].startswith("no plots")
