r"""A Gaussian one-run test in the spirit of "Let's ask Gauss" (2026): exact under a stated model.

Agrawal, Wei, Singh, Magdon-Ismail and Zikas ("Let's ask Gauss: improved one-run privacy auditing",
arXiv:2606.12733) observe that in white-box DP-SGD the canary-aligned signals are asymptotically
Gaussian and use the whole signal instead of thresholding it into guesses. Their guarantee is
asymptotic. This module keeps the idea and states exactly when its test is valid.

The model
---------
The auditor has one real statistic ``X_i`` per canary (a canary-aligned sum of released noisy
gradients, or a coordinate of the output). The model **M** is: given the secrets ``S``, the
``X_i`` are independent and

    X_i ~ N(c + theta S_i, s^2)        (the same c, theta >= 0 and s > 0 for every canary),

i.e. each canary sees its own Gaussian channel with separation ``mu = 2 theta / s`` in noise units
and no cross-talk. It holds *exactly* for the suite's designs: Gaussian noise, canaries whose
gradient does not depend on the iterate (the linear region of the loss) and lies in coordinates
no other record touches, so that the canary-aligned part of every release is a fixed multiple of
``S_i`` plus fresh noise (:mod:`audits.one_run_canaries`). It is a property of a *mechanism and a
design*, not a consequence of a DP claim: for other code it is an assumption, and the test below
is then an **estimate**, reported apart from the verdict (:func:`audits.one_run.audit_one_run`).

Why it audits (eps, delta)
--------------------------
Under M, the map ``S_i -> X_i`` is a post-processing of the algorithm's output (the other
canaries' secrets are independent coins), so an (eps, delta)-DP algorithm makes it (eps,
delta)-DP. A Gaussian channel with separation mu has the exact profile (Balle and Wang 2018)
``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)``, increasing in mu; so the claim
implies ``mu <= mu*(eps, delta)``, the root of ``delta(eps) = delta`` (:func:`gdp_mu`, computed in
mpmath by :mod:`spec.gaussian` and rounded *up*, so the null hypothesis covers the claim).

The test
--------
With ``m_+`` and ``m_-`` canaries in and out, the pooled two-sample t statistic
``t = (mean_+ - mean_-) / (s_p sqrt(1/m_+ + 1/m_-))`` is, given ``S`` and under M, exactly
noncentral t with ``m - 2`` degrees of freedom and noncentrality ``mu / sqrt(1/m_+ + 1/m_-)``
(``c`` and ``s`` need not be known: the difference of means removes ``c`` and the pooled
variance estimates ``s``). The noncentral t family is stochastically increasing in its
noncentrality, so rejecting "mu <= mu*" when ``t`` exceeds the ``1 - alpha`` quantile at
``mu*`` has size at most alpha for every mu allowed by the claim, given ``S`` and hence
unconditionally. Inverting it gives ``mu_lower`` with ``P[mu_lower > mu] <= alpha``, and
``epsilon_lower = eps(mu_lower)`` at the claimed delta (:func:`gdp_epsilon`; increasing in mu).
``mu_hat = (mean_+ - mean_-)/s_p`` is the point estimate. SciPy's noncentral t (Boost) is compared
with an mpmath integral in ``tests/audits/test_one_run_gaussian.py``.

The test is exact, not conservative: at the boundary (a Gaussian channel with ``mu = mu*``) it
rejects with probability alpha exactly (``benchmarks/bench_one_run.py`` measures it).
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as sps

from spec import gaussian, inversion, validate
from spec.errors import ParameterError

__all__ = ["CITATION", "GaussianTest", "gdp_mu", "gdp_epsilon", "pooled_t", "mu_lower_bound", "gaussian_test"]

CITATION = ("Agrawal, Wei, Singh, Magdon-Ismail and Zikas, Let's ask Gauss: improved one-run privacy "
            "auditing, arXiv:2606.12733 (2026)")


def _delta_of(mu: float, epsilon: float) -> float:
    return gaussian.exact_delta(epsilon, sigma=1.0, sensitivity=mu)


@functools.lru_cache(maxsize=256)
def _gdp_mu(epsilon: float, delta: float) -> float:
    # the smallest separation whose exact delta reaches the claim's: the root rounded up
    return inversion.smallest(lambda mu: inversion.log_ratio(delta, _delta_of(mu, epsilon)), start=1.0)


def gdp_mu(epsilon: float, delta: float) -> float:
    """``mu*``: the largest separation of a Gaussian channel that is (epsilon, delta)-DP, rounded up.

    The smallest double ``mu`` at which the exact profile (:func:`spec.gaussian.exact_delta`,
    mpmath, itself rounded up) reaches ``delta`` (:func:`spec.inversion.smallest`, one ulp), so the
    returned value is never below the true root (the test's null then contains every channel the
    claim allows).
    """
    return _gdp_mu(validate.epsilon(epsilon), validate.delta(delta))


def gdp_epsilon(mu: float, delta: float) -> float:
    """The epsilon at ``delta`` of a Gaussian channel with separation ``mu`` (0 when ``mu = 0``):
    :func:`spec.gaussian.exact_epsilon` with ``sensitivity = mu``, ``sigma = 1``."""
    m = validate.nonnegative("mu", mu)
    d = validate.delta(delta)
    if m == 0.0:
        return 0.0
    return gaussian.exact_epsilon(d, sigma=1.0, sensitivity=m)


@dataclass(frozen=True)
class GaussianTest:
    """Outcome of :func:`gaussian_test` (see the module docstring).

    ``exact`` says whether the caller asserted the model M (then ``violated`` is a verdict at
    ``alpha``); otherwise the numbers are an estimate and ``violated`` is None.
    """

    family: str
    exact: bool
    canaries: int
    included: int
    mu_hat: float
    mu_lower: float
    mu_claim: float
    t: float
    degrees_of_freedom: int
    noncentrality_claim: float
    p_value: float
    alpha: float
    epsilon_lower: float
    epsilon_estimate: float
    violated: bool | None

    def to_dict(self) -> dict:
        return asdict(self)


def pooled_t(signals, secrets) -> tuple[float, int, float, float]:
    """``(t, df, scale, mu_hat)`` of the pooled two-sample t statistic (module docstring):
    ``t = (mean_+ - mean_-)/(s_p scale)``, ``scale = sqrt(1/m_+ + 1/m_-)``, ``df = m - 2``,
    ``mu_hat = (mean_+ - mean_-)/s_p``."""
    x = np.asarray(signals, dtype=float).reshape(-1)
    s = np.asarray(secrets).reshape(-1)
    if x.shape != s.shape:
        raise ParameterError(f"signals (shape {x.shape}) and secrets (shape {s.shape}) must have the same shape")
    if not np.all(np.isfinite(x)):
        raise ParameterError("signals must be finite")
    if not np.all(np.isin(s, (-1, 1))):
        raise ParameterError("secrets must be -1 or +1")
    pos, neg = x[s == 1], x[s == -1]
    if pos.size < 2 or neg.size < 2:
        raise ParameterError(f"the Gaussian test needs at least two canaries in and two out "
                             f"(got {pos.size} and {neg.size})")
    df = x.size - 2
    pooled = math.sqrt((np.sum((pos - pos.mean()) ** 2) + np.sum((neg - neg.mean()) ** 2)) / df)
    if pooled == 0.0:
        raise ParameterError("signals have zero spread within both groups: the Gaussian model cannot hold")
    scale = math.sqrt(1.0 / pos.size + 1.0 / neg.size)
    diff = float(pos.mean() - neg.mean())
    return diff / (pooled * scale), df, scale, diff / pooled


def _sf(t, df, ncp):
    return float(sps.nct.sf(t, df, ncp))


def mu_lower_bound(t: float, df: int, scale: float, alpha: float) -> float:
    """The largest ``mu`` (to a relative 1e-10) such that the test rejects ``mu`` at level alpha:
    ``P_mu[T >= t] <= alpha`` with noncentrality ``mu/scale`` (0 when it does not reject at 0). The
    noncentral t tail increases in the noncentrality, so ``P[mu_lower > mu] <= alpha``. Only values
    where SciPy's tail is finite and at most alpha are ever returned (a failed tail evaluation, at
    absurd noncentralities, counts as "not rejected": the bound can only come out lower)."""
    def rejects(mu):
        tail = _sf(t, df, mu / scale)
        return math.isfinite(tail) and tail <= alpha

    if not rejects(0.0):
        return 0.0
    lo, hi = 0.0, max(2.0 * abs(t * scale), 1e-6)
    while rejects(hi):
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-10 * hi:
        mid = 0.5 * (lo + hi)
        if rejects(mid):
            lo = mid
        else:
            hi = mid
    return lo


def gaussian_test(signals, secrets, *, epsilon: float, delta: float, alpha: float, exact: bool,
                  family: str = "gaussian") -> GaussianTest:
    """The noncentral-t test of ``mu <= mu*(epsilon, delta)`` (module docstring).

    Parameters
    ----------
    signals : array_like, shape (m,)
        One statistic per canary, larger when the canary is in.
    secrets : array_like, shape (m,)
        The canaries' ``S_i`` in {-1, +1}; at least two of each.
    epsilon, delta : float
        The claim (``delta`` in (0, 1): a Gaussian channel is not pure DP).
    alpha : float
        Level of the test and of ``mu_lower``.
    exact : bool
        Whether the model M holds by construction (the caller's assertion).

    Returns
    -------
    GaussianTest
    """
    e = validate.epsilon(epsilon)
    d = validate.delta(delta)
    a = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    if not isinstance(exact, (bool, np.bool_)):
        raise TypeError(f"exact ({exact!r}) must be a boolean")
    t, df, scale, mu_hat = pooled_t(signals, secrets)
    s = np.asarray(secrets).reshape(-1)
    mu_star = gdp_mu(e, d)
    ncp0 = mu_star / scale
    p = _sf(t, df, ncp0)
    mu_lower = mu_lower_bound(t, df, scale, a)
    return GaussianTest(
        family=family, exact=bool(exact), canaries=int(s.size), included=int(np.sum(s == 1)), mu_hat=mu_hat,
        mu_lower=mu_lower, mu_claim=mu_star, t=t, degrees_of_freedom=df, noncentrality_claim=ncp0, p_value=p,
        alpha=a, epsilon_lower=gdp_epsilon(mu_lower, d),
        epsilon_estimate=gdp_epsilon(max(mu_hat, 0.0), d) if math.isfinite(mu_hat) else math.inf,
        violated=bool(p <= a) if exact else None,
    )

