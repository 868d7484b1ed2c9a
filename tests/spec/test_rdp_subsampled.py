"""spec.rdp_subsampled: the numerics of the WBK19 forward differences (Pearson-Vajda moments).
"""

from __future__ import annotations

import mpmath
import pytest

from spec import rdp_subsampled


def pearson_vajda_quad(k, sigma):
    """E_{N(0,1)}[(exp(s z - s^2/2) - 1)^k], s = 1/sigma, by quadrature of the k-th power itself
    (tanh-sinh at 40 digits; the mass sits near |z| = sqrt(k) for small s, near z = k s for large s).
    The integrand is scaled by s^-k so that it is of order one (mpmath's tolerance is absolute)."""
    with mpmath.workdps(40):
        s = 1 / mpmath.mpf(sigma)
        c = k * s
        pts = sorted({mpmath.mpf(v) for v in (-20, -10, -5, -2, 0, 2, 5, 10, 20)} | {c - 10, c - 5, c, c + 5, c + 10})
        scaled = mpmath.quad(lambda z: mpmath.npdf(z) * (mpmath.expm1(s * z - s * s / 2) / s) ** k,
                             [-mpmath.inf] + pts + [mpmath.inf])
        return scaled * s**k


def rel(a, b):
    """Relative difference, computed at 60 digits."""
    with mpmath.workdps(60):
        return abs(mpmath.mpf(a) - mpmath.mpf(b)) / abs(mpmath.mpf(b))


@pytest.mark.parametrize("sigma", [1000.0, 30.0, 1.0, 0.5])
def test_forward_differences_agree_with_triple_precision(sigma):
    """The working precision rule leaves >= 40 correct digits: compare with 3x the precision."""
    base = rdp_subsampled._pearson_vajda(sigma, 1.0, 128)
    triple = rdp_subsampled._pearson_vajda(sigma, 1.0, 128, scale=3)
    assert set(range(2, 129, 2)) <= set(base)  # (a cached table may extend further)
    for k in range(2, 129, 2):
        assert base[k] > 0
        assert rel(base[k], triple[k]) < 1e-38, k


@pytest.mark.parametrize("sigma", [1000.0, 10.0, 2.0])
def test_forward_differences_match_quadrature(sigma):
    """nabla_k = E_q[(p/q - 1)^k], integrated directly (no alternating sum); nabla_2 = e^{s^2} - 1."""
    table = rdp_subsampled._pearson_vajda(sigma, 1.0, 16)
    with mpmath.workdps(60):
        s = 1 / mpmath.mpf(sigma)
        assert rel(table[2], mpmath.expm1(s**2)) < 1e-40
    for k in (2, 4, 8, 16):
        assert rel(table[k], pearson_vajda_quad(k, sigma)) < 1e-15, k
