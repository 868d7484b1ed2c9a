"""Intersections of convex sets (Dykstra projection, certified ADMM linear minimisation; exact searches for a ball and one exactly projectable set).
"""

from __future__ import annotations

import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import l2_norm as _norm
from reference.arrays import points as _points
from reference.arrays import vector as _vector
from reference.domains.balls import L2Ball
from reference.domains.base import Domain
from reference.domains.euclidean import Rp
from spec import validate
from spec.errors import ParameterError


class Intersection(Domain):
    """The intersection of convex domains of the same dimension, e.g. bst14's
    ``C_0 = C ∩ {theta : ||theta - theta_0||_2 <= r}`` = ``Intersection(C, L2Ball(radius=r,
    dim=p, center=theta_0))``.

    Parameters
    ----------
    *domains : Domain
        At least one; all of the same dimension.
    center : array_like, shape (p,), optional
        A common point, used as the gauge centre and to restore exact feasibility (radially).
        It must lie in every domain; the gauge is finite everywhere only if it is interior to
        all of them. Default: the first candidate interior to every member (exact test: the
        rays along +-e_i stay inside), else the first lying in every member, among the
        members' interior points, their centroid and points on the segments between two of
        them (weights 1/2, 2^-k, 1 - 2^-k for k = 2..10);
        :class:`~spec.errors.ParameterError` if there is none.
    tol : float, optional
        Accuracy target of the iterative operations (default 1e-14, relative to the size of
        the set): the ADMM linear minimisation stops when its duality gap is below ``tol ||g||
        (1 + diameter)``; Dykstra's projection stops when a full sweep moves the point and
        every increment by less than ``100 tol (1 + radius)``. The intersection of one
        :class:`L2Ball` with one domain that has an exact projection (bst14's ``C_0``) uses
        exact one-dimensional multiplier searches instead (see ``_pair_project`` and
        ``_pair_lmo``), accurate to rounding.

    Notes
    -----
    * ``contains``: all members contain x (each within ``tol``) -- a superset of the
      ``tol``-neighbourhood of the intersection.
    * ``project``: Dykstra's alternating projections (converges to the projection); for a
      pair (D, L2Ball) the exact multiplier search.
    * ``gauge`` about the common centre: the max of the members' gauges (exact, since the ray
      stays in the intersection exactly as long as it stays in every member).
    * ``lmo`` / ``support``: consensus ADMM on min <g, x> s.t. x in every member, stopped by a
      duality gap: for any split ``sum_k w_k = -g``, ``min <g, x> >= -sum_k support_k(w_k)``.
      On degenerate intersections (nearly coincident constraints) the target may not be met
      within 20 000 iterations; the best certified pair is returned (the bound stays valid).
      ``lmo`` returns a feasible point (radially pulled into the set about the centre) within
      the gap of optimal; ``support`` returns the certified *upper* bound (true value <= it <=
      true value + gap), which is the safe direction for Frank-Wolfe gaps and bounding boxes.
      For a pair (D, L2Ball) the same certificate comes from Lagrangian duality on the ball
      constraint, to rounding. :meth:`lmo_with_gap` returns the point and its certified gap.
    * ``diameter`` and ``radius``: **upper bounds**, the least over the members.
    * ``coordinate_bounds``: certified outer bounds from ``support``.
    """

    exact_projection = False

    def __init__(self, *domains: Domain, center: ArrayLike | None = None, tol: float = 1e-14) -> None:
        if len(domains) == 0:
            raise ParameterError("domains (none given) must contain at least one Domain")
        for k, dom in enumerate(domains):
            if not isinstance(dom, Domain):
                raise TypeError(f"domains[{k}] ({type(dom).__name__}) must be a Domain")
        dims = {dom.dim for dom in domains}
        if len(dims) != 1:
            raise ParameterError(f"domains (dimensions {sorted(dims)}) must all have the same dimension")
        super().__init__(domains[0].dim)
        self._members = tuple(domains)
        self._tol = validate.positive("tol", tol)
        if center is None:
            self._c = self._choose_center()
        else:
            c = _vector("center", center, self.dim)
            for k, dom in enumerate(self._members):
                if not bool(dom._contains(c, dom._default_tol())):
                    raise ParameterError(f"center ({c.tolist()}) must lie in every domain; not in domains[{k}] {dom!r}")
            self._c = c

    def _choose_center(self) -> np.ndarray:
        points = [dom.interior_point() for dom in self._members]

        def candidates():
            yield from points
            yield np.mean(points, axis=0)
            # points on the segments between two members' interior points, at weights 1/2, 1/4,
            # 3/4, ..., 2^-10, 1 - 2^-10: e.g. for bst14's C ∩ B(theta_0, r) with theta_0 on the
            # boundary of C, a point slightly inside C from theta_0 is interior to both
            weights = [0.5] + [w for k in range(2, 11) for w in (2.0**-k, 1 - 2.0**-k)]
            for i in range(len(points)):
                for j in range(i + 1, len(points)):
                    for w in weights:
                        yield (1 - w) * points[i] + w * points[j]

        # the first candidate interior to every member, else the first one in every member
        # (built lazily: in the common case one of the first candidates qualifies, and bst14's
        # Algorithm 4 builds one intersection per run)
        first_inside = None
        for c in candidates():
            if not all(bool(dom._contains(c, dom._default_tol())) for dom in self._members):
                continue
            if all(dom._is_interior(c) for dom in self._members):
                return c
            if first_inside is None:
                first_inside = c
        if first_inside is not None:
            return first_inside
        raise ParameterError(
            "center (None) must be given: no member's interior point (or midpoint of two) lies in every domain"
        )

    def __repr__(self) -> str:
        return "Intersection(" + ", ".join(repr(d) for d in self._members) + ")"

    @property
    def domains(self) -> tuple[Domain, ...]:
        return self._members

    @property
    def center(self) -> np.ndarray:
        return self._c.copy()

    @property
    def diameter(self) -> float:
        """Upper bound: the least member diameter."""
        return min(dom.diameter for dom in self._members)

    @property
    def max_norm(self) -> float:
        """Upper bound: the least member radius."""
        return min(dom.max_norm for dom in self._members)

    @property
    def symmetric(self) -> bool:
        return all(dom.symmetric for dom in self._members)

    def interior_point(self) -> np.ndarray:
        return self._c.copy()

    def _contains(self, x, tol):
        out = np.ones(x.shape[:-1], dtype=bool)
        for dom in self._members:
            out &= dom._contains(x, tol)
        return out

    def _gauge(self, d, c):
        return np.max([dom._gauge(d, c) for dom in self._members], axis=0)

    def make_feasible(self, x: np.ndarray) -> np.ndarray:
        """Pull x radially towards the centre until it is in every member (exact feasibility
        up to rounding; the gauge is exact)."""
        g = self._gauge(x - self._c, self._c)
        factor = np.where(g > 1, 1.0 / np.where(g > 1, g, 1.0), 1.0)[..., None]
        return self._c + (x - self._c) * factor

    # -- the pair (D, L2Ball): exact one-dimensional multiplier methods ------------------

    def _pair(self):
        """(D, ball) when the intersection is one L2Ball and one domain with an exact projection."""
        if len(self._members) != 2:
            return None
        a, b = self._members
        for ball, other in ((a, b), (b, a)):
            if isinstance(ball, L2Ball) and other.exact_projection:
                return other, ball
        return None

    def _pair_project(self, x, other, ball, *, steps: int = 200):
        """P_{D ∩ B}(x) with B = {||y - a|| <= r}: y(mu) = P_D((x + mu a) / (1 + mu)) minimises
        1/2 ||y - x||^2 + mu/2 ||y - a||^2 over D, and ||y(mu) - a|| is non-increasing in mu,
        so the KKT multiplier mu* is found by bisection (bracketed by doubling); y(mu) for the
        upper end of the final bracket is in D exactly and in B."""
        a, r = ball.center, ball.radius
        flat = x.reshape(-1, self.dim)

        def y_of(mu):
            return other._project((flat + mu[:, None] * a) / (1.0 + mu[:, None]))

        def outside(y):
            return _norm(y - a) > r

        lo = np.zeros(flat.shape[0])
        y = y_of(lo)
        out = outside(y)
        if not np.any(out):
            return y.reshape(x.shape)
        hi = np.where(out, 1.0, 0.0)
        for _ in range(steps):  # bracket: double until feasible
            bad = out & outside(y_of(hi))
            if not np.any(bad):
                break
            lo = np.where(bad, hi, lo)
            hi = np.where(bad, 2.0 * hi, hi)
        for _ in range(steps):
            mid = (lo + hi) / 2
            if not np.any(out & (mid > lo) & (mid < hi)):
                break
            feasible = ~outside(y_of(mid))
            hi = np.where(out & feasible, mid, hi)
            lo = np.where(out & ~feasible, mid, lo)
        return np.where(out[:, None], y_of(hi), y).reshape(x.shape)

    def _pair_lmo(self, g, other, ball, *, steps: int = 200):
        """min_{x in D ∩ B} <g, x> by Lagrangian duality on the ball constraint B = {||x - a||
        <= r}. Returns (x feasible, certified lower bound), batched over the rows of g.

        For lam >= 0 let Phi(x) = <g, x> + lam/2 ||x - a||^2; weak duality gives
        min_{D ∩ B} <g, .> >= q(lam) = min_D Phi - lam r^2 / 2 for *every* lam, and
        q(0) = min_D <g, .> (the LMO of D). The minimiser of Phi over D is x(lam) = P_D(a - g /
        lam), and ||x(lam) - a|| is non-increasing in lam, so bisection on lam drives x(lam) to
        the sphere and q(lam) up to the minimum. Because a - g / lam is huge for small lam
        (where projections lose accuracy), min_D Phi is bounded from below at the computed
        point x~ by convexity, ``Phi(x~) - <grad Phi(x~), x~> - support_D(-grad Phi(x~))``,
        which is valid however inaccurate x~ is; candidate points are re-projected onto D
        before the ball is checked. Bisection stops per row when the certified gap is below
        ``tol ||g|| (1 + diameter)`` or the bracket cannot shrink.
        """
        a, r = ball.center, ball.radius
        G = g.reshape(-1, self.dim)
        gnorm = _norm(G)
        target = self._tol * gnorm * (1.0 + self.diameter)
        base = other._lmo(G)  # lam = 0: the LMO of D
        base_in = _norm(base - a) <= r
        lower = np.einsum("ij,ij->i", G, base)  # q(0) = min_D <g, x>, exact
        x_best = np.where(base_in[:, None], base, np.broadcast_to(self._c, G.shape))
        upper = np.einsum("ij,ij->i", G, x_best)
        todo = ~base_in & (gnorm > 0) & (upper - lower > target)
        if not np.any(todo):
            return x_best.reshape(g.shape), lower.reshape(g.shape[:-1])

        def evaluate(lam, mask):
            nonlocal lower, upper, x_best
            safe = np.where(mask, lam, 1.0)
            raw = other._project(a - G / safe[:, None])
            grad_phi = G + safe[:, None] * (raw - a)
            phi = np.einsum("ij,ij->i", G, raw) + safe / 2 * np.einsum("ij,ij->i", raw - a, raw - a)
            bound = phi - np.einsum("ij,ij->i", grad_phi, raw) - other._support(-grad_phi) - safe * r * r / 2
            lower = np.where(mask, np.maximum(lower, bound), lower)
            x = other._project(raw)  # re-projection: exact for points already near D
            feasible = _norm(x - a) <= r
            gx = np.einsum("ij,ij->i", G, x)
            improve = mask & feasible & (gx < upper)
            upper = np.where(improve, gx, upper)
            x_best = np.where(improve[:, None], x, x_best)
            return feasible

        lo = np.zeros(G.shape[0])
        hi = np.where(todo, gnorm / r, 0.0)
        for _ in range(steps):  # bracket: double until feasible
            bad = todo & ~evaluate(hi, todo)
            if not np.any(bad):
                break
            lo = np.where(bad, hi, lo)
            hi = np.where(bad, 2.0 * hi, hi)
        for _ in range(steps):
            mid = (lo + hi) / 2
            active = todo & (mid > lo) & (mid < hi) & (upper - lower > target)
            if not np.any(active):
                break
            feasible = evaluate(mid, active)
            hi = np.where(active & feasible, mid, hi)
            lo = np.where(active & ~feasible, mid, lo)
        return x_best.reshape(g.shape), lower.reshape(g.shape[:-1])

    # -- projection: Dykstra ---------------------------------------------------------------

    def _project(self, x, *, max_sweeps: int = 100_000):
        if len(self._members) == 1:
            return self._members[0]._project(x)
        pair = self._pair()
        if pair is not None:
            return self._pair_project(x, *pair)
        shape = x.shape
        y = x.reshape(-1, self.dim).copy()
        incr = [np.zeros_like(y) for _ in self._members]
        size = 1.0 + (self.max_norm if self.bounded else float(np.abs(y).max(initial=0.0)))
        stop = 100 * self._tol * size
        for _ in range(max_sweeps):
            # y alone can stall for several sweeps while the increments still move, so the
            # sweep must leave both (nearly) unchanged: a fixed point of the Dykstra sweep is
            # the projection
            moved = np.zeros(y.shape[0])
            for k, dom in enumerate(self._members):
                z = dom._project(y + incr[k])
                new_incr = y + incr[k] - z
                moved = np.maximum(moved, np.maximum(_norm(z - y), _norm(new_incr - incr[k])))
                incr[k] = new_incr
                y = z
            if float(np.max(moved, initial=0.0)) <= stop:
                return y.reshape(shape)
        raise RuntimeError(f"Dykstra's projection onto {self!r} did not converge within {max_sweeps} sweeps")

    # -- linear minimisation: ADMM with a duality certificate ----------------------------

    def lmo_with_gap(self, g: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """``(x, gap)``: a point x of C with ``<g, x> - min_C <g, .> <= gap`` (certified)."""
        g = _points("g", g, self.dim)
        x, lower = self._lmo_certified(g)
        return x, np.maximum(np.einsum("...i,...i->...", g, x) - lower, 0.0)

    def _lmo(self, g):
        return self._lmo_certified(g)[0]

    def _support(self, y):
        if not self.bounded:
            return Rp(dim=self.dim)._support(y)
        return -self._lmo_certified(-y)[1]

    def _lmo_certified(self, g, *, max_iterations: int = 20_000):
        """Return (x feasible, lower bound on min_C <g, x>), batched over leading axes."""
        if not self.bounded:
            return Rp(dim=self.dim)._lmo(g), np.where(np.any(g != 0, -1), -np.inf, 0.0)
        members = self._members
        if len(members) == 1:
            x = members[0]._lmo(g)
            return x, np.einsum("...i,...i->...", g, x)
        pair = self._pair()
        if pair is not None:
            return self._pair_lmo(g, *pair)
        x, lower = self._admm_lmo(g.reshape(-1, self.dim), max_iterations=max_iterations)
        return x.reshape(g.shape), lower.reshape(g.shape[:-1])

    def _admm_lmo(self, G, *, max_iterations: int = 20_000):
        """Consensus ADMM for min <g, x> over the members, rows of G (B, p) at once; returns
        (x feasible, certified lower bound)."""
        members = self._members
        K = len(members)
        gnorm = _norm(G)
        size = self.diameter if self.diameter > 0 else 1.0
        target = self._tol * gnorm * (1.0 + self.diameter)
        rho = np.where(gnorm > 0, gnorm, 1.0)[:, None] / size
        x_best = np.broadcast_to(self._c, G.shape).copy()
        upper = G @ self._c
        # one-member splits (w_k = -g, the others 0) are valid duals: min_C <g, .> >= min_k <g, .>
        lower = np.max([-dom._support(-G) for dom in members], axis=0)
        z = [np.broadcast_to(self._c, G.shape).copy() for _ in members]
        u = [np.zeros_like(G) for _ in members]
        todo = np.flatnonzero(gnorm > 0)
        it = 0
        while todo.size and it < max_iterations:
            it += 1
            Gt, rt = G[todo], rho[todo]
            z_old = [z[k][todo] for k in range(K)]
            x = sum(z_old[k] - u[k][todo] for k in range(K)) / K - Gt / (K * rt)
            for k, dom in enumerate(members):
                zk = dom._project(x + u[k][todo])
                u[k][todo] += x - zk
                z[k][todo] = zk
            if it > 3 and it % 5:
                continue
            # certificate: dual split w_k = rho u_k, corrected so that sum_k w_k = -g exactly
            w = [rt * u[k][todo] for k in range(K)]
            resid = -Gt - sum(w)
            w = [wk + resid / K for wk in w]
            lb = -sum(dom._support(wk) for dom, wk in zip(members, w))
            cand = self.make_feasible(sum(z[k][todo] for k in range(K)) / K)
            ub = np.einsum("ij,ij->i", Gt, cand)
            better = ub < upper[todo]
            upper[todo] = np.where(better, ub, upper[todo])
            x_best[todo] = np.where(better[:, None], cand, x_best[todo])
            lower[todo] = np.maximum(lower[todo], lb)
            done = upper[todo] - lower[todo] <= target[todo]
            if it > 2000:
                # rows still open after 2000 iterations are usually nearly degenerate (g almost
                # normal to a face, a tiny multiplier): residual balancing (Boyd et al. 2011,
                # Sec. 3.4.1) adapts the penalty to them; earlier it can slow the typical rows
                primal = np.sqrt(sum(_norm(x - z[k][todo]) ** 2 for k in range(K)))
                dual = rt[:, 0] * np.sqrt(sum(_norm(z[k][todo] - z_old[k]) ** 2 for k in range(K)))
                factor = np.where(primal > 10 * dual, 2.0, np.where(dual > 10 * primal, 0.5, 1.0))
                for k in range(K):
                    u[k][todo] /= factor[:, None]
                rho[todo] = rt * factor[:, None]
            todo = todo[~done]
        # Degenerate intersections (nearly coincident constraints) can leave the ADMM duals far
        # from converged; the bound is valid at every iteration, so we return the best
        # certified pair rather than fail (lmo_with_gap reports the gap).
        return x_best, lower

    def _coordinate_bounds(self):
        eye = np.eye(self.dim)
        hi = self._support(eye)
        lo = -self._support(-eye)
        for dom in self._members:  # every member's range is also an outer bound
            mlo, mhi = dom._coordinate_bounds()
            lo, hi = np.maximum(lo, mlo), np.minimum(hi, mhi)
        return lo, hi
