"""wang17 Algorithm 1 (DP-SVRG), line for line and batched over runs, and what it shares with Algorithm 2
(DP-SVRG++, :mod:`reference.wang17.svrg_plus`): the result, the noise calibration and the checks.

Wang, Ye and Xu (2017), Section 4. Both minimise ``F^r(x) = F(x; D) + r(x)`` with the average
loss ``F(x; D) = (1/n) sum_i f(x, z_i)`` (convex, G-Lipschitz and L-smooth per example) and a
convex regulariser ``r`` handled by its proximal operator; there is no constraint set (the
iterates live in R^p, so the loss's constants must hold on all of R^p). Every inner step
releases one noisy variance-reduced direction

    v = grad f(x, z_i) - grad f(x~, z_i) + grad F(x~) + u,   u ~ N(0, sigma^2 I_p),

and the noise sigma is the spec's *proven* calibration (``spec.wang17.svrg.calibrate``: noise
splitting and the replace-one RDP accountant over all ``K`` inner steps), not the paper's
"sigma^2 = c G^2 T m ln(1/delta)/(n^2 epsilon^2) for some c" (available, with an explicit ``c``,
as ``calibration="paper"``; the record ``wang17.thm_4_1`` flags why no constant ``c`` works).

Batching and randomness as in :mod:`reference.bst14`: ``runs`` independent executions share the
data set; every draw is standardised and labelled with the pseudocode line that consumes it
(``LABEL_INDEX_*``, ``LABEL_NOISE_*``), the scaling is written in the code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from reference import arrays
from reference.configured import Certificate, Configured, Constant, minimum_records, quantity
from reference.domains import Rp
from reference.losses import Loss
from reference.losses.regularisers import Regulariser
from reference.problem import check_problem, check_setting
from reference.results import AlgorithmResult
from reference.rng import RngLike
from spec import validate
from spec.errors import AssumptionError, ParameterError
from spec.wang17 import svrg as _svrg
from spec.wang17 import svrg_plus as _plus

__all__ = [
    "CALIBRATIONS",
    "SVRGResult",
    "SVRG",
    "dp_svrg",
    "LABEL_INDEX_1",
    "LABEL_NOISE_1",
    "SPEC_IDS_1",
]

#: Noise calibrations: the proven accountant (default) or the paper's form with an explicit c.
CALIBRATIONS = ("accountant", "paper")

#: The records whose formulas and claims Algorithm 1 uses.
SPEC_IDS_1 = ("wang17.alg_1", "wang17.thm_4_1", "wang17.thm_4_2", "wang17.svrg_step_privacy")

#: Tape labels (the twins and the vectors use these names).
LABEL_INDEX_1 = "wang17 Alg.1 L6 index"
LABEL_NOISE_1 = "wang17 Alg.1 L7 u"


@dataclass(frozen=True)
class SVRGResult(AlgorithmResult):
    """Output of :func:`dp_svrg` and :func:`dp_svrg_plus`.

    Attributes
    ----------
    theta : ndarray, shape (runs, p)
        The returned ``x~_T`` of every run.
    sigma : float
        Noise standard deviation of every inner step.
    calibration : str
        ``"accountant"`` or ``"paper"``.
    implied_constant : float
        The paper's ``c`` that ``sigma`` implies in eq. (3) (Algorithm 1) or eq. (6) (Algorithm 2).
    epochs, epoch_length : int
        ``T`` and ``m`` (Algorithm 2: epoch ``s`` runs ``2^s m`` steps).
    noisy_steps : int
        ``K``, the number of noisy releases the calibration composes.
    learning_rate : float
        ``eta``.
    gradient_evaluations : int
        Per run: ``T (n + 2m)`` (Algorithm 1) or ``T n + 2 K`` (Algorithm 2), from the records.
    contraction : float or None
        Algorithm 1: the left side of Theorem 4.2's inequality (4) at (eta, m, mu, L) (below 1/2
        when the theorem's utility claim applies); ``None`` when ``mu = 0``.
    snapshots : ndarray, shape (epochs, runs, p)
        ``x~_1, ..., x~_T``.
    x0 : ndarray, shape (runs, p)
        ``x~_0``.
    transcript : dict or None
        With ``transcript=True``: ``{"v": (K, runs, p), "x": (K, runs, p)}``, the released
        directions and the iterates after each inner step, in order.
    """

    theta: np.ndarray
    sigma: float
    calibration: str
    implied_constant: float
    epochs: int
    epoch_length: int
    noisy_steps: int
    learning_rate: float
    gradient_evaluations: int
    contraction: float | None = None
    snapshots: np.ndarray = field(default=None, repr=False)
    x0: np.ndarray = field(default=None, repr=False)
    transcript: dict | None = field(default=None, repr=False)


# --------------------------------------------------------------------------------------------
# shared by Algorithms 1 and 2


def check_svrg_setting(loss, regulariser, dimension):
    """The data-free checks of Algorithms 1 and 2; returns ``(p, G, L, mu)`` (mu: F^r's strong convexity)."""
    if regulariser is not None and not isinstance(regulariser, Regulariser):
        raise TypeError(f"regulariser ({type(regulariser).__name__}) must be a reference.losses.Regulariser or None")
    if not isinstance(loss, Loss):
        raise TypeError(f"loss ({type(loss).__name__}) must be a reference.losses.Loss")
    p = validate.positive_integer("dimension", dimension)
    # no constraint set: the loss's constants must hold on all of R^p
    check_setting(loss=loss, domain=Rp(dim=p), convex=True)
    c = loss.constants
    if not c.smooth or not c.smoothness > 0:
        raise AssumptionError(f"loss smoothness ({c.smoothness!r}) must be finite and > 0 (L of wang17 Section 4)")
    if not c.lipschitz > 0:
        raise AssumptionError(f"loss lipschitz ({c.lipschitz!r}) must be > 0")
    mu = c.strong_convexity + (regulariser.strong_convexity if regulariser is not None else 0.0)
    return p, c.lipschitz, c.smoothness, mu


def start_state(x0, *, runs, p):
    """``x~_0`` as a ``(runs, p)`` state: the origin by default."""
    if x0 is None:
        return np.zeros((runs, p))
    x = arrays.real_array("x0", x0)
    if x.shape not in ((p,), (runs, p)):
        raise ParameterError(f"x0 (shape {x.shape}) must have shape ({p},) or ({runs}, {p})")
    arrays.finite("x0", x)
    return np.broadcast_to(x, (runs, p)).copy()


def prox(regulariser, v, eta):
    """``prox_{eta r}(v)`` (the identity for r = 0)."""
    return v if regulariser is None else regulariser.prox(v, eta)


def noise_sigma(record, *, n, epochs, epoch_length, epsilon, delta, lipschitz, calibration="accountant",
                noise_constant=None):
    """The noise of one inner step of Algorithm 1 (``record = spec.wang17.svrg``) or 2 (``svrg_plus``).

    ``calibration="accountant"``: ``record.calibrate(...)`` (proven: noise splitting, replace-one
    RDP accountant over every inner step); ``"paper"``: ``sigma_paper`` of Theorem 4.1 / 4.3 at
    the given ``noise_constant`` (the paper's form; see the records' flags for where it fails).

    Returns
    -------
    (sigma, implied_constant)

    Privacy
    -------
    ``wang17.thm_4_1`` / ``wang17.thm_4_3`` and ``wang17.svrg_step_privacy``.
    """
    cal = validate.choice("calibration", calibration, CALIBRATIONS)
    values = dict(n=n, epochs=epochs, epoch_length=epoch_length, epsilon=epsilon, delta=delta, lipschitz=lipschitz)
    thm = _svrg.THM_4_1 if record is _svrg else _plus.THM_4_3
    if cal == "accountant":
        if noise_constant is not None:
            raise ParameterError(f"noise_constant ({noise_constant!r}) is only used with calibration 'paper'")
        c = record.calibrate(**values)
        return c.sigma, c.implied_constant
    if noise_constant is None:
        raise ParameterError("noise_constant (None) must be given with calibration 'paper' (the paper's c)")
    sigma = thm.evaluate("sigma_paper", noise_constant=noise_constant, **values)
    implied = thm.evaluate("implied_constant", sigma=sigma, **{k: v for k, v in values.items()})
    return sigma, implied


@dataclass(frozen=True, kw_only=True, eq=False)
class SVRGBox(Configured):
    """What Algorithms 1 and 2 share: sigma (proven or the paper's c), T, m, eta and the inner loop's
    result; each subclass sets its records, labels and epoch lengths."""

    #: The transcript key, the iterate's name and its index offset of the vectors' checkpoints.
    CHECKPOINT: ClassVar[tuple] = ("x", "x", 0)

    USES: ClassVar[tuple[str, ...]] = ("lipschitz", "smoothness", "strong_convexity")
    RECORD: ClassVar[object] = _svrg

    x0: np.ndarray | None = field(default=None, repr=False)
    calibration: str = "accountant"
    sigma: float = quantity("noise standard deviation of every inner step (line 7)",
                            source="wang17.svrg_step_privacy accountant, or the paper's sigma_paper")
    implied_constant: float = quantity("the paper's c that sigma implies in its eq. (3) / (6)",
                                       source="implied_constant of the theorem")
    epochs: int = quantity("T, the number of epochs (line 1)", source="Theorem 4.2 / 4.4 epochs, or given")
    epoch_length: int = quantity("m, the inner steps of an epoch (line 5)", source="Theorem 4.2 epoch_length, or given")
    noisy_steps: int = quantity("K, the noisy releases the calibration composes", source="noisy_steps of the box")
    learning_rate: float = quantity("eta (line 8)", source="Theorem 4.2 / 4.4 learning_rate, or given")

    def _certify(self) -> Certificate:
        thm = "wang17.thm_4_1" if self.RECORD is _svrg else "wang17.thm_4_3"
        if self.calibration == "accountant":
            return Certificate(self.claim(), True, f"{thm} made concrete by wang17.svrg_step_privacy: sigma is the "
                                                   "smallest the replace-one RDP accountant certifies over all K steps")
        eps = self.RECORD.certified_epsilon(n=self.n, epochs=self.epochs, epoch_length=self.epoch_length,
                                            delta=self.delta, lipschitz=self.loss.constants.lipschitz, sigma=self.sigma)
        basis = (f"RDP accountant of the paper's sigma (c = {self.options.get('noise_constant')!r}) over K = "
                 f"{self.noisy_steps} steps: epsilon {eps:.4g} at delta {self.delta!r} ({thm}, wang17.svrg_step_privacy)")
        return Certificate(self.claim(), bool(eps <= self.epsilon), basis, alternative="accountant")

    def _constants(self) -> tuple[Constant, ...]:
        c = self.loss.constants
        out = [Constant("lipschitz", float(c.lipschitz), f"declared by {self.loss!r} (G)"),
               Constant("smoothness", float(c.smoothness), f"declared by {self.loss!r} (L)"),
               Constant("strong_convexity", float(c.strong_convexity), f"declared by {self.loss!r}")]
        if self.regulariser is not None:
            out.append(Constant("regulariser strong_convexity", float(self.regulariser.strong_convexity),
                                f"declared by {self.regulariser!r} (mu of F^r adds both)"))
        return tuple(out)

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """Per run: ``T (n + 2m)`` (Algorithm 1) or ``T n + 2 K`` (Algorithm 2), from the records."""
        return int(getattr(self.RECORD, self._ALG).evaluate("gradient_evaluations", n=self.n, epochs=self.epochs,
                                                             epoch_length=self.epoch_length)) * int(runs)

    def loop_length(self) -> int:
        return int(self.noisy_steps)

    def check_data(self, data):
        rows, n, _ = check_problem(data, loss=self.loss, domain=Rp(dim=self.p))
        self._check_n(n)
        return rows


# --------------------------------------------------------------------------------------------
# Algorithm 1


@dataclass(frozen=True, kw_only=True, eq=False)
class SVRG(SVRGBox):
    r"""Algorithm 1, DP-SVRG(F^r, x~_0, T, m, eta, sigma), configured.

    Privacy
    -------
    ``wang17.thm_4_1`` made concrete by ``wang17.svrg_step_privacy``: (epsilon, delta)-DP under
    replace-one for the whole transcript (every ``v^s_t``), hence for ``x~_T``.

    Utility
    -------
    ``wang17.thm_4_2`` (F^r mu-strongly convex, the default T, m and eta).
    """

    ALGORITHM: ClassVar[str] = "wang17.alg_1"
    RESULT: ClassVar[type] = SVRGResult
    RECORD: ClassVar[object] = _svrg
    _ALG: ClassVar[str] = "ALG_1"

    contraction: float | None = quantity("left side of Theorem 4.2's inequality (4) (below 1/2 for its utility "
                                         "claim)", source="wang17.thm_4_2 contraction", default=None)

    @classmethod
    def configure(cls, *, loss: Loss, n: int, dimension: int, epsilon: float, delta: float,
                  regulariser: Regulariser | None = None, epochs: int | None = None, epoch_length: int | None = None,
                  learning_rate: float | None = None, x0=None, calibration: str = "accountant",
                  noise_constant: float | None = None, allow_unproven: bool = False) -> "SVRG":
        r"""Configure Algorithm 1 for ``n`` records of dimension ``dimension``.

        Parameters
        ----------
        loss : reference.losses.Loss
            Convex ``f``; its declared constants are the G and L of the paper, valid on all of R^p.
        n : int
            Number of records, at least 2.
        dimension : int
            The dimension p.
        epsilon, delta : float
            The target budget (``epsilon > 0``, ``0 < delta < 1``).
        regulariser : reference.losses.Regulariser, optional
            The convex ``r`` of ``F^r = F + r``, used only through its prox (line 8); ``None`` is r = 0.
        epochs, epoch_length, learning_rate : optional
            T, m and eta. By default Theorem 4.2's epochs, epoch_length (the smallest m satisfying its
            inequality (4)) and learning_rate = 1/(48 L), which need a strongly convex F^r (mu > 0).
        x0 : array_like, shape (p,) or (runs, p), optional
            The start x~_0; by default the origin.
        calibration : {"accountant", "paper"}
            The noise of line 7: the proven accountant, or the paper's form with an explicit c.
        noise_constant : float, optional
            The paper's c, required with ``calibration="paper"``.
        allow_unproven : bool
            Build the configuration even when its claim is not proven (marked ``unproven-claim``).

        Returns
        -------
        SVRG
        """
        n = minimum_records(n, cls.ALGORITHM)
        p, lip, smooth, mu = check_svrg_setting(loss, regulariser, dimension)
        defaults = epochs is None or epoch_length is None or learning_rate is None
        if defaults and not mu > 0:
            raise AssumptionError(
                f"total strong convexity ({mu!r}) must be > 0 for Theorem 4.2's default epochs, epoch_length and "
                "learning_rate: give a strongly convex regulariser (--regulariser L2Regulariser strength=...) or "
                "all three of epochs, epoch_length and learning_rate"
            )
        eta = (_svrg.THM_4_2.evaluate("learning_rate", smoothness=smooth) if learning_rate is None
               else validate.positive("learning_rate", learning_rate))
        if epoch_length is None:
            epoch_length = _svrg.THM_4_2.evaluate("epoch_length", learning_rate=eta, smoothness=smooth,
                                                  total_strong_convexity=mu)
        if epochs is None:
            epochs = _svrg.THM_4_2.evaluate("epochs", n=n, epsilon=epsilon, delta=delta, dimension=p, lipschitz=lip,
                                            total_strong_convexity=mu)
        m = validate.positive_integer("epoch_length", epoch_length)
        T = validate.positive_integer("epochs", epochs)
        contraction = None
        if mu > 0:
            values = dict(learning_rate=eta, smoothness=smooth, total_strong_convexity=mu, epoch_length=m)
            if defaults:
                _svrg.THM_4_2.check(delta=delta, **values)
            contraction = _svrg.THM_4_2.evaluate("contraction", check=False, **values)
        K = _svrg.ALG_1.evaluate("noisy_steps", n=n, epochs=T, epoch_length=m)
        sigma, implied = noise_sigma(_svrg, n=n, epochs=T, epoch_length=m, epsilon=epsilon, delta=delta,
                                     lipschitz=lip, calibration=calibration, noise_constant=noise_constant)
        notes = []
        if epochs is None and T == 1:
            notes.append("T = 1: Theorem 4.2's default number of epochs is 1 at these values (one epoch of m noisy "
                         "steps from x~_0); --epochs sets T (privacy is accounted for any T and m).")
        return cls(loss=loss, regulariser=regulariser, n=n, p=p, epsilon=float(epsilon), delta=float(delta),
                   options={"epochs": epochs, "epoch_length": epoch_length, "learning_rate": learning_rate,
                            "x0": x0, "calibration": calibration, "noise_constant": noise_constant},
                   spec_ids=SPEC_IDS_1, flags=(f"{calibration}-calibration",), notes=tuple(notes),
                   allow_unproven=allow_unproven, x0=None if x0 is None else arrays.real_array("x0", x0),
                   calibration=calibration, sigma=sigma, implied_constant=implied, epochs=T, epoch_length=m,
                   noisy_steps=int(K), learning_rate=eta, contraction=contraction)._finish()

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, loss, regulariser, n, p = noise, self.loss, self.regulariser, self.n, self.p
        sigma, eta, T, m, K = self.sigma, self.learning_rate, self.epochs, self.epoch_length, self.noisy_steps
        x_rows, y_rows = loss.split(rows)
        snap = start_state(self.x0, runs=runs, p=p)
        start = snap.copy()
        snapshots = np.empty((T, runs, p))
        keep = transcript is True
        if keep:
            v_hist, x_hist = np.empty((K, runs, p)), np.empty((K, runs, p))
        k = 0
        # [wang17 Alg.1 L1] for s = 1, 2, ..., T do
        for s in range(1, T + 1):
            # [wang17 Alg.1 L2] x~ = x~_{s-1}
            x_snap = snap
            # [wang17 Alg.1 L3] v~ = grad F(x~) (the smooth part: the average loss)
            v_snap = loss.total_gradient(x_snap, rows, normalisation="average", check=False)
            # [wang17 Alg.1 L4] x^s_0 = x~
            x = x_snap.copy()
            total = np.zeros((runs, p))
            # [wang17 Alg.1 L5] for t = 1, 2, ..., m do
            for t in range(1, m + 1):
                # [wang17 Alg.1 L6] pick i^s_t in [n] uniformly at random (one index per run)
                i = src.integers(LABEL_INDEX_1, n, (runs,))
                xi, yi = x_rows[i], None if y_rows is None else y_rows[i]
                # [wang17 Alg.1 L7] u^s_t ~ N(0, sigma^2 I_p)
                u = sigma * src.normal(LABEL_NOISE_1, (runs, p))
                # [wang17 Alg.1 L7] v^s_t = grad f(x^s_{t-1}, z_i) - grad f(x~, z_i) + v~ + u^s_t
                v = loss.gradient_unchecked(x, xi, yi) - loss.gradient_unchecked(x_snap, xi, yi) + v_snap + u
                # [wang17 Alg.1 L8] x^s_t = prox_{eta r}(x^s_{t-1} - eta v^s_t)
                x = prox(regulariser, x - eta * v, eta)
                total += x
                if keep:
                    v_hist[k], x_hist[k] = v, x
                elif transcript is not None:
                    transcript(k + 1, {"v": v.copy(), "x": x.copy(), "snapshot": x_snap.copy(), "epoch": s, "step": t})
                k += 1
            # [wang17 Alg.1 L9] end for
            # [wang17 Alg.1 L10] x~_s = (1/m) sum_{k=1}^m x^s_k
            snap = total / m
            snapshots[s - 1] = snap
            progress(s, T)
        # [wang17 Alg.1 L11] end for
        # [wang17 Alg.1 L12] return x~_T
        return dict(theta=snap, sigma=sigma, calibration=self.calibration, implied_constant=self.implied_constant,
                    epochs=T, epoch_length=m, noisy_steps=K, learning_rate=eta,
                    gradient_evaluations=self.gradient_evaluations(runs=1), contraction=self.contraction,
                    snapshots=snapshots, x0=start, transcript={"v": v_hist, "x": x_hist} if keep else None)


def dp_svrg(data, *, loss, regulariser=None, epsilon, delta, epochs=None, epoch_length=None, learning_rate=None,
            x0=None, calibration="accountant", noise_constant=None, runs=1, rng: RngLike = None, noise=None,
            transcript=None) -> SVRGResult:
    r"""Algorithm 1, DP-SVRG: :meth:`SVRG.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (checked once; data is rejected, never clipped), n >= 2.
    loss, regulariser, epsilon, delta, epochs, epoch_length, learning_rate, x0, calibration, noise_constant
        As in :meth:`SVRG.configure`.
    runs, rng, noise
        Independent executions and their randomness (:func:`reference.tape.noise_source`). Per
        inner step the tape gets ``integers`` ``"wang17 Alg.1 L6 index"`` (``high = n``, shape
        ``(runs,)``) then ``normal`` ``"wang17 Alg.1 L7 u"`` (shape ``(runs, p)``).
    transcript : callable or True, optional
        A callable ``transcript(k, state)`` is called after every inner step ``k = 1..K`` with
        ``state = {"v", "x", "snapshot", "epoch", "step"}`` (the released ``v^s_t``, the iterate
        ``x^s_t``, the public ``x~``, and ``s``, ``t``); ``True`` stacks ``v`` and ``x`` on the result.

    Returns
    -------
    SVRGResult

    Privacy
    -------
    ``wang17.thm_4_1`` made concrete by ``wang17.svrg_step_privacy``.

    Utility
    -------
    ``wang17.thm_4_2`` (F^r mu-strongly convex, the default T, m and eta).
    """
    n, p = data_shape(data, loss)
    configured = SVRG.configure(loss=loss, n=n, dimension=p, epsilon=epsilon, delta=delta, regulariser=regulariser,
                                epochs=epochs, epoch_length=epoch_length, learning_rate=learning_rate, x0=x0,
                                calibration=calibration, noise_constant=noise_constant, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)


def data_shape(data, loss) -> tuple[int, int]:
    """``(n, p)`` of a data set for ``loss`` (the shape only; the values are checked by the run)."""
    shape = np.shape(data)
    if len(shape) != 2:
        raise ParameterError(f"data (shape {shape}) must have shape (n, k)")
    if not hasattr(loss, "dim_of_row"):
        raise TypeError(f"loss ({type(loss).__name__}) must be a reference.losses.Loss")
    return shape[0], loss.dim_of_row(shape[1])
