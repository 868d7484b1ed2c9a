r"""Canaries for one-run audits of DP-ERM: slots, in-domain records, scores.

A :class:`CanaryDesign` holds ``m`` slots. Slot ``i`` holds its canary ``c_i`` when the secret
``S_i = +1`` and its filler ``f_i`` when ``S_i = -1``: a fixed public record per slot, so that
every data set ``D(S)`` has the same size and flipping one secret replaces one record
(replace-one, the five papers' relation). Without fillers (``fillers=None``) an excluded slot is
left out: flipping a secret adds or removes one record (add/remove-one). How the relation enters
the bound is in :mod:`audits.one_run_bounds`.

Every record is checked against the loss's declared bounds (``loss.validate_data``): canaries
are data the algorithm accepts, never clipped. ``directions[i]`` is the unit vector along which
including canary ``i`` (rather than its filler) pushes a gradient method's iterate: the
difference of the two records' gradients is ``-|g| directions[i]``.

Designs
-------
:func:`coordinate_canaries`
    Slot ``i`` lives on coordinate ``first + i``: ``x = X e_j`` with labels (or points) chosen so
    that canary and filler have *opposite* gradients of the largest norm the loss allows, ``+-L
    e_j``, and those gradients do not depend on the iterate in a stated region (the *linear
    region*, :attr:`CanaryDesign.linear_radius`): |theta_j| below it keeps both gradients fixed.
    With base records that are zero on those coordinates, each canary has its own coordinate, no
    other record touches it, and a gradient method's release along ``e_j`` is ``S_i`` times a
    constant plus its noise: the Gaussian model of :mod:`audits.one_run_gaussian` holds exactly.

    ============================  ==========================  ==========================  =========
    loss                          canary                      filler                      region
    ============================  ==========================  ==========================  =========
    ``Linear``                    ``d = +D e_j``              ``d = -D e_j``              all
    ``HeavyTailedLinear``         ``d = +M e_j``              ``d = -M e_j``              all
    ``Huber`` (label bound Y)     ``(X e_j, -Y)``             ``(X e_j, +Y)``             (Y - w)/X
    ``Hinge``                     ``(X e_j, +1)``             ``(X e_j, -1)``             1/X
    ``Logistic``, ``Sigmoid``     ``(X e_j, +1)``             ``(X e_j, -1)``             0 (curved)
    ============================  ==========================  ==========================  =========

:func:`hadamard_canaries`
    For coordinate-wise mechanisms whose sensitivity is spent across all coordinates (wang20's
    Algorithm 4 truncates every coordinate of the gradient separately): slot ``i`` has the point
    ``d = +-M h_i`` with ``h_i`` the i-th row of a Hadamard matrix on ``count`` coordinates
    (orthogonal rows, every entry +-1), so one canary moves *every* coordinate by the most the
    truncation allows and the canaries still do not interfere.
:func:`curvature_canaries`
    Huber slots whose canary sits in the quadratic piece (``(X e_j, 0)``, gradient ``(X^2/w)
    theta_j e_j``) and whose filler sits in the linear piece (``(X e_j, -Y)``, gradient ``X e_j``):
    the canary's gradient *changes* with the iterate and the filler's does not. A released noisy
    gradient hides that change behind fresh noise; noise reused across steps cancels in the
    difference of two releases and exposes it (the reused-noise twins).
:func:`sphere_canaries`
    The coordinate pairs on random unit directions (seeded): for code whose feature space is
    given (a real data set with p features), where ``m > p`` canaries cannot be orthogonal.

Scores
------
:meth:`CanaryDesign.projections` (black box): ``<theta, directions[i]>`` of the output.
:meth:`CanaryDesign.aligned` (white box): ``-<sum_t g_t, directions[i]>`` of the released noisy
gradients summed over the steps. Both are larger when the canary is in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from reference.losses import Hinge, Huber, Linear, Logistic, Loss, Sigmoid
from reference.losses.heavy_tailed import HeavyTailedLinear
from reference.rng import RngLike, as_generator
from spec import validate
from spec.errors import ParameterError
from spec.record import Neighbouring

__all__ = [
    "CanaryDesign",
    "coordinate_canaries",
    "hadamard_canaries",
    "curvature_canaries",
    "sphere_canaries",
    "output_vector",
]


@dataclass(frozen=True)
class CanaryDesign:
    """``m`` canary slots (module docstring).

    Attributes
    ----------
    canaries : ndarray, shape (m, k)
        The record of slot ``i`` when ``S_i = +1``.
    fillers : ndarray, shape (m, k), or None
        The record of slot ``i`` when ``S_i = -1`` (replace-one); ``None``: the slot is empty then
        (add/remove-one).
    directions : ndarray, shape (m, p)
        Unit vectors along which the canary (rather than the filler) pushes the iterate.
    name : str
        What the design is (shown in reports).
    linear_radius : float
        While ``|<theta, directions[i]>|`` stays below it, canary ``i``'s and its filler's gradients
        do not depend on theta (``0``: curved losses; ``inf``: everywhere).
    """

    canaries: np.ndarray
    fillers: np.ndarray | None
    directions: np.ndarray
    name: str = "canaries"
    linear_radius: float = 0.0

    def __post_init__(self):
        c = np.array(self.canaries, dtype=float, copy=True)
        if c.ndim != 2 or c.shape[0] < 2:
            raise ParameterError(f"canaries (shape {c.shape}) must have shape (m, k) with m >= 2")
        f = None
        if self.fillers is not None:
            f = np.array(self.fillers, dtype=float, copy=True)
            if f.shape != c.shape:
                raise ParameterError(f"fillers (shape {f.shape}) must have the shape of canaries ({c.shape})")
        d = np.array(self.directions, dtype=float, copy=True)
        if d.ndim != 2 or d.shape[0] != c.shape[0]:
            raise ParameterError(f"directions (shape {d.shape}) must have shape (m, p) with m = {c.shape[0]}")
        for name, arr in (("canaries", c), ("fillers", f), ("directions", d)):
            if arr is not None and not np.all(np.isfinite(arr)):
                raise ParameterError(f"{name} must be finite")
        norms = np.linalg.norm(d, axis=1)
        if not np.allclose(norms, 1.0, rtol=1e-9, atol=0):
            raise ParameterError("directions must be unit vectors")
        for arr in (c, f, d):
            if arr is not None:
                arr.setflags(write=False)
        object.__setattr__(self, "canaries", c)
        object.__setattr__(self, "fillers", f)
        object.__setattr__(self, "directions", d)
        radius = float(self.linear_radius)
        if not radius >= 0:  # inf allowed: the linear loss is linear everywhere
            raise ParameterError(f"linear_radius ({self.linear_radius!r}) must be >= 0")
        object.__setattr__(self, "linear_radius", radius)

    @property
    def size(self) -> int:
        """``m``, the number of slots."""
        return self.canaries.shape[0]

    @property
    def relation(self) -> Neighbouring:
        """The relation one secret's flip realises: replace-one with fillers, else add/remove-one."""
        return Neighbouring.ADD_REMOVE_ONE if self.fillers is None else Neighbouring.REPLACE_ONE

    def check(self, loss: Loss) -> CanaryDesign:
        """Every canary and filler within ``loss``'s declared bounds (``DataBoundError`` otherwise)."""
        loss.validate_data(self.canaries)
        if self.fillers is not None:
            loss.validate_data(self.fillers)
        return self

    def secrets(self, *, rng: RngLike) -> np.ndarray:
        """``S``: ``m`` independent fair signs drawn from ``rng``."""
        return as_generator(rng).integers(0, 2, self.size).astype(np.int8) * 2 - 1

    def records(self, secrets) -> np.ndarray:
        """The slots' records for ``secrets`` (excluded slots dropped under add/remove-one)."""
        s = _secrets(secrets, self.size)
        if self.fillers is None:
            return self.canaries[s == 1].copy()
        return np.where((s == 1)[:, None], self.canaries, self.fillers)

    def assemble(self, base, secrets) -> np.ndarray:
        """The data set ``D(S)``: the ``base`` records followed by the slots' records."""
        b = np.asarray(base, dtype=float)
        if b.ndim != 2 or b.shape[1] != self.canaries.shape[1]:
            raise ParameterError(f"base (shape {b.shape}) must have shape (n, {self.canaries.shape[1]}) "
                                 "like the canaries")
        return np.concatenate([b, self.records(secrets)], axis=0)

    def projections(self, theta) -> np.ndarray:
        """Black-box scores ``<theta, directions[i]>``: shape (m,)."""
        return output_vector(theta, self.directions.shape[1]) @ self.directions.T

    def aligned(self, released_sum) -> np.ndarray:
        """White-box scores ``-<sum_t g_t, directions[i]>`` from the sum of the released gradients."""
        return -(output_vector(released_sum, self.directions.shape[1]) @ self.directions.T)

    def __add__(self, other: CanaryDesign) -> CanaryDesign:
        """Two designs side by side (slots of ``self`` first)."""
        if not isinstance(other, CanaryDesign):
            return NotImplemented
        if (self.fillers is None) != (other.fillers is None):
            raise ParameterError("designs with and without fillers cannot be combined")
        fillers = None if self.fillers is None else np.concatenate([self.fillers, other.fillers])
        return CanaryDesign(np.concatenate([self.canaries, other.canaries]), fillers,
                            np.concatenate([self.directions, other.directions]),
                            name=f"{self.name} + {other.name}",
                            linear_radius=min(self.linear_radius, other.linear_radius))


def output_vector(theta, p: int) -> np.ndarray:
    """``theta`` as a vector of length ``p`` (accepts shape (p,) or (1, p), or an object with a
    ``theta`` attribute)."""
    t = getattr(theta, "theta", theta)
    arr = np.asarray(t, dtype=float)
    if arr.ndim == 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.shape != (p,):
        raise ParameterError(f"the output (shape {arr.shape}) must be one parameter vector of length {p}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError("the output must be finite")
    return arr


def _secrets(secrets, m: int) -> np.ndarray:
    s = np.asarray(secrets).reshape(-1)
    if s.size != m or not np.all(np.isin(s, (-1, 1))):
        raise ParameterError(f"secrets must be {m} values in {{-1, +1}}")
    return s


def _pairs(loss: Loss, units: np.ndarray, *, magnitude: float | None = None):
    """(canaries, fillers, directions, linear_radius) of the opposite-gradient pairs on ``units``."""
    m, p = units.shape
    if isinstance(loss, HeavyTailedLinear):
        if magnitude is None:
            raise ParameterError("magnitude (None) must be given for HeavyTailedLinear (it declares no data bound)")
        big = validate.positive("magnitude", magnitude)
        return big * units, -big * units, units, math.inf
    if isinstance(loss, Linear):
        return loss.data_norm * units, -loss.data_norm * units, units, math.inf
    if isinstance(loss, Huber):
        x, y, w = loss.feature_norm, loss.label_bound, loss.width
        if not y > w:
            raise ParameterError(f"label_bound ({y!r}) must exceed the Huber width ({w!r}) for canaries in the "
                                 "linear piece")
        rows = np.concatenate([x * units, np.zeros((m, 1))], axis=1)
        canaries, fillers = rows.copy(), rows.copy()
        canaries[:, -1], fillers[:, -1] = -y, y
        return canaries, fillers, -units, (y - w) / x
    if isinstance(loss, (Hinge, Logistic, Sigmoid)):
        x = loss.feature_norm
        rows = np.concatenate([x * units, np.zeros((m, 1))], axis=1)
        canaries, fillers = rows.copy(), rows.copy()
        canaries[:, -1], fillers[:, -1] = 1.0, -1.0
        return canaries, fillers, units, (1.0 / x if isinstance(loss, Hinge) else 0.0)
    raise ParameterError(f"loss ({loss!r}) has no canary rule: use Linear, HeavyTailedLinear, Huber, Hinge, Logistic "
                         "or Sigmoid, or build a CanaryDesign from your own records")


def _finish(loss, canaries, fillers, directions, name, radius, relation) -> CanaryDesign:
    rel = Neighbouring.parse(relation)
    design = CanaryDesign(canaries, fillers if rel is Neighbouring.REPLACE_ONE else None, directions, name=name,
                          linear_radius=radius)
    return design.check(loss)


def coordinate_canaries(loss: Loss, *, count: int, dimension: int, first: int = 0, magnitude: float | None = None,
                        relation="replace-one") -> CanaryDesign:
    """``count`` slots on coordinates ``first .. first + count - 1`` of R^dimension (module docstring).

    Parameters
    ----------
    loss : Loss
        One of the losses of the table in the module docstring.
    count : int
        ``m`` >= 2.
    dimension : int
        ``p``; the slots need ``first + count <= dimension``.
    first : int
        The first canary coordinate.
    magnitude : float, optional
        ``M`` for :class:`~reference.losses.HeavyTailedLinear` (which declares no bound).
    relation : {"replace-one", "add/remove-one"}
        With fillers (replace-one) or without.
    """
    m = validate.integer("count", count, minimum=2)
    p = validate.integer("dimension", dimension, minimum=1)
    j0 = validate.integer("first", first, minimum=0)
    if j0 + m > p:
        raise ParameterError(f"first + count ({j0} + {m}) must be <= dimension ({p})")
    units = np.zeros((m, p))
    units[np.arange(m), j0 + np.arange(m)] = 1.0
    c, f, d, radius = _pairs(loss, units, magnitude=magnitude)
    return _finish(loss, c, f, d, f"{m} coordinate canaries ({type(loss).__name__})", radius, relation)


def hadamard_canaries(loss: Loss, *, count: int, dimension: int, magnitude: float, first: int = 0,
                      relation="replace-one") -> CanaryDesign:
    """``count`` slots (a power of 2) with points ``+-M h_i`` on coordinates ``first ..
    first + count - 1`` (module docstring); ``loss`` a point loss with gradient ``-d``
    (:class:`~reference.losses.Linear` or :class:`~reference.losses.HeavyTailedLinear`)."""
    m = validate.integer("count", count, minimum=2)
    if m & (m - 1):
        raise ParameterError(f"count ({m}) must be a power of 2 (Sylvester's Hadamard matrices)")
    p = validate.integer("dimension", dimension, minimum=1)
    j0 = validate.integer("first", first, minimum=0)
    if j0 + m > p:
        raise ParameterError(f"first + count ({j0} + {m}) must be <= dimension ({p})")
    if not isinstance(loss, (Linear, HeavyTailedLinear)):
        raise ParameterError(f"loss ({loss!r}) must be Linear or HeavyTailedLinear for Hadamard canaries")
    units = np.zeros((m, p))
    units[:, j0:j0 + m] = linalg.hadamard(m) / math.sqrt(m)
    if isinstance(loss, Linear) and not isinstance(loss, HeavyTailedLinear):
        big = loss.data_norm  # ||d|| = D: every entry D / sqrt(m)
    else:
        big = validate.positive("magnitude", magnitude) * math.sqrt(m)  # every entry +-M
    c, f, d, radius = _pairs(HeavyTailedLinear(), units, magnitude=big)
    return _finish(loss, c, f, d, f"{m} Hadamard canaries ({type(loss).__name__})", radius, relation)


def curvature_canaries(loss: Huber, *, count: int, dimension: int, first: int = 0) -> CanaryDesign:
    """``count`` Huber slots on coordinates ``first ..``: canary ``(X e_j, 0)`` (quadratic piece),
    filler ``(X e_j, -Y)`` (linear piece) (module docstring). Replace-one."""
    if not isinstance(loss, Huber):
        raise ParameterError(f"loss ({loss!r}) must be Huber for curvature canaries")
    m = validate.integer("count", count, minimum=2)
    p = validate.integer("dimension", dimension, minimum=1)
    j0 = validate.integer("first", first, minimum=0)
    if j0 + m > p:
        raise ParameterError(f"first + count ({j0} + {m}) must be <= dimension ({p})")
    x, y, w = loss.feature_norm, loss.label_bound, loss.width
    if not y > w:
        raise ParameterError(f"label_bound ({y!r}) must exceed the Huber width ({w!r})")
    rows = np.zeros((m, p + 1))
    rows[np.arange(m), j0 + np.arange(m)] = x
    canaries, fillers = rows.copy(), rows.copy()
    fillers[:, -1] = -y
    units = rows[:, :-1] / x
    # at theta = 0 the canary's gradient is 0 and the filler's +X e_j: the canary pushes along +e_j
    return _finish(loss, canaries, fillers, units, f"{m} curvature canaries (Huber)", 0.0, "replace-one")


def sphere_canaries(loss: Loss, *, count: int, dimension: int, rng: RngLike, relation="replace-one") -> CanaryDesign:
    """``count`` slots on independent uniform unit directions of R^dimension (seeded by ``rng``),
    with the pairs of :func:`coordinate_canaries`'s table."""
    m = validate.integer("count", count, minimum=2)
    p = validate.integer("dimension", dimension, minimum=1)
    g = as_generator(rng).standard_normal((m, p))
    units = g / np.linalg.norm(g, axis=1, keepdims=True)
    c, f, d, radius = _pairs(loss, units)
    return _finish(loss, c, f, d, f"{m} random-direction canaries ({type(loss).__name__})", radius, relation)
