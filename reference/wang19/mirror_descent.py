r"""wang19 Algorithm 3 (DP-PMD): proximal mirror descent with Gaussian noise, and its
distance-generating functions; line for line and batched over runs.

The step is the generalised projection with ``1/gamma`` (the paper prints ``V(u, x)/2``; record
``wang19.alg_3``, erratum):

    x_{k+1} = argmin_{u in C} <grad F(x_k) + eps_k, u> + V(u, x_k)/gamma + r(u),

with ``V`` the Bregman divergence of a distance-generating function ``w`` of modulus 1 with respect to
the Minkowski norm ``||.||_C`` (``wang19.def_9``). A function ``w`` of modulus ``alpha`` is normalised to
``w/alpha``: then ``V/gamma = V_w/(alpha gamma)``, so every step below is the step of the raw ``w`` with
``eta = alpha gamma``.

Distance-generating functions (moduli from ``wang19.def_9``)
------------------------------------------------------------
:class:`SquaredL2`  ``w = ||x||_2^2/2`` on the centred l2 ball (modulus ``(||C||_2/2)^2``) or the l1 ball
    (``r^2/p``): ``V(u, x) = ||u - x||^2/2`` and the step is ``prox_{eta (r + indicator C)}(x - eta g)``
    (:func:`reference.proximal.prox`), i.e. DP-PGD's step at ``eta``.
:class:`PNorm`  ``w = ||x||_q^2/2`` on the l1 ball of radius ``R``, ``q = 1 + 1/ln p`` (``p >= 3``; 2 below)
    (modulus ``R^2 (q - 1) p^{2/q - 2}``), ``r = 0`` or ``lambda ||.||_1``. With ``theta = grad w(x) - eta g``
    the step minimises ``w(u) - <theta, u> + eta r(u)`` over the ball. For a multiplier ``mu >= 0`` of
    ``||u||_1 <= R`` the minimiser is ``u(mu) = grad w*(S_{eta lambda + mu}(theta))`` (``S`` the soft
    threshold, ``w* = ||.||_{q*}^2/2``, ``q* = q/(q - 1)``): ``grad w(u) = S(theta)`` has the signs of ``u``
    and ``|theta_i| <= eta lambda + mu`` where ``u_i = 0``, which are the optimality conditions. ``||u(mu)||_1``
    is nonincreasing in ``mu`` (it is the derivative of the concave dual function, plus ``R``), so ``mu`` is
    found by bisection on ``[0, max |theta|]``.
:class:`Entropy`  ``w = sum_i x_i ln x_i`` on the probability simplex (modulus 1 w.r.t. ``||.||_1``,
    Pinsker), ``r = 0`` or ``lambda ||.||_1`` (constant on the simplex): ``V`` is the Kullback-Leibler
    divergence and the step is ``x_{k+1} proportional to x_k exp(-eta g)``.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from reference.arrays import ArrayLike
from reference.configured import minimum_records, quantity
from reference.domains import Domain, L1Ball, L2Ball, Simplex
from reference.losses import L1Regulariser, Loss, Regulariser
from reference.problem import broadcast_start, check_problem, check_setting, start_point
from reference.proximal import prox_unchecked
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import NoiseLike
from reference.wang19.common import (
    RandomIterateBox,
    RandomIterateResult,
    Trajectory,
    Transcript,
    check_steps,
    gaussian_width,
    noise_sigma,
)
from spec import wang19 as _spec
from spec.errors import AssumptionError, ParameterError

__all__ = ["DistanceGenerating", "SquaredL2", "PNorm", "Entropy", "DPPMDResult", "MirrorDescent", "dp_pmd", "constants",
           "SPEC_IDS", "LABEL_NOISE", "LABEL_INDEX", "STEP_RULES"]

#: The records whose formulas and claims Algorithm 3 uses.
SPEC_IDS = ("wang19.alg_3", "wang19.eq_3", "wang19.thm_5", "wang19.def_9", "wang19.def_8")

LABEL_NOISE = "wang19 Alg.3 L2 eps_k"
LABEL_INDEX = "wang19 Alg.3 L4 R"

STEP_RULES = ("paper", "tuned")

#: Iterations of the p-norm step's multiplier search (Illinois; bisection would need about 60).
_BISECTION = 100


class DistanceGenerating(abc.ABC):
    """A distance-generating function ``w`` with its modulus (``wang19.def_9``) and its mirror step."""

    name = ""

    @abc.abstractmethod
    def modulus(self, domain: Domain) -> float:
        """Modulus of ``w`` w.r.t. the domain's norm (``wang19.def_9``); ParameterError where none is recorded."""

    @abc.abstractmethod
    def value(self, x: np.ndarray) -> np.ndarray:
        """``w(x)``, shape ``(...)``."""

    @abc.abstractmethod
    def gradient(self, x: np.ndarray) -> np.ndarray:
        """``grad w(x)``, shape ``(..., p)``."""

    def divergence(self, u: ArrayLike, x: ArrayLike) -> np.ndarray:
        """Bregman divergence ``V(u, x) = w(u) - w(x) - <grad w(x), u - x>``."""
        u, x = np.asarray(u, dtype=float), np.asarray(x, dtype=float)
        return self.value(u) - self.value(x) - np.einsum("...i,...i->...", self.gradient(x), u - x)

    @abc.abstractmethod
    def step(self, x: np.ndarray, g: np.ndarray, eta: float, domain: Domain,
             regulariser: Regulariser | None) -> np.ndarray:
        """``argmin_{u in C} <g, u> + V(u, x)/eta + r(u)`` for the raw ``w`` (unnormalised)."""

    def check(self, domain: Domain, regulariser: Regulariser | None) -> None:
        """Raise ParameterError unless this ``w`` supports ``(domain, regulariser)``."""
        self.modulus(domain)
        if regulariser is not None and not isinstance(regulariser, Regulariser):
            raise TypeError(f"regulariser ({type(regulariser).__name__}) must be a reference.losses.Regulariser")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class SquaredL2(DistanceGenerating):
    """``w = ||x||_2^2/2``: the Euclidean (proximal) step."""

    name = "squared_l2"

    def modulus(self, domain: Domain) -> float:
        if isinstance(domain, L2Ball) and not np.any(domain.center):
            return _spec.DEF_9.evaluate("modulus_squared_l2_on_l2_ball", diameter=domain.diameter)
        if isinstance(domain, L1Ball):
            return _spec.DEF_9.evaluate("modulus_squared_l2_on_l1_ball", l1_diameter=2.0 * domain.radius,
                                        dimension=domain.dim)
        raise ParameterError(f"SquaredL2 has a recorded modulus (wang19.def_9) on the centred L2Ball and the L1Ball, "
                             f"not on {domain!r}")

    def value(self, x: np.ndarray) -> np.ndarray:
        return 0.5 * np.einsum("...i,...i->...", x, x)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        return np.array(x, dtype=float, copy=True)

    def step(self, x: np.ndarray, g: np.ndarray, eta: float, domain: Domain,
             regulariser: Regulariser | None) -> np.ndarray:
        return prox_unchecked(x - eta * g, eta, domain, regulariser)


def _rows_max(a: np.ndarray) -> np.ndarray:
    return np.max(np.abs(a), axis=-1, keepdims=True)


def _pnorm_map(v: np.ndarray, r: float) -> np.ndarray:
    """``||v||_r^{2-r} sign(v) |v|^{r-1}`` (the gradient of ``||.||_r^2/2``), 0 at v = 0, without overflow."""
    m = _rows_max(v)
    safe = np.where(m > 0, m, 1.0)
    e = v / safe
    norm = np.sum(np.abs(e) ** r, axis=-1, keepdims=True) ** (1.0 / r)
    norm = np.where(norm > 0, norm, 1.0)
    return np.where(m > 0, safe * norm ** (2.0 - r) * np.sign(e) * np.abs(e) ** (r - 1.0), 0.0)


class PNorm(DistanceGenerating):
    """``w = ||x||_q^2/2`` with ``q = 1 + 1/ln p`` (``wang19.def_9`` ``pnorm_exponent``), on the l1 ball."""

    name = "pnorm"

    def exponent(self, dim: int) -> float:
        return _spec.DEF_9.evaluate("pnorm_exponent", dimension=dim)

    def modulus(self, domain: Domain) -> float:
        if not isinstance(domain, L1Ball):
            raise ParameterError(f"PNorm has a recorded modulus (wang19.def_9) on the L1Ball only, not on {domain!r}")
        return _spec.DEF_9.evaluate("modulus_pnorm_on_l1_ball", l1_diameter=2.0 * domain.radius, dimension=domain.dim)

    def check(self, domain: Domain, regulariser: Regulariser | None) -> None:
        super().check(domain, regulariser)
        if regulariser is not None and not isinstance(regulariser, L1Regulariser):
            raise ParameterError(f"PNorm's step is implemented for r = 0 or an L1Regulariser, not {regulariser!r}")

    def value(self, x: np.ndarray) -> np.ndarray:
        q = self.exponent(np.shape(x)[-1])
        m = _rows_max(np.asarray(x, dtype=float))[..., 0]
        safe = np.where(m > 0, m, 1.0)
        e = np.asarray(x, dtype=float) / safe[..., None]
        return 0.5 * (safe * np.sum(np.abs(e) ** q, axis=-1) ** (1.0 / q)) ** 2 * (m > 0)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return _pnorm_map(x, self.exponent(x.shape[-1]))

    def step(self, x: np.ndarray, g: np.ndarray, eta: float, domain: Domain,
             regulariser: Regulariser | None) -> np.ndarray:
        q = self.exponent(x.shape[-1])
        q_star = q / (q - 1.0)
        theta = _pnorm_map(x, q) - eta * g
        base = 0.0 if regulariser is None else eta * regulariser.strength
        radius = domain.radius

        def solution(th, mu):
            return _pnorm_map(np.sign(th) * np.maximum(np.abs(th) - (base + mu), 0.0), q_star)

        u = solution(theta, 0.0)
        outside = np.abs(u).sum(axis=-1) > radius
        if np.any(outside):
            th = theta[outside]
            mu = _multiplier(lambda m: np.abs(solution(th, m)).sum(axis=-1, keepdims=True) - radius,
                             np.zeros((th.shape[0], 1)), _rows_max(th))
            inside = solution(th, mu)
            l1 = np.abs(inside).sum(axis=-1, keepdims=True)
            u[outside] = inside * np.minimum(1.0, radius / np.where(l1 > 0, l1, 1.0))  # rounding only
        return u


def _multiplier(f, lo, hi):
    """The root in ``[lo, hi]`` of a nonincreasing ``f`` with ``f(lo) > 0 >= f(hi)``, per row: the Illinois
    variant of regula falsi (superlinear), safeguarded by bisection; returns a point with ``f <= 0`` (the
    feasible side) within a relative ``1e-15`` of the root."""
    f_lo, f_hi = f(lo), f(hi)
    side = np.zeros_like(lo)
    for _ in range(_BISECTION):
        width = hi - lo
        if np.all(width <= 1e-15 * np.maximum(hi, 1e-300)):
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            mid = hi - f_hi * width / (f_hi - f_lo)
        bad = ~np.isfinite(mid) | (mid <= lo) | (mid >= hi)
        mid = np.where(bad, 0.5 * (lo + hi), mid)
        f_mid = f(mid)
        over = f_mid > 0
        # Illinois: halve the kept end's value when the same end is kept twice
        f_lo = np.where(over, f_mid, np.where(side < 0, 0.5 * f_lo, f_lo))
        f_hi = np.where(over, np.where(side > 0, 0.5 * f_hi, f_hi), f_mid)
        side = np.where(over, 1.0, -1.0)
        lo, hi = np.where(over, mid, lo), np.where(over, hi, mid)
    return hi


class Entropy(DistanceGenerating):
    """``w = sum_i x_i ln x_i`` on the probability simplex: the multiplicative-weights step."""

    name = "entropy"

    def modulus(self, domain: Domain) -> float:
        if not (isinstance(domain, Simplex) and domain.scale == 1.0):
            raise ParameterError(f"Entropy has a recorded modulus (wang19.def_9) on the probability Simplex "
                                 f"(scale 1) only, not on {domain!r}")
        return _spec.DEF_9.evaluate("modulus_entropy_on_simplex")

    def check(self, domain: Domain, regulariser: Regulariser | None) -> None:
        super().check(domain, regulariser)
        if regulariser is not None and not isinstance(regulariser, L1Regulariser):
            raise ParameterError(f"Entropy's step is implemented for r = 0 or an L1Regulariser (constant on the "
                                 f"simplex), not {regulariser!r}")

    def value(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.sum(np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0), axis=-1)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore"):
            return np.log(x) + 1.0

    def step(self, x: np.ndarray, g: np.ndarray, eta: float, domain: Domain,
             regulariser: Regulariser | None) -> np.ndarray:
        with np.errstate(divide="ignore"):
            logits = np.log(x) - eta * g
        logits = logits - np.max(logits, axis=-1, keepdims=True)
        w = np.exp(logits)
        return w / np.sum(w, axis=-1, keepdims=True)


_MIRRORS = {"squared_l2": SquaredL2, "pnorm": PNorm, "entropy": Entropy}


def _mirror(mirror) -> DistanceGenerating:
    if isinstance(mirror, DistanceGenerating):
        return mirror
    if isinstance(mirror, str) and mirror in _MIRRORS:
        return _MIRRORS[mirror]()
    raise ParameterError(f"mirror ({mirror!r}) must be a DistanceGenerating or one of {sorted(_MIRRORS)}")


@dataclass(frozen=True)
class DPPMDResult(RandomIterateResult, AlgorithmResult):
    """Output of :func:`dp_pmd`: :class:`~reference.wang19.common.RandomIterateResult` plus ``sigma``,
    ``calibration``, ``mirror`` (its name), ``modulus`` (alpha of ``wang19.def_9``) and ``gaussian_width``.
    The transcript holds ``"noisy_gradient"`` and ``"x"`` (``x_{k+1}``)."""

    sigma: float = 0.0
    calibration: str = "zcdp"
    mirror: str = ""
    modulus: float = 1.0
    gaussian_width: float = 0.0


def constants(*, loss: Loss, domain: Domain, mirror: DistanceGenerating | str, n: int, epsilon: float, delta: float,
              steps: int | str = "paper", calibration: str = "zcdp",
              initial_gap: float | None = None) -> tuple[int, float, float, float, float | None]:
    """``(T, sigma, gamma, alpha, G_C)`` of Algorithm 3 from ``wang19.thm_5``, ``eq_3``, ``def_9``, ``def_8``."""
    c = loss.constants
    if not (c.smoothness > 0 and math.isfinite(c.smoothness)):
        raise AssumptionError(f"loss smoothness ({c.smoothness!r}) must be finite and > 0: the step is "
                              "1/(2 L ||C||_2^2) (wang19.thm_5)")
    rule = check_steps(steps, STEP_RULES)
    alpha = _mirror(mirror).modulus(domain)
    diameter = domain.diameter
    width = gaussian_width(domain) if isinstance(rule, str) else None
    if rule == "paper":
        t = _spec.THM_5.evaluate("steps", n=n, epsilon=epsilon, delta=delta, diameter=diameter, gaussian_width=width)
    elif rule == "tuned":
        if initial_gap is None:
            raise AssumptionError("initial_gap (None) must be a public bound h_0 for steps='tuned'")
        t = _spec.THM_5.evaluate("steps_tuned", n=n, epsilon=epsilon, delta=delta, diameter=diameter,
                                 gaussian_width=width, lipschitz=c.lipschitz, smoothness=c.smoothness,
                                 initial_gap=initial_gap)
    else:
        t = rule
    t = int(t)
    sigma = noise_sigma(lipschitz=c.lipschitz, n=n, epsilon=epsilon, delta=delta, steps=t, calibration=calibration)
    gamma = _spec.THM_5.evaluate("learning_rate", smoothness=c.smoothness, diameter=diameter)
    return t, sigma, gamma, alpha, width


@dataclass(frozen=True, kw_only=True, eq=False)
class MirrorDescent(RandomIterateBox):
    r"""Algorithm 3, DP-PMD, configured: T, sigma, gamma, the mirror map's modulus and G_C, before any data.

    Privacy
    -------
    ``wang19.alg_3`` (``wang19.eq_3``): the noisy gradients are (epsilon, delta)-DP under replace-one; the
    mirror steps and ``x_R`` are post-processing.

    Utility
    -------
    ``wang19.thm_5``: ``E||g_{C,R}||_2``, ``g_{C,R} = (x_R - x_{R+1})/gamma``.
    """

    ALGORITHM: ClassVar[str] = "wang19.alg_3"
    RESULT: ClassVar[type] = DPPMDResult

    mirror: DistanceGenerating = field(repr=False)
    calibration: str = "zcdp"
    sigma: float = quantity("per-coordinate noise standard deviation (step 2)", source="wang19.eq_3")
    modulus: float = quantity("alpha, the modulus of the distance-generating function w", source="wang19.def_9")
    gaussian_width: float = quantity("G_C, the Gaussian width of C (nan when not needed)", source="wang19.def_8")

    def privacy_record(self) -> str:
        return "wang19.eq_3"

    @classmethod
    def configure(cls, *, loss: Loss, domain: Domain, n: int, epsilon: float, delta: float,
                  mirror: DistanceGenerating | str = "squared_l2", regulariser: Regulariser | None = None,
                  steps: int | str = "paper", x_1: ArrayLike | None = None, calibration: str = "zcdp",
                  initial_gap: float | None = None, allow_unproven: bool = False) -> "MirrorDescent":
        r"""Configure Algorithm 3 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            Smooth (``0 < L < inf``), possibly non-convex; ``G = loss.constants.lipschitz``.
        domain : reference.domains.Domain
            The set C, one of the domains of ``mirror``.
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            The target budget.
        mirror : {"squared_l2", "pnorm", "entropy"} or DistanceGenerating
            The distance-generating function w, normalised to modulus 1 by its recorded modulus.
        regulariser : reference.losses.Regulariser, optional
            The convex ``r``; ``None`` for r = 0.
        steps : {"paper", "tuned"} or int
            ``wang19.thm_5`` formula ``steps`` / ``steps_tuned``, or a public integer.
        x_1 : array_like, optional
            A public start point in C; by default ``domain.interior_point()`` (strictly positive for the
            entropy).
        calibration : {"zcdp", "rdp", "rdp-mironov", "exact"}
            The noise calibration (``spec.wang19.sigma``).
        initial_gap : float, optional
            A public ``h_0``, for ``steps="tuned"``.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        MirrorDescent
        """
        check_setting(loss=loss, domain=domain, convex=False)
        n = minimum_records(n, cls.ALGORITHM)
        w = _mirror(mirror)
        w.check(domain, regulariser)
        t, sigma, gamma, alpha, width = constants(loss=loss, domain=domain, mirror=w, n=n, epsilon=epsilon,
                                                  delta=delta, steps=steps, calibration=calibration,
                                                  initial_gap=initial_gap)
        start = start_point("x_1", x_1, domain)
        if isinstance(w, Entropy) and not np.all(start > 0):
            raise ParameterError("x_1 must have positive entries for the entropy (the relative interior of the simplex)")
        return cls(loss=loss, domain=domain, regulariser=regulariser, n=n, p=domain.dim, epsilon=float(epsilon),
                   delta=float(delta), options={"mirror": w.name if isinstance(mirror, str) else mirror,
                                                "steps": steps, "x_1": x_1, "calibration": calibration,
                                                "initial_gap": initial_gap},
                   spec_ids=SPEC_IDS, flags=(f"{calibration}-calibration", f"mirror-{w.name.replace('_', '-')}"),
                   notes=cls.default_notes(steps, t, "wang19.thm_5"), allow_unproven=allow_unproven, x_1=start,
                   steps=t, learning_rate=gamma, mirror=w, calibration=calibration, sigma=sigma, modulus=alpha,
                   gaussian_width=np.nan if width is None else width)._finish()

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, loss, domain, regulariser, w, p = noise, self.loss, self.domain, self.regulariser, self.mirror, self.p
        steps, sigma, gamma = self.steps, self.sigma, self.learning_rate
        x = broadcast_start("x_1", self.x_1, runs=runs)
        x_first = x.copy()
        eta = self.modulus * gamma  # V/gamma with V = V_w/alpha (w normalised to modulus 1)

        # [wang19 Alg.3 L4] R uniform on {1, ..., T}, independent of the data (drawn first)
        index = src.integers(LABEL_INDEX, steps, (runs,)) + 1
        track = Trajectory(x, index, steps, transcript, "noisy_gradient")
        for k in range(1, steps + 1):  # [wang19 Alg.3 L1] for k = 1, ..., T
            # [wang19 Alg.3 L2] eps_k ~ N(0, sigma^2 I_p); the released noisy gradient grad F(x_k) + eps_k
            g = loss.total_gradient(x, rows, normalisation="average", check=False) + sigma * src.normal(LABEL_NOISE, (runs, p))
            # [wang19 Alg.3 L2] x_{k+1} = argmin_{u in C} <g, u> + V(u, x_k)/gamma + r(u)
            x = w.step(x, g, eta, domain, regulariser)
            track.step(k, g, x)
            progress(k, steps)
        # [wang19 Alg.3 L3] end for
        track.check_complete()

        # [wang19 Alg.3 L4] return x_R
        return dict(theta=track.x, index=index, x_next=track.x_next, steps=steps, learning_rate=gamma, x_1=x_first,
                    transcript=track.stacked(), sigma=sigma, calibration=self.calibration, mirror=w.name,
                    modulus=self.modulus, gaussian_width=self.gaussian_width)


def dp_pmd(data: ArrayLike, *, loss: Loss, domain: Domain, epsilon: float, delta: float,
           mirror: DistanceGenerating | str = "squared_l2", regulariser: Regulariser | None = None,
           steps: int | str = "paper", runs: int = 1, x_1: ArrayLike | None = None, calibration: str = "zcdp",
           initial_gap: float | None = None, rng: RngLike = None, noise: NoiseLike = None,
           transcript: Transcript = None) -> DPPMDResult:
    r"""Algorithm 3, DP-PMD: :meth:`MirrorDescent.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data, loss, domain, epsilon, delta, mirror, regulariser, steps, x_1, calibration, initial_gap
        As in :meth:`MirrorDescent.configure`.
    runs : int
        Independent executions (shared data).
    rng, noise
        The tape gets ``integers`` ``"wang19 Alg.3 L4 R"`` (``high = T``), then per step ``normal``
        ``"wang19 Alg.3 L2 eps_k"`` of shape ``(runs, p)``.
    transcript : callable or True, optional
        ``state = {"noisy_gradient": grad F(x_k) + eps_k, "x": x_{k+1}}`` after every step.

    Returns
    -------
    DPPMDResult

    Privacy
    -------
    ``wang19.alg_3`` (``wang19.eq_3``).

    Utility
    -------
    ``wang19.thm_5``: ``E||g_{C,R}||_2``, ``g_{C,R} = (x_R - x_{R+1})/gamma``.
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain, convex=False)
    configured = MirrorDescent.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta, mirror=mirror,
                                         regulariser=regulariser, steps=steps, x_1=x_1, calibration=calibration,
                                         initial_gap=initial_gap, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
