r"""One-run audit of wang20 Algorithm 4 at n = 10^4 (:mod:`audits.one_run`), with its planted twins.

One run of gradient descent with the Catoni-Giulini robust gradient on 10^4 records (8976
heavy-tailed Student-t(2.5) points and 1024 Hadamard canary slots ``+-M h_i`` that (nearly)
saturate the soft truncation on every canary coordinate:
:func:`audits.one_run_instances.wang20_instance`), claim (4, 1e-8)-DP under replace-one, Theorem
8's T (T = 1 on the ball of radius 5). The linear loss's gradient does not depend on the iterate,
so the released robust gradients' canary components are ``S_i`` times a constant plus Gaussian
noise: the white-box Gaussian test is exact; the output (after the projection) is the black box,
where the Gaussian statistic is only an estimate. Per canary the reference is at ``mu = 0.62``
against ``mu* = 0.717``: the zCDP calibration's slack and ``sqrt(m/d)`` of the sensitivity.

Tests of the verdict (alpha split equally): SNJ23 guesses on the output and on the released
gradient, the exact Gaussian test on the released gradient. Twins: noise x0.5 (the same law as
"sensitivity halved", since sigma is linear in the sensitivity; flagged by the Gaussian test, power
above 1 - 1e-4 computed before the run) and the noise calibrated to the coordinate sensitivity
(``sigma/sqrt(d)``, the multi-run suite's twin; flagged by every test).

Measured (default seed, this machine with other jobs running): 2 to 8 s per run, 5 s to build
the instance; smoke tier.
"""

from __future__ import annotations

import pytest

from audits.one_run_instances import TIER, runs_in_tier, wang20_instance

KEY = "wang20.alg_4"
pytestmark = pytest.mark.spec(KEY, "wang20.thm_8", "wang20.eq_9")


@pytest.fixture(scope="module")
def instance():
    return wang20_instance()


@pytest.fixture
def tiered(audit):
    if not runs_in_tier(KEY, audit.tier):
        pytest.skip(f"the one-run audit of {KEY} runs from the {TIER[KEY]} tier (--audit-tier={TIER[KEY]})")
    return audit


@pytest.mark.audit
def test_wang20_one_run_privacy(tiered, instance):
    result = tiered.record(instance.audit("reference", alpha=tiered.alpha, seed=tiered.seed))
    assert not result.violated, str(result)


@pytest.mark.planted
@pytest.mark.parametrize("twin", ["noise x0.5", "noise / sqrt(d)"])
def test_wang20_one_run_twin_is_flagged(tiered, instance, twin):
    assert instance.power(twin, alpha=tiered.alpha) > 1 - 1e-4
    result = tiered.record(instance.audit(twin, alpha=tiered.alpha, seed=tiered.seed))
    assert result.violated, str(result)
