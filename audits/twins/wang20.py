r"""Planted-bug twins of the wang20 algorithms, their audit instances, and their true privacy loss.

Each twin is the reference with one thing changed, built from the reference itself: a
:class:`~reference.tape.NoiseSource` wrapper that transforms one labelled draw, a different public
parameter, or the reference's own gradient-descent loop
(:func:`reference.wang20.gradient_descent.projected_gradient_descent`) around a different gradient
estimate. ``tests/audits/twins/test_wang20.py`` checks that each twin equals the reference except
for its bug (tape replay) and that each violation is real (exact or quadrature calculations).

Twins
-----
:func:`trimmed_mean_printed_bound`
    Algorithm 2 with the printed smooth bound ``max{(x_(n) - x_(1))/(n - 2m), e^{-mt}(b - a)}``
    (``wang20.alg_2`` ERRATUM flag): the standard normal ``Y`` is mapped to
    ``arsinh((S_printed/S) sinh Y)``, so the reference's ``(S/s) sinh(Y')`` is ``(S_printed/s)
    sinh(Y)``.
:func:`trimmed_mean_gd_printed_budget`
    Algorithm 3 with line 4 as printed: Algorithm 2 at ``epsilon/sqrt(d T)`` instead of
    ``eps~/sqrt(d T)`` (``wang20.alg_3`` ERRATUM flag, formula ``coordinate_epsilon_printed``).
:func:`catoni_giulini_gd_without_sqrt_d`
    Algorithm 4 calibrated to the *coordinate* sensitivity ``(s/n)(4 sqrt 2/3)`` instead of the
    l2 sensitivity ``sqrt(d)`` times it: the standard normals of ``Z`` are scaled by ``1/sqrt d``.
:func:`catoni_giulini_gd_empirical_moment`
    Algorithm 4 with ``v`` estimated from the data (the largest coordinate second moment of the
    gradients at ``w^0``) instead of the declared public ``v``: s and sigma depend on the data.
:func:`catoni_giulini_gd_raw_mean`
    Algorithm 4 with the plain empirical mean gradient (no truncation) and the same Gaussian noise.

Instances (all with one extreme record far out in the tail)
-----------------------------------------------------------
*Algorithm 2, the counterexample* (:func:`alg2_counterexample_pair`): ``x = (0, 1, 2, 3, 4)``
against ``y = (0, 1, 2, 3, 1000)``, ``m = 1``, ``[a, b] = [0, 4]``, ``epsilon = 0.4`` (``t = 0.01``).
Both clipped trimmed means are 2; the corrected bounds are ``e^{-t} 4`` and 4 (ratio ``e^t``), the
printed ones ``e^{-t} 4`` and ``1000/3`` (ratio 84.2). The twin's outputs are ``2 + c sinh(Y)`` with
``c = 39.6`` and ``3333``: an event ``{|out - 2| > tau}`` has exactly computable probabilities
(:func:`alg2_counterexample_probabilities`).

*Algorithm 2 and 3, the shift pair* (:func:`shift_values`): ``v = (-5, -5, 0, 0, 0, 0, 5)`` against
``v`` with the first ``-5`` replaced by ``H = 1e12``, ``m = 1``, ``[a, b] = [-1, 1]``: the clipped
trimmed means are ``-1`` and ``+1`` and both smooth bounds are exactly ``b - a = 2`` (the cap):
the release moves by its whole smooth bound with no change of scale, the worst case of Bun and
Steinke's analysis (shift ``s``, dilation 0). Algorithm 3 runs it on every coordinate of the
gradient ``-d`` of the linear loss (records ``d_i = -v_i (1, ..., 1)``, ``d = 2``, ``n = 7``,
``T = ceil(ln 7) = 2``), which does not depend on ``w``: the ``d T`` released coordinates are
i.i.d. given the data, and their exact log-likelihood ratio is the audit's statistic.

*Algorithm 4* (:func:`alg4_pair`): the linear loss in ``d = 4``, ``n = 8``, records ``0`` except
``d_1 = +H (1, ..., 1)`` against ``-H (1, ..., 1)`` (``H = 1e12``): each smoothed term tends to
``+-c (1 - 2 Phi(-sqrt beta))``, so every coordinate of the robust mean moves by its whole
sensitivity ``2 c s/n`` up to a factor ``1 - 1.5e-7`` (``delta' = 1e-6``, ``beta = 2 ln(1e6)``).
The released gradients are i.i.d. Gaussian given the data, so the transcript is exactly the
Gaussian mechanism with ``mu = sqrt(T d) (2 c' s/n)/sigma``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import integrate

from audits.pairs import replace_one
from audits.twins.bst14 import ScaledDraws
from reference import wang20 as alg
from reference.domains import L2Ball
from reference.losses import HeavyTailedHalfSquaredDistance, HeavyTailedLinear
from reference.problem import check_problem
from reference.samplers import ArsinhNormal
from reference.tape import NoiseSource, noise_source
from reference.wang20 import bun_steinke as _tm
from reference.wang20 import gradient_descent as _gd
from spec import validate
from spec.wang20 import bun_steinke as _spec_tm
from spec.wang20 import gradient_descent as _spec_gd

__all__ = [
    "MappedDraws",
    "trimmed_mean_printed_bound",
    "printed_ratio",
    "trimmed_mean_gd_printed_budget",
    "catoni_giulini_gd_without_sqrt_d",
    "catoni_giulini_gd_empirical_moment",
    "catoni_giulini_gd_raw_mean",
    "empirical_second_moment",
    "ALG2_COUNTEREXAMPLE",
    "alg2_counterexample_pair",
    "alg2_counterexample_probabilities",
    "SHIFT",
    "shift_values",
    "shift_pair",
    "alg3_pair",
    "ALG3",
    "arsinh_kl",
    "ALG4",
    "alg4_pair",
    "ALG1",
    "alg1_pair",
]

#: The huge value of the extreme record.
H = 1e12


# --------------------------------------------------------------------------------------------
# noise-source wrapper


class MappedDraws(NoiseSource):
    """Forward every draw to ``inner``; apply ``function`` to the draws labelled ``label``."""

    def __init__(self, inner: NoiseSource, label: str, function):
        if not isinstance(inner, NoiseSource):
            raise TypeError(f"inner ({type(inner).__name__}) must be a NoiseSource")
        self.inner, self.label, self.function = inner, str(label), function

    def _draw(self, label, kind, params, shape):
        if kind == "integers":
            values = self.inner.integers(label, params["high"], shape)
        elif kind == "gamma":
            values = self.inner.gamma(label, params["k"], shape)
        else:
            values = getattr(self.inner, kind)(label, shape)
        return self.function(values) if label == self.label else values


# --------------------------------------------------------------------------------------------
# Algorithm 2


def printed_ratio(values, **kwargs) -> float:
    """``S_printed(x)/S(x)`` at the trim and dilation the reference uses (arguments of :func:`reference.wang20.trimmed_mean`).

    A probe run of the reference (its own seed; no draw of any caller's source) gives the trim and
    the dilation; both bounds are the reference's :func:`reference.wang20.bun_steinke.smooth_bound`.
    """
    kwargs = {k: v for k, v in kwargs.items() if k != "replacement"}
    probe = alg.trimmed_mean(values, runs=1, rng=0, **kwargs)
    printed = _tm.smooth_bound(values, trim=probe.trim, dilation=probe.dilation, mean_lower=kwargs["mean_lower"],
                               mean_upper=kwargs["mean_upper"], form="printed")
    return float(printed) / probe.smooth_bound


def trimmed_mean_printed_bound(values, *, runs=1, rng=None, noise=None, **kwargs):
    """Algorithm 2 with the printed, non-smooth bound (same arguments as :func:`reference.wang20.trimmed_mean`).

    With ``r`` = :func:`printed_ratio`, each ``Y`` is mapped to ``arsinh(r sinh Y)``, which the
    reference scales by ``S/s``: the output is ``[trim_m(x)]_[a,b] + (S_printed/s) sinh(Y)``.
    """
    ratio = printed_ratio(values, **kwargs)
    src = MappedDraws(noise_source(rng=rng, noise=noise), _tm.LABEL_Y, lambda y: np.arcsinh(ratio * np.sinh(y)))
    return alg.trimmed_mean(values, runs=runs, noise=src, **kwargs)


#: The counterexample of the wang20.alg_2 ERRATUM flag.
ALG2_COUNTEREXAMPLE = {"epsilon": 0.4, "trim": 1, "mean_lower": 0.0, "mean_upper": 4.0, "replacement": 1000.0}


def alg2_counterexample_pair():
    """``x = (0, 1, 2, 3, 4)`` against ``(0, 1, 2, 3, 1000)`` (module docstring)."""
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    return replace_one(x, 4, ALG2_COUNTEREXAMPLE["replacement"])


def alg2_counterexample_probabilities(tau, *, scales):
    """``P[|out - 2| > tau]`` for ``out = 2 + c sinh(Y)``, one value per scale ``c`` (exact)."""
    law = ArsinhNormal()
    return [float(2 * law.sf(tau / c)) for c in scales]


#: The shift pair of Algorithms 2 and 3.
SHIFT = {"trim": 1, "mean_lower": -1.0, "mean_upper": 1.0}


def shift_values():
    """``(v, v')``: the values ``(-5, -5, 0, 0, 0, 0, 5)`` and those with the first ``-5`` replaced by ``H``."""
    v = np.array([-5.0, -5.0, 0.0, 0.0, 0.0, 0.0, 5.0])
    w = v.copy()
    w[0] = H
    return v, w


def shift_pair():
    """The shift pair as a checked replace-one pair of reals (Algorithm 2)."""
    v, w = shift_values()
    return replace_one(v, 0, w[0])


# --------------------------------------------------------------------------------------------
# Algorithm 3

#: The Algorithm 3 instance: d = 2, n = 7 (T = 2), epsilon = 1, delta = 1e-20 (module docstring).
ALG3 = {"dimension": 2, "epsilon": 1.0, "delta": 1e-20, "smoothness": 1.0, "strong_convexity": 1.0, "radius": 1.0,
        **SHIFT}


def alg3_pair():
    """``(pair, loss, domain)``: records ``-v_i (1, 1)`` of the shift values (gradients ``v_i (1, 1)``)."""
    v, w = shift_values()
    ones = np.ones(ALG3["dimension"])
    data = -v[:, None] * ones
    pair = replace_one(data, 0, -w[0] * ones)
    return pair, HeavyTailedLinear(), L2Ball(radius=ALG3["radius"], dim=ALG3["dimension"])


def trimmed_mean_gd_printed_budget(data, *, loss, domain, epsilon, delta, mean_lower, mean_upper, smoothness,
                                   strong_convexity, trim=None, runs=1, theta_1=None, rng=None, noise=None,
                                   transcript=None, budget="printed"):
    """Algorithm 3 with line 4 as printed: each call of Algorithm 2 gets ``epsilon/sqrt(d T)``.

    The configured reference (:class:`reference.wang20.TrimmedMeanGD`) with its one parameter, the
    coordinate budget, replaced (and what the records derive from it: the default trim, t and s);
    ``budget="corrected"`` is the reference itself (the tests compare the two, draw for draw).
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = alg.TrimmedMeanGD.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta,
                                             mean_lower=mean_lower, mean_upper=mean_upper, smoothness=smoothness,
                                             strong_convexity=strong_convexity, trim=trim, theta_1=theta_1)
    if validate.choice("budget", budget, ("printed", "corrected")) == "printed":
        at = dict(epsilon=epsilon, delta=delta, dimension=configured.p, steps=configured.steps)
        eps_0 = _spec_gd.ALG_3.evaluate("coordinate_epsilon_printed", **at)
        call = dict(epsilon=eps_0, n=n, mean_lower=configured.mean_lower, mean_upper=configured.mean_upper)
        m = int(_spec_tm.ALG_2.evaluate("trim_default", **call)) if trim is None else int(trim)
        configured = dataclasses.replace(configured, coordinate_epsilon=eps_0, trim=m,
                                         dilation=_spec_tm.ALG_2.evaluate("dilation", trim=m, **call),
                                         shift=_spec_tm.ALG_2.evaluate("shift", trim=m, **call))
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)


def arsinh_kl(shift) -> float:
    """``KL(Z + shift || Z)`` for ``Z = sinh(Y)`` (quadrature over y; equal to ``KL(Z || Z + shift)`` by symmetry)."""
    law = ArsinhNormal()

    def integrand(y):
        z = math.sinh(y)
        return math.exp(-y * y / 2) / math.sqrt(2 * math.pi) * float(law.logpdf(z) - law.logpdf(z + shift))

    value, _ = integrate.quad(integrand, -40, 40, points=[0.0], limit=400, epsabs=1e-15, epsrel=1e-12)
    return value


# --------------------------------------------------------------------------------------------
# Algorithm 4

#: The Algorithm 4 instance (module docstring): epsilon = 1, delta = 1e-5, delta' = 1e-6, v = 1.
ALG4 = {"dimension": 4, "n": 8, "epsilon": 1.0, "delta": 1e-5, "failure_probability": 1e-6, "second_moment": 1.0,
        "smoothness": 1.0, "strong_convexity": 1.0, "radius": 1.0}


def alg4_pair(replacement=-H):
    """``(pair, loss, domain)``: zeros except ``d_1 = H 1`` against ``d_1 = replacement 1`` (default ``-H 1``)."""
    d, n = ALG4["dimension"], ALG4["n"]
    data = np.zeros((n, d))
    data[0] = H
    pair = replace_one(data, 0, np.full(d, float(replacement)))
    return pair, HeavyTailedLinear(), L2Ball(radius=ALG4["radius"], dim=d)


def catoni_giulini_gd_without_sqrt_d(data, *, rng=None, noise=None, **kwargs):
    """Algorithm 4 with sigma from the coordinate sensitivity: the draws of Z scaled by ``1/sqrt(d)``."""
    p = np.asarray(data).shape[1] - (1 if kwargs["loss"].supervised else 0)
    src = ScaledDraws(noise_source(rng=rng, noise=noise), _gd.LABEL_Z, 1.0 / math.sqrt(p))
    return alg.catoni_giulini_gd(data, noise=src, **kwargs)


def empirical_second_moment(data, *, loss, domain, theta_1=None) -> float:
    """``max_j (1/n) sum_i (grad_j l(w^0, x_i))^2``: v estimated from the data (the twin's bug)."""
    rows = loss.validate_data(data)
    x, y = loss.split(rows)
    w0 = domain.interior_point() if theta_1 is None else np.asarray(theta_1, dtype=float)
    g = loss.gradient_unchecked(w0[None, :], x, y)
    return float(np.max(np.mean(g * g, axis=0)))


def catoni_giulini_gd_empirical_moment(data, *, second_moment=None, **kwargs):
    """Algorithm 4 run with ``second_moment`` replaced by :func:`empirical_second_moment` of the data."""
    v_hat = empirical_second_moment(data, loss=kwargs["loss"], domain=kwargs["domain"],
                                    theta_1=kwargs.get("theta_1"))
    return alg.catoni_giulini_gd(data, second_moment=v_hat, **kwargs)


def catoni_giulini_gd_raw_mean(data, *, loss, domain, epsilon, delta, second_moment, failure_probability,
                               smoothness, schedule="strongly_convex", strong_convexity=None, runs=1, theta_1=None,
                               rng=None, noise=None, transcript=None, truncate=False):
    """Algorithm 4 with the empirical mean gradient (no truncation) plus the reference's Gaussian noise.

    The constants are the configured reference's (:class:`reference.wang20.CatoniGiuliniGD`); only the
    estimator of lines 3-4 differs. ``truncate=True`` rebuilds the reference (the Catoni-Giulini
    mean at the default beta): the tests compare the two, draw for draw.
    """
    rows, n, _ = check_problem(data, loss=loss, domain=domain)
    c = alg.CatoniGiuliniGD.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta,
                                      second_moment=second_moment, failure_probability=failure_probability,
                                      smoothness=smoothness, schedule=schedule, strong_convexity=strong_convexity,
                                      theta_1=theta_1)
    src = noise_source(rng=rng, noise=noise)

    def estimator(t, grads):
        if truncate:
            centre = alg.robust_mean(grads, truncation_scale=c.truncation_scale, noise_precision=c.noise_precision,
                                     axis=-2)
        else:
            centre = grads.mean(axis=-2)
        return centre + c.sigma * src.normal(_gd.LABEL_Z, centre.shape)

    theta, start, stacked = _gd.projected_gradient_descent(rows, loss=loss, domain=domain, steps=c.steps,
                                                           learning_rate=c.learning_rate, estimator=estimator,
                                                           runs=validate.positive_integer("runs", runs),
                                                           theta_1=theta_1, transcript=transcript)
    return _gd.GradientDescentResult(theta=theta, steps=c.steps, learning_rate=c.learning_rate, theta_1=start,
                                     parameters={"sigma": c.sigma}, transcript=stacked, spec_ids=_gd.ALG4_SPEC_IDS,
                                     seed=src.seed, configuration=c)


# --------------------------------------------------------------------------------------------
# Algorithm 1

#: The Algorithm 1 instance: 1-D mean estimation, 24 records at -1/2 and 24 at +1/2, m = 16.
ALG1 = {"epsilon": 1.0, "delta": 1e-5, "subsets": 16, "radius": 1.0}


def alg1_pair():
    """``(pair, loss, domain)``: the 48 records against the first one replaced by ``H``."""
    data = np.concatenate([np.full(24, -0.5), np.full(24, 0.5)])[:, None]
    pair = replace_one(data, 0, np.array([H]))
    return pair, HeavyTailedHalfSquaredDistance(), L2Ball(radius=ALG1["radius"], dim=1)

