r"""One-run audit of wang17 Algorithm 1 (DP-SVRG) at n = 10^4 (:mod:`audits.one_run`), with its twin.

One run of DP-SVRG (Theorem 4.2's defaults with an L2 regulariser of strength 1: 17 epochs of 193
inner steps, the accountant's sigma) on 10^4 records (8976 synthetic Huber-regression records and
1024 canary slots on their own coordinates: :func:`audits.one_run_instances.wang17_instance`),
claim (4, 1e-8)-DP under replace-one.

What one run can see here. A canary in the loss's linear piece has the same gradient at every
iterate, so its sampled difference ``grad f(x, z_i) - grad f(x~, z_i)`` is zero; it reaches the
releases only through the snapshot gradient ``v~`` (``+-X/n``), against noise calibrated for the
sampled difference (``4G``). Per canary the reference is at ``mu = 0.005`` against
``mu* = 0.717``: neither the correct algorithm nor noise x0.5 (``mu = 0.01``) comes near the claim
on any canary one can plant (the sampled record is what subsampling hides, and no canary can be
sampled on purpose in one run). Those two are therefore not planted; the Gaussian statistic is
reported as an estimate (the sampled base records make the model inexact). Even idealised canaries,
each at the largest sampled difference, would not flag them: only 28% of canaries are ever
sampled here, fewer than the SNJ23 bound needs guessed right
(``benchmarks/bench_one_run.py svrg``; docs/audit-evidence.md).

Twin flagged: the snapshot's first release without noise
(:func:`audits.twins.wang17.dp_svrg_noiseless_snapshot`): the first inner step of each epoch
releases ``v~`` exactly, and the family ``first release`` (the first released vector, projected on
the canaries) guesses every canary right: the SNJ23 bound passes the claim.

Measured (default seed, this machine with other jobs running): about 9 s for the accountant's
sigma (once per process) and 4 s per run; standard tier.
"""

from __future__ import annotations

import pytest

from audits.one_run_suite import check_reference, check_twin

KEY = "wang17.alg_1"
pytestmark = pytest.mark.spec(KEY, "wang17.thm_4_1", "wang17.svrg_step_privacy")


@pytest.mark.audit
def test_wang17_one_run_privacy(audit):
    check_reference(audit, KEY)


@pytest.mark.planted
def test_wang17_one_run_noiseless_snapshot_is_flagged(audit):
    check_twin(audit, KEY, "noiseless snapshot")
