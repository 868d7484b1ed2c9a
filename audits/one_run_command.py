"""Core of ``dperm audit-one-run``: a one-run audit of your own training code (:mod:`audits.one_run`).

::

    dperm audit-one-run MODULE:FIT --data MODULE:DATA --loss LOSS --canaries M --epsilon E
                        [--delta D] [--alpha A] [--seed S] [--design padded|sphere|coordinate]
                        [--relation replace-one|add-remove-one] [--guesses union|split|K]
                        [--gaussian] [--json]

``FIT`` names ``fit(data, rng) -> theta``: one training run on ``data`` (rows ``[x, y]`` for a
supervised loss, points otherwise) drawing its randomness only from ``rng`` (a numpy Generator),
returning the parameter vector of a linear model (length p). ``DATA`` names the records that are
always in (an ``(n, k)`` array, or a zero-argument callable returning one). ``LOSS`` declares the
*record domain* -- the bounds your algorithm's privacy claim assumes -- as a ready-made loss
(``logistic:feature_norm=X``, ``hinge:feature_norm=X``, ``sigmoid:feature_norm=X``,
``huber:feature_norm=X,label_bound=Y,width=W``, ``linear:data_norm=D``) or ``MODULE:NAME`` of a
:class:`reference.losses.Loss`; the base records are checked against it and the ``M`` canaries are
built inside it (:mod:`audits.one_run_canaries`). Designs: ``padded`` (default) appends M feature
columns that are zero in every base record and puts canary ``i`` on column ``p + i`` -- your fit then
trains on p + M features, each canary alone on its own, so no base record and no other canary
interferes with its score; ``sphere`` puts the canaries on random unit directions of the p given
features (your data unchanged; with ``M > p`` the canaries and the base records interfere and the
audit loses power); ``coordinate`` on the first M given features (needs ``p >= M``). Each canary slot holds its
canary or its filler (replace-one; ``--relation add-remove-one``: the canary or nothing) by a fair
coin; the score of a canary is ``<theta, direction>``; the verdict is the SNJ23 bound with the
guessing rule ``--guesses`` (:mod:`audits.one_run_bounds`). ``--gaussian`` adds the Gaussian
*estimate* (:mod:`audits.one_run_gaussian`), which is never part of the verdict for your code.

Prints the one-line result (or JSON). While the fit runs longer than 10 s, a line every 10 s on
stderr says so, with the elapsed time and the seed. Exit status as ``dperm audit``: 0 not
refuted, 1 refuted, 2 bad arguments or data outside the declared domain, 3 the audited code
itself failed.
"""

from __future__ import annotations

import argparse
import functools
import json
import os

import numpy as np

from audits.command import (
    _guarded,
    _import_path,
    _UsageError,
    _UserCodeError,
    failure_status,
    load_object,
    user_import_path,
)
from reference.rng import fresh_seed
from spec.errors import ParameterError

__all__ = ["add_arguments", "run", "main", "ready_loss", "pad", "LOSSES"]

#: Ready-made record domains: ``NAME:KEY=VALUE,...`` -> the loss class and its keyword names.
LOSSES = {
    "logistic": ("Logistic", ("feature_norm",)),
    "hinge": ("Hinge", ("feature_norm",)),
    "sigmoid": ("Sigmoid", ("feature_norm",)),
    "huber": ("Huber", ("feature_norm", "label_bound", "width")),
    "linear": ("Linear", ("data_norm",)),
}


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the ``dperm audit-one-run`` arguments to an argparse (sub)parser."""
    parser.add_argument("fit", metavar="MODULE:FIT", help="module name or .py file, and fit(data, rng) -> theta")
    parser.add_argument("--data", required=True, metavar="MODULE:DATA",
                        help="the records always in: an (n, k) array or a callable returning one")
    parser.add_argument("--loss", required=True, metavar="LOSS",
                        help="record domain: " + " | ".join(f"{k}:{'=...,'.join(v[1])}=..." for k, v in LOSSES.items())
                             + " | MODULE:NAME of a reference.losses.Loss")
    parser.add_argument("--canaries", required=True, type=int, help="number of canary slots M (>= 2)")
    parser.add_argument("--epsilon", required=True, type=float, help="claimed epsilon (> 0)")
    parser.add_argument("--delta", type=float, default=0.0, help="claimed delta in [0, 1) (default 0)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="error level: a correct algorithm is refuted with probability at most this (default 0.05)")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: drawn and printed)")
    parser.add_argument("--design", choices=["padded", "sphere", "coordinate"], default="padded",
                        help="padded (default): M extra feature columns, zero for your records, one per canary; "
                             "sphere: random unit directions of your features; coordinate: your first M features")
    parser.add_argument("--relation", choices=["replace-one", "add-remove-one"], default="replace-one",
                        help="the relation of your claim: a slot holds its canary or its filler (replace-one, "
                             "default) or its canary or nothing (add-remove-one)")
    parser.add_argument("--guesses", default="union",
                        help="guessing rule: union (default), split, or K guesses per side")
    parser.add_argument("--gaussian", action="store_true", help="add the Gaussian estimate (not in the verdict)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def ready_loss(text: str):
    """A ready-made loss ``NAME:KEY=VALUE,...`` (:data:`LOSSES`), or None if ``text`` is not one."""
    import reference.losses as losses

    name, _, rest = text.partition(":")
    if name not in LOSSES:
        return None
    cls, keys = LOSSES[name]
    values = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in keys:
            raise _UsageError(f"--loss ({text!r}): {name} takes {', '.join(k + '=...' for k in keys)}")
        try:
            values[key] = float(value)
        except ValueError:
            raise _UsageError(f"--loss ({text!r}): {key} ({value!r}) must be a number") from None
    missing = [k for k in keys if k not in values]
    if missing:
        raise _UsageError(f"--loss ({text!r}) needs {', '.join(missing)}")
    return getattr(losses, cls)(**values)


def _loss(text: str):
    from reference.losses import Loss

    loss = ready_loss(text)
    if loss is None:
        loss = load_object(text, "loss")
    if not isinstance(loss, Loss):
        raise _UsageError(f"--loss ({text!r}) must be a reference.losses.Loss, got {type(loss).__name__}")
    return loss


def pad(rows, count: int, *, supervised: bool):
    """``rows`` with ``count`` zero feature columns appended after the features (before the label of
    a supervised row): a base record's loss and gradient are unchanged on its own features and zero on
    the new ones."""
    rows = np.asarray(rows, dtype=float)
    zeros = np.zeros((rows.shape[0], int(count)))
    if supervised:
        return np.concatenate([rows[:, :-1], zeros, rows[:, -1:]], axis=1)
    return np.concatenate([rows, zeros], axis=1)


def _guesses(text: str):
    if text in ("union", "split"):
        return text
    try:
        return int(text)
    except ValueError:
        raise _UsageError(f"--guesses ({text!r}) must be union, split or an integer") from None


def _beating(fit, label: str):
    """``fit`` with a line on stderr every 10 s while it runs (a fit of minutes says it is alive,
    and the seed that reproduces it is on screen even if it is interrupted)."""
    from audits.execution import heartbeat

    @functools.wraps(fit)
    def call(*args, **kwargs):
        with heartbeat(label):
            return fit(*args, **kwargs)
    return call


def run(args: argparse.Namespace) -> int:
    """Execute ``dperm audit-one-run`` for parsed ``args``; returns the exit status."""
    with _import_path(os.getcwd()):
        status, text = _run(args)
    if text is not None:
        print(text)
    return status


def _run(args) -> tuple[int, str | None]:
    from audits.one_run import audit_one_run
    from audits.one_run_canaries import coordinate_canaries, sphere_canaries

    try:
        with user_import_path(args.fit):
            fit = load_object(args.fit, "fit")
            if not callable(fit):
                raise _UsageError(f"fit ({args.fit}) must be callable as fit(data, rng)")
            data = load_object(args.data, "data")
            if callable(data):
                data = _guarded(data, f"data factory {args.data}")()
            loss = _loss(args.loss)
            base = loss.validate_data(np.asarray(data, dtype=float))
            p = loss.dim_of_row(base.shape[1])
            relation = args.relation.replace("add-remove-one", "add/remove-one")
            seed = fresh_seed() if args.seed is None else args.seed
            if args.design == "padded":
                base = pad(base, args.canaries, supervised=loss.supervised)
                design = coordinate_canaries(loss, count=args.canaries, dimension=p + args.canaries, first=p,
                                             relation=relation)
            elif args.design == "coordinate":
                design = coordinate_canaries(loss, count=args.canaries, dimension=p, relation=relation)
            else:  # public directions, seeded by the audit's seed (the secrets come from its own stream)
                design = sphere_canaries(loss, count=args.canaries, dimension=p, rng=seed, relation=relation)
            guarded = _beating(_guarded(fit, f"fit {args.fit}"), f"{args.fit}: one fit running (seed {seed})")
            guarded.__qualname__ = getattr(fit, "__qualname__", args.fit)
            result = audit_one_run(guarded, base=base, design=design, epsilon=args.epsilon, delta=args.delta,
                                   alpha=args.alpha, seed=seed, guesses=_guesses(args.guesses),
                                   gaussian={"black-box": "estimate"} if args.gaussian else None, name=args.fit)
    except (_UserCodeError, _UsageError, ParameterError, TypeError) as exc:
        return failure_status(exc), None
    text = json.dumps(result.to_dict(), indent=2, allow_nan=False) if args.json else str(result)  # strict already
    return (1 if result.violated else 0), text


def main(argv=None) -> int:
    """Stand-alone entry point (``python -m audits.one_run_command ...``)."""
    parser = add_arguments(argparse.ArgumentParser(prog="dperm audit-one-run", description=__doc__.splitlines()[0]))
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
