"""The canonical parameter names (spec/vocabulary.py): lookup and the canonical signature of a function."""

from __future__ import annotations

import pytest

from spec.vocabulary import VOCABULARY, canonical_parameters, names, term


def test_term_lookup_and_suggestions():
    assert term("lipschitz").name == "lipschitz"
    with pytest.raises(KeyError, match="did you mean strong_convexity"):
        term("strong_convexty")
    assert names() == sorted(VOCABULARY)


def test_canonical_parameters_required_optional_and_ignored():
    def f(delta, *, sigma, steps=1, orders=None, **kwargs):
        return 0.0

    assert canonical_parameters(f) == (("delta", "sigma"), {"steps": 1})


def test_canonical_parameters_rejects_what_a_caller_cannot_pass():
    def private_required(*, sigma, noise_level):
        return 0.0

    def positional_only(sigma, /, delta):
        return 0.0

    with pytest.raises(ValueError, match="'noise_level' has no default"):
        canonical_parameters(private_required)
    with pytest.raises(ValueError, match="'sigma' has no default"):
        canonical_parameters(positional_only)


def test_every_registered_accountant_and_calibration_is_callable_by_canonical_names():
    import spec

    for record in spec.records():
        claim = record.privacy
        if claim is not None and claim.accountant is not None:
            canonical_parameters(claim.accountant)
        for c in record.calibrations():
            if c.function is not None:
                canonical_parameters(c.function)
