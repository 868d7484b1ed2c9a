r"""Planted-bug twins of the bst14 algorithms, the audit instances, and their true privacy loss.

A twin reuses the reference code and changes exactly one thing, so that an audit that flags it
has found *that* bug. The randomness-side twins wrap the noise source the reference draws from
(:class:`ScaledDraws`, :class:`ReusedDraws`): the reference consumes standardised, labelled draws
(:mod:`reference.tape`) and scales them itself, so scaling one label's draws is exactly "a wrong
noise scale" on that line and nothing else. The tests (``tests/test_audits_bst14_planted.py``)
replay one tape through the twin and through the reference with the intended edit applied to the
tape, and check the outputs agree.

Twins
-----
:func:`noise_gd_sigma_over_n`
    Algorithm 1 with ``b_t`` of standard deviation ``sigma / n`` (``sigma^2 / n^2``: the
    ``n^2`` factor of line 1 dropped).
:func:`noise_gd_reused_noise`
    Algorithm 1 drawing one ``b`` and adding it at every step.
:func:`exp_sampling_double_coefficient`
    Algorithm 2 with coefficient ``epsilon / (L ||C||_2)`` instead of ``epsilon / (2 L ||C||_2)``
    (the factor-2 slip of the printed proof of Theorem III.1).
:func:`output_perturbation_half_sensitivity`
    Algorithm 3 calibrated to sensitivity ``L / (n Delta)`` instead of ``2 L / (n Delta)``: the
    radius of ``b`` is halved (``||b|| ~ Gamma(p, scale 1/rate)``, so this is the rate doubled).
:func:`noise_gd_wrong_schedule`
    A *utility* twin: Algorithm 1 run with the Lipschitz learning rate of Theorem II.4 (1) where
    the strongly convex claim (2) needs ``1/(Delta n t)``. Its excess risk on V-B does not fall
    like ``1/n``; the strongly convex rate audit must flag it.

The instances and the true privacy loss of each twin
----------------------------------------------------
All privacy instances are one-dimensional (p = 1), so every output is a scalar and the true
privacy loss on the pair can be computed exactly:

*Algorithm 1* (:func:`alg1_pair`). ``Linear(data_norm=1)`` on the unit ball of R, data
``(1, 0, ..., 0)`` against ``(-1, 0, ..., 0)`` (the replaced record flips its gradient; the
other records have zero gradient, so the only signal is the differing record). The gradient of
the linear loss does not depend on theta, so the released ``G_t`` are i.i.d.:
``G_t = -n s 1[i_t = 0] + b_t`` with ``s = +1`` on the data set and ``-1`` on the neighbour. The
transcript statistic ``S_1 = sum_t G_t`` is ``-n s K + N(0, T sigma_b^2)`` with
``K ~ Binomial(T, 1/n)``, ``T = n^2 - 1``, so the probabilities of its threshold events are
finite sums (:func:`alg1_sum_probabilities`) and ``max_t P_D(S_1 <= t) - e^eps P_D'(S_1 <= t)``
is an exact lower bound on the delta the pair needs at eps (:func:`alg1_delta_lower_bound`).
With the reused noise, ``S_2 = sum_t (G_t - median_t G_t)`` equals ``-n s K`` exactly while
``1 <= K < T/2``: its sign is the secret (:func:`alg1_reuse_sign_probability`).

*Algorithm 2* (:func:`alg2_net_pair`). The net ``{-1, +1}`` of the unit ball of R, the linear
loss, data ``(1, 1, 1)`` against ``(-1, 1, 1)``. With ``a = 2 c`` the output is ``+1`` with
probability ``1 / (1 + e^{-a S})`` (``S = 3`` or ``1``), so the log ratio of the event
``{-1}`` is ``ln((1 + e^{3a}) / (1 + e^{a}))`` exactly (:func:`alg2_net_epsilon`).

*Algorithm 3* (:func:`alg3_pair`). ``HalfSquaredDistance(data_norm=1, domain_radius=R)`` on the
ball of radius ``R = 0.1`` in R (``L = 1 + R``, ``Delta = 1``), ``n = 21``, data ``(1, then ten
pairs +1, -1)`` against the first record negated: the minimisers are ``+-1/n`` (inside the
ball), so the released ``theta_0`` moves by ``2/n`` against the declared ``2 L / n``. In one
dimension the log ratio of the noise densities is ``rate * 2/n`` on the whole half-line beyond
the two minimisers, an event of probability 1/2 (the projection onto the ball maps that
half-line into itself), so the true epsilon on the pair is ``rate * 2/n`` exactly
(:func:`alg3_epsilon`): ``epsilon / L = 0.909 epsilon`` for the reference and
``2 epsilon / L = 1.82 epsilon`` for the twin.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats as sps

from reference import bst14 as alg
from reference.domains import L2Ball
from reference.instances import worst_case_neighbour
from reference.losses import HalfSquaredDistance, Linear
from reference.tape import NoiseSource, noise_source
from audits.pairs import replace_one

__all__ = [
    "B_T_LABEL",
    "ALG3_RADIUS_LABEL",
    "ScaledDraws",
    "ReusedDraws",
    "noise_gd_sigma_over_n",
    "noise_gd_reused_noise",
    "noise_gd_wrong_schedule",
    "exp_sampling_double_coefficient",
    "output_perturbation_half_sensitivity",
    "alg1_pair",
    "alg1_sum_probabilities",
    "alg1_delta_lower_bound",
    "alg1_reuse_sign_probability",
    "alg2_net_pair",
    "alg2_net_epsilon",
    "alg3_pair",
    "alg3_epsilon",
]

#: Tape label of Algorithm 1's Gaussian noise (reference.bst14.noise_gd).
B_T_LABEL = "bst14 Alg.1 L5 b_t"
#: Tape label of the radius of Algorithm 3's noise (RadialLaplace through output_perturbation).
ALG3_RADIUS_LABEL = "bst14 Alg.3 L3 b: radius"


# --------------------------------------------------------------------------------------------
# noise-source wrappers


def _forward(src: NoiseSource, label, kind, params, shape):
    if kind == "integers":
        return src.integers(label, params["high"], shape)
    if kind == "gamma":
        return src.gamma(label, params["k"], shape)
    return getattr(src, kind)(label, shape)


class ScaledDraws(NoiseSource):
    """Forward every draw to ``inner``; multiply the draws labelled ``label`` by ``factor``."""

    def __init__(self, inner: NoiseSource, label: str, factor: float):
        if not isinstance(inner, NoiseSource):
            raise TypeError(f"inner ({type(inner).__name__}) must be a NoiseSource")
        self.inner, self.label, self.factor = inner, str(label), float(factor)

    def _draw(self, label, kind, params, shape):
        values = _forward(self.inner, label, kind, params, shape)
        return values * self.factor if label == self.label else values


class ReusedDraws(NoiseSource):
    """Forward every draw to ``inner``, except that draws labelled ``label`` after the first one
    return the first one again (nothing more is drawn from ``inner`` for that label)."""

    def __init__(self, inner: NoiseSource, label: str):
        if not isinstance(inner, NoiseSource):
            raise TypeError(f"inner ({type(inner).__name__}) must be a NoiseSource")
        self.inner, self.label, self.first = inner, str(label), None

    def _draw(self, label, kind, params, shape):
        if label != self.label:
            return _forward(self.inner, label, kind, params, shape)
        if self.first is None:
            self.first = _forward(self.inner, label, kind, params, shape).copy()
        if self.first.shape != tuple(shape):
            raise ValueError(f"reused draw of shape {self.first.shape} asked for shape {tuple(shape)}")
        return self.first.copy()


# --------------------------------------------------------------------------------------------
# twins


def noise_gd_sigma_over_n(data, *, rng=None, noise=None, **kwargs):
    """Algorithm 1 with noise standard deviation ``sigma / n`` (variance ``sigma^2 / n^2``).

    Same arguments as :func:`reference.bst14.noise_gd`; the only change is that the standard
    normal draws of line 5 (label :data:`B_T_LABEL`) are multiplied by ``1/n`` before the
    reference scales them by ``sigma``.
    """
    n = np.asarray(data).shape[0]
    src = ScaledDraws(noise_source(rng=rng, noise=noise), B_T_LABEL, 1.0 / n)
    return alg.noise_gd(data, noise=src, **kwargs)


def noise_gd_reused_noise(data, *, rng=None, noise=None, **kwargs):
    """Algorithm 1 that draws ``b`` once (at step 1) and adds the same ``b`` at every step."""
    src = ReusedDraws(noise_source(rng=rng, noise=noise), B_T_LABEL)
    return alg.noise_gd(data, noise=src, **kwargs)


def noise_gd_wrong_schedule(data, *, schedule=None, **kwargs):
    """Utility twin: Algorithm 1 with ``schedule="lipschitz"`` whatever schedule is asked for."""
    return alg.noise_gd(data, schedule="lipschitz", **kwargs)


def exp_sampling_double_coefficient(data, *, epsilon, **kwargs):
    """Algorithm 2 with coefficient ``epsilon / (L ||C||_2)`` (the proof's factor-2 slip).

    The reference's coefficient is ``epsilon' / (2 L ||C||_2)`` for the budget ``epsilon'`` it
    is given and it uses the budget for nothing else, so passing ``2 epsilon`` changes exactly
    the coefficient. The twin still *claims* ``epsilon``.
    """
    return alg.exp_sampling(data, epsilon=2.0 * float(epsilon), **kwargs)


def output_perturbation_half_sensitivity(data, *, rng=None, noise=None, **kwargs):
    """Algorithm 3 calibrated to sensitivity ``L/(n Delta)``: the noise radius is halved.

    ``||b|| = G / rate`` with ``G ~ Gamma(p)`` (label :data:`ALG3_RADIUS_LABEL`); halving ``G``
    is the rate ``epsilon / (L/(n Delta))``, i.e. the declared sensitivity halved. ``C_0``'s
    radius and everything else are unchanged.
    """
    src = ScaledDraws(noise_source(rng=rng, noise=noise), ALG3_RADIUS_LABEL, 0.5)
    return alg.output_perturbation(data, noise=src, **kwargs)


# --------------------------------------------------------------------------------------------
# Algorithm 1: instance and exact privacy loss on it


def alg1_pair(n: int):
    """``(pair, loss, domain)``: the Algorithm 1 audit instance with ``n`` records (module docstring)."""
    data = np.zeros((int(n), 1))
    data[0, 0] = 1.0
    pair = replace_one(data, 0, worst_case_neighbour(data, 0)[0])
    return pair, Linear(data_norm=1.0), L2Ball(radius=1.0, dim=1)


def _binomial(n: int):
    steps = n * n - 1
    k = np.arange(steps + 1)
    return k, sps.binom.pmf(k, steps, 1.0 / n), steps


def alg1_sum_probabilities(thresholds, *, n, sigma_b, sign):
    """``P[S_1 <= t]`` for ``S_1 = -n s K + N(0, T sigma_b^2)`` (exact finite sum over K).

    ``sign`` is ``s``: ``+1`` on the data set of :func:`alg1_pair`, ``-1`` on its neighbour;
    ``sigma_b`` the standard deviation of ``b_t`` actually added.
    """
    k, w, steps = _binomial(int(n))
    t = np.atleast_1d(np.asarray(thresholds, dtype=float))
    z = (t[:, None] + n * sign * k[None, :]) / (sigma_b * math.sqrt(steps))
    return special.ndtr(z) @ w


def alg1_delta_lower_bound(epsilon, *, n, sigma_b, points=4001):
    """``max`` over threshold events of ``S_1`` (both sides, both orders) of ``P - e^eps Q``.

    A lower bound on the smallest delta for which the transcript of Algorithm 1 (with noise
    ``sigma_b``) is ``(epsilon, delta)``-DP on :func:`alg1_pair`: every event gives one.
    """
    k, w, steps = _binomial(int(n))
    spread = sigma_b * math.sqrt(steps) * 10 + n * steps / n * 10
    t = np.linspace(-spread, spread, points)
    p = alg1_sum_probabilities(t, n=n, sigma_b=sigma_b, sign=+1)
    q = alg1_sum_probabilities(t, n=n, sigma_b=sigma_b, sign=-1)
    c = math.exp(epsilon)
    # S_1 is symmetric under (s, S_1) -> (-s, -S_1), so the other order and side give the same
    best = max(np.max(p - c * q), np.max((1 - q) - c * (1 - p)))
    return float(max(best, 0.0))


def alg1_reuse_sign_probability(n: int) -> float:
    """``P[1 <= K < T/2]``: with reused noise, ``S_2 < 0`` on the data set and ``> 0`` on the
    neighbour on this event, so ``delta(eps) >= this - e^eps (1 - this)`` for every eps."""
    k, w, steps = _binomial(int(n))
    return float(w[(k >= 1) & (2 * k < steps)].sum())


# --------------------------------------------------------------------------------------------
# Algorithm 2: the two-point net


def alg2_net_pair():
    """``(pair, loss, domain, net)``: data ``(1, 1, 1)`` against ``(-1, 1, 1)`` on the net {-1, 1}."""
    data = np.ones((3, 1))
    pair = replace_one(data, 0, worst_case_neighbour(data, 0)[0])
    return pair, Linear(data_norm=1.0), L2Ball(radius=1.0, dim=1), np.array([[-1.0], [1.0]])


def alg2_net_epsilon(coefficient: float) -> float:
    """Exact epsilon of the net sampler on :func:`alg2_net_pair` with coefficient ``c``.

    ``L(+-1; D) = -+S``, so ``P[+1] = 1/(1 + e^{-2 c S})``; the largest log ratio over the
    events is the one of ``{-1}`` (neighbour over data set), ``ln((1 + e^{3a})/(1 + e^{a}))``
    with ``a = 2c``.
    """
    a = 2.0 * float(coefficient)
    return float(np.logaddexp(0.0, 3 * a) - np.logaddexp(0.0, a))


# --------------------------------------------------------------------------------------------
# Algorithm 3: a pair that attains the declared sensitivity up to the factor L


ALG3_N = 21
ALG3_RADIUS = 0.1


def alg3_pair():
    """``(pair, loss, domain)`` for Algorithm 3 (module docstring)."""
    data = np.ones((ALG3_N, 1))
    data[2::2, 0] = -1.0  # records 1..20 are ten +1/-1 pairs; the sum is 1, the mean 1/n
    pair = replace_one(data, 0, worst_case_neighbour(data, 0)[0])
    loss = HalfSquaredDistance(data_norm=1.0, domain_radius=ALG3_RADIUS)
    return pair, loss, L2Ball(radius=ALG3_RADIUS, dim=1)


def alg3_epsilon(rate: float, n: int = ALG3_N) -> float:
    """True epsilon of ``Pi_C(theta* + b)``, ``b ~ exp(-rate |b|)``, on :func:`alg3_pair`: ``rate * 2/n``."""
    return float(rate) * 2.0 / int(n)
