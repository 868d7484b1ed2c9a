r"""wang20 Algorithm 2: Bun and Steinke's trimmed, clipped mean with arsinh-normal noise.

Release ``clip_[a,b]((x_(m+1) + ... + x_(n-m))/(n - 2m)) + (S(x)/s) sinh(Y)``, ``Y ~ N(0, 1)``,
with ``t = epsilon^2/16``, ``s = epsilon/4`` (``wang20.alg_2`` formulas ``dilation`` and ``shift``)
and ``S`` the *corrected* t-smooth upper bound on the local sensitivity of the clipped trimmed
mean (``wang20.alg_2``, RECONSTRUCTED flag):

    A^(k)(x) = min{b - a, (x_(n-m+1+k) - x_(m-k))/(n - 2m)}   (0 <= k < m),
    S(x) = max{max_{k<m} e^{-kt} A^(k)(x), e^{-mt} (b - a)}.

The printed bound ``max{(x_(n) - x_(1))/(n - 2m), e^{-mt}(b - a)}`` is not t-smooth (ERRATUM
flag); :func:`smooth_bound` computes it only when asked (``form="printed"``, for the audit twin),
and the algorithm never does.

Floating point. :func:`smooth_bound` is the numpy version of
:func:`spec.wang20.bun_steinke.smooth_bound` (exact fractions and mpmath, too slow for every
coordinate of every step). Each ``A^(k) e^{-kt}`` carries at most five roundings (a difference, a
division, ``exp``, a product, a minimum), a relative error below ``5 u`` (``u = 2^-53``); the
result is multiplied by ``1 + 16 u``, so it is never below the exact bound (the tests check this
against the spec's exact function), and the ratio of two computed bounds exceeds the exact one by
at most a factor ``1 + 32 u``: ``S`` is ``(t + 4e-15)``-smooth, a change far below the margin of
the arsinh-normal's zCDP (``wang20.thm_3``: divergence at most 0.053 of the claim). The trimmed
mean averages only the middle order statistics, scaled by their largest magnitude, so an extreme
value that is trimmed away cannot perturb it through rounding (a sum-then-subtract would).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from reference import arrays
from reference.configured import Configured, minimum_records, quantity
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.tape import NoiseSource
from spec import validate
from spec.errors import ParameterError
from spec.wang20 import bun_steinke as _spec

__all__ = [
    "SPEC_IDS",
    "LABEL_Y",
    "FORMS",
    "TrimmedMean",
    "TrimmedMeanResult",
    "trimmed_mean",
    "smooth_bound",
    "clipped_trimmed_mean",
    "noise_scale",
    "release",
]

#: The records whose formulas and claims Algorithm 2 uses.
SPEC_IDS = ("wang20.alg_2", "wang20.thm_3")
#: Tape label of Algorithm 2's standard normal Y (line 3).
LABEL_Y = "wang20 Alg.2 L3 Y"
FORMS = _spec.FORMS

_U = 2.0**-53
#: Multiplier that puts a computed bound at or above the exact one (module docstring).
_ROUND_UP = 1.0 + 16 * _U


@dataclass(frozen=True)
class TrimmedMeanResult(AlgorithmResult):
    """Output of :func:`trimmed_mean`.

    Attributes
    ----------
    theta : ndarray, shape (runs, 1)
        The releases (line 3), one column (also :attr:`value`, shape ``(runs,)``).
    statistic : float
        ``[trim_m(x)]_[a,b]`` (line 2), the same in every run.
    smooth_bound : float
        ``S^t(x)`` (line 1), rounded up.
    noise_scale : float
        ``S^t(x)/s``, the multiplier of ``sinh(Y)``, rounded up.
    trim, dilation, shift : int, float, float
        ``m``, ``t``, ``s``.
    """

    theta: np.ndarray
    statistic: float
    smooth_bound: float
    noise_scale: float
    trim: int
    dilation: float
    shift: float

    @property
    def value(self) -> np.ndarray:
        """The releases, shape ``(runs,)`` (the column of :attr:`theta`)."""
        return self.theta[:, 0]


def _sorted(values) -> np.ndarray:
    return np.sort(values, axis=-1)


def _check_trim(trim, n: int) -> int:
    m = validate.integer("trim", trim, minimum=0)
    if not 2 * m < n:
        raise ParameterError(f"trim ({m}) must be < n/2 = {n}/2 (at least one value is averaged)")
    return m


def smooth_bound(values, *, trim, dilation, mean_lower, mean_upper, form="corrected", presorted=False) -> np.ndarray:
    """``S^t(x)`` of every sample along the last axis, rounded up (module docstring).

    Parameters
    ----------
    values : array_like, shape (..., n)
        Finite samples (sorted along the last axis when ``presorted``).
    trim : int
        ``m``, ``0 <= 2m < n``.
    dilation : float
        ``t > 0``.
    mean_lower, mean_upper : float
        ``a < b``.
    form : {"corrected", "printed"}
        ``"printed"`` (the non-smooth bound of the paper) is for the audit twin only.
    presorted : bool
        Skip the sort.

    Returns
    -------
    ndarray, shape (...)

    Privacy
    -------
    ``wang20.alg_2`` (RECONSTRUCTED and ERRATUM flags); the exact version is
    :func:`spec.wang20.bun_steinke.smooth_bound`.
    """
    x = np.asarray(values, dtype=float)
    n = x.shape[-1]
    m = _check_trim(trim, n)
    t = validate.positive("dilation", dilation)
    a, b = _range(mean_lower, mean_upper)
    validate.choice("form", form, FORMS)
    xs = x if presorted else _sorted(x)
    width = b - a
    floor = math.exp(-m * t) * width
    with np.errstate(over="ignore"):
        if form == "printed":
            spread = (xs[..., -1] - xs[..., 0]) / (n - 2 * m)
            return np.maximum(spread, floor) * _ROUND_UP
        if m == 0:
            return np.full(xs.shape[:-1], floor * _ROUND_UP)
        top = xs[..., n - m:]  # x_(n-m+1+k), k = 0..m-1
        bottom = xs[..., m - 1::-1]  # x_(m-k), k = 0..m-1
        terms = np.minimum(width, (top - bottom) / (n - 2 * m))  # A^(k), an overflow to inf is capped
        decay = np.exp(-t * np.arange(m))
        best = np.max(terms * decay, axis=-1)
    return np.maximum(best, floor) * _ROUND_UP


def _range(mean_lower, mean_upper) -> tuple[float, float]:
    a = validate.real("mean_lower", mean_lower)
    b = validate.real("mean_upper", mean_upper)
    if not a < b:
        raise ParameterError(f"mean_lower ({a!r}) must be < mean_upper ({b!r})")
    return a, b


def clipped_trimmed_mean(values, *, trim, mean_lower, mean_upper, presorted=False) -> np.ndarray:
    """``[trim_m(x)]_[a,b]`` of every sample along the last axis (Algorithm 2, line 2).

    The middle order statistics ``x_(m+1), ..., x_(n-m)`` are averaged after division by their
    largest magnitude (no overflow, no cancellation against the trimmed extremes), then clipped.
    """
    x = np.asarray(values, dtype=float)
    n = x.shape[-1]
    m = _check_trim(trim, n)
    a, b = _range(mean_lower, mean_upper)
    xs = x if presorted else _sorted(x)
    middle = xs[..., m:n - m]
    top = np.max(np.abs(middle), axis=-1, keepdims=True)
    safe = np.where(top > 0, top, 1.0)
    mean = np.mean(middle / safe, axis=-1) * safe[..., 0]
    return np.clip(mean, a, b)


def noise_scale(values, *, trim, dilation, shift, mean_lower, mean_upper, presorted=False) -> np.ndarray:
    """``S^t(x)/s``, the multiplier of ``sinh(Y)`` in line 3, rounded up (the numpy version of
    :func:`spec.wang20.bun_steinke.noise_scale`).

    Privacy
    -------
    ``wang20.alg_2``, ``wang20.thm_3``.
    """
    s = validate.positive("shift", shift)
    bound = smooth_bound(values, trim=trim, dilation=dilation, mean_lower=mean_lower, mean_upper=mean_upper,
                         presorted=presorted)
    return bound / s * _ROUND_UP


def release(values, *, trim, dilation, shift, mean_lower, mean_upper, noise: NoiseSource, label: str, size=(),
            presorted=False):
    """Lines 1-3 on every sample along the last axis: ``(output, statistic, S, S/s)``.

    One standard normal per release is drawn from ``noise`` under ``label``, of shape
    ``size + values.shape[:-1]`` (``size=(runs,)`` releases one sample ``runs`` times). Algorithm 3
    calls this on every gradient coordinate with its own label.
    """
    x = np.asarray(values, dtype=float)
    s = validate.positive("shift", shift)
    # [wang20 Alg.2 L1] sort x_(1) <= ... <= x_(n); S^t(x), the corrected t-smooth upper bound
    xs = x if presorted else _sorted(x)
    bound = smooth_bound(xs, trim=trim, dilation=dilation, mean_lower=mean_lower, mean_upper=mean_upper,
                         presorted=True)
    # [wang20 Alg.2 L2] [trim_m(x)]_[a,b] = clip_[a,b]((x_(m+1) + ... + x_(n-m))/(n - 2m))
    statistic = clipped_trimmed_mean(xs, trim=trim, mean_lower=mean_lower, mean_upper=mean_upper, presorted=True)
    # [wang20 Alg.2 L3] output [trim_m(x)]_[a,b] + (S^t(x)/s) Z, Z = sinh(Y), Y ~ N(0, 1)
    scale = bound / s * _ROUND_UP  # = noise_scale(...)
    y = noise.normal(label, tuple(size) + xs.shape[:-1])
    return statistic + scale * np.sinh(y), statistic, bound, scale


@dataclass(frozen=True, kw_only=True, eq=False)
class TrimmedMean(Configured):
    r"""Algorithm 2, configured: the trim m, the dilation t and the shift s, before any data.

    Its data are ``n`` reals (a column: shape ``(n,)`` or ``(n, 1)``); the output ``theta`` has shape
    ``(runs, 1)``.

    Privacy
    -------
    ``wang20.thm_3``, ``wang20.alg_2``: ``epsilon^2/2``-zCDP under replace-one, whatever the data.

    Utility
    -------
    ``wang20.thm_3`` (mean squared error ``O(sigma^2 log n/(n epsilon^2))`` with the default trim).
    """

    ALGORITHM: ClassVar[str] = "wang20.alg_2"
    RESULT: ClassVar[type] = TrimmedMeanResult
    USES: ClassVar[tuple[str, ...]] = ()

    mean_lower: float
    mean_upper: float
    trim: int = quantity("m, the records trimmed at each end (line 2)", source="wang20.alg_2 trim_default, or given")
    dilation: float = quantity("t = epsilon^2/16 of the smooth bound (line 1)", source="wang20.alg_2 dilation")
    shift: float = quantity("s = epsilon/4, the scale of the noise (line 3)", source="wang20.alg_2 shift")
    floor: float = quantity("e^{-m t} (b - a), the smallest smooth bound S", source="wang20.alg_2")

    def claim(self) -> str:
        return f"{self.epsilon!r}^2/2-zCDP under replace-one (epsilon = {self.epsilon!r})"

    def privacy_record(self) -> str:
        return "wang20.thm_3"

    @classmethod
    def configure(cls, *, n: int, epsilon: float, mean_lower: float, mean_upper: float, trim: int | None = None,
                  allow_unproven: bool = False) -> "TrimmedMean":
        r"""Configure Algorithm 2 for ``n`` reals.

        Parameters
        ----------
        n : int
            Number of values, at least 2.
        epsilon : float
            In (0, 1] (``wang20.thm_3``).
        mean_lower, mean_upper : float
            The public range ``[a, b]`` of the mean (Assumption 3.2), with ``a < b``.
        trim : int, optional
            m with ``0 <= 2m < n``; by default the record's ``trim_default`` (the smallest m with
            ``e^{-mt}(b - a) <= 1/n``, capped below n/2). Any public m is private.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        TrimmedMean
        """
        n = minimum_records(n, cls.ALGORITHM)
        a, b = _range(mean_lower, mean_upper)
        eps = validate.epsilon(epsilon)
        rec = _spec.ALG_2
        if trim is None:
            m = int(rec.evaluate("trim_default", epsilon=eps, n=n, mean_lower=a, mean_upper=b))
        else:
            m = _check_trim(trim, n)
        # [wang20 Alg.2 L1] t = epsilon^2/16, s = epsilon/4 (rounded down: a larger S, a larger noise)
        t = rec.evaluate("dilation", epsilon=eps, n=n, trim=m, mean_lower=a, mean_upper=b)
        s = rec.evaluate("shift", epsilon=eps, n=n, trim=m, mean_lower=a, mean_upper=b)
        floor = math.exp(-m * t) * (b - a)
        flags, notes = [], []
        if trim is None:
            flags.append("default-trim")
        if 2 * m in (n - 1, n - 2):
            flags.append("trim-capped")
            if floor > 1.0 / n:
                notes.append(f"the trim is capped at m = {m} (below n/2), so the floor e^(-m t)(b - a) = {floor:.3g} of "
                             f"the smooth bound binds above 1/n: every release has noise of scale at least "
                             f"{floor / s:.3g}; a narrower [mean_lower, mean_upper] or more values lowers it.")
        return cls(n=n, p=1, epsilon=eps, options={"mean_lower": a, "mean_upper": b, "trim": trim},
                   spec_ids=SPEC_IDS, flags=tuple(flags), notes=tuple(notes), allow_unproven=allow_unproven,
                   mean_lower=a, mean_upper=b, trim=m, dilation=t, shift=s, floor=floor)._finish()

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """One sort of the n values (no gradient): counted as ``n``."""
        return int(self.n)

    def check_data(self, data):
        x = arrays.finite("values", arrays.real_array("values", data))
        if x.ndim == 2 and x.shape[1] == 1:
            x = x[:, 0]
        if x.ndim != 1 or x.size < 2:
            raise ParameterError(f"values (shape {x.shape}) must be a 1-D array (or one column) of n >= 2 reals")
        self._check_n(x.size)
        return x

    def _loop(self, values, *, runs, noise, transcript, progress) -> dict:
        out, statistic, bound, scale = release(values, trim=self.trim, dilation=self.dilation, shift=self.shift,
                                               mean_lower=self.mean_lower, mean_upper=self.mean_upper, noise=noise,
                                               label=LABEL_Y, size=(runs,))
        progress(1, 1)
        return dict(theta=out[:, None], statistic=float(statistic), smooth_bound=float(bound),
                    noise_scale=float(scale), trim=self.trim, dilation=self.dilation, shift=self.shift)


def trimmed_mean(values, *, epsilon, mean_lower, mean_upper, trim=None, runs=1, rng: RngLike = None,
                 noise=None) -> TrimmedMeanResult:
    r"""Algorithm 2: :meth:`TrimmedMean.configure` for the ``n`` values, then run (a thin wrapper).

    Parameters
    ----------
    values : array_like, shape (n,)
        Finite reals, n >= 2 (no bound: heavy tails are welcome).
    epsilon, mean_lower, mean_upper, trim
        As in :meth:`TrimmedMean.configure`.
    runs : int
        Independent releases.
    rng, noise
        Randomness: one ``normal`` entry ``"wang20 Alg.2 L3 Y"`` of shape ``(runs,)``.

    Returns
    -------
    TrimmedMeanResult

    Privacy
    -------
    ``wang20.thm_3``, ``wang20.alg_2``: ``epsilon^2/2``-zCDP under replace-one, whatever the data.

    Utility
    -------
    ``wang20.thm_3``.
    """
    x = arrays.finite("values", arrays.real_array("values", values))
    if x.ndim != 1 or x.size < 2:
        raise ParameterError(f"values (shape {x.shape}) must be a 1-D array of n >= 2 reals")
    configured = TrimmedMean.configure(n=x.size, epsilon=epsilon, mean_lower=mean_lower, mean_upper=mean_upper,
                                       trim=trim, allow_unproven=True)
    return configured.run(x, runs=runs, rng=rng, noise=noise)
