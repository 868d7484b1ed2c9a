"""Value mechanisms on the sum query: Gaussian, Laplace and radial-Laplace noise.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from reference import samplers
from reference.arrays import ArrayLike
from reference.mechanisms.base import (
    Mechanism,
    _check_norms,
    _dim,
    _l2,
    _outputs,
    _records,
    sum_sensitivity,
)
from spec import gaussian as spec_gaussian
from spec import laplace as spec_laplace
from spec import profiles as spec_profiles
from spec import validate
from spec.errors import ParameterError
from spec.record import Neighbouring

# --------------------------------------------------------------------------------------------
# value mechanisms on the sum query
# --------------------------------------------------------------------------------------------


class GaussianMechanism(Mechanism):
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

    def __init__(self, *, sigma: float, data_norm: float, dim: int = 1,
                 relation: Neighbouring | str = "replace-one") -> None:
        self.sigma = validate.positive("sigma", sigma)
        self.data_norm = validate.positive("data_norm", data_norm)
        self.dim = _dim(dim)
        self.relation = Neighbouring.parse(relation)
        self.sensitivity = sum_sensitivity(data_norm=self.data_norm, relation=self.relation)
        self._law = samplers.Gaussian(scale=self.sigma, dim=self.dim)
        self._set_name(f"GaussianMechanism(sigma={self.sigma:.6g}, sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon: float, delta: float, data_norm: float, dim: int = 1,
                   relation: Neighbouring | str = "replace-one",
                   calibration: str = "analytic") -> "GaussianMechanism":
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

    def query(self, data: ArrayLike) -> np.ndarray:
        """The sum query ``q(D)`` (shape ``(dim,)``) after checking the records' l2 norms."""
        rows = _records(data, self.dim)
        _check_norms(_l2(rows), self.data_norm, "||d||_2", "data_norm")
        return rows.sum(axis=0)

    def _release(self, data, runs, source):
        centre = self.query(data)
        return centre + self._law.rvs((runs,), noise=source, label="gaussian mechanism: noise")

    def logpdf(self, data: ArrayLike, outputs: ArrayLike) -> np.ndarray:
        """Log density of outputs ``(runs, dim)`` given ``data``: shape ``(runs,)``."""
        y = _outputs("outputs", outputs, (self.dim,))
        return np.atleast_1d(self._law.logpdf(y - self.query(data)))

    def profile(self) -> Callable[[float], float]:
        """Exact profile of this noise at this sensitivity: :func:`spec.gaussian.profile`."""
        return spec_gaussian.profile(sigma=self.sigma, sensitivity=self.sensitivity)


class LaplaceMechanism(Mechanism):
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

    def __init__(self, *, scale: float, data_norm: float, dim: int = 1,
                 relation: Neighbouring | str = "replace-one") -> None:
        self.scale = validate.positive("scale", scale)
        self.data_norm = validate.positive("data_norm", data_norm)
        self.dim = _dim(dim)
        self.relation = Neighbouring.parse(relation)
        self.sensitivity = sum_sensitivity(data_norm=self.data_norm, relation=self.relation)
        self._law = samplers.Laplace(scale=self.scale, dim=self.dim)
        self._set_name(f"LaplaceMechanism(scale={self.scale:.6g}, sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon: float, data_norm: float, dim: int = 1,
                   relation: Neighbouring | str = "replace-one") -> "LaplaceMechanism":
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

    def query(self, data: ArrayLike) -> np.ndarray:
        """The sum query after checking the records' l1 norms."""
        rows = _records(data, self.dim)
        _check_norms(np.sum(np.abs(rows), axis=1), self.data_norm, "||d||_1", "data_norm")
        return rows.sum(axis=0)

    def _release(self, data, runs, source):
        centre = self.query(data)
        return centre + self._law.rvs((runs,), noise=source, label="laplace mechanism: noise")

    def logpdf(self, data: ArrayLike, outputs: ArrayLike) -> np.ndarray:
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


class RadialLaplaceMechanism(Mechanism):
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

    def __init__(self, *, rate: float, data_norm: float, dim: int = 1,
                 relation: Neighbouring | str = "replace-one") -> None:
        self.rate = validate.positive("rate", rate)
        self.data_norm = validate.positive("data_norm", data_norm)
        self.dim = _dim(dim)
        self.relation = Neighbouring.parse(relation)
        self.sensitivity = sum_sensitivity(data_norm=self.data_norm, relation=self.relation)
        self._law = samplers.RadialLaplace(rate=self.rate, dim=self.dim)
        self._set_name(f"RadialLaplaceMechanism(rate={self.rate:.6g}, sensitivity={self.sensitivity:g})")

    @classmethod
    def calibrated(cls, *, epsilon: float, data_norm: float, dim: int = 1,
                   relation: Neighbouring | str = "replace-one") -> "RadialLaplaceMechanism":
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

    def query(self, data: ArrayLike) -> np.ndarray:
        rows = _records(data, self.dim)
        _check_norms(_l2(rows), self.data_norm, "||d||_2", "data_norm")
        return rows.sum(axis=0)

    def _release(self, data, runs, source):
        centre = self.query(data)
        return centre + self._law.rvs((runs,), noise=source, label="radial laplace mechanism")

    def logpdf(self, data: ArrayLike, outputs: ArrayLike) -> np.ndarray:
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
