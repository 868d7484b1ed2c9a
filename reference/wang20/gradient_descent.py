r"""wang20 Algorithms 3 and 4: projected gradient descent with a private robust gradient, batched over runs.

Both algorithms run ``w^t = P_W(w^{t-1} - eta g^{t-1})`` for ``t = 1..T`` (lines 2, 5 and 6 of both
boxes: :func:`projected_gradient_descent`); they differ in the private gradient ``g^{t-1}``
(lines 3-4):

* Algorithm 3 (:func:`trimmed_mean_gd`, known mean range ``[a, b]``): Algorithm 2 on every
  coordinate of the n per-record gradients, each with budget ``eps~/sqrt(d T)`` (``wang20.alg_3``
  formula ``coordinate_epsilon``; the printed line 4 passes ``epsilon/sqrt(d T)``, the ERRATUM flag);
  the d T calls compose to ``eps~^2/2 = rho*(epsilon, delta)``-zCDP (``wang20.thm_4``).
* Algorithm 4 (:func:`catoni_giulini_gd`, known second moment ``v``): the Catoni-Giulini estimator
  (eq. 10, :func:`reference.wang20.catoni_giulini.robust_mean`) of every coordinate plus
  ``N(0, sigma^2)``, ``sigma^2 = 8 v d T/(9 ln(1/delta') n eps~)`` (``wang20.alg_4`` formula
  ``sigma``): T Gaussian releases of l2 sensitivity ``sqrt(d)(s/n)(4 sqrt 2/3)``, which compose to
  ``rho*``-zCDP whatever the data.

Neither uses a Lipschitz constant or a bound on the data: the losses may be the heavy-tailed ones of
:mod:`reference.losses.heavy_tailed`. ``T`` and ``eta`` are Theorem 5's (Algorithm 3), Theorem 7's
(Algorithm 4, ``schedule="strongly_convex"``) or Theorem 8's (``schedule="convex"``), evaluated
from the population constants the caller declares (``smoothness`` beta and ``strong_convexity``
alpha of ``L_D``: public, never estimated from the data).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, ClassVar

import numpy as np

from reference.configured import Configured, minimum_records, quantity
from reference.problem import check_problem, check_setting, start_point
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.wang20 import catoni_giulini as _cg
from reference.wang20 import bun_steinke as _tm
from spec import validate
from spec.errors import ParameterError
from spec.wang20 import gradient_descent as _spec

__all__ = [
    "ALG3_SPEC_IDS",
    "ALG4_SPEC_IDS",
    "LABEL_Y",
    "LABEL_Z",
    "SCHEDULES",
    "GradientDescentResult",
    "TrimmedMeanGD",
    "CatoniGiuliniGD",
    "projected_gradient_descent",
    "trimmed_mean_gd",
    "catoni_giulini_gd",
    "steps_and_learning_rate",
]

#: The records whose formulas and claims Algorithms 3 and 4 use.
ALG3_SPEC_IDS = ("wang20.alg_3", "wang20.thm_4", "wang20.thm_5", "wang20.alg_2", "wang20.thm_3")
ALG4_SPEC_IDS = ("wang20.alg_4", "wang20.thm_7", "wang20.thm_8", "wang20.eq_9", "wang20.lemma_3")
#: Tape labels: Algorithm 2's standard normal Y for every coordinate (Algorithm 3, line 4) and the
#: standard normal of Algorithm 4's Gaussian noise Z (line 3); both of shape (runs, d) per step.
LABEL_Y = "wang20 Alg.3 L4 Y"
LABEL_Z = "wang20 Alg.4 L3 Z"
SCHEDULES = ("strongly_convex", "convex")


@dataclass(frozen=True)
class GradientDescentResult(AlgorithmResult):
    """Output of :func:`trimmed_mean_gd` and :func:`catoni_giulini_gd`.

    Attributes
    ----------
    theta : ndarray, shape (runs, d)
        ``w^T`` of every run.
    steps : int
        ``T``.
    learning_rate : float
        ``eta``.
    theta_1 : ndarray, shape (runs, d)
        ``w^0``.
    parameters : dict
        The constants the run used (all from spec records): budgets, sigma, scale, trim, ...
    transcript : dict or None
        With ``transcript=True``: ``{"gradient": (T, runs, d), "theta": (T, runs, d)}`` (row
        ``t - 1``: ``g^{t-1}`` and ``w^t``).
    """

    theta: np.ndarray
    steps: int
    learning_rate: float
    theta_1: np.ndarray = field(repr=False)
    parameters: dict = field(default_factory=dict)
    transcript: dict | None = field(default=None, repr=False)


def _start(theta_1, domain, runs: int, p: int) -> np.ndarray:
    if theta_1 is None:
        return np.broadcast_to(np.asarray(domain.interior_point(), dtype=float), (runs, p)).copy()
    t1 = np.asarray(theta_1, dtype=float)
    if t1.shape not in ((p,), (runs, p)):
        raise ParameterError(f"theta_1 (shape {t1.shape}) must have shape ({p},) or ({runs}, {p})")
    if not np.all(np.isfinite(t1)):
        raise ParameterError("theta_1 (non-finite entries) must be finite")
    theta = np.broadcast_to(t1, (runs, p)).copy()
    if not np.all(domain.contains(theta)):
        raise ParameterError(f"theta_1 ({t1.tolist()}) must lie in the domain {domain!r}")
    return theta


def projected_gradient_descent(rows, *, loss, domain, steps, learning_rate, estimator: Callable, runs, theta_1=None,
                               transcript=None, progress=None):
    """Lines 2, 5 and 6 of Algorithms 3 and 4 around a private gradient ``estimator``.

    Parameters
    ----------
    rows : ndarray, shape (n, k)
        A :meth:`~reference.losses.Loss.validate_data` snapshot.
    loss, domain
        The loss (its unchecked gradient hook is used) and the bounded constraint set W.
    steps : int
        ``T``.
    learning_rate : float
        ``eta``.
    estimator : callable
        ``estimator(t, gradients) -> (runs, d)``: the private gradient ``g^{t-1}`` from the
        per-record gradients ``(runs, n, d)`` at ``w^{t-1}`` (lines 3-4).
    runs : int
    theta_1 : array_like, optional
        ``w^0``; default ``domain.interior_point()``.
    transcript : callable or True, optional
        ``transcript(t, {"gradient": g, "theta": w^t, "eta": eta})`` after every step, or
        ``True`` to stack them on the returned dict.
    progress : callable, optional
        ``progress(t, T)`` after every step.

    Returns
    -------
    (theta, theta_1, stacked transcript or None)
    """
    p = domain.dim
    theta = _start(theta_1, domain, runs, p)
    start = theta.copy()
    x_rows, y_rows = loss.split(rows)
    if transcript is not None and transcript is not True and not callable(transcript):
        raise TypeError(f"transcript ({type(transcript).__name__}) must be None, True or a callable")
    keep = transcript is True
    if keep:
        g_hist = np.empty((steps, runs, p))
        theta_hist = np.empty((steps, runs, p))
    # [wang20 Alg.3 L2] for t = 1, ..., T
    # [wang20 Alg.4 L2] for t = 1, ..., T
    for t in range(1, steps + 1):
        # per-record gradients at w^{t-1}: (runs, n, d)
        grads = loss.gradient_unchecked(theta[:, None, :], x_rows, y_rows)
        g = estimator(t, grads)
        # [wang20 Alg.3 L5] w^t = P_W(w^{t-1} - eta grad~ L(w^{t-1}, D))
        # [wang20 Alg.4 L5] w^t = P_W(w^{t-1} - eta g^{t-1})
        theta = domain.project_unchecked(theta - learning_rate * g)
        if keep:
            g_hist[t - 1] = g
            theta_hist[t - 1] = theta
        elif transcript is not None:
            transcript(t, {"gradient": g.copy(), "theta": theta.copy(), "eta": learning_rate})
        if progress is not None:
            progress(t, steps)
    # [wang20 Alg.3 L6] end for: output w^T
    # [wang20 Alg.4 L6] end for: output w^T
    return theta, start, ({"gradient": g_hist, "theta": theta_hist} if keep else None)


def steps_and_learning_rate(*, schedule, n, smoothness, strong_convexity=None, epsilon=None, delta=None,
                            dimension=None, diameter=None) -> tuple[int, float]:
    """``(T, eta)`` of Theorem 7 (``"strongly_convex"``: ``T = ceil((beta/alpha) ln n)``, ``eta = 1/beta``)
    or Theorem 8 (``"convex"``: ``T = ceil((Delta sqrt(n eps~)/d)^(2/3))``, ``eta = 1/beta``).

    Utility
    -------
    ``wang20.thm_7``, ``wang20.thm_8`` (and ``wang20.thm_5``, whose T and eta are Theorem 7's).
    """
    sched = validate.choice("schedule", schedule, SCHEDULES)
    beta = validate.positive("smoothness", smoothness)
    if sched == "strongly_convex":
        alpha = validate.positive("strong_convexity", strong_convexity)
        rec = _spec.THM_7
        steps = rec.evaluate("steps", smoothness=beta, strong_convexity=alpha, n=n)
        eta = rec.evaluate("learning_rate", smoothness=beta, strong_convexity=alpha, n=n)
    else:
        rec = _spec.THM_8
        values = dict(epsilon=epsilon, delta=delta, n=n, dimension=dimension, diameter=diameter)
        steps = rec.evaluate("steps", **values)
        eta = rec.evaluate("learning_rate", smoothness=beta)
    return int(max(steps, 1)), float(eta)


def _steps_note(schedule: str, *, n, smoothness, strong_convexity=None, epsilon=None, delta=None, dimension=None,
                diameter=None) -> tuple[str, ...]:
    """A note when the theorem's T is 1 (or floored to 1): what it means and which option changes it."""
    if schedule == "strongly_convex":
        raw = _spec.THM_7.evaluate("steps", smoothness=smoothness, strong_convexity=strong_convexity, n=n)
        theorem, fix = "Theorem 7", "a larger strong_convexity or smoothness ratio"
    else:
        raw = _spec.THM_8.evaluate("steps", epsilon=epsilon, delta=delta, n=n, dimension=dimension, diameter=diameter)
        theorem, fix = "Theorem 8", "more records, a larger epsilon or a larger domain"
    if raw > 1:
        return ()
    floored = " (floored at 1)" if raw < 1 else ""
    return (f"T = 1: {theorem}'s T is {raw!r} at these values{floored}, so the run is one noisy gradient step "
            f"from w^0 and the output stays near the start point; only {fix} changes the theorem's T.",)


@dataclass(frozen=True, kw_only=True, eq=False)
class _GradientDescentBox(Configured):
    """What Algorithms 3 and 4 share: T, eta, the start point w^0 and the projected loop."""

    #: The transcript key, the iterate's name and its index offset of the vectors' checkpoints.
    CHECKPOINT: ClassVar[tuple] = ("theta", "w", 0)

    USES: ClassVar[tuple[str, ...]] = ()

    theta_1: np.ndarray | None = field(default=None, repr=False)
    smoothness: float = quantity("beta of the population risk (given; eta = 1/beta)", source="given")
    steps: int = quantity("T projected gradient steps (line 2)", source="wang20.thm_7 / thm_8 steps")
    learning_rate: float = quantity("eta (line 5)", source="wang20.thm_7 / thm_8 learning_rate")

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """n per-record gradients per step and run: ``n T runs``."""
        return int(self.n) * int(self.steps) * int(runs)

    def check_data(self, data):
        rows, n, _ = check_problem(data, loss=self.loss, domain=self.domain)
        self._check_n(n)
        return rows


def _bounded(domain) -> None:
    if not math.isfinite(domain.diameter):
        raise ParameterError(f"domain ({domain!r}) must be bounded (wang20 Assumption 1.3: diameter Delta < inf)")


# --------------------------------------------------------------------------------------------
# Algorithm 3


@dataclass(frozen=True, kw_only=True, eq=False)
class TrimmedMeanGD(_GradientDescentBox):
    r"""Algorithm 3, configured: T, eta and Algorithm 2's budget, trim, dilation and shift per coordinate.

    Privacy
    -------
    ``wang20.thm_4``: (epsilon, delta)-DP; the d T calls are ``rho*(epsilon, delta)``-zCDP in total
    (``wang20.alg_3`` formula ``rho_total``), whatever the data.

    Utility
    -------
    ``wang20.thm_5`` (strongly convex population risk, Assumption 3).
    """

    ALGORITHM: ClassVar[str] = "wang20.alg_3"
    RESULT: ClassVar[type] = GradientDescentResult

    mean_lower: float
    mean_upper: float
    strong_convexity: float = quantity("alpha of the population risk (given)", source="given")
    epsilon_tilde: float = quantity("eps~ = sqrt(2 rho*) (line 1)", source="wang20.alg_3 epsilon_tilde")
    coordinate_epsilon: float = quantity("Algorithm 2's budget per coordinate and step, eps~/sqrt(d T) (line 4)",
                                         source="wang20.alg_3 coordinate_epsilon")
    dilation: float = quantity("Algorithm 2's t at that budget", source="wang20.alg_3 dilation")
    shift: float = quantity("Algorithm 2's s at that budget", source="wang20.alg_3 shift")
    trim: int = quantity("Algorithm 2's m in every call", source="wang20.alg_3 trim_default, or given")
    rho_total: float = quantity("the zCDP of all d T calls", source="wang20.alg_3 rho_total")

    def privacy_record(self) -> str:
        return "wang20.thm_4"

    @classmethod
    def configure(cls, *, loss, domain, n: int, epsilon: float, delta: float, mean_lower: float, mean_upper: float,
                  smoothness: float, strong_convexity: float, trim: int | None = None, theta_1=None,
                  allow_unproven: bool = False) -> "TrimmedMeanGD":
        r"""Configure Algorithm 3 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            Convex; e.g. a heavy-tailed loss (``reference.losses.heavy_tailed``).
        domain : reference.domains.Domain
            A bounded convex W.
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            The budget, with ``0 < epsilon <= 1`` and ``0 < delta < 1`` (``wang20.thm_4``).
        mean_lower, mean_upper : float
            A public ``[a, b]`` containing every ``E grad_j l(w, x)``, w in W (Assumption 3.2).
        smoothness, strong_convexity : float
            beta and alpha of the population risk: ``T = ceil((beta/alpha) ln n)``, ``eta = 1/beta``.
        trim : int, optional
            Algorithm 2's m in every call; by default the record's ``trim_default`` at the coordinate budget.
        theta_1 : array_like, optional
            The start w^0; by default ``domain.interior_point()``.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        TrimmedMeanGD
        """
        check_setting(loss=loss, domain=domain, convex=True)
        _bounded(domain)
        n = minimum_records(n, cls.ALGORITHM)
        p = domain.dim
        a = validate.real("mean_lower", mean_lower)
        b = validate.real("mean_upper", mean_upper)
        steps, eta = steps_and_learning_rate(schedule="strongly_convex", n=n, smoothness=smoothness,
                                             strong_convexity=strong_convexity)
        _spec.THM_5.check(delta=delta, n=n, smoothness=smoothness, strong_convexity=strong_convexity)
        rec = _spec.ALG_3
        at = dict(epsilon=epsilon, delta=delta, dimension=p, steps=steps, n=n, mean_lower=a, mean_upper=b)
        # [wang20 Alg.3 L1] eps~ = sqrt(2 log(1/delta) + 2 epsilon) - sqrt(2 log(1/delta)) (= sqrt(2 rho*), rounded down)
        m = int(rec.evaluate("trim_default", **at)) if trim is None else _tm._check_trim(trim, n)
        flags = (["default-trim"] if trim is None else []) + (["trim-capped"] if 2 * m >= n - 2 else [])
        start = None if theta_1 is None else start_point("theta_1", theta_1, domain)
        return cls(loss=loss, domain=domain, n=n, p=p, epsilon=float(epsilon), delta=float(delta),
                   options={"mean_lower": a, "mean_upper": b, "smoothness": smoothness,
                            "strong_convexity": strong_convexity, "trim": trim, "theta_1": theta_1},
                   spec_ids=ALG3_SPEC_IDS, flags=tuple(flags),
                   notes=_steps_note("strongly_convex", n=n, smoothness=smoothness, strong_convexity=strong_convexity),
                   allow_unproven=allow_unproven, theta_1=start, smoothness=float(smoothness),
                   strong_convexity=float(strong_convexity), steps=steps, learning_rate=eta, mean_lower=a,
                   mean_upper=b, epsilon_tilde=rec.evaluate("epsilon_tilde", **at),
                   coordinate_epsilon=rec.evaluate("coordinate_epsilon", **at), dilation=rec.evaluate("dilation", **at),
                   shift=rec.evaluate("shift", **at), trim=m, rho_total=rec.evaluate("rho_total", **at))._finish()

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, m, a, b = noise, self.trim, self.mean_lower, self.mean_upper

        def estimator(t, grads):
            # [wang20 Alg.3 L3] D_{t-1,j} = {grad_j l(w^{t-1}, x_i)}_{i=1}^n for each j in [d]
            coords = np.swapaxes(grads, -1, -2)  # (runs, d, n)
            # [wang20 Alg.3 L4] Algorithm 2 on every D_{t-1,j} with budget eps~/sqrt(d T) and range [a, b]
            out, _, _, _ = _tm.release(coords, trim=m, dilation=self.dilation, shift=self.shift, mean_lower=a,
                                       mean_upper=b, noise=src, label=LABEL_Y)
            return out

        theta, start, stacked = projected_gradient_descent(
            rows, loss=self.loss, domain=self.domain, steps=self.steps, learning_rate=self.learning_rate,
            estimator=estimator, runs=runs, theta_1=self.theta_1, transcript=transcript, progress=progress)
        parameters = {"epsilon_tilde": self.epsilon_tilde, "coordinate_epsilon": self.coordinate_epsilon,
                      "dilation": self.dilation, "shift": self.shift, "trim": m, "rho_total": self.rho_total}
        return dict(theta=theta, steps=self.steps, learning_rate=self.learning_rate, theta_1=start,
                    parameters=parameters, transcript=stacked)


def trimmed_mean_gd(data, *, loss, domain, epsilon, delta, mean_lower, mean_upper, smoothness, strong_convexity,
                    trim=None, runs=1, theta_1=None, rng: RngLike = None, noise=None,
                    transcript=None) -> GradientDescentResult:
    r"""Algorithm 3: :meth:`TrimmedMeanGD.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Finite rows (no bound).
    loss, domain, epsilon, delta, mean_lower, mean_upper, smoothness, strong_convexity, trim, theta_1
        As in :meth:`TrimmedMeanGD.configure`.
    runs, transcript
        As in :func:`projected_gradient_descent`.
    rng, noise
        Per step one ``normal`` entry ``"wang20 Alg.3 L4 Y"`` of shape ``(runs, d)``.

    Returns
    -------
    GradientDescentResult
        ``parameters``: ``epsilon_tilde``, ``coordinate_epsilon``, ``dilation``, ``shift``,
        ``trim``, ``rho_total``.

    Privacy
    -------
    ``wang20.thm_4``.

    Utility
    -------
    ``wang20.thm_5`` (strongly convex population risk, Assumption 3).
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = TrimmedMeanGD.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta,
                                         mean_lower=mean_lower, mean_upper=mean_upper, smoothness=smoothness,
                                         strong_convexity=strong_convexity, trim=trim, theta_1=theta_1,
                                         allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)


# --------------------------------------------------------------------------------------------
# Algorithm 4


@dataclass(frozen=True, kw_only=True, eq=False)
class CatoniGiuliniGD(_GradientDescentBox):
    r"""Algorithm 4, configured: T, eta, the truncation scale s, beta and sigma, before any data.

    Privacy
    -------
    ``wang20.alg_4``, ``wang20.thm_7``: (epsilon, delta)-DP; the T releases are ``rho*``-zCDP and,
    exactly, the Gaussian mechanism with sensitivity ``sqrt(T d)(s/n)(4 sqrt 2/3)`` (``gaussian.analytic``
    at ``steps = T``), whatever the data and whatever beta.

    Utility
    -------
    ``wang20.thm_7`` (strongly convex), ``wang20.thm_8`` (convex).
    """

    ALGORITHM: ClassVar[str] = "wang20.alg_4"
    RESULT: ClassVar[type] = GradientDescentResult

    schedule: str
    second_moment: float = quantity("v >= E (grad_j l)^2 on W (given, Assumption 4)", source="given")
    epsilon_tilde: float = quantity("eps~ = rho*(epsilon, delta) (line 1)", source="wang20.alg_4 epsilon_tilde")
    truncation_scale: float = quantity("s = sqrt(n v/(2 log(1/delta'))) (line 1)", source="wang20.alg_4")
    noise_precision: float = quantity("beta of eq. (10)", source="wang20.alg_4 noise_precision, or given")
    coordinate_sensitivity: float = quantity("l2 sensitivity of one coordinate", source="wang20.alg_4")
    sensitivity: float = quantity("l2 sensitivity of one step's gradient", source="wang20.alg_4")
    sigma: float = quantity("noise standard deviation per coordinate (line 3)", source="wang20.alg_4 sigma")
    rho_total: float = quantity("the zCDP of the T releases", source="wang20.alg_4 rho_total")
    parameters: dict = field(default_factory=dict, repr=False)

    def privacy_record(self) -> str:
        return "wang20.thm_7"

    @classmethod
    def configure(cls, *, loss, domain, n: int, epsilon: float, delta: float, second_moment: float,
                  failure_probability: float, smoothness: float, schedule: str = "strongly_convex",
                  strong_convexity: float | None = None, noise_precision: float | None = None, theta_1=None,
                  allow_unproven: bool = False) -> "CatoniGiuliniGD":
        r"""Configure Algorithm 4 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            Convex; e.g. a heavy-tailed loss.
        domain : reference.domains.Domain
            A bounded convex W.
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            The budget (``epsilon > 0``, ``0 < delta < 1``).
        second_moment : float
            A public v with ``E (grad_j l(w, x))^2 <= v`` on W (Assumption 4); it sets s and sigma.
        failure_probability : float
            delta' in (0, 1).
        smoothness : float
            beta of the population risk (``eta = 1/beta``).
        schedule : {"strongly_convex", "convex"}
            T of Theorem 7 (needs ``strong_convexity``) or Theorem 8.
        strong_convexity : float, optional
            alpha of the population risk, for Theorem 7.
        noise_precision : float, optional
            beta of eq. (10); by default Lemma 3's ``2 ln(1/delta')``. Privacy does not depend on it.
        theta_1 : array_like, optional
            The start w^0; by default ``domain.interior_point()``.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        CatoniGiuliniGD
        """
        check_setting(loss=loss, domain=domain, convex=True)
        _bounded(domain)
        n = minimum_records(n, cls.ALGORITHM)
        p = domain.dim
        eps = validate.epsilon(epsilon)
        sched = validate.choice("schedule", schedule, SCHEDULES)
        steps, eta = steps_and_learning_rate(schedule=sched, n=n, smoothness=smoothness,
                                             strong_convexity=strong_convexity, epsilon=eps, delta=delta, dimension=p,
                                             diameter=domain.diameter)
        rec = _spec.ALG_4
        at = dict(epsilon=eps, delta=delta, n=n, dimension=p, steps=steps, second_moment=second_moment,
                  failure_probability=failure_probability)
        # [wang20 Alg.4 L1] eps~ = rho*(epsilon, delta), s = sqrt(n v/(2 log(1/delta'))), beta (default 2 log(1/delta'))
        beta = rec.evaluate("noise_precision", **at) if noise_precision is None else validate.positive(
            "noise_precision", noise_precision)
        # [wang20 Alg.4 L3] sigma^2 = 8 v d T/(9 log(1/delta') n eps~) (the record's zCDP calibration, rounded up)
        values = {name: rec.evaluate(name, **at) for name in (
            "epsilon_tilde", "truncation_scale", "coordinate_sensitivity", "sensitivity", "sigma", "rho_total")}
        parameters = {"epsilon_tilde": values["epsilon_tilde"], "truncation_scale": values["truncation_scale"],
                      "noise_precision": beta, "coordinate_sensitivity": values["coordinate_sensitivity"],
                      "sensitivity": values["sensitivity"], "sigma": values["sigma"],
                      "rho_total": values["rho_total"], "schedule": sched}
        start = None if theta_1 is None else start_point("theta_1", theta_1, domain)
        notes = _steps_note(sched, n=n, smoothness=smoothness, strong_convexity=strong_convexity, epsilon=eps,
                            delta=delta, dimension=p, diameter=domain.diameter)
        return cls(loss=loss, domain=domain, n=n, p=p, epsilon=eps, delta=float(delta),
                   options={"second_moment": second_moment, "failure_probability": failure_probability,
                            "smoothness": smoothness, "schedule": sched, "strong_convexity": strong_convexity,
                            "noise_precision": noise_precision, "theta_1": theta_1},
                   spec_ids=ALG4_SPEC_IDS, notes=notes, allow_unproven=allow_unproven, theta_1=start,
                   smoothness=float(smoothness), steps=steps, learning_rate=eta, schedule=sched,
                   second_moment=float(second_moment), noise_precision=beta, parameters=parameters,
                   **{k: v for k, v in values.items()})._finish()

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, s, beta, sigma = noise, self.truncation_scale, self.noise_precision, self.sigma

        def estimator(t, grads):
            # [wang20 Alg.4 L3] g_j = (s/n) sum_i E phi((grad_j l + eta grad_j l)/s) + Z_j (eq. 10, each term clamped)
            robust = _cg.robust_mean(grads, truncation_scale=s, noise_precision=beta, axis=-2)
            z = src.normal(LABEL_Z, robust.shape)
            # [wang20 Alg.4 L4] g^{t-1} = (g_1, ..., g_d)
            return robust + sigma * z

        theta, start, stacked = projected_gradient_descent(
            rows, loss=self.loss, domain=self.domain, steps=self.steps, learning_rate=self.learning_rate,
            estimator=estimator, runs=runs, theta_1=self.theta_1, transcript=transcript, progress=progress)
        return dict(theta=theta, steps=self.steps, learning_rate=self.learning_rate, theta_1=start,
                    parameters=dict(self.parameters), transcript=stacked)


def catoni_giulini_gd(data, *, loss, domain, epsilon, delta, second_moment, failure_probability, smoothness,
                      schedule="strongly_convex", strong_convexity=None, noise_precision=None, runs=1, theta_1=None,
                      rng: RngLike = None, noise=None, transcript=None) -> GradientDescentResult:
    r"""Algorithm 4: :meth:`CatoniGiuliniGD.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Finite rows (no bound).
    loss, domain, epsilon, delta, second_moment, failure_probability, smoothness, schedule, strong_convexity
        As in :meth:`CatoniGiuliniGD.configure`.
    noise_precision, theta_1
        As in :meth:`CatoniGiuliniGD.configure`.
    runs, transcript
        As in :func:`projected_gradient_descent`.
    rng, noise
        Per step one ``normal`` entry ``"wang20 Alg.4 L3 Z"`` of shape ``(runs, d)``, scaled by sigma.

    Returns
    -------
    GradientDescentResult
        ``parameters``: ``epsilon_tilde`` (rho*), ``truncation_scale`` s, ``noise_precision``,
        ``coordinate_sensitivity``, ``sensitivity``, ``sigma``, ``rho_total``.

    Privacy
    -------
    ``wang20.alg_4``, ``wang20.thm_7``.

    Utility
    -------
    ``wang20.thm_7`` (strongly convex), ``wang20.thm_8`` (convex).
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = CatoniGiuliniGD.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta,
                                           second_moment=second_moment, failure_probability=failure_probability,
                                           smoothness=smoothness, schedule=schedule, strong_convexity=strong_convexity,
                                           noise_precision=noise_precision, theta_1=theta_1, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
