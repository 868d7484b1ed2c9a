"""wang17 Algorithm 4 (DP-GD), line for line and batched over runs.

``x_t = x_{t-1} - eta (grad F(x_{t-1}; D) + z_{t-1})``, ``z ~ N(0, sigma^2 I_p)``, ``t = 1..T``, on R^p
(no constraint set, so the loss's constants must hold on all of R^p); the output is the last
iterate ``x_T`` (Section 6.1, Polyak-Lojasiewicz) or ``x_m`` with ``m`` uniform on ``{0, ..., T-1}``
(Section 6.2, non-convex; the paper prints ``{0, ..., m-1}``: ``wang17.alg_4``'s ERRATUM flag).
The noise is ``wang17.thm_6_1``'s proven sigma (``wang17.full_batch_calibration``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from reference import arrays
from reference.configured import Configured, minimum_records, quantity
from reference.domains import Rp
from reference.problem import check_problem, check_setting
from reference.results import AlgorithmResult
from reference.rng import RngLike
from spec import validate
from spec.errors import AssumptionError, ParameterError
from spec.wang17 import gradient_descent as _spec

__all__ = ["GDResult", "GradientDescent", "dp_gd", "OUTPUTS", "SPEC_IDS", "LABEL_NOISE", "LABEL_OUTPUT"]

#: The records whose formulas and claims Algorithm 4 uses.
SPEC_IDS = ("wang17.alg_4", "wang17.thm_6_1", "wang17.thm_6_2", "wang17.thm_6_3", "wang17.full_batch_calibration")

#: Tape labels: the noise of line 2 and the output index of line 5.
LABEL_NOISE = "wang17 Alg.4 L2 z"
LABEL_OUTPUT = "wang17 Alg.4 L5 index"

#: ``"last"``: x_T (Section 6.1); ``"random"``: x_m, m uniform on {0, ..., T-1} (Section 6.2).
OUTPUTS = ("last", "random")


@dataclass(frozen=True)
class GDResult(AlgorithmResult):
    """Output of :func:`dp_gd`.

    Attributes
    ----------
    theta : ndarray, shape (runs, p)
        ``x_T`` or ``x_m``.
    sigma : float
        Noise standard deviation per step.
    steps : int
        ``T``.
    learning_rate : float
        ``eta``.
    output : str
        ``"last"`` or ``"random"``.
    index : ndarray of int, shape (runs,) or None
        ``m`` per run for ``output="random"``.
    transcript : dict or None
        With ``transcript=True``: ``{"g": (steps, runs, p), "x": (steps + 1, runs, p)}``: the released
        noisy gradients ``grad F(x_{t-1}) + z_{t-1}`` and the iterates ``x_0 .. x_T``.
    """

    theta: np.ndarray
    sigma: float
    steps: int
    learning_rate: float
    output: str
    index: np.ndarray | None = field(default=None, repr=False)
    transcript: dict | None = field(default=None, repr=False)


@dataclass(frozen=True, kw_only=True, eq=False)
class GradientDescent(Configured):
    r"""Algorithm 4, DP-GD(x_0, F, eta, T, sigma, D), configured: T, eta and sigma, before any data.

    Privacy
    -------
    ``wang17.thm_6_1`` via ``wang17.full_batch_calibration``: the T noisy gradients are
    (epsilon, delta)-DP under replace-one; both outputs are post-processing.

    Utility
    -------
    ``wang17.thm_6_2`` (PL, last iterate), ``wang17.thm_6_3`` (non-convex, random iterate).
    """

    #: The transcript key, the iterate's name and its index offset of the vectors' checkpoints.
    CHECKPOINT: ClassVar[tuple] = ("x", "x", 0)

    ALGORITHM: ClassVar[str] = "wang17.alg_4"
    RESULT: ClassVar[type] = GDResult
    USES: ClassVar[tuple[str, ...]] = ("lipschitz", "smoothness")
    CONVEX: ClassVar[bool] = False

    x0: np.ndarray | None = field(default=None, repr=False)
    output: str
    steps: int = quantity("T noisy full-gradient steps (line 1)", source="wang17.thm_6_2 / thm_6_3 steps, or given")
    learning_rate: float = quantity("eta <= 1/L (line 2)", source="wang17.alg_4 learning_rate, or given")
    sigma: float = quantity("noise standard deviation per step (line 2)",
                            source="wang17.thm_6_1 sigma (wang17.full_batch_calibration)")

    def privacy_record(self) -> str:
        return "wang17.thm_6_1"

    @classmethod
    def configure(cls, *, loss, n: int, dimension: int, epsilon: float, delta: float, steps: int | None = None,
                  learning_rate: float | None = None, output: str = "last", x0=None,
                  initial_gap: float | None = None, polyak_lojasiewicz: float | None = None,
                  allow_unproven: bool = False) -> "GradientDescent":
        r"""Configure Algorithm 4 for ``n`` records of dimension ``dimension``.

        Parameters
        ----------
        loss : reference.losses.Loss
            G-Lipschitz and L-smooth on R^p (convex or not).
        n : int
            Number of records, at least 2.
        dimension : int
            The dimension p.
        epsilon, delta : float
            The target budget.
        steps : int, optional
            T; by default Theorem 6.2's ``steps`` for ``output="last"`` (needs ``initial_gap`` and
            ``polyak_lojasiewicz``) or Theorem 6.3's for ``output="random"`` (needs ``initial_gap``).
        learning_rate : float, optional
            eta with ``0 < eta <= 1/L`` (checked); by default 1/L.
        output : {"last", "random"}
            Line 4 (the last iterate) or line 5 (a uniformly random iterate).
        x0 : array_like, shape (p,) or (runs, p), optional
            The start; by default the origin.
        initial_gap : float, optional
            A public ``h_0 >= F(x_0) - F*``, for the default T.
        polyak_lojasiewicz : float, optional
            The PL constant mu, for Theorem 6.2's default T.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        GradientDescent
        """
        n = minimum_records(n, cls.ALGORITHM)
        p = validate.positive_integer("dimension", dimension)
        check_setting(loss=loss, domain=Rp(dim=p), convex=False)
        out = validate.choice("output", output, OUTPUTS)
        c = loss.constants
        lip, smooth = c.lipschitz, c.smoothness
        if not (c.smooth and smooth > 0):
            raise AssumptionError(f"loss smoothness ({smooth!r}) must be finite and > 0 (L of wang17 Section 6)")
        if learning_rate is None:
            eta = _spec.ALG_4.evaluate("learning_rate", smoothness=smooth)
            # the record rounds 1/L to nearest; the box needs eta <= 1/L exactly: step down an ulp if needed
            while _spec.ALG_4.failed_assumptions(learning_rate=eta, smoothness=smooth, exact=True):
                eta = math.nextafter(eta, 0.0)
        else:
            eta = validate.positive("learning_rate", learning_rate)
        _spec.ALG_4.check(learning_rate=eta, smoothness=smooth)
        given = steps
        if steps is None:
            if initial_gap is None:
                raise ParameterError("initial_gap (None) must be given (a public bound on F(x_0) - F*) when steps is "
                                     "not")
            values = dict(initial_gap=initial_gap, smoothness=smooth, n=n, epsilon=epsilon, dimension=p,
                          lipschitz=lip, delta=delta)
            if out == "last":
                if polyak_lojasiewicz is None:
                    raise ParameterError("polyak_lojasiewicz (None) must be given for Theorem 6.2's steps (output "
                                         "'last')")
                steps = _spec.THM_6_2.evaluate("steps", polyak_lojasiewicz=polyak_lojasiewicz, **values)
            else:
                steps = _spec.THM_6_3.evaluate("steps", **values)
        T = validate.positive_integer("steps", steps)
        sigma = _spec.THM_6_1.evaluate("sigma", lipschitz=lip, n=n, steps=T, epsilon=epsilon, delta=delta)
        start = None
        if x0 is not None:
            start = np.asarray(arrays.points("x0", x0, p))
        notes = []
        if given is None and T == 1:
            notes.append(f"T = 1: Theorem 6.{'2' if out == 'last' else '3'}'s default T is one noisy step at these "
                         "values; --steps sets T (sigma is calibrated for the T you give).")
        return cls(loss=loss, n=n, p=p, epsilon=float(epsilon), delta=float(delta),
                   options={"steps": given, "learning_rate": learning_rate, "output": out, "x0": x0,
                            "initial_gap": initial_gap, "polyak_lojasiewicz": polyak_lojasiewicz},
                   spec_ids=SPEC_IDS, flags=("random-iterate",) if out == "random" else (), notes=tuple(notes),
                   allow_unproven=allow_unproven, x0=start, output=out, steps=T, learning_rate=float(eta),
                   sigma=sigma)._finish()

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """One full gradient (n per-example gradients) per step and run: ``n T runs``."""
        return int(self.n) * int(self.steps) * int(runs)

    def check_data(self, data):
        rows, n, _ = check_problem(data, loss=self.loss, domain=Rp(dim=self.p), convex=False)
        self._check_n(n)
        return rows

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, loss, p, T, eta, sigma, out = noise, self.loss, self.p, self.steps, self.learning_rate, self.sigma, \
            self.output
        x = np.zeros((runs, p)) if self.x0 is None else np.broadcast_to(self.x0, (runs, p)).copy()
        if x.shape != (runs, p):
            raise ParameterError(f"x0 (shape {np.shape(self.x0)}) must have shape ({p},) or ({runs}, {p})")
        keep = transcript is True
        history = np.empty((T + 1, runs, p)) if (keep or out == "random") else None
        g_hist = np.empty((T, runs, p)) if keep else None
        if history is not None:
            history[0] = x
        # [wang17 Alg.4 L1] for t = 1, 2, ..., T do
        for t in range(1, T + 1):
            # [wang17 Alg.4 L2] z_{t-1} ~ N(0, sigma^2 I_p)
            z = sigma * src.normal(LABEL_NOISE, (runs, p))
            # [wang17 Alg.4 L2] x_t = x_{t-1} - eta (grad F(x_{t-1}, D) + z_{t-1})
            g = loss.total_gradient(x, rows, normalisation="average", check=False) + z
            x = x - eta * g
            if history is not None:
                history[t] = x
            if keep:
                g_hist[t - 1] = g
            elif transcript is not None:
                transcript(t, {"g": g.copy(), "x": x.copy()})
            progress(t, T)
        # [wang17 Alg.4 L3] end for
        index = None
        if out == "last":
            # [wang17 Alg.4 L4] return x_T (Section 6.1)
            theta = x
        else:
            # [wang17 Alg.4 L5] return x_m, m uniform on {0, ..., T-1} (the output_candidates of the record)
            candidates = _spec.ALG_4.evaluate("output_candidates", steps=T)
            index = src.integers(LABEL_OUTPUT, candidates, (runs,))
            theta = history[index, np.arange(runs)]
        return dict(theta=theta, sigma=sigma, steps=T, learning_rate=float(eta), output=out, index=index,
                    transcript={"g": g_hist, "x": history} if keep else None)


def dp_gd(data, *, loss, epsilon, delta, steps=None, learning_rate=None, output="last", x0=None, initial_gap=None,
          polyak_lojasiewicz=None, runs=1, rng: RngLike = None, noise=None, transcript=None) -> GDResult:
    r"""Algorithm 4, DP-GD: :meth:`GradientDescent.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds, n >= 2.
    loss, epsilon, delta, steps, learning_rate, output, x0, initial_gap, polyak_lojasiewicz
        As in :meth:`GradientDescent.configure`.
    runs, rng, noise
        Per step the tape gets ``normal`` ``"wang17 Alg.4 L2 z"`` (shape ``(runs, p)``); with
        ``output="random"`` one ``integers`` entry ``"wang17 Alg.4 L5 index"`` (``high = T``) at the end.
    transcript : callable or True, optional
        ``transcript(t, state)`` after step ``t`` with ``state = {"g", "x"}`` (the released noisy
        gradient and ``x_t``); ``True`` stacks them.

    Returns
    -------
    GDResult

    Privacy
    -------
    ``wang17.thm_6_1`` via ``wang17.full_batch_calibration``.

    Utility
    -------
    ``wang17.thm_6_2`` (PL, last iterate), ``wang17.thm_6_3`` (non-convex, random iterate).
    """
    shape = np.shape(data)
    if len(shape) != 2:
        raise ParameterError(f"data (shape {shape}) must have shape (n, k)")
    _, n, p = check_problem(data, loss=loss, domain=Rp(dim=loss.dim_of_row(shape[1])), convex=False)
    configured = GradientDescent.configure(
        loss=loss, n=n, dimension=p, epsilon=epsilon, delta=delta, steps=steps, learning_rate=learning_rate,
        output=output, x0=x0, initial_gap=initial_gap, polyak_lojasiewicz=polyak_lojasiewicz, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
