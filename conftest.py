"""Repository-wide pytest configuration.

* Hypothesis: deterministic (derandomized) when the ``CI`` environment variable is set, so a
  CI failure reproduces bit for bit; no deadlines (this machine is noisy).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
