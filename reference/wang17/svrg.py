"""wang17 Algorithms 1 (DP-SVRG) and 2 (DP-SVRG++), line for line and batched over runs.

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

import numpy as np

from reference import arrays
from reference.domains import Rp
from reference.losses.regularisers import Regulariser
from reference.problem import check_problem
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import noise_source
from spec import validate
from spec.errors import AssumptionError, ParameterError
from spec.wang17 import svrg as _svrg
from spec.wang17 import svrg_plus as _plus

__all__ = [
    "CALIBRATIONS",
    "SVRGResult",
    "dp_svrg",
    "dp_svrg_plus",
    "LABEL_INDEX_1",
    "LABEL_NOISE_1",
    "LABEL_INDEX_2",
    "LABEL_NOISE_2",
    "SPEC_IDS_1",
    "SPEC_IDS_2",
]

#: Noise calibrations: the proven accountant (default) or the paper's form with an explicit c.
CALIBRATIONS = ("accountant", "paper")

#: The records whose formulas and claims Algorithms 1 and 2 use.
SPEC_IDS_1 = ("wang17.alg_1", "wang17.thm_4_1", "wang17.thm_4_2", "wang17.svrg_step_privacy")
SPEC_IDS_2 = ("wang17.alg_2", "wang17.thm_4_3", "wang17.thm_4_4", "wang17.svrg_step_privacy")

#: Tape labels (the twins and the vectors use these names).
LABEL_INDEX_1 = "wang17 Alg.1 L6 index"
LABEL_NOISE_1 = "wang17 Alg.1 L7 u"
LABEL_INDEX_2 = "wang17 Alg.2 L6 index"
LABEL_NOISE_2 = "wang17 Alg.2 L7 u"


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
# shared checks


def _problem(data, loss, regulariser):
    """Validate (data, loss, r) once; returns rows, n, p and the constants G, L, mu."""
    if regulariser is not None and not isinstance(regulariser, Regulariser):
        raise TypeError(f"regulariser ({type(regulariser).__name__}) must be a reference.losses.Regulariser or None")
    shape = np.shape(data)
    if len(shape) != 2:
        raise ParameterError(f"data (shape {shape}) must have shape (n, k)")
    p = loss.dim_of_row(shape[1]) if hasattr(loss, "dim_of_row") else None
    if p is None:
        raise TypeError(f"loss ({type(loss).__name__}) must be a reference.losses.Loss")
    # no constraint set: the loss's constants must hold on all of R^p (check_problem rejects a
    # loss whose constants need a domain radius)
    rows, n, p = check_problem(data, loss=loss, domain=Rp(dim=p))
    c = loss.constants
    if not c.smooth or not c.smoothness > 0:
        raise AssumptionError(f"loss smoothness ({c.smoothness!r}) must be finite and > 0 (L of wang17 Section 4)")
    if not c.lipschitz > 0:
        raise AssumptionError(f"loss lipschitz ({c.lipschitz!r}) must be > 0")
    mu = c.strong_convexity + (regulariser.strong_convexity if regulariser is not None else 0.0)
    return rows, n, p, c.lipschitz, c.smoothness, mu


def _start(x0, runs, p):
    if x0 is None:
        return np.zeros((runs, p))
    x = arrays.real_array("x0", x0)
    if x.shape not in ((p,), (runs, p)):
        raise ParameterError(f"x0 (shape {x.shape}) must have shape ({p},) or ({runs}, {p})")
    arrays.finite("x0", x)
    return np.broadcast_to(x, (runs, p)).copy()


def _transcript_arg(transcript):
    if transcript is not None and transcript is not True and not callable(transcript):
        raise TypeError(f"transcript ({type(transcript).__name__}) must be None, True or a callable")
    return transcript


def _prox(regulariser, v, eta):
    return v if regulariser is None else regulariser.prox(v, eta)


def _sigma(record, *, n, epochs, epoch_length, epsilon, delta, lipschitz, calibration="accountant",
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


# --------------------------------------------------------------------------------------------
# Algorithm 1


def dp_svrg(data, *, loss, regulariser=None, epsilon, delta, epochs=None, epoch_length=None, learning_rate=None,
            x0=None, calibration="accountant", noise_constant=None, runs=1, rng: RngLike = None, noise=None,
            transcript=None) -> SVRGResult:
    r"""Algorithm 1, DP-SVRG(F^r, x~_0, T, m, eta, sigma).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (checked once; data is rejected, never clipped), n >= 2.
    loss : reference.losses.Loss
        Convex ``f``; its declared constants are the G and L of the paper, valid on all of R^p.
    regulariser : reference.losses.Regulariser, optional
        The convex ``r`` of ``F^r = F + r``, used only through ``prox`` (line 8); ``None`` is r = 0.
    epsilon, delta : float
        Target budget (``epsilon > 0``, ``0 < delta < 1``).
    epochs, epoch_length, learning_rate : optional
        ``T``, ``m`` and ``eta``. Defaults: Theorem 4.2's ``epochs``, ``epoch_length`` (the smallest
        ``m`` satisfying inequality (4)) and ``learning_rate = 1/(48 L)`` (``wang17.thm_4_2``), which
        need ``mu > 0``; their assumptions (inequality (4) included) are then checked. Given values
        are used as they are (privacy depends only on ``T m`` and ``sigma``); the result reports the
        left side of (4) in ``contraction``.
    x0 : array_like, shape (p,) or (runs, p), optional
        ``x~_0``; default the origin.
    calibration : {"accountant", "paper"}
        Noise of line 7 (:func:`_sigma`); ``"paper"`` needs ``noise_constant`` (the paper's c).
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
    ``wang17.thm_4_1`` made concrete by ``wang17.svrg_step_privacy``: (epsilon, delta)-DP under
    replace-one for the whole transcript (every ``v^s_t``), hence for ``x~_T``.

    Utility
    -------
    ``wang17.thm_4_2`` (F^r mu-strongly convex, the default T, m and eta).
    """
    rows, n, p, lip, smooth, mu = _problem(data, loss, regulariser)
    runs = arrays.runs(runs)
    src = noise_source(rng=rng, noise=noise)
    transcript = _transcript_arg(transcript)
    defaults = epochs is None or epoch_length is None or learning_rate is None
    if defaults and not mu > 0:
        raise AssumptionError(
            f"total strong convexity ({mu!r}) must be > 0 for Theorem 4.2's default epochs, epoch_length and "
            "learning_rate; pass all three for a convex F^r"
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
    sigma, implied = _sigma(_svrg, n=n, epochs=T, epoch_length=m, epsilon=epsilon, delta=delta, lipschitz=lip,
                                calibration=calibration, noise_constant=noise_constant)

    x_rows, y_rows = loss.split(rows)
    snap = _start(x0, runs, p)
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
            x = _prox(regulariser, x - eta * v, eta)
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
    # [wang17 Alg.1 L11] end for
    # [wang17 Alg.1 L12] return x~_T
    return SVRGResult(
        theta=snap, sigma=sigma, calibration=calibration, implied_constant=implied, epochs=T, epoch_length=m,
        noisy_steps=K, learning_rate=eta,
        gradient_evaluations=_svrg.ALG_1.evaluate("gradient_evaluations", n=n, epochs=T, epoch_length=m),
        contraction=contraction, snapshots=snapshots, x0=start,
        transcript={"v": v_hist, "x": x_hist} if keep else None, spec_ids=SPEC_IDS_1, seed=src.seed,
    )


# --------------------------------------------------------------------------------------------
# Algorithm 2


def dp_svrg_plus(data, *, loss, regulariser=None, epsilon, delta, epoch_length, epochs=None, learning_rate=None,
                 x0=None, calibration="accountant", noise_constant=None, runs=1, rng: RngLike = None, noise=None,
                 transcript=None) -> SVRGResult:
    r"""Algorithm 2, DP-SVRG++(F^r, x~_0, T, m, eta, sigma).

    Parameters
    ----------
    data, loss, regulariser, epsilon, delta, x0, calibration, noise_constant, runs, rng, noise, transcript
        As in :func:`dp_svrg` (tape labels ``"wang17 Alg.2 L6 index"``, ``"wang17 Alg.2 L7 u"``).
    epoch_length : int
        ``m``, required: Theorem 4.4's ``m = Theta(L)`` gives no formula (the record's CAVEAT: the
        algorithm is invariant under rescaling the loss, so no good m scales with L).
    epochs : int, optional
        ``T``; default Theorem 4.4's ``epochs`` (``wang17.thm_4_4``).
    learning_rate : float, optional
        ``eta``; default Theorem 4.4's ``1/(13 L)``.

    Returns
    -------
    SVRGResult
        ``contraction`` is None (Theorem 4.4 has no inequality (4)).

    Privacy
    -------
    ``wang17.thm_4_3`` made concrete by ``wang17.svrg_step_privacy`` over all ``m (2^(T+1) - 2)`` steps.

    Utility
    -------
    ``wang17.thm_4_4`` (F^r convex).
    """
    rows, n, p, lip, smooth, _ = _problem(data, loss, regulariser)
    runs = arrays.runs(runs)
    src = noise_source(rng=rng, noise=noise)
    transcript = _transcript_arg(transcript)
    m = validate.positive_integer("epoch_length", epoch_length)
    eta = (_plus.THM_4_4.evaluate("learning_rate", smoothness=smooth) if learning_rate is None
           else validate.positive("learning_rate", learning_rate))
    if epochs is None:
        epochs = _plus.THM_4_4.evaluate("epochs", n=n, epsilon=epsilon, delta=delta, dimension=p, lipschitz=lip)
    T = validate.positive_integer("epochs", epochs)
    K = _plus.ALG_2.evaluate("noisy_steps", n=n, epochs=T, epoch_length=m)
    sigma, implied = _sigma(_plus, n=n, epochs=T, epoch_length=m, epsilon=epsilon, delta=delta, lipschitz=lip,
                                calibration=calibration, noise_constant=noise_constant)

    x_rows, y_rows = loss.split(rows)
    snap = _start(x0, runs, p)
    start = snap.copy()
    snapshots = np.empty((T, runs, p))
    keep = transcript is True
    if keep:
        v_hist, x_hist = np.empty((K, runs, p)), np.empty((K, runs, p))
    k = 0
    # [wang17 Alg.2 L1] x^1_0 = x~_0
    x = snap.copy()
    # [wang17 Alg.2 L2] for s = 1, 2, ..., T do
    for s in range(1, T + 1):
        x_snap = snap
        # [wang17 Alg.2 L3] v~ = grad F(x~_{s-1})
        v_snap = loss.total_gradient(x_snap, rows, normalisation="average", check=False)
        # [wang17 Alg.2 L4] m_s = 2^s m
        m_s = _plus.ALG_2.evaluate("epoch_steps", step=s, epoch_length=m)
        total = np.zeros((runs, p))
        # [wang17 Alg.2 L5] for t = 1, 2, ..., m_s do
        for t in range(1, m_s + 1):
            # [wang17 Alg.2 L6] pick i^s_t in [n] uniformly at random (one index per run)
            i = src.integers(LABEL_INDEX_2, n, (runs,))
            xi, yi = x_rows[i], None if y_rows is None else y_rows[i]
            # [wang17 Alg.2 L7] u^s_t ~ N(0, sigma^2 I_p)
            u = sigma * src.normal(LABEL_NOISE_2, (runs, p))
            # [wang17 Alg.2 L7] v^s_t = grad f(x^s_{t-1}, z_i) - grad f(x~_{s-1}, z_i) + v~ + u^s_t
            v = loss.gradient_unchecked(x, xi, yi) - loss.gradient_unchecked(x_snap, xi, yi) + v_snap + u
            # [wang17 Alg.2 L8] x^s_t = prox_{eta r}(x^s_{t-1} - eta v^s_t)
            x = _prox(regulariser, x - eta * v, eta)
            total += x
            if keep:
                v_hist[k], x_hist[k] = v, x
            elif transcript is not None:
                transcript(k + 1, {"v": v.copy(), "x": x.copy(), "snapshot": x_snap.copy(), "epoch": s, "step": t})
            k += 1
        # [wang17 Alg.2 L9] end for
        # [wang17 Alg.2 L10] x~_s = (1/m_s) sum_{k=1}^{m_s} x^s_k
        snap = total / m_s
        snapshots[s - 1] = snap
        # [wang17 Alg.2 L11] x^{s+1}_0 = x^s_{m_s}: the next epoch starts from the last iterate (x carries over)
    # [wang17 Alg.2 L12] end for
    # [wang17 Alg.2 L13] return x~_T
    return SVRGResult(
        theta=snap, sigma=sigma, calibration=calibration, implied_constant=implied, epochs=T, epoch_length=m,
        noisy_steps=K, learning_rate=eta,
        gradient_evaluations=_plus.ALG_2.evaluate("gradient_evaluations", n=n, epochs=T, epoch_length=m),
        contraction=None, snapshots=snapshots, x0=start,
        transcript={"v": v_hist, "x": x_hist} if keep else None, spec_ids=SPEC_IDS_2, seed=src.seed,
    )
