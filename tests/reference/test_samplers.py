"""Tests of reference.samplers: each law against an independent oracle.

Oracles: scipy.stats distributions (norm, laplace, gamma, beta, chi, johnsonsu), mpmath
quadrature at 30 digits, and hand-derived closed forms. Statistical tests (KS, chi-square,
CLT bounds) are seeded; each states its false-alarm rate ``ALPHA`` (the probability that a
correct sampler would fail it for a random seed). With fixed seeds the outcome is
deterministic.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.integrate
import scipy.stats
import sympy as sp
from hypothesis import given, settings, strategies as st

from reference.samplers import (
    ArsinhNormal,
    ExponentialMechanism,
    Gaussian,
    Laplace,
    RadialLaplace,
    ReportNoisyMax,
)
from reference.tape import Fresh, NoiseTape, Recorder, Replay
from spec.errors import ParameterError, PrivacyParameterError

#: False-alarm rate of every statistical test in this file (per test).
ALPHA = 1e-4
#: Two-sided normal quantile for ALPHA, used in CLT checks of moments.
Z_ALPHA = scipy.stats.norm.isf(ALPHA / 2)
N = 20_000


def _ks_ok(sample, cdf) -> None:
    """Kolmogorov-Smirnov goodness of fit at level ALPHA."""
    result = scipy.stats.kstest(np.ravel(sample), cdf)
    assert result.pvalue > ALPHA, f"KS statistic {result.statistic:.4g}, p = {result.pvalue:.3g}"


def _mean_ok(values, expected) -> None:
    """CLT check of a sample mean at level ALPHA (normal approximation, N large)."""
    values = np.ravel(values)
    se = values.std(ddof=1) / math.sqrt(values.size)
    assert abs(values.mean() - expected) <= Z_ALPHA * se, (values.mean(), expected, se)


# --------------------------------------------------------------------------------------------
# Gaussian
# --------------------------------------------------------------------------------------------


def test_gaussian_scalar_ks():
    """ALPHA: KS of N(0, 2.5^2) draws against scipy.stats.norm."""
    law = Gaussian(scale=2.5)
    x = law.rvs(N, rng=1)
    assert x.shape == (N,)
    _ks_ok(x, scipy.stats.norm(scale=2.5).cdf)


def test_gaussian_vector_marginals_and_norm():
    """ALPHA each: coordinates are N(0, s^2); ||x||^2 / s^2 is chi-square(dim)."""
    law = Gaussian(scale=0.7, dim=4)
    x = law.rvs((N // 4, 2), rng=2)
    assert x.shape == (N // 4, 2, 4)
    _ks_ok(x[:, 0, 2], scipy.stats.norm(scale=0.7).cdf)
    _ks_ok(np.sum(x[:, 1] ** 2, axis=-1) / 0.49, scipy.stats.chi2(4).cdf)


@pytest.mark.parametrize("dim", [None, 1, 3, 10])
def test_gaussian_logpdf_matches_scipy(dim):
    rng = np.random.default_rng(3)
    law = Gaussian(scale=1.3, dim=dim)
    shape = (7,) if dim is None else (7, dim)
    x = rng.normal(size=shape) * 3
    expected = scipy.stats.norm(scale=1.3).logpdf(x)
    if dim is not None:
        expected = expected.sum(-1)
    np.testing.assert_allclose(law.logpdf(x), expected, rtol=1e-13)


def test_gaussian_moments_and_tails():
    law = Gaussian(scale=2.0, dim=5)
    assert law.expected_norm() == pytest.approx(2.0 * scipy.stats.chi(5).mean(), rel=1e-13)
    assert law.expected_squared_norm() == pytest.approx(20.0)
    scalar = Gaussian(scale=2.0)
    assert scalar.expected_norm() == pytest.approx(2.0 * math.sqrt(2 / math.pi), rel=1e-13)
    x = np.array([-3.0, 0.0, 1.5, 40.0])
    np.testing.assert_allclose(scalar.cdf(x), scipy.stats.norm(scale=2).cdf(x), rtol=1e-13)
    np.testing.assert_allclose(scalar.sf(x), scipy.stats.norm(scale=2).sf(x), rtol=1e-12)
    np.testing.assert_allclose(scalar.logsf(x), scipy.stats.norm(scale=2).logsf(x), rtol=1e-12)
    assert scalar.var() == 4.0 and scalar.mean() == 0.0
    with pytest.raises(ParameterError, match="scalar laws"):
        law.cdf(0.0)


# --------------------------------------------------------------------------------------------
# Laplace
# --------------------------------------------------------------------------------------------


def test_laplace_ks_and_logpdf():
    """ALPHA: KS of Laplace(0, 0.4) draws against scipy.stats.laplace."""
    law = Laplace(scale=0.4)
    x = law.rvs(N, rng=4)
    _ks_ok(x, scipy.stats.laplace(scale=0.4).cdf)
    grid = np.linspace(-5, 5, 41)
    ref = scipy.stats.laplace(scale=0.4)
    np.testing.assert_allclose(law.logpdf(grid), ref.logpdf(grid), rtol=1e-13)
    np.testing.assert_allclose(law.cdf(grid), ref.cdf(grid), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(law.sf(grid), ref.sf(grid), rtol=1e-12, atol=1e-300)
    assert law.var() == pytest.approx(ref.var(), rel=1e-14)


def test_laplace_vector():
    """ALPHA: one coordinate of a vector law is Laplace(0, b)."""
    law = Laplace(scale=1.5, dim=3)
    x = law.rvs(N, rng=5)
    assert x.shape == (N, 3)
    _ks_ok(x[:, 1], scipy.stats.laplace(scale=1.5).cdf)
    pts = np.random.default_rng(0).normal(size=(4, 3))
    np.testing.assert_allclose(law.logpdf(pts), scipy.stats.laplace(scale=1.5).logpdf(pts).sum(-1), rtol=1e-13)
    assert law.expected_squared_norm() == pytest.approx(3 * 2 * 1.5**2)


# --------------------------------------------------------------------------------------------
# RadialLaplace
# --------------------------------------------------------------------------------------------


def _sphere_area_by_gaussian_integral(d: int):
    """S_{d-1} from (2 pi)^{d/2} = S_{d-1} int_0^inf r^{d-1} e^{-r^2/2} dr (no Gamma formula)."""
    radial = mpmath.quad(lambda r: r ** (d - 1) * mpmath.exp(-r * r / 2), [0, 1, 10, mpmath.inf])
    return (2 * mpmath.pi) ** (mpmath.mpf(d) / 2) / radial


@pytest.mark.parametrize("dim,rate", [(1, 0.5), (2, 3.0), (3, 1.0), (5, 2.0), (10, 0.3), (50, 7.0)])
def test_radial_laplace_density_integrates_to_one(dim, rate):
    """mpmath oracle: S_{d-1} int_0^inf r^{d-1} pdf(r e_1) dr = 1."""
    law = RadialLaplace(rate=rate, dim=dim)
    e1 = np.zeros(dim)
    e1[0] = 1.0
    with mpmath.workdps(30):
        area = _sphere_area_by_gaussian_integral(dim)
        log_z = mpmath.mpf(law.log_normaliser)
        # pdf(r e_1) = exp(-rate r - log Z); check the float logpdf agrees at a few radii first
        for r in (0.0, 0.5, 3.0):
            assert float(law.logpdf(r * e1)) == pytest.approx(float(-rate * r - log_z), rel=1e-13, abs=1e-13)
        peak = (dim - 1) / mpmath.mpf(rate)
        total = area * mpmath.quad(
            lambda r: r ** (dim - 1) * mpmath.exp(-rate * r - log_z), [0, peak / 2 + 1e-9, peak + 1e-9, 2 * peak + 1, mpmath.inf]
        )
        assert abs(total - 1) < 1e-12


def test_radial_laplace_dim_one_is_laplace_and_two_dimensional_cartesian_integral():
    law1 = RadialLaplace(rate=2.0, dim=1)
    x = np.linspace(-3, 3, 13)[:, None]
    np.testing.assert_allclose(law1.logpdf(x), scipy.stats.laplace(scale=0.5).logpdf(x[:, 0]), rtol=1e-13, atol=1e-15)
    # d = 2 in Cartesian coordinates (no polar formula): 4 x the integral over the positive
    # quadrant (the density is symmetric); the mass beyond 30 is below e^{-40}.
    law2 = RadialLaplace(rate=1.5, dim=2)
    value, err = scipy.integrate.dblquad(
        lambda v, u: math.exp(float(law2.logpdf(np.array([u, v])))), 0, 30, 0, 30, epsabs=1e-9, epsrel=1e-9
    )
    assert 4 * value == pytest.approx(1.0, abs=1e-8)


def test_radial_laplace_logpdf_is_rotation_invariant():
    rng = np.random.default_rng(6)
    law = RadialLaplace(rate=0.8, dim=4)
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    x = rng.normal(size=(10, 4))
    np.testing.assert_allclose(law.logpdf(x @ q.T), law.logpdf(x), rtol=1e-12)


def test_radial_laplace_norm_is_gamma_and_direction_uniform():
    """ALPHA each: ||b|| ~ Gamma(dim, 1/rate) (KS); first direction coordinate u_1 of a uniform
    point on S^{d-1} has (u_1 + 1)/2 ~ Beta((d-1)/2, (d-1)/2) (KS); octant counts are uniform
    (chi-square, d = 3); norm and direction are uncorrelated (|Pearson r| below the ALPHA
    quantile of its null law, approximately N(0, 1/N))."""
    rate = 2.5
    for dim in (3, 7):
        law = RadialLaplace(rate=rate, dim=dim)
        b = law.rvs(N, rng=7 + dim)
        assert b.shape == (N, dim)
        r = np.linalg.norm(b, axis=-1)
        _ks_ok(r, scipy.stats.gamma(a=dim, scale=1 / rate).cdf)
        u1 = b[:, 0] / r
        _ks_ok((u1 + 1) / 2, scipy.stats.beta((dim - 1) / 2, (dim - 1) / 2).cdf)
        corr = np.corrcoef(r, np.abs(u1))[0, 1]
        assert abs(corr) < Z_ALPHA / math.sqrt(N)
        if dim == 3:
            octant = (b > 0).astype(int) @ np.array([1, 2, 4])
            counts = np.bincount(octant, minlength=8)
            assert scipy.stats.chisquare(counts).pvalue > ALPHA
        np.testing.assert_allclose(law.norm_cdf(np.array([0.5, 2.0])), scipy.stats.gamma(a=dim, scale=1 / rate).cdf([0.5, 2.0]), rtol=1e-12)


def test_radial_laplace_moments():
    """Closed forms vs scipy.stats.gamma; ALPHA each: Monte Carlo means agree (CLT)."""
    law = RadialLaplace(rate=4.0, dim=6)
    g = scipy.stats.gamma(a=6, scale=0.25)
    assert law.expected_norm() == pytest.approx(g.mean(), rel=1e-14)
    assert law.expected_squared_norm() == pytest.approx(g.var() + g.mean() ** 2, rel=1e-14)
    b = law.rvs(N, rng=8)
    _mean_ok(np.linalg.norm(b, axis=-1), law.expected_norm())
    _mean_ok(np.sum(b * b, axis=-1), law.expected_squared_norm())


def test_radial_laplace_zero_direction_is_well_defined():
    """A replayed tape whose Gaussian direction is exactly 0 maps to e_1 without warnings."""
    rec = Recorder(rng=0)
    RadialLaplace(rate=1.0, dim=3).rvs(2, noise=rec)
    tape = rec.tape
    tape.entries[1].values[1] = 0.0
    out = RadialLaplace(rate=1.0, dim=3).rvs(2, noise=Replay(tape))
    assert np.all(np.isfinite(out))
    assert out[1, 1] == 0.0 and out[1, 2] == 0.0 and out[1, 0] > 0


# --------------------------------------------------------------------------------------------
# ArsinhNormal
# --------------------------------------------------------------------------------------------


def test_arsinh_normal_against_johnson_su():
    """scipy.stats.johnsonsu(a=0, b=1, scale=s) is the law of s sinh(Y): an independent oracle."""
    s = 0.3
    law = ArsinhNormal(scale=s)
    ref = scipy.stats.johnsonsu(0.0, 1.0, scale=s)
    x = np.array([-1e6, -40.0, -1.0, -0.01, 0.0, 0.2, 3.0, 1e3, 1e6])
    np.testing.assert_allclose(law.logpdf(x), ref.logpdf(x), rtol=1e-12)
    np.testing.assert_allclose(law.cdf(x), ref.cdf(x), rtol=1e-12)
    np.testing.assert_allclose(law.sf(x), ref.sf(x), rtol=1e-12, atol=1e-300)
    assert law.var() == pytest.approx(ref.var(), rel=1e-12)
    # far tail (scipy's johnsonsu overflows there): mpmath change of variables
    with mpmath.workdps(30):
        z = mpmath.mpf(10) ** 100
        y = mpmath.asinh(z / mpmath.mpf(s))
        exact = mpmath.log(mpmath.npdf(y)) - mpmath.log(mpmath.sqrt(1 + (z / mpmath.mpf(s)) ** 2)) - mpmath.log(mpmath.mpf(s))
    assert law.logpdf(1e100) == pytest.approx(float(exact), rel=1e-13)
    q = np.array([0.001, 0.3, 0.5, 0.9])
    np.testing.assert_allclose(law.ppf(q), ref.ppf(q), rtol=1e-12, atol=1e-300)


def test_arsinh_normal_ks_and_normalisation():
    """ALPHA: arsinh(Z/s) of the draws is N(0, 1) (KS); the density integrates to 1 (mpmath)."""
    law = ArsinhNormal(scale=2.0)
    z = law.rvs(N, rng=9)
    _ks_ok(np.arcsinh(z / 2.0), scipy.stats.norm.cdf)
    with mpmath.workdps(30):
        total = mpmath.quad(lambda t: mpmath.exp(float(law.logpdf(float(t)))), [-mpmath.inf, -100, -2, 0, 2, 100, mpmath.inf])
    assert abs(total - 1) < 1e-9
    # variance by quadrature: s^2 E sinh(Y)^2 = s^2 (e^2 - 1)/2
    with mpmath.workdps(30):
        second = mpmath.quad(lambda y: (2 * mpmath.sinh(y)) ** 2 * mpmath.npdf(y), [-mpmath.inf, 0, mpmath.inf])
    assert law.var() == pytest.approx(float(second), rel=1e-13)


# --------------------------------------------------------------------------------------------
# scalar logpdf normalisation by quadrature
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("law", [Gaussian(scale=0.05), Gaussian(scale=30.0), Laplace(scale=0.2), Laplace(scale=9.0)])
def test_scalar_densities_integrate_to_one(law):
    with mpmath.workdps(30):
        s = law.scale
        total = mpmath.quad(lambda t: mpmath.exp(float(law.logpdf(float(t)))), [-mpmath.inf, -s, 0, s, mpmath.inf])
    assert abs(total - 1) < 1e-10


# --------------------------------------------------------------------------------------------
# ExponentialMechanism
# --------------------------------------------------------------------------------------------


def test_exponential_mechanism_logpmf_matches_mpmath():
    scores = np.array([[0.0, 1.0, -2.0, 3.5], [1e5, 1e5 - 1, 1e5 + 2, -1e5]])
    c = 0.7
    got = ExponentialMechanism(coefficient=c).logpmf(scores)
    assert got.shape == scores.shape
    with mpmath.workdps(40):
        for row in range(2):
            z = [c * mpmath.mpf(v) for v in scores[row]]
            lse = mpmath.log(mpmath.fsum(mpmath.exp(v) for v in z))
            for i in range(4):
                assert got[row, i] == pytest.approx(float(z[i] - lse), rel=1e-12, abs=1e-12)


def test_exponential_mechanism_frequencies():
    """ALPHA: chi-square of N selections against the exact probabilities (batched scores)."""
    mech = ExponentialMechanism(coefficient=1.3)
    scores = np.array([0.0, 0.5, 1.0, -1.0, 2.0])
    picks = mech.rvs(np.broadcast_to(scores, (N, 5)), rng=10)
    assert picks.shape == (N,) and picks.dtype.kind == "i"
    expected = N * mech.pmf(scores)
    counts = np.bincount(picks, minlength=5)
    assert scipy.stats.chisquare(counts, expected).pvalue > ALPHA
    # the size= form gives the same law
    picks2 = mech.rvs(scores, size=N, rng=11)
    assert picks2.shape == (N,)
    assert scipy.stats.chisquare(np.bincount(picks2, minlength=5), expected).pvalue > ALPHA


def test_exponential_mechanism_coefficient_zero_is_uniform_and_pmf_sums_to_one():
    """ALPHA: coefficient 0 selects uniformly (chi-square)."""
    mech = ExponentialMechanism(coefficient=0.0)
    picks = mech.rvs(np.array([5.0, -3.0, 100.0]), size=N, rng=12)
    assert scipy.stats.chisquare(np.bincount(picks, minlength=3)).pvalue > ALPHA
    pmf = ExponentialMechanism(coefficient=3.0).pmf(np.random.default_rng(0).normal(size=(5, 6)) * 50)
    np.testing.assert_allclose(pmf.sum(-1), 1.0, rtol=1e-13)


def test_exponential_mechanism_shapes():
    mech = ExponentialMechanism(coefficient=1.0)
    scores = np.zeros((4, 3, 5))
    assert mech.rvs(scores, rng=0).shape == (4, 3)
    assert mech.rvs(scores, size=(2,), rng=0).shape == (2, 4, 3)
    assert mech.rvs(np.zeros(1), rng=0) == 0


# --------------------------------------------------------------------------------------------
# ReportNoisyMax
# --------------------------------------------------------------------------------------------


def _rnm_two_closed_form(s1, s2, b):
    """P(s1 + b L1 > s2 + b L2): L1 - L2 has density (1 + |t|) e^{-|t|} / 4 (convolution of two
    standard Laplace densities), so P(L2 - L1 > t) = (2 + t) e^{-t} / 4 for t >= 0."""
    t = (s1 - s2) / b
    tail = (2 + abs(t)) * math.exp(-abs(t)) / 4
    return 1 - tail if t >= 0 else tail


@pytest.mark.parametrize("scores,b", [((0.0, 0.0), 1.0), ((1.0, 0.0), 0.5), ((0.0, 3.0), 2.0), ((-2.0, 30.0), 1.0)])
def test_report_noisy_max_two_candidates_closed_form(scores, b):
    got = ReportNoisyMax(scale=b).logpmf(np.array(scores))
    p1 = _rnm_two_closed_form(scores[0], scores[1], b)
    assert got[0] == pytest.approx(math.log(p1), rel=1e-9)
    assert got[1] == pytest.approx(math.log1p(-p1), rel=1e-9, abs=1e-12)


def _rnm_exact(scores, b):
    """Exact P(i wins) for report noisy max with sympy: on each interval between sorted scores
    the integrand f((x - s_i)/b)/b prod_j F((x - s_j)/b) is a sum of exponentials in x, which
    sympy integrates in closed form (scores and b converted exactly from floats)."""
    x = sp.Symbol("x", real=True)
    s = [sp.Rational(v) for v in scores]
    b = sp.Rational(b)
    edges = [-sp.oo, *sorted(set(s)), sp.oo]
    probabilities = []
    for i in range(len(s)):
        total = sp.Integer(0)
        for lo, hi in zip(edges[:-1], edges[1:]):
            if lo == -sp.oo:
                mid = hi - 1 if hi != sp.oo else sp.Integer(0)
            else:
                mid = lo + 1 if hi == sp.oo else (lo + hi) / 2
            # f is evaluated on the side of s_i where the interval lies, F likewise for each s_j
            expr = (sp.exp(-(x - s[i]) / b) if mid > s[i] else sp.exp((x - s[i]) / b)) / (2 * b)
            for j in range(len(s)):
                if j != i:
                    expr *= sp.exp((x - s[j]) / b) / 2 if mid < s[j] else 1 - sp.exp(-(x - s[j]) / b) / 2
            total += sp.integrate(sp.expand(expr), (x, lo, hi))
        probabilities.append(total)
    return probabilities


@pytest.mark.parametrize(
    "s,b",
    [((0.0, 50.0, 100.0), 1.0), ((-67.375, 316.125, -45.5), 0.5)],
)
def test_report_noisy_max_three_candidates_exact(s, b):
    """Oracle: exact piecewise integration with sympy, evaluated at 30 digits."""
    got = ReportNoisyMax(scale=b).logpmf(np.array(s))
    exact = _rnm_exact(s, b)
    assert sp.N(sum(exact), 30) == pytest.approx(1.0, abs=1e-25)
    for i in range(3):
        assert got[i] == pytest.approx(float(sp.N(sp.log(exact[i]), 30)), rel=1e-9, abs=1e-12)


@settings(max_examples=30)
@given(st.integers(2, 5), st.floats(-2, 2), st.floats(-3, 2.5), st.integers(0, 2**32 - 1))
def test_report_noisy_max_probabilities_sum_to_one(m, log_scale, log_spread, seed):
    """Including far-apart scores and tiny scales, where a naive quadrature misses the peak."""
    s = np.random.default_rng(seed).normal(size=m) * 10.0**log_spread
    pmf = ReportNoisyMax(scale=10.0**log_scale).pmf(s)
    assert abs(pmf.sum() - 1) < 1e-9
    top_two = np.sort(s)[-2:]
    if top_two[1] - top_two[0] > 1e-3 * 10.0**log_scale:  # a clear leader is the likeliest
        assert np.argmax(pmf) == np.argmax(s)


def test_report_noisy_max_frequencies_and_sum():
    """ALPHA: chi-square of N selections against the quadrature probabilities."""
    mech = ReportNoisyMax(scale=0.6)
    scores = np.array([0.0, 0.4, 1.1, -0.3])
    pmf = mech.pmf(scores)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-10)
    picks = mech.rvs(scores, size=N, rng=13)
    assert scipy.stats.chisquare(np.bincount(picks, minlength=4), N * pmf).pvalue > ALPHA
    batched = mech.logpmf(np.stack([scores, scores[::-1]]))
    np.testing.assert_allclose(batched[1], batched[0][::-1], rtol=1e-9)
    assert mech.logpmf(np.array([3.0])) == 0.0


# --------------------------------------------------------------------------------------------
# tapes and reproducibility
# --------------------------------------------------------------------------------------------

_SAMPLERS = [
    (lambda: Gaussian(scale=2.0, dim=3), lambda law, **kw: law.rvs((4,), **kw)),
    (lambda: Gaussian(scale=2.0), lambda law, **kw: law.rvs(5, **kw)),
    (lambda: Laplace(scale=0.5, dim=2), lambda law, **kw: law.rvs((3, 2), **kw)),
    (lambda: RadialLaplace(rate=1.5, dim=4), lambda law, **kw: law.rvs(6, **kw)),
    (lambda: ArsinhNormal(scale=0.2), lambda law, **kw: law.rvs(7, **kw)),
    (lambda: ExponentialMechanism(coefficient=2.0), lambda law, **kw: law.rvs(np.arange(12.0).reshape(3, 4), **kw)),
    (lambda: ReportNoisyMax(scale=1.0), lambda law, **kw: law.rvs(np.arange(12.0).reshape(3, 4), **kw)),
]


@pytest.mark.parametrize("make,draw", _SAMPLERS)
def test_replay_is_bit_for_bit(make, draw):
    law = make()
    rec = Recorder(rng=21)
    out = draw(law, noise=rec, label="L7 noise")
    assert all(e.label.startswith("L7 noise") for e in rec.tape.entries)
    tape = NoiseTape.from_json(rec.tape.to_json())
    replay = Replay(tape)
    again = draw(make(), noise=replay, label="L7 noise")
    replay.assert_consumed()
    assert np.array_equal(out, again)
    assert np.array_equal(out, draw(law, rng=21, label="L7 noise"))  # Recorder == Fresh stream
    assert np.array_equal(draw(law, noise=Fresh(5)), draw(law, rng=5))


@pytest.mark.parametrize("make,draw", _SAMPLERS)
def test_rng_and_noise_are_exclusive(make, draw):
    with pytest.raises(TypeError, match="either rng= or noise="):
        draw(make(), rng=1, noise=Fresh(1))
    with pytest.raises(TypeError, match="label"):
        draw(make(), rng=1, label=3)


def test_radial_laplace_tape_layout():
    rec = Recorder(rng=0)
    RadialLaplace(rate=1.0, dim=3).rvs(2, noise=rec, label="bst14 Alg.3 L2 b")
    kinds = [(e.label, e.kind, e.params, e.values.shape) for e in rec.tape.entries]
    assert kinds == [
        ("bst14 Alg.3 L2 b: radius", "gamma", {"k": 3.0}, (2,)),
        ("bst14 Alg.3 L2 b: direction", "normal", {}, (2, 3)),
    ]


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, -math.inf])
def test_bad_scales_rejected(bad):
    for make in (
        lambda v: Gaussian(scale=v),
        lambda v: Laplace(scale=v),
        lambda v: ArsinhNormal(scale=v),
        lambda v: ReportNoisyMax(scale=v),
        lambda v: RadialLaplace(rate=v, dim=2),
    ):
        with pytest.raises(PrivacyParameterError, match=r"(scale|rate) \("):
            make(bad)
    if bad != 0.0:
        with pytest.raises(PrivacyParameterError, match=r"coefficient \("):
            ExponentialMechanism(coefficient=bad)


@pytest.mark.parametrize("bad", ["1.0", True, None, 1j, [1.0]])
def test_wrong_types_rejected(bad):
    with pytest.raises(TypeError):
        Gaussian(scale=bad)
    with pytest.raises(TypeError):
        ExponentialMechanism(coefficient=bad)


def test_bad_dimensions_and_shapes():
    with pytest.raises(ParameterError, match=r"dim \(0\) must be >= 1"):
        Gaussian(scale=1.0, dim=0)
    with pytest.raises(TypeError):
        Gaussian(scale=1.0, dim=2.0)
    with pytest.raises(TypeError):
        RadialLaplace(rate=1.0, dim=None)
    with pytest.raises(ParameterError, match=r"last axis of length dim \(3\)"):
        Gaussian(scale=1.0, dim=3).logpdf(np.zeros((2, 4)))
    with pytest.raises(ParameterError, match=r"last axis of length dim \(3\)"):
        RadialLaplace(rate=1.0, dim=3).logpdf(0.0)
    with pytest.raises(ParameterError, match="nan"):
        Laplace(scale=1.0).logpdf([0.0, math.nan])
    with pytest.raises(TypeError):
        Gaussian(scale=1.0).logpdf(["a"])
    with pytest.raises(ParameterError, match="size"):
        Gaussian(scale=1.0).rvs(-1, rng=0)
    with pytest.raises(TypeError, match="size"):
        Gaussian(scale=1.0).rvs(2.5, rng=0)
    with pytest.raises(ParameterError, match="q must be in"):
        ArsinhNormal().ppf(1.5)


def test_bad_scores():
    mech = ExponentialMechanism(coefficient=1.0)
    for bad in (np.array([0.0, math.nan]), np.array([0.0, math.inf]), np.zeros((2, 0)), 3.0):
        with pytest.raises(ParameterError, match="scores"):
            mech.rvs(bad, rng=0)
        with pytest.raises(ParameterError, match="scores"):
            ReportNoisyMax(scale=1.0).logpmf(bad)
    # huge coefficients and score ranges round to probability 0/1 without overflow warnings
    np.testing.assert_array_equal(ExponentialMechanism(coefficient=1e300).logpmf(np.array([1e300, 0.0])), [0.0, -math.inf])
    assert ExponentialMechanism(coefficient=1e300).rvs(np.array([0.0, 1e-290, -1e308]), size=50, rng=0).tolist() == [1] * 50
    np.testing.assert_array_equal(ExponentialMechanism(coefficient=1.0).logpmf(np.array([1e308, -1e308])), [0.0, -math.inf])
    with pytest.raises(PrivacyParameterError, match=r"coefficient \(-0.5\) must be >= 0"):
        ExponentialMechanism(coefficient=-0.5)


def test_extreme_arguments_do_not_warn():
    """pytest turns warnings into errors: extreme but valid inputs must be handled silently."""
    assert ArsinhNormal().logpdf(1e300) < -1e4
    assert Gaussian(scale=1.0).logpdf(math.inf) == -math.inf
    assert Laplace(scale=1.0).cdf(-1e308) == 0.0
    assert RadialLaplace(rate=1.0, dim=2).logpdf(np.array([3e300, 4e300])) == pytest.approx(-5e300)
    assert RadialLaplace(rate=1.0, dim=2).logpdf(np.array([math.inf, 0.0])) == -math.inf
    assert Gaussian(scale=1.0, dim=2).logpdf(np.array([1e200, 0.0])) == -math.inf
    assert ExponentialMechanism(coefficient=1.0).logpmf(np.array([1e300, 0.0]))[1] == -1e300


@settings(max_examples=40)
@given(st.integers(1, 6), st.floats(0.01, 100), st.integers(0, 2**32 - 1))
def test_gaussian_logpdf_property(dim, scale, seed):
    """logpdf of the vector law is the sum of scalar logpdfs; shift-free scaling identity."""
    x = np.random.default_rng(seed).normal(size=(3, dim)) * scale
    vec = Gaussian(scale=scale, dim=dim).logpdf(x)
    np.testing.assert_allclose(vec, Gaussian(scale=scale).logpdf(x).sum(-1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(vec + dim * math.log(scale), Gaussian(scale=1.0, dim=dim).logpdf(x / scale), rtol=1e-12, atol=1e-12)
