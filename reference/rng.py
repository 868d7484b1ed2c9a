"""The one place where a user's ``rng=`` becomes a :class:`numpy.random.Generator`.

dperm never touches numpy's global random state. Every random function takes a keyword-only
``rng`` and passes it through :func:`as_generator`.
"""

from __future__ import annotations

import numbers
from typing import Union

import numpy as np

__all__ = ["RngLike", "as_generator", "resolve", "fresh_seed"]

#: What every ``rng=`` keyword accepts: ``None`` (fresh entropy), an ``int`` seed (>= 0), a
#: :class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`.
RngLike = Union[None, int, np.random.SeedSequence, np.random.Generator]


def as_generator(rng: RngLike = None) -> np.random.Generator:
    """Return a Generator for ``rng``.

    Parameters
    ----------
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        ``None`` draws fresh entropy from the operating system (not reproducible; audits
        generate and print a seed instead). An ``int`` (>= 0) or a ``SeedSequence`` seeds a new
        PCG64 generator. A ``Generator`` is returned as is, so its state advances.

    Raises
    ------
    TypeError
        For anything else, including the legacy ``RandomState`` (global-state style) and bools.
    ValueError
        For a negative integer seed.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng(np.random.SeedSequence())
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"rng ({rng!r}) must be a numpy Generator, SeedSequence, int or None, not a boolean")
    if isinstance(rng, numbers.Integral):
        if int(rng) < 0:
            raise ValueError(f"rng ({int(rng)}) must be >= 0 when given as an integer seed")
        return np.random.default_rng(int(rng))
    if isinstance(rng, np.random.RandomState):
        raise TypeError(
            "rng (RandomState) must be a numpy Generator, SeedSequence, int or None; "
            "the legacy RandomState is not accepted"
        )
    raise TypeError(
        f"rng ({rng!r}) must be a numpy Generator, SeedSequence, int or None, got {type(rng).__name__}"
    )


def resolve(rng: RngLike = None) -> tuple[np.random.Generator, int | None]:
    """``(generator, seed)``: the Generator of :func:`as_generator` and the integer that reproduces
    its stream with ``rng=seed``.

    ``seed`` is the int itself, the entropy of fresh OS randomness (``rng=None``: the run is
    reproducible afterwards from the result it reports) or of a SeedSequence without a spawn key;
    ``None`` for a caller-owned Generator (its state, not a seed, determines the stream) or a
    spawned SeedSequence.

    >>> g, seed = resolve(7)
    >>> seed, float(g.random()) == float(as_generator(7).random())
    (7, True)
    """
    if rng is None:
        seed = int(np.random.SeedSequence().entropy)
        return np.random.default_rng(seed), seed
    if isinstance(rng, np.random.SeedSequence) and not rng.spawn_key and isinstance(rng.entropy, int):
        return as_generator(rng), int(rng.entropy)
    gen = as_generator(rng)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        return gen, int(rng)
    return gen, None


def fresh_seed() -> int:
    """A fresh 63-bit seed from OS entropy, for runs that must print how to reproduce them."""
    return int(np.random.SeedSequence().generate_state(2, dtype=np.uint32).view(np.uint64)[0] >> 1)
