"""The one validation of an ERM problem (data, loss, domain) shared by the reference algorithms.

Every algorithm calls :func:`check_problem` once, when it is configured; its inner loops then use
the returned snapshot of the rows with the losses' and domains' unchecked hooks
(``loss.gradient(..., check=False)``, ``domain.project(..., check=False)``).
"""

from __future__ import annotations

import numpy as np

from reference.arrays import ArrayLike
from reference.domains import Domain
from reference.losses import Loss
from spec.errors import AssumptionError, ParameterError

__all__ = ["check_problem", "check_setting", "start_point", "broadcast_start"]


def check_problem(data: ArrayLike, *, loss: Loss, domain: Domain, convex: bool = True) -> tuple[np.ndarray, int, int]:
    """Validate ``(data, loss, domain)`` once.

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (:class:`~spec.errors.DataBoundError` otherwise:
        data is rejected, never clipped).
    loss : reference.losses.Loss
    domain : reference.domains.Domain
        Of the data's dimension p, inside the ball where the loss's constants hold
        (``domain.max_norm <= loss.domain_radius`` when the loss has one).
    convex : bool
        Whether the algorithm needs a convex loss (:class:`~spec.errors.AssumptionError` if it
        is not).

    Returns
    -------
    (rows, n, p)
        A float64 snapshot of the rows (later changes to the caller's array cannot bypass the
        check), the number of records and the dimension.
    """
    check_setting(loss=loss, domain=domain, convex=convex)
    rows = loss.validate_data(data)
    if rows.ndim != 2:
        raise ParameterError(f"data (shape {rows.shape}) must have shape (n, k)")
    n = rows.shape[0]
    p = loss.dim_of_row(rows.shape[1])
    if domain.dim != p:
        raise ParameterError(f"domain (dimension {domain.dim}) must have the data's dimension p ({p})")
    return rows, n, p


def check_setting(*, loss: Loss, domain: Domain, convex: bool = True) -> None:
    """The data-free half of :func:`check_problem` (what configuring checks): the types, the
    convexity the algorithm needs, and the domain inside the ball where the loss's constants hold."""
    if not isinstance(loss, Loss):
        raise TypeError(f"loss ({type(loss).__name__}) must be a reference.losses.Loss")
    if not isinstance(domain, Domain):
        raise TypeError(f"domain ({type(domain).__name__}) must be a reference.domains.Domain")
    if convex and not loss.convex:
        raise AssumptionError(f"loss ({loss!r}) must be convex")
    if loss.domain_radius is not None and not domain.max_norm <= loss.domain_radius:
        raise AssumptionError(
            f"domain max_norm ({domain.max_norm!r}) must be <= the loss's domain_radius "
            f"({loss.domain_radius!r}): the declared constants hold only there"
        )


def start_point(name: str, value: ArrayLike | None, domain: Domain) -> np.ndarray:
    """A public starting point, validated when configuring: ``domain.interior_point()`` by default,
    else finite, of shape ``(p,)`` or ``(r, p)`` (one per run; the run checks ``r``), in the domain."""
    p = domain.dim
    if value is None:
        return np.asarray(domain.interior_point(), dtype=np.float64).copy()
    x = np.array(value, dtype=np.float64)
    if x.ndim not in (1, 2) or x.shape[-1] != p:
        raise ParameterError(f"{name} (shape {x.shape}) must have shape ({p},) or (runs, {p})")
    if not np.all(np.isfinite(x)):
        raise ParameterError(f"{name} (non-finite entries) must be finite")
    if not np.all(domain.contains(x)):
        raise ParameterError(f"{name} ({x.tolist()}) must lie in the domain {domain!r}")
    x.setflags(write=False)
    return x


def broadcast_start(name: str, start: np.ndarray, *, runs: int) -> np.ndarray:
    """A configured starting point as the ``(runs, p)`` state of a run."""
    if start.ndim == 2 and start.shape[0] != runs:
        raise ParameterError(f"{name} (shape {start.shape}) must have shape ({start.shape[1]},) or "
                             f"({runs}, {start.shape[1]})")
    return np.broadcast_to(start, (runs, start.shape[-1])).copy()
