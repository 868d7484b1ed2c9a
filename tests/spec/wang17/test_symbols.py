"""spec.wang17 as a package: every record registered, conventions, shared symbols and expressions."""

from __future__ import annotations

import sympy as sp

import spec
from spec.record import LossForm, Neighbouring
from spec.vocabulary import VOCABULARY
from spec.wang17 import symbols as sy
import spec.wang17 as wang17

EXPECTED_IDS = {
    "wang17.def_3_4", "wang17.thm_3_1", "wang17.full_batch_calibration", "wang17.svrg_step_privacy",
    "wang17.alg_1", "wang17.thm_4_1", "wang17.thm_4_2", "wang17.alg_2", "wang17.thm_4_3", "wang17.thm_4_4",
    "wang17.alg_3", "wang17.lemma_5_1", "wang17.lemma_5_2", "wang17.thm_5_3", "wang17.thm_5_4",
    "wang17.alg_4", "wang17.thm_6_1", "wang17.thm_6_2", "wang17.thm_6_3",
}


def test_every_record_is_registered():
    assert {r.id for r in wang17.RECORDS} == EXPECTED_IDS
    assert len(wang17.RECORDS) == len(EXPECTED_IDS)
    assert {i for i in spec.ids() if i.startswith("wang17.")} == EXPECTED_IDS
    assert "wang17" in spec.paper_packages()


def test_conventions():
    for r in wang17.RECORDS:
        assert r.citation.paper == "wang17"
        assert r.id in str(r) and r"\begin{description}" in r.to_latex()
        if r.id == "wang17.thm_3_1":  # as cited: Abadi et al.'s relation
            assert r.conventions.neighbouring is Neighbouring.ADD_REMOVE_ONE
            continue
        assert r.conventions.neighbouring is Neighbouring.REPLACE_ONE
        if r.privacy is not None:
            assert r.privacy.neighbouring is Neighbouring.REPLACE_ONE
        if r.id in ("wang17.lemma_5_1", "wang17.lemma_5_2", "wang17.def_3_4"):
            assert r.conventions.loss is LossForm.NOT_APPLICABLE
        else:
            assert r.conventions.loss is LossForm.AVERAGE
    algorithms = [r for r in wang17.RECORDS if r.id.startswith("wang17.alg_")]
    assert [r.id for r in algorithms] == ["wang17.alg_1", "wang17.alg_2", "wang17.alg_3", "wang17.alg_4"]
    assert all(r.pseudocode for r in algorithms)


def test_shared_expressions():
    assert sy.FULL_GRADIENT_SENSITIVITY == 2 * sy.G / sy.n
    assert sy.DIFFERENCE_SENSITIVITY == 4 * sy.G
    assert sy.SAMPLING_RATE == 1 / sy.n
    count = sp.Symbol("K", positive=True)
    assert sp.simplify(sy.implied_constant(count).subs(sy.sigma, sp.sqrt(sy.paper_sigma_squared(count))) - sy.c) == 0
    # the canonical names are in the vocabulary with the right integrality
    for s in (sy.S_EPOCHS, sy.S_EPOCH_LENGTH, sy.S_STEPS, sy.S_STEP, sy.S_EPOCH, sy.S_N, sy.S_DIMENSION):
        assert VOCABULARY[s.name].integer and s.is_integer
    for s in (sy.S_NOISE_CONSTANT, sy.S_REGIME_CONSTANT, sy.S_GAUSSIAN_WIDTH, sy.S_INITIAL_GAP, sy.S_PL,
              sy.S_INITIAL_DIVERGENCE):
        assert not VOCABULARY[s.name].integer and not s.is_integer
    # parameters that set the number of composed steps or the noise are privacy parameters
    assert all(VOCABULARY[name].privacy for name in ("epochs", "epoch_length", "noise_constant",
                                                      "regime_constant", "split"))
