"""Ready-made privacy profiles for profile mode, and the run counts they suggest.

``dperm audit --profile NAME:KEY=VALUE,...`` (and :func:`ready_profile` in Python) builds the
declared profile ``delta(eps)`` of a textbook mechanism from spec, so that a user audits "my
Laplace at scale 2" without writing the profile:

=====================================================  =============================================
form                                                   profile
=====================================================  =============================================
``laplace:scale=B[,sensitivity=S]``                    :func:`spec.laplace.profile` (S = 1)
``gaussian:sigma=S[,sensitivity=D][,steps=T]``         :func:`spec.gaussian.profile` (D = 1, T = 1)
``gaussian:epsilon=E,delta=d[,sensitivity=D]...``      the Gaussian at ``spec.gaussian.analytic_sigma``
                                                       for ``(E, d)`` (rounded up): a calibration at
                                                       ``(epsilon, delta)``
``pure[:epsilon=E]``                                   :func:`spec.profiles.pure_dp_profile` (E: the
                                                       audit's epsilon)
``record:ID[,NAME=VALUE...]``                          a spec record's default calibration at the
                                                       given values (epsilon and delta default to the
                                                       audit's claim) and its privacy claim's exact
                                                       profile at that noise
=====================================================  =============================================

:func:`suggested_runs` turns the same description into a run count: the runs per dataset that
flag the mechanism with its noise multiplied by ``factor`` with the given power (profile mode:
:func:`audits.stats.runs_for_gaussian` / ``runs_for_laplace``; point mode with no profile: a
Laplace mechanism calibrated to ``epsilon`` when ``delta = 0``, the analytic Gaussian otherwise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from audits import stats
from spec import gaussian as spec_gaussian
from spec import laplace as spec_laplace
from spec import profiles as spec_profiles
from spec.errors import ParameterError

__all__ = ["ReadyProfile", "ready_profile", "is_ready_profile", "suggested_runs", "NAMES"]

#: Names of the ready-made profiles.
NAMES = ("laplace", "gaussian", "pure", "record")


@dataclass(frozen=True)
class ReadyProfile:
    """A declared profile and what it stands for (``kind``: laplace, gaussian, pure, record)."""

    profile: object
    kind: str
    description: str
    parameters: dict


def is_ready_profile(text: str) -> bool:
    """Whether ``text`` names a ready-made profile (rather than ``MODULE:NAME``)."""
    head, _, rest = text.partition(":")
    return head in NAMES and (not rest or "=" in rest or head == "record")


def _parse(text: str):
    head, _, rest = text.partition(":")
    values, record = {}, None
    for i, item in enumerate(filter(None, (s.strip() for s in rest.split(",")))):
        if head == "record" and i == 0 and "=" not in item:
            record = item
            continue
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ParameterError(f"profile ({text!r}): {item!r} must have the form NAME=VALUE")
        try:
            values[key.strip()] = float(value)
        except ValueError:
            raise ParameterError(f"profile ({text!r}): {key} ({value!r}) must be a number") from None
    return head, record, values


def _take(text, values, allowed):
    extra = sorted(set(values) - set(allowed))
    if extra:
        raise ParameterError(f"profile ({text!r}): {', '.join(extra)} not among its parameters "
                             f"({', '.join(allowed)})")


def ready_profile(text: str, *, epsilon, delta=0.0) -> ReadyProfile:
    """The ready-made profile ``text`` (module docstring) for an audit of ``(epsilon, delta)``."""
    head, record_id, values = _parse(text)
    if head == "laplace":
        _take(text, values, ("scale", "sensitivity"))
        if "scale" not in values:
            raise ParameterError(f"profile ({text!r}) needs scale=B")
        kw = {"scale": values["scale"], "sensitivity": values.get("sensitivity", 1.0)}
        return ReadyProfile(spec_laplace.profile(**kw), "laplace", f"Laplace {kw}", kw)
    if head == "gaussian":
        _take(text, values, ("sigma", "sensitivity", "steps", "epsilon", "delta"))
        sens, steps = values.get("sensitivity", 1.0), values.get("steps", 1.0)
        if steps != int(steps) or steps < 1:
            raise ParameterError(f"profile ({text!r}): steps ({steps:g}) must be a positive integer")
        if "sigma" in values:
            if "epsilon" in values or "delta" in values:
                raise ParameterError(f"profile ({text!r}): give sigma or (epsilon, delta), not both")
            sigma = values["sigma"]
        elif "epsilon" in values and "delta" in values:
            sigma = spec_gaussian.analytic_sigma(epsilon=values["epsilon"], delta=values["delta"],
                                                 sensitivity=sens, steps=int(steps))
        else:
            raise ParameterError(f"profile ({text!r}) needs sigma=S, or epsilon=E and delta=D")
        kw = {"sigma": sigma, "sensitivity": sens, "steps": int(steps)}
        return ReadyProfile(spec_gaussian.profile(**kw), "gaussian", f"Gaussian {kw}", kw)
    if head == "pure":
        _take(text, values, ("epsilon",))
        eps = values.get("epsilon", epsilon)
        return ReadyProfile(spec_profiles.pure_dp_profile(eps), "pure", f"pure {eps:g}-DP",
                            {"epsilon": eps})
    if head == "record":
        return _record_profile(text, record_id, values, epsilon=epsilon, delta=delta)
    raise ParameterError(f"profile ({text!r}) must be one of {', '.join(NAMES)} (NAME:KEY=VALUE,...) "
                         "or MODULE:NAME")


def _record_profile(text, record_id, values, *, epsilon, delta):
    from spec import calibrations  # the same targets as ``dperm calibrate``
    from spec.vocabulary import canonical_parameters

    if not record_id:
        raise ParameterError(f"profile ({text!r}) needs a record id: record:ID,NAME=VALUE,...")
    try:
        target = calibrations.calibration_target(record_id)
    except calibrations.TargetError as err:
        raise ParameterError(f"profile ({text!r}): {err}") from None
    claim = target.record.privacy
    if claim is None or claim.profile is None:
        raise ParameterError(f"profile ({text!r}): {target.record.id} declares no exact privacy profile")
    takes = set(target.required) | set(target.optional)
    values = dict(values)
    for name, value in (("epsilon", epsilon), ("delta", delta)):
        if name in takes and name not in values:
            values[name] = value
    values = {k: (int(v) if v == int(v) and k in ("n", "steps", "dimension") else v) for k, v in values.items()}
    try:
        out = calibrations.calibrate(target, values)
    except calibrations.TargetError as err:
        raise ParameterError(f"profile ({text!r}): {err}") from None
    known = {**values, target.computes: out[target.computes]}
    required, optional = canonical_parameters(claim.profile)
    missing = [k for k in required if k not in known]
    if missing:
        raise ParameterError(f"profile ({text!r}): {target.record.id}'s profile also needs {', '.join(missing)}")
    kw = {k: known[k] for k in (*required, *optional) if k in known}
    return ReadyProfile(claim.profile(**kw), "record", f"{target.record.id} profile at {kw}", kw)


def suggested_runs(ready: ReadyProfile | None, *, epsilon, delta, alpha, power=0.9, factor=0.8) -> int:
    """Runs per dataset to flag the described mechanism with its noise x ``factor`` (module docstring)."""
    if ready is not None and ready.kind == "laplace":
        p = ready.parameters
        return stats.runs_for_laplace(scale=p["scale"], sensitivity=p["sensitivity"], factor=factor,
                                      epsilon=epsilon, alpha=alpha, power=power)
    if ready is not None and ready.kind == "gaussian":
        p = ready.parameters
        return stats.runs_for_gaussian(sigma=p["sigma"] / math.sqrt(p["steps"]) if p["steps"] > 1 else p["sigma"],
                                       sensitivity=p["sensitivity"], factor=factor, alpha=alpha, power=power)
    if delta == 0:  # point claim or pure profile: a Laplace mechanism calibrated to epsilon
        return stats.runs_for_laplace(scale=1.0 / epsilon, factor=factor, epsilon=epsilon, alpha=alpha,
                                      power=power)
    sigma = spec_gaussian.analytic_sigma(epsilon=epsilon, delta=delta, sensitivity=1.0)
    if ready is not None:  # a declared profile: the Gaussian's profile is what would be violated
        return stats.runs_for_gaussian(sigma=sigma, factor=factor, alpha=alpha, power=power)
    return stats.runs_for_gaussian(sigma=sigma, factor=factor, alpha=alpha, power=power, mode="point",
                                   epsilon=epsilon, delta=delta)
