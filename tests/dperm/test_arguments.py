"""Canonical command-line arguments (dperm/arguments.py)."""

from __future__ import annotations

import pytest

from dperm.arguments import Parser, UsageError, add_canonical_options, canonical_values, option, parse_assignments
from spec.vocabulary import VOCABULARY


def test_one_option_per_canonical_name_with_its_meaning_and_type():
    parser = Parser(prog="x")
    add_canonical_options(parser, title="parameters", notes={"delta": "extra words"})
    args = parser.parse_args(["--n", "10", "--strong-convexity", "0.5", "--sampling_rate", "0.1", "--delta", "1e-5"])
    assert canonical_values(args) == {"delta": 1e-5, "n": 10, "sampling_rate": 0.1, "strong_convexity": 0.5}
    assert isinstance(args.n, int) and isinstance(args.strong_convexity, float)
    helps = {a.dest: a.help for a in parser._actions}  # argparse exposes no public walk over its actions
    for name, term in VOCABULARY.items():
        assert helps[name].startswith(term.meaning), name
    assert helps["delta"].endswith(". extra words")
    with pytest.raises(UsageError) as info:
        parser.parse_args(["--n", "1.5"])
    assert str(info.value) == "--n (1.5) must be an integer"  # argparse's "argument --n:" prefix dropped
    with pytest.raises(UsageError) as info:
        parser.parse_args(["--strong_convexity", "big"])
    assert str(info.value) == "--strong-convexity (big) must be a real number"
    assert option("sampling_rate") == "--sampling-rate"


@pytest.mark.parametrize(
    "pairs, message",
    [
        (["n"], "must look like name=value"),
        (["=3"], "must look like name=value"),
        (["strong_convexty=1"], "did you mean strong_convexity"),
        (["n=1", "n=2"], "n is given twice"),
        (["n=2.0"], "n (2.0) must be an integer (n is an integer parameter)"),
        (["epsilon=one"], "epsilon (one) must be a real number"),
    ],
)
def test_parse_assignments_rejects_with_one_line(pairs, message):
    with pytest.raises(UsageError) as info:
        parse_assignments(pairs)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_parse_assignments_values():
    assert parse_assignments(["n=100", "epsilon=1", "delta=1e-5", "steps=3"]) == {
        "n": 100, "epsilon": 1.0, "delta": 1e-5, "steps": 3}
    nan = parse_assignments(["epsilon=nan"])["epsilon"]
    assert nan != nan  # passed through: the record's validation names it ("epsilon (nan) must be a finite real number")
