r"""Losses that meet zhang17's assumptions, and bounded data sets with known minimisers, for the audits.

Losses
------
:func:`ridge_loss`
    l2-regularised least squares, ``(<w, x> - y)^2/2 + (lambda/2)||w||^2`` with ``||x|| <= X``,
    ``|y| <= Y``: strongly convex (``mu = lambda``), smooth (``beta = X^2 + lambda``) and
    Lipschitz on the ball ``{||w|| <= 2D}`` of Theorem 2, ``D = Y/sqrt(lambda)``
    (:func:`reference.losses.minimiser_norm_bound`).
:func:`regularised_logistic_loss`
    l2-regularised logistic regression, ``ln(1 + e^{-y <w, x>}) + (lambda/2)||w||^2``: ``mu =
    lambda``, ``beta = X^2/4 + lambda``, ``D = min(X/lambda, sqrt(2 ln 2/lambda))``.
Plain :class:`reference.losses.Logistic` (convex, smooth, Lipschitz on R^d: Theorem 3) and
:class:`reference.losses.Welsch` (smooth, non-convex: Algorithm 2) need no helper.

Data sets (every row within the declared bounds, never clipped)
---------------------------------------------------------------
:func:`ridge_data`, :func:`logistic_data`, :func:`location_data`; :class:`QuadraticObjective`
gives the ridge objective's exact minimiser and excess risk (a linear solve and a quadratic
form: no iterative solver).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reference.arrays import ArrayLike
from reference.losses import L2Regulariser, LeastSquares, Logistic, Loss, Regularised, minimiser_norm_bound
from reference.rng import RngLike, as_generator
from spec import validate
from spec.errors import ParameterError

__all__ = [
    "ridge_loss",
    "regularised_logistic_loss",
    "sphere_points",
    "ridge_data",
    "logistic_data",
    "location_data",
    "QuadraticObjective",
]


def _with_radius(make) -> Regularised:
    """The loss ``make(R)`` with ``R = 2 D``, D its public minimiser bound (which does not depend on R)."""
    d = minimiser_norm_bound(make(1.0))
    return make(2.0 * d)


def ridge_loss(*, feature_norm: float = 1.0, label_bound: float = 1.0, strength: float) -> Regularised:
    """``Regularised(LeastSquares(X, Y, R), L2Regulariser(lambda), R)`` with ``R = 2 Y/sqrt(lambda)``."""
    lam = validate.positive("strength", strength)
    x, y = validate.positive("feature_norm", feature_norm), validate.positive("label_bound", label_bound)

    def make(radius: float) -> Loss:
        base = LeastSquares(feature_norm=x, label_bound=y, domain_radius=radius)
        return Regularised(base, L2Regulariser(strength=lam), domain_radius=radius)

    return _with_radius(make)


def regularised_logistic_loss(*, feature_norm: float = 1.0, strength: float) -> Regularised:
    """``Regularised(Logistic(X), L2Regulariser(lambda), R)`` with ``R = 2 D``, ``D = min(X/lambda, sqrt(2 ln 2/lambda))``."""
    lam = validate.positive("strength", strength)
    x = validate.positive("feature_norm", feature_norm)

    def make(radius: float) -> Loss:
        return Regularised(Logistic(feature_norm=x), L2Regulariser(strength=lam), domain_radius=radius)

    return _with_radius(make)


def sphere_points(n: int, dimension: int, *, radius: float = 1.0, rng: RngLike = None) -> np.ndarray:
    """``n`` points uniform on the sphere of radius ``radius`` in R^dimension (normalised Gaussians)."""
    gen = as_generator(rng)
    n_ = validate.positive_integer("n", n)
    p = validate.positive_integer("dimension", dimension)
    r = validate.positive("radius", radius)
    z = gen.standard_normal((n_, p))
    norm = np.linalg.norm(z, axis=1, keepdims=True)
    norm[norm == 0] = 1.0
    # scale slightly inside the sphere so that rounding never puts a row above the declared bound
    return z / norm * (r * (1.0 - 1e-15))


def ridge_data(*, n: int, dimension: int, feature_norm: float = 1.0, label_bound: float = 1.0,
               rng: RngLike = None) -> np.ndarray:
    """Rows ``[x, y]``: ``x`` uniform on the sphere of radius X, ``y = <w*, x> + e`` with
    ``||w*|| = Y/(2X)`` along the first axis and ``e`` uniform on ``[-Y/2, Y/2]``, so ``|y| <= Y``."""
    gen = as_generator(rng)
    x_norm, y_bound = validate.positive("feature_norm", feature_norm), validate.positive("label_bound", label_bound)
    x = sphere_points(n, dimension, radius=x_norm, rng=gen)
    w_star = np.zeros(x.shape[1])
    w_star[0] = y_bound / (2 * x_norm)
    # |<w*, x>| < Y/2 and |e| <= Y/2: within the bound (the loss accepts a relative 1e-12 of rounding)
    y = x @ w_star + gen.uniform(-y_bound / 2, y_bound / 2, size=x.shape[0])
    return np.column_stack([x, y])


def logistic_data(*, n: int, dimension: int, feature_norm: float = 1.0, signal: float = 2.0,
                  rng: RngLike = None) -> np.ndarray:
    """Rows ``[x, y]``: ``x`` uniform on the sphere of radius X, ``y = +1`` with probability
    ``1/(1 + exp(-signal <e_1, x>))`` (never separable in distribution: the logistic minimiser is
    finite with high probability when ``n >> d``)."""
    gen = as_generator(rng)
    x = sphere_points(n, dimension, radius=validate.positive("feature_norm", feature_norm), rng=gen)
    s = validate.positive("signal", signal)
    prob = 1.0 / (1.0 + np.exp(-s * x[:, 0]))
    y = np.where(gen.random(x.shape[0]) < prob, 1.0, -1.0)
    return np.column_stack([x, y])


def location_data(*, n: int, dimension: int, centre: float, spread: float, rng: RngLike = None) -> np.ndarray:
    """Points ``m + s g/sqrt(d)`` with ``m = centre e_1`` and ``g`` standard normal, truncated to the
    ball of radius ``centre + 6 spread`` by rejection (rows within that bound, never clipped)."""
    gen = as_generator(rng)
    n_ = validate.positive_integer("n", n)
    p = validate.positive_integer("dimension", dimension)
    c = validate.nonnegative("centre", centre)
    s = validate.positive("spread", spread)
    bound = c + 6 * s
    out = np.empty((0, p))
    while out.shape[0] < n_:
        pts = gen.standard_normal((n_, p)) * (s / math.sqrt(p))
        pts[:, 0] += c
        out = np.vstack([out, pts[np.linalg.norm(pts, axis=1) <= bound]])
    return out[:n_]


@dataclass(frozen=True)
class QuadraticObjective:
    """The ridge objective ``F(w) = (1/n) sum_i (<w, x_i> - y_i)^2/2 + (lambda/2)||w||^2``, exactly.

    ``hessian = X^T X/n + lambda I``, ``minimiser = hessian^{-1} X^T y/n`` and
    ``excess_risk(w) = (w - w_hat)^T hessian (w - w_hat)/2`` (``F`` is quadratic, so this is exact).
    """

    hessian: np.ndarray
    minimiser: np.ndarray

    @classmethod
    def ridge(cls, data: ArrayLike, *, strength: float) -> "QuadraticObjective":
        rows = np.asarray(data, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] < 2:
            raise ParameterError(f"data (shape {rows.shape}) must have shape (n, d + 1)")
        x, y = rows[:, :-1], rows[:, -1]
        n, p = x.shape
        lam = validate.positive("strength", strength)
        h = x.T @ x / n + lam * np.eye(p)
        return cls(hessian=h, minimiser=np.linalg.solve(h, x.T @ y / n))

    def excess_risk(self, theta: ArrayLike) -> np.ndarray:
        """``F(theta) - F(w_hat)`` for ``theta`` of shape ``(..., d)``."""
        diff = np.asarray(theta, dtype=np.float64) - self.minimiser
        return 0.5 * np.einsum("...i,ij,...j->...", diff, self.hessian, diff)
