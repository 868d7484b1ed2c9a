"""Tests of audits.execution and audits.streaming: chunked, seeded runs give the same audit on any
executor -- this process, a process pool, a real Dask ``LocalCluster`` of 2 worker processes --
bit for bit, and a lost chunk is an error, never a partial count.

Oracles: the serial audit itself (every executor must reproduce it exactly: ``==`` on the result
dataclasses, which compares every field but ``execution``, and byte-equal reports), numpy's own
``SeedSequence.spawn`` for the chunk seeds, and brute-force counts for the reductions. No test
here is statistical: the audits are seeded, and the assertions are equalities.

One ``LocalCluster`` (2 single-threaded worker processes) serves one test, skipped when
``distributed`` is not installed (it is part of the ``test`` extra, so CI runs it).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from audits import audit_privacy, audit_rate, command, execution, replace_one, search_pairs, selection, streaming
from audits.search import DataDomain
from audits.utility import Memo
from reference import mechanisms as mech
from spec import profiles as spec_profiles
from spec.errors import ParameterError

try:  # the test functions below travel to the workers by value (they cannot import this file)
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
except (ImportError, KeyError, ValueError):  # pragma: no cover - without the distributed extra
    pass

ROOT = Path(__file__).resolve().parents[2]
R = 0.5
LAP = mech.LaplaceMechanism.calibrated(epsilon=1.0, data_norm=R)
GAUSS = mech.GaussianMechanism.calibrated(epsilon=1.0, delta=1e-5, data_norm=R)
#: Pure 1-DP as a profile (cheap to evaluate: profile mode calls it on 8000 epsilons).
PURE = spec_profiles.pure_dp_profile(1.0)
needs_dask = pytest.mark.skipif(not execution.distributed_available(), reason="distributed is not installed")


def value_pair(dim=1):
    """Five records of norm at most R, the first (R, 0, ...) replaced by its negative: the sum
    moves by the replace-one sensitivity 2R = 1."""
    data = np.zeros((5, dim))
    data[0, 0] = R
    return replace_one(data, 0, -data[0])


def released(outputs):
    return np.asarray(outputs)[:, 0]


def vector_gaussian(data, runs, rng):
    """A 3-coordinate Gaussian release (vector outputs: learned statistics)."""
    return np.sum(data, axis=0) + 1.5 * rng.standard_normal((runs, data.shape[1]))


def vector_laplace(data, runs, rng):
    """Laplace noise on each of 3 coordinates (vector outputs: learned statistics)."""
    return np.sum(data, axis=0) + rng.laplace(0.0, 1.0, size=(runs, data.shape[1]))


def integer_laplace(data, runs, rng):
    """A two-sided geometric count (integer outputs: the categorical statistic)."""
    p = 1.0 - np.exp(-1.0)
    return int(np.sum(data) > 0) + rng.geometric(p, runs) - rng.geometric(p, runs)


#: Audits covering every path of audit_privacy: point mode with a caller's statistic, the
#: logpdf statistic, the default family with the low-bit test, vectors, integers, a user event;
#: profile mode with scalars (pooled selection) and vectors (learned statistic).
CASES = {
    "point, statistic": dict(mechanism=LAP, statistic=released),
    "point, logpdf": dict(mechanism=GAUSS, delta=1e-5),
    "point, low bits": dict(mechanism=LAP),
    "point, vector": dict(mechanism=vector_gaussian, pair=value_pair(3), delta=1e-5),
    "point, integer": dict(mechanism=integer_laplace),
    "event": dict(mechanism=LAP, event=1.5),
    "profile, scalar": dict(mechanism=LAP, profile=PURE, statistic=released),
    "profile, vector": dict(mechanism=vector_laplace, pair=value_pair(3), profile=PURE),
}
RUNS = 20_000


def run_case(name, executor=None, runs=RUNS):
    kw = dict(CASES[name])
    mechanism, pair = kw.pop("mechanism"), kw.pop("pair", None) or value_pair()
    kw.setdefault("delta", 0.0)
    return audit_privacy(mechanism, pair, epsilon=1.0, runs=runs, seed=11, executor=executor, **kw)


@pytest.fixture(scope="module")
def serial():
    return {name: run_case(name) for name in CASES}


# --------------------------------------------------------------------------------------------
# Chunks and seeds


def test_chunk_seeds_are_spawn_children_keyed_on_the_chunk_index():
    spawned = np.random.SeedSequence(123).spawn(4)[3].spawn(6)[5]
    assert execution.chunk_rng(123, 3, 5).random(4).tolist() == np.random.default_rng(spawned).random(4).tolist()


def test_split_covers_the_runs_in_order():
    chunks = execution.split(1000, 256, seed=1, stream=2, data=1)
    assert [c.size for c in chunks] == [256, 256, 256, 232]
    assert [c.index for c in chunks] == [0, 1, 2, 3] and {c.stream for c in chunks} == {2}
    assert execution.split(0, 256, seed=1, stream=2) == []


@pytest.mark.parametrize("runs, bytes_per_output, expected", [
    (100, 8, 256),  # the floor
    (200_000, 8, 16_384),  # 200000 / 16 rounded up to a power of two
    (10**8, 8, 2**20),  # the ceiling: 8 MiB of scalars
    (10**8, 8 * 1000, 1024),  # 8 MiB of 1000-vectors
    (10**6, 8 * 10**6, 256),  # huge outputs: the floor
])
def test_chunk_runs_from_the_output_size_and_the_runs(runs, bytes_per_output, expected):
    assert execution.chunk_runs(runs=runs, bytes_per_output=bytes_per_output) == expected


@pytest.mark.parametrize("spec, parsed", [
    ("serial", ("serial", None)), ("processes:3", ("processes", 3)), ("dask:local:2", ("dask-local", 2)),
    ("dask:tcp://10.0.0.5:8786", ("dask", "tcp://10.0.0.5:8786")),
])
def test_parse_spec(spec, parsed):
    assert execution.parse_spec(spec) == parsed


@pytest.mark.parametrize("spec", ["processes", "processes:0", "processes:two", "dask", "dask:local", "threads:2", ""])
def test_bad_spec_names_the_rule(spec):
    with pytest.raises(ParameterError, match=r"executor .* must be|number of workers"):
        execution.parse_spec(spec)


def test_without_distributed_dask_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(execution, "distributed_available", lambda: False)
    with pytest.raises(ParameterError, match=r"pip install -e '\.\[distributed\]'"):
        with execution.open_executor("dask:local:2"):
            pass


def test_executor_argument_is_checked():
    with pytest.raises(TypeError, match="concurrent.futures.Executor"):
        audit_privacy(LAP, value_pair(), epsilon=1.0, runs=1000, seed=1, executor="dask:local:2")
    with pytest.raises(TypeError, match="must be a concurrent.futures.Executor"):
        execution.Execution(object())


# --------------------------------------------------------------------------------------------
# Streaming reductions


def test_reductions_match_brute_force_in_any_chunk_order():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1000, 1))
    thresholds = np.array([-1.0, 0.0, 0.5])
    red = streaming.Reduction([streaming.Count(released, 0.5, ">"), streaming.AtOrBelow(released, thresholds),
                               streaming.Values(released)], like=x)
    parts = [(i, x[i:i + 300]) for i in range(0, 1000, 300)]
    for order in (parts, parts[::-1]):
        totals = red.start(1000)
        for offset, chunk in order:
            totals = red.add(totals, red(chunk), offset)
        assert totals[0] == int(np.sum(x[:, 0] > 0.5))
        assert totals[1].tolist() == [int(np.sum(x[:, 0] <= t)) for t in thresholds]
        assert np.array_equal(totals[2], x[:, 0])


def test_reduction_refuses_outputs_unlike_the_selection():
    red = streaming.Reduction([streaming.Count(released, 0.0, ">")], like=np.zeros((4, 2)), name="m")
    with pytest.raises(ParameterError, match="different shapes or dtypes"):
        red(np.zeros((4, 3)))


def test_grid_keeps_a_small_support_whole():
    assert streaming.grid(released, np.array([[3.0], [1.0]]), np.array([[3.0], [2.0]])).tolist() == [1.0, 2.0, 3.0]
    values = np.arange(100_000, dtype=float)[:, None]
    g = streaming.grid(released, values[::2], values[1::2], size=1000)
    assert g.size <= 1000 and g[0] == 0 and g[-1] == 99_999 and np.all(np.diff(g) > 0)
    assert np.array_equal(g, values[:, 0][selection.candidate_ranks(100_000, 1000)])


def test_profile_grid_mode_is_sound_and_close_to_exact(monkeypatch):
    """Beyond EXACT_RUNS the bands are read at a grid of thresholds from the selection runs: the
    same verdict here, and a bound no larger than the exact one's (fewer thresholds)."""
    exact = run_case("profile, scalar")
    monkeypatch.setattr(streaming, "EXACT_RUNS", 1000)
    monkeypatch.setattr(streaming, "GRID_SIZE", 512)
    gridded = run_case("profile, scalar")
    size = int(gridded.counts["band_thresholds"].split()[2])
    assert gridded.counts["band_thresholds"] == f"grid of {size} thresholds from the selection runs" and size <= 512
    assert exact.counts["band_thresholds"] == "every distinct band value"
    assert gridded.violated == exact.violated is False
    assert gridded.epsilon_lower <= exact.epsilon_lower
    assert gridded.profile_margin <= exact.profile_margin


# --------------------------------------------------------------------------------------------
# The same audit on every executor


def test_default_is_serial_and_reports_the_chunking(serial):
    r = serial["point, statistic"]
    assert r.execution["executor"] == "serial" and r.execution["workers"] == 1
    assert r.counts["chunk_runs"] == execution.chunk_runs(runs=RUNS, bytes_per_output=8) == 2048
    # selection 3000 runs per dataset (2 chunks each), test ~17000 (9 chunks each)
    assert r.counts["chunks"] == r.execution["chunks"] == 2 * 2 + 2 * 9


@pytest.mark.parametrize("kind", ["threads", "processes"])
def test_pools_give_the_serial_result(serial, kind):
    pool_type = cf.ThreadPoolExecutor if kind == "threads" else cf.ProcessPoolExecutor
    with pool_type(max_workers=2) as pool:
        for name in ("point, low bits", "point, vector", "event", "profile, scalar"):
            r = run_case(name, executor=pool)
            assert r == serial[name], name
            assert r.execution["executor"] == kind and r.execution["workers"] == 2


def _check_privacy_audits(serial, cluster):
    """Every path of audit_privacy: the same result, field for field, and the same JSON but for
    ``execution``; also through ``get_executor()`` and the context default."""
    for name in CASES:
        r = run_case(name, executor=cluster)
        assert r == serial[name], name
        assert r.to_dict() | {"execution": None} == serial[name].to_dict() | {"execution": None}, name
        assert r.execution["executor"] == "dask" and r.execution["workers"] == 2, name
    name = "point, logpdf"
    assert run_case(name, executor=cluster.get_executor()) == serial[name]
    with execution.using(cluster):
        r = run_case(name)
    assert r == serial[name] and r.execution["executor"] == "dask"


def _risk(params, runs, rng):
    return (1.0 + rng.standard_normal(runs) ** 2) / params["n"]


def _check_rate_audit_and_pair_search(cluster):
    kw = dict(grid={"n": [10, 20, 40], "p": [1.0, 2.0]}, base={"n": 20, "p": 1.0}, runs=50,
              expected={"n": -1.0, "p": 0.0}, alpha=0.05, seed=5)
    serial_memo, cluster_memo = Memo(_risk), Memo(_risk)
    a, b = audit_rate(serial_memo, **kw), audit_rate(cluster_memo, executor=cluster, **kw)
    assert a == b and b.execution["chunks"] == 4  # the base point is simulated once
    assert [(p, v.tolist()) for p, v in serial_memo.samples()] == [(p, v.tolist()) for p, v in cluster_memo.samples()]
    assert audit_rate(_risk, **kw) == audit_rate(_risk, executor=cluster, **kw)
    domain = DataDomain(low=-R, high=R, dimension=1, size=3)
    s = dict(epsilon=1.0, runs=2000, seed=3, limit=3, statistic=released)
    one, two = search_pairs(LAP, domain, **s), search_pairs(LAP, domain, executor=cluster, **s)
    assert one.scores == two.scores and one.audits == two.audits


def _dies_once(marker):
    """A Laplace count that kills its Dask worker the first time it runs a test chunk there."""
    def mechanism(data, runs, rng):
        try:
            from distributed import get_worker

            get_worker()
            in_worker = True
        except (ImportError, ValueError):
            in_worker = False
        if in_worker and runs == 2048 and not os.path.exists(marker):
            Path(marker).write_text("killed")
            os.kill(os.getpid(), signal.SIGKILL)
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size=runs)
    return mechanism


def _check_a_worker_killed_mid_audit_is_retried(cluster, tmp_path):
    marker = str(tmp_path / "killed")
    mechanism = _dies_once(marker)
    kw = dict(epsilon=1.0, runs=RUNS, seed=4, low_bits=False)
    expected = audit_privacy(mechanism, value_pair(), **kw)
    r = audit_privacy(mechanism, value_pair(), executor=cluster, **kw)
    assert Path(marker).exists()  # a worker did die
    assert r == expected
    cluster.wait_for_workers(2, timeout=60)


def _exits(data, runs, rng):
    if runs == 2048 and os.getpid() != int(os.environ.get("DPERM_TEST_DRIVER", "0")):
        os._exit(1)
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size=runs)


def test_a_broken_pool_is_a_clear_error_not_a_partial_count(monkeypatch):
    monkeypatch.setenv("DPERM_TEST_DRIVER", str(os.getpid()))
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        with pytest.raises(execution.ExecutionError, match=r"chunk .* was lost by the processes executor .*partial"):
            audit_privacy(_exits, value_pair(), epsilon=1.0, runs=RUNS, seed=4, low_bits=False, executor=pool)


def test_cancelled_dask_futures_are_returned_as_done(monkeypatch):
    # distributed's wait raises FuturesCancelledError for a future the scheduler forgot (seen under
    # load with a worker killed mid-audit); the map must get it back as done, so that its result()
    # raises in Job.map and becomes an ExecutionError naming the chunk, not a raw Dask error
    distributed = pytest.importorskip("distributed")
    from distributed.client import FuturesCancelledError

    class Fake:
        def __init__(self, status):
            self.status = status

    futures = [Fake("finished"), Fake("cancelled"), Fake("pending")]

    def cancelled_wait(fs, return_when):
        raise FuturesCancelledError([])

    monkeypatch.setattr(distributed, "wait", cancelled_wait)
    done, not_done = execution._dask_wait(futures)
    assert done == set(futures[:2]) and not_done == {futures[2]}


def test_step_ticker_reports_steps_after_the_delay(monkeypatch):
    # one long run's loop (a one-run audit's fit) reports its steps through the execution's sink
    lines = []
    monkeypatch.setattr(execution, "PROGRESS_AFTER", 3600.0)
    quiet = execution.Execution(None, progress=lines.append).steps("loop")
    quiet(5, 10)
    assert lines == []  # not before PROGRESS_AFTER seconds
    monkeypatch.setattr(execution, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(execution, "PROGRESS_EVERY", 0.0)
    tick = execution.Execution(None, progress=lines.append).steps("bst14 loop (reference)")
    tick(0, 4000)
    tick(1000, 4000)
    tick(4000, 4000)
    assert lines[0].endswith(" elapsed, ETA unknown")  # no step done: no rate yet
    assert lines[0].startswith("[audit] bst14 loop (reference): 0 of 4,000 steps (0%), ")
    assert lines[1].startswith("[audit] bst14 loop (reference): 1,000 of 4,000 steps (25%), ")
    assert lines[2].startswith("[audit] bst14 loop (reference): 4,000 of 4,000 steps (100%), ")
    assert lines[2].endswith("ETA 0 s")  # a single run: no executor or workers in the line
    execution.Execution(None, progress=False).steps("off")(1, 2)
    assert len(lines) == 3


def test_step_ticker_waits_progress_every_between_lines(monkeypatch):
    monkeypatch.setattr(execution, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(execution, "PROGRESS_EVERY", 3600.0)
    lines = []
    tick = execution.Execution(None, progress=lines.append).steps("loop")
    for t in range(1, 101):
        tick(t, 100)
    assert len(lines) == 1 and ": 1 of 100 steps (1%), " in lines[0]


def test_heartbeat_stops_with_its_block(monkeypatch):
    monkeypatch.setattr(execution, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(execution, "PROGRESS_EVERY", 0.02)
    lines = []
    with pytest.raises(KeyboardInterrupt), execution.heartbeat("fit", sink=lines.append):
        time.sleep(0.1)
        raise KeyboardInterrupt  # Ctrl-C in the fit: the thread must stop too
    seen = len(lines)
    time.sleep(0.1)
    assert seen >= 1 and len(lines) == seen and lines[0].startswith("[audit] fit, ")
    with execution.heartbeat("off", sink=False):
        time.sleep(0.05)


def test_progress_lines_show_runs_and_an_eta(monkeypatch):
    monkeypatch.setattr(execution, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(execution, "PROGRESS_EVERY", 0.0)
    lines = []
    r = run_case("point, statistic", executor=execution.Execution(None, progress=lines.append))
    assert len(lines) == r.counts["chunks"]
    assert lines[0].startswith("[audit] mechanism LaplaceMechanism(") and ": 2,048 of 40,000 runs (5%), " in lines[0]
    assert all(" elapsed, ETA " in line and line.endswith("(serial, 1 worker)") for line in lines)


# --------------------------------------------------------------------------------------------
# Where a user runs an audit: dperm audit and pytest audits

USER_FILE = textwrap.dedent('''
    import numpy as np

    PAIR = (np.array([1, 1, 1, 0]), np.array([0, 1, 1, 0]))

    def gaussian(data, runs, rng):
        return float(data.sum()) + 4.0 * rng.standard_normal(runs)
''')


def _dperm(tmp_path, capsys, *extra):
    (tmp_path / "user_mech.py").write_text(USER_FILE)
    status = command.main(["user_mech.py:gaussian", "--pair", "user_mech.py:PAIR", "--epsilon", "1", "--runs",
                           "20000", "--seed", "2", "--low-bits", "off", *extra])
    out, err = capsys.readouterr()
    return status, out, err


def _check_dperm_audit_executor(cluster, tmp_path, capsys, monkeypatch):
    """The user's file is not importable on the workers: its module travels by value."""
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()  # what the checks before printed
    status, plain, _ = _dperm(tmp_path, capsys)
    address = cluster.scheduler.address
    status_remote, remote, err = _dperm(tmp_path, capsys, "--executor", f"dask:{address}")
    assert status == status_remote == 0, err
    assert plain == remote
    assert f"dperm: note: executor dask:{address} (2 workers): 22 chunks of up to 2048 runs" in err


def test_dperm_audit_bad_executor_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = _dperm(tmp_path, capsys, "--executor", "processes:none")
    assert status == 2 and err.startswith("dperm: error: executor ('processes:none') must be")


PLUGIN_FILE = textwrap.dedent('''
    import numpy as np
    import pytest
    from audits import audit_privacy, replace_one

    PAIR = replace_one(np.array([[0.5], [0.0]]), 0, np.array([-0.5]))

    def laplace(data, runs, rng):
        return np.sum(data, axis=0) + rng.laplace(0.0, 1.0, size=(runs, 1))

    @pytest.mark.audit
    def test_laplace(audit):
        r = audit.record(audit_privacy(laplace, PAIR, epsilon=1.0, runs=20000, alpha=audit.alpha, seed=audit.seed,
                                       low_bits=False))
        assert not r.violated
''')


def _pytest_report(pytester, tmp, *extra, passed=1):
    out = pytester.path / tmp
    result = pytester.runpytest("-p", "audits.plugin", "-p", "no:cacheprovider", f"--audit-report={out}", *extra)
    result.assert_outcomes(passed=passed)
    return out, result


pytest_plugins = ["pytester"]


def _check_pytest_audit_executor(pytester, cluster):
    pytester.makepyfile(test_user_suite=PLUGIN_FILE)
    plain, _ = _pytest_report(pytester, "plain")
    remote, result = _pytest_report(pytester, "remote", f"--audit-executor=dask:{cluster.scheduler.address}")
    for name in ("report.json", "report.md"):
        assert (plain / name).read_bytes() == (remote / name).read_bytes(), name
    assert '"executor": "serial"' in (plain / "execution.json").read_text()
    assert '"executor": "dask"' in (remote / "execution.json").read_text()
    result.stdout.fnmatch_lines(["*executor dask:tcp://*: 1 results, * chunks, workers 2*"])
    # Two quick audits of a file of the suite (a planted twin among them): the same report bytes.
    suite = [str(ROOT / "audits" / "suite" / "primitives" / "test_primitives.py"), "-k",
             "classic_gaussian_holds_where_valid or planted_best_iterate_is_flagged"]
    plain, _ = _pytest_report(pytester, "suite-plain", *suite, passed=2)
    remote, _ = _pytest_report(pytester, "suite-remote", *suite, f"--audit-executor=dask:{cluster.scheduler.address}",
                               passed=2)
    for name in ("report.json", "report.md"):
        assert (plain / name).read_bytes() == (remote / name).read_bytes(), name
    assert '"executor": "dask"' in (remote / "execution.json").read_text()


def test_pytest_bad_audit_executor_is_a_usage_error(pytester):
    pytester.makepyfile(test_user_suite=PLUGIN_FILE)
    result = pytester.runpytest("-p", "audits.plugin", "-p", "no:cacheprovider", "--audit-executor=gpu:1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*executor ('gpu:1') must be serial, processes:N, dask:local:N or dask:SCHEDULER_ADDRESS*"])


@needs_dask
def test_a_local_cluster_of_two_worker_processes_reproduces_the_serial_audits(serial, tmp_path, capsys, monkeypatch,
                                                                               pytester):
    """One real Dask LocalCluster (2 single-threaded worker processes; one test, so that pytest-xdist
    cannot start two): privacy audits in every mode, a rate audit, a pair search, a worker killed
    mid-audit, ``dperm audit --executor`` and ``pytest --audit-executor`` (same report bytes, for a user's
    file and for two audits of a file of the suite)."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as lc, \
            Client(lc) as cluster:
        _check_privacy_audits(serial, cluster)
        _check_rate_audit_and_pair_search(cluster)
        _check_pytest_audit_executor(pytester, cluster)
        _check_dperm_audit_executor(cluster, tmp_path, capsys, monkeypatch)
        _check_a_worker_killed_mid_audit_is_retried(cluster, tmp_path)
