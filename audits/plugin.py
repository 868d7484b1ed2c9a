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
    Write ``report.md`` and ``report.json`` (and PNG plots if matplotlib is installed).

False alarms
------------
Tests marked ``audit`` audit *correct* mechanisms: a failure is a false alarm. The family-wise
budget :data:`FAMILY_ALPHA` = 0.01 is split into :data:`FAMILY_SLOTS` = 64 equal slots and
each audit gets one, ``alpha = 0.01 / max(K, 64)`` with ``K`` the number of collected audits,
so by the union bound (Bonferroni) a whole run raises a false alarm with probability at most
0.01. A fixed number of slots, rather than ``0.01 / K``, makes a test's alpha -- hence its run
counts, its numbers and its verdict -- the same whether it runs alone, in a ``-k`` selection or
in the full suite (``K`` depends on what was collected: a node id collects one test). The
repository's suite has at most 64 audits (a test in ``tests/`` checks it); a collection of more
than 64 falls back to ``0.01 / K``, which keeps the family-wise bound but not the
reproducibility of selections, and the summary says so. Tests marked ``planted`` (bugs that
must be flagged) get the same alpha: a flagged bug is flagged at the strict level.

The ``audit`` fixture
---------------------
Gives each test its ``tier``, ``seed``, ``alpha``, ``factor`` (the tier's bug size),
``power``, run counts (``runs_for(kind, ...)`` or directly ``runs_for_gaussian``,
``runs_for_laplace``, ``runs_for_point``, ``runs_for_profile``: :mod:`audits.stats` with this
alpha, factor and power filled in, never below ``minimum``, default 100), and
``record(result)`` to add a result to the report and print it as a progress line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import pytest

from audits import stats
from audits.privacy import MIN_RUNS
from audits.report import Report
from reference.rng import fresh_seed
from spec.errors import ParameterError

__all__ = [
    "FAMILY_ALPHA",
    "FAMILY_SLOTS",
    "DEFAULT_SEED",
    "TIERS",
    "POWER",
    "AuditContext",
    "derive_seed",
    "per_audit_alpha",
]

#: Family-wise false-alarm rate of one whole ``pytest audits`` run.
FAMILY_ALPHA = 0.01
#: Equal shares of :data:`FAMILY_ALPHA`, one per audit: alpha does not depend on the selection
#: as long as at most this many audits are collected.
FAMILY_SLOTS = 64
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


def per_audit_alpha(audits: int, family_alpha: float = FAMILY_ALPHA,
                    slots: int = FAMILY_SLOTS) -> float:
    """Bonferroni share ``family_alpha / max(audits, slots, 1)``: one of ``slots`` equal shares,
    or of ``audits`` shares when more audits than slots were collected."""
    return family_alpha / max(int(audits), int(slots), 1)


@dataclass
class _State:
    seed: int
    tier: str
    report_dir: str | None
    audits: int = 0
    planted: int = 0
    report: Report | None = None
    markers: dict = field(default_factory=dict)
    report_paths: dict | None = None

    @property
    def alpha(self) -> float:
        return per_audit_alpha(self.audits)

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
    _report: Report = field(repr=False)
    _marker: str | None = field(default=None, repr=False)

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
        """Add ``result`` (privacy or rate) to the report; returns it."""
        self._report.add(self.nodeid, result, marker=self._marker)
        return result


def pytest_addoption(parser):
    group = parser.getgroup("dperm-audits", "dperm audits")
    group.addoption("--audit-tier", choices=sorted(TIERS), default="smoke",
                    help="bug size the audit run counts are designed to catch (default smoke)")
    group.addoption("--audit-seed", default=str(DEFAULT_SEED), metavar="INT|random",
                    help=f"global audit seed (default {DEFAULT_SEED}; 'random' draws one)")
    group.addoption("--audit-report", default=None, metavar="DIR",
                    help="write report.md and report.json (and plots) into DIR")


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
    state = _State(seed=_parse_seed(config.getoption("--audit-seed")),
                   tier=config.getoption("--audit-tier"),
                   report_dir=config.getoption("--audit-report"))
    state.report = Report(seed=state.seed, tier=state.tier, family_alpha=FAMILY_ALPHA,
                          per_audit_alpha=state.alpha, factor=state.factor, power=POWER)
    config.stash[_STATE] = state


def pytest_report_header(config):
    state = config.stash.get(_STATE, None)
    if state is None:  # pragma: no cover
        return None
    return (f"dperm audits: tier {state.tier}, seed {state.seed} "
            f"(reproduce with --audit-tier={state.tier} --audit-seed={state.seed})")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    # Runs before -k/-m deselection. K only matters when it exceeds FAMILY_SLOTS.
    state = config.stash[_STATE]
    state.audits = sum(1 for it in items if it.get_closest_marker("audit") is not None)
    state.planted = sum(1 for it in items if it.get_closest_marker("planted") is not None)
    for it in items:
        if it.get_closest_marker("audit") is not None:
            state.markers[it.nodeid] = "audit"
        elif it.get_closest_marker("planted") is not None:
            state.markers[it.nodeid] = "planted"
    r = state.report
    r.audits, r.planted, r.per_audit_alpha = state.audits, state.planted, state.alpha


@pytest.fixture
def audit(request) -> AuditContext:
    """Per-test audit context: ``tier``, ``seed``, ``alpha``, ``factor``, ``runs_for_*``,
    ``record(result)``."""
    state = request.config.stash[_STATE]
    nodeid = request.node.nodeid
    return AuditContext(nodeid=nodeid, tier=state.tier, seed=derive_seed(state.seed, nodeid),
                        alpha=state.alpha, factor=state.factor, power=POWER,
                        family_alpha=FAMILY_ALPHA, _report=state.report,
                        _marker=state.markers.get(nodeid))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    state = item.config.stash.get(_STATE, None)
    if state is not None:
        _note_report(item, rep, state)
    return rep


def _note_report(item, rep, state) -> None:
    marker = state.markers.get(item.nodeid)
    recorded = state.report.results(item.nodeid)
    if marker is None and not recorded:
        return
    if rep.when == "call" or (rep.when == "setup" and rep.outcome != "passed"):
        state.report.outcome(item.nodeid, rep.outcome, rep.duration, marker=marker)
    if rep.when == "teardown" and recorded:
        tr = item.config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None:
            tw = getattr(tr, "_tw", None)
            if tw is not None and getattr(tw, "width_of_current_line", 0):
                tw.line()  # -q mode: start the progress line on a fresh line
            for r in recorded:
                tr.write_line(f"[audit] {item.nodeid}: {r}")


def pytest_sessionfinish(session, exitstatus):
    state = session.config.stash.get(_STATE, None)
    if state is None or not state.report_dir:
        return
    state.report_paths = state.report.write(state.report_dir)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = config.stash.get(_STATE, None)
    if state is None:  # pragma: no cover
        return
    entries = state.report.entries
    if not (state.audits or state.planted or entries):
        return
    tr = terminalreporter
    tr.section("dperm audits")
    tr.write_line(f"tier {state.tier} (run counts sized to flag noise x{state.factor:g} at power "
                  f"{POWER:g}); seed {state.seed}")
    tr.write_line(f"family-wise false-alarm rate <= {FAMILY_ALPHA:g}: {state.audits} audits at "
                  f"alpha = {state.alpha:.4g} each (Bonferroni over {max(state.audits, FAMILY_SLOTS)} "
                  f"slots); {state.planted} planted-bug tests at the same alpha")
    if state.audits > FAMILY_SLOTS:
        tr.write_line(f"more audits ({state.audits}) than budget slots ({FAMILY_SLOTS}): alpha "
                      f"depends on the selection; a subset of these tests will not reproduce "
                      f"this run's numbers")
    n_results = sum(len(e.results) for e in entries)
    refuted = sum(1 for e in entries for r in e.results if getattr(r, "violated", False))
    failed_rates = sum(1 for e in entries for r in e.results if getattr(r, "passed", True) is False)
    tr.write_line(f"{n_results} results recorded: {refuted} privacy claims refuted, "
                  f"{failed_rates} rate audits failed")
    paths = getattr(state, "report_paths", None)
    if paths:
        tr.write_line(f"report: {paths['md']} and {paths['json']}")
