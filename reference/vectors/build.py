"""Build a vector's loss and domain from their JSON description (shared by every paper's cases).

``{"name": "Logistic", "bounds": {"feature_norm": 1.0}}`` is ``reference.losses.Logistic(
feature_norm=1.0)``; ``{"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}}`` is
``reference.domains.L2Ball(radius=1.0, dim=2)``: the name is the class's, the keywords its
constructor's. A regularised loss nests its parts: ``{"name": "Regularised", "bounds":
{"domain_radius": 1.0}, "loss": {...}, "regulariser": {"name": "L2Regulariser", "bounds":
{"strength": 4.0}}}`` is ``Regularised(<loss>, L2Regulariser(strength=4.0), domain_radius=1.0)``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.typing import ArrayLike

from reference import domains as _domains
from reference import losses as _losses
from reference.tape import NoiseTape, Recorder
from reference.vectors.declared import Population

__all__ = ["build_loss", "build_domain", "complete", "with_departures", "float_list"]


def build_loss(spec: dict) -> _losses.Loss:
    """The loss named in a vector's ``inputs.loss``."""
    name = spec["name"]
    if name == "Regularised":
        reg = spec["regulariser"]
        if reg["name"] not in ("L2Regulariser", "L1Regulariser"):
            raise ValueError(f"regulariser name ({reg['name']!r}) must be L2Regulariser or L1Regulariser")
        return _losses.Regularised(build_loss(spec["loss"]), getattr(_losses, reg["name"])(**reg["bounds"]),
                                   **spec["bounds"])
    if name not in _losses.__all__ or not isinstance(getattr(_losses, name), type):
        raise ValueError(f"loss name ({name!r}) must be a class of reference.losses")
    return getattr(_losses, name)(**spec["bounds"])


def build_domain(spec: dict) -> _domains.Domain:
    """The domain named in a vector's ``inputs.domain``."""
    name = spec["name"]
    if name not in _domains.__all__ or not isinstance(getattr(_domains, name), type):
        raise ValueError(f"domain name ({name!r}) must be a class of reference.domains")
    return getattr(_domains, name)(**spec["parameters"])


def _attributes(obj, names) -> dict:
    out = {}
    for name in names:
        value = getattr(obj, name, None)
        if hasattr(value, "tolist"):  # numpy arrays and scalars
            value = value.tolist()
        out[name] = value
    return out


def describe(obj: object) -> dict:
    """``{"name": class name, "parameters": {keyword: value}}`` that rebuilds ``obj``.

    The keywords are the class constructor's, read back from the attributes of the same name;
    keywords left at their defaults are omitted. Raises ValueError when ``obj`` cannot be rebuilt
    that way (a constructor argument that is not stored, or not a number or a list of numbers).

    >>> from reference.domains import L2Ball
    >>> describe(L2Ball(radius=1.0, dim=2))
    {'name': 'L2Ball', 'parameters': {'radius': 1.0, 'dim': 2}}
    """
    import inspect

    cls = type(obj)
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        raise ValueError(f"{cls.__name__} has no introspectable constructor") from None
    keywords = [p for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY]
    if any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
           for p in signature.parameters.values()):
        raise ValueError(f"{cls.__name__} takes positional arguments: it cannot be written as name and keywords")
    names = [p.name for p in keywords]
    target = _attributes(obj, names)
    parameters = dict(target)
    for p in keywords:  # drop what the default reproduces
        if p.default is inspect.Parameter.empty:
            continue
        trial = {k: v for k, v in parameters.items() if k != p.name}
        try:
            if _attributes(cls(**trial), names) == target:
                parameters = trial
        except (TypeError, ValueError):
            pass
    try:
        rebuilt = _attributes(cls(**parameters), names)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{cls.__name__} cannot be rebuilt from {parameters}: {err}") from None
    if rebuilt != target:
        raise ValueError(f"{cls.__name__} cannot be rebuilt from the attributes named like its keywords")
    return {"name": cls.__name__, "parameters": parameters}


def with_departures(vector: dict, computed: dict) -> dict:
    """``computed`` (a paper's ``compute(vector, tape)``: derived, checkpoints, output, flags) with the
    departures from the printed papers that the vector follows appended to its flags
    (:func:`reference.vectors.departures.departure_flags` of its ``spec`` and ``parameters``)."""
    from reference.vectors.departures import departure_flags

    out = dict(computed)
    out["flags"] = list(computed["flags"]) + departure_flags(vector["spec"], vector["parameters"])
    return out


def complete(vector: dict, tape: NoiseTape | None, *, seed: int, run: Callable[[dict, Recorder], None],
             compute: Callable[[dict, NoiseTape], dict], population: Population | None = None) -> dict:
    """Add the tape and the results to a vector of inputs and parameters (every paper's cases).

    ``tape`` is the stored :class:`~reference.tape.NoiseTape`, or ``None`` to draw a fresh one:
    ``run(vector, recorder)`` runs the reference once with a ``Recorder(seed)``. ``compute(vector,
    tape)`` replays it and returns the derived values, checkpoints, output and flags; the departure
    flags are added (:func:`with_departures`). The complete vector must declare only what is true
    (:func:`reference.vectors.declared.require`, with the case's ``population`` if it states one):
    otherwise :class:`~reference.vectors.declared.DeclaredFalseError`.
    """
    from reference.vectors.declared import require

    if tape is None:
        recorder = Recorder(seed)
        run(vector, recorder)
        tape = recorder.tape
    vector["tape"] = tape.to_dict()
    vector.update(with_departures(vector, compute(vector, tape)))
    return require(vector, population=population)


def float_list(a: ArrayLike) -> list:
    """``a`` as nested lists of Python floats (float64), as the vectors store arrays."""
    return np.asarray(a, dtype=np.float64).tolist()
