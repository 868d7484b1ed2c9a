r"""One-run audit of bst14 Algorithm 1 at n = 10^4 (:mod:`audits.one_run`), with its planted twins.

One run of noisy SGD on 10^4 records (9936 points of the linear loss on the unit ball and 64
canary slots ``+-e_j`` on their own coordinates: :func:`audits.one_run_instances.bst14_instance`),
claim (1, 1e-8)-DP under replace-one. Algorithm 1 takes ``n^2 - 1`` steps of one sampled record
each: 10^8 steps at n = 10^4, each a few vector operations of the line-for-line reference. The
reference and its two twins run as the three rows of one batched loop (each row bit for bit the
run it would be alone; :class:`audits.one_run_instances._OneLoop`). The loop runs once only for
fits audited at one seed, so the three tests share theirs (``audit.shared_seed(LOOP)``, derived
from the run's global seed like every test's own) and the first of them pays for all three: 85
microseconds per step for the three rows on an idle core (``benchmarks/bench_one_run.py bst14
--n 300``), about 2.4 hours at n = 10^4: the deep tier. (With a seed per test, as before, each
test ran the whole loop again.) A worker of ``pytest -n`` that gets one of the three runs the loop
itself: run them in one process (``pytest audits/suite/bst14 -k one_run --audit-tier=deep -p
no:xdist``; the loop prints its steps and an ETA on the terminal), or split them on purpose
with ``bst14_instance(groups=...)``. At n = 10^4, with the seed these tests use at the default
global seed and the suite's alpha, the reference is not refuted and both twins are, at 1.50 (every
guess right; at n = 4000 and seed 1, 1.26; docs/audit-evidence.md).

The printed sigma is certified far below the claim (epsilon 0.2 at the claim 1, the multi-run
audit's docstring), so noise x0.5 is *not* a violation and is not planted. The twins are the
multi-run suite's, which are: sigma/n, and one noise vector reused at every step. Both expose the
sampled canaries' gradients ``n (+-e_j)`` almost noise-free -- the first in the released sum
(``white-box``), the second in the released sum minus ``T`` times the first release (``reuse``, where
the reused noise cancels) -- so every guess is right and the SNJ23 bound passes the claim.
"""

from __future__ import annotations

import pytest

from audits.one_run_suite import check_reference, check_twin

KEY = "bst14.alg_1"
#: The name the three tests' shared seed is derived from (:meth:`audits.plugin.AuditContext.shared_seed`).
LOOP = "one-run loop"
pytestmark = pytest.mark.spec(KEY, "bst14.thm_II_1")


@pytest.mark.audit
def test_bst14_one_run_privacy(audit):
    check_reference(audit, KEY, seed=audit.shared_seed(LOOP))


@pytest.mark.planted
@pytest.mark.parametrize("twin", ["sigma / n", "reused noise"])
def test_bst14_one_run_twin_is_flagged(audit, twin):
    check_twin(audit, KEY, twin, seed=audit.shared_seed(LOOP))
