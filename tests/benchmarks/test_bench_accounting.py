"""Smoke test of ``benchmarks/bench_accounting.py``: it runs and prints the accountants' answers.

``benchmarks`` is not a package, so the script is loaded from its path with :mod:`importlib`.
The printed epsilons are compared with the spec functions the script times (a tiny run).
"""

from __future__ import annotations

import math

from spec import gaussian, rdp

SIGMA, RATE, DELTA, STEPS = 1.1, 0.01, 1e-5, 10


def test_tiny_run_prints_every_method_with_the_spec_values(load_bench):
    bench = load_bench("bench_accounting")
    lines: list[str] = []
    code = bench.main(["--steps", str(STEPS), "--repeats", "1", "--sigma", str(SIGMA), "--rate", str(RATE),
                       "--delta", str(DELTA)], out=lines.append)
    assert code == 0
    assert lines[0].startswith(f"steps={STEPS} sigma/sensitivity={SIGMA} sampling_rate={RATE} delta={DELTA}")
    assert lines[1].split() == ["method", "epsilon", "order", "seconds"]
    labels = {
        "rdp poisson (MTZ19)": dict(sampling_rate=RATE, sampling="poisson"),
        "rdp without-replacement (WBK19)": dict(sampling_rate=RATE, sampling="without-replacement"),
        "rdp gaussian, no sampling": {},
        "exact gaussian profile, no sampling": None,
    }
    rows = {}
    for line in lines[2:]:
        label = next(name for name in labels if line.startswith(name))
        eps, order, seconds = line[len(label):].split()
        rows[label] = (float(eps), order, float(seconds))
    assert list(rows) == list(labels)

    common = dict(sigma=SIGMA, sensitivity=1.0, delta=DELTA, steps=STEPS)
    for label, kw in labels.items():
        eps, order, seconds = rows[label]
        assert math.isfinite(eps) and eps > 0 and seconds >= 0
        if kw is None:
            expected, expected_order = gaussian.exact_epsilon(DELTA, sigma=SIGMA, sensitivity=1.0, steps=STEPS), "-"
        else:
            expected, expected_order = rdp.epsilon_and_order(**common, **kw)
        assert eps == float(f"{expected:.6g}"), label  # the script prints 6 significant digits
        assert order == str(expected_order), label

    # Sensible order: the exact profile is the tightest unsampled bound, and sampling at 1%
    # amplifies privacy far below the unsampled RDP value.
    unsampled = rows["rdp gaussian, no sampling"][0]
    assert rows["exact gaussian profile, no sampling"][0] <= unsampled
    assert rows["rdp poisson (MTZ19)"][0] < unsampled
    assert rows["rdp without-replacement (WBK19)"][0] < unsampled
