r"""The two proximal steps of DP-AccMD (wang17 Algorithm 3): the gradient step in the Minkowski norm
of C (line 6) and the mirror step of a distance-generating function w (line 7).

The set. ``C`` is a centrally symmetric l2 ball or l1 ball of radius R (:class:`~reference.domains.L2Ball`
centred at 0, :class:`~reference.domains.L1Ball`); its Minkowski norm is ``||v||_C = ||v||_2 / R`` or
``||v||_1 / R`` and ``||C||_2 = 2R``.

Line 6, :func:`gradient_step`: ``argmin_{y in C} {(M/2) ||y - x||_C^2 + <g, y - x>}``.

* l2 ball: ``(M / (2 R^2)) ||y - x||_2^2 + <g, y>``, i.e. the projection of ``x - (R^2 / M) g``.
* l1 ball: ``a ||y - x||_1^2 + <g, y - x>`` with ``a = M / (2 R^2)``, over ``||y||_1 <= R``. Solved
  exactly through its dual (derivation below) and certified: the returned ``y`` is feasible and
  its objective equals the dual value (the gap is checked, so a wrong ``y`` cannot pass silently).

*Dual of the l1 step.* With ``d = y - x``, ``r0 = R - ||x||_1`` and multipliers ``lambda`` for
``a t^2 >= lambda t - lambda^2/(4a)`` (``t = ||d||_1``) and ``mu >= 0`` for the ball, weak duality gives,
for every feasible ``y`` and every ``lambda, mu >= 0`` with ``lambda + mu >= ||g||_inf``,

    a ||d||_1^2 + <g, d>  >=  sum_i min(0, |x_i| (lambda - mu) - g_i x_i) - mu r0 - lambda^2 / (4a)

(each coordinate's ``g_i d_i + lambda |d_i| + mu (|x_i + d_i| - |x_i|)`` is piecewise linear with
kinks at ``d_i = 0`` and ``d_i = -x_i`` and bounded below iff ``lambda + mu >= |g_i|``). With
``nu = lambda - mu`` the best ``lambda`` for given ``nu`` is ``(||g||_inf + nu) / 2`` on
``[-||g||_inf, ||g||_inf]`` (outside the dual is monotone towards it), so the dual is the concave
function of one variable

    psi(nu) = sum_i |x_i| min(0, nu - b_i) - r0 (G - nu)/2 - (G + nu)^2 / (16 a),  b_i = g_i sign(x_i),

``G = ||g||_inf``: piecewise quadratic with kinks at the ``b_i``, maximised exactly by checking each
piece's stationary point clipped to the piece. The primal solution follows from the optimal
``(lambda, mu)``: ``t = lambda / (2a)``; coordinates with ``b_i > nu`` move to 0, those with ``b_i < nu``
stay at ``x_i``, ties move part way, and the coordinate(s) with ``|g_j| = G`` may move outward (in
the direction ``-sign(g_j)``); the amounts solve ``||y - x||_1 = t`` and (when ``mu > 0``) ``||y||_1 = R``.

Line 7, the mirror maps (``w`` 1-strongly convex w.r.t. ``||.||_C``, as the paper requires):

:class:`SquaredL2`
    ``w(z) = ||z||_2^2 / (2 rho^2)`` with ``rho`` the inradius of C (``R`` for the l2 ball, ``R / sqrt(p)``
    for the l1 ball, since ``||v||_C <= ||v||_2 / rho``); the step is the projection of
    ``z - alpha rho^2 g``.
:class:`PNorm`
    For the l1 ball: ``w(z) = kappa ||z||_q^2 / 2`` with ``q = 1 + 1/ln p`` (``q = 2`` for ``p <= 2``) and
    ``kappa = 1 / (R^2 (q - 1) p^(2/q - 2))``: ``||z||_q^2 / 2`` is ``(q - 1)``-strongly convex w.r.t.
    ``||.||_q`` and ``||v||_q >= p^(1/q - 1) ||v||_1``. The step ``argmin_{||z||_1 <= R} w(z) - <theta, z>``,
    ``theta = grad w(z_k) - alpha g``, is ``z = grad w*(S_lambda(theta))`` (soft thresholding) with the
    smallest ``lambda >= 0`` that makes ``||z||_1 <= R`` (``||z(lambda)||_1`` is nonincreasing: it is the
    derivative of a concave dual), found by bisection to machine precision.
"""

from __future__ import annotations

import abc
import math

import numpy as np

from reference.domains import L1Ball, L2Ball
from spec.errors import ParameterError

__all__ = ["MirrorMap", "SquaredL2", "PNorm", "gradient_step", "l1_gradient_step", "minkowski_norm",
           "check_domain", "MIRROR_MAPS"]

#: Relative tolerance of the duality-gap check of the l1 gradient step.
GAP_TOLERANCE = 1e-9


def check_domain(domain):
    """``domain`` if DP-AccMD supports it (a centred l2 ball or an l1 ball), else ParameterError."""
    if isinstance(domain, L2Ball) and not np.any(domain.center):
        return domain
    if isinstance(domain, L1Ball):
        return domain
    raise ParameterError(
        f"domain ({domain!r}) must be an L2Ball centred at 0 or an L1Ball: DP-AccMD needs a centrally symmetric C "
        "whose Minkowski-norm gradient step is implemented"
    )


def minkowski_norm(domain, v):
    """``||v||_C`` (batched over leading axes)."""
    check_domain(domain)
    if isinstance(domain, L2Ball):
        return np.linalg.norm(v, axis=-1) / domain.radius
    return np.abs(v).sum(-1) / domain.radius


# --------------------------------------------------------------------------------------------
# line 6: the gradient step in ||.||_C


def gradient_step(domain, x, g, coefficient):
    """``argmin_{y in C} {(coefficient/2) ||y - x||_C^2 + <g, y - x>}`` for every row of ``x`` and ``g``.

    ``x`` must lie in C (it does in Algorithm 3: a convex combination of points of C).
    """
    check_domain(domain)
    if isinstance(domain, L2Ball):
        return domain.project_unchecked(x - (domain.radius**2 / coefficient) * g)
    a = coefficient / (2.0 * domain.radius**2)
    return l1_gradient_step(x, g, a=a, radius=domain.radius)


def _dual_value(nu, x, g, a, radius):
    big = np.abs(g).max(-1)
    r0 = np.maximum(radius - np.abs(x).sum(-1), 0.0)
    b = g * np.sign(x)
    terms = np.abs(x) * np.minimum(0.0, nu[..., None] - b)
    return terms.sum(-1) - r0 * (big - nu) / 2 - (big + nu) ** 2 / (16 * a)


def _dual_maximiser(x, g, a, radius):
    """The maximiser nu of psi on [-G, G], exactly (one candidate per piece; module docstring)."""
    big = np.abs(g).max(-1)  # (runs,)
    r0 = np.maximum(radius - np.abs(x).sum(-1), 0.0)
    w = np.abs(x)
    b = np.where(w > 0, g * np.sign(x), -np.inf)  # coordinates at 0 carry no kink
    order = np.argsort(b, axis=-1)
    bs = np.take_along_axis(b, order, -1)
    ws = np.take_along_axis(w, order, -1)
    p = x.shape[-1]
    # piece j is (bs[j-1], bs[j]) with bs[-1] = -inf, bs[p] = +inf; S_j = sum of weights with b > piece
    suffix = np.concatenate([np.cumsum(ws[..., ::-1], -1)[..., ::-1], np.zeros(ws.shape[:-1] + (1,))], -1)
    wb = np.where(ws > 0, ws * np.where(np.isfinite(bs), bs, 0.0), 0.0)
    suffix_b = np.concatenate([np.cumsum(wb[..., ::-1], -1)[..., ::-1], np.zeros(wb.shape[:-1] + (1,))], -1)
    lo = np.concatenate([np.full(bs.shape[:-1] + (1,), -np.inf), bs], -1)  # (runs, p + 1)
    hi = np.concatenate([bs, np.full(bs.shape[:-1] + (1,), np.inf)], -1)
    stationary = 8 * a * (suffix + r0[..., None] / 2) - big[..., None]
    cand = np.clip(np.clip(stationary, lo, hi), -big[..., None], big[..., None])
    value = (cand * suffix - suffix_b - r0[..., None] * (big[..., None] - cand) / 2
             - (big[..., None] + cand) ** 2 / (16 * a))
    # a piece entirely outside [-G, G] is clipped to an end where its S_j is wrong: evaluate exactly
    outside = (hi < -big[..., None]) | (lo > big[..., None])
    if np.any(outside):
        exact = _dual_value(cand.reshape(-1), np.repeat(x, p + 1, axis=0).reshape(-1, p),
                            np.repeat(g, p + 1, axis=0).reshape(-1, p), a, radius).reshape(cand.shape)
        value = np.where(outside, exact, value)
    j = np.argmax(value, -1)
    del p
    return np.take_along_axis(cand, j[..., None], -1)[..., 0]


def l1_gradient_step(x, g, *, a, radius):
    """``argmin_{||y||_1 <= radius} a ||y - x||_1^2 + <g, y - x>`` row by row, exactly (module docstring).

    Raises
    ------
    RuntimeError
        If the duality gap of the returned point exceeds ``GAP_TOLERANCE`` (relative): a bug, never
        silently a wrong step.
    """
    x = np.asarray(x, dtype=float)
    g = np.asarray(g, dtype=float)
    shape = x.shape
    x2, g2 = x.reshape(-1, shape[-1]), g.reshape(-1, shape[-1])
    big = np.abs(g2).max(-1)
    nu = _dual_maximiser(x2, g2, a, radius)
    lam = (big + nu) / 2
    mu = (big - nu) / 2
    t_star = lam / (2 * a)
    ax = np.abs(x2)
    b = g2 * np.sign(x2)
    nonzero = ax > 0
    # kinks within a relative 1e-12 of nu count as ties (their reduced cost, at most 1e-12 G |x_i|
    # per coordinate, is far inside the certificate's tolerance); strict comparisons would send a
    # coordinate whose b_i exceeds nu by a rounding error all the way to 0
    tol = 1e-12 * big[:, None]
    shrink = nonzero & (b > nu[:, None] + tol)
    tie = nonzero & (np.abs(b - nu[:, None]) <= tol)
    y = np.where(shrink, 0.0, x2)
    t0 = np.abs(y - x2).sum(-1)
    n0 = np.abs(y).sum(-1)
    room = np.where(tie, ax, 0.0).sum(-1)
    gap_t = t_star - t0
    both = mu > 0
    shrink_more = np.where(both, (gap_t - (radius - n0)) / 2, np.minimum(gap_t, room))
    shrink_more = np.clip(shrink_more, 0.0, room)
    outward = np.maximum(np.where(both, (gap_t + (radius - n0)) / 2, gap_t - shrink_more), 0.0)
    # ties, in index order, each up to |x_i|
    if np.any(tie):
        cap = np.where(tie, ax, 0.0)
        before = np.cumsum(cap, -1) - cap
        amount = np.clip(shrink_more[:, None] - before, 0.0, cap)
        y = np.where(tie, x2 - np.sign(x2) * amount, y)
    # the outward move, on the first coordinate of largest |g| (zero reduced cost there)
    j = np.argmax(np.abs(g2), -1)
    rows = np.arange(x2.shape[0])
    direction = -np.sign(g2[rows, j])
    y[rows, j] = y[rows, j] + direction * outward
    # certificate: feasibility and zero duality gap
    objective = a * np.abs(y - x2).sum(-1) ** 2 + ((y - x2) * g2).sum(-1)
    dual = _dual_value(nu, x2, g2, a, radius)
    scale = 1.0 + a * (2 * radius) ** 2 + big * 2 * radius
    bad = (objective - dual > GAP_TOLERANCE * scale) | (np.abs(y).sum(-1) > radius * (1 + 1e-12) + 1e-300)
    if np.any(bad):
        k = int(np.argmax(bad))
        raise RuntimeError(f"l1 gradient step not certified: primal {objective[k]!r}, dual {dual[k]!r} "
                           f"(x={x2[k].tolist()}, g={g2[k].tolist()}, a={a!r}, R={radius!r})")
    # rounding can leave ||y||_1 a few ulps above R: scale back onto the ball
    norm = np.abs(y).sum(-1)
    y = np.where((norm > radius)[:, None], y * (radius / np.maximum(norm, radius))[:, None], y)
    return y.reshape(shape)


# --------------------------------------------------------------------------------------------
# line 7: distance-generating functions


class MirrorMap(abc.ABC):
    """A distance-generating function ``w`` on C, 1-strongly convex w.r.t. ``||.||_C``.

    ``value(z)``, ``divergence(x, z) = B_w(x, z)``, ``step(z, g, alpha) = argmin_{z' in C} {B_w(z', z) +
    alpha <g, z' - z>}`` (line 7) and ``max_divergence``: ``sup_{x in C} B_w(x, 0)``, a public bound
    on ``B_w(x*, x_0)`` for ``x_0 = 0`` (Theorem 5.4's ``initial_divergence``).
    """

    def __init__(self, domain):
        self.domain = check_domain(domain)

    def __repr__(self):
        return f"{type(self).__name__}({self.domain!r})"

    @abc.abstractmethod
    def value(self, z): ...

    @abc.abstractmethod
    def grad(self, z): ...

    @abc.abstractmethod
    def step(self, z, g, alpha): ...

    @property
    @abc.abstractmethod
    def max_divergence(self) -> float: ...

    def divergence(self, x, z):
        """``B_w(x, z) = w(x) - w(z) - <grad w(z), x - z>``."""
        return self.value(x) - self.value(z) - ((x - z) * self.grad(z)).sum(-1)


class SquaredL2(MirrorMap):
    """``w(z) = ||z||_2^2 / (2 rho^2)``, ``rho`` the inradius of C (module docstring)."""

    @property
    def inradius(self) -> float:
        d = self.domain
        return d.radius if isinstance(d, L2Ball) else d.radius / math.sqrt(d.dim)

    def value(self, z):
        return (np.asarray(z) ** 2).sum(-1) / (2 * self.inradius**2)

    def grad(self, z):
        return np.asarray(z) / self.inradius**2

    def step(self, z, g, alpha):
        return self.domain.project_unchecked(z - (alpha * self.inradius**2) * g)

    @property
    def max_divergence(self) -> float:
        return self.domain.max_norm**2 / (2 * self.inradius**2)


class PNorm(MirrorMap):
    """``w(z) = kappa ||z||_q^2 / 2`` on the l1 ball (module docstring): the non-Euclidean choice."""

    def __init__(self, domain):
        super().__init__(domain)
        if not isinstance(self.domain, L1Ball):
            raise ParameterError(f"domain ({domain!r}) must be an L1Ball for the p-norm mirror map")
        p = self.domain.dim
        self.q = 2.0 if p <= 2 else 1.0 + 1.0 / math.log(p)
        self.q_dual = self.q / (self.q - 1.0)
        self.kappa = 1.0 / (self.domain.radius**2 * (self.q - 1.0) * p ** (2.0 / self.q - 2.0))

    @staticmethod
    def _grad_half_square(z, q):
        """grad of ||z||_q^2 / 2: sign(z) |z|^(q-1) / ||z||_q^(q-2) (0 at z = 0), scale-safe."""
        z = np.asarray(z, dtype=float)
        top = np.abs(z).max(-1, keepdims=True)
        safe = np.where(top > 0, top, 1.0)
        u = np.abs(z) / safe
        norm = (u**q).sum(-1, keepdims=True) ** (1.0 / q)
        norm = np.where(norm > 0, norm, 1.0)
        return np.sign(z) * safe * u ** (q - 1) / norm ** (q - 2)

    def value(self, z):
        return self.kappa * (np.abs(np.asarray(z)) ** self.q).sum(-1) ** (2.0 / self.q) / 2

    def grad(self, z):
        return self.kappa * self._grad_half_square(z, self.q)

    def _dual_point(self, theta):
        """grad w*(theta) = grad (||.||_{q*}^2 / 2)(theta) / kappa."""
        return self._grad_half_square(theta, self.q_dual) / self.kappa

    def step(self, z, g, alpha):
        theta = self.grad(z) - alpha * g
        radius = self.domain.radius
        free = self._dual_point(theta)
        inside = np.abs(free).sum(-1) <= radius
        lo = np.zeros(theta.shape[:-1])
        hi = np.abs(theta).max(-1)
        for _ in range(200):
            mid = (lo + hi) / 2
            zz = self._dual_point(np.sign(theta) * np.maximum(np.abs(theta) - mid[..., None], 0.0))
            over = np.abs(zz).sum(-1) > radius
            lo, hi = np.where(over, mid, lo), np.where(over, hi, mid)
            if np.all(hi - lo <= 4 * np.finfo(float).eps * np.maximum(hi, 1e-300)):
                break
        clipped = self._dual_point(np.sign(theta) * np.maximum(np.abs(theta) - hi[..., None], 0.0))
        out = np.where(inside[..., None], free, clipped)
        norm = np.abs(out).sum(-1)
        return np.where((norm > radius)[..., None], out * (radius / np.maximum(norm, radius))[..., None], out)

    @property
    def max_divergence(self) -> float:
        # B_w(x, 0) = w(x) = kappa ||x||_q^2 / 2 <= kappa R^2 / 2 (||x||_q <= ||x||_1 <= R)
        return self.kappa * self.domain.radius**2 / 2


#: The mirror maps by name (``dp_accmd(mirror_map=...)`` accepts a name or an instance).
MIRROR_MAPS = {"squared_l2": SquaredL2, "p_norm": PNorm}
