"""wang17 Algorithm 3 (DP-AccMD), corrected, line for line and batched over runs.

Accelerated mirror descent by linear coupling (Allen-Zhu and Orecchia) over a centrally symmetric
set C: each iteration releases one noisy full gradient ``g = grad F(x_{k+1}; D) + b_{k+1}`` and uses
*that same* ``g`` in the gradient step (line 6, the Minkowski norm of C) and in the mirror step
(line 7, a distance-generating function w). As printed, the paper's line 6 uses the noiseless
``grad F(x_{k+1})``, which makes the algorithm non-private (``wang17.alg_3``'s ERRATUM flag); that
version exists only as the audit twin :func:`audits.twins.wang17.dp_accmd_printed`, never here.

The noise is ``wang17.thm_5_3``'s proven sigma (``wang17.full_batch_calibration``: zCDP over T
releases of replace-one sensitivity ``2G/n``). ``alpha_{k+1}`` is the record's reconstructed
``(k+2)/(4 L ||C||_2^2)`` (``step_rule="reconstructed"``, default) or the printed ``(k+2)/(4L)``
(``"printed"``; both are flagged in ``wang17.alg_3``); ``r_k = 2/(k+2)`` under both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from reference.configured import Configured, minimum_records, quantity
from reference.problem import check_problem, check_setting
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.wang17 import mirror_maps
from spec import validate
from spec.errors import AssumptionError, ParameterError
from spec.wang17 import accelerated_mirror_descent as _spec

__all__ = ["AccMDResult", "AcceleratedMirrorDescent", "dp_accmd", "STEP_RULES", "SPEC_IDS", "LABEL_NOISE"]

#: The records whose formulas and claims Algorithm 3 uses.
SPEC_IDS = ("wang17.alg_3", "wang17.thm_5_3", "wang17.thm_5_4", "wang17.full_batch_calibration")

#: Tape label of the noise b_{k+1} (one draw per iteration, shared by lines 6 and 7).
LABEL_NOISE = "wang17 Alg.3 L7 b"

#: alpha_{k+1}: the record's formula "alpha" (L ||C||_2^2) or "alpha_printed" (L).
STEP_RULES = {"reconstructed": "alpha", "printed": "alpha_printed"}


@dataclass(frozen=True)
class AccMDResult(AlgorithmResult):
    """Output of :func:`dp_accmd`.

    Attributes
    ----------
    theta : ndarray, shape (runs, p)
        ``y_T`` (line 9).
    sigma : float
        Noise standard deviation per iteration.
    steps : int
        ``T``.
    alphas, couplings : ndarray, shape (steps,)
        ``alpha_{k+1}`` and ``r_k`` for ``k = 0..T-1``.
    y_step_smoothness : float
        ``L ||C||_2^2``, the coefficient of line 6.
    mirror_map : MirrorMap
        The distance-generating function of line 7.
    z : ndarray, shape (runs, p)
        ``z_T``.
    transcript : dict or None
        With ``transcript=True``: ``{"g", "x", "y", "z"}``, each ``(steps, runs, p)``: the released
        noisy gradients and the iterates after each iteration.
    """

    theta: np.ndarray
    sigma: float
    steps: int
    alphas: np.ndarray = field(repr=False)
    couplings: np.ndarray = field(repr=False)
    y_step_smoothness: float
    mirror_map: mirror_maps.MirrorMap = field(repr=False)
    z: np.ndarray = field(default=None, repr=False)
    transcript: dict | None = field(default=None, repr=False)


def _mirror(mirror_map, domain):
    if isinstance(mirror_map, mirror_maps.MirrorMap):
        if mirror_map.domain is not domain:
            raise ParameterError(f"mirror_map ({mirror_map!r}) must be built on the domain passed ({domain!r})")
        return mirror_map
    name = validate.choice("mirror_map", mirror_map, tuple(mirror_maps.MIRROR_MAPS))
    return mirror_maps.MIRROR_MAPS[name](domain)


@dataclass(frozen=True, kw_only=True, eq=False)
class AcceleratedMirrorDescent(Configured):
    r"""Algorithm 3, DP-AccMD(F, x_0, T, sigma, w), corrected, configured: T, sigma, alpha_k, r_k, before any data.

    Privacy
    -------
    ``wang17.thm_5_3`` (corrected algorithm) via ``wang17.full_batch_calibration``: the T releases
    ``g`` are (epsilon, delta)-DP under replace-one; x, y, z and the output are post-processing.

    Utility
    -------
    ``wang17.thm_5_4``.
    """

    #: The transcript key, the iterate's name and its index offset of the vectors' checkpoints.
    CHECKPOINT: ClassVar[tuple] = ("y", "y", 0)

    ALGORITHM: ClassVar[str] = "wang17.alg_3"
    RESULT: ClassVar[type] = AccMDResult
    USES: ClassVar[tuple[str, ...]] = ("lipschitz", "smoothness")

    mirror_map: mirror_maps.MirrorMap = field(repr=False)
    step_rule: str
    steps: int = quantity("T iterations (line 3)", source="wang17.thm_5_4 steps, or given")
    sigma: float = quantity("noise standard deviation per iteration (line 7)",
                            source="wang17.thm_5_3 sigma (wang17.full_batch_calibration)")
    y_step_smoothness: float = quantity("L ||C||_2^2, the coefficient of line 6", source="wang17.alg_3")
    alphas: np.ndarray = quantity("alpha_{k+1}, k = 0..T-1 (line 4)", source="wang17.alg_3 alpha / alpha_printed")
    couplings: np.ndarray = quantity("r_k = 2/(k+2) (line 4)", source="wang17.alg_3 coupling")

    @classmethod
    def configure(cls, *, loss, domain, n: int, epsilon: float, delta: float, steps: int | None = None,
                  mirror_map="squared_l2", step_rule: str = "reconstructed", initial_divergence: float | None = None,
                  allow_unproven: bool = False) -> "AcceleratedMirrorDescent":
        r"""Configure Algorithm 3 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            G-Lipschitz and L-smooth on C (declared constants; L > 0).
        domain : L2Ball (centred at 0) or L1Ball
            The centrally symmetric C (``x_0 = 0``, its centre).
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            The target budget.
        steps : int, optional
            T; by default Theorem 5.4's ``steps`` with the domain's Gaussian width and the initial
            divergence bound.
        mirror_map : {"squared_l2", "p_norm"} or MirrorMap
            The distance-generating function w (``reference.wang17.mirror_maps``); ``"p_norm"`` is for the
            l1 ball.
        step_rule : {"reconstructed", "printed"}
            alpha_{k+1} with ``L ||C||_2^2`` (the default, reconstructed) or the printed ``L``.
        initial_divergence : float, optional
            A public bound on ``B_w(x*, x_0)`` for the default T; by default the mirror map's
            ``sup_{x in C} B_w(x, 0)``.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        AcceleratedMirrorDescent
        """
        mirror_maps.check_domain(domain)
        check_setting(loss=loss, domain=domain, convex=True)
        n = minimum_records(n, cls.ALGORITHM)
        w = _mirror(mirror_map, domain)
        alpha_name = STEP_RULES[validate.choice("step_rule", step_rule, tuple(STEP_RULES))]
        c = loss.constants
        lip, smooth = c.lipschitz, c.smoothness
        if not (c.smooth and smooth > 0):
            raise AssumptionError(f"loss smoothness ({smooth!r}) must be finite and > 0 (L of wang17 Algorithm 3)")
        diam = domain.diameter
        given = steps
        if steps is None:
            width = domain.gaussian_width()[0]
            bw = w.max_divergence if initial_divergence is None else validate.positive("initial_divergence",
                                                                                       initial_divergence)
            steps = _spec.THM_5_4.evaluate("steps", smoothness=smooth, diameter=diam, initial_divergence=bw, n=n,
                                           epsilon=epsilon, lipschitz=lip, delta=delta, gaussian_width=width)
        T = validate.positive_integer("steps", steps)
        sigma = _spec.THM_5_3.evaluate("sigma", lipschitz=lip, n=n, steps=T, epsilon=epsilon, delta=delta)
        M = _spec.ALG_3.evaluate("y_step_smoothness", smoothness=smooth, diameter=diam)
        alphas = np.array([_spec.ALG_3.evaluate(alpha_name, step=t, steps=T, smoothness=smooth, diameter=diam)
                           for t in range(1, T + 1)])
        couplings = np.array([_spec.ALG_3.evaluate("coupling", step=t, steps=T, smoothness=smooth, diameter=diam)
                              for t in range(1, T + 1)])
        notes = []
        if given is None and T == 1:
            notes.append("T = 1: Theorem 5.4's default T is one iteration at these values (one noisy gradient "
                         "step from the centre of C); --steps sets T (sigma is calibrated for the T you give).")
        mirror_name = mirror_map if isinstance(mirror_map, str) else type(mirror_map).__name__
        return cls(loss=loss, domain=domain, n=n, p=domain.dim, epsilon=float(epsilon), delta=float(delta),
                   options={"steps": given, "mirror_map": mirror_name, "step_rule": step_rule,
                            "initial_divergence": initial_divergence},
                   spec_ids=SPEC_IDS, flags=() if mirror_name == "squared_l2" else ("p-norm-mirror-map",),
                   notes=tuple(notes), allow_unproven=allow_unproven, mirror_map=w, step_rule=step_rule, steps=T,
                   sigma=sigma, y_step_smoothness=M, alphas=alphas, couplings=couplings)._finish()

    def privacy_record(self) -> str:
        return "wang17.thm_5_3"

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """One full gradient (n per-example gradients) per iteration and run: ``n T runs``."""
        return int(self.n) * int(self.steps) * int(runs)

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, loss, domain, w, p, T = noise, self.loss, self.domain, self.mirror_map, self.p, self.steps
        sigma, M, alphas, couplings = self.sigma, self.y_step_smoothness, self.alphas, self.couplings
        keep = transcript is True
        if keep:
            hist = {k: np.empty((T, runs, p)) for k in ("g", "x", "y", "z")}
        # [wang17 Alg.3 L1] B_w(y, x) = w(y) - <grad w(x), y - x> - w(x): the mirror map w
        # [wang17 Alg.3 L2] y_0 = z_0 = x_0 (the centre of C)
        y = np.zeros((runs, p))
        z = np.zeros((runs, p))
        # [wang17 Alg.3 L3] for k = 0, ..., T - 1 do
        for k in range(T):
            # [wang17 Alg.3 L4] alpha_{k+1} and r_k = 1/(2 alpha_{k+1} L) = 2/(k+2) (precomputed from the record)
            alpha, r = alphas[k], couplings[k]
            # [wang17 Alg.3 L5] x_{k+1} = r_k z_k + (1 - r_k) y_k
            x = r * z + (1.0 - r) * y
            # [wang17 Alg.3 L7] b_{k+1} ~ N(0, sigma^2 I_p): one draw per iteration
            b = sigma * src.normal(LABEL_NOISE, (runs, p))
            g = loss.total_gradient(x, rows, normalisation="average", check=False) + b
            # [wang17 Alg.3 L6] y_{k+1} = argmin_{y in C} {L ||C||^2/2 ||y - x_{k+1}||_C^2 + <g, y - x_{k+1}>}, the noisy g
            y = mirror_maps.gradient_step(domain, x, g, M)
            # [wang17 Alg.3 L7] z_{k+1} = argmin_{z in C} {B_w(z, z_k) + alpha_{k+1} <g, z - z_k>}, the same g
            z = w.step(z, g, alpha)
            if keep:
                for key, val in (("g", g), ("x", x), ("y", y), ("z", z)):
                    hist[key][k] = val
            elif transcript is not None:
                transcript(k + 1, {"g": g.copy(), "x": x.copy(), "y": y.copy(), "z": z.copy()})
            progress(k + 1, T)
        # [wang17 Alg.3 L8] end for
        # [wang17 Alg.3 L9] return y_T
        return dict(theta=y, sigma=sigma, steps=T, alphas=alphas, couplings=couplings, y_step_smoothness=M,
                    mirror_map=w, z=z, transcript=hist if keep else None)


def dp_accmd(data, *, loss, domain, epsilon, delta, steps=None, mirror_map="squared_l2", step_rule="reconstructed",
             initial_divergence=None, runs=1, rng: RngLike = None, noise=None, transcript=None) -> AccMDResult:
    r"""Algorithm 3, DP-AccMD: :meth:`AcceleratedMirrorDescent.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Rows within the loss's declared bounds, n >= 2.
    loss, domain, epsilon, delta, steps, mirror_map, step_rule, initial_divergence
        As in :meth:`AcceleratedMirrorDescent.configure`.
    runs, rng, noise
        As everywhere; per iteration the tape gets one ``normal`` entry ``"wang17 Alg.3 L7 b"``
        (shape ``(runs, p)``).
    transcript : callable or True, optional
        ``transcript(t, state)`` after iteration ``t = k + 1`` with ``state = {"g", "x", "y", "z"}``
        (the released ``g`` and the iterates ``x_{k+1}``, ``y_{k+1}``, ``z_{k+1}``); ``True`` stacks them.

    Returns
    -------
    AccMDResult

    Privacy
    -------
    ``wang17.thm_5_3`` (corrected algorithm) via ``wang17.full_batch_calibration``.

    Utility
    -------
    ``wang17.thm_5_4``.
    """
    mirror_maps.check_domain(domain)
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = AcceleratedMirrorDescent.configure(
        loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta, steps=steps, mirror_map=mirror_map,
        step_rule=step_rule, initial_divergence=initial_divergence, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise, transcript=transcript)
