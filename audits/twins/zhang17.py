r"""Planted-bug twins of the zhang17 algorithms, the audit instances, and their true privacy loss.

A twin reuses the reference (:mod:`reference.zhang17`) and changes exactly one thing. Noise-side
twins wrap the noise source the reference draws from (:class:`audits.twins.bst14.ScaledDraws`,
:class:`audits.twins.bst14.ReusedDraws`): the reference consumes standardised, labelled draws and
scales them itself, so scaling one label's draws is exactly "a wrong noise scale" on that line.
The tests (``tests/audits/twins/test_zhang17.py``) replay one tape through a twin and through the
reference with the intended edit applied, and check each violation by an exact calculation.

Twins
-----
:func:`output_perturbation_gd_steps_as_one`
    Algorithm 1, convex case, with Lemma 2's sensitivity ``3 eta L T/n`` evaluated at ``T = 1``
    (no growth in T): the noise is ``T`` times too small.
:func:`output_perturbation_gd_strongly_convex_sensitivity`
    Algorithm 1 given a merely convex loss declared ``mu``-strongly convex
    (:class:`DeclaredStrongConvexity`): Theorem 2's T-free ``5 L (mu + beta)/(n mu beta)`` is used
    where the true sensitivity grows like ``2 eta L T/n``.
:func:`output_perturbation_gd_printed_gaussian`
    Algorithm 1 with line 7's ``sigma = sqrt(2 ln(2/delta)) Delta/epsilon`` at an epsilon beyond
    :func:`spec.zhang17.gaussian_failure_epsilon` (the reference warns there; the twin silences
    the warning, i.e. ignores it). Its correct counterpart is ``calibration="analytic"``.
:func:`rrpsgd_reused_noise`
    Algorithm 2 drawing one ``z`` and adding it at every step.
:func:`rrpsgd_data_dependent_step`
    Algorithm 2 with the paper's data-dependent ``D_F``: ``initial_gap = F(w_0, S) - F*``
    computed from the data (with ``F* = 0``, exact on :func:`step_size_pair`).

Audit instrument
----------------
:class:`FixedDraws` replaces the draws of one label by a fixed value (drawing them from the
inner source first, so tapes keep their shape): the transcript audit of Algorithm 2 fixes
``R = n^2``, the worst case the privacy certificate covers (running fewer steps is
post-processing, and a mixture over a data-independent R of private mechanisms is private).

The instances (all one-dimensional) and the true privacy loss of each twin
--------------------------------------------------------------------------
*The Huber pair* (:func:`huber_pair`): ``Huber(feature_norm=1, label_bound=Y, width=1)`` (convex,
``beta = 1``, ``L = 1`` on all of R), record 0 is ``(x, y) = (1, +Y)`` on the data set and
``(1, -Y)`` on the neighbour, the other ``n - 1`` records are ``(0, 0)`` (no gradient). While
``|w| < Y - 1`` the gradient of record 0 is ``-1`` (data set) or ``+1`` (neighbour) exactly, so
gradient descent with step ``eta`` moves ``w_t = +- t eta/n``: ``||w_T - w'_T|| = 2 eta T/n =
2 eta L T/n``, Lemma 2's tight bound, attained. With ``Y = 10^5`` and the ``T <= 100`` used here,
``|w_T| <= 5``: the linear regime holds. In one dimension the radial law of line 5 is the Laplace
law, so the true privacy loss of the pure claim is ``rate * 2 eta T/n`` exactly
(:func:`radial_epsilon`): ``2/3 epsilon`` for the reference (``Delta = 3 eta L T/n``),
``epsilon`` with ``sensitivity_tight``, ``(2 T/3) epsilon`` for the T = 1 twin, and for the
strongly convex twin (``mu = beta``, ``eta = 1/2``, ``Delta = 10 L/(n beta)``) ``T/10 epsilon``.
The Gaussian law's true profile is the Balle-Wang profile at shift ``2 eta T/n``
(``spec.gaussian.exact_delta``).

For Algorithm 2 the same pair has the noisy gradients ``G_t = -s 1[xi_t = 0] + z_t`` with
``s = +1`` on the data set, ``-1`` on the neighbour, as long as ``|w_t| < Y - 1``. The public step
is ``eta = min(1/beta, Dbar/(sigma n)) = 1`` (``Dbar = sqrt(2 h_0/beta) = 447``, ``h_0 = Y - 1/2``),
so the iterates spread by about ``eta sigma n = 270`` (n = 10): leaving the linear regime needs a
370-sigma deviation; with the noise reused the drift is ``eta N sigma |z| = 2700 |z|``, which
needs ``|z| > 37``. Hence, with ``R = N = n^2`` fixed, the
transcript sum ``S_1 = sum_t G_t = -s K + sigma sqrt(N) Z``, ``K ~ Binomial(N, 1/n)``
(:func:`rrpsgd_sum_probabilities`), and the output ``w_R = eta (s K_R + sigma sqrt(R) Z)``,
``R`` uniform on ``{1..N}``, ``K_R ~ Binomial(R, 1/n)`` (:func:`rrpsgd_output_probabilities`). With
the noise reused, ``S_2 = sum_t (G_t - median_t G_t) = -s K`` exactly while ``1 <= K < N/2``:
its sign is the secret (:func:`rrpsgd_reuse_sign_probability`).

*The step-size pair* (:func:`step_size_pair`): the Huber pair's loss, record 0 ``(1, Y)`` on the
data set and ``(1, 1/2)`` on the neighbour, the others ``(0, 0)``. Both have ``F* = 0`` (at
``w = y_0``), so the paper's ``D_F`` is ``sqrt(2 F(0, S)/beta)``: ``sqrt(2 (Y - 1/2)/n)`` against
``sqrt(1/(4 n))``, and the step sizes differ by the factor ``sqrt(8 (Y - 1/2)) = 894`` (neither
reaches the cap ``1/beta`` at n = 10). The data
set's output law is exact (as above); on the neighbour ``|w_R| <= eta' (R + sigma |sum z|)``
(every gradient has norm <= 1), which bounds its tail (:func:`step_size_twin_delta`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import special
from scipy import stats as sps

from audits.pairs import replace_one
from audits.twins.bst14 import ReusedDraws, ScaledDraws, _forward
from reference import zhang17 as alg
from reference.losses import Huber, L2Regulariser, Loss, LossConstants, Regularised
from reference.tape import NoiseSource, noise_source
from reference.zhang17 import output_perturbation as _op
from reference.zhang17 import random_round_sgd as _rr
from spec import validate
from spec import zhang17 as _spec
from spec.errors import PrivacyLeakWarning

__all__ = [
    "RADIAL_RADIUS_LABEL",
    "GAUSSIAN_LABEL",
    "ROUND_LABEL",
    "NOISE_LABEL",
    "FixedDraws",
    "DeclaredStrongConvexity",
    "output_perturbation_gd_steps_as_one",
    "output_perturbation_gd_strongly_convex_sensitivity",
    "output_perturbation_gd_printed_gaussian",
    "rrpsgd_reused_noise",
    "rrpsgd_data_dependent_step",
    "HUBER_LABEL_BOUND",
    "huber_pair",
    "regularised_huber_pair",
    "step_size_pair",
    "radial_epsilon",
    "rrpsgd_sum_probabilities",
    "rrpsgd_output_probabilities",
    "rrpsgd_reuse_sign_probability",
    "step_size_twin_delta",
]

#: Tape labels of the reference's draws (exported by the reference modules).
RADIAL_RADIUS_LABEL = _op.LABEL_RADIAL + ": radius"
GAUSSIAN_LABEL = _op.LABEL_GAUSSIAN
ROUND_LABEL = _rr.LABEL_ROUND
NOISE_LABEL = _rr.LABEL_NOISE

#: Y of the Huber pairs: large enough that record 0's gradient never leaves +-1 (module docstring).
HUBER_LABEL_BOUND = 1e5


# --------------------------------------------------------------------------------------------
# instruments


class FixedDraws(NoiseSource):
    """Forward every draw to ``inner``; the draws labelled ``label`` are drawn, then replaced by
    ``value`` (same shape and dtype), so a recorded tape keeps its layout."""

    def __init__(self, inner: NoiseSource, label: str, value):
        if not isinstance(inner, NoiseSource):
            raise TypeError(f"inner ({type(inner).__name__}) must be a NoiseSource")
        self.inner, self.label, self.value = inner, str(label), value

    def _draw(self, label, kind, params, shape):
        values = _forward(self.inner, label, kind, params, shape)
        if label != self.label:
            return values
        return np.full(values.shape, self.value, dtype=values.dtype)


class DeclaredStrongConvexity(Loss):
    """``loss`` with its declared strong convexity replaced by ``strong_convexity`` (a false
    claim when the loss is merely convex); values, gradients and data checks are the loss's."""

    def __init__(self, loss: Loss, strong_convexity: float):
        if not isinstance(loss, Loss):
            raise TypeError(f"loss ({type(loss).__name__}) must be a Loss")
        self.inner = loss
        self.declared = validate.positive("strong_convexity", strong_convexity)
        self.supervised, self.convex, self.domain_radius = loss.supervised, loss.convex, loss.domain_radius

    def __repr__(self) -> str:
        return f"DeclaredStrongConvexity({self.inner!r}, {self.declared!r})"

    @property
    def constants(self) -> LossConstants:
        c = self.inner.constants
        return LossConstants(lipschitz=c.lipschitz, smoothness=c.smoothness, strong_convexity=self.declared)

    def _value(self, theta, x, y):
        return self.inner._value(theta, x, y)

    def _gradient(self, theta, x, y):
        return self.inner._gradient(theta, x, y)

    def _check_rows(self, x, y):
        self.inner._check_rows(x, y)


# --------------------------------------------------------------------------------------------
# Algorithm 1 twins


def output_perturbation_gd_steps_as_one(data, *, rng=None, noise=None, **kwargs):
    """Algorithm 1 (convex, Theorem 3) with the sensitivity evaluated at ``T = 1``.

    The reference's noise is proportional to ``Delta(T) = c eta L T/n`` (line 5: the radius
    ``Gamma(d) Delta/epsilon``; line 7: ``sigma`` proportional to Delta); the twin multiplies the
    labelled standard draw by ``Delta(1)/Delta(T)`` (both from the record), which is the reference
    run with ``Delta(1)``. Same arguments as :func:`reference.zhang17.output_perturbation_gd`.
    """
    rows = np.asarray(data, dtype=float)
    consts = alg.gd_constants(
        loss=kwargs["loss"], n=rows.shape[0], dimension=kwargs["loss"].dim_of_row(rows.shape[1]),
        epsilon=kwargs["epsilon"], delta=kwargs.get("delta", 0.0), minimiser_norm=kwargs.get("minimiser_norm"),
        setting=kwargs.get("setting"), steps=kwargs.get("steps"),
        sensitivity_formula=kwargs.get("sensitivity_formula", "sensitivity"))
    if consts["setting"] != "convex":
        raise ValueError("the T = 1 twin is a bug of the convex case (Theorem 3)")
    c = kwargs["loss"].constants
    one = _spec.THM_3.evaluate(consts["sensitivity_formula"], lipschitz=c.lipschitz, smoothness=c.smoothness,
                               n=rows.shape[0], steps=1)
    label = RADIAL_RADIUS_LABEL if kwargs.get("delta", 0.0) == 0 else GAUSSIAN_LABEL
    src = ScaledDraws(noise_source(rng=rng, noise=noise), label, one / consts["sensitivity"])
    return alg.output_perturbation_gd(data, noise=src, **kwargs)


def output_perturbation_gd_strongly_convex_sensitivity(data, *, loss, strong_convexity, **kwargs):
    """Algorithm 1 on ``loss`` declared ``strong_convexity``-strongly convex: Theorem 2's eta, T and
    T-free sensitivity, for a loss that is merely convex."""
    return alg.output_perturbation_gd(data, loss=DeclaredStrongConvexity(loss, strong_convexity), **kwargs)


def output_perturbation_gd_printed_gaussian(data, **kwargs):
    """Algorithm 1 with the printed Gaussian calibration, its PrivacyLeakWarning ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return alg.output_perturbation_gd(data, calibration="printed", **kwargs)


# --------------------------------------------------------------------------------------------
# Algorithm 2 twins


def rrpsgd_reused_noise(data, *, rng=None, noise=None, **kwargs):
    """Algorithm 2 that draws ``z`` once (step 0) and adds the same ``z`` at every step."""
    return alg.rrpsgd(data, noise=ReusedDraws(noise_source(rng=rng, noise=noise), NOISE_LABEL), **kwargs)


def rrpsgd_data_dependent_step(data, *, loss, **kwargs):
    """Algorithm 2 with the paper's ``D_F``: ``initial_gap = F(0, S)`` (``F* >= 0``; ``= 0`` on the
    step-size pair), computed from the data set it runs on."""
    rows = np.asarray(data, dtype=float)
    gap = float(loss.mean(np.zeros(loss.dim_of_row(rows.shape[1])), rows))
    return alg.rrpsgd(data, loss=loss, initial_gap=gap, **kwargs)


# --------------------------------------------------------------------------------------------
# instances


def _huber(label_bound=HUBER_LABEL_BOUND):
    return Huber(feature_norm=1.0, label_bound=label_bound, width=1.0)


def huber_pair(n: int, *, label_bound=HUBER_LABEL_BOUND):
    """The Huber pair (module docstring): ``(NeighbouringPair, loss)``."""
    n = validate.integer("n", n, minimum=2)
    data = np.zeros((n, 2))
    data[0] = (1.0, label_bound)
    return replace_one(data, 0, np.array([1.0, -label_bound])), _huber(label_bound)


def regularised_huber_pair(n: int, *, strength, label_bound=HUBER_LABEL_BOUND):
    """The Huber pair with ``(lambda/2) w^2`` added: strongly convex (``mu = lambda``,
    ``beta = 1 + lambda``); the loss's ball is ``2 D`` with ``D = 1/lambda`` (first-order bound).
    Gradient descent converges to ``w_hat = +-1/(n lambda)``."""
    pair, base = huber_pair(n, label_bound=label_bound)
    lam = validate.positive("strength", strength)
    radius = 2.0 * (1.0 / lam)
    return pair, Regularised(base, L2Regulariser(strength=lam), domain_radius=radius)


def step_size_pair(n: int, *, label_bound=HUBER_LABEL_BOUND):
    """The step-size pair (module docstring): ``(NeighbouringPair, loss)``."""
    n = validate.integer("n", n, minimum=2)
    data = np.zeros((n, 2))
    data[0] = (1.0, label_bound)
    return replace_one(data, 0, np.array([1.0, 0.5])), _huber(label_bound)


# --------------------------------------------------------------------------------------------
# exact calculations


def radial_epsilon(rate: float, shift: float) -> float:
    """True privacy loss of ``w + z``, ``z`` of density proportional to ``exp(-rate |z|)`` in one
    dimension (Laplace), when the neighbour moves ``w`` by ``shift``: ``rate * shift``."""
    return float(rate) * float(shift)


def _binomial(trials: int, p: float):
    k = np.arange(trials + 1)
    return k, sps.binom.pmf(k, trials, p)


def rrpsgd_sum_probabilities(thresholds, *, n, sigma, sign):
    """``P[S_1 <= t]`` for the Huber pair with ``R = N = n^2``: ``S_1 = -sign K + sigma sqrt(N) Z``."""
    t = np.asarray(thresholds, dtype=float)
    big_n = n * n
    k, pk = _binomial(big_n, 1.0 / n)
    z = (t[..., None] + sign * k) / (sigma * math.sqrt(big_n))
    return np.sum(pk * special.ndtr(z), axis=-1)


def rrpsgd_output_probabilities(thresholds, *, n, sigma, eta, sign):
    """``P[w_R > t]`` for the Huber pair: ``w_R = eta (sign K_R + sigma sqrt(R) Z)``, R uniform on
    ``{1..n^2}``, ``K_R ~ Binomial(R, 1/n)``."""
    t = np.atleast_1d(np.asarray(thresholds, dtype=float))
    big_n = n * n
    out = np.zeros(t.shape)
    for r in range(1, big_n + 1):
        k, pk = _binomial(r, 1.0 / n)
        z = (t[:, None] / eta - sign * k) / (sigma * math.sqrt(r))
        out += np.sum(pk * special.ndtr(-z), axis=1)
    return out / big_n


def rrpsgd_reuse_sign_probability(n: int) -> float:
    """``P[1 <= K < N/2]``, ``K ~ Binomial(N, 1/n)``, ``N = n^2``: with the noise reused, the sign of
    ``S_2`` is the secret with this probability (it is ``-s K``)."""
    big_n = n * n
    k, pk = _binomial(big_n, 1.0 / n)
    return float(np.sum(pk[(k >= 1) & (2 * k < big_n)]))


def step_size_twin_delta(epsilon, threshold, *, n, sigma, eta, eta_neighbour) -> float:
    """A lower bound on the delta the data-dependent-step twin needs at ``epsilon`` on the step-size
    pair: ``P_S[w_R > t] - e^epsilon * (upper bound on P_S'[w_R > t])``, where on the neighbour
    ``|w_R| <= eta' (R + sigma |sum_{s<R} z_s|)`` gives ``P_S'[w_R > t] <= (1/N) sum_R
    2 Phi(-(t/eta' - R)/(sigma sqrt R))``."""
    big_n = n * n
    p = float(rrpsgd_output_probabilities([threshold], n=n, sigma=sigma, eta=eta, sign=+1)[0])
    r = np.arange(1, big_n + 1)
    q = float(np.mean(np.minimum(1.0, 2 * special.ndtr(-(threshold / eta_neighbour - r) / (sigma * np.sqrt(r))))))
    return p - math.exp(epsilon) * q
