"""Tests of one chosen event from its counts: the point tests of :mod:`audits.privacy`.

An event is chosen before the test runs are looked at (on the selection runs, or given by the
caller); these functions count it on test outputs (chunk by chunk: counts add) and test the claim
for it. Proofs are in :mod:`audits.privacy` ("Point mode", "User events") and
:mod:`audits.stats`.
"""

from __future__ import annotations

from audits import selection, stats

__all__ = ["count", "record", "poisson_test", "fixed_runs_test"]


def count(st, choice, outputs) -> int:
    """How many of ``outputs`` (one chunk of test runs) fall in the chosen event."""
    threshold, side, _ = choice
    if outputs is None or outputs.shape[0] == 0:
        return 0
    return selection.count(st.apply(outputs), threshold, side)


def _oriented(choice, k_d, n_d, k_n, n_n):
    """``(k_p, n_p, k_q, n_q)``: the counts in the order of the claim the event tests."""
    return (k_d, n_d, k_n, n_n) if choice[2] == "dataset" else (k_n, n_n, k_d, n_d)


def record(st, choice, k_d, n_d, k_n, n_n, *, epsilon_lower, epsilon, alpha, family, test, refuted=False,
           **extra) -> dict:
    """One test's entry of ``AuditResult.tests`` (``_k``: the oriented counts, dropped from the
    result); ``refuted``: refuted by something besides ``epsilon_lower > epsilon``."""
    threshold, side, direction = choice
    return {"family": family, "alpha": alpha, "statistic": st.description,
            "event": selection.describe_event(threshold, side, direction, st),
            "dataset": int(k_d), "neighbour": int(k_n), "test_runs_dataset": int(n_d),
            "test_runs_neighbour": int(n_n), "epsilon_lower": float(epsilon_lower),
            "violated": bool(epsilon_lower > epsilon or refuted), "test": test, **extra,
            "_k": _oriented(choice, k_d, n_d, k_n, n_n)}


def poisson_test(st, choice, k_d, n_d, k_n, n_n, m, *, epsilon, delta, alpha, arrivals, family) -> dict:
    """The exact conditional test of the chosen event from Poisson test counts (point mode, user
    events): :func:`audits.stats.poisson_point_bound`."""
    k_p, _, k_q, _ = _oriented(choice, k_d, n_d, k_n, n_n)
    eps_lo = stats.poisson_point_bound(k_p, k_q, m, delta=delta, alpha=alpha, arrivals=arrivals)
    return record(st, choice, k_d, n_d, k_n, n_n, epsilon_lower=eps_lo, epsilon=epsilon, alpha=alpha,
                  family=family, test="conditional Poisson (stats.poisson_point_bound)")


def fixed_runs_test(st, choice, k_d, k_n, n, *, epsilon, delta, alpha, family, bound=None) -> dict:
    """The test of the chosen event from counts over exactly ``n`` test runs per dataset (profile
    mode): Clopper-Pearson bounds ``p_lower`` and ``q_upper`` at ``alpha/2`` each
    (:func:`audits.stats.point_bound`); refuted when the point claim fails under them, or when
    ``p_lower > B(q_upper)`` for the declared profile's ``bound`` (``audits.claims.ClaimBound``;
    the profile is part of the claim). Both hold under the claim when both bounds hold, which
    fails with probability at most ``alpha``."""
    k_p, _, k_q, _ = _oriented(choice, k_d, n, k_n, n)
    eps_lo, p_lo, q_hi = stats.point_bound(k_p, k_q, n, delta=delta, alpha=alpha)
    beyond = bool(bound is not None and p_lo > float(bound.exact(q_hi)))
    return record(st, choice, k_d, n, k_n, n, epsilon_lower=eps_lo, epsilon=epsilon, alpha=alpha,
                  family=family, test="Clopper-Pearson on fixed runs (stats.point_bound)",
                  p_lower=float(p_lo), q_upper=float(q_hi), refuted=beyond, profile_violated=beyond)
