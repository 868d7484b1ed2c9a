"""reference.stationarity: the gradient mapping and the Frank-Wolfe gap against their definitions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.domains import Box, L1Ball, L2Ball, Rp, Simplex
from reference.losses import L1Regulariser
from reference.proximal import prox
from reference.stationarity import frank_wolfe_gap, gradient_mapping
from spec.errors import ParameterError


def test_mapping_is_the_gradient_without_constraint_or_regulariser():
    g = np.array([[0.3, -1.2, 2.0]])
    assert np.allclose(gradient_mapping(np.zeros((1, 3)), g, step=0.7, domain=Rp(dim=3)), g)


def test_mapping_is_the_definition():
    rng = np.random.default_rng(1)
    domain, reg = L2Ball(radius=1.0, dim=3), L1Regulariser(strength=0.2)
    x = domain.project(rng.normal(size=(5, 3)))
    g = rng.normal(size=(5, 3))
    got = gradient_mapping(x, g, step=0.4, domain=domain, regulariser=reg)
    assert np.allclose(got, (x - prox(x - 0.4 * g, step=0.4, domain=domain, regulariser=reg)) / 0.4)


def test_mapping_vanishes_at_a_constrained_stationary_point():
    # F(x) = <c, x> on the unit l2 ball: stationary at -c/||c||, where the mapping is 0 for every step
    c = np.array([0.6, -0.8])
    x = -c / np.linalg.norm(c)
    for step in (0.1, 1.0, 10.0):
        assert np.allclose(gradient_mapping(x, c, step=step, domain=L2Ball(radius=1.0, dim=2)), 0.0, atol=1e-14)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000))
def test_gap_closed_forms_against_the_vertices(seed):
    """The gap is max over the vertices of <v - x, -g> (the linear function's maximum over a polytope is at
    a vertex) and the closed forms of the record's notes."""
    rng = np.random.default_rng(seed)
    p = 4
    g = rng.normal(size=p)
    cases = {
        L1Ball(radius=0.7, dim=p): np.concatenate([0.7 * np.eye(p), -0.7 * np.eye(p)]),
        Simplex(dim=p): np.eye(p),
        Box(lower=-np.ones(p), upper=np.ones(p)):
            np.array(np.meshgrid(*[[-1.0, 1.0]] * p)).reshape(p, -1).T,
    }
    for domain, vertices in cases.items():
        x = domain.project(rng.normal(size=p))
        want = np.max((vertices - x) @ (-g))
        assert np.isclose(frank_wolfe_gap(x, g, domain=domain), want, atol=1e-12)
        assert frank_wolfe_gap(x, g, domain=domain) >= -1e-12
    ball = L2Ball(radius=1.3, dim=p)
    x = ball.project(rng.normal(size=p))
    assert np.isclose(frank_wolfe_gap(x, g, domain=ball), 1.3 * np.linalg.norm(g) + g @ x)


def test_gap_is_zero_exactly_at_the_stationary_point():
    c = np.array([0.0, 2.0, -1.0])
    ball = L1Ball(radius=1.0, dim=3)
    assert frank_wolfe_gap(ball.lmo(c), c, domain=ball) == 0.0
    assert frank_wolfe_gap(np.zeros(3), c, domain=ball) == 2.0


def test_bad_input():
    with pytest.raises(TypeError):
        frank_wolfe_gap([0.0], [1.0], domain=None)
    with pytest.raises(ParameterError, match="step"):
        gradient_mapping([0.0], [1.0], step=-1, domain=Rp(dim=1))
