"""Smoke test of ``benchmarks/bench_profile_scale.py`` (loaded from its path): one repetition audits
the Gaussian at a noise factor against the Gaussian claim and returns its profile scale."""

from __future__ import annotations


def test_one_repetition_returns_the_scale_of_a_claim_that_holds(load_bench):
    bench = load_bench("bench_profile_scale")
    factor, scale, refuted, to_refute = bench.run_one((2.0, 0, 2000, bench.MASTER_SEED))
    # a lower confidence bound on 1/2 (seeded; exceeded with probability at most 0.05 otherwise)
    assert factor == 2.0 and 0.0 <= scale <= 0.5 and not refuted
