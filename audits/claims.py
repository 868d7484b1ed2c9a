"""The claimed bound ``B(a)`` of profile mode: the largest probability a declared privacy profile
allows on one dataset, given probability ``a`` on the other (:mod:`audits.privacy`, "Profile
mode"), computed so that it is never below the true value.
"""

from __future__ import annotations

import math

import numpy as np

from spec.errors import ParameterError

__all__ = ["ClaimBound", "claim_bound", "SLACK"]

#: Added to the claimed bound B(a) to absorb floating-point error (never lowers B).
SLACK = 1e-9

# eps grid for inf_eps (a finite grid can only over-estimate B: safe) and the a grid used to
# pre-screen events (the verdict always evaluates B exactly at the event's own a).
_EPS_GRID = np.concatenate([[0.0], np.geomspace(1e-6, 64.0, 8000)])
_A_GRID = np.unique(np.concatenate([
    [0.0, 1.0],
    np.geomspace(1e-16, 1e-3, 600),
    np.linspace(0.0, 1.0, 4001),
    1.0 - np.geomspace(1e-16, 1e-3, 600),
]))


class ClaimBound:
    """``B(a)``: the largest probability the claim allows given probability ``a`` on the
    other dataset (module docstring), never below the true value.

    *Profile* ``delta(eps)``: for every ``eps`` on a grid, ``e^eps a + delta(eps)`` and
    ``1 - e^-eps (1 - a - delta(eps))`` are lines in ``a``; ``B`` is ``min(1, lower envelope)``.
    The envelope is built once (a convex-hull pass over the lines) and evaluated by bisection;
    whatever floating-point error does to the hull, every value returned is the value of one of
    the lines, hence at least the grid minimum, which is at least the infimum over all eps.

    *Trade-off* ``f``: ``B(a) = 1 - f(a)``, evaluated exactly (one call per value) for the
    events that matter; a grid of ``f`` values pre-screens the rest (``lower``), which relies on
    ``f`` being nonincreasing (checked on the grid) only to save work, never for the verdict.
    """

    def __init__(self, profile, epsilons=()):
        tradeoff = getattr(profile, "tradeoff", None)
        if tradeoff is not None and callable(tradeoff):
            self.kind = "tradeoff"
            self._f = tradeoff
            f = self._tradeoff(_A_GRID)
            if np.any(np.diff(f) > 1e-12):
                raise ParameterError("profile.tradeoff must be nonincreasing on [0, 1]")
            self._grid = np.maximum.accumulate(np.minimum(1.0, 1.0 - f))
        elif callable(profile):
            self.kind = "profile"
            self._f = profile
            # The claimed epsilons join the grid: a profile with a kink there (pure DP,
            # randomized response) then has its exact B at the kink.
            grid = np.unique(np.concatenate([_EPS_GRID, np.asarray(epsilons, dtype=float)]))
            d = np.array([self._delta_value(float(e)) for e in grid])
            growth = np.exp(grid)
            slopes = np.concatenate([growth, 1.0 / growth])
            intercepts = np.concatenate([d, 1.0 - (1.0 - d) / growth])
            self._slopes, self._intercepts, self._breaks = _lower_envelope(slopes, intercepts)
        else:
            raise TypeError(
                f"profile ({profile!r}) must be a callable delta(epsilon) or have a tradeoff(alpha) method"
            )

    def _delta_value(self, e: float) -> float:
        try:
            v = float(self._f(e))
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"profile({e!r}) must return a real number ({exc})") from None
        if math.isnan(v):
            raise ParameterError(f"profile({e!r}) returned nan")
        if v < -1e-12:
            raise ParameterError(f"profile({e!r}) ({v!r}) must be in [0, 1]")
        # Raising a value is safe (it weakens the claim); so is capping at 1.
        return min(max(v, 0.0), 1.0)

    def _tradeoff(self, a: np.ndarray) -> np.ndarray:
        out = np.empty(a.shape, dtype=float)
        for i, x in enumerate(a.ravel()):
            try:
                v = float(self._f(float(x)))
            except (TypeError, ValueError) as exc:
                raise ParameterError(f"profile.tradeoff({x!r}) must return a real number ({exc})") from None
            if math.isnan(v) or v < -1e-12 or v > 1 + 1e-12:
                raise ParameterError(f"profile.tradeoff({x!r}) ({v!r}) must be in [0, 1]")
            out.flat[i] = min(max(v, 0.0), 1.0)
        return out

    def _envelope(self, a: np.ndarray) -> np.ndarray:
        j = np.searchsorted(self._breaks, a, side="right")
        return np.minimum(1.0, self._slopes[j] * a + self._intercepts[j])

    def exact(self, a) -> np.ndarray:
        """``B(a)`` (an upper bound on the true value) plus the slack ``SLACK``."""
        a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
        if self.kind == "tradeoff":
            b = np.minimum(1.0, 1.0 - self._tradeoff(a))
        else:
            b = self._envelope(a)
        return b + SLACK

    def lower(self, a) -> np.ndarray:
        """Cheap value used to discard events that cannot violate (``exact`` for profiles)."""
        a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
        if self.kind == "profile":
            return self._envelope(a) + SLACK
        j = np.searchsorted(_A_GRID, a, side="right") - 1
        return self._grid[np.clip(j, 0, _A_GRID.size - 1)]

    def on_grid(self, a) -> np.ndarray:
        """Cheap over-estimate (trade-off: grid point at or above ``a``), for ranking and plots."""
        a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
        if self.kind == "profile":
            return self._envelope(a) + SLACK
        j = np.searchsorted(_A_GRID, a, side="left")
        return self._grid[np.clip(j, 0, _A_GRID.size - 1)] + SLACK


def _lower_envelope(slopes: np.ndarray, intercepts: np.ndarray):
    """Lower envelope of the lines ``y = s x + c``: the lines in order of use and the
    breakpoints between them (line ``k`` is used on ``[breaks[k-1], breaks[k])``)."""
    order = np.lexsort((intercepts, -slopes))  # slope descending, then intercept ascending
    s_sorted, c_sorted = slopes[order], intercepts[order]
    hull_s: list[float] = []
    hull_c: list[float] = []
    for s, c in zip(s_sorted.tolist(), c_sorted.tolist()):
        if hull_s and s == hull_s[-1]:
            continue  # same slope, larger intercept: never below the kept line
        while len(hull_s) >= 2:
            # The last line is useless if the new one crosses the one before it no later.
            x_new = (c - hull_c[-2]) / (hull_s[-2] - s)
            x_old = (hull_c[-1] - hull_c[-2]) / (hull_s[-2] - hull_s[-1])
            if x_new <= x_old:
                hull_s.pop()
                hull_c.pop()
            else:
                break
        hull_s.append(s)
        hull_c.append(c)
    hs, hc = np.array(hull_s), np.array(hull_c)
    breaks = (hc[1:] - hc[:-1]) / (hs[:-1] - hs[1:])
    return hs, hc, breaks


def claim_bound(profile, a, *, epsilons=()):
    """``B(a)`` of a declared profile (or trade-off object), as used by profile mode.

    Returns the minimum over a grid of ``eps`` values (8001 geometric points in [1e-6, 64],
    0, and the given ``epsilons``; never below the exact infimum) plus a ``1e-9`` slack. For
    a smooth profile the grid costs about 1e-8 of B (the minimum is flat); at a kink that is
    not on the grid, neighbouring grid points differ by the factor ``(64/1e-6)^(1/7999) =
    1.00225`` in eps, so it costs up to about ``eps x 0.225%`` of ``e^eps a`` (0.2% at eps = 1,
    1.1% at eps = 5; measured by ``tests/audits/test_claims.py``). Exposed for tests and reports.
    """
    return ClaimBound(profile, epsilons).exact(a)
