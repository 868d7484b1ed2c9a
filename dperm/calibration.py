"""``dperm calibrate TARGET`` and ``dperm epsilon TARGET``: the command-line face of :mod:`spec.calibrations`.

The lookup, the checks and every number are :mod:`spec.calibrations` (dperm keeps no calibration
path of its own); this module only names things the command-line way: options are ``--n``, a
calibration is ``--calibration NAME``, and an error is a one-line :class:`UsageError`.

* ``dperm calibrate RECORD_ID --name value ... [--calibration NAME]`` runs one of
  ``record.calibrations()``; the first is the default.
* ``dperm epsilon RECORD_ID --name value ...`` runs the privacy claim's accountant on a given
  noise; with ``--calibration NAME`` it accounts the noise that calibration gives instead (the
  options are then the calibration's).
* ``gaussian`` is an alias of the Gaussian mechanism's records (:data:`spec.calibrations.ALIASES`):
  ``--calibration`` (or its older spelling ``--method``) ``analytic`` (default), ``classic``,
  ``zhang17``, ``zcdp``; ``--accountant exact`` (default), ``zcdp``, ``rdp`` with ``--sampling``.
* ``--list`` shows every target with what it computes and the options it takes.
"""

from __future__ import annotations

from spec import calibrations as _spec
from spec.calibrations import Target, TargetError

from dperm.arguments import UsageError, option

__all__ = ["BUILTIN", "Target", "calibration_targets", "accountant_targets", "targets_of", "resolve", "calibrate",
           "epsilon"]

#: The alias of the Gaussian mechanism's records (``dperm calibrate gaussian ...``).
BUILTIN = "gaussian"

#: ``neighbouring`` of the unsampled Gaussian alias: the guarantee holds for whichever relation the
#: given sensitivity bounds the l2 change under (records gaussian.analytic, rdp.gaussian, ...).
ANY_RELATION = "any"


def calibration_targets() -> list[Target]:
    """Every record calibration, in registry order (the default of each record first)."""
    return _spec.calibration_targets()


def accountant_targets() -> list[Target]:
    """Every record accountant callable by canonical names, in registry order."""
    return _spec.accountant_targets()


def _usage(err: TargetError, verb: str, shown: str | None = None) -> UsageError:
    """``err`` in command-line words: options spelled ``--n``, the verb's own hints; ``shown``: how the
    target was named on the command line (the alias)."""
    if err.kind == "unknown":
        return UsageError(f"invalid choice: {err.record!r} is neither {BUILTIN!r} nor a record id ({err}); "
                          f"see dperm {verb} --list")
    if err.kind == "not-offered" and err.name:
        flag = "--accountant" if str(err).startswith("accountant") else "--calibration"
        if str(err).startswith("accountant ") and "subsampling" in str(err):
            return UsageError(f"--accountant {err.name} does not handle subsampling; use --accountant rdp")
        return UsageError(f"{flag} ({err.name}) must be one of {', '.join(err.takes)} for {err.record}")
    if err.kind == "extra":
        return UsageError(f"{', '.join(option(k) for k in err.extra)} does not apply to {shown or err.target}; it "
                          f"takes {', '.join(option(k) for k in err.takes)}")
    if err.kind == "missing":
        return UsageError(f"the following arguments are required for {shown or err.target}: "
                          f"{', '.join(option(k) for k in err.missing)}")
    hint = {"no-calibration": f"; see dperm calibrate --list, or evaluate its formulas with dperm spec {err.record} --eval",
            "no-accountant": f"; see dperm epsilon --list, or evaluate its formulas with dperm spec {err.record} --eval"}
    return UsageError(f"{err}{hint.get(err.kind, '')}")


def targets_of(verb: str, record_id: str) -> list[Target]:
    """Every calibration (``calibrate``) or the accountant (``epsilon``) of one record; a one-line
    error for an unknown or unsuitable record."""
    first = resolve(verb, record_id)
    if verb == "epsilon":
        return [first]
    return [resolve(verb, record_id, name) for name in _spec.offered(first.record)]


def resolve(verb: str, target_id: str, calibration: str | None = None, *, accountant: str | None = None,
            sampling: str | None = None) -> Target:
    """The :class:`~spec.calibrations.Target` that ``dperm VERB TARGET [--calibration NAME]`` runs."""
    try:
        if target_id == BUILTIN:
            if verb == "calibrate":
                return _spec.alias_calibration(BUILTIN, calibration)
            if calibration is not None:
                raise UsageError(f"--calibration applies to epsilon {BUILTIN} only as --accountant "
                                 "(exact, zcdp, rdp)")
            return _spec.alias_accountant(BUILTIN, accountant, sampling)
        if verb == "epsilon":
            return _spec.accountant_target(target_id, calibration)
        return _spec.calibration_target(target_id, calibration)
    except TargetError as err:
        raise _usage(err, verb) from None


def calibrate(target: Target, values: dict, *, shown: str | None = None) -> dict:
    """Run a calibration target at canonical ``values`` (:func:`spec.calibrations.calibrate`);
    ``shown``: the target as the command line named it, for messages."""
    try:
        return _spec.calibrate(target, values)
    except TargetError as err:
        raise _usage(err, "calibrate", shown) from None


def epsilon(target: Target, values: dict, *, shown: str | None = None) -> dict:
    """Run an accountant target at canonical ``values`` (:func:`spec.calibrations.epsilon`)."""
    try:
        return _spec.epsilon(target, values)
    except TargetError as err:
        raise _usage(err, "epsilon", shown) from None
