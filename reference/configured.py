"""Configure, then run: the one shape of every algorithm box.

Each algorithm box of the five papers is a frozen class (``reference.bst14.NoiseGD``, ...) built by
its ``configure(...)`` classmethod from public values only: the loss, the domain, the regulariser,
``n``, the privacy target and the box's options -- never the data. The configured object holds
everything the spec records decide (noise scales, T, step sizes, epochs, per-step budgets), the loss
constants it used and where each came from, the spec ids, the certificate of its privacy claim and
the flags that weaken it, and notes on theorem defaults that degenerate. :meth:`Configured.describe`
prints it as a table to read before spending compute. :meth:`Configured.run` checks the data
against the declared bounds and executes only the box's line-tagged loop. The model is OpenDP's
construct-then-invoke measurement::

    gd = NoiseGD.configure(loss=Hinge(feature_norm=1), domain=L2Ball(radius=1, dim=3), n=569,
                           epsilon=1.0, delta=1e-5, schedule="lipschitz")
    print(gd.describe())                 # sigma, T, the learning rates, L and its source, the claim
    result = gd.run(data, runs=10, rng=7)
    result.theta, result.spec_ids, result.seed, result.configuration is gd

A calibration is computed once, when configuring; a run never recomputes one. The papers' old
functions (``noise_gd(data, ...)``) are thin wrappers: configure with the ``n`` of the data (with
``allow_unproven=True``, their historical behaviour), then run. An audit twin whose bug is a
parameter is the configured object with that one field replaced (``dataclasses.replace``).

Notes
-----
A configuration whose claim does not hold (:attr:`Configured.certificate` not proven, e.g. a printed
calibration outside its validity) is refused by ``configure`` with :class:`UnprovenClaimError`,
which names the calibration that does hold; ``allow_unproven=True`` builds it anyway and marks it
(flag ``unproven-claim``), for research only.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

from reference import arrays
from reference.arrays import ArrayLike
from reference.problem import check_problem
from reference.rng import RngLike
from reference.tape import NoiseLike, noise_source
from spec import validate
from spec.errors import AssumptionError, ParameterError

__all__ = [
    "Configured",
    "Constant",
    "Certificate",
    "UnprovenClaimError",
    "quantity",
    "Progress",
    "check_transcript",
    "minimum_records",
    "format_value",
]

#: ``progress(done, total)``: called by a run's loop after each outer step (for a progress bar).
Progress = Callable[[int, int], object]

#: Flag carried by a configuration built with ``allow_unproven=True`` whose claim is not proven.
UNPROVEN_FLAG = "unproven-claim"


class UnprovenClaimError(AssumptionError):
    """The configured claim is not proven for these values (the certificate does not hold)."""


@dataclass(frozen=True)
class Constant:
    """A constant of the loss a configuration used, its value and where it came from."""

    name: str
    value: float
    source: str


@dataclass(frozen=True)
class Certificate:
    """Whether the configured privacy claim is proven, and on what grounds.

    Attributes
    ----------
    claim : str
        The guarantee, e.g. ``"(epsilon = 1, delta = 1e-05)-DP under replace-one"``.
    proven : bool
        True when a spec record's proof or a certified accountant establishes the claim at the
        configured values.
    basis : str
        What establishes it (or shows that it does not hold), with the spec id.
    alternative : str or None
        When not proven: the value of the ``calibration`` option that does hold.
    """

    claim: str
    proven: bool
    basis: str
    alternative: str | None = None


def quantity(meaning: str, *, source: str = "", default: Any = dataclasses.MISSING, shown: bool = True):
    """A field of a configured box that :meth:`Configured.describe` lists: what it means (with the
    pseudocode line) and which record formula gave it."""
    meta = {"meaning": meaning, "source": source, "shown": shown}
    if default is dataclasses.MISSING:
        return field(metadata=meta)
    return field(default=default, metadata=meta)


def check_transcript(transcript):
    """``transcript`` as the loops take it: ``None`` (also for ``False``), ``True`` or a callable."""
    if transcript is None or transcript is False:
        return None
    if transcript is not True and not callable(transcript):
        raise TypeError(f"transcript ({type(transcript).__name__}) must be False, True or a callable")
    return transcript


def minimum_records(n, algorithm: str) -> int:
    """``n`` as every box checks it: an integer ``>= 2`` (neighbouring data sets differ in one of n
    records; with one record there is no data set to protect besides a replaced one, and the
    replace-one sensitivities assume ``n >= 2``)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n ({n!r}) must be an integer")
    n = int(n)
    if n < 2:
        raise ParameterError(f"n ({n}) must be >= 2 ({algorithm}: neighbours differ in one of n >= 2 records)")
    return n


def format_value(value) -> str:
    """A value as the configuration table prints it (floats by repr, arrays abbreviated)."""
    if isinstance(value, np.ndarray):
        if value.size > 6:
            head = ", ".join(format_value(v) for v in value.reshape(-1)[:3])
            return f"[{head}, ...] (shape {value.shape})"
        return repr(value.tolist())
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    if isinstance(value, float):
        return repr(value)
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True, kw_only=True)
class Configured:
    """A configured algorithm box: every calibrated quantity, no data (module docstring).

    Subclasses set :attr:`ALGORITHM`, :attr:`RESULT` and :attr:`USES`, add their calibrated fields
    with :func:`quantity`, and implement ``configure`` (a classmethod), :meth:`gradient_evaluations`
    and :meth:`_loop` (the line-tagged loop). They may override :meth:`_certify`,
    :meth:`check_data` and :meth:`_constants`.

    Attributes
    ----------
    loss, domain, regulariser
        The public inputs (``None`` where the box takes none).
    n, p : int
        Number of records the calibration is for, and the dimension.
    epsilon, delta : float
        The target (``delta = 0`` for pure DP).
    options : dict
        The box's options as configured, defaults written out (what a vector records as its
        parameters).
    spec_ids : tuple of str
        The records whose formulas gave the constants and whose claims the run carries.
    flags : tuple of str
        What qualifies the claim, in vector flag names (``"printed-calibration"``, ...);
        :meth:`all_flags` adds ``"unproven-claim"`` when the certificate does not hold.
    notes : tuple of str
        Theorem defaults that degenerate here (T = 1, a zero step, a floor that binds): what it
        means and which option changes it.
    allow_unproven : bool
        Built although the claim is not proven (research only).
    """

    ALGORITHM: ClassVar[str] = ""
    RESULT: ClassVar[type] = type(None)
    #: Loss constants the box reads (names of ``reference.losses.LossConstants``).
    USES: ClassVar[tuple[str, ...]] = ("lipschitz",)
    #: Whether the box needs a convex loss.
    CONVEX: ClassVar[bool] = True

    loss: Any = None
    domain: Any = None
    regulariser: Any = None
    n: int
    p: int
    epsilon: float
    delta: float = 0.0
    options: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    spec_ids: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=(), repr=False, compare=False)
    allow_unproven: bool = field(default=False, repr=False)

    # ------------------------------------------------------------------------------ the claim

    @cached_property
    def certificate(self) -> Certificate:
        """The certificate of the configured claim (computed once, on first use)."""
        return self._certify()

    def _certify(self) -> Certificate:
        """Default: the box's privacy record proves the claim at every value its assumptions (checked
        when configuring) allow."""
        return Certificate(self.claim(), True, f"{self.privacy_record()}: proven for every value its assumptions "
                                               "allow (checked when configuring)")

    def privacy_record(self) -> str:
        """The spec id whose privacy claim the box carries (the second spec id, else the first)."""
        return self.spec_ids[1] if len(self.spec_ids) > 1 else self.spec_ids[0]

    def claim(self) -> str:
        """The guarantee in words: ``(epsilon = 1.0, delta = 1e-05)-DP under replace-one``."""
        if self.delta:
            return f"(epsilon = {self.epsilon!r}, delta = {self.delta!r})-DP under replace-one"
        return f"epsilon = {self.epsilon!r}-DP under replace-one"

    def _finish(self):
        """The last step of every ``configure``: refuse an unproven claim unless ``allow_unproven``
        (then the certificate is evaluated only when asked for: :meth:`all_flags`, :meth:`describe`)."""
        if self.allow_unproven:
            return self
        cert = self.certificate
        if not cert.proven:
            hint = (f"; calibration {cert.alternative!r} holds (--calibration {cert.alternative})"
                    if cert.alternative else "")
            raise UnprovenClaimError(
                f"{self.ALGORITHM}: the claim {cert.claim} is not proven at these values: {cert.basis}{hint}; "
                "allow_unproven=True (--allow-unproven) runs it anyway, marked unproven")
        return self

    def all_flags(self) -> tuple[str, ...]:
        """:attr:`flags`, plus ``"unproven-claim"`` when the certificate does not hold."""
        return tuple(self.flags) + (() if self.certificate.proven else (UNPROVEN_FLAG,))

    # --------------------------------------------------------------------------- description

    def constants(self) -> tuple[Constant, ...]:
        """The loss constants the box used, with their source."""
        return self._constants()

    def _constants(self) -> tuple[Constant, ...]:
        if self.loss is None or not self.USES:
            return ()
        c = self.loss.constants
        out = []
        for name in self.USES:
            value = getattr(c, name)
            out.append(Constant(name, float(value), f"declared by {self.loss!r} for rows within its bounds"))
        if self.regulariser is not None and "strong_convexity" in self.USES:
            out.append(Constant("regulariser strong_convexity", float(self.regulariser.strong_convexity),
                                f"declared by {self.regulariser!r}"))
        return tuple(out)

    def quantities(self) -> list[tuple[str, Any, str, str]]:
        """``(name, value, meaning, source)`` of every calibrated field (:func:`quantity`)."""
        out = []
        for f in dataclasses.fields(self):
            if "meaning" in f.metadata and f.metadata.get("shown", True):
                out.append((f.name, getattr(self, f.name), f.metadata["meaning"], f.metadata["source"]))
        return out

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """Per-example gradient evaluations (or loss evaluations) of ``runs`` runs: the work."""
        raise NotImplementedError

    def loop_length(self) -> int:
        """The number of steps of the loop (T, or K noisy steps): what rounding errors accumulate over."""
        steps = getattr(self, "steps", None)
        return int(steps) if isinstance(steps, (int, np.integer)) else 1

    def describe(self) -> str:
        """The configuration as a table: the claim and its certificate, the inputs, the constants of
        the loss with their source, every calibrated quantity with its record, the work, the spec
        ids, the flags and the notes."""
        import spec

        record = spec.get(self.ALGORITHM)
        cert = self.certificate
        status = "proven" if cert.proven else "NOT PROVEN (run only with --allow-unproven, marked unproven)"
        lines = [f"{self.ALGORITHM}: {record.citation} -- {record.title} (configured; no data read)",
                 f"claim: {cert.claim}: {status}",
                 f"  basis: {cert.basis}"]
        if cert.alternative and not cert.proven:
            lines.append(f"  calibration that holds: {cert.alternative} (--calibration {cert.alternative})")
        inputs = [("n", self.n), ("p", self.p)]
        for name in ("loss", "regulariser", "domain"):
            if getattr(self, name) is not None:
                inputs.append((name, repr(getattr(self, name))))
        lines.append("inputs: " + "; ".join(f"{k} = {v}" for k, v in inputs))
        constants = self.constants()
        if constants:
            lines.append("constants used:")
            width = max(len(c.name) for c in constants)
            lines += [f"  {c.name:<{width}}  {c.value!r}  ({c.source})" for c in constants]
        rows = self.quantities()
        if rows:
            lines.append("calibration:")
            width = max(len(r[0]) for r in rows)
            values = [format_value(r[1]) for r in rows]
            vwidth = min(max(len(v) for v in values), 24)
            for (name, _, meaning, source), value in zip(rows, values):
                where = f" [{source}]" if source else ""
                lines.append(f"  {name:<{width}}  {value:<{vwidth}}  {meaning}{where}")
        given = {k: v for k, v in self.options.items() if v is not None}
        if given:
            lines.append("options: " + ", ".join(f"{k}={format_value(v)}" for k, v in given.items()))
        lines.append(f"work: {self.gradient_evaluations(runs=1):,} gradient evaluations per run")
        lines.append(f"spec ids: {', '.join(self.spec_ids)}")
        flags = self.all_flags()
        if flags:
            lines.append(f"flags: {', '.join(flags)}")
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)

    def summary(self) -> dict:
        """The configuration as a dict of what ``describe`` prints (write it with :func:`spec.jsonable.strict`)."""
        cert = self.certificate
        return {
            "algorithm": self.ALGORITHM,
            "claim": {"statement": cert.claim, "proven": cert.proven, "basis": cert.basis,
                      "alternative": cert.alternative},
            "n": self.n, "p": self.p, "epsilon": self.epsilon, "delta": self.delta,
            "loss": None if self.loss is None else repr(self.loss),
            "regulariser": None if self.regulariser is None else repr(self.regulariser),
            "domain": None if self.domain is None else repr(self.domain),
            "constants": [{"name": c.name, "value": c.value, "source": c.source} for c in self.constants()],
            "calibration": {name: value for name, value, _, _ in self.quantities()},
            "options": dict(self.options),
            "gradient_evaluations_per_run": int(self.gradient_evaluations(runs=1)),
            "spec_ids": list(self.spec_ids), "flags": list(self.all_flags()), "notes": list(self.notes),
        }

    # ---------------------------------------------------------------------------------- running

    def check_data(self, data: ArrayLike) -> np.ndarray:
        """The rows as the loop uses them: within the loss's declared bounds (rejected, never
        clipped), of dimension p, and exactly the ``n`` records the calibration is for."""
        rows, n, _ = check_problem(data, loss=self.loss, domain=self.domain, convex=self.CONVEX)
        self._check_n(n)
        return rows

    def _check_n(self, n: int) -> None:
        if n != self.n:
            raise ParameterError(f"data ({n} rows) must have the n ({self.n}) this {self.ALGORITHM} was configured "
                                 "for: its calibration depends on n")

    def run(self, data: ArrayLike, *, runs: int = 1, rng: RngLike = None, noise: NoiseLike = None,
            transcript: bool | Callable = False, progress: Progress | None = None):
        """Run the configured box on ``data``: check the data, then the line-tagged loop only.

        Parameters
        ----------
        data : array_like, shape (n, k)
            The ``n`` records the configuration is for, within the loss's declared bounds.
        runs : int
            Independent executions on the same data (a leading axis of every state).
        rng, noise
            Randomness: a seed or Generator, or a noise source (a :class:`~reference.tape.Replay`
            of a tape, a :class:`~reference.tape.Recorder`); see :func:`reference.tape.noise_source`.
        transcript : bool or callable
            ``True`` stacks the released per-step quantities on the result; a callable
            ``transcript(t, state)`` is called after every step (the audits' transcript hook).
        progress : callable, optional
            ``progress(done, total)`` after every outer step (the command line's progress line).

        Returns
        -------
        The box's result: ``theta`` (runs, p), ``spec_ids``, ``seed`` and ``configuration`` (this
        object), with the box's own fields.
        """
        rows = self.check_data(data)
        runs = arrays.runs(runs)
        transcript = check_transcript(transcript)
        src = noise_source(rng=rng, noise=noise)
        fields = self._loop(rows, runs=runs, noise=src, transcript=transcript,
                            progress=progress if progress is not None else _silent)
        return self.RESULT(**fields, spec_ids=tuple(self.spec_ids), seed=src.seed, configuration=self)

    def _loop(self, rows: np.ndarray, *, runs: int, noise, transcript, progress: Progress) -> dict:
        """The box's line-tagged loop: the result's fields (without spec_ids, seed, configuration)."""
        raise NotImplementedError


def _silent(done: int, total: int) -> None:
    return None
