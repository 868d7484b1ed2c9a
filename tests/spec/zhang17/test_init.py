"""spec.zhang17 (package): the records it registers, their conventions, and what the reference needs."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import spec
from spec import zhang17
from spec.errors import AssumptionError, PrivacyParameterError
from spec.record import LossForm, Neighbouring

EXPECTED_IDS = {
    "zhang17.assumption_1", "zhang17.def_1", "zhang17.def_2", "zhang17.lemma_1", "zhang17.lemma_2",
    "zhang17.lemma_3", "zhang17.alg_1", "zhang17.thm_1", "zhang17.thm_2", "zhang17.thm_3",
    "zhang17.excess_risk_strongly_convex", "zhang17.excess_risk_convex", "zhang17.alg_2", "zhang17.thm_4",
    "zhang17.thm_5", "zhang17.lemma_4", "zhang17.thm_6", "zhang17.table_1",
}


def test_every_record_is_registered():
    registered = {rid for rid in spec.ids() if rid.startswith("zhang17.")}
    assert registered == EXPECTED_IDS == {r.id for r in zhang17.RECORDS}
    for record in zhang17.RECORDS:
        assert spec.get(record.id) is record
        assert record.citation.paper == "zhang17"
        assert record.conventions.neighbouring is Neighbouring.REPLACE_ONE
        assert record.conventions.loss in (LossForm.AVERAGE, LossForm.NOT_APPLICABLE)


#: Formula names the reference evaluates (package docstring, "What the reference evaluates").
REFERENCE_FORMULAS = {
    "THM_2": ("learning_rate", "sensitivity", "sensitivity_tight", "steps_pure", "steps_approx"),
    "THM_3": ("learning_rate", "sensitivity", "sensitivity_tight", "steps_pure", "steps_approx"),
    "ALG_1": ("noise_rate", "noise_gamma_shape", "noise_gamma_scale", "sigma", "gradient_evaluations"),
    "THM_5": ("learning_rate", "round_probability"),
    "ALG_2": ("rounds", "sigma"),
}


def test_reference_formulas_exist_and_are_documented():
    doc = zhang17.__doc__
    for name, formulas in REFERENCE_FORMULAS.items():
        record = getattr(zhang17, name)
        for f in formulas:
            record.formula(f)
            if f not in ("sensitivity_tight", "gradient_evaluations", "round_probability"):
                assert f"``{f}``" in doc, f


def test_algorithm_1_end_to_end_from_the_records():
    """Strongly convex, both modes: every constant of Algorithm 1 comes from a record."""
    v = dict(lipschitz=1.0, smoothness=1.25, strong_convexity=0.25, n=5000, dimension=10, epsilon=0.5,
             delta=1e-6, minimiser_norm=4.0)
    eta = zhang17.THM_2.evaluate("learning_rate", smoothness=1.25, strong_convexity=0.25)
    assert eta == pytest.approx(1 / 1.5)
    sens = zhang17.THM_2.evaluate("sensitivity", lipschitz=1.0, smoothness=1.25, strong_convexity=0.25, n=5000)
    zhang17.LEMMA_3.check(learning_rate=eta, strong_convexity=0.25, smoothness=1.25)
    T = zhang17.THM_2.evaluate("steps_approx", **v)
    sigma = zhang17.ALG_1.evaluate("sigma", epsilon=0.5, delta=1e-6, sensitivity=sens)
    assert sigma == zhang17.gaussian_sigma(epsilon=0.5, delta=1e-6, sensitivity=sens)
    rate = zhang17.ALG_1.evaluate("noise_rate", epsilon=0.5, sensitivity=sens)
    assert rate <= 0.5 / sens
    assert T >= 1 and zhang17.ALG_1.evaluate("gradient_evaluations", n=5000, steps=T) == 5000 * T
    # convex: the sensitivity is evaluated at the T that is run
    T3 = zhang17.THM_3.evaluate("steps_pure", **{k: x for k, x in v.items() if k != "strong_convexity"})
    s3 = zhang17.THM_3.evaluate("sensitivity", lipschitz=1.0, smoothness=1.25, n=5000, steps=T3)
    assert s3 == pytest.approx(3 * T3 / (1.25 * 5000), rel=1e-15)


def test_algorithm_2_from_the_records():
    v = dict(lipschitz=1.0, smoothness=1.0, dimension=5, n=100, epsilon=0.5, delta=1e-5, initial_gap=0.6931)
    eta = zhang17.THM_5.evaluate("learning_rate", **v)
    zhang17.ALG_2.check(learning_rate=eta, smoothness=1.0, delta=1e-5)
    assert zhang17.ALG_2.evaluate("rounds", n=100) == 10_000
    assert zhang17.THM_5.evaluate("round_probability", n=100) == pytest.approx(1e-4)
    with pytest.raises(AssumptionError, match="epsilon_le_1"):
        zhang17.THM_4.check(epsilon=2.0)


def test_bad_input_is_rejected_with_a_clear_error():
    with pytest.raises(AssumptionError, match=r"delta_lt_1.*delta=1.5"):
        zhang17.THM_1.evaluate("sigma", epsilon=1.0, delta=1.5, sensitivity=1.0)
    with pytest.raises(PrivacyParameterError, match=r"epsilon \(-1.0\) must be > 0"):
        zhang17.THM_1.evaluate("sigma", epsilon=-1.0, delta=0.5, sensitivity=1.0)
    with pytest.raises(TypeError, match="canonical names"):
        zhang17.THM_2.evaluate("learning_rate", mu=1.0, beta=2.0)
    with pytest.raises(AssumptionError, match="mu_le_beta"):
        zhang17.THM_2.evaluate("learning_rate", strong_convexity=2.0, smoothness=1.0)


def test_public_functions_are_keyword_only():
    for fn in (zhang17.gaussian_sigma, zhang17.output_noise_profile, zhang17.certified_epsilon,
               zhang17.certified_epsilon_grid):
        params = inspect.signature(fn).parameters.values()
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), fn.__name__


def test_modules_are_small():
    root = Path(zhang17.__file__).parent
    for path in root.glob("*.py"):
        assert len(path.read_text().splitlines()) <= 800, path.name
