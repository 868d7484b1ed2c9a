"""What wang19's four algorithms share: the random-iterate result, the start point, the step count,
the Gaussian widths of the constraint sets, the noise calibration and the transcript.

Every constant here is a :mod:`spec.wang19` formula evaluated from public values (the loss's declared
constants, the domain's geometry, ``n``, ``p`` and the budget), never from the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, ClassVar, Literal

import numpy as np

from reference.arrays import ArrayLike
from reference.configured import Configured, quantity
from reference.domains import Box, Domain, L1Ball, L2Ball, Simplex
from spec import validate
from spec import wang19 as _spec
from spec.errors import AssumptionError, ParameterError

__all__ = ["require_tuning_inputs", "Transcript", "RandomIterateResult", "RandomIterateBox", "start_point", "gaussian_width", "l1_diameter", "noise_sigma", "Trajectory",
           "check_steps", "check_transcript"]


#: What every ``transcript=`` keyword accepts: a callable ``transcript(t, state)``, ``True`` (stack the
#: released quantities on the result) or ``None``.
Transcript = Callable[[int, dict], object] | Literal[True] | None


@dataclass(frozen=True)
class RandomIterateResult:
    """Fields of every wang19 result (mixed into each algorithm's result type).

    Attributes
    ----------
    theta : ndarray, shape (runs, p)
        The output ``x_R`` of every run (also :attr:`x`, the paper's name).
    index : ndarray of int, shape (runs,)
        ``R``, uniform on ``{1, ..., T}`` and independent of the data.
    x_next : ndarray, shape (runs, p)
        ``x_{R+1}`` (the gradient mapping ``(x_R - x_{R+1})/gamma`` of Theorems 2 and 5 needs it).
    steps : int
        ``T``.
    learning_rate : float
        ``gamma`` (the same at every step).
    x_1 : ndarray, shape (runs, p)
        The start point.
    transcript : dict or None
        With ``transcript=True``: the released quantity of every step and the iterates ``x_2, ...,
        x_{T+1}``, arrays with a leading axis of ``T`` (see each algorithm).
    """

    theta: np.ndarray
    index: np.ndarray
    x_next: np.ndarray = field(repr=False)
    steps: int
    learning_rate: float
    x_1: np.ndarray = field(repr=False)
    transcript: dict | None = field(default=None, repr=False)

    @property
    def x(self) -> np.ndarray:
        """``x_R``, the paper's name of :attr:`theta`."""
        return self.theta


@dataclass(frozen=True, kw_only=True, eq=False)
class RandomIterateBox(Configured):
    """What wang19's four configured boxes share: T, gamma, the public start point, the random output
    index R, and notes on a theorem default of T = 1."""

    #: The transcript key, the iterate's name and its index offset of the vectors' checkpoints.
    CHECKPOINT: ClassVar[tuple] = ("x", "x", 1)

    CONVEX: ClassVar[bool] = False
    USES: ClassVar[tuple[str, ...]] = ("lipschitz", "smoothness")

    x_1: np.ndarray = quantity("the public start point x_1", source="domain.interior_point() or given")
    steps: int = quantity("T steps; the output is x_R, R uniform on {1, ..., T}", source="")
    learning_rate: float = quantity("gamma, the same at every step", source="")

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """One full gradient (n per-example gradients) per step and run: ``n T runs``."""
        return int(self.n) * int(self.steps) * int(runs)

    @staticmethod
    def default_notes(rule: int | str | None, steps: int, record: str) -> tuple[str, ...]:
        if isinstance(rule, str) and steps == 1:
            return (f"T = 1: {record}'s steps rule {rule!r} gives one step at these values (n epsilon is small "
                    "against the dimension), so x_R = x_1 or x_2 and the output is mostly the start point; --steps "
                    "sets T (sigma is calibrated for the T you give).",)
        return ()


def start_point(domain: Domain, x_1: ArrayLike | None, *, runs: int) -> np.ndarray:
    """``x_1`` as a ``(runs, p)`` array: the domain's interior point by default; a given point must be
    finite and lie in C (it is public)."""
    p = domain.dim
    if x_1 is None:
        return np.broadcast_to(np.asarray(domain.interior_point(), dtype=np.float64), (runs, p)).copy()
    x = np.asarray(x_1, dtype=np.float64)
    if x.shape not in ((p,), (runs, p)):
        raise ParameterError(f"x_1 (shape {x.shape}) must have shape ({p},) or ({runs}, {p})")
    if not np.all(np.isfinite(x)):
        raise ParameterError("x_1 (non-finite entries) must be finite")
    x = np.broadcast_to(x, (runs, p)).copy()
    if not np.all(domain.contains(x)):
        raise ParameterError(f"x_1 ({np.asarray(x_1).tolist()}) must lie in the domain {domain!r}")
    return x


def gaussian_width(domain: Domain) -> float:
    """``G_C`` from ``wang19.def_8``: the l2 ball, the l1 ball, the scaled simplex (the probability
    simplex's width times the scale: the width is linear in C) and the box (its formula at the
    l-infinity diameter: exact for cubes, an upper bound for other boxes)."""
    p = domain.dim
    if isinstance(domain, L2Ball):
        return _spec.DEF_8.evaluate("width_l2_ball", diameter=domain.diameter, dimension=p)
    if isinstance(domain, L1Ball):
        return _spec.DEF_8.evaluate("width_l1_ball", l1_diameter=2.0 * domain.radius, dimension=p)
    if isinstance(domain, Simplex):
        if p == 1:
            return 0.0
        return domain.scale * _spec.DEF_8.evaluate("width_simplex", dimension=p)
    if isinstance(domain, Box):
        return _spec.DEF_8.evaluate("width_box", linf_diameter=domain.linf_diameter, dimension=p)
    raise ParameterError(
        f"domain ({domain!r}) has no Gaussian-width formula in wang19.def_8 (L2Ball, L1Ball, Simplex, Box); "
        "pass steps and learning_rate that do not need it"
    )


def l1_diameter(domain: Domain) -> float:
    """The l1 diameter ``max_{v, v' in A} ||v - v'||_1`` of the vertex set of an l1 ball (``2r``) or a
    simplex (``2 s``)."""
    if isinstance(domain, L1Ball):
        return 2.0 * domain.radius
    if isinstance(domain, Simplex):
        return 2.0 * domain.scale if domain.dim > 1 else 0.0
    raise ParameterError(f"domain ({domain!r}) must be an L1Ball or a Simplex (the convex hull of a finite A)")


def noise_sigma(*, lipschitz: float, n: int, epsilon: float, delta: float, steps: int, calibration: str) -> float:
    """The per-coordinate noise of Algorithms 1-3 (``wang19.eq_3``; options of ``spec.wang19.sigma``)."""
    return _spec.sigma(lipschitz=lipschitz, n=n, epsilon=epsilon, delta=delta, steps=steps, calibration=calibration)


def check_steps(steps: int | str, choices: tuple[str, ...]) -> int | str:
    """``steps`` is one of the named rules or a public integer ``T >= 1``."""
    if isinstance(steps, str):
        return validate.choice("steps", steps, set(choices))
    return validate.positive_integer("steps", steps)


def check_transcript(transcript: Transcript) -> Transcript:
    if transcript is not None and transcript is not True and not callable(transcript):
        raise TypeError(f"transcript ({type(transcript).__name__}) must be None, True or a callable")
    return transcript


class Trajectory:
    """Keeps ``x_R`` and ``x_{R+1}`` while the loop runs, and the transcript when asked.

    ``R`` is drawn before the loop (it is independent of the data and of the noise, so drawing it
    first changes nothing in law) so that the trajectory need not be stored.
    """

    def __init__(self, x_1: np.ndarray, index: np.ndarray, steps: int, transcript: Transcript, released: str) -> None:
        self.runs = x_1.shape[0]
        self.index = index
        self.x = np.where((index == 1)[:, None], x_1, np.nan)
        self.x_next = np.full_like(x_1, np.nan)
        self.transcript = transcript
        self.released = released
        self.keep = transcript is True
        self.history = {released: [], "x": []} if self.keep else None

    def step(self, t: int, released: np.ndarray, x_next: np.ndarray) -> None:
        """Record step ``t`` (1-based): the released quantity and ``x_{t+1}``."""
        at = self.index == t
        self.x_next[at] = x_next[at]
        self.x[self.index == t + 1] = x_next[self.index == t + 1]
        if self.keep:
            self.history[self.released].append(np.array(released, copy=True))
            self.history["x"].append(x_next.copy())
        elif self.transcript is not None:
            self.transcript(t, {self.released: np.array(released, copy=True), "x": x_next.copy()})

    def stacked(self) -> dict | None:
        if not self.keep:
            return None
        return {k: np.stack(v) for k, v in self.history.items()}

    def check_complete(self) -> None:
        if not (np.all(np.isfinite(self.x)) and np.all(np.isfinite(self.x_next))):  # pragma: no cover
            raise RuntimeError("x_R or x_{R+1} was not recorded (R outside 1..T)")


def cap(value: float) -> float:
    """A step size that is finite and > 0 (the records return it already capped at 1 where they cap)."""
    if not (math.isfinite(value) and value > 0):
        raise ParameterError(f"learning_rate ({value!r}) must be finite and > 0")
    return float(value)


def require_tuning_inputs(initial_gap: float | None, smoothness: float) -> None:
    """The tuned Frank-Wolfe step sizes (Theorems 4 and 6) need a public gap bound and L > 0."""
    if initial_gap is None:
        raise AssumptionError("initial_gap (None) must be a public bound h_0 >= F(x_1) - inf_C F for the tuned rules")
    if not smoothness > 0:
        raise AssumptionError(f"loss smoothness ({smoothness!r}) must be > 0 for the tuned rules (they divide by L)")
