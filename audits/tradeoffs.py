r"""Claims as tabulated trade-off functions, for the profile mode of :func:`audits.audit_privacy`.

Profile mode calls a trade-off function once per point of its screening grid and once per event,
thousands of times: an exact evaluation in mpmath (``spec.gaussian.tradeoff``, about a millisecond)
makes an audit slow. The classes here tabulate ``B(a) = 1 - f(a)`` once, vectorised, on a fine grid
of ``a``, and answer a query with the tabulated value at the first grid point at or above ``a``.
Because ``B`` is nondecreasing, that value is at least ``B(a)``: the claim is never strengthened.

* :class:`GaussianTradeoff`: ``B(a) = Phi(Phi^{-1}(a) + mu)``, the exact trade-off of the
  Gaussian mechanism (``gaussian.analytic``; Dong, Roth and Su), with ``mu = sqrt(steps)
  sensitivity/sigma``; float evaluation plus a slack of ``1e-12`` (the tests compare it with
  ``spec.gaussian.tradeoff`` in mpmath).
* :class:`ZcdpTradeoff`: the binary-event content of a rho-zCDP claim (below).

zCDP claims
-----------

A rho-zCDP claim (Bun and Steinke 2016) bounds every Renyi divergence of the output laws on
neighbours, ``D_alpha(P || Q) <= alpha rho`` for all ``alpha > 1`` (and, in the limit, the
Kullback-Leibler divergence by ``rho``), in both orders. A black-box audit sees events ``S``; by
the data-processing inequality the indicator of ``S`` is a post-processing, so the two Bernoulli
laws ``Bern(P(S))`` and ``Bern(Q(S))`` obey the same bounds:

    D_alpha(Bern(b) || Bern(a)) <= alpha rho  and  D_alpha(Bern(a) || Bern(b)) <= alpha rho,
    D_alpha(Bern(b) || Bern(a)) = ln(b^alpha a^(1-alpha) + (1-b)^alpha (1-a)^(1-alpha)) / (alpha - 1).

So the claim allows, for an event of probability ``a`` on one data set, at most

    B(a) = sup{ b : both bounds hold for every alpha >= 1 }

on the other; :class:`ZcdpTradeoff` exposes ``1 - B`` as a trade-off function (``tradeoff(a)``),
the form profile mode accepts. This is the exact binary-event content of the claim, far tighter for
black-box audits than the (epsilon, delta) curve ``delta(eps) = exp(-(eps - rho)^2/(4 rho))`` the
claim also implies.

Soundness (the computed ``B`` is never below the true one): the orders are a finite grid (a
supremum under fewer constraints can only be larger); for each order ``b`` is found by bisection on
``[a, 1]`` (each divergence increases in ``b`` there) and the upper end of the final bracket is
kept; ``B`` is tabulated on a fine grid of ``a`` and a query returns the value at the first grid
point at or above ``a`` (``B`` is nondecreasing: moving ``a`` towards a fixed ``b >= a`` decreases
both divergences). A relative slack of ``1e-12`` absorbs the rounding of the divergences.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from spec import validate
from spec.errors import PrivacyParameterError

__all__ = ["TabulatedTradeoff", "GaussianTradeoff", "ZcdpTradeoff", "zcdp_tradeoff", "binary_renyi"]

#: Renyi orders used (1 is the Kullback-Leibler limit).
ORDERS = np.concatenate([[1.0], np.geomspace(1.0 + 1e-3, 1e3, 40)])
_BISECTIONS = 46


def _grid() -> np.ndarray:
    tail = np.geomspace(1e-18, 1e-3, 600)
    return np.unique(np.concatenate([[0.0], tail, np.linspace(1e-3, 1 - 1e-3, 8001), 1.0 - tail[::-1], [1.0]]))


def binary_renyi(b, a, order):
    """``D_order(Bern(b) || Bern(a))`` elementwise (``order = 1``: Kullback-Leibler), ``a`` in (0, 1)."""
    b = np.asarray(b, dtype=float)
    a = np.asarray(a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if order == 1.0:
            t1 = np.where(b > 0, b * (np.log(b) - np.log(a)), 0.0)
            t2 = np.where(b < 1, (1 - b) * (np.log1p(-b) - np.log1p(-a)), 0.0)
            return t1 + t2
        x1 = np.where(b > 0, order * np.log(b) + (1 - order) * np.log(a), -np.inf)
        x2 = np.where(b < 1, order * np.log1p(-b) + (1 - order) * np.log1p(-a), -np.inf)
        return np.logaddexp(x1, x2) / (order - 1)


class TabulatedTradeoff:
    """A trade-off function ``f = 1 - B`` tabulated at the points ``grid`` (``B`` nondecreasing, an
    upper bound on the claim's allowance at every grid point)."""

    grid: np.ndarray
    bounds: np.ndarray

    def _set(self, grid: np.ndarray, bounds: np.ndarray) -> None:
        self.grid = grid
        self.bounds = np.maximum.accumulate(np.clip(bounds, 0.0, 1.0))

    def bound(self, a):
        """``B(a)``: the largest probability on one data set allowed when the other has ``a``."""
        x = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
        j = np.minimum(np.searchsorted(self.grid, x, side="left"), self.grid.size - 1)
        out = self.bounds[j]
        return float(out) if out.ndim == 0 else out

    def tradeoff(self, a):
        """``f(a) = 1 - B(a)`` (nonincreasing), the form :func:`audits.audit_privacy` takes as ``profile``."""
        return 1.0 - self.bound(a)


class GaussianTradeoff(TabulatedTradeoff):
    """The exact trade-off of ``steps`` composed Gaussian mechanisms (module docstring).

    Parameters
    ----------
    sigma, sensitivity : float
        ``> 0``.
    steps : int
        ``>= 1``.
    """

    def __init__(self, *, sigma, sensitivity, steps=1):
        self.sigma = validate.positive("sigma", sigma, error=PrivacyParameterError)
        self.sensitivity = validate.positive("sensitivity", sensitivity, error=PrivacyParameterError)
        self.steps = validate.positive_integer("steps", steps)
        self.mu = math.sqrt(self.steps) * self.sensitivity / self.sigma * (1 + 1e-12)
        a = _grid()
        with np.errstate(divide="ignore"):
            b = special.ndtr(special.ndtri(a) + self.mu) + 1e-12
        b[a == 0] = 0.0
        b[a == 1] = 1.0
        self._set(a, b)

    def __repr__(self) -> str:
        return f"GaussianTradeoff(sigma={self.sigma!r}, sensitivity={self.sensitivity!r}, steps={self.steps})"


class ZcdpTradeoff(TabulatedTradeoff):
    """The binary-event trade-off of a rho-zCDP claim (module docstring).

    Parameters
    ----------
    rho : float
        The claimed zCDP parameter, ``> 0``.

    Attributes
    ----------
    grid, bounds : ndarray
        ``a`` and ``B(a)`` (an upper bound on the claim's allowance) at the tabulated points.
    """

    def __init__(self, rho):
        self.rho = validate.positive("rho", rho, error=PrivacyParameterError)
        a = _grid()
        inner = a[(a > 0) & (a < 1)]
        best = np.ones(inner.shape)
        for order in ORDERS:
            limit = order * self.rho * (1 + 1e-12) + 1e-300
            lo, hi = inner.copy(), np.ones(inner.shape)
            for _ in range(_BISECTIONS):
                mid = 0.5 * (lo + hi)
                ok = (binary_renyi(mid, inner, order) <= limit) & (binary_renyi(inner, mid, order) <= limit)
                lo = np.where(ok, mid, lo)
                hi = np.where(ok, hi, mid)
            best = np.minimum(best, hi)
        bounds = np.empty(a.shape)
        bounds[a == 0] = 0.0  # zCDP laws are mutually absolutely continuous
        bounds[(a > 0) & (a < 1)] = np.maximum(best, inner)
        bounds[a == 1] = 1.0
        self._set(a, bounds)

    def __repr__(self) -> str:
        return f"ZcdpTradeoff(rho={self.rho!r})"


def zcdp_tradeoff(rho) -> ZcdpTradeoff:
    """The binary-event trade-off of a ``rho``-zCDP claim (cached per rho)."""
    key = float(rho)
    hit = _CACHE.get(key)
    if hit is None:
        hit = _CACHE[key] = ZcdpTradeoff(key)
    return hit


_CACHE: dict[float, ZcdpTradeoff] = {}
