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

from audits.one_run_suite import check_reference, check_twin

KEY = "wang20.alg_4"
pytestmark = pytest.mark.spec(KEY, "wang20.thm_8", "wang20.eq_9")


@pytest.mark.audit
def test_wang20_one_run_privacy(audit):
    check_reference(audit, KEY)


@pytest.mark.planted
@pytest.mark.parametrize("twin", ["noise x0.5", "noise / sqrt(d)"])
def test_wang20_one_run_twin_is_flagged(audit, twin):
    check_twin(audit, KEY, twin, power=1 - 1e-4)
