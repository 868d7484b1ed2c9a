"""The report's plots (audits/plots.py): every decision tested without matplotlib (one axis
convention, titles, confidence bars, no duplicates); the drawing where the `report` extra is
installed."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from audits import audit_privacy, audit_rate, replace_one
from audits.comparison import compare
from audits.plots import TITLE_WIDTH, comparison_figure, figures, privacy_figure, rate_figures, short_name
from audits.report import Report

PAIR = replace_one(np.zeros(3), 0, 1.0)
NODE = "audits/suite/x/test_x_privacy.py::test_a_rather_long_test_name_that_needs_wrapping[param]"


def gaussian(scale):
    def mechanism(data, runs, rng):
        return data.sum() + scale * rng.standard_normal(runs)

    return mechanism


def profile_result(seed, scale=3.0):
    return audit_privacy(gaussian(scale), PAIR, epsilon=1.0, delta=1e-5, runs=2000, seed=seed,
                         profile=lambda e: 0.0 if e > 5 else 1.0).to_dict()


def rate_result(kind="upper", expected=-1.0, seed=1):
    return audit_rate(lambda p, n, g: np.exp(0.1 * g.standard_normal(n)) / p["n"], grid={"n": [10, 100, 1000]},
                      base={"n": 10}, runs=40, expected={"n": expected}, kind=kind, seed=seed,
                      bootstrap=200).to_dict()


def test_short_name():
    assert short_name("audits/suite/bst14/test_bst14_privacy.py::test_alg3_privacy") == \
        "test_bst14_privacy.py::test_alg3_privacy"


def _swap(d: dict) -> dict:
    """The same audit with the event's direction reversed: the claim bounds P[M(D')] by B(P[M(D)])."""
    out = json.loads(json.dumps(d))
    out["curve"]["direction"] = "neighbour"
    return out


def test_privacy_regions_keep_one_axis_convention():
    d = profile_result(seed=1)
    assert d["curve"]["direction"] in ("dataset", "neighbour")
    d["curve"]["direction"] = "dataset"
    a, b = privacy_figure(NODE, d), privacy_figure(NODE, _swap(d))
    for fig in (a, b):
        assert fig["xlabel"].startswith("P[M(D') in S]") and fig["ylabel"].startswith("P[M(D) in S]")
    c = d["curve"]
    boundary_a, points_a, corners_a = a["series"]
    boundary_b, points_b, corners_b = b["series"]
    # direction 'dataset': y = P[D], the claim y <= B(x), forbidden above the boundary
    assert (points_a["x"], points_a["y"]) == (c["q_hat"], c["p_hat"]) and boundary_a["forbidden"] == "above"
    assert (corners_a["x"], corners_a["y"]) == (c["q_upper"], c["p_lower"])
    assert (boundary_a["x"], boundary_a["y"]) == (c["claim_a"], c["claim_bound"])
    # direction 'neighbour': the roles swap, the axes do not; the claim x <= B(y) forbids the right side
    assert (points_b["x"], points_b["y"]) == (c["p_hat"], c["q_hat"]) and boundary_b["forbidden"] == "right"
    assert (corners_b["x"], corners_b["y"]) == (c["p_lower"], c["q_upper"])
    assert (boundary_b["x"], boundary_b["y"]) == (c["claim_bound"], c["claim_a"])
    assert privacy_figure(NODE, {**d, "curve": None}) is None


def test_titles_are_wrapped_and_name_the_test():
    fig = privacy_figure(NODE, profile_result(seed=2))
    lines = fig["title"].split("\n")
    assert all(len(line) <= TITLE_WIDTH for line in lines) and len(lines) >= 3
    assert fig["title"].replace("\n", " ").startswith("test_x_privacy.py::test_a_rather_long")
    assert "profile scale" in fig["title"].replace("\n", " ")


def test_rate_figure_has_title_label_and_confidence_bars():
    d = rate_result()
    fig = rate_figures(NODE, d)
    assert fig["ylabel"] and "upper-bound rate" in fig["title"]
    (panel,) = fig["panels"]
    measured, fit, exponent = panel["series"]
    pts = [p for p in d["points"] if p["axis"] == "n"]
    assert panel["ticks"] == [10.0, 100.0, 1000.0] == measured["x"]
    assert measured["low"] == [p["ci_low"] for p in pts] and measured["high"] == [p["ci_high"] for p in pts]
    assert all(lo <= m <= hi for lo, m, hi in zip(measured["low"], measured["y"], measured["high"]))
    lo, hi = d["intervals"]["n"]
    assert fit["label"] == f"fitted slope {d['slopes']['n']:+.3g} [{lo:+.3g}, {hi:+.3g}]"
    assert exponent["label"] == "theorem's exponent -1"
    # the lines have the stated slopes on the log-log axes
    slope = np.diff(np.log(fit["y"])) / np.diff(np.log(fit["x"]))
    assert np.allclose(slope, d["slopes"]["n"])
    assert np.allclose(np.diff(np.log(exponent["y"])) / np.diff(np.log(exponent["x"])), -1.0)


def test_no_duplicate_figures():
    """Two results of one test whose figures would be identical are drawn once; an upper- and a
    lower-bound rate on the same measurements differ by their titles."""
    same = rate_result(seed=3)
    entries = [{"nodeid": NODE, "results": [same, same, rate_result(kind="lower", seed=3)]},
               {"nodeid": NODE + "x", "results": [profile_result(seed=4), profile_result(seed=5)]}]
    figs = figures(entries)
    keys = [json.dumps({k: v for k, v in f.items() if k not in ("file", "result", "nodeid", "same_as")},
                       sort_keys=True) for f in figs]
    assert len(set(keys)) == len(keys) == 4
    assert figs[0]["same_as"] == [f"{NODE} result 1"]
    assert [f["result"] for f in figs] == [0, 2, 0, 1]
    assert len({f["file"] for f in figs}) == 4


def test_pngs_are_distinct_and_the_report_links_them(tmp_path):
    pytest.importorskip("matplotlib")
    report = Report(seed=1, tier="smoke", family_alpha=0.01)
    report.add("t.py::a", profile_result(seed=6))
    report.add("t.py::b", rate_result(seed=7))
    report.add("t.py::b", rate_result(kind="lower", seed=7))
    report.add("t.py::b", rate_result(seed=7))  # a duplicate: not drawn twice
    report.write(tmp_path)
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["plots"] == ["t.py_a-0.png", "t.py_b-0.png", "t.py_b-1.png"] and data["plots_note"] is None
    digests = {hashlib.sha256((tmp_path / p).read_bytes()).hexdigest() for p in data["plots"]}
    assert len(digests) == 3 and all((tmp_path / p).stat().st_size > 1000 for p in data["plots"])
    md = (tmp_path / "report.md").read_text()
    assert all(f"]({p})" in md for p in data["plots"])


def test_comparison_figure_places_inf_and_keeps_intervals():
    methods = {"a": lambda v, runs, rng: (1.0 if v == float("inf") else v) + 0.1 * rng.standard_normal(runs),
               "b": lambda v, runs, rng: 2.0 + 0.1 * rng.standard_normal(runs)}
    d = compare(methods, axis="tail_index", values=[2.5, 4.0, float("inf")], runs=5, quantity="risk", seed=3,
                reference_lines={"floor": lambda v: 1.0}).to_dict()
    fig = comparison_figure(NODE, d)
    assert fig["kind"] == "comparison" and fig["ticks"] == [2.5, 4.0, 8.0] and fig["tick_labels"] == ["2.5", "4", "inf"]
    labels = [s["label"] for s in fig["series"]]
    assert labels == ["a", "b", "floor"]
    for s in fig["series"][:2]:
        assert all(lo <= m <= hi for lo, m, hi in zip(s["low"], s["y"], s["high"]))
    assert fig["series"][2]["y"] == [1.0, 1.0, 1.0]
    assert all(len(line) <= TITLE_WIDTH for line in fig["title"].split("\n"))
    entry = {"nodeid": NODE, "results": [d]}
    assert [f["kind"] for f in figures([entry])] == ["comparison"]

