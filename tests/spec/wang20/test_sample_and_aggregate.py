"""wang20 Section 4: sample-and-aggregate (spec.wang20.sample_and_aggregate)."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import mpmath
import pytest
import sympy as sp
from scipy import integrate

from spec.wang20 import sample_and_aggregate as sa


def _flag_text(record, kind_name, index=0):
    flags = [f for f in record.flags if f.kind.name == kind_name]
    return flags[index].summary + " " + flags[index].reason


def _parameters(m):
    """(s, t0, K) from the record's formulas."""
    rec = sa.ALG_1
    return (rec.evaluate("multiplicity", subsets=m), rec.evaluate("attention_rank", subsets=m),
            rec.evaluate("last_shift", subsets=m))


# --------------------------------------------------------------------------- the admissibility check
def hockey_stick(eps, shift, lam, d):
    """sup_U P(U) - e^eps Q(U) for P = N(0, I_d), Q = N(shift e_1, e^{2 lam} I_d), exactly.

    The privacy loss is L = A(u) + c w with u the coordinate along the shift, w ~ chi^2_{d-1} the rest,
    c = (e^{-2 lam} - 1)/2; for fixed u the expectation over w is closed form (incomplete Gamma
    functions, using e^{-c w} chi^2_k(w) = (1 + 2c)^{-k/2} chi^2_k(w (1 + 2c)) (1 + 2c)), leaving
    one integral over u, split where the integrand has kinks (A(u) = eps).
    """
    with mpmath.workdps(20):
        eps, shift, lam = mpmath.mpf(eps), mpmath.mpf(shift), mpmath.mpf(lam)
        k = d - 1
        c = (mpmath.exp(-2 * lam) - 1) / 2
        tilt = 1 + 2 * c
        half_k = mpmath.mpf(k) / 2

        def A(u):
            return -u * u / 2 + (u - shift) ** 2 * mpmath.exp(-2 * lam) / 2 + d * lam

        def inner(u):
            a = A(u)
            if k == 0 or c == 0:
                return 1 - mpmath.exp(eps - a) if a > eps else mpmath.mpf(0)
            w0 = (eps - a) / c
            if c > 0:  # the loss exceeds eps when w > w0
                if w0 <= 0:
                    return 1 - mpmath.exp(eps - a) * tilt ** (-half_k)
                p1 = mpmath.gammainc(half_k, w0 / 2, mpmath.inf, regularized=True)
                p2 = mpmath.gammainc(half_k, w0 * tilt / 2, mpmath.inf, regularized=True)
            else:  # when w < w0
                if w0 <= 0:
                    return mpmath.mpf(0)
                p1 = mpmath.gammainc(half_k, 0, w0 / 2, regularized=True)
                p2 = mpmath.gammainc(half_k, 0, w0 * tilt / 2, regularized=True)
            return p1 - mpmath.exp(eps - a) * tilt ** (-half_k) * p2

        # kinks: real roots of A(u) = eps (a quadratic, linear when lam = 0)
        e2 = mpmath.exp(-2 * lam)
        qa, qb, qc = c, -shift * e2, shift**2 * e2 / 2 + d * lam - eps
        roots = []
        if qa == 0:
            roots = [-qc / qb] if qb != 0 else []
        else:
            disc = qb * qb - 4 * qa * qc
            if disc >= 0:
                roots = [(-qb - mpmath.sqrt(disc)) / (2 * qa), (-qb + mpmath.sqrt(disc)) / (2 * qa)]
        points = sorted({mpmath.mpf(p) for p in (-10, -5, -2, 0, 2, 5, 10)} | {r for r in roots if abs(r) < 40})
        return mpmath.quad(lambda u: mpmath.npdf(u) * inner(u), [-mpmath.inf] + points + [mpmath.inf])


def _worst_over_box(eps, delta, d, multiplier=1.0):
    log_term = math.log(2 / delta)
    gamma = multiplier * eps / (5 * math.sqrt(2 * log_term))
    beta = multiplier * eps / (4 * (d + log_term))
    return max(float(hockey_stick(eps, gamma, lam, d)) for lam in (-beta, 0.0, beta))


def test_gaussian_admissibility_constants():
    # the computation against the exact Gaussian (shift only) and a direct 2-D quadrature
    eps, shift = 1.0, 0.7
    exact = mpmath.ncdf(shift / 2 - eps / shift) - mpmath.exp(eps) * mpmath.ncdf(-shift / 2 - eps / shift)
    assert float(hockey_stick(eps, shift, 0.0, 1)) == pytest.approx(float(exact), rel=1e-12)
    assert float(hockey_stick(eps, shift, 0.0, 5)) == pytest.approx(float(exact), rel=1e-12)

    def direct(e, sh, lam):
        """Plain 2-D quadrature of E_P[(1 - e^{eps - L})_+] in floats (scipy)."""
        def f(v, u):
            loss = -(u * u + v * v) / 2 + ((u - sh) ** 2 + v * v) * math.exp(-2 * lam) / 2 + 2 * lam
            weight = math.exp(-(u * u + v * v) / 2) / (2 * math.pi)
            return weight * (1 - math.exp(e - loss)) if loss > e else 0.0
        value, _ = integrate.dblquad(f, -12, 12, -12, 12, epsabs=1e-10, epsrel=1e-8)
        return value

    for lam in (0.2, -0.2):
        assert float(hockey_stick(0.3, 0.8, lam, 2)) == pytest.approx(float(direct(0.3, 0.8, lam)), rel=1e-7)
    # NRS07's constants (as cited in Algorithm 1, line 1)
    delta = 1e-5
    worst = max(_worst_over_box(e, delta, d) for e in (0.5, 1.0) for d in (1, 10, 100))
    assert worst <= delta
    doubled = _worst_over_box(1.0, delta, 10, multiplier=2.0)
    quadrupled = _worst_over_box(1.0, delta, 10, multiplier=4.0)
    assert doubled < delta < quadrupled  # the check can fail
    text = _flag_text(sa.THM_1, "CAVEAT")
    assert f"{worst / delta:.1e}".replace("e-0", "e-") + " delta" in text
    assert f"{doubled / delta:.3f} delta" in text and f"{quadrupled / delta:.0f} delta" in text


# --------------------------------------------------------------------------- the smooth bound (oracles)
def _l1(p, q):
    if isinstance(p, tuple):
        return sum(abs(x - y) for x, y in zip(p, q))
    return abs(p - q)


def _radius_table(points, cap):
    """r(i, t): distance from points[i] to its t-th nearest neighbour (itself first), cap beyond m."""
    m = len(points)
    dists = [sorted(_l1(points[i], points[j]) for j in range(m)) for i in range(m)]

    def r(i, t):
        return cap if t > m else dists[i][t - 1]

    return r


def _attention_set(points, t0, cap):
    """Every possible output of the centre of attention (all tie-breaks of the argmin)."""
    r = _radius_table(points, cap)
    radii = [r(i, t0) for i in range(len(points))]
    best = min(radii)
    return {points[i] for i in range(len(points)) if radii[i] == best}


def _order_terms(points, s, t0, cap, kmax):
    """A^(k) = 2 r_((k+1)s+1)(t0 + (k+1)s), k = 0..kmax (the reconstructed bound)."""
    m = len(points)
    r = _radius_table(points, cap)
    terms = []
    for k in range(kmax + 1):
        t = t0 + (k + 1) * s
        column = sorted(r(i, t) for i in range(m))
        rank = (k + 1) * s + 1
        terms.append(2 * (column[rank - 1] if rank <= m else cap))
    return terms


def _printed_terms(points, s, t0, cap, kmax, count, largest=True):
    """2 rho(t0 + (k+1)s), rho the mean of the largest (printed 'top') or smallest ``count`` radii."""
    m = len(points)
    r = _radius_table(points, cap)
    terms = []
    for k in range(kmax + 1):
        column = sorted(r(i, t0 + (k + 1) * s) for i in range(m))
        chosen = column[-count:] if largest else column[:count]
        terms.append(2 * sum(chosen) / count)
    return terms


def _smooth(terms, beta):
    return max(term * math.exp(-beta * k) for k, term in enumerate(terms))


# --------------------------------------------------------------------------- erratum and reconstruction
def _random_pair(rng, m, s, spread, dim):
    def point():
        if dim == 1:
            return rng.randint(0, spread)
        return tuple(rng.randint(0, spread) for _ in range(dim))

    centre = point()
    width = rng.randint(0, spread // 4)

    def near():
        if dim == 1:
            return min(spread, max(0, centre + rng.randint(-width, width)))
        return tuple(min(spread, max(0, c + rng.randint(-width, width))) for c in centre)

    x = [near() for _ in range(m)]
    y = list(x)
    for i in rng.sample(range(m), rng.randint(1, s)):
        y[i] = rng.choice([point(), near(), (0 if dim == 1 else (0,) * dim),
                           (spread if dim == 1 else (spread,) * dim)])
    return x, y


def test_top_radii_are_not_smooth():
    m, beta, cap = 30, 1.0, 1000
    s, t0, K = _parameters(m)
    assert (s, t0, K) == (5, 18, 2)
    count = min(m, math.ceil(s / beta))
    x = [0] * m
    y = [cap] * s + [0] * (m - s)
    top_x = _smooth(_printed_terms(x, s, t0, cap, K + 1, count), beta)
    top_y = _smooth(_printed_terms(y, s, t0, cap, K + 1, count), beta)
    assert top_x == pytest.approx(2 * cap * math.exp(-2 * beta)) and top_y == pytest.approx(2 * cap)
    assert top_y / top_x == pytest.approx(math.exp(2)) and top_y / top_x > math.exp(beta)
    # the reconstructed bound on the same pair, both directions
    ours_x = _smooth(_order_terms(x, s, t0, cap, K + 1), beta)
    ours_y = _smooth(_order_terms(y, s, t0, cap, K + 1), beta)
    assert max(ours_y / ours_x, ours_x / ours_y) <= math.exp(beta) * (1 + 1e-12)
    # seeded random pairs: the printed reading's worst ratio, in units of e^beta
    rng = random.Random(20200712)
    worst_top = worst_ours = 0.0
    for _ in range(400):
        px, py = _random_pair(rng, m, s, cap, 1)
        tx, ty = _printed_terms(px, s, t0, cap, K + 1, count), _printed_terms(py, s, t0, cap, K + 1, count)
        worst_top = max(worst_top, _smooth(ty, beta) / _smooth(tx, beta) / math.exp(beta))
        ox, oy = _order_terms(px, s, t0, cap, K + 1), _order_terms(py, s, t0, cap, K + 1)
        worst_ours = max(worst_ours, _smooth(oy, beta) / _smooth(ox, beta) / math.exp(beta))
    assert worst_top > 2 and worst_ours <= 1 + 1e-12
    text = _flag_text(sa.ALG_1, "ERRATUM")
    assert f"reach {worst_top:.1f} e^beta" in text
    for shown in ("m = 30 (s = 5, t0 = 18, K = 2)", "e^2 = 7.39", "e^beta = 2.72"):
        assert shown in text
    assert f"{math.exp(2):.2f}" == "7.39" and f"{math.exp(1):.2f}" == "2.72"


def _exhaustive(m, values, beta):
    s, t0, K = _parameters(m)
    cap = max(values) - min(values)
    kmax = K + 2
    multisets = list(itertools.combinations_with_replacement(values, m))
    counts = [Counter(x) for x in multisets]
    terms = [_order_terms(list(x), s, t0, cap, kmax) for x in multisets]
    outputs = [_attention_set(list(x), t0, cap) for x in multisets]
    pairs = bad_ls = bad_terms = 0
    for i, x in enumerate(multisets):
        for j in range(len(multisets)):
            common = sum(min(counts[i][v], counts[j][v]) for v in counts[i])
            if common < m - s:
                continue
            pairs += 1
            change = max(abs(p - q) for p in outputs[i] for q in outputs[j])
            bad_ls += change > terms[i][0]
            bad_terms += sum(terms[j][k] > terms[i][k + 1] for k in range(kmax))
    return pairs, bad_ls, bad_terms


def test_smooth_bound_exhaustive():
    for m, values, expected_pairs in ((7, range(6), 75132), (8, range(5), 30195)):
        pairs, bad_ls, bad_terms = _exhaustive(m, list(values), beta=1.0)
        assert pairs == expected_pairs and (bad_ls, bad_terms) == (0, 0)
    # another reading of line 5 (mean of the ceil(s/beta) smallest radii) is not an upper bound when the
    # argmin may break ties either way
    m, beta = 8, 1.0
    s, t0, K = _parameters(m)
    x, y = [0, 0, 1, 1, 2, 2, 2, 2], [0, 0, 2, 2, 2, 2, 2, 4]
    cap = 4
    assert sum((Counter(x) & Counter(y)).values()) >= m - s
    change = max(abs(p - q) for p in _attention_set(x, t0, cap) for q in _attention_set(y, t0, cap))
    smallest = _smooth(_printed_terms(x, s, t0, cap, K + 1, math.ceil(s / beta), largest=False), beta)
    ours = _smooth(_order_terms(x, s, t0, cap, K + 1), beta)
    assert change == 3 and f"{smallest:.2f}" == "2.94" and change <= ours
    text = _flag_text(sa.ALG_1, "RECONSTRUCTED")
    assert "|g(x) - g(y)| = 3 > S(x) = 2.94" in text and "75132 and 30195 ordered pairs" in text


def test_smooth_bound_random():
    rng = random.Random(12)
    checked = 0
    for m, dim in ((16, 1), (30, 1), (50, 1), (16, 2), (30, 2)):
        s, t0, K = _parameters(m)
        spread = 1000
        cap = spread * dim  # l1 diameter of the box
        for _ in range(120):
            x, y = _random_pair(rng, m, s, spread, dim)
            tx, ty = _order_terms(x, s, t0, cap, K + 2), _order_terms(y, s, t0, cap, K + 2)
            change = max(_l1(p, q) for p in _attention_set(x, t0, cap) for q in _attention_set(y, t0, cap))
            assert change <= tx[0]
            assert all(ty[k] <= tx[k + 1] for k in range(K + 2))
            checked += 1
    assert checked == 600


def test_attention_rank():
    rec = sa.ALG_1
    for m in range(1, 3001):
        s = rec.evaluate("multiplicity", subsets=m)
        t0 = rec.evaluate("attention_rank", subsets=m)
        k_last = rec.evaluate("last_shift", subsets=m)
        assert s == math.isqrt(m)
        assert 2 * t0 > m + s >= 2 * (t0 - 1)  # the smallest such integer
        if m >= 3:
            assert t0 <= m
            assert t0 + k_last * s <= m < t0 + (k_last + 1) * s
    text = _flag_text(rec, "RECONSTRUCTED")
    assert "every m <= 3000" in text


# --------------------------------------------------------------------------- the parameters and rates
def test_alg_1_parameters():
    rec = sa.ALG_1
    values = dict(epsilon=1.0, delta=1e-5, dimension=10, subsets=10000, n=10**6, diameter=2.0)
    log_term = math.log(2 / 1e-5)
    assert rec.evaluate("shift", **values) == pytest.approx(1 / (5 * math.sqrt(2 * log_term)), rel=1e-15)
    assert rec.evaluate("dilation", **values) == pytest.approx(1 / (4 * (10 + log_term)), rel=1e-15)
    assert rec.evaluate("shift", **values) <= 1 / (5 * math.sqrt(2 * log_term))  # rounded down
    assert rec.evaluate("noise_multiplier", **values) >= 5 * math.sqrt(2 * log_term)
    assert rec.evaluate("block_size", **values) == 100
    assert rec.evaluate("attention_rank", **values) == 5051
    assert rec.evaluate("last_shift", **values) == 49
    assert rec.evaluate("printed_average_count", **values) == math.ceil(100 * 4 * (10 + log_term))
    assert sa.THM_1.exponents(0) == {"epsilon": -1}
    assert [line.label for line in rec.pseudocode] == [f"L{k}" for k in range(1, 7)]


def test_thm_2_rate_from_lemma_1_and_thm_1():
    n, m, d, eps = sp.symbols("n m d epsilon", positive=True)
    alpha, beta, G, risk = sp.symbols("alpha beta G L", positive=True)
    r = G * sp.sqrt(m / n) / alpha  # Lemma 1 on blocks of n/m records
    noise_sd = r / eps  # Theorem 1: O(r/epsilon) per coordinate
    excess = beta / 2 * d * noise_sd**2  # smoothness at w*, grad L_D(w*) = 0
    excess = excess.subs(m, d**2 / eps**2).subs(G**2, 2 * beta * risk)  # m ~ d^2/eps^2; self-bounding
    claim = sa.THM_2.utility[0].bound
    symbols = {s.name: s.symbol for s in sa.THM_2.symbols}
    claim = claim.subs({symbols["n"]: n, symbols["dimension"]: d, symbols["epsilon"]: eps,
                        symbols["strong_convexity"]: alpha, symbols["smoothness"]: beta,
                        symbols["minimal_risk"]: risk}, simultaneous=True)
    assert sp.simplify(excess / claim) == 1
    assert sa.THM_2.exponents(0) == {"n": -1, "dimension": 3, "epsilon": -4}
    assert sa.LEMMA_1.exponents(0) == {"n": sp.Rational(-1, 2)}


def test_smooth_bound_floor_needs_many_blocks():
    at = dict(epsilon=1.0, delta=1e-5, dimension=1, n=10**8)
    rec = sa.ALG_1
    beta = rec.evaluate("dilation", subsets=16, **at)
    multiplier = rec.evaluate("noise_multiplier", subsets=16, **at)
    assert rec.evaluate("last_shift", subsets=16, **at) == 1
    floor = math.exp(-beta)
    needed = math.ceil(1 / beta)
    m = 16
    while rec.evaluate("last_shift", subsets=m, **at) < needed:
        m += 1
    numbers = {"0.0189": beta, "24.7": multiplier, "0.981": floor, "48.5": 2 * floor * multiplier}
    for text, value in numbers.items():
        assert f"{value:.{len(text.split('.')[1])}f}" == text, (text, value)
    assert needed == 53 and m == 11343
    flag = _flag_text(rec, "CAVEAT")
    assert all(text in flag for text in numbers) and "K >= 53" in flag and "m >= 11343" in flag
