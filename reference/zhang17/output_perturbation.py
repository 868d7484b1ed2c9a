r"""zhang17 Algorithm 1 (output perturbation full gradient descent), line for line, batched over runs.

Conventions (zhang17): the average loss ``F(w, S) = (1/n) sum_i f(w, xi_i)``; replace-one
neighbours; ``w_0 = 0``. Every constant is a :mod:`spec.zhang17` formula evaluated from public
values -- the loss's declared constants (``loss.constants``: ``L``, ``beta``, ``mu``), a public
bound ``D`` on the norm of every minimiser, ``n``, ``d`` and the budget -- never from the data:

* strongly convex loss (``mu > 0``), ``zhang17.thm_2``: ``eta = 1/(mu + beta)``,
  ``Delta = 5 L (mu + beta)/(n mu beta)`` (Lemma 3; option ``sensitivity_tight``), ``T`` =
  ``steps_pure`` (delta = 0) or ``steps_approx``;
* convex loss, ``zhang17.thm_3``: ``eta = 1/beta``, ``T`` = ``steps_pure`` / ``steps_approx``
  (or the caller's ``steps``), then ``Delta = 3 L T/(beta n)`` at the T actually run (Lemma 2;
  option ``sensitivity_tight``);
* the noise, ``zhang17.alg_1``: ``noise_rate`` ``epsilon/Delta`` of the radial density
  ``exp(-epsilon ||z||/Delta)`` (delta = 0; :class:`reference.samplers.RadialLaplace`), or
  ``sigma`` ``sqrt(2 ln(2/delta)) Delta/epsilon`` (delta > 0; :func:`spec.zhang17.gaussian_sigma`,
  ``calibration="analytic"`` for the exact Balle-Wang sigma).

Where the constants must hold. Theorem 2 assumes L-Lipschitzness only on ``{||w|| <= 2D}``:
gradient descent with ``eta = 1/(mu + beta)`` contracts towards the run's own minimiser, so both
runs of a neighbouring pair stay in that ball (the record's CAVEAT), and the loss's
``domain_radius`` must be at least ``2 D``. Theorem 3 assumes the constants on all of R^d: the
loss must have no ``domain_radius``.

Batching. Gradient descent is deterministic: ``w_T`` is computed once and shared by the ``runs``
independent outputs ``w_priv = w_T + z`` (shape ``(runs, d)``). The noise is the only
randomness, drawn through ``noise_source(rng=rng, noise=noise)`` as standardised, labelled draws
(:data:`LABEL_RADIAL` ``+ ": radius"`` / ``": direction"`` for line 5, :data:`LABEL_GAUSSIAN`
for line 7).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

import numpy as np

from reference import arrays
from reference.arrays import ArrayLike
from reference.configured import Certificate, Configured, minimum_records, quantity
from reference.domains import L2Ball, Rp
from reference.losses import Loss, Regularised, Regulariser, minimiser_norm_bound
from reference.problem import check_problem, check_setting
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.samplers import RadialLaplace
from reference.tape import NoiseLike
from spec import validate
from spec.gaussian import exact_delta
from spec import zhang17 as _spec
from spec.errors import AssumptionError, ParameterError

__all__ = [
    "OutputPerturbationGD",
    "OutputPerturbationGDResult",
    "output_perturbation_gd",
    "gd_constants",
    "gradient_descent",
    "SETTINGS",
    "SENSITIVITY_FORMULAS",
    "CALIBRATIONS",
    "LABEL_RADIAL",
    "LABEL_GAUSSIAN",
    "SPEC_IDS",
    "SETTING_SPEC_IDS",
]

#: The records whose formulas and claims Algorithm 1 uses.
SPEC_IDS = ("zhang17.alg_1", "zhang17.thm_1", "zhang17.thm_2", "zhang17.thm_3", "zhang17.lemma_2",
            "zhang17.lemma_3")

#: The records a run in each setting is an instance of: the privacy theorem, and the setting's
#: utility theorem and sensitivity lemma (Theorem 2 and Lemma 3 strongly convex, Theorem 3 and
#: Lemma 2 convex). A run cites only these, so that its vector's departures are its setting's.
SETTING_SPEC_IDS = {
    "strongly_convex": ("zhang17.alg_1", "zhang17.thm_1", "zhang17.thm_2", "zhang17.lemma_3"),
    "convex": ("zhang17.alg_1", "zhang17.thm_1", "zhang17.thm_3", "zhang17.lemma_2"),
}

#: Tape label prefix of line 5's radial noise (RadialLaplace records ``+ ": radius"``, a Gamma(d)
#: draw, and ``+ ": direction"``, a standard normal vector).
LABEL_RADIAL = "zhang17 Alg.1 L5 z"
#: Tape label of line 7's Gaussian noise (standard normal, scaled by sigma).
LABEL_GAUSSIAN = "zhang17 Alg.1 L7 z"

#: ``"strongly_convex"`` (Theorem 2) or ``"convex"`` (Theorem 3).
SETTINGS = ("strongly_convex", "convex")
#: The record formulas that may serve as Delta: Lemma 2/3 as the paper states them, or tight.
SENSITIVITY_FORMULAS = ("sensitivity", "sensitivity_tight")
#: Gaussian calibrations (:func:`spec.zhang17.gaussian_sigma`).
CALIBRATIONS = _spec.output_perturbation.CALIBRATIONS

_THEOREM = {"strongly_convex": _spec.THM_2, "convex": _spec.THM_3}


@dataclass(frozen=True)
class OutputPerturbationGDResult(AlgorithmResult):
    """Output of :func:`output_perturbation_gd`.

    Attributes
    ----------
    theta : ndarray, shape (runs, d)
        ``w_priv = w_T + z`` of every run (line 9).
    w_T : ndarray, shape (d,)
        The last gradient-descent iterate (line 3), shared by every run. *Not private*: kept for
        tests and audits of the sensitivity.
    noise : ndarray, shape (runs, d)
        The noise ``z`` of every run (line 5 or 7).
    setting : str
        ``"strongly_convex"`` (Theorem 2) or ``"convex"`` (Theorem 3).
    steps : int
        T.
    learning_rate : float
        eta.
    sensitivity : float
        Delta, rounded up (``sensitivity_formula`` of the theorem's record).
    sensitivity_formula : str
    minimiser_norm : float
        The public D used for T (and, strongly convex, for the ball ``{||w|| <= 2D}``).
    noise_law : str
        ``"radial"`` (delta = 0, line 5) or ``"gaussian"`` (line 7).
    rate : float or None
        Radial law: the rate ``epsilon/Delta`` of ``exp(-rate ||z||)``, rounded down.
    sigma : float or None
        Gaussian law: the per-coordinate standard deviation, rounded up.
    calibration : str or None
        Gaussian law: ``"printed"`` or ``"analytic"``.
    gradient_evaluations : int
        ``n T`` per-example gradients (``zhang17.alg_1`` formula ``gradient_evaluations``).
    iterates : ndarray or None
        With ``iterates=True``: ``w_0, ..., w_T``, shape ``(T + 1, d)`` (not private).
    """

    theta: np.ndarray
    w_T: np.ndarray = field(repr=False)
    noise: np.ndarray = field(repr=False)
    setting: str
    steps: int
    learning_rate: float
    sensitivity: float
    sensitivity_formula: str
    minimiser_norm: float
    noise_law: str
    rate: float | None
    sigma: float | None
    calibration: str | None
    gradient_evaluations: int
    iterates: np.ndarray | None = field(default=None, repr=False)


def _setting(loss: Loss, setting: str | None) -> str:
    mu = loss.constants.strong_convexity
    if setting is None:
        return "strongly_convex" if mu > 0 else "convex"
    s = validate.choice("setting", setting, SETTINGS)
    if s == "strongly_convex" and not mu > 0:
        raise AssumptionError(
            f"loss.constants.strong_convexity ({mu!r}) must be > 0 for setting 'strongly_convex' "
            "(zhang17 Theorem 2)"
        )
    return s


def gd_constants(*, loss: Loss, n: int, dimension: int, epsilon: float, delta: float = 0.0,
                 minimiser_norm: float | None = None, setting: str | None = None, steps: int | None = None,
                 sensitivity_formula: str = "sensitivity") -> dict:
    """The public constants of Algorithm 1: setting, D, eta, T and Delta, from the records.

    Parameters are those of :func:`output_perturbation_gd` (``n`` and ``dimension`` instead of
    the data). Returns a dict with ``setting``, ``minimiser_norm``, ``learning_rate``, ``steps``,
    ``sensitivity``, ``sensitivity_formula`` and the record used (``record``).

    Utility
    -------
    ``zhang17.thm_2`` (strongly convex) and ``zhang17.thm_3`` (convex): the step size and T.

    Privacy
    -------
    ``zhang17.lemma_2`` / ``zhang17.lemma_3`` through the theorems' ``sensitivity`` formulas.
    """
    c = loss.constants
    if not c.smooth:
        raise AssumptionError(f"loss.constants.smoothness ({c.smoothness!r}) must be finite (zhang17 Assumption 1)")
    s = _setting(loss, setting)
    record = _THEOREM[s]
    n_ = validate.integer("n", n, minimum=1)
    p = validate.positive_integer("dimension", dimension)
    eps = validate.epsilon(epsilon)
    dl = validate.delta(delta, allow_zero=True)
    form = validate.choice("sensitivity_formula", sensitivity_formula, SENSITIVITY_FORMULAS)
    if minimiser_norm is None:
        big_d = minimiser_norm_bound(loss)
    else:
        big_d = validate.positive("minimiser_norm", minimiser_norm)
    if s == "strongly_convex":
        # Theorem 2: L-Lipschitz on {||w|| <= 2D}, where both runs stay (record's CAVEAT)
        if loss.domain_radius is not None and not 2 * big_d <= loss.domain_radius:
            raise AssumptionError(
                f"2 * minimiser_norm ({2 * big_d!r}) must be <= loss.domain_radius ({loss.domain_radius!r}): "
                "zhang17 Theorem 2 needs the constants on {||w|| <= 2D}"
            )
    elif loss.domain_radius is not None:
        raise AssumptionError(
            f"loss ({loss!r}) has domain_radius ({loss.domain_radius!r}): zhang17 Theorem 3 needs the constants "
            "on all of R^d"
        )
    values = dict(lipschitz=c.lipschitz, smoothness=c.smoothness, dimension=p, n=n_, epsilon=eps,
                  minimiser_norm=big_d)
    if s == "strongly_convex":
        values["strong_convexity"] = c.strong_convexity
    if dl > 0:
        values["delta"] = dl
    eta = record.evaluate("learning_rate", **{k: values[k] for k in values
                                              if k in ("smoothness", "strong_convexity")})
    if steps is None:
        t = record.evaluate("steps_pure" if dl == 0 else "steps_approx", **values)
    else:
        t = validate.positive_integer("steps", steps)
    sens_values = dict(lipschitz=c.lipschitz, smoothness=c.smoothness, n=n_)
    if s == "strongly_convex":
        sens_values["strong_convexity"] = c.strong_convexity
    else:
        sens_values["steps"] = t  # Lemma 2 grows with T: evaluated at the T actually run
    sens = record.evaluate(form, **sens_values)
    return {"setting": s, "record": record.id, "minimiser_norm": big_d, "learning_rate": eta, "steps": int(t),
            "sensitivity": sens, "sensitivity_formula": form}


def gradient_descent(rows: np.ndarray, *, loss: Loss, learning_rate: float, steps: int,
                     keep: bool = False, progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Lines 1-3: ``T`` full-batch steps ``w_{t+1} = w_t - (eta/n) sum_i grad f(w_t, xi_i)`` from 0.

    ``rows`` is a :meth:`~reference.losses.Loss.validate_data` snapshot (no check here). Returns
    ``w_T`` (shape ``(d,)``) and, with ``keep=True``, every iterate ``(T + 1, d)``.
    """
    n = rows.shape[0]
    x_rows, y_rows = loss.split(rows)
    w = np.zeros(loss.dim_of_row(rows.shape[1]))
    kept = [w.copy()] if keep else None
    for t in range(int(steps)):  # [zhang17 Alg.1 L1] for t = 0 to T - 1
        # [zhang17 Alg.1 L2] w_{t+1} = w_t - (eta/n) sum_i grad f(w_t, xi_i)
        grads = loss.gradient_unchecked(w[None, :], x_rows, y_rows)
        w = w - (learning_rate / n) * grads.sum(axis=0)
        if keep:
            kept.append(w.copy())
        if progress is not None:
            progress(t + 1, int(steps))
    # [zhang17 Alg.1 L3] end for
    return w, (np.stack(kept) if keep else None)


@dataclass(frozen=True, kw_only=True, eq=False)
class OutputPerturbationGD(Configured):
    r"""Algorithm 1, configured: eta, T, Delta and the noise (rate or sigma), before any data.

    Privacy
    -------
    ``zhang17.thm_1``: epsilon-DP (delta = 0) or (epsilon, delta)-DP under replace-one, given
    Delta from ``zhang17.lemma_2`` / ``zhang17.lemma_3`` under the theorems' conditions. The
    printed Gaussian fails beyond ``spec.zhang17.gaussian_failure_epsilon(delta)`` (record's
    ERRATUM): :attr:`certificate` checks it under the exact profile; ``calibration="analytic"``
    holds everywhere.

    Utility
    -------
    ``zhang17.thm_2`` (strongly convex) and ``zhang17.thm_3`` (convex).
    """

    ALGORITHM: ClassVar[str] = "zhang17.alg_1"
    RESULT: ClassVar[type] = OutputPerturbationGDResult
    USES: ClassVar[tuple[str, ...]] = ("lipschitz", "smoothness", "strong_convexity")
    CONVEX: ClassVar[bool] = True

    region: Any = field(repr=False)
    setting: str = quantity("Theorem 2 (strongly convex) or Theorem 3 (convex)", source="the loss's strong convexity")
    minimiser_norm: float = quantity("public bound D on the norm of every minimiser",
                                     source="reference.losses.minimiser_norm_bound or given")
    learning_rate: float = quantity("eta (line 2)", source="zhang17.thm_2 / thm_3 learning_rate")
    steps: int = quantity("T gradient steps (line 1)", source="zhang17.thm_2 / thm_3 steps_pure / steps_approx")
    sensitivity: float = quantity("Delta, the l2 sensitivity of w_T", source="zhang17.lemma_3 / lemma_2")
    sensitivity_formula: str
    noise_law: str = quantity("radial (delta = 0, line 5) or gaussian (line 7)", source="zhang17.alg_1")
    rate: float | None = quantity("rate epsilon/Delta of exp(-rate ||z||) (line 5)", source="zhang17.alg_1 noise_rate")
    sigma: float | None = quantity("per-coordinate noise standard deviation (line 7)",
                                   source="zhang17.thm_1 sigma / gaussian.analytic")
    calibration: str | None = None

    def privacy_record(self) -> str:
        return "zhang17.thm_1"

    @classmethod
    def configure(cls, *, loss: Loss, n: int, dimension: int, epsilon: float, delta: float = 0.0,
                  regulariser: Regulariser | None = None, minimiser_norm: float | None = None,
                  setting: str | None = None, steps: int | None = None, sensitivity_formula: str = "sensitivity",
                  calibration: str = "printed", allow_unproven: bool = False) -> "OutputPerturbationGD":
        r"""Configure Algorithm 1 for ``n`` records of dimension ``dimension``.

        Parameters
        ----------
        loss : reference.losses.Loss
            Convex and smooth. ``strong_convexity > 0`` selects Theorem 2 (unless ``setting`` says
            otherwise); its ``domain_radius`` must then be at least ``2 D``. Theorem 3 needs a loss
            whose constants hold on all of R^d (no ``domain_radius``).
        n : int
            Number of records, at least 2.
        dimension : int
            The dimension d of w.
        epsilon : float
            The budget, which must be > 0.
        delta : float
            Either 0 (radial noise, line 5: epsilon-DP) or in (0, 1) (Gaussian noise, line 7).
        regulariser : reference.losses.Regulariser, optional
            Added to every example (``Regularised(loss, regulariser)``); an ``L2Regulariser`` makes
            the loss strongly convex, bounds its minimisers, and its constants are taken on the
            ball of radius 2D where Theorem 2's iterates stay.
        minimiser_norm : float, optional
            A public bound D on the norm of every minimiser, for every data set (Theorem 2 also uses it
            for the ball where the iterates stay); by default ``reference.losses.minimiser_norm_bound``.
        setting : {"strongly_convex", "convex"}, optional
            Theorem 2 or Theorem 3; by default Theorem 2 when the loss declares ``strong_convexity > 0``.
        steps : int, optional
            T; by default the theorem's ``steps_pure`` / ``steps_approx``. Theorem 3's Delta grows with
            T and is evaluated at the T run; Theorem 2's does not depend on T.
        sensitivity_formula : {"sensitivity", "sensitivity_tight"}
            Delta as Lemma 3 / Lemma 2 state it, or their tight versions.
        calibration : {"printed", "analytic"}
            The Gaussian law's sigma: line 7 as printed, or the exact analytic sigma (``gaussian.analytic``).
        allow_unproven : bool
            Build the configuration even when its claim is not proven (marked ``unproven-claim``).

        Returns
        -------
        OutputPerturbationGD
        """
        n = minimum_records(n, cls.ALGORITHM)
        p = validate.positive_integer("dimension", dimension)
        loss = _with_regulariser(loss, regulariser, minimiser_norm)
        consts = gd_constants(loss=loss, n=n, dimension=p, epsilon=epsilon, delta=delta,
                              minimiser_norm=minimiser_norm, setting=setting, steps=steps,
                              sensitivity_formula=sensitivity_formula)
        # Theorem 2's region (where both runs stay) or R^d (Theorem 3); the loss's constants must hold there
        region = (L2Ball(radius=2 * consts["minimiser_norm"], dim=p) if consts["setting"] == "strongly_convex"
                  and loss.domain_radius is not None else Rp(dim=p))
        check_setting(loss=loss, domain=region, convex=True)
        eps = validate.epsilon(epsilon)
        dl = validate.delta(delta, allow_zero=True)
        cal = validate.choice("calibration", calibration, CALIBRATIONS)
        sens = consts["sensitivity"]
        rate = sigma = None
        flags = []
        if dl == 0:
            rate = _spec.ALG_1.evaluate("noise_rate", epsilon=eps, sensitivity=sens)
            law, cal_used = "radial", None
            flags.append("radial-noise")
        else:
            sigma = _spec.gaussian_sigma(epsilon=eps, delta=dl, sensitivity=sens, calibration=cal)
            law, cal_used = "gaussian", cal
            flags += ["gaussian-noise", f"{cal}-calibration"]
        if consts["sensitivity_formula"] == "sensitivity_tight":
            flags.append("tight-sensitivity")
        notes = []
        if consts["steps"] == 1 and steps is None:
            notes.append(f"T = 1: zhang17.{'thm_2' if consts['setting'] == 'strongly_convex' else 'thm_3'}'s default "
                         "T is one gradient step from w_0 = 0 at these values, so the output is w_1 plus noise (close "
                         "to chance on most data); --steps sets T (Theorem 2's Delta does not depend on T, Theorem "
                         "3's is evaluated at the T you give).")
        return cls(loss=loss, regulariser=regulariser, n=n, p=p, epsilon=eps, delta=dl,
                   options={"minimiser_norm": minimiser_norm, "setting": setting, "steps": steps,
                            "sensitivity_formula": sensitivity_formula, "calibration": calibration},
                   spec_ids=SETTING_SPEC_IDS[consts["setting"]], flags=tuple(flags), notes=tuple(notes), allow_unproven=allow_unproven,
                   region=region, setting=consts["setting"], minimiser_norm=consts["minimiser_norm"],
                   learning_rate=consts["learning_rate"], steps=consts["steps"], sensitivity=sens,
                   sensitivity_formula=consts["sensitivity_formula"], noise_law=law, rate=rate, sigma=sigma,
                   calibration=cal_used)._finish()

    def _certify(self) -> Certificate:
        if self.noise_law == "radial":
            return Certificate(self.claim(), True, "zhang17.thm_1 (radial noise, line 5): epsilon-DP for every "
                                                   "epsilon > 0 given Delta (zhang17.lemma_2 / lemma_3)")
        if self.calibration == "analytic":
            return Certificate(self.claim(), True, "gaussian.analytic: the smallest sigma the exact Gaussian "
                                                   "profile accepts at Delta")
        achieved = exact_delta(self.epsilon, sigma=self.sigma, sensitivity=self.sensitivity)
        basis = (f"exact Gaussian profile of the printed sigma: delta {achieved:.3g} at epsilon {self.epsilon!r} "
                 f"(zhang17.thm_1 ERRATUM; fails beyond epsilon {_spec.gaussian_failure_epsilon(self.delta):.4g})")
        return Certificate(self.claim(), bool(achieved <= self.delta), basis, alternative="analytic")

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """``n T`` per-example gradients (``zhang17.alg_1`` formula ``gradient_evaluations``), shared by all runs."""
        return int(_spec.ALG_1.evaluate("gradient_evaluations", n=self.n, steps=self.steps, check=False))

    def check_data(self, data: ArrayLike) -> np.ndarray:
        rows, n, _ = check_problem(data, loss=self.loss, domain=self.region, convex=True)
        self._check_n(n)
        return rows

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, p = noise, self.p
        w_t, kept = gradient_descent(rows, loss=self.loss, learning_rate=self.learning_rate, steps=self.steps,
                                     keep=transcript is not None, progress=progress)
        # [zhang17 Alg.1 L4] if delta = 0 then
        if self.noise_law == "radial":
            # [zhang17 Alg.1 L5] z with density proportional to exp(-epsilon ||z|| / Delta): Gamma(d) radius
            # (scale Delta/epsilon) times a uniform direction
            z = RadialLaplace(rate=self.rate, dim=p).rvs((runs,), noise=src, label=LABEL_RADIAL)
        # [zhang17 Alg.1 L6] else
        else:
            # [zhang17 Alg.1 L7] z ~ exp(-eps^2 ||z||^2 / (4 ln(2/delta) Delta^2)) = N(0, sigma^2 I_d)
            z = self.sigma * src.normal(LABEL_GAUSSIAN, (runs, p))
        # [zhang17 Alg.1 L8] end if
        # [zhang17 Alg.1 L9] output w_priv = w_T + z
        theta = w_t[None, :] + z
        return dict(theta=theta, w_T=w_t, noise=z, setting=self.setting, steps=self.steps,
                    learning_rate=self.learning_rate, sensitivity=self.sensitivity,
                    sensitivity_formula=self.sensitivity_formula, minimiser_norm=self.minimiser_norm,
                    noise_law=self.noise_law, rate=self.rate, sigma=self.sigma, calibration=self.calibration,
                    gradient_evaluations=self.gradient_evaluations(runs=runs), iterates=kept)


def _with_regulariser(loss: Loss, regulariser: Regulariser | None, minimiser_norm: float | None) -> Loss:
    """``Regularised(loss, regulariser)`` with its constants on the ball of radius ``2 D`` (Theorem 2's
    region), D from the regularised loss (``minimiser_norm_bound``) or the caller's bound."""
    if regulariser is None:
        return loss
    if not isinstance(regulariser, Regulariser):
        raise TypeError(f"regulariser ({type(regulariser).__name__}) must be a reference.losses.Regulariser or None")
    if minimiser_norm is None:
        # D does not depend on the radius the regulariser's constants are taken on: bound it first
        probe = Regularised(loss, regulariser, domain_radius=loss.domain_radius or 1.0)
        minimiser_norm = minimiser_norm_bound(probe)
    radius = loss.domain_radius if loss.domain_radius is not None else 2 * validate.positive("minimiser_norm",
                                                                                             minimiser_norm)
    return Regularised(loss, regulariser, domain_radius=radius)


def output_perturbation_gd(data: ArrayLike, *, loss: Loss, epsilon: float, delta: float = 0.0,
                           minimiser_norm: float | None = None, setting: str | None = None, steps: int | None = None,
                           sensitivity_formula: str = "sensitivity", calibration: str = "printed", runs: int = 1,
                           rng: RngLike = None, noise: NoiseLike = None,
                           iterates: bool = False) -> OutputPerturbationGDResult:
    r"""Algorithm 1: :meth:`OutputPerturbationGD.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (checked once; :class:`DataBoundError`).
    loss, epsilon, delta, minimiser_norm, setting, steps, sensitivity_formula, calibration
        As in :meth:`OutputPerturbationGD.configure`.
    runs : int
        Independent noise draws (the data and ``w_T`` are shared).
    rng, noise
        Randomness (:func:`reference.tape.noise_source`). Tape: delta = 0: a ``gamma`` entry
        (``k = d``, shape ``(runs,)``) ``"zhang17 Alg.1 L5 z: radius"`` then a ``normal`` entry
        ``(runs, d)`` ``"zhang17 Alg.1 L5 z: direction"``; delta > 0: one ``normal`` entry
        ``(runs, d)`` ``"zhang17 Alg.1 L7 z"``.
    iterates : bool
        Keep ``w_0, ..., w_T`` on the result (not private; for tests).

    Returns
    -------
    OutputPerturbationGDResult

    Privacy
    -------
    ``zhang17.thm_1`` (see :class:`OutputPerturbationGD`; this wrapper does not refuse the printed
    Gaussian beyond its validity: it warns, PrivacyLeakWarning).

    Utility
    -------
    ``zhang17.thm_2`` (strongly convex) and ``zhang17.thm_3`` (convex): expected excess empirical
    risk.
    """
    arr = arrays.real_array("data", data)
    if arr.ndim != 2:
        raise ParameterError(f"data (shape {arr.shape}) must have shape (n, k)")
    configured = OutputPerturbationGD.configure(
        loss=loss, n=arr.shape[0], dimension=loss.dim_of_row(arr.shape[1]), epsilon=epsilon, delta=delta,
        minimiser_norm=minimiser_norm, setting=setting, steps=steps, sensitivity_formula=sensitivity_formula,
        calibration=calibration, allow_unproven=True)
    return configured.run(arr, runs=runs, rng=rng, noise=noise, transcript=bool(iterates))
