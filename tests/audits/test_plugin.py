"""Tests of the pytest plugin (audits.plugin), run in throw-away pytest sessions through
``pytester``: seeds, alphas and the budget split, the console summary, spec marks, the report a
session writes, and parallel runs (pytest-xdist) giving a byte-identical report. The report's
own logic is tested in test_report.py, the plots' in test_plots.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from audits import budget, execution, plugin, stats
from spec.errors import ParameterError

pytest_plugins = ["pytester"]
#: Alpha of one audit collected outside audits/suite (the "other" share: 0.001 over 64 slots).
OTHER_SLOT_ALPHA = budget.share_named("other").alpha_per_slot


SUITE = '''
import math

import numpy as np
import pytest
from audits import audit_privacy, audit_rate, replace_one

PAIR = replace_one(np.zeros(3), 0, 1.0)


def laplace(scale):
    def mechanism(data, runs, rng):
        return data.sum() + scale * rng.laplace(size=runs)
    return mechanism


@pytest.mark.audit
@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_laplace_holds(audit, scale):
    # runs to flag the Laplace with its scale x0.8 at its event {X <= 0} (P = 1/2 against
    # e^-1.25 / 2), at this test's alpha and power: the fixture's design in milliseconds (a
    # runs_for_laplace design simulates the selection, half a minute in every session started)
    runs = audit.runs_for_point([0.5], [0.5 * math.exp(-1 / 0.8)], epsilon=1.0)
    # low_bits=False: the real-valued idealisation (the float outputs' low bits leak)
    result = audit.record(audit_privacy(laplace(scale), PAIR, epsilon=1.0, runs=runs,
                                        alpha=audit.alpha, seed=audit.seed, low_bits=False))
    assert not result.violated


@pytest.mark.audit
def test_rate(audit):
    def measure(params, runs, rng):
        return np.exp(0.1 * rng.standard_normal(runs)) / params["n"]
    audit.record(audit_rate(measure, grid={"n": [10, 100, 1000]}, base={"n": 10}, runs=50,
                            expected={"n": -1}, alpha=audit.alpha, seed=audit.seed, bootstrap=200))


@pytest.mark.planted
@pytest.mark.spec("laplace.mechanism")
def test_planted(audit):
    result = audit.record(audit_privacy(laplace(0.25), PAIR, epsilon=1.0, runs=2000,
                                        alpha=audit.alpha, seed=audit.seed))
    assert result.violated


def test_context(audit):
    with open("context.txt", "a") as fh:
        fh.write(f"{audit.nodeid} {audit.seed} {audit.alpha!r} {audit.tier} {audit.factor} "
                 f"{audit.runs_for_gaussian(sigma=3.73)}\\n")
'''


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def run(pytester, *args):
    return pytester.runpytest("-p", "audits.plugin", "-p", "no:cacheprovider", *args)


def contexts(pytester):
    rows = (pytester.path / "context.txt").read_text().split("\n")
    (pytester.path / "context.txt").unlink()
    return [r.split() for r in rows if r]


def test_header_summary_and_family_wise_alpha(suite):
    result = run(suite, "--audit-seed=42")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines([
        "dperm audits: tier smoke, seed 42 (reproduce with --audit-tier=smoke --audit-seed=42)",
        "*dperm audits*",
        "family-wise false-alarm rate <= 0.01 (Bonferroni), split by share: other 0.001 = 3 audits "
        "at 1.563e-05 (64 slots); 1 planted-bug tests at their share's slot alpha",
        "correct-mechanism audits: 3 of 3 passed; they count toward the family-wise false-alarm rate <= 0.01",
        "planted twins: 1 of 1 flagged, as they must be (a twin passes by being flagged: its REFUTED/FAILED "
        "results are expected)",
    ])
    assert "refuted," not in result.stdout.str()  # no count of refuted claims that reads like a failure
    result.stdout.fnmatch_lines(["[[]audit[]] test_suite.py::test_planted: (1, 0)-DP claim:*| REFUTED by its values*"])
    (_, seed, alpha, tier, factor, _), = contexts(suite)
    assert float(alpha) == OTHER_SLOT_ALPHA and tier == "smoke" and float(factor) == 0.8
    assert int(seed) == plugin.derive_seed(42, "audits/test_suite.py::test_context")
    assert plugin.seed_key("audits/suite/bst14/test_bst14_privacy.py::test_x") == "audits/test_bst14_privacy.py::test_x"


def test_seeds_are_per_test_and_reproduce_under_selection(suite):
    run(suite, "--audit-seed=7")
    full = contexts(suite)
    run(suite, "--audit-seed=7", "-k", "context")
    selected = contexts(suite)
    assert selected == full  # same seed, alpha and run count
    run(suite, "--audit-seed=8")
    assert contexts(suite)[0][1] != full[0][1]
    assert plugin.derive_seed(7, "a::b") != plugin.derive_seed(7, "a::c")


OTHER = '''
import pytest

@pytest.mark.audit
@pytest.mark.parametrize("k", range(5))
def test_more(audit, k):
    pass

def test_context(audit):
    with open("context.txt", "a") as fh:
        fh.write(f"{audit.nodeid} {audit.seed} {audit.alpha!r} {audit.tier} {audit.factor} "
                 f"{audit.runs_for_gaussian(sigma=3.73)}\\n")
'''


def test_alpha_and_run_counts_do_not_depend_on_the_selection(suite):
    """A node id collects one test and a file only its own: the alpha (hence the run counts and
    the verdicts) is that of the full run, one of its share's slots. (With alpha = 0.01 / K
    it would be 0.01 / 3 in the full run and 0.01 alone.)"""
    suite.makepyfile(test_other=OTHER)
    run(suite, "--audit-seed=7").assert_outcomes(passed=11)
    full = sorted(contexts(suite))
    assert [row[0] for row in full] == ["test_other.py::test_context", "test_suite.py::test_context"]
    run(suite, "--audit-seed=7", "test_suite.py::test_context").assert_outcomes(passed=1)
    alone = contexts(suite)
    run(suite, "--audit-seed=7", "test_other.py").assert_outcomes(passed=6)
    one_file = contexts(suite)
    assert alone == [full[1]] and one_file == [full[0]]
    assert {float(row[2]) for row in full} == {OTHER_SLOT_ALPHA}
    assert int(full[0][5]) == stats.runs_for_gaussian(sigma=3.73, factor=0.8, alpha=0.001 / 64,
                                                      power=plugin.POWER)


def test_more_audits_than_slots_fall_back_to_bonferroni_over_the_share(pytester):
    pytester.makepyfile(test_many='''
import pytest

@pytest.mark.audit
@pytest.mark.parametrize("k", range(80))
def test_audit(audit, k):
    assert audit.alpha == 0.001 / 80
''')
    result = run(pytester)
    result.assert_outcomes(passed=80)
    result.stdout.fnmatch_lines([
        "*other 0.001 = 80 audits at 1.25e-05 (64 slots)*",
        "share other: more audits (80) than slots (64): alpha depends on the selection*",
    ])


def test_a_paper_share_is_independent_of_the_others(pytester):
    """Audits under audits/suite/<paper>/ get that paper's slot alpha whatever else is collected."""
    body = '''
import pytest

@pytest.mark.audit
@pytest.mark.parametrize("k", range(3))
def test_audit(audit, k):
    with open("alphas.txt", "a") as fh:
        fh.write(f"{audit.nodeid} {audit.alpha!r}\\n")
'''
    (pytester.path / "audits" / "suite" / "zhang17").mkdir(parents=True)
    (pytester.path / "audits" / "suite" / "bst14").mkdir(parents=True)
    (pytester.path / "audits" / "suite" / "zhang17" / "test_zhang17_x.py").write_text(body)
    (pytester.path / "audits" / "suite" / "bst14" / "test_bst14_x.py").write_text(body)
    run(pytester).assert_outcomes(passed=6)
    rows = dict(line.split() for line in (pytester.path / "alphas.txt").read_text().splitlines())
    assert {float(v) for k, v in rows.items() if "zhang17" in k} == {0.001 / 12}
    assert {float(v) for k, v in rows.items() if "bst14" in k} == {0.01 / 64}
    (pytester.path / "audits" / "suite" / "nopaper").mkdir(parents=True)
    (pytester.path / "audits" / "suite" / "nopaper" / "test_nopaper.py").write_text(body)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*audits/suite/nopaper has no budget share*"])


def test_repository_suite_fits_in_the_budget_slots():
    """The repository's own audits (all test paths, as a bare ``pytest`` collects them) number at
    most their share's slots, share by share, so every selection runs at the full run's alpha."""
    root = Path(__file__).resolve().parents[2]
    # --assert=plain: collecting needs no assertion rewriting, which is most of the time of a
    # collection when no bytecode is cached (CI sets PYTHONDONTWRITEBYTECODE): 36 s -> 16 s
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "audit",
                          "-p", "no:cacheprovider", "--assert=plain"], cwd=root, capture_output=True,
                         text=True, check=True).stdout
    audits = [line for line in out.splitlines() if "::" in line]
    assert any(line.startswith("audits/suite/primitives/test_primitives.py::") for line in audits)
    counts = {}
    for line in audits:
        share = budget.share_of(line.partition("::")[0])
        counts[share.name] = counts.get(share.name, 0) + 1
    assert "other" not in counts, "every repository audit lives under audits/suite/<share>/"
    for name, k in counts.items():
        assert k <= budget.share_named(name).slots, f"share {name}: {k} audits > slots: raise its slots"


def test_tiers_and_random_seed(suite):
    run(suite, "--audit-tier=deep", "--audit-seed=random")
    (_, seed, _, tier, factor, _), = contexts(suite)
    assert tier == "deep" and float(factor) == 0.95
    result = run(suite, "--audit-seed=-3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--audit-seed (-3) must be >= 0*"])
    result = run(suite, "--audit-seed=abc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result = run(suite, "--audit-tier=huge")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_report_is_written_and_reproducible(suite, monkeypatch):
    monkeypatch.setattr("audits.report.matplotlib_available", lambda: False)
    out1, out2 = suite.path / "r1", suite.path / "r2"
    run(suite, "--audit-seed=5", f"--audit-report={out1}").assert_outcomes(passed=5)
    run(suite, "--audit-seed=5", f"--audit-report={out2}").assert_outcomes(passed=5)
    one = json.loads((out1 / "report.json").read_text())
    two = json.loads((out2 / "report.json").read_text())
    assert set(json.loads((out1 / "timings.json").read_text())) == {e["nodeid"] for e in one["entries"]}
    assert (out1 / "report.json").read_bytes() == (out2 / "report.json").read_bytes()
    assert (out1 / "report.md").read_bytes() == (out2 / "report.md").read_bytes()
    assert "timings" not in one
    assert one["seed"] == 5 and one["audits"] == 3 and one["planted"] == 1
    assert one["family_alpha"] == 0.01
    (row,) = one["budget_split"]
    assert row["share"] == "other" and row["audits"] == 3 and row["per_audit_alpha"] == OTHER_SLOT_ALPHA
    kinds = {e["nodeid"]: [r["result_type"] for r in e["results"]]
             for e in one["entries"]}
    assert kinds["test_suite.py::test_rate"] == ["rate"]
    assert kinds["test_suite.py::test_planted"] == ["privacy"]
    assert all(e["outcome"] == "passed" for e in one["entries"])
    assert one["plots"] == [] and "plots skipped" in one["plots_note"]
    assert one["verdicts"]["correct"]["passed"] == 3 and one["verdicts"]["planted"]["flagged"] == 1
    assert [e["spec"] for e in one["entries"] if e["nodeid"].endswith("test_planted")] == [["laplace.mechanism"]]
    md = (out1 / "report.md").read_text()
    assert "pytest audits --audit-tier=smoke --audit-seed=5" in md
    assert "at most **0.01**" in md and "plots skipped" in md
    assert "| other | 1/10 | 0.001 | 64 | 3 | 1 | 1.563e-05 |" in md  # the budget split
    assert "### laplace.mechanism" in md and "REFUTED (values and low bits) (flagged, expected)" in md
    other = run(suite, "--audit-seed=6", f"--audit-report={out2}")
    other.assert_outcomes(passed=5)
    three = json.loads((out2 / "report.json").read_text())
    assert three != one


def test_failed_audit_is_reported_as_failed(pytester):
    pytester.makepyfile(test_bad='''
import numpy as np
import pytest
from audits import audit_privacy, replace_one

@pytest.mark.audit
def test_overclaimed(audit):
    mech = lambda data, runs, rng: data.sum() + 0.2 * rng.laplace(size=runs)
    result = audit.record(audit_privacy(mech, replace_one(np.zeros(3), 0, 1.0), epsilon=1.0,
                                        runs=1000, alpha=audit.alpha, seed=audit.seed))
    assert not result.violated
''')
    out = pytester.path / "rep"
    result = run(pytester, f"--audit-report={out}")
    result.assert_outcomes(failed=1)
    data = json.loads((out / "report.json").read_text())
    assert data["entries"][0]["outcome"] == "failed"
    assert data["budget_split"][0]["per_audit_alpha"] == OTHER_SLOT_ALPHA


def test_fixture_run_counts_use_the_tier_and_alpha(pytester):
    pytester.makepyfile(test_runs='''
import pytest
from audits import stats

@pytest.mark.audit
def test_one(audit, monkeypatch):
    expected = stats.runs_for_gaussian(sigma=3.73, factor=audit.factor, alpha=audit.alpha, power=0.9)
    assert audit.runs_for_gaussian(sigma=3.73) == expected
    assert audit.runs_for("gaussian", sigma=3.73) == expected
    with pytest.raises(ValueError):
        audit.runs_for("exponential")
    # runs_for_laplace passes the tier's factor, the alpha and the power on, and applies the
    # minimum (a recording stand-in: the design itself is tested in test_stats.py and takes ~40 s)
    calls = []
    monkeypatch.setattr(stats, "runs_for_laplace", lambda **kw: calls.append(kw) or 7)
    assert audit.runs_for_laplace(scale=1.0, epsilon=1.0, minimum=10**6) == 10**6
    assert audit.runs_for_laplace(scale=1.0, epsilon=1.0, minimum=1) == 7
    assert calls == 2 * [dict(scale=1.0, epsilon=1.0, factor=0.9, alpha=audit.alpha, power=0.9)]
    assert audit.runs_for_point([0.5], [0.1], epsilon=1.0) == stats.runs_for_point(
        [0.5], [0.1], epsilon=1.0, alpha=audit.alpha, power=0.9)

@pytest.mark.audit
def test_two(audit):
    assert audit.alpha == 0.001 / 64 and audit.factor == 0.9
''')
    run(pytester, "--audit-tier=standard").assert_outcomes(passed=2)


def test_plain_runs_print_no_audit_summary(pytester):
    pytester.makepyfile(test_plain="def test_x():\n    assert True\n")
    result = run(pytester)
    result.assert_outcomes(passed=1)
    assert "family-wise" not in result.stdout.str()
    result.stdout.fnmatch_lines(["dperm audits: tier smoke, seed 14057085*"])


def test_per_audit_alpha_helper():
    assert plugin.FAMILY_ALPHA == budget.FAMILY_ALPHA == 0.01
    # the shares add up to the family-wise budget (exactly, in fractions)
    assert sum(s.fraction for s in budget.SHARES) == 1
    bst14 = budget.share_named("bst14")
    assert budget.per_audit_alpha(bst14, 0) == budget.per_audit_alpha(bst14, 16) == 0.01 / 64
    assert budget.per_audit_alpha(bst14, 20) == 0.0025 / 20  # more audits than slots: share / K
    assert budget.per_audit_alpha(budget.share_named("wang19"), 3) == 0.001 / 12
    assert plugin.TIERS == {"smoke": 0.8, "standard": 0.9, "deep": 0.95}
    assert stats.SELECTION_FRACTION == 0.15


def test_spec_marks_are_checked_and_reach_the_report(pytester):
    pytester.makepyfile(test_marks='''
import pytest

pytestmark = pytest.mark.spec("gaussian.analytic")

@pytest.mark.audit
@pytest.mark.spec("bst14.alg_1", "bst14.thm_II_1")
def test_a(audit):
    pass
''')
    out = pytester.path / "rep"
    run(pytester, f"--audit-report={out}").assert_outcomes(passed=1)
    (entry,) = json.loads((out / "report.json").read_text())["entries"]
    assert entry["spec"] == ["bst14.alg_1", "bst14.thm_II_1", "gaussian.analytic"]  # closest marks first
    pytester.makepyfile(test_marks='''
import pytest

@pytest.mark.audit
@pytest.mark.spec("bst14.alg_9")
def test_a(audit):
    pass
''')
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_marks.py::test_a: @pytest.mark.spec('bst14.alg_9'): no spec record*"])


def test_repository_audits_carry_spec_marks():
    """Every audit and twin of the repository's suite names the records it audits."""
    root = Path(__file__).resolve().parents[2]
    for path in sorted((root / "audits" / "suite").rglob("test_*.py")):
        text = path.read_text()
        marked = text.count("@pytest.mark.audit") + text.count("@pytest.mark.planted")
        assert text.count("@pytest.mark.spec(") >= marked or "pytestmark = pytest.mark.spec(" in text, path.name


def test_parallel_run_writes_the_same_report_as_a_serial_run(suite):
    """pytest-xdist: -n 2 gives the same outcomes, summary and byte-identical report.json and
    report.md as a serial run (the entries are sorted by file and line, results travel on the
    test reports, collection counts through workeroutput)."""
    pytest.importorskip("xdist")
    serial, parallel = suite.path / "serial", suite.path / "parallel"
    args = ["-p", "audits.plugin", "-p", "no:cacheprovider"]
    one = suite.runpytest_subprocess(*args, "--audit-seed=5", f"--audit-report={serial}", "-p", "no:xdist")
    two = suite.runpytest_subprocess(*args, "--audit-seed=5", f"--audit-report={parallel}", "-n", "2")
    one.assert_outcomes(passed=5)
    two.assert_outcomes(passed=5)
    for name in ("report.json", "report.md"):
        assert (serial / name).read_bytes() == (parallel / name).read_bytes(), name
    summary = [line for line in two.outlines if line.startswith(("correct-mechanism", "planted twins", "family-wise"))]
    assert summary and summary == [line for line in one.outlines
                                   if line.startswith(("correct-mechanism", "planted twins", "family-wise"))]
    assert any(line.startswith("[audit] test_suite.py::test_planted:") for line in two.outlines)


SHARED = '''
import pytest

@pytest.mark.parametrize("k", [0, 1])
def test_one(audit, k):
    with open("context.txt", "a") as fh:
        fh.write(f"{audit.nodeid} {audit.seed} {audit.shared_seed('loop')} {audit.shared_seed('other')}\\n")

def test_two(audit):
    with open("context.txt", "a") as fh:
        fh.write(f"{audit.nodeid} {audit.seed} {audit.shared_seed('loop')} {audit.shared_seed('other')}\\n")
'''


def test_shared_seed_is_one_per_file_and_name(pytester):
    """Tests of one file asking for the same name get the same seed, derived from the global seed and
    ``audits/<file>::<name>`` as a test's own is from its name; another name or global seed differs."""
    pytester.makepyfile(test_shared=SHARED)
    run(pytester, "--audit-seed=42")
    rows = contexts(pytester)
    assert len(rows) == 3
    assert len({r[1] for r in rows}) == 3  # own seeds differ
    assert {r[2] for r in rows} == {str(plugin.derive_seed(42, "audits/test_shared.py::loop"))}
    assert {r[3] for r in rows} == {str(plugin.derive_seed(42, "audits/test_shared.py::other"))}
    assert rows[0][2] != rows[0][3] and rows[0][2] not in {r[1] for r in rows}
    run(pytester, "--audit-seed=43")
    assert contexts(pytester)[0][2] != rows[0][2]


PROGRESS = '''
from audits import execution

def test_long(audit, monkeypatch):
    monkeypatch.setattr(execution, "PROGRESS_AFTER", 0.0)
    execution.current().steps("a long loop")(3, 4)

def test_short(audit):
    execution.current().steps("a short loop")(3, 4)  # before PROGRESS_AFTER: no line
'''


def test_progress_lines_reach_the_terminal_without_an_executor(pytester):
    """Without ``--audit-executor`` (and without xdist) a long audit's progress lines reach the
    terminal while pytest captures the test's output: a one-run fit of 10^8 steps says how far it
    is. In a subprocess, so that pytest's own capture is the one the line must get past."""
    pytester.makepyfile(test_progress=PROGRESS)
    result = pytester.runpytest_subprocess("-p", "audits.plugin", "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["[[]audit[]] a long loop: 3 of 4 steps (75%), * elapsed, ETA *"])
    assert "a short loop" not in result.stdout.str() + result.stderr.str()


def test_shared_seed_needs_the_global_seed():
    context = plugin.AuditContext(nodeid="audits/test_x.py::test_y", tier="smoke", seed=1, alpha=0.01, factor=0.8,
                                  power=0.9, family_alpha=0.01)
    with pytest.raises(ParameterError, match="global seed"):
        context.shared_seed("loop")
