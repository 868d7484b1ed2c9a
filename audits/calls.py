"""Calling user code with the harness's ``(first, runs, rng)`` protocol.

Mechanisms (``mechanism(data, runs, rng)``) and rate measures (``measure(params, runs, rng)``)
are called with ``runs`` and ``rng`` as keywords when their signatures name them (the reference
mechanisms take them keyword-only, as every reference function does), and positionally
otherwise, so a user's ``lambda d, n, g: ...`` keeps working.
"""

from __future__ import annotations

import inspect

__all__ = ["takes_runs_rng_keywords", "call_with_runs_rng"]


def takes_runs_rng_keywords(fn) -> bool:
    """Whether ``fn`` accepts ``runs=`` and ``rng=`` as keywords."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # builtins and other objects without a signature
        return False
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return True
    keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return all(name in params and params[name].kind in keyword for name in ("runs", "rng"))


def call_with_runs_rng(fn, first, *, runs: int, rng):
    """``fn(first, runs=runs, rng=rng)`` or ``fn(first, runs, rng)`` (see the module docstring)."""
    if takes_runs_rng_keywords(fn):
        return fn(first, runs=runs, rng=rng)
    return fn(first, runs, rng)
