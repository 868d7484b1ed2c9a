r"""Planted-bug twins of the bst14 algorithms, the audit instances, and their true privacy loss.

A twin reuses the reference code and changes exactly one thing, so that an audit that flags it
has found *that* bug. The randomness-side twins wrap the noise source the reference draws from
(:class:`ScaledDraws`, :class:`ReusedDraws`): the reference consumes standardised, labelled draws
(:mod:`reference.tape`) and scales them itself, so scaling one label's draws is exactly "a wrong
noise scale" on that line and nothing else. The tests (``tests/audits/twins/test_bst14.py``)
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
:func:`localization_no_budget_split`
    Algorithm 4 running Algorithm 3 *and* the generic step at the full ``epsilon`` (the
    ``epsilon/2 + epsilon/2`` split forgotten).
:class:`WarmStartGridWalk`
    The Section III-C sampler started at the cell of the data's mode with a burn-in of
    ``2N`` steps instead of the public centre and the rule's data-independent K.
:func:`noise_gd_wrong_schedule`
    A *utility* twin: Algorithm 1 run with the Lipschitz learning rate of Theorem II.4 (1) where
    the strongly convex claim (2) needs ``1/(Delta n t)``. Its excess risk on V-B does not fall
    like ``1/n``; the strongly convex rate audit must flag it.
:func:`noise_gd_noiseless_rate`
    A *utility* twin: Algorithm 1 with the Lipschitz learning rate computed as if ``sigma = 0``
    (the non-private rate); its last iterate is nearly uniform in direction on V-A, and the
    Lipschitz rate audit must flag it. Realised through a declared diameter
    (:class:`DeclaredDiameter`), since the diameter enters Algorithm 1 only through that rate.

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

*Algorithm 4* (the Algorithm 3 pair). ``C_0``'s radius (1.9 at epsilon = 1) exceeds the
diameter 0.2 of C, so ``C_0 = C``: the output ``theta`` does not depend on ``theta_0``, and on
the output alone Algorithm 4 is only its generic step. The audit therefore also looks at the
transcript ``(theta_0, theta)``, which Theorem IV.1's proof covers (basic composition of the
two steps). The two parts are independent given the data; their log ratios add
(:func:`alg4_log_likelihood_ratio`): ``rate (|theta_0 + 1/n| - |theta_0 - 1/n|)``, at most
``epsilon_1 / L``, plus ``2 c theta``, at most ``2 c R = epsilon_2 / (2 L)``. With
``epsilon_1 = epsilon_2 = epsilon/2`` the supremum is ``0.68 epsilon``; without the split it is
``1.36 epsilon``, and the events ``{theta_0 >= 1/n, theta > t}`` have exact probabilities
(:func:`alg4_rectangle_probability`: a projected Laplace and a truncated Gaussian); at
epsilon = 2 the best of them has probabilities 0.243 and 0.0235, log ratio 2.34
(:func:`alg4_best_rectangle`).

*Theorem III.4* (:func:`gridwalk_pair`). The linear loss on C = [-1, 1] (which is its own
enclosing cube, so every try is in C), data with sums +1 and -1. The sampler is a finite
Markov chain followed by a rejection step, so its output law is computable exactly
(:func:`gridwalk_output_law`). At the rule's K it is the exponential mechanism at epsilon/3 up
to the certified ``Dist_inf``: loss ``epsilon/6`` on this pair. The twin, started at the
mode's cell (+1 on the data set, -1 on the neighbour) and walking ``2N`` steps (N = 7 cells)
has loss 1.79 at epsilon = 1 (:func:`gridwalk_exact_epsilon`); the threshold events
``{y <= -0.7}`` have probabilities 0.27 and 0.048.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
from scipy import special
from scipy import stats as sps

from audits.pairs import replace_one
from reference import bst14 as alg
from reference.bst14 import grid_walk as gw
from reference.bst14 import localization_algorithms as _localization
from reference.bst14 import noisy_sgd as _noisy_sgd
from reference.bst14.instances import worst_case_neighbour
from reference.domains import Domain, L2Ball
from reference.losses import HalfSquaredDistance, Linear
from reference.problem import check_problem
from reference.tape import NoiseSource, noise_source
from spec import bst14 as _spec
from spec.errors import ParameterError, PrivacyLeakWarning

__all__ = [
    "B_T_LABEL",
    "ALG3_RADIUS_LABEL",
    "ScaledDraws",
    "ReusedDraws",
    "StackedDraws",
    "noise_gd_sigma_over_n",
    "noise_gd_reused_noise",
    "noise_gd_wrong_schedule",
    "noise_gd_noiseless_rate",
    "DeclaredDiameter",
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
    "localization_no_budget_split",
    "alg4_constants",
    "alg4_log_likelihood_ratio",
    "alg4_rectangle_probability",
    "alg4_best_rectangle",
    "WarmStartGridWalk",
    "gridwalk_pair",
    "gridwalk_output_law",
    "gridwalk_exact_epsilon",
    "gridwalk_threshold_probabilities",
]

#: Tape label of Algorithm 1's Gaussian noise (exported by the reference).
B_T_LABEL = _noisy_sgd.LABEL_NOISE
#: Tape label of the radius of Algorithm 3's noise (RadialLaplace through output_perturbation).
ALG3_RADIUS_LABEL = _localization.LABEL_NOISE + ": radius"


# --------------------------------------------------------------------------------------------
# noise-source wrappers


def _forward(src: NoiseSource, label, kind, params, shape):
    # the public method that called the wrapper has validated the shape and the parameters
    return src._draw(label, kind, params, shape)


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


class StackedDraws(NoiseSource):
    """Independent runs side by side: run ``k`` of every draw comes from ``rows[k]``.

    A draw of shape ``(len(rows), ...)`` (the leading axis is the runs axis of every reference
    loop) is the concatenation of each row source's draw of shape ``(1, ...)``. Row ``k`` of a
    batched run is therefore the run that source ``rows[k]`` alone would give with ``runs=1``:
    the reference's and its twins' runs can share one loop (and its per-step cost) without a
    second code path. A draw whose leading axis is not the number of rows is an error.
    """

    def __init__(self, rows):
        rows = list(rows)
        if not rows or not all(isinstance(r, NoiseSource) for r in rows):
            raise TypeError(f"rows ({rows!r}) must be a non-empty sequence of NoiseSource")
        self.rows = rows

    def _draw(self, label, kind, params, shape):
        if not shape or shape[0] != len(self.rows):
            raise ValueError(f"shape ({tuple(shape)}) must lead with the number of rows ({len(self.rows)})")
        one = (1,) + tuple(shape[1:])
        return np.concatenate([r._draw(label, kind, params, one) for r in self.rows], axis=0)  # as _forward


# --------------------------------------------------------------------------------------------
# twins


def _configured(cls, data, kwargs):
    """The configured reference box for ``data`` (the twins' keywords are the reference function's)."""
    _, n, _ = check_problem(data, loss=kwargs["loss"], domain=kwargs["domain"])
    return cls.configure(n=n, allow_unproven=True, **kwargs)


def noise_gd_sigma_over_n(data, *, runs=1, rng=None, noise=None, transcript=None, **kwargs):
    """Algorithm 1 with noise standard deviation ``sigma / n`` (variance ``sigma^2 / n^2``).

    Same arguments as :func:`reference.bst14.noise_gd`; the configured reference
    (:class:`reference.bst14.NoiseGD`) with its one field ``sigma`` replaced by ``sigma / n`` (the
    learning rates, computed from the reference's sigma when configuring, are unchanged).
    """
    box = _configured(alg.NoiseGD, data, kwargs)
    twin = dataclasses.replace(box, sigma=box.sigma / box.n)
    return twin.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)


def noise_gd_reused_noise(data, *, rng=None, noise=None, **kwargs):
    """Algorithm 1 that draws ``b`` once (at step 1) and adds the same ``b`` at every step."""
    src = ReusedDraws(noise_source(rng=rng, noise=noise), B_T_LABEL)
    return alg.noise_gd(data, noise=src, **kwargs)


def noise_gd_wrong_schedule(data, *, schedule=None, **kwargs):
    """Utility twin: Algorithm 1 with ``schedule="lipschitz"`` whatever schedule is asked for."""
    return alg.noise_gd(data, schedule="lipschitz", **kwargs)


def exp_sampling_double_coefficient(data, *, runs=1, rng=None, noise=None, **kwargs):
    """Algorithm 2 with coefficient ``epsilon / (L ||C||_2)`` (the proof's factor-2 slip).

    The configured reference (:class:`reference.bst14.ExpSampling`) with its field ``sampler_epsilon``
    (the budget the sampler's ``c = epsilon'/(2 L ||C||_2)`` is computed from) replaced by ``2 epsilon``;
    the twin still *claims* ``epsilon``.
    """
    box = _configured(alg.ExpSampling, data, kwargs)
    twin = dataclasses.replace(box, sampler_epsilon=2.0 * box.epsilon, coefficient=2.0 * box.coefficient)
    return twin.run(data, runs=runs, rng=rng, noise=noise)


def output_perturbation_half_sensitivity(data, *, runs=1, rng=None, noise=None, **kwargs):
    """Algorithm 3 calibrated to sensitivity ``L/(n Delta)``: the noise radius is halved.

    The configured reference (:class:`reference.bst14.OutputPerturbation`) with its one field
    ``rate`` doubled: ``||b|| = G / rate`` with ``G ~ Gamma(p)`` (label :data:`ALG3_RADIUS_LABEL`), so
    this is the declared sensitivity halved. ``C_0``'s radius and everything else are unchanged.
    """
    box = _configured(alg.OutputPerturbation, data, kwargs)
    return dataclasses.replace(box, rate=2.0 * box.rate).run(data, runs=runs, rng=rng, noise=noise)


# --------------------------------------------------------------------------------------------
# Algorithm 1: instance and exact privacy loss on it


def alg1_pair(n: int):
    """``(pair, loss, domain)``: the Algorithm 1 audit instance with ``n`` records (module docstring)."""
    data = np.zeros((int(n), 1))
    data[0, 0] = 1.0
    pair = replace_one(data, 0, worst_case_neighbour(data, 0)[0])
    return pair, Linear(data_norm=1.0), L2Ball(radius=1.0, dim=1)


def _binomial(n: int):
    steps = int(_spec.ALG_1.evaluate("noisy_steps", n=n))  # n^2 - 1 (Algorithm 1, lines 3-6)
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


# --------------------------------------------------------------------------------------------
# Algorithm 4: transcript (theta_0, theta) on the Algorithm 3 pair; the budget-split twin


def localization_no_budget_split(data, *, epsilon, **kwargs):
    """Algorithm 4 that runs *both* steps at the full budget ``epsilon`` (the split forgotten).

    :func:`spec.bst14.localization_parameters` gives each step ``epsilon/2``, so passing
    ``2 epsilon`` to the reference runs Algorithm 3 (rate, radius) and the generic step at
    ``epsilon`` each and changes nothing else (``zeta = 3 ln n`` does not depend on the budget).
    The twin still *claims* ``epsilon``.
    """
    return alg.localization(data, epsilon=2.0 * float(epsilon), **kwargs)


def alg4_constants(epsilon: float) -> dict:
    """Constants of Algorithm 4 at total budget ``epsilon`` on :func:`alg3_pair`.

    ``rate`` (Algorithm 3's noise rate at ``epsilon/2``), ``radius`` of C_0, and ``coefficient``,
    the generic step's coefficient as the reference uses it: ``epsilon/2 / (2 L diam)`` with
    ``diam = min(||C||_2, 2 radius)`` (``bst14.alg_4`` formula ``localized_diameter``, which is the
    diameter of the reference's C_0), all from spec.
    ``localized_is_whole`` says whether C_0 = C for every centre (radius >= ||C||_2), in which
    case the generic step does not depend on theta_0.
    """
    _, loss, domain = alg3_pair()
    lip = loss.constants.lipschitz
    par = _spec.localization_parameters(epsilon=epsilon, lipschitz=lip, n=ALG3_N,
                                        strong_convexity=loss.constants.strong_convexity, dimension=1,
                                        solver_tolerance=1e-12)
    diam = _spec.ALG_4.evaluate("localized_diameter", diameter=domain.diameter, epsilon=epsilon, lipschitz=lip,
                                n=ALG3_N, strong_convexity=loss.constants.strong_convexity, dimension=1)
    coef = _spec.ALG_2.evaluate("coefficient", epsilon=par["epsilon_generic"], lipschitz=lip, diameter=diam)
    return {"rate": par["noise_rate"], "radius": par["radius"], "coefficient": coef,
            "localized_is_whole": par["radius"] >= domain.diameter}


def alg4_log_likelihood_ratio(theta_0, theta, *, rate, coefficient):
    """``ln p_D / p_D'`` of the transcript ``(theta_0, theta)`` on :func:`alg3_pair` when C_0 = C.

    ``theta_0 = Pi_C(+-1/n + b)`` with ``b ~ exp(-rate |b|)``: ``rate (|theta_0 + 1/n| -
    |theta_0 - 1/n|)`` (also at the atoms ``+-R``, which lie beyond both minimisers); the generic
    step has density ``exp(-c L(theta; D))`` on C and ``L(theta; D) - L(theta; D') = -2 theta``
    (the first record is +1 vs -1), with equal normalisers (D' = -D and C = -C): ``2 c theta``.
    The two are independent given the data, so the log ratios add.
    """
    t0 = np.asarray(theta_0, dtype=float)
    m = 1.0 / ALG3_N
    return rate * (np.abs(t0 + m) - np.abs(t0 - m)) + 2.0 * coefficient * np.asarray(theta, dtype=float)


def alg4_rectangle_probability(t0, t1, *, rate, coefficient, sign):
    """``P[theta_0 >= t0, theta > t1]`` on :func:`alg3_pair` (``sign`` +1) or its neighbour (-1).

    Exact when C_0 = C: ``theta_0`` is the projected Laplace ``Pi_C(sign/n + b)`` and ``theta``
    the Gaussian ``N(sign/n, 1/(c n))`` conditioned on C = [-R, R], independent of each other.
    """
    mu = sign / ALG3_N
    p0 = 1.0 if t0 <= -ALG3_RADIUS else float(sps.laplace.sf(t0, loc=mu, scale=1.0 / rate))
    sd = 1.0 / math.sqrt(coefficient * ALG3_N)
    a, b = (-ALG3_RADIUS - mu) / sd, (ALG3_RADIUS - mu) / sd
    return p0 * float(sps.truncnorm.sf(t1, a, b, loc=mu, scale=sd))


def alg4_best_rectangle(epsilon_claim, *, rate, coefficient, points=400):
    """The event ``{theta_0 >= 1/n, theta > t1}`` with the largest ``P_D - e^eps P_D'``.

    Returns ``(t1, p, q)``: an exact witness that the transcript is not ``epsilon_claim``-DP
    when ``ln(p/q) > epsilon_claim``, and the probabilities that size the planted audit.
    """
    c = math.exp(epsilon_claim)
    best = (None, 0.0, 0.0)
    for t1 in np.linspace(-ALG3_RADIUS, ALG3_RADIUS, points, endpoint=False):
        p = alg4_rectangle_probability(1.0 / ALG3_N, t1, rate=rate, coefficient=coefficient, sign=+1)
        q = alg4_rectangle_probability(1.0 / ALG3_N, t1, rate=rate, coefficient=coefficient, sign=-1)
        if best[0] is None or p - c * q > best[1] - c * best[2]:
            best = (float(t1), p, q)
    return best


# --------------------------------------------------------------------------------------------
# Theorem III.4: the grid-walk sampler; the warm-start twin and the exact output law (p = 1)


def gridwalk_pair():
    """``(pair, loss, domain)``: the linear loss on C = [-1, 1], data ``(1, 1, -1)`` against
    ``(-1, 1, -1)`` (sums +1 and -1, minimisers +1 and -1; the enclosing cube A is C itself)."""
    data = np.array([[1.0], [1.0], [-1.0]])
    pair = replace_one(data, 0, worst_case_neighbour(data, 0)[0])
    return pair, Linear(data_norm=1.0), L2Ball(radius=1.0, dim=1)


class _WarmStartPrepared(gw.PreparedGridWalk):
    """A prepared grid walk whose chains start at the cell of largest weight (the data's mode)."""

    def start_cells(self, m: int) -> np.ndarray:
        shape = (self.constants.grid_size,) * self.p
        mode = np.array(np.unravel_index(int(np.argmax(self.log_weight_grid())), shape), dtype=np.int64)
        return np.tile(mode, (m, 1))


class WarmStartGridWalk(gw.GridWalkSampler):
    """Planted twin of the Section III-C sampler: a data-dependent warm start with a short burn-in.

    The chains start at the cell of largest weight ``W`` (the non-private mode of
    ``exp(-c Lbar)``) instead of the public centre, and walk ``K = sweeps * N`` steps (``N``
    cells per edge) instead of the rule's data-independent K. Either change alone is harmless
    (the rule's K mixes from every start; a short walk from a public start carries no extra
    information); together they are the classic "burn-in from the optimum" bug. The reference
    warns (``PrivacyLeakWarning``) when K is below the rule; the twin ignores the warning.
    """

    def __init__(self, *, sweeps=2, **kwargs):
        if "steps" in kwargs:
            raise TypeError("steps is set by sweeps in WarmStartGridWalk")
        super().__init__(**kwargs)
        self.sweeps = int(sweeps)

    def prepare(self, *, loss, data, domain, epsilon, lipschitz=None):
        probe = gw.GridWalkSampler(grid_size=self.grid_size).prepare(
            loss=loss, data=data, domain=domain, epsilon=epsilon, lipschitz=lipschitz)
        short = gw.GridWalkSampler(centre=self.centre, inner_radius=self.inner_radius, retries=self.retries,
                                   grid_size=self.grid_size, steps=self.sweeps * probe.constants.grid_size,
                                   max_cells=self.max_cells, max_iterations=self.max_iterations,
                                   max_rounds=self.max_rounds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            return _WarmStartPrepared(short, loss=loss, data=data, domain=domain, epsilon=epsilon,
                                      lipschitz=lipschitz)


def gridwalk_output_law(prepared, *, start, steps, nodes=16):
    """Exact law of the sampler's output for a one-dimensional problem whose cube is C.

    Every attempt walks ``steps`` steps (transition matrix ``P``, :func:`reference.bst14.grid_walk.
    transition_matrix`) and is accepted at cell ``c`` with probability ``a(c) = int_cell F /
    (h W(c) M)``; a rejected chain continues from where it is. So the accepted cell has law
    ``v = e_start P^K (I - diag(1 - a) P^K)^{-1} diag(a)`` and, given the cell, the output has
    density proportional to ``F`` on it. With A = C every accepted sample is in C: no retries,
    no fallback. The cell integrals use ``nodes``-point Gauss-Legendre quadrature of the
    computed ``F`` (``prepared.log_f``).

    Returns
    -------
    dict
        ``edges`` (N + 1,), ``cells`` (v, shape (N,)), and ``log_density(y)``: the log of the
        output density at points ``y`` of C.
    """
    k = prepared.constants
    if prepared.p != 1:
        raise ParameterError(f"dimension ({prepared.p}) must be 1 for gridwalk_output_law")
    lo, hi = prepared.domain.bounding_box()
    if not np.allclose([lo[0], hi[0]], [prepared.lower[0], prepared.lower[0] + k.grid_size * k.spacing]):
        raise ParameterError("the enclosing cube must be C itself for gridwalk_output_law")
    size, h = k.grid_size, k.spacing
    edges = prepared.lower[0] + h * np.arange(size + 1)
    lw = prepared.log_weight_grid().ravel()
    x, w = np.polynomial.legendre.leggauss(int(nodes))
    pts = edges[:-1, None] + (x[None, :] + 1.0) * (h / 2.0)
    log_f = prepared.log_f(pts[..., None])[0]
    integral = np.exp(log_f) @ (w * h / 2.0)  # int_cell F, shape (N,)
    accept = integral / (h * np.exp(lw + k.envelope_log))
    power = np.linalg.matrix_power(gw.transition_matrix(lw), int(steps))
    e = np.zeros(size)
    e[int(start)] = 1.0
    first = e @ power
    cells = np.linalg.solve((np.eye(size) - np.diag(1.0 - accept) @ power).T, first) * accept

    def log_density(y):
        y = np.asarray(y, dtype=float)
        idx = np.clip(np.floor((y - edges[0]) / h).astype(np.int64), 0, size - 1)
        return np.log(cells[idx]) - np.log(integral[idx]) + prepared.log_f(y[..., None])[0]

    return {"edges": edges, "cells": cells, "log_density": log_density}


def gridwalk_exact_epsilon(law_d, law_n, *, points=20001):
    """``max |ln p_D(y) / p_D'(y)|`` over a fine grid of C (both laws from :func:`gridwalk_output_law`):
    the pure-DP epsilon of the output on the pair (the densities are positive on C)."""
    edges = law_d["edges"]
    y = np.linspace(edges[0], edges[-1], points)
    return float(np.max(np.abs(law_d["log_density"](y) - law_n["log_density"](y))))


def gridwalk_threshold_probabilities(law, thresholds, *, points=20001):
    """``P[y <= t]`` for each threshold, by the trapezoid rule on ``points`` points of C."""
    edges = law["edges"]
    y = np.linspace(edges[0], edges[-1], points)
    dens = np.exp(law["log_density"](y))
    cdf = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2.0 * np.diff(y))])
    return np.interp(np.asarray(thresholds, dtype=float), y, cdf)


# --------------------------------------------------------------------------------------------
# Algorithm 1: the Lipschitz learning rate computed without the noise (a utility twin)


class DeclaredDiameter(Domain):
    """``inner`` with another *declared* l2 diameter: every method (projection, membership,
    support, ...) is ``inner``'s; only the ``diameter`` property reports ``diameter``."""

    def __init__(self, inner: Domain, diameter: float):
        if not isinstance(inner, Domain):
            raise TypeError(f"inner ({type(inner).__name__}) must be a reference.domains.Domain")
        super().__init__(inner.dim)
        self.inner = inner
        self._diameter = float(diameter)
        if not self._diameter > 0:
            raise ParameterError(f"diameter ({diameter!r}) must be > 0")
        self.exact_projection = inner.exact_projection

    def __repr__(self):
        return f"DeclaredDiameter({self.inner!r}, diameter={self._diameter!r})"

    @property
    def diameter(self) -> float:
        return self._diameter

    @property
    def max_norm(self) -> float:
        return self.inner.max_norm

    @property
    def symmetric(self) -> bool:
        return self.inner.symmetric

    def interior_point(self):
        return self.inner.interior_point()

    def _project(self, x):
        return self.inner._project(x)

    def _contains(self, x, tol):
        return self.inner._contains(x, tol)

    def _gauge(self, d, c):
        return self.inner._gauge(d, c)

    def _support(self, y):
        return self.inner._support(y)

    def _lmo(self, g):
        return self.inner._lmo(g)


def noise_gd_noiseless_rate(data, *, loss, domain, epsilon, delta, calibration="printed", **kwargs):
    """Utility twin: Algorithm 1 whose Lipschitz learning rate is computed with ``sigma = 0``.

    ``eta(t) = ||C||_2 / sqrt(t n^2 L^2)`` (the non-private SGD rate) instead of
    ``||C||_2 / sqrt(t (n^2 L^2 + p sigma^2))``; the noise actually added is unchanged. The
    reference takes no learning rate, and in Algorithm 1 the diameter of C enters only this
    rate, so the twin runs the reference on C with the declared diameter
    ``||C||_2 sqrt(1 + p sigma^2 / (n^2 L^2))`` (:class:`DeclaredDiameter`; sigma from the same
    spec formula the reference uses): the projection and everything else are unchanged.
    """
    n = np.asarray(data).shape[0]
    lip = loss.constants.lipschitz
    sigma = _spec.noise_gd_sigma(lipschitz=lip, n=n, epsilon=epsilon, delta=delta, calibration=calibration)
    factor = math.sqrt(1.0 + domain.dim * sigma**2 / (n * n * lip * lip))
    inflated = DeclaredDiameter(domain, domain.diameter * factor)
    return alg.noise_gd(data, loss=loss, domain=inflated, epsilon=epsilon, delta=delta, calibration=calibration,
                        **kwargs)
