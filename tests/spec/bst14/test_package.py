"""spec.bst14 as a whole: every record registered and rendered, rates, assumptions, bad input.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

import spec
from spec import bst14
from spec.errors import AssumptionError, ParameterError, PrivacyParameterError
from spec.record import FlagKind, LossForm, Neighbouring

EXPECTED_IDS = {
    "bst14.alg_1", "bst14.thm_II_1", "bst14.lemma_II_2", "bst14.lemma_II_3", "bst14.thm_II_4",
    "bst14.lemma_II_5", "bst14.lemma_II_6", "bst14.alg_2", "bst14.thm_III_1", "bst14.thm_III_2",
    "bst14.thm_III_4", "bst14.alg_3", "bst14.alg_4", "bst14.thm_IV_1", "bst14.lemma_IV_2",
    "bst14.thm_IV_3", "bst14.lemma_V_1", "bst14.thm_V_2", "bst14.thm_V_3", "bst14.thm_V_4",
    "bst14.thm_V_5", "bst14.table_I",
}


def test_every_record_is_registered():
    assert {r.id for r in bst14.RECORDS} == EXPECTED_IDS
    assert {i for i in spec.ids() if i.startswith("bst14.")} == EXPECTED_IDS
    assert "bst14" in spec.paper_packages()


@pytest.mark.parametrize("record", bst14.RECORDS, ids=lambda r: r.id)
def test_record_renders_and_flags_resolve(record):
    assert spec.get(record.id) is record
    text = str(record)
    assert record.id in text and "replace-one" in text
    assert r"\begin{description}" in record.to_latex()
    assert record.citation.paper == "bst14"
    assert record.conventions.neighbouring is Neighbouring.REPLACE_ONE
    if record.privacy is not None:
        assert record.privacy.neighbouring is Neighbouring.REPLACE_ONE


def test_sum_loss_convention_is_stated_where_a_loss_appears():
    for record in bst14.RECORDS:
        if record.id in ("bst14.lemma_II_2", "bst14.lemma_II_3", "bst14.lemma_II_5", "bst14.lemma_II_6"):
            assert record.conventions.loss is LossForm.NOT_APPLICABLE
        else:
            assert record.conventions.loss is LossForm.SUM
            assert any("sum" in note for note in record.conventions.notes)


def test_flags_of_the_brief_are_present():
    kinds = {r.id: {f.kind for f in r.flags} for r in bst14.RECORDS}
    assert FlagKind.ERRATUM in kinds["bst14.thm_II_1"]
    assert FlagKind.ERRATUM in kinds["bst14.thm_III_1"]
    assert FlagKind.ERRATUM in kinds["bst14.thm_V_4"] and FlagKind.ERRATUM in kinds["bst14.thm_V_5"]
    assert FlagKind.CONSTANT_MADE_CONCRETE in kinds["bst14.thm_III_2"]
    assert FlagKind.RECONSTRUCTED in kinds["bst14.thm_III_4"]
    assert FlagKind.CAVEAT in kinds["bst14.lemma_II_2"] and FlagKind.CAVEAT in kinds["bst14.alg_3"]
    assert bst14.THM_II_1.privacy.accountant is bst14.certified_epsilon
    assert bst14.THM_II_1.privacy.profile is None


EXPECTED_EXPONENTS = {
    ("bst14.thm_II_4", 0): {"n": 0, "dimension": sp.Rational(1, 2), "epsilon": -1},
    ("bst14.thm_II_4", 1): {"n": -1, "dimension": 1, "epsilon": -2},
    ("bst14.lemma_II_5", 0): {"steps": sp.Rational(-1, 2)},
    ("bst14.lemma_II_6", 0): {"steps": -1},
    ("bst14.thm_III_2", 0): {"dimension": 1, "epsilon": -1},
    ("bst14.thm_III_2", 1): {"dimension": 1, "epsilon": -1},
    ("bst14.thm_III_2", 2): {"dimension": 1, "epsilon": -1},
    ("bst14.thm_III_4", 0): {"n": 0, "dimension": 1, "epsilon": -1},
    ("bst14.thm_III_4", 1): {"n": 4, "dimension": 4},
    ("bst14.thm_IV_3", 0): {"n": -1, "dimension": 2, "epsilon": -2},
    ("bst14.lemma_V_1", 0): {"n": -1, "dimension": 1, "epsilon": -1},
    ("bst14.lemma_V_1", 1): {"n": -1, "dimension": sp.Rational(1, 2), "epsilon": -1},
    ("bst14.thm_V_2", 0): {"n": 0, "dimension": 1, "epsilon": -1},
    ("bst14.thm_V_3", 0): {"n": 0, "dimension": sp.Rational(1, 2), "epsilon": -1},
    ("bst14.thm_V_4", 0): {"n": -1, "dimension": 2, "epsilon": -2},
    ("bst14.thm_V_5", 0): {"n": -1, "dimension": 1, "epsilon": -2},
}


@pytest.mark.parametrize("key", sorted(EXPECTED_EXPONENTS), ids=lambda k: f"{k[0]}[{k[1]}]")
def test_rate_exponents_as_stated(key):
    rid, index = key
    assert spec.get(rid).exponents(index) == EXPECTED_EXPONENTS[key]


def test_every_utility_claim_with_rates_has_canonical_symbols():
    for record in bst14.RECORDS:
        names = {s.name for s in record.symbols}
        for claim in record.utility:
            assert {name for name, _ in claim.rates} <= names
            free = {next(s.name for s in record.symbols if s.symbol == x) for x in claim.bound.free_symbols}
            assert free <= names


@pytest.mark.parametrize(
    "record, values, assumption",
    [
        (bst14.THM_II_1, dict(n=10, epsilon=10.0, delta=1e-5), "lemma_II_2_condition"),
        (bst14.THM_II_1, dict(n=1, epsilon=0.5, delta=1e-5), "n_ge_2"),
        (bst14.THM_II_1, dict(n=10, epsilon=0.5, delta=1.5), "delta_lt_1"),
        (bst14.ALG_1, dict(n=1, epsilon=0.5, delta=1e-5), "n_ge_2"),
        (bst14.THM_II_4, dict(strong_convexity=3.0, diameter=1.0, lipschitz=1.0), "strong_convexity_consistent"),
        (bst14.LEMMA_II_5, dict(steps=1), "steps_gt_1"),
        (bst14.LEMMA_II_6, dict(steps=1), "steps_gt_1"),
        (bst14.THM_V_2, dict(n=10, dimension=100, epsilon=0.1), "branch_active"),
        (bst14.THM_V_3, dict(n=100, dimension=10, epsilon=1.0, delta=0.02), "delta_lt_1_over_n"),
        (bst14.THM_V_5, dict(n=10, dimension=1000, epsilon=1.0, delta=1e-6), "branch_active"),
        (bst14.TABLE_I, dict(n=100, delta=0.05), "delta_lt_1_over_n"),
        (bst14.LEMMA_IV_2, dict(n=1), "n_ge_2"),
    ],
)
def test_assumptions_reject_bad_values(record, values, assumption):
    with pytest.raises(AssumptionError) as info:
        record.check(**values)
    assert info.value.assumption == assumption and info.value.record == record.id
    assert assumption in str(info.value)


def test_assumptions_accept_good_values():
    bst14.THM_II_1.check(lipschitz=1.0, n=10, epsilon=1.0, delta=1e-5)
    bst14.THM_II_4.check(strong_convexity=2.0, diameter=1.0, lipschitz=1.0, n=5, delta=0.1)
    bst14.THM_V_4.check(n=100, dimension=10, epsilon=1.0)
    # the lemma's condition is exactly epsilon <= 2 sqrt(ln(1/delta))
    edge = 2 * math.sqrt(math.log(1e5))
    bst14.THM_II_1.check(n=3, epsilon=edge * (1 - 1e-12), delta=1e-5)
    with pytest.raises(AssumptionError):
        bst14.THM_II_1.check(n=3, epsilon=edge * (1 + 1e-12), delta=1e-5)


# --------------------------------------------------------------------------- bad input everywhere
GOOD = dict(lipschitz=1.0, n=10, epsilon=1.0, delta=1e-5)


def _evaluator(record, name):
    """``record.evaluate(name, **kwargs)`` as a function (for the bad-input table)."""
    def evaluate(**kwargs):
        return record.evaluate(name, **kwargs)

    evaluate.__name__ = f"{record.id}.{name}"
    return evaluate


BAD_INPUT = [
    (bst14.noise_gd_sigma, dict(GOOD, calibration="exact"), ParameterError, "calibration"),
    (bst14.noise_gd_sigma, dict(GOOD, epsilon=-1.0), PrivacyParameterError, r"epsilon \(-1.0\) must be > 0"),
    (bst14.noise_gd_sigma, dict(GOOD, delta=1.0), PrivacyParameterError, r"delta \(1.0\) must be in \(0, 1\)"),
    (bst14.noise_gd_sigma, dict(GOOD, n=1), ParameterError, r"n \(1\) must be >= 2"),
    (bst14.noise_gd_sigma, dict(GOOD, n=10.0), TypeError, "n"),
    (bst14.noise_gd_sigma, dict(GOOD, lipschitz=0.0), ParameterError, "lipschitz"),
    (bst14.noise_gd_sigma, dict(GOOD, epsilon=float("nan")), PrivacyParameterError, "epsilon"),
    (bst14.noise_gd_sigma, dict(GOOD, epsilon=10.0), AssumptionError, "lemma_II_2_condition"),
    (bst14.noise_gd_sigma, dict(GOOD, calibration="rigorous", epsilon=10.0), AssumptionError, "lemma_II_2"),
    (bst14.certified_epsilon, dict(n=10, delta=1e-5), ParameterError, "epsilon"),
    (bst14.certified_epsilon, dict(n=10, delta=1e-5, sigma=-1.0), PrivacyParameterError, "sigma"),
    (bst14.certified_epsilon, dict(n=10, delta=1e-5, sigma=1.0, orders=[1, 2]), ParameterError, "orders"),
    (bst14.certified_epsilon, dict(n=10, delta=1e-5, sigma=1.0, orders="2"), TypeError, "orders"),
    (bst14.sigma_analytic_chain, dict(GOOD, delta=0.0), PrivacyParameterError, "delta"),
    (bst14.sigma_accountant, dict(GOOD, n=True), TypeError, "n"),
    (bst14.union_bound_overshoot, dict(n=10, epsilon=0.0, delta=1e-5), PrivacyParameterError, "epsilon"),
    (bst14.composition_overshoot, dict(n=10, epsilon=1.0, delta=1e-5, delta_prime=2.0), PrivacyParameterError,
     "delta_prime"),
    (_evaluator(bst14.THM_II_4, "eta_lipschitz_sigma"),
     dict(step=101, n=10, lipschitz=1.0, dimension=2, diameter=1.0, sigma=1.0), AssumptionError, "step_le_iterates"),
    (_evaluator(bst14.THM_II_4, "eta_lipschitz_sigma"),
     dict(step=0, n=10, lipschitz=1.0, dimension=2, diameter=1.0, sigma=1.0), ParameterError, "step"),
    (_evaluator(bst14.THM_II_4, "eta_lipschitz_sigma"),
     dict(step=1, n=10, lipschitz=1.0, dimension=0, diameter=1.0, sigma=1.0), ParameterError, "dimension"),
    (_evaluator(bst14.THM_II_4, "eta_strongly_convex"), dict(step=1, n=10, strong_convexity=-1.0), ParameterError,
     "strong_convexity"),
    (_evaluator(bst14.ALG_2, "coefficient"), dict(epsilon=1.0, lipschitz=1.0, diameter=float("inf")), ParameterError,
     "diameter"),
    (_evaluator(bst14.ALG_2, "coefficient"), dict(epsilon="1", lipschitz=1.0, diameter=1.0), TypeError, "epsilon"),
    (_evaluator(bst14.THM_III_2, "expected_risk_bound"),
     dict(epsilon=1.0, lipschitz=1.0, diameter=1.0, dimension=1.5), TypeError, "dimension"),
    (_evaluator(bst14.THM_III_2, "tail_radius"),
     dict(epsilon=1.0, lipschitz=1.0, diameter=1.0, dimension=1, tail=-1.0), ParameterError, "tail"),
    (_evaluator(bst14.ALG_3, "noise_rate_with_tolerance"),
     dict(epsilon=1.0, lipschitz=1.0, n=10, strong_convexity=1.0, solver_tolerance=-1e-3), PrivacyParameterError,
     "solver_tolerance"),
    (_evaluator(bst14.ALG_3, "noise_rate"), dict(epsilon=1.0, lipschitz=1.0, n=0, strong_convexity=1.0),
     ParameterError, "n"),
    (_evaluator(bst14.ALG_3, "radius"),
     dict(epsilon=1.0, lipschitz=1.0, n=10, strong_convexity=1.0, dimension=2, zeta=0.0), ParameterError, "zeta"),
    (bst14.localization_parameters, dict(epsilon=1.0, lipschitz=1.0, n=1, strong_convexity=1.0, dimension=2),
     ParameterError, "n"),
    (bst14.fallback_log_ratio_bound, dict(epsilon=1.0, n=10, retries=10, volume_ratio=0.5), ParameterError,
     "volume_ratio"),
    (bst14.fallback_log_ratio_bound, dict(epsilon=1.0, n=10, retries=0, volume_ratio=2.0), ParameterError,
     "retries"),
    (bst14.calibration_table, dict(ns=(1,)), ParameterError, "n"),
]


@pytest.mark.parametrize("fn, kwargs, error, match", BAD_INPUT,
                         ids=[f"{f.__name__}-{i}" for i, (f, *_ ) in enumerate(BAD_INPUT)])
def test_bad_input_is_rejected_with_a_clear_error(fn, kwargs, error, match):
    with pytest.raises(error, match=match):
        fn(**kwargs)


def test_functions_are_keyword_only():
    with pytest.raises(TypeError):
        bst14.noise_gd_sigma(1.0, 10, 1.0, 1e-5)  # type: ignore[misc]
    with pytest.raises(TypeError):
        bst14.localization_parameters(1.0, 1.0, 10, 1.0, 2)  # type: ignore[misc]
