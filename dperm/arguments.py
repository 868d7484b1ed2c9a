"""Command-line arguments in canonical names (:mod:`spec.vocabulary`) and one-line usage errors.

Every canonical parameter name is a command-line option of ``dperm calibrate`` and ``dperm
epsilon`` (``--n``, ``--epsilon``, ``--strong-convexity`` or ``--strong_convexity``), and a
``name=value`` pair of ``dperm spec ID --eval``; integer terms take integers. The option's help
is the term's meaning, so the vocabulary is the one place where a parameter is explained.

>>> parse_assignments(["n=100", "delta=1e-5"])
{'n': 100, 'delta': 1e-05}
>>> parse_assignments(["n=1e2"])
Traceback (most recent call last):
...
dperm.arguments.UsageError: n (1e2): invalid integer (n is an integer parameter)
"""

from __future__ import annotations

import argparse
import difflib

from spec.vocabulary import VOCABULARY

__all__ = [
    "UsageError",
    "Parser",
    "number",
    "integer",
    "option",
    "add_canonical_options",
    "canonical_values",
    "parse_assignments",
]


class UsageError(Exception):
    """Bad command-line arguments: reported as one line ``dperm: error: ...``, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are :class:`UsageError` (one line, status 2)."""

    def error(self, message):  # argparse prints usage + message and exits otherwise
        raise UsageError(message)


def number(text: str) -> float:
    """A real option value; non-finite values pass through to the library's validation."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None


def integer(text: str) -> int:
    """An integer option value (``1.5`` and ``1e2`` are rejected, not truncated)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}") from None


def option(name: str) -> str:
    """The option spelling of a canonical name shown in messages: ``--sampling-rate``."""
    return "--" + name.replace("_", "-")


def add_canonical_options(parser: argparse.ArgumentParser, *, title: str, notes: dict[str, str]):
    """Add one option per canonical name, in a group called ``title``.

    ``notes`` maps a name to extra help appended to the term's meaning. Options default to None
    (not given); integer terms parse as integers.
    """
    group = parser.add_argument_group(title)
    for name, term in VOCABULARY.items():
        spellings = [option(name)] + ([f"--{name}"] if "_" in name else [])
        extra = notes.get(name)
        group.add_argument(
            *spellings, dest=name, default=None, type=integer if term.integer else number,
            metavar="INT" if term.integer else "X",
            help=term.meaning + (f". {extra}" if extra else ""),
        )
    return group


def canonical_values(args: argparse.Namespace) -> dict[str, object]:
    """The canonical options given on the command line, in vocabulary order."""
    return {name: getattr(args, name) for name in VOCABULARY if getattr(args, name, None) is not None}


def parse_assignments(pairs: list[str]) -> dict[str, object]:
    """``["n=100", "delta=1e-5"]`` -> ``{"n": 100, "delta": 1e-05}`` (canonical names only)."""
    values: dict[str, object] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--eval value ({pair!r}) must look like name=value, e.g. n=100")
        term = VOCABULARY.get(name)
        if term is None:
            close = difflib.get_close_matches(name, list(VOCABULARY), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise UsageError(f"{name!r} is not a canonical parameter name (spec.vocabulary){hint}")
        if name in values:
            raise UsageError(f"{name} is given twice")
        try:
            values[name] = integer(text) if term.integer else number(text)
        except argparse.ArgumentTypeError:
            rule = f"invalid integer ({name} is an integer parameter)" if term.integer else "invalid number"
            raise UsageError(f"{name} ({text}): {rule}") from None
    return values
