"""spec.zhang17.stability: Lemmas 2 and 3 (sensitivity of gradient descent).

Oracles: the proof sketch's recursion typed here and iterated in floats and mpmath; sympy for the
induction and the fixed points; gradient descent on logistic, regularised logistic and linear losses
written here in plain Python (seeded random datasets and neighbours).
"""

from __future__ import annotations

import math
import random

import mpmath
import pytest
import sympy as sp

from spec import zhang17
from spec.errors import AssumptionError
from spec.record import FlagKind


def _flag(record, kind):
    (flag,) = [f for f in record.flags if f.kind is kind]
    return flag.summary + " " + flag.reason


def _printed_step(x, u):
    """The proof sketch: Delta_{t+1}^2 = Delta_t^2 + 4 u Delta_t + 8 u^2 (u = eta L / n)."""
    return math.sqrt(x * x + 4 * u * x + 8 * u * u)


# --------------------------------------------------------------------------- Lemma 2
def test_lemma_2_recursion_supremum():
    u = 1.0
    x, ratios = 0.0, []
    for t in range(1, 100_001):
        x = _printed_step(x, u)
        ratios.append(x / (t * u))
    assert ratios[0] == pytest.approx(2 * math.sqrt(2), rel=1e-15)  # attained at t = 1
    assert max(ratios) == ratios[0] < 3
    assert all(a > b for a, b in zip(ratios, ratios[1:]))  # decreasing after t = 1
    assert ratios[1] == pytest.approx(math.sqrt(16 + 8 * math.sqrt(2)) / 2, rel=1e-14)
    assert 2 < ratios[-1] < 2.001  # tends to 2, the tight constant
    # the same at 50 digits (no float artefact at t = 1, 2)
    with mpmath.workdps(50):
        y1 = mpmath.sqrt(8)
        y2 = mpmath.sqrt(y1**2 + 4 * y1 + 8)
        assert y1 > y2 / 2
    text = _flag(zhang17.LEMMA_2, FlagKind.RECONSTRUCTED)
    assert f"{ratios[0]:.2f}" == "2.83" and "2.83" in text
    assert f"{ratios[1]:.2f}" == "2.61" and "2.61" in text
    # the record carries the same recursion
    ((name, rec),) = zhang17.LEMMA_2.data
    for a, b in ((0.0, 1.0), (2.5, 0.3), (7.0, 2.0)):
        assert float(rec(a, b)) == pytest.approx(_printed_step(a, b), rel=1e-14)


def test_lemma_2_induction_threshold():
    c, t = sp.symbols("c t", positive=True)
    # induction step (c t)^2 + 4 c t + 8 <= (c (t + 1))^2  <=>  slack >= 0
    slack = sp.expand((c * (t + 1)) ** 2 - ((c * t) ** 2 + 4 * c * t + 8))
    assert sp.simplify(slack - (c**2 + t * (2 * c**2 - 4 * c) - 8)) == 0
    threshold = sp.solve(sp.Eq(slack.subs(t, 0), 0), c)
    assert threshold == [2 * sp.sqrt(2)]
    # at the threshold the slope 2c(c - 2) in t is positive, so slack >= 0 for all t >= 0
    assert sp.simplify((2 * c**2 - 4 * c).subs(c, 2 * sp.sqrt(2))) > 0
    for value, ok in ((sp.Rational(28, 10), False), (2 * sp.sqrt(2), True), (3, True)):
        assert (slack.subs({c: value, t: 0}) >= 0) == ok
        assert all(slack.subs({c: value, t: k}) >= 0 for k in range(1, 50))


def test_lemma_2_reading_matches_theorem_3():
    lem, thm = zhang17.LEMMA_2, zhang17.THM_3
    eta, beta = lem.symbol("learning_rate"), lem.symbol("smoothness")
    assert sp.simplify(lem.formula("sensitivity").expr.subs(eta, 1 / beta) - thm.formula("sensitivity").expr) == 0
    assert thm.formula("sensitivity").expr == 3 * thm.symbol("lipschitz") * thm.symbol("steps") / (
        beta * thm.symbol("n"))
    v = lem.evaluate("sensitivity", lipschitz=2.0, n=50, learning_rate=0.25, steps=40, smoothness=4.0)
    assert v == pytest.approx(3 * 0.25 * 2.0 * 40 / 50, rel=1e-15)
    with pytest.raises(AssumptionError, match="eta_le_1_over_beta"):
        lem.evaluate("sensitivity", lipschitz=1.0, n=10, learning_rate=0.5, steps=3, smoothness=4.0)


def _gd_pair(grad, data, other, k, eta, steps, dim):
    """Full-batch GD from 0 on data and on data with record k replaced by other; returns distances."""
    n = len(data)
    data2 = list(data)
    data2[k] = other
    w, w2 = [0.0] * dim, [0.0] * dim
    dists = []
    for _ in range(steps):
        g = [sum(c) / n for c in zip(*(grad(w, r) for r in data))]
        g2 = [sum(c) / n for c in zip(*(grad(w2, r) for r in data2))]
        w = [a - eta * b for a, b in zip(w, g)]
        w2 = [a - eta * b for a, b in zip(w2, g2)]
        dists.append(math.dist(w, w2))
    return dists


def _unit_ball_point(rng, dim, radius=1.0):
    v = [rng.gauss(0, 1) for _ in range(dim)]
    r = radius * rng.random() ** (1 / dim) / math.sqrt(sum(c * c for c in v))
    return [c * r for c in v]


def _logistic_grad(w, rec):
    x, y = rec
    m = y * sum(a * b for a, b in zip(w, x))
    s = 1.0 / (1.0 + math.exp(m)) if m > -700 else 1.0
    return [-y * s * a for a in x]


def test_lemma_2_tight_constant():
    rng = random.Random(20170902)
    n, dim, steps = 6, 3, 40
    lip, beta = 1.0, 0.25  # ||x|| <= 1: logistic losses are 1-Lipschitz and 1/4-smooth
    eta = 1 / beta
    worst = 0.0
    for _ in range(15):
        data = [(_unit_ball_point(rng, dim), rng.choice((-1.0, 1.0))) for _ in range(n)]
        other = (_unit_ball_point(rng, dim), rng.choice((-1.0, 1.0)))
        dists = _gd_pair(_logistic_grad, data, other, rng.randrange(n), eta, steps, dim)
        for t, dist in enumerate(dists, start=1):
            tight = zhang17.LEMMA_2.evaluate("sensitivity_tight", lipschitz=lip, n=n, learning_rate=eta,
                                             steps=t, smoothness=beta)
            assert dist <= tight * (1 + 1e-12)
            worst = max(worst, dist / tight)
    assert worst > 0.3  # the random neighbours do move the runs apart
    # linear losses f(w, x) = <w, x>, ||x|| = L, neighbour -x: exactly 2 eta L T / n
    x = [0.6, 0.8, 0.0]
    data = [(x, None)] + [(_unit_ball_point(rng, dim), None) for _ in range(n - 1)]
    dists = _gd_pair(lambda w, rec: list(rec[0]), data, ([-c for c in x], None), 0, 0.7, 25, dim)
    for t, dist in enumerate(dists, start=1):
        exact = zhang17.LEMMA_2.evaluate("sensitivity_tight", lipschitz=1.0, n=n, learning_rate=0.7, steps=t,
                                         smoothness=1.0)
        assert dist == pytest.approx(exact, rel=1e-12)
    assert "linear losses attain it" in _flag(zhang17.LEMMA_2, FlagKind.CAVEAT)


# --------------------------------------------------------------------------- Lemma 3
GRID = ((1e-3, 1.0), (0.01, 1.0), (0.1, 1.0), (0.5, 1.0), (1.0, 1.0), (1.0, 10.0), (2.0, 3.0))


def test_lemma_3_fixed_points():
    lem = zhang17.LEMMA_3
    L, n, eta, mu, beta = (lem.symbol(k) for k in ("lipschitz", "n", "learning_rate", "strong_convexity",
                                                   "smoothness"))
    at = {eta: 1 / (mu + beta)}
    fp = lem.formula("printed_recursion_fixed_point").expr.subs(at)
    kappa = 2 * mu * beta / (mu + beta) ** 2
    closed = L * (mu + beta) * (1 + sp.sqrt(1 + 2 * kappa)) / (n * mu * beta)
    printed = lem.formula("sensitivity").expr
    ratio_max = (1 + sp.sqrt(2)) / 5
    for m, b in GRID:
        vals = {mu: m, beta: b, L: 1, n: 1}
        assert float(fp.subs(vals)) == pytest.approx(float(closed.subs(vals)), rel=1e-12)
        ratio = float((fp / printed).subs(vals))
        assert ratio <= float(ratio_max) * (1 + 1e-12)
        # iterate the squared recursion from 0: increasing, to the fixed point
        q2 = 1 - 2 * (1 / (m + b)) * m * b / (m + b)
        u = 1 / (m + b)
        x, prev = 0.0, -1.0
        for _ in range(200_000):
            x = math.sqrt(q2 * x * x + 4 * u * x + 8 * u * u)
            assert x >= prev
            if x - prev < 1e-15:
                break
            prev = x
        assert x == pytest.approx(float(fp.subs(vals)), rel=1e-9)
    # the maximum ratio is at mu = beta
    assert float((fp / printed).subs({mu: 1, beta: 1, L: 1, n: 1})) == pytest.approx(float(ratio_max), rel=1e-14)
    assert f"{float(ratio_max):.3f}" == "0.483" and "0.483" in _flag(lem, FlagKind.CAVEAT)
    # tight: the fixed point 2 eta L/(n (1 - q)) of the contraction recursion is below 2L(mu+beta)/(n mu beta)
    for m, b in GRID:
        for frac in (0.1, 0.5, 1.0, 2.0):
            e = frac / (m + b)  # up to 2/(mu + beta)
            q = math.sqrt(1 - 2 * e * m * b / (m + b))
            fixed = 2 * e / (1 - q)
            tight = lem.evaluate("sensitivity_tight", check=False, lipschitz=1.0, n=1, learning_rate=e,
                                 strong_convexity=m, smoothness=b)
            assert fixed <= tight * (1 + 1e-12)


def test_lemma_3_gradient_descent_below_tight():
    rng = random.Random(20170903)
    n, dim, steps = 5, 2, 150
    worst = 0.0
    for mu in (0.05, 0.3, 1.0):
        beta = 0.25 + mu  # logistic (||x|| <= 1) plus (mu/2)||w||^2

        def grad(w, rec, mu=mu):
            return [a + mu * b for a, b in zip(_logistic_grad(w, rec), w)]

        eta = 1 / (mu + beta)
        q = zhang17.LEMMA_3.evaluate("contraction", lipschitz=1.0, n=n, learning_rate=eta, strong_convexity=mu,
                                     smoothness=beta)
        for _ in range(6):
            data = [(_unit_ball_point(rng, dim), rng.choice((-1.0, 1.0))) for _ in range(n)]
            other = (_unit_ball_point(rng, dim), rng.choice((-1.0, 1.0)))
            k = rng.randrange(n)
            # one GD step of F(., S) contracts pairs by q
            for _ in range(5):
                a, b = _unit_ball_point(rng, dim, 3.0), _unit_ball_point(rng, dim, 3.0)
                ga = [sum(c) / n for c in zip(*(grad(a, r) for r in data))]
                gb = [sum(c) / n for c in zip(*(grad(b, r) for r in data))]
                step = math.dist([x - eta * y for x, y in zip(a, ga)], [x - eta * y for x, y in zip(b, gb)])
                assert step <= q * math.dist(a, b) * (1 + 1e-12)
            dists = _gd_pair(grad, data, other, k, eta, steps, dim)
            # ||w_hat|| <= 1/mu (the logistic gradient is at most 1), so the iterates stay in ||w|| <= 2/mu,
            # where each f is (1 + 2 mu / mu) = 3-Lipschitz
            tight = zhang17.LEMMA_3.evaluate("sensitivity_tight", lipschitz=3.0, n=n, learning_rate=eta,
                                             strong_convexity=mu, smoothness=beta)
            assert max(dists) <= tight
            worst = max(worst, max(dists) / tight)
    assert worst > 0.01
