"""Tests of audits.one_run_bounds: the SNJ23 one-run bound, its inversion, the guessing rules.

Oracles: mpmath at 50 digits for the p-value, a linear programme over *all* (eps, delta)-DP
mechanisms for m <= 4 (the bound must hold for every one of them; at delta = 0 it is attained), the
exact binomial law of randomised response, and the paper's printed worked examples.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, special
from scipy import stats as sps

from audits import one_run_bounds as ob
from audits.stats import clopper_pearson, clopper_pearson_upper
from spec.errors import ParameterError


def _exact_p(m, r, v, eps, delta, dps=50):
    """(SNJ) in mpmath: f(v) + 2 m delta max_{i=1..m} (f(v - i) - f(v)) / i (every i, not only i <= v).

    The binomial pmf by its recurrence from ``(1 - q)^r`` (exact to the working precision), the
    tails ``f(u)`` by summing it from the top.
    """
    with mpmath.workdps(dps):
        e = mpmath.mpf(eps)
        q = mpmath.e ** e / (1 + mpmath.e ** e)
        pmf = [(1 - q) ** r]
        for k in range(r):
            pmf.append(pmf[-1] * (r - k) / (k + 1) * q / (1 - q))
        tail = [mpmath.mpf(0)] * (r + 2)
        for k in range(r, -1, -1):
            tail[k] = tail[k + 1] + pmf[k]

        def f(u):
            return mpmath.mpf(1) if u <= 0 else tail[u]

        fv = f(v)
        slope = max((f(v - i) - fv) / i for i in range(1, m + 1))
        return fv + 2 * m * mpmath.mpf(delta) * slope


def _crossing(m, r, v, delta, alpha):
    """The exact epsilon where (SNJ) crosses alpha (mpmath root)."""
    return float(mpmath.findroot(lambda e: _exact_p(m, r, v, e, delta, dps=30) - alpha, 1.0, solver="secant"))


# --------------------------------------------------------------------------------------------
# The paper's worked examples


# (m, r, v, delta, 1 - confidence) -> printed bound. Appendix D of arXiv:2305.08846v1 (95%
# confidence, 75 correct of 100 guesses: no abstention, delta = 0 and 1e-4; with abstention among
# 1000 canaries) and Section 7's example (Figure 11).
PUBLISHED = [
    ((100, 100, 75, 0.0, 0.05), 0.702),
    ((100, 100, 75, 1e-4, 0.05), 0.699),
    ((1000, 100, 75, 1e-4, 0.05), 0.673),
    ((100_000, 1510, 1439, 1e-5, 0.05), 2.675),
]


@pytest.mark.parametrize("args, printed", PUBLISHED)
def test_worked_examples_within_printed_precision(args, printed):
    m, r, v, delta, alpha = args
    exact = _crossing(m, r, v, delta, alpha) if m <= 1000 else None
    ours = ob.epsilon_lower(canaries=m, guesses=r, correct=v, delta=delta, alpha=alpha)
    # the printed values have three decimals (the paper's bisection, rounded or truncated): our
    # grid bound (the largest 0.001-grid point below the crossing) is within 0.001 of them
    assert abs(ours - printed) <= 0.001 + 1e-12, (ours, printed)
    if exact is not None:
        assert abs(exact - printed) < 0.001
        assert ours <= exact < ours + ob.EPSILON_STEP + 1e-9  # the grid point below the exact crossing


def test_worked_example_crossing_is_not_on_the_grid():
    # the third example crosses at 0.672985: the grid bound is 0.672, the printed (rounded) value 0.673
    exact = _crossing(1000, 100, 75, 1e-4, 0.05)
    assert 0.6729 < exact < 0.673
    assert ob.epsilon_lower(canaries=1000, guesses=100, correct=75, delta=1e-4, alpha=0.05) == 0.672


# --------------------------------------------------------------------------------------------
# p-value against mpmath


@pytest.mark.parametrize("m, r, v, eps, delta", [
    (10, 10, 8, 0.5, 1e-3), (100, 40, 35, 1.0, 1e-5), (1000, 200, 170, 1.5, 1e-6),
    (1000, 1000, 1000, 3.0, 1e-8), (50, 50, 0, 0.0, 1e-2), (20, 7, 7, 4.0, 0.0), (300, 300, 160, 0.1, 1e-4),
])
def test_p_value_matches_mpmath_and_rounds_up(m, r, v, eps, delta):
    exact = float(min(1, _exact_p(m, r, v, eps, delta)))
    got = ob.p_value(canaries=m, guesses=r, correct=v, epsilon=eps, delta=delta)
    assert got >= exact
    assert got <= exact * (1 + 3e-6) + 1e-300


@settings(max_examples=40, deadline=None)
@given(r=st.integers(1, 60), frac=st.floats(0, 1), extra=st.integers(0, 40), eps=st.floats(0, 6),
       delta=st.sampled_from([0.0, 1e-8, 1e-5, 1e-3]))
def test_p_value_property_against_mpmath(r, frac, extra, eps, delta):
    v = int(round(frac * r))
    m = r + extra
    exact = float(min(1, _exact_p(m, r, v, eps, delta, dps=40)))
    got = ob.p_value(canaries=m, guesses=r, correct=v, epsilon=eps, delta=delta)
    assert exact <= got <= exact * (1 + 3e-6) + 1e-300


def test_max_over_i_stops_at_v():
    # (f(v - i) - f(v))/i for i > v is (1 - f(v))/i, below its value at i = v: the code's i <= v
    # equals the statement's i <= m (the mpmath oracle takes every i <= m)
    for m, r, v in [(40, 30, 5), (40, 30, 1), (100, 100, 60)]:
        exact = float(_exact_p(m, r, v, 0.7, 1e-2))
        assert ob.p_value(canaries=m, guesses=r, correct=v, epsilon=0.7, delta=1e-2) == pytest.approx(exact, rel=3e-6)


# --------------------------------------------------------------------------------------------
# Brute force: the largest P[W >= v] over every (eps, delta)-DP mechanism, m <= 4


def _lp_max_correct(m, r, v, eps, delta):
    """max over mechanisms S -> guess vector T (||T||_1 = r) that are (eps, delta)-DP for every
    one-coordinate flip of S, of P[#{i: T_i = S_i} >= v] with S uniform. A linear programme:
    variables P[S, T] and, for each ordered neighbouring pair (S, S') and output T, the excess
    a >= P[S, T] - e^eps P[S', T], a >= 0, with sum_T a <= delta."""
    secrets = list(itertools.product((-1, 1), repeat=m))
    outputs = []
    for support in itertools.combinations(range(m), r):
        for signs in itertools.product((-1, 1), repeat=r):
            t = [0] * m
            for j, s in zip(support, signs):
                t[j] = s
            outputs.append(tuple(t))
    ns, no = len(secrets), len(outputs)
    index = {s: i for i, s in enumerate(secrets)}
    nvar_p = ns * no
    pairs = [(a, index[tuple(-x if j == i else x for j, x in enumerate(s))]) for a, s in enumerate(secrets)
             for i in range(m)]
    nvar = nvar_p + len(pairs) * no
    c = np.zeros(nvar)
    for a, s in enumerate(secrets):
        for b, t in enumerate(outputs):
            if sum(1 for x, y in zip(s, t) if y != 0 and x == y) >= v:
                c[a * no + b] = -1.0 / ns
    rows, rhs = [], []
    for k, (a, b_) in enumerate(pairs):
        base = nvar_p + k * no
        for o in range(no):  # P[a, o] - e^eps P[b, o] - aux <= 0
            row = np.zeros(nvar)
            row[a * no + o], row[b_ * no + o], row[base + o] = 1.0, -math.exp(eps), -1.0
            rows.append(row)
            rhs.append(0.0)
        row = np.zeros(nvar)
        row[base:base + no] = 1.0
        rows.append(row)
        rhs.append(delta)
    eq = np.zeros((ns, nvar))
    for a in range(ns):
        eq[a, a * no:(a + 1) * no] = 1.0
    res = optimize.linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), A_eq=eq, b_eq=np.ones(ns),
                           bounds=(0, None), method="highs")
    assert res.status == 0, res.message
    return -res.fun


@pytest.mark.parametrize("m, r, v, eps, delta", [
    (2, 2, 2, 0.5, 0.05), (3, 3, 3, 1.0, 0.02), (3, 3, 2, 0.3, 0.1), (3, 2, 2, 1.0, 0.05), (4, 2, 2, 0.7, 0.03),
    (4, 4, 4, 0.5, 0.01), (4, 4, 3, 1.5, 0.05), (3, 1, 1, 2.0, 0.2),
])
def test_bound_holds_for_every_dp_mechanism(m, r, v, eps, delta):
    best = _lp_max_correct(m, r, v, eps, delta)
    bound = ob.p_value(canaries=m, guesses=r, correct=v, epsilon=eps, delta=delta)
    assert best <= bound + 1e-8, (best, bound)


@pytest.mark.parametrize("m, r, v, eps", [(3, 3, 3, 1.0), (3, 3, 2, 0.4), (4, 2, 2, 0.8), (4, 4, 3, 1.2)])
def test_pure_part_is_attained(m, r, v, eps):
    # at delta = 0 the best mechanism achieves f(v) exactly (randomised response on the guessed coordinates)
    best = _lp_max_correct(m, r, v, eps, 0.0)
    f = float(sps.binom.sf(v - 1, r, special.expit(eps)))
    assert best == pytest.approx(f, abs=1e-8)
    assert ob.p_value(canaries=m, guesses=r, correct=v, epsilon=eps, delta=0.0) >= best - 1e-9


# --------------------------------------------------------------------------------------------
# Inversion


def test_epsilon_lower_is_the_grid_definition():
    # every grid point up to the bound rejects, the next one does not (checked point by point)
    for m, r, v, delta, alpha in [(500, 120, 100, 1e-6, 0.01), (2000, 400, 330, 1e-7, 1e-3), (64, 64, 60, 0.0, 0.05)]:
        e = ob.epsilon_lower(canaries=m, guesses=r, correct=v, delta=delta, alpha=alpha)
        grid = np.arange(0, round(e / ob.EPSILON_STEP) + 2) * ob.EPSILON_STEP
        ps = [ob.p_value(canaries=m, guesses=r, correct=v, epsilon=g, delta=delta) for g in grid]
        assert all(p <= alpha for p in ps[:-1])
        assert ps[-1] > alpha


def test_epsilon_lower_zero_without_evidence():
    assert ob.epsilon_lower(canaries=100, guesses=100, correct=50, delta=1e-5, alpha=0.05) == 0.0
    assert ob.epsilon_lower(canaries=100, guesses=0, correct=0, delta=1e-5, alpha=0.05) == 0.0


def test_delta_term_caps_the_bound():
    # with 2 m delta / (v - r/2) above alpha nothing is refuted, even with every guess right
    assert ob.epsilon_lower(canaries=1024, guesses=1024, correct=1024, delta=1e-6, alpha=3e-6) == 0.0
    assert ob.epsilon_lower(canaries=1024, guesses=1024, correct=1024, delta=1e-8, alpha=3e-6) > 4.0


# --------------------------------------------------------------------------------------------
# Idealised settings: randomised response (exact law) and Monte Carlo


def test_randomised_response_size_exact():
    # m independent eps-randomised responses, every one guessed: W ~ Binomial(m, q) exactly, so the
    # rejection probability at the true eps is the binomial tail beyond the smallest rejected v
    for m, eps, alpha in [(100, 1.0, 0.05), (1000, 2.0, 0.01), (400, 0.5, 1e-3)]:
        q = special.expit(eps)
        rejected = [v for v in range(m + 1) if ob.p_value(canaries=m, guesses=m, correct=v, epsilon=eps) <= alpha]
        size = float(sps.binom.sf(rejected[0] - 1, m, q)) if rejected else 0.0
        assert size <= alpha
        assert size > alpha / 3  # and the pure bound is nearly exact there (discreteness only)


def test_randomised_response_monte_carlo():
    # the same through the guessing rule (scores = the responses, every one guessed): the observed
    # rejection rate must agree with the exact size (two-sided 99.9% Clopper-Pearson interval; the
    # test fails by chance with probability < 1e-3). Randomised response is where the pure bound is
    # tight: the rate is close to alpha itself.
    rng = np.random.default_rng(20231)
    m, eps, alpha, reps = 200, 1.0, 0.1, 2000
    q = special.expit(eps)
    rejected = [v for v in range(m + 1) if ob.p_value(canaries=m, guesses=m, correct=v, epsilon=eps) <= alpha]
    size = float(sps.binom.sf(rejected[0] - 1, m, q))
    alarms = 0
    for _ in range(reps):
        s = rng.choice((-1, 1), m)
        y = np.where(rng.random(m) < q, s, -s).astype(float)
        t = ob.guess(y, plus=int(np.sum(y > 0)), minus=int(np.sum(y < 0)), rng=rng)
        r, v = ob.count_correct(t, s)
        alarms += v >= rejected[0]
    lo, hi = clopper_pearson(alarms, reps, 1e-3)
    assert lo <= size <= hi
    assert size <= alpha


def test_gaussian_idealised_monte_carlo_is_conservative():
    # m independent Gaussian channels calibrated exactly to (eps, delta), the union rule at alpha:
    # no false alarm in 300 repetitions (the bound is loose there; the rate's 99.9% upper bound 0.023)
    from audits.one_run_gaussian import gdp_mu

    rng = np.random.default_rng(7)
    eps, delta, alpha, m = 1.0, 1e-5, 0.05, 500
    mu = gdp_mu(eps, delta)
    alarms = 0
    for _ in range(300):
        s = rng.choice((-1, 1), m)
        y = rng.standard_normal(m) + mu * s / 2
        alarms += any(t.violated for t in ob.union_test(y, s, epsilon=eps, delta=delta, alpha=alpha, rng=rng,
                                                          invert=False))
    assert clopper_pearson_upper(alarms, 300, 1e-3) <= alpha


# --------------------------------------------------------------------------------------------
# Guessing rules


def test_guess_top_and_bottom_with_random_ties():
    scores = np.array([0.0, 5.0, 5.0, -3.0, 1.0, 5.0])
    seen = set()
    for seed in range(20):
        t = ob.guess(scores, plus=2, minus=1, rng=np.random.default_rng(seed))
        assert list(t[[0, 3, 4]]) == [0, -1, 0]
        assert t[[1, 2, 5]].sum() == 2 and np.count_nonzero(t) == 3
        seen.add(tuple(t))
    assert len(seen) == 3  # the tie among the three 5s is broken by the coins


def test_fixed_test():
    s = np.array([1, -1] * 50)
    t = ob.fixed_test(s * 2.0, s, per_side=10, epsilon=0.5, delta=0.0, alpha=0.05, rng=np.random.default_rng(0))
    assert (t.guesses, t.correct, t.canaries) == (20, 20, 100)
    assert t.p_value == pytest.approx(special.expit(0.5) ** 20, rel=1e-5) and t.violated


def test_count_correct():
    assert ob.count_correct([1, 0, -1, -1], [1, 1, 1, -1]) == (3, 2)


def test_union_test_splits_alpha():
    rng = np.random.default_rng(0)
    s = rng.choice((-1, 1), 400)
    tests = ob.union_test(s * 3.0 + rng.standard_normal(400), s, epsilon=1.0, delta=1e-6, alpha=0.04, rng=rng)
    assert len(tests) == len(ob.guess_counts(400))
    assert all(t.alpha == pytest.approx(0.04 / len(tests)) for t in tests)
    assert any(t.violated for t in tests)


def test_split_test_uses_the_test_part_only():
    rng = np.random.default_rng(1)
    s = rng.choice((-1, 1), 400)
    t = ob.split_test(s * 3.0 + rng.standard_normal(400), s, epsilon=1.0, delta=1e-6, alpha=0.05, rng=rng,
                      selection=0.25)
    assert t.canaries == 300 and t.alpha == 0.05 and t.rule.startswith("split")


@pytest.mark.parametrize("kwargs, message", [
    (dict(canaries=10, guesses=11, correct=1), "guesses"),
    (dict(canaries=10, guesses=5, correct=6), "correct"),
    (dict(canaries=0, guesses=0, correct=0), "canaries"),
])
def test_bad_counts(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        ob.p_value(epsilon=1.0, delta=0.0, **kwargs)


def test_bad_inputs():
    with pytest.raises(ParameterError, match="plus"):
        ob.guess([1.0, 2.0], plus=2, minus=1, rng=np.random.default_rng(0))
    with pytest.raises(ParameterError, match="secrets"):
        ob.union_test([1.0, 2.0, 3.0], [1, 0, -1], epsilon=1, delta=0, alpha=0.1, rng=np.random.default_rng(0))
    with pytest.raises(ParameterError, match="alpha"):
        ob.epsilon_lower(canaries=10, guesses=10, correct=10, alpha=1.5)
