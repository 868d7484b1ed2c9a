r"""Bassily, Smith and Thakurta (FOCS 2014), "Private ERM: efficient algorithms and tight error bounds".

Every algorithm box, theorem and lemma of the paper as a spec record, the paper's Table I as data, and
the functions the reference implementation and the audits use.

Conventions (all records)
-------------------------
* Sum loss ``L(theta; D) = sum_i l(theta; d_i)`` (not the average); risk bounds are for the sum.
* Replace-one neighbouring: ``|D| = |D'| = n`` and ``|D Δ D'| = 2``.
* ``l(.; d)`` is convex and ``L``-Lipschitz on ``C`` for every ``d``; ``Delta`` is the *per-example*
  strong convexity, so the sum is ``n Delta``-strongly convex.
* ``||C||_2`` is the l2 *diameter* of ``C`` (the unit ball has diameter 2); ``p`` is the dimension;
  ``log`` is the natural logarithm.

Canonical keywords: ``lipschitz`` (L), ``n``, ``dimension`` (p), ``epsilon``, ``delta``,
``strong_convexity`` (Delta), ``diameter`` (||C||_2), ``step`` (t, a step index), ``steps`` (T),
``tail`` (t in a tail bound), ``zeta``, ``linf_diameter`` (tau), ``solver_tolerance``, ``sigma``,
``gradient_bound`` (G), ``inner_radius`` (r, the grid-walk sampler's inner ball), ``grid_size`` (N).

Records
-------
``bst14.alg_1``, ``bst14.thm_II_1``, ``bst14.lemma_II_2``, ``bst14.lemma_II_3``, ``bst14.thm_II_4``,
``bst14.lemma_II_5``, ``bst14.lemma_II_6``, ``bst14.alg_2``, ``bst14.thm_III_1``, ``bst14.thm_III_2``,
``bst14.thm_III_4``, ``bst14.alg_3``, ``bst14.alg_4``, ``bst14.thm_IV_1``, ``bst14.lemma_IV_2``,
``bst14.thm_IV_3``, ``bst14.lemma_V_1``, ``bst14.thm_V_2`` ... ``bst14.thm_V_5``, ``bst14.table_I``.

Derivations behind the flags
----------------------------
**Theorem II.1, the proof chain.** Per step, conditioned on the sampled index being the differing
record, ``n grad l(theta; d) + b_t`` is a Gaussian mechanism with sensitivity ``2 L n``; its privacy
loss is ``N(s^2/2, s^2)`` with ``s = 2 L n / sigma = epsilon / (2 sqrt(2 ln(n/delta) ln(1/delta)))``.
(A) The proof needs ``|W_t| <= eps_1 = epsilon / (2 sqrt(ln(1/delta)))`` for all ``n^2`` steps with
probability ``1 - delta/2``; the union bound gives ``n^2 Pr[|W| > eps_1]``, which exceeds ``delta/2``
by a factor growing like ``n`` (the tail is at level ``ln(n/delta)``, not ``ln(n^2/delta)``).
(C) With ``eps_2 = epsilon / (n sqrt(ln(1/delta)))`` over ``T = n^2`` steps, the first term of strong
composition is ``sqrt(2 T ln(1/delta')) eps_2 = epsilon sqrt(2 ln(1/delta')/ln(1/delta)) >= sqrt(2)
epsilon`` for ``delta' <= delta``. See :func:`union_bound_overshoot`, :func:`composition_overshoot`.

**Theorem II.1, a rigorous closed-form calibration** (formula ``sigma_rigorous``). Let
``T = n^2 - 1`` (the noisy steps), ``a = ln(2/delta)``, and

    eps_2 = epsilon / sqrt(8 T a),  delta_2 = delta / (2 T)          (per step, after sampling)
    eps_1 = ln(1 + n (e^eps_2 - 1)),  delta_1 = n delta_2           (BBG18 inverted, gamma = 1/n)
    sigma = 2 L n sqrt(2 ln(1.25/delta_1)) / eps_1                   (classical Gaussian)

The classical Gaussian is ``(eps_1, delta_1)``-DP if ``eps_1 < 1``; BBG18 (replace-one, one record drawn
without replacement) makes each step ``(eps_2, delta_2)``-DP; Form A of advanced composition with
``delta' = delta/2`` gives ``(sqrt(2 T a) eps_2 + T eps_2 (e^eps_2 - 1), T delta_2 + delta/2)``, whose
``delta`` is exactly ``delta`` and whose first term is exactly ``epsilon/2``. *Claim: under the
assumptions of Theorem II.1 (n >= 2, 0 < delta < 1, epsilon <= 2 sqrt(ln(1/delta))) we have
eps_1 < 1 and the second term is <= epsilon/2, so the chain closes at (epsilon, delta).* Proof.
``eps_2 <= 2 sqrt(ln(1/delta)) / sqrt(8 T ln(2/delta)) < 1/sqrt(2T) <= 1/sqrt(6)`` (T >= 3). Hence
``n eps_2 < n / sqrt(2 (n^2 - 1)) <= 2/sqrt(6)`` (largest at n = 2) and, by ``e^x - 1 <= x e^x``,
``n (e^eps_2 - 1) < (2/sqrt(6)) e^(1/sqrt(6)) < 1.23``, so ``eps_1 < ln 2.23 < 0.81``. For the second
term, ``T eps_2 (e^eps_2 - 1) <= T eps_2^2 e^eps_2 = epsilon^2 e^eps_2 / (8 a)``, which is
``<= epsilon/2`` iff ``epsilon e^eps_2 <= 4 a``. With ``b = sqrt(ln(1/delta))``: ``epsilon e^eps_2 <
2 b e^(1/sqrt(6)) < 3.01 b`` while ``4 a = 4 b^2 + 4 ln 2``, and ``4 b^2 - 3.01 b + 4 ln 2 > 0`` for every
real b (discriminant ``9.07 - 44.4 < 0``). In particular this covers every ``epsilon <= 1`` allowed by
the theorem. The tests check both inequalities on a grid (including the boundary epsilon = 2 b) and
run the whole chain through :mod:`spec.gaussian` and :mod:`spec.composition`.

**Theorem III.2, the peeling constants.** With ``c = epsilon / (2 L ||C||_2)`` and ``x = c Gamma``,
``gamma <= sum_{i>=4} (i-1)^p e^{-x (i-3)} <= 3^p e^{-x} / (1 - 2^p e^{-x})`` (using
``i - 1 <= 3 * 2^(i-4)``). At ``x = (p+1) ln 3 + t``: ``3^p e^{-x} = e^{-t}/3`` and ``2^p e^{-x} =
(2/3)^p e^{-t}/3 <= 2/9`` for ``p >= 1``, ``t >= 0``, so ``gamma <= (e^{-t}/3)/(7/9) = (3/7) e^{-t} <=
e^{-t}``. Points in ``A_i, i >= 4`` have ``R >= 3 Gamma``, so the proof gives ``Pr[R >= 3 Gamma] <=
e^{-t}``, i.e. the constant 6 where the paper prints 8 (both valid). Integrating the printed tail:
``E R = int_0^oo Pr[R >= r] dr <= a b + int_0^oo a e^{-t} dt = a (b + 1)`` with ``a = 8 L ||C||_2 /
epsilon``, ``b = (p+1) ln 3``.

**Algorithm 3, sensitivity.** ``L_D`` is ``n Delta``-strongly convex, so first-order optimality of
``theta = theta*(D)`` over ``C`` gives ``L_D(theta') - L_D(theta) >= (n Delta/2) ||theta' - theta||^2``
for ``theta' = theta*(D')``, and symmetrically. Adding the two inequalities, the common records
cancel: ``n Delta ||theta - theta'||^2 <= [l(theta'; d) - l(theta; d)] - [l(theta'; d') - l(theta; d')]
<= 2 L ||theta - theta'||``, hence ``||theta*(D) - theta*(D')|| <= 2 L / (n Delta)``. A solver with
certified gap ``L_D(theta_hat) - L_D(theta*) <= tau`` has ``||theta_hat - theta*|| <= sqrt(2 tau / (n
Delta))`` (same inequality), so the released point has sensitivity ``2 L/(n Delta) + 2 sqrt(2 tau/(n
Delta))``. The noise density ``exp(-rate ||b||)`` changes by at most ``exp(rate * sensitivity)`` under
a shift (triangle inequality), so ``rate = epsilon / sensitivity`` is epsilon-DP.

**Theorem III.4, the uniform-ball fallback.** Let ``nu_D`` be the law of an accepted sample, ``w_D <=
2^-K`` the probability that all ``K`` tries fail (each try lands in ``C`` with probability >= 1/2), ``U``
the uniform law on the unit ball ``B``. The output law is ``(1 - w_D) nu_D + w_D U`` and, since
``(a + b)/(c + d) <= (a + b)/c``,

    p_D/p_D' <= [nu_D/nu_D' + w_D U/nu_D'] / (1 - w_D')
             <= [e^eps_acc + 2^-K (Vol C/Vol B) e^(eps n/6 + xi)] / (1 - 2^-K),

where ``eps_acc`` bounds ``nu_D/nu_D'`` and ``xi`` is the sampler's ``Dist_inf`` error: the exponential
mechanism on ``C`` with coefficient ``epsilon/(6 L ||C||_2)`` has density at least ``e^{-eps n/6} /
Vol C`` because ``L(.; D)`` varies by at most ``n L ||C||_2`` on ``C``. See :func:`fallback_log_ratio_bound`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
import sympy as sp

from spec import composition as _composition
from spec import exponential as _exponential
from spec import gaussian as _gaussian
from spec import validate
from spec.errors import ParameterError, PrivacyParameterError
from spec.record import (
    PRECISION_DIGITS,
    Assumption,
    BoundKind,
    Citation,
    Conventions,
    Flag,
    FlagKind,
    Formula,
    Line,
    LossForm,
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Quantity,
    Rounding,
    SpecRecord,
    Symbol,
    UtilityClaim,
    round_safe,
)
from spec.registry import register

__all__ = [
    "ALG_1",
    "THM_II_1",
    "LEMMA_II_2",
    "LEMMA_II_3",
    "THM_II_4",
    "LEMMA_II_5",
    "LEMMA_II_6",
    "ALG_2",
    "THM_III_1",
    "THM_III_2",
    "THM_III_4",
    "ALG_3",
    "ALG_4",
    "THM_IV_1",
    "LEMMA_IV_2",
    "THM_IV_3",
    "LEMMA_V_1",
    "THM_V_2",
    "THM_V_3",
    "THM_V_4",
    "THM_V_5",
    "TABLE_I",
    "RECORDS",
    "CALIBRATIONS",
    "ACCOUNTANT_ORDERS",
    "TableCell",
    "CalibrationRow",
    "noise_gd_sigma",
    "certified_epsilon",
    "sigma_analytic_chain",
    "sigma_accountant",
    "union_bound_overshoot",
    "composition_overshoot",
    "calibration_table",
    "learning_rate_lipschitz",
    "learning_rate_strongly_convex",
    "exp_sampling_coefficient",
    "excess_risk_bound_exp_sampling",
    "exp_sampling_tail_radius",
    "fallback_log_ratio_bound",
    "output_perturbation_rate",
    "localization_radius",
    "localization_parameters",
    "table_cells",
    "table_cell",
]

# --------------------------------------------------------------------------- symbols
L = sp.Symbol("L", positive=True)
n = sp.Symbol("n", positive=True, integer=True)
p = sp.Symbol("p", positive=True, integer=True)
eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
Delta = sp.Symbol("Delta", positive=True)
diam = sp.Symbol("||C||_2", positive=True)
t_step = sp.Symbol("t", positive=True, integer=True)  # step index of Algorithm 1
t_tail = sp.Symbol("t", nonnegative=True)  # tail parameter of Theorem III.2 (a different t)
zeta = sp.Symbol("zeta", positive=True)
tau = sp.Symbol("tau", positive=True)  # l-infinity diameter of C (Section III-C)
gap = sp.Symbol("tau_gap", nonnegative=True)  # certified optimality gap of a solver
sigma = sp.Symbol("sigma", positive=True)
G = sp.Symbol("G", positive=True)
T = sp.Symbol("T", positive=True, integer=True)
lam = sp.Symbol("lambda", positive=True)

S_L = Symbol("lipschitz", L, "Lipschitz constant L of every l(.; d) on C")
S_N = Symbol("n", n, "number of records")
S_P = Symbol("dimension", p, "dimension p of the parameter space")
S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
S_DELTA = Symbol("delta", delta, "failure probability delta")
S_DELTA_SC = Symbol(
    "strong_convexity", Delta, "per-example strong convexity Delta (the sum is n Delta-strongly convex)"
)
S_DIAM = Symbol("diameter", diam, "l2 diameter ||C||_2 of the constraint set")
S_STEP = Symbol("step", t_step, "step index t of Algorithm 1 (1 <= t <= n^2 - 1)")
S_TAIL = Symbol("tail", t_tail, "tail parameter t: the bound fails with probability at most e^-t")
S_ZETA = Symbol("zeta", zeta, "radius parameter zeta of Algorithm 3 (in units of E||b||)")
S_TAU = Symbol("linf_diameter", tau, "l-infinity diameter tau of C (edge of the enclosing cube A)")
S_GAP = Symbol("solver_tolerance", gap, "certified optimality gap tau of the solver (public tolerance; 0 = exact)")
S_SIGMA = Symbol("sigma", sigma, "standard deviation of the Gaussian noise b_t (per coordinate)")
S_G = Symbol("gradient_bound", G, "G with E||G_t||^2 <= G^2 (bound on the stochastic gradient's second moment)")
S_T = Symbol("steps", T, "number of SGD iterates T")
S_LAMBDA = Symbol("total_strong_convexity", lam, "strong convexity lambda of F (bst14 applies it with lambda = n Delta)")

_CONVENTIONS = Conventions(
    LossForm.SUM,
    Neighbouring.REPLACE_ONE,
    (
        "L(theta; D) = sum_i l(theta; d_i), the sum (risk bounds are for the sum); neighbours have "
        "|D| = |D'| = n and differ in one record (|D Δ D'| = 2).",
        "l(.; d) is convex and L-Lipschitz on C for every d; Delta is the per-example strong convexity, "
        "so L(.; D) is n Delta-strongly convex.",
        "||C||_2 is the l2 diameter of C (the unit ball has diameter 2); p is the dimension; log is ln.",
    ),
)
_TABLE_CONVENTIONS = Conventions(
    LossForm.SUM,
    Neighbouring.REPLACE_ONE,
    _CONVENTIONS.notes
    + (
        "Table I is normalised to L = ||C||_2 = 1; multiply a bound by L ||C||_2 and replace Delta by "
        "Delta ||C||_2 / L for the general statement. Upper bounds read O(min(n, .)), lower bounds "
        "Omega(min(n, .)); the table assumes delta < 1/n.",
    ),
)

_DELTA_LT_1 = Assumption("delta_lt_1", sp.Lt(delta, 1), "0 < delta < 1")
_N_GE_2 = Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2 (Algorithm 1 takes n^2 - 1 >= 3 noisy steps)")
_LEMMA_II_2_CONDITION = Assumption(
    "lemma_II_2_condition",
    sp.Le(eps / (2 * sp.sqrt(sp.log(1 / delta))), 1),
    "epsilon / (2 sqrt(ln(1/delta))) <= 1, the condition under which the proof applies Lemma II.2",
)
_DELTA_LT_1_OVER_N = Assumption(
    "delta_lt_1_over_n",
    sp.Lt(delta, 1 / n),
    "delta < 1/n: a checkable proxy for the paper's delta = o(1/n)",
)
_SC_CONSISTENT = Assumption(
    "strong_convexity_consistent",
    sp.Le(Delta * diam, 2 * L),
    "Delta ||C||_2 <= 2 L: an L-Lipschitz, Delta-strongly convex function on C cannot exist otherwise",
)

# --------------------------------------------------------------------------- Algorithm 1 expressions
#: Algorithm 1, line 1 (the single source of the printed calibration).
SIGMA2_PRINTED = 32 * L**2 * n**2 * sp.log(n / delta) * sp.log(1 / delta) / eps**2
SIGMA_PRINTED = sp.sqrt(SIGMA2_PRINTED)
#: Per-step l2 sensitivity of n grad l(theta; d) + b_t when the sampled record is the differing one.
STEP_SENSITIVITY = 2 * L * n
SAMPLING_RATE = 1 / n
#: The privacy-loss scale s = sensitivity / sigma of one step (L cancels).
LOSS_SCALE = STEP_SENSITIVITY / SIGMA_PRINTED
#: The proof's chain: eps_1 (per step, before sampling) and eps_2 (after Lemma II.2).
PROOF_EPS_1 = eps / (2 * sp.sqrt(sp.log(1 / delta)))
PROOF_EPS_2 = 2 * PROOF_EPS_1 * SAMPLING_RATE

# The rigorous chain, assembled from the accounting records (never retyped).
_T_NOISY = n**2 - 1
_FORM_B = _composition.ADVANCED_PER_STEP
_BBG18 = _composition.BBG18
_CLASSIC = _gaussian.CLASSIC
RIGOROUS_EPS_2 = _FORM_B.formula("epsilon").expr.subs(
    {_FORM_B.symbol("epsilon_total"): eps, _FORM_B.symbol("steps"): _T_NOISY,
     _FORM_B.symbol("delta_prime"): delta / 2},
    simultaneous=True,
)
RIGOROUS_DELTA_2 = delta / (2 * _T_NOISY)
RIGOROUS_EPS_1 = _BBG18.formula("epsilon_base").expr.subs(
    {_BBG18.symbol("epsilon"): RIGOROUS_EPS_2, _BBG18.symbol("sampling_rate"): SAMPLING_RATE},
    simultaneous=True,
)
RIGOROUS_DELTA_1 = _BBG18.formula("delta_base").expr.subs(
    {_BBG18.symbol("delta"): RIGOROUS_DELTA_2, _BBG18.symbol("sampling_rate"): SAMPLING_RATE},
    simultaneous=True,
)
SIGMA_RIGOROUS = _CLASSIC.formula("sigma").expr.subs(
    {_CLASSIC.symbol("epsilon"): RIGOROUS_EPS_1, _CLASSIC.symbol("delta"): RIGOROUS_DELTA_1,
     _CLASSIC.symbol("sensitivity"): STEP_SENSITIVITY},
    simultaneous=True,
)

#: Calibrations offered by :func:`noise_gd_sigma`; the reference's default is "printed".
CALIBRATIONS = ("printed", "rigorous", "analytic-chain", "accountant")

_MP_LOSS_SCALE = sp.lambdify([n, eps, delta], LOSS_SCALE, modules="mpmath")
_MP_PROOF_EPS_1 = sp.lambdify([eps, delta], PROOF_EPS_1, modules="mpmath")


# --------------------------------------------------------------------------- validation helpers
def _n(value, *, minimum=2) -> int:
    return validate.integer("n", value, minimum=minimum)


def _common(n_, epsilon, delta_, lipschitz):
    return (
        _n(n_),
        validate.epsilon(epsilon),
        validate.delta(delta_),
        validate.positive("lipschitz", lipschitz),
    )


# --------------------------------------------------------------------------- the certificate
#: Orders used by :func:`sigma_accountant` by default (extended by ``_EXTRA_ORDERS`` when the optimum
#: sits at the top order or the budget is too small for them). All are in
#: ``spec.rdp.DEFAULT_INTEGER_ORDERS``.
ACCOUNTANT_ORDERS = tuple(range(2, 17)) + (20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256)
_EXTRA_ORDERS = (320, 384, 448, 512)


def _step_quantities(n_: int, lipschitz: float):
    """(sensitivity rounded up, sampling rate rounded up, number of noisy steps) of Algorithm 1."""
    sens = ALG_1.evaluate("sensitivity", check=False, lipschitz=lipschitz, n=n_)
    rate = ALG_1.evaluate("sampling_rate", check=False, n=n_)
    steps = ALG_1.evaluate("noisy_steps", check=False, n=n_)
    return sens, rate, steps


@functools.lru_cache(maxsize=512)
def _certificate(n_: int, delta_: float, lipschitz: float, sigma_: float, orders):
    from spec import rdp  # lazily: only the certificate needs the RDP accountants

    sens, rate, steps = _step_quantities(n_, lipschitz)
    return rdp.epsilon_and_order(
        sigma=sigma_, sensitivity=sens, delta=delta_, steps=steps, sampling_rate=rate,
        sampling="without-replacement", orders=orders, conversion="cks",
    )


def _orders_key(orders):
    if orders is None:
        return None
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
        raise TypeError(f"orders ({orders!r}) must be a sequence of integer Renyi orders")
    return tuple(validate.integer(f"orders[{i}]", a, minimum=2) for i, a in enumerate(orders))


def certified_epsilon(*, n, delta, epsilon=None, lipschitz=1.0, sigma=None, orders=None) -> float:
    """RDP certificate for Algorithm 1: the epsilon at ``delta`` of its noise, WBK19 accountant.

    Accounts all ``n^2 - 1`` noisy steps of Algorithm 1 (so every iterate, not only the output) as
    the without-replacement subsampled Gaussian mechanism of ``spec.rdp`` (Wang, Balle and
    Kasiviswanathan 2019, Theorem 27; replace-one; one record drawn per step, sampling rate ``1/n``;
    sensitivity ``2 L n``), composed additively and converted with Canonne, Kamath and Steinke.

    Parameters
    ----------
    n : int
        Number of records, ``>= 2``.
    delta : float
        In ``(0, 1)``.
    epsilon : float, optional
        Target budget from which the printed sigma (Algorithm 1, line 1) is computed. Not used when
        ``sigma`` is given.
    lipschitz : float
        ``L > 0``.
    sigma : float, optional
        The noise standard deviation actually used; default the printed one at ``epsilon``.
    orders : sequence of int, optional
        Integer Renyi orders to minimise over (default ``spec.rdp.DEFAULT_INTEGER_ORDERS``, up to
        512). Any subset gives a valid, possibly looser, certificate.

    Returns
    -------
    float
        The certified epsilon, rounded up. With the default orders it exceeds the target for very
        small budgets (below about ``epsilon = 0.027`` at ``delta = 1e-9``, n = 10) because the
        optimal order is then above 512; the bound stays valid.

    Raises
    ------
    AssumptionError
        If ``sigma`` is omitted and ``(epsilon, delta, n)`` violate Theorem II.1's assumptions.

    Privacy
    -------
    ``bst14.thm_II_1`` (certificate of the printed calibration; the paper's own chain does not close,
    see the record's flags).
    """
    n_ = _n(n)
    d = validate.delta(delta)
    lip = validate.positive("lipschitz", lipschitz)
    key = _orders_key(orders)
    if sigma is None:
        if epsilon is None:
            raise ParameterError("epsilon (None) must be given when sigma is omitted")
        e = validate.epsilon(epsilon)
        s = THM_II_1.evaluate("sigma", lipschitz=lip, n=n_, epsilon=e, delta=d)
    else:
        s = validate.positive("sigma", sigma)
    return _certificate(n_, d, lip, s, key)[0]


def sigma_analytic_chain(*, n, epsilon, delta, lipschitz=1.0) -> float:
    """sigma of the rigorous chain with the exact (analytic) Gaussian for the per-step budget.

    Same chain as formula ``sigma_rigorous`` of ``bst14.thm_II_1`` (per step ``eps_1, delta_1``
    from Form A and BBG18, module docstring), but the per-step Gaussian is calibrated with the exact
    privacy profile (``spec.gaussian.analytic_sigma``) instead of the classical formula.

    Parameters
    ----------
    n : int
        ``>= 2``.
    epsilon, delta : float
        Target budget, under Theorem II.1's assumptions.
    lipschitz : float
        ``L > 0``.

    Returns
    -------
    float
        Rounded up; ``eps_1`` and ``delta_1`` are rounded down before the calibration.

    Privacy
    -------
    ``bst14.thm_II_1`` (option "analytic-chain"): ``gaussian.analytic`` per step, ``subsampling.bbg18``,
    ``composition.advanced``.
    """
    n_, e, d, lip = _common(n, epsilon, delta, lipschitz)
    values = dict(n=n_, epsilon=e, delta=d)
    THM_II_1.check(lipschitz=lip, **values)
    e1 = THM_II_1.evaluate("rigorous_epsilon_gaussian", **values)
    d1 = THM_II_1.evaluate("rigorous_delta_gaussian", **values)
    sens = ALG_1.evaluate("sensitivity", check=False, lipschitz=lip, n=n_)
    return _gaussian.analytic_sigma(epsilon=e1, delta=d1, sensitivity=sens)


def _accountant_floor(orders, delta_: float) -> float:
    """The certified epsilon as sigma -> oo (RDP 0 at every order): no sigma certifies less."""
    from spec import rdp

    return rdp.to_epsilon(orders, [0.0] * len(orders), delta=delta_)[0]


@functools.lru_cache(maxsize=128)
def _sigma_accountant(n_: int, e: float, d: float, lip: float, orders) -> float:
    sens, _, _ = _step_quantities(n_, lip)
    used = orders if orders is not None else ACCOUNTANT_ORDERS
    if orders is None and e <= 1.5 * _accountant_floor(used, d):
        used = used + _EXTRA_ORDERS
    floor = _accountant_floor(used, d)
    if not e > floor:
        raise ParameterError(
            f"epsilon ({e!r}) must be > {floor:.6g}: with Renyi orders up to {max(used)} the accountant "
            f"cannot certify less at delta ({d!r}) for any sigma; pass larger orders"
        )

    def certified(x):
        return _certificate(n_, d, lip, x, used)

    def ok(x):
        return certified(x)[0] <= e

    # Bracket in multiples of the sensitivity; certified(x) decreases to floor < e as x grows.
    hi = sens
    for _ in range(1100):
        if ok(hi):
            break
        hi *= 2.0
    else:  # pragma: no cover - e > floor guarantees termination well before 2^1100
        raise RuntimeError("sigma_accountant: no certified sigma found")
    if orders is None and len(used) == len(ACCOUNTANT_ORDERS) and certified(hi)[1] == used[-1]:
        used = used + _EXTRA_ORDERS  # the optimum sits at the top order: let larger ones compete
    lo = hi / 2.0
    while ok(lo):
        hi, lo = lo, lo / 2.0
    # Bisection in log-space to 1e-4 relative: certified(x) is decreasing in x for fixed orders.
    while hi > lo * (1.0 + 1e-4):
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def sigma_accountant(*, n, epsilon, delta, lipschitz=1.0, orders=None) -> float:
    """Smallest sigma (to 1e-4 relative) that the RDP certificate of :func:`certified_epsilon` accepts.

    Parameters
    ----------
    n : int
        ``>= 2``.
    epsilon, delta : float
        Target budget (``epsilon > 0`` of any size; ``delta`` in ``(0, 1)``).
    lipschitz : float
        ``L > 0``.
    orders : sequence of int, optional
        Orders for the certificate; default :data:`ACCOUNTANT_ORDERS` (a sparse grid up to 256),
        extended to 512 when the optimum is at 256 or the budget is small. Any subset of orders
        gives a valid certificate.

    Returns
    -------
    float
        A sigma with ``certified_epsilon(sigma=result, orders=...) <= epsilon`` (checked), at most
        1e-4 relative above the smallest such sigma on the orders used.

    Raises
    ------
    ParameterError
        If ``epsilon`` is at or below what the orders can certify for any sigma (about 0.026 at
        ``delta = 1e-9`` with orders up to 512).

    Privacy
    -------
    ``bst14.thm_II_1`` (option "accountant"): ``rdp.without_replacement_subsampled_gaussian``.
    """
    n_, e, d, lip = _common(n, epsilon, delta, lipschitz)
    return _sigma_accountant(n_, e, d, lip, _orders_key(orders))


def noise_gd_sigma(*, lipschitz, n, epsilon, delta, calibration="printed") -> float:
    """Noise standard deviation for Algorithm 1 (A_Noise-GD).

    Parameters
    ----------
    lipschitz : float
        ``L > 0``.
    n : int
        ``>= 2``.
    epsilon, delta : float
        Target budget.
    calibration : {"printed", "rigorous", "analytic-chain", "accountant"}
        ``"printed"`` (default, what the reference uses): Algorithm 1 line 1,
        ``sqrt(32 L^2 n^2 ln(n/delta) ln(1/delta)) / epsilon``; its privacy rests on the RDP
        certificate (:func:`certified_epsilon`), since the paper's proof does not close.
        ``"rigorous"``: the closed form ``sigma_rigorous`` (a complete proof, module docstring).
        ``"analytic-chain"``: the same chain with the exact Gaussian (:func:`sigma_analytic_chain`).
        ``"accountant"``: the smallest sigma the certificate accepts (:func:`sigma_accountant`).

    Returns
    -------
    float
        Rounded up.

    Raises
    ------
    AssumptionError
        If Theorem II.1's assumptions fail (all calibrations except "accountant").

    Privacy
    -------
    ``bst14.thm_II_1``.
    """
    c = validate.choice("calibration", calibration, CALIBRATIONS)
    n_, e, d, lip = _common(n, epsilon, delta, lipschitz)
    values = dict(lipschitz=lip, n=n_, epsilon=e, delta=d)
    if c == "printed":
        return THM_II_1.evaluate("sigma", **values)
    if c == "rigorous":
        return THM_II_1.evaluate("sigma_rigorous", **values)
    if c == "analytic-chain":
        return sigma_analytic_chain(**values)
    return sigma_accountant(**values)


def union_bound_overshoot(*, n, epsilon, delta) -> float:
    """Step (A) of Theorem II.1's proof: ``n^2 Pr[|W| > eps_1] / (delta/2)``; the proof needs <= 1.

    ``W ~ N(s^2/2, s^2)`` is the privacy loss of one Gaussian step with ``s = 2 L n / sigma`` (printed
    sigma), ``eps_1 = epsilon / (2 sqrt(ln(1/delta)))``, and the proof takes a union over ``n^2``
    steps. ``Pr[|W| > eps_1] = Phi(-(eps_1 - s^2/2)/s) + Phi(-(eps_1 + s^2/2)/s)``.

    Parameters
    ----------
    n : int
        ``>= 2``.
    epsilon, delta : float
        Under Theorem II.1's assumptions.

    Returns
    -------
    float
        The ratio (computed at 50 digits, rounded to nearest); about 2.9 at n = 10 and 257 at n = 1000
        (epsilon = 1, delta = 1e-5).
    """
    n_, e, d, _ = _common(n, epsilon, delta, 1.0)
    THM_II_1.check(n=n_, epsilon=e, delta=d)
    with mpmath.workdps(PRECISION_DIGITS):
        s = _MP_LOSS_SCALE(n_, mpmath.mpf(e), mpmath.mpf(d))
        mu = s**2 / 2
        e1 = _MP_PROOF_EPS_1(mpmath.mpf(e), mpmath.mpf(d))
        tail = mpmath.ncdf(-(e1 - mu) / s) + mpmath.ncdf(-(e1 + mu) / s)
        return float(n_**2 * tail / (mpmath.mpf(d) / 2))


def composition_overshoot(*, n, epsilon, delta, delta_prime=None) -> float:
    """Step (C) of Theorem II.1's proof: the strong-composition epsilon over epsilon; the proof needs <= 1.

    Lemma II.3 with ``eps_2 = epsilon / (n sqrt(ln(1/delta)))`` over ``T = n^2`` steps and
    ``delta'`` (default ``delta/2``, the proof's budget split), via ``composition.advanced``.

    Parameters
    ----------
    n : int
        ``>= 2``.
    epsilon, delta : float
        Under Theorem II.1's assumptions.
    delta_prime : float, optional
        In ``(0, 1)``; default ``delta/2``.

    Returns
    -------
    float
        ``epsilon_total / epsilon`` (epsilon_total rounded up); about 1.54 at n = 10, epsilon = 1,
        delta = 1e-5.
    """
    n_, e, d, _ = _common(n, epsilon, delta, 1.0)
    THM_II_1.check(n=n_, epsilon=e, delta=d)
    dp = d / 2 if delta_prime is None else validate.delta(delta_prime, name="delta_prime")
    e2 = THM_II_1.evaluate("proof_epsilon_2", n=n_, epsilon=e, delta=d)
    total, _ = _composition.advanced(epsilon=e2, delta=0.0, steps=n_**2, delta_prime=dp)
    return total / e


@dataclass(frozen=True)
class CalibrationRow:
    """One row of :func:`calibration_table` (sigmas for L = 1)."""

    n: int
    epsilon: float
    delta: float
    printed: float
    rigorous: float
    analytic_chain: float

    @property
    def rigorous_ratio(self) -> float:
        return self.rigorous / self.printed

    @property
    def analytic_chain_ratio(self) -> float:
        return self.analytic_chain / self.printed


def calibration_table(*, ns=(10, 100, 1000), epsilons=(0.1, 1.0), deltas=(1e-5, 1e-9)) -> tuple:
    """Compare the rigorous calibrations with the printed one over a grid (L = 1).

    Returns
    -------
    tuple of CalibrationRow
        One row per ``(n, epsilon, delta)``. The closed form ``sigma_rigorous`` is about 1.46-1.57
        times the printed sigma; the analytic chain 0.90-1.25 times (n in {10, 100, 1000},
        epsilon in {0.1, 1}, delta in {1e-5, 1e-9}).
    """
    rows = []
    for n_ in ns:
        for e in epsilons:
            for d in deltas:
                values = dict(lipschitz=1.0, n=n_, epsilon=e, delta=d)
                rows.append(CalibrationRow(
                    n=_n(n_), epsilon=validate.epsilon(e), delta=validate.delta(d),
                    printed=noise_gd_sigma(**values),
                    rigorous=noise_gd_sigma(calibration="rigorous", **values),
                    analytic_chain=noise_gd_sigma(calibration="analytic-chain", **values),
                ))
    return tuple(rows)


# --------------------------------------------------------------------------- Section II records
ALG_1 = register(SpecRecord(
    id="bst14.alg_1",
    title="Algorithm 1, A_Noise-GD: differentially private (stochastic) gradient descent",
    citation=Citation("bst14", "Algorithm 1"),
    summary=(
        "Set sigma^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta)/epsilon^2; from any theta_1 in C, for t = 1, ..., "
        "n^2 - 1 pick d uniformly from D (independently across steps) and set theta_{t+1} = "
        "Pi_C(theta_t - eta(t) [n grad l(theta_t; d) + b_t]), b_t ~ N(0, sigma^2 I_p); output theta_{n^2}."
    ),
    conventions=_CONVENTIONS,
    symbols=(S_L, S_N, S_EPS, S_DELTA),
    assumptions=(_DELTA_LT_1, _N_GE_2),
    formulas=(
        Formula("sigma_squared", SIGMA2_PRINTED, "line 1: noise variance", Rounding.UP),
        Formula("sigma", SIGMA_PRINTED, "line 1: noise standard deviation", Rounding.UP),
        Formula("iterates", n**2, "T = n^2 iterates theta_1, ..., theta_{n^2}; the output is the last", Rounding.CEIL),
        Formula("noisy_steps", _T_NOISY, "lines 3-6: n^2 - 1 noisy gradient steps", Rounding.CEIL),
        Formula(
            "sensitivity", STEP_SENSITIVITY,
            "l2 sensitivity of n grad l(theta_t; d) when the sampled record is the differing one "
            "(||n grad l(theta; d) - n grad l(theta; d')|| <= 2 L n)",
            Rounding.UP,
        ),
        Formula("sampling_rate", SAMPLING_RATE, "line 4: each step touches one of the n records", Rounding.UP),
        Formula("noise_multiplier", SIGMA_PRINTED / STEP_SENSITIVITY, "sigma / sensitivity", Rounding.DOWN),
    ),
    notes=(
        "Learning-rate schedules are part of bst14.thm_II_4 (eta_lipschitz, eta_strongly_convex).",
        "Sub-gradients may replace gradients (Note (1) of Section II); the full gradient in line 5 "
        "gives the same utility at n times the cost (Note (2)).",
        "Line 4 samples with replacement across steps: each step draws one index uniformly, i.e. "
        "a subsample of size 1 without replacement (sampling rate 1/n), independently of the others.",
        "The privacy claim is bst14.thm_II_1; the reference uses formula 'sigma' of this record.",
    ),
    pseudocode=(
        Line("L1", "Set the noise variance sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta) / epsilon^2."),
        Line("L2", "theta_1: choose any point of C."),
        Line("L3", "for t = 1 to n^2 - 1 do"),
        Line("L4", "Pick d uniformly from D, with replacement (across steps)."),
        Line("L5", "theta_{t+1} = Pi_C(theta_t - eta(t) [n grad l(theta_t; d) + b_t]), b_t ~ N(0, sigma^2 I_p)."),
        Line("L6", "Output theta_priv = theta_{n^2}."),
    ),
))

THM_II_1 = register(SpecRecord(
    id="bst14.thm_II_1",
    title="Privacy of Algorithm 1",
    citation=Citation("bst14", "Theorem II.1"),
    summary="Algorithm 1 (A_Noise-GD) is (epsilon, delta)-differentially private.",
    conventions=_CONVENTIONS,
    symbols=(S_L, S_N, S_EPS, S_DELTA),
    assumptions=(_DELTA_LT_1, _N_GE_2, _LEMMA_II_2_CONDITION),
    formulas=(
        Formula("sigma_squared", SIGMA2_PRINTED, "printed noise variance (Algorithm 1, line 1)", Rounding.UP),
        Formula("sigma", SIGMA_PRINTED, "printed noise standard deviation; the reference's default", Rounding.UP),
        Formula("loss_scale", LOSS_SCALE, "s = 2 L n / sigma: one step's privacy loss is N(s^2/2, s^2)", Rounding.UP),
        Formula("proof_epsilon_1", PROOF_EPS_1, "the proof's per-step bound eps_1 on |W_t| (step A)", Rounding.NEAREST),
        Formula("proof_epsilon_2", PROOF_EPS_2, "the proof's per-step epsilon after Lemma II.2 (step B)",
                Rounding.NEAREST),
        Formula("rigorous_epsilon_step", RIGOROUS_EPS_2, "rigorous chain: eps_2 per step after sampling",
                Rounding.DOWN),
        Formula("rigorous_delta_step", RIGOROUS_DELTA_2, "rigorous chain: delta_2 = delta/(2T) per step",
                Rounding.DOWN),
        Formula("rigorous_epsilon_gaussian", RIGOROUS_EPS_1, "rigorous chain: eps_1 of the Gaussian (BBG18 inverted)",
                Rounding.DOWN),
        Formula("rigorous_delta_gaussian", RIGOROUS_DELTA_1, "rigorous chain: delta_1 = n delta_2", Rounding.DOWN),
        Formula("sigma_rigorous", SIGMA_RIGOROUS, "rigorous closed-form calibration (option 'rigorous')", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon, delta)-DP with the printed sigma. The paper's proof does not close (flags); the claim "
        "is certified by the RDP accountant (accountant) and, for the 'rigorous' calibrations, proved "
        "in the module docstring. No exact privacy profile is known in closed form for the "
        "subsampled, composed Gaussian, so profile is None.",
        epsilon=eps,
        delta=delta,
        accountant=certified_epsilon,
        profile=None,
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "The proof chain does not close as printed: step (A) fails by a factor growing like n, "
            "step (C) gives about 1.4-1.55 epsilon.",
            "(A) The union bound over n^2 steps needs a Gaussian tail at level delta/(4 n^2), but sigma "
            "carries ln(n/delta): n^2 Pr[|W_t| > eps_1] / (delta/2) = 2.94 at n = 10, 27 at n = 100, 257 "
            "at n = 1000 (epsilon = 1, delta = 1e-5; union_bound_overshoot). (C) With eps_2 = "
            "epsilon/(n sqrt(ln(1/delta))) and T = n^2, the first term of strong composition is "
            "epsilon sqrt(2 ln(1/delta')/ln(1/delta)) >= sqrt(2) epsilon; in total 1.42-1.54 epsilon "
            "(composition_overshoot). Lemma II.2 is also applied to a Gaussian on a high-probability "
            "event, which is informal (bst14.lemma_II_2).",
            ("tests/test_spec_bst14.py::test_thm_II_1_chain_overshoot",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "The printed sigma is nevertheless (epsilon, delta)-DP: certified by an RDP accountant "
            "(privacy.accountant = certified_epsilon), not by the paper's argument.",
            "WBK19 Theorem 27 for the Gaussian on a subsample of one record without replacement "
            "(replace-one, gamma = 1/n, sensitivity 2 L n), composed over the n^2 - 1 steps and converted "
            "with CKS20, certifies at most 0.6 epsilon (worst 0.571) on n in {2, 5, 10, 50, 100, 1000}, epsilon in "
            "{0.05, 0.1, 0.5, 1}, delta in {1e-3, 1e-5, 1e-9} (e.g. 0.208 at n = 10, epsilon = 1, "
            "delta = 1e-5).",
            ("tests/test_spec_bst14.py::test_certified_epsilon_grid",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "Three rigorous alternatives are offered as options: 'rigorous' (closed form), "
            "'analytic-chain' and 'accountant'. The reference uses the printed sigma by default.",
            "sigma_rigorous: per-step budget from Form A (eps_2 = epsilon/sqrt(8 T ln(2/delta)), delta_2 "
            "= delta/(2T), T = n^2 - 1), BBG18 inverted at gamma = 1/n, classical Gaussian; the module "
            "docstring proves eps_1 < 1 and that the second Form A term is <= epsilon/2 on the whole "
            "range of the theorem's assumptions. It is 1.46-1.57 times the printed sigma; the "
            "analytic chain (exact Gaussian per step) is 0.90-1.25 times; sigma_accountant is the "
            "smallest sigma the certificate accepts.",
            ("tests/test_spec_bst14.py::test_rigorous_chain_closes",),
        ),
    ),
    notes=(
        "The proof: (A) with probability 1 - delta/2, |W_t| <= eps_1 = epsilon/(2 sqrt(ln(1/delta))) for "
        "all t; (B) Lemma II.2 with gamma = 1/n gives eps_2 = 2 eps_1/n; (C) Lemma II.3 over n^2 steps.",
        "The certificate covers the whole transcript theta_1, ..., theta_{n^2}; releasing only the last "
        "iterate is post-processing.",
        "The erratum functions count the proof's n^2 steps; the calibrations and the certificate count "
        "Algorithm 1's n^2 - 1 noisy steps.",
    ),
))

_BBKN14 = _composition.BBKN14
LEMMA_II_2 = register(SpecRecord(
    id="bst14.lemma_II_2",
    title="Privacy amplification via sampling (as used in bst14)",
    citation=Citation("bst14", "Lemma II.2"),
    summary=(
        "If A is epsilon'-DP with epsilon' <= 1, running A on a uniformly random gamma n of the n entries "
        "is 2 gamma epsilon'-DP (Beimel, Brenner, Kasiviswanathan and Nissim 2014, Lemma 4)."
    ),
    conventions=_BBKN14.conventions,
    symbols=_BBKN14.symbols,
    assumptions=_BBKN14.assumptions,
    formulas=_BBKN14.formulas,
    privacy=_BBKN14.privacy,
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "Pure DP only. The proof of Theorem II.1 applies it to the Gaussian on the event that the "
            "privacy loss is at most eps_1, which is informal; BBG18 (subsampling.bbg18) handles "
            "(epsilon, delta) exactly: (ln(1 + gamma (e^eps - 1)), gamma delta).",
            "For pure DP the lemma holds for epsilon' <= 1 (it dominates BBG18's tight value there) and "
            "fails beyond epsilon' = 1.2564 for small gamma. For the Gaussian, the conclusion the proof "
            "draws (2 gamma eps_1 with the Gaussian's delta) is implied by BBG18, which the test checks "
            "against the exact hockey-stick divergence of a subsampled Gaussian pair by quadrature.",
            ("tests/test_spec_bst14.py::test_lemma_II_2_caveat",),
        ),
    ),
    notes=("Same statement and formula as subsampling.bbkn14 (the expression object is shared).",),
))

_ADVANCED = _composition.ADVANCED
_LEMMA_II_3_EPS = _ADVANCED.formula("epsilon_total").expr.subs(_ADVANCED.symbol("delta"), 0)
LEMMA_II_3 = register(SpecRecord(
    id="bst14.lemma_II_3",
    title="Strong composition (delta = 0 case of Dwork-Rothblum-Vadhan)",
    citation=Citation("bst14", "Lemma II.3"),
    summary=(
        "The T-fold adaptive composition of epsilon-DP algorithms is (epsilon', delta')-DP with "
        "epsilon' = sqrt(2 T ln(1/delta')) epsilon + T epsilon (e^epsilon - 1)."
    ),
    conventions=_ADVANCED.conventions,
    symbols=tuple(s for s in _ADVANCED.symbols if s.name != "delta"),
    assumptions=tuple(a for a in _ADVANCED.assumptions if a.name == "delta_prime_lt_1"),
    formulas=(Formula("epsilon_total", _LEMMA_II_3_EPS, "epsilon' of the composition", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon', delta')-DP for every delta' in (0, 1); composition.advanced with delta = 0.",
        epsilon=_LEMMA_II_3_EPS,
        delta=_ADVANCED.symbol("delta_prime"),
    ),
    notes=(
        "The paper writes 'epsilon, delta' >= 0'; delta' = 0 makes ln(1/delta') infinite, so delta' is "
        "taken in (0, 1).",
        "Formula shared with composition.advanced (its delta set to 0); steps = T.",
    ),
))

#: Equation (2): E||G_t||^2 <= n^2 L^2 + p sigma^2.
G2_EXPR = n**2 * L**2 + p * sigma**2
ETA_LIPSCHITZ = diam / sp.sqrt(t_step * G2_EXPR.subs(sigma**2, SIGMA2_PRINTED))
ETA_LIPSCHITZ_SIGMA = diam / sp.sqrt(t_step * G2_EXPR)
ETA_STRONGLY_CONVEX = 1 / (Delta * n * t_step)
_RATES = (("n", "oo"), ("dimension", "oo"), ("epsilon", "0"))
_RATES_P_EPS = (("dimension", "oo"), ("epsilon", "0"))

THM_II_4 = register(SpecRecord(
    id="bst14.thm_II_4",
    title="Utility of Algorithm 1",
    citation=Citation("bst14", "Theorem II.4", ("2",)),
    summary=(
        "With sigma^2 = O(L^2 n^2 ln(n/delta) ln(1/delta)/epsilon^2): for Lipschitz losses and eta(t) = "
        "||C||_2/sqrt(t (n^2 L^2 + p sigma^2)), E[L(theta_priv) - L(theta*)] = O(L ||C||_2 "
        "ln^{3/2}(n/delta) sqrt(p ln(1/delta))/epsilon); if moreover Delta-strongly convex and eta(t) = "
        "1/(Delta n t), it is O(L^2 ln^2(n/delta) p ln(1/delta)/(n Delta epsilon^2))."
    ),
    conventions=_CONVENTIONS,
    symbols=(S_L, S_N, S_P, S_EPS, S_DELTA, S_DIAM, S_DELTA_SC, S_STEP, S_SIGMA),
    assumptions=(_DELTA_LT_1, _N_GE_2, _SC_CONSISTENT),
    formulas=(
        Formula("gradient_second_moment", G2_EXPR, "equation (2): bound G^2 on E||G_t||^2", Rounding.NEAREST),
        Formula("iterates", n**2, "T = n^2 in Lemmas II.5 and II.6", Rounding.CEIL),
        Formula(
            "eta_lipschitz", ETA_LIPSCHITZ,
            "learning rate, Lipschitz case, with the printed sigma^2 of Algorithm 1", Rounding.NEAREST,
        ),
        Formula(
            "eta_lipschitz_sigma", ETA_LIPSCHITZ_SIGMA,
            "learning rate, Lipschitz case, for the sigma actually used", Rounding.NEAREST,
        ),
        Formula("eta_strongly_convex", ETA_STRONGLY_CONVEX, "learning rate, strongly convex case", Rounding.NEAREST),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK,
            L * diam * sp.log(n / delta) ** sp.Rational(3, 2) * sp.sqrt(p * sp.log(1 / delta)) / eps,
            BoundKind.BIG_O,
            "Lipschitz losses, eta_lipschitz: in expectation over the algorithm's coins, for every D.",
            _RATES,
        ),
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK,
            L**2 * sp.log(n / delta) ** 2 * p * sp.log(1 / delta) / (n * Delta * eps**2),
            BoundKind.BIG_O,
            "Lipschitz and Delta-strongly convex losses, eta_strongly_convex: in expectation over the "
            "algorithm's coins, for every D.",
            _RATES,
        ),
    ),
    notes=(
        "Proof: E[G_t] = grad L(theta_t; D) and E||G_t||^2 <= n^2 L^2 + p sigma^2 (equation (2)); then "
        "Lemma II.5 with G^2 = n^2 L^2 + p sigma^2, T = n^2, or Lemma II.6 with lambda = n Delta.",
        "The theorem writes sigma^2 = O(...); the formulas use Algorithm 1's exact sigma^2 "
        "(eta_lipschitz) or the sigma passed in (eta_lipschitz_sigma, for the other calibrations).",
        "Lemma II.5's bound ||C|| G log(T)/sqrt(T) evaluates to O(L ||C|| log(n) sqrt(p ln(n/delta) "
        "ln(1/delta))/epsilon), which the stated bound dominates since log n <= ln(n/delta).",
    ),
))

LEMMA_II_5 = register(SpecRecord(
    id="bst14.lemma_II_5",
    title="Last-iterate SGD for convex functions (Shamir and Zhang 2013, Theorem 2, as used)",
    citation=Citation("bst14", "Lemma II.5"),
    summary=(
        "Projected SGD on a convex F over C with E[G_t] = grad F(theta_t), E||G_t||^2 <= G^2 and "
        "eta(t) = ||C||_2/(G sqrt(t)) has E[F(theta_T) - F(theta*)] = O(||C||_2 G log(T)/sqrt(T)) for T > 1."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE,
                            ("A statement about optimisation; no privacy.",)),
    symbols=(S_DIAM, S_G, S_T, S_STEP),
    assumptions=(Assumption("steps_gt_1", sp.Gt(T, 1), "T > 1"),),
    formulas=(Formula("eta", diam / (G * sp.sqrt(t_step)), "learning rate eta(t)", Rounding.NEAREST),),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, diam * G * sp.log(T) / sp.sqrt(T), BoundKind.BIG_O,
            "E[F(theta_T) - F(theta*)] for the last iterate, in expectation over the gradient noise.",
            (("steps", "oo"),),
        ),
    ),
    notes=("Shamir and Zhang state explicit constants; bst14 quotes the O(.) form, which is encoded here.",),
))

LEMMA_II_6 = register(SpecRecord(
    id="bst14.lemma_II_6",
    title="Last-iterate SGD for strongly convex functions (Shamir and Zhang 2013, Theorem 1, as used)",
    citation=Citation("bst14", "Lemma II.6"),
    summary=(
        "Projected SGD on a lambda-strongly convex F over C with E[G_t] = grad F(theta_t), E||G_t||^2 <= G^2 "
        "and eta(t) = 1/(lambda t) has E[F(theta_T) - F(theta*)] = O(G^2 log(T)/(lambda T)) for T > 1."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE,
                            ("A statement about optimisation; no privacy. bst14 uses lambda = n Delta.",)),
    symbols=(S_LAMBDA, S_G, S_T, S_STEP),
    assumptions=(Assumption("steps_gt_1", sp.Gt(T, 1), "T > 1"),),
    formulas=(Formula("eta", 1 / (lam * t_step), "learning rate eta(t)", Rounding.NEAREST),),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, G**2 * sp.log(T) / (lam * T), BoundKind.BIG_O,
            "E[F(theta_T) - F(theta*)] for the last iterate, in expectation over the gradient noise.",
            (("steps", "oo"),),
        ),
    ),
    notes=("Shamir and Zhang state explicit constants; bst14 quotes the O(.) form, which is encoded here.",),
))


# --------------------------------------------------------------------------- Section III
_OSC = _exponential.OSCILLATION
OSCILLATION_BOUND = 2 * L * diam
EXP_COEFFICIENT = _OSC.formula("coefficient").expr.subs(_OSC.symbol("oscillation"), OSCILLATION_BOUND)

ALG_2 = register(SpecRecord(
    id="bst14.alg_2",
    title="Algorithm 2, A_exp-samp: exponential sampling",
    citation=Citation("bst14", "Algorithm 2"),
    summary=(
        "Output theta in C sampled with density proportional to exp(-epsilon L(theta; D) / (2 L ||C||_2))."
    ),
    conventions=_CONVENTIONS,
    symbols=(S_EPS, S_L, S_DIAM),
    formulas=(
        Formula("coefficient", EXP_COEFFICIENT, "c in the density exp(-c L(theta; D)) (smaller is safer)",
                Rounding.DOWN),
        Formula(
            "oscillation", OSCILLATION_BOUND,
            "bound on sup h - inf h over C for h = l(.; d) - l(.; d') (2L-Lipschitz)", Rounding.UP,
        ),
    ),
    notes=(
        "The coefficient is exponential.oscillation's epsilon/osc at osc = 2 L ||C||_2; the privacy claim "
        "is bst14.thm_III_1.",
        "The density is with respect to Lebesgue measure on C (a continuous exponential mechanism).",
    ),
    pseudocode=(
        Line("L1", "L(theta; D) = sum_i l(theta; d_i)."),
        Line("L2", "Sample theta_priv from C with probability proportional to exp(-epsilon L(theta; D) / (2 L ||C||_2)) and output it."),
    ),
))

THM_III_1 = register(SpecRecord(
    id="bst14.thm_III_1",
    title="Privacy of Algorithm 2",
    citation=Citation("bst14", "Theorem III.1"),
    summary="Algorithm 2 is epsilon-differentially private.",
    conventions=_CONVENTIONS,
    symbols=(S_EPS, S_L, S_DIAM),
    formulas=(
        Formula("coefficient", EXP_COEFFICIENT, "the algorithm's coefficient", Rounding.DOWN),
        Formula(
            "proof_coefficient", eps / (L * diam),
            "the coefficient the printed proof rewrites the exponent with (a factor 2 too large)",
            Rounding.NEAREST,
        ),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP, by the oscillation form of the exponential mechanism (exponential.oscillation): "
        "h = l(.; d) - l(.; d') is 2L-Lipschitz on C, so osc(h) <= 2 L ||C||_2 and the density ratio is "
        "at most exp(c osc) = e^epsilon.",
        epsilon=eps,
        delta=sp.Integer(0),
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "The proof rewrites the exponent as epsilon/(L ||C||_2) (L(theta) - L(theta_0)) and calls the "
            "sensitivity of L(theta) - L(theta_0) 'L ||C||_2'; under replace-one it is 2 L ||C||_2.",
            "Replacing d by d' changes L(theta) - L(theta_0) by h(theta) - h(theta_0), h 2L-Lipschitz, "
            "i.e. by up to 2 L ||C||_2. The algorithm's constant epsilon/(2 L ||C||_2) is right, by the "
            "oscillation argument; the exponent the proof writes would give up to 2 epsilon. The test "
            "computes the exact log density ratio of a one-dimensional instance on a grid.",
            ("tests/test_spec_bst14.py::test_thm_III_1_factor_two_slip",),
        ),
    ),
))

_PEEL_B = (p + 1) * sp.log(3) + t_tail
PEELING_THRESHOLD = 2 * L * diam / eps * _PEEL_B
TAIL_RADIUS_PRINTED = 8 * L * diam / eps * _PEEL_B
TAIL_RADIUS_PROOF = 3 * PEELING_THRESHOLD
EXPECTED_RISK_BOUND = 8 * L * diam / eps * ((p + 1) * sp.log(3) + 1)
_X = sp.Symbol("x", positive=True)
#: The peeling sum's closed form in x = c Gamma (used by the tests).
PEELING_RATIO = 3**p * sp.exp(-_X) / (1 - 2**p * sp.exp(-_X))

THM_III_2 = register(SpecRecord(
    id="bst14.thm_III_2",
    title="Utility of Algorithm 2",
    citation=Citation("bst14", "Theorem III.2", ("Claim III.3",)),
    summary="E[L(theta_priv; D) - L(theta*; D)] = O(p L ||C||_2 / epsilon).",
    conventions=_CONVENTIONS,
    symbols=(S_P, S_L, S_DIAM, S_EPS, S_TAIL),
    formulas=(
        Formula("peeling_threshold", PEELING_THRESHOLD, "Gamma = (2 L ||C||_2/epsilon)((p+1) ln 3 + t)", Rounding.UP),
        Formula("tail_radius", TAIL_RADIUS_PRINTED, "printed tail: Pr[R >= tail_radius] <= e^-t", Rounding.UP),
        Formula("tail_radius_proof", TAIL_RADIUS_PROOF, "what the proof gives: 3 Gamma", Rounding.UP),
        Formula("expected_risk_bound", EXPECTED_RISK_BOUND, "explicit bound on E R from the printed tail", Rounding.UP),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, p * L * diam / eps, BoundKind.BIG_O,
            "In expectation over the algorithm's coins, for every D (as printed).",
            _RATES_P_EPS,
        ),
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, TAIL_RADIUS_PRINTED, BoundKind.HIGH_PROBABILITY,
            "Pr[R >= (8 L ||C||_2/epsilon)((p+1) ln 3 + t)] <= e^-t for every t >= 0 (as printed; the proof "
            "gives 6 in place of 8).",
            _RATES_P_EPS,
        ),
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, EXPECTED_RISK_BOUND, BoundKind.EXPLICIT,
            "E R <= (8 L ||C||_2/epsilon)((p+1) ln 3 + 1), by integrating the printed tail.",
            _RATES_P_EPS,
        ),
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "The O(.) is made explicit: E R <= (8 L ||C||_2/epsilon)((p+1) ln 3 + 1); the peeling step's "
            "'Gamma sufficiently large' is Gamma = (2 L ||C||_2/epsilon)((p+1) ln 3 + t).",
            "At x = epsilon Gamma/(2 L ||C||_2) = (p+1) ln 3 + t, 3^p e^-x/(1 - 2^p e^-x) <= (3/7) e^-t "
            "(module docstring), so Pr[R >= 3 Gamma] <= e^-t; the printed 8 L ||C||/epsilon (instead of 6) "
            "is therefore valid, and E R = int Pr[R >= r] dr gives the explicit bound. The test checks the "
            "inequality on a grid and the bound on the linear instance, where E R is a 1-D integral.",
            ("tests/test_spec_bst14.py::test_thm_III_2_peeling_and_explicit_bound",),
        ),
    ),
    notes=(
        "R(theta) = L(theta; D) - L(theta*; D). The proof conditions on a 'differential cone' at theta* "
        "and uses Claim III.3 (convexity makes the level-set radii r_i concave in i), proved in the "
        "full version.",
    ),
))

ALPHA_PENALTY = eps * n / diam
RETRIES = n
SAMPLER_DIST_INF = eps / 3
EM_COEFFICIENT_EFFICIENT = eps / (6 * L * diam)
#: O(||C||^2 p^3 n^3 max{p log(||C|| p n), eps ||C|| n}); the max is replaced by the sum (same order).
RUNNING_TIME = diam**2 * p**3 * n**3 * (p * sp.log(diam * p * n) + eps * diam * n)

# Grid-walk sampler constants (reconstructed; see the RECONSTRUCTED sampler flag of thm_III_4).
r_in = sp.Symbol("r", positive=True)
N_grid = sp.Symbol("N", positive=True, integer=True)
S_RIN = Symbol("inner_radius", r_in, "radius r of a ball around the public gauge centre that lies inside C")
S_GRID = Symbol("grid_size", N_grid, "cells per edge N of the sampler's grid (spacing h = tau/N)")
#: Allowed error of every evaluation of ln F (eta) and per-cell mixing tolerance (xi): the accepted
#: sample's law on C is within 2 (2 xi + 2 eta) = epsilon/3 = sampler_dist_inf of the exact law.
SAMPLER_LOG_EVAL_ERROR = SAMPLER_DIST_INF / 40
SAMPLER_MIXING_DIST = (SAMPLER_DIST_INF - 4 * SAMPLER_LOG_EVAL_ERROR) / 4
SAMPLER_CUBE_DIST = 2 * SAMPLER_MIXING_DIST + 2 * SAMPLER_LOG_EVAL_ERROR
#: Dimensionless penalty slope on the gauge: 2 c n L R + (1 + 2 ln 2)(p - 1) + 2 with R <= ||C||_2.
SAMPLER_ALPHA = eps * n / 3 + (1 + 2 * sp.log(2)) * (p - 1) + 2
SAMPLER_LAMBDA = eps * n / (6 * diam) + SAMPLER_ALPHA / r_in
SAMPLER_GRID = sp.ceiling(tau * SAMPLER_LAMBDA * sp.sqrt(p))
_H_SLACK = SAMPLER_LAMBDA * sp.sqrt(p) * tau / N_grid
SAMPLER_ENVELOPE_LOG = _H_SLACK / 2 + 2 * SAMPLER_LOG_EVAL_ERROR
SAMPLER_PATH_SLACK = _H_SLACK + 2 * SAMPLER_LOG_EVAL_ERROR
SAMPLER_LOG_WEIGHT_OSC = SAMPLER_LAMBDA * sp.sqrt(p) * tau * (N_grid - 1) / N_grid + 2 * SAMPLER_LOG_EVAL_ERROR
SAMPLER_GAP_INVERSE = 4 * p**2 * sp.Max(N_grid - 1, 1) * N_grid**p * sp.exp(SAMPLER_PATH_SLACK)
SAMPLER_STEPS = sp.ceiling(SAMPLER_GAP_INVERSE * (
    SAMPLER_LOG_WEIGHT_OSC + p * sp.log(N_grid) - sp.log(1 - sp.exp(-SAMPLER_MIXING_DIST))))
SAMPLER_TRY_IN_C = sp.exp(-SAMPLER_CUBE_DIST) / 2
SAMPLER_FALLBACK_WEIGHT = (1 - SAMPLER_TRY_IN_C) ** RETRIES

THM_III_4 = register(SpecRecord(
    id="bst14.thm_III_4",
    title="Efficient version of Algorithm 2 (A_cube-samp with retries)",
    citation=Citation("bst14", "Theorem III.4 and Section III-C"),
    summary=(
        "There is an epsilon-DP, polynomial-time version of Algorithm 2 with E[excess risk] = O(p L ||C||_2 "
        "/epsilon): sample from F(theta) = exp(-epsilon Lbar(theta; D)/(6 L ||C||_2) - alpha max(0, "
        "psi(theta) - 1)) on a cube A of edge tau containing C by a grid walk, retry O(n) times until the "
        "sample is in C, else output a uniform point of the unit ball."
    ),
    conventions=Conventions(
        LossForm.SUM, Neighbouring.REPLACE_ONE,
        _CONVENTIONS.notes + (
            "C is in isotropic position (so the unit ball B is inside C); membership and projection "
            "oracles for C are assumed. psi is the Minkowski gauge of C, Lbar a convex nL-Lipschitz "
            "extension of L(.; D) to A (e.g. the inf-convolution min_u L(u; D) + n L ||theta - u||).",
        ),
    ),
    symbols=(S_EPS, S_L, S_DIAM, S_N, S_P, S_TAU, S_RIN, S_GRID),
    formulas=(
        Formula("coefficient", EM_COEFFICIENT_EFFICIENT,
                "weight exponent on Lbar (epsilon/3 for the mechanism on C)", Rounding.DOWN),
        Formula("sampler_dist_inf", SAMPLER_DIST_INF,
                "allowed Dist_inf of the accepted sample's law, each dataset", Rounding.DOWN),
        Formula("alpha_penalty", ALPHA_PENALTY,
                "penalty slope alpha = epsilon n / ||C||_2 (our constant)", Rounding.NEAREST),
        Formula("extension_lipschitz", n * L, "Lipschitz constant of the extension Lbar", Rounding.UP),
        Formula(
            "log_weight_lipschitz", eps * n / (6 * diam) + ALPHA_PENALTY,
            "l2 Lipschitz constant of -ln F on A (the gauge is 1-Lipschitz as B is inside C)", Rounding.UP,
        ),
        Formula("cube_edge", tau, "edge of the enclosing cube A: the l-infinity diameter of C", Rounding.UP),
        Formula("retries", RETRIES, "number of tries of A_cube-samp before the fallback (our O(n))", Rounding.CEIL),
        Formula("sampler_log_eval_error", SAMPLER_LOG_EVAL_ERROR,
                "eta: allowed absolute error of each evaluation of ln F (sampler)", Rounding.DOWN),
        Formula("sampler_mixing_dist", SAMPLER_MIXING_DIST,
                "xi: required e^-xi <= P^K(c0, c)/pi(c) <= e^xi for all cells (sampler)", Rounding.DOWN),
        Formula("sampler_cube_dist", SAMPLER_CUBE_DIST,
                "Dist_inf of one A_cube-samp output to F / int_A F: 2 xi + 2 eta", Rounding.UP),
        Formula("sampler_alpha", SAMPLER_ALPHA,
                "dimensionless gauge-penalty slope making Pr_F[C] >= 1/2 (sampler; replaces alpha_penalty)",
                Rounding.UP),
        Formula("sampler_log_weight_lipschitz", SAMPLER_LAMBDA,
                "Lambda: l2 Lipschitz constant of -ln F with the sampler's alpha (gauge is 1/r-Lipschitz)",
                Rounding.UP),
        Formula("sampler_grid_size", SAMPLER_GRID, "N = ceil(tau Lambda sqrt(p)), so Lambda sqrt(p) h <= 1",
                Rounding.CEIL),
        Formula("sampler_envelope_log", SAMPLER_ENVELOPE_LOG,
                "ln M: the rejection step accepts y in cell c w.p. F(y)/(W(c) M) <= 1", Rounding.UP),
        Formula("sampler_path_slack", SAMPLER_PATH_SLACK,
                "delta: every cell on a canonical path has W >= e^-delta min(W(x), W(y))", Rounding.UP),
        Formula("sampler_log_weight_oscillation", SAMPLER_LOG_WEIGHT_OSC,
                "max ln W - min ln W over the grid (so ln(1/pi_min) <= this + p ln N)", Rounding.UP),
        Formula("sampler_inverse_gap", SAMPLER_GAP_INVERSE,
                "canonical-path bound rho >= 1/gap of the lazy Metropolis grid walk", Rounding.UP),
        Formula("sampler_steps", SAMPLER_STEPS,
                "walk length K = ceil(rho (ln(1/pi_min) + ln(1/(1 - e^-xi)))) between rejection attempts",
                Rounding.CEIL),
        Formula("sampler_try_in_c", SAMPLER_TRY_IN_C,
                "lower bound on Pr[one try lands in C] for the implemented sampler", Rounding.DOWN),
        Formula("sampler_fallback_weight", SAMPLER_FALLBACK_WEIGHT,
                "upper bound on Pr[fallback] after retries = n tries", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP as claimed (proof in the full version); see the flags for the budget split and the "
        "fallback.",
        epsilon=eps,
        delta=sp.Integer(0),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, p * L * diam / eps, BoundKind.BIG_O,
            "In expectation over the algorithm's coins, for every D.", _RATES,
        ),
        UtilityClaim(
            Quantity.RUNNING_TIME, RUNNING_TIME, BoundKind.BIG_O,
            "Arithmetic operations, C in isotropic position; the printed max{a, b} is written a + b "
            "(same order). ||C||_2 may be replaced by ||C||_inf.",
            (("n", "oo"), ("dimension", "oo")),
        ),
    ),
    flags=(
        Flag(
            FlagKind.RECONSTRUCTED,
            "The 1/6 in the weight exponent is read as: exponential mechanism at epsilon/3 on C, plus "
            "Dist_inf <= epsilon/3 for the accepted sample's law on each of the two datasets.",
            "On C the penalty vanishes and Lbar = L, so the exact conditional law on C is Algorithm 2 "
            "with coefficient epsilon/(6 L ||C||_2), which is epsilon/3-DP (oscillation 2 L ||C||_2). If "
            "each dataset's sampled law is within Dist_inf epsilon/3 of it, the ratio is at most "
            "e^(epsilon/3 + 2 epsilon/3). The test checks the split exactly on a grid, including an "
            "adversarial sampler error that attains epsilon.",
            ("tests/test_spec_bst14.py::test_thm_III_4_budget_split",),
        ),
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "alpha = O(epsilon n/||C||_2) and 'O(n) iterations' have unspecified constants: we take "
            "alpha_penalty = epsilon n/||C||_2 and retries = n.",
            "Privacy of the accepted sample does not depend on alpha (the penalty is 0 on C and the "
            "extension equals L there); alpha and the number of retries only move the acceptance "
            "probability, claimed >= 1/2 per try in the full version, and the fallback's weight. The test "
            "checks that the inf-convolution extension equals L on C, is convex and nL-Lipschitz, and "
            "that the weight on C does not depend on alpha.",
            ("tests/test_spec_bst14.py::test_thm_III_4_extension_and_penalty",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "The uniform-ball fallback costs privacy beyond the epsilon/3 + 2 epsilon/3 split; the paper "
            "says only that it changes the output law 'by a constant factor sufficiently close to 1'.",
            "With per-try acceptance >= 1/2 the fallback has weight <= 2^-K, and the output's log ratio is "
            "at most ln(e^eps + 2^-K (Vol C/Vol B) e^(eps n/6 + eps/3)) - ln(1 - 2^-K) "
            "(fallback_log_ratio_bound). With K = n this exceeds epsilon by a negligible amount when "
            "n (ln 2 - epsilon/6) >> ln(Vol C/Vol B), and is vacuous for epsilon >= 6 ln 2. A strict "
            "epsilon-DP implementation must reserve budget for it. The test checks the bound against "
            "exact mixtures and shows it is nearly attained.",
            ("tests/test_spec_bst14.py::test_thm_III_4_fallback_bound",),
        ),
        Flag(
            FlagKind.RECONSTRUCTED,
            "Sampler constants (the full version's appendix was not available): budget split eta = "
            "epsilon/120 per ln F evaluation and xi = 3 epsilon/40 per-cell mixing, so one try is within "
            "Dist_inf 2 xi + 2 eta = epsilon/6 of F/int_A F and the accepted sample within epsilon/3 of the "
            "mechanism on C; grid N = ceil(tau Lambda sqrt(p)); walk length K from a canonical-path bound.",
            "Derived (reference/gridwalk.py docstring): (i) conditioning on C at most doubles Dist_inf; "
            "(ii) the rejection step's output has density proportional to pi_K(c) F(y)/W(c), so a per-cell "
            "ratio e^(+-xi) gives e^(+-2 xi), and evaluation errors e^(+-eta) in ln F give e^(+-2 eta); "
            "(iii) the lazy chain has eigenvalues in [0, 1], so |P^K(x,y)/pi(y) - 1| <= (1 - gap)^K/pi_min; "
            "(iv) straight staircase paths stay within one cell of the segment, so by log-concavity of F "
            "every path cell has W >= e^-delta min(W(x), W(y)); counting at most N^p paths through an edge "
            "gives 1/gap <= 4 p^2 (N - 1) N^p e^delta, exponential in p but rigorous. Applegate and Kannan's "
            "polynomial conductance bound is not reproduced. The small-grid tests compare K with the exact "
            "multiplicative distance of P^K to pi.",
            ("tests/test_spec_bst14.py::test_thm_III_4_sampler_constants",),
        ),
        Flag(
            FlagKind.CAVEAT,
            "alpha = O(epsilon n/||C||_2) (the penalty's Lipschitz constant of the order of c n L) need not "
            "give Pr_F[C] >= 1/2 when C reaches far from the centre: at a boundary point at distance R the "
            "gauge grows by only 1/R per unit length while c Lbar can decrease at rate c n L, so the "
            "penalty must grow like c n L R per unit of gauge. We use the dimensionless sampler_alpha.",
            "Gauge-polar coordinates about the centre give Pr_F[not C]/Pr_F[C] <= I_out/I_in with "
            "I_out = int_0^oo p (1 + u)^(p-1) e^(-(alpha - a) u) du, I_in = int_0^1 p t^(p-1) e^(-a (1 - t)) dt, "
            "a = c n L R; bounding both gives alpha >= 2a + (1 + 2 ln 2)(p - 1) + 2 (sampler_alpha, "
            "R <= ||C||_2). The test checks I_out <= I_in exactly (mpmath) on a grid of (a, p). Numerically "
            "(disc of radius 300 in its bounding square, linear loss along the diagonal, epsilon n = 3000, "
            "coarse quadrature) the reading alpha = epsilon n/||C||_2 per unit of gauge gives Pr_F[C] about "
            "0.49; that borderline value is not asserted by a test.",
            ("tests/test_spec_bst14.py::test_thm_III_4_sampler_alpha",),
        ),
    ),
    notes=(
        "Grid walk: Applegate and Kannan 1991; its constants (grid spacing, walk length) are not given "
        "in this version of the paper; a lazy Metropolis walk on the grid with a final rejection step is a "
        "reconstruction whose correctness rests on standard Markov-chain facts.",
    ),
))


def fallback_log_ratio_bound(*, epsilon, n, retries, volume_ratio) -> float:
    """Upper bound on the log output ratio of Theorem III.4's sampler with the uniform-ball fallback.

    ``ln(e^epsilon + 2^-K V e^(epsilon n/6 + epsilon/3)) - ln(1 - 2^-K)`` with ``K = retries`` and
    ``V = Vol(C)/Vol(B)`` (module docstring), assuming each try is accepted with probability >= 1/2
    and the accepted sample's law is within ``Dist_inf <= epsilon/3`` of the exact mechanism on C.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    n, retries : int
        ``>= 1``.
    volume_ratio : float
        ``Vol(C)/Vol(B) >= 1``.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``bst14.thm_III_4`` (CAVEAT flag).
    """
    e = validate.epsilon(epsilon)
    n_ = validate.positive_integer("n", n)
    k = validate.positive_integer("retries", retries)
    v = validate.real("volume_ratio", volume_ratio)
    if not v >= 1:
        raise ParameterError(f"volume_ratio ({v!r}) must be >= 1 (the unit ball is inside C)")
    with mpmath.workdps(PRECISION_DIGITS):
        e_, w = mpmath.mpf(e), mpmath.mpf(2) ** (-k)
        value = (mpmath.log(mpmath.exp(e_) + w * mpmath.mpf(v) * mpmath.exp(e_ * n_ / 6 + e_ / 3))
                 - mpmath.log1p(-w))
        return round_safe(value, Rounding.UP)


# --------------------------------------------------------------------------- Section IV
OP_SENSITIVITY = 2 * L / (n * Delta)
OP_SENSITIVITY_TOL = OP_SENSITIVITY + 2 * sp.sqrt(2 * gap / (n * Delta))
OP_RATE = eps / OP_SENSITIVITY
OP_RATE_TOL = eps / OP_SENSITIVITY_TOL
OP_EXPECTED_NORM = p / OP_RATE
OP_RADIUS = zeta * 2 * L * p / (Delta * eps * n)

ALG_3 = register(SpecRecord(
    id="bst14.alg_3",
    title="Algorithm 3, A_out-pert: output perturbation (localisation step)",
    citation=Citation("bst14", "Algorithm 3"),
    summary=(
        "theta* = argmin_C L(theta; D); theta_0 = Pi_C(theta* + b) with density of b proportional to "
        "exp(-(n Delta epsilon/(2L)) ||b||_2); output C_0 = {theta in C: ||theta - theta_0|| <= zeta 2 L p/"
        "(Delta epsilon n)}."
    ),
    conventions=_CONVENTIONS,
    symbols=(S_L, S_N, S_DELTA_SC, S_EPS, S_P, S_ZETA, S_GAP),
    formulas=(
        Formula("sensitivity", OP_SENSITIVITY, "l2 sensitivity of the exact minimiser theta*", Rounding.UP),
        Formula("noise_rate", OP_RATE, "rate c of the noise density exp(-c ||b||) (smaller is safer)", Rounding.DOWN),
        Formula("expected_noise_norm", OP_EXPECTED_NORM, "E||b|| = p/c (||b|| ~ Gamma(p, scale 1/c))",
                Rounding.NEAREST),
        Formula("radius", OP_RADIUS, "radius of C_0: zeta E||b||", Rounding.UP),
        Formula(
            "sensitivity_with_tolerance", OP_SENSITIVITY_TOL,
            "sensitivity of a solver output with certified gap tau: 2L/(n Delta) + 2 sqrt(2 tau/(n Delta))",
            Rounding.UP,
        ),
        Formula("noise_rate_with_tolerance", OP_RATE_TOL, "epsilon / sensitivity_with_tolerance", Rounding.DOWN),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP: the density of theta* + b changes by at most exp(rate ||theta*(D) - theta*(D')||) "
        "<= e^epsilon (sensitivity 2L/(n Delta), module docstring); Pi_C and C_0 are post-processing.",
        epsilon=eps,
        delta=sp.Integer(0),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "theta* must be the exact minimiser; with a solver of certified gap tau use "
            "sensitivity_with_tolerance = 2L/(n Delta) + 2 sqrt(2 tau/(n Delta)) (tau = 0 is the paper's).",
            "L(.; D) is n Delta-strongly convex, so L(theta_hat) - L(theta*) <= tau implies ||theta_hat - "
            "theta*|| <= sqrt(2 tau/(n Delta)); by the triangle inequality the solver outputs on neighbours "
            "differ by at most the stated sum. The test checks the sensitivity derivation on quadratic "
            "instances with explicit minimisers (tight in a limit) and the tolerance term on exact "
            "isotropic quadratics.",
            ("tests/test_spec_bst14.py::test_alg_3_sensitivity_with_tolerance",),
        ),
        Flag(
            FlagKind.ERRATUM,
            "The input line asks for a radius parameter zeta < 1, but Algorithm 4 calls Algorithm 3 with "
            "zeta = 3 log n > 1 (n >= 2); no condition on zeta is imposed here.",
            "C_0 must contain theta* with high probability, which needs ||b|| <= zeta E||b||, i.e. zeta > 1 "
            "(for p = 1, ||b|| is exponential and Pr[||b|| > zeta E||b||] = e^-zeta > 1/e when zeta < 1). "
            "The radius is privacy-irrelevant (post-processing).",
            ("tests/test_spec_bst14.py::test_alg_3_zeta_condition_contradicts_alg_4",),
        ),
    ),
    notes=(
        "The sensitivity 2L/(n Delta) is derived in the module docstring (Chaudhuri et al. 2011).",
        "Sampling b: ||b|| ~ Gamma(shape p, scale 1/rate) times a uniform direction (the density is "
        "radial); E||b|| = 2 L p/(n Delta epsilon).",
        "The paper calls the normalising constant alpha (not the penalty alpha of Section III-C).",
    ),
    pseudocode=(
        Line("L1", "L(theta; D) = sum_i l(theta; d_i)."),
        Line("L2", "Find theta* = argmin over C of L(theta; D)."),
        Line("L3", "theta_0 = Pi_C(theta* + b), b with density proportional to exp(-(n Delta epsilon / (2 L)) ||b||_2)."),
        Line("L4", "Output C_0 = {theta in C: ||theta - theta_0||_2 <= zeta 2 L p / (Delta epsilon n)}."),
    ),
))

_HALF = {eps: eps / 2}
ALG_4_ZETA = 3 * sp.log(n)
ALG_4_RADIUS = OP_RADIUS.subs({eps: eps / 2, zeta: ALG_4_ZETA}, simultaneous=True)
ALG_4_COEFFICIENT = EXP_COEFFICIENT.subs({eps: eps / 2, diam: 2 * ALG_4_RADIUS}, simultaneous=True)

ALG_4 = register(SpecRecord(
    id="bst14.alg_4",
    title="Algorithm 4: output-perturbation-based generic algorithm (localisation)",
    citation=Citation("bst14", "Algorithm 4"),
    summary=(
        "Run Algorithm 3 at epsilon/2 with zeta = 3 log n to get C_0, then any epsilon/2-DP algorithm for "
        "Lipschitz losses (e.g. Algorithm 2) on C_0."
    ),
    conventions=_CONVENTIONS,
    symbols=(S_L, S_N, S_DELTA_SC, S_EPS, S_P, S_GAP),
    formulas=(
        Formula("epsilon_localization", eps / 2, "budget of the Algorithm 3 step", Rounding.DOWN),
        Formula("epsilon_generic", eps / 2, "budget of the generic step on C_0", Rounding.DOWN),
        Formula("zeta", ALG_4_ZETA, "radius parameter passed to Algorithm 3", Rounding.UP),
        Formula("noise_rate", OP_RATE.subs(_HALF), "Algorithm 3's rate at epsilon/2", Rounding.DOWN),
        Formula(
            "noise_rate_with_tolerance", OP_RATE_TOL.subs(_HALF),
            "Algorithm 3's rate at epsilon/2 for a solver with certified gap tau", Rounding.DOWN,
        ),
        Formula("radius", ALG_4_RADIUS, "radius of C_0: 3 ln(n) 4 L p/(Delta epsilon n)", Rounding.UP),
        Formula(
            "generic_coefficient", ALG_4_COEFFICIENT,
            "Algorithm 2's coefficient at epsilon/2 on C_0, whose diameter is at most 2 radius", Rounding.DOWN,
        ),
    ),
    notes=(
        "C_0 depends on the data, but it is the output of an epsilon/2-DP step; the second step is "
        "epsilon/2-DP for every fixed C_0, so adaptive basic composition applies (bst14.thm_IV_1).",
        "generic_coefficient bounds diam(C_0) by twice the radius (C_0 is inside a ball of that radius).",
    ),
    pseudocode=(
        Line("L1", "Run Algorithm 3 with privacy parameter epsilon/2 and zeta = 3 log(n); it outputs C_0."),
        Line("L2", "Run a generic epsilon/2-DP algorithm for Lipschitz losses (e.g. Algorithm 2) on C_0 and output theta_priv."),
    ),
))

_BASIC = _composition.BASIC
_THM_IV_1_EPS = _BASIC.formula("epsilon_total").expr.subs(
    {_BASIC.symbol("steps"): 2, _BASIC.symbol("epsilon"): eps / 2}, simultaneous=True,
)
THM_IV_1 = register(SpecRecord(
    id="bst14.thm_IV_1",
    title="Privacy of Algorithm 4",
    citation=Citation("bst14", "Theorem IV.1"),
    summary="Algorithm 4 is epsilon-differentially private.",
    conventions=_CONVENTIONS,
    symbols=(S_EPS,),
    formulas=(Formula("epsilon_total", _THM_IV_1_EPS, "basic composition of epsilon/2 and epsilon/2", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP: Algorithm 3 at epsilon/2 (bst14.alg_3) and an epsilon/2-DP algorithm on C_0, composed "
        "by composition.basic (k = 2 mechanisms of epsilon/2).",
        epsilon=_THM_IV_1_EPS,
        delta=sp.Integer(0),
    ),
))

LOCALIZED_DIAMETER = L * p * sp.log(n) / (Delta * eps * n)
_GAMMA_Z = sp.Symbol("z", positive=True)
#: Pr[||b|| > radius] for Algorithm 4: ||b|| ~ Gamma(p, scale 1/c), radius = 3 ln(n) p/c.
MISS_PROBABILITY = sp.uppergamma(p, ALG_4_ZETA * p) / sp.gamma(p)
_F = sp.Function("F")

LEMMA_IV_2 = register(SpecRecord(
    id="bst14.lemma_IV_2",
    title="Generic utility of Algorithm 4",
    citation=Citation("bst14", "Lemma IV.2"),
    summary=(
        "If the generic algorithm has E[excess risk over C~] <= F(p, n, epsilon, L, ||C~||_2) for every "
        "convex C~ inside C, Algorithm 4 has E[excess risk] = O(F(p, n, epsilon, L, L p log(n)/(Delta "
        "epsilon n)))."
    ),
    conventions=_CONVENTIONS,
    symbols=(S_P, S_N, S_EPS, S_L, S_DELTA_SC),
    assumptions=(Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2 (so that log n > 0)"),),
    formulas=(
        Formula("localized_diameter", LOCALIZED_DIAMETER, "order of diam(C_0) passed to F", Rounding.UP),
        Formula(
            "miss_probability", MISS_PROBABILITY,
            "Pr[theta* not in C_0] <= Pr[||b|| > radius] = Q(p, 3 p ln n) (regularised upper gamma)",
            Rounding.UP,
        ),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, _F(p, n, eps, L, LOCALIZED_DIAMETER), BoundKind.BIG_O,
            "In expectation over the algorithm's coins; F is the generic algorithm's guarantee.",
        ),
    ),
    notes=(
        "theta* is in C_0 whenever ||b|| <= radius, since the projection is non-expansive and theta* is "
        "in C: ||theta_0 - theta*|| <= ||b||. The proof is in the full version.",
    ),
))

THM_IV_3 = register(SpecRecord(
    id="bst14.thm_IV_3",
    title="Utility of Algorithm 4 with Algorithm 2 as the generic step",
    citation=Citation("bst14", "Theorem IV.3"),
    summary="E[L(theta_priv; D) - L(theta*; D)] = O(p^2 L^2 log(n)/(n Delta epsilon^2)).",
    conventions=_CONVENTIONS,
    symbols=(S_P, S_N, S_EPS, S_L, S_DELTA_SC),
    assumptions=(Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2"),),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP, Neighbouring.REPLACE_ONE, "epsilon-DP (bst14.thm_IV_1).",
        epsilon=eps, delta=sp.Integer(0),
    ),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, p**2 * L**2 * sp.log(n) / (n * Delta * eps**2), BoundKind.BIG_O,
            "In expectation over the algorithm's coins, for every D; Theorem III.2 composed with Lemma IV.2.",
            _RATES,
        ),
    ),
))


# --------------------------------------------------------------------------- Section V
_INSTANCE_NOTE = (
    "Instances: records in {-1/sqrt(p), 1/sqrt(p)}^p (unit norm), C the unit ball B (diameter 2). "
    "V-A: l(theta; d) = -<theta, d>; V-B: l(theta; d) = ||theta - d||^2/2. 'With probability' is over "
    "the algorithm's coins, for some dataset of the family."
)
_LB_CONVENTIONS = Conventions(LossForm.SUM, Neighbouring.REPLACE_ONE, _CONVENTIONS.notes + (_INSTANCE_NOTE,))
_LB_RATES = _RATES

LEMMA_V_1 = register(SpecRecord(
    id="bst14.lemma_V_1",
    title="Lower bounds for 1-way marginals",
    citation=Citation("bst14", "Lemma V.1"),
    summary=(
        "(1) For every epsilon-DP A there is D in {+-1/sqrt(p)}^p with ||sum d_i|| in [M-1, M+1], M = "
        "Omega(min(n, p/epsilon)), such that with probability >= 1/2, ||A(D) - q(D)|| = Omega(min(1, "
        "p/(epsilon n))). (2) For (epsilon, delta)-DP with delta = o(1/n): M = Omega(min(n, sqrt(p)/"
        "epsilon)) and, with probability >= 1/3, ||A(D) - q(D)|| = Omega(min(1, sqrt(p)/(epsilon n)))."
    ),
    conventions=_LB_CONVENTIONS,
    symbols=(S_N, S_P, S_EPS, S_DELTA),
    formulas=(
        Formula("M_pure", sp.Min(n, p / eps), "norm of sum d_i for part 1 (up to constants)", Rounding.NEAREST),
        Formula("M_approx", sp.Min(n, sp.sqrt(p) / eps), "norm of sum d_i for part 2 (up to constants)",
                Rounding.NEAREST),
        Formula("error_pure", sp.Min(1, p / (eps * n)), "part 1 error, both branches", Rounding.NEAREST),
        Formula("error_approx", sp.Min(1, sp.sqrt(p) / (eps * n)), "part 2 error, both branches", Rounding.NEAREST),
    ),
    utility=(
        UtilityClaim(
            Quantity.ESTIMATION_ERROR, p / (eps * n), BoundKind.BIG_OMEGA,
            "Part 1 (epsilon-DP), with probability >= 1/2; the branch of Omega(min(1, p/(epsilon n))) "
            "that applies when p <= epsilon n.",
            _LB_RATES,
        ),
        UtilityClaim(
            Quantity.ESTIMATION_ERROR, sp.sqrt(p) / (eps * n), BoundKind.BIG_OMEGA,
            "Part 2 ((epsilon, delta)-DP, delta = o(1/n)), with probability >= 1/3; the branch of "
            "Omega(min(1, sqrt(p)/(epsilon n))) that applies when sqrt(p) <= epsilon n.",
            _LB_RATES,
        ),
    ),
    flags=(
        Flag(
            FlagKind.RECONSTRUCTED,
            "Part 1 prints 'Omega(1, p/(epsilon n))'; read as Omega(min(1, p/(epsilon n))), as in part 2.",
            "Theorems V.2 and V.4 use part 1 exactly as the min: V.4's Omega(min(n, p^2/(epsilon^2 n))) is "
            "(n/2) min(1, p/(epsilon n))^2 by identity (3). The test checks that reduction with sympy.",
            ("tests/test_spec_bst14.py::test_lower_bounds_follow_from_lemma_V_1",),
        ),
    ),
    notes=("q(D) = (1/n) sum_i d_i. Proved in the full version (Hardt-Talwar 2010; Bun-Ullman-Vadhan 2014).",),
))


def _lower_bound_record(rid, item, title, bound, branch, branch_text, model, prob, instance, extra=()):
    assumptions = [Assumption("branch_active", branch, branch_text)]
    symbols = [S_N, S_P, S_EPS]
    if model == "approx":
        assumptions.append(_DELTA_LT_1_OVER_N)
        symbols.append(S_DELTA)
    return register(SpecRecord(
        id=rid,
        title=title,
        citation=Citation("bst14", item, ("3",) if instance == "V-B" else ()),
        summary=(
            f"For every {'epsilon' if model == 'pure' else '(epsilon, delta)'}-DP algorithm there is a "
            f"dataset of the {instance} family on which, with probability >= {prob}, the excess empirical "
            f"risk is Omega(min(n, {sp.sstr(bound)}))."
        ),
        conventions=_LB_CONVENTIONS,
        symbols=tuple(symbols),
        assumptions=tuple(assumptions),
        formulas=(
            Formula("bound_with_min", sp.Min(n, bound), "both branches of the Omega(min(n, .))", Rounding.NEAREST),
        ),
        utility=(
            UtilityClaim(
                Quantity.EXCESS_EMPIRICAL_RISK, bound, BoundKind.BIG_OMEGA,
                f"With probability >= {prob} over the coins; the non-trivial branch of Omega(min(n, .)), "
                f"active when {branch_text}.",
                _LB_RATES,
            ),
        ),
        flags=extra,
        notes=(
            "Instance " + instance + (": L(theta) - L(theta*) = ||sum d_i|| (1 - <theta, theta*>) >= "
                                      "||sum d_i|| ||theta - theta*||^2/2, theta* = sum d_i/||sum d_i||."
                                      if instance == "V-A" else
                                      ": theta* = q(D) and L(theta) - L(theta*) = (n/2) ||theta - q(D)||^2 "
                                      "(equation (3))."),
            "The instance's C is the unit ball (diameter 2, not the table's 1); constants only.",
        ),
    ))


_VB_ERRATUM = Flag(
    FlagKind.ERRATUM,
    "Section V-B says l(theta; d) = ||theta - d||^2/2 is 1-Lipschitz on the unit ball; its gradient theta - d "
    "reaches norm 2 (theta = -d, ||d|| = 1), so it is 2-Lipschitz.",
    "Affects constants only: l/2 is 1-Lipschitz and 1/2-strongly convex, and the lower bound scales by 1/2. "
    "The test computes the largest gradient norm over the unit ball for data in {+-1/sqrt(p)}^p.",
    ("tests/test_spec_bst14.py::test_thm_V_4_lipschitz_erratum",),
)

THM_V_2 = _lower_bound_record(
    "bst14.thm_V_2", "Theorem V.2", "Lower bound, epsilon-DP, Lipschitz losses",
    p / eps, sp.Le(p, eps * n), "p/epsilon <= n", "pure", "1/2", "V-A",
)
THM_V_3 = _lower_bound_record(
    "bst14.thm_V_3", "Theorem V.3", "Lower bound, (epsilon, delta)-DP, Lipschitz losses",
    sp.sqrt(p) / eps, sp.Le(sp.sqrt(p), eps * n), "sqrt(p)/epsilon <= n", "approx", "1/3", "V-A",
)
THM_V_4 = _lower_bound_record(
    "bst14.thm_V_4", "Theorem V.4", "Lower bound, epsilon-DP, strongly convex losses",
    p**2 / (eps**2 * n), sp.Le(p, eps * n), "p^2/(epsilon^2 n) <= n, i.e. p <= epsilon n", "pure", "1/2", "V-B",
    (_VB_ERRATUM,),
)
THM_V_5 = _lower_bound_record(
    "bst14.thm_V_5", "Theorem V.5", "Lower bound, (epsilon, delta)-DP, strongly convex losses",
    p / (eps**2 * n), sp.Le(p, eps**2 * n**2), "p/(epsilon^2 n) <= n", "approx", "1/3", "V-B",
    (_VB_ERRATUM,),
)


# --------------------------------------------------------------------------- Table I
@dataclass(frozen=True)
class TableCell:
    """One cell of bst14 Table I (normalised to L = ||C||_2 = 1).

    Attributes
    ----------
    row : {"lipschitz", "lipschitz+smooth", "strongly_convex", "strongly_convex+smooth"}
    model : {"pure", "approx"}
        (epsilon, 0) or (epsilon, delta)-DP.
    source : {"previous", "this work"}
    kind : {"upper", "lower"}
    bound : sympy expression
        In ``n``, ``p``, ``epsilon``, ``delta``, ``Delta`` (the record's symbols).
    reference : str
        Where the bound comes from.
    record : str
        Id of the bst14 record that proves it ('' for previous work).
    """

    row: str
    model: str
    source: str
    kind: str
    bound: sp.Basic
    reference: str
    record: str = ""


_ROWS = ("lipschitz", "lipschitz+smooth", "strongly_convex", "strongly_convex+smooth")
_MODELS = ("pure", "approx")
_SOURCES = ("previous", "this work")
_KINDS = ("upper", "lower")
_CMS11 = "[11] Chaudhuri, Monteleoni, Sarwate 2011"
_KST12 = "[29] Kifer, Smith, Thakurta 2012"
_lg = sp.log

TABLE_CELLS = (
    # (epsilon, 0)
    TableCell("lipschitz", "pure", "previous", "upper", p * sp.sqrt(n) / eps, _CMS11),
    TableCell("lipschitz", "pure", "this work", "upper", p / eps, "Theorem III.2", "bst14.thm_III_2"),
    TableCell("lipschitz", "pure", "this work", "lower", p / eps, "Theorem V.2", "bst14.thm_V_2"),
    TableCell("lipschitz+smooth", "pure", "previous", "upper", p / eps, _CMS11),
    TableCell("lipschitz+smooth", "pure", "this work", "lower", p / eps, "Theorem V.2", "bst14.thm_V_2"),
    TableCell("strongly_convex", "pure", "previous", "upper", p**2 / (sp.sqrt(n) * Delta * eps**2), _CMS11),
    TableCell("strongly_convex", "pure", "this work", "upper", _lg(n) / Delta * p**2 / (n * eps**2),
              "Theorem IV.3", "bst14.thm_IV_3"),
    TableCell("strongly_convex", "pure", "this work", "lower", p**2 / (n * eps**2), "Theorem V.4", "bst14.thm_V_4"),
    TableCell("strongly_convex+smooth", "pure", "previous", "upper", p**2 / (n * Delta * eps**2), _CMS11),
    TableCell("strongly_convex+smooth", "pure", "this work", "lower", p**2 / (n * eps**2), "Theorem V.4",
              "bst14.thm_V_4"),
    # (epsilon, delta)
    TableCell("lipschitz", "approx", "previous", "upper", sp.sqrt(p * n * _lg(1 / delta)) / eps, _KST12),
    TableCell("lipschitz", "approx", "this work", "upper", sp.sqrt(p) * _lg(n / delta) ** 2 / eps,
              "Theorem II.4 (1)", "bst14.thm_II_4"),
    TableCell("lipschitz", "approx", "this work", "lower", sp.sqrt(p) / eps, "Theorem V.3", "bst14.thm_V_3"),
    TableCell("lipschitz+smooth", "approx", "previous", "upper", sp.sqrt(p) * _lg(1 / delta) / eps, _KST12),
    TableCell("lipschitz+smooth", "approx", "this work", "lower", sp.sqrt(p) / eps, "Theorem V.3", "bst14.thm_V_3"),
    TableCell("strongly_convex", "approx", "previous", "upper", p * _lg(1 / delta) / (sp.sqrt(n) * Delta * eps**2),
              _KST12),
    TableCell("strongly_convex", "approx", "this work", "upper", _lg(n / delta) ** 3 / Delta * p / (n * eps**2),
              "Theorem II.4 (2)", "bst14.thm_II_4"),
    TableCell("strongly_convex", "approx", "this work", "lower", p / (n * eps**2), "Theorem V.5", "bst14.thm_V_5"),
    TableCell("strongly_convex+smooth", "approx", "previous", "upper", p * _lg(1 / delta) / (n * Delta * eps**2),
              _KST12),
    TableCell("strongly_convex+smooth", "approx", "this work", "lower", p / (n * eps**2), "Theorem V.5",
              "bst14.thm_V_5"),
)

TABLE_I = register(SpecRecord(
    id="bst14.table_I",
    title="Table I: upper and lower bounds for the excess risk of DP convex ERM",
    citation=Citation("bst14", "Table I"),
    summary=(
        "Excess empirical risk bounds for (epsilon, 0)- and (epsilon, delta)-DP convex ERM, previous work "
        "and this paper, for Lipschitz and strongly convex losses (with or without smoothness), at "
        "L = ||C||_2 = 1 and delta < 1/n. The cells are in data (TableCell); each is also a utility claim."
    ),
    conventions=_TABLE_CONVENTIONS,
    symbols=(S_N, S_P, S_EPS, S_DELTA, S_DELTA_SC),
    assumptions=(
        Assumption("delta_lt_1_over_n", sp.Lt(delta, 1 / n), "delta < 1/n, assumed by the table to simplify"),
    ),
    utility=tuple(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK, c.bound,
            BoundKind.BIG_O if c.kind == "upper" else BoundKind.BIG_OMEGA,
            f"{c.row}, {'(epsilon, 0)' if c.model == 'pure' else '(epsilon, delta)'}, {c.source}, {c.kind}: "
            f"{c.reference}.",
            _RATES,
        )
        for c in TABLE_CELLS
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "The (epsilon, delta) upper bounds of this work carry log^2(n/delta) (Lipschitz) and "
            "log^3(n/delta) (strongly convex) where Theorem II.4 has log^{3/2}(n/delta) sqrt(log(1/delta)) "
            "and log^2(n/delta) log(1/delta): the same order under the table's delta < 1/n.",
            "For delta < 1/n, ln(1/delta) <= ln(n/delta) < 2 ln(1/delta), so table/theorem = "
            "sqrt(ln(n/delta)/ln(1/delta)) is in [1, sqrt(2)) and ln(n/delta)/ln(1/delta) in [1, 2). Every "
            "'this work' cell has the rate exponents of its theorem (at L = ||C||_2 = 1), and every lower "
            "bound cell equals its theorem's bound.",
            ("tests/test_spec_bst14.py::test_table_I_matches_theorems",),
        ),
    ),
    notes=(
        "The smooth rows have no 'this work' upper bound: previous work (objective perturbation) is "
        "already optimal there, since the lower-bound instances are smooth.",
        "Query cells with spec.bst14.table_cells(row=..., model=..., source=..., kind=...).",
    ),
    data=TABLE_CELLS,
))


def table_cells(*, row=None, model=None, source=None, kind=None) -> tuple:
    """The Table I cells matching every given attribute (all cells when none is given).

    Parameters
    ----------
    row : {"lipschitz", "lipschitz+smooth", "strongly_convex", "strongly_convex+smooth"}, optional
    model : {"pure", "approx"}, optional
    source : {"previous", "this work"}, optional
    kind : {"upper", "lower"}, optional

    Returns
    -------
    tuple of TableCell
        In the order of the printed table (the (epsilon, 0) columns first).
    """
    want = {}
    for name, value, options in (("row", row, _ROWS), ("model", model, _MODELS),
                                 ("source", source, _SOURCES), ("kind", kind, _KINDS)):
        if value is not None:
            want[name] = validate.choice(name, value, options)
    return tuple(c for c in TABLE_CELLS if all(getattr(c, k) == v for k, v in want.items()))


def table_cell(*, row, model, source, kind) -> TableCell:
    """The single Table I cell at ``(row, model, source, kind)``.

    Raises
    ------
    ParameterError
        For an unknown attribute value, or for a cell the printed table leaves empty (the smooth rows
        have no 'this work' upper bound).
    """
    hits = table_cells(row=row, model=model, source=source, kind=kind)
    if not hits:
        raise ParameterError(
            f"Table I has no cell at row ({row!r}), model ({model!r}), source ({source!r}), kind ({kind!r}): "
            "the smooth rows have no 'this work' upper bound and previous work has no lower bounds"
        )
    return hits[0]


# --------------------------------------------------------------------------- functions (Sections III, IV)
def learning_rate_lipschitz(*, step, n, lipschitz, dimension, diameter, sigma) -> float:
    """Learning rate of Theorem II.4 (1): ``||C||_2 / sqrt(t (n^2 L^2 + p sigma^2))``.

    Parameters
    ----------
    step : int
        ``1 <= t <= n^2`` (the paper's domain of eta).
    n : int
        ``>= 2``.
    lipschitz, diameter, sigma : float
        ``> 0``; ``sigma`` is the noise actually used (any calibration).
    dimension : int
        ``>= 1``.

    Returns
    -------
    float

    Utility
    -------
    ``bst14.thm_II_4`` (formula ``eta_lipschitz_sigma``).
    """
    n_ = _n(n)
    t = validate.integer("step", step, minimum=1)
    if t > n_**2:
        raise ParameterError(f"step ({t}) must be <= n^2 = {n_**2}")
    return THM_II_4.evaluate(
        "eta_lipschitz_sigma", check=False, step=t, n=n_,
        lipschitz=validate.positive("lipschitz", lipschitz),
        dimension=validate.positive_integer("dimension", dimension),
        diameter=validate.positive("diameter", diameter),
        sigma=validate.positive("sigma", sigma),
    )


def learning_rate_strongly_convex(*, step, n, strong_convexity) -> float:
    """Learning rate of Theorem II.4 (2): ``1 / (Delta n t)``.

    Parameters
    ----------
    step : int
        ``1 <= t <= n^2``.
    n : int
        ``>= 2``.
    strong_convexity : float
        Per-example ``Delta > 0``.

    Returns
    -------
    float

    Utility
    -------
    ``bst14.thm_II_4`` (formula ``eta_strongly_convex``).
    """
    n_ = _n(n)
    t = validate.integer("step", step, minimum=1)
    if t > n_**2:
        raise ParameterError(f"step ({t}) must be <= n^2 = {n_**2}")
    return THM_II_4.evaluate(
        "eta_strongly_convex", check=False, step=t, n=n_,
        strong_convexity=validate.positive("strong_convexity", strong_convexity),
    )


def exp_sampling_coefficient(*, epsilon, lipschitz, diameter) -> float:
    """Coefficient ``epsilon / (2 L ||C||_2)`` of Algorithm 2's density ``exp(-c L(theta; D))`` (rounded down).

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    lipschitz : float
        ``L > 0``.
    diameter : float
        l2 diameter of C, ``> 0`` (2 for the unit ball).

    Returns
    -------
    float

    Privacy
    -------
    ``bst14.thm_III_1``: epsilon-DP.
    """
    return ALG_2.evaluate(
        "coefficient", epsilon=validate.epsilon(epsilon),
        lipschitz=validate.positive("lipschitz", lipschitz), diameter=validate.positive("diameter", diameter),
    )


def _exp_sampling_values(epsilon, lipschitz, diameter, dimension):
    return dict(
        epsilon=validate.epsilon(epsilon), lipschitz=validate.positive("lipschitz", lipschitz),
        diameter=validate.positive("diameter", diameter),
        dimension=validate.positive_integer("dimension", dimension),
    )


def excess_risk_bound_exp_sampling(*, epsilon, lipschitz, diameter, dimension) -> float:
    """Explicit bound ``(8 L ||C||_2/epsilon)((p+1) ln 3 + 1)`` on Algorithm 2's expected excess risk.

    Returns
    -------
    float
        Rounded up.

    Utility
    -------
    ``bst14.thm_III_2`` (formula ``expected_risk_bound``, flag CONSTANT_MADE_CONCRETE).
    """
    values = _exp_sampling_values(epsilon, lipschitz, diameter, dimension)
    return THM_III_2.evaluate("expected_risk_bound", **values)


def exp_sampling_tail_radius(*, epsilon, lipschitz, diameter, dimension, tail, proof_constant=False) -> float:
    """Radius r with ``Pr[excess risk of Algorithm 2 >= r] <= e^-tail``.

    Parameters
    ----------
    tail : float
        ``t >= 0``.
    proof_constant : bool
        False: the printed ``(8 L ||C||_2/epsilon)((p+1) ln 3 + t)``; True: the proof's ``3 Gamma``
        (6 in place of 8).

    Returns
    -------
    float
        Rounded up.

    Utility
    -------
    ``bst14.thm_III_2`` (formulas ``tail_radius``, ``tail_radius_proof``).
    """
    values = _exp_sampling_values(epsilon, lipschitz, diameter, dimension)
    values["tail"] = validate.nonnegative("tail", tail)
    if not isinstance(proof_constant, bool):
        raise TypeError(f"proof_constant ({proof_constant!r}) must be a bool")
    return THM_III_2.evaluate("tail_radius_proof" if proof_constant else "tail_radius", **values)


def _op_values(epsilon, lipschitz, n_, strong_convexity):
    return dict(
        epsilon=validate.epsilon(epsilon), lipschitz=validate.positive("lipschitz", lipschitz),
        n=validate.positive_integer("n", n_),
        strong_convexity=validate.positive("strong_convexity", strong_convexity),
    )


def output_perturbation_rate(*, epsilon, lipschitz, n, strong_convexity, solver_tolerance=0.0) -> float:
    """Rate ``c`` of Algorithm 3's noise density ``exp(-c ||b||_2)`` (rounded down: smaller is more noise).

    Parameters
    ----------
    epsilon : float
        Budget of Algorithm 3 itself (Algorithm 4 passes epsilon/2).
    lipschitz, strong_convexity : float
        ``L > 0`` and the per-example ``Delta > 0``.
    n : int
        ``>= 1``.
    solver_tolerance : float
        Certified optimality gap ``tau >= 0`` of the minimiser handed to the algorithm (0: exact).

    Returns
    -------
    float
        ``n Delta epsilon / (2 L)`` for ``solver_tolerance = 0``, else ``epsilon / (2 L/(n Delta) + 2
        sqrt(2 tau/(n Delta)))``.

    Privacy
    -------
    ``bst14.alg_3``: epsilon-DP.
    """
    values = _op_values(epsilon, lipschitz, n, strong_convexity)
    g = validate.nonnegative("solver_tolerance", solver_tolerance, error=PrivacyParameterError)
    if g == 0.0:
        return ALG_3.evaluate("noise_rate", **values)
    return ALG_3.evaluate("noise_rate_with_tolerance", solver_tolerance=g, **values)


def localization_radius(*, epsilon, lipschitz, n, strong_convexity, dimension, zeta) -> float:
    """Radius ``zeta 2 L p / (Delta epsilon n)`` of Algorithm 3's output set C_0 (rounded up).

    Parameters
    ----------
    epsilon : float
        Budget of Algorithm 3 itself.
    dimension : int
        ``p >= 1``.
    zeta : float
        ``> 0`` (Algorithm 4 uses ``3 ln n``).

    Returns
    -------
    float

    Utility
    -------
    ``bst14.alg_3`` (formula ``radius``); privacy-irrelevant (post-processing).
    """
    values = _op_values(epsilon, lipschitz, n, strong_convexity)
    return ALG_3.evaluate(
        "radius", dimension=validate.positive_integer("dimension", dimension),
        zeta=validate.positive("zeta", zeta), **values,
    )


def localization_parameters(*, epsilon, lipschitz, n, strong_convexity, dimension, solver_tolerance=0.0) -> dict:
    """Every constant of Algorithm 4 at total budget ``epsilon``.

    Returns
    -------
    dict
        ``epsilon_localization``, ``epsilon_generic`` (down), ``zeta`` (up), ``noise_rate`` (down; with the
        solver-gap correction when ``solver_tolerance > 0``), ``radius`` (up) and ``generic_coefficient``
        (Algorithm 2's coefficient at epsilon/2 on C_0, down).

    Privacy
    -------
    ``bst14.thm_IV_1``: epsilon-DP when the generic step uses ``epsilon_generic``.
    """
    values = _op_values(epsilon, lipschitz, n, strong_convexity)
    if values["n"] < 2:
        raise ParameterError(f"n ({values['n']}) must be >= 2 (zeta = 3 ln n)")
    g = validate.nonnegative("solver_tolerance", solver_tolerance, error=PrivacyParameterError)
    p_ = validate.positive_integer("dimension", dimension)
    rate = (ALG_4.evaluate("noise_rate", **values) if g == 0.0
            else ALG_4.evaluate("noise_rate_with_tolerance", solver_tolerance=g, **values))
    return {
        "epsilon_localization": ALG_4.evaluate("epsilon_localization", epsilon=values["epsilon"]),
        "epsilon_generic": ALG_4.evaluate("epsilon_generic", epsilon=values["epsilon"]),
        "zeta": ALG_4.evaluate("zeta", n=values["n"]),
        "noise_rate": rate,
        "radius": ALG_4.evaluate("radius", dimension=p_, **values),
        "generic_coefficient": ALG_4.evaluate("generic_coefficient", dimension=p_, **values),
    }


#: The records this module registers.
RECORDS = (
    ALG_1, THM_II_1, LEMMA_II_2, LEMMA_II_3, THM_II_4, LEMMA_II_5, LEMMA_II_6,
    ALG_2, THM_III_1, THM_III_2, THM_III_4,
    ALG_3, ALG_4, THM_IV_1, LEMMA_IV_2, THM_IV_3,
    LEMMA_V_1, THM_V_2, THM_V_3, THM_V_4, THM_V_5,
    TABLE_I,
)
