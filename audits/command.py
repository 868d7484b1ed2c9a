"""Core of ``dperm audit``: audit a mechanism from a module or a ``.py`` file.

::

    dperm audit MODULE:MECHANISM --pair MODULE:PAIR --epsilon E [--delta D] [--runs N]
                [--seed S] [--alpha A] [--relation replace-one|add-remove-one]
                [--profile PROFILE] [--statistic MODULE:NAME] [--event MODULE:NAME|T]
                [--direction both|dataset|neighbour] [--low-bits auto|on|off]
                [--power P] [--detect F] [--executor SPEC] [--json]

``MODULE`` is an importable module name (found from the current directory too) or the path of
a ``.py`` file (whose folder is put on the import path, so it can import the helpers next to
it). ``MECHANISM`` names a callable ``mechanism(data, runs, rng)``. ``PAIR`` names a
:class:`audits.pairs.NeighbouringPair`, a ``(dataset, neighbour)`` tuple, or a zero-argument
callable returning either; a tuple is checked with ``--relation`` (default replace-one).
``PROFILE`` is ``MODULE:NAME`` (a profile ``delta(eps)`` or an object with ``tradeoff``) or a
ready-made profile (:mod:`audits.profiles`: ``laplace:scale=B``, ``gaussian:sigma=S``,
``gaussian:epsilon=E,delta=D``, ``pure``, ``record:ID,NAME=VALUE,...``): profile mode.
``--statistic`` and ``--event`` name a statistic ``T(outputs)`` and an event
``S(outputs) -> bool`` (or give a threshold ``t`` for ``{T > t}``); with an event, all runs go to
the test (:func:`audits.privacy.audit_privacy`).

Without ``--runs`` the run count is derived from a target power: the runs per dataset that flag
the mechanism the claim describes (the ready-made profile's, or a Laplace mechanism calibrated
to epsilon, or the analytic Gaussian when delta > 0) with its noise multiplied by ``--detect``
(default 0.8) with probability ``--power`` (default 0.9), at most :data:`MAX_DEFAULT_RUNS`, and
at least :data:`FLOAT_LEAK_RUNS` when the low-bit test will run (floating-point outputs with the
default statistic); a note on stderr says which.

``--executor processes:N|dask:local:N|dask:SCHEDULER_ADDRESS`` runs the audit's chunks of runs on
N processes, a Dask ``LocalCluster`` of N workers started for the audit, or a running Dask
scheduler (:mod:`audits.execution`; Dask needs the ``distributed`` extra). The result is the same
bit for bit; a note on stderr names the executor, its workers and the chunks, and audits running
longer than 10 s print progress lines with an ETA there. The mechanism's module (and the modules
next to a ``.py`` file) are sent to the workers by value, so a remote cluster needs only dperm.

Prints the one-line result (or its JSON with ``--json``: indented by 2, an infinite value
written as null and its key listed in ``"infinite"``, as the other verbs do). The line names every
family of tests that refutes the claim (its values, its floating-point low bits) with its bound;
the JSON has them in ``families``, ``refuted_by`` and ``verdict``. Exit status:

* 0: the claim is not refuted;
* 1: it is refuted by the values of the outputs (whether or not their low bits refute it too):
  the mechanism as designed leaks more than it claims;
* 4 (:data:`EXIT_LOW_BITS_ONLY`): it is refuted only by the low-order bits of floating-point
  outputs: the real-valued mechanism is not refuted, the floating-point implementation leaks
  (fixed by a discrete or snapped sampler; ``--low-bits off`` audits the idealisation);
* 2: bad arguments or invalid values (one line ``dperm: error: ...`` on stderr): a claim out of
  range, a pair that is not a pair of neighbours, runs beyond the memory estimate, a mechanism
  that returns outputs of the wrong shape or type, a module that does not exist, an executor
  that cannot be started or that lost a chunk of runs, ...;
* 3: the audited code itself failed: an exception while importing the user's file or module
  (one line naming the cause and where), or raised *inside* the user's code (the mechanism, its
  ``logpdf``, the statistic or event, the pair factory or the profile: the line and the
  traceback), so that a bug in the mechanism is never mistaken for bad arguments nor for a
  refuted claim.

Warnings (:class:`audits.privacy.RngWarning`: outputs that do not behave as draws from ``rng``)
are printed as ``dperm: warning: ...`` lines on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.util
import json
import math
import os
import sys
import traceback
import warnings
from pathlib import Path

from audits import execution
from audits.pairs import NeighbouringPair, as_relation, assert_neighbours
from audits.privacy import RngWarning, _name, audit_privacy
from audits.profiles import ReadyProfile
from spec.errors import ParameterError

__all__ = ["add_arguments", "run", "main", "load_object", "user_import_path", "failure_status", "EXIT_USER_ERROR",
           "EXIT_REFUTED", "EXIT_LOW_BITS_ONLY", "EXIT_STATUS", "MAX_DEFAULT_RUNS"]

#: Exit status when the user's own code raised (or failed to import).
EXIT_USER_ERROR = 3
#: Exit status when the claim is refuted by the values of the outputs.
EXIT_REFUTED = 1
#: Exit status when the claim is refuted only by the low bits of floating-point outputs.
EXIT_LOW_BITS_ONLY = 4
#: Exit status of each ``AuditResult.verdict``.
EXIT_STATUS = {"not refuted": 0, "refuted by values": EXIT_REFUTED, "refuted only by low bits": EXIT_LOW_BITS_ONLY}
#: Largest run count chosen when ``--runs`` is not given.
MAX_DEFAULT_RUNS = 2_000_000
#: Smallest run count chosen when ``--runs`` is not given.
MIN_DEFAULT_RUNS = 1000
#: Default runs at least this when the low-bit family applies (default statistic, floating-point
#: outputs that are not discrete): textbook floating-point Laplace (scale 1) and Gaussian (sigma 4)
#: noise on a count were refuted in 100 of 100 seeded audits at alpha 0.05 with 10000 runs, and
#: the Laplace in 96 of 100 with 5000 (the noise-scale design alone gave 2360 runs, and 13 of 20).
FLOAT_LEAK_RUNS = 10_000
PREFIX = "dperm: error: "


class _UsageError(Exception):
    """Bad arguments: reported on one line, exit status 2."""


class _UserCodeError(Exception):
    """An exception raised inside the user's code (its ``__cause__``): exit status 3."""

    def __init__(self, what: str, traceback_too: bool = True, cause_line: str | None = None,
                 cause_traceback: str = ""):
        super().__init__(what)
        self.what = what
        self.traceback_too = traceback_too
        self.cause_line, self.cause_traceback = cause_line, cause_traceback

    def cause(self) -> tuple[str, str]:
        """``("Type: message", traceback text)`` of the user's exception."""
        if self.cause_line is not None:
            return self.cause_line, self.cause_traceback
        cause = self.__cause__
        if cause is None:
            return "", ""
        tb = cause.__traceback__
        # The first frame is the guard's own call; the rest is the user's code (and below).
        text = "".join(traceback.format_exception(type(cause), cause, (tb.tb_next or tb) if tb else None))
        return f"{type(cause).__name__}: {' '.join(str(cause).split())}", text

    def __reduce__(self):  # from an executor's worker, with its cause as text
        return (_UserCodeError, (self.what, self.traceback_too, *self.cause()))


def _guarded(function, what: str):
    """``function`` with any exception it raises wrapped in :class:`_UserCodeError`, so that
    the audit's own validation errors (exit 2) are told apart from bugs in the user's code."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            raise _UserCodeError(what) from exc

    return call


def _guard_mechanism(mechanism, reference: str):
    call = _guarded(mechanism, f"mechanism {reference}")
    call.__qualname__ = _name(mechanism)  # the audit names the mechanism in its messages
    logpdf = getattr(mechanism, "logpdf", None)
    call.logpdf = _guarded(logpdf, f"{reference}.logpdf") if callable(logpdf) else None
    call.seeded = getattr(mechanism, "seeded", True)
    return call


class _GuardedTradeoff:
    def __init__(self, profile, reference: str):
        self.tradeoff = _guarded(profile.tradeoff, f"{reference}.tradeoff")


def _guard_profile(profile, reference: str):
    if callable(getattr(profile, "tradeoff", None)):
        return _GuardedTradeoff(profile, reference)
    if callable(profile):
        return _guarded(profile, f"profile {reference}")
    return profile  # audit_privacy rejects it (TypeError naming the profile)


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the ``dperm audit`` arguments to an argparse (sub)parser."""
    parser.add_argument("mechanism", metavar="MODULE:MECHANISM",
                        help="module name or .py file, and the mechanism(data, runs, rng) in it")
    parser.add_argument("--pair", required=True, metavar="MODULE:PAIR",
                        help="a NeighbouringPair, a (dataset, neighbour) tuple, or a callable returning one")
    parser.add_argument("--epsilon", required=True, type=float, help="claimed epsilon (> 0)")
    parser.add_argument("--delta", type=float, default=0.0, help="claimed delta in [0, 1) (default 0)")
    parser.add_argument("--runs", type=float, default=None,
                        help="runs per dataset, an integer (default: derived from --power and --detect)")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: drawn and printed)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="error level: a correct mechanism is refuted with probability at most this "
                             "(default 0.05)")
    parser.add_argument("--relation", choices=["replace-one", "add-remove-one"], default="replace-one",
                        help="relation asserted for a (dataset, neighbour) tuple (default replace-one)")
    parser.add_argument("--profile", default=None, metavar="PROFILE",
                        help="declared privacy profile: MODULE:NAME (delta(eps) or a trade-off object) or "
                             "ready-made laplace:scale=B | gaussian:sigma=S | gaussian:epsilon=E,delta=D | "
                             "pure | record:ID,NAME=VALUE,... (profile mode)")
    parser.add_argument("--statistic", default=None, metavar="MODULE:NAME",
                        help="statistic(outputs) -> one number per output, instead of the default family")
    parser.add_argument("--event", default=None, metavar="MODULE:NAME|T",
                        help="the event to test: event(outputs) -> one boolean per output, or a number T "
                             "for {statistic > T}; all runs go to the test (no selection)")
    parser.add_argument("--direction", choices=["both", "dataset", "neighbour"], default="both",
                        help="with --event: which order of the claim to test (both: alpha/2 each)")
    parser.add_argument("--low-bits", choices=["auto", "on", "off"], default="auto",
                        help="the low-bit test of floating-point outputs, in point and profile mode and "
                             "with --event (auto: when the audit picks the statistic, i.e. without "
                             "--statistic, --event or a logpdf; on: always, an error for integer outputs; "
                             "off: audit the real-valued idealisation). A claim refuted only by the low "
                             "bits exits with 4")
    parser.add_argument("--power", type=float, default=0.9,
                        help="without --runs: target power of the derived run count (default 0.9)")
    parser.add_argument("--detect", type=float, default=0.8,
                        help="without --runs: the noise factor the derived run count must flag (default 0.8)")
    parser.add_argument("--executor", default=None, metavar="SPEC",
                        help="processes:N | dask:local:N | dask:SCHEDULER_ADDRESS: where the chunks of runs "
                             "execute (same result; dask needs the 'distributed' extra)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


@contextlib.contextmanager
def _import_path(folder: str):
    """``folder`` first on ``sys.path`` while the user's code is loaded and run."""
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(folder)


def _import_failure(spec: str, exc: BaseException) -> _UserCodeError:
    """One line: the exception and the innermost frame of the user's file."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f" ({exc.filename}, line {exc.lineno})"
    elif frames:
        where = f" ({frames[-1].filename}, line {frames[-1].lineno})"
    err = _UserCodeError(f"importing {spec} failed{where}", traceback_too=False)
    err.__cause__ = exc
    return err


def _load_module(spec: str):
    path = Path(spec)
    if spec.endswith(".py") or path.is_file():
        if not path.is_file():
            raise _UsageError(f"module file ({spec}) does not exist")
        name = "dperm_audit_user_" + "".join(c if c.isalnum() else "_" for c in str(path.resolve()))
        if name in sys.modules:
            return sys.modules[name]
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise _UsageError(f"module file ({spec}) cannot be imported")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise _import_failure(spec, exc) from exc
        return module
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        if exc.name and (spec == exc.name or spec.startswith(exc.name + ".")):
            raise _UsageError(f"module ({spec}) cannot be imported: {exc}") from None
        raise _import_failure(spec, exc) from exc
    except Exception as exc:
        raise _import_failure(spec, exc) from exc


def load_object(reference: str, what: str):
    """Resolve ``MODULE:NAME`` (``NAME`` may be dotted) to an object."""
    if ":" not in reference:
        raise _UsageError(f"{what} ({reference!r}) must have the form MODULE:NAME")
    module_part, name = reference.rsplit(":", 1)
    if not module_part or not name:
        raise _UsageError(f"{what} ({reference!r}) must have the form MODULE:NAME")
    obj = _load_module(module_part)
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise _UsageError(f"{what} ({reference!r}): {module_part} has no attribute {name!r}") from None
    return obj


def _resolve_pair(obj, relation: str, reference: str = "pair") -> NeighbouringPair:
    if callable(obj) and not isinstance(obj, (tuple, NeighbouringPair)):
        obj = _guarded(obj, f"pair factory {reference}")()
    if isinstance(obj, NeighbouringPair):
        return obj
    if isinstance(obj, tuple) and len(obj) == 2:
        rel = as_relation(relation)
        assert_neighbours(obj[0], obj[1], rel)
        return NeighbouringPair(obj[0], obj[1], rel)
    raise _UsageError("pair must be a NeighbouringPair, a (dataset, neighbour) tuple, or a "
                      f"zero-argument callable returning one; got {type(obj).__name__}")


def _profile(text: str, args):
    from audits import profiles

    if profiles.is_ready_profile(text):
        return profiles.ready_profile(text, epsilon=args.epsilon, delta=args.delta)
    return _guard_profile(load_object(text, "profile"), text)


def _runs(args, ready) -> tuple[int, str | None]:
    """``--runs`` as an integer, or the derived default and a note saying how it was derived."""
    if args.runs is not None:
        if not math.isfinite(args.runs) or args.runs != int(args.runs):
            raise _UsageError(f"--runs ({args.runs:g}) must be a whole number")
        return int(args.runs), None
    from audits import profiles
    from spec import validate

    validate.epsilon(args.epsilon)
    validate.delta(args.delta, allow_zero=True)
    power = validate.interval("power", args.power, 0.0, 1.0, closed="neither")
    factor = validate.interval("detect", args.detect, 0.0, 1.0, closed="neither")
    alpha = validate.interval("alpha", args.alpha, 0.0, 1.0, closed="neither")
    runs = profiles.suggested_runs(ready, epsilon=args.epsilon, delta=args.delta, alpha=alpha, power=power,
                                   factor=factor)
    model = ready.description if ready is not None else (
        f"a Laplace mechanism calibrated to epsilon {args.epsilon:g}" if args.delta == 0 else
        f"the analytic Gaussian at ({args.epsilon:g}, {args.delta:g})")
    chosen = min(max(runs, MIN_DEFAULT_RUNS), MAX_DEFAULT_RUNS)
    note = (f"--runs not given: {chosen} runs per dataset, to flag noise x{factor:g} of {model} with power "
            f"{power:g}" + ("" if chosen == runs else f" (the design asks {runs}; capped)"))
    return chosen, note


def _low_bits_apply(mechanism, pair, statistic, event, low_bits, name) -> bool:
    """Whether the audit will run the low-bit family: a probe of 64 outputs (seeded, discarded)
    decided by the audit's own rule (:func:`audits.low_bits.plan`)."""
    import numpy as np

    from audits import low_bits as low_bits_test
    from audits.calls import call_with_runs_rng

    if low_bits is False:
        return False
    out = np.asarray(call_with_runs_rng(_guarded(mechanism, f"mechanism {name}"), pair.dataset, runs=64,
                                        rng=np.random.default_rng(0)))
    if out.ndim == 1:
        out = out[:, None]
    try:
        return low_bits_test.plan(low_bits, statistic=statistic, mechanism=mechanism, event=event, sel_d=out,
                                  sel_n=out, name=name)[0]
    except ParameterError:  # low_bits=True on outputs without low bits: the audit says so
        return False


#: Top-level packages that workers import themselves (dperm's own).
_OURS = ("spec", "reference", "audits", "dperm")


def _user_folder(module):
    """The folder of a user's module (None for dperm's own and installed packages)."""
    path = getattr(module, "__file__", None)
    if not path or module.__name__.split(".")[0] in _OURS:
        return None
    resolved = Path(path).resolve()
    return None if "site-packages" in resolved.parts or "dist-packages" in resolved.parts else resolved.parent


def _send_by_value(*objects) -> None:
    """Have cloudpickle send the modules of the user's ``objects``, and the modules next to them,
    by value, so that workers that cannot import them still run the mechanism."""
    import inspect

    folders = {f for f in (_user_folder(inspect.getmodule(o)) for o in objects if o is not None) if f}
    for module in list(sys.modules.values()):
        folder = _user_folder(module)
        if folder is not None and any(folder == f or f in folder.parents for f in folders):
            execution.send_by_value(module)


def run(args: argparse.Namespace) -> int:
    """Execute ``dperm audit`` for parsed ``args``; returns the exit status."""
    with warnings.catch_warnings(record=True) as caught, _import_path(os.getcwd()):
        warnings.simplefilter("always", RngWarning)
        status, text = _run(args)
    for w in caught:
        if issubclass(w.category, RngWarning):
            print(f"dperm: warning: {' '.join(str(w.message).split())}", file=sys.stderr)
        else:  # not ours to reformat
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if text is not None:
        print(text)
    return status


def user_import_path(reference: str):
    """The folder of ``reference``'s ``.py`` file first on ``sys.path`` (a context manager; a no-op
    for a module name), so that the user's file can import the helpers next to it."""
    module_part = reference.rsplit(":", 1)[0]
    if module_part.endswith(".py") or Path(module_part).is_file():
        return _import_path(str(Path(module_part).resolve().parent))
    return contextlib.nullcontext()


def failure_status(exc: Exception) -> int:
    """Report an exception of a verb's run on stderr and return its exit status: 3 for a failure
    inside the user's code (:class:`_UserCodeError`: one line, then its traceback), 2 for bad
    arguments or values (one line)."""
    if isinstance(exc, _UserCodeError):
        line, text = exc.cause()
        print(f"{PREFIX}{exc.what} (a bug in the audited code, not in the arguments): {line}", file=sys.stderr)
        if exc.traceback_too and text:
            sys.stderr.write(text)
        return EXIT_USER_ERROR
    print(f"{PREFIX}{' '.join(str(exc).split())}", file=sys.stderr)
    return 2


def _run(args) -> tuple[int, str | None]:
    try:
        with user_import_path(args.mechanism):
            mechanism = load_object(args.mechanism, "mechanism")
            if not callable(mechanism):
                raise _UsageError(f"mechanism ({args.mechanism}) must be callable as mechanism(data, runs, rng)")
            pair = _resolve_pair(load_object(args.pair, "pair"), args.relation, args.pair)
            profile = _profile(args.profile, args) if args.profile else None
            ready = profile if isinstance(profile, ReadyProfile) else None
            statistic = event = None
            if args.statistic:
                statistic = _guarded(load_object(args.statistic, "statistic"), f"statistic {args.statistic}")
            if args.event:
                try:
                    event = float(args.event)
                except ValueError:
                    event = _guarded(load_object(args.event, "event"), f"event {args.event}")
            runs, note = _runs(args, ready)
            low_bits = {"auto": None, "on": True, "off": False}[args.low_bits]
            if args.runs is None and runs < FLOAT_LEAK_RUNS and _low_bits_apply(mechanism, pair, statistic, event,
                                                                                low_bits, args.mechanism):
                runs = FLOAT_LEAK_RUNS
                note += (f"; raised to {FLOAT_LEAK_RUNS} because the outputs are floating-point values and "
                         "the low-bit test looks for the floating-point leak of textbook noise")
            if args.executor and execution.parse_spec(args.executor)[0] != "serial":
                _send_by_value(mechanism, pair, statistic, event, profile)
            # TypeError and ParameterError reaching here come from the audit's checks of the
            # arguments and of the user's outputs: errors inside user code are _UserCodeError.
            with execution.open_executor(args.executor or "serial") as ex:
                result = audit_privacy(_guard_mechanism(mechanism, args.mechanism), pair,
                                       epsilon=args.epsilon, delta=args.delta, runs=runs, alpha=args.alpha,
                                       seed=args.seed, profile=ready.profile if ready else profile,
                                       statistic=statistic, event=event, direction=args.direction,
                                       low_bits=low_bits, executor=ex)
    except (_UserCodeError, _UsageError, ParameterError, TypeError, execution.ExecutionError) as exc:
        return failure_status(exc), None
    if note:  # printed once the audit ran (an error stays a single line)
        print(f"dperm: note: {note}", file=sys.stderr)
    if args.executor:
        where = result.execution or {}
        print(f"dperm: note: executor {args.executor} ({where.get('workers', '?')} workers): "
              f"{where.get('chunks', '?')} chunks of up to {where.get('chunk_runs', '?')} runs", file=sys.stderr)
    if args.json:
        text = json.dumps(result.to_dict(), indent=2, allow_nan=False)  # strict already (spec.jsonable)
    else:
        text = str(result)
    return EXIT_STATUS[result.verdict], text


def main(argv=None) -> int:
    """Stand-alone entry point (``python -m audits.command ...``)."""
    parser = add_arguments(argparse.ArgumentParser(prog="dperm audit", description=__doc__.splitlines()[0]))
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
