r"""Scalar statistics of a mechanism's outputs: the families point mode chooses from.

Every statistic is a function of one output, fixed before the test runs are looked at (it is
given, or learned on the selection runs only), so every threshold event on it is an event of
the output and the claim bounds it: the audit stays sound whatever the statistic, and the
statistics only decide its power.

The value family
----------------
Tried in point mode unless the caller gives a ``statistic`` (or the mechanism a ``logpdf``):

* discrete outputs (at most :data:`MAX_CATEGORIES` distinct values or rows in the pooled
  selection runs, and at most a quarter as many as selection outputs): each value ``y`` gets the
  score ``ln((c_D(y) + 1/2) / (c_D'(y) + 1/2))`` from the selection counts (0 for values unseen
  in the selection runs), so threshold events on the score are the top-k sets ranked by the
  estimated likelihood ratio;
* scalar outputs: the output itself;
* vector outputs: the projection on the difference of the selection means (with
  ``whiten=True``, the pooled-covariance-whitened difference) *and* each coordinate on its own
  (up to :data:`MAX_COORDINATES`, those whose selection means differ most in units of their
  standard error; a coordinate released without noise has zero spread and comes first). The
  projection alone mixes a noiseless coordinate with the noisy ones: a two-coordinate release
  whose second coordinate is exact passed at 1e5 runs; its own coordinate refutes it at once.

The low-bit family
------------------
Floating-point outputs carry more than their value: the textbook ``f(D) + noise`` computed in
doubles is a multiple of the grain (ulp) of the larger of ``|f(D)|`` and the noise, so outputs
near 0 of ``3 + z`` are multiples of ``2^-51`` while those of ``4 + z`` are multiples of
``2^-50``, and the event "odd multiple of ``2^-51`` near 0" has probability zero on one dataset
(Mironov 2012, "On significance of the least significant bits for differential privacy"). For
each coordinate of a floating-point output that is not discrete, :func:`bits_family` maps a
value to a class: a *repeated value* (an atom: a value seen at least twice in the learning
runs, e.g. a coordinate released without noise, or a clamp) or else ``(sign, binade, trailing
zero bits of the significand, capped at`` :data:`TRAILING_ZEROS` ``)``, and scores the classes
by their learned log ratio like discrete outputs. Its scores are learned on one half of the
selection runs and its event is chosen on the other half (:mod:`audits.privacy`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from spec.errors import ParameterError

__all__ = [
    "MAX_CATEGORIES", "MAX_COORDINATES", "TRAILING_ZEROS", "MAX_ATOMS", "Statistic",
    "rows", "integer_kind", "user_statistic", "logpdf_statistic", "value_family",
    "needs_selection", "is_default", "continuous_float", "bits_family",
]

#: Outputs with at most this many distinct values (rows) are treated as discrete.
MAX_CATEGORIES = 64
#: Coordinates of a vector output tried on their own (value family) and for their low bits.
MAX_COORDINATES = 16
#: Trailing zero bits of the significand distinguished by the low-bit classes (0 .. this).
TRAILING_ZEROS = 3
#: Most frequent repeated values kept as classes of their own by the low-bit statistics.
MAX_ATOMS = 256


@dataclass
class Statistic:
    """A scalar statistic: ``apply(outputs) -> (runs,)`` and how to describe it and its events."""

    apply: Callable[[np.ndarray], np.ndarray]
    description: str
    learned: bool
    describe: Callable[[float, str], str] | None = None  # (threshold, side) -> text of the event
    family: str = "value"


def rows(arr: np.ndarray) -> np.ndarray:
    """Outputs as rows: ``(runs, -1)``."""
    return arr.reshape(arr.shape[0], -1)


def integer_kind(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "biu"


def user_statistic(statistic) -> Statistic:
    """A caller's ``statistic(outputs) -> (runs,)``, with its output checked."""
    label = getattr(statistic, "__qualname__", None) or type(statistic).__name__

    def apply(outputs):
        t = np.asarray(statistic(outputs))
        if t.dtype.kind not in "biuf":
            raise ParameterError(f"statistic {label} must return numbers, got dtype {t.dtype}")
        if t.shape not in ((outputs.shape[0],), (outputs.shape[0], 1)):
            raise ParameterError(
                f"statistic {label} must return one value per output (shape ({outputs.shape[0]},) for "
                f"{outputs.shape[0]} outputs), got {t.shape}"
            )
        t = t.reshape(-1).astype(float)
        if np.any(np.isnan(t)):
            raise ParameterError(f"statistic {label} returned NaN")
        return t

    return Statistic(apply, f"statistic {label}", learned=False)


def logpdf_statistic(logpdf, dataset, neighbour, name: str) -> Statistic:
    """The log-likelihood ratio ``logpdf(D, y) - logpdf(D', y)``."""
    def apply(outputs):
        with np.errstate(invalid="ignore"):
            a = np.asarray(logpdf(dataset, outputs), dtype=float).reshape(-1)
            b = np.asarray(logpdf(neighbour, outputs), dtype=float).reshape(-1)
            if a.shape != (outputs.shape[0],) or b.shape != (outputs.shape[0],):
                raise ParameterError(
                    f"mechanism {name}.logpdf must return one value per output "
                    f"({outputs.shape[0]}), got {a.shape} and {b.shape}"
                )
            t = a - b
        if np.any(np.isnan(t)):
            raise ParameterError(f"mechanism {name}.logpdf gave an undefined likelihood ratio (nan)")
        return t

    return Statistic(apply, "log-likelihood ratio (mechanism.logpdf)", learned=False)


def _scores(codes_d: np.ndarray, codes_n: np.ndarray):
    """Sorted distinct codes and their scores ``ln((c_D + 1/2) / (c_D' + 1/2))``."""
    cats, inverse = np.unique(np.concatenate([codes_d, codes_n]), return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    c_d = np.bincount(inverse[:codes_d.size], minlength=cats.size)
    c_n = np.bincount(inverse[codes_d.size:], minlength=cats.size)
    return cats, np.log((c_d + 0.5) / (c_n + 0.5))


def _lookup(cats, scores, codes):
    """Scores of ``codes`` (0 for codes not in ``cats``)."""
    j = np.minimum(np.searchsorted(cats, codes), cats.size - 1)
    return np.where(cats[j] == codes, scores[j], 0.0)


def _chosen_text(items, chosen, threshold, side) -> str:
    shown = [items[i] for i in np.flatnonzero(chosen)[:8]]
    text = ", ".join(shown) + (", ..." if np.count_nonzero(chosen) > 8 else "")
    # Values never seen in the learning runs have score 0.
    unseen = (0.0 > threshold) if side == ">" else (0.0 <= threshold)
    return text, unseen


def categorical_statistic(sel_d: np.ndarray, sel_n: np.ndarray, cats: np.ndarray, inverse) -> Statistic:
    ns = sel_d.shape[0]
    k = cats.shape[0]
    c_d = np.bincount(inverse[:ns], minlength=k)
    c_n = np.bincount(inverse[ns:], minlength=k)
    scores = np.log((c_d + 0.5) / (c_n + 0.5))

    def apply(outputs):
        r = rows(outputs).astype(float)
        if r.shape[1] == 1:  # scalar values: cats is sorted, look them up by bisection
            x = r[:, 0]
            j = np.minimum(np.searchsorted(cats[:, 0], x), k - 1)
            return np.where(cats[j, 0] == x, scores[j], 0.0)
        both = np.vstack([cats, r])
        uniq, inv = np.unique(both, axis=0, return_inverse=True)
        inv = np.asarray(inv).reshape(-1)
        lookup = np.zeros(uniq.shape[0])
        lookup[inv[:k]] = scores
        return lookup[inv[k:]]

    items = []
    for row in cats:
        vals = [f"{float(v):g}" for v in row]
        items.append(vals[0] if len(vals) == 1 else "(" + ", ".join(vals) + ")")

    def describe(threshold, side):
        chosen = scores > threshold if side == ">" else scores <= threshold
        text, unseen = _chosen_text(items, chosen, threshold, side)
        return f"output in {{{text}}}" + (" or a value unseen in the selection runs" if unseen else "")

    desc = f"discrete outputs ({k} values) ranked by the selection likelihood ratio"
    return Statistic(apply, desc, learned=True, describe=describe)


def projection_statistic(sel_d: np.ndarray, sel_n: np.ndarray, whiten: bool) -> Statistic:
    xd = rows(sel_d).astype(float)
    xn = rows(sel_n).astype(float)
    diff = xd.mean(axis=0) - xn.mean(axis=0)
    p = diff.size
    label = "mean difference"
    if whiten and xd.shape[0] > 1:
        cov = np.atleast_2d(0.5 * (np.cov(xd, rowvar=False) + np.cov(xn, rowvar=False)))
        ridge = 1e-8 * float(np.trace(cov)) / p
        if ridge > 0:  # constant outputs have nothing to whiten
            diff = np.linalg.solve(cov + ridge * np.eye(p), diff)
            label = "pooled-covariance-whitened mean difference"
    if not np.any(diff):
        diff = np.ones(p)
        label += " (zero; fell back to the all-ones direction)"
    w = diff / np.linalg.norm(diff)

    def apply(outputs):
        return rows(outputs).astype(float) @ w

    return Statistic(apply, f"projection on the selection {label} (p={p})", learned=True)


def identity_statistic() -> Statistic:
    def apply(outputs):
        return rows(outputs)[:, 0].astype(float)

    return Statistic(apply, "output (scalar)", learned=False)


def coordinate_statistic(j: int, p: int) -> Statistic:
    def apply(outputs):
        return rows(outputs)[:, j].astype(float)

    def describe(threshold, side):
        return f"coordinate {j} {side} {threshold:.6g}"

    return Statistic(apply, f"coordinate {j} of {p}", learned=True, describe=describe)


def discrete_categories(sel_d, sel_n):
    r = np.vstack([rows(sel_d), rows(sel_n)]).astype(float)
    cats, inverse = np.unique(r, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    if cats.shape[0] <= MAX_CATEGORIES and 4 * cats.shape[0] <= r.shape[0]:
        return cats, inverse
    return None, None


def _top_coordinates(sel_d, sel_n) -> np.ndarray:
    """Coordinates ordered by ``|mean_D - mean_D'| / standard error`` on the selection runs
    (infinite for a coordinate that differs without spread), at most MAX_COORDINATES."""
    xd, xn = rows(sel_d).astype(float), rows(sel_n).astype(float)
    diff = np.abs(xd.mean(axis=0) - xn.mean(axis=0))
    se = np.sqrt(xd.var(axis=0) / xd.shape[0] + xn.var(axis=0) / xn.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(diff > 0, diff / se, 0.0)
    order = np.argsort(-z, kind="stable")
    return order[:MAX_COORDINATES]


def is_default(statistic, mechanism) -> bool:
    """Whether the audit picks the statistic itself (no caller statistic, no ``logpdf``)."""
    return statistic is None and not callable(getattr(mechanism, "logpdf", None))


def value_family(mechanism, dataset, neighbour, statistic, sel_d, sel_n, *, mode, whiten, name):
    """The value statistics to choose from (module docstring); profile mode gets exactly one."""
    if statistic is not None:
        return [user_statistic(statistic)]
    logpdf = getattr(mechanism, "logpdf", None)
    if logpdf is not None and callable(logpdf):
        return [logpdf_statistic(logpdf, dataset, neighbour, name)]
    scalar = rows(sel_d).shape[1] == 1
    if mode == "profile" and scalar and not integer_kind(sel_d):
        return [identity_statistic()]
    cats, inverse = discrete_categories(sel_d, sel_n)
    if cats is not None:
        return [categorical_statistic(sel_d, sel_n, cats, inverse)]
    if scalar:
        return [identity_statistic()]
    family = [projection_statistic(sel_d, sel_n, whiten)]
    if mode == "point":
        p = rows(sel_d).shape[1]
        family += [coordinate_statistic(int(j), p) for j in _top_coordinates(sel_d, sel_n)]
    return family


def needs_selection(statistic, mechanism, sel_d) -> bool:
    """Profile mode: whether the statistic is learned (decided by shape and dtype only)."""
    if statistic is not None or callable(getattr(mechanism, "logpdf", None)):
        return False
    return rows(sel_d).shape[1] > 1 or integer_kind(sel_d)


def continuous_float(sel_d, sel_n) -> bool:
    """Floating-point outputs that are not discrete (the low-bit family applies)."""
    return sel_d.dtype.kind == "f" and discrete_categories(sel_d, sel_n)[0] is None


# --------------------------------------------------------------------------------------------
# Low bits and repeated values


def _classes(x: np.ndarray, nmant: int) -> np.ndarray:
    """``(sign, binade, min(trailing zero bits of the significand, TRAILING_ZEROS))`` as one
    nonnegative integer per value (``x`` in its own floating-point type)."""
    m, e = np.frexp(x)
    significand = np.abs(m.astype(np.float64)) * 2.0 ** (nmant + 1)  # an exact integer
    tz = np.zeros(x.shape, dtype=np.int64)
    for k in range(1, TRAILING_ZEROS + 1):
        tz += (np.fmod(significand, 2.0**k) == 0).astype(np.int64)
    sign = np.sign(x).astype(np.int64) + 1
    return ((sign * 8192 + (e.astype(np.int64) + 4096)) * (TRAILING_ZEROS + 1) + tz)


def _class_text(code: int) -> str:
    tz = code % (TRAILING_ZEROS + 1)
    rest = code // (TRAILING_ZEROS + 1)
    e = rest % 8192 - 4096
    sign = rest // 8192 - 1
    if sign == 0:
        return "0"
    bits = ("odd significand" if tz == 0 else
            f"significand with {'>= ' if tz == TRAILING_ZEROS else ''}{tz} trailing zero bits")
    return f"{'-' if sign < 0 else '+'}[2^{e - 1}, 2^{e}) {bits}"


def _bits_statistic(j: int, p: int, learn_d: np.ndarray, learn_n: np.ndarray, nmant: int) -> Statistic:
    xd, xn = rows(learn_d)[:, j], rows(learn_n)[:, j]
    values, counts = np.unique(np.concatenate([xd, xn]), return_counts=True)
    repeated = values[counts >= 2]
    if repeated.size > MAX_ATOMS:
        repeated = np.sort(values[np.argsort(-counts, kind="stable")[:MAX_ATOMS]])

    def codes(x):
        c = _classes(x, nmant)
        if repeated.size:
            i = np.minimum(np.searchsorted(repeated, x), repeated.size - 1)
            c = np.where(repeated[i] == x, -1 - i, c)  # atoms: negative codes
        return c

    cats, scores = _scores(codes(xd), codes(xn))

    def apply(outputs):
        return _lookup(cats, scores, codes(rows(outputs)[:, j]))

    items = [f"{float(repeated[-1 - c]):.17g} (repeated value)" if c < 0 else _class_text(int(c))
             for c in cats]
    where = f"coordinate {j}" if p > 1 else "output"

    def describe(threshold, side):
        chosen = scores > threshold if side == ">" else scores <= threshold
        text, unseen = _chosen_text(items, chosen, threshold, side)
        return (f"low bits of {where} in {{{text}}}"
                + (" or a class unseen in the learning runs" if unseen else ""))

    desc = (f"low bits and repeated values of {where} ({cats.size} classes ranked by the likelihood "
            "ratio learned on half the selection runs)")
    return Statistic(apply, desc, learned=True, describe=describe, family="low-bit")


def bits_family(learn_d: np.ndarray, learn_n: np.ndarray) -> list[Statistic]:
    """One low-bit statistic per coordinate (up to MAX_COORDINATES), learned on these runs."""
    nmant = int(np.finfo(learn_d.dtype).nmant)
    p = rows(learn_d).shape[1]
    coords = range(p) if p <= MAX_COORDINATES else _top_coordinates(learn_d, learn_n)
    return [_bits_statistic(int(j), p, learn_d, learn_n, nmant) for j in coords]
