r"""The primitive mechanisms, batched: what the privacy audits run.

Every mechanism here is a callable object with the audit harness's signature

    mechanism(data, runs, rng=None, *, noise=None) -> ndarray with leading axis runs

(``rng`` may be passed positionally, as :func:`audits.audit_privacy` does; ``noise=`` takes a
:class:`reference.tape.NoiseSource` to record or replay the draws), a ``logpdf(data,
outputs)`` giving the exact log density (or log probability) of each output where the law is
known, and a ``profile()`` giving the privacy profile ``delta(epsilon)`` that its noise
guarantees at its declared sensitivity.

Each class is configured by its noise parameter (``sigma``, ``scale``, ``rate``,
``coefficient``), like the laws in :mod:`reference.samplers`. The classmethod ``calibrated``
takes a privacy claim instead and evaluates the noise parameter from the spec record (never
retyped); the claim is kept on the object (``epsilon``, ``delta``; ``None`` for an object
built from a raw noise parameter).

Data and queries
----------------
A dataset is a float array of shape ``(n, k)``, one record per row. The value mechanisms
release the **sum query** ``q(D) = sum_i d_i`` (shape ``(k,)``) plus noise; the records must
lie in a declared norm ball (l2 for the Gaussian and radial mechanisms, l1 for Laplace) of
radius ``data_norm``. The selection mechanisms read a record as one score per candidate, each
in ``[0, score_bound]``, and score candidate ``r`` by the column sum ``u(D, r) = sum_i
d_{i r}``. Records outside the declared bounds raise :class:`spec.errors.DataBoundError`
(never clipped); as in :mod:`reference.losses`, norms are compared with a relative tolerance
of ``BOUND_TOLERANCE`` (1e-12), a factor the sensitivities then hold up to.

Sensitivities (:func:`sum_sensitivity`)
---------------------------------------
For a sum of records of norm at most ``R``: replacing one record moves the sum by
``||d - d'|| <= 2R``; adding or removing one moves it by ``||d|| <= R``. So the sum query has
sensitivity ``2R`` under replace-one and ``R`` under add/remove-one, in whichever norm bounds
the records. For scores in ``[0, B]`` each score moves by at most ``B`` under either relation
(a difference of two values in ``[0, B]``, or one such value), so ``Delta_u = B``; under
add/remove every score moves in the same direction (monotone scores).

Mechanisms
----------
:class:`GaussianMechanism`        ``q(D) + N(0, sigma^2 I_k)``; ``gaussian.analytic`` or
                                  ``gaussian.classic``.
:class:`LaplaceMechanism`         ``q(D) + Lap(scale)^k``; ``laplace.mechanism`` (l1).
:class:`RadialLaplaceMechanism`   ``q(D) + b``, density of ``b`` proportional to
                                  ``exp(-rate ||b||_2)``; ``profiles.radial_laplace``.
:class:`ExponentialSelection`     index ``r`` with probability proportional to
                                  ``exp(coefficient u(D, r))``; ``exponential.textbook``.
:class:`ReportNoisyMaxSelection`  ``argmax_r u(D, r) + Lap(scale)``; ``report_noisy_max.laplace``.
:class:`NoisyGradientDescent`     full-batch gradient descent releasing
                                  ``grad + N(0, sigma^2 I)`` at each of ``steps`` steps;
                                  ``gaussian.analytic`` composed over the steps.

Floating point
--------------
These are references for the real-valued mechanisms, not hardened releases. Their outputs are
floating-point sums, and the low-order bits of ``q(D) + noise`` depend on ``q(D)``: for the
Laplace mechanism this breaks eps-DP outright (Mironov 2012, "On significance of the least
significant bits for differential privacy"), and the audit's default log-likelihood-ratio
statistic finds it (``audits/test_primitives.py::test_float_laplace_low_bits_are_flagged``).
Audits of the real-valued claims use statistics blind to the last bits (threshold events on
the value). A deployment needs snapping or exact discrete noise.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

import numpy as np
from scipy import special

from reference import losses as _losses
from reference import samplers
from reference.tape import noise_source
from spec import exponential as spec_exponential
from spec import gaussian as spec_gaussian
from spec import laplace as spec_laplace
from spec import profiles as spec_profiles
from spec import validate
from spec.errors import DataBoundError, ParameterError
from spec.record import Neighbouring

__all__ = [
    "BOUND_TOLERANCE",
    "sum_sensitivity",
    "GaussianMechanism",
    "LaplaceMechanism",
    "RadialLaplaceMechanism",
    "ExponentialSelection",
    "ReportNoisyMaxSelection",
    "NoisyGradientDescent",
]

#: Relative tolerance of the norm checks (the one :mod:`reference.losses` uses).
BOUND_TOLERANCE = _losses.BOUND_TOLERANCE

_OUTPUTS = ("last", "random", "transcript")


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------


def _relation(relation) -> Neighbouring:
    if isinstance(relation, Neighbouring):
        return relation
    if isinstance(relation, str):
        text = relation.strip().lower().replace("_", "-")
        if text in ("add-remove-one", "add/remove-one"):
            return Neighbouring.ADD_REMOVE_ONE
        if text == "replace-one":
            return Neighbouring.REPLACE_ONE
        raise ParameterError(f"relation ({relation!r}) must be one of 'replace-one', 'add/remove-one'")
    raise TypeError(f"relation ({relation!r}) must be a spec.record.Neighbouring or a string")


def sum_sensitivity(*, data_norm, relation="replace-one") -> float:
    """Sensitivity of the sum of records of norm at most ``data_norm``.

    Parameters
    ----------
    data_norm : float
        Bound ``R > 0`` on every record's norm (in the norm the sensitivity is wanted in).
    relation : Neighbouring or str
        ``replace-one`` (``2R``) or ``add/remove-one`` (``R``).

    Returns
    -------
    float
        Exact in floating point (a multiplication by 1 or 2).
    """
    r = validate.positive("data_norm", data_norm)
    rel = _relation(relation)
    return 2.0 * r if rel is Neighbouring.REPLACE_ONE else r


def _runs(runs) -> int:
    return validate.integer("runs", runs, minimum=0)


def _dim(dim) -> int:
    return validate.positive_integer("dim", dim)


def _records(data, columns: int, name: str = "data") -> np.ndarray:
    arr = np.asarray(data)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim != 2 or arr.shape[1] != columns:
        raise ParameterError(f"{name} (shape {arr.shape}) must have shape (n, {columns})")
    if not np.isfinite(arr).all():
        row = int(np.argwhere(~np.isfinite(arr).all(axis=1))[0, 0])
        raise DataBoundError(f"row {row} of {name} contains nan or inf; data must be finite")
    return arr


def _check_norms(values: np.ndarray, bound: float, quantity: str, bound_name: str) -> None:
    bad = ~(values <= bound * (1.0 + BOUND_TOLERANCE))
    if bad.any():
        row = int(np.argwhere(bad)[0, 0])
        raise DataBoundError(
            f"row {row} has {quantity} = {float(values[row])!r} > {bound_name} ({bound!r}) "
            f"({int(bad.sum())} rows out of bounds); data is rejected, never clipped"
        )


def _l2(rows: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(rows * rows, axis=1)) if rows.size else np.zeros(rows.shape[0])


def _outputs(name: str, outputs, shape_tail: tuple) -> np.ndarray:
    arr = np.asarray(outputs)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    if arr.shape[1:] != shape_tail or arr.ndim != 1 + len(shape_tail):
        raise ParameterError(f"{name} (shape {arr.shape}) must have shape (runs,) + {shape_tail}")
    return arr


class _Mechanism:
    """Common parts: claim attributes, a readable name, the harness call signature."""

    epsilon: float | None = None
    delta: float | None = None

    def _set_name(self, text: str) -> None:
        # audits.privacy names a mechanism by its __qualname__ (reports, progress lines).
        self.__qualname__ = text

    def __repr__(self) -> str:
        return self.__qualname__

    def _claim(self, epsilon, delta) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self._set_name(f"{self.__qualname__} [{epsilon:g}, {delta:g}]")

    def __call__(self, data, runs, rng=None, *, noise=None):
        source = noise_source(rng=rng, noise=noise)
        return self._release(data, _runs(runs), source)

    def _release(self, data, runs, source):  # pragma: no cover - interface
        raise NotImplementedError


# --------------------------------------------------------------------------------------------
# value mechanisms on the sum query
# --------------------------------------------------------------------------------------------


class GaussianMechanism(_Mechanism):
    r"""The Gaussian mechanism on the sum query: ``q(D) + N(0, sigma^2 I_dim)``.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, ``> 0``.
    data_norm : float
        Bound on every record's l2 norm, ``> 0``.
    dim : int
        Number of columns ``k`` of a record (the query's dimension), default 1.
    relation : Neighbouring or str
        Relation the sensitivity is computed for (default replace-one).

    Attributes
    ----------
    sensitivity : float
        l2 sensitivity of the sum query, :func:`sum_sensitivity`.

    Notes
    -----
    Tape: one ``normal`` entry of shape ``(runs, dim)`` labelled ``"gaussian mechanism: noise"``.

    Privacy
    -------
    ``gaussian.analytic``: exactly the profile :meth:`profile` (Balle and Wang), which a
    neighbouring pair whose sums differ by the full sensitivity attains.
    """

    def __init__(self, *, sigma, data_norm, dim=1, relation="replace-one"):
        self.sigma = validate.positive("sigma", sigma)
        self.data_norm = validate.positive("data_norm", data_norm)
        self.dim = _dim(dim)
        self.relation = _relation(relation)
        self.sensitivity = sum_sensitivity(data_norm=self.data_norm, relation=self.relation)
        self._law = samplers.Gaussian(scale=self.sigma, dim=self.dim)
        self._set_name(f"GaussianMechanism(sigma={self.sigma:.6g}, sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon, delta, data_norm, dim=1, relation="replace-one",
                   calibration="analytic") -> "GaussianMechanism":
        """The mechanism with sigma for an (epsilon, delta) claim.

        Parameters
        ----------
        epsilon, delta : float
            The claim.
        data_norm, dim, relation
            As in the constructor.
        calibration : {"analytic", "classic"}
            ``analytic``: :func:`spec.gaussian.analytic_sigma` (any epsilon); ``classic``:
            :func:`spec.gaussian.classic_sigma` (raises AssumptionError for epsilon >= 1).

        Privacy
        -------
        ``gaussian.analytic`` or ``gaussian.classic``: (epsilon, delta)-DP under ``relation``.
        """
        validate.choice("calibration", calibration, {"analytic", "classic"})
        sens = sum_sensitivity(data_norm=data_norm, relation=relation)
        if calibration == "analytic":
            sigma = spec_gaussian.analytic_sigma(epsilon=epsilon, delta=delta, sensitivity=sens)
        else:
            sigma = spec_gaussian.classic_sigma(epsilon=epsilon, delta=delta, sensitivity=sens)
        mech = cls(sigma=sigma, data_norm=data_norm, dim=dim, relation=relation)
        mech._claim(float(epsilon), float(delta))
        return mech

    def query(self, data) -> np.ndarray:
        """The sum query ``q(D)`` (shape ``(dim,)``) after checking the records' l2 norms."""
        rows = _records(data, self.dim)
        _check_norms(_l2(rows), self.data_norm, "||d||_2", "data_norm")
        return rows.sum(axis=0)

    def _release(self, data, runs, source):
        centre = self.query(data)
        return centre + self._law.rvs((runs,), noise=source, label="gaussian mechanism: noise")

    def logpdf(self, data, outputs) -> np.ndarray:
        """Log density of outputs ``(runs, dim)`` given ``data``: shape ``(runs,)``."""
        y = _outputs("outputs", outputs, (self.dim,))
        return np.atleast_1d(self._law.logpdf(y - self.query(data)))

    def profile(self) -> Callable[[float], float]:
        """Exact profile of this noise at this sensitivity: :func:`spec.gaussian.profile`."""
        return spec_gaussian.profile(sigma=self.sigma, sensitivity=self.sensitivity)


class LaplaceMechanism(_Mechanism):
    r"""The Laplace mechanism on the sum query: ``q(D) + Lap(scale)^dim``.

    Parameters
    ----------
    scale : float
        Laplace scale b, ``> 0``.
    data_norm : float
        Bound on every record's **l1** norm, ``> 0``.
    dim : int
        Number of columns of a record, default 1.
    relation : Neighbouring or str
        Relation the sensitivity is computed for (default replace-one).

    Notes
    -----
    Tape: one ``laplace`` entry of shape ``(runs, dim)`` labelled ``"laplace mechanism: noise"``.

    Privacy
    -------
    ``laplace.mechanism``: epsilon-DP with ``scale = sensitivity / epsilon`` (l1 sensitivity).
    """

    def __init__(self, *, scale, data_norm, dim=1, relation="replace-one"):
        self.scale = validate.positive("scale", scale)
        self.data_norm = validate.positive("data_norm", data_norm)
        self.dim = _dim(dim)
        self.relation = _relation(relation)
        self.sensitivity = sum_sensitivity(data_norm=self.data_norm, relation=self.relation)
        self._law = samplers.Laplace(scale=self.scale, dim=self.dim)
        self._set_name(f"LaplaceMechanism(scale={self.scale:.6g}, sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon, data_norm, dim=1, relation="replace-one") -> "LaplaceMechanism":
        """The mechanism with ``scale = spec.laplace.laplace_scale(epsilon, sensitivity)``.

        Privacy
        -------
        ``laplace.mechanism``: epsilon-DP under ``relation``.
        """
        sens = sum_sensitivity(data_norm=data_norm, relation=relation)
        scale = spec_laplace.laplace_scale(epsilon=epsilon, sensitivity=sens)
        mech = cls(scale=scale, data_norm=data_norm, dim=dim, relation=relation)
        mech._claim(float(epsilon), 0.0)
        return mech

    def query(self, data) -> np.ndarray:
        """The sum query after checking the records' l1 norms."""
        rows = _records(data, self.dim)
        _check_norms(np.sum(np.abs(rows), axis=1), self.data_norm, "||d||_1", "data_norm")
        return rows.sum(axis=0)

    def _release(self, data, runs, source):
        centre = self.query(data)
        return centre + self._law.rvs((runs,), noise=source, label="laplace mechanism: noise")

    def logpdf(self, data, outputs) -> np.ndarray:
        y = _outputs("outputs", outputs, (self.dim,))
        return np.atleast_1d(self._law.logpdf(y - self.query(data)))

    def profile(self) -> Callable[[float], float]:
        """The profile this noise guarantees.

        ``dim == 1``: the exact profile of the scalar mechanism (:func:`spec.laplace.profile`).
        ``dim > 1``: the profile implied by the epsilon-DP claim
        (:func:`spec.profiles.pure_dp_profile`), which needs a calibrated mechanism.
        """
        if self.dim == 1:
            return spec_laplace.profile(scale=self.scale, sensitivity=self.sensitivity)
        if self.epsilon is None:
            raise ParameterError(
                "profile of a Laplace mechanism with dim > 1 is known only through its claim: "
                "build it with LaplaceMechanism.calibrated"
            )
        return spec_profiles.pure_dp_profile(self.epsilon)


class RadialLaplaceMechanism(_Mechanism):
    r"""``q(D) + b`` with density of ``b`` proportional to ``exp(-rate ||b||_2)`` on R^dim.

    Parameters
    ----------
    rate : float
        Coefficient of the norm in the exponent, ``> 0``.
    data_norm : float
        Bound on every record's l2 norm, ``> 0``.
    dim : int
        Number of columns of a record, default 1.
    relation : Neighbouring or str
        Default replace-one.

    Notes
    -----
    Tape: the two entries of :class:`reference.samplers.RadialLaplace` (``gamma`` radius, then
    ``normal`` direction) labelled ``"radial laplace mechanism: ..."``.

    Privacy
    -------
    ``profiles.radial_laplace``: epsilon-DP with ``rate = epsilon / sensitivity`` (l2).
    """

    def __init__(self, *, rate, data_norm, dim=1, relation="replace-one"):
        self.rate = validate.positive("rate", rate)
        self.data_norm = validate.positive("data_norm", data_norm)
        self.dim = _dim(dim)
        self.relation = _relation(relation)
        self.sensitivity = sum_sensitivity(data_norm=self.data_norm, relation=self.relation)
        self._law = samplers.RadialLaplace(rate=self.rate, dim=self.dim)
        self._set_name(f"RadialLaplaceMechanism(rate={self.rate:.6g}, sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon, data_norm, dim=1, relation="replace-one") -> "RadialLaplaceMechanism":
        """The mechanism with ``rate = spec.profiles.radial_laplace_rate(epsilon, sensitivity)``.

        Privacy
        -------
        ``profiles.radial_laplace``: epsilon-DP under ``relation``.
        """
        sens = sum_sensitivity(data_norm=data_norm, relation=relation)
        rate = spec_profiles.radial_laplace_rate(epsilon=epsilon, sensitivity=sens)
        mech = cls(rate=rate, data_norm=data_norm, dim=dim, relation=relation)
        mech._claim(float(epsilon), 0.0)
        return mech

    def query(self, data) -> np.ndarray:
        rows = _records(data, self.dim)
        _check_norms(_l2(rows), self.data_norm, "||d||_2", "data_norm")
        return rows.sum(axis=0)

    def _release(self, data, runs, source):
        centre = self.query(data)
        return centre + self._law.rvs((runs,), noise=source, label="radial laplace mechanism")

    def logpdf(self, data, outputs) -> np.ndarray:
        y = _outputs("outputs", outputs, (self.dim,))
        return np.atleast_1d(self._law.logpdf(y - self.query(data)))

    def profile(self) -> Callable[[float], float]:
        """The profile implied by the epsilon-DP claim (needs a calibrated mechanism)."""
        if self.epsilon is None:
            raise ParameterError(
                "profile of the radial Laplace mechanism is known only through its claim: build it "
                "with RadialLaplaceMechanism.calibrated"
            )
        return spec_profiles.pure_dp_profile(self.epsilon)


# --------------------------------------------------------------------------------------------
# selection mechanisms over a finite set of candidates
# --------------------------------------------------------------------------------------------


class _Selection(_Mechanism):
    """Scores ``u(D, r) = sum_i d_{i r}`` with every entry in ``[0, score_bound]``."""

    def _init_scores(self, score_bound, candidates, relation):
        self.score_bound = validate.positive("score_bound", score_bound)
        self.candidates = validate.integer("candidates", candidates, minimum=2)
        self.relation = _relation(relation)
        # Entries in [0, B]: each score moves by at most B under either relation.
        self.sensitivity = self.score_bound

    def scores(self, data) -> np.ndarray:
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

    def logpdf(self, data, outputs) -> np.ndarray:
        """Log probability of each selected index given ``data``: shape ``(runs,)``."""
        return self.logpmf(data)[self._index_outputs(outputs)]

    def pmf(self, data) -> np.ndarray:
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

    def __init__(self, *, coefficient, score_bound, candidates, relation="replace-one"):
        self._init_scores(score_bound, candidates, relation)
        self.coefficient = validate.nonnegative("coefficient", coefficient)
        self._law = samplers.ExponentialMechanism(coefficient=self.coefficient)
        self._set_name(f"ExponentialSelection(coefficient={self.coefficient:.6g}, "
                       f"sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon, score_bound, candidates, relation="replace-one") -> "ExponentialSelection":
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

    def logpmf(self, data) -> np.ndarray:
        return np.asarray(self._law.logpmf(self.scores(data)))

    def exact_distribution(self, data) -> tuple:
        """The output distribution in mpmath (50 digits): :func:`spec.exponential.output_distribution`."""
        return spec_exponential.output_distribution(self.scores(data).tolist(), coefficient=self.coefficient)

    def pair_profile(self, dataset, neighbour) -> Callable[[float], float]:
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

    def __init__(self, *, scale, score_bound, candidates, relation="replace-one"):
        self._init_scores(score_bound, candidates, relation)
        self.scale = validate.positive("scale", scale)
        self._law = samplers.ReportNoisyMax(scale=self.scale)
        self._cache: dict = {}
        self._set_name(f"ReportNoisyMaxSelection(scale={self.scale:.6g}, sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon, score_bound, candidates, relation="replace-one") -> "ReportNoisyMaxSelection":
        """Scale ``spec.exponential.report_noisy_max_scale(epsilon, sensitivity=score_bound,
        monotone=(relation is add/remove-one))``.

        Privacy
        -------
        ``report_noisy_max.laplace``: epsilon-DP.
        """
        monotone = _relation(relation) is Neighbouring.ADD_REMOVE_ONE
        scale = spec_exponential.report_noisy_max_scale(epsilon=epsilon, sensitivity=score_bound,
                                                        monotone=monotone)
        mech = cls(scale=scale, score_bound=score_bound, candidates=candidates, relation=relation)
        mech._claim(float(epsilon), 0.0)
        return mech

    def _release(self, data, runs, source):
        s = self.scores(data)
        return self._law.rvs(s, size=(runs,), noise=source, label="report noisy max")

    def logpmf(self, data) -> np.ndarray:
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


# --------------------------------------------------------------------------------------------
# noisy gradient descent
# --------------------------------------------------------------------------------------------


class NoisyGradientDescent(_Mechanism):
    r"""Full-batch noisy gradient descent on R^p (no projection).

    ``theta_0`` (public, default 0); for ``t = 1, ..., T``:

        r_t = grad L(theta_{t-1}; D) + N(0, sigma^2 I_p)        (the released noisy gradient)
        theta_t = theta_{t-1} - eta_t r_t

    and the output is ``theta_T`` (``output="last"``), ``theta_R`` with ``R`` uniform on
    ``{1, ..., T}`` and independent of the data (``"random"``, the random-iterate output of
    wang19 Algorithm 1, line 5), or the transcript ``(r_1, ..., r_T)`` (``"transcript"``).

    Parameters
    ----------
    loss : reference.losses.Loss
        A loss whose constants hold on all of R^p (``domain_radius is None``): its Lipschitz
        constant ``L`` bounds every per-example gradient.
    sigma : float
        Noise standard deviation per coordinate and step, ``> 0``.
    steps : int
        ``T >= 1``.
    step_size : float or sequence of float
        ``eta_t > 0``: one value for every step, or ``T`` values.
    dim : int
        Parameter dimension ``p``.
    normalisation : {"sum", "average"}
        Empirical risk as the sum (bst14) or the average of the per-example losses.
    n : int, optional
        Number of records, required for ``"average"`` (the sensitivity is ``2L/n``; the data
        must have ``n`` rows).
    relation : Neighbouring or str
        Default replace-one. ``"average"`` needs replace-one (``n`` is fixed).
    output : {"last", "random", "transcript"}
    theta0 : array_like, optional
        Starting point, shape ``(p,)``; public.

    Attributes
    ----------
    sensitivity : float
        l2 sensitivity of one step's gradient: ``2L`` (sum, replace-one), ``L`` (sum,
        add/remove-one), ``2L/n`` (average, replace-one).

    Notes
    -----
    Tape: per step a ``normal`` entry of shape ``(runs, p)`` labelled ``"noisy gd: step t
    noise"``; with ``output="random"`` then an ``integers`` entry (``high = T``) of shape
    ``(runs,)`` labelled ``"noisy gd: random iterate"``, plus one.

    Exact laws (``logpdf``). The transcript: given ``r_1..r_{t-1}`` the iterate ``theta_{t-1}``
    is fixed, so the density is ``prod_t N(r_t; grad L(theta_{t-1}; D), sigma^2 I)`` for any
    loss. For the linear loss ``l(theta; d) = -<theta, d>`` the gradient ``g = -sum_i d_i``
    (or the average) does not depend on theta, so ``theta_t = theta_0 - S_t g - sum_{s<=t} eta_s
    z_s`` with ``S_t = sum_{s<=t} eta_s``: ``theta_t ~ N(theta_0 - S_t g, sigma^2 Q_t I)``,
    ``Q_t = sum_{s<=t} eta_s^2``; the random iterate is the uniform mixture over ``t``. Other
    losses have no closed-form law for ``"last"``/``"random"``; ``logpdf`` is then ``None``
    (the audit harness falls back to its own statistics).

    Privacy
    -------
    The transcript is the ``T``-fold adaptive composition of Gaussian mechanisms of sensitivity
    ``sensitivity``, exactly ``mu``-GDP with ``mu = sqrt(T) sensitivity / sigma``
    (``gaussian.analytic``, composed by Gaussian DP); ``theta_T`` and ``theta_R`` are
    post-processing (``R`` is data independent). :meth:`profile` returns that profile. For the
    linear loss the last iterate is Gaussian with mean shift ``S_T sensitivity`` and standard
    deviation ``sigma sqrt(Q_T)``, i.e. ``mu_out = S_T sensitivity / (sigma sqrt(Q_T)) <=
    sqrt(T) sensitivity / sigma`` by Cauchy-Schwarz, with equality for a constant step size:
    the last iterate then attains the composed profile (:meth:`output_profile`).
    """

    def __init__(self, *, loss, sigma, steps, step_size, dim, normalisation="sum", n=None,
                 relation="replace-one", output="last", theta0=None):
        if not isinstance(loss, _losses.Loss):
            raise TypeError(f"loss ({loss!r}) must be a reference.losses.Loss")
        if loss.domain_radius is not None:
            raise ParameterError(
                f"loss ({loss!r}) has domain_radius ({loss.domain_radius!r}): its constants hold only on "
                "a ball, and this algorithm does not project; use a loss whose constants hold on R^p"
            )
        self.loss = loss
        self.sigma = validate.positive("sigma", sigma)
        self.steps = validate.positive_integer("steps", steps)
        self.dim = _dim(dim)
        self.normalisation = validate.choice("normalisation", normalisation, {"sum", "average"})
        self.relation = _relation(relation)
        self.output = validate.choice("output", output, set(_OUTPUTS))
        self.step_sizes = self._step_sizes(step_size)
        lipschitz = loss.constants.lipschitz
        if self.normalisation == "average":
            if n is None:
                raise ParameterError("n (None) is required with normalisation 'average'")
            self.n = validate.positive_integer("n", n)
            if self.relation is not Neighbouring.REPLACE_ONE:
                raise ParameterError("normalisation 'average' needs relation replace-one (n must not change)")
            # Replace-one changes one of n gradients, each of norm <= L: ||change|| <= 2L/n.
            self.sensitivity = _up_ratio(2.0 * lipschitz, self.n)
        else:
            self.n = None if n is None else validate.positive_integer("n", n)
            self.sensitivity = 2.0 * lipschitz if self.relation is Neighbouring.REPLACE_ONE else lipschitz
        if not self.sensitivity > 0:
            raise ParameterError(f"loss ({loss!r}) has Lipschitz constant 0: nothing to protect")
        self.theta0 = np.zeros(self.dim) if theta0 is None else self._theta0(theta0)
        self._set_name(f"NoisyGradientDescent(sigma={self.sigma:.6g}, steps={self.steps}, "
                       f"sensitivity={self.sensitivity:g}, output={self.output})")

    # ---- configuration ---------------------------------------------------------------------

    def _step_sizes(self, step_size) -> np.ndarray:
        if np.ndim(step_size) == 0:
            eta = validate.positive("step_size", step_size)
            return np.full(self.steps, eta)
        arr = np.asarray(step_size)
        if arr.dtype == object or arr.dtype.kind not in "iuf":
            raise TypeError(f"step_size must be real numbers, got dtype {arr.dtype}")
        arr = arr.astype(float)
        if arr.shape != (self.steps,):
            raise ParameterError(f"step_size (shape {arr.shape}) must be a number or have shape ({self.steps},)")
        if not (np.isfinite(arr).all() and (arr > 0).all()):
            raise ParameterError("step_size entries must be finite and > 0")
        return arr

    def _theta0(self, theta0) -> np.ndarray:
        t = np.asarray(theta0, dtype=float)
        if t.shape != (self.dim,) or not np.isfinite(t).all():
            raise ParameterError(f"theta0 (shape {t.shape}) must be a finite vector of shape ({self.dim},)")
        return t.copy()

    @classmethod
    def calibrated(cls, *, epsilon, delta, loss, steps, step_size, dim, normalisation="sum", n=None,
                   relation="replace-one", output="last", theta0=None) -> "NoisyGradientDescent":
        """sigma from :func:`spec.gaussian.analytic_sigma` with ``steps`` composed releases.

        Privacy
        -------
        ``gaussian.analytic`` composed over ``steps`` (Gaussian DP): (epsilon, delta)-DP for the
        transcript, hence for every output.
        """
        probe = cls(loss=loss, sigma=1.0, steps=steps, step_size=step_size, dim=dim,
                    normalisation=normalisation, n=n, relation=relation, output=output, theta0=theta0)
        sigma = spec_gaussian.analytic_sigma(epsilon=epsilon, delta=delta, sensitivity=probe.sensitivity,
                                             steps=probe.steps)
        mech = cls(loss=loss, sigma=sigma, steps=steps, step_size=step_size, dim=dim,
                   normalisation=normalisation, n=n, relation=relation, output=output, theta0=theta0)
        mech._claim(float(epsilon), float(delta))
        return mech

    # ---- the algorithm ---------------------------------------------------------------------

    def _data(self, data) -> np.ndarray:
        rows = self.loss.validate_data(data)
        if rows.ndim != 2 or self.loss.dim_of_row(rows.shape[1]) != self.dim:
            raise ParameterError(f"data (shape {rows.shape}) must have shape (n, {self.loss.row_size(self.dim)})")
        if self.normalisation == "average" and rows.shape[0] != self.n:
            raise ParameterError(f"data has {rows.shape[0]} rows but n ({self.n}) was declared")
        return rows

    def _gradient(self, theta, rows) -> np.ndarray:
        return self.loss.total_gradient(theta, rows, normalisation=self.normalisation, check=False)

    def _noise(self, source, t: int, runs: int) -> np.ndarray:
        """Standard normal draws of step ``t`` (1-based), shape ``(runs, p)``."""
        return source.normal(f"noisy gd: step {t} noise", (runs, self.dim))

    def _choose(self, iterates, rows, runs, source) -> np.ndarray:
        """``theta_R`` with ``R`` uniform on ``{1..T}``, independent of the data."""
        r = source.integers("noisy gd: random iterate", self.steps, (runs,))
        return iterates[np.arange(runs), r]

    def _release(self, data, runs, source):
        rows = self._data(data)
        theta = np.broadcast_to(self.theta0, (runs, self.dim)).copy()
        keep = self.output == "random"
        iterates = np.empty((runs, self.steps, self.dim)) if keep else None
        transcript = np.empty((runs, self.steps, self.dim)) if self.output == "transcript" else None
        for t in range(1, self.steps + 1):
            released = self._gradient(theta, rows) + self.sigma * self._noise(source, t, runs)
            theta = theta - self.step_sizes[t - 1] * released
            if keep:
                iterates[:, t - 1] = theta
            if transcript is not None:
                transcript[:, t - 1] = released
        if self.output == "transcript":
            return transcript
        if self.output == "random":
            return self._choose(iterates, rows, runs, source)
        return theta

    # ---- laws and profiles -----------------------------------------------------------------

    @property
    def logpdf(self):
        """``logpdf(data, outputs)`` where the law is known (see Notes), else ``None``."""
        if self.output == "transcript":
            return self._logpdf_transcript
        if isinstance(self.loss, _losses.Linear):
            return self._logpdf_linear
        return None

    def _logpdf_transcript(self, data, outputs) -> np.ndarray:
        rows = self._data(data)
        r = _outputs("outputs", outputs, (self.steps, self.dim))
        runs = r.shape[0]
        theta = np.broadcast_to(self.theta0, (runs, self.dim)).copy()
        law = samplers.Gaussian(scale=self.sigma, dim=self.dim)
        total = np.zeros(runs)
        for t in range(self.steps):
            total += law.logpdf(r[:, t] - self._gradient(theta, rows))
            theta = theta - self.step_sizes[t] * r[:, t]
        return total

    def _logpdf_linear(self, data, outputs) -> np.ndarray:
        rows = self._data(data)
        y = _outputs("outputs", outputs, (self.dim,))
        g = self._gradient(self.theta0, rows)  # constant in theta for the linear loss
        cum = np.cumsum(self.step_sizes)
        cum_sq = np.cumsum(self.step_sizes**2)
        if self.output == "last":
            law = samplers.Gaussian(scale=self.sigma * math.sqrt(cum_sq[-1]), dim=self.dim)
            return np.atleast_1d(law.logpdf(y - (self.theta0 - cum[-1] * g)))
        parts = np.empty((y.shape[0], self.steps))
        for t in range(self.steps):
            law = samplers.Gaussian(scale=self.sigma * math.sqrt(cum_sq[t]), dim=self.dim)
            parts[:, t] = law.logpdf(y - (self.theta0 - cum[t] * g))
        return special.logsumexp(parts, axis=1) - math.log(self.steps)

    def profile(self) -> Callable[[float], float]:
        """The composed profile of the ``T`` noisy gradients: :func:`spec.gaussian.profile` with
        ``steps = T`` (a valid profile for every output mode)."""
        return spec_gaussian.profile(sigma=self.sigma, sensitivity=self.sensitivity, steps=self.steps)

    def output_profile(self) -> Callable[[float], float]:
        """Exact profile of the last iterate for the linear loss (see Privacy): the Gaussian
        mechanism with sensitivity ``S_T * sensitivity`` and noise ``sigma sqrt(Q_T)``."""
        if self.output != "last" or not isinstance(self.loss, _losses.Linear):
            raise ParameterError("output_profile is known for output 'last' with the linear loss only")
        # Rounded so that the profile can only be overstated: shift up, noise down.
        shift = math.nextafter(math.fsum(self.step_sizes.tolist()) * self.sensitivity, math.inf)
        noise = math.nextafter(self.sigma * math.sqrt(math.fsum((self.step_sizes**2).tolist())), 0.0)
        return spec_gaussian.profile(sigma=noise, sensitivity=shift)


def _up_ratio(numerator: float, n: int) -> float:
    """``numerator / n`` rounded up: the smallest float at least the exact quotient."""
    value = numerator / n
    while Fraction(value) * n < Fraction(numerator):
        value = math.nextafter(value, math.inf)
    return value
