"""Repository-wide pytest configuration.

* Hypothesis: deterministic (derandomized) when the ``CI`` environment variable is set, so a
  CI failure reproduces bit for bit; no deadlines (this machine is noisy).
"""

from __future__ import annotations

import os

import mpmath
import pytest

from hypothesis import HealthCheck, settings

pytest_plugins = ("audits.plugin",)

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def _no_global_mpmath_precision_leak():
    """Fail loudly if a test changes mpmath's global precision (use ``mpmath.workdps``)."""
    before = mpmath.mp.prec
    yield
    leaked = mpmath.mp.prec
    mpmath.mp.prec = before
    assert leaked == before, f"test changed mpmath.mp.prec from {before} to {leaked}"
