"""Smoke test of ``benchmarks/bench_profile_bands.py`` (loaded from its path): its configurations
are the planted bug and the correct mechanisms it says, and one repetition prints both bands."""

from __future__ import annotations


def test_one_repetition_runs_both_bands_on_the_same_outputs(load_bench):
    bench = load_bench("bench_profile_bands")
    assert bench.CONFIGS["gauss x0.9"][0].sigma == 0.9 * bench.GAUSS.sigma
    # the cheapest configuration, one repetition: both bands, same seed
    name, out = bench.run_one(("gauss as pure 1-DP", 2, 0, 1, 0.05))
    assert name == "gauss as pure 1-DP" and set(out) == {"weighted", "dkw"}
    assert all(ratio >= 0 for _, ratio in out.values())
