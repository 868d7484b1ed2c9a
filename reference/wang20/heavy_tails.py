r"""Heavy-tailed data with known population quantities, for wang20's audits.

wang20's claims bound the excess *population* risk ``L_D(w) - L_D(w*)``, so an audit needs a data
law whose minimiser ``w*`` and risk are known: exactly for the regression and mean-estimation
problems below, to a stated Monte Carlo precision for logistic regression. Every draw goes through
a :class:`~reference.tape.NoiseSource` (standardised, labelled draws), so data sets are seeded and
replayable like the algorithms' noise.

Laws (:class:`Law`): zero mean, unit variance
---------------------------------------------
=====================  ===========================================  ==========  ===============================
law                    construction (standardised draws)            tail index  kurtosis ``E X^4``
=====================  ===========================================  ==========  ===============================
``gaussian``           ``Z``                                        inf         3
``laplace``            ``L / sqrt 2``, L standard Laplace           inf         6
``student_t``          ``Z sqrt((nu - 2)/(2 G))``, G ~ Gamma(nu/2)  nu          ``3 (nu - 2)/(nu - 4)`` (nu > 4)
``pareto``             ``sign(U - 1/2) e^{E/alpha} sqrt((alpha-2)/alpha)``  alpha  ``(alpha-2)^2/(alpha(alpha-4))``
``pareto_right``       ``(e^{E/alpha} - alpha/(alpha-1))/sd``, E ~ Exp(1)  alpha       ``mu_4/sd^4`` (alpha > 4)
``lognormal``          ``(e^{s Z} - e^{s^2/2}) / sqrt((e^{s^2} - 1) e^{s^2})``  inf  ``e^{4s^2} + 2e^{3s^2} + 3e^{2s^2} - 3``
=====================  ===========================================  ==========  ===============================

(t_nu is ``Z / sqrt(chi2_nu / nu)`` with ``chi2_nu = 2 Gamma(nu/2)``, variance ``nu/(nu - 2)``; the
symmetric Pareto has ``E|X|^k = alpha/(alpha - k)`` before scaling; ``pareto_right`` is the
one-sided Pareto law (``x_m = 1``, raw moments ``alpha/(alpha - k)``) centred and scaled, with
``sd^2 = alpha/((alpha - 1)^2 (alpha - 2))`` and ``mu_4`` its fourth central moment from the raw ones:
a right tail of index alpha, the law whose clipping biases the mean; the log-normal is centred
and skewed.) The kurtosis is infinite when the tail index is at most 4; the variance needs tail index
above 2.

Problems
--------
:class:`LinearRegression`
    ``x = f X`` with i.i.d. coordinates ``X_j`` of a law and a scale ``f`` (``feature_scale``),
    ``y = <w*, x> + s e``, ``e`` of another law, independent of ``x``; loss ``(<w, x> - y)^2/2``.
    Since ``E x x^T = f^2 I`` and ``E e = 0``, ``L_D(w) = f^2 ||w - w*||^2/2 + s^2/2`` exactly:
    ``w*`` minimises it over any ``W`` containing it, smoothness and strong convexity are ``f^2``,
    and the excess risk is ``f^2 ||w - w*||^2/2``. Assumption 4: with ``u = w - w*``,
    ``E (grad_j l)^2 = E[(<u, x> - s e)^2 x_j^2] = f^4 (||u||^2 + (kappa - 1) u_j^2) + s^2 f^2``
    (independent zero-mean coordinates kill every cross term), whose supremum over
    ``||u|| <= R_u`` is ``v = f^4 kappa R_u^2 + s^2 f^2`` (at ``u = R_u e_j``),
    ``R_u = ||c - w*|| + R`` for the ball of radius ``R`` about ``c``.
:class:`MeanEstimation`
    ``d = mu + scale X``, loss ``||w - d||^2/2``: ``L_D(w) = ||w - mu||^2/2 + p scale^2/2``; the
    gradient ``w - d`` has mean ``w - mu`` (coordinates in ``[-R_u, R_u]``: Assumption 3.2) and, for
    a symmetric law, a symmetric law, so trimming does not bias it; ``v = R_u^2 + scale^2``.
:class:`LogisticRegression`
    ``x`` i.i.d., ``y = +1`` with probability ``sigmoid(<w*, x>)``: the model is well specified, so
    ``E grad l(w*, (x, y)) = 0`` and ``w*`` minimises the (strictly convex) population risk.
    Conditionally on ``x`` the excess risk is ``KL(Bern(s(m*)) || Bern(s(m)))``, ``m = <w, x>``,
    ``m* = <w*, x>``; :meth:`LogisticRegression.excess_risk` averages it over a fixed evaluation
    sample and reports the standard error (the stated precision). ``|grad_j l| <= |x_j|``, so
    ``v = 1``; the Hessian is at most ``E x x^T / 4``: smoothness 1/4.

Clipping (:func:`clip_rows`) is the explicit, opt-in transform the baselines that need bounded data
(bst14, wang19) are run on; the wang20 algorithms never clip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from reference.arrays import l2_norm
from reference.arrays import vector as _vector
from reference.domains import L2Ball
from reference.losses import HeavyTailedHalfSquaredDistance, HeavyTailedLeastSquares, HeavyTailedLogistic
from reference.tape import NoiseSource, noise_source
from spec import validate
from spec.errors import ParameterError

__all__ = [
    "LAWS",
    "Law",
    "law",
    "LinearRegression",
    "MeanEstimation",
    "LogisticRegression",
    "clip_rows",
    "LABEL_PREFIX",
]

#: Prefix of every tape label the data generators draw under.
LABEL_PREFIX = "wang20 data"
LAWS = ("gaussian", "laplace", "student_t", "pareto", "pareto_right", "lognormal")


@dataclass(frozen=True)
class Law:
    """A zero-mean, unit-variance law of one coordinate (module docstring).

    Attributes
    ----------
    name : str
        One of :data:`LAWS`.
    parameter : float or None
        Degrees of freedom ``nu > 2`` (student_t), tail index ``alpha > 2`` (pareto), log-scale
        ``s > 0`` (lognormal); ``None`` otherwise.
    """

    name: str
    parameter: float | None = None

    @property
    def tail_index(self) -> float:
        """The largest finite moment order (``inf`` for light tails)."""
        return float(self.parameter) if self.name in ("student_t", "pareto", "pareto_right") else math.inf

    @property
    def symmetric(self) -> bool:
        return self.name not in ("lognormal", "pareto_right")

    @property
    def kurtosis(self) -> float:
        """``E X^4`` (the variance is 1); ``inf`` when the tail index is at most 4."""
        p = self.parameter
        if self.name == "gaussian":
            return 3.0
        if self.name == "laplace":
            return 6.0
        if self.name == "student_t":
            return 3.0 * (p - 2.0) / (p - 4.0) if p > 4 else math.inf
        if self.name == "pareto":
            return (p - 2.0) ** 2 / (p * (p - 4.0)) if p > 4 else math.inf
        if self.name == "pareto_right":
            if not p > 4:
                return math.inf
            raw = [p / (p - k) for k in range(5)]
            m = raw[1]
            mu4 = raw[4] - 4 * m * raw[3] + 6 * m * m * raw[2] - 3 * m**4
            return mu4 / _pareto_right_sd(p) ** 4
        e = math.exp(p * p)
        return e**4 + 2 * e**3 + 3 * e**2 - 3.0

    def rvs(self, shape, *, noise: NoiseSource, label: str) -> np.ndarray:
        """Draws of shape ``shape`` from the source ``noise`` (labels ``label + ": ..."``)."""
        shape = tuple(int(s) for s in shape)
        p = self.parameter
        if self.name == "gaussian":
            return noise.normal(f"{label}: normal", shape)
        if self.name == "laplace":
            return noise.laplace(f"{label}: laplace", shape) / math.sqrt(2.0)
        if self.name == "student_t":
            z = noise.normal(f"{label}: normal", shape)
            g = noise.gamma(f"{label}: gamma", p / 2.0, shape)
            return z * np.sqrt((p - 2.0) / (2.0 * g))
        if self.name == "pareto":
            u = noise.uniform(f"{label}: sign", shape)
            e = noise.exponential(f"{label}: exponential", shape)
            return np.where(u < 0.5, -1.0, 1.0) * np.exp(e / p) * math.sqrt((p - 2.0) / p)
        if self.name == "pareto_right":
            e = noise.exponential(f"{label}: exponential", shape)
            return (np.exp(e / p) - p / (p - 1.0)) / _pareto_right_sd(p)
        z = noise.normal(f"{label}: normal", shape)
        sd = math.sqrt(math.expm1(p * p) * math.exp(p * p))
        return (np.exp(p * z) - math.exp(p * p / 2.0)) / sd


def _pareto_right_sd(alpha: float) -> float:
    return math.sqrt(alpha / ((alpha - 1.0) ** 2 * (alpha - 2.0)))


def law(name, parameter=None) -> Law:
    """A :class:`Law`, validated: ``student_t``, ``pareto`` and ``pareto_right`` need a parameter ``> 2``
    (finite variance)."""
    name = validate.choice("name", name, LAWS)
    if name in ("gaussian", "laplace"):
        if parameter is not None:
            raise ParameterError(f"parameter ({parameter!r}) must be None for the {name} law")
        return Law(name)
    if name in ("student_t", "pareto", "pareto_right"):
        value = validate.real("parameter", parameter)
        if not value > 2:
            raise ParameterError(f"parameter ({value!r}) must be > 2 for the {name} law (finite variance)")
        return Law(name, value)
    return Law(name, validate.positive("parameter", parameter))


def _ball(domain) -> L2Ball:
    if not isinstance(domain, L2Ball):
        raise TypeError(f"domain ({type(domain).__name__}) must be an L2Ball (the suprema below are over a ball)")
    return domain


def _thetas(theta, p: int) -> np.ndarray:
    arr = np.asarray(theta, dtype=float)
    if arr.shape[-1:] != (p,):
        raise ParameterError(f"theta (shape {arr.shape}) must have shape (..., {p})")
    return arr


@dataclass(frozen=True)
class LinearRegression:
    """``y = <w*, x> + noise_scale e`` with i.i.d. coordinates of ``features`` (module docstring).

    Parameters
    ----------
    minimiser : array_like, shape (p,)
        ``w*``.
    features, noise : Law
        Laws of each feature coordinate and of ``e`` (zero mean, unit variance).
    noise_scale : float
        ``s >= 0``.
    feature_scale : float
        ``f > 0``: the curvature of the population risk is ``f^2``.
    """

    minimiser: np.ndarray
    features: Law
    noise: Law
    noise_scale: float = 1.0
    feature_scale: float = 1.0
    loss: HeavyTailedLeastSquares = field(default_factory=HeavyTailedLeastSquares, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "minimiser", _vector("minimiser", self.minimiser))
        object.__setattr__(self, "noise_scale", validate.nonnegative("noise_scale", self.noise_scale))
        object.__setattr__(self, "feature_scale", validate.positive("feature_scale", self.feature_scale))

    @property
    def dimension(self) -> int:
        return int(self.minimiser.size)

    def sample(self, n, *, rng=None, noise=None) -> np.ndarray:
        """``(n, p + 1)`` rows ``[x, y]``; tape labels ``"wang20 data features: ..."``, ``"... noise: ..."``."""
        n = validate.positive_integer("n", n)
        src = noise_source(rng=rng, noise=noise)
        x = self.feature_scale * self.features.rvs((n, self.dimension), noise=src, label=f"{LABEL_PREFIX} features")
        e = self.noise.rvs((n,), noise=src, label=f"{LABEL_PREFIX} noise")
        return np.column_stack([x, x @ self.minimiser + self.noise_scale * e])

    def risk(self, theta):
        """``L_D(theta) = f^2 ||theta - w*||^2/2 + s^2/2`` (exact), shape ``theta.shape[:-1]``."""
        return self.excess_risk(theta) + 0.5 * self.noise_scale**2

    def excess_risk(self, theta):
        """``f^2 ||theta - w*||^2/2`` (exact; ``w*`` must lie in the domain for this to be the excess over W)."""
        d = _thetas(theta, self.dimension) - self.minimiser
        return 0.5 * self.feature_scale**2 * np.sum(d * d, axis=-1)

    @property
    def smoothness(self) -> float:
        """``f^2`` (the Hessian of ``L_D`` is ``f^2 I``)."""
        return self.feature_scale**2

    @property
    def strong_convexity(self) -> float:
        return self.feature_scale**2

    def second_moment(self, domain) -> float:
        """``v = f^4 kappa R_u^2 + s^2 f^2``: the supremum of ``E (grad_j l(w, .))^2`` over the ball ``domain``."""
        r_u = self._reach(domain)
        kappa = self.features.kurtosis
        if not math.isfinite(kappa):
            raise ParameterError(f"features ({self.features}) must have a finite fourth moment (tail index > 4) for "
                                 "Assumption 4 to hold")
        f2 = self.feature_scale**2
        return f2 * f2 * kappa * r_u**2 + self.noise_scale**2 * f2

    def _reach(self, domain) -> float:
        ball = _ball(domain)
        if ball.dim != self.dimension:
            raise ParameterError(f"domain (dimension {ball.dim}) must have dimension {self.dimension}")
        return float(np.linalg.norm(ball.center - self.minimiser)) + ball.radius


@dataclass(frozen=True)
class MeanEstimation:
    """``d = mu + scale X`` with i.i.d. coordinates of ``law`` (module docstring).

    Parameters
    ----------
    mean : array_like, shape (p,)
        ``mu`` (the population minimiser).
    law : Law
    scale : float
        ``> 0``.
    """

    mean: np.ndarray
    law: Law
    scale: float = 1.0
    loss: HeavyTailedHalfSquaredDistance = field(default_factory=HeavyTailedHalfSquaredDistance, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "mean", _vector("mean", self.mean))
        object.__setattr__(self, "scale", validate.positive("scale", self.scale))

    @property
    def dimension(self) -> int:
        return int(self.mean.size)

    @property
    def minimiser(self) -> np.ndarray:
        return self.mean

    def sample(self, n, *, rng=None, noise=None) -> np.ndarray:
        """``(n, p)`` rows; tape label ``"wang20 data points: ..."``."""
        n = validate.positive_integer("n", n)
        src = noise_source(rng=rng, noise=noise)
        return self.mean + self.scale * self.law.rvs((n, self.dimension), noise=src, label=f"{LABEL_PREFIX} points")

    def risk(self, theta):
        """``||theta - mu||^2/2 + p scale^2/2`` (exact)."""
        return self.excess_risk(theta) + 0.5 * self.dimension * self.scale**2

    def excess_risk(self, theta):
        """``||theta - mu||^2/2`` (exact)."""
        d = _thetas(theta, self.dimension) - self.mean
        return 0.5 * np.sum(d * d, axis=-1)

    smoothness = 1.0
    strong_convexity = 1.0

    def second_moment(self, domain) -> float:
        """``v = R_u^2 + scale^2``."""
        ball = _ball(domain)
        r_u = float(np.linalg.norm(ball.center - self.mean)) + ball.radius
        return r_u**2 + self.scale**2

    def mean_range(self, domain) -> tuple[float, float]:
        """``[a, b] = [-R_u, R_u]``: every gradient coordinate's mean ``w_j - mu_j`` lies in it (Assumption 3.2)."""
        ball = _ball(domain)
        r_u = float(np.linalg.norm(ball.center - self.mean)) + ball.radius
        return -r_u, r_u


#: Size of the evaluation sample behind LogisticRegression.excess_risk.
EVALUATION_SIZE = 200_000


@dataclass(frozen=True)
class LogisticRegression:
    """Well-specified logistic regression: ``P(y = 1 | x) = sigmoid(<w*, x>)`` (module docstring).

    Parameters
    ----------
    minimiser : array_like, shape (p,)
        ``w*``.
    features : Law
    evaluation_seed : int
        Seed of the fixed evaluation sample of :meth:`excess_risk`.
    """

    minimiser: np.ndarray
    features: Law
    evaluation_seed: int = 20200713
    loss: HeavyTailedLogistic = field(default_factory=HeavyTailedLogistic, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "minimiser", _vector("minimiser", self.minimiser))

    @property
    def dimension(self) -> int:
        return int(self.minimiser.size)

    def sample(self, n, *, rng=None, noise=None) -> np.ndarray:
        """``(n, p + 1)`` rows ``[x, y]``; tape labels ``"wang20 data features: ..."``, ``"wang20 data labels"``."""
        n = validate.positive_integer("n", n)
        src = noise_source(rng=rng, noise=noise)
        x = self.features.rvs((n, self.dimension), noise=src, label=f"{LABEL_PREFIX} features")
        u = src.uniform(f"{LABEL_PREFIX} labels", (n,))
        y = np.where(u < special.expit(x @ self.minimiser), 1.0, -1.0)
        return np.column_stack([x, y])

    def _evaluation(self) -> np.ndarray:
        cache = self.__dict__.get("_features_cache")
        if cache is None:
            src = noise_source(rng=self.evaluation_seed)
            cache = self.features.rvs((EVALUATION_SIZE, self.dimension), noise=src, label=f"{LABEL_PREFIX} evaluation")
            object.__setattr__(self, "_features_cache", cache)
        return cache

    def excess_risk_with_error(self, theta) -> tuple[np.ndarray, np.ndarray]:
        """``(estimate, standard error)`` of ``L_D(theta) - L_D(w*)``, shape ``theta.shape[:-1]`` each.

        The mean over the fixed evaluation sample of ``KL(Bern(s(m*)) || Bern(s(m)))`` (the
        conditional excess risk given ``x``, non-negative), and its standard error.
        """
        t = _thetas(theta, self.dimension)
        x = self._evaluation()
        m_star = x @ self.minimiser
        flat = t.reshape(-1, self.dimension)
        est = np.empty(flat.shape[0])
        err = np.empty(flat.shape[0])
        p = special.expit(m_star)
        for i, w in enumerate(flat):
            m = x @ w
            # KL(Bern(p) || Bern(q)) with log q = -softplus(-m), log(1 - q) = -softplus(m)
            kl = (p * (np.logaddexp(0.0, -m) - np.logaddexp(0.0, -m_star))
                  + (1 - p) * (np.logaddexp(0.0, m) - np.logaddexp(0.0, m_star)))
            est[i] = kl.mean()
            err[i] = kl.std(ddof=1) / math.sqrt(kl.size)
        return est.reshape(t.shape[:-1]), err.reshape(t.shape[:-1])

    def excess_risk(self, theta):
        """The estimate of :meth:`excess_risk_with_error`."""
        return self.excess_risk_with_error(theta)[0]

    #: ``E x x^T / 4`` bounds the Hessian.
    smoothness = 0.25

    def second_moment(self, domain=None) -> float:
        """``v = 1``: ``|grad_j l| <= |x_j|`` and ``E x_j^2 = 1``."""
        return 1.0


def clip_rows(rows, *, feature_norm, label_bound=None) -> np.ndarray:
    """The explicit clipping transform of the baselines: ``x -> x min(1, X/||x||)``, ``y -> clip(y, -Y, Y)``.

    Parameters
    ----------
    rows : array_like, shape (n, k)
        ``[x, y]`` rows (``label_bound`` given) or points ``d`` (``label_bound=None``).
    feature_norm : float
        ``X > 0``.
    label_bound : float, optional
        ``Y >= 0``.

    Returns
    -------
    ndarray
        A new array; the data the bounded losses of bst14 and wang19 accept. Clipping changes the
        problem (its minimiser is not ``w*``): the bias the comparison measures.
    """
    arr = np.array(rows, dtype=float, copy=True)
    if arr.ndim != 2:
        raise ParameterError(f"rows (shape {arr.shape}) must have shape (n, k)")
    x_norm = validate.positive("feature_norm", feature_norm)
    x = arr if label_bound is None else arr[:, :-1]
    norms = l2_norm(x)
    x *= np.minimum(1.0, x_norm / np.where(norms > 0, norms, 1.0))[:, None]
    if label_bound is not None:
        y_bound = validate.nonnegative("label_bound", label_bound)
        arr[:, -1] = np.clip(arr[:, -1], -y_bound, y_bound)
    return arr
