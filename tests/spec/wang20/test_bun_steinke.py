"""wang20 Theorem 3 and Algorithm 2 (spec.wang20.bun_steinke)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from statistics import NormalDist

import mpmath
import pytest
from scipy import integrate

from spec.errors import AssumptionError, ParameterError
from spec.wang20 import gradient_descent as gd
from spec.wang20 import bun_steinke as tm


def _flag_text(record, kind_name, index=0):
    flags = [f for f in record.flags if f.kind.name == kind_name]
    return flags[index].summary + " " + flags[index].reason


# --------------------------------------------------------------------------- oracles
def clipped_trimmed_mean(values, m, a, b) -> Fraction:
    """[trim_m(x)]_[a,b], exact (typed from Algorithm 2, line 2)."""
    x = sorted(Fraction(v) for v in values)
    middle = x[m:len(x) - m]
    mean = sum(middle) / len(middle)
    return min(max(mean, Fraction(a)), Fraction(b))


def printed_bound_exact(values, m, a, b, t):
    """Algorithm 2, line 1 as printed, in mpmath (independent of the module)."""
    x = sorted(values)
    spread = mpmath.mpf(x[-1] - x[0]) / (len(x) - 2 * m)
    return max(spread, mpmath.exp(-m * mpmath.mpf(t)) * (b - a))


# --------------------------------------------------------------------------- the smooth bound
def test_printed_bound_counterexample():
    t, a, b, m = 0.01, 0, 4, 1
    x, y = (0, 1, 2, 3, 4), (0, 1, 2, 3, 1000)
    kw = dict(trim=m, dilation=t, mean_lower=a, mean_upper=b)
    ratio_printed = tm.smooth_bound(y, form="printed", **kw) / tm.smooth_bound(x, form="printed", **kw)
    assert f"{ratio_printed:.1f}" == "84.2"
    oracle = printed_bound_exact(y, m, a, b, t) / printed_bound_exact(x, m, a, b, t)
    assert ratio_printed == pytest.approx(float(oracle))
    assert ratio_printed > 80 * math.exp(t)
    # the corrected bound moves by exactly e^t on this pair, and bounds the actual change
    ratio = tm.smooth_bound(y, **kw) / tm.smooth_bound(x, **kw)
    assert ratio == pytest.approx(math.exp(t), rel=1e-14)
    change = abs(clipped_trimmed_mean(x, m, a, b) - clipped_trimmed_mean(y, m, a, b))
    assert change <= tm.sensitivity_terms(x, trim=m, mean_lower=a, mean_upper=b)[0]
    text = _flag_text(tm.ALG_2, "ERRATUM")
    assert "84.2" in text and "1.01" in text and f"{math.exp(t):.2f}" == "1.01"


def _grid_check(values, size, m, a, b, t):
    """Exhaustive check over all multisets of ``size`` values from ``values``.

    Returns (#multisets, #violations of LS <= A^(0), #violations of A^(k)(y) <= A^(k+1)(x),
    #violations of S(y) <= e^t S(x) for the corrected bound, same for the printed bound).
    """
    multisets = list(itertools.combinations_with_replacement(sorted(values), size))
    stat, terms, corrected, printed = {}, {}, {}, {}
    for x in multisets:
        stat[x] = clipped_trimmed_mean(x, m, a, b)
        terms[x] = tm.sensitivity_terms(x, trim=m, mean_lower=a, mean_upper=b)
        kw = dict(trim=m, dilation=t, mean_lower=a, mean_upper=b)
        corrected[x] = tm.smooth_bound(x, **kw)
        printed[x] = tm.smooth_bound(x, form="printed", **kw)
    bad_ls = bad_terms = bad_corrected = bad_printed = 0
    grow = math.exp(t) * (1 + 1e-12)  # floats rounded up: allow the last bits
    for x in multisets:
        local = Fraction(0)
        for i in range(size):
            if i and x[i] == x[i - 1]:
                continue  # same multiset of neighbours
            rest = x[:i] + x[i + 1:]
            for value in values:
                y = tuple(sorted(rest + (value,)))
                local = max(local, abs(stat[x] - stat[y]))
                # A^(k)(y) <= A^(k+1)(x) for every k (A^(k) = b - a beyond the tuple)
                tx, ty = terms[x], terms[y]
                for k in range(len(ty)):
                    if ty[k] > tx[min(k + 1, len(tx) - 1)]:
                        bad_terms += 1
                bad_corrected += corrected[y] > grow * corrected[x]
                bad_printed += printed[y] > grow * printed[x]
        bad_ls += local > terms[x][0]
    return len(multisets), bad_ls, bad_terms, bad_corrected, bad_printed


def test_smooth_bound_exhaustive_grid():
    # sizes 5 over {-2, ..., 6} with two far values added, so that the printed bound is exercised
    values = list(range(-2, 7)) + [-1000, 1000]
    count, bad_ls, bad_terms, bad_corrected, bad_printed = _grid_check(values, 5, 1, 0, 4, 0.01)
    assert count == 3003
    assert (bad_ls, bad_terms, bad_corrected) == (0, 0, 0)
    assert bad_printed == 13333  # the check can fail: it fails for the printed bound
    assert math.comb(5 + 9 - 1, 5) == 1287
    text = _flag_text(tm.ALG_2, "ERRATUM")
    assert "1287" in text and "3003" in text and f"{bad_printed} " in text
    # m = 2 (so A^(1) is a genuine spread), n = 6, a narrower range
    values2 = list(range(-1, 5)) + [-100, 100]
    count2, *bad2 = _grid_check(values2, 6, 2, 0, 2, 0.05)
    assert count2 == math.comb(6 + 8 - 1, 6)
    assert bad2[:3] == [0, 0, 0] and bad2[3] > 0


def test_sensitivity_terms_and_validation():
    x = [5.0, -1.0, 2.0, 2.5, 0.0, 9.0]
    terms = tm.sensitivity_terms(x, trim=2, mean_lower=-1, mean_upper=3)
    # sorted: -1, 0, 2, 2.5, 5, 9; n - 2m = 2; A^(0) = (x_(5) - x_(2))/2, A^(1) = (x_(6) - x_(1))/2 capped at 4
    assert terms == (Fraction(5, 2), Fraction(4), Fraction(4))
    with pytest.raises(ParameterError, match=r"trim \(3\) must be < n/2"):
        tm.sensitivity_terms(x, trim=3, mean_lower=0, mean_upper=1)
    with pytest.raises(ParameterError, match=r"mean_lower \(1\) must be < mean_upper \(1\)"):
        tm.smooth_bound(x, trim=1, dilation=0.1, mean_lower=1, mean_upper=1)
    with pytest.raises(ParameterError, match="form"):
        tm.smooth_bound(x, trim=1, dilation=0.1, mean_lower=0, mean_upper=1, form="seed")
    with pytest.raises(ParameterError, match=r"sample\[1\] \(nan\)"):
        tm.smooth_bound([1.0, float("nan"), 2.0], trim=0, dilation=0.1, mean_lower=0, mean_upper=1)
    with pytest.raises(ParameterError, match="empty"):
        tm.sensitivity_terms([], trim=0, mean_lower=0, mean_upper=1)
    with pytest.raises(TypeError):
        tm.smooth_bound("12", trim=0, dilation=0.1, mean_lower=0, mean_upper=1)
    # m = 0: the clipped mean's global sensitivity b - a
    assert tm.smooth_bound([1.0, 2.0], trim=0, dilation=0.1, mean_lower=0, mean_upper=3) == 3.0


def test_noise_scale_rounds_up_once():
    x = [0.1 * i for i in range(1, 40)]
    kw = dict(trim=3, dilation=0.0625, mean_lower=-1.0, mean_upper=1.0)
    scale = tm.noise_scale(x, shift=0.25, **kw)
    exact = tm._smooth_bound_exact(x, form="corrected", **kw) / mpmath.mpf(0.25)
    assert mpmath.mpf(scale) >= exact and scale == pytest.approx(float(exact), rel=1e-15)


def test_alg_2_formulas():
    rec = tm.ALG_2
    assert rec.evaluate("dilation", epsilon=1.0) == 1 / 16
    assert rec.evaluate("shift", epsilon=1.0) == 0.25
    assert rec.evaluate("rho", epsilon=0.5) == 0.125
    with pytest.raises(AssumptionError, match="trim_lt_half"):
        rec.evaluate("trimmed_count", n=10, trim=5)
    with pytest.raises(AssumptionError, match="epsilon_le_1"):
        rec.evaluate("dilation", epsilon=1.5)
    # the default trimming count: smallest m with e^{-mt}(b - a) <= 1/n, capped below n/2
    for eps, n_, a, b in ((1.0, 10**4, -1.0, 1.0), (0.5, 500, 0.0, 10.0), (1.0, 50, 0.0, 0.01)):
        m = rec.evaluate("trim_default", epsilon=eps, n=n_, mean_lower=a, mean_upper=b)
        t = eps**2 / 16
        uncapped = max(0, math.ceil(math.log(n_ * (b - a)) / t))
        assert m == min(uncapped, (n_ - 1) // 2)
        if m == uncapped and m > 0:
            assert math.exp(-m * t) * (b - a) <= 1 / n_ < math.exp(-(m - 1) * t) * (b - a)


def test_constant_trim_ruins_utility():
    rec = tm.ALG_2
    values = dict(epsilon=1.0, n=10**4, mean_lower=-1.0, mean_upper=1.0)
    m_default = rec.evaluate("trim_default", **values)
    floor_default = rec.evaluate("noise_scale_floor", trim=m_default, **values)
    floor_one = rec.evaluate("noise_scale_floor", trim=1, **values)
    assert m_default == 159
    assert f"{floor_default:.1e}" == "3.9e-04" and f"{floor_one:.2f}" == "7.52"
    # the data's own local-sensitivity term at the N(0, 1) population quantiles
    q = NormalDist().inv_cdf(m_default / values["n"])
    ls_term = 2 * abs(q) / (values["n"] - 2 * m_default)
    assert f"{ls_term:.1e}" == "4.4e-04"
    assert rec.evaluate("floor_term", trim=m_default, **values) < ls_term
    floor_term_one = rec.evaluate("floor_term", trim=1, **values)
    assert floor_term_one > 4000 * ls_term and f"{floor_term_one:.2f}" == "1.88"
    # inside Algorithm 3 the per-coordinate budget makes the default exceed n/2
    a3 = dict(epsilon=1.0, delta=1e-5, dimension=10, steps=20, n=10**5, mean_lower=-1.0, mean_upper=1.0)
    t3 = gd.ALG_3.evaluate("dilation", **{k: a3[k] for k in ("epsilon", "delta", "dimension", "steps")})
    uncapped = math.ceil(math.log(a3["n"] * 2.0) / t3)
    m3 = gd.ALG_3.evaluate("trim_default", **a3)
    assert m3 == 49999 < uncapped
    eps0 = gd.ALG_3.evaluate("coordinate_epsilon", **{k: a3[k] for k in ("epsilon", "delta", "dimension", "steps")})
    floor3 = rec.evaluate("noise_scale_floor", epsilon=eps0, trim=m3, n=a3["n"], mean_lower=-1.0, mean_upper=1.0)
    # the smallest n at which the default is not capped
    n_needed = 3
    while max(0, math.ceil(math.log(n_needed * 2.0) / t3)) > (n_needed - 1) // 2:
        n_needed = int(n_needed * 1.01) + 1
    text = _flag_text(rec, "ERRATUM", 1)
    for shown in ("159", "3.9e-4", "7.52", "4.4e-4", "= 1.88", "4000-fold", f"{uncapped}", "49999", f"{floor3:.0f}",
                  f"{float(f'{n_needed:.0e}'):.0e}".replace("e+0", "e")):
        assert shown in text, shown


# --------------------------------------------------------------------------- Theorem 3
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _log_density(z):
    """log density of sinh(Y) without the normalising constant (it cancels in p/q)."""
    return -math.asinh(z) ** 2 / 2 - math.log(math.hypot(1.0, z))


def renyi_arsinh(alpha, tau, shift):
    """D_alpha(Z || e^tau Z + shift), Z = sinh(Y), by quadrature over y (z = sinh y).

    The integrand phi(y) (p/q)^(alpha - 1) is located by a scan and integrated around its peak
    (for large alpha the mass sits near y = -(alpha - 1) tau, far in the tail).
    """
    a1 = alpha - 1

    def log_integrand(y):
        z = math.sinh(y)
        log_q = -tau + _log_density((z - shift) * math.exp(-tau))
        return -y * y / 2 + a1 * (_log_density(z) - log_q)

    grid = [k / 8 for k in range(-3200, 3201)]
    peak = max(grid, key=log_integrand)
    top = log_integrand(peak)
    lo, hi = peak - 60, peak + 60
    points = sorted(p for p in {peak - 12, peak - 4, peak, peak + 4, peak + 12, -8, -3, 0, 3, 8} if lo < p < hi)
    value, _ = integrate.quad(lambda y: math.exp(log_integrand(y) - top), lo, hi, points=points, limit=400,
                              epsabs=0, epsrel=1e-11)
    return (top + math.log(value) - _LOG_SQRT_2PI) / a1


def renyi_arsinh_mpmath(alpha, tau, shift):
    """The same divergence with mpmath quadrature on the whole line (independent oracle)."""
    with mpmath.workdps(30):
        a1 = mpmath.mpf(alpha) - 1
        tau, shift = mpmath.mpf(tau), mpmath.mpf(shift)

        def logp(z):
            return -mpmath.asinh(z) ** 2 / 2 - mpmath.log(mpmath.sqrt(1 + z * z))

        def f(y):
            z = mpmath.sinh(y)
            return mpmath.npdf(y) * mpmath.exp(a1 * (logp(z) + tau - logp((z - shift) * mpmath.exp(-tau))))

        return float(mpmath.log(mpmath.quad(f, [-mpmath.inf, -8, -3, 0, 3, 8, mpmath.inf])) / a1)


_ORDERS = (1.001, 1.5, 2, 3, 5, 10, 30, 100, 300, 1000)


def _worst_ratio(eps, shift_factor=0.25):
    t, s = eps**2 / 16, shift_factor * eps
    return max(
        renyi_arsinh(alpha, tau, shift) / (alpha * eps**2 / 2)
        for alpha in _ORDERS for tau in (-t, 0.0, t) for shift in (0.0, s / 2, s)
    )


def test_arsinh_normal_zcdp_at_printed_parameters():
    # the quadrature agrees with an independent mpmath evaluation
    for alpha, tau, shift in ((2, -0.0625, 0.25), (5, 0.0625, 0.125), (1.5, 0.0, 0.25)):
        assert renyi_arsinh(alpha, tau, shift) == pytest.approx(renyi_arsinh_mpmath(alpha, tau, shift), rel=1e-8)
    assert abs(renyi_arsinh(3, 0.0, 0.0)) < 1e-12
    # Theorem 3's parameters: D_alpha <= alpha epsilon^2/2 with a wide margin
    worst = {eps: _worst_ratio(eps) for eps in (0.1, 0.5, 1.0, 2.0)}
    shown = {eps: f"{r:.3f}" for eps, r in worst.items()}
    assert shown == {0.1: "0.047", 0.5: "0.048", 1.0: "0.053", 2.0: "0.074"}
    assert max(worst.values()) < 0.1
    # the check can fail: a shift 8 times s (2 epsilon) breaks the claim
    twin = _worst_ratio(1.0, shift_factor=2.0)
    assert twin > 1
    text = _flag_text(tm.THM_3, "CAVEAT")
    for eps, value in shown.items():
        assert value in text
    assert f"ratio {twin:.1f}" in text


def test_thm_3_records():
    rec = tm.THM_3
    assert rec.exponents(0) == {"n": -1, "epsilon": -2}
    assert rec.privacy.rho == tm.RHO
    # Algorithm 2 and Theorem 3 share one expression per parameter
    for name in ("dilation", "shift", "rho"):
        assert rec.formula(name).expr == tm.ALG_2.formula(name).expr
