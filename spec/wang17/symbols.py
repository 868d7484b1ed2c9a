"""Symbols, conventions and shared expressions of Wang, Ye and Xu (NeurIPS 2017).

The paper's symbols and their canonical names (:mod:`spec.vocabulary`):

============  ==========================  =====================================================
paper         canonical                   meaning
============  ==========================  =====================================================
``G``         ``lipschitz``               Lipschitz constant of every ``f(., z)`` (l2)
``L``         ``smoothness``              smoothness of every ``f(., z)`` (l2)
``mu``        ``total_strong_convexity``  strong convexity of ``F^r = F + r`` (Section 4.1)
``mu``        ``polyak_lojasiewicz``      PL constant of ``F`` (Section 6.1)
``p``         ``dimension``               dimension
``T``         ``epochs``                  outer loops of DP-SVRG / DP-SVRG++
``T``         ``steps``                   iterations of DP-AccMD / DP-GD
``m``         ``epoch_length``            inner steps per epoch (DP-SVRG++: ``2^s m`` in epoch s)
``eta``       ``learning_rate``           step size
``c``         ``noise_constant``          the unspecified constant of eqs. (3), (6), (9), (11)
``c_1``       ``regime_constant``         the unspecified constant of the side condition
``||C||_2``   ``diameter``                l2 diameter of ``C``
``G_C``       ``gaussian_width``          Gaussian width of ``C``
``h_0``       ``initial_gap``             a public bound on ``F(x_0) - F*`` (ours; the paper hides it)
============  ==========================  =====================================================

All records use the average loss ``F(x, D) = (1/n) sum_i f(x, z_i)`` and replace-one neighbours
("differ by only one entry"); ``log`` and ``ln`` are the natural logarithm (the paper mixes them).
"""

from __future__ import annotations

import sympy as sp

from spec.record import Assumption, Conventions, LossForm, Neighbouring, Symbol

__all__ = [
    "G", "L", "mu", "n", "p", "eps", "delta", "sigma", "T", "m", "eta", "c", "c1", "c2", "q",
    "diam", "G_C", "B_w", "h0", "t", "s_epoch", "lam",
    "S_LIPSCHITZ", "S_SMOOTHNESS", "S_STRONG_CONVEXITY", "S_PL", "S_N", "S_DIMENSION",
    "S_EPSILON", "S_DELTA", "S_SIGMA", "S_EPOCHS", "S_STEPS", "S_EPOCH_LENGTH", "S_LEARNING_RATE",
    "S_NOISE_CONSTANT", "S_REGIME_CONSTANT", "S_DIAMETER", "S_GAUSSIAN_WIDTH",
    "S_INITIAL_DIVERGENCE", "S_INITIAL_GAP", "S_STEP", "S_EPOCH",
    "CONVENTIONS", "LEMMA_CONVENTIONS", "DELTA_LT_1", "LOG_INV_DELTA",
    "FULL_GRADIENT_SENSITIVITY", "DIFFERENCE_SENSITIVITY", "SAMPLING_RATE",
    "paper_sigma_squared", "implied_constant",
]

# --------------------------------------------------------------------------- sympy symbols
G = sp.Symbol("G", positive=True)
L = sp.Symbol("L", positive=True)
mu = sp.Symbol("mu", positive=True)
n = sp.Symbol("n", positive=True, integer=True)
p = sp.Symbol("p", positive=True, integer=True)
eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
sigma = sp.Symbol("sigma", positive=True)
T = sp.Symbol("T", positive=True, integer=True)
m = sp.Symbol("m", positive=True, integer=True)
eta = sp.Symbol("eta", positive=True)
c = sp.Symbol("c", positive=True)
c1 = sp.Symbol("c_1", positive=True)
c2 = sp.Symbol("c_2", positive=True)
q = sp.Symbol("q", positive=True)
diam = sp.Symbol("||C||_2", positive=True)
G_C = sp.Symbol("G_C", positive=True)
B_w = sp.Symbol("B_w(x*,x_0)", positive=True)
h0 = sp.Symbol("h_0", positive=True)
t = sp.Symbol("t", positive=True, integer=True)
s_epoch = sp.Symbol("s", positive=True, integer=True)
lam = sp.Symbol("lambda", positive=True)

# --------------------------------------------------------------------------- canonical symbols
S_LIPSCHITZ = Symbol("lipschitz", G, "Lipschitz constant G of every f(., z) (l2 norm)")
S_SMOOTHNESS = Symbol("smoothness", L, "smoothness L of every f(., z) (l2 norm)")
S_STRONG_CONVEXITY = Symbol(
    "total_strong_convexity", mu, "strong convexity mu of the objective F^r = F + r (l2 norm)"
)
S_PL = Symbol("polyak_lojasiewicz", mu, "Polyak-Lojasiewicz constant mu of F: ||grad F||^2 >= 2 mu (F - F*)")
S_N = Symbol("n", n, "number of records")
S_DIMENSION = Symbol("dimension", p, "dimension p")
S_EPSILON = Symbol("epsilon", eps, "privacy budget epsilon")
S_DELTA = Symbol("delta", delta, "failure probability delta")
S_SIGMA = Symbol("sigma", sigma, "standard deviation of the Gaussian noise added to each gradient estimate")
S_EPOCHS = Symbol("epochs", T, "number of epochs T (outer loops)")
S_STEPS = Symbol("steps", T, "number of iterations T")
S_EPOCH_LENGTH = Symbol("epoch_length", m, "inner steps m per epoch")
S_LEARNING_RATE = Symbol("learning_rate", eta, "step size eta")
S_NOISE_CONSTANT = Symbol("noise_constant", c, "the paper's unspecified constant c of the noise variance")
S_REGIME_CONSTANT = Symbol("regime_constant", c1, "the paper's unspecified constant c_1 of the side condition")
S_DIAMETER = Symbol("diameter", diam, "l2 diameter ||C||_2 of the constraint set")
S_GAUSSIAN_WIDTH = Symbol("gaussian_width", G_C, "Gaussian width G_C = E sup_{w in C} <b, w>, b ~ N(0, I_p)")
S_INITIAL_DIVERGENCE = Symbol("initial_divergence", B_w, "Bregman divergence B_w(x*, x_0) (a public bound)")
S_INITIAL_GAP = Symbol("initial_gap", h0, "public bound h_0 >= F(x_0) - F* (not computed from the data)")
S_STEP = Symbol("step", t, "iteration index t = k + 1 (1-based)")
S_EPOCH = Symbol("step", s_epoch, "epoch index s (1-based)")

# --------------------------------------------------------------------------- conventions
_NOTES = (
    "F(x, D) = (1/n) sum_i f(x, z_i), the average loss; F^r = F + r with a convex regulariser r "
    "handled by its proximal operator (Section 4).",
    "Neighbours differ in one entry (replace-one): |D| = |D'| = n. All sensitivities below are "
    "for this relation.",
    "Symbols as in the paper: G Lipschitz, L smoothness (both l2), p dimension, mu strong "
    "convexity (Section 4) or the PL constant (Section 6); log and ln are the natural logarithm.",
    "The extracted text drops the symbol epsilon throughout ('n22' is n^2 epsilon^2); restored "
    "formulas are flagged RECONSTRUCTED.",
)
CONVENTIONS = Conventions(LossForm.AVERAGE, Neighbouring.REPLACE_ONE, _NOTES)
LEMMA_CONVENTIONS = Conventions(
    LossForm.NOT_APPLICABLE,
    Neighbouring.REPLACE_ONE,
    ("A statement about norms or Gaussian vectors; no privacy.",),
)

DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "0 < delta < 1")

# --------------------------------------------------------------------------- shared expressions
LOG_INV_DELTA = sp.log(1 / delta)
#: l2 sensitivity of grad F(x; D) = (1/n) sum_i grad f(x, z_i) under replace-one: 2G/n.
FULL_GRADIENT_SENSITIVITY = 2 * G / n
#: l2 sensitivity of grad f(x, z_I) - grad f(x~, z_I) when I is the replaced index: each term has
#: norm <= G, so the difference moves by at most 4G (the supremum for convex smooth losses, approached
#: in two dimensions; tests/spec/wang17/test_calibration.py).
DIFFERENCE_SENSITIVITY = 4 * G
#: One index drawn uniformly per inner step: a subsample of size 1 without replacement.
SAMPLING_RATE = 1 / n


def paper_sigma_squared(count, log_term=LOG_INV_DELTA):
    """The paper's noise variance ``c G^2 count log_term / (n^2 epsilon^2)`` (eqs. 3, 6, 9, 11)."""
    return c * G**2 * count * log_term / (n**2 * eps**2)


def implied_constant(count, log_term=LOG_INV_DELTA):
    """The ``c`` a given sigma implies in the paper's form: ``sigma^2 n^2 eps^2 / (G^2 count log_term)``."""
    return sigma**2 * n**2 * eps**2 / (G**2 * count * log_term)
