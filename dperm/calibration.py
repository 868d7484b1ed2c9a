"""``dperm calibrate RECORD_ID`` and ``dperm epsilon RECORD_ID``: any record's calibration or accountant.

The convention (no paper is listed here; records are found in the registry):

* ``dperm calibrate RECORD_ID --name value ... [--calibration NAME]`` runs one of
  ``record.calibrations()`` (:meth:`spec.record.SpecRecord.calibrations`): a formula named
  ``sigma`` or ``scale``, or a :class:`spec.record.Calibration` the privacy claim declares (a
  formula by name, or a numerical function such as a bisection over an accountant). The first
  is the default.
* ``dperm epsilon RECORD_ID --name value ...`` calls the privacy claim's ``accountant``: the
  epsilon certified at the given delta for the given noise.
* Options are canonical names (:mod:`spec.vocabulary`). A formula takes its symbols; a function
  takes its canonical keyword parameters (:func:`spec.vocabulary.canonical_parameters`), and
  those with defaults may be omitted (the JSON lists the defaults used).
* ``--list`` shows every target with what it computes and the options it takes.

When the record's privacy claim has an exact privacy profile (``PrivacyClaim.profile``), a
calibrated sigma is checked against it: a sigma that is not (epsilon, delta)-DP under the profile
is printed with a :class:`~spec.errors.PrivacyLeakWarning` (e.g. zhang17's formula at large
epsilon).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import spec
from dperm.arguments import UsageError, option
from spec.errors import PrivacyLeakWarning
from spec.record import Calibration, PrivacyModel, Rounding, SpecRecord
from spec.render import calibration_source
from spec.vocabulary import canonical_parameters

__all__ = ["Target", "calibration_targets", "accountant_targets", "calibrate", "epsilon", "resolve"]

#: The verb-specific built-in target, kept as it always was (``dperm calibrate gaussian ...``).
BUILTIN = "gaussian"


@dataclass(frozen=True)
class Target:
    """Something ``calibrate`` or ``epsilon`` can run: the parameters it takes and where it comes from."""

    record: SpecRecord
    name: str  # the calibration's name, or "accountant"
    computes: str  # canonical name of the result
    source: str  # "formula sigma" or a function's dotted name
    statement: str
    required: tuple[str, ...]
    optional: dict
    rounding: Rounding
    calibration: Calibration | None = None  # None for an accountant

    def describe(self) -> dict:
        return {"target": self.record.id, "name": self.name, "computes": self.computes, "source": self.source,
                "required": list(self.required), "optional": dict(self.optional), "statement": self.statement}


def _formula_parameters(record: SpecRecord, formula: str) -> tuple[tuple[str, ...], dict]:
    """A formula needs its symbols; the record's other symbols only decide more assumptions."""
    free = record.formula(formula).expr.free_symbols
    required = tuple(s.name for s in record.symbols if s.symbol in free)
    optional = {s.name: None for s in record.symbols if s.symbol not in free}
    return required, optional


def _calibration_target(record: SpecRecord, c: Calibration) -> Target:
    if c.formula is not None:
        required, optional = _formula_parameters(record, c.formula)
        optional.pop(c.parameter, None)  # the computed quantity is not an input (laplace.mechanism's scale)
        rounding = record.formula(c.formula).rounding
    else:
        required, optional = canonical_parameters(c.function)
        rounding = c.rounding
    return Target(record, c.name, c.parameter, calibration_source(c), c.statement, required, optional,
                  rounding, c)


def _accountant_target(record: SpecRecord) -> Target | None:
    fn = record.privacy.accountant if record.privacy is not None else None
    if fn is None:
        return None
    try:
        required, optional = canonical_parameters(fn)
    except ValueError:  # not callable by canonical names: not reachable from the command line
        return None
    doc = (fn.__doc__ or "").strip().splitlines()
    return Target(record, "accountant", "epsilon", f"{fn.__module__}.{fn.__qualname__}", doc[0] if doc else "",
                  required, optional, Rounding.UP)


def calibration_targets() -> list[Target]:
    """Every record calibration, in registry order (the default of each record first)."""
    return [_calibration_target(r, c) for r in spec.records() for c in r.calibrations()]


def accountant_targets() -> list[Target]:
    """Every record accountant callable by canonical names, in registry order."""
    return [t for t in (_accountant_target(r) for r in spec.records()) if t is not None]


def _record(verb: str, record_id: str) -> SpecRecord:
    try:
        return spec.get(record_id)
    except KeyError as err:
        raise UsageError(f"invalid choice: {record_id!r} is neither {BUILTIN!r} nor a record id "
                         f"({err.args[0]}); see dperm {verb} --list") from None


def resolve(verb: str, record_id: str, calibration: str | None = None) -> Target:
    """The :class:`Target` that ``dperm VERB RECORD_ID [--calibration NAME]`` runs."""
    record = _record(verb, record_id)
    if verb == "epsilon":
        if calibration is not None:
            raise UsageError("--calibration applies only to dperm calibrate")
        target = _accountant_target(record)
        if target is None:
            raise UsageError(f"{record.id} has no accountant callable by canonical names (PrivacyClaim.accountant); "
                             f"see dperm epsilon --list, or evaluate its formulas with dperm spec {record.id} --eval")
        return target
    found = record.calibrations()
    if not found:
        raise UsageError(f"{record.id} has no calibration (no formula named sigma or scale, none declared); "
                         f"see dperm calibrate --list, or evaluate its formulas with dperm spec {record.id} --eval")
    names = [c.name for c in found]
    if calibration is None:
        return _calibration_target(record, found[0])
    if calibration not in names:
        raise UsageError(f"--calibration ({calibration}) must be one of {', '.join(names)} for {record.id}")
    return _calibration_target(record, found[names.index(calibration)])


def _arguments(target: Target, verb: str, values: dict) -> dict:
    """``values`` checked against what ``target`` takes (one-line errors name the options)."""
    takes = list(target.required) + list(target.optional)
    extra = [k for k in values if k not in takes]
    where = f"{verb} {target.record.id}" + (f" --calibration {target.name}" if target.calibration else "")
    if extra:
        raise UsageError(f"{', '.join(option(k) for k in extra)} does not apply to {where}; it takes "
                         f"{', '.join(option(k) for k in takes)}")
    missing = [k for k in target.required if k not in values]
    if missing:
        raise UsageError(f"the following arguments are required for {where}: {', '.join(option(k) for k in missing)}")
    return dict(values)


def _defaults(target: Target, values: dict) -> dict:
    return {k: v for k, v in target.optional.items() if k not in values and v is not None}


def _neighbouring(record: SpecRecord) -> str:
    claim = record.privacy
    return (claim.neighbouring if claim is not None else record.conventions.neighbouring).value


def _profile_delta(record: SpecRecord, parameter: str, value, values: dict):
    """The exact delta of the calibrated noise at the claimed epsilon, when the record's profile gives it.

    Emits a :class:`PrivacyLeakWarning` when it exceeds the claimed delta. None when the record has
    no profile, makes no (epsilon, delta) claim in plain symbols, or the profile needs other values.
    """
    claim = record.privacy
    if claim is None or claim.profile is None or claim.model is not PrivacyModel.APPROX_DP:
        return None
    by_symbol = {s.symbol: s.name for s in record.symbols}
    eps_name, delta_name = by_symbol.get(claim.epsilon), by_symbol.get(claim.delta)
    if eps_name not in values or delta_name not in values:
        return None
    required, optional = canonical_parameters(claim.profile)
    known = {**values, parameter: value}
    if any(k not in known for k in required):
        return None
    profile = claim.profile(**{k: known[k] for k in (*required, *optional) if k in known})
    achieved = profile(values[eps_name])
    if achieved > values[delta_name]:
        fn = claim.profile
        warnings.warn(
            f"{record.id}: {parameter} ({value!r}) at epsilon ({values[eps_name]!r}) is not (epsilon, delta)-DP: "
            f"exact delta {achieved:.3g} > delta ({values[delta_name]!r}) under the record's privacy profile "
            f"({fn.__module__}.{fn.__qualname__})",
            PrivacyLeakWarning,
            stacklevel=2,
        )
    return achieved


def calibrate(target: Target, values: dict) -> dict:
    """Run a calibration target at canonical ``values``; the result is keyed by the computed name."""
    kwargs = _arguments(target, "calibrate", values)
    c = target.calibration
    if c.formula is not None:
        value = target.record.evaluate(c.formula, **kwargs)  # checks the assumptions first
        unchecked = [a.name for a in target.record.unchecked_assumptions(**kwargs)]
    else:
        value = c.function(**kwargs)
        unchecked = []
    out = {"record": target.record.id, "calibration": target.name, "source": target.source,
           "values": kwargs, "defaults": _defaults(target, kwargs), "neighbouring": _neighbouring(target.record),
           "rounding": target.rounding.value, "unchecked_assumptions": unchecked, target.computes: value}
    if isinstance(value, float) and math.isfinite(value):
        delta = _profile_delta(target.record, target.computes, value, kwargs)
        if delta is not None:
            out["profile_delta"] = delta
    return out


def epsilon(target: Target, values: dict) -> dict:
    """Run a record's accountant at canonical ``values``."""
    kwargs = _arguments(target, "epsilon", values)
    value = target.record.privacy.accountant(**kwargs)
    return {"record": target.record.id, "accountant": target.source, "values": kwargs,
            "defaults": _defaults(target, kwargs), "neighbouring": _neighbouring(target.record),
            "rounding": target.rounding.value, "epsilon": value}
