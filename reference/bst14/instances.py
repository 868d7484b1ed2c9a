r"""The lower-bound instances of bst14 Section V, with their exact optima.

Both instances use records in the hypercube ``{-1/sqrt(p), +1/sqrt(p)}^p`` (every record has unit
l2 norm) and the unit ball ``C = B`` (diameter 2) as the constraint set. With ``S = sum_i d_i``
and ``q = S / n``:

``V-A`` (linear, :func:`linear_instance`)
    ``l(theta; d) = -<theta, d>``, 1-Lipschitz, convex. ``L(theta; D) = -<theta, S>``, minimised
    over ``B`` at ``theta* = S / ||S||`` (when ``S != 0``), with the exact excess risk

        L(theta; D) - L(theta*; D) = ||S|| (1 - <theta, theta*>)  >= ||S|| ||theta - theta*||^2 / 2.

``V-B`` (quadratic, :func:`quadratic_instance`)
    ``l(theta; d) = ||theta - d||^2 / 2``, 1-strongly convex; its declared Lipschitz constant on
    the unit ball is 2 (the paper says 1: see the erratum flag of ``bst14.thm_V_4``).
    ``L(theta; D) = (n/2) ||theta - q||^2 + const``, minimised at ``theta* = q`` (inside ``B``
    because every record has norm 1), with the exact excess risk (equation (3))

        L(theta; D) - L(theta*; D) = (n/2) ||theta - q||^2.

The excess risks are computed from these closed forms, not as a difference of two sums, so they
carry no cancellation error: the utility audits measure risks down to ~1e-6 of ``L``.

The marginals data set (:func:`marginals_dataset`)
-------------------------------------------------
Lemma V.1 speaks about data sets of this cube with ``||S||`` in ``[M - 1, M + 1]``. Every column
sum of a data set of the cube is ``c / sqrt(p)`` with ``c = 2k - n`` for the number ``k`` of
``+`` entries in that column, so ``c`` has the parity of ``n`` and ``|c| <= n``. We give every
column the same ``c = c0``, the integer of the parity of ``n`` nearest to ``M`` (ties broken
upwards), so that

    ||S||^2 = p (c0 / sqrt(p))^2 = c0^2,   i.e.  ||S|| = |c0| = c0,   |c0 - M| <= 1.

Each column gets its ``k = (n + c0)/2`` plus signs at rows chosen by an independent uniformly
random permutation (the ``k`` smallest of ``n`` uniform draws, one row of draws per column), so
the records differ from each other while every column sum is exact.

Neighbours (:func:`worst_case_neighbour`)
-----------------------------------------
The privacy audits replace one record ``d`` by ``-d``: it stays in the cube and flips the
gradient direction of the record's loss (``-d`` becomes ``d`` for V-A; ``theta - d`` becomes
``theta + d`` for V-B), which moves ``S`` by ``2 ||d|| = 2``, the largest move possible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from reference.arrays import ArrayLike
from reference.domains import L2Ball
from reference.losses import HalfSquaredDistance, Linear, Loss
from reference.rng import RngLike
from reference.tape import NoiseLike, NoiseSource, noise_source
from spec import validate
from spec.errors import ParameterError

__all__ = [
    "Instance",
    "marginals_column_sum",
    "marginals_dataset",
    "linear_instance",
    "quadratic_instance",
    "linear_minimiser",
    "linear_excess_risk",
    "quadratic_minimiser",
    "quadratic_excess_risk",
    "worst_case_neighbour",
]

#: Label of the uniform draws that place the plus signs of each column.
PERMUTATION_LABEL = "bst14 Sec.V marginals permutation"


# data


def marginals_column_sum(*, n: int, M: float) -> int:
    """The integer ``c0`` of the parity of ``n`` nearest to ``M`` (ties upwards), ``0 <= c0 <= n``.

    Parameters
    ----------
    n : int
        Number of records, ``>= 1``.
    M : float
        Target norm of ``S = sum_i d_i``, in ``[0, n]``.

    Returns
    -------
    int
        ``c0``; a data set whose every column sums to ``c0 / sqrt(p)`` has ``||S|| = c0`` and
        ``|c0 - M| <= 1``.
    """
    n = validate.positive_integer("n", n)
    m = validate.interval("M", M, 0.0, float(n), closed="both")
    parity = n % 2
    # candidates of the right parity just below and above M
    below = 2 * math.floor((m - parity) / 2) + parity
    above = below + 2
    c0 = above if (above - m) <= (m - below) else below
    if c0 > n:
        c0 -= 2
    if c0 < 0:
        c0 += 2
    return int(c0)


def marginals_dataset(*, n: int, dimension: int, M: float, rng: RngLike = None,
                      noise: NoiseSource | None = None) -> np.ndarray:
    """A data set of ``{-1/sqrt(p), 1/sqrt(p)}^p`` with ``||sum_i d_i||_2 = c0``, ``|c0 - M| <= 1``.

    Parameters
    ----------
    n : int
        Number of records, ``>= 1``.
    dimension : int
        ``p >= 1``.
    M : float
        Target norm of the sum, in ``[0, n]`` (Lemma V.1's ``M``).
    rng, noise
        Randomness (keyword-only; see :mod:`reference.tape`): one ``uniform`` draw of shape
        ``(p, n)`` labelled :data:`PERMUTATION_LABEL`.

    Returns
    -------
    ndarray, shape (n, p)
        Every column sums to ``c0 / sqrt(p)`` exactly (up to floating addition) with ``c0 =``
        :func:`marginals_column_sum` ``(n=n, M=M)``; hence ``||S|| = c0`` (module docstring).

    Utility
    -------
    The data family of ``bst14.lemma_V_1`` and ``bst14.thm_V_2`` ... ``bst14.thm_V_5``.
    """
    n = validate.positive_integer("n", n)
    p = validate.positive_integer("dimension", dimension)
    c0 = marginals_column_sum(n=n, M=M)
    k = (n + c0) // 2  # plus signs per column
    u = noise_source(rng=rng, noise=noise).uniform(PERMUTATION_LABEL, (p, n))
    # rank of each row within its column; the k smallest uniforms get the plus sign
    ranks = np.argsort(np.argsort(u, axis=1, kind="stable"), axis=1, kind="stable")
    signs = np.where(ranks < k, 1.0, -1.0).T  # (n, p)
    data = signs / math.sqrt(p)
    # the construction is exact: check it rather than trust it
    column_sums = np.rint(signs.sum(axis=0)).astype(np.int64)
    if not np.all(column_sums == c0):  # pragma: no cover - a logic error, not a user error
        raise AssertionError(f"column sums {column_sums} differ from c0 = {c0}")
    norm = float(np.linalg.norm(data.sum(axis=0)))
    if not (M - 1 - 1e-9 <= norm <= M + 1 + 1e-9):  # pragma: no cover - logic error
        raise AssertionError(f"||S|| = {norm} outside [M - 1, M + 1] = [{M - 1}, {M + 1}]")
    return data


def _data(data, p: int | None = None) -> np.ndarray:
    arr = np.asarray(data)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"data must be a numeric array, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ParameterError(f"data (shape {arr.shape}) must have shape (n, p) with n, p >= 1")
    if not np.all(np.isfinite(arr)):
        raise ParameterError("data contains NaN or infinite values")
    if p is not None and arr.shape[1] != p:
        raise ParameterError(f"data rows (length {arr.shape[1]}) must have length p ({p})")
    return arr


def _thetas(theta, p: int) -> tuple[np.ndarray, bool]:
    arr = np.asarray(theta)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"theta must be a numeric array, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    single = arr.ndim == 1
    arr = np.atleast_2d(arr)
    if arr.ndim != 2 or arr.shape[1] != p:
        raise ParameterError(f"theta (shape {np.shape(theta)}) must have shape (p,) or (runs, p) with p = {p}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError("theta contains NaN or infinite values")
    return arr, single


def worst_case_neighbour(data: ArrayLike, index: int) -> np.ndarray:
    """``data`` with record ``index`` replaced by its negation (a replace-one neighbour).

    The replaced record flips the gradient direction of its loss on both Section V instances and
    moves ``sum_i d_i`` by ``2 d``; audits wrap the pair in :func:`audits.pairs.replace_one`,
    which asserts the relation.

    Raises
    ------
    ParameterError
        Bad shape or index, or a zero record (its negation is the same record).
    """
    arr = _data(data)
    n = arr.shape[0]
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"index ({index!r}) must be an integer")
    i = int(index)
    if not -n <= i < n:
        raise ParameterError(f"index ({i}) must be in [0, {n}) (negative values count from the end)")
    if not np.any(arr[i]):
        raise ParameterError(f"record {i % n} is zero: its negation is the same record, not a neighbour")
    out = arr.copy()
    out[i] = -arr[i]
    return out


# exact optima


def linear_minimiser(data: ArrayLike) -> np.ndarray:
    """``theta* = S / ||S||``: the minimiser of ``-<theta, S>`` over the unit ball (V-A).

    Raises
    ------
    ParameterError
        If ``S = 0`` (every point of the ball is then a minimiser).
    """
    arr = _data(data)
    s = arr.sum(axis=0)
    norm = float(np.linalg.norm(s))
    if not norm > 0:
        raise ParameterError("sum of the records (0) must be nonzero for a unique V-A minimiser")
    return s / norm


def linear_excess_risk(theta: ArrayLike, data: ArrayLike) -> np.ndarray | float:
    """``||S|| (1 - <theta, theta*>)``: excess risk of ``theta`` (``(p,)`` or ``(runs, p)``) on V-A.

    Exact for every ``theta`` (also outside the ball, where it can be negative); computed from the
    closed form so that small risks carry no cancellation error.
    """
    arr = _data(data)
    t, single = _thetas(theta, arr.shape[1])
    s = arr.sum(axis=0)
    norm = float(np.linalg.norm(s))
    if not norm > 0:
        raise ParameterError("sum of the records (0) must be nonzero for a unique V-A minimiser")
    # ||S|| (1 - <theta, S/||S||>) = ||S|| - <theta, S>
    out = norm - t @ s
    return float(out[0]) if single else out


def quadratic_minimiser(data: ArrayLike) -> np.ndarray:
    """``theta* = q = S / n``: the minimiser of ``sum_i ||theta - d_i||^2 / 2`` over the unit ball (V-B).

    Raises
    ------
    ParameterError
        If ``||q|| > 1`` (then the constrained minimiser is the projection, not ``q``; data of the
        instance have ``||d_i|| <= 1``, hence ``||q|| <= 1``).
    """
    arr = _data(data)
    q = arr.mean(axis=0)
    if float(np.linalg.norm(q)) > 1.0 + 1e-12:
        raise ParameterError(f"||mean of the records|| ({float(np.linalg.norm(q))!r}) must be <= 1 "
                             "(V-B data lie in the unit ball)")
    return q


def quadratic_excess_risk(theta: ArrayLike, data: ArrayLike) -> np.ndarray | float:
    """``(n/2) ||theta - q||^2``: excess risk of ``theta`` (``(p,)`` or ``(runs, p)``) on V-B (eq. (3))."""
    arr = _data(data)
    q = quadratic_minimiser(arr)
    t, single = _thetas(theta, arr.shape[1])
    diff = t - q
    out = 0.5 * arr.shape[0] * np.sum(diff * diff, axis=1)
    return float(out[0]) if single else out


# the instances


@dataclass(frozen=True)
class Instance:
    """A Section V instance: loss, constraint set and exact optimum.

    Attributes
    ----------
    name : {"V-A", "V-B"}
    loss : reference.losses.Loss
        ``Linear(data_norm=1)`` (V-A) or ``HalfSquaredDistance(data_norm=1, domain_radius=1)`` (V-B).
    domain : reference.domains.L2Ball
        The unit ball of R^p.
    minimiser : callable
        ``minimiser(data) -> (p,)``: the exact minimiser over the domain.
    excess_risk : callable
        ``excess_risk(theta, data)``: the exact excess empirical risk of the sum loss.
    """

    name: str
    loss: Loss
    domain: L2Ball
    minimiser: Callable[[np.ndarray], np.ndarray]
    excess_risk: Callable[..., np.ndarray]

    @property
    def dimension(self) -> int:
        return self.domain.dim

    def dataset(self, *, n: int, M: float, rng: RngLike = None, noise: NoiseLike = None) -> np.ndarray:
        """:func:`marginals_dataset` in this instance's dimension."""
        return marginals_dataset(n=n, dimension=self.dimension, M=M, rng=rng, noise=noise)


def linear_instance(*, dimension: int) -> Instance:
    """Section V-A: ``l(theta; d) = -<theta, d>`` on the unit ball, records of unit norm.

    Utility
    -------
    The instance of ``bst14.thm_V_2`` and ``bst14.thm_V_3``.
    """
    p = validate.positive_integer("dimension", dimension)
    return Instance("V-A", Linear(data_norm=1.0), L2Ball(radius=1.0, dim=p),
                    linear_minimiser, linear_excess_risk)


def quadratic_instance(*, dimension: int) -> Instance:
    """Section V-B: ``l(theta; d) = ||theta - d||^2 / 2`` on the unit ball, records of unit norm.

    Utility
    -------
    The instance of ``bst14.thm_V_4`` and ``bst14.thm_V_5`` (equation (3)).
    """
    p = validate.positive_integer("dimension", dimension)
    return Instance("V-B", HalfSquaredDistance(data_norm=1.0, domain_radius=1.0), L2Ball(radius=1.0, dim=p),
                    quadratic_minimiser, quadratic_excess_risk)
