"""reference.wang19.common: start points, Gaussian widths and l1 diameters from the records, the trajectory.
"""

from __future__ import annotations

import numpy as np
import pytest

from reference.domains import Box, L1Ball, L2Ball, Polytope, Simplex
from reference.wang19 import common
from spec import wang19 as spec
from spec.errors import ParameterError


@pytest.mark.parametrize("domain", [L2Ball(radius=0.7, dim=5), L1Ball(radius=1.5, dim=6), Simplex(dim=4),
                                    Simplex(dim=3, scale=2.0), Box(lower=-np.ones(3), upper=np.ones(3))])
def test_widths_are_the_records_and_match_the_domains(domain):
    width = common.gaussian_width(domain)
    exact, err = domain.gaussian_width()  # closed forms / quadrature of reference.domains
    assert width == pytest.approx(exact, rel=1e-9, abs=10 * err)


def test_width_formulas_are_evaluated_from_def_8():
    assert common.gaussian_width(L2Ball(radius=1.0, dim=9)) == spec.DEF_8.evaluate("width_l2_ball", diameter=2.0,
                                                                                     dimension=9)
    assert common.gaussian_width(L1Ball(radius=0.5, dim=9)) == spec.DEF_8.evaluate("width_l1_ball", l1_diameter=1.0,
                                                                                     dimension=9)
    # a box that is not a cube: the formula at the l-infinity diameter is an upper bound
    box = Box(lower=[-1.0, 0.0], upper=[1.0, 0.5])
    assert common.gaussian_width(box) >= box.gaussian_width()[0]
    with pytest.raises(ParameterError, match="def_8"):
        common.gaussian_width(Polytope(vertices=np.eye(3)))


def test_l1_diameters():
    assert common.l1_diameter(L1Ball(radius=0.3, dim=4)) == 0.6
    assert common.l1_diameter(Simplex(dim=4, scale=2.0)) == 4.0
    with pytest.raises(ParameterError, match="L1Ball or a Simplex"):
        common.l1_diameter(L2Ball(radius=1.0, dim=2))


def test_start_point():
    ball = L2Ball(radius=1.0, dim=2)
    assert np.array_equal(common.start_point(ball, None, runs=3), np.zeros((3, 2)))
    assert np.array_equal(common.start_point(ball, [0.1, 0.2], runs=2), [[0.1, 0.2]] * 2)
    with pytest.raises(ParameterError, match="must lie in the domain"):
        common.start_point(ball, [2.0, 0.0], runs=1)
    with pytest.raises(ParameterError, match="shape"):
        common.start_point(ball, [0.0, 0.0, 0.0], runs=1)
    with pytest.raises(ParameterError, match="finite"):
        common.start_point(ball, [np.nan, 0.0], runs=1)


def test_trajectory_keeps_x_R_and_x_R_plus_1():
    x1 = np.zeros((3, 1))
    index = np.array([1, 2, 3])
    track = common.Trajectory(x1, index, 3, True, "g")
    for t in range(1, 4):
        track.step(t, np.full((3, 1), -t), np.full((3, 1), float(t)))
    track.check_complete()
    assert track.x[:, 0].tolist() == [0.0, 1.0, 2.0]  # x_1, x_2, x_3
    assert track.x_next[:, 0].tolist() == [1.0, 2.0, 3.0]
    assert track.stacked()["g"].shape == (3, 3, 1)
    seen = []
    track = common.Trajectory(x1, index, 3, lambda t, state: seen.append((t, sorted(state))), "g")
    track.step(1, np.zeros((3, 1)), np.ones((3, 1)))
    assert seen == [(1, ["g", "x"])] and track.stacked() is None


def test_bad_arguments():
    with pytest.raises(TypeError, match="transcript"):
        common.check_transcript("yes")
    with pytest.raises(ParameterError, match="steps"):
        common.check_steps("many", ("paper",))
    with pytest.raises(ParameterError, match="steps"):
        common.check_steps(0, ("paper",))
