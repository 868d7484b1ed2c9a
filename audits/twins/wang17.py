r"""Planted-bug twins of the wang17 algorithms, the audit instances, and the twins' true privacy loss.

Each twin reuses the reference (:mod:`reference.wang17`) and changes exactly one thing; the tests
(``tests/audits/twins/test_wang17.py``) replay one tape through the twin and through the reference
with the intended edit and check the outputs agree, and check each violation below numerically.

Twins
-----
:func:`dp_accmd_printed`
    Algorithm 3 *as printed*: the gradient step (line 6) uses the noiseless ``grad F(x_{k+1})``
    (the mirror step keeps the noisy one). The only place this algorithm exists in the project.
:func:`dp_svrg_difference_2g`
    DP-SVRG calibrated as if the sampled difference ``grad f(x, z_i) - grad f(x~, z_i)`` had
    sensitivity ``2G`` instead of ``4G`` (the snapshot's ``2G/n`` kept): the noise draws of line 7
    scaled by ``sigma_2G / sigma`` (:func:`sigma_difference_2g`, the same accountant with that one
    sensitivity changed).
:func:`dp_svrg_full_batch_constant`
    DP-SVRG with the paper's eq. (3) at the one constant that is right for full-batch methods,
    ``c = 2 (1 + sqrt(1 + eps/ln(1/delta)))^2`` (``wang17.full_batch_calibration``): "a single c".
:func:`dp_svrg_noiseless_snapshot`
    DP-SVRG whose first inner step of every epoch omits its noise: there ``x = x~``, the sampled
    difference vanishes and the released direction *is* the snapshot gradient ``grad F(x~; D)``.
:func:`dp_gd_half_sensitivity`
    DP-GD calibrated to the add/remove-style sensitivity ``G/n`` instead of the replace-one ``2G/n``:
    the noise draws halved (the zCDP sigma is linear in the sensitivity).

Instances (worst-case neighbours)
---------------------------------
*Full batch* (:func:`full_batch_instance`): the Huber loss in its linear region, records
``(x, -Y)`` and ``(x, +Y)`` with ``||x|| = G`` and ``Y`` far beyond every reachable residual: every
per-example gradient is ``+-G x/||x||`` wherever the iterate is, so the noisy gradients of D and D'
differ by exactly ``2G/n`` at every step and the transcript has *exactly* the composed Gaussian
profile that ``wang17.full_batch_calibration`` claims (tight).

*DP-SVRG* (:func:`svrg_instance`): two-dimensional, one epoch. Ridge (Huber) losses with feature
directions ``v = (cos a, sin a)`` (the replaced record z, data set D) and ``v' = (-cos a, sin a)`` (z',
every other record, and record 0 of the neighbour D'). The snapshot ``x~_0`` lies below both ramps
(gradients ``-G v``, ``-G v'``); a strong ``L2Regulariser`` (``eta * strength = STRENGTH_STEPS``)
makes the prox pull every iterate ``x_t``, ``t >= 1``, to within ``1e-4`` of the origin, which lies
above both ramps (gradients ``+G v``, ``+G v'``), with margin ``w`` on every side. So at every inner
step after the first the sampled differences are ``2G v`` (z) and ``2G v'`` (z'): 4G cos(a) apart, the
supremum of ``wang17.alg_1``'s difference sensitivity (approached in two dimensions only). The
second coordinate is identical under D and D'; along the first the released ``v_t`` is (relative to
its mean ``-G cos a`` under D')

    step 1 (x = x~):   D: N(-2 G c/n, sigma^2)                                 D': N(0, sigma^2)
    steps 2..K:        D: (1 - 1/n) N(-2 G c/n, sigma^2) + (1/n) N(4 G c - 2 G c/n, sigma^2)   D': N(0, sigma^2)

(``c = cos a``), independently across steps given the public past. The transcript's privacy profile
is therefore the composition of these pairs, which :func:`delta_lower_bound` bounds from below.

Lower bounds on the true delta(epsilon) (:func:`delta_lower_bound`)
-------------------------------------------------------------------
For one-dimensional Gaussian mixtures P, Q: bucket the line (width ``sigma/resolution``, two
infinite tails) -- a post-processing, so the bucketed pair's divergences are at most the true
ones -- and round each bucket's privacy loss ``ln(P_j/Q_j)`` *down* to a grid of width ``h``. The
K-fold composition of the rounded loss distribution (FFT, repeated squaring; mass below 1e-30
at the ends dropped) gives ``sum_k p_k (1 - e^{eps - k h})_+ <= E_P (1 - e^{eps - L})_+ = delta(eps)``
of the composed true pair, since the summand is increasing in the loss and dropping mass only
lowers it. The FFT's rounding (about 1e-16 of the largest mass per entry) is the only error that
is not on the safe side; the violations shown are many orders of magnitude larger.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
from scipy import signal, special

from audits.pairs import replace_one
from audits.twins.bst14 import ScaledDraws, _forward
from reference import wang17 as alg
from reference.domains import L1Ball, L2Ball
from reference.losses import Huber, L2Regulariser
from reference.tape import NoiseSource, noise_source
from reference.wang17 import gradient_descent as _gd
from reference.wang17 import mirror_maps as _mm
from reference.wang17 import svrg as _svrg_ref
from spec import inversion
from spec import rdp as _rdp
from spec import validate
from spec.wang17 import calibration as _cal
from spec.wang17 import svrg as _svrg

__all__ = [
    "ZeroedDraws",
    "dp_accmd_printed",
    "dp_svrg_difference_2g",
    "dp_svrg_full_batch_constant",
    "dp_svrg_noiseless_snapshot",
    "dp_gd_half_sensitivity",
    "sigma_difference_2g",
    "full_batch_constant",
    "full_batch_instance",
    "svrg_instance",
    "svrg_step_pairs",
    "svrg_log_ratio",
    "delta_lower_bound",
    "loss_distribution",
    "svrg_statistic_tails",
    "STRENGTH_STEPS",
]


# --------------------------------------------------------------------------------------------
# noise-source wrapper


class ZeroedDraws(NoiseSource):
    """Forward every draw to ``inner``; the draws labelled ``label`` number ``0, every, 2 every, ...``
    (counted per label) come back as zeros (still drawn from ``inner``, so the stream is unchanged)."""

    def __init__(self, inner: NoiseSource, label: str, every: int):
        if not isinstance(inner, NoiseSource):
            raise TypeError(f"inner ({type(inner).__name__}) must be a NoiseSource")
        self.inner, self.label, self.every, self.count = inner, str(label), validate.positive_integer("every", every), 0

    def _draw(self, label, kind, params, shape):
        values = _forward(self.inner, label, kind, params, shape)
        if label != self.label:
            return values
        first = self.count % self.every == 0
        self.count += 1
        return np.zeros_like(values) if first else values


# --------------------------------------------------------------------------------------------
# twins


def dp_accmd_printed(data, *, loss, **kwargs):
    """Algorithm 3 as printed: line 6 takes ``grad F(x_{k+1}; D)`` without ``b_{k+1}``.

    Built from :func:`reference.wang17.dp_accmd`: its gradient step is called with the noiseless
    average gradient at the same ``x_{k+1}`` (recomputed from the data); nothing else changes (the
    draws, sigma, alpha, the mirror step with the noisy gradient).
    """
    rows = np.asarray(data, dtype=float)
    real = _mm.gradient_step

    def noiseless_step(domain, x, g, coefficient):
        return real(domain, x, loss.total_gradient(x, rows, normalisation="average", check=False), coefficient)

    with mock.patch.object(_mm, "gradient_step", noiseless_step):
        return alg.dp_accmd(data, loss=loss, **kwargs)


def _difference_2g_epsilon(sigma, lipschitz, n, steps, delta, orders):
    """The split certificate of ``wang17.svrg_step_privacy`` with the difference sensitivity 2G (the bug)."""
    totals = []
    for a in orders:
        best = min(_rdp.without_replacement_gaussian(a, sigma=sigma * math.sqrt(lam), sensitivity=2 * lipschitz,
                                                     sampling_rate=1.0 / n)
                   + _rdp.gaussian(a, sigma=sigma * math.sqrt(1 - lam), sensitivity=2 * lipschitz / n)
                   for lam in _cal.DEFAULT_SPLITS)
        totals.append(steps * best)
    return _rdp.to_epsilon(orders, totals, delta=delta)[0]


_SIGMA_2G: dict = {}


def sigma_difference_2g(*, epsilon, delta, lipschitz, n, steps, orders=tuple(range(2, 33))) -> float:
    """The buggy twin's sigma: the smallest the accountant accepts with 4G -> 2G (:mod:`spec.inversion`).

    On integer orders 2..32 (any subset of orders gives a certificate of the twin's own claim).
    """
    key = (float(epsilon), float(delta), float(lipschitz), int(n), int(steps), tuple(orders))
    if key not in _SIGMA_2G:
        # halving one sensitivity can only lower the certified sigma, by at most the factor 2 of halving both
        ref = _cal.split_sigma(epsilon=epsilon, delta=delta, lipschitz=lipschitz, n=n, steps=steps).sigma
        _SIGMA_2G[key] = inversion.smallest(
            lambda x: inversion.log_ratio(_difference_2g_epsilon(x, lipschitz, n, steps, delta, key[-1]), epsilon),
            start=ref / 1.5)
    return _SIGMA_2G[key]


def dp_svrg_difference_2g(data, *, loss, epsilon, delta, epochs, epoch_length, rng=None, noise=None, **kwargs):
    """DP-SVRG with the noise of a 2G (not 4G) difference sensitivity; ``epochs``, ``epoch_length`` required."""
    n = np.asarray(data).shape[0]
    lip = loss.constants.lipschitz
    ref = _svrg.calibrate(n=n, epochs=epochs, epoch_length=epoch_length, epsilon=epsilon, delta=delta, lipschitz=lip)
    factor = sigma_difference_2g(epsilon=epsilon, delta=delta, lipschitz=lip, n=n, steps=ref.steps) / ref.sigma
    src = ScaledDraws(noise_source(rng=rng, noise=noise), _svrg_ref.LABEL_NOISE_1, factor)
    return alg.dp_svrg(data, loss=loss, epsilon=epsilon, delta=delta, epochs=epochs, epoch_length=epoch_length,
                       noise=src, **kwargs)


def full_batch_constant(*, epsilon, delta) -> float:
    """``c = 2 (1 + sqrt(1 + eps/ln(1/delta)))^2``: the constant that is right for T full-gradient releases."""
    return _cal.FULL_BATCH.evaluate("implied_constant", epsilon=epsilon, delta=delta)


def dp_svrg_full_batch_constant(data, *, epsilon, delta, **kwargs):
    """DP-SVRG with eq. (3) at the full-batch constant (``calibration="paper"``)."""
    return alg.dp_svrg(data, epsilon=epsilon, delta=delta, calibration="paper",
                       noise_constant=full_batch_constant(epsilon=epsilon, delta=delta), **kwargs)


def dp_svrg_noiseless_snapshot(data, *, epoch_length, rng=None, noise=None, **kwargs):
    """DP-SVRG whose first inner step of each epoch (the released snapshot gradient) has no noise."""
    src = ZeroedDraws(noise_source(rng=rng, noise=noise), _svrg_ref.LABEL_NOISE_1, epoch_length)
    return alg.dp_svrg(data, epoch_length=epoch_length, noise=src, **kwargs)


def dp_gd_half_sensitivity(data, *, rng=None, noise=None, **kwargs):
    """DP-GD calibrated to sensitivity ``G/n`` (replace-one's ``2G/n`` halved): the noise draws halved."""
    src = ScaledDraws(noise_source(rng=rng, noise=noise), _gd.LABEL_NOISE, 0.5)
    return alg.dp_gd(data, noise=src, **kwargs)


# --------------------------------------------------------------------------------------------
# instances


def full_batch_instance(*, n, dimension=1, radius=1.0, lipschitz=1.0, width=0.5, label=1e6):
    """``(pair, loss, unconstrained_loss, l2_ball, l1_ball)``: the tight full-batch pair (module docstring).

    Record 0 is ``(G e_1, -label)`` in the data set and ``(G e_1, +label)`` in the neighbour; the
    other records are copies of the neighbour's. The Huber loss (declared domain radius ``radius``)
    is in its linear region at every ``||theta|| <= label / (2 G)``.
    """
    p = int(dimension)
    feat = np.zeros(p)
    feat[0] = lipschitz
    other = np.concatenate([feat, [label]])
    data = np.tile(other, (int(n), 1))
    data[0, -1] = -label
    pair = replace_one(data, 0, other)
    loss = Huber(feature_norm=lipschitz, label_bound=label, width=width, domain_radius=radius)
    unconstrained = Huber(feature_norm=lipschitz, label_bound=label, width=width)
    return pair, loss, unconstrained, L2Ball(radius=radius, dim=p), L1Ball(radius=radius, dim=p)


#: ``eta * strength`` of the instance's regulariser: each prox divides the iterate by 1 + this.
STRENGTH_STEPS = 1e4


def svrg_instance(*, n, angle_degrees=5.0, lipschitz=1.0, width=1.0):
    """The DP-SVRG worst-case instance (module docstring).

    Returns
    -------
    dict
        ``pair`` (record 0 is z in the data set, z' in the neighbour), ``loss`` (Huber, L = G^2/w),
        ``regulariser``, ``x0`` (the snapshot ``x~_0``), ``cos`` (c), ``learning_rate`` (1/(48 L),
        Theorem 4.2's) and ``mean_neighbour`` (``-G c``, the first coordinate's mean under D').
    """
    G, w = float(lipschitz), float(width)
    a = math.radians(angle_degrees)
    c, s = math.cos(a), math.sin(a)
    margin = w
    y0 = -(w + margin)  # residual at the origin: +(w + margin), beyond the ramp
    h0 = 2 * (w + margin) / (G * s) * 1.5  # x~_0 = (0, -h0): residual <= -(w + margin) - ..., below both ramps
    z = np.array([G * c, G * s, y0])
    z_prime = np.array([-G * c, G * s, y0])
    data = np.tile(z_prime, (int(n), 1))
    data[0] = z
    pair = replace_one(data, 0, z_prime)
    loss = Huber(feature_norm=G, label_bound=abs(y0), width=w)
    eta = _svrg.THM_4_2.evaluate("learning_rate", smoothness=loss.constants.smoothness)
    regulariser = L2Regulariser(strength=STRENGTH_STEPS / eta)
    return {"pair": pair, "loss": loss, "regulariser": regulariser, "x0": np.array([0.0, -h0]), "cos": c,
            "learning_rate": eta, "mean_neighbour": -G * c}


def svrg_step_pairs(*, n, steps, lipschitz=1.0, cos):
    """``[(P, Q, count), ...]`` of the instance's first coordinate (module docstring), relative to D'."""
    G, q = float(lipschitz), 1.0 / n
    shift = -2 * G * cos / n
    first = ([(1.0, shift)], [(1.0, 0.0)], 1)
    rest = ([(1 - q, shift), (q, 4 * G * cos + shift)], [(1.0, 0.0)], int(steps) - 1)
    return [first, rest] if steps > 1 else [first]


def svrg_log_ratio(v1, *, sigma, n, lipschitz=1.0, cos, mean_neighbour):
    """``ln p(v) - ln q(v)`` of the mixture steps (first coordinate ``v1`` of a released direction)."""
    G, q = float(lipschitz), 1.0 / n
    u = (np.asarray(v1, dtype=float) - mean_neighbour) / sigma
    shift = -2 * G * cos / n / sigma
    jump = 4 * G * cos / sigma
    # log[(1-q) phi(u - shift) + q phi(u - shift - jump)] - log phi(u)
    a = math.log1p(-q) - 0.5 * (u - shift) ** 2
    b = math.log(q) - 0.5 * (u - shift - jump) ** 2
    return np.logaddexp(a, b) + 0.5 * u**2


# --------------------------------------------------------------------------------------------
# numerical lower bounds on delta(epsilon) of composed one-dimensional mixture pairs


def _masses(components, edges, sigma):
    """Bucket masses of a Gaussian mixture, each tail computed on its own side (no cancellation)."""
    out = np.zeros(edges.size - 1)
    for weight, mean in components:
        z = (edges - mean) / sigma
        lo, hi = z[:-1], z[1:]
        upper = special.ndtr(-lo) - special.ndtr(-hi)  # accurate where the bucket is above the mean
        lower = special.ndtr(hi) - special.ndtr(lo)
        out += weight * np.where(lo >= 0, upper, lower)
    return np.clip(out, 0.0, None)


def loss_distribution(p_components, q_components, sigma, *, h, resolution=100, width=14.0):
    """``(pmf, offset, infinite)``: the privacy loss of the bucketed pair under P, rounded down to ``h`` grid."""
    means = [m for _, m in list(p_components) + list(q_components)]
    dx = sigma / resolution
    inner = np.arange(min(means) - width * sigma, max(means) + width * sigma + dx, dx)
    edges = np.concatenate([[-np.inf], inner, [np.inf]])
    P, Q = _masses(p_components, edges, sigma), _masses(q_components, edges, sigma)
    keep = P > 0
    P, Q = P[keep], Q[keep]
    finite = Q > 0
    infinite = float(P[~finite].sum())
    ell = np.log(P[finite]) - np.log(Q[finite])
    k = np.floor(ell / h).astype(np.int64)
    offset = int(k.min())
    return np.bincount(k - offset, weights=P[finite]), offset, infinite


def _trim(pmf, offset, tail=1e-30):
    c = np.cumsum(pmf)
    lo = int(np.searchsorted(c, tail))
    r = np.cumsum(pmf[::-1])
    hi = pmf.size - int(np.searchsorted(r, tail))
    return pmf[lo:max(hi, lo + 1)], offset + lo


def _compose(pmf, offset, infinite, times):
    res, r_off, r_inf = np.array([1.0]), 0, 0.0
    base, b_off, b_inf = pmf, offset, infinite
    while times:
        if times & 1:
            res = np.clip(signal.fftconvolve(res, base), 0.0, None)
            res, r_off = _trim(res, r_off + b_off)
            r_inf = 1 - (1 - r_inf) * (1 - b_inf)
        times >>= 1
        if times:
            base = np.clip(signal.fftconvolve(base, base), 0.0, None)
            base, b_off = _trim(base, 2 * b_off)
            b_inf = 1 - (1 - b_inf) ** 2
    return res, r_off, r_inf


def delta_lower_bound(epsilon, pairs, *, sigma, h=1e-3, resolution=100) -> float:
    """A lower bound on delta(epsilon) of the composition of the 1-D pairs, in both orders (module docstring).

    Parameters
    ----------
    epsilon : float or sequence of float
    pairs : list of (p_components, q_components, count)
        Gaussian mixtures ``[(weight, mean), ...]`` with the common standard deviation ``sigma``.
    h : float
        Width of the loss grid (each step's loss rounded down: the bound loses at most ``K h`` in epsilon).

    Returns
    -------
    float or ndarray
        ``max`` over the two orders of ``sum_k p_k (1 - e^{eps - k h})_+`` (plus the mass of infinite loss).
    """
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    best = np.zeros_like(eps)
    for swap in (False, True):
        res, off, inf = np.array([1.0]), 0, 0.0
        for p_c, q_c, count in pairs:
            a, b = (q_c, p_c) if swap else (p_c, q_c)
            pmf, o, i = loss_distribution(a, b, sigma, h=h, resolution=resolution)
            pmf, o, i = _compose(pmf, o, i, int(count))
            res, off = _trim(np.clip(signal.fftconvolve(res, pmf), 0.0, None), off + o)
            inf = 1 - (1 - inf) * (1 - i)
        losses = (np.arange(res.size) + off) * h
        value = np.array([inf + float(np.sum(res[losses > e] * -np.expm1(e - losses[losses > e]))) for e in eps])
        best = np.maximum(best, value)
    return float(best[0]) if np.ndim(epsilon) == 0 else best


def svrg_statistic_tails(thresholds, *, sigma, n, steps, cos, lipschitz=1.0, h=1e-3):
    """``(P_D[S > t], P_D'[S > t])`` for ``S = sum_{t >= 2} svrg_log_ratio(v_t)`` at the same ``sigma``.

    S is the privacy loss of the mixture steps, so its law under D is the composed loss distribution
    and under D' the same weighted by ``e^{-loss}`` (losses rounded down to ``h``: for sizing run counts).
    """
    _, (p_c, q_c, count) = svrg_step_pairs(n=n, steps=steps, lipschitz=lipschitz, cos=cos)
    pmf, off, inf = loss_distribution(p_c, q_c, sigma, h=h)
    res, off, _ = _compose(pmf, off, inf, count)
    losses = (np.arange(res.size) + off) * h
    t = np.atleast_1d(np.asarray(thresholds, dtype=float))
    tail_p = np.array([res[losses > x].sum() for x in t])
    tail_q = np.array([(res[losses > x] * np.exp(-losses[losses > x])).sum() for x in t])
    return tail_p, tail_q
