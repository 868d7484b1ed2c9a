"""The one place where a user's ``rng=`` becomes a :class:`numpy.random.Generator`.

dperm never touches numpy's global random state. Every random function takes a keyword-only
``rng`` and passes it through :func:`as_generator`.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["as_generator", "fresh_seed"]


def as_generator(rng=None) -> np.random.Generator:
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


def fresh_seed() -> int:
    """A fresh 63-bit seed from OS entropy, for runs that must print how to reproduce them."""
    return int(np.random.SeedSequence().generate_state(2, dtype=np.uint32).view(np.uint64)[0] >> 1)
