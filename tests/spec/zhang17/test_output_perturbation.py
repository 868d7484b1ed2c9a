"""spec.zhang17.output_perturbation: Algorithm 1's noise laws and Theorem 1.

Oracles: the Balle-Wang profile typed here with mpmath erfc (not the record's expression); sympy
integrals of the densities of lines 5 and 7.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import pytest
import sympy as sp

from spec import gaussian, laplace, profiles, zhang17
from spec.errors import ParameterError, PrivacyLeakWarning
from spec.record import FlagKind


def oracle_profile(eps, mu, dps=80):
    """delta(eps) for N(0,1) vs N(mu,1), typed from Balle-Wang Theorem 8 with erfc (not the record)."""
    with mpmath.workdps(dps):
        eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
        a = mpmath.erfc(-(mu / 2 - eps / mu) / mpmath.sqrt(2)) / 2
        b = mpmath.exp(eps) * mpmath.erfc((mu / 2 + eps / mu) / mpmath.sqrt(2)) / 2
        return a - b


def _independent_failure_epsilon(constant, delta):
    """Scan eps on a 0.01 grid with the oracle profile (sigma = constant(delta)/eps), then bisect."""
    c = constant(delta)

    def fails(e):
        return oracle_profile(e, e / c, dps=60) > delta

    grid = [1 + 0.01 * i for i in range(1, 2000)]
    first = next(e for e in grid if fails(e))
    lo, hi = mpmath.mpf(first - 0.01), mpmath.mpf(first)
    assert not fails(lo)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if fails(mid) else (mid, hi)
    return float(lo)


def _flag(record, kind):
    (flag,) = [f for f in record.flags if f.kind is kind]
    return flag.summary + " " + flag.reason


def test_gaussian_failure_epsilon_at_1e_5():
    got = zhang17.gaussian_failure_epsilon(1e-5)
    assert gaussian.classic_failure_epsilon(1e-5) < got < 10
    oracle = _independent_failure_epsilon(lambda d: math.sqrt(2 * math.log(2 / d)), 1e-5)
    assert got == pytest.approx(oracle, rel=1e-9)
    text = _flag(zhang17.THM_1, FlagKind.ERRATUM)
    assert f"{got:.3g}" == "9.39" and "9.39" in text
    for eps, printed in ((10.0, "1.4e-5"), (20.0, "9.7e-4")):
        sigma = math.sqrt(2 * math.log(2 / 1e-5)) / eps
        value = gaussian.exact_delta(eps, sigma=sigma, sensitivity=1.0)
        assert f"{value:.1e}".replace("e-0", "e-") == printed
        assert printed in text
    # the function warns beyond the failure point, and not below it
    with pytest.warns(PrivacyLeakWarning, match="not \\(epsilon, delta\\)-DP"):
        zhang17.gaussian_sigma(epsilon=20.0, delta=1e-5, sensitivity=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zhang17.gaussian_sigma(epsilon=got * 0.999, delta=1e-5, sensitivity=1.0)


EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 9.0, 12.0, 20.0)


@pytest.mark.parametrize("delta", [1e-3, 1e-5])
def test_analytic_calibration_is_private_and_smaller(delta):
    failure = zhang17.gaussian_failure_epsilon(delta)
    for eps in EPSILONS:
        analytic = zhang17.gaussian_sigma(epsilon=eps, delta=delta, sensitivity=2.0, calibration="analytic")
        assert analytic == gaussian.analytic_sigma(epsilon=eps, delta=delta, sensitivity=2.0)
        assert oracle_profile(eps, 2.0 / analytic) <= delta * (1 + 1e-9)  # private for every epsilon
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            printed = zhang17.gaussian_sigma(epsilon=eps, delta=delta, sensitivity=2.0)
        if eps < failure:
            assert analytic < printed  # wherever the printed sigma is private, the analytic one is smaller
        else:
            assert analytic > printed  # where it is not, the printed sigma is too small
    assert "calibration='analytic'" in _flag(zhang17.THM_1, FlagKind.ERRATUM)


def test_noise_laws_from_the_densities():
    r, c = sp.symbols("r c", positive=True)
    x = sp.Symbol("x", real=True)
    thm = zhang17.THM_1
    eps, delta, Delta, d = (thm.symbol(k) for k in ("epsilon", "delta", "sensitivity", "dimension"))
    # line 5: exp(-c ||z||) in d = 1, 2, 3 (polar coordinates with the sphere's area)
    areas = {1: 2, 2: 2 * sp.pi, 3: 4 * sp.pi}
    for dim, area in areas.items():
        norm = area * sp.integrate(r ** (dim - 1) * sp.exp(-c * r), (r, 0, sp.oo))
        assert sp.simplify(norm - area * sp.gamma(dim) / c**dim) == 0  # Gamma(d, rate c) radius
        second = area * sp.integrate(r ** (dim + 1) * sp.exp(-c * r), (r, 0, sp.oo)) / norm
        expected = thm.formula("expected_noise_norm_squared_pure").expr.subs(
            {d: dim, Delta: 1, eps: c}, simultaneous=True)
        assert sp.simplify(second - expected) == 0
    # d = 1 directly on the line
    assert sp.integrate(sp.exp(-c * sp.Abs(x)), (x, -sp.oo, sp.oo)) == 2 / c
    # the record: rate = eps/Delta, shape d, scale Delta/eps
    vals = dict(epsilon=0.8, sensitivity=0.25, dimension=7)
    assert thm.evaluate("noise_rate", **vals) == pytest.approx(0.8 / 0.25, rel=1e-15)
    assert thm.evaluate("noise_gamma_shape", **vals) == 7
    assert thm.evaluate("noise_gamma_scale", **vals) == pytest.approx(0.25 / 0.8, rel=1e-15)
    assert thm.evaluate("noise_rate", **vals) == profiles.radial_laplace_rate(epsilon=0.8, sensitivity=0.25)
    # line 7: exp(-eps^2 ||z||^2 / (4 ln(2/delta) Delta^2)) = exp(-||z||^2 / (2 sigma^2))
    s2 = sp.Symbol("s2", positive=True)
    solved = sp.solve(sp.Eq(eps**2 / (4 * sp.log(2 / delta) * Delta**2), 1 / (2 * s2)), s2)
    assert len(solved) == 1 and sp.simplify(sp.expand_log(solved[0] - thm.formula("sigma_squared").expr,
                                                              force=True)) == 0
    assert sp.simplify(thm.formula("sigma").expr ** 2 - solved[0]) == 0
    assert "Gamma(shape d" in _flag(thm, FlagKind.CAVEAT)


def test_output_noise_profile():
    pure = zhang17.output_noise_profile(epsilon=1.0, delta=0.0, sensitivity=3.0)
    assert pure(0.0) == pytest.approx((math.e - 1) / (math.e + 1), rel=1e-12)
    assert pure(1.0) == 0.0
    approx = zhang17.output_noise_profile(epsilon=2.0, delta=1e-5, sensitivity=3.0)
    sigma = zhang17.THM_1.evaluate("sigma", epsilon=2.0, delta=1e-5, sensitivity=3.0)
    assert approx(2.0) == pytest.approx(float(oracle_profile(2.0, 3.0 / sigma)), rel=1e-6)
    assert approx(2.0) <= 1e-5
    assert zhang17.THM_1.privacy.profile is zhang17.output_noise_profile


def test_pure_profile_is_not_attained_in_dimension_one():
    # In one dimension the radial law is Laplace(Delta/epsilon); its exact profile at shift Delta is
    # 1 - exp((epsilon' - epsilon)/2) (derived here: the privacy loss is Laplace-distributed), which
    # lies strictly below the pure-DP profile the record declares (0.393 < 0.462 at epsilon' = 0).
    pure = zhang17.output_noise_profile(epsilon=1.0, delta=0.0, sensitivity=3.0)
    exact = laplace.profile(scale=3.0, sensitivity=3.0)
    for e in (0.0, 0.25, 0.5, 0.9):
        assert exact(e) == pytest.approx(1 - math.exp((e - 1.0) / 2), rel=1e-12)
        assert exact(e) < pure(e)
    assert round(exact(0.0), 3) == 0.393 and round(pure(0.0), 3) == 0.462


def test_alg_1_is_the_box_and_shares_the_noise():
    alg, thm = zhang17.ALG_1, zhang17.THM_1
    assert [line.label for line in alg.pseudocode] == [f"L{k}" for k in range(1, 10)]
    for f in thm.formulas:
        assert alg.formula(f.name).expr is f.expr
    assert alg.evaluate("gradient_evaluations", n=1000, steps=37) == 37_000
    assert alg.evaluate("sigma", epsilon=1.0, delta=1e-5, sensitivity=1.0) == zhang17.gaussian_sigma(
        epsilon=1.0, delta=1e-5, sensitivity=1.0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(epsilon=1.0, delta=1e-5, sensitivity=1.0, calibration="exact"), "calibration"),
    (dict(epsilon=1.0, delta=1.5, sensitivity=1.0), "delta"),
    (dict(epsilon=-1.0, delta=1e-5, sensitivity=1.0), "epsilon"),
    (dict(epsilon=1.0, delta=1e-5, sensitivity=0.0), "sensitivity"),
])
def test_bad_input_is_rejected(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        zhang17.gaussian_sigma(**kwargs)
    with pytest.raises(TypeError):
        zhang17.gaussian_sigma(1.0, 1e-5, 1.0)
