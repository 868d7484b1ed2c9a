"""Adapters: code we did not write, turned into the harness's batched ``mechanism(data, runs, rng)``.

Third-party DP libraries release *one* noisy value per call, often from a random source the
caller cannot seed. :func:`per_sample` wraps such a function:

* ``per_sample(fn)`` for ``fn(data, rng) -> output``: each run calls ``fn`` once with a numpy
  Generator. Runs are grouped in chunks of ``chunk`` runs; chunk ``i`` draws from its own
  Generator, seeded from the audit's ``rng`` (``SeedSequence(rng.integers(2**63)).spawn``), so
  the outputs depend only on the audit's seed -- not on ``jobs`` or on the order the chunks run
  in -- and an audit is reproducible from its printed seed.
* ``per_sample(fn, seeded=False)`` for ``fn(data) -> output`` that draws from its own source
  (``random``, ``secrets``, a C library, a global numpy state). What still holds: the audit's
  error guarantee, provided the function's draws are fresh and independent across calls (each
  run is then an independent output, and the selection and test runs are independent of each
  other and of the auditor's streams). What does not: reproducibility -- the same seed gives
  other outputs, and possibly another verdict. The wrapper says so (``seeded = False``), so the
  audit's probe does not warn about it (:class:`audits.privacy.RngWarning`), and with ``jobs >
  1`` every worker process reseeds Python's and numpy's global generators from the operating
  system, so forked workers do not repeat each other's draws.
* ``jobs > 1`` runs the chunks in that many worker processes (:mod:`concurrent.futures`); ``fn``
  and ``data`` must then be picklable (a module-level function, not a lambda).

Outputs are stacked along a new first axis: scalars give ``(runs,)``, arrays of shape ``s``
give ``(runs, *s)``. Non-numeric outputs (a fitted model object) need ``output``: a function
of one output returning its numbers (``lambda model: model.coef_``).
"""

from __future__ import annotations

import os
import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from spec import validate

__all__ = ["per_sample"]


def _reseed_globals() -> None:
    """Worker initialiser for unseedable functions: fresh OS entropy for the global generators."""
    random.seed(os.urandom(32))
    np.random.seed(int.from_bytes(os.urandom(4), "little"))


def _run_chunk(fn, data, n, seed, seeded, output):
    rng = np.random.default_rng(seed) if seeded else None
    out = []
    for _ in range(n):
        y = fn(data, rng) if seeded else fn(data)
        out.append(np.asarray(output(y) if output is not None else y))
    return np.stack(out) if out else np.zeros((0,))


class _PerSample:
    def __init__(self, fn, seeded, jobs, chunk, output):
        self.fn, self.seeded, self.jobs, self.chunk, self.output = fn, seeded, jobs, chunk, output
        label = getattr(fn, "__qualname__", None) or type(fn).__name__
        self.__qualname__ = self.__name__ = f"per_sample({label})"

    def __call__(self, data, *, runs, rng):
        sizes = [self.chunk] * (runs // self.chunk) + ([runs % self.chunk] if runs % self.chunk else [])
        # One child seed per chunk, drawn from the audit's stream: independent of ``jobs``.
        seeds = np.random.SeedSequence(int(rng.integers(2**63))).spawn(len(sizes))
        if self.jobs == 1 or len(sizes) == 1:
            parts = [_run_chunk(self.fn, data, n, s, self.seeded, self.output) for n, s in zip(sizes, seeds)]
        else:
            init = None if self.seeded else _reseed_globals
            with ProcessPoolExecutor(max_workers=self.jobs, initializer=init) as pool:
                parts = list(pool.map(_run_chunk, [self.fn] * len(sizes), [data] * len(sizes), sizes, seeds,
                                      [self.seeded] * len(sizes), [self.output] * len(sizes)))
        return np.concatenate(parts, axis=0) if parts else np.zeros((0,))

    def __repr__(self):
        return (f"{self.__qualname__} (seeded={self.seeded}, jobs={self.jobs}, chunk={self.chunk})")


def per_sample(fn, *, seeded=True, jobs=1, chunk=256, output=None):
    """A batched mechanism from a function that releases one output per call.

    Parameters
    ----------
    fn : callable
        ``fn(data, rng) -> output`` (``seeded=True``: ``rng`` is a numpy Generator it must draw
        all its randomness from) or ``fn(data) -> output`` (``seeded=False``).
    seeded : bool
        Whether ``fn`` takes the Generator (module docstring for what an unseeded function
        keeps and loses).
    jobs : int
        Worker processes (1: a plain loop in this process).
    chunk : int
        Runs per chunk (each chunk has its own seed; results do not depend on ``jobs``).
    output : callable, optional
        ``output(y) -> array`` extracting the released numbers from one output ``y``.

    Returns
    -------
    callable
        ``mechanism(data, *, runs, rng) -> ndarray`` with ``runs`` outputs along the first axis,
        and the attribute ``seeded``.

    Examples
    --------
    >>> import numpy as np
    >>> from audits.adapters import per_sample
    >>> def noisy_count(data, rng):            # one release per call
    ...     return float(np.sum(data)) + rng.laplace(0.0, 1.0)
    >>> mechanism = per_sample(noisy_count)
    >>> mechanism(np.ones(4), runs=5, rng=np.random.default_rng(0)).shape
    (5,)
    """
    if not callable(fn):
        raise TypeError(f"fn ({fn!r}) must be callable")
    if not isinstance(seeded, (bool, np.bool_)):
        raise TypeError(f"seeded ({seeded!r}) must be a boolean")
    if output is not None and not callable(output):
        raise TypeError(f"output ({output!r}) must be callable")
    jobs = validate.integer("jobs", jobs, minimum=1)
    chunk = validate.integer("chunk", chunk, minimum=1)
    return _PerSample(fn, bool(seeded), jobs, chunk, output)
