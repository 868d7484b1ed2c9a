"""reference.vectors.declared: the generator refuses a vector that declares something false or cites a
record whose hypotheses it breaks; every committed vector passes."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import spec
from reference.vectors import declared
from reference.vectors import generate as gen
from reference.vectors.declared import DeclaredFalseError, failures, minimiser_norm_bounds

VECTORS = {p.stem: json.loads(p.read_text()) for p in gen.vector_files()}


def _case(paper, vid):
    return copy.deepcopy(next(c for c in gen.cases_of(paper) if c["id"] == vid))


def _stored_tape(paper, vid):
    from reference.tape import NoiseTape

    return NoiseTape.from_dict(VECTORS[vid]["tape"])


@pytest.mark.parametrize("vid", sorted(VECTORS))
def test_no_committed_vector_declares_a_false_bound(vid):
    population = next((c.get("population") for p in gen.papers() for c in gen.cases_of(p) if c["id"] == vid), None)
    assert failures(VECTORS[vid], population=population) == []


def test_the_generator_refuses_the_zhang17_minimiser_norm_3():
    """zhang17-alg1-logistic-convex-gaussian as it was: D = 3, but the minimiser has norm 4.58."""
    from reference.zhang17 import vectors as cases

    case = _case("zhang17", "zhang17-alg1-logistic-convex-gaussian")
    case["parameters"]["minimiser_norm"] = 3.0
    with pytest.raises(DeclaredFalseError, match=r"minimiser_norm \(3.0\) is false: the minimiser has norm in \[4.5772"):
        cases.build_vector(case, _stored_tape("zhang17", case["id"]))


def test_the_minimiser_norm_certificate_against_the_normal_equations():
    """Ridge: the minimiser solves (X^T X/n + lambda I) w = X^T y/n exactly; the certified interval holds it."""
    from reference.losses import L2Regulariser, LeastSquares, Regularised

    rng = np.random.default_rng(3)
    x = rng.uniform(-0.5, 0.5, size=(12, 3))
    y = x @ np.array([0.4, -0.3, 0.2]) + rng.uniform(-0.2, 0.2, size=12)
    loss = Regularised(LeastSquares(feature_norm=1, label_bound=1, domain_radius=4), L2Regulariser(strength=0.1),
                       domain_radius=4)
    exact = np.linalg.norm(np.linalg.solve(x.T @ x / 12 + 0.1 * np.eye(3), x.T @ y / 12))
    low, high = minimiser_norm_bounds(loss, np.column_stack([x, y]), radius=4)
    assert low <= exact <= high and high - low < 1e-6  # the solver certifies the gap to 1e-13: sqrt(2 gap/mu)


def test_separable_logistic_data_have_no_certified_minimiser():
    from reference.losses import Logistic

    rows = np.array([[0.5, 0.0, 1.0], [-0.5, 0.0, -1.0], [0.4, 0.3, 1.0]])  # separable: F -> 0 at infinity
    with pytest.raises(ValueError, match="no minimiser certified"):
        minimiser_norm_bounds(Logistic(feature_norm=1), rows, radius=20)


def test_citing_theorem_4_2_with_eta_above_1_over_12l_is_refused():
    v = copy.deepcopy(VECTORS["wang17-alg1-huber-ridge"])
    v["spec"].append("wang17.thm_4_2")
    bad = failures(v)
    assert any("learning_rate_le_1_over_12L" in b for b in bad) and any("inequality_4" in b for b in bad)


@pytest.mark.parametrize("vid", ["wang17-alg4-pseudo-huber-last", "wang17-alg4-welsch-random"])
def test_citing_the_pl_theorem_on_a_lipschitz_loss_is_refused(vid):
    v = copy.deepcopy(VECTORS[vid])
    v["spec"].append("wang17.thm_6_2")
    assert any("polyak_lojasiewicz" in b for b in failures(v))


def test_theorem_5_on_the_simplex_is_refused():
    v = copy.deepcopy(VECTORS["wang19-dp-pmd-sigmoid-ball-squared-l2"])
    v["inputs"]["domain"] = {"name": "Simplex", "parameters": {"dim": 3}}
    assert any("centrally_symmetric" in b for b in failures(v))


def test_a_population_value_below_the_law_s_is_refused():
    """The t(5) regression population has E xx^T = (5/3) I: beta = 1 (as the vector declared before) is false."""
    case = _case("wang20", "wang20-alg4-least-squares-strongly-convex")
    v = copy.deepcopy(VECTORS[case["id"]])
    v["parameters"]["smoothness"] = 1.0
    v["parameters"]["strong_convexity"] = 1.0
    v["parameters"]["second_moment"] = 10.0
    bad = failures(v, population=case["population"])
    assert any("smoothness (1.0) is below" in b for b in bad)
    assert any("second_moment (10.0) is below" in b for b in bad)
    assert any("population is not stated" in b for b in failures(v))


def test_an_uncited_hypothesis_table_entry_or_an_undecided_assumption_is_refused():
    v = copy.deepcopy(VECTORS["bst14-alg1-linear-ball-lipschitz"])
    v["spec"].append("bst14.thm_V_4")  # not in HYPOTHESES: nobody has considered its hypotheses for a vector
    assert any("does not list its hypotheses" in b for b in failures(v))
    v = copy.deepcopy(VECTORS["zhang17-alg2-welsch"])
    del v["derived"]["learning_rate"]  # eta < 2/beta (zhang17.alg_2, thm_5) can no longer be decided
    assert any("'eta_lt_2_over_beta'" in b and "not decided by the vector" in b for b in failures(v))


def test_data_outside_the_declared_bounds_are_refused():
    v = copy.deepcopy(VECTORS["bst14-alg1-linear-ball-lipschitz"])
    v["inputs"]["data"][0] = [0.9, 0.9]
    assert any("outside the declared loss bounds" in b for b in failures(v))


def test_the_not_applicable_table_names_real_assumptions():
    for (rid, name), reason in declared.NOT_APPLICABLE.items():
        assert name in {a.name for a in spec.get(rid).assumptions} and reason


def test_every_cited_record_is_in_the_hypothesis_table():
    cited = {rid for v in VECTORS.values() for rid in v["spec"]}
    assert cited <= set(declared.HYPOTHESES)
    assert set(declared.HYPOTHESES) <= set(spec.ids())
