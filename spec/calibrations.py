"""The calibrations and accountants of the records, as targets one can run by name.

This is the one lookup behind ``dperm calibrate``, ``dperm epsilon``, the ``--calibration`` option
of ``dperm run``, the ready-made ``record:`` profiles of the audits, and any Python caller:

* :func:`calibration_target` ``(record_id, name=None)``: one of ``record.calibrations()``
  (:meth:`spec.record.SpecRecord.calibrations`: a formula, or a numerical function such as a
  :mod:`spec.inversion` over an accountant); the first is the default.
* :func:`accountant_target` ``(record_id, calibration=None)``: the privacy claim's accountant (the
  epsilon certified at a delta for a given noise); with a calibration name, the epsilon certified
  for the noise that calibration gives (:func:`epsilon` calibrates first).
* :func:`calibrate` and :func:`epsilon` run a target at canonical values (:mod:`spec.vocabulary`),
  check the values against what the target takes, and report what was used.
* :func:`offered` lists a record's calibration names (what ``--calibration`` accepts).
* The alias ``gaussian`` (:data:`ALIASES`) names the Gaussian mechanism's records: ``gaussian``
  with calibration ``analytic`` (the default), ``classic``, ``zhang17`` or ``zcdp`` is the record
  calibration of that name, and its accountants ``exact`` (default), ``zcdp`` and ``rdp``
  (subsampled with ``sampling``) are record accountants. No calibration is computed here: every
  number comes from a record.

Errors are :class:`TargetError` (a :class:`~spec.errors.ParameterError`) in canonical names; it
carries the record, the target and the offending names, so a command line can reword it in its
own option spellings.

>>> from spec import calibrations
>>> calibrations.offered("wang19.thm_1")
('zcdp', 'rdp', 'rdp-mironov', 'exact')
>>> target = calibrations.calibration_target("gaussian.analytic")
>>> out = calibrations.calibrate(target, {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0})
>>> out["sigma"], out["rounding"]
(3.730631634815942, 'up')
>>> calibrations.calibration_target("wang19.thm_1", "best")
Traceback (most recent call last):
...
spec.calibrations.TargetError: calibration (best) must be one of zcdp, rdp, rdp-mironov, exact for wang19.thm_1
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from typing import Mapping

from spec import registry
from spec.errors import ParameterError, PrivacyLeakWarning
from spec.record import Calibration, PrivacyModel, Rounding, SpecRecord
from spec.vocabulary import canonical_parameters

__all__ = [
    "ALIASES",
    "TargetError",
    "Target",
    "record",
    "offered",
    "calibration_target",
    "accountant_target",
    "calibration_targets",
    "accountant_targets",
    "alias_calibration",
    "alias_accountant",
    "calibrate",
    "epsilon",
]


class TargetError(ParameterError):
    """A calibration or accountant that the record does not offer, or values that do not fit it.

    Attributes
    ----------
    record : str
        The record id (or alias) asked for.
    target : str
        ``calibrate RECORD [--calibration NAME]``-style description of the target.
    extra, missing, takes : tuple of str
        Canonical names given but not taken, required but not given, and all that are taken (for
        ``kind == "not-offered"``: the names offered).
    kind : str
        ``"unknown"`` (no such record), ``"no-calibration"``, ``"no-accountant"``, ``"not-offered"``
        (no calibration or accountant of that name), ``"extra"``, ``"missing"``.
    name : str
        The calibration or accountant name asked for (``kind == "not-offered"``).
    """

    def __init__(self, message: str, *, kind: str, record: str = "", target: str = "", extra: tuple = (),
                 missing: tuple = (), takes: tuple = (), name: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.name = name
        self.record = record
        self.target = target
        self.extra = tuple(extra)
        self.missing = tuple(missing)
        self.takes = tuple(takes)


#: The alias ``gaussian``: the Gaussian mechanism's calibrations (name -> record id, calibration,
#: defaults of the alias) and accountants (name -> record id; ``rdp`` by sampling scheme). The
#: default is first. The alias releases once unless ``steps`` says otherwise.
ALIASES: Mapping[str, Mapping[str, Mapping]] = {
    "gaussian": {
        "calibrations": {
            "analytic": ("gaussian.analytic", "analytic", {}),
            "classic": ("gaussian.classic", "sigma", {}),
            "zhang17": ("zhang17.thm_1", "printed", {}),
            "zcdp": ("zcdp.gaussian_calibration", "sigma", {"steps": 1}),
        },
        "accountants": {
            "exact": "gaussian.analytic",
            "zcdp": "zcdp.gaussian_calibration",
            "rdp": "rdp.gaussian",
            "rdp/poisson": "rdp.poisson_subsampled_gaussian",
            "rdp/without-replacement": "rdp.without_replacement_subsampled_gaussian",
        },
    },
}


@dataclass(frozen=True)
class Target:
    """Something :func:`calibrate` or :func:`epsilon` runs: what it takes and where it comes from.

    Attributes
    ----------
    record : SpecRecord
    name : str
        The calibration's name, or ``"accountant"``.
    computes : str
        Canonical name of the result (``sigma``, ``epsilon``, ...).
    source : str
        ``"formula sigma"`` or a function's dotted name.
    statement : str
    required, optional
        Canonical names the target takes (``optional`` maps to defaults; ``None``: not needed).
    rounding : Rounding
    calibration : Calibration or None
        For an accountant target: the calibration whose noise it accounts (None: noise given).
    """

    record: SpecRecord
    name: str
    computes: str
    source: str
    statement: str
    required: tuple[str, ...]
    optional: dict = field(default_factory=dict)
    rounding: Rounding = Rounding.UP
    calibration: Calibration | None = None

    @property
    def is_accountant(self) -> bool:
        return self.computes == "epsilon" and self.name == "accountant"

    def describe(self) -> dict:
        """JSON-ready: target, name, computes, source, required, optional, statement."""
        return {"target": self.record.id, "name": self.name, "computes": self.computes, "source": self.source,
                "required": list(self.required), "optional": dict(self.optional), "statement": self.statement}

    def where(self) -> str:
        """``calibrate ID --calibration NAME`` / ``epsilon ID``: how the target is named in messages."""
        if self.is_accountant:
            extra = f" --calibration {self.calibration.name}" if self.calibration is not None else ""
            return f"epsilon {self.record.id}{extra}"
        return f"calibrate {self.record.id} --calibration {self.name}"


def record(record_id: str) -> SpecRecord:
    """The record ``record_id`` (a :class:`TargetError` with suggestions when there is none)."""
    try:
        return registry.get(record_id)
    except KeyError as err:
        raise TargetError(str(err.args[0]), kind="unknown", record=str(record_id)) from None


def _as_record(record_or_id) -> SpecRecord:
    return record_or_id if isinstance(record_or_id, SpecRecord) else record(record_or_id)


def offered(record_id: str | SpecRecord) -> tuple[str, ...]:
    """The names of a record's calibrations (``--calibration NAME``), the default first."""
    return tuple(c.name for c in _as_record(record_id).calibrations())


def _formula_parameters(rec: SpecRecord, formula: str) -> tuple[tuple[str, ...], dict]:
    """A formula needs its symbols; the record's other symbols only decide more assumptions."""
    free = rec.formula(formula).expr.free_symbols
    required = tuple(s.name for s in rec.symbols if s.symbol in free)
    optional = {s.name: None for s in rec.symbols if s.symbol not in free}
    return required, optional


def _source(c: Calibration) -> str:
    from spec.render import calibration_source

    return calibration_source(c)


def _calibration(rec: SpecRecord, c: Calibration) -> Target:
    if c.formula is not None:
        required, optional = _formula_parameters(rec, c.formula)
        optional.pop(c.parameter, None)  # the computed quantity is not an input (laplace.mechanism's scale)
        rounding = rec.formula(c.formula).rounding
    else:
        required, optional = canonical_parameters(c.function)
        rounding = c.rounding
    return Target(rec, c.name, c.parameter, _source(c), c.statement, required, optional, rounding, c)


def calibration_target(record_id: str | SpecRecord, name: str | None = None) -> Target:
    """Calibration ``name`` of the record (default: its first).

    Raises
    ------
    TargetError
        If the record has no calibration, or none called ``name``.
    """
    rec = _as_record(record_id)
    found = rec.calibrations()
    if not found:
        raise TargetError(f"{rec.id} has no calibration (no formula named sigma or scale, none declared)",
                          kind="no-calibration", record=rec.id)
    names = [c.name for c in found]
    if name is None:
        return _calibration(rec, found[0])
    if name not in names:
        raise TargetError(f"calibration ({name}) must be one of {', '.join(names)} for {rec.id}",
                          kind="not-offered", record=rec.id, takes=tuple(names), name=name)
    return _calibration(rec, found[names.index(name)])


def _accountant(rec: SpecRecord, calibration: Calibration | None = None) -> Target | None:
    fn = rec.privacy.accountant if rec.privacy is not None else None
    if fn is None:
        return None
    try:
        required, optional = canonical_parameters(fn)
    except ValueError:  # not callable by canonical names
        return None
    doc = (fn.__doc__ or "").strip().splitlines()
    statement = doc[0] if doc else ""
    if calibration is not None:
        # the calibration's inputs, then whatever else the accountant needs but the calibration gives
        cal = _calibration(rec, calibration)
        computed = cal.computes
        rest = [k for k in required if k != computed and k not in cal.required]
        required = (*cal.required, *rest)
        optional = {k: v for k, v in {**optional, **cal.optional}.items() if k != computed and k not in required}
        statement = f"the epsilon certified for the noise of calibration {calibration.name}: {statement}"
    return Target(rec, "accountant", "epsilon", f"{fn.__module__}.{fn.__qualname__}", statement,
                  tuple(required), optional, Rounding.UP, calibration)


def accountant_target(record_id: str | SpecRecord, calibration: str | None = None) -> Target:
    """The record's accountant; with ``calibration``, applied to the noise that calibration gives.

    Raises
    ------
    TargetError
        If the record has no accountant callable by canonical names, or no such calibration.
    """
    rec = _as_record(record_id)
    cal = calibration_target(rec, calibration).calibration if calibration is not None else None
    target = _accountant(rec, cal)
    if target is None:
        raise TargetError(f"{rec.id} has no accountant callable by canonical names (PrivacyClaim.accountant)",
                          kind="no-accountant", record=rec.id)
    if cal is not None:
        takes = set(canonical_parameters(rec.privacy.accountant)[0]) | set(canonical_parameters(
            rec.privacy.accountant)[1])
        if cal.parameter not in takes:
            raise TargetError(f"{rec.id}'s accountant does not take {cal.parameter}, the quantity calibration "
                              f"{cal.name} computes", kind="no-accountant", record=rec.id)
    return target


def calibration_targets() -> list[Target]:
    """Every record calibration, in registry order (the default of each record first)."""
    return [_calibration(r, c) for r in registry.records() for c in r.calibrations()]


def accountant_targets() -> list[Target]:
    """Every record accountant callable by canonical names, in registry order."""
    return [t for t in (_accountant(r) for r in registry.records()) if t is not None]


def _alias(alias: str) -> Mapping:
    try:
        return ALIASES[alias]
    except KeyError:
        raise TargetError(f"alias ({alias!r}) must be one of {', '.join(ALIASES)}", kind="unknown",
                          record=alias) from None


def alias_calibration(alias: str, method: str | None = None) -> Target:
    """The record calibration that ``alias`` with ``method`` stands for (default: the first)."""
    table = _alias(alias)["calibrations"]
    name = next(iter(table)) if method is None else method
    if name not in table:
        raise TargetError(f"calibration ({name}) must be one of {', '.join(table)} for {alias}", kind="not-offered",
                          record=alias, takes=tuple(table), name=name)
    record_id, calibration, defaults = table[name]
    target = calibration_target(record_id, calibration)
    if not defaults:
        return target
    return dataclasses.replace(target, required=tuple(k for k in target.required if k not in defaults),
                               optional={**target.optional, **defaults})


def alias_accountant(alias: str, accountant: str | None = None, sampling: str | None = None) -> Target:
    """The record accountant that ``alias`` with ``accountant`` (and a sampling scheme) stands for."""
    table = _alias(alias)["accountants"]
    names = [k for k in table if "/" not in k]
    name = names[0] if accountant is None else accountant
    key = name if sampling is None else f"{name}/{sampling}"
    if key not in table:
        if name not in names:
            raise TargetError(f"accountant ({name}) must be one of {', '.join(names)} for {alias}",
                              kind="not-offered", record=alias, takes=tuple(names), name=name)
        schemes = [k.partition("/")[2] for k in table if k.startswith(f"{name}/")]
        raise TargetError(f"accountant {name} does not handle subsampling ({sampling}); "
                          + (f"it takes sampling {', '.join(schemes)}" if schemes else "use accountant rdp"),
                          kind="not-offered", record=alias, name=name)
    return accountant_target(table[key])


def _checked(target: Target, values: Mapping) -> dict:
    """``values`` checked against what ``target`` takes."""
    takes = list(target.required) + list(target.optional)
    where = target.where()
    extra = [k for k in values if k not in takes]
    if extra:
        raise TargetError(f"{', '.join(extra)} does not apply to {where}; it takes {', '.join(takes)}",
                          kind="extra", record=target.record.id, target=where, extra=tuple(extra), takes=tuple(takes))
    missing = [k for k in target.required if k not in values]
    if missing:
        raise TargetError(f"the following values are required for {where}: {', '.join(missing)}",
                          kind="missing", record=target.record.id, target=where, missing=tuple(missing), takes=tuple(takes))
    return dict(values)


def _defaults(target: Target, values: Mapping) -> dict:
    return {k: v for k, v in target.optional.items() if k not in values and v is not None}


def _neighbouring(rec: SpecRecord) -> str:
    claim = rec.privacy
    return (claim.neighbouring if claim is not None else rec.conventions.neighbouring).value


def _value(target: Target, kwargs: dict):
    c = target.calibration
    if c.formula is not None:  # a formula takes the target's defaults explicitly (a function has its own)
        values = {**_defaults(target, kwargs), **kwargs}
        return target.record.evaluate(c.formula, **values)  # checks the assumptions first
    return c.function(**kwargs)


def _profile_delta(target: Target, value, values: Mapping, *, warn: bool):
    """The exact delta of the calibrated noise at the claimed epsilon, when the record's profile gives it.

    None when the record has no profile, makes no (epsilon, delta) claim in plain symbols, or the
    profile needs other values. With ``warn``, a :class:`PrivacyLeakWarning` when it exceeds the
    claimed delta; it names the record's calibrations that are private at these values.
    """
    rec = target.record
    claim = rec.privacy
    if claim is None or claim.profile is None or claim.model is not PrivacyModel.APPROX_DP:
        return None
    by_symbol = {s.symbol: s.name for s in rec.symbols}
    eps_name, delta_name = by_symbol.get(claim.epsilon), by_symbol.get(claim.delta)
    if eps_name not in values or delta_name not in values:
        return None
    achieved = _achieved(rec, target.computes, value, values, eps_name)
    if achieved is None or not warn or achieved <= values[delta_name]:
        return achieved
    fn = claim.profile
    private = [c.name for c in rec.calibrations() if c.name != target.name
               and _private(_calibration(rec, c), values, eps_name, delta_name)]
    advice = (f"; calibration {' or '.join(private)} is private here (--calibration {private[0]})" if private
              else "; no calibration of this record is private here")
    warnings.warn(
        f"{rec.id}: {target.computes} ({value!r}) at epsilon ({values[eps_name]!r}) is not (epsilon, delta)-DP: "
        f"exact delta {achieved:.3g} > delta ({values[delta_name]!r}) under the record's privacy profile "
        f"({fn.__module__}.{fn.__qualname__}){advice}",
        PrivacyLeakWarning,
        stacklevel=3,
    )
    return achieved


def _achieved(rec: SpecRecord, parameter: str, value, values: Mapping, eps_name: str):
    required, optional = canonical_parameters(rec.privacy.profile)
    known = {**values, parameter: value}
    if any(k not in known for k in required):
        return None
    profile = rec.privacy.profile(**{k: known[k] for k in (*required, *optional) if k in known})
    return profile(values[eps_name])


def _private(target: Target, values: Mapping, eps_name: str, delta_name: str) -> bool:
    """Whether another calibration of the record is private at ``values`` (by the record's profile)."""
    takes = set(target.required) | set(target.optional)
    if any(k not in values for k in target.required):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            value = _value(target, {k: v for k, v in values.items() if k in takes})
            achieved = _achieved(target.record, target.computes, value, values, eps_name)
    except ParameterError:
        return False
    return achieved is not None and achieved <= values[delta_name]


def calibrate(target: Target, values: Mapping) -> dict:
    """Run a calibration target at canonical ``values``; the result is keyed by the computed name.

    The report also holds the values and defaults used, the neighbouring relation, the rounding
    direction, the assumptions the values could not decide, and (where the record has an exact
    privacy profile) ``profile_delta``, the exact delta of the noise at the claimed epsilon: a
    :class:`~spec.errors.PrivacyLeakWarning` is emitted when it exceeds the claimed delta.
    """
    if target.is_accountant:
        raise TargetError(f"{target.where()} is an accountant; use epsilon()", kind="not-offered",
                          record=target.record.id)
    kwargs = _checked(target, values)
    value = _value(target, kwargs)
    c = target.calibration
    unchecked = [a.name for a in target.record.unchecked_assumptions(**kwargs)] if c.formula is not None else []
    out = {"record": target.record.id, "calibration": target.name, "source": target.source,
           "values": kwargs, "defaults": _defaults(target, kwargs), "neighbouring": _neighbouring(target.record),
           "rounding": target.rounding.value, "unchecked_assumptions": unchecked, target.computes: value}
    if isinstance(value, float) and math.isfinite(value):
        delta = _profile_delta(target, value, kwargs, warn=True)
        if delta is not None:
            out["profile_delta"] = delta
    return out


def epsilon(target: Target, values: Mapping) -> dict:
    """Run an accountant target at canonical ``values``.

    With a calibration (:func:`accountant_target` ``(id, calibration)``) the values are the
    calibration's: its noise is computed first and then accounted (``out[parameter]`` holds it).
    An accountant function with a ``report`` attribute (the same computation returning a dict
    with ``epsilon`` and more, e.g. the minimising Renyi ``order``) adds those entries.
    """
    if not target.is_accountant:
        raise TargetError(f"{target.where()} is a calibration; use calibrate()", kind="not-offered",
                          record=target.record.id)
    kwargs = _checked(target, values)
    rec = target.record
    fn = rec.privacy.accountant
    required, optional = canonical_parameters(fn)
    extra = {}
    if target.calibration is not None:
        cal = _calibration(rec, target.calibration)
        takes = set(cal.required) | set(cal.optional)
        with warnings.catch_warnings():  # the accountant's epsilon is the answer; no warning about the target
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            calibrated = _value(cal, {k: v for k, v in kwargs.items() if k in takes})
        extra = {"calibration": cal.name, cal.computes: calibrated}
        known = {**kwargs, cal.computes: calibrated}
    else:
        known = kwargs
    call = {k: known[k] for k in (*required, *optional) if k in known}
    report = getattr(fn, "report", None)  # an accountant may also report how it got there (the order)
    found = report(**call) if report is not None else {"epsilon": fn(**call)}
    return {"record": rec.id, "accountant": target.source, "values": kwargs, **extra,
            "defaults": _defaults(target, kwargs), "neighbouring": _neighbouring(rec),
            "rounding": target.rounding.value, **{k: v for k, v in found.items() if k != "epsilon"},
            "epsilon": found["epsilon"]}
