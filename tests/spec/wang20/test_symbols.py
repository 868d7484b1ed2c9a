"""spec.wang20.symbols and the package: one symbol per meaning, the records registered in order."""

from __future__ import annotations

import sympy as sp

import spec
from spec.wang20 import RECORDS
from spec.wang20 import symbols as sy
from spec.vocabulary import VOCABULARY


def test_reused_letters_are_distinct_symbols():
    # wang20 writes beta, s, m and epsilon~ for several things; each meaning is its own symbol
    assert sy.beta != sy.beta_cg
    assert sy.m_trim != sy.m_sub
    assert sy.m_trim.is_nonnegative and sy.m_trim.is_integer and not sy.m_trim.is_positive  # m = 0 allowed
    assert sy.m_sub.is_positive and sy.m_sub.is_integer
    assert sy.S_TRIM.name == "trim" and sy.S_SUBSETS.name == "subsets"
    assert sy.S_BETA.name == "smoothness" and sy.S_BETA_CG.name == "noise_precision"
    assert sy.S_ALPHA.name == "strong_convexity" and sy.S_DIAM.name == "diameter"
    names = [value.name for value in vars(sy).values() if isinstance(value, spec.Symbol)]
    assert len(names) == len(set(names))
    assert all(name in VOCABULARY for name in names)


def test_assumptions_decide():
    n, m = sy.n, sy.m_trim
    assert sy.TRIM_LT_HALF.holds({n: 5, m: 2}) and not sy.TRIM_LT_HALF.holds({n: 4, m: 2})
    assert sy.MEAN_RANGE.holds({sy.lo: -1.0, sy.hi: 1.0}) and not sy.MEAN_RANGE.holds({sy.lo: 1.0, sy.hi: 1.0})
    assert sy.A_LOG == sp.log(1 / sy.delta)


def test_records_registered_in_the_papers_order():
    ids = [r.id for r in RECORDS]
    assert ids == [
        "wang20.thm_1", "wang20.alg_1", "wang20.lemma_1", "wang20.thm_2", "wang20.thm_3", "wang20.alg_2",
        "wang20.alg_3", "wang20.thm_4", "wang20.lemma_2", "wang20.thm_5", "wang20.eq_9", "wang20.lemma_3",
        "wang20.thm_6", "wang20.alg_4", "wang20.thm_7", "wang20.thm_8",
    ]
    for r in RECORDS:
        assert spec.get(r.id) is r and r.citation.paper == "wang20"
    assert "wang20" in spec.paper_packages()
