r"""Planted privacy bugs: wrong variants of the primitive mechanisms, each a named function.

Each function returns a mechanism with the harness's signature ``mechanism(data, runs, rng)``
that differs from the correct one in :mod:`reference.mechanisms` by one realistic mistake. The
audit suite runs the *same* audit (same pair, same claim, same statistic) on the correct
mechanism, which must pass, and on the planted one, which must be flagged. The claim is always
the one the correct mechanism makes; the bug is the gap between that claim and what the code
does.

=================================  =========================================================
function                           mistake
=================================  =========================================================
:func:`gaussian_scaled_noise`      Gaussian noise ``factor x`` the calibrated sigma
:func:`laplace_scaled_noise`       Laplace scale ``factor x`` the calibrated scale
:func:`radial_scaled_noise`        radial Laplace with ``rate / factor`` (noise ``factor x``)
:func:`gaussian_add_remove_calibration`
                                   sigma calibrated for add/remove-one (sensitivity ``R``) but
                                   the claim is for replace-one (sensitivity ``2R``)
:func:`exponential_full_epsilon`   exponential mechanism with coefficient ``eps / Delta_u``
                                   instead of ``eps / (2 Delta_u)``
:func:`report_noisy_max_monotone_scale`
                                   report-noisy-max with the monotone scale ``Delta_u / eps``
                                   on replace-one scores, which need ``2 Delta_u / eps``
:func:`gd_scaled_noise`            noisy GD with noise ``factor x`` the calibrated sigma
:func:`gd_reused_noise`            noisy GD drawing one noise vector and adding it every step
:func:`classic_gaussian_beyond_validity`
                                   the classic ``sqrt(2 ln(1.25/delta)) Delta / eps`` sigma at
                                   an ``eps`` above :func:`spec.gaussian.classic_failure_epsilon`
:func:`gd_best_iterate`            noisy GD that should output a uniformly random iterate but
                                   outputs the iterate with the best objective on the data
=================================  =========================================================

Planted mechanisms carry no ``logpdf`` unless their own law is known exactly (the scaled-noise
variants, whose law is the reference law at the wrong parameter): an audit must not be handed
the correct mechanism's density for a buggy one.
"""

from __future__ import annotations

import numpy as np

from reference import mechanisms as mech
from reference.mechanisms.noisy_gd import noise_label
from spec import exponential as spec_exponential
from spec import gaussian as spec_gaussian
from spec import validate

__all__ = [
    "gaussian_scaled_noise",
    "laplace_scaled_noise",
    "radial_scaled_noise",
    "gaussian_add_remove_calibration",
    "exponential_full_epsilon",
    "report_noisy_max_monotone_scale",
    "gd_scaled_noise",
    "gd_reused_noise",
    "classic_gaussian_beyond_validity",
    "gd_best_iterate",
    "residual_spread",
    "PLANTED",
]


def _factor(factor) -> float:
    return validate.interval("factor", factor, 0.0, 1.0, closed="neither")


def _label(obj, text: str):
    obj._set_name(f"PLANTED {text}: {obj.__qualname__}")
    return obj


def gaussian_scaled_noise(correct: mech.GaussianMechanism, *, factor=0.8) -> mech.GaussianMechanism:
    """The Gaussian mechanism of ``correct`` with ``factor * sigma`` noise (same sensitivity)."""
    bug = mech.GaussianMechanism(sigma=_factor(factor) * correct.sigma, data_norm=correct.data_norm,
                                 dim=correct.dim, relation=correct.relation)
    return _label(bug, f"noise x{factor:g}")


def laplace_scaled_noise(correct: mech.LaplaceMechanism, *, factor=0.8) -> mech.LaplaceMechanism:
    """The Laplace mechanism of ``correct`` with scale ``factor * scale``."""
    bug = mech.LaplaceMechanism(scale=_factor(factor) * correct.scale, data_norm=correct.data_norm,
                                dim=correct.dim, relation=correct.relation)
    return _label(bug, f"noise x{factor:g}")


def radial_scaled_noise(correct: mech.RadialLaplaceMechanism, *, factor=0.8) -> mech.RadialLaplaceMechanism:
    """The radial Laplace mechanism of ``correct`` with rate ``rate / factor`` (noise x factor)."""
    bug = mech.RadialLaplaceMechanism(rate=correct.rate / _factor(factor), data_norm=correct.data_norm,
                                      dim=correct.dim, relation=correct.relation)
    return _label(bug, f"noise x{factor:g}")


def gaussian_add_remove_calibration(*, epsilon, delta, data_norm, dim=1) -> mech.GaussianMechanism:
    """Sensitivity off by 2: sigma from ``spec.gaussian.analytic_sigma`` at the add/remove
    sensitivity ``R`` of the sum query, while the claim is for replace-one, where the sum moves
    by up to ``2R``. Audit it on a replace-one pair whose sums differ by ``2R``."""
    bug = mech.GaussianMechanism.calibrated(epsilon=epsilon, delta=delta, data_norm=data_norm,
                                            dim=dim, relation="add/remove-one")
    return _label(bug, "add/remove sensitivity used for replace-one")


def exponential_full_epsilon(*, epsilon, score_bound, candidates) -> mech.ExponentialSelection:
    """Exponential mechanism with coefficient ``epsilon / Delta_u`` (the textbook coefficient is
    ``epsilon / (2 Delta_u)``, :func:`spec.exponential.exponent_textbook`): ``2 epsilon``-DP only,
    attained on scores that move by ``+Delta_u`` on one candidate and ``-Delta_u`` on another."""
    correct = mech.ExponentialSelection.calibrated(epsilon=epsilon, score_bound=score_bound,
                                                   candidates=candidates)
    bug = mech.ExponentialSelection(coefficient=2.0 * correct.coefficient, score_bound=score_bound,
                                    candidates=candidates)
    return _label(bug, "coefficient eps/Delta_u")


def report_noisy_max_monotone_scale(*, epsilon, score_bound, candidates) -> mech.ReportNoisyMaxSelection:
    """Report-noisy-max at the Laplace scale ``Delta_u / epsilon`` of *monotone* scores
    (:func:`spec.exponential.report_noisy_max_scale` with ``monotone=True``) under replace-one,
    where one score can rise by ``Delta_u`` while another falls by ``Delta_u`` and the scale
    must be ``2 Delta_u / epsilon``. With two candidates whose gap moves from ``-Delta_u`` to
    ``-3 Delta_u`` the first one's probability ratio is ``e^(2 eps) (2 + eps) / (2 + 3 eps)``
    (``ln`` of it: 1.49 at ``eps = 1``)."""
    scale = spec_exponential.report_noisy_max_scale(epsilon=epsilon, sensitivity=score_bound,
                                                    monotone=True)
    bug = mech.ReportNoisyMaxSelection(scale=scale, score_bound=score_bound, candidates=candidates)
    bug._claim(float(epsilon), 0.0)
    return _label(bug, "monotone scale for replace-one scores")


def gd_scaled_noise(correct: mech.NoisyGradientDescent, *, factor=0.8) -> mech.NoisyGradientDescent:
    """``correct`` (same loss, steps, step sizes, output, claim) with ``factor * sigma`` noise.
    Its law is the reference law at the smaller sigma, so it keeps its (own) ``logpdf``."""
    bug = mech.NoisyGradientDescent(loss=correct.loss, sigma=_factor(factor) * correct.sigma,
                                    steps=correct.steps, step_size=correct.step_sizes, dim=correct.dim,
                                    normalisation=correct.normalisation, n=correct.n,
                                    relation=correct.relation, output=correct.output,
                                    theta0=correct.theta0)
    if correct.epsilon is not None:
        bug._claim(correct.epsilon, correct.delta)
    return _label(bug, f"noise x{factor:g}")


class _ReusedNoiseGD(mech.NoisyGradientDescent):
    """Noisy GD that draws the step-1 noise once and adds the same vector at every step."""

    def _release(self, data, runs, source):
        z = source.normal(noise_label(1), (runs, self.dim))
        self._reused = z
        try:
            return super()._release(data, runs, source)
        finally:
            del self._reused

    def _noise(self, source, t, runs):
        return self._reused

    @property
    def logpdf(self):  # the law of the buggy transcript is degenerate: no density
        return None


def gd_reused_noise(correct: mech.NoisyGradientDescent) -> mech.NoisyGradientDescent:
    """``correct`` (same loss, sigma, steps, output) with one noise draw reused at every step.

    With a loss whose gradient depends on theta, ``r_t - grad L(theta_{t-1}; D)`` is the same
    vector at every step on the true dataset and not on the other one: the transcript reveals
    the data (see :func:`residual_spread`). (For the linear loss the gradient is constant and
    reuse only shrinks the leak, so the audit uses a nonlinear loss.)
    """
    bug = _ReusedNoiseGD(loss=correct.loss, sigma=correct.sigma, steps=correct.steps,
                         step_size=correct.step_sizes, dim=correct.dim,
                         normalisation=correct.normalisation, n=correct.n,
                         relation=correct.relation, output=correct.output, theta0=correct.theta0)
    if correct.epsilon is not None:
        bug._claim(correct.epsilon, correct.delta)
    return _label(bug, "noise reused across steps")


def residual_spread(gd: mech.NoisyGradientDescent, data):
    """Statistic for transcripts of ``gd``: the spread over steps of the residuals
    ``r_t - grad L(theta_{t-1}; data)``, ``max_t ||res_t - mean_s res_s||`` (shape ``(runs,)``).

    Fixed before the audit (it depends on the public configuration and one dataset of the
    pair only), so the harness's guarantee holds for it. For correct noise the residuals are
    i.i.d. ``N(0, sigma^2 I)`` and the spread is of order sigma on either dataset.
    """
    rows = gd._data(data)

    def statistic(outputs):
        r = np.asarray(outputs, dtype=float)
        runs = r.shape[0]
        theta = np.broadcast_to(gd.theta0, (runs, gd.dim)).copy()
        res = np.empty_like(r)
        for t in range(gd.steps):
            res[:, t] = r[:, t] - gd._gradient(theta, rows)
            theta = theta - gd.step_sizes[t] * r[:, t]
        dev = res - res.mean(axis=1, keepdims=True)
        return np.sqrt((dev * dev).sum(axis=2)).max(axis=1)

    statistic.__qualname__ = "residual spread over steps"
    return statistic


def classic_gaussian_beyond_validity(*, epsilon, delta, data_norm, dim=1) -> mech.GaussianMechanism:
    """The classic Gaussian calibration used at an ``epsilon`` where it is not a valid claim.

    ``spec.gaussian.classic_sigma`` refuses ``epsilon >= 1`` (the theorem's precondition); the
    bug is to evaluate the same record's formula anyway (``CLASSIC.evaluate("sigma", ...)``
    without its assumption check). Above :func:`spec.gaussian.classic_failure_epsilon` the
    resulting mechanism is not (epsilon, delta)-DP.
    """
    sens = mech.sum_sensitivity(data_norm=data_norm, relation="replace-one")
    # The bug: the record's own formula, evaluated with its assumption check switched off.
    sigma = spec_gaussian.CLASSIC.evaluate("sigma", check=False, epsilon=epsilon, delta=delta,
                                           sensitivity=sens)
    bug = mech.GaussianMechanism(sigma=sigma, data_norm=data_norm, dim=dim)
    bug._claim(float(epsilon), float(delta))
    return _label(bug, "classic Gaussian beyond its validity")


class _BestIterateGD(mech.NoisyGradientDescent):
    """Noisy GD that outputs the iterate with the smallest objective on the data."""

    def _choose(self, iterates, rows, runs, source):
        # The bug: the selection reads the private data. (The correct code draws R uniformly.)
        best = np.argmin(_objective(self, iterates, rows), axis=1)
        return iterates[np.arange(runs), best]

    @property
    def logpdf(self):
        return None


def _objective(gd, iterates, rows):
    runs, steps, dim = iterates.shape
    flat = iterates.reshape(runs * steps, dim)
    return np.asarray(gd.loss.total(flat, rows, normalisation=gd.normalisation)).reshape(runs, steps)


def gd_best_iterate(correct: mech.NoisyGradientDescent) -> mech.NoisyGradientDescent:
    """``correct`` (``output="random"``) but returning ``argmin_t L(theta_t; D)``.

    On the linear loss in one dimension with sums ``+s`` and ``-s`` on the two datasets, the
    best iterate is the maximum of the noisy walk on one dataset and its minimum on the other:
    for ``T`` steps ``P[output > 0]`` is about ``1 - 1/sqrt(pi T)`` against ``1/sqrt(pi T)``
    (Sparre Andersen), a privacy loss far above the claim's.
    """
    if correct.output != "random":
        raise ValueError(f"correct.output ({correct.output!r}) must be 'random'")
    bug = _BestIterateGD(loss=correct.loss, sigma=correct.sigma, steps=correct.steps,
                         step_size=correct.step_sizes, dim=correct.dim,
                         normalisation=correct.normalisation, n=correct.n,
                         relation=correct.relation, output="random", theta0=correct.theta0)
    if correct.epsilon is not None:
        bug._claim(correct.epsilon, correct.delta)
    return _label(bug, "best iterate instead of a random one")


#: Name -> planted function, for reports and the benchmark.
PLANTED = {f.__name__: f for f in (gaussian_scaled_noise, laplace_scaled_noise, radial_scaled_noise,
                                   gaussian_add_remove_calibration, exponential_full_epsilon,
                                   report_noisy_max_monotone_scale, gd_scaled_noise,
                                   gd_reused_noise, classic_gaussian_beyond_validity, gd_best_iterate)}
