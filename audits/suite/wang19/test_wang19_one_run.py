r"""One-run audit of wang19 Algorithm 1 (DP-PGD) at n = 10^4 (:mod:`audits.one_run`), with its twins.

One run of DP-PGD (default T and the default zCDP sigma) on 10^4 records (8976 synthetic
Huber-regression records and 1024 canary slots on their own coordinates, in the loss's linear
piece over the whole domain, the ball of radius 5: :func:`audits.one_run_instances.wang19_instance`),
claim (4, 1e-8)-DP under replace-one. The released noisy gradients' canary coordinates are
``-+X/n`` plus fresh noise at each of the T = 291 steps, so the white-box Gaussian test is exact;
the output ``x_R`` is the black box (Gaussian statistic: an estimate). Per canary the reference is
at ``mu = 0.627`` against ``mu* = 0.717`` (the zCDP conversion's slack).

Twins: noise x0.5 and sensitivity halved (the loss declares G/2): ``mu = 1.25``, flagged by the
Gaussian test with power above 1 - 1e-4 (computed before the run). Reused noise is *not* a
violation on these canaries: their gradients do not change, so one reused noise vector makes the
transcript a single Gaussian release, which leaks less; it is caught where it leaks, on sampled
records (bst14's one-run audit), and not planted here.

Measured (default seed, this machine with other jobs running): about 40 s per run when the
machine is quiet, 200 s when it is not (T full-gradient steps over a 10^4 x 1032 data matrix);
standard tier.
"""

from __future__ import annotations

import pytest

from audits.one_run_instances import TIER, runs_in_tier, wang19_instance

KEY = "wang19.alg_1"
pytestmark = pytest.mark.spec(KEY, "wang19.thm_1", "wang19.eq_3")


@pytest.fixture(scope="module")
def instance():
    return wang19_instance()


@pytest.fixture
def tiered(audit):
    if not runs_in_tier(KEY, audit.tier):
        pytest.skip(f"the one-run audit of {KEY} runs from the {TIER[KEY]} tier (--audit-tier={TIER[KEY]})")
    return audit


@pytest.mark.audit
def test_wang19_one_run_privacy(tiered, instance):
    result = tiered.record(instance.audit("reference", alpha=tiered.alpha, seed=tiered.seed))
    assert not result.violated, str(result)


@pytest.mark.planted
@pytest.mark.parametrize("twin", ["noise x0.5", "sensitivity halved"])
def test_wang19_one_run_twin_is_flagged(tiered, instance, twin):
    assert instance.power(twin, alpha=tiered.alpha) > 1 - 1e-4
    result = tiered.record(instance.audit(twin, alpha=tiered.alpha, seed=tiered.seed))
    assert result.violated, str(result)
