"""What every mechanism shares: the call signature, the claim it carries, data validation and the sum query's sensitivity (see :mod:`reference.mechanisms`).
"""

from __future__ import annotations

import numpy as np

from reference import arrays
from reference import losses as _losses
from reference.arrays import ArrayLike
from reference.rng import RngLike
from reference.tape import NoiseLike, noise_source
from spec import sensitivity as spec_sensitivity
from spec import validate
from spec.errors import DataBoundError, ParameterError
from spec.record import Neighbouring

BOUND_TOLERANCE = _losses.BOUND_TOLERANCE

_OUTPUTS = ("last", "random", "transcript")


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------


def sum_sensitivity(*, data_norm: float, relation: Neighbouring | str = "replace-one") -> float:
    """Sensitivity of the sum of records of norm at most ``data_norm``.

    Parameters
    ----------
    data_norm : float
        Bound ``R > 0`` on every record's norm (in the norm the sensitivity is wanted in).
    relation : Neighbouring or str
        ``replace-one`` (``2R``) or ``add/remove-one`` (``R``).

    Returns
    -------
    float
        Record ``sensitivity.sum`` evaluated (rounded up; exact here, a multiplication by 1 or 2).
    """
    r = validate.positive("data_norm", data_norm)
    rel = Neighbouring.parse(relation)
    formula = "replace_one" if rel is Neighbouring.REPLACE_ONE else "add_remove_one"
    return spec_sensitivity.SUM.evaluate(formula, norm_bound=r)


def _dim(dim) -> int:
    return validate.positive_integer("dim", dim)


def _records(data, columns: int, name: str = "data") -> np.ndarray:
    arr = np.asarray(data)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim != 2 or arr.shape[1] != columns:
        raise ParameterError(f"{name} (shape {arr.shape}) must have shape (n, {columns})")
    if not np.isfinite(arr).all():
        row = int(np.argwhere(~np.isfinite(arr).all(axis=1))[0, 0])
        raise DataBoundError(f"row {row} of {name} contains nan or inf; data must be finite")
    return arr


def _check_norms(values: np.ndarray, bound: float, quantity: str, bound_name: str) -> None:
    bad = ~(values <= bound * (1.0 + BOUND_TOLERANCE))
    if bad.any():
        row = int(np.argwhere(bad)[0, 0])
        raise DataBoundError(
            f"row {row} has {quantity} = {float(values[row])!r} > {bound_name} ({bound!r}) "
            f"({int(bad.sum())} rows out of bounds); data is rejected, never clipped"
        )


def _l2(rows: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(rows * rows, axis=1)) if rows.size else np.zeros(rows.shape[0])


def _outputs(name: str, outputs, shape_tail: tuple) -> np.ndarray:
    arr = np.asarray(outputs)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    if arr.shape[1:] != shape_tail or arr.ndim != 1 + len(shape_tail):
        raise ParameterError(f"{name} (shape {arr.shape}) must have shape (runs,) + {shape_tail}")
    return arr


class Mechanism:
    """Common parts: claim attributes, a readable name, the harness call signature."""

    epsilon: float | None = None
    delta: float | None = None

    def _set_name(self, text: str) -> None:
        # audits.privacy names a mechanism by its __qualname__ (reports, progress lines).
        self.__qualname__ = text

    def __repr__(self) -> str:
        return self.__qualname__

    def _claim(self, epsilon, delta) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self._set_name(f"{self.__qualname__} [{epsilon:g}, {delta:g}]")

    def __call__(self, data: ArrayLike, *, runs: int = 1, rng: RngLike = None, noise: NoiseLike = None) -> np.ndarray:
        """``runs`` independent releases on ``data`` (leading axis ``runs``); randomness only
        from ``rng`` or the tape ``noise`` (:func:`reference.tape.noise_source`)."""
        source = noise_source(rng=rng, noise=noise)
        return self._release(data, arrays.runs(runs), source)

    def _release(self, data, runs, source):  # pragma: no cover - interface
        raise NotImplementedError
