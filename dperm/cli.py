"""``dperm``: the command line over the spec registry, the accountants and the audit harness.

Verbs
-----
``dperm spec [ID] [--latex] [--json]``
    List every spec record (id, citation, one line), or print one record in full.
``dperm calibrate gaussian --epsilon E --delta D --sensitivity S [--method M] [--steps T]``
    Print the Gaussian noise standard deviation sigma.
``dperm epsilon gaussian --sigma S --sensitivity S --delta D [--steps T]
[--sampling-rate Q --sampling poisson|without-replacement] [--accountant exact|zcdp|rdp]``
    Print the epsilon of T (optionally subsampled) Gaussian steps.
``dperm audit MODULE:MECHANISM --pair MODULE:PAIR --epsilon E ...``
    Audit a mechanism defined in a module or a file (see ``dperm audit --help``).

This interface is stable (external checks rely on it):

* Plain output of ``calibrate``/``epsilon`` is one number (Python ``repr``; ``inf`` when there
  is no finite guarantee). ``--json`` switches any verb to machine-readable output: strict JSON
  (never ``Infinity`` or ``NaN``); a quantity that is +infinity is written as ``null`` and its
  key is listed in ``"infinite"``. ``calibrate``/``epsilon`` objects also carry
  ``"neighbouring"`` (the relation under which ``--sensitivity`` is meant) and ``"warnings"``.
* Exit status 0 on success, 2 on bad arguments with a one-line ``dperm: error: ...`` on stderr.
  ``dperm audit`` also exits 1 when the claim is refuted and 3 when the audited code itself
  raises (the traceback is printed).
* A :class:`~spec.errors.PrivacyLeakWarning` (e.g. ``--method zhang17`` at a large epsilon,
  where the paper's formula is not (epsilon, delta)-DP) is printed as one line
  ``dperm: warning: ...`` on stderr and listed in the JSON ``"warnings"``; the exit status stays
  0, because the printed number is the requested formula's value, correctly computed and flagged.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings

__all__ = ["main", "build_parser"]

_VERBS = ("spec", "calibrate", "epsilon", "audit")

#: ``neighbouring`` of an unsampled Gaussian: the guarantee holds for whichever relation the
#: given sensitivity bounds the l2 change under (records rdp.gaussian, gaussian.analytic).
_ANY_RELATION = "any"

_EXIT_HELP = (
    "Exit status: 0 on success, also when a PrivacyLeakWarning is printed (as one line "
    "'dperm: warning: ...' on stderr and in the JSON 'warnings' list): the number is then the "
    "requested formula's value, flagged as not (epsilon, delta)-DP. 2: bad arguments (one line "
    "'dperm: error: ...' on stderr). With --json, a quantity that is +infinity is written as null "
    "and its key listed in 'infinite'."
)


class _UsageError(Exception):
    """Bad command-line arguments: reported on one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2 (argparse prints usage + message otherwise)
        raise _UsageError(message)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dperm", description="dperm: executable reference for DP-ERM",
                     epilog=_EXIT_HELP)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="verb", parser_class=_Parser)

    p = sub.add_parser("spec", help="list spec records or print one")
    p.add_argument("id", nargs="?", help="record id, e.g. gaussian.analytic")
    p.add_argument("--latex", action="store_true", help="print the record as LaTeX")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("calibrate", help="calibrate a mechanism's noise", epilog=_EXIT_HELP)
    p.add_argument("mechanism", choices=["gaussian"])
    p.add_argument("--epsilon", type=_number, required=True)
    p.add_argument("--delta", type=_number, required=True)
    p.add_argument("--sensitivity", type=_number, required=True,
                   help="l2 sensitivity of the query under the neighbouring relation you claim "
                        "privacy for (the Gaussian calibration holds for any relation)")
    p.add_argument("--method", choices=["classic", "analytic", "zhang17", "zcdp"], default="analytic",
                   help="classic: sqrt(2 ln(1.25/delta)) S/eps (eps < 1); analytic: minimal sigma "
                        "under the exact profile (default); zhang17: sqrt(2 ln(2/delta)) S/eps, the "
                        "paper's formula (warns where it is not (eps, delta)-DP); zcdp: via rho*(eps, delta)")
    p.add_argument("--steps", type=_int, default=1, help="number of composed releases (analytic, zcdp)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("epsilon", help="epsilon of (composed, subsampled) Gaussian noise", epilog=_EXIT_HELP)
    p.add_argument("mechanism", choices=["gaussian"])
    p.add_argument("--sigma", type=_number, required=True)
    p.add_argument("--sensitivity", type=_number, required=True,
                   help="l2 sensitivity of one step's query; its neighbouring relation depends on "
                        "--sampling: poisson: add/remove-one (one record added or removed changes "
                        "the batch sum by at most S); without-replacement: replace-one (one record "
                        "replaced); no sampling: any relation under which S bounds the change")
    p.add_argument("--delta", type=_number, required=True)
    p.add_argument("--steps", type=_int, default=1)
    p.add_argument("--sampling-rate", dest="sampling_rate", type=_number, default=None)
    p.add_argument("--sampling", choices=["poisson", "without-replacement"], default=None,
                   help="poisson: each record independently with probability Q (MTZ19, "
                        "add/remove-one); without-replacement: a uniform subset of fraction Q "
                        "(WBK19, replace-one, the seed papers' setting)")
    p.add_argument("--accountant", choices=["exact", "zcdp", "rdp"], default=None,
                   help="exact: the composed Gaussian's exact profile (no sampling; default "
                        "without sampling); rdp: Renyi DP (default with sampling); zcdp")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("audit", help="audit a mechanism on a neighbouring pair")
    from audits import command as audit_command

    audit_command.add_arguments(p)
    return parser


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

    if args.id is None:
        if args.json:
            return [{"id": r.id, "citation": str(r.citation), "summary": r.summary} for r in spec.records()]
        return "\n".join(one_line(r) for r in spec.records())
    try:
        record = spec.get(args.id)
    except KeyError as err:
        raise _UsageError(str(err.args[0])) from None
    if args.json:
        return to_dict(record)
    return to_latex(record) if args.latex else to_text(record)


def _calibrate(args):
    from spec import gaussian, zcdp, zhang17

    kw = dict(epsilon=args.epsilon, delta=args.delta, sensitivity=args.sensitivity)
    if args.method in ("classic", "zhang17") and args.steps != 1:
        raise _UsageError(f"--steps ({args.steps}) applies only to --method analytic or zcdp")
    if args.method == "classic":
        sigma = gaussian.classic_sigma(**kw)
    elif args.method == "zhang17":
        sigma = zhang17.gaussian_sigma(**kw)
    elif args.method == "analytic":
        sigma = gaussian.analytic_sigma(**kw, steps=args.steps)
    else:
        sigma = zcdp.gaussian_sigma(**kw, steps=args.steps)
    if args.json:
        return {"mechanism": "gaussian", "method": args.method, **kw, "steps": args.steps,
                "neighbouring": _ANY_RELATION, "sigma": sigma}
    return repr(sigma)


def _epsilon(args):
    from spec import gaussian, rdp, zcdp

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
        eps = gaussian.exact_epsilon(args.delta, **kw, steps=args.steps)
    elif accountant == "zcdp":
        eps = zcdp.epsilon_gaussian(**kw, delta=args.delta, steps=args.steps)
    else:
        eps, order = rdp.epsilon_and_order(**kw, delta=args.delta, steps=args.steps,
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
                "steps": args.steps, "sampling_rate": args.sampling_rate, "sampling": args.sampling,
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
    """(output, one-line PrivacyLeakWarning messages) of a spec/calibrate/epsilon verb."""
    from spec.errors import PrivacyLeakWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        out = {"spec": _spec, "calibrate": _calibrate, "epsilon": _epsilon}[args.verb](args)
    leaks = []
    for w in caught:
        if issubclass(w.category, PrivacyLeakWarning):
            # the library's advice names its Python function; on the command line it is a flag
            leaks.append(str(w.message).splitlines()[0].replace("use spec.gaussian.analytic_sigma", "use --method analytic"))
        else:  # not ours to reformat: hand it back to the warnings machinery
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return out, leaks


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    from spec.errors import ParameterError

    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
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
        out, leaks = _run_verb(args)
    except _UsageError as err:
        print(f"dperm: error: {err}", file=sys.stderr)
        return 2
    except ParameterError as err:  # the library's validation of the given values
        print(f"dperm: error: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    for message in leaks:
        print(f"dperm: warning: {message}", file=sys.stderr)
    if isinstance(out, str):
        print(out)
    else:
        if isinstance(out, dict) and args.verb in ("calibrate", "epsilon"):
            out = {**_strict_json(out), "warnings": leaks}
        print(json.dumps(out, indent=2, allow_nan=False))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
