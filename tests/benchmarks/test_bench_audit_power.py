"""Smoke test of ``benchmarks/bench_audit_power.py``: the script runs and its tables are sane.

``benchmarks`` is not a package, so the script is loaded from its path with :mod:`importlib`.
"""

from __future__ import annotations

import re


def test_quick_run_prints_tables_with_rates_in_unit_interval(load_bench):
    """A reduced quick run (one process) prints every table; every rate lies in [0, 1]."""
    bench = load_bench("bench_audit_power")
    lines: list[str] = []
    code = bench.main(["--quick", "--seed", "7", "--reps", "1", "--power-reps", "2",
                       "--coverage-reps", "2", "--jobs", "1"], out=lines.append)
    assert code == 0
    text = "\n".join(lines)
    assert "master seed: 7" in text
    for header in ("TABLE 1. Tightness", "TABLE 2. Power", "TABLE 3. Coverage", "ACCEPTANCE",
                   "runs_for_gaussian("):
        assert header in text, header
    assert "point rate" in text and "profile rate" in text and "95% CI" in text

    # Power and coverage rows: a rate followed by its Clopper-Pearson interval.
    rates = re.findall(r"(\d+\.\d+)\s+\[(\d+\.\d+), (\d+\.\d+)\]", text)
    assert len(rates) >= 5 * 2 + 1 + 4
    for rate, lo, hi in rates:
        rate, lo, hi = float(rate), float(lo), float(hi)
        assert 0.0 <= lo <= rate <= hi <= 1.0

    # Tightness rows: the flagged fraction is k/n with k <= n.
    flagged = re.findall(r"\b(\d+)/(\d+)\s*$", text, flags=re.MULTILINE)
    assert len(flagged) == 12
    assert all(int(k) <= int(n) for k, n in flagged)
