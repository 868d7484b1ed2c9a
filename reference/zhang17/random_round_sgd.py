r"""zhang17 Algorithm 2 (Random Round Private SGD, RRPSGD), line for line, batched over runs.

Conventions (zhang17): the average loss ``F(w, S) = (1/n) sum_i f(w, xi_i)``; replace-one
neighbours; ``w_0 = 0``; no projection, so the loss's constants must hold on all of R^d. Every
constant is a :mod:`spec.zhang17` formula evaluated from public values:

* ``sigma`` of line 4, ``zhang17.alg_2``: ``sigma_z^2 = 4 L^2 ln(3n/delta) ln(2/delta)/epsilon^2``;
* the constant step, ``zhang17.thm_5`` formula ``learning_rate``: ``eta = min(1/beta,
  Dbar/(sigma n))`` with ``sigma^2 = 4 L^2 + d sigma_z^2`` and ``Dbar = sqrt(2 h_0/beta)``, where
  ``h_0`` (``initial_gap``) is a *public* bound on ``F(w_0, S) - F*`` for every data set -- by
  default :func:`reference.losses.origin_value_bound` (``sup_xi f(0; xi)``, valid for non-negative
  losses). The paper's ``D_F`` is computed from the data (the record's ERRATUM);
* ``R``: for a constant step Theorem 5's ``P`` is uniform on ``{1, ..., n^2}`` (``zhang17.thm_5``
  formula ``round_probability`` ``1/n^2``, ``zhang17.alg_2`` formula ``rounds`` ``n^2``).

Batching. Each of the ``runs`` independent executions draws its own ``R`` (line 1) and runs its
own loop; the batch steps ``t = 0, 1, ...`` together until the largest ``R``, and a run whose
loop has ended keeps its ``w_R``. Every step draws an index and a noise vector for *every* run
(labelled, standardised; a finished run's draws are not used), so the tape has the same shape
whatever the ``R``: ``"zhang17 Alg.2 L1 R"`` (``integers``, ``high = n^2``, shape ``(runs,)``;
``R = value + 1``), then per step ``"zhang17 Alg.2 L3 xi"`` (``integers``, ``high = n``) and
``"zhang17 Alg.2 L4 z_t"`` (``normal``, ``(runs, d)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar, Literal

import numpy as np

from reference import arrays
from reference.arrays import ArrayLike
from reference.configured import Certificate, Configured, minimum_records, quantity
from reference.domains import Rp
from reference.losses import Loss, origin_value_bound
from reference.problem import check_problem, check_setting
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import NoiseLike
from spec import validate
from spec import zhang17 as _spec
from spec.errors import AssumptionError, ParameterError

__all__ = ["RandomRoundSGD", "RRPSGDResult", "rrpsgd", "rrpsgd_constants", "LABEL_ROUND", "LABEL_INDEX", "LABEL_NOISE", "SPEC_IDS"]

#: The records whose formulas and claims Algorithm 2 uses.
SPEC_IDS = ("zhang17.alg_2", "zhang17.thm_4", "zhang17.thm_5")

#: Tape labels of Algorithm 2's draws (the twins and the vectors use these names).
LABEL_ROUND = "zhang17 Alg.2 L1 R"
LABEL_INDEX = "zhang17 Alg.2 L3 xi"
LABEL_NOISE = "zhang17 Alg.2 L4 z_t"


@dataclass(frozen=True)
class RRPSGDResult(AlgorithmResult):
    """Output of :func:`rrpsgd`.

    Attributes
    ----------
    theta : ndarray, shape (runs, d)
        ``w_priv = w_R`` of every run (line 7).
    rounds : ndarray, shape (runs,)
        Each run's ``R`` in ``{1, ..., n^2}`` (line 1).
    sigma : float
        Line 4's per-coordinate noise standard deviation ``sigma_z``, rounded up.
    learning_rate : float
        The constant step eta (Theorem 5).
    initial_gap : float
        The public ``h_0`` behind eta.
    max_rounds : int
        ``n^2``, the largest value of R.
    transcript : dict or None
        With ``transcript=True``: ``{"G": (S, runs, d), "w": (S, runs, d), "active": (S, runs)}``
        for the ``S = max R`` steps run, where row ``t`` holds ``G_t = grad f(w_t, xi) + z_t``,
        ``w_{t+1}`` and whether run ``r`` took step ``t`` (``t < R_r``).
    """

    theta: np.ndarray
    rounds: np.ndarray
    sigma: float
    learning_rate: float
    initial_gap: float
    max_rounds: int
    transcript: dict | None = field(default=None, repr=False)


def rrpsgd_constants(*, loss: Loss, n: int, dimension: int, epsilon: float, delta: float,
                     initial_gap: float | None = None) -> dict:
    """The public constants of Algorithm 2: ``sigma`` (line 4), ``eta`` (Theorem 5), ``n^2``.

    Returns a dict with ``sigma``, ``learning_rate``, ``initial_gap``, ``max_rounds`` and
    ``round_probability``.

    Privacy
    -------
    ``zhang17.alg_2`` (line 4's sigma), ``zhang17.thm_4``.

    Utility
    -------
    ``zhang17.thm_5`` (``learning_rate`` with the public ``initial_gap``).
    """
    c = loss.constants
    if not c.smooth:
        raise AssumptionError(f"loss.constants.smoothness ({c.smoothness!r}) must be finite (zhang17 Assumption 1)")
    if not c.smoothness > 0:
        raise AssumptionError(
            f"loss.constants.smoothness ({c.smoothness!r}) must be > 0 (zhang17 Theorem 5's step min(1/beta, ...)); "
            "any larger value is also a valid smoothness constant"
        )
    n_ = validate.integer("n", n, minimum=2)
    p = validate.positive_integer("dimension", dimension)
    eps = validate.epsilon(epsilon)
    dl = validate.delta(delta)
    h0 = origin_value_bound(loss) if initial_gap is None else validate.positive("initial_gap", initial_gap)
    sigma = _spec.ALG_2.evaluate("sigma", lipschitz=c.lipschitz, n=n_, epsilon=eps, delta=dl)
    eta = _spec.THM_5.evaluate("learning_rate", lipschitz=c.lipschitz, smoothness=c.smoothness, dimension=p,
                               n=n_, epsilon=eps, delta=dl, initial_gap=h0)
    # Theorem 5 needs eta_k < 2/beta (the record's assumption; eta <= 1/beta by its formula)
    _spec.THM_5.check(learning_rate=eta, smoothness=c.smoothness)
    return {"sigma": sigma, "learning_rate": eta, "initial_gap": h0,
            "max_rounds": int(_spec.ALG_2.evaluate("rounds", n=n_, check=False)),
            "round_probability": _spec.THM_5.evaluate("round_probability", n=n_, check=False)}


@dataclass(frozen=True, kw_only=True, eq=False)
class RandomRoundSGD(Configured):
    r"""Algorithm 2 (RRPSGD), configured: sigma, the constant step and the law of R, before any data.

    Privacy
    -------
    ``zhang17.thm_4``: (epsilon, delta)-DP for epsilon in (0, 1] as claimed; the claim rests on
    the RDP certificate over ``n^2`` steps (``spec.zhang17.certified_epsilon``), which
    :attr:`certificate` evaluates at the configured sigma.

    Utility
    -------
    ``zhang17.thm_5``.
    """

    #: The transcript key, the iterate's name and its index offset of the vectors' checkpoints.
    CHECKPOINT: ClassVar[tuple] = ("w", "w", 0)

    ALGORITHM: ClassVar[str] = "zhang17.alg_2"
    RESULT: ClassVar[type] = RRPSGDResult
    USES: ClassVar[tuple[str, ...]] = ("lipschitz", "smoothness")
    CONVEX: ClassVar[bool] = False

    sigma: float = quantity("per-coordinate noise standard deviation sigma_z (line 4)", source="zhang17.alg_2 sigma")
    learning_rate: float = quantity("the constant step eta (line 5)", source="zhang17.thm_5 learning_rate")
    initial_gap: float = quantity("public h_0 >= F(0, S) - F* behind eta",
                                  source="reference.losses.origin_value_bound or given")
    max_rounds: int = quantity("n^2, the largest R; R is uniform on {1, ..., n^2} (line 1)",
                               source="zhang17.alg_2 rounds")

    def privacy_record(self) -> str:
        return "zhang17.thm_4"

    @classmethod
    def configure(cls, *, loss: Loss, n: int, dimension: int, epsilon: float, delta: float,
                  initial_gap: float | None = None, allow_unproven: bool = False) -> "RandomRoundSGD":
        r"""Configure Algorithm 2 for ``n`` records of dimension ``dimension``.

        Parameters
        ----------
        loss : reference.losses.Loss
            Smooth (``0 < beta < inf``), possibly non-convex, with constants valid on all of R^d (no
            ``domain_radius``: there is no projection). Its ``lipschitz`` is the L of line 4.
        n : int
            Number of records, at least 2.
        dimension : int
            The dimension d of w.
        epsilon, delta : float
            The budget: ``epsilon > 0`` (Theorem 4 claims ``epsilon <= 1``; the RDP certificate decides
            other values), ``0 < delta < 1``.
        initial_gap : float, optional
            A public ``h_0 >= F(0, S) - F*`` for every data set; by default
            ``reference.losses.origin_value_bound`` of the loss, never computed from the data.
        allow_unproven : bool
            Build the configuration even when its claim is not proven (marked ``unproven-claim``).

        Returns
        -------
        RandomRoundSGD
        """
        n = minimum_records(n, cls.ALGORITHM)
        p = validate.positive_integer("dimension", dimension)
        if loss.domain_radius is not None:
            raise AssumptionError(
                f"loss ({loss!r}) has domain_radius ({loss.domain_radius!r}): Algorithm 2 does not project, so its "
                "constants must hold on all of R^d"
            )
        check_setting(loss=loss, domain=Rp(dim=p), convex=False)
        consts = rrpsgd_constants(loss=loss, n=n, dimension=p, epsilon=epsilon, delta=delta, initial_gap=initial_gap)
        return cls(loss=loss, n=n, p=p, epsilon=float(epsilon), delta=float(delta),
                   options={"initial_gap": initial_gap}, spec_ids=SPEC_IDS, flags=("printed-calibration",),
                   allow_unproven=allow_unproven, sigma=consts["sigma"], learning_rate=consts["learning_rate"],
                   initial_gap=consts["initial_gap"], max_rounds=consts["max_rounds"])._finish()

    def _certify(self) -> Certificate:
        eps = _spec.certified_epsilon(n=self.n, delta=self.delta, lipschitz=self.loss.constants.lipschitz,
                                      sigma=self.sigma)
        basis = (f"RDP certificate of line 4's sigma over n^2 = {self.max_rounds} steps: epsilon {eps:.4g} at delta "
                 f"{self.delta!r} (zhang17.thm_4, spec.zhang17.certified_epsilon; the box has no other calibration)")
        return Certificate(self.claim(), bool(eps <= self.epsilon), basis)

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """At most ``n^2`` single-record gradients per run (R is uniform on ``{1, ..., n^2}``)."""
        return int(self.max_rounds) * int(runs)

    def loop_length(self) -> int:
        return int(self.max_rounds)

    def check_data(self, data: ArrayLike) -> np.ndarray:
        rows, n, _ = check_problem(data, loss=self.loss, domain=Rp(dim=self.p), convex=False)
        self._check_n(n)
        return rows

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, loss, n, p = noise, self.loss, self.n, self.p
        sigma, eta, n2 = self.sigma, self.learning_rate, self.max_rounds
        x_rows, y_rows = loss.split(rows)

        # [zhang17 Alg.2 L1] draw R from P: uniform on {1, ..., n^2} for the constant step (Theorem 5)
        rounds = src.integers(LABEL_ROUND, n2, (runs,)) + 1
        w = np.zeros((runs, p))
        steps = int(rounds.max())
        keep = transcript is True
        if keep:
            g_hist, w_hist = np.empty((steps, runs, p)), np.empty((steps, runs, p))
            active_hist = np.empty((steps, runs), dtype=bool)
        # [zhang17 Alg.2 L2] for t = 0 to R - 1 (all runs together; run r stops after its R_r steps)
        for t in range(steps):
            # [zhang17 Alg.2 L3] xi ~ U(S), fresh each step
            index = src.integers(LABEL_INDEX, n, (runs,))
            # [zhang17 Alg.2 L4] z_t ~ N(0, sigma_z^2 I_d), fresh each step
            z = sigma * src.normal(LABEL_NOISE, (runs, p))
            # [zhang17 Alg.2 L5] w_{t+1} = w_t - eta_t (grad f(w_t, xi) + z_t)
            g = loss.gradient_unchecked(w, x_rows[index], None if y_rows is None else y_rows[index]) + z
            active = t < rounds
            w = np.where(active[:, None], w - eta * g, w)
            if keep:
                g_hist[t], w_hist[t], active_hist[t] = g, w, active
            elif transcript is not None:
                transcript(t, {"G": g.copy(), "w": w.copy(), "active": active.copy(), "eta": eta})
            progress(t + 1, steps)
        # [zhang17 Alg.2 L6] end for
        # [zhang17 Alg.2 L7] output w_priv = w_R
        return dict(theta=w, rounds=rounds, sigma=sigma, learning_rate=eta, initial_gap=self.initial_gap,
                    max_rounds=n2, transcript={"G": g_hist, "w": w_hist, "active": active_hist} if keep else None)


def rrpsgd(data: ArrayLike, *, loss: Loss, epsilon: float, delta: float, initial_gap: float | None = None,
           runs: int = 1, rng: RngLike = None, noise: NoiseLike = None,
           transcript: Callable[[int, dict], object] | Literal[True] | None = None) -> RRPSGDResult:
    r"""Algorithm 2 (RRPSGD): :meth:`RandomRoundSGD.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds (checked once), ``n >= 2``.
    loss, epsilon, delta, initial_gap
        As in :meth:`RandomRoundSGD.configure`.
    runs : int
        Independent executions (shared data).
    rng, noise
        Randomness (:func:`reference.tape.noise_source`); the tape's entries are listed in the
        module docstring.
    transcript : callable or True, optional
        A callable ``transcript(t, state)`` is called after step ``t = 0, ..., max R - 1`` with
        ``state = {"G": G_t, "w": w_{t+1}, "active": t < R, "eta": eta}`` (arrays over runs; the
        noisy gradient ``G_t = grad f(w_t, xi) + z_t`` is what the privacy accounting covers);
        ``True`` stacks them on the result.

    Returns
    -------
    RRPSGDResult

    Privacy
    -------
    ``zhang17.thm_4`` (see :class:`RandomRoundSGD`; this wrapper does not refuse an uncertified sigma).

    Utility
    -------
    ``zhang17.thm_5``: ``E ||grad F(w_R)||^2`` (``utility_bound_printed_output`` for the output
    ``w_R``).
    """
    arr = arrays.real_array("data", data)
    if arr.ndim != 2:
        raise ParameterError(f"data (shape {arr.shape}) must have shape (n, k)")
    configured = RandomRoundSGD.configure(loss=loss, n=arr.shape[0], dimension=loss.dim_of_row(arr.shape[1]),
                                          epsilon=epsilon, delta=delta, initial_gap=initial_gap, allow_unproven=True)
    return configured.run(arr, runs=runs, rng=rng, noise=noise, transcript=transcript)
