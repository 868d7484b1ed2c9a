"""``dperm``: the command line over the spec registry, the accountants and the audit harness.

Verbs
-----
``dperm spec [ID] [--latex] [--json]``
    List every spec record (id, citation, one line), or print one record in full.
``dperm spec ID --eval NAME=VALUE ... [--no-check] [--json]``
    Evaluate the record's formulas at the given canonical values (:mod:`spec.vocabulary`): the
    assumptions are checked, each value is rounded in its formula's safe direction (printed),
    and formulas that miss values are listed with the names they need.
``dperm calibrate gaussian --epsilon E --delta D --sensitivity S [--method M] [--steps T]``
    Print the Gaussian noise standard deviation sigma.
``dperm calibrate RECORD_ID --NAME VALUE ... [--calibration C]``
    Run a record's calibration (:meth:`spec.record.SpecRecord.calibrations`: a formula named
    sigma or scale, or one the privacy claim declares); ``dperm calibrate --list`` shows them.
``dperm epsilon gaussian --sigma S --sensitivity S --delta D [--steps T] [--accountant A]``
    Print the epsilon of T Gaussian steps (``A``: exact, zcdp or rdp); with ``--sampling-rate Q
    --sampling poisson|without-replacement``, of T subsampled steps.
``dperm epsilon RECORD_ID --NAME VALUE ...``
    Run a record's accountant (``PrivacyClaim.accountant``); ``dperm epsilon --list``.
``dperm run ALGORITHM DATA --loss NAME K=V ... --domain NAME K=V ... --PARAMETER VALUE ... [--vector OUT]``
    Run any reference algorithm (``reference.<paper>.ALGORITHMS``) on your data: the spec ids,
    calibration, seed and output; ``--vector`` writes a known-answer vector with the recorded
    noise tape (:mod:`dperm.run`). ``dperm run --list``; ``dperm run ALGORITHM --help``.
``dperm vectors list`` / ``dperm vectors check FILE --outputs MINE.json``
    The committed known-answer vectors; compare your outputs with a vector under its tolerance
    (:mod:`dperm.vectors_cli`).
``dperm audit MODULE:MECHANISM --pair MODULE:PAIR --epsilon E ...``
    Audit a mechanism defined in a module or a file (see ``dperm audit --help``).

This interface is stable (external checks rely on it):

* Plain output of ``calibrate``/``epsilon`` is one number (Python ``repr``; ``inf`` when there
  is no finite guarantee). ``--json`` switches any verb to machine-readable output: strict JSON
  (never ``Infinity`` or ``NaN``), indented by 2; a quantity that is +infinity is written as
  ``null`` and its key is listed in ``"infinite"``. ``calibrate``/``epsilon`` objects also carry
  ``"neighbouring"`` (the relation under which ``--sensitivity`` is meant) and ``"warnings"``.
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
* A :class:`~spec.errors.PrivacyLeakWarning` (e.g. ``--method zhang17`` at a large epsilon,
  where the paper's formula is not (epsilon, delta)-DP) is printed as one line
  ``dperm: warning: ...`` on stderr and listed in the JSON ``"warnings"``; the exit status stays
  0, because the printed number is the requested formula's value, correctly computed and flagged.
* A reader that stops reading (``dperm spec | head -3``) ends the command quietly: no
  traceback, and the exit status is the verb's own.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings

from dperm.arguments import Parser as _Parser
from dperm.arguments import UsageError as _UsageError
from dperm.arguments import add_canonical_options, canonical_values, option, parse_assignments

__all__ = ["main", "build_parser"]

_VERBS = ("spec", "calibrate", "epsilon", "run", "vectors", "audit")

#: One line per verb for ``dperm --help`` (the verb's options are built only when it is used).
_VERB_HELP = {
    "spec": "list spec records, print one, or evaluate its formulas",
    "calibrate": "calibrate noise: the Gaussian mechanism or any record with a calibration",
    "epsilon": "certified epsilon: Gaussian noise (composed, subsampled) or a record's accountant",
    "run": "run a reference algorithm on your data (CSV or .npy); --vector writes a known-answer vector",
    "vectors": "list the known-answer vectors, or check your outputs against one",
    "audit": "audit a mechanism on a neighbouring pair",
}

#: ``neighbouring`` of an unsampled Gaussian: the guarantee holds for whichever relation the
#: given sensitivity bounds the l2 change under (records rdp.gaussian, gaussian.analytic).
_ANY_RELATION = "any"

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
    "Targets: 'gaussian' (the built-in Gaussian mechanism, options below marked 'gaussian') or a "
    "spec record id; --list shows every target, what it computes and the options it takes (the "
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
#: Canonical options each built-in target takes.
_GAUSSIAN_TAKES = {
    "calibrate": ("epsilon", "delta", "sensitivity", "steps"),
    "epsilon": ("sigma", "sensitivity", "delta", "steps", "sampling_rate"),
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
            builder = {"spec": _spec_arguments, "vectors": _vectors_arguments, "audit": _audit_arguments}[verb]
            epilog = {"vectors": _VECTORS_EXIT_HELP, "audit": _AUDIT_EXIT_HELP}.get(verb, _EXIT_HELP)
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
                   help="record targets: which of the record's calibrations to run (default: its first; see --list)")
    p.add_argument("--method", choices=["classic", "analytic", "zhang17", "zcdp"], default=None,
                   help="gaussian: classic: sqrt(2 ln(1.25/delta)) S/eps (eps < 1); analytic: minimal sigma "
                        "under the exact profile (default); zhang17: sqrt(2 ln(2/delta)) S/eps, the "
                        "paper's formula (warns where it is not (eps, delta)-DP); zcdp: via rho*(eps, delta)")
    p.add_argument("--json", action="store_true", help="machine-readable output (strict JSON, indented by 2)")
    add_canonical_options(p, title=_PARAMETERS_TITLE, notes=_CALIBRATE_NOTES)


def _epsilon_arguments(sub) -> None:
    p = sub.add_parser("epsilon", help=_VERB_HELP["epsilon"],
                       usage="dperm epsilon [-h] [--list] [TARGET] [--sampling S] [--accountant A] [--json] "
                             "[--NAME VALUE ...]",
                       epilog=f"{_TARGET_HELP} {_EXIT_HELP}")
    p.add_argument("target", nargs="?", metavar="TARGET", help="'gaussian' or a record id with an accountant (see --list)")
    p.add_argument("--list", action="store_true",
                   help="list the targets with an accountant (all, or TARGET's), with the options each takes")
    p.add_argument("--sampling", choices=["poisson", "without-replacement"], default=None,
                   help="gaussian: poisson: each record independently with probability Q (MTZ19, "
                        "add/remove-one); without-replacement: a uniform subset of fraction Q "
                        "(WBK19, replace-one, the seed papers' setting)")
    p.add_argument("--accountant", choices=["exact", "zcdp", "rdp"], default=None,
                   help="gaussian: exact: the composed Gaussian's exact profile (no sampling; default "
                        "without sampling); rdp: Renyi DP (default with sampling); zcdp")
    p.add_argument("--json", action="store_true", help="machine-readable output (strict JSON, indented by 2)")
    add_canonical_options(p, title=_PARAMETERS_TITLE, notes=_EPSILON_NOTES)


def _run_arguments(p, algorithm) -> None:
    from dperm import run as run_verb

    run_verb.add_arguments(p, algorithm)


def _vectors_arguments(p) -> None:
    from dperm import vectors_cli

    vectors_cli.add_arguments(p, _Parser)


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
        if args.json:
            return [{"id": r.id, "citation": str(r.citation), "summary": r.summary} for r in spec.records()]
        return "\n".join(one_line(r) for r in spec.records())
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
    infinite = [k for k, v in result["formulas"].items() if isinstance(v, float) and v == math.inf]
    formulas = {k: (None if k in infinite else v) for k, v in result["formulas"].items()}
    return {**result, "formulas": formulas, "infinite": infinite}


#: Options of one kind of target only: (verb, flag) -> the targets it applies to.
_BUILTIN_ONLY = {"calibrate": ("--method",), "epsilon": ("--sampling", "--accountant")}
_RECORD_ONLY = {"calibrate": ("--calibration",), "epsilon": ()}


def _given(args, flag: str) -> bool:
    return getattr(args, flag.lstrip("-").replace("-", "_")) is not None


def _check_builtin_options(args, verb: str) -> None:
    """Reject options the built-in Gaussian target does not take (argparse knows every option)."""
    takes = _GAUSSIAN_TAKES[verb]
    extra = [option(k) for k in canonical_values(args) if k not in takes]
    if extra:
        raise _UsageError(f"{', '.join(extra)} does not apply to {verb} gaussian; it takes "
                          f"{', '.join(option(k) for k in takes)}")
    for flag in _RECORD_ONLY[verb]:
        if _given(args, flag):
            raise _UsageError(f"{flag} applies only to record targets ({verb} RECORD_ID)")


def _require(args, verb: str, names) -> None:
    missing = [option(k) for k in names if getattr(args, k) is None]
    if missing:
        raise _UsageError(f"the following arguments are required for {verb} gaussian: {', '.join(missing)}")


def _list(args, verb: str):
    from dperm import calibration

    target, as_json = args.target, args.json
    given = [option(k) for k in canonical_values(args)]
    given += [flag for flag in (*_BUILTIN_ONLY[verb], *_RECORD_ONLY[verb]) if _given(args, flag)]
    if given:
        raise _UsageError(f"--list takes no other option (got {', '.join(given)})")
    if target is not None and target != calibration.BUILTIN:
        calibration.resolve(verb, target)  # a one-line error for an unknown or unsuitable record
    found = calibration.calibration_targets() if verb == "calibrate" else calibration.accountant_targets()
    rows = [] if target not in (None, calibration.BUILTIN) else [_builtin_row(verb)]
    rows += [t.describe() for t in found if target in (None, t.record.id)]
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
    if verb == "calibrate":
        return {"target": "gaussian", "name": "--method", "computes": "sigma",
                "source": "classic, analytic (default), zhang17, zcdp", "required": ["epsilon", "delta", "sensitivity"],
                "optional": {"steps": 1}, "statement": "the Gaussian mechanism's noise standard deviation"}
    return {"target": "gaussian", "name": "--accountant", "computes": "epsilon",
            "source": "exact, zcdp, rdp; --sampling poisson|without-replacement",
            "required": ["sigma", "sensitivity", "delta"], "optional": {"steps": 1, "sampling_rate": None},
            "statement": "epsilon of T (optionally subsampled) Gaussian steps"}


def _record_target(args, verb: str):
    """Run a record's calibration or accountant (dperm.calibration checks the canonical options)."""
    from dperm import calibration

    for flag in _BUILTIN_ONLY[verb]:
        if _given(args, flag):
            raise _UsageError(f"{flag} applies only to {verb} gaussian")
    target = calibration.resolve(verb, args.target, getattr(args, "calibration", None))
    run = calibration.calibrate if verb == "calibrate" else calibration.epsilon
    out = run(target, canonical_values(args))
    return out if args.json else repr(out[target.computes])


def _is_builtin(args, verb: str) -> bool:
    if args.target is None:
        raise _UsageError(f"{verb} needs a target: gaussian or a record id (see dperm {verb} --list)")
    return args.target == "gaussian"


def _calibrate(args):
    from spec import gaussian, zcdp, zhang17

    if args.list:
        return _list(args, "calibrate")
    if not _is_builtin(args, "calibrate"):
        return _record_target(args, "calibrate")
    _check_builtin_options(args, "calibrate")
    _require(args, "calibrate", ("epsilon", "delta", "sensitivity"))
    method = args.method or "analytic"
    steps = 1 if args.steps is None else args.steps
    kw = dict(epsilon=args.epsilon, delta=args.delta, sensitivity=args.sensitivity)
    if method in ("classic", "zhang17") and steps != 1:
        raise _UsageError(f"--steps ({steps}) applies only to --method analytic or zcdp")
    if method == "classic":
        sigma = gaussian.classic_sigma(**kw)
    elif method == "zhang17":
        sigma = zhang17.gaussian_sigma(**kw)
    elif method == "analytic":
        sigma = gaussian.analytic_sigma(**kw, steps=steps)
    else:
        sigma = zcdp.gaussian_sigma(**kw, steps=steps)
    if args.json:
        return {"mechanism": "gaussian", "method": method, **kw, "steps": steps,
                "neighbouring": _ANY_RELATION, "sigma": sigma}
    return repr(sigma)


def _epsilon(args):
    from spec import gaussian, rdp, zcdp

    if args.list:
        return _list(args, "epsilon")
    if not _is_builtin(args, "epsilon"):
        return _record_target(args, "epsilon")
    _check_builtin_options(args, "epsilon")
    _require(args, "epsilon", ("sigma", "sensitivity", "delta"))
    steps = 1 if args.steps is None else args.steps
    sampled = args.sampling_rate is not None and args.sampling_rate != 1.0
    if args.sampling is not None and args.sampling_rate is None:
        raise _UsageError("--sampling needs --sampling-rate")
    if sampled and args.sampling is None:
        raise _UsageError("--sampling-rate needs --sampling poisson|without-replacement")
    accountant = args.accountant or ("rdp" if sampled else "exact")
    if sampled and accountant != "rdp":
        raise _UsageError(f"--accountant {accountant} does not handle subsampling; use --accountant rdp")
    kw = dict(sigma=args.sigma, sensitivity=args.sensitivity)
    order = None
    if accountant == "exact":
        eps = gaussian.exact_epsilon(args.delta, **kw, steps=steps)
    elif accountant == "zcdp":
        eps = zcdp.epsilon_gaussian(**kw, delta=args.delta, steps=steps)
    else:
        eps, order = rdp.epsilon_and_order(**kw, delta=args.delta, steps=steps,
                                           sampling_rate=args.sampling_rate if sampled else None,
                                           sampling=args.sampling if sampled else None)
    if not sampled:
        neighbouring = _ANY_RELATION
    elif args.sampling == "poisson":
        neighbouring = rdp.POISSON_SUBSAMPLED_GAUSSIAN.privacy.neighbouring.value
    else:
        neighbouring = rdp.WITHOUT_REPLACEMENT_SUBSAMPLED_GAUSSIAN.privacy.neighbouring.value
    if args.json:
        return {"mechanism": "gaussian", "accountant": accountant, **kw, "delta": args.delta,
                "steps": steps, "sampling_rate": args.sampling_rate, "sampling": args.sampling,
                "neighbouring": neighbouring, "epsilon": eps, "order": order}
    return repr(eps)


def _strict_json(out: dict) -> dict:
    """``out`` with +infinite floats replaced by null and their keys listed in ``"infinite"``.

    NaN is left in place: it is never a valid answer, so ``json.dumps(allow_nan=False)`` fails
    loudly on it (an internal error, with a traceback).
    """
    infinite = [k for k, v in out.items() if isinstance(v, float) and v == math.inf]
    return {**{k: (None if k in infinite else v) for k, v in out.items()}, "infinite": infinite}


def _run_verb(args):
    """(output, exit status, one-line PrivacyLeakWarning messages) of every verb but audit."""
    from spec.errors import PrivacyLeakWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        if args.verb == "run":
            from dperm import run as run_verb

            out, status = run_verb.execute(args)
        elif args.verb == "vectors":
            from dperm import vectors_cli

            out, status = vectors_cli.execute(args)
        else:
            out, status = {"spec": _spec, "calibrate": _calibrate, "epsilon": _epsilon}[args.verb](args), 0
    leaks = []
    for w in caught:
        if issubclass(w.category, PrivacyLeakWarning):
            # the library's advice names its Python function; on the command line it is a flag
            leaks.append(str(w.message).splitlines()[0].replace("use spec.gaussian.analytic_sigma", "use --method analytic"))
        else:  # not ours to reformat: hand it back to the warnings machinery
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return out, status, leaks


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
            out = {**(_strict_json(out) if args.verb != "run" else out), "warnings": leaks}
        print(json.dumps(out, indent=2, allow_nan=False))
    return status


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
