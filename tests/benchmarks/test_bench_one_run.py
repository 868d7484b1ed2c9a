"""Smoke test of ``benchmarks/bench_one_run.py`` (loaded from its path): the soundness table and
the idealised curve run (tiny repetitions) and print rows of the shape the evidence page quotes;
the idealised DP-SVRG audit of the ``svrg`` part flags a leaking channel and not a quiet one."""

from __future__ import annotations

import math

import numpy as np


def test_soundness_and_curve_rows(load_bench, capsys, monkeypatch):
    bench = load_bench("bench_one_run")
    monkeypatch.setattr(bench, "CLAIMS", ((1.0, 1e-5),))
    monkeypatch.setattr(bench, "SIZES", (100,))
    bench.soundness(reps=20, alpha=0.05, seed=1)
    out = capsys.readouterr().out
    row = [line for line in out.splitlines() if line.startswith("| 100 |")]
    assert len(row) == 1 and "(1, 1e-05)" in row[0]
    # the oracle curve's crossing agrees with the grid bound to the grid step
    e = bench._crossing(1000, 100, 75, 1e-4, 0.05)
    assert 0.6729 < e < 0.6731


def test_verdict_reuses_the_soundness_draws(load_bench, capsys, monkeypatch):
    # at J = 1 the verdict part's Gaussian alarms are the soundness table's (same seeds, same draws)
    bench = load_bench("bench_one_run")
    monkeypatch.setattr(bench, "CLAIMS", ((1.0, 1e-5),))
    monkeypatch.setattr(bench, "SIZES", (100,))
    bench.soundness(reps=40, alpha=0.3, seed=3)
    sound = _cells(capsys.readouterr().out)
    bench.verdict(reps=40, alpha=0.3, seed=3, tests=1)
    row = _cells(capsys.readouterr().out)
    assert row[2:4] == sound[5:7] and int(row[2]) > 0


def _cells(out):
    line = [line for line in out.splitlines() if line.startswith("| 100 |")][0]
    return [c.strip() for c in line.strip("| ").split("|")]


def test_fewest_guesses_at_delta_zero_is_the_binomial_tail(load_bench):
    bench = load_bench("bench_one_run")
    # at delta = 0 the p-value of r guesses, all right, is q^r with q = e^eps / (1 + e^eps); the
    # union has 16 tests (8 fractions, symmetric and one-sided) at alpha / 16 each
    for eps, alpha in ((4.0, 6.25e-5), (1.0, 0.05)):
        q = math.exp(eps) / (1 + math.exp(eps))
        expected = math.ceil(math.log(alpha / 16) / math.log(q))
        assert bench._fewest_guesses(1024, epsilon=eps, delta=0.0, alpha=alpha) == expected
    # delta > 0 pays the 2 m delta term: more guesses, more so with more canaries
    few = bench._fewest_guesses(1024, epsilon=4.0, delta=0.0, alpha=6.25e-5)
    assert few < bench._fewest_guesses(1024, epsilon=4.0, delta=1e-8, alpha=6.25e-5) < \
        bench._fewest_guesses(10_000, epsilon=4.0, delta=1e-8, alpha=6.25e-5)


def test_idealised_svrg_audit_can_flag_and_can_pass(load_bench):
    bench = load_bench("bench_one_run")
    # n = 64 records, 2000 releases: every canary is sampled about 31 times
    kw = dict(n=64, steps=2000, lipschitz=1.0)
    verdicts = {}
    for sigma in (0.5, 50.0):
        rng = np.random.default_rng(np.random.SeedSequence([5, int(sigma * 10)]))
        s = rng.choice((-1, 1), 64)
        scores = bench._svrg_scores(rng, s, sigma=sigma, **kw)
        verdicts[sigma] = bench._best_guesses(scores, s, epsilon=1.0, delta=0.0, alpha=0.05, rng=rng)
    # jump 4 against sigma 0.5, 31 times: every canary is exposed and the claim eps = 1 refuted
    assert verdicts[0.5][0] and verdicts[0.5][1] > 1.0
    # sigma 50: about (4/50) sqrt(31) = 0.45 of Gaussian separation, far inside eps = 1
    assert not verdicts[50.0][0] and verdicts[50.0][1] < 1.0
