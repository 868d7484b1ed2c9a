"""Neighbouring datasets, built so that they are neighbours (and checked, whoever built them).

A privacy claim speaks about *neighbouring* datasets under an explicit relation
(:class:`spec.record.Neighbouring`). An audit run on two datasets that are not neighbours tests
nothing (a "violation" may just be group privacy at work), so every pair is checked:

* **replace-one**: same number of records, and exactly one record differs;
* **add/remove-one**: the sizes differ by one and the smaller dataset is a sub-multiset of the
  larger one (records compared as whole rows, order ignored).

A dataset is a numeric array whose first axis indexes records (shape ``(n,)`` or
``(n, ...)``), or a tuple of such arrays sharing the first axis (e.g. ``(X, y)``), in which case
record ``i`` is the tuple of the ``i``-th rows. Records are compared exactly (as float64
values: integers beyond 2**53 are not supported); NaN and infinities are rejected.

The arrays stored in a :class:`NeighbouringPair` are read-only copies, so a checked pair cannot
be edited into a pair that is not one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from spec.errors import ParameterError
from spec.record import Neighbouring

__all__ = [
    "NeighbouringPair",
    "replace_one",
    "add_remove_one",
    "assert_neighbours",
    "as_relation",
]


def as_relation(relation) -> Neighbouring:
    """A :class:`Neighbouring` from the enum or its value (:meth:`Neighbouring.parse`)."""
    return Neighbouring.parse(relation)


def _column(name: str, value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, (list, tuple)) or np.isscalar(value):
        arr = np.asarray(value)
    else:
        raise TypeError(f"{name} must be a numpy array (or a tuple of arrays), got {type(value).__name__}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must have a numeric dtype, got {arr.dtype}")
    if arr.ndim == 0:
        raise ParameterError(f"{name} must have a leading axis of records, got a 0-d array")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} contains NaN or infinite values")
    return arr


def _columns(name: str, data) -> tuple[tuple[np.ndarray, ...], bool]:
    """Split a dataset into its columns; the flag says whether it was a tuple."""
    if isinstance(data, tuple):
        if not data:
            raise ParameterError(f"{name} must not be an empty tuple")
        cols = tuple(_column(f"{name}[{i}]", c) for i, c in enumerate(data))
        n = {c.shape[0] for c in cols}
        if len(n) != 1:
            raise ParameterError(
                f"{name} columns must share the number of records, got {[c.shape[0] for c in cols]}"
            )
        return cols, True
    return (_column(name, data),), False


def _rows(cols: tuple[np.ndarray, ...]) -> np.ndarray:
    """Records as rows of one float64 matrix (exact for the supported dtypes)."""
    n = cols[0].shape[0]
    return np.hstack([c.reshape(n, -1).astype(np.float64) for c in cols]) if n else np.zeros((0, 1))


def _record_shapes(cols) -> tuple:
    return tuple(c.shape[1:] for c in cols)


def _frozen(cols, is_tuple):
    out = []
    for c in cols:
        c = np.array(c, copy=True)
        c.setflags(write=False)
        out.append(c)
    return tuple(out) if is_tuple else out[0]


def assert_neighbours(a, b, relation) -> None:
    """Raise :class:`ParameterError` unless datasets ``a`` and ``b`` are neighbours.

    Parameters
    ----------
    a, b : ndarray or tuple of ndarray
        Datasets (see the module docstring).
    relation : Neighbouring or str
        ``replace-one``: same size, exactly one differing record. ``add/remove-one``: sizes
        differ by one and the smaller is a sub-multiset of the larger.
    """
    relation = as_relation(relation)
    ca, ta = _columns("dataset", a)
    cb, tb = _columns("neighbour", b)
    if ta != tb or len(ca) != len(cb):
        raise ParameterError("dataset and neighbour must have the same structure (array or tuple of arrays)")
    if _record_shapes(ca) != _record_shapes(cb):
        raise ParameterError(
            f"dataset and neighbour records must have the same shape, got {_record_shapes(ca)} "
            f"and {_record_shapes(cb)}"
        )
    ra, rb = _rows(ca), _rows(cb)
    na, nb = ra.shape[0], rb.shape[0]
    if relation is Neighbouring.REPLACE_ONE:
        if na != nb:
            raise ParameterError(
                f"replace-one neighbours must have the same number of records, got {na} and {nb}"
            )
        differing = np.flatnonzero(np.any(ra != rb, axis=1))
        if differing.size != 1:
            raise ParameterError(
                f"replace-one neighbours must differ in exactly one record, got {differing.size} "
                f"differing records"
                + (f" (indices {differing[:5].tolist()}{'...' if differing.size > 5 else ''})"
                   if differing.size else "")
            )
        return
    if abs(na - nb) != 1:
        raise ParameterError(
            f"add/remove-one neighbours must differ in size by exactly one, got {na} and {nb}"
        )
    small, large = (ra, rb) if na < nb else (rb, ra)
    # Sub-multiset check: count each distinct record in both and compare.
    if small.shape[0]:
        both = np.vstack([small, large])
        _, inverse = np.unique(both, axis=0, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)
        k = int(inverse.max()) + 1
        c_small = np.bincount(inverse[: small.shape[0]], minlength=k)
        c_large = np.bincount(inverse[small.shape[0]:], minlength=k)
        if np.any(c_small > c_large):
            raise ParameterError(
                "add/remove-one neighbours: the smaller dataset must be a sub-multiset of the "
                "larger one, but some record occurs more often in the smaller dataset"
            )


@dataclass(frozen=True, eq=False)
class NeighbouringPair:
    """Two datasets that are neighbours under ``relation`` (checked at construction).

    Attributes
    ----------
    dataset, neighbour : ndarray or tuple of ndarray
        Read-only copies of the two datasets.
    relation : spec.record.Neighbouring
        The relation that holds between them.

    Iterating yields ``dataset, neighbour``, so ``D, D2 = pair`` works.
    """

    dataset: Any
    neighbour: Any
    relation: Neighbouring

    def __post_init__(self):
        relation = as_relation(self.relation)
        assert_neighbours(self.dataset, self.neighbour, relation)
        ca, ta = _columns("dataset", self.dataset)
        cb, tb = _columns("neighbour", self.neighbour)
        object.__setattr__(self, "relation", relation)
        object.__setattr__(self, "dataset", _frozen(ca, ta))
        object.__setattr__(self, "neighbour", _frozen(cb, tb))

    def __iter__(self):
        yield self.dataset
        yield self.neighbour

    def swapped(self) -> "NeighbouringPair":
        """The same pair in the other order (both relations are symmetric)."""
        return NeighbouringPair(self.neighbour, self.dataset, self.relation)

    def __repr__(self) -> str:
        def size(d):
            return (d[0] if isinstance(d, tuple) else d).shape[0]

        return (f"NeighbouringPair({self.relation.value}, {size(self.dataset)} vs "
                f"{size(self.neighbour)} records)")


def _index(index, n: int, name: str = "index") -> int:
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"{name} ({index!r}) must be an integer")
    index = int(index)
    if not -n <= index < n:
        raise ParameterError(f"{name} ({index}) must be in [0, {n}) (negative values count from the end)")
    return index % n


def _record_columns(record, cols, is_tuple):
    if is_tuple:
        if not isinstance(record, tuple) or len(record) != len(cols):
            raise ParameterError(f"record must be a tuple of {len(cols)} rows, one per dataset column")
        parts = record
    else:
        parts = (record,)
    out = []
    for i, (part, col) in enumerate(zip(parts, cols)):
        arr = np.asarray(part)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"record must be numeric, got dtype {arr.dtype}")
        if arr.shape != col.shape[1:]:
            raise ParameterError(f"record{f'[{i}]' if is_tuple else ''} must have shape "
                                 f"{col.shape[1:]}, got {arr.shape}")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ParameterError("record contains NaN or infinite values")
        out.append(arr.astype(np.result_type(col.dtype, arr.dtype)))
    return out


def replace_one(dataset, index, record) -> NeighbouringPair:
    """The pair ``(dataset, dataset with record index replaced by record)``.

    Raises
    ------
    ParameterError
        If ``record`` equals the record it replaces (the datasets would be identical), or on
        a bad index / record shape.
    """
    cols, is_tuple = _columns("dataset", dataset)
    n = cols[0].shape[0]
    if n == 0:
        raise ParameterError("dataset must have at least one record to replace")
    index = _index(index, n)
    parts = _record_columns(record, cols, is_tuple)
    new = []
    for col, part in zip(cols, parts):
        c = col.astype(part.dtype, copy=True)
        c[index] = part
        new.append(c)
    neighbour = tuple(new) if is_tuple else new[0]
    return NeighbouringPair(dataset, neighbour, Neighbouring.REPLACE_ONE)


def add_remove_one(dataset, record=None, index=None) -> NeighbouringPair:
    """The pair ``(dataset, dataset + record)`` or ``(dataset, dataset without row index)``.

    Give exactly one of ``record`` (appended as the last record) and ``index`` (removed).
    """
    if (record is None) == (index is None):
        raise ParameterError("add_remove_one needs exactly one of record (to add) and index (to remove)")
    cols, is_tuple = _columns("dataset", dataset)
    n = cols[0].shape[0]
    if record is not None:
        parts = _record_columns(record, cols, is_tuple)
        new = [np.concatenate([col.astype(part.dtype), part[None, ...]], axis=0)
               for col, part in zip(cols, parts)]
    else:
        if n == 0:
            raise ParameterError("dataset must have at least one record to remove")
        index = _index(index, n)
        new = [np.delete(col, index, axis=0) for col in cols]
    neighbour = tuple(new) if is_tuple else new[0]
    return NeighbouringPair(dataset, neighbour, Neighbouring.ADD_REMOVE_ONE)
