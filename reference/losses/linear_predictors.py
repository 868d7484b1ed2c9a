"""Losses of a linear predictor <theta, x> with a label y: classification (:class:`Logistic`, :class:`Hinge`, :class:`Sigmoid`) and regression (:class:`Huber`, :class:`LeastSquares`).
"""

from __future__ import annotations

import abc
import math

import mpmath
import numpy as np
import scipy.special

from reference.arrays import l2_norm as _norm
from reference.losses.base import (
    Loss,
    LossConstants,
    _check_norm,
    _check_pm1,
    _inner,
    _mp,
    _up,
)
from spec import validate

# --------------------------------------------------------------------------------------------
# supervised losses of the margin / residual <theta, x>
# --------------------------------------------------------------------------------------------


class _LinearPredictorLoss(Loss):
    """Loss ``phi(<theta, x>, y)``: gradient ``phi'(<theta, x>, y) x``."""

    supervised = True

    @abc.abstractmethod
    def _phi(self, m, y) -> np.ndarray: ...

    @abc.abstractmethod
    def _dphi(self, m, y) -> np.ndarray: ...

    def _value(self, theta, x, y):
        return self._phi(_inner(theta, x), y)

    def _gradient(self, theta, x, y):
        return self._dphi(_inner(theta, x), y)[..., None] * x

    def _margins(self, theta, x):
        """<theta, x_i> for every row: shape broadcast(theta.shape[:-1], x.shape[:-2]) + (n,)."""
        if x.ndim == 2:  # one data set for all runs: a single matrix product
            return theta @ x.T  # x is made contiguous by the callers (faster BLAS path)
        # one data set per run: stacked products, no (..., n, p) temporary
        return (x @ theta[..., None])[..., 0]

    def _total(self, theta, x, y):
        x = np.ascontiguousarray(x)  # x is a strided view of the rows [x, y]
        return self._phi(self._margins(theta, x), y).sum(axis=-1)

    def _total_gradient(self, theta, x, y):
        x = np.ascontiguousarray(x)
        g = self._dphi(self._margins(theta, x), y)
        if x.ndim == 2:
            return g @ x
        return (g[..., None, :] @ x)[..., 0, :]


class _Classifier(_LinearPredictorLoss):
    """Binary classification: labels in {-1, +1}, ``||x||_2 <= feature_norm``."""

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.feature_norm, "||x||_2", "feature_norm")
        _check_pm1(y)


class Logistic(_Classifier):
    r"""Logistic loss ``log(1 + exp(-y <theta, x>))``, y in {-1, +1}, ``||x||_2 <= feature_norm``.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.

    Constants
    ---------
    With ``m = y <theta, x>`` and ``s`` the logistic function, ``grad = -y s(-m) x`` and
    ``Hessian = s(m) (1 - s(m)) x x^T``.

    * Lipschitz ``L = X``: ``0 < s(-m) < 1``; approached as ``m -> -inf`` (on a ball of radius
      R the supremum is ``X s(R X)``).
    * Smoothness ``beta = X^2 / 4``: ``s (1 - s) <= 1/4``, attained at ``m = 0``.
    * Strong convexity 0. Convex. Evaluated stably as ``logaddexp(0, -m)``.
    """

    convex = True

    def __init__(self, *, feature_norm: float) -> None:
        self.feature_norm = validate.positive("feature_norm", feature_norm)

    def __repr__(self) -> str:
        return f"Logistic(feature_norm={self.feature_norm!r})"

    @property
    def constants(self) -> LossConstants:
        beta = _up(lambda: _mp(self.feature_norm) ** 2 / 4)
        return LossConstants(lipschitz=self.feature_norm, smoothness=beta, strong_convexity=0.0)

    def _phi(self, m, y):
        return np.logaddexp(0.0, -y * m)

    def _dphi(self, m, y):
        return -y * scipy.special.expit(-y * m)


class Hinge(_Classifier):
    r"""Hinge loss ``(1 - y <theta, x>)_+``, y in {-1, +1}, ``||x||_2 <= feature_norm``.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.

    Subgradient
    -----------
    ``-y x`` where ``y <theta, x> < 1`` and ``0`` where ``y <theta, x> >= 1``: at the kink
    (margin exactly 1) we return 0, which is an element of the subdifferential
    ``{-t y x : t in [0, 1]}``.

    Constants
    ---------
    * Lipschitz ``L = X`` (subgradients have norm ``||x|| <= X``, attained where the margin is
      below 1).
    * Not smooth (``smoothness = inf``); strong convexity 0. Convex.
    """

    convex = True

    def __init__(self, *, feature_norm: float) -> None:
        self.feature_norm = validate.positive("feature_norm", feature_norm)

    def __repr__(self) -> str:
        return f"Hinge(feature_norm={self.feature_norm!r})"

    @property
    def constants(self) -> LossConstants:
        return LossConstants(lipschitz=self.feature_norm, smoothness=math.inf, strong_convexity=0.0)

    def _phi(self, m, y):
        return np.maximum(0.0, 1.0 - y * m)

    def _dphi(self, m, y):
        return np.where(y * m < 1.0, -y, 0.0)


class Sigmoid(_Classifier):
    r"""Sigmoid loss ``1 / (1 + exp(y <theta, x>))`` (non-convex), y in {-1, +1}.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.

    Constants
    ---------
    With ``s`` the logistic function and ``m = y <theta, x>`` the loss is ``s(-m)``, so
    ``grad = -y s'(-m) x`` and ``Hessian = s''(-m) x x^T`` (``y^2 = 1``), where
    ``s' = s (1 - s)`` and ``s'' = s (1 - s)(1 - 2 s)``.

    * Lipschitz ``L = X / 4``: ``max s' = s'(0) = 1/4``.
    * Smoothness ``beta = X^2 max|s''| = X^2 / (6 sqrt 3)``: writing ``s'' = g(s)`` with
      ``g(u) = u (1 - u)(1 - 2 u)`` on (0, 1), ``g'(u) = 6u^2 - 6u + 1 = 0`` at
      ``u = (3 -+ sqrt 3)/6``, where ``|g| = sqrt(3)/18 = 1/(6 sqrt 3)`` (about 0.0962).
    * ``convex = False``; strong convexity 0 (no claim).
    """

    convex = False

    def __init__(self, *, feature_norm: float) -> None:
        self.feature_norm = validate.positive("feature_norm", feature_norm)

    def __repr__(self) -> str:
        return f"Sigmoid(feature_norm={self.feature_norm!r})"

    @property
    def constants(self) -> LossConstants:
        lip = _up(lambda: _mp(self.feature_norm) / 4)
        beta = _up(lambda: _mp(self.feature_norm) ** 2 / (6 * mpmath.sqrt(3)))
        return LossConstants(lipschitz=lip, smoothness=beta, strong_convexity=0.0)

    def _phi(self, m, y):
        return scipy.special.expit(-y * m)

    def _dphi(self, m, y):
        s = scipy.special.expit(-y * m)
        return -y * s * (1.0 - s)


class _Regression(_LinearPredictorLoss):
    """Regression: real labels with ``|y| <= label_bound``, ``||x||_2 <= feature_norm``."""

    def _check_rows(self, x, y):
        _check_norm(_norm(x), self.feature_norm, "||x||_2", "feature_norm")
        _check_norm(np.abs(y), self.label_bound, "|y|", "label_bound")


class Huber(_Regression):
    r"""Huber regression ``h_w(<theta, x> - y)``.

    Convention: ``h_w(r) = r^2 / (2 w)`` for ``|r| <= w`` and ``|r| - w/2`` otherwise, so
    ``h_w' = clip(r / w, -1, 1)`` (continuous: the loss is differentiable) and
    ``0 <= h_w'' <= 1/w``.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.
    label_bound : float
        Bound Y on ``|y|``; >= 0.
    width : float
        w > 0, where the quadratic piece ends.
    domain_radius : float, optional
        Radius R of the parameter ball. Without it the constants hold on all of R^p.

    Constants
    ---------
    * Lipschitz ``L = X min(1, (R X + Y) / w)``: ``||grad|| = |h_w'(r)| ||x||`` with
      ``|h_w'(r)| = min(1, |r| / w)`` and ``|r| <= |<theta, x>| + |y| <= R X + Y``; attained at
      ``theta = R x/||x||``, ``||x|| = X``, ``y = -Y``. Without a domain, ``L = X``.
    * Smoothness ``beta = X^2 / w`` (Hessian ``h_w'' x x^T``), attained where ``|r| < w``.
    * Strong convexity 0. Convex.
    """

    convex = True

    def __init__(self, *, feature_norm: float, label_bound: float, width: float,
                 domain_radius: float | None = None) -> None:
        self.feature_norm = validate.positive("feature_norm", feature_norm)
        self.label_bound = validate.nonnegative("label_bound", label_bound)
        self.width = validate.positive("width", width)
        self.domain_radius = None if domain_radius is None else validate.positive("domain_radius", domain_radius)

    def __repr__(self) -> str:
        return (
            f"Huber(feature_norm={self.feature_norm!r}, label_bound={self.label_bound!r}, "
            f"width={self.width!r}, domain_radius={self.domain_radius!r})"
        )

    @property
    def constants(self) -> LossConstants:
        X, w = _mp(self.feature_norm), _mp(self.width)
        if self.domain_radius is None:
            lip = self.feature_norm
        else:
            R, Y = _mp(self.domain_radius), _mp(self.label_bound)
            lip = _up(lambda: X * min(mpmath.mpf(1), (R * X + Y) / w))
        beta = _up(lambda: X**2 / w)
        return LossConstants(lipschitz=lip, smoothness=beta, strong_convexity=0.0)

    def _phi(self, m, y):
        r = m - y
        a = np.abs(r)
        w = self.width
        return np.where(a <= w, r * r / (2.0 * w), a - 0.5 * w)

    def _dphi(self, m, y):
        return np.clip((m - y) / self.width, -1.0, 1.0)


class LeastSquares(_Regression):
    r"""Least squares ``(<theta, x> - y)^2 / 2`` on the ball ``||theta||_2 <= domain_radius``.

    Parameters
    ----------
    feature_norm : float
        Bound X on ``||x||_2``; > 0.
    label_bound : float
        Bound Y on ``|y|``; >= 0.
    domain_radius : float
        Radius R of the parameter ball; > 0 (the loss is not Lipschitz on R^p).

    Constants
    ---------
    * Lipschitz ``L = X (R X + Y)``: ``grad = (<theta, x> - y) x`` with
      ``|<theta, x> - y| <= R X + Y``; attained at ``theta = R x/||x||``, ``||x|| = X``, ``y = -Y``.
    * Smoothness ``beta = X^2``: Hessian ``x x^T`` of norm ``||x||^2``.
    * Strong convexity 0 (``x x^T`` is singular for p > 1). Convex.
    """

    convex = True

    def __init__(self, *, feature_norm: float, label_bound: float, domain_radius: float) -> None:
        self.feature_norm = validate.positive("feature_norm", feature_norm)
        self.label_bound = validate.nonnegative("label_bound", label_bound)
        self.domain_radius = validate.positive("domain_radius", domain_radius)

    def __repr__(self) -> str:
        return (
            f"LeastSquares(feature_norm={self.feature_norm!r}, label_bound={self.label_bound!r}, "
            f"domain_radius={self.domain_radius!r})"
        )

    @property
    def constants(self) -> LossConstants:
        X, Y, R = _mp(self.feature_norm), _mp(self.label_bound), _mp(self.domain_radius)
        lip = _up(lambda: X * (R * X + Y))
        beta = _up(lambda: X**2)
        return LossConstants(lipschitz=lip, smoothness=beta, strong_convexity=0.0)

    def _phi(self, m, y):
        r = m - y
        return 0.5 * r * r

    def _dphi(self, m, y):
        return m - y
