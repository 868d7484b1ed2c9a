"""reference/bst14/vectors.py: the derived learning rates are 50-digit evaluations rounded once,
the tolerance scales with the run, and the kink case hits the hinge's kink exactly once."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

from reference.bst14 import learning_rates
from reference.bst14 import vectors as V
from reference.vectors.generate import vector_dir
from spec import bst14 as spec

ALG1 = [c for c in V.CASES if c["algorithm"] == "bst14 Alg.1"]


def _stored(case):
    return json.loads((vector_dir("bst14") / f"{case['id']}.json").read_text())


@pytest.mark.parametrize("case", ALG1, ids=lambda c: c["id"])
def test_derived_learning_rates_are_50_digit_values_rounded_once(case):
    d = _stored(case)["derived"]
    if case["parameters"]["schedule"] == "lipschitz":
        values = dict(n=d["n"], lipschitz=d["lipschitz"], dimension=d["p"], diameter=d["diameter"], sigma=d["sigma"])
        name = "eta_lipschitz_sigma"
    else:
        values = dict(n=d["n"], strong_convexity=d["strong_convexity"])
        name = "eta_strongly_convex"
    for t, eta in enumerate(d["learning_rates"], start=1):
        exact = spec.THM_II_4.evaluate_exact(name, step=t, **values)
        assert eta == float(exact)  # mpmath's float() rounds to nearest
        with mpmath.workdps(50):
            assert abs(mpmath.mpf(eta) - exact) <= mpmath.mpf(np.spacing(eta)) / 2
    # the reference iterates with a double evaluation of the same expression: within 2 ulps
    double = learning_rates(case["parameters"]["schedule"], steps=d["steps"], **values)
    ulps = np.abs(double - np.asarray(d["learning_rates"])) / np.spacing(np.asarray(d["learning_rates"]))
    assert ulps.max() <= 2.0


def test_tolerance_scales_with_steps_and_domain():
    case = dict(ALG1[0])
    vector = {"algorithm": "bst14 Alg.1", "inputs": {"data": case["data"], "domain": case["domain"]}}
    assert V.tolerance(vector) == V.TOL_ALG1  # n = 3: 8 steps
    vector["inputs"]["data"] = [[0.1, 0.0]] * 12  # 143 steps
    tol = V.tolerance(vector)
    assert tol["absolute"] == pytest.approx(1e-9 * 143 / 35) and tol["relative"] == 0.0
    vector["inputs"]["domain"] = {"name": "L2Ball", "parameters": {"radius": 10.0, "dim": 2}}
    assert V.tolerance(vector)["absolute"] == pytest.approx(1e-9 * 143 / 35 * 5)
    assert V.tolerance({"algorithm": "bst14 Alg.3"}) == V.TOL_OUTPERT


def test_kink_case_hits_the_kink_once_and_crosses_it():
    vector = _stored(next(c for c in ALG1 if c["id"] == "bst14-alg1-hinge-ball-kink"))
    margins = np.asarray(V.margins(vector))
    assert (margins == 1.0).sum() == 1 and margins[0] == 1.0
    assert (margins > 1.0).any() and (margins < 1.0).any()
    assert "kink" in vector["flags"]
    others = [_stored(c) for c in ALG1 if c["loss"]["name"] == "Hinge" and "kink" not in c["id"]]
    assert all("kink" not in v["flags"] for v in others)
