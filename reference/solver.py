"""A non-private, high-precision constrained ERM solver with a certified suboptimality bound.

:func:`minimise` returns the minimiser of the empirical risk over a convex domain together with
a **certified** upper bound ``gap`` on its suboptimality. Privacy algorithms need this twice:
bst14 Algorithm 3 perturbs the *exact* minimiser (an inexact one breaks the sensitivity bound
unless the error is folded into it, hence :attr:`SolverResult.distance_bound`), and utility
audits measure excess risk against the optimum.

Objective
---------
``F(theta) = N * sum_i l(theta; d_i) + r(theta)`` over the domain C, where ``N = 1``
(``normalisation="sum"``, bst14) or ``N = 1/n`` (``"average"``, the other papers) and ``r`` is
an optional regulariser.

Certificates (all valid in exact arithmetic for any point theta, plus a rounding allowance)
---------------------------------------------------------------------------------------------
* Frank-Wolfe gap, for convex differentiable F: ``F(theta) - F* <= max_{x in C} <grad F(theta),
  theta - x> = <grad, theta> + support_C(-grad)`` (convexity: F(x) >= F(theta) + <grad, x -
  theta>).
* Strong-convexity gap, when F is mu-strongly convex (mu > 0): ``F(x) >= F(theta) + <grad, x -
  theta> + mu/2 ||x - theta||^2`` for x in C, so ``F(theta) - F* <= max_{x in C} [<grad, theta -
  x> - mu/2 ||x - theta||^2]``, attained at ``x = P_C(theta - grad/mu)`` (on R^p: ``||grad||^2 /
  (2 mu)``). Where the projection is not exact, the Frank-Wolfe gap of this concave function
  at the computed point is added, which needs only the support function.
* Subgradient-aggregation (duality) gap, for convex non-smooth F: for any per-term convex
  weights ``w_ik`` over points theta_k with subgradients ``s_ik``, ``l_i(x) >= sum_k w_ik
  [l_i(theta_k) + <s_ik, x - theta_k>]``, hence ``F* >= sum_ik c_i w_ik (l_i(theta_k) - <s_ik,
  theta_k>) - support_C(-sum_ik c_i w_ik s_ik)``; the weights come from the duals of the
  cutting-plane master LP, but any weights give a valid bound.

Rounding. Sums over the n examples are exactly rounded (``math.fsum``), so their error does not
grow with n; the reported ``gap`` then adds allowances for the remaining error of the computed
gradient, for the rounding of inner products and support functions (``2 (p + 4) eps``
relative) and of projections (``4 (p + 4) eps`` relative). The rounding *inside* a loss's own
``value``/``gradient`` is not covered: the certificate is for the per-example values and
gradients as the loss computes them.

Distance certificates: if F is mu-strongly convex on C (mu = N n Delta + mu_r, Delta the
per-example strong convexity), then ``F(theta) - F* >= mu/2 ||theta - theta*||^2`` for theta in
C (first-order optimality of theta*), so ``||theta - theta*|| <= sqrt(2 gap / mu)``. If F is
also L-smooth and the projection is exact, the projected gradient map T = P_C(. - grad F / L)
is a (1 - mu/L)-contraction with fixed point theta*, so ``||theta - theta*|| <= (L / mu)
||theta - T(theta)||`` (plus rounding): linear in the residual, hence far tighter near the
optimum.

Achievable certificates (double precision): the gap cannot fall below the rounding of its own
terms, about ``1e-15 ||grad F|| (||theta|| + radius)`` (for a constrained optimum grad F does not
vanish); certified distances reach ~1e-13 relative with the linear bound, ~1e-7 with the
square-root bound (domains without an exact projection: Polytope, Intersection). Intersections
with more than one member besides an L2 ball use an ADMM support function certified to about
``1e-14 ||g|| (1 + diameter)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from reference.arrays import ArrayLike
from reference.arrays import finite as _finite
from reference.arrays import real_array as _numeric_array
from reference.arrays import vector as _vector
from reference.domains import (
    Box,
    Domain,
    Intersection,
    L1Ball,
    L2Ball,
    Polytope,
    Rp,
    Simplex,
)
from reference.losses import Loss, Regulariser
from spec import validate
from spec.errors import ParameterError

__all__ = [
    "SolverResult",
    "minimise",
    "exact_minimiser_half_squared",
    "exact_minimiser_linear",
]

_EPS = float(np.finfo(float).eps)


@dataclass(frozen=True)
class SolverResult:
    """The result of :func:`minimise`.

    Attributes
    ----------
    theta : ndarray, shape (p,)
        A point of the domain (feasible up to floating rounding).
    value : float
        The objective at theta.
    gap : float
        Certified upper bound on ``value - min_C F`` (<= the requested tolerance).
    iterations : int
        Gradient steps (``"fista"``), master LPs (``"cutting-plane"``) or 1 (``"lmo"``).
    method : str
        ``"lmo"`` (affine objective), ``"fista"`` (smooth) or ``"cutting-plane"`` (non-smooth).
    distance_bound : float
        Certified bound on ``||theta - theta*||_2``: the least of ``sqrt(2 gap /
        strong_convexity)`` and, for smooth objectives on domains with an exact projection,
        the linear bound ``(L / mu) (||theta - P(theta - grad/L)|| + rounding)``; ``inf`` when
        the objective is not strongly convex.
    strong_convexity : float
        The strong-convexity modulus of the objective used for ``distance_bound`` (``N n Delta
        + mu_regulariser``; 0 if none).
    certificate : str
        Which bound gave ``gap``: ``"frank-wolfe"``, ``"strong-convexity"`` or ``"duality"``.
    """

    theta: np.ndarray
    value: float
    gap: float
    iterations: int
    method: str
    distance_bound: float
    strong_convexity: float = 0.0
    certificate: str = ""
    history: tuple = field(default=(), repr=False, compare=False)


# --------------------------------------------------------------------------------------------
# the objective
# --------------------------------------------------------------------------------------------


_LOSS_METHODS = ("value", "gradient", "total", "total_gradient")


def _check_loss(loss):
    missing = [m for m in _LOSS_METHODS if not callable(getattr(loss, m, None))]
    if missing or not hasattr(loss, "constants"):
        raise TypeError(
            f"loss ({type(loss).__name__}) must provide value, gradient, total, total_gradient and "
            f"constants (missing: {', '.join(missing) or 'constants'})"
        )
    consts = loss.constants
    try:
        beta, mu = consts.smoothness, consts.strong_convexity
    except AttributeError:
        raise TypeError("loss.constants must have smoothness and strong_convexity") from None
    beta = _constant("loss.constants.smoothness", beta, allow_inf=True)
    mu = _constant("loss.constants.strong_convexity", mu)
    if not bool(getattr(loss, "convex", False)):
        raise ParameterError(
            f"loss ({type(loss).__name__}) must be convex (loss.convex is False): minimise certifies "
            "optimality through convexity"
        )
    return beta, mu


def _check_domain_radius(loss, domain):
    """A loss that states its constants only on a ball of radius domain_radius must not be
    minimised over a domain reaching beyond it: the certificates use those constants."""
    limit = getattr(loss, "domain_radius", None)
    if limit is None:
        return
    if not domain.max_norm <= float(limit) * (1.0 + 1e-12):
        raise ParameterError(
            f"domain ({domain!r}, radius {domain.max_norm!r}) must lie within the loss's domain_radius "
            f"({limit!r}): the loss constants hold only there"
        )


def _constant(name, value, *, allow_inf=False):
    if allow_inf and isinstance(value, (int, float)) and value == math.inf:
        return math.inf
    return validate.nonnegative(name, value)


def _check_regulariser(reg, domain):
    for m in ("value", "gradient"):
        if not callable(getattr(reg, m, None)):
            raise TypeError(f"regulariser ({type(reg).__name__}) must provide value(theta) and gradient(theta)")
    consts = getattr(reg, "constants", None)
    if callable(consts):  # reference.losses style: constants(*, dim, domain_radius)
        radius = domain.max_norm if domain.bounded else None
        try:
            consts = consts(dim=domain.dim, domain_radius=radius)
        except ParameterError as exc:
            raise ParameterError(
                f"regulariser ({reg!r}) could not state its constants on domain {domain!r}: {exc}"
            ) from exc
    source = consts if consts is not None and hasattr(consts, "smoothness") else reg
    try:
        beta, mu = source.smoothness, source.strong_convexity
    except AttributeError:
        raise TypeError(
            f"regulariser ({type(reg).__name__}) must state smoothness and strong_convexity "
            "(as attributes or through .constants)"
        ) from None
    if not bool(getattr(reg, "convex", True)):
        raise ParameterError(f"regulariser ({type(reg).__name__}) must be convex")
    return _constant("regulariser smoothness", beta, allow_inf=True), _constant("regulariser strong_convexity", mu)


class _Objective:
    """F(theta) = weight * sum_i l(theta; d_i) + r(theta), with its declared constants."""

    def __init__(self, loss, data, regulariser, normalisation, domain):
        self.loss, self.data, self.reg = loss, data, regulariser
        # minimise checked the data; extrapolated iterates may leave the loss's domain ball
        self._kw = {"check": False} if isinstance(loss, Loss) else {}
        self.n = data.shape[0]
        self.weight = 1.0 if normalisation == "sum" else 1.0 / self.n
        beta, delta = _check_loss(loss)
        _check_domain_radius(loss, domain)
        beta_r, mu_r = (0.0, 0.0) if regulariser is None else _check_regulariser(regulariser, domain)
        scale = float(self.n) if normalisation == "sum" else 1.0  # exactly, not weight * n
        self.smoothness = scale * beta + beta_r if math.isfinite(beta) and math.isfinite(beta_r) else math.inf
        self.strong_convexity = scale * delta + mu_r

    def value(self, theta):
        v = self.weight * float(self.loss.total(theta, self.data, **self._kw))
        if self.reg is not None:
            v += float(self.reg.value(theta))
        return v

    def gradient(self, theta):
        g = self.weight * np.asarray(self.loss.total_gradient(theta, self.data, **self._kw), dtype=float)
        if self.reg is not None:
            g = g + np.asarray(self.reg.gradient(theta), dtype=float)
        return g

    def terms(self, theta):
        """Per-term values (T,), subgradients (T, p) and weights (T,): examples, then r."""
        v = np.asarray(self.loss.value(theta, self.data, **self._kw), dtype=float).reshape(self.n)
        s = np.asarray(self.loss.gradient(theta, self.data, **self._kw), dtype=float).reshape(self.n, -1)
        c = np.full(self.n, self.weight)
        if self.reg is not None:
            v = np.append(v, float(self.reg.value(theta)))
            s = np.vstack([s, np.asarray(self.reg.gradient(theta), dtype=float).reshape(1, -1)])
            c = np.append(c, 1.0)
        return v, s, c

    def certified_gradient(self, theta):
        """(grad, err): the gradient as an exactly rounded sum of the per-term gradients, and a
        bound on its l2 distance to the exact sum (products c_j s_j round when c_j != 1)."""
        _, s, c = self.terms(theta)
        grad = _weighted_sum(c, s)
        err = _EPS * float(np.linalg.norm(grad))
        if np.any(c != 1.0):
            err += _EPS * float(c @ np.linalg.norm(s, axis=1))
        return grad, err


def _weighted_sum(weights, rows):
    """sum_j weights_j rows_j, each coordinate summed by math.fsum (the exactly rounded sum of
    the products), so the rounding does not grow with the number of rows."""
    prod = weights[:, None] * rows
    return np.array([math.fsum(col) for col in prod.T])


# --------------------------------------------------------------------------------------------
# certificates for differentiable objectives
# --------------------------------------------------------------------------------------------


def _certify_smooth(obj, domain, theta):
    """(gap, kind, distance) at theta: the least of the Frank-Wolfe and strong-convexity gaps,
    and the best certified bound on ||theta - theta*||.

    Each computed bound is increased by an allowance for the error ``err`` of the computed
    gradient (it moves a linear bound by at most ``err`` times the distance involved), for the
    rounding of the inner products (``2 (p + 4) eps`` relative) and, where a projection is
    used, for its rounding ``delta`` (``4 (p + 4) eps`` times the norms of its input and
    output).

    Distance: ``sqrt(2 gap / mu)`` always; for exact projections and finite smoothness L >= mu
    also the linear bound ``(L / mu) (||theta - theta+|| + err / L + delta)`` with theta+ =
    P_C(theta - grad / L): the projected gradient map is a (1 - mu/L)-contraction with fixed
    point theta* (C convex, F mu-strongly convex and L-smooth on C), so ||theta - theta*|| <=
    ||theta - theta+|| + (1 - mu/L) ||theta - theta*||.
    """
    grad, err = obj.certified_gradient(theta)
    p = theta.size
    gnorm = float(np.linalg.norm(grad))
    rnd = 2.0 * (p + 4) * _EPS * gnorm
    best, kind = math.inf, "frank-wolfe"
    mu, smooth = obj.strong_convexity, obj.smoothness
    if gnorm == 0.0 and err == 0.0:
        return 0.0, kind, 0.0 if mu > 0 else math.inf

    def rounding(inp, out):  # the rounding of a projection of inp (result out)
        return 4.0 * (p + 4) * _EPS * (float(np.linalg.norm(inp)) + float(np.linalg.norm(out)))

    if domain.bounded:
        # F(theta) - F* <= max_{x in C} <G, theta - x>, G the exact gradient
        size = float(np.linalg.norm(theta)) + domain.max_norm
        best = float(grad @ theta + domain.support(-grad)) + (err + rnd) * size
    distance = math.inf
    if mu > 0:
        # phi(x) = <grad, theta - x> - mu/2 ||x - theta||^2 is mu-strongly concave with maximiser
        # P_C(theta - grad / mu) over C
        y = theta - grad / mu
        x = domain.project(y)
        step = theta - x
        dist = float(np.linalg.norm(step))
        v = -grad + mu * step  # grad phi(x)
        sc = float(grad @ step - mu / 2 * (step @ step))
        if domain.exact_projection:
            # concavity: max phi <= phi(x) + |grad phi(x)| |x* - x| with |x* - x| <= delta
            sc += float(np.linalg.norm(v)) * rounding(y, x)
        else:
            # x is only near the maximiser: max phi <= phi(x) + max_z <grad phi(x), z - x>, a
            # Frank-Wolfe term that needs only the support function
            size = float(np.linalg.norm(x)) + domain.max_norm
            sc += float(domain.support(v) - v @ x) + 2.0 * (p + 4) * _EPS * float(np.linalg.norm(v)) * size
        # an error e in the gradient moves max phi by at most |e| |theta - x| + |e|^2 / (2 mu)
        sc += err * dist + err * err / (2 * mu) + (rnd + 4 * _EPS * mu * dist) * dist
        if sc < best:
            best, kind = sc, "strong-convexity"
        if domain.exact_projection and math.isfinite(smooth) and smooth >= mu:
            y = theta - grad / smooth
            plus = domain.project(y)
            distance = smooth / mu * (float(np.linalg.norm(theta - plus)) + err / smooth + rounding(y, plus))
    best = max(best, 0.0)
    if mu > 0:
        distance = min(distance, math.sqrt(2.0 * best / mu))
    return best, kind, distance


# --------------------------------------------------------------------------------------------
# methods
# --------------------------------------------------------------------------------------------


def _solve_affine(obj, domain, tolerance):
    """F is affine (smoothness 0): its minimiser over C is the LMO of its constant gradient."""
    grad = obj.gradient(domain.interior_point())
    if not domain.bounded and np.any(grad):
        raise ParameterError(
            f"domain ({domain!r}) must be bounded: a non-constant linear objective is unbounded below on it"
        )
    theta = domain.lmo(grad)
    gap, kind, distance = _certify_smooth(obj, domain, theta)
    return theta, gap, kind, 1, (), distance


def _solve_fista(obj, domain, theta0, tolerance, max_iterations, distance_tolerance=None):
    """Accelerated projected gradient (FISTA) with gradient-based adaptive restart.

    Step 1/beta from the declared smoothness beta of F; restart (O'Donoghue & Candes 2015) when
    the momentum points against the last step, which recovers linear convergence on
    (locally) strongly convex problems. The certificate is checked every 10 steps; the run
    stops early once the best certificate has not improved by 0.1% for max(5000,
    max_iterations / 20) steps (it has reached its floating-point floor).
    """
    step = 1.0 / obj.smoothness
    theta = theta0
    y = theta0.copy()
    t = 1.0
    best = (math.inf, theta0, "frank-wolfe", math.inf)
    history = []
    last_gain, stall = 0, max(5_000, max_iterations // 20)
    for k in range(1, max_iterations + 1):
        new = domain.project(y - step * obj.gradient(y))
        t_new = (1.0 + math.sqrt(1.0 + 4.0 * t * t)) / 2.0
        if float((y - new) @ (new - theta)) > 0:  # momentum against progress: restart
            t_new, y = 1.0, new.copy()
        else:
            y = new + ((t - 1.0) / t_new) * (new - theta)
        theta, t = new, t_new
        if k % 10 == 0 or k == 1 or k == max_iterations:
            point = theta if domain.exact_projection else domain.make_feasible(theta)
            gap, kind, distance = _certify_smooth(obj, domain, point)
            history.append(gap)
            if gap < best[0] * (1 - 1e-3) or distance < best[3] * (1 - 1e-3):
                last_gain = k
            if (gap, distance) < (best[0], best[3]):  # the best point so far: least gap first
                best = (gap, point, kind, distance)
            if gap <= tolerance and (distance_tolerance is None or distance <= distance_tolerance):
                return point, gap, kind, k, tuple(history), distance
            if k - last_gain >= stall:
                break  # the certificates have stopped improving (floating-point floor)
    return best[1], best[0], best[2], k, tuple(history), best[3]


# -- cutting planes ----------------------------------------------------------------------------


class _LPDomain:
    """A linear description of C over variables (x, aux), plus the curved members to cut."""

    def __init__(self, p):
        self.p = p
        self.n_aux = 0
        self.ub_rows, self.ub_rhs, self.eq_rows, self.eq_rhs = [], [], [], []
        self.lo = np.full(p, -np.inf)
        self.hi = np.full(p, np.inf)
        self.aux_bounds = []
        self.curved = []

    def add_aux(self, k, bounds):
        start = self.p + self.n_aux
        self.n_aux += k
        self.aux_bounds += [bounds] * k
        return start

    def tighten(self, lo, hi):
        self.lo, self.hi = np.maximum(self.lo, lo), np.minimum(self.hi, hi)


def _describe(domain, lp):
    """Add domain's constraints to lp: exact for polyhedral sets, bounds + cuts otherwise."""
    p = lp.p
    if isinstance(domain, Box):
        lp.tighten(domain.lower, domain.upper)
    elif isinstance(domain, L1Ball):
        r = domain.max_norm
        start = lp.add_aux(p, (0, None))  # s_i >= |x_i|, sum s <= r
        for i in range(p):
            for sign in (1.0, -1.0):
                row = {i: sign, start + i: -1.0}
                lp.ub_rows.append(row)
                lp.ub_rhs.append(0.0)
        lp.ub_rows.append({start + i: 1.0 for i in range(p)})
        lp.ub_rhs.append(r)
        lp.tighten(np.full(p, -r), np.full(p, r))
    elif isinstance(domain, Simplex):
        lp.eq_rows.append({i: 1.0 for i in range(p)})
        lp.eq_rhs.append(domain.scale)
        lp.tighten(np.zeros(p), np.full(p, domain.scale))
    elif isinstance(domain, Polytope):
        v = domain.vertices
        start = lp.add_aux(v.shape[0], (0, None))  # x = V' lambda, lambda in the simplex
        for i in range(p):
            row = {i: 1.0}
            row.update({start + j: -v[j, i] for j in range(v.shape[0])})
            lp.eq_rows.append(row)
            lp.eq_rhs.append(0.0)
        lp.eq_rows.append({start + j: 1.0 for j in range(v.shape[0])})
        lp.eq_rhs.append(1.0)
        lp.tighten(*domain.coordinate_bounds())
    elif isinstance(domain, Intersection):
        for member in domain.domains:
            _describe(member, lp)
    elif isinstance(domain, Rp):
        pass
    else:  # curved (L2Ball) or unknown: outer box, refined by separating hyperplanes
        lp.tighten(*domain.coordinate_bounds())
        lp.curved.append(domain)


def _solve_cutting_plane(obj, domain, theta0, tolerance, max_iterations):
    """Disaggregated Kelley cutting planes with an LP master (scipy HiGHS dual simplex).

    The master minimises sum_i c_i t_i over (x in the LP description of C, t) subject to
    the cuts t_i >= l_i(theta_k) + <s_ik, x - theta_k>. For per-example piecewise-linear losses
    (hinge, absolute deviation, linear, l1 penalties) on polyhedral domains the model becomes
    exact after finitely many cuts, so the method terminates; curved domains are handled by
    separating hyperplanes from the support function. The lower bound is recomputed from the
    LP duals with the exact support function of C (see the module docstring), so it does not
    rely on the LP solver's tolerances.
    """
    from scipy.optimize import linprog

    p = domain.dim
    lp = _LPDomain(p)
    _describe(domain, lp)
    lp.tighten(*domain.coordinate_bounds())

    v0, s0, c = obj.terms(theta0)
    T = c.size
    width = p + T + lp.n_aux  # variables: x (p), t (T), aux

    def dense(rows):
        out = np.zeros((len(rows), width))
        for k, row in enumerate(rows):
            for j, val in row.items():
                out[k, j if j < p else j + T] = val
        return out

    dom_ub = dense(lp.ub_rows)
    dom_ub_rhs = np.asarray(lp.ub_rhs, dtype=float)
    a_eq = dense(lp.eq_rows) if lp.eq_rows else None
    b_eq = np.asarray(lp.eq_rhs, dtype=float) if lp.eq_rows else None
    bounds = list(zip(lp.lo, lp.hi)) + [(None, None)] * T + lp.aux_bounds
    cost = np.concatenate([np.zeros(p), c, np.zeros(lp.n_aux)])

    slopes, intercepts, owners = [], [], []  # cut of term i: t_i >= intercept + <slope, x>
    sep_rows, sep_rhs = [], []
    size = domain.max_norm  # every visited point is in C, so ||theta_k|| <= radius
    state = {"best": theta0, "upper": math.inf, "lower": -math.inf, "slack": 0.0}

    def lower_bound(weights, s, icpt):
        """F* >= sum_j w_j icpt_j - support(-sum_j w_j s_j) for cuts j with weights w_j = c_i
        times convex weights over the cuts of term i."""
        agg = _weighted_sum(weights, s)
        lb = math.fsum(weights * icpt) - float(domain.support(-agg))
        state["lower"] = max(state["lower"], lb)

    def visit(theta, v, s):
        """Add the cuts at theta; update the upper bound and the one-point lower bound."""
        icpt = v - s @ theta
        slopes.append(s)
        intercepts.append(icpt)
        owners.append(np.arange(T))
        upper = math.fsum(c * v)
        if upper < state["upper"]:
            state["best"], state["upper"] = theta, upper
        # rounding of l_i, of <s_i, theta> and of the products, per term (sums are exact)
        slack = 4.0 * (p + 8) * _EPS * (math.fsum(c * np.abs(v)) + 2 * size * math.fsum(c * np.linalg.norm(s, axis=1)))
        state["slack"] = max(state["slack"], slack)
        lower_bound(c, s, icpt)

    visit(theta0, v0, s0)
    history = [state["upper"] - state["lower"]]
    it = 0
    while state["upper"] - state["lower"] + state["slack"] > tolerance and it < max_iterations:
        it += 1
        S = np.vstack(slopes)
        icpt = np.concatenate(intercepts)
        own = np.concatenate(owners)
        rows = np.zeros((S.shape[0], width))
        rows[:, :p] = S
        rows[np.arange(S.shape[0]), p + own] = -1.0
        a_ub = np.vstack([rows, dom_ub] + ([np.array(sep_rows)] if sep_rows else []))
        b_ub = np.concatenate([-icpt, dom_ub_rhs, np.asarray(sep_rhs, dtype=float)])
        res = linprog(
            cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs-ds",
            options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
        )
        if res.status != 0:
            raise RuntimeError(f"cutting-plane master LP failed at iteration {it}: {res.message}")
        x_hat = res.x[:p]
        # lower bound from the LP duals: per-term convex weights over that term's cuts (at an
        # exact LP optimum the multipliers of term i sum to c_i; we renormalise, so whatever
        # the LP solver returns, the bound is valid)
        mult = np.maximum(-np.asarray(res.ineqlin.marginals[: S.shape[0]], dtype=float), 0.0)
        total = np.bincount(own, weights=mult, minlength=T)
        model = S @ x_hat + icpt
        weights = np.zeros(S.shape[0])
        for i in range(T):
            sel = np.flatnonzero(own == i)
            if total[i] > 0:
                weights[sel] = mult[sel] / total[i]
            else:  # no dual information: the cut of term i that is active at x_hat
                weights[sel[np.argmax(model[sel])]] = 1.0
        lower_bound(c[own] * weights, S, icpt)
        for member in lp.curved:  # Kelley: cut the LP vertex off the curved members
            y = x_hat - member.project(x_hat)
            if np.linalg.norm(y) > 1e-14 * (1.0 + np.linalg.norm(x_hat)):
                row = np.zeros(width)
                row[:p] = y
                sep_rows.append(row)
                sep_rhs.append(float(member.support(y)))
        point = x_hat
        balls = [m for m in lp.curved if isinstance(m, L2Ball)]
        if balls:
            # the model over the exact balls (SLSQP); a tangent cut where it touches a ball
            # lets the next LP's duals certify at the right place on the sphere
            z0 = np.asarray(res.x, dtype=float)
            refined = _model_over_balls(
                cost, np.vstack([rows, dom_ub]), np.concatenate([-icpt, dom_ub_rhs]), a_eq, b_eq, bounds, balls, z0, p
            )
            if refined is not None:
                point = refined
                for ball in balls:
                    y = ball.project(refined) - ball.center
                    if np.linalg.norm(refined - ball.center) >= ball.radius * (1 - 1e-9) and np.any(y):
                        row = np.zeros(width)
                        row[:p] = y
                        sep_rows.append(row)
                        sep_rhs.append(float(ball.support(y)))
        # the master solution, made feasible, is the next point
        theta = domain.make_feasible(point)
        v, s, _ = obj.terms(theta)
        visit(theta, v, s)
        history.append(state["upper"] - state["lower"])
    gap = max(state["upper"] - state["lower"], 0.0) + state["slack"]
    mu = obj.strong_convexity
    return state["best"], gap, "duality", it, tuple(history), math.sqrt(2.0 * gap / mu) if mu > 0 else math.inf


def _model_over_balls(cost, a_ub, b_ub, a_eq, b_eq, bounds, balls, z0, p):
    """Minimise the cutting-plane model with the balls as exact quadratic constraints (SLSQP,
    warm-started at the LP solution). Returns x, or None if SLSQP does not succeed; only used
    to place cuts, never in a bound."""
    from scipy.optimize import minimize

    cons = [{"type": "ineq", "fun": lambda z: b_ub - a_ub @ z, "jac": lambda z: -a_ub}]
    if a_eq is not None:
        cons.append({"type": "eq", "fun": lambda z: a_eq @ z - b_eq, "jac": lambda z: a_eq})
    for ball in balls:
        a, r = ball.center, ball.radius

        def fun(z, a=a, r=r):
            d = z[:p] - a
            return np.array([r * r - d @ d])

        def jac(z, a=a):
            out = np.zeros((1, z.size))
            out[0, :p] = -2.0 * (z[:p] - a)
            return out

        cons.append({"type": "ineq", "fun": fun, "jac": jac})
    lo = np.array([-np.inf if b[0] is None else b[0] for b in bounds], dtype=float)
    hi = np.array([np.inf if b[1] is None else b[1] for b in bounds], dtype=float)
    start = np.clip(z0, lo, hi)
    res = minimize(
        lambda z: float(cost @ z), start, jac=lambda z: cost, constraints=cons,
        bounds=list(zip(lo, hi)), method="SLSQP", options={"ftol": 1e-15, "maxiter": 500},
    )
    # status 8 ("positive directional derivative in the line search") means SLSQP cannot make
    # progress at this precision, which is typical at the optimum: accept any finite point
    if res.status not in (0, 8) or not np.all(np.isfinite(res.x)):
        return None
    return np.asarray(res.x[:p], dtype=float)


# --------------------------------------------------------------------------------------------
# the public entry point
# --------------------------------------------------------------------------------------------


def _data_array(data):
    arr = _numeric_array("data", data)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ParameterError(f"data (shape {arr.shape}) must be a 2-D array (n, k) with n, k >= 1")
    return _finite("data", arr)


def minimise(
    loss: Loss,
    data: ArrayLike,
    domain: Domain,
    *,
    tolerance: float = 1e-10,
    normalisation: str = "sum",
    regulariser: Regulariser | None = None,
    x0: ArrayLike | None = None,
    max_iterations: int | None = None,
    distance_tolerance: float | None = None,
) -> SolverResult:
    """Minimise the empirical risk over a convex domain, with a certified suboptimality gap.

    Parameters
    ----------
    loss
        A convex loss with ``value(theta, rows)``, ``gradient(theta, rows)``, ``total(theta,
        data)``, ``total_gradient(theta, data)``, ``constants`` (``smoothness``,
        ``strong_convexity``; per example) and ``convex`` (see ``reference.losses``). If it has
        ``validate_data`` (or ``check_data``), the data are checked against its bounds; if it
        has a ``domain_radius``, the domain's radius must not exceed it.
    data : array_like, shape (n, k)
        One row per example, finite.
    domain : Domain
        The constraint set C.
    tolerance : float
        Required certified gap (absolute, in the units of the objective), > 0.
    normalisation : {"sum", "average"}
        ``F = sum_i l_i + r`` (bst14) or ``F = (1/n) sum_i l_i + r``.
    regulariser : optional
        A convex ``r(theta)`` with ``value(theta)``, ``gradient(theta)`` (a subgradient where
        not differentiable) and ``smoothness``/``strong_convexity``: as attributes, through a
        ``.constants`` object, or through a method ``constants(*, dim, domain_radius)`` (the
        ``reference.losses`` regularisers; called with the domain's dimension and radius).
        Smoothness ``inf`` for non-smooth penalties such as l1.
    x0 : array_like, shape (p,), optional
        Starting point (projected onto C); default ``domain.interior_point()``.
    max_iterations : int, optional
        Default 100 000 gradient steps (``"fista"``) or 500 master LPs (``"cutting-plane"``).
    distance_tolerance : float, optional
        Also require ``distance_bound <= distance_tolerance`` (a strongly convex objective is
        needed). For smooth objectives on domains with an exact projection the linear bound
        ``(L / mu) ||theta - P(theta - grad / L)||`` reaches ~1e-13 relative, far below what the
        gap alone certifies (``sqrt(2 gap / mu)``); this is what bst14 Algorithm 3 needs.

    Returns
    -------
    SolverResult

    Method
    ------
    * smoothness 0 (affine objective): ``"lmo"``, exact;
    * finite smoothness: ``"fista"``, projected accelerated gradient with step 1/smoothness;
    * infinite smoothness: ``"cutting-plane"`` (bounded domains only).

    Raises
    ------
    TypeError
        Wrong types (loss or regulariser without the interface, domain not a Domain, ...).
    ParameterError
        Bad values: non-finite or mis-shaped data/x0, tolerance <= 0, unknown normalisation, a
        non-convex loss, an unbounded domain where the method needs a bounded one.
    RuntimeError
        If ``gap <= tolerance`` is not certified within ``max_iterations`` (the message gives the
        best gap reached).
    """
    if not isinstance(domain, Domain):
        raise TypeError(f"domain ({type(domain).__name__}) must be a Domain")
    data = _data_array(data)
    tolerance = validate.positive("tolerance", tolerance)
    normalisation = validate.choice("normalisation", normalisation, {"sum", "average"})
    if distance_tolerance is not None:
        distance_tolerance = validate.positive("distance_tolerance", distance_tolerance)
    for checker in ("validate_data", "check_data"):
        if callable(getattr(loss, checker, None)):
            getattr(loss, checker)(data)
            break
    obj = _Objective(loss, data, regulariser, normalisation, domain)
    p = domain.dim
    if x0 is None:
        theta0 = domain.interior_point()
    else:
        theta0 = _vector("x0", x0, p)
    theta0 = domain.make_feasible(domain.project(theta0))

    if obj.smoothness == 0.0:
        method, default_its = "lmo", 1
    elif math.isfinite(obj.smoothness):
        method, default_its = "fista", 100_000
    else:
        method, default_its = "cutting-plane", 500
        if not domain.bounded:
            raise ParameterError(
                f"domain ({domain!r}) must be bounded for a non-smooth objective (cutting-plane method)"
            )
    max_iterations = default_its if max_iterations is None else validate.positive_integer("max_iterations", max_iterations)
    if distance_tolerance is not None and obj.strong_convexity == 0.0:
        raise ParameterError(
            f"distance_tolerance ({distance_tolerance!r}) needs a strongly convex objective "
            "(declared strong_convexity of the loss and regulariser is 0)"
        )

    if method == "lmo":
        theta, gap, kind, its, history, distance = _solve_affine(obj, domain, tolerance)
    elif method == "fista":
        if not domain.bounded and obj.strong_convexity == 0.0:
            raise ParameterError(
                f"domain ({domain!r}) must be bounded unless the objective is strongly convex "
                "(no finite certificate exists otherwise)"
            )
        theta, gap, kind, its, history, distance = _solve_fista(
            obj, domain, theta0, tolerance, max_iterations, distance_tolerance
        )
    else:
        theta, gap, kind, its, history, distance = _solve_cutting_plane(obj, domain, theta0, tolerance, max_iterations)

    stalled = " (the certificate stopped improving)" if its < max_iterations and method == "fista" else ""
    if not gap <= tolerance:
        raise RuntimeError(
            f"minimise ({method}) did not certify gap <= tolerance ({tolerance!r}) after {its} of "
            f"max_iterations ({max_iterations}){stalled}; best certified gap {gap!r}. Loosen the "
            "tolerance or raise max_iterations"
        )
    if distance_tolerance is not None and not distance <= distance_tolerance:
        raise RuntimeError(
            f"minimise ({method}) did not certify distance_bound <= distance_tolerance "
            f"({distance_tolerance!r}) after {its} of max_iterations ({max_iterations}){stalled}; best "
            f"certified distance {distance!r} (for {method} the bound is sqrt(2 gap / strong_convexity)"
            f"{'' if method == 'fista' and domain.exact_projection else ': lower tolerance'})"
        )
    mu = obj.strong_convexity
    return SolverResult(
        theta=np.asarray(theta, dtype=float).copy(),
        value=obj.value(theta),
        gap=float(gap),
        iterations=int(its),
        method=method,
        distance_bound=distance,
        strong_convexity=float(mu),
        certificate=kind,
        history=history,
    )


# --------------------------------------------------------------------------------------------
# closed-form oracles
# --------------------------------------------------------------------------------------------


def exact_minimiser_half_squared(data: ArrayLike, domain: Domain) -> np.ndarray:
    """argmin_{theta in C} sum_i 1/2 ||theta - d_i||^2 = P_C(mean of the d_i).

    Since sum_i 1/2 ||theta - d_i||^2 = n/2 ||theta - dbar||^2 + const, the minimiser is the
    projection of the mean (exact for the domains with ``exact_projection``).

    Parameters
    ----------
    data : array_like, shape (n, p)
    domain : Domain
    """
    if not isinstance(domain, Domain):
        raise TypeError(f"domain ({type(domain).__name__}) must be a Domain")
    data = _data_array(data)
    if data.shape[1] != domain.dim:
        raise ParameterError(f"data (shape {data.shape}) must have {domain.dim} columns (the domain dimension)")
    return domain.project(data.mean(axis=0))


def exact_minimiser_linear(data: ArrayLike, domain: Domain) -> np.ndarray:
    """argmin_{theta in C} sum_i -<theta, d_i> = lmo(-sum_i d_i) (bst14's linear loss).

    Ties (e.g. sum_i d_i = 0) are broken by the domain's LMO rule.
    """
    if not isinstance(domain, Domain):
        raise TypeError(f"domain ({type(domain).__name__}) must be a Domain")
    data = _data_array(data)
    if data.shape[1] != domain.dim:
        raise ParameterError(f"data (shape {data.shape}) must have {domain.dim} columns (the domain dimension)")
    return domain.lmo(-data.sum(axis=0))
