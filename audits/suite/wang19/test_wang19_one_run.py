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

from audits.one_run_suite import check_reference, check_twin

KEY = "wang19.alg_1"
pytestmark = pytest.mark.spec(KEY, "wang19.thm_1", "wang19.eq_3")


@pytest.mark.audit
def test_wang19_one_run_privacy(audit):
    check_reference(audit, KEY)


@pytest.mark.planted
@pytest.mark.parametrize("twin", ["noise x0.5", "sensitivity halved"])
def test_wang19_one_run_twin_is_flagged(audit, twin):
    check_twin(audit, KEY, twin, power=1 - 1e-4)
