"""wang17 Algorithm 2 (DP-SVRG++), line for line and batched over runs.

Wang, Ye and Xu (2017), Section 4: as DP-SVRG (:mod:`reference.wang17.svrg`, which holds what both
share: the result, the noise calibration, the checks), but epoch ``s`` runs ``2^s m`` inner steps
and the next epoch starts from the last iterate; ``F^r`` need only be convex (Theorem 4.4). The
noise is the spec's proven calibration (``spec.wang17.svrg_plus.calibrate``) unless
``calibration="paper"`` asks for the paper's form with an explicit c.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from reference import arrays
from reference.configured import minimum_records
from reference.losses import Loss
from reference.losses.regularisers import Regulariser
from reference.rng import RngLike
from reference.wang17.svrg import SVRGBox, SVRGResult, check_svrg_setting, data_shape, noise_sigma, prox, start_state
from spec import validate
from spec.wang17 import svrg_plus as _plus

__all__ = ["SVRGPlus", "dp_svrg_plus", "LABEL_INDEX_2", "LABEL_NOISE_2", "SPEC_IDS_2"]

#: The records whose formulas and claims Algorithm 2 uses.
SPEC_IDS_2 = ("wang17.alg_2", "wang17.thm_4_3", "wang17.thm_4_4", "wang17.svrg_step_privacy")

#: Tape labels (the twins and the vectors use these names).
LABEL_INDEX_2 = "wang17 Alg.2 L6 index"
LABEL_NOISE_2 = "wang17 Alg.2 L7 u"


@dataclass(frozen=True, kw_only=True, eq=False)
class SVRGPlus(SVRGBox):
    r"""Algorithm 2, DP-SVRG++(F^r, x~_0, T, m, eta, sigma), configured.

    Privacy
    -------
    ``wang17.thm_4_3`` made concrete by ``wang17.svrg_step_privacy`` over all ``m (2^(T+1) - 2)`` steps.

    Utility
    -------
    ``wang17.thm_4_4`` (F^r convex).
    """

    ALGORITHM: ClassVar[str] = "wang17.alg_2"
    RESULT: ClassVar[type] = SVRGResult
    RECORD: ClassVar[object] = _plus
    _ALG: ClassVar[str] = "ALG_2"

    @classmethod
    def configure(cls, *, loss: Loss, n: int, dimension: int, epsilon: float, delta: float, epoch_length: int,
                  regulariser: Regulariser | None = None, epochs: int | None = None,
                  learning_rate: float | None = None, x0=None, calibration: str = "accountant",
                  noise_constant: float | None = None, allow_unproven: bool = False) -> "SVRGPlus":
        r"""Configure Algorithm 2 for ``n`` records of dimension ``dimension``.

        Parameters
        ----------
        loss : reference.losses.Loss
            Convex ``f``; its declared constants are the G and L of the paper, valid on all of R^p.
        n : int
            Number of records, at least 2.
        dimension : int
            The dimension p.
        epsilon, delta : float
            The target budget.
        epoch_length : int
            The base epoch length m, which is required: Theorem 4.4's ``m = Theta(L)`` gives no formula
            (the record's CAVEAT: the algorithm is invariant under rescaling the loss).
        regulariser : reference.losses.Regulariser, optional
            The convex ``r`` of ``F^r = F + r``, used only through its prox; ``None`` is r = 0.
        epochs : int, optional
            T; by default Theorem 4.4's ``epochs`` (``wang17.thm_4_4``).
        learning_rate : float, optional
            eta; by default Theorem 4.4's ``1/(13 L)``.
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
        SVRGPlus
        """
        n = minimum_records(n, cls.ALGORITHM)
        p, lip, smooth, _ = check_svrg_setting(loss, regulariser, dimension)
        m = validate.positive_integer("epoch_length", epoch_length)
        eta = (_plus.THM_4_4.evaluate("learning_rate", smoothness=smooth) if learning_rate is None
               else validate.positive("learning_rate", learning_rate))
        given_epochs = epochs
        if epochs is None:
            epochs = _plus.THM_4_4.evaluate("epochs", n=n, epsilon=epsilon, delta=delta, dimension=p, lipschitz=lip)
        T = validate.positive_integer("epochs", epochs)
        K = _plus.ALG_2.evaluate("noisy_steps", n=n, epochs=T, epoch_length=m)
        sigma, implied = noise_sigma(_plus, n=n, epochs=T, epoch_length=m, epsilon=epsilon, delta=delta,
                                     lipschitz=lip, calibration=calibration, noise_constant=noise_constant)
        notes = []
        if given_epochs is None and T == 1:
            notes.append("T = 1: Theorem 4.4's default number of epochs is 1 at these values (2m noisy steps); "
                         "--epochs sets T (privacy is accounted for any T).")
        return cls(loss=loss, regulariser=regulariser, n=n, p=p, epsilon=float(epsilon), delta=float(delta),
                   options={"epoch_length": m, "epochs": given_epochs, "learning_rate": learning_rate, "x0": x0,
                            "calibration": calibration, "noise_constant": noise_constant},
                   spec_ids=SPEC_IDS_2, flags=(f"{calibration}-calibration",), notes=tuple(notes),
                   allow_unproven=allow_unproven, x0=None if x0 is None else arrays.real_array("x0", x0),
                   calibration=calibration, sigma=sigma, implied_constant=implied, epochs=T, epoch_length=m,
                   noisy_steps=int(K), learning_rate=eta)._finish()

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
                x = prox(regulariser, x - eta * v, eta)
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
            progress(s, T)
            # [wang17 Alg.2 L11] x^{s+1}_0 = x^s_{m_s}: the next epoch starts from the last iterate (x carries over)
        # [wang17 Alg.2 L12] end for
        # [wang17 Alg.2 L13] return x~_T
        return dict(theta=snap, sigma=sigma, calibration=self.calibration, implied_constant=self.implied_constant,
                    epochs=T, epoch_length=m, noisy_steps=K, learning_rate=eta,
                    gradient_evaluations=self.gradient_evaluations(runs=1), contraction=None, snapshots=snapshots,
                    x0=start, transcript={"v": v_hist, "x": x_hist} if keep else None)


def dp_svrg_plus(data, *, loss, regulariser=None, epsilon, delta, epoch_length, epochs=None, learning_rate=None,
                 x0=None, calibration="accountant", noise_constant=None, runs=1, rng: RngLike = None, noise=None,
                 transcript=None) -> SVRGResult:
    r"""Algorithm 2, DP-SVRG++: :meth:`SVRGPlus.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data, loss, regulariser, epsilon, delta, x0, calibration, noise_constant, runs, rng, noise, transcript
        As in :func:`reference.wang17.dp_svrg` (tape labels ``"wang17 Alg.2 L6 index"``, ``"wang17 Alg.2 L7 u"``).
    epoch_length, epochs, learning_rate
        As in :meth:`SVRGPlus.configure`.

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
    n, p = data_shape(data, loss)
    configured = SVRGPlus.configure(loss=loss, n=n, dimension=p, epsilon=epsilon, delta=delta,
                                    epoch_length=epoch_length, regulariser=regulariser, epochs=epochs,
                                    learning_rate=learning_rate, x0=x0, calibration=calibration,
                                    noise_constant=noise_constant, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
