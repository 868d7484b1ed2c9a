"""spec.wang19 as a whole: the registry, conventions, flags, rate exponents and the formulas the reference uses.

The exponents are derived by sympy from each utility claim (record.exponents) and compared with the values
stated in the paper (Theorems 2-6) or derived in the module docstrings.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp

import spec
from spec import wang19
from spec.record import FlagKind, LossForm, Neighbouring, Rounding

EXPECTED_IDS = {
    "wang19.def_2", "wang19.def_3", "wang19.def_4", "wang19.def_5", "wang19.def_6", "wang19.def_7",
    "wang19.def_8", "wang19.def_9", "wang19.gradient_mapping", "wang19.frank_wolfe_gap", "wang19.lemma_1",
    "wang19.lemma_2", "wang19.lemma_3", "wang19.lemma_4", "wang19.eq_3", "wang19.thm_1", "wang19.thm_2",
    "wang19.thm_3", "wang19.thm_4", "wang19.thm_5", "wang19.thm_6", "wang19.alg_1", "wang19.alg_2",
    "wang19.alg_3", "wang19.alg_4",
}
HALF, QUARTER = sp.Rational(1, 2), sp.Rational(1, 4)
N_P_EPS_L2 = {"n": -HALF, "dimension": QUARTER, "epsilon": -HALF}
N_P_EPS_L1 = {"n": -HALF, "dimension": 0, "epsilon": -HALF}
N_EPS = {"n": -HALF, "epsilon": -HALF}
EXPECTED_EXPONENTS = {
    ("wang19.thm_2", 0): N_P_EPS_L2, ("wang19.thm_2", 1): N_P_EPS_L2,
    ("wang19.thm_3", 0): {"n": -HALF, "dimension": HALF, "epsilon": -HALF},
    ("wang19.thm_3", 1): {"n": -HALF, "dimension": HALF, "epsilon": -HALF},
    ("wang19.thm_4", 0): N_EPS, ("wang19.thm_4", 1): N_P_EPS_L2, ("wang19.thm_4", 2): N_P_EPS_L1,
    ("wang19.thm_4", 3): N_EPS, ("wang19.thm_4", 4): N_P_EPS_L2, ("wang19.thm_4", 5): N_P_EPS_L1,
    ("wang19.thm_5", 0): N_EPS, ("wang19.thm_5", 1): N_P_EPS_L2, ("wang19.thm_5", 2): N_P_EPS_L1,
    ("wang19.thm_5", 3): N_EPS, ("wang19.thm_5", 4): N_P_EPS_L2, ("wang19.thm_5", 5): N_P_EPS_L1,
    ("wang19.thm_6", 0): N_EPS, ("wang19.thm_6", 1): N_P_EPS_L1, ("wang19.thm_6", 2): N_EPS,
    ("wang19.thm_6", 3): N_P_EPS_L1,
    ("wang19.lemma_3", 0): {"epsilon": -1, "candidates": 0},
}


def test_every_record_is_registered():
    assert {r.id for r in wang19.RECORDS} == EXPECTED_IDS
    assert {i for i in spec.ids() if i.startswith("wang19.")} == EXPECTED_IDS
    assert "wang19" in spec.paper_packages()


@pytest.mark.parametrize("record", wang19.RECORDS, ids=lambda r: r.id)
def test_record_renders_and_states_its_conventions(record):
    assert spec.get(record.id) is record
    text = str(record)
    assert record.id in text and "replace-one" in text
    assert record.conventions.neighbouring is Neighbouring.REPLACE_ONE
    if record.privacy is not None:
        assert record.privacy.neighbouring is Neighbouring.REPLACE_ONE
    if record.id.startswith(("wang19.alg_", "wang19.thm_", "wang19.eq_")):
        assert record.conventions.loss is LossForm.AVERAGE
    if record.id.startswith("wang19.alg_"):
        assert [line.label for line in record.pseudocode] == [f"L{k}" for k in range(1, len(record.pseudocode) + 1)]
        assert record.citation.item.startswith("Algorithm")


def test_flags_of_the_brief_are_present():
    kinds = {r.id: [f.kind for f in r.flags] for r in wang19.RECORDS}
    assert kinds["wang19.alg_1"].count(FlagKind.ERRATUM) == 3  # L for G, rho^2 for rho, misplaced root
    assert FlagKind.CONSTANT_MADE_CONCRETE in kinds["wang19.eq_3"]
    assert FlagKind.ERRATUM in kinds["wang19.def_2"]
    assert FlagKind.ERRATUM in kinds["wang19.thm_4"] and FlagKind.CONSTANT_MADE_CONCRETE in kinds["wang19.thm_4"]
    assert FlagKind.CAVEAT in kinds["wang19.thm_6"]
    assert FlagKind.RECONSTRUCTED in kinds["wang19.alg_4"]
    assert FlagKind.RECONSTRUCTED in kinds["wang19.frank_wolfe_gap"]
    assert FlagKind.ERRATUM in kinds["wang19.alg_3"]
    for rid in ("wang19.thm_2", "wang19.thm_5", "wang19.thm_6", "wang19.lemma_4", "wang19.def_8"):
        assert FlagKind.CONSTANT_MADE_CONCRETE in kinds[rid], rid
    for record in wang19.RECORDS:
        for flag in record.flags:
            assert all(node.startswith("tests/") for node in flag.checked_by)


@pytest.mark.parametrize("key", sorted(EXPECTED_EXPONENTS), ids=lambda k: f"{k[0]}[{k[1]}]")
def test_rate_exponents(key):
    rid, index = key
    assert spec.get(rid).exponents(index) == EXPECTED_EXPONENTS[key]


def test_every_claim_with_rates_is_covered():
    covered = {k for k in EXPECTED_EXPONENTS}
    for record in wang19.RECORDS:
        for i, claim in enumerate(record.utility):
            if claim.rates:
                assert (record.id, i) in covered, (record.id, i)


# --------------------------------------------------------------------------- what the reference evaluates
COMMON = dict(lipschitz=1.0, n=10_000, epsilon=0.5, delta=1e-6, steps=64)
REFERENCE_FORMULAS = [
    (wang19.EQ_3, "sigma", COMMON, Rounding.UP),
    (wang19.ALG_1, "sigma", dict(COMMON), Rounding.UP),
    (wang19.ALG_2, "sigma", COMMON, Rounding.UP),
    (wang19.ALG_3, "sigma", COMMON, Rounding.UP),
    (wang19.THM_2, "learning_rate", dict(smoothness=2.0), Rounding.NEAREST),
    (wang19.THM_2, "steps", dict(n=10_000, epsilon=0.5, delta=1e-6, dimension=50), Rounding.CEIL),
    (wang19.THM_4, "learning_rate", dict(diameter=2.0, gaussian_width=3.0, n=10_000, epsilon=0.5, delta=1e-6),
     Rounding.NEAREST),
    (wang19.THM_4, "steps", dict(diameter=2.0, gaussian_width=3.0, n=10_000, epsilon=0.5, delta=1e-6),
     Rounding.CEIL),
    (wang19.THM_5, "learning_rate", dict(smoothness=1.0, diameter=2.0), Rounding.NEAREST),
    (wang19.THM_5, "steps", dict(diameter=2.0, gaussian_width=3.0, n=10_000, epsilon=0.5, delta=1e-6),
     Rounding.CEIL),
    (wang19.THM_6, "epsilon_step", dict(epsilon=0.5, delta=1e-6, steps=64), Rounding.DOWN),
    (wang19.THM_6, "coefficient", dict(COMMON, l1_diameter=2.0), Rounding.DOWN),
    (wang19.THM_6, "learning_rate", dict(steps=64, diameter=2.0), Rounding.NEAREST),
    (wang19.THM_6, "steps", dict(n=10_000, epsilon=0.5, delta=1e-6, candidates=100, failure_probability=0.05),
     Rounding.CEIL),
    (wang19.ALG_4, "coefficient_zcdp", dict(COMMON, l1_diameter=2.0), Rounding.DOWN),
    (wang19.ALG_4, "epsilon_step_zcdp", dict(epsilon=0.5, delta=1e-6, steps=64), Rounding.DOWN),
    (wang19.ALG_4, "score_sensitivity", dict(lipschitz=1.0, n=10_000, l1_diameter=2.0), Rounding.UP),
]


@pytest.mark.parametrize("record, name, values, rounding", REFERENCE_FORMULAS,
                         ids=lambda x: x if isinstance(x, str) else getattr(x, "id", ""))
def test_reference_formulas_evaluate_in_the_safe_direction(record, name, values, rounding):
    formula = record.formula(name)
    assert formula.rounding is rounding
    value = record.evaluate(name, **values)
    exact = record.evaluate_exact(name, **values)
    if rounding is Rounding.UP:
        assert mpmath.mpf(value) >= exact
    elif rounding is Rounding.DOWN:
        assert mpmath.mpf(value) <= exact
    elif rounding is Rounding.CEIL:
        assert isinstance(value, int) and value >= exact and value - 1 < exact
    assert math.isfinite(value) and value > 0


def test_reference_values_agree_across_records():
    s = wang19.EQ_3.evaluate("sigma", **COMMON)
    assert wang19.ALG_1.evaluate("sigma", **COMMON) == s == wang19.ALG_2.evaluate("sigma", **COMMON)
    assert wang19.sigma(**COMMON) == s
    eps0 = wang19.THM_6.evaluate("epsilon_step", epsilon=0.5, delta=1e-6, steps=64)
    c_at = wang19.ALG_4.evaluate("coefficient_at", epsilon_step=eps0, lipschitz=1.0, n=10_000, l1_diameter=2.0)
    c = wang19.THM_6.evaluate("coefficient", **COMMON, l1_diameter=2.0)
    assert c == pytest.approx(c_at, rel=1e-14)
    assert wang19.ALG_4.evaluate("candidates_l1_ball", dimension=50) == 100


HIDDEN = [
    (wang19.THM_2, "bound", dict(lipschitz=1.0, smoothness=2.0, n=10_000, dimension=20, epsilon=0.5, delta=1e-6,
                                 initial_gap=3.0)),
    (wang19.THM_4, "gap_bound", dict(lipschitz=1.0, smoothness=2.0, n=10_000, epsilon=0.5, delta=1e-6,
                                     initial_gap=3.0, diameter=2.0, gaussian_width=2.5)),
    (wang19.THM_5, "bound", dict(lipschitz=1.0, smoothness=2.0, n=10_000, epsilon=0.5, delta=1e-6,
                                 initial_gap=3.0, diameter=2.0, gaussian_width=2.5)),
    (wang19.THM_6, "gap_bound", dict(lipschitz=1.0, smoothness=2.0, n=10_000, epsilon=0.5, delta=1e-6,
                                     initial_gap=3.0, diameter=2.0, l1_diameter=2.0, candidates=40,
                                     failure_probability=0.05)),
]


@pytest.mark.parametrize("record, bound_name, values", HIDDEN, ids=lambda x: getattr(x, "id", ""))
def test_hidden_constants_are_named(record, bound_name, values):
    """steps_tuned = steps_constant * steps and the explicit bound = bound_constant * the printed rate."""
    with mpmath.workdps(50):
        steps = record.evaluate_exact("steps", **{k: v for k, v in values.items() if record.symbol(k) in
                                                 record.formula("steps").expr.free_symbols})
        tuned = record.evaluate_exact("steps_tuned", **values)
        assert abs(record.evaluate_exact("steps_constant", **values) * steps - tuned) < 1e-40 * tuned
        printed = record.utility[0].bound
        exact_values = {record.symbol(k): sp.Float(v, 60) if isinstance(v, float) else v for k, v in values.items()}
        rate = sp.N(printed.subs(exact_values), 50)  # the floats' exact binary values, as record.evaluate uses
        bound = record.evaluate_exact(bound_name, **values)
        assert abs(record.evaluate_exact("bound_constant", **values) * mpmath.mpf(str(rate)) - bound) < 1e-35 * bound
