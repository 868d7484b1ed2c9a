"""Noise sources and the noise tape.

An algorithm never calls a Generator directly. It asks a :class:`NoiseSource` for
*standardised* draws, each with a label naming the pseudocode line that consumes it::

    z = noise.normal("bst14 Alg.1 L5 b_t", (runs, p))      # standard normal
    b = sigma * z                                            # scaling is the algorithm's job

Three sources implement the same interface:

* :class:`Fresh` draws from a Generator;
* :class:`Recorder` draws from a Generator and appends every draw to a :class:`NoiseTape`;
* :class:`Replay` returns the draws of a tape, in order, checking label, kind, parameters and
  shape, so an output is a deterministic function of (data, parameters, tape).

Because the tape holds standardised draws (standard normal, uniform on [0, 1), uniform
integers, standard Gamma, standard Gumbel, standard exponential, standard Laplace), a tape
can be replayed by an implementation in any language: it only needs the scaling written in
the algorithm box. Known-answer vectors store tapes, never seeds (numpy promises stream
stability only per version and build).

Kinds and their laws
--------------------
``normal``        N(0, 1)
``uniform``       U[0, 1)
``integers``      uniform on {0, ..., high - 1}            (parameter ``high``)
``gamma``         Gamma(shape k, scale 1)                   (parameter ``k``)
``gumbel``        standard Gumbel, CDF exp(-exp(-x))
``exponential``   Exp(1)
``laplace``       Laplace(0, 1), density exp(-|x|)/2
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np

from reference.rng import RngLike, resolve
from spec.errors import ParameterError

__all__ = [
    "NoiseSource",
    "NoiseLike",
    "Fresh",
    "Recorder",
    "Replay",
    "NoiseTape",
    "TapeEntry",
    "TapeMismatchError",
    "noise_source",
    "KINDS",
]

KINDS = ("normal", "uniform", "integers", "gamma", "gumbel", "exponential", "laplace")


class TapeMismatchError(ParameterError):
    """A replayed tape does not match the draws the algorithm asks for."""


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(map(int, shape))
    if shape and min(shape) < 0:
        raise ParameterError(f"shape ({shape}) must have non-negative entries")
    return shape


class NoiseSource:
    """Interface every algorithm draws through. Subclasses implement :meth:`_draw`.

    :attr:`seed`: the integer that reproduces this source's draws with ``rng=seed``, when there
    is one (``None`` for a replayed tape or a caller-owned Generator).
    """

    seed: int | None = None

    def normal(self, label: str, shape: int | Sequence[int]) -> np.ndarray:
        """Standard normal draws."""
        return self._draw(label, "normal", {}, _shape(shape))

    def uniform(self, label: str, shape: int | Sequence[int]) -> np.ndarray:
        """Uniform draws on [0, 1)."""
        return self._draw(label, "uniform", {}, _shape(shape))

    def integers(self, label: str, high: int, shape: int | Sequence[int]) -> np.ndarray:
        """Uniform integers in {0, ..., high - 1}."""
        high = int(high)
        if high < 1:
            raise ParameterError(f"high ({high}) must be >= 1")
        return self._draw(label, "integers", {"high": high}, _shape(shape))

    def gamma(self, label: str, k: float, shape: int | Sequence[int]) -> np.ndarray:
        """Gamma(shape ``k``, scale 1) draws."""
        k = float(k)
        if not k > 0:
            raise ParameterError(f"k ({k}) must be > 0")
        return self._draw(label, "gamma", {"k": k}, _shape(shape))

    def gumbel(self, label: str, shape: int | Sequence[int]) -> np.ndarray:
        """Standard Gumbel draws."""
        return self._draw(label, "gumbel", {}, _shape(shape))

    def exponential(self, label: str, shape: int | Sequence[int]) -> np.ndarray:
        """Standard exponential draws."""
        return self._draw(label, "exponential", {}, _shape(shape))

    def laplace(self, label: str, shape: int | Sequence[int]) -> np.ndarray:
        """Standard Laplace draws (density exp(-|x|)/2)."""
        return self._draw(label, "laplace", {}, _shape(shape))

    def _draw(self, label, kind, params, shape):  # pragma: no cover - interface
        raise NotImplementedError


#: What every ``noise=`` keyword accepts: a :class:`NoiseSource` to draw from (a
#: :class:`Replay` of a tape, a :class:`Recorder`), or ``None`` to draw from ``rng=`` instead.
NoiseLike = Optional[NoiseSource]


#: Shapes of a single draw.
_ONE = ((1,), (1, 1))


def _generate(gen: np.random.Generator, kind: str, params: dict, shape: tuple) -> np.ndarray:
    if kind == "normal":
        return gen.standard_normal(shape)
    if kind == "uniform":
        return gen.random(shape)
    if kind == "integers":
        if shape in _ONE:
            # one draw: the scalar call returns the same value from the same stream position (tested)
            # in a fifth of the time, which a loop drawing one index per step pays every step
            return np.array((gen.integers(0, params["high"]),), dtype=np.int64).reshape(shape)
        return gen.integers(0, params["high"], size=shape, dtype=np.int64)
    if kind == "gamma":
        return gen.standard_gamma(params["k"], size=shape)
    if kind == "gumbel":
        return gen.gumbel(0.0, 1.0, size=shape)
    if kind == "exponential":
        return gen.standard_exponential(shape)
    if kind == "laplace":
        return gen.laplace(0.0, 1.0, size=shape)
    raise ValueError(f"kind ({kind!r}) must be one of {KINDS}")  # pragma: no cover


class Fresh(NoiseSource):
    """Draw from a Generator (``rng`` as accepted by :func:`reference.rng.as_generator`).

    :attr:`seed` is the integer that reproduces the draws with ``rng=seed``, or ``None`` when the
    caller passed a Generator (:func:`reference.rng.resolve`).
    """

    def __init__(self, rng: RngLike = None) -> None:
        self.generator, self.seed = resolve(rng)

    def _draw(self, label, kind, params, shape):
        return _generate(self.generator, kind, params, shape)


@dataclass
class TapeEntry:
    """One recorded draw: what asked for it, its law, and the values."""

    label: str
    kind: str
    params: dict
    values: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        vals = self.values
        return {
            "label": self.label,
            "kind": self.kind,
            "params": dict(self.params),
            "shape": list(vals.shape),
            "values": vals.reshape(-1).tolist(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "TapeEntry":
        kind = d["kind"]
        if kind not in KINDS:
            raise TapeMismatchError(f"tape kind ({kind!r}) must be one of {KINDS}")
        dtype = np.int64 if kind == "integers" else np.float64
        values = np.asarray(d["values"], dtype=dtype).reshape(tuple(d["shape"]))
        return cls(d["label"], kind, dict(d.get("params", {})), values)


@dataclass
class NoiseTape:
    """An ordered record of standardised draws; see the module docstring."""

    entries: list[TapeEntry] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.entries)

    def replay(self) -> "Replay":
        """A :class:`Replay` source reading this tape from the start."""
        return Replay(self)

    def to_dict(self) -> dict[str, Any]:
        return {"entries": [e.to_dict() for e in self.entries]}

    @classmethod
    def from_dict(cls, d: dict) -> "NoiseTape":
        return cls([TapeEntry.from_dict(e) for e in d["entries"]])

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> "NoiseTape":
        return cls.from_dict(json.loads(text))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NoiseTape) or len(self) != len(other):
            return False
        return all(
            a.label == b.label
            and a.kind == b.kind
            and a.params == b.params
            and a.values.shape == b.values.shape
            and np.array_equal(a.values, b.values)
            for a, b in zip(self.entries, other.entries)
        )


class Recorder(Fresh):
    """Draw from a Generator and record every draw on :attr:`tape`."""

    def __init__(self, rng: RngLike = None) -> None:
        super().__init__(rng)
        self.tape = NoiseTape()

    def _draw(self, label, kind, params, shape):
        values = super()._draw(label, kind, params, shape)
        self.tape.entries.append(TapeEntry(label, kind, dict(params), values.copy()))
        return values


class Replay(NoiseSource):
    """Return the draws of a tape in order; any mismatch raises :class:`TapeMismatchError`."""

    def __init__(self, tape: NoiseTape) -> None:
        if not isinstance(tape, NoiseTape):
            raise TypeError(f"tape ({type(tape).__name__}) must be a NoiseTape")
        self.tape = tape
        self.position = 0

    def _draw(self, label, kind, params, shape):
        if self.position >= len(self.tape.entries):
            raise TapeMismatchError(
                f"tape exhausted after {self.position} entries; the algorithm asked for "
                f"{kind} {shape} at {label!r}"
            )
        entry = self.tape.entries[self.position]
        want = (label, kind, dict(params), tuple(shape))
        got = (entry.label, entry.kind, entry.params, tuple(entry.values.shape))
        if want != got:
            raise TapeMismatchError(
                f"tape entry {self.position} is {got} but the algorithm asked for {want}"
            )
        self.position += 1
        return entry.values.copy()

    @property
    def exhausted(self) -> bool:
        return self.position == len(self.tape.entries)

    def assert_consumed(self) -> None:
        """Raise if the algorithm left entries unread (the tape belongs to another run)."""
        if not self.exhausted:
            raise TapeMismatchError(
                f"tape has {len(self.tape.entries) - self.position} unread entries "
                f"(read {self.position} of {len(self.tape.entries)})"
            )


def noise_source(*, rng: RngLike = None, noise: NoiseSource | None = None) -> NoiseSource:
    """The source an algorithm should draw from, given its ``rng=`` and ``noise=`` keywords.

    Exactly one of them may be given (both ``None`` means fresh OS entropy).
    """
    if noise is not None:
        if rng is not None:
            raise TypeError("pass either rng= or noise=, not both")
        if not isinstance(noise, NoiseSource):
            raise TypeError(f"noise ({type(noise).__name__}) must be a NoiseSource (Fresh, Recorder, Replay)")
        return noise
    return Fresh(rng)
