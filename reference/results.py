"""What every reference algorithm returns besides its outputs: the records it used and its seed.

Each algorithm's result type (``reference.bst14.NoiseGDResult``, ...) extends
:class:`AlgorithmResult`, so any result can be asked which spec records its constants came from
and how to reproduce it::

    result = noise_gd(data, ..., rng=None)
    result.theta         # the output, (runs, p), in every algorithm
    result.spec_ids      # ("bst14.alg_1", "bst14.thm_II_1", "bst14.thm_II_4")
    result.configuration # the configured box (reference.configured): its calibration and claim
    again = noise_gd(data, ..., rng=result.seed)    # the same draws, the same outputs
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["AlgorithmResult"]


@dataclass(frozen=True, kw_only=True)
class AlgorithmResult:
    """Fields shared by the results of reference algorithms.

    Attributes
    ----------
    theta : ndarray, shape (runs, p)
        The output of every run (each result type declares it).
    spec_ids : tuple of str
        Ids of the spec records whose formulas gave the run's constants (noise scale, step sizes,
        iteration count) and whose claims it carries.
    seed : int or None
        ``rng=seed`` reproduces the run: the integer seed given, or the entropy drawn when
        ``rng=None``. ``None`` when the draws came from a tape (``noise=``; the tape reproduces
        it) or from a caller-owned Generator (its state does).
    configuration : reference.configured.Configured or None
        The configured box that produced the run (every calibrated quantity, the claim's
        certificate, the flags): ``result.configuration.describe()``.
    """

    spec_ids: tuple[str, ...] = ()
    seed: int | None = None
    configuration: object = field(default=None, repr=False, compare=False)
