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

``--json`` switches any verb to machine-readable output. Bad arguments exit with status 2 and a
one-line message on stderr; this interface is stable (external checks rely on it).
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["main", "build_parser"]


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
    parser = _Parser(prog="dperm", description="dperm: executable reference for DP-ERM")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="verb", parser_class=_Parser)

    p = sub.add_parser("spec", help="list spec records or print one")
    p.add_argument("id", nargs="?", help="record id, e.g. gaussian.analytic")
    p.add_argument("--latex", action="store_true", help="print the record as LaTeX")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("calibrate", help="calibrate a mechanism's noise")
    p.add_argument("mechanism", choices=["gaussian"])
    p.add_argument("--epsilon", type=_number, required=True)
    p.add_argument("--delta", type=_number, required=True)
    p.add_argument("--sensitivity", type=_number, required=True, help="l2 sensitivity")
    p.add_argument("--method", choices=["classic", "analytic", "zhang17", "zcdp"], default="analytic",
                   help="classic: sqrt(2 ln(1.25/delta)) S/eps (eps < 1); analytic: minimal sigma "
                        "under the exact profile (default); zhang17: sqrt(2 ln(2/delta)) S/eps; "
                        "zcdp: via rho*(eps, delta)")
    p.add_argument("--steps", type=_int, default=1, help="number of composed releases (analytic, zcdp)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("epsilon", help="epsilon of (composed, subsampled) Gaussian noise")
    p.add_argument("mechanism", choices=["gaussian"])
    p.add_argument("--sigma", type=_number, required=True)
    p.add_argument("--sensitivity", type=_number, required=True)
    p.add_argument("--delta", type=_number, required=True)
    p.add_argument("--steps", type=_int, default=1)
    p.add_argument("--sampling-rate", dest="sampling_rate", type=_number, default=None)
    p.add_argument("--sampling", choices=["poisson", "without-replacement"], default=None)
    p.add_argument("--accountant", choices=["exact", "zcdp", "rdp"], default=None,
                   help="exact: the composed Gaussian's exact profile (no sampling; default "
                        "without sampling); rdp: Renyi DP (default with sampling); zcdp")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("audit", help="audit a mechanism on a neighbouring pair")
    from audits import command as audit_command

    audit_command.add_arguments(p)
    return parser


def _spec(args) -> dict | str:
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
    from spec import gaussian, zcdp

    kw = dict(epsilon=args.epsilon, delta=args.delta, sensitivity=args.sensitivity)
    if args.method in ("classic", "zhang17") and args.steps != 1:
        raise _UsageError(f"--steps ({args.steps}) applies only to --method analytic or zcdp")
    if args.method == "classic":
        sigma = gaussian.classic_sigma(**kw)
    elif args.method == "zhang17":
        sigma = gaussian.zhang17_sigma(**kw)
    elif args.method == "analytic":
        sigma = gaussian.analytic_sigma(**kw, steps=args.steps)
    else:
        sigma = zcdp.gaussian_sigma(**kw, steps=args.steps)
    if args.json:
        return {"mechanism": "gaussian", "method": args.method, **kw, "steps": args.steps, "sigma": sigma}
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
    if accountant == "exact":
        eps = gaussian.exact_epsilon(args.delta, **kw, steps=args.steps)
    elif accountant == "zcdp":
        eps = zcdp.epsilon_gaussian(**kw, delta=args.delta, steps=args.steps)
    else:
        eps = rdp.epsilon(**kw, delta=args.delta, steps=args.steps,
                          sampling_rate=args.sampling_rate if sampled else None,
                          sampling=args.sampling if sampled else None)
    if args.json:
        return {"mechanism": "gaussian", "accountant": accountant, **kw, "delta": args.delta,
                "steps": args.steps, "sampling_rate": args.sampling_rate, "sampling": args.sampling,
                "epsilon": eps}
    return repr(eps)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    from spec.errors import ParameterError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.version:
            from dperm import __version__

            print(__version__)
            return 0
        if args.verb is None:
            parser.print_help()
            return 2
        if args.verb == "audit":
            from audits import command as audit_command

            return audit_command.run(args)
        out = {"spec": _spec, "calibrate": _calibrate, "epsilon": _epsilon}[args.verb](args)
    except _UsageError as err:
        print(f"dperm: error: {err}", file=sys.stderr)
        return 2
    except (ParameterError, TypeError) as err:
        print(f"dperm: error: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    if isinstance(out, str):
        print(out)
    else:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
