"""Selection mechanisms over candidates scored by column sums: the exponential mechanism and report-noisy-max.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from reference import samplers
from reference.arrays import ArrayLike
from reference.mechanisms.base import Mechanism, _check_norms, _records
from spec import exponential as spec_exponential
from spec import profiles as spec_profiles
from spec import validate
from spec.errors import DataBoundError, ParameterError
from spec.record import Neighbouring

# --------------------------------------------------------------------------------------------
# selection mechanisms over a finite set of candidates
# --------------------------------------------------------------------------------------------


class _Selection(Mechanism):
    """Scores ``u(D, r) = sum_i d_{i r}`` with every entry in ``[0, score_bound]``."""

    def _init_scores(self, score_bound, candidates, relation):
        self.score_bound = validate.positive("score_bound", score_bound)
        self.candidates = validate.integer("candidates", candidates, minimum=2)
        self.relation = Neighbouring.parse(relation)
        # Entries in [0, B]: each score moves by at most B under either relation.
        self.sensitivity = self.score_bound

    def scores(self, data: ArrayLike) -> np.ndarray:
        """Column sums after checking every entry is in ``[0, score_bound]``: shape ``(candidates,)``."""
        rows = _records(data, self.candidates)
        low = rows.min(axis=1) if rows.size else np.zeros(0)
        _check_norms(rows.max(axis=1) if rows.size else np.zeros(0), self.score_bound,
                     "largest score", "score_bound")
        if (low < 0).any():
            row = int(np.argwhere(low < 0)[0, 0])
            raise DataBoundError(
                f"row {row} has a score {float(low[row])!r} < 0; scores must be in [0, score_bound] "
                f"({self.score_bound!r}); data is rejected, never clipped"
            )
        return rows.sum(axis=0)

    def _index_outputs(self, outputs) -> np.ndarray:
        arr = np.asarray(outputs)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise ParameterError(f"outputs (shape {arr.shape}) must have shape (runs,)")
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind != "f" or not np.all(arr == np.round(arr)):
                raise TypeError(f"outputs must be candidate indices (integers), got dtype {arr.dtype}")
        idx = arr.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.candidates):
            raise ParameterError(f"outputs must be indices in [0, {self.candidates})")
        return idx

    def logpdf(self, data: ArrayLike, outputs: ArrayLike) -> np.ndarray:
        """Log probability of each selected index given ``data``: shape ``(runs,)``."""
        return self.logpmf(data)[self._index_outputs(outputs)]

    def pmf(self, data: ArrayLike) -> np.ndarray:
        """Selection probabilities, shape ``(candidates,)``."""
        return np.exp(self.logpmf(data))


class ExponentialSelection(_Selection):
    r"""The exponential mechanism on the column-sum scores, sampled exactly (Gumbel-max).

    Parameters
    ----------
    coefficient : float
        ``c >= 0``: index ``r`` is chosen with probability proportional to ``exp(c u(D, r))``.
    score_bound : float
        Bound ``B`` on every entry of a record (entries in ``[0, B]``); the score sensitivity is
        ``B``.
    candidates : int
        Number of candidates (columns of a record), ``>= 2``.
    relation : Neighbouring or str
        Default replace-one.

    Notes
    -----
    Tape: one ``gumbel`` entry of shape ``(runs, candidates)`` labelled
    ``"exponential mechanism"`` (:class:`reference.samplers.ExponentialMechanism`).

    Privacy
    -------
    ``exponential.textbook``: epsilon-DP with ``c = epsilon / (2 B)``.
    """

    def __init__(self, *, coefficient: float, score_bound: float, candidates: int,
                 relation: Neighbouring | str = "replace-one") -> None:
        self._init_scores(score_bound, candidates, relation)
        self.coefficient = validate.nonnegative("coefficient", coefficient)
        self._law = samplers.ExponentialMechanism(coefficient=self.coefficient)
        self._set_name(f"ExponentialSelection(coefficient={self.coefficient:.6g}, "
                       f"sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon: float, score_bound: float, candidates: int,
                   relation: Neighbouring | str = "replace-one") -> "ExponentialSelection":
        """Coefficient ``spec.exponential.exponent_textbook(epsilon, sensitivity=score_bound)``.

        Privacy
        -------
        ``exponential.textbook``: epsilon-DP.
        """
        c = spec_exponential.exponent_textbook(epsilon=epsilon, sensitivity=score_bound)
        mech = cls(coefficient=c, score_bound=score_bound, candidates=candidates, relation=relation)
        mech._claim(float(epsilon), 0.0)
        return mech

    def _release(self, data, runs, source):
        s = self.scores(data)
        return self._law.rvs(s, size=(runs,), noise=source, label="exponential mechanism")

    def logpmf(self, data: ArrayLike) -> np.ndarray:
        return np.asarray(self._law.logpmf(self.scores(data)))

    def exact_distribution(self, data: ArrayLike) -> tuple:
        """The output distribution in mpmath (50 digits): :func:`spec.exponential.output_distribution`."""
        return spec_exponential.output_distribution(self.scores(data).tolist(), coefficient=self.coefficient)

    def pair_profile(self, dataset: ArrayLike, neighbour: ArrayLike) -> Callable[[float], float]:
        """Exact profile of this mechanism on one pair: ``max(E_eps(p || q), E_eps(q || p))``.

        ``p``, ``q`` are the exact output distributions on the two datasets
        (:func:`spec.exponential.exact_discrete_profile` in both orders).
        """
        p = self.exact_distribution(dataset)
        q = self.exact_distribution(neighbour)
        forward = spec_exponential.exact_discrete_profile(p, q)
        backward = spec_exponential.exact_discrete_profile(q, p)

        def delta_of_epsilon(epsilon) -> float:
            return max(forward(epsilon), backward(epsilon))

        delta_of_epsilon.__doc__ = "Exact delta(epsilon) of the exponential mechanism on one pair (both orders)."
        return delta_of_epsilon

    def profile(self) -> Callable[[float], float]:
        """The profile implied by the epsilon-DP claim (needs a calibrated mechanism)."""
        if self.epsilon is None:
            raise ParameterError("profile of a selection mechanism needs its claim: use .calibrated, "
                                 "or pair_profile for one pair")
        return spec_profiles.pure_dp_profile(self.epsilon)


class ReportNoisyMaxSelection(_Selection):
    r"""Report noisy max: ``argmax_r u(D, r) + scale * L_r``, ``L_r`` i.i.d. standard Laplace.

    Parameters
    ----------
    scale : float
        Laplace scale, ``> 0``.
    score_bound, candidates, relation
        As in :class:`ExponentialSelection`.

    Notes
    -----
    Tape: one ``laplace`` entry of shape ``(runs, candidates)`` labelled ``"report noisy max"``.
    ``logpmf`` is computed by quadrature (:class:`reference.samplers.ReportNoisyMax`) and cached
    per score vector.

    Privacy
    -------
    ``report_noisy_max.laplace``: epsilon-DP with ``scale = 2 B / epsilon``; under add/remove
    the scores are monotone (every score moves the same way), and ``B / epsilon`` suffices.
    """

    def __init__(self, *, scale: float, score_bound: float, candidates: int,
                 relation: Neighbouring | str = "replace-one") -> None:
        self._init_scores(score_bound, candidates, relation)
        self.scale = validate.positive("scale", scale)
        self._law = samplers.ReportNoisyMax(scale=self.scale)
        self._cache: dict = {}
        self._set_name(f"ReportNoisyMaxSelection(scale={self.scale:.6g}, sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon: float, score_bound: float, candidates: int,
                   relation: Neighbouring | str = "replace-one") -> "ReportNoisyMaxSelection":
        """Scale ``spec.exponential.report_noisy_max_scale(epsilon, sensitivity=score_bound,
        monotone=(relation is add/remove-one))``.

        Privacy
        -------
        ``report_noisy_max.laplace``: epsilon-DP.
        """
        monotone = Neighbouring.parse(relation) is Neighbouring.ADD_REMOVE_ONE
        scale = spec_exponential.report_noisy_max_scale(epsilon=epsilon, sensitivity=score_bound,
                                                        monotone=monotone)
        mech = cls(scale=scale, score_bound=score_bound, candidates=candidates, relation=relation)
        mech._claim(float(epsilon), 0.0)
        return mech

    def _release(self, data, runs, source):
        s = self.scores(data)
        return self._law.rvs(s, size=(runs,), noise=source, label="report noisy max")

    def logpmf(self, data: ArrayLike) -> np.ndarray:
        s = self.scores(data)
        key = s.tobytes()
        if key not in self._cache:
            self._cache[key] = np.asarray(self._law.logpmf(s))
        return self._cache[key].copy()

    def profile(self) -> Callable[[float], float]:
        """The profile implied by the epsilon-DP claim (needs a calibrated mechanism)."""
        if self.epsilon is None:
            raise ParameterError("profile of a selection mechanism needs its claim: use .calibrated")
        return spec_profiles.pure_dp_profile(self.epsilon)
