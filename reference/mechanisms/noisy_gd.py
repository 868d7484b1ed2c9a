"""Full-batch noisy gradient descent with its exact laws and profiles (last iterate, random iterate, transcript).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy import special

from reference import losses as _losses
from reference import samplers
from reference.arrays import ArrayLike
from reference.mechanisms.base import (
    _OUTPUTS,
    Mechanism,
    _dim,
    _outputs,
)
from spec import gaussian as spec_gaussian
from spec import sensitivity as spec_sensitivity
from spec import validate
from spec.errors import ParameterError
from spec.record import Neighbouring

# --------------------------------------------------------------------------------------------
# noisy gradient descent
# --------------------------------------------------------------------------------------------

#: Tape label of the random-iterate draw (``output="random"``).
LABEL_RANDOM_ITERATE = "noisy gd: random iterate"


def noise_label(step: int) -> str:
    """Tape label of step ``step``'s (1-based) Gaussian noise."""
    return f"noisy gd: step {step} noise"


class NoisyGradientDescent(Mechanism):
    r"""Full-batch noisy gradient descent on R^p (no projection).

    ``theta_0`` (public, default 0); for ``t = 1, ..., T``:

        r_t = grad L(theta_{t-1}; D) + N(0, sigma^2 I_p)        (the released noisy gradient)
        theta_t = theta_{t-1} - eta_t r_t

    and the output is ``theta_T`` (``output="last"``), ``theta_R`` with ``R`` uniform on
    ``{1, ..., T}`` and independent of the data (``"random"``, the random-iterate output of
    wang19 Algorithm 1, line 5), or the transcript ``(r_1, ..., r_T)`` (``"transcript"``).

    Parameters
    ----------
    loss : reference.losses.Loss
        A loss whose constants hold on all of R^p (``domain_radius is None``): its Lipschitz
        constant ``L`` bounds every per-example gradient.
    sigma : float
        Noise standard deviation per coordinate and step, ``> 0``.
    steps : int
        ``T >= 1``.
    step_size : float or sequence of float
        ``eta_t > 0``: one value for every step, or ``T`` values.
    dim : int
        Parameter dimension ``p``.
    normalisation : {"sum", "average"}
        Empirical risk as the sum (bst14) or the average of the per-example losses.
    n : int, optional
        Number of records, required for ``"average"`` (the sensitivity is ``2L/n``; the data
        must have ``n`` rows).
    relation : Neighbouring or str
        Default replace-one. ``"average"`` needs replace-one (``n`` is fixed).
    output : {"last", "random", "transcript"}
    theta0 : array_like, optional
        Starting point, shape ``(p,)``; public.

    Attributes
    ----------
    sensitivity : float
        l2 sensitivity of one step's gradient: ``2L`` (sum, replace-one), ``L`` (sum,
        add/remove-one), ``2L/n`` (average, replace-one).

    Notes
    -----
    Tape: per step a ``normal`` entry of shape ``(runs, p)`` labelled ``"noisy gd: step t
    noise"``; with ``output="random"`` then an ``integers`` entry (``high = T``) of shape
    ``(runs,)`` labelled ``"noisy gd: random iterate"``, plus one.

    Exact laws (``logpdf``). The transcript: given ``r_1..r_{t-1}`` the iterate ``theta_{t-1}``
    is fixed, so the density is ``prod_t N(r_t; grad L(theta_{t-1}; D), sigma^2 I)`` for any
    loss. For the linear loss ``l(theta; d) = -<theta, d>`` the gradient ``g = -sum_i d_i``
    (or the average) does not depend on theta, so ``theta_t = theta_0 - S_t g - sum_{s<=t} eta_s
    z_s`` with ``S_t = sum_{s<=t} eta_s``: ``theta_t ~ N(theta_0 - S_t g, sigma^2 Q_t I)``,
    ``Q_t = sum_{s<=t} eta_s^2``; the random iterate is the uniform mixture over ``t``. Other
    losses have no closed-form law for ``"last"``/``"random"``; ``logpdf`` is then ``None``
    (the audit harness falls back to its own statistics).

    Privacy
    -------
    The transcript is the ``T``-fold adaptive composition of Gaussian mechanisms of sensitivity
    ``sensitivity``, exactly ``mu``-GDP with ``mu = sqrt(T) sensitivity / sigma``
    (``gaussian.analytic``, composed by Gaussian DP); ``theta_T`` and ``theta_R`` are
    post-processing (``R`` is data independent). :meth:`profile` returns that profile. For the
    linear loss the last iterate is Gaussian with mean shift ``S_T sensitivity`` and standard
    deviation ``sigma sqrt(Q_T)``, i.e. ``mu_out = S_T sensitivity / (sigma sqrt(Q_T)) <=
    sqrt(T) sensitivity / sigma`` by Cauchy-Schwarz, with equality for a constant step size:
    the last iterate then attains the composed profile (:meth:`output_profile`).
    """

    def __init__(self, *, loss: _losses.Loss, sigma: float, steps: int, step_size: float | ArrayLike, dim: int,
                 normalisation: str = "sum", n: int | None = None, relation: Neighbouring | str = "replace-one",
                 output: str = "last", theta0: ArrayLike | None = None) -> None:
        if not isinstance(loss, _losses.Loss):
            raise TypeError(f"loss ({loss!r}) must be a reference.losses.Loss")
        if loss.domain_radius is not None:
            raise ParameterError(
                f"loss ({loss!r}) has domain_radius ({loss.domain_radius!r}): its constants hold only on "
                "a ball, and this algorithm does not project; use a loss whose constants hold on R^p"
            )
        self.loss = loss
        self.sigma = validate.positive("sigma", sigma)
        self.steps = validate.positive_integer("steps", steps)
        self.dim = _dim(dim)
        self.normalisation = validate.choice("normalisation", normalisation, {"sum", "average"})
        self.relation = Neighbouring.parse(relation)
        self.output = validate.choice("output", output, set(_OUTPUTS))
        self.step_sizes = self._step_sizes(step_size)
        lipschitz = loss.constants.lipschitz
        if not lipschitz > 0:
            raise ParameterError(f"loss ({loss!r}) has Lipschitz constant 0: nothing to protect")
        if self.normalisation == "average":
            if n is None:
                raise ParameterError("n (None) is required with normalisation 'average'")
            self.n = validate.positive_integer("n", n)
            if self.relation is not Neighbouring.REPLACE_ONE:
                raise ParameterError("normalisation 'average' needs relation replace-one (n must not change)")
            # one of n gradients of norm <= L is replaced: sensitivity.average at R = L
            self.sensitivity = spec_sensitivity.AVERAGE.evaluate("replace_one", norm_bound=lipschitz, n=self.n)
        else:
            self.n = None if n is None else validate.positive_integer("n", n)
            formula = "replace_one" if self.relation is Neighbouring.REPLACE_ONE else "add_remove_one"
            self.sensitivity = spec_sensitivity.SUM.evaluate(formula, norm_bound=lipschitz)
        self.theta0 = np.zeros(self.dim) if theta0 is None else self._theta0(theta0)
        self._set_name(f"NoisyGradientDescent(sigma={self.sigma:.6g}, steps={self.steps}, "
                       f"sensitivity={self.sensitivity:g}, output={self.output})")

    # ---- configuration ---------------------------------------------------------------------

    def _step_sizes(self, step_size) -> np.ndarray:
        if np.ndim(step_size) == 0:
            eta = validate.positive("step_size", step_size)
            return np.full(self.steps, eta)
        arr = np.asarray(step_size)
        if arr.dtype == object or arr.dtype.kind not in "iuf":
            raise TypeError(f"step_size must be real numbers, got dtype {arr.dtype}")
        arr = arr.astype(float)
        if arr.shape != (self.steps,):
            raise ParameterError(f"step_size (shape {arr.shape}) must be a number or have shape ({self.steps},)")
        if not (np.isfinite(arr).all() and (arr > 0).all()):
            raise ParameterError("step_size entries must be finite and > 0")
        return arr

    def _theta0(self, theta0) -> np.ndarray:
        t = np.asarray(theta0, dtype=float)
        if t.shape != (self.dim,) or not np.isfinite(t).all():
            raise ParameterError(f"theta0 (shape {t.shape}) must be a finite vector of shape ({self.dim},)")
        return t.copy()

    @classmethod
    def calibrated(cls, *, epsilon: float, delta: float, loss: _losses.Loss, steps: int,
                   step_size: float | ArrayLike, dim: int, normalisation: str = "sum", n: int | None = None,
                   relation: Neighbouring | str = "replace-one", output: str = "last",
                   theta0: ArrayLike | None = None) -> "NoisyGradientDescent":
        """sigma from :func:`spec.gaussian.analytic_sigma` with ``steps`` composed releases.

        Privacy
        -------
        ``gaussian.analytic`` composed over ``steps`` (Gaussian DP): (epsilon, delta)-DP for the
        transcript, hence for every output.
        """
        probe = cls(loss=loss, sigma=1.0, steps=steps, step_size=step_size, dim=dim,
                    normalisation=normalisation, n=n, relation=relation, output=output, theta0=theta0)
        sigma = spec_gaussian.analytic_sigma(epsilon=epsilon, delta=delta, sensitivity=probe.sensitivity,
                                             steps=probe.steps)
        mech = cls(loss=loss, sigma=sigma, steps=steps, step_size=step_size, dim=dim,
                   normalisation=normalisation, n=n, relation=relation, output=output, theta0=theta0)
        mech._claim(float(epsilon), float(delta))
        return mech

    # ---- the algorithm ---------------------------------------------------------------------

    def _data(self, data) -> np.ndarray:
        rows = self.loss.validate_data(data)
        if rows.ndim != 2 or self.loss.dim_of_row(rows.shape[1]) != self.dim:
            raise ParameterError(f"data (shape {rows.shape}) must have shape (n, {self.loss.row_size(self.dim)})")
        if self.normalisation == "average" and rows.shape[0] != self.n:
            raise ParameterError(f"data has {rows.shape[0]} rows but n ({self.n}) was declared")
        return rows

    def _gradient(self, theta, rows) -> np.ndarray:
        return self.loss.total_gradient(theta, rows, normalisation=self.normalisation, check=False)

    def _noise(self, source, t: int, runs: int) -> np.ndarray:
        """Standard normal draws of step ``t`` (1-based), shape ``(runs, p)``."""
        return source.normal(noise_label(t), (runs, self.dim))

    def _choose(self, iterates, rows, runs, source) -> np.ndarray:
        """``theta_R`` with ``R`` uniform on ``{1..T}``, independent of the data."""
        r = source.integers(LABEL_RANDOM_ITERATE, self.steps, (runs,))
        return iterates[np.arange(runs), r]

    def _release(self, data, runs, source):
        rows = self._data(data)
        theta = np.broadcast_to(self.theta0, (runs, self.dim)).copy()
        keep = self.output == "random"
        iterates = np.empty((runs, self.steps, self.dim)) if keep else None
        transcript = np.empty((runs, self.steps, self.dim)) if self.output == "transcript" else None
        for t in range(1, self.steps + 1):
            released = self._gradient(theta, rows) + self.sigma * self._noise(source, t, runs)
            theta = theta - self.step_sizes[t - 1] * released
            if keep:
                iterates[:, t - 1] = theta
            if transcript is not None:
                transcript[:, t - 1] = released
        if self.output == "transcript":
            return transcript
        if self.output == "random":
            return self._choose(iterates, rows, runs, source)
        return theta

    # ---- laws and profiles -----------------------------------------------------------------

    @property
    def logpdf(self) -> Callable[[ArrayLike, ArrayLike], np.ndarray] | None:
        """``logpdf(data, outputs)`` where the law is known (see Notes), else ``None``."""
        if self.output == "transcript":
            return self._logpdf_transcript
        if isinstance(self.loss, _losses.Linear):
            return self._logpdf_linear
        return None

    def _logpdf_transcript(self, data, outputs) -> np.ndarray:
        rows = self._data(data)
        r = _outputs("outputs", outputs, (self.steps, self.dim))
        runs = r.shape[0]
        theta = np.broadcast_to(self.theta0, (runs, self.dim)).copy()
        law = samplers.Gaussian(scale=self.sigma, dim=self.dim)
        total = np.zeros(runs)
        for t in range(self.steps):
            total += law.logpdf(r[:, t] - self._gradient(theta, rows))
            theta = theta - self.step_sizes[t] * r[:, t]
        return total

    def _logpdf_linear(self, data, outputs) -> np.ndarray:
        rows = self._data(data)
        y = _outputs("outputs", outputs, (self.dim,))
        g = self._gradient(self.theta0, rows)  # constant in theta for the linear loss
        cum = np.cumsum(self.step_sizes)
        cum_sq = np.cumsum(self.step_sizes**2)
        if self.output == "last":
            law = samplers.Gaussian(scale=self.sigma * math.sqrt(cum_sq[-1]), dim=self.dim)
            return np.atleast_1d(law.logpdf(y - (self.theta0 - cum[-1] * g)))
        parts = np.empty((y.shape[0], self.steps))
        for t in range(self.steps):
            law = samplers.Gaussian(scale=self.sigma * math.sqrt(cum_sq[t]), dim=self.dim)
            parts[:, t] = law.logpdf(y - (self.theta0 - cum[t] * g))
        return special.logsumexp(parts, axis=1) - math.log(self.steps)

    def profile(self) -> Callable[[float], float]:
        """The composed profile of the ``T`` noisy gradients: :func:`spec.gaussian.profile` with
        ``steps = T`` (a valid profile for every output mode)."""
        return spec_gaussian.profile(sigma=self.sigma, sensitivity=self.sensitivity, steps=self.steps)

    def output_profile(self) -> Callable[[float], float]:
        """Exact profile of the last iterate for the linear loss (see Privacy): the Gaussian
        mechanism with sensitivity ``S_T * sensitivity`` and noise ``sigma sqrt(Q_T)``."""
        if self.output != "last" or not isinstance(self.loss, _losses.Linear):
            raise ParameterError("output_profile is known for output 'last' with the linear loss only")
        # Rounded so that the profile can only be overstated: shift up, noise down.
        shift = math.nextafter(math.fsum(self.step_sizes.tolist()) * self.sensitivity, math.inf)
        noise = math.nextafter(self.sigma * math.sqrt(math.fsum((self.step_sizes**2).tolist())), 0.0)
        return spec_gaussian.profile(sigma=noise, sensitivity=shift)
