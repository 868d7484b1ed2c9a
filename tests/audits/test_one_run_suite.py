"""Tests of audits.one_run_suite: the suite's one-run checks, and bst14's three tests sharing one loop."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from audits import one_run_instances as oi
from audits import one_run_suite
from reference.bst14 import noisy_sgd as _bst14
from spec.errors import ParameterError

SUITE_FILE = Path(__file__).resolve().parents[2] / "audits" / "suite" / "bst14" / "test_bst14_one_run.py"


class FakeAudit:
    """The plugin's ``audit`` fixture, reduced to what the checks use; ``shared_seed`` is a constant
    per name, ``seed`` the test's own."""

    def __init__(self, seed, tier="deep", alpha=0.05):
        self.seed, self.tier, self.alpha, self.results = seed, tier, alpha, []

    def shared_seed(self, name):
        return 1000 + len(name)

    def record(self, result):
        self.results.append(result)
        return result


def _counting_loops(calls):
    """Within the block, every run of bst14 Algorithm 1's configured box appends its ``runs`` to
    ``calls`` (the loops the fits pay for)."""
    real = _bst14.NoiseGD.run

    def counting(self, *args, **kwargs):
        calls.append(kwargs.get("runs", 1))
        return real(self, *args, **kwargs)
    return mock.patch.object(_bst14.NoiseGD, "run", counting)


def _suite_module():
    spec = importlib.util.spec_from_file_location("bst14_one_run_suite_file", SUITE_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bst14_tests_share_one_loop():
    """The three bst14 one-run tests (each with its own seed from the plugin) audit at the shared
    seed, so the reference's and the two twins' fits are served by one batched loop, as the suite
    file promises; at n = 200 with 64 canaries (seeded) the reference is not refuted and both twins
    are, so every check passes."""
    suite = _suite_module()
    inst = oi.bst14_instance(n=200, canaries=64)
    calls = []
    audits = [FakeAudit(seed=s) for s in (1, 2, 3)]
    with mock.patch.object(one_run_suite, "builder", lambda key: inst), \
            _counting_loops(calls):
        suite.test_bst14_one_run_privacy(audits[0])
        suite.test_bst14_one_run_twin_is_flagged(audits[1], "sigma / n")
        suite.test_bst14_one_run_twin_is_flagged(audits[2], "reused noise")
    assert calls == [3], calls  # one loop of three rows for the three tests
    shared = audits[0].shared_seed(suite.LOOP)
    assert all(a.results[0].seed == shared for a in audits)
    assert not audits[0].results[0].violated and all(a.results[0].violated for a in audits[1:])


def test_checks_use_the_tests_own_seed_by_default():
    inst = oi.bst14_instance(n=40, canaries=8)
    audit = FakeAudit(seed=5)
    with mock.patch.object(one_run_suite, "builder", lambda key: inst):
        one_run_suite.check_reference(audit, "bst14.alg_1")
    assert audit.results[0].seed == 5


def test_tier_below_the_instance_skips():
    with pytest.raises(pytest.skip.Exception, match="deep tier"):
        one_run_suite.check_reference(FakeAudit(seed=1, tier="standard"), "bst14.alg_1")


def test_fits_in_other_groups_give_the_same_bits():
    """``groups``: the reference alone and the twins together (two processes can run them); each fit
    gives the bits of its row of the one shared loop."""
    shared = oi.bst14_instance(n=30, canaries=8)
    alone = oi.bst14_instance(n=30, canaries=8, groups=[("reference",), ("reused noise", "sigma / n")])
    data = shared.design.assemble(shared.base, shared.design.secrets(rng=np.random.default_rng(4)))
    calls = []
    with _counting_loops(calls):
        for name in ("reference", "sigma / n", "reused noise"):
            got = alone.fits[name](data, rng=np.random.default_rng(8))
            want = shared.fits[name](data, rng=np.random.default_rng(8))
            for key in ("theta", "released", "first", "reference"):
                np.testing.assert_array_equal(got[key], want[key], err_msg=f"{name}: {key}")
    assert calls == [1, 3, 2], calls  # the reference alone, the shared loop once, the twins' loop once


@pytest.mark.parametrize("groups", [[("reference",)], [("reference", "sigma / n"), ("sigma / n", "reused noise")],
                                    [("reference", "sigma / n", "reused noise", "noise x0.5")]])
def test_groups_must_hold_each_fit_once(groups):
    with pytest.raises(ParameterError, match=r"groups \(.*\) must hold each of .* exactly once"):
        oi.bst14_instance(n=10, canaries=4, groups=groups)
