r"""Measures of non-stationarity for non-convex problems: the gradient mapping and the Frank-Wolfe gap.

Both are utility quantities (they take the exact, non-private gradient of the empirical risk), used
by the audits to measure what the theorems bound; neither is ever released by an algorithm.

``gradient_mapping(x, g, step=gamma, domain=C, regulariser=r)``
    ``P_C(x, g, gamma) = (x - x^+)/gamma`` with ``x^+ = argmin_{u in C} <g, u> + ||u - x||^2/(2 gamma) +
    r(u) = prox_{gamma (r + indicator of C)}(x - gamma g)`` (record ``wang19.gradient_mapping``, equation
    (2) of Wang and Xu 2019). With ``C = R^p`` and ``r = 0`` it is ``g``.
``frank_wolfe_gap(x, g, domain=C)``
    ``max_{v in C} <v - x, -g> = support_C(-g) + <g, x>`` (record ``wang19.frank_wolfe_gap``): ``>= 0`` for
    ``x`` in C, and 0 exactly at the stationary points of F over C when ``g = grad F(x)``.
"""

from __future__ import annotations

import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import points as _points
from reference.domains import Domain
from reference.losses import Regulariser
from reference.proximal import prox
from spec import validate

__all__ = ["gradient_mapping", "frank_wolfe_gap"]


def gradient_mapping(x: ArrayLike, g: ArrayLike, *, step: float, domain: Domain,
                     regulariser: Regulariser | None = None) -> np.ndarray:
    """The generalised projected gradient ``(x - prox(x - step g))/step``.

    Parameters
    ----------
    x, g : array_like, shape (..., p)
        Points of C and the gradients there (broadcast together).
    step : float
        ``gamma > 0``.
    domain : reference.domains.Domain
    regulariser : reference.losses.Regulariser, optional

    Returns
    -------
    ndarray, shape (..., p)

    Utility
    -------
    ``wang19.gradient_mapping``; the norm of this mapping at the output is what ``wang19.thm_2`` and
    ``wang19.thm_5`` bound.
    """
    if not isinstance(domain, Domain):
        raise TypeError(f"domain ({type(domain).__name__}) must be a reference.domains.Domain")
    gamma = validate.positive("step", step)
    xs = _points("x", x, domain.dim)
    gs = _points("g", g, domain.dim)
    return (xs - prox(xs - gamma * gs, step=gamma, domain=domain, regulariser=regulariser)) / gamma


def frank_wolfe_gap(x: ArrayLike, g: ArrayLike, *, domain: Domain) -> np.ndarray:
    """``max_{v in C} <v - x, -g>``, shape ``(...)``.

    Parameters
    ----------
    x, g : array_like, shape (..., p)
        Points of C and the gradients there.
    domain : reference.domains.Domain
        Bounded (the support function is finite).

    Utility
    -------
    ``wang19.frank_wolfe_gap``; its expectation at the output is what ``wang19.thm_4`` and ``wang19.thm_6``
    bound.
    """
    if not isinstance(domain, Domain):
        raise TypeError(f"domain ({type(domain).__name__}) must be a reference.domains.Domain")
    xs = _points("x", x, domain.dim)
    gs = _points("g", g, domain.dim)
    return domain.support(-gs) + np.einsum("...i,...i->...", gs, xs)
