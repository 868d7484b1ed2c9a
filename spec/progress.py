"""Text for progress lines of long runs (``dperm run``, the audits' batches): one formatter.

The module itself imports only :mod:`math`; importing it still loads the :mod:`spec` package
(sympy), so the command line imports it when a run reports progress, not at start-up.
"""

from __future__ import annotations

import math

__all__ = ["duration"]


def duration(seconds: float) -> str:
    """A duration for a progress line: seconds below 2 minutes, minutes below 2 hours, hours
    below 2 days, days beyond; ``"unknown"`` when it is not finite (no rate measured yet).

    >>> [duration(s) for s in (42.4, 300, 9000, 5 * 86400, float("inf"))]
    ['42 s', '5.0 min', '2.5 h', '5 days', 'unknown']
    """
    if not math.isfinite(seconds):
        return "unknown"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.3g} days"
