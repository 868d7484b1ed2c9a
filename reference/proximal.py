r"""The proximal map of ``step (r + indicator of C)``: closed forms where they exist, a certified
numerical prox otherwise.

``prox(v, step=gamma, domain=C, regulariser=r)`` returns

    argmin_{u in C}  gamma r(u) + ||u - v||_2^2 / 2,

the step of every proximal-gradient method over a constraint set (wang19 Algorithm 1 writes it as
``argmin_{u in C} <g, u> + ||u - x||^2/(2 gamma) + r(u)``, which is ``prox(x - gamma g)``).

Closed forms (derivations)
--------------------------
``r = 0``: the Euclidean projection onto C (any domain).

``r = (s/2) ||u||_2^2`` (:class:`~reference.losses.L2Regulariser`), any domain: completing the square,
``gamma s ||u||^2/2 + ||u - v||^2/2 = (1 + gamma s)/2 ||u - v/(1 + gamma s)||^2 + const``, so the prox is
``P_C(v / (1 + gamma s))``.

``r = lambda ||u||_1`` (:class:`~reference.losses.L1Regulariser`), with ``S(v) = sign(v) max(|v| - gamma
lambda, 0)`` the soft threshold:

* ``C = R^p``: ``S(v)``.
* ``C`` an l2 ball centred at 0: ``P_C(S(v))``. With a multiplier ``mu >= 0`` for ``||u||^2 <= R^2`` the
  Lagrangian's minimiser is ``S(v)/(1 + mu)``, a positive multiple of ``S(v)``, and complementary
  slackness picks ``1 + mu = max(1, ||S(v)||/R)``.
* ``C`` an l1 ball (centred at 0): ``P_C(S(v))``. The projection onto the l1 ball is itself a soft
  threshold at the smallest ``theta >= 0`` that lands in C, and ``S_theta(S_a(v)) = S_{a + theta}(v)``; the
  optimality conditions of ``gamma lambda ||u||_1 + ||u - v||^2/2`` with multiplier ``theta`` for
  ``||u||_1 <= R`` are those of the soft threshold at ``gamma lambda + theta``.
* ``C`` a box: the problem separates by coordinate; a one-dimensional convex function is minimised over
  an interval by clipping its unconstrained minimiser: ``clip(S(v), lower, upper)``.
* ``C`` the (scaled) simplex: ``||u||_1`` equals the scale on C, so ``r`` is constant there and the prox is
  ``P_C(v)``.

Everything else (an l1 penalty on a polytope, an off-centre ball, an intersection; any other
regulariser) goes to the certified solver (:func:`reference.solver.minimise`): the objective
``||u - v||^2/2 + gamma r(u)`` is 1-strongly convex, so its certified suboptimality ``gap`` bounds the
distance to the exact prox by ``sqrt(2 gap)`` (returned with ``certificate=True``).
"""

from __future__ import annotations

import math

import numpy as np

from reference.arrays import ArrayLike, l2_norm
from reference.arrays import points as _points
from reference.domains import Box, Domain, L1Ball, L2Ball, Rp, Simplex
from reference.losses import HalfSquaredDistance, L1Regulariser, L2Regulariser, LossConstants, Regulariser
from spec import validate
from spec.errors import ParameterError

__all__ = ["prox", "prox_unchecked", "closed_form", "DEFAULT_TOLERANCE"]

#: Certified suboptimality of the numerical prox (objective units): a distance of at most
#: ``sqrt(2e-10) = 1.4e-5`` from the exact prox. The non-smooth l1 penalty goes to the solver's
#: cutting-plane method, which certifies about 1e-11 at best (500 master LPs).
DEFAULT_TOLERANCE = 1e-10


def _centred_l2_ball(domain) -> bool:
    return isinstance(domain, L2Ball) and not np.any(domain.center)


def closed_form(domain: Domain, regulariser: Regulariser | None) -> bool:
    """Whether :func:`prox` has a closed form for this pair (module docstring)."""
    if regulariser is None or isinstance(regulariser, L2Regulariser):
        return True
    if isinstance(regulariser, L1Regulariser):
        return isinstance(domain, (Rp, L1Ball, Box, Simplex)) or _centred_l2_ball(domain)
    return False


class _Scaled:
    """``step * r`` for the solver's regulariser interface (value, gradient, constants)."""

    def __init__(self, regulariser: Regulariser, step: float):
        self.inner, self.step = regulariser, step

    def value(self, theta):
        return self.step * np.asarray(self.inner.value(theta))

    def gradient(self, theta):
        return self.step * np.asarray(self.inner.gradient(theta))

    def constants(self, *, dim=None, domain_radius=None) -> LossConstants:
        c = self.inner.constants(dim=dim, domain_radius=domain_radius)
        smooth = c.smoothness if math.isinf(c.smoothness) else self.step * c.smoothness
        return LossConstants(lipschitz=self.step * c.lipschitz, smoothness=smooth,
                             strong_convexity=self.step * c.strong_convexity)


def _numerical(v: np.ndarray, step: float, domain: Domain, regulariser, tolerance: float):
    from reference.solver import minimise  # the solver imports the domains and losses: import late

    if not domain.bounded:
        raise ParameterError(f"domain ({domain!r}) must be bounded for the numerical prox (certified solver)")
    flat = v.reshape(-1, v.shape[-1])
    out = np.empty_like(flat)
    worst = 0.0
    reg = _Scaled(regulariser, step)
    for i, row in enumerate(flat):
        loss = HalfSquaredDistance(data_norm=max(float(l2_norm(row)), 1e-300), domain_radius=domain.max_norm)
        res = minimise(loss, row[None, :], domain, tolerance=tolerance, normalisation="sum", regulariser=reg,
                       x0=domain.project(row))
        out[i] = res.theta
        worst = max(worst, math.sqrt(2.0 * res.gap))  # 1-strong convexity: ||u - u*||^2/2 <= gap
    return out.reshape(v.shape), worst


def prox_unchecked(v: np.ndarray, step: float, domain: Domain, regulariser: Regulariser | None = None, *,
                   tolerance: float = DEFAULT_TOLERANCE) -> np.ndarray:
    """:func:`prox` without input validation: the hook for inner loops (``v`` a float array of shape
    ``(..., p)``, ``step > 0``)."""
    if regulariser is None:
        return domain.project_unchecked(v)
    # the regulariser's own prox (shared with wang17's prox steps), then the domain's projection
    if isinstance(regulariser, L2Regulariser):
        return domain.project_unchecked(regulariser.prox(v, step))
    if isinstance(regulariser, L1Regulariser):
        if isinstance(domain, Rp):
            return regulariser.prox(v, step)
        if isinstance(domain, (L1Ball, Box)) or _centred_l2_ball(domain):
            # Box.project clips coordinatewise; the balls rescale / re-threshold (module docstring)
            return domain.project_unchecked(regulariser.prox(v, step))
        if isinstance(domain, Simplex):
            return domain.project_unchecked(v)
    return _numerical(v, step, domain, regulariser, tolerance)[0]


def prox(v: ArrayLike, *, step: float, domain: Domain, regulariser: Regulariser | None = None,
         tolerance: float = DEFAULT_TOLERANCE, certificate: bool = False) -> np.ndarray | tuple[np.ndarray, float]:
    """``argmin_{u in C} step r(u) + ||u - v||_2^2 / 2``.

    Parameters
    ----------
    v : array_like, shape (..., p)
        Points (batched over the leading axes).
    step : float
        ``gamma > 0``.
    domain : reference.domains.Domain
        The closed convex set C.
    regulariser : reference.losses.Regulariser, optional
        ``r`` (convex); ``None`` for ``r = 0``.
    tolerance : float
        Certified suboptimality of the numerical prox (used only where no closed form exists).
    certificate : bool
        Also return a bound on the distance to the exact prox: 0 for the closed forms (exact up to
        floating rounding), ``sqrt(2 gap)`` for the numerical prox.

    Returns
    -------
    ndarray, shape (..., p)
        Or ``(points, distance_bound)`` with ``certificate=True``.
    """
    if not isinstance(domain, Domain):
        raise TypeError(f"domain ({type(domain).__name__}) must be a reference.domains.Domain")
    if regulariser is not None and not isinstance(regulariser, Regulariser):
        raise TypeError(f"regulariser ({type(regulariser).__name__}) must be a reference.losses.Regulariser or None")
    x = _points("v", v, domain.dim)
    gamma = validate.positive("step", step)
    tol = validate.positive("tolerance", tolerance)
    if closed_form(domain, regulariser):
        out = prox_unchecked(x, gamma, domain, regulariser)
        return (out, 0.0) if certificate else out
    out, distance = _numerical(x, gamma, domain, regulariser, tol)
    return (out, distance) if certificate else out
