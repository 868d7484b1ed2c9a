"""reference.proximal: the closed forms against the certified solver and against the optimality conditions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import proximal
from reference.domains import Box, L1Ball, L2Ball, Polytope, Rp, Simplex
from reference.losses import L1Regulariser, L2Regulariser
from spec.errors import ParameterError

REGULARISERS = {
    "none": None,
    "l1": L1Regulariser(strength=0.7),
    "l2": L2Regulariser(strength=1.3),
}


def _objective(u, v, step, reg):
    r = 0.0 if reg is None else float(reg.value(u))
    return step * r + 0.5 * float(np.sum((u - v) ** 2))


def _domains(p):
    return {
        "l2": L2Ball(radius=0.8, dim=p),
        "l1": L1Ball(radius=0.9, dim=p),
        "box": Box(lower=np.full(p, -0.3), upper=np.linspace(0.2, 0.9, p)),
        "simplex": Simplex(dim=p),
    }


@pytest.mark.parametrize("domain_name", ["l2", "l1", "box", "simplex"])
@pytest.mark.parametrize("reg_name", ["none", "l1", "l2"])
def test_closed_forms_agree_with_the_certified_solver(domain_name, reg_name):
    rng = np.random.default_rng(7)
    p = 4
    domain = _domains(p)[domain_name]
    reg = REGULARISERS[reg_name]
    assert proximal.closed_form(domain, reg)
    for _ in range(3):
        v = 1.5 * rng.normal(size=p)
        step = float(rng.uniform(0.1, 2.0))
        closed = proximal.prox(v, step=step, domain=domain, regulariser=reg)
        if reg is None:
            assert np.allclose(closed, domain.project(v), atol=1e-12)
            continue
        numeric, distance = proximal._numerical(v[None], step, domain, reg, proximal.DEFAULT_TOLERANCE)
        assert distance <= np.sqrt(2 * proximal.DEFAULT_TOLERANCE) * 1.0001
        assert np.linalg.norm(closed - numeric[0]) <= distance + 1e-9
        assert _objective(closed, v, step, reg) <= _objective(numeric[0], v, step, reg) + 1e-12


def test_rp_closed_forms():
    v = np.array([[1.0, -0.2, 0.05, -3.0]])
    assert np.allclose(proximal.prox(v, step=0.5, domain=Rp(dim=4), regulariser=L1Regulariser(strength=0.2)),
                       [[0.9, -0.1, 0.0, -2.9]])
    assert np.allclose(proximal.prox(v, step=0.5, domain=Rp(dim=4), regulariser=L2Regulariser(strength=2.0)), v / 2)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["l2", "l1", "box", "simplex"]), st.sampled_from(["none", "l1", "l2"]))
def test_prox_beats_every_feasible_point(seed, domain_name, reg_name):
    """The prox minimises step r(u) + ||u - v||^2/2 over C: no random feasible point does better."""
    rng = np.random.default_rng(seed)
    p = 3
    domain = _domains(p)[domain_name]
    reg = REGULARISERS[reg_name]
    v = 2 * rng.normal(size=p)
    step = float(rng.uniform(0.05, 3.0))
    u = proximal.prox(v, step=step, domain=domain, regulariser=reg)
    assert domain.contains(u)
    best = _objective(u, v, step, reg)
    others = domain.project(u + 0.3 * rng.normal(size=(200, p)))
    for w in others:
        assert best <= _objective(w, v, step, reg) + 1e-12


def test_numerical_prox_on_an_off_centre_ball():
    rng = np.random.default_rng(3)
    reg = L1Regulariser(strength=0.4)
    assert not proximal.closed_form(Polytope(vertices=np.eye(2)), reg)
    for domain in (L2Ball(radius=1.0, dim=2, center=[0.5, -0.2]),):
        assert not proximal.closed_form(domain, reg)
        v = rng.normal(size=(2, 2))
        u, distance = proximal.prox(v, step=0.8, domain=domain, regulariser=reg, certificate=True)
        assert distance <= np.sqrt(2 * proximal.DEFAULT_TOLERANCE) * 1.0001
        # brute force on a fine grid of feasible points
        g = np.stack(np.meshgrid(np.linspace(-1.5, 1.5, 601), np.linspace(-1.5, 1.5, 601)), -1).reshape(-1, 2)
        g = g[domain.contains(g)]
        for row, point in zip(v, u):
            vals = 0.8 * 0.4 * np.abs(g).sum(1) + 0.5 * ((g - row) ** 2).sum(1)
            assert _objective(point, row, 0.8, reg) <= vals.min() + 1e-12
            assert np.linalg.norm(g[vals.argmin()] - point) < 0.02


def test_bad_input_is_rejected():
    with pytest.raises(ParameterError, match="step"):
        proximal.prox([1.0], step=0.0, domain=Rp(dim=1))
    with pytest.raises(TypeError, match="domain"):
        proximal.prox([1.0], step=1.0, domain="ball")
    with pytest.raises(TypeError, match="regulariser"):
        proximal.prox([1.0], step=1.0, domain=Rp(dim=1), regulariser="l1")
    with pytest.raises(ParameterError, match="shape"):
        proximal.prox([1.0, 2.0], step=1.0, domain=Rp(dim=3))
    with pytest.raises(ParameterError, match="bounded"):
        proximal._numerical(np.ones((1, 2)), 1.0, Rp(dim=2), L1Regulariser(strength=1.0), 1e-12)
