"""pytest plugin behind ``pytest audits``: tiers, one printed seed, a family-wise error budget.

Options
-------
``--audit-tier=smoke|standard|deep``
    Bug size the run counts are designed to catch at power 0.9: noise multiplied by 0.8
    (smoke, the default), 0.9 (standard) or 0.95 (deep).
``--audit-seed=INT|random``
    Global seed (default :data:`DEFAULT_SEED`, so CI is reproducible; ``random`` draws one).
    Each test's seed is derived from it and the test's node id, and its alpha does not depend
    on which tests were collected (below), so ``-k`` selections, single files and single node
    ids reproduce the numbers of a full run.
``--audit-report=DIR``
    Write ``report.md``, ``report.json`` and ``timings.json`` (and PNG plots if matplotlib is
    installed): :mod:`audits.report`, and ``execution.json``: where each result's runs executed,
    its chunks, its seconds and the seconds spent inside its chunks.
``--audit-executor=processes:N|dask:local:N|dask:SCHEDULER_ADDRESS``
    Run every audit's chunks of runs on that executor (:mod:`audits.execution`): N worker
    processes, a Dask ``LocalCluster`` of N workers started for the session, or a running Dask
    scheduler (whose workers have dperm installed). Verdicts, numbers and ``report.json`` /
    ``report.md`` are byte for byte those of a run without it (every chunk is seeded by its
    index); the executor, its workers and each audit's chunks go to the console summary and to
    ``execution.json`` (like the durations, they describe the run, not its outcome). Dask needs
    the optional ``distributed`` extra. Under pytest-xdist each pytest worker opens its own
    executor (a shared cluster: ``dask:ADDRESS``). Audits running longer than
    :data:`audits.execution.PROGRESS_AFTER` seconds print progress lines with an ETA (without
    xdist).

Roles
-----
Tests marked ``audit`` audit *correct* mechanisms; tests marked ``planted`` run the same audit on a
planted-bug twin and assert that it is flagged. The console summary and the report count them
apart: "correct-mechanism audits: 28 of 28 passed", "planted twins: 20 of 20 flagged".

Spec ids
--------
Mark a test with the spec records it audits, so that the report's overview groups it under its
algorithm and shows the ids::

    @pytest.mark.audit
    @pytest.mark.spec("bst14.alg_1", "bst14.thm_II_1")
    def test_alg1_transcript_privacy(audit):
        ...

Every id must be a registered record (a typo is a usage error at collection). The overview
groups a test under the first ``<paper>.alg_N`` id among its marks (else its first id); a module
may set ``pytestmark = pytest.mark.spec(...)`` for all its tests, and marks add up. Adopting it
for a new paper's audits is one line per test.

Parallel runs
-------------
``pytest audits -n 2`` (pytest-xdist, optional at run time) gives the same verdicts and a
byte-identical report as a serial run: seeds and alphas depend only on the node id, each test's
results travel to the controller on its test report (attribute ``dperm_audit``), and the report
sorts its entries by file, line and node id. Workers send their collection counts (the budget
split) to the controller through xdist's ``workeroutput``.

False alarms
------------
Tests marked ``audit`` audit *correct* mechanisms: a failure is a false alarm. The family-wise
budget :data:`FAMILY_ALPHA` = 0.01 is split hierarchically (:mod:`audits.budget`): the
primitives, each paper, and audits outside ``audits/suite`` get fixed shares, and each audit gets
one of its share's fixed slots, so a whole run raises a false alarm with probability at most
0.01 (Bonferroni), adding a paper changes no other audit's alpha, and a test's alpha -- hence
its run counts, numbers and verdict -- is the same whether it runs alone, in a ``-k`` selection
or in the full suite. A share with more audits than slots falls back to ``share alpha / K``
(within budget, but selections no longer reproduce the full run), and the summary says so.
Tests marked ``planted`` (bugs that must be flagged) get the alpha of their share's slot: a
flagged bug is flagged at the strict level.

Seeds
-----
A test's seed is derived from the global seed and the test's file *name* and test name
(``audits/<file>::<test>``), not its folder, so reorganising folders changes no number; file
names in the suite are therefore unique. Tests that must see the same draws ask the fixture for
``audit.shared_seed(name)``, derived the same way from ``audits/<file>::<name>`` (bst14's one-run
audits: the reference and its twins are the rows of one loop of 10^8 steps, run once).

The ``audit`` fixture
---------------------
Gives each test its ``tier``, ``seed``, ``alpha``, ``factor`` (the tier's bug size),
``power``, run counts (``runs_for(kind, ...)`` or directly ``runs_for_gaussian``,
``runs_for_laplace``, ``runs_for_point``, ``runs_for_profile``: :mod:`audits.stats` with this
alpha, factor and power filled in, never below ``minimum``, default 100), and
``record(result)`` to add a result to the report and print it as a progress line.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np
import pytest

from audits import budget, execution, stats
from audits.budget import FAMILY_ALPHA
from audits.privacy import MIN_RUNS
from audits.report import Report
from reference.rng import fresh_seed
from spec.errors import ParameterError

__all__ = [
    "FAMILY_ALPHA",
    "DEFAULT_SEED",
    "TIERS",
    "POWER",
    "AuditContext",
    "derive_seed",
    "seed_key",
]

#: Default global seed (documented so that CI runs are reproducible).
DEFAULT_SEED = 14057085
#: Tier -> noise multiplier of the bug the run counts must catch.
TIERS = {"smoke": 0.8, "standard": 0.9, "deep": 0.95}
#: Target power of the run counts.
POWER = 0.9

_STATE = pytest.StashKey["_State"]()


def derive_seed(global_seed: int, nodeid: str) -> int:
    """A test's seed: a 63-bit hash of ``(global_seed, nodeid)`` through ``SeedSequence``."""
    digest = hashlib.sha256(nodeid.encode("utf-8")).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    state = np.random.SeedSequence([int(global_seed), *words]).generate_state(1, dtype=np.uint64)
    return int(state[0] >> np.uint64(1))


def seed_key(nodeid: str) -> str:
    """The part of a node id a seed depends on: ``audits/<file name>::<test>`` (no folders)."""
    path, sep, rest = nodeid.partition("::")
    return f"audits/{PurePosixPath(path).name}{sep}{rest}"


def _share(nodeid: str) -> budget.Share:
    return budget.share_of(nodeid.partition("::")[0])


@dataclass
class _State:
    seed: int
    tier: str
    report_dir: str | None
    counts: dict = field(default_factory=dict)  # share name -> collected audits
    audits: int = 0
    planted: int = 0
    report: Report | None = None
    markers: dict = field(default_factory=dict)  # nodeid -> "audit" | "planted" (collection)
    spec: dict = field(default_factory=dict)  # nodeid -> spec ids of its @pytest.mark.spec marks
    pending: dict = field(default_factory=dict)  # nodeid -> result dicts not yet on a test report
    report_paths: dict | None = None
    worker: bool = False  # an xdist worker: its reports go to the controller
    executor_spec: str | None = None  # --audit-executor
    progress: object = None  # where progress lines go (None: nowhere)
    executions: dict = field(default_factory=dict)  # nodeid -> execution dicts of its results
    _execution: object = None  # the opened executor (audits.execution.Execution), lazily
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def execution(self):
        """The session's executor, opened on first use; None without --audit-executor."""
        if self.executor_spec is None:
            return None
        if self._execution is None:
            self._execution = self._stack.enter_context(
                execution.open_executor(self.executor_spec, progress=self.progress or False))
        return self._execution

    def close(self) -> None:
        self._stack.close()
        self._execution = None

    def alpha(self, nodeid: str) -> float:
        share = _share(nodeid)
        return budget.per_audit_alpha(share, self.counts.get(share.name, 0))

    def split(self) -> list[dict]:
        """The budget split of this run: one row per share that collected audits or twins."""
        rows = []
        for share in budget.SHARES:
            k = self.counts.get(share.name, 0)
            twins = sum(1 for nid, m in self.markers.items() if m == "planted" and _share(nid) is share)
            if k or twins:
                rows.append({"share": share.name, "fraction": str(share.fraction), "share_alpha": share.alpha,
                             "slots": share.slots, "audits": k, "planted": twins,
                             "per_audit_alpha": budget.per_audit_alpha(share, k),
                             "over_budget_slots": k > share.slots})
        return rows

    def collection(self) -> dict:
        """What a worker tells the controller about its collection (all workers collect the same)."""
        return {"counts": self.counts, "markers": self.markers}

    def adopt(self, collection: dict) -> None:
        self.counts = dict(collection["counts"])
        self.markers = dict(collection["markers"])
        self._refresh()

    def _refresh(self) -> None:
        self.audits = sum(self.counts.values())
        self.planted = sum(1 for m in self.markers.values() if m == "planted")
        r = self.report
        r.audits, r.planted, r.split = self.audits, self.planted, self.split()

    @property
    def factor(self) -> float:
        return TIERS[self.tier]


@dataclass
class AuditContext:
    """What an audit test needs: its seed and alpha, run counts for the tier, a recorder."""

    nodeid: str
    tier: str
    seed: int
    alpha: float
    factor: float
    power: float
    family_alpha: float
    _sink: list = field(repr=False, default_factory=list)
    _marker: str | None = field(default=None, repr=False)
    global_seed: int | None = field(default=None, repr=False)

    def shared_seed(self, name: str) -> int:
        """A seed shared by the tests of this test file that ask for the same ``name``: derived
        from the run's global seed and ``audits/<file name>::<name>`` as :attr:`seed` is from the
        test's own name. For audits that should see the same draws, such as a reference and its
        twins run as the rows of one loop (each audit is valid alone; none combines them)."""
        if self.global_seed is None:
            raise ParameterError("shared_seed needs the run's global seed (the audit fixture sets it)")
        return derive_seed(self.global_seed, seed_key(f"{self.nodeid.partition('::')[0]}::{name}"))

    def _fill(self, kw):
        kw.setdefault("alpha", self.alpha)
        kw.setdefault("power", self.power)
        return kw

    def _at_least(self, runs: int, minimum: int) -> int:
        return max(int(runs), int(minimum))

    def runs_for_gaussian(self, *, minimum: int = MIN_RUNS, **kw) -> int:
        """:func:`audits.stats.runs_for_gaussian` at this test's alpha, tier factor and power."""
        kw.setdefault("factor", self.factor)
        return self._at_least(stats.runs_for_gaussian(**self._fill(kw)), minimum)

    def runs_for_laplace(self, *, minimum: int = MIN_RUNS, **kw) -> int:
        """:func:`audits.stats.runs_for_laplace` at this test's alpha, tier factor and power."""
        kw.setdefault("factor", self.factor)
        return self._at_least(stats.runs_for_laplace(**self._fill(kw)), minimum)

    def runs_for_point(self, p, q, *, minimum: int = MIN_RUNS, **kw) -> int:
        """:func:`audits.stats.runs_for_point` at this test's alpha and power."""
        return self._at_least(stats.runs_for_point(p, q, **self._fill(kw)), minimum)

    def runs_for_profile(self, p, q, bound, slope, *, minimum: int = MIN_RUNS, **kw) -> int:
        """:func:`audits.stats.runs_for_profile` at this test's alpha and power."""
        return self._at_least(stats.runs_for_profile(p, q, bound, slope, **self._fill(kw)), minimum)

    def runs_for(self, kind: str, *args, **kw) -> int:
        """Runs per dataset for this tier's bug at this test's alpha: ``kind`` is
        ``"gaussian"``, ``"laplace"``, ``"point"`` or ``"profile"`` (the ``runs_for_*``
        methods)."""
        helpers = {"gaussian": self.runs_for_gaussian, "laplace": self.runs_for_laplace,
                   "point": self.runs_for_point, "profile": self.runs_for_profile}
        if kind not in helpers:
            raise ParameterError(f"kind ({kind!r}) must be one of {', '.join(sorted(helpers))}")
        return helpers[kind](*args, **kw)

    def record(self, result):
        """Add ``result`` (privacy, rate or level; anything with ``to_dict()``) to the report;
        returns it."""
        if not hasattr(result, "to_dict"):
            raise TypeError(f"result ({type(result).__name__}) must have a to_dict() method")
        self._sink.append(result.to_dict())
        return result


def pytest_addoption(parser):
    group = parser.getgroup("dperm-audits", "dperm audits")
    group.addoption("--audit-tier", choices=sorted(TIERS), default="smoke",
                    help="bug size the audit run counts are designed to catch (default smoke)")
    group.addoption("--audit-seed", default=str(DEFAULT_SEED), metavar="INT|random",
                    help=f"global audit seed (default {DEFAULT_SEED}; 'random' draws one)")
    group.addoption("--audit-report", default=None, metavar="DIR",
                    help="write report.md and report.json (and plots) into DIR")
    group.addoption("--audit-executor", default=None, metavar="processes:N|dask:local:N|dask:ADDRESS",
                    help="run the audits' chunks of runs on N processes or a Dask cluster (same results; "
                         "dask needs the 'distributed' extra)")


def _parse_seed(text: str) -> int:
    if text == "random":
        return fresh_seed()
    try:
        seed = int(text)
    except ValueError:
        raise pytest.UsageError(f"--audit-seed ({text!r}) must be a non-negative integer or 'random'") from None
    if seed < 0:
        raise pytest.UsageError(f"--audit-seed ({seed}) must be >= 0")
    return seed


def pytest_configure(config):
    config.addinivalue_line("markers", "audit: a statistical audit of a correct mechanism "
                            "(counts towards the family-wise false-alarm budget)")
    config.addinivalue_line("markers", "planted: asserts that an audit flags a planted bug")
    config.addinivalue_line("markers", "spec(*ids): the spec records a test audits (shown in the audit report)")
    worker = hasattr(config, "workerinput")
    if worker:  # the controller chose the seed (a 'random' one must be the same everywhere)
        seed = int(config.workerinput.get("dperm_audit_seed", _parse_seed(config.getoption("--audit-seed"))))
    else:
        seed = _parse_seed(config.getoption("--audit-seed"))
    state = _State(seed=seed, tier=config.getoption("--audit-tier"),
                   report_dir=config.getoption("--audit-report"), worker=worker,
                   executor_spec=_executor_spec(config.getoption("--audit-executor")))
    if not worker:  # xdist workers have no terminal
        state.progress = functools.partial(_progress_line, config)
    state.report = Report(seed=state.seed, tier=state.tier, family_alpha=FAMILY_ALPHA,
                          factor=state.factor, power=POWER)
    config.stash[_STATE] = state
    if not worker:
        config.pluginmanager.register(_Collector(config, state), f"dperm-audit-collector-{id(config)}")


def _executor_spec(text: str | None) -> str | None:
    """``--audit-executor`` checked when pytest starts (a usage error names the rule)."""
    if text is None:
        return None
    try:
        kind, _ = execution.parse_spec(text)
        if kind.startswith("dask") and not execution.distributed_available():
            raise ParameterError(f"--audit-executor ({text}) needs Dask's distributed engine: {execution.INSTALL_HINT}")
    except ParameterError as err:
        raise pytest.UsageError(str(err)) from None
    return None if kind == "serial" else text


def _progress_line(config, line: str) -> None:
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if tr is None:
        return
    # during a test pytest captures the output: lift it for the line, as live logging does
    capture = config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        tr.write_line(line)


def pytest_unconfigure(config):
    state = config.stash.get(_STATE, None)
    if state is not None:
        state.close()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist controller: hand the run's seed to each worker."""
    state = node.config.stash.get(_STATE, None)
    if state is not None:
        node.workerinput["dperm_audit_seed"] = state.seed


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """xdist controller: adopt a worker's collection counts (every worker collects the same)."""
    state = node.config.stash.get(_STATE, None)
    data = getattr(node, "workeroutput", {}).get("dperm_audits")
    if state is not None and data and not state.counts and not state.markers:
        state.adopt(json.loads(data))


def pytest_report_header(config):
    state = config.stash.get(_STATE, None)
    if state is None:  # pragma: no cover
        return None
    executor = f"; executor {state.executor_spec}" if state.executor_spec else ""
    return (f"dperm audits: tier {state.tier}, seed {state.seed} "
            f"(reproduce with --audit-tier={state.tier} --audit-seed={state.seed}){executor}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    # Runs before -k/-m deselection. The counts only matter when a share exceeds its slots.
    state = config.stash[_STATE]
    for it in items:
        if it.get_closest_marker("audit") is not None or it.get_closest_marker("planted") is not None:
            try:
                _share(it.nodeid)
            except KeyError as err:
                raise pytest.UsageError(str(err.args[0])) from None
        if it.get_closest_marker("audit") is not None:
            state.markers[it.nodeid] = "audit"
            name = _share(it.nodeid).name
            state.counts[name] = state.counts.get(name, 0) + 1
        elif it.get_closest_marker("planted") is not None:
            state.markers[it.nodeid] = "planted"
        ids = _spec_ids(it)
        if ids:
            state.spec[it.nodeid] = ids
    state._refresh()


def _spec_ids(item) -> list[str]:
    """The ids of ``item``'s ``@pytest.mark.spec`` marks (closest first), each a registered record."""
    import spec

    ids: list[str] = []
    for mark in item.iter_markers("spec"):
        for record_id in mark.args:
            try:
                spec.get(record_id)
            except (KeyError, TypeError) as err:
                raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.spec({record_id!r}): "
                                        f"{err.args[0] if err.args else err}") from None
            if record_id not in ids:
                ids.append(record_id)
    return ids


@pytest.fixture
def audit(request):
    """Per-test audit context: ``tier``, ``seed``, ``alpha``, ``factor``, ``runs_for_*``,
    ``record(result)``. With ``--audit-executor`` the test's audits run on that executor."""
    state = request.config.stash[_STATE]
    nodeid = request.node.nodeid
    context = AuditContext(nodeid=nodeid, tier=state.tier, seed=derive_seed(state.seed, seed_key(nodeid)),
                           alpha=state.alpha(nodeid), factor=state.factor, power=POWER,
                           family_alpha=FAMILY_ALPHA, _sink=state.pending.setdefault(nodeid, []),
                           _marker=state.markers.get(nodeid), global_seed=state.seed)
    ex = state.execution()
    if ex is not None:
        execution.send_by_value(request.module)  # the workers cannot import a test file
    # without --audit-executor: this process, with long audits' progress lines on the terminal
    with execution.using(ex, progress=state.progress):
        yield context


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    state = item.config.stash.get(_STATE, None)
    if state is not None:
        _attach(item, rep, state)
    return rep


def _attach(item, rep, state) -> None:
    """Put the test's role, spec ids and recorded results on its report (attribute ``dperm_audit``,
    a JSON string, so that xdist carries it to the controller unchanged)."""
    marker = state.markers.get(item.nodeid)
    pending = state.pending.get(item.nodeid) or []
    if marker is None and not pending:
        return
    if not (rep.when == "call" or (rep.when == "setup" and rep.outcome != "passed") or pending):
        return
    results = list(pending)
    pending.clear()
    rep.dperm_audit = json.dumps({"marker": marker, "spec": state.spec.get(item.nodeid, []),
                                  "results": results, "outcome": rep.when == "call" or rep.outcome != "passed"},
                                 allow_nan=False)


class _Collector:
    """Serial runs and the xdist controller: adds each test's results to the report and prints the
    progress lines (registered per session, so nested pytester sessions keep their own)."""

    def __init__(self, config, state):
        self.config = config
        self.state = state

    def pytest_runtest_logreport(self, report):
        data = getattr(report, "dperm_audit", None)
        if data is None:
            return
        d = json.loads(data)
        r = self.state.report
        r.note(report.nodeid, marker=d["marker"], spec=d["spec"],
               location=(report.location[0], report.location[1]))
        for result in d["results"]:
            # Where the runs executed describes the run, not its outcome: execution.json.
            where = result.pop("execution", None)
            if where is not None:
                self.state.executions.setdefault(report.nodeid, []).append(where)
            r.add(report.nodeid, result)
        if d["outcome"]:
            r.outcome(report.nodeid, report.outcome, report.duration, marker=d["marker"])
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None and d["results"]:
            tw = getattr(tr, "_tw", None)
            if tw is not None and getattr(tw, "width_of_current_line", 0):
                tw.line()  # after progress dots (-q, xdist): start the line on a fresh line
            for result in d["results"]:
                tr.write_line(f"[audit] {report.nodeid}: {result.get('summary', '')}")


def pytest_sessionfinish(session, exitstatus):
    state = session.config.stash.get(_STATE, None)
    if state is None:
        return
    if state.worker:
        session.config.workeroutput["dperm_audits"] = json.dumps(state.collection())
        return
    if state.report_dir:
        state.report_paths = state.report.write(state.report_dir)
        path = Path(state.report_dir) / "execution.json"
        path.write_text(json.dumps({"executor": state.executor_spec or "serial", "results": state.executions},
                                   indent=2, sort_keys=True) + "\n")
        state.report_paths["execution"] = path


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = config.stash.get(_STATE, None)
    if state is None or state.worker:  # pragma: no cover
        return
    entries = state.report.entries
    if not (state.audits or state.planted or entries):
        return
    tr = terminalreporter
    tr.section("dperm audits")
    tr.write_line(f"tier {state.tier} (run counts sized to flag noise x{state.factor:g} at power "
                  f"{POWER:g}); seed {state.seed}")
    tr.write_line(f"family-wise false-alarm rate <= {FAMILY_ALPHA:g} (Bonferroni), split by share: "
                  + "; ".join(f"{r['share']} {r['share_alpha']:.4g} = {r['audits']} audits at "
                              f"{r['per_audit_alpha']:.4g} ({r['slots']} slots)" for r in state.split()
                              if r["audits"])
                  + f"; {state.planted} planted-bug tests at their share's slot alpha")
    for r in state.split():
        if r["over_budget_slots"]:
            tr.write_line(f"share {r['share']}: more audits ({r['audits']}) than slots ({r['slots']}): "
                          "alpha depends on the selection; a subset of these tests will not reproduce "
                          "this run's numbers")
    for line in state.report.summary_lines():
        tr.write_line(line)
    if state.executor_spec:
        ran = [e for entries in state.executions.values() for e in entries]
        workers = sorted({e.get("workers") for e in ran if e.get("workers") is not None})
        tr.write_line(f"executor {state.executor_spec}: {len(ran)} results, "
                      f"{sum(int(e.get('chunks', 0)) for e in ran)} chunks, workers "
                      f"{'/'.join(str(w) for w in workers) or '?'}")
    paths = getattr(state, "report_paths", None)
    if paths:
        tr.write_line(f"report: {paths['md']} and {paths['json']}")
