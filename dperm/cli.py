"""``dperm``: the command line over the spec registry, the accountants and the audit harness.

Verbs
-----
``dperm spec [ID] [--latex] [--json]``
    List every spec record (id, citation, one line), or print one record in full.
``dperm spec ID --eval NAME=VALUE ... [--no-check] [--json]``
    Evaluate the record's formulas at the given canonical values (:mod:`spec.vocabulary`): the
    assumptions are checked, each value is rounded in its formula's safe direction (printed),
    and formulas that miss values are listed with the names they need.
``dperm calibrate RECORD_ID --NAME VALUE ... [--calibration C]``
    Run a record's calibration (:meth:`spec.record.SpecRecord.calibrations`: a formula named
    sigma or scale, or one the privacy claim declares); ``dperm calibrate --list`` shows them.
``dperm epsilon RECORD_ID --NAME VALUE ... [--calibration C]``
    Run a record's accountant (``PrivacyClaim.accountant``) on a given noise, or with
    ``--calibration`` on the noise that calibration gives; ``dperm epsilon --list``.
``dperm calibrate gaussian ...`` / ``dperm epsilon gaussian ...``
    An alias of the Gaussian mechanism's records (:data:`spec.calibrations.ALIASES`):
    ``--calibration`` (older spelling ``--method``) ``analytic`` (default, gaussian.analytic),
    ``classic`` (gaussian.classic), ``zhang17`` (zhang17.thm_1 printed), ``zcdp``
    (zcdp.gaussian_calibration); ``--accountant exact`` (default), ``zcdp`` or ``rdp``, with
    ``--sampling-rate Q --sampling poisson|without-replacement`` for subsampled steps. Every number
    comes from :mod:`spec.calibrations` (:mod:`dperm.calibration` only names things).
``dperm run ALGORITHM DATA --loss NAME K=V ... --domain NAME K=V ... --PARAMETER VALUE ... [--vector OUT]``
    Run any reference algorithm (``reference.<paper>.ALGORITHMS``) on your data: the spec ids,
    calibration, seed and output; ``--vector`` writes a known-answer vector with the recorded
    noise tape (:mod:`dperm.run`). ``dperm run --list``; ``dperm run ALGORITHM --help``.
``dperm vectors list`` / ``dperm vectors check FILE --outputs MINE.json``
    The committed known-answer vectors; compare your outputs with a vector under its tolerance
    (:mod:`dperm.vectors_cli`).
``dperm audit MODULE:MECHANISM --pair MODULE:PAIR --epsilon E ...``
    Audit a mechanism defined in a module or a file (see ``dperm audit --help``).
``dperm audit-one-run MODULE:FIT --data MODULE:DATA --loss LOSS --canaries M --epsilon E ...``
    Audit your training code from one run with canaries (:mod:`audits.one_run_command`); exit
    statuses as ``dperm audit``.

This interface is stable (external checks rely on it):

* Plain output of ``calibrate``/``epsilon`` is one number (Python ``repr``; ``inf`` when there
  is no finite guarantee). ``--json`` switches any verb to machine-readable output: strict JSON
  (never ``Infinity`` or ``NaN``), indented by 2, written by :func:`spec.jsonable.strict` (the one
  spelling of every JSON dperm writes): a quantity that is infinite is written as ``null`` and its
  path is listed in ``"infinite"`` (``-`` before a negative one; ``"nan"`` lists a NaN).
  ``calibrate``/``epsilon`` objects also carry ``"neighbouring"`` (the relation under which
  ``--sensitivity`` is meant) and ``"warnings"``.
* Exit status 0 on success, 2 on bad arguments with a one-line ``dperm: error: ...`` on stderr
  (an assumption that fails at the given values is such an error: it names the assumption and
  the values; a value is quoted as ``NAME (VALUE) must ...``). ``dperm vectors check`` exits 1
  on a mismatch. ``dperm audit`` also exits 1 when the claim is refuted by its values, 4 when it
  is refuted only by the low bits of floating-point outputs, and 3 when the audited code itself
  raises.
* Every verb but ``audit`` (:mod:`audits.command`) writes ``--json`` output the same way: strict
  JSON indented by 2.
* ``dperm --help`` imports nothing heavy (no spec registry, no numpy): a verb's options are
  built only when that verb is used.
* A :class:`~spec.errors.PrivacyLeakWarning` (e.g. ``--calibration zhang17`` at a large epsilon,
  where the paper's formula is not (epsilon, delta)-DP) is printed as one line
  ``dperm: warning: ...`` on stderr and listed in the JSON ``"warnings"``; the exit status stays
  0, because the printed number is the requested formula's value, correctly computed and flagged.
* A reader that stops reading (``dperm spec | head -3``) ends the command quietly: no
  traceback, and the exit status is the verb's own.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import warnings

from dperm.arguments import Parser as _Parser
from dperm.arguments import UsageError as _UsageError
from dperm.arguments import add_canonical_options, canonical_values, option, parse_assignments

__all__ = ["main", "build_parser"]

_VERBS = ("spec", "calibrate", "epsilon", "run", "vectors", "audit", "audit-one-run")

#: One line per verb for ``dperm --help`` (the verb's options are built only when it is used).
_VERB_HELP = {
    "spec": "list spec records, print one, or evaluate its formulas",
    "calibrate": "calibrate noise: the Gaussian mechanism or any record with a calibration",
    "epsilon": "certified epsilon: Gaussian noise (composed, subsampled) or a record's accountant",
    "run": "run a reference algorithm on your data (CSV or .npy); --vector writes a known-answer vector",
    "vectors": "list the known-answer vectors, or check your outputs against one",
    "audit": "audit a mechanism on a neighbouring pair",
    "audit-one-run": "audit your training code from one run with canaries (audits.one_run)",
}

_EXIT_HELP = (
    "Exit status: 0 on success, also when a PrivacyLeakWarning is printed (as one line "
    "'dperm: warning: ...' on stderr and in the JSON 'warnings' list): the number is then the "
    "requested formula's value, flagged as not (epsilon, delta)-DP. 2: bad arguments, or an "
    "assumption that fails at the given values (one line 'dperm: error: ...' on stderr). With "
    "--json, a quantity that is +infinity is written as null and its key listed in 'infinite'."
)

#: ``dperm --help``: every verb's exit statuses in one place.
_TOP_EXIT_HELP = (
    "Exit status: 0 on success; 1: dperm audit refuted the claim by the values of the outputs, or "
    "dperm vectors check found a mismatch; 2: bad arguments, or an assumption that fails at the given values (one line "
    "'dperm: error: ...' on stderr); 3: dperm audit: the audited code itself failed; 4: dperm audit "
    "refuted the claim only through the low bits of floating-point outputs. Warnings are "
    "lines 'dperm: warning: ...' on stderr and do not change the status. 'dperm VERB --help' gives "
    "a verb's options and details."
)
_VECTORS_EXIT_HELP = (
    "Exit status: 0: the listing, or every value matches; 1: dperm vectors check found a mismatch "
    "(the first is printed with its field, index, your value, the vector's and the allowed "
    "difference); 2: bad arguments or unreadable files (one line 'dperm: error: ...' on stderr)."
)
_AUDIT_EXIT_HELP = (
    "Exit status: 0: the claim is not refuted; 1: it is refuted by the values of the outputs (whether "
    "or not their low bits refute it too); 4: it is refuted only by the low bits of floating-point "
    "outputs (the real-valued mechanism is not refuted; --low-bits off audits it); 2: bad arguments "
    "or invalid values (one line on stderr); 3: the audited code itself failed (its traceback or "
    "cause on stderr), never mistaken for bad arguments nor for a refuted claim."
)

_TARGET_HELP = (
    "Targets: a spec record id, 'gaussian' (an alias of the Gaussian mechanism's records, options "
    "below marked 'gaussian'), or an algorithm id (dperm calibrate bst14.alg_1 --help: the algorithm "
    "configured without data); --list shows every target, what it computes and the options it takes (the "
    "canonical parameter names of spec.vocabulary). Plain output is one number; --json adds the "
    "values, the defaults used, the neighbouring relation and the rounding direction."
)

#: Notes appended to the canonical options' help for the built-in Gaussian targets.
_CALIBRATE_NOTES = {
    "epsilon": "gaussian: required",
    "delta": "gaussian: required",
    "sensitivity": "gaussian: required; l2 sensitivity of the query under the neighbouring relation "
                   "you claim privacy for (the Gaussian calibration holds for any relation)",
    "steps": "gaussian: number of composed releases (analytic, zcdp; default 1)",
}
_EPSILON_NOTES = {
    "sigma": "gaussian: required",
    "delta": "gaussian: required",
    "sensitivity": "gaussian: required; l2 sensitivity of one step's query; its neighbouring relation "
                   "depends on --sampling: poisson: add/remove-one (one record added or removed "
                   "changes the batch sum by at most S); without-replacement: replace-one (one "
                   "record replaced); no sampling: any relation under which S bounds the change",
    "steps": "gaussian: number of composed steps (default 1)",
    "sampling_rate": "gaussian: with --sampling",
}
_PARAMETERS_TITLE = "parameters (canonical names of spec.vocabulary; --list shows which a target takes)"


def build_parser(verbs=None, *, algorithm: str | None = None) -> argparse.ArgumentParser:
    """The ``dperm`` parser. ``verbs``: the verbs whose options to build (default all; ``()`` for
    none, which is all ``dperm --help`` needs); ``algorithm``: ``dperm run``'s algorithm, whose
    parameters become options."""
    verbs = _VERBS if verbs is None else tuple(verbs)
    parser = _Parser(prog="dperm", description="dperm: executable reference for DP-ERM",
                     epilog=_TOP_EXIT_HELP)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="verb", parser_class=_Parser)
    for verb in _VERBS:
        if verb not in verbs:
            sub.add_parser(verb, help=_VERB_HELP[verb], add_help=False)
        elif verb == "run":
            _run_arguments(sub.add_parser(verb, help=_VERB_HELP[verb], epilog=_RUN_EPILOG), algorithm)
        elif verb in ("calibrate", "epsilon"):  # their parsers carry a usage line of their own
            (_calibrate_arguments if verb == "calibrate" else _epsilon_arguments)(sub)
        else:
            builder = {"spec": _spec_arguments, "vectors": _vectors_arguments, "audit": _audit_arguments,
                       "audit-one-run": _audit_one_run_arguments}[verb]
            epilog = {"vectors": _VECTORS_EXIT_HELP, "audit": _AUDIT_EXIT_HELP,
                      "audit-one-run": _AUDIT_EXIT_HELP}.get(verb, _EXIT_HELP)
            builder(sub.add_parser(verb, help=_VERB_HELP[verb], epilog=epilog))
    return parser


_RUN_EPILOG = ("ALGORITHM's own parameters are options too (dperm run ALGORITHM --help lists them with their "
               "meanings). Exit status: 0 on success; 2: bad arguments, data outside the loss's declared bounds, "
               "or an assumption that fails (one line 'dperm: error: ...').")


def _spec_arguments(p) -> None:
    p.add_argument("id", nargs="?", help="record id, e.g. gaussian.analytic (omit it to list every record)")
    p.add_argument("--latex", action="store_true", help="print the record as LaTeX")
    p.add_argument("--eval", nargs="+", metavar="NAME=VALUE", dest="assignments", default=None,
                   help="evaluate the record's formulas at these values (canonical names of spec.vocabulary, "
                        "integers for integer terms, e.g. n=100 epsilon=1): assumptions checked, each value "
                        "rounded in its formula's safe direction (printed); formulas that miss values are "
                        "listed with the names they need")
    p.add_argument("--no-check", action="store_true",
                   help="with --eval: evaluate even where an assumption fails (to see where a calibration "
                        "stops holding, as the records' flags do); the failing assumptions are listed")
    p.add_argument("--json", action="store_true", help="machine-readable output (strict JSON, indented by 2)")


def _calibrate_arguments(sub) -> None:
    p = sub.add_parser("calibrate", help=_VERB_HELP["calibrate"],
                       usage="dperm calibrate [-h] [--list] [TARGET] [--calibration NAME] [--method M] [--json] "
                             "[--NAME VALUE ...]",
                       epilog=f"{_TARGET_HELP} {_EXIT_HELP}")
    p.add_argument("target", nargs="?", metavar="TARGET", help="'gaussian' or a record id (see --list)")
    p.add_argument("--list", action="store_true",
                   help="list what can be calibrated (all targets, or TARGET's), with the options each takes")
    p.add_argument("--calibration", metavar="NAME", default=None,
                   help="which of the record's calibrations to run (default: its first; see --list). gaussian: "
                        "analytic: the smallest sigma under the exact profile (default, gaussian.analytic); "
                        "classic: sqrt(2 ln(1.25/delta)) S/eps, eps < 1 (gaussian.classic); zhang17: "
                        "sqrt(2 ln(2/delta)) S/eps, the paper's formula, which warns where it is not "
                        "(eps, delta)-DP (zhang17.thm_1); zcdp: via rho*(eps, delta) (zcdp.gaussian_calibration)")
    p.add_argument("--method", choices=["classic", "analytic", "zhang17", "zcdp"], default=None,
                   help="gaussian: the older spelling of --calibration")
    p.add_argument("--json", action="store_true", help="machine-readable output (strict JSON, indented by 2)")
    add_canonical_options(p, title=_PARAMETERS_TITLE, notes=_CALIBRATE_NOTES)


def _epsilon_arguments(sub) -> None:
    p = sub.add_parser("epsilon", help=_VERB_HELP["epsilon"],
                       usage="dperm epsilon [-h] [--list] [TARGET] [--calibration NAME] [--sampling S] [--accountant A] "
                             "[--json] "
                             "[--NAME VALUE ...]",
                       epilog=f"{_TARGET_HELP} {_EXIT_HELP}")
    p.add_argument("target", nargs="?", metavar="TARGET", help="'gaussian' or a record id with an accountant (see --list)")
    p.add_argument("--list", action="store_true",
                   help="list the targets with an accountant (all, or TARGET's), with the options each takes")
    p.add_argument("--calibration", metavar="NAME", default=None,
                   help="record targets: account the noise that this calibration of the record gives (its "
                        "options instead of --sigma; see dperm calibrate --list)")
    p.add_argument("--sampling", choices=["poisson", "without-replacement"], default=None,
                   help="gaussian: poisson: each record independently with probability Q (MTZ19, "
                        "add/remove-one); without-replacement: a uniform subset of fraction Q "
                        "(WBK19, replace-one, the seed papers' setting)")
    p.add_argument("--accountant", choices=["exact", "zcdp", "rdp"], default=None,
                   help="gaussian: exact: the composed Gaussian's exact profile (no sampling; default "
                        "without sampling; gaussian.analytic); rdp: Renyi DP (default with sampling; rdp.gaussian "
                        "and the subsampled rdp records); zcdp (zcdp.gaussian_calibration)")
    p.add_argument("--json", action="store_true", help="machine-readable output (strict JSON, indented by 2)")
    add_canonical_options(p, title=_PARAMETERS_TITLE, notes=_EPSILON_NOTES)


def _run_arguments(p, algorithm) -> None:
    from dperm import run as run_verb

    run_verb.add_arguments(p, algorithm)


def _vectors_arguments(p) -> None:
    from dperm import vectors_cli

    vectors_cli.add_arguments(p, _Parser)


def _audit_one_run_arguments(p) -> None:
    from audits import one_run_command

    one_run_command.add_arguments(p)


def _audit_arguments(p) -> None:
    from audits import command as audit_command

    audit_command.add_arguments(p)


def _value_options(parser: argparse.ArgumentParser) -> set[str]:
    """Option strings (of every verb) that take exactly one value."""
    out = set()
    for action in parser._actions:  # argparse exposes no public walk over its actions
        if isinstance(action.choices, dict):  # the sub-command action: {verb: parser}
            for child in action.choices.values():
                out |= _value_options(child)
        elif action.option_strings and action.nargs is None:
            out.update(action.option_strings)
    return out


def _join_signed_values(argv: list[str], options: set[str]) -> list[str]:
    """``--epsilon -inf`` -> ``--epsilon=-inf``.

    argparse reads a value that starts with ``-`` and is not a plain negative number
    (``-inf``, ``-nan``, ``-1e-3``) as an option and reports "expected one argument" without
    the value; joined, the value reaches the validation, whose message shows it.
    """
    out, i = [], 0
    while i < len(argv):
        token = argv[i]
        if token in options and i + 1 < len(argv) and argv[i + 1].startswith("-"):
            try:
                float(argv[i + 1])
            except ValueError:
                pass
            else:
                out.append(f"{token}={argv[i + 1]}")
                i += 2
                continue
        out.append(token)
        i += 1
    return out


def _spec(args) -> dict | list | str:
    import spec
    from spec.render import one_line, to_dict, to_latex, to_text

    if args.assignments is None and args.no_check:
        raise _UsageError("--no-check applies only with --eval")
    if args.id is None:
        if args.assignments is not None:
            raise _UsageError("--eval needs a record id: dperm spec ID --eval NAME=VALUE ...")
        from spec import index  # the listing needs no paper imported (spec.index keeps it)

        rows = [{"id": r["id"], "citation": r["citation"], "summary": r["summary"]} for r in index.record_rows()]
        if args.json:
            return rows
        return "\n".join(one_line(r) for r in rows)
    try:
        record = spec.get(args.id)
    except KeyError as err:
        raise _UsageError(str(err.args[0])) from None
    if args.assignments is not None:
        return _spec_eval(record, args)
    if args.json:
        return to_dict(record)
    return to_latex(record) if args.latex else to_text(record)


def _spec_eval(record, args) -> dict | str:
    from dperm import evaluation

    if args.latex:
        raise _UsageError("--latex does not combine with --eval")
    result = evaluation.evaluate(record, parse_assignments(args.assignments), check=not args.no_check)
    if not args.json:
        return evaluation.to_text(result, record)
    from spec.jsonable import strict

    return strict(result)


#: Options of one kind of target only: (verb, flag) -> the targets it applies to.
_BUILTIN_ONLY = {"calibrate": ("--method",), "epsilon": ("--sampling", "--accountant")}


def _given(args, flag: str) -> bool:
    return getattr(args, flag.lstrip("-").replace("-", "_")) is not None


def _list(args, verb: str):
    from dperm import calibration

    target, as_json = args.target, args.json
    given = [option(k) for k in canonical_values(args)]
    given += [flag for flag in (*_BUILTIN_ONLY[verb], "--calibration") if _given(args, flag)]
    if given:
        raise _UsageError(f"--list takes no other option (got {', '.join(given)})")
    rows = [] if target not in (None, calibration.BUILTIN) else [_builtin_row(verb)]
    if target is None:  # every record's, from spec.index (no paper imported)
        from spec import index

        rows += index.calibration_rows() if verb == "calibrate" else index.accountant_rows()
    elif target != calibration.BUILTIN:  # one record's, from the record itself
        rows += [t.describe() for t in calibration.targets_of(verb, target)]
    if as_json:
        return rows
    widths = [max(len(row[k]) for row in rows) for k in ("target", "name", "computes")]
    lines = []
    for row in rows:
        options = [option(k) for k in row["required"]]
        options += [f"[{option(k)}{'' if v is None else ' ' + repr(v)}]" for k, v in row["optional"].items()]
        lines.append(f"{row['target']:<{widths[0]}}  {row['name']:<{widths[1]}}  {row['computes']:<{widths[2]}}  "
                     f"{' '.join(options)}  ({row['source']})")
    return "\n".join(lines)


def _builtin_row(verb: str) -> dict:
    """The alias ``gaussian`` in ``--list``: the records it stands for."""
    from spec.calibrations import ALIASES

    table = ALIASES["gaussian"]
    if verb == "calibrate":
        names = ", ".join(f"{k} ({r} {c})" for k, (r, c, _) in table["calibrations"].items())
        return {"target": "gaussian", "name": "--calibration", "computes": "sigma", "source": f"alias of {names}",
                "required": ["epsilon", "delta", "sensitivity"], "optional": {"steps": 1},
                "statement": "the Gaussian mechanism's noise standard deviation (the default: analytic)"}
    names = ", ".join(f"{k} ({r})" for k, r in table["accountants"].items())
    return {"target": "gaussian", "name": "--accountant", "computes": "epsilon", "source": f"alias of {names}",
            "required": ["sigma", "sensitivity", "delta"], "optional": {"steps": 1, "sampling_rate": None},
            "statement": "epsilon of T (optionally subsampled) Gaussian steps"}


def _target_of(args, verb: str):
    """The spec target of ``dperm VERB TARGET`` and, for the alias gaussian, the alias name it took."""
    from dperm import calibration
    from spec.calibrations import ALIASES

    if args.target is None:
        raise _UsageError(f"{verb} needs a target: gaussian or a record id (see dperm {verb} --list)")
    if args.target != calibration.BUILTIN:
        for flag in _BUILTIN_ONLY[verb]:
            if _given(args, flag):
                raise _UsageError(f"{flag} applies only to {verb} gaussian")
        return calibration.resolve(verb, args.target, args.calibration), None
    table = ALIASES[calibration.BUILTIN]
    if verb == "calibrate":
        if args.method is not None and args.calibration is not None and args.method != args.calibration:
            raise _UsageError(f"--method ({args.method}) and --calibration ({args.calibration}) disagree; "
                              "--method is the older spelling of --calibration")
        name = args.calibration or args.method or next(iter(table["calibrations"]))
        return calibration.resolve(verb, args.target, name), name
    sampled = args.sampling_rate is not None and args.sampling_rate != 1.0
    if args.sampling is not None and args.sampling_rate is None:
        raise _UsageError("--sampling needs --sampling-rate")
    if sampled and args.sampling is None:
        raise _UsageError("--sampling-rate needs --sampling poisson|without-replacement")
    name = args.accountant or ("rdp" if sampled else next(iter(table["accountants"])))
    return calibration.resolve(verb, args.target, args.calibration, accountant=name,
                               sampling=args.sampling if sampled else None), name


def _run_target(args, verb: str):
    """Run a record's calibration or accountant (the alias gaussian names one); spec.calibrations checks
    the canonical options and computes."""
    from dperm import calibration

    if args.list:
        return _list(args, verb)
    target, alias = _target_of(args, verb)
    values = canonical_values(args)
    if alias is not None and values.get("sampling_rate") == 1.0:
        values.pop("sampling_rate")  # sampling everything is no sampling
    flag = "--calibration" if verb == "calibrate" else "--accountant"
    shown = None if alias is None else f"{verb} gaussian {flag} {alias} ({target.record.id})"
    out = (calibration.calibrate if verb == "calibrate" else calibration.epsilon)(target, values, shown=shown)
    if alias is not None:
        sampled = "sampling_rate" in values
        named = {"method": alias} if verb == "calibrate" else {"accountant": alias, "source": out["accountant"]}
        out = {"alias": calibration.BUILTIN, **out, **named,
               "neighbouring": out["neighbouring"] if sampled else calibration.ANY_RELATION}
    return out if args.json else repr(out[target.computes])


def _calibrate(args):
    return _run_target(args, "calibrate")


def _epsilon(args):
    return _run_target(args, "epsilon")


def _run_verb(args):
    """(output, exit status, one-line PrivacyLeakWarning messages) of every verb but audit."""
    from spec.errors import PrivacyLeakWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        if args.verb == "run":
            from dperm import run as run_verb

            out, status = run_verb.execute(args)
        elif getattr(args, "configure_only", False):  # dperm calibrate ALGORITHM
            from dperm import run as run_verb

            out, status = run_verb.calibrate_execute(args)
        elif args.verb == "vectors":
            from dperm import vectors_cli

            out, status = vectors_cli.execute(args)
        else:
            out, status = {"spec": _spec, "calibrate": _calibrate, "epsilon": _epsilon}[args.verb](args), 0
    leaks = []
    for w in caught:
        if issubclass(w.category, PrivacyLeakWarning):
            leaks.append(str(w.message).splitlines()[0])
        else:  # not ours to reformat: hand it back to the warnings machinery
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return out, status, leaks


#: A ``dperm calibrate`` target that names an algorithm box (``bst14.alg_1``; ``bst14.alg1`` gets a
#: "did you mean"): configured by :mod:`dperm.run`, not by a record's calibration.
_ALGORITHM_TARGET = re.compile(r"^[a-z0-9]+\.alg_?\d+$")


def _word_after(argv: list[str], verb: str) -> str | None:
    """The word after the verb, when it is not an option."""
    i = argv.index(verb)
    return argv[i + 1] if i + 1 < len(argv) and not argv[i + 1].startswith("-") else None


def _verb_in(argv: list[str]) -> str | None:
    """The verb of a command line: its first word that does not start with '-'."""
    for token in argv:
        if not token.startswith("-"):
            return token if token in _VERBS else None
    return None


def _is_parameter_error(err: Exception) -> bool:
    """Whether ``err`` is the library's validation of a value (spec.errors.ParameterError), without
    importing spec on the paths that never raise one (``dperm --help``)."""
    errors = sys.modules.get("spec.errors")
    return errors is not None and isinstance(err, errors.ParameterError)


def _quiet_broken_pipe() -> None:
    """The reader closed stdout: point it at /dev/null so that the final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a file descriptor (e.g. captured): nothing to flush
        pass


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    A reader that closes the pipe early (``dperm spec | head -3``) ends the command quietly: no
    traceback, and the verb's own exit status (0 for spec, calibrate, epsilon).
    """
    status = 0
    try:
        status = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_broken_pipe()
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT
        start = "\n" if getattr(sys.stderr, "isatty", lambda: False)() else ""  # end a progress line
        print(f"{start}dperm: interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    return status


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    verb = _verb_in(argv)
    try:
        algorithm = None
        if verb == "run":
            from dperm import run as run_verb

            algorithm = run_verb.algorithm_in(argv)
        parser = build_parser(() if verb is None else (verb,), algorithm=algorithm)
        if verb == "calibrate" and _ALGORITHM_TARGET.match(_word_after(argv, verb) or ""):
            from dperm import run as run_verb  # dperm calibrate ALGORITHM: configure without data

            args = run_verb.calibrate_command(argv, _Parser)
            args.verb, args.configure_only, args.version = "calibrate", True, False
        else:
            args = parser.parse_args(_join_signed_values(argv, _value_options(parser)))
        if args.version:
            from dperm import __version__

            print(__version__)
            return 0
        if args.verb is None:
            raise _UsageError(f"a verb is required: {', '.join(_VERBS)} (see dperm --help)")
        if args.verb == "audit":
            from audits import command as audit_command

            return audit_command.run(args)
        if args.verb == "audit-one-run":
            from audits import one_run_command

            return one_run_command.run(args)
        out, status, leaks = _run_verb(args)
    except _UsageError as err:
        print(f"dperm: error: {err}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as err:
        if not (_is_parameter_error(err) or isinstance(err, TypeError) and verb == "run"):
            raise
        # the library's validation of the given values (a TypeError: a value of the wrong type
        # reached a reference algorithm through dperm run)
        print(f"dperm: error: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    for message in leaks:
        print(f"dperm: warning: {message}", file=sys.stderr)
    if isinstance(out, str):
        print(out)
    else:
        if isinstance(out, dict) and args.verb in ("calibrate", "epsilon", "run"):
            from spec.jsonable import strict

            out = {**(strict(out) if args.verb != "run" else out), "warnings": leaks}
        print(json.dumps(out, indent=2, allow_nan=False))
    return status


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
