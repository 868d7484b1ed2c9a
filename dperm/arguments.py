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
dperm.arguments.UsageError: n (1e2) must be an integer (n is an integer parameter)

Messages about values have one form everywhere, ``NAME (VALUE) must ...``: ``--steps (1.5) must
be an integer``, ``n (1.5) must be an integer``, ``steps (0) must be >= 1``.

This module imports :mod:`spec.vocabulary` (hence the registry, sympy and every record) only when
a function needs it, so that ``dperm --help`` starts in a fraction of a second.
"""

from __future__ import annotations

import argparse
import difflib
import re

__all__ = [
    "UsageError",
    "Parser",
    "number",
    "integer",
    "typed",
    "option",
    "add_canonical_options",
    "canonical_values",
    "parse_assignments",
]


class UsageError(Exception):
    """Bad command-line arguments: reported as one line ``dperm: error: ...``, exit status 2."""


#: argparse's wording for a value its type function rejected: "argument --n: --n (1.5) must ...".
_TYPED = re.compile(r"^argument (?P<option>[^:]+): (?P<message>.*)$", re.S)


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are :class:`UsageError` (one line, status 2)."""

    def error(self, message):  # argparse prints usage + message and exits otherwise
        found = _TYPED.match(message)
        if found:  # our type functions name the option themselves: drop argparse's prefix
            spellings = found["option"].split("/")
            if any(found["message"].startswith(f"{s} (") for s in spellings):
                message = found["message"]
        raise UsageError(message)


def number(text: str, *, name: str = "value") -> float:
    """A real option value; non-finite values pass through to the library's validation."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name} ({text}) must be a real number") from None


def integer(text: str, *, name: str = "value") -> int:
    """An integer option value (``1.5`` and ``1e2`` are rejected, not truncated)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name} ({text}) must be an integer") from None


def typed(kind, name: str):
    """An argparse ``type=`` for option ``name`` (``--steps``) whose errors name the option and
    its value: ``typed(integer, "--steps")("1.5")`` -> ``--steps (1.5) must be an integer``."""

    def convert(text: str):
        return kind(text, name=name)

    convert.__name__ = kind.__name__  # argparse names the type in some messages
    return convert


def option(name: str) -> str:
    """The option spelling of a canonical name shown in messages: ``--sampling-rate``."""
    return "--" + name.replace("_", "-")


def add_canonical_options(parser: argparse.ArgumentParser, *, title: str, notes: dict[str, str]):
    """Add one option per canonical name, in a group called ``title``.

    ``notes`` maps a name to extra help appended to the term's meaning. Options default to None
    (not given); integer terms parse as integers.
    """
    from spec.vocabulary import VOCABULARY

    group = parser.add_argument_group(title)
    for name, term in VOCABULARY.items():
        spellings = [option(name)] + ([f"--{name}"] if "_" in name else [])
        extra = notes.get(name)
        group.add_argument(
            *spellings, dest=name, default=None, type=typed(integer if term.integer else number, option(name)),
            metavar="INT" if term.integer else "X",
            help=term.meaning + (f". {extra}" if extra else ""),
        )
    return group


def canonical_values(args: argparse.Namespace) -> dict[str, object]:
    """The canonical options given on the command line, in vocabulary order."""
    from spec.vocabulary import VOCABULARY

    return {name: getattr(args, name) for name in VOCABULARY if getattr(args, name, None) is not None}


def parse_assignments(pairs: list[str]) -> dict[str, object]:
    """``["n=100", "delta=1e-5"]`` -> ``{"n": 100, "delta": 1e-05}`` (canonical names only)."""
    from spec.vocabulary import VOCABULARY

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
            values[name] = integer(text, name=name) if term.integer else number(text, name=name)
        except argparse.ArgumentTypeError as err:
            why = f" ({name} is an integer parameter)" if term.integer else ""
            raise UsageError(f"{err}{why}") from None
    return values
