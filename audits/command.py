"""Core of ``dperm audit``: audit a mechanism from a module or a ``.py`` file.

::

    dperm audit MODULE:MECHANISM --pair MODULE:PAIR --epsilon E [--delta D] [--runs N]
                [--seed S] [--alpha A] [--relation replace-one|add-remove-one]
                [--profile MODULE:PROFILE] [--json]

``MODULE`` is an importable module name or the path of a ``.py`` file. ``MECHANISM`` names a
callable ``mechanism(data, runs, rng)``. ``PAIR`` names a :class:`audits.pairs.NeighbouringPair`,
a ``(dataset, neighbour)`` tuple, or a zero-argument callable returning either; a tuple is
checked with ``--relation`` (default replace-one). ``PROFILE`` (optional) names a declared
privacy profile ``delta(eps)`` or an object with ``tradeoff``: profile mode.

Prints the one-line result (or its JSON with ``--json``). Exit status:

* 0: the claim is not refuted; 1: it is refuted;
* 2: bad arguments or invalid values (one line on stderr): a claim out of range, a pair that is
  not a pair of neighbours, a mechanism that returns outputs of the wrong shape or type, ...;
* 3: an exception raised *inside* the user's code (the mechanism, its ``logpdf``, the pair
  factory or the profile): the full traceback is printed on stderr, so that a bug in the
  mechanism is never mistaken for bad arguments nor for a refuted claim.

Exceptions raised while importing the user's module propagate unchanged (with a traceback).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import json
import sys
import traceback
from pathlib import Path

from audits.pairs import NeighbouringPair, as_relation, assert_neighbours
from audits.privacy import _name, audit_privacy
from spec.errors import ParameterError

__all__ = ["add_arguments", "run", "main", "load_object", "EXIT_USER_ERROR"]

DEFAULT_RUNS = 100_000
#: Exit status when the user's own code raised (traceback on stderr).
EXIT_USER_ERROR = 3


class _UsageError(Exception):
    """Bad arguments: reported on one line, exit status 2."""


class _UserCodeError(Exception):
    """An exception raised inside the user's code (its ``__cause__``): exit status 3."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


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
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS,
                        help=f"runs per dataset (default {DEFAULT_RUNS})")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: drawn and printed)")
    parser.add_argument("--alpha", type=float, default=0.05, help="error level (default 0.05)")
    parser.add_argument("--relation", choices=["replace-one", "add-remove-one"], default="replace-one",
                        help="relation asserted for a (dataset, neighbour) tuple (default replace-one)")
    parser.add_argument("--profile", default=None, metavar="MODULE:PROFILE",
                        help="declared privacy profile delta(eps) (or trade-off object): profile mode")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def _load_module(spec: str):
    path = Path(spec)
    if spec.endswith(".py") or path.is_file():
        if not path.is_file():
            raise _UsageError(f"module file ({spec}) does not exist")
        name = "dperm_audit_user_" + "".join(c if c.isalnum() else "_" for c in str(path.resolve()))
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise _UsageError(f"module file ({spec}) cannot be imported")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except SyntaxError as exc:
            sys.modules.pop(name, None)
            raise _UsageError(f"module file ({spec}) has a syntax error: {exc}") from None
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module
    try:
        return importlib.import_module(spec)
    except ImportError as exc:
        raise _UsageError(f"module ({spec}) cannot be imported: {exc}") from None


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


def run(args: argparse.Namespace) -> int:
    """Execute ``dperm audit`` for parsed ``args``; returns the exit status."""
    try:
        mechanism = load_object(args.mechanism, "mechanism")
        if not callable(mechanism):
            raise _UsageError(f"mechanism ({args.mechanism}) must be callable as mechanism(data, runs, rng)")
        pair = _resolve_pair(load_object(args.pair, "pair"), args.relation, args.pair)
        profile = (_guard_profile(load_object(args.profile, "profile"), args.profile)
                   if args.profile else None)
        # TypeError and ParameterError reaching here come from the audit's checks of the
        # arguments and of the user's outputs: errors inside user code are _UserCodeError.
        result = audit_privacy(_guard_mechanism(mechanism, args.mechanism), pair,
                               epsilon=args.epsilon, delta=args.delta, runs=args.runs,
                               alpha=args.alpha, seed=args.seed, profile=profile)
    except _UserCodeError as exc:
        cause = exc.__cause__
        print(f"dperm audit: error inside {exc.what} (a bug in the audited code, not in the "
              f"arguments): {type(cause).__name__}: {cause}", file=sys.stderr)
        tb = cause.__traceback__
        # The first frame is the guard's own call; the rest is the user's code (and below).
        traceback.print_exception(type(cause), cause, tb.tb_next or tb, file=sys.stderr)
        return EXIT_USER_ERROR
    except (_UsageError, ParameterError, TypeError) as exc:
        message = " ".join(str(exc).split())
        print(f"dperm audit: error: {message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict(), sort_keys=True, allow_nan=False))  # non-finite: strings
    else:
        print(result)
    return 1 if result.violated else 0


def main(argv=None) -> int:
    """Stand-alone entry point (``python -m audits.command ...``)."""
    parser = add_arguments(argparse.ArgumentParser(prog="dperm audit", description=__doc__.splitlines()[0]))
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
