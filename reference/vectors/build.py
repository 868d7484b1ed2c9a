"""Build a vector's loss and domain from their JSON description (shared by every paper's cases).

``{"name": "Logistic", "bounds": {"feature_norm": 1.0}}`` is ``reference.losses.Logistic(
feature_norm=1.0)``; ``{"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}}`` is
``reference.domains.L2Ball(radius=1.0, dim=2)``: the name is the class's, the keywords its
constructor's.
"""

from __future__ import annotations

from reference import domains as _domains
from reference import losses as _losses

__all__ = ["build_loss", "build_domain"]


def build_loss(spec: dict) -> _losses.Loss:
    """The loss named in a vector's ``inputs.loss``."""
    name = spec["name"]
    if name not in _losses.__all__ or not isinstance(getattr(_losses, name), type):
        raise ValueError(f"loss name ({name!r}) must be a class of reference.losses")
    return getattr(_losses, name)(**spec["bounds"])


def build_domain(spec: dict) -> _domains.Domain:
    """The domain named in a vector's ``inputs.domain``."""
    name = spec["name"]
    if name not in _domains.__all__ or not isinstance(getattr(_domains, name), type):
        raise ValueError(f"domain name ({name!r}) must be a class of reference.domains")
    return getattr(_domains, name)(**spec["parameters"])
