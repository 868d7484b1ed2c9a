"""Convex domains in R^p: projection, membership, Minkowski gauge, support function, linear
minimisation oracle, diameters, bounding cube and Gaussian width.

Every domain implements the interface of :class:`Domain`. Point arguments are batched over
leading axes: ``x`` of shape ``(..., p)`` gives results of shape ``(..., p)`` (points) or
``(...)`` (scalars per point).

=====================  ======================================================================
method                 meaning
=====================  ======================================================================
``project(x)``         Euclidean projection argmin_{z in C} ||z - x||_2
``contains(x, tol=)``  ``dist(x, C) <= tol`` (see each class for how the distance is computed)
``gauge(x, center=)``  Minkowski functional inf{r > 0 : x in c + r (C - c)} (+inf if none)
``support(y)``         sup_{x in C} <x, y>  (``dual_norm`` where C is symmetric about 0)
``lmo(g)``             argmin_{x in C} <g, x>, ties broken deterministically
``diameter``           l2 diameter sup_{x, z in C} ||x - z||_2
``max_norm``           sup_{x in C} ||x||_2 (the "domain radius" losses need)
``coordinate_bounds``  (min_{x in C} x_i, max_{x in C} x_i) for every coordinate
``linf_diameter``      the l-infinity diameter tau = max_i (max x_i - min x_i)
``bounding_box()``     the bst14 enclosing cube A: edge tau, centred on the coordinate ranges
``gaussian_width()``   (E sup_{x in C} <g, x>, its standard error), g ~ N(0, I_p)
``interior_point()``   the default gauge centre (a point of the (relative) interior)
=====================  ======================================================================

The sets: :class:`L2Ball`, :class:`L1Ball`, :class:`Box` and :class:`Cube`, :class:`Simplex`,
:class:`Polytope` (convex hull of points), :class:`Rp` (the whole space) and
:class:`Intersection` (e.g. bst14's localised set ``C_0 = C ∩ {||theta - theta_0|| <= r}``).

Exactness. Projections, gauges, supports and LMOs are closed forms (exact up to floating
rounding) for the balls, boxes, the simplex and R^p. :class:`Polytope` projects with Wolfe's
minimum-norm-point algorithm (an exact active-set method, terminated by a Frank-Wolfe gap test);
its support function and LMO are exact. :class:`Intersection` projects by Dykstra's algorithm
and minimises linear functions by a consensus ADMM whose result carries a duality certificate;
for one :class:`L2Ball` and one exactly projectable set (bst14's ``C_0``) both are exact
one-dimensional searches on the ball's Lagrange multiplier instead. Its ``support`` is a
certified upper bound. :attr:`Domain.exact_projection` says which projections are closed
forms. Algorithms that need certified bounds (the solver) use only the exact operations or
the certified ones.

Modules: :mod:`~reference.domains.base` (:class:`Domain`), :mod:`~reference.domains.balls`,
:mod:`~reference.domains.boxes`, :mod:`~reference.domains.simplex`,
:mod:`~reference.domains.polytope`, :mod:`~reference.domains.euclidean`,
:mod:`~reference.domains.intersection`.
"""

from __future__ import annotations

from reference.domains.balls import L1Ball, L2Ball
from reference.domains.base import DEFAULT_RELATIVE_TOL, Domain
from reference.domains.boxes import Box, Cube
from reference.domains.euclidean import Rp
from reference.domains.intersection import Intersection
from reference.domains.polytope import Polytope
from reference.domains.simplex import Simplex

__all__ = [
    "Domain",
    "L2Ball",
    "L1Ball",
    "Box",
    "Cube",
    "Simplex",
    "Polytope",
    "Rp",
    "Intersection",
    "DEFAULT_RELATIVE_TOL",
]
