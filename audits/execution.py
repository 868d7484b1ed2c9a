"""Where an audit's runs execute: chunks of runs, seeded by their index, on any Executor.

An audit is an embarrassingly parallel job: many independent runs of a mechanism, reduced to
counts. This module runs them in *chunks* on any :class:`concurrent.futures.Executor` -- a
``distributed.Client`` (or its ``get_executor()``), a ``ProcessPoolExecutor``, loky -- or in this
process, and gives bit-identical results whichever runs them.

Chunks and their seeds
----------------------
The runs of one call of the mechanism (say the selection runs on the dataset) are split into
chunks of :func:`chunk_runs` runs (the last one shorter). Chunk ``c`` of stream ``s`` draws from

    numpy.random.SeedSequence(seed, spawn_key=(s, c))

which is what ``SeedSequence(seed).spawn(s + 1)[s].spawn(c + 1)[c]`` gives: the streams and
chunks are independent, and each chunk's outputs depend only on ``(seed, s, c)`` and its size --
not on the executor, the number of workers or the order in which chunks finish. The driver
combines the chunks' results in chunk order (outputs) or by integer sums (counts), so the
combined result is the same whatever the completion order. With no executor the same chunks run
one after the other in this process: the serial audit *is* the chunked audit.

Chunk size
----------
Chosen from the size of one output (bytes, measured by the audit's probe) and the runs, never
from the machine, the executor or timings (which would change the draws):
``min(C_bytes, C_count)``, both powers of two within [:data:`MIN_CHUNK_RUNS`,
:data:`MAX_CHUNK_RUNS`]: ``C_bytes`` the largest whose outputs fit in :data:`CHUNK_BYTES`, and
``C_count`` the smallest that splits ``runs`` into at most :data:`TARGET_CHUNKS` chunks, so that
an audit of 1e5 runs still keeps 16 workers busy while a scalar audit of 1e8 runs moves 8 MiB
per chunk. Results report ``chunk_runs`` and ``chunks``.

Shipping
--------
The mechanism and its datasets (and, later, the statistics a test counts) are shipped once per
worker, not per chunk: to a Dask cluster with ``client.scatter(..., broadcast=True)``, whose
futures the chunks take as arguments; to a process pool through a temporary file that each
worker process reads once (cached by its digest); to any other executor as bytes with each chunk,
unpickled once per worker process. ``cloudpickle`` (installed with ``distributed``) serialises
lambdas and closures; without it, objects must be picklable by the standard library.

Failures
--------
A chunk that raises (a bug in the mechanism, a wrong output shape) re-raises its exception in the
driver. A chunk whose worker died is rescheduled by Dask (up to its
``distributed.scheduler.allowed-failures``); when the executor gives up (``KilledWorker``, a
broken process pool, a cancelled future) the audit raises :class:`ExecutionError` naming the
chunk. Either way no result is computed from a partial set of runs.

Progress
--------
An audit that has run for :data:`PROGRESS_AFTER` seconds prints a line every
:data:`PROGRESS_EVERY` seconds (stderr, or a callable given as ``progress``): runs done of the
total, elapsed time and an ETA. ``Ctrl-C`` cancels the chunks not yet run. A single long run
(a one-run audit's fit) reports its loop's steps the same way, through :meth:`Execution.steps`.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import contextvars
import hashlib
import logging
import math
import os
import pickle
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from spec import validate
from spec.errors import ParameterError
from spec.progress import duration

__all__ = [
    "CHUNK_BYTES", "MIN_CHUNK_RUNS", "MAX_CHUNK_RUNS", "TARGET_CHUNKS", "PROGRESS_AFTER", "PROGRESS_EVERY",
    "INSTALL_HINT", "ExecutionError", "Execution", "Ticker", "heartbeat", "Chunk", "chunk_runs", "split",
    "chunk_rng", "resolve", "using", "current", "open_executor", "parse_spec", "distributed_available",
    "send_by_value",
]

#: Target bytes of one chunk's outputs.
CHUNK_BYTES = 8 * 2**20
#: Fewest runs in a chunk (unless the call itself is smaller).
MIN_CHUNK_RUNS = 256
#: Most runs in a chunk.
MAX_CHUNK_RUNS = 2**20
#: Chunks per call that the chunk size aims at when the outputs are small.
TARGET_CHUNKS = 16
#: Seconds after which a running audit starts printing progress lines.
PROGRESS_AFTER = 10.0
#: Seconds between two progress lines.
PROGRESS_EVERY = 10.0
#: How to get the Dask engine.
INSTALL_HINT = "pip install -e '.[distributed]' (or pip install 'dask[distributed]')"


class ExecutionError(RuntimeError):
    """The executor lost a chunk of runs (its worker died, the pool broke, the future was cancelled)."""


def distributed_available() -> bool:
    """Whether ``distributed`` (Dask's cluster engine) can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Chunks


def _pow2_floor(x: float) -> int:
    return 1 << max(0, int(math.floor(math.log2(max(x, 1.0)))))


def _pow2_ceil(x: float) -> int:
    return 1 << max(0, int(math.ceil(math.log2(max(x, 1.0)))))


def chunk_runs(*, runs: int, bytes_per_output: int) -> int:
    """Runs per chunk for an audit of ``runs`` runs per dataset whose outputs take
    ``bytes_per_output`` bytes each (module docstring, "Chunk size")."""
    runs = validate.integer("runs", runs, minimum=1)
    bytes_per_output = validate.integer("bytes_per_output", bytes_per_output, minimum=1)
    by_bytes = _pow2_floor(CHUNK_BYTES / bytes_per_output)
    by_count = _pow2_ceil(runs / TARGET_CHUNKS)
    return int(min(MAX_CHUNK_RUNS, max(MIN_CHUNK_RUNS, min(by_bytes, by_count))))


@dataclass(frozen=True)
class Chunk:
    """One chunk: ``size`` runs of dataset ``data`` (an index into the job's datasets) drawn from
    ``chunk_rng(seed, stream, index)``."""

    seed: int
    stream: int
    index: int
    size: int
    data: int = 0

    def rng(self) -> np.random.Generator:
        return chunk_rng(self.seed, self.stream, self.index)


def split(n: int, size: int, *, seed: int, stream: int, data: int = 0) -> list[Chunk]:
    """The chunks of a call of ``n`` runs on stream ``stream``: ``size`` runs each, the last one
    shorter; none for ``n = 0``."""
    return [Chunk(seed, stream, i, min(size, n - start), data) for i, start in enumerate(range(0, n, size))]


def chunk_rng(seed: int, stream: int, index: int) -> np.random.Generator:
    """The generator of chunk ``index`` of stream ``stream``: ``SeedSequence(seed, spawn_key=(stream, index))``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, index)))


# --------------------------------------------------------------------------------------------
# Shipping objects to workers


def _dumps(obj, what: str) -> bytes:
    try:
        import cloudpickle
    except ImportError:
        cloudpickle = None
    try:
        if cloudpickle is not None:
            return cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        hint = "" if cloudpickle is not None else (
            f"; lambdas and closures need cloudpickle: {INSTALL_HINT}, or use module-level functions")
        raise ParameterError(f"{what} cannot be sent to the executor's workers ({type(exc).__name__}: "
                             f"{exc}){hint}") from exc


def send_by_value(module) -> None:
    """Have cloudpickle send ``module``'s functions and classes by value: for a module the workers
    cannot import (a test file, a user's ``.py`` file). Nothing without cloudpickle."""
    try:
        import cloudpickle
    except ImportError:
        return
    with contextlib.suppress(ValueError):  # already registered, or not in sys.modules
        cloudpickle.register_pickle_by_value(module)


class _Shipped:
    """A worker's view of a shared object: its digest, and its bytes or the file holding them."""

    __slots__ = ("digest", "data", "path")

    def __init__(self, digest: str, data: bytes | None = None, path: str | None = None):
        self.digest, self.data, self.path = digest, data, path

    def __reduce__(self):
        return (_Shipped, (self.digest, self.data, self.path))


class _Held:
    """An object scattered to a Dask cluster as one piece (``scatter`` splits lists and tuples),
    serialised by cloudpickle itself (Dask tries the standard pickle first, which would send a
    test file's or a user's function by a name the workers cannot import)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __reduce__(self):
        return (_held, (_dumps(self.obj, "the audit's shared objects"),))


def _held(data: bytes) -> _Held:
    return _Held(pickle.loads(data))


#: Objects unpickled in this worker process, by digest (a few audits' worth).
_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()


def _resolve(handle):
    """The object behind a handle, in the worker (unpickled once per process)."""
    if isinstance(handle, _Held):
        return handle.obj
    if not isinstance(handle, _Shipped):
        return handle
    with _CACHE_LOCK:
        if handle.digest in _CACHE:
            _CACHE.move_to_end(handle.digest)
            return _CACHE[handle.digest]
    if handle.data is not None:
        data = handle.data
    else:
        try:
            with open(handle.path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise ExecutionError(f"a worker could not read the shipped audit data ({handle.path}): {exc}; "
                                 "process-pool workers must share the driver's file system") from exc
    obj = pickle.loads(data)
    with _CACHE_LOCK:
        _CACHE[handle.digest] = obj
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return obj


def _call_task(fn, handles, task):
    """What every chunk runs on a worker: ``fn(*shared objects, task)``, and its seconds."""
    objects = [_resolve(h) for h in handles]
    start = time.perf_counter()
    value = fn(*objects, task)
    return value, time.perf_counter() - start


# --------------------------------------------------------------------------------------------
# The executor of an audit


def _dask_client(executor):
    """The ``distributed.Client`` behind ``executor`` (a Client or its ``get_executor()``), else None."""
    if executor is None or "distributed" not in sys.modules:
        return None
    from distributed import Client

    if isinstance(executor, Client):
        return executor
    client = getattr(executor, "_client", None)  # distributed.cfexecutor.ClientExecutor
    return client if isinstance(client, Client) else None


def _infrastructure_errors() -> tuple:
    errors = [cf.CancelledError, cf.BrokenExecutor]
    if "distributed" in sys.modules:
        try:
            from distributed import KilledWorker
            from distributed.comm.core import CommClosedError

            errors += [KilledWorker, CommClosedError]
        except ImportError:  # pragma: no cover - other versions
            pass
    return tuple(errors)


def _stderr_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Execution:
    """An executor for audits, and what to say about it.

    Parameters
    ----------
    executor : concurrent.futures.Executor, distributed.Client or None
        Where chunks run; ``None``: one after the other in this process.
    progress : callable, bool or None
        ``progress(line)`` receives the progress lines of long audits; ``None`` (default) prints
        them on stderr, ``False`` turns them off.
    name : str, optional
        How to describe the executor (``processes``, ``dask``, ...); derived when omitted.
    """

    def __init__(self, executor=None, *, progress=None, name: str | None = None):
        if executor is not None and not isinstance(executor, cf.Executor) and _dask_client(executor) is None:
            raise TypeError(f"executor ({executor!r}) must be a concurrent.futures.Executor (a process pool, "
                            "a distributed.Client or its get_executor(), loky, ...) or None")
        if progress is not None and progress is not False and not callable(progress):
            raise TypeError(f"progress ({progress!r}) must be a callable taking a line, False or None")
        self.executor = executor
        self.client = _dask_client(executor)
        self.progress = _stderr_line if progress is None else (progress or None)
        if name is None:
            name = ("serial" if executor is None else "dask" if self.client is not None
                    else "processes" if isinstance(executor, cf.ProcessPoolExecutor)
                    else "threads" if isinstance(executor, cf.ThreadPoolExecutor) else type(executor).__name__)
        self.name = name

    @property
    def in_process(self) -> bool:
        """Chunks run in this process (no executor, or threads): objects are passed as they are."""
        return self.executor is None or isinstance(self.executor, cf.ThreadPoolExecutor)

    def workers(self) -> int | None:
        """Workers (processes or threads) the chunks may run on now; ``None`` if the executor does not say."""
        if self.executor is None:
            return 1
        if self.client is not None:
            info = self.client.scheduler_info()
            return sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values())
        workers = getattr(self.executor, "_max_workers", None)  # ProcessPool/ThreadPool (and loky)
        return int(workers) if workers else None

    def describe(self) -> dict:
        """``{"executor": name, "workers": N}`` (``"scheduler"``: a Dask scheduler's address)."""
        d = {"executor": self.name, "workers": self.workers()}
        if self.client is not None:
            d["scheduler"] = str(getattr(self.client.scheduler, "address", "") or "")
        return d

    def __repr__(self) -> str:
        return f"Execution({self.name}, workers={self.workers()})"

    def job(self, *, runs: int, label: str) -> "Job":
        """A job of ``runs`` runs in all (for the progress line), named ``label``."""
        return Job(self, runs=runs, label=label)

    def steps(self, label: str) -> "Ticker":
        """A ``progress(done, total)`` hook for one run's loop in this process (the reference
        boxes' ``progress`` argument), reporting steps to this execution's progress lines."""
        return Ticker(self.progress, label=label, unit="steps")


@contextlib.contextmanager
def heartbeat(label: str, *, sink=None):
    """Within the block, a line ``label, <elapsed> elapsed`` through ``sink`` (default: the current
    execution's progress lines) after :data:`PROGRESS_AFTER` seconds and then every
    :data:`PROGRESS_EVERY` seconds, from a daemon thread: for one opaque call that reports nothing
    itself (``dperm audit-one-run``'s fit). The thread stops when the block ends, also on Ctrl-C."""
    sink = current().progress if sink is None else sink
    if sink is None or sink is False:
        yield
        return
    stop = threading.Event()
    start = time.monotonic()

    def beat():
        wait = PROGRESS_AFTER
        while not stop.wait(wait):
            sink(f"[audit] {label}, {duration(time.monotonic() - start)} elapsed")
            wait = PROGRESS_EVERY

    thread = threading.Thread(target=beat, name="dperm-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class Ticker:
    """``ticker(done, total)`` prints ``label: done of total unit (%), elapsed, ETA`` through
    ``sink`` once :data:`PROGRESS_AFTER` seconds have passed since it was made, then at most every
    :data:`PROGRESS_EVERY` seconds; ``sink=None`` prints nothing. ``where()``, if given, is
    appended in parentheses (a job's executor and workers)."""

    def __init__(self, sink, *, label: str, unit: str, where=None):
        self.sink, self.label, self.unit, self.where = sink, label, unit, where
        self.start = time.monotonic()
        self._last = None

    def __call__(self, done: int, total: int) -> None:
        if self.sink is None:
            return
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < PROGRESS_AFTER or (self._last is not None and now - self._last < PROGRESS_EVERY):
            return
        self._last = now
        total = max(int(total), 1)
        frac = min(done / total, 1.0)
        eta = elapsed * (1 - frac) / frac if frac > 0 else math.inf
        tail = f" ({self.where()})" if self.where is not None else ""
        self.sink(f"[audit] {self.label}: {done:,} of {total:,} {self.unit} ({100 * frac:.0f}%), "
                  f"{duration(elapsed)} elapsed, ETA {duration(eta)}{tail}")


class Job:
    """The chunks of one audit on one :class:`Execution`: shares objects with the workers once,
    maps chunks, reports progress; a context manager that releases what it shipped."""

    def __init__(self, execution: Execution, *, runs: int, label: str):
        self.execution, self.label = execution, label
        self.total = max(int(runs), 1)
        self.done = 0
        self.chunks = 0
        self.busy = 0.0  # seconds spent inside the chunks (on whichever worker)
        self.start = time.monotonic()
        self._ticker = Ticker(execution.progress, label=label, unit="runs", where=self._where)
        self._handles: list = []
        self._files: list[str] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self) -> None:
        """Forget the shipped objects (Dask releases its scattered copies; temporary files go)."""
        for h in self._handles:
            if hasattr(h, "release"):
                with contextlib.suppress(Exception):
                    h.release()
        self._handles.clear()
        for path in self._files:
            with contextlib.suppress(OSError):
                os.unlink(path)
        self._files.clear()

    def share(self, obj, what: str):
        """A handle to ``obj`` that the chunks' function receives as the object itself; shipped
        once per worker (module docstring, "Shipping")."""
        ex = self.execution
        if ex.in_process:
            return obj
        if ex.client is not None:
            [future] = ex.client.scatter([_Held(obj)], broadcast=True, hash=False)
            self._handles.append(future)
            return future
        data = _dumps(obj, what)
        digest = hashlib.sha256(data).hexdigest()
        if isinstance(ex.executor, cf.ProcessPoolExecutor):
            fd, path = tempfile.mkstemp(prefix="dperm-audit-", suffix=".pickle")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            self._files.append(path)
            return _Shipped(digest, path=path)
        return _Shipped(digest, data=data)

    def timing(self) -> dict:
        """``seconds`` since the job started and ``chunk_seconds`` spent inside its chunks (their
        ratio is the share of the audit that more workers can speed up)."""
        return {"seconds": round(time.monotonic() - self.start, 3), "chunk_seconds": round(self.busy, 3)}

    def _where(self) -> str:
        workers = self.execution.workers()
        return f"{self.execution.name}, {workers or '?'} worker{'' if workers == 1 else 's'}"

    def _report(self) -> None:
        self._ticker(self.done, self.total)

    def map(self, fn, shared: tuple, tasks: list, *, runs=lambda task: 0, consume=None, what="chunk"):
        """Run ``fn(*shared objects, task)`` for every task; return the results in task order.

        ``shared``: handles from :meth:`share`. ``runs(task)``: the runs a task does (progress).
        ``consume(i, result)``: called in the driver for each result as it arrives (any order);
        the results are then not kept (streaming reductions). ``what``: how to name a task in
        error messages.
        """
        ex = self.execution
        results: list = [None] * len(tasks)

        def take(i, timed):
            value, seconds = timed
            self.busy += seconds
            self.done += runs(tasks[i])
            self.chunks += 1
            if consume is not None:
                consume(i, value)
            else:
                results[i] = value
            self._report()

        if ex.executor is None:
            for i, task in enumerate(tasks):
                take(i, _call_task(fn, shared, task))
            return results
        if ex.client is not None:
            def submit(task):
                return ex.client.submit(_call_task, fn, shared, task, pure=False)
            window = len(tasks)  # the scheduler queues them
        else:
            def submit(task):
                return ex.executor.submit(_call_task, fn, shared, task)
            window = 2 * (ex.workers() or 4) + 2  # bounds the copies of shipped bytes in flight
        pending: dict = {}
        queue = iter(enumerate(tasks))
        try:
            for i, task in queue:
                pending[submit(task)] = i
                if len(pending) >= window:
                    break
            while pending:
                finished, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED) if ex.client is None \
                    else _dask_wait(list(pending))
                for fut in finished:
                    i = pending.pop(fut)
                    try:
                        value = fut.result()
                    except _infrastructure_errors() as exc:
                        raise ExecutionError(
                            f"{self.label}: {what} {i + 1} of {len(tasks)} ({_task_text(tasks[i])}) was lost by the "
                            f"{ex.name} executor ({type(exc).__name__}: {exc}); the audit stops rather than count "
                            "a partial set of runs (the same seed reproduces it)") from exc
                    take(i, value)
                for i, task in queue:
                    pending[submit(task)] = i
                    if len(pending) >= window:
                        break
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise
        return results


def _dask_wait(futures):
    """``(done, not_done)`` for Dask futures. ``distributed.wait`` raises when a future it waited for
    was cancelled (a scheduler that forgot its tasks); the cancelled ones are then returned as done,
    so that their ``result()`` raises in :meth:`Job.map`, which names the lost chunk."""
    from distributed import wait

    try:
        done, not_done = wait(futures, return_when="FIRST_COMPLETED")
    except cf.CancelledError:  # distributed's FuturesCancelledError
        done = {f for f in futures if f.status != "pending"}
        not_done = {f for f in futures if f.status == "pending"}
    return done, not_done


def _task_text(task) -> str:
    if isinstance(task, Chunk):
        return f"stream {task.stream}, chunk {task.index}, {task.size} runs"
    return repr(task)[:80]


# --------------------------------------------------------------------------------------------
# The default executor and executor specifications

_CURRENT: contextvars.ContextVar = contextvars.ContextVar("dperm_audit_execution", default=None)


def current() -> Execution:
    """The execution the audits use when they are given no ``executor``: the one set by
    :func:`using` (the pytest plugin's ``--audit-executor``), else serial in this process."""
    ex = _CURRENT.get()
    return ex if ex is not None else Execution(None)


@contextlib.contextmanager
def using(executor, *, progress=None):
    """Within the block, audits given no ``executor`` run on this one (any form :func:`resolve` takes)."""
    token = _CURRENT.set(resolve(executor, progress=progress))
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def resolve(executor=None, *, progress=None) -> Execution:
    """An :class:`Execution` from an audit's ``executor`` argument: ``None`` (the current one,
    :func:`current`), an Execution, a ``concurrent.futures.Executor`` or a ``distributed.Client``."""
    if executor is None:
        ex = current()
        if progress is not None:
            ex = Execution(ex.executor, progress=progress, name=ex.name)
        return ex
    if isinstance(executor, Execution):
        return executor
    if isinstance(executor, str):
        raise TypeError(f"executor ({executor!r}) must be a concurrent.futures.Executor, not a specification: "
                        "open one with audits.execution.open_executor")
    return Execution(executor, progress=progress)


def parse_spec(spec: str) -> tuple[str, object]:
    """``serial``, ``processes:N``, ``dask:local:N`` or ``dask:ADDRESS`` as ``(kind, argument)``."""
    if not isinstance(spec, str):
        raise TypeError(f"executor ({spec!r}) must be a string such as processes:2 or dask:local:2")
    text = spec.strip()
    rule = "must be serial, processes:N, dask:local:N or dask:SCHEDULER_ADDRESS"

    def count(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise ParameterError(f"executor ({spec!r}) {rule} with N a whole number of workers") from None
        if n < 1:
            raise ParameterError(f"executor ({spec!r}): the number of workers ({n}) must be >= 1")
        return n

    if text == "serial":
        return "serial", None
    kind, _, rest = text.partition(":")
    if kind == "processes" and rest:
        return "processes", count(rest)
    if kind == "dask" and rest.startswith("local:"):
        return "dask-local", count(rest[len("local:"):])
    if kind == "dask" and rest and rest != "local":
        return "dask", rest
    raise ParameterError(f"executor ({spec!r}) {rule}")


def _need_distributed(spec: str) -> None:
    if not distributed_available():
        raise ParameterError(f"executor ({spec!r}) needs Dask's distributed engine, which is not installed: "
                             f"{INSTALL_HINT}; without it, audits run in this process (leave the executor out) "
                             "or on processes:N")


@contextlib.contextmanager
def open_executor(spec: str, *, progress=None):
    """Start the executor a specification names, yield its :class:`Execution`, and shut it down.

    ``serial`` (this process); ``processes:N`` (a ``ProcessPoolExecutor`` of N processes);
    ``dask:local:N`` (a Dask ``LocalCluster`` of N single-threaded worker processes on this
    machine); ``dask:ADDRESS`` (the Dask scheduler at ADDRESS, e.g. ``tcp://10.0.0.5:8786``,
    whose workers must have dperm installed).
    """
    kind, arg = parse_spec(spec)
    if kind == "serial":
        yield Execution(None, progress=progress)
        return
    if kind == "processes":
        try:
            import cloudpickle  # noqa: F401
        except ImportError:
            raise ParameterError(f"executor ({spec!r}) sends the audit's statistics (closures) to its processes "
                                 f"with cloudpickle, which is not installed: {INSTALL_HINT}") from None
        with cf.ProcessPoolExecutor(max_workers=arg) as pool:
            yield Execution(pool, progress=progress, name="processes")
        return
    _need_distributed(spec)
    from distributed import Client, LocalCluster

    if kind == "dask-local":
        # dashboard_address ":0": a free port (the scheduler's HTTP server would otherwise take
        # 8787, and warn when another cluster on this machine holds it).
        with LocalCluster(n_workers=arg, threads_per_worker=1, processes=True, dashboard_address=":0",
                          silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            yield Execution(client, progress=progress, name="dask")
        return
    with Client(arg) as client:
        yield Execution(client, progress=progress, name="dask")
