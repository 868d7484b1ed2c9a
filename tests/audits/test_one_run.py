"""Tests of audits.one_run.audit_one_run: the driver (streams, families, alpha split, result)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from audits.one_run import OneRunResult, audit_one_run
from audits.one_run_canaries import coordinate_canaries
from audits.one_run_gaussian import gdp_mu
from reference.losses import Linear
from spec.errors import ParameterError

M, P = 400, 404
LOSS = Linear(data_norm=1.0)
DESIGN = coordinate_canaries(LOSS, count=M, dimension=P)
BASE = np.zeros((50, P))
BASE[:, M:] = 0.1


def gaussian_sum(sigma):
    """The Gaussian mechanism on the sum of the records (l2 sensitivity 2 under replace-one: two
    records of norm 1), releasing theta = sum + N(0, sigma^2 I)."""
    def fit(data, rng):
        return data.sum(axis=0) + sigma * rng.standard_normal(data.shape[1])
    return fit


def sigma_for(eps, delta):
    return 2.0 / gdp_mu(eps, delta)  # separation 2/sigma = mu*: exactly at the claim


def test_correct_mechanism_not_refuted_and_leak_refuted():
    eps, delta = 2.0, 1e-8
    ok = audit_one_run(gaussian_sum(sigma_for(eps, delta)), base=BASE, design=DESIGN, epsilon=eps, delta=delta,
                       alpha=1e-3, seed=5, gaussian={"black-box": "exact"})
    leak = audit_one_run(gaussian_sum(0.05), base=BASE, design=DESIGN, epsilon=eps, delta=delta,
                         alpha=1e-3, seed=5, gaussian={"black-box": "exact"})
    assert not ok.violated and leak.violated
    assert leak.epsilon_lower > eps
    guesses = [t for t in leak.tests if t["family"] == "black-box"]
    fits = [t for t in guesses if t["per_side"] <= min(leak.included, M - leak.included)]
    assert fits and all(t["correct"] == t["guesses"] for t in fits)  # perfect guesses where the counts allow
    assert any(t["violated"] for t in guesses)  # the SNJ23 test alone refutes the leak too


def test_alpha_is_split_over_the_verdict_tests():
    res = audit_one_run(gaussian_sum(1.0), base=BASE, design=DESIGN, epsilon=1.0, delta=1e-6, alpha=0.03, seed=1,
                        scores={"a": DESIGN.projections, "b": lambda o: -DESIGN.projections(-o)},
                        gaussian={"a": "exact", "b": "estimate"})
    share = 0.03 / 3  # two guess families and one exact Gaussian test
    by_family = {}
    for t in res.tests:
        by_family.setdefault(t["family"], []).append(t["alpha"])
    assert sum(by_family["a"]) == pytest.approx(share) and sum(by_family["b"]) == pytest.approx(share)
    assert by_family["gaussian (a)"] == [pytest.approx(share)]
    assert [e["family"] for e in res.estimates] == ["gaussian (b)"] and res.estimates[0]["violated"] is None


def test_reproducible_from_the_seed():
    kw = dict(base=BASE, design=DESIGN, epsilon=1.0, delta=1e-6, alpha=0.05)
    a = audit_one_run(gaussian_sum(0.5), seed=42, **kw)
    b = audit_one_run(gaussian_sum(0.5), seed=42, **kw)
    c = audit_one_run(gaussian_sum(0.5), seed=43, **kw)
    assert a.tests == b.tests and a.included == b.included
    assert a.tests != c.tests
    assert "seed 42" in str(a)
    fresh = audit_one_run(gaussian_sum(0.5), **kw)
    assert isinstance(fresh.seed, int) and f"seed {fresh.seed}" in str(fresh)


def test_result_json():
    res = audit_one_run(gaussian_sum(0.5), base=BASE, design=DESIGN, epsilon=1.0, delta=1e-6, seed=3,
                        gaussian={"black-box": "estimate"})
    d = json.loads(json.dumps(res.to_dict()))
    assert d["result_type"] == "one_run" and d["canaries"] == M and d["records"] == 50 + M
    assert d["relation"] == "replace-one" and d["summary"] == str(res)
    assert isinstance(res, OneRunResult) and res.family_bounds().keys() == {"black-box"}


def test_nan_scores_restrict_the_family():
    half = np.r_[np.zeros(M // 2), np.full(M // 2, np.nan)]
    res = audit_one_run(gaussian_sum(0.5), base=BASE, design=DESIGN, epsilon=1.0, delta=1e-6, seed=3,
                        scores={"half": lambda o: DESIGN.projections(o) + half})
    assert {t["canaries"] for t in res.tests} == {M // 2}


def test_split_and_fixed_rules():
    kw = dict(base=BASE, design=DESIGN, epsilon=1.0, delta=1e-6, seed=3)
    split = audit_one_run(gaussian_sum(0.2), guesses="split", **kw)
    assert len(split.tests) == 1 and split.tests[0]["rule"].startswith("split")
    fixed = audit_one_run(gaussian_sum(0.2), guesses=20, **kw)
    assert fixed.tests[0]["guesses"] == 40


def test_fit_called_with_rng_keyword_or_positionally():
    seen = []

    def keyword(data, *, rng):
        seen.append("kw")
        return data.sum(axis=0) + rng.standard_normal(P)

    def positional(data, generator):
        seen.append("pos")
        return data.sum(axis=0) + generator.standard_normal(P)

    for fit in (keyword, positional):
        audit_one_run(fit, base=BASE, design=DESIGN, epsilon=1.0, seed=1)
    assert seen == ["kw", "pos"]


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(gaussian={"black-box": "exact"}, delta=0.0), ParameterError, "delta > 0"),
    (dict(gaussian={"nope": "exact"}), ParameterError, "not among the scores"),
    (dict(gaussian={"black-box": "maybe"}), ParameterError, "gaussian mode"),
    (dict(scores={"x": 3}), TypeError, "scores"),
    (dict(guesses="all"), ParameterError, "guesses"),
    (dict(scores={"short": lambda o: np.zeros(3)}), ParameterError, "one value per slot"),
])
def test_bad_arguments(kwargs, error, message):
    kw = dict(base=BASE, design=DESIGN, epsilon=1.0, delta=1e-6, seed=1)
    kw.update(kwargs)
    with pytest.raises(error, match=message):
        audit_one_run(gaussian_sum(1.0), **kw)


def test_bad_fit_and_design():
    with pytest.raises(TypeError, match="fit"):
        audit_one_run(3, base=BASE, design=DESIGN, epsilon=1.0)
    with pytest.raises(TypeError, match="design"):
        audit_one_run(gaussian_sum(1.0), base=BASE, design="x", epsilon=1.0)
    with pytest.raises(ParameterError, match="parameter vector"):
        audit_one_run(lambda d, rng: np.zeros(3), base=BASE, design=DESIGN, epsilon=1.0, seed=1)
    with pytest.raises(ParameterError, match="finite"):
        audit_one_run(lambda d, rng: np.full(P, math.nan), base=BASE, design=DESIGN, epsilon=1.0, seed=1)


def test_report_shows_one_run_results_beside_the_others():
    from audits.report import Report, _describe

    res = audit_one_run(gaussian_sum(0.05), base=BASE, design=DESIGN, epsilon=1.0, delta=1e-8, seed=5)
    what, numbers, verdict = _describe(res.to_dict())
    assert what.startswith("privacy, one run, (1, 1e-08)-DP") and verdict == "REFUTED"
    assert f"eps_lower/eps = {res.epsilon_lower:.3g}/1" in numbers and f"n = {50 + M}" in numbers
    report = Report(seed=1, tier="smoke", family_alpha=0.01)
    report.note("audits/suite/x/test_x.py::test_a", marker="planted", spec=["wang19.alg_1"], location=("x", 1))
    report.add("audits/suite/x/test_x.py::test_a", res.to_dict())
    assert "privacy, one run" in report.markdown()
