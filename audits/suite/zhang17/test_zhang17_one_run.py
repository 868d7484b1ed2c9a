r"""One-run audit of zhang17 Algorithm 1 at n = 10^4 (:mod:`audits.one_run`), with its planted twins.

One run of output-perturbation gradient descent on 10^4 records (8976 synthetic Huber-regression
records and 1024 canary slots, each on its own coordinate, in or out by a fair coin:
:func:`audits.one_run_instances.zhang17_instance`), claim (4, 1e-8)-DP under replace-one. The
configuration is the tight one the reference offers -- Theorem 3 (convex), a public T = 20,
Lemma 2's tight sensitivity ``2 eta L T/n`` and the exact (analytic) Gaussian sigma -- because the
canaries attain that sensitivity: every canary's output coordinate is ``+-eta L T/n`` plus the noise,
so the reference's per-canary channel is *exactly* at the claim (``mu = mu*(4, 1e-8) = 0.717``)
and noise x0.5 is a real violation (``mu = 1.43``). Only the output is released: black box and
white box coincide.

Tests of the verdict, alpha split equally (union bound): the SNJ23 guess test on the output
(:mod:`audits.one_run_bounds`, union over 8 guess counts) and the noncentral-t test of
:mod:`audits.one_run_gaussian`, exact here (the module docstring of
:mod:`audits.one_run_instances` says why). The guess test cannot refute this claim with 1024
canaries (a Gaussian channel's guesses are far from randomised response); the Gaussian test
catches both twins with power above 1 - 1e-9 (computed before each run, :meth:`OneRunInstance.power`).

Measured (default seed, this machine with other jobs running): about 5 s per run (1.5 s to build
the instance); smoke tier.
"""

from __future__ import annotations

import pytest

from audits.one_run_suite import check_reference, check_twin

KEY = "zhang17.alg_1"
pytestmark = pytest.mark.spec(KEY, "zhang17.thm_3", "zhang17.lemma_2")


@pytest.mark.audit
def test_zhang17_one_run_privacy(audit):
    check_reference(audit, KEY)


@pytest.mark.planted
@pytest.mark.parametrize("twin", ["noise x0.5", "sensitivity halved"])
def test_zhang17_one_run_twin_is_flagged(audit, twin):
    check_twin(audit, KEY, twin, power=1 - 1e-6)
