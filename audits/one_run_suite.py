"""The suite's one-run tests, written once: tier check, the correct algorithm's audit, a twin's.

Each ``audits/suite/<paper>/test_<paper>_one_run.py`` names its instance (``KEY`` and a cached
builder from :mod:`audits.one_run_instances`) and calls these with the plugin's ``audit`` fixture,
which gives the seed and the alpha of the paper's budget share (:mod:`audits.budget`).
"""

from __future__ import annotations

import functools

import pytest

from audits.one_run_instances import INSTANCES, TIER, runs_in_tier

__all__ = ["builder", "require_tier", "check_reference", "check_twin"]


@functools.lru_cache(maxsize=None)
def builder(key: str):
    """The instance ``key``, built once per process (the builders are deterministic)."""
    return INSTANCES[key]()


def require_tier(audit, key: str) -> None:
    """Skip unless the run's tier reaches the instance's (:data:`audits.one_run_instances.TIER`)."""
    if not runs_in_tier(key, audit.tier):
        pytest.skip(f"the one-run audit of {key} runs from the {TIER[key]} tier (--audit-tier={TIER[key]})")


def check_reference(audit, key: str, *, seed: int | None = None):
    """Audit the correct algorithm in one run; it must not be refuted (a refutation is a false alarm,
    at most the audit's alpha). ``seed``: the test's own (``audit.seed``) unless given."""
    require_tier(audit, key)
    seed = audit.seed if seed is None else seed
    result = audit.record(builder(key).audit("reference", alpha=audit.alpha, seed=seed))
    assert not result.violated, str(result)
    return result


def check_twin(audit, key: str, twin: str, *, power: float | None = None, seed: int | None = None):
    """Audit twin ``twin`` in one run; it must be flagged. With ``power``, the exact Gaussian test's
    power against the twin (from its known separation) is checked first to be at least that.
    ``seed``: the test's own (``audit.seed``) unless given."""
    require_tier(audit, key)
    seed = audit.seed if seed is None else seed
    instance = builder(key)
    if power is not None:
        assert instance.power(twin, alpha=audit.alpha) >= power, (twin, instance.power(twin, alpha=audit.alpha))
    result = audit.record(instance.audit(twin, alpha=audit.alpha, seed=seed))
    assert result.violated, str(result)
    return result
