"""Smoke test of ``benchmarks/bench_band_alarms.py`` (loaded from its path): its bands put the true
slope at their edges, and a few repetitions count refutations per band."""

from __future__ import annotations


def test_bands_have_the_true_slope_at_an_edge_and_a_chunk_counts_per_band(load_bench):
    bench = load_bench("bench_band_alarms")
    assert all(-1.0 in band for band in bench.BANDS.values())
    assert bench.BANDS["point"] == (-1.0, -1.0)
    counts = bench.chunk("chi2_1", 60, 0, 4, 0.05, bench.MASTER_SEED)
    assert counts.shape == (3,) and all(0 <= k <= 4 for k in counts)
    # the reproducibility the table relies on: the same repetitions give the same counts
    assert (bench.chunk("chi2_1", 60, 0, 4, 0.05, bench.MASTER_SEED) == counts).all()
