"""Tests of audits.low_bits: when the low-bit test runs (every branch of ``plan``, which every
mode of audit_privacy uses) and how its event is chosen (learned on one half of the selection
runs, chosen on the other)."""

from __future__ import annotations

import numpy as np
import pytest

from audits import low_bits
from audits import statistics as stat
from spec.errors import ParameterError

RNG = np.random.default_rng(0)
FLOATS = (4.0 + RNG.laplace(size=(400, 1)), 3.0 + RNG.laplace(size=(400, 1)))
INTEGERS = (RNG.integers(0, 1000, size=(400, 1)), RNG.integers(0, 1000, size=(400, 1)))
DISCRETE = (RNG.integers(0, 3, size=(400, 1)) * 0.5, RNG.integers(0, 3, size=(400, 1)) * 0.5)


def plain(data, runs, rng):
    return data


class WithLogpdf:
    def __call__(self, data, runs, rng):
        return data

    def logpdf(self, data, outputs):
        return np.zeros(outputs.shape[0])


def plan(setting, outputs=FLOATS, *, statistic=None, mechanism=plain, event=None):
    return low_bits.plan(setting, statistic=statistic, mechanism=mechanism, event=event, sel_d=outputs[0],
                         sel_n=outputs[1], name="m")


@pytest.mark.parametrize("kwargs,expected", [
    ({}, (True, "tested", "")),
    ({"event": 2.5}, (False, "not run", "a caller's event; low_bits=True adds it")),
    ({"statistic": np.ravel}, (False, "not run", "a caller's statistic; low_bits=True adds it")),
    ({"mechanism": WithLogpdf()}, (False, "not run", "the mechanism's logpdf statistic; low_bits=True adds it")),
])
def test_auto_runs_the_test_only_when_the_audit_picks_the_statistic(kwargs, expected):
    assert plan(None, **kwargs) == expected
    assert plan(True, **kwargs) == (True, "tested", "")  # True runs it in every case
    assert plan(False, **kwargs) == (False, "off", "low_bits=False audits the real-valued idealisation")


@pytest.mark.parametrize("outputs,kind", [(INTEGERS, "integers"), (DISCRETE, "discrete values")])
def test_outputs_without_low_bits(outputs, kind):
    assert plan(None, outputs) == (False, "not applicable", f"the outputs are {kind}")
    assert plan(False, outputs) == (False, "off", "low_bits=False")
    with pytest.raises(ParameterError, match=rf"low_bits \(True\): mechanism m returns {kind} \("):
        plan(True, outputs)


def test_choose_learns_on_the_first_half_and_chooses_on_the_second(monkeypatch):
    """The classes are fitted on the first half of the selection runs only (the event is judged on
    the second); for the float Laplace on 4 and 3 the chosen event holds on one dataset and never
    on the other in fresh runs (4 + z and 3 + z have different grains, Mironov 2012)."""
    learned = []
    original = stat.bits_family

    def spy(d, n):
        learned.append((d.shape[0], n.shape[0]))
        return original(d, n)

    monkeypatch.setattr(stat, "bits_family", spy)
    sel_d, sel_n = 4.0 + RNG.laplace(size=(3001, 1)), 3.0 + RNG.laplace(size=(3001, 1))
    st, (threshold, side, direction) = low_bits.choose(sel_d, sel_n, 20_000, delta=0.0, alpha=0.01)
    assert learned == [(1500, 1500)] and st.family == "low-bit"
    fresh = {"dataset": 4.0 + RNG.laplace(size=(20_000, 1)), "neighbour": 3.0 + RNG.laplace(size=(20_000, 1))}
    other = "neighbour" if direction == "dataset" else "dataset"
    hits = {k: int(np.count_nonzero(st.apply(v) > threshold if side == ">" else st.apply(v) <= threshold))
            for k, v in fresh.items()}
    assert hits[direction] > 100 and hits[other] == 0
