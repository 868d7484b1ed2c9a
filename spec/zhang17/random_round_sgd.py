r"""zhang17 Section 3.2: Algorithm 2 (RRPSGD), Theorems 4-6 and Lemma 4.

``zhang17.alg_2``
    Random Round Private SGD: draw ``R`` from the Ghadimi-Lan distribution on ``{1, ..., n^2}``, then
    ``R`` steps ``w_{t+1} = w_t - eta_t (grad f(w_t, xi) + z_t)`` with a fresh uniform record and a
    fresh ``z_t ~ N(0, sigma_z^2 I_d)``, ``sigma_z^2 = 4 L^2 ln(3n/delta) ln(2/delta)/eps^2``; no projection.
``zhang17.thm_4``
    (eps, delta)-DP for eps in (0, 1], "by the same argument as bst14" (ERRATUM: the noise is 2.5-2.8
    times smaller than bst14's, for which the argument was made and does not close). Certified instead
    by the WBK19 without-replacement RDP accountant over the worst case of ``n^2`` steps
    (:func:`certified_epsilon`).
``zhang17.thm_5``
    Utility (Ghadimi and Lan 2013): ``P_R``, the variance proxy ``sigma^2 = 4 L^2 + d sigma_z^2``, the
    step size with a public ``D_F`` bound (ERRATUM: the paper's ``D_F`` depends on the data).
``zhang17.lemma_4``, ``zhang17.thm_6``
    The martingale tail bound and the high-probability utility, as stated.

Derivations
-----------
*Noise.* The density ``exp(-eps^2 ||z||^2/(8 L^2 ln(3n/delta) ln(2/delta)))`` is ``N(0, sigma_z^2 I_d)``
with ``2 sigma_z^2 = 8 L^2 ln(3n/delta) ln(2/delta)/eps^2``.

*Variance proxy.* ``G = grad f(w, xi) + z`` with ``xi`` uniform and ``z`` independent has ``E G = grad F(w)``
and ``E||G - grad F||^2 = E||grad f(w, xi) - grad F(w)||^2 + E||z||^2 <= 4 L^2 + d sigma_z^2``
(``||grad f||, ||grad F|| <= L``). The proof sketch prints ``4 L^2 + 8 L^2 ln(3n/delta) ln(2/delta)/eps^2
= 4 L^2 + 2 sigma_z^2``: no ``d``, and the density's ``2 sigma_z^2`` where ``sigma_z^2`` belongs.

*Utility.* For constant ``eta <= 1/beta`` (so ``2 eta - beta eta^2 >= eta``) and ``N = n^2``, GL13's
``beta (D_F^2 + sigma^2 N eta^2)/(N (2 eta - beta eta^2)) <= beta D_F^2/(N eta) + beta sigma^2 eta``.
At ``eta = min(1/beta, Dbar/(sigma n))`` with ``Dbar >= D_F``: ``1/eta <= beta + sigma n/Dbar``, so
the bound is ``<= beta^2 Dbar^2/n^2 + 2 beta Dbar sigma/n``.

*Public distance.* ``D_F = sqrt(2 (F(w_0, S) - F*)/beta)`` depends on ``S``. For nonnegative losses
``F* >= 0`` and ``F(w_0, S) <= sup_xi f(w_0, xi)``, so ``h_0 = sup_xi f(w_0, xi)`` (a property of the
loss and the data domain, e.g. ``ln 2`` for the logistic loss at ``w_0 = 0``) bounds ``F(w_0, S) - F*``
for every dataset, and ``Dbar = sqrt(2 h_0/beta) >= D_F``.

*Output index.* GL13 weights ``x_k`` by the step ``gamma_k`` taken *from* it; Algorithm 2 weights
``w_{k+1}`` by the step ``eta_k`` *into* it. With a constant step the descent inequality
``E F(w_{k+1}) <= F(w_k) - (eta - beta eta^2/2) ||grad F(w_k)||^2 + beta eta^2 sigma^2/2``, summed over
``k = 1, ..., N`` and started from ``E F(w_1) <= F(w_0) + beta eta^2 sigma^2/2``, gives the printed
bound with ``N + 1`` noise terms instead of ``N``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy as sp

from spec import bst14 as _bst14
from spec import validate
from spec.errors import ParameterError
from spec.record import (
    Assumption,
    BoundKind,
    Citation,
    Flag,
    FlagKind,
    Formula,
    Line,
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Quantity,
    Rounding,
    SpecRecord,
    UtilityClaim,
)
from spec.registry import register
from spec.zhang17.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    GAMMA_LT_1,
    S_BETA,
    S_D,
    S_DELTA,
    S_DNORM,
    S_EPS,
    S_ETA,
    S_GAMMA,
    S_H0,
    S_L,
    S_N,
    D,
    L,
    beta,
    d,
    delta,
    eps,
    eta,
    gamma,
    h0,
    n,
)

__all__ = [
    "ALG_2", "THM_4", "THM_5", "LEMMA_4", "THM_6", "RECORDS", "CertificateRow", "certified_epsilon",
    "certified_epsilon_grid",
]

_TESTS = "tests/spec/zhang17/test_random_round_sgd.py"
_RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))

# --------------------------------------------------------------------------- expressions
SIGMA_Z_SQUARED = 4 * L**2 * sp.log(3 * n / delta) * sp.log(2 / delta) / eps**2
SIGMA_Z = sp.sqrt(SIGMA_Z_SQUARED)
STEP_SENSITIVITY = 2 * L
SAMPLING_RATE = 1 / n
ROUNDS = n**2
NOISE_MULTIPLIER = SIGMA_Z / STEP_SENSITIVITY
ROUND_WEIGHT = 2 * eta - beta * eta**2
_B = _bst14.ALG_1
BST14_NOISE_MULTIPLIER = _B.formula("noise_multiplier").expr.subs(
    {_B.symbol("lipschitz"): L, _B.symbol("n"): n, _B.symbol("epsilon"): eps, _B.symbol("delta"): delta},
    simultaneous=True,
)
BST14_NOISE_RATIO = BST14_NOISE_MULTIPLIER / NOISE_MULTIPLIER

VARIANCE_PROXY = 4 * L**2 + d * SIGMA_Z_SQUARED
VARIANCE_PROXY_SKETCH = 4 * L**2 + 8 * L**2 * sp.log(3 * n / delta) * sp.log(2 / delta) / eps**2
SIGMA_PROXY = sp.sqrt(VARIANCE_PROXY)
DISTANCE_BOUND = sp.sqrt(2 * h0 / beta)
LEARNING_RATE = sp.Min(1 / beta, DISTANCE_BOUND / (SIGMA_PROXY * n))
GL13_BOUND = beta * (DISTANCE_BOUND**2 + VARIANCE_PROXY * n**2 * eta**2) / (n**2 * ROUND_WEIGHT)
GL13_BOUND_SHIFTED = beta * (DISTANCE_BOUND**2 + VARIANCE_PROXY * (n**2 + 1) * eta**2) / (n**2 * ROUND_WEIGHT)
STEP_BOUND = beta**2 * DISTANCE_BOUND**2 / n**2 + 2 * beta * DISTANCE_BOUND * SIGMA_PROXY / n
BIG_O_GRADIENT = beta * DISTANCE_BOUND * L * sp.sqrt(d * sp.log(n / delta) * sp.log(1 / delta)) / (n * eps)
BIG_O_CONVEX = L * D * sp.sqrt(d * sp.log(n / delta) * sp.log(1 / delta)) / (n * eps)
CONVEX_BOUND = (D**2 + n**2 * eta**2 * VARIANCE_PROXY) / (2 * n**2 * eta * (1 - beta * eta))

_ETA_LT_2_OVER_BETA = Assumption("eta_lt_2_over_beta", sp.Lt(eta * beta, 2), "eta_k < 2/beta (Theorem 5)")

# --------------------------------------------------------------------------- Algorithm 2
ALG_2 = register(SpecRecord(
    id="zhang17.alg_2",
    title="Algorithm 2: Random Round Private Stochastic Gradient Descent (RRPSGD)",
    citation=Citation("zhang17", "Algorithm 2"),
    summary=(
        "Draw R from P on {1, ..., n^2}; for t = 0, ..., R - 1 sample xi uniformly from S and z_t ~ N(0, "
        "sigma_z^2 I_d), sigma_z^2 = 4 L^2 ln(3n/delta) ln(2/delta)/eps^2, and set w_{t+1} = w_t - eta_t "
        "(grad f(w_t, xi) + z_t); output w_R."
    ),
    conventions=CONVENTIONS,
    symbols=(S_L, S_N, S_EPS, S_DELTA, S_ETA, S_BETA),
    assumptions=(DELTA_LT_1, _ETA_LT_2_OVER_BETA),
    formulas=(
        Formula("sigma_squared", SIGMA_Z_SQUARED, "line 4: variance of each coordinate of z_t", Rounding.UP),
        Formula("sigma", SIGMA_Z, "line 4: standard deviation of each coordinate of z_t", Rounding.UP),
        Formula("rounds", ROUNDS, "R takes values in {1, ..., n^2}", Rounding.CEIL),
        Formula("round_weight", ROUND_WEIGHT, "P(R = k + 1) is proportional to 2 eta_k - beta eta_k^2 "
                "(Theorem 5); uniform for a constant step", Rounding.NEAREST),
        Formula("sensitivity", STEP_SENSITIVITY, "l2 sensitivity of grad f(w, xi) when xi is the differing "
                "record", Rounding.UP),
        Formula("sampling_rate", SAMPLING_RATE, "line 3: one of the n records per step", Rounding.UP),
        Formula("noisy_steps", ROUNDS, "worst case of R: n^2 noisy steps (the accountant's count)", Rounding.CEIL),
        Formula("noise_multiplier", NOISE_MULTIPLIER, "sigma_z/(2 L) = sqrt(ln(3n/delta) ln(2/delta))/eps",
                Rounding.DOWN),
    ),
    notes=(
        "Inputs: S, a loss with Lipschitz constant L (a global bound: there is no projection), (eps, delta) "
        "with delta > 0, P (Theorem 5), learning rates eta_k. The step size and P are zhang17.thm_5's "
        "(formula learning_rate, a public constant step, so R is uniform on {1, ..., n^2}).",
        "R is drawn before the loop and, with a public step size, independently of the data; the whole run "
        "is post-processing of the first R <= n^2 noisy steps, which the accountant covers (zhang17.thm_4).",
        "The output line is not numbered in the paper; it is labelled L7 here.",
    ),
    pseudocode=(
        Line("L1", "draw R from P."),
        Line("L2", "for t = 0 to R - 1 do"),
        Line("L3", "sample xi ~ U(S)."),
        Line("L4", "sample z_t ~ exp(-eps^2 ||z||_2^2 / (8 L^2 log(3n/delta) log(2/delta)))."),
        Line("L5", "w_{t+1} := w_t - eta_t (grad f(w_t, xi) + z_t)."),
        Line("L6", "end for"),
        Line("L7", "Output: w_priv = w_R."),
    ),
))


# --------------------------------------------------------------------------- the certificate
@functools.lru_cache(maxsize=512)
def _certificate(n_: int, delta_: float, lipschitz: float, sigma_: float, orders, conversion: str):
    from spec import rdp  # lazily: only the certificate needs the RDP accountants

    sens = ALG_2.evaluate("sensitivity", check=False, lipschitz=lipschitz)
    rate = ALG_2.evaluate("sampling_rate", check=False, n=n_)
    steps = ALG_2.evaluate("noisy_steps", check=False, n=n_)
    return rdp.epsilon_and_order(
        sigma=sigma_, sensitivity=sens, delta=delta_, steps=steps, sampling_rate=rate,
        sampling="without-replacement", orders=orders, conversion=conversion,
    )


def _orders_key(orders):
    if orders is None:
        return None
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
        raise TypeError(f"orders ({orders!r}) must be a sequence of integer Renyi orders")
    return tuple(validate.integer(f"orders[{i}]", a, minimum=2) for i, a in enumerate(orders))


def _certify(n, delta, epsilon, lipschitz, sigma, orders, conversion):
    n_ = validate.integer("n", n, minimum=2)
    d_ = validate.delta(delta)
    lip = validate.positive("lipschitz", lipschitz)
    conv = validate.choice("conversion", conversion, ("cks", "mironov"))
    key = _orders_key(orders)
    if sigma is None:
        if epsilon is None:
            raise ParameterError("epsilon (None) must be given when sigma is omitted")
        s = ALG_2.evaluate("sigma", check=False, lipschitz=lip, n=n_, epsilon=validate.epsilon(epsilon),
                           delta=d_)
    else:
        s = validate.positive("sigma", sigma)
    return _certificate(n_, d_, lip, s, key, conv)


def certified_epsilon(*, n, delta, epsilon=None, lipschitz=1.0, sigma=None, orders=None,
                      conversion="cks") -> float:
    """RDP certificate for Algorithm 2: the epsilon at ``delta`` of its noise over ``n^2`` steps.

    Accounts ``n^2`` noisy steps (the largest value of R; R is drawn independently of the data when the
    step size is public, so releasing ``w_R`` is post-processing of that transcript) as the Gaussian
    mechanism on a subsample of one record without replacement (WBK19 Theorem 27; replace-one; sampling
    rate ``1/n``; sensitivity ``2 L``), composed additively and converted to (epsilon, delta).

    Parameters
    ----------
    n : int
        Number of records, ``>= 2``.
    delta : float
        In ``(0, 1)``.
    epsilon : float, optional
        Target budget from which the printed sigma (line 4) is computed; not used with ``sigma``.
    lipschitz : float
        ``L > 0`` (the certificate depends on sigma/L only).
    sigma : float, optional
        The per-coordinate noise standard deviation actually used; default the printed one.
    orders : sequence of int, optional
        Integer Renyi orders (default ``spec.rdp.DEFAULT_INTEGER_ORDERS``, up to 512); any subset gives a
        valid, possibly looser, certificate.
    conversion : {"cks", "mironov"}
        RDP to (epsilon, delta): Canonne-Kamath-Steinke 2020 (default, tighter) or Mironov 2017.

    Returns
    -------
    float
        The certified epsilon, rounded up.

    Privacy
    -------
    ``zhang17.thm_4`` (certificate of the printed calibration; the paper's argument does not apply,
    see the record's flags).
    """
    return _certify(n, delta, epsilon, lipschitz, sigma, orders, conversion)[0]


@dataclass(frozen=True)
class CertificateRow:
    """One row of :func:`certified_epsilon_grid`."""

    n: int
    epsilon: float
    delta: float
    noise_multiplier: float
    certified: float
    order: int

    @property
    def ratio(self) -> float:
        """certified / epsilon: below 1 means the printed noise is (epsilon, delta)-DP."""
        return self.certified / self.epsilon


def certified_epsilon_grid(*, ns=(10, 100, 1000, 10_000, 100_000), epsilons=(0.1, 0.5, 1.0),
                           deltas=(1e-3, 1e-5, 1e-9), orders=None, conversion="cks") -> tuple:
    """Certified epsilon of Algorithm 2's printed noise on a grid (L = 1; the value is scale free).

    Returns
    -------
    tuple of CertificateRow
        One row per ``(n, epsilon, delta)`` with the printed noise multiplier ``sigma_z/(2L)``, the
        certified epsilon (:func:`certified_epsilon`) and the minimising Renyi order.

    Privacy
    -------
    ``zhang17.thm_4``.
    """
    rows = []
    for n_ in ns:
        for e in epsilons:
            for d_ in deltas:
                values = dict(lipschitz=1.0, n=n_, epsilon=e, delta=d_)
                cert, order = _certify(n_, d_, e, 1.0, None, orders, conversion)
                rows.append(CertificateRow(
                    n=validate.integer("n", n_, minimum=2), epsilon=validate.epsilon(e),
                    delta=validate.delta(d_),
                    noise_multiplier=ALG_2.evaluate("noise_multiplier", check=False, **values),
                    certified=cert, order=int(order),
                ))
    return tuple(rows)


# --------------------------------------------------------------------------- Theorem 4
THM_4 = register(SpecRecord(
    id="zhang17.thm_4",
    title="Privacy of Algorithm 2",
    citation=Citation("zhang17", "Theorem 4"),
    summary="Algorithm 2 is (epsilon, delta)-DP for any epsilon in (0, 1] and delta in (0, 1).",
    conventions=CONVENTIONS,
    symbols=(S_L, S_N, S_EPS, S_DELTA),
    assumptions=(DELTA_LT_1, Assumption("epsilon_le_1", sp.Le(eps, 1), "epsilon <= 1")),
    formulas=(
        Formula("sigma", SIGMA_Z, "the noise of line 4", Rounding.UP),
        Formula("sensitivity", STEP_SENSITIVITY, "per-step sensitivity 2L", Rounding.UP),
        Formula("sampling_rate", SAMPLING_RATE, "gamma = 1/n", Rounding.UP),
        Formula("noisy_steps", ROUNDS, "worst case n^2 steps", Rounding.CEIL),
        Formula("noise_multiplier", NOISE_MULTIPLIER, "sigma_z/(2L)", Rounding.DOWN),
        Formula("bst14_noise_multiplier", BST14_NOISE_MULTIPLIER,
                "bst14 Algorithm 1's sigma/(2 L n) = sqrt(8 ln(n/delta) ln(1/delta))/eps", Rounding.DOWN),
        Formula("bst14_noise_ratio", BST14_NOISE_RATIO,
                "bst14's noise multiplier over zhang17's at the same (n, eps, delta)", Rounding.NEAREST),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP claimed for epsilon <= 1 'by the same argument as bst14', which does not "
        "apply (flags); certified instead by the RDP accountant (accountant = certified_epsilon) over the "
        "worst case of n^2 steps, provided the step size and P are public.",
        epsilon=eps,
        delta=delta,
        accountant=certified_epsilon,
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "'The same argument as bst14' is unsupported: the noise multiplier sigma_z/(2L) = "
            "sqrt(ln(3n/delta) ln(2/delta))/eps is 2.52-2.74 times smaller than bst14's sqrt(8 ln(n/delta) "
            "ln(1/delta))/eps, the noise that argument was made for.",
            "bst14_noise_ratio = sqrt(8 ln(n/delta) ln(1/delta)/(ln(3n/delta) ln(2/delta))) lies in [2.52, "
            "2.74] for n in {2, 5, 10, 100, 1000, 1e4, 1e5}, delta in {1e-3, 1e-5, 1e-9}, and tends to "
            "2 sqrt 2 = 2.83 from below. bst14's calibration at budget r epsilon has the noise multiplier of "
            "zhang17's at epsilon when r is this ratio, so even a closing bst14 argument would certify the "
            "zhang17 noise only at (r epsilon, delta); and bst14's own chain does not close (bst14.thm_II_1: "
            "union bound off by 2.9-257x, composition by 1.42-1.54x).",
            (f"{_TESTS}::test_thm_4_bst14_argument_unsupported",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "The claim nevertheless holds: the WBK19 without-replacement RDP accountant (replace-one, "
            "gamma = 1/n, sensitivity 2L, n^2 steps, CKS20 conversion) certifies at most 0.67 epsilon on "
            "n in {2, 5, 10, 100, 1000, 1e4, 1e5}, epsilon in {0.1, 0.5, 1}, delta in {1e-3, 1e-5, 1e-9}.",
            "E.g. 0.597 at n = 10, epsilon = 1, delta = 1e-5 (worst on the grid 0.664, at n = 5, epsilon = 1, "
            "delta = 1e-3). With Mironov's conversion on the orders {2..32, 40, 48, 64, 80, 96, 128, 160, "
            "192, 256} the same accountant gives 0.751 there (the values tabulated in the team's notes, all 16 "
            "reproduced to within 1e-3). "
            "Because T gamma^2 = 1, the certificate barely depends on n. Beyond the theorem's range it "
            "still certifies epsilon = 2 on the grid but not epsilon = 5 at n = 5, delta = 1e-3 (5.04).",
            (f"{_TESTS}::test_thm_4_certified_grid", f"{_TESTS}::test_thm_4_notes_table_reproduced",
             f"{_TESTS}::test_thm_4_beyond_the_range"),
        ),
    ),
    notes=(
        "The certificate needs a data-independent R, i.e. a public step size (zhang17.thm_5 flag on D_F).",
        "Accounting all n^2 steps covers every value of R: running to n^2 and releasing w_R is "
        "post-processing of the transcript.",
    ),
))

# --------------------------------------------------------------------------- Theorem 5
THM_5 = register(SpecRecord(
    id="zhang17.thm_5",
    title="Utility of Algorithm 2 (stationarity)",
    citation=Citation("zhang17", "Theorem 5 and its proof sketch"),
    summary=(
        "If f is L-Lipschitz and beta-smooth, P(R = k + 1) = (2 eta_k - beta eta_k^2)/sum_r (2 eta_r - beta "
        "eta_r^2), eta_k < 2/beta and sigma^2 = 4 L^2 + 4 d L^2 ln(3n/delta) ln(2/delta)/eps^2: E||grad "
        "F(w_priv)||^2 <= beta [D_F^2 + sigma^2 sum eta_k^2]/sum (2 eta_r - beta eta_r^2); with eta_k = min(1/beta, "
        "D_F/(sigma n)) it is O(sqrt(d log(n/delta) log(1/delta)) D_F L beta/(n eps)); if f is also convex and "
        "||w_hat|| <= D, E F(w_priv) - F(w_hat) = O(sqrt(d log(n/delta) log(1/delta)) D L/(n eps))."
    ),
    conventions=CONVENTIONS,
    symbols=(S_L, S_BETA, S_D, S_N, S_EPS, S_DELTA, S_ETA, S_H0, S_DNORM),
    assumptions=(DELTA_LT_1, _ETA_LT_2_OVER_BETA),
    formulas=(
        Formula("noise_sigma_squared", SIGMA_Z_SQUARED, "sigma_z^2 of Algorithm 2, line 4", Rounding.UP),
        Formula("variance_proxy", VARIANCE_PROXY, "sigma^2 = 4 L^2 + d sigma_z^2 >= E||G - grad F||^2",
                Rounding.UP),
        Formula("variance_proxy_sketch", VARIANCE_PROXY_SKETCH,
                "the proof sketch's 4 L^2 + 8 L^2 ln(3n/delta) ln(2/delta)/eps^2 (erratum)", Rounding.NEAREST),
        Formula("distance_bound", DISTANCE_BOUND, "Dbar = sqrt(2 h_0/beta) >= D_F (public)", Rounding.NEAREST),
        Formula("learning_rate", LEARNING_RATE, "eta = min(1/beta, Dbar/(sigma n)), constant", Rounding.NEAREST),
        Formula("round_weight", ROUND_WEIGHT, "2 eta - beta eta^2: P(R = k + 1) is proportional to it",
                Rounding.NEAREST),
        Formula("round_probability", 1 / ROUNDS, "P(R = k) = 1/n^2 for a constant step", Rounding.NEAREST),
        Formula("utility_bound_constant_step", GL13_BOUND,
                "beta (Dbar^2 + sigma^2 n^2 eta^2)/(n^2 (2 eta - beta eta^2)) for a constant eta < 2/beta",
                Rounding.NEAREST),
        Formula("utility_bound_printed_output", GL13_BOUND_SHIFTED,
                "the same for the printed output w_R (one more noise term; caveat)", Rounding.NEAREST),
        Formula("utility_bound", STEP_BOUND, "beta^2 Dbar^2/n^2 + 2 beta Dbar sigma/n at eta = learning_rate",
                Rounding.NEAREST),
        Formula("convex_utility_bound_constant_step", CONVEX_BOUND,
                "convex f: (D^2 + n^2 eta^2 sigma^2)/(2 n^2 eta (1 - beta eta)) for beta eta < 1 (derived)",
                Rounding.NEAREST),
    ),
    utility=(
        UtilityClaim(Quantity.GRADIENT_NORM, GL13_BOUND, BoundKind.EXPLICIT,
                     "E||grad F(w_R)||^2 over P and the algorithm's coins, constant eta < 2/beta, for every S "
                     "(with Dbar for D_F; caveat on the output index).", ()),
        UtilityClaim(Quantity.GRADIENT_NORM, STEP_BOUND, BoundKind.EXPLICIT,
                     "E||grad F(w_R)||^2 at eta = learning_rate (rates as the O(.) claim below; sympy cannot "
                     "take this limit in d without the sign of ln(2/delta), so the test measures them).", ()),
        UtilityClaim(Quantity.GRADIENT_NORM, BIG_O_GRADIENT, BoundKind.BIG_O,
                     "E||grad F(w_R)||^2 at eta = learning_rate, as stated (Dbar for D_F).", _RATES),
        UtilityClaim(Quantity.EXCESS_EMPIRICAL_RISK, BIG_O_CONVEX, BoundKind.BIG_O,
                     "Convex f and ||w_hat|| <= D: E F(w_R) - F(w_hat), as far as the statement survives.", _RATES),
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "The step size uses D_F = sqrt(2 (F(w_0, S) - F*)/beta), which depends on the data, and through "
            "it P: outside every privacy argument. We use the public Dbar = sqrt(2 h_0/beta) with h_0 = "
            "sup_xi f(w_0, xi) (valid because f >= 0), e.g. h_0 = ln 2 for the logistic loss at w_0 = 0.",
            "Neighbouring datasets have different D_F, hence different steps (and, for a non-constant "
            "schedule, different P). Since Dbar >= D_F, every utility bound of the theorem holds with Dbar "
            "in place of D_F (the bounds increase in D_F). The test exhibits neighbours with different D_F "
            "and steps on a quadratic loss and checks the dominance.",
            (f"{_TESTS}::test_thm_5_public_distance_bound",),
            slug="public-initial-gap",
        ),
        Flag(
            FlagKind.ERRATUM,
            "The proof sketch's variance 4 L^2 + 8 L^2 ln(3n/delta) ln(2/delta)/eps^2 misses the factor d and "
            "has 8 for 4; the theorem's sigma^2 = 4 L^2 + 4 d L^2 ln(3n/delta) ln(2/delta)/eps^2 is right.",
            "Line 4's density is N(0, sigma_z^2 I_d) with sigma_z^2 = 4 L^2 ln(3n/delta) ln(2/delta)/eps^2, so "
            "E||z||^2 = d sigma_z^2; the sketch's term is 2 sigma_z^2 (the density's denominator), which is "
            "below d sigma_z^2 for every d >= 3. The test reads sigma_z^2 off the density and integrates.",
            (f"{_TESTS}::test_thm_5_variance_proxy",),
        ),
        Flag(
            FlagKind.RECONSTRUCTED,
            "Only 'min{ 1 sigma n }' of the step size survived; we read eta_k = min(1/beta, D_F/(sigma n)) "
            "(Ghadimi-Lan 2013, Corollary 2.2, N = n^2, Dtilde = D_F), with Dbar for D_F.",
            "With it the general bound is at most beta^2 Dbar^2/n^2 + 2 beta Dbar sigma/n (module docstring), "
            "which is the stated O(sqrt(d log(n/delta) log(1/delta)) D_F L beta/(n eps)) rate; Dtilde = 1 "
            "would fit the fragment too but not the stated rate's D_F. The test checks the algebra on both "
            "branches of the min.",
            (f"{_TESTS}::test_thm_5_step_size_bound",),
            slug="step-size",
        ),
        Flag(
            FlagKind.CAVEAT,
            "Ghadimi-Lan's bound is for the iterate the weighted step leaves from (w_{R-1}); Algorithm 2 "
            "outputs w_R. For a constant step the bound holds for w_R with n^2 + 1 noise terms in place of "
            "n^2 (utility_bound_printed_output).",
            "Summing the expected descent inequality over k = 1, ..., n^2 and bounding E F(w_1) <= F(w_0) + "
            "beta eta^2 sigma^2/2 (module docstring). The test checks the inequalities symbolically and the "
            "bound on a one-dimensional quadratic, where E||grad F(w_k)||^2 is exact.",
            (f"{_TESTS}::test_thm_5_output_index",),
        ),
        Flag(
            FlagKind.RECONSTRUCTED,
            "The convex part's bound is garbled ('O( d log(n/delta) log(1/delta) D'); we encode "
            "sqrt(d ln(n/delta) ln(1/delta)) L D/(n eps) and derive the explicit (D^2 + n^2 eta^2 sigma^2)/"
            "(2 n^2 eta (1 - beta eta)) for beta eta < 1 (over the iterates w_0, ..., w_{n^2 - 1}).",
            "From E||w_{k+1} - w_hat||^2 <= ||w_k - w_hat||^2 - 2 eta (1 - beta eta)(F(w_k) - F(w_hat)) + "
            "eta^2 sigma^2 (convexity, ||grad F||^2 <= 2 beta (F - F(w_hat))), summed. At eta = Dbar/(sigma n) "
            "<= 1/(2 beta) it is <= sigma (D^2 + Dbar^2)/(n Dbar), rates (-1, 1/2, -1) in (n, d, eps) like "
            "the encoded O(.). The test checks the algebra and the bound on a quadratic.",
            (f"{_TESTS}::test_thm_5_convex_part",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "The rate sqrt(d)/(n eps) is asymptotic in u = n eps/(k sqrt d), k = sqrt(ln(3n/delta) ln(2/delta)): "
            "E||grad F(w_R)||^2 averages, over R uniform on the n^2 steps, a transient and the warm-up of SGD's "
            "stationary variance, and the warm-up flattens the slopes at moderate u. In the linear model of the "
            "iterates near a minimiser the exact average has slopes (-0.90, +0.47, -0.95) in (n, d, eps) at "
            "(n, d, eps, delta) = (200, 4, 1, 1e-2), (-0.73, +0.38, -0.75) at (200, 4, 0.5, 1e-5) and "
            "(-0.97, +0.50, -1.00) at n = 20000.",
            "For F = (h/2)||w - w*||^2, constant step eta and noise of variance s^2 = d sigma_z^2 per step, "
            "E||grad F(w_k)||^2 = h^2 [a^k r_0^2 + eta^2 s^2 (1 - a^k)/(1 - a)], a = (1 - eta h)^2; averaged over "
            "k = 1..n^2 it is a transient plus eta h s^2/2 times 1 - (1 - e^{-2x})/(2x) (x = n^2 eta h, "
            "proportional to u). The test evaluates it exactly (mpmath) with the record's eta, h = 1 and "
            "r_0 = 0.1, the constants of the Welsch audit (L = 1/sqrt(2e), beta = 1, h_0 = 0.194), on grids "
            "that double and halve each of n, d, eps around the base (the audit's first grid, where it measures "
            "slopes close to these; audits/suite/zhang17/test_zhang17_utility.py).",
            (f"{_TESTS}::test_thm_5_rate_is_asymptotic",),
        ),
    ),
    notes=(
        "The paper's sigma (gradient variance proxy) is not the noise's sigma_z (symbol clash).",
        "The reference evaluates learning_rate (needs initial_gap = h_0) and draws R uniformly from "
        "{1, ..., n^2} (round_probability), the noise from zhang17.alg_2's sigma.",
    ),
))

# --------------------------------------------------------------------------- Lemma 4, Theorem 6
LEMMA_4 = register(SpecRecord(
    id="zhang17.lemma_4",
    title="Martingale tail bound (Lan, Nemirovski and Shapiro 2012)",
    citation=Citation("zhang17", "Lemma 4"),
    summary=(
        "If X_1, ..., X_T is a martingale difference sequence with E_{t-1}[exp(X_t^2/sigma_t^2)] <= exp(1), "
        "then with probability at least 1 - gamma, sum_t X_t <= sqrt(3 ln(1/gamma) sum_t sigma_t^2)."
    ),
    conventions=CONVENTIONS,
    symbols=(S_GAMMA,),
    assumptions=(GAMMA_LT_1,),
    formulas=(
        Formula("multiplier", sp.sqrt(3 * sp.log(1 / gamma)),
                "the bound is multiplier * sqrt(sum_t sigma_t^2)", Rounding.UP),
    ),
    notes=(
        "The paper calls the failure probability delta; it is not the privacy delta (canonical name "
        "failure_probability).",
        "Equivalent form: Prob[sum X_t > lambda sqrt(sum sigma_t^2)] <= exp(-lambda^2/3) for lambda >= 0.",
    ),
))

BIG_O_HP = beta * DISTANCE_BOUND * L * sp.sqrt(
    d * sp.log(1 / gamma) * sp.log(n / delta) * sp.log(1 / delta)) / (n * eps)
THM_6 = register(SpecRecord(
    id="zhang17.thm_6",
    title="High-probability utility of Algorithm 2",
    citation=Citation("zhang17", "Theorem 6"),
    summary=(
        "Under Theorem 5's conditions and eta_k = min(1/beta, D_F/(sigma n)), with probability at least "
        "1 - gamma over the noise and the sampled records, ||grad F(w_priv)||^2 = O(sqrt(d log(1/gamma) "
        "log(n/delta) log(1/delta)) D_F L beta/(n eps)) (as far as the statement survives)."
    ),
    conventions=CONVENTIONS,
    symbols=(S_L, S_BETA, S_D, S_N, S_EPS, S_DELTA, S_GAMMA, S_H0),
    assumptions=(DELTA_LT_1, GAMMA_LT_1),
    utility=(
        UtilityClaim(Quantity.GRADIENT_NORM, BIG_O_HP, BoundKind.BIG_O,
                     "With probability >= 1 - gamma (Dbar for D_F).", _RATES + (("failure_probability", "0"),)),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "Whether log(1/gamma) sits inside the square root is not recoverable from the text; we put it "
            "inside. The rates in n, d and eps (-1, 1/2, -1) do not depend on the reading.",
            "The two readings differ by sqrt(log(1/gamma)); the test compares the exponents of both.",
            (f"{_TESTS}::test_thm_6_rates_do_not_depend_on_the_reading",),
        ),
    ),
    notes=("Proved with Lemma 4 (martingale tails of the noise and sampling) on top of Theorem 5.",),
))

#: The records this module registers.
RECORDS = (ALG_2, THM_4, THM_5, LEMMA_4, THM_6)
