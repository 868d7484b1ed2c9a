r"""The one-run lower bound on epsilon (Steinke, Nasr and Jagielski 2023) and its guessing rule.

Setting
-------
``m`` canary *slots*; a secret ``S`` uniform on ``{-1, +1}^m`` (the auditor's coins); slot ``i``
holds the canary record ``c_i`` when ``S_i = +1`` and its *filler* ``f_i`` (a fixed public record)
when ``S_i = -1`` (:mod:`audits.one_run_canaries`). The algorithm runs once on the data set
``D(S)`` (the non-canary records and the m slots); the auditor turns the output into a score per
canary and *guesses* ``T in {-1, 0, +1}^m`` (``0``: abstain) with ``||T||_1 = r`` guesses, and
counts the correct ones, ``W = #{i : T_i = S_i}``.

Neighbouring relation. Flipping one ``S_i`` replaces one record (``c_i`` by ``f_i``) and keeps
``n``: ``D(S)`` and ``D(S')`` are replace-one neighbours whenever ``S, S'`` differ in one
coordinate. So if the algorithm is (eps, delta)-DP under replace-one (the five papers' relation),
the map ``S -> output`` is (eps, delta)-DP with respect to changing one coordinate of ``S``, which
is all the analysis below uses. SNJ23 state it for add/remove (slot ``i`` holds ``c_i`` or
nothing); their proof uses only the same property, so the bound is *the same formula* under
either relation, evaluated at the claim for the relation the slots realise. Nothing is lost or
gained in the bound; what the filler changes is the *signal*: a replace-one slot can move a
gradient by the full replace-one sensitivity (``c_i`` and ``f_i`` with opposite gradients,
``2L/n`` for an L-Lipschitz average loss), an add/remove slot by half of it.

The bound (SNJ23, Theorem 3.1; Corollary 5.4 and Appendix D of arXiv:2305.08846v1)
------------------------------------------------------------------------------------
With ``q = e^eps / (1 + e^eps)`` and ``f(v) = P[Binomial(r, q) >= v]``, for every (eps, delta)-DP
algorithm, every scoring and guessing rule that sees only the output (and the auditor's own
coins), and every ``v``::

    P[W >= v] <= f(v) + 2 m delta max_{i = 1..m} (f(v - i) - f(v)) / i.          (SNJ)

:func:`p_value` evaluates the right-hand side at the observed ``v``. The maximum runs over
``i <= v`` only: for ``i >= v``, ``f(v - i) = 1`` and ``(1 - f(v))/i`` decreases in ``i``.

*Derivation of the pure part (delta = 0).* Fix ``i`` and ``S_{-i}``; let ``p_+``, ``p_-`` be the
output densities with ``S_i = +1``, ``-1``. The posterior of ``S_i`` given the output ``y`` and
``S_{-i}`` is ``p_s(y)/(p_+(y) + p_-(y)) <= e^eps/(1 + e^eps) = q`` (pure DP: ``p_s <= e^eps
p_{-s}``). Order the guessed coordinates; conditioning on the guesses ``T`` and ``S_{<i}`` is
coarser than conditioning on ``(y, S_{-i})``, so by the tower property
``P[S_i = T_i | T, S_{<i}] <= q`` for every guessed ``i``. The indicators of correct guesses are
therefore dominated step by step by Bernoulli(q) draws, and ``W`` (r of them) is stochastically
dominated by ``Binomial(r, q)``: ``P[W >= v] <= f(v)``. Randomised response with parameter eps on
every coordinate attains it, so the pure part cannot be improved.

*The delta term.* Write ``p_s = g_s + b_s`` with ``g_s = min(p_s, e^eps p_{-s})``; the "bad"
parts ``b_s = [p_s - e^eps p_{-s}]_+`` have mass at most delta each ((eps, delta)-DP), and on the
good parts the posterior is again at most q (``g_s <= e^eps g_{-s}``). A correct guess is thus a
Bernoulli(q) draw except on a "bad" event ``E_i``, of probability at most delta given ``S_{-i}``,
where it may be correct for sure. If the bad events bought ``c`` sure successes independently of
the rest, ``P[W >= v] <= E f(v - c) <= f(v) + E[c] max_i (f(v - i) - f(v))/i`` (the line through
``(0, f(v))`` with the largest slope to a point ``(i, f(v - i))`` lies above their concave hull).
SNJ23 prove that the adaptive case, where the algorithm may place the bad events where they help
most, obeys the same form with ``E[c]`` replaced by ``2 m delta`` (their Theorem 3.1); we implement
that statement as printed. It is checked independently in ``tests/audits/test_one_run_bounds.py``
by linear programming: for m <= 4 the largest ``P[W >= v]`` over *all* (eps, delta)-DP
mechanisms (output distributions on guess vectors, every neighbouring constraint) is computed
exactly and never exceeds (SNJ), and at delta = 0 it equals ``f(v)``.

The epsilon lower bound
-----------------------
``p_value(eps) <= alpha`` rejects the claim "(eps, delta)-DP" at level alpha: under the claim the
rejection has probability ``P[W >= v_obs] <= alpha`` by (SNJ). :func:`epsilon_lower` inverts the
test on the grid ``{0, EPSILON_STEP, 2 EPSILON_STEP, ...}`` as :mod:`audits.stats` does: the
largest grid point ``g`` such that the test rejects at every grid point ``<= g`` (0 when it does
not reject at 0). If the algorithm is (eps*, delta)-DP, it is (g1, delta)-DP at the smallest grid
point ``g1 >= eps*``, and ``epsilon_lower > eps*`` needs a rejection at ``g1``: so
``P[epsilon_lower > eps*] <= alpha``, with no monotonicity of ``p_value`` in eps assumed (the
delta term need not be monotone). The search brackets the boundary by bisection and then checks
every grid point below it (vectorised), so the result is exactly the grid definition.

Floating point: binomial tails come from SciPy (``bdtrc``, pmf sums); the p-value is rounded up by
:data:`audits.stats.TAIL_MARGIN` (relative) so that rounding can only make the test conservative;
``tests/audits/test_one_run_bounds.py`` compares with mpmath at 50 digits.

The guessing rule
-----------------
:func:`guess` makes ``plus`` positive guesses on the largest scores and ``minus`` negative guesses
on the smallest, abstaining on the rest (ties broken by the auditor's coins, never by ``S``).
The number of guesses is a choice; choosing it *after* seeing which choice gives the largest
bound is a selection that the bound does not cover. Two honest ways:

* ``union`` (:func:`union_test`): a fixed grid of K guess counts fixed before the run; each is
  tested at ``alpha/K``; the claim is refuted when any test rejects, and ``epsilon_lower`` is the
  largest of the K bounds. By the union bound both err with probability at most alpha.
* ``split`` (:func:`split_test`): the auditor's coins split the canaries (independently of
  ``S``) into a selection part and a test part; the guess count (as a fraction of canaries) that
  gives the largest bound on the selection part is applied to the test part, which is tested at
  the full alpha with ``m`` = the number of test canaries. Valid because, given the selection
  canaries' secrets, the algorithm is still (eps, delta)-DP in each test coordinate and the guesses
  on the test part are a post-processing of the output (and of those fixed secrets).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import special
from scipy import stats as sps

from audits.stats import TAIL_MARGIN
from spec import validate
from spec.errors import ParameterError

__all__ = [
    "CITATION",
    "EPSILON_STEP",
    "EPSILON_MAX",
    "DEFAULT_FRACTIONS",
    "GuessTest",
    "correct_guess_probability",
    "p_value",
    "epsilon_lower",
    "guess",
    "count_correct",
    "guess_counts",
    "union_test",
    "split_test",
    "fixed_test",
]

#: Where the bound is printed.
CITATION = ("Steinke, Nasr and Jagielski, Privacy auditing with one (1) training run, NeurIPS 2023: "
            "Theorem 3.1 (arXiv:2305.08846v1 Corollary 5.4, Appendix D)")
#: Spacing of the epsilon grid on which the test is inverted (as :data:`audits.stats.EPSILON_STEP`).
EPSILON_STEP = 0.001
#: Largest epsilon of that grid.
EPSILON_MAX = 64.0
#: Default guess fractions of the union rule: ``k = round(f m)`` guesses on *each* side.
DEFAULT_FRACTIONS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.45)


# --------------------------------------------------------------------------------------------
# The bound


def _counts(canaries, guesses, correct) -> tuple[int, int, int]:
    m = validate.integer("canaries", canaries, minimum=1)
    r = validate.integer("guesses", guesses, minimum=0)
    v = validate.integer("correct", correct, minimum=0)
    if r > m:
        raise ParameterError(f"guesses ({r}) must be <= canaries ({m})")
    if v > r:
        raise ParameterError(f"correct ({v}) must be <= guesses ({r})")
    return m, r, v


def correct_guess_probability(epsilon: float) -> float:
    """``q = e^eps / (1 + e^eps)``: the accuracy of eps-randomised response, the most any eps-DP
    algorithm allows on one coordinate."""
    return float(special.expit(validate.nonnegative("epsilon", epsilon)))


def _p_values(m: int, r: int, v: int, eps: np.ndarray, delta: float) -> np.ndarray:
    """(SNJ) at each epsilon of ``eps`` (1-d), rounded up; no validation."""
    e = np.asarray(eps, dtype=float)
    q = special.expit(e)
    if r == 0 or v == 0:
        return np.ones_like(q)
    tail = sps.binom.sf(v - 1, r, q)  # f(v) = P[Bin(r, q) >= v]
    if delta > 0:
        # log pmf(v-1-j) = log pmf(v-1) + C_j - j eps, C_j = sum_{t<j} log((v-1-t)/(r-v+2+t)):
        # the pmf ratio pmf(k-1)/pmf(k) = k (1-q) / ((r-k+1) q) and (1-q)/q = e^-eps
        j = np.arange(v)
        t = np.arange(v - 1)
        c = np.concatenate(([0.0], np.cumsum(np.log((v - 1 - t) / (r - v + 2 + t)))))
        top = sps.binom.logpmf(v - 1, r, q)
        pmf = np.exp(top[:, None] + c[None, :] - j[None, :] * e[:, None])
        window = np.cumsum(pmf, axis=1)  # P[v - i <= Bin < v], i = 1..v
        slope = np.max(window / (j[None, :] + 1.0), axis=1)
        total = tail + 2.0 * m * delta * slope
    else:
        total = tail
    return np.minimum(1.0, total * (1.0 + TAIL_MARGIN))


def p_value(*, canaries: int, guesses: int, correct: int, epsilon: float, delta: float = 0.0) -> float:
    """Bound (SNJ) on ``P[W >= correct]`` under the claim (epsilon, delta)-DP.

    Parameters
    ----------
    canaries : int
        ``m``, the number of randomised slots (>= 1).
    guesses : int
        ``r``, the number of non-abstaining guesses (<= m).
    correct : int
        ``v``, the number of correct guesses (<= r).
    epsilon : float
        Claimed epsilon (>= 0).
    delta : float
        Claimed delta in [0, 1).

    Returns
    -------
    float
        ``f(v) + 2 m delta max_i (f(v - i) - f(v))/i``, rounded up, at most 1.

    Privacy
    -------
    Under the claim, the probability of observing at least ``correct`` correct guesses is at most
    the returned value (module docstring).
    """
    m, r, v = _counts(canaries, guesses, correct)
    e = validate.nonnegative("epsilon", epsilon)
    d = validate.delta(delta, allow_zero=True)
    return float(_p_values(m, r, v, np.array([e]), d)[0])


def epsilon_lower(*, canaries: int, guesses: int, correct: int, delta: float = 0.0, alpha: float) -> float:
    """The lower confidence bound on epsilon at level ``1 - alpha`` (module docstring).

    The largest point ``g`` of the grid ``{0, EPSILON_STEP, ...}`` (up to :data:`EPSILON_MAX`) such
    that :func:`p_value` ``<= alpha`` at every grid point ``<= g``; 0 when the test does not reject
    at 0.

    Examples
    --------
    The worked example of SNJ23's Appendix D (r = 100 guesses, 75 correct, m = 1000, delta = 1e-4,
    95% confidence), printed there as 0.673: the exact crossing is 0.672985, so the largest grid
    point below it is

    >>> epsilon_lower(canaries=1000, guesses=100, correct=75, delta=1e-4, alpha=0.05)
    0.672
    """
    m, r, v = _counts(canaries, guesses, correct)
    d = validate.delta(delta, allow_zero=True)
    a = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    return _epsilon_lower(m, r, v, d, a)


def _epsilon_lower(m: int, r: int, v: int, delta: float, alpha: float) -> float:
    steps = int(round(EPSILON_MAX / EPSILON_STEP))

    def rejects(j) -> bool:
        return bool(_p_values(m, r, v, np.array([j * EPSILON_STEP]), delta)[0] <= alpha)

    if not rejects(0):
        return 0.0
    # bisection for a grid point that rejects next to one that does not (assuming nothing)
    lo, hi = 0, 1
    while hi < steps and rejects(hi):
        lo, hi = hi, min(2 * hi, steps)
    if hi >= steps and rejects(steps):
        top = steps
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if rejects(mid):
                lo = mid
            else:
                hi = mid
        top = lo
    # the grid definition: every grid point up to the answer must reject (checked in chunks)
    chunk = max(1, min(512, 4_000_000 // max(v, 1)))
    for start in range(0, top + 1, chunk):
        js = np.arange(start, min(top + 1, start + chunk))
        bad = np.nonzero(_p_values(m, r, v, js * EPSILON_STEP, delta) > alpha)[0]
        if bad.size:
            return float(round((js[bad[0]] - 1) * EPSILON_STEP, 10))
    return float(round(top * EPSILON_STEP, 10))


# --------------------------------------------------------------------------------------------
# Guessing


def guess(scores, *, plus: int, minus: int, rng) -> np.ndarray:
    """Guesses ``T in {-1, 0, +1}^m``: +1 on the ``plus`` largest scores, -1 on the ``minus``
    smallest, 0 elsewhere; ties broken by ``rng`` (the auditor's coins, independent of the secrets).
    """
    s = np.asarray(scores, dtype=float).reshape(-1)
    if not np.all(np.isfinite(s)):
        raise ParameterError("scores must be finite")
    m = s.size
    kp = validate.integer("plus", plus, minimum=0)
    km = validate.integer("minus", minus, minimum=0)
    if kp + km > m:
        raise ParameterError(f"plus + minus ({kp} + {km}) must be <= the number of canaries ({m})")
    order = np.lexsort((rng.random(m), s))  # ascending score, random among equal scores
    out = np.zeros(m, dtype=np.int8)
    if kp:
        out[order[m - kp:]] = 1
    if km:
        out[order[:km]] = -1
    return out


def count_correct(guesses, secrets) -> tuple[int, int]:
    """``(r, v)``: the number of guesses (non-zero entries) and of correct ones."""
    t = np.asarray(guesses).reshape(-1)
    s = np.asarray(secrets).reshape(-1)
    if t.shape != s.shape:
        raise ParameterError(f"guesses (shape {t.shape}) and secrets (shape {s.shape}) must have the same shape")
    return int(np.count_nonzero(t)), int(np.count_nonzero((t != 0) & (t == s)))


def guess_counts(canaries: int, fractions=DEFAULT_FRACTIONS) -> tuple[int, ...]:
    """Guesses per side ``k = max(1, round(f m))`` for each fraction (distinct, ``2 k <= m``)."""
    m = validate.integer("canaries", canaries, minimum=2)
    ks = sorted({min(max(1, int(round(float(f) * m))), m // 2) for f in fractions})
    for f in fractions:
        validate.interval("fraction", f, 0.0, 0.5, closed="right")
    return tuple(ks)


@dataclass(frozen=True)
class GuessTest:
    """One test of the claim from a count of correct guesses (module docstring)."""

    family: str
    rule: str
    per_side: int
    canaries: int
    guesses: int
    correct: int
    alpha: float
    p_value: float
    epsilon_lower: float
    violated: bool

    def to_dict(self) -> dict:
        return asdict(self)


def _test(family, rule, scores, secrets, k, m_bound, *, epsilon, delta, alpha, rng, invert=True) -> GuessTest:
    t = guess(scores, plus=k, minus=k, rng=rng)
    r, v = count_correct(t, secrets)
    p = float(_p_values(m_bound, r, v, np.array([epsilon]), delta)[0])
    lower = _epsilon_lower(m_bound, r, v, delta, alpha) if invert else math.nan
    return GuessTest(family=family, rule=rule, per_side=k, canaries=m_bound, guesses=r, correct=v, alpha=alpha,
                     p_value=p, epsilon_lower=lower, violated=bool(p <= alpha))


def _inputs(scores, secrets):
    s = np.asarray(scores, dtype=float).reshape(-1)
    sec = np.asarray(secrets).reshape(-1)
    if s.shape != sec.shape:
        raise ParameterError(f"scores (shape {s.shape}) and secrets (shape {sec.shape}) must have the same shape")
    if not np.all(np.isin(sec, (-1, 1))):
        raise ParameterError("secrets must be -1 or +1")
    if s.size < 2:
        raise ParameterError(f"canaries ({s.size}) must be >= 2")
    return s, sec


def fixed_test(scores, secrets, *, per_side: int, epsilon, delta, alpha, rng, family="guesses") -> GuessTest:
    """One test with ``per_side`` guesses on each side, fixed before the run."""
    s, sec = _inputs(scores, secrets)
    k = validate.integer("per_side", per_side, minimum=1)
    if 2 * k > s.size:
        raise ParameterError(f"per_side ({k}) must be <= half the canaries ({s.size})")
    return _test(family, f"fixed {k} per side", s, sec, k, s.size, epsilon=epsilon, delta=delta, alpha=alpha, rng=rng)


def union_test(scores, secrets, *, epsilon, delta, alpha, rng, fractions=DEFAULT_FRACTIONS,
               family="guesses", invert=True) -> list[GuessTest]:
    """Every guess count of :func:`guess_counts` at ``alpha / K`` (the union rule). ``invert=False``
    skips the epsilon lower bounds (NaN; the verdicts are unchanged), for simulations."""
    s, sec = _inputs(scores, secrets)
    ks = guess_counts(s.size, fractions)
    share = alpha / len(ks)
    return [_test(family, f"union of {len(ks)}", s, sec, k, s.size, epsilon=epsilon, delta=delta, alpha=share,
                  rng=rng, invert=invert) for k in ks]


def split_test(scores, secrets, *, epsilon, delta, alpha, rng, selection=0.25, fractions=DEFAULT_FRACTIONS,
               family="guesses") -> GuessTest:
    """The split rule: choose the guess fraction on a random ``selection`` share of the canaries,
    test it on the rest at the full ``alpha``."""
    s, sec = _inputs(scores, secrets)
    frac = validate.interval("selection", selection, 0.0, 1.0, closed="neither")
    m = s.size
    n_sel = int(round(frac * m))
    if n_sel < 2 or m - n_sel < 2:
        raise ParameterError(f"selection ({frac}) leaves too few canaries on one side of the split (m = {m})")
    perm = rng.permutation(m)
    sel, test = perm[:n_sel], perm[n_sel:]
    best, best_f = -1.0, None
    for f in fractions:
        k = min(max(1, int(round(float(f) * n_sel))), n_sel // 2)
        t = guess(s[sel], plus=k, minus=k, rng=rng)
        r, v = count_correct(t, sec[sel])
        e = _epsilon_lower(n_sel, r, v, delta, alpha)
        if e > best:
            best, best_f = e, float(f)
    m_test = m - n_sel
    k = min(max(1, int(round(best_f * m_test))), m_test // 2)
    return _test(family, f"split: fraction {best_f:g} chosen on {n_sel} canaries", s[test], sec[test], k, m_test,
                 epsilon=epsilon, delta=delta, alpha=alpha, rng=rng)
