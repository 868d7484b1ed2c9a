r"""Proven noise calibrations for wang17, where the paper writes "for some constant c".

Two records and the accountant functions behind them.

``wang17.full_batch_calibration`` (DP-GD, Theorem 6.1; DP-AccMD with its erratum fixed, Theorem 5.3)
    Each iteration releases ``grad F(x; D) + N(0, sigma^2 I_p)``; under replace-one the average
    gradient moves by at most ``2G/n``. ``T`` such releases are ``T (2G/n)^2 / (2 sigma^2)``-zCDP
    (Bun and Steinke), which is (epsilon, delta)-DP when it is at most ``rho*(epsilon, delta) =
    epsilon^2 / (sqrt(ln(1/delta) + epsilon) + sqrt(ln(1/delta)))^2``. The expressions are those of
    ``zcdp.gaussian_calibration`` with the sensitivity ``2G/n`` substituted, so

        sigma^2 = 2 G^2 T (sqrt(a + epsilon) + sqrt(a))^2 / (n^2 epsilon^2),   a = ln(1/delta),

    and the constant the paper leaves open is ``c = 2 (1 + sqrt(1 + epsilon/a))^2 > 8``.

``wang17.svrg_step_privacy`` (one inner step of DP-SVRG and DP-SVRG++)
    The step releases ``v = a_I(D) + grad F(x~; D) + u`` with ``a_i = grad f(x, z_i) - grad f(x~, z_i)``,
    ``I`` uniform on ``[n]``, ``u ~ N(0, sigma^2 I_p)``; ``x`` and ``x~`` are functions of earlier
    releases, hence public under adaptive composition. *Noise splitting*: for ``lambda`` in (0, 1),
    ``u`` has the law of ``u_1 + u_2`` with independent ``u_1 ~ N(0, lambda sigma^2 I)`` and
    ``u_2 ~ N(0, (1 - lambda) sigma^2 I)``, so ``v`` is the sum (a post-processing) of the pair
    ``(a_I + u_1, grad F(x~) + u_2)``: two independent mechanisms on the same data, a Gaussian on a
    subsample of one record drawn without replacement (rate ``1/n``, replace-one sensitivity ``4G``)
    and a plain Gaussian (sensitivity ``2G/n``). RDP of the pair is the sum, so for every integer
    order ``alpha >= 2`` and every ``lambda``

        R_step(alpha) <= R_WBK19(alpha; 1/n, 4G, sigma sqrt(lambda)) + alpha (2G/n)^2 / (2 (1 - lambda) sigma^2).

    The split is an analysis device (the algorithm draws one ``u``), so ``lambda`` may be chosen per
    order. ``K`` inner steps compose additively; :func:`split_epsilon` converts with CKS20 (or
    Mironov) and :func:`split_sigma` finds the smallest certified sigma.

A lower bound beside the certificate. :func:`step_delta_lower_bound` is the exact hockey-stick
divergence of one step on an instance: 1-D Huber losses ``f(x, z) = G h_w(x - z)`` (``w = G/L``,
G-Lipschitz and L-smooth) with every record and the replacement ``z'_k`` at ``z >= x + w`` (gradient
``-G`` at ``x`` and at ``x~``) and ``z_k = (x + x~)/2``, when ``x - x~ >= 2w``. Then the snapshot
gradients agree, ``a_I(D') = 0`` and ``a_I(D) = 2G 1{I = k}``: the step is
``(1 - 1/n) N(-G, sigma^2) + (1/n) N(G, sigma^2)`` against ``N(-G, sigma^2)``. A per-step noise below
:func:`step_sigma_lower_bound` is therefore not (epsilon, delta)-DP as a mechanism of the data with
``x, x~`` public, which is the view of every composition argument (the paper's moments accountant and
ours). It is not a statement about the released ``x~_T`` alone (the audits test that).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Callable

import mpmath
import sympy as sp

from spec import cache
from spec import gaussian as _gaussian
from spec import inversion
from spec import rdp as _rdp
from spec import validate
from spec import zcdp as _zcdp
from spec.errors import ParameterError
from spec.record import (
    ALPHA,
    PRECISION_DIGITS,
    Assumption,
    Citation,
    Flag,
    FlagKind,
    Formula,
    PrivacyClaim,
    PrivacyModel,
    Rounding,
    SpecRecord,
    Symbol,
    round_safe,
)
from spec.registry import register
from spec.wang17.symbols import (
    CONVENTIONS,
    DELTA_LT_1,
    DIFFERENCE_SENSITIVITY,
    FULL_GRADIENT_SENSITIVITY,
    LOG_INV_DELTA,
    S_DELTA,
    S_EPSILON,
    S_LIPSCHITZ,
    S_N,
    S_SIGMA,
    S_STEPS,
    SAMPLING_RATE,
    T,
    delta,
    eps,
    implied_constant,
    lam,
    n,
    sigma,
)

__all__ = [
    "FULL_BATCH", "SVRG_STEP", "RECORDS",
    "FULL_BATCH_SIGMA", "FULL_BATCH_SIGMA_SQUARED", "FULL_BATCH_IMPLIED_CONSTANT",
    "DEFAULT_ORDERS", "EXTRA_ORDERS", "DEFAULT_SPLITS",
    "Certificate", "Calibration",
    "full_batch_profile", "split_step_rdp", "split_epsilon", "split_sigma", "accountant_floor",
    "step_delta_lower_bound", "step_sigma_lower_bound",
    "Accountants", "svrg_accountants",
]

TEST_FILE = "tests/spec/wang17/test_calibration.py"

# --------------------------------------------------------------------------- full batch (zCDP)
_ZC = _zcdp.GAUSSIAN_CALIBRATION
_ZC_SUBS = {
    _ZC.symbol("sensitivity"): FULL_GRADIENT_SENSITIVITY,
    _ZC.symbol("steps"): T,
    _ZC.symbol("epsilon"): eps,
    _ZC.symbol("delta"): delta,
}
#: sigma of T full-gradient releases, zcdp.gaussian_calibration at sensitivity 2G/n.
FULL_BATCH_SIGMA = _ZC.formula("sigma").expr.subs(_ZC_SUBS, simultaneous=True)
FULL_BATCH_SIGMA_SQUARED = sp.expand_power_base(FULL_BATCH_SIGMA**2, force=True)
_RS = _zcdp.RHO_STAR
FULL_BATCH_RHO = _RS.formula("rho").expr.subs(
    {_RS.symbol("epsilon"): eps, _RS.symbol("delta"): delta}, simultaneous=True
)
#: The c that FULL_BATCH_SIGMA implies in the paper's form, in closed form (tests check the identity).
FULL_BATCH_IMPLIED_CONSTANT = 2 * (1 + sp.sqrt(1 + eps / LOG_INV_DELTA)) ** 2


def full_batch_profile(*, sigma, lipschitz, n, steps):
    """Exact privacy profile ``delta(epsilon)`` of ``steps`` full-gradient Gaussian releases.

    The releases ``grad F(x_t; D) + N(0, sigma^2 I)`` with replace-one sensitivity ``2G/n`` (rounded
    up) compose to a Gaussian mechanism with ``mu = sqrt(steps) (2G/n) / sigma``
    (:func:`spec.gaussian.profile`); the profile is tight for a worst-case pair of neighbours.

    Privacy
    -------
    ``wang17.full_batch_calibration``.
    """
    s = validate.positive("sigma", sigma)
    sens = FULL_BATCH.evaluate("sensitivity", lipschitz=lipschitz, n=n)
    return _gaussian.profile(sigma=s, sensitivity=sens, steps=validate.positive_integer("steps", steps))


FULL_BATCH = register(SpecRecord(
    id="wang17.full_batch_calibration",
    title="Proven noise for full-batch gradient perturbation (DP-GD, DP-AccMD) via zCDP",
    citation=Citation("wang17", "Theorems 5.3 and 6.1, made concrete", ("9", "11")),
    summary=(
        "T releases of grad F(x_t; D) + N(0, sigma^2 I_p), replace-one sensitivity 2G/n, are (epsilon, "
        "delta)-DP for every epsilon > 0 with sigma^2 = 2 G^2 T (sqrt(ln(1/delta) + epsilon) + "
        "sqrt(ln(1/delta)))^2 / (n^2 epsilon^2): the paper's form with c = 2 (1 + sqrt(1 + "
        "epsilon/ln(1/delta)))^2."
    ),
    conventions=CONVENTIONS,
    symbols=(S_LIPSCHITZ, S_N, S_STEPS, S_EPSILON, S_DELTA, S_SIGMA),
    assumptions=(DELTA_LT_1,),
    formulas=(
        Formula("sensitivity", FULL_GRADIENT_SENSITIVITY,
                "replace-one l2 sensitivity 2G/n of the average gradient", Rounding.UP),
        Formula("rho", FULL_BATCH_RHO, "zCDP budget rho*(epsilon, delta) of the whole run", Rounding.DOWN),
        Formula("sigma_squared", FULL_BATCH_SIGMA_SQUARED, "noise variance per iteration", Rounding.UP),
        Formula("sigma", FULL_BATCH_SIGMA, "noise standard deviation per iteration", Rounding.UP),
        Formula("implied_constant", FULL_BATCH_IMPLIED_CONSTANT,
                "the paper's c implied by this sigma: sigma^2 n^2 epsilon^2 / (G^2 T ln(1/delta))",
                Rounding.NEAREST),
        Formula("implied_constant_of_sigma", implied_constant(T),
                "the c a given sigma implies in the paper's form", Rounding.NEAREST),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        CONVENTIONS.neighbouring,
        "(epsilon, delta)-DP for every epsilon > 0 and delta in (0, 1): the T releases are rho*-zCDP "
        "(zcdp.gaussian, zcdp.composition), converted by zcdp.to_dp; the whole transcript is covered, "
        "so any output (last or random iterate) is post-processing. profile: the exact profile of the "
        "composed Gaussian (tight for a worst-case pair).",
        epsilon=eps,
        delta=delta,
        rho=FULL_BATCH_RHO,
        profile=full_batch_profile,
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "The paper's 'sigma^2 = c G^2 T ln(1/delta)/(n^2 epsilon^2) for some constant c' made "
            "concrete: c = 2 (1 + sqrt(1 + epsilon/ln(1/delta)))^2, which decreases to 8 as "
            "epsilon/ln(1/delta) -> 0: 8.34 at epsilon = 1, delta = 1e-5; 9.66 at epsilon = 5, "
            "delta = 1e-5; 8.03 at epsilon = 0.1, delta = 1e-5.",
            "T Gaussian releases of sensitivity 2G/n are T (2G/n)^2/(2 sigma^2)-zCDP (zcdp.gaussian, "
            "zcdp.composition); sigma is zcdp.gaussian_calibration's with that sensitivity substituted, "
            "and sympy reduces sigma^2 n^2 epsilon^2 / (G^2 T ln(1/delta)) to the closed form of c. "
            "Valid for every epsilon > 0 (no epsilon < 1 restriction).",
            (f"{TEST_FILE}::test_full_batch_sigma_is_zcdp_calibration",
             f"{TEST_FILE}::test_full_batch_implied_constant_closed_form"),
        ),
    ),
    notes=(
        "Used by wang17.thm_5_3 (DP-AccMD, with the noisy gradient in both steps) and wang17.thm_6_1 "
        "(DP-GD); the expressions are built from zcdp.gaussian_calibration and zcdp.rho_star.",
        "The exact Gaussian profile (full_batch_profile, gaussian.analytic_sigma with steps = T) "
        "certifies a slightly smaller sigma; the closed form is kept as the default for its proof.",
    ),
))

# --------------------------------------------------------------------------- SVRG step (noise splitting)
_WR = _rdp.WITHOUT_REPLACEMENT_SUBSAMPLED_GAUSSIAN
_GS = _rdp.GAUSSIAN
SIGMA_SUBSAMPLED = sigma * sp.sqrt(lam)
SIGMA_SNAPSHOT = sigma * sp.sqrt(1 - lam)
_SUBSAMPLED_RDP = cache.subs(
    _WR.privacy.rdp,
    {_WR.symbol("sigma"): SIGMA_SUBSAMPLED, _WR.symbol("sensitivity"): DIFFERENCE_SENSITIVITY,
     _WR.symbol("sampling_rate"): SAMPLING_RATE},
    simultaneous=True,
)
SNAPSHOT_RDP = _GS.formula("rdp").expr.subs(
    {_GS.symbol("sigma"): SIGMA_SNAPSHOT, _GS.symbol("sensitivity"): FULL_GRADIENT_SENSITIVITY},
    simultaneous=True,
)
S_SPLIT = Symbol("split", lam, "share lambda of the noise variance given to the sampled difference")
S_ORDER = Symbol("order", ALPHA, "integer Renyi order alpha >= 2")


def split_step_rdp(order, *, sigma, lipschitz, n, split) -> float:
    """RDP bound at integer ``order`` of one DP-SVRG inner step for one noise split ``lambda``.

    ``R_WBK19(alpha; 1/n, 4G, sigma sqrt(lambda)) + alpha (2G/n)^2 / (2 (1 - lambda) sigma^2)``, every
    input rounded in the safe direction (sensitivities and rate up, the two noise scales down, with
    ``lambda + (1 - lambda) = 1`` exactly before rounding) and the sum rounded up.

    Privacy
    -------
    ``wang17.svrg_step_privacy`` (formula ``snapshot_rdp`` and
    ``rdp.without_replacement_subsampled_gaussian``).
    """
    a = validate.integer("order", order, minimum=2)
    parts = _split_parts(validate.positive("sigma", sigma), validate.positive("lipschitz", lipschitz),
                         validate.integer("n", n, minimum=2), _split(split))
    sub = _rdp.without_replacement_gaussian(a, sigma=parts[0], sensitivity=parts[1], sampling_rate=parts[2])
    snap = _rdp.gaussian(a, sigma=parts[3], sensitivity=parts[4])
    with mpmath.workdps(PRECISION_DIGITS):
        return round_safe(mpmath.mpf(sub) + mpmath.mpf(snap), Rounding.UP)


def _split(value) -> float:
    return validate.interval("split", value, 0.0, 1.0)


def _split_parts(sigma_: float, lipschitz: float, n_: int, split: float):
    """(sigma_sub, 4G, 1/n, sigma_snapshot, 2G/n), each from the record and rounded safely."""
    values = dict(sigma=sigma_, lipschitz=lipschitz, n=n_, split=split)
    return (
        SVRG_STEP.evaluate("sigma_subsampled", **values),
        SVRG_STEP.evaluate("difference_sensitivity", lipschitz=lipschitz),
        SVRG_STEP.evaluate("sampling_rate", n=n_),
        SVRG_STEP.evaluate("sigma_snapshot", **values),
        SVRG_STEP.evaluate("snapshot_sensitivity", lipschitz=lipschitz, n=n_),
    )


#: Integer orders of the certificate: every integer to 32 (where the optimum lies for moderate
#: budgets), then a sparse grid to 256; :data:`EXTRA_ORDERS` join when the optimum is at the top.
DEFAULT_ORDERS: tuple[int, ...] = tuple(range(2, 33)) + (40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256)
EXTRA_ORDERS: tuple[int, ...] = (320, 384, 448, 512)
#: With the default orders the certificate is first computed on the orders up to 64 (the WBK19
#: tables cost about the square of the largest order); larger orders join only when the optimum
#: is in the top quarter of the orders used. Any subset of orders gives a valid certificate.
_FIRST_ORDERS: tuple[int, ...] = tuple(a for a in DEFAULT_ORDERS if a <= 64)


def _near_top(order: int, used) -> bool:
    return 4 * order >= 3 * max(used)
#: Noise splits lambda tried at every order (the best is taken per order).
DEFAULT_SPLITS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98)


@dataclass(frozen=True)
class Certificate:
    """A certified epsilon with the order and the split that attain it."""

    epsilon: float
    order: int
    split: float


@dataclass(frozen=True)
class Calibration:
    """A proven sigma for ``steps`` DP-SVRG-type inner steps.

    Attributes
    ----------
    sigma : float
        Noise standard deviation per inner step: certified at ``certified_epsilon <= epsilon``, and the
        smallest double this accountant certifies (same orders, splits; :mod:`spec.inversion`).
    certified_epsilon, order, split
        The certificate at ``sigma``.
    steps : int
        Number of composed inner steps ``K``.
    orders : tuple of int
        The Renyi orders the certificate minimised over.
    implied_constant : float or None
        The paper's ``c`` implied by ``sigma`` (set by the algorithm-level ``calibrate``).
    """

    sigma: float
    certified_epsilon: float
    order: int
    split: float
    steps: int
    orders: tuple
    implied_constant: float | None = None


def _orders_key(orders):
    if orders is None:
        return None
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
        raise TypeError(f"orders ({orders!r}) must be a sequence of integer Renyi orders")
    out = tuple(validate.integer(f"orders[{i}]", a, minimum=2) for i, a in enumerate(orders))
    if not out:
        raise ParameterError("orders (()) must contain at least one order")
    return out


def _splits_key(splits):
    if splits is None:
        return DEFAULT_SPLITS
    if isinstance(splits, (str, bytes)) or not hasattr(splits, "__iter__"):
        raise TypeError(f"splits ({splits!r}) must be a sequence of variance shares in (0, 1)")
    out = tuple(validate.interval(f"splits[{i}]", v, 0.0, 1.0) for i, v in enumerate(splits))
    if not out:
        raise ParameterError("splits (()) must contain at least one share")
    return out


@functools.lru_cache(maxsize=4096)
def _certificate(sigma_, lipschitz, n_, steps, delta_, orders, splits, conversion) -> Certificate:
    by_split = []
    for lam_ in splits:
        s_sub, sens, rate, s_snap, snap_sens = _split_parts(sigma_, lipschitz, n_, lam_)
        # descending orders: the first call builds the WBK19 tables up to the largest order
        sub = {a: _rdp.without_replacement_gaussian(a, sigma=s_sub, sensitivity=sens, sampling_rate=rate)
               for a in sorted(orders, reverse=True)}
        snap = {a: _rdp.gaussian(a, sigma=s_snap, sensitivity=snap_sens) for a in orders}
        by_split.append((lam_, sub, snap))
    totals, best_split = [], {}
    with mpmath.workdps(PRECISION_DIGITS):
        k = mpmath.mpf(steps)
        for a in orders:
            value, share = min(
                ((k * (mpmath.mpf(sub[a]) + mpmath.mpf(snap[a])), lam_) for lam_, sub, snap in by_split),
                key=lambda pair: pair[0],
            )
            totals.append(round_safe(value, Rounding.UP))
            best_split[a] = share
    e, order = _rdp.to_epsilon(orders, totals, delta=delta_, conversion=conversion)
    return Certificate(epsilon=e, order=int(order), split=best_split[order])


def _common(*, lipschitz, n, steps, delta, conversion):
    return (
        validate.positive("lipschitz", lipschitz),
        validate.integer("n", n, minimum=2),
        validate.positive_integer("steps", steps),
        validate.delta(delta),
        validate.choice("conversion", conversion, ("cks", "mironov")),
    )


def split_epsilon(*, sigma, lipschitz, n, delta, steps=1, orders=None, splits=None,
                  conversion="cks") -> Certificate:
    """Certified epsilon at ``delta`` of ``steps`` DP-SVRG inner steps with noise ``sigma``.

    Parameters
    ----------
    sigma : float
        Noise standard deviation per inner step, ``> 0``.
    lipschitz : float
        ``G > 0``.
    n : int
        Number of records, ``>= 2`` (one index drawn per step, rate ``1/n``).
    delta : float
        In ``(0, 1)``.
    steps : int
        Number of composed inner steps ``K`` (``T m`` for DP-SVRG, ``m (2^(T+1) - 2)`` for DP-SVRG++).
    orders : sequence of int, optional
        Integer Renyi orders; any subset gives a valid certificate. Default: the orders of
        :data:`DEFAULT_ORDERS` up to 64, then all of them when the optimum is at 48 or above, and
        :data:`EXTRA_ORDERS` too when it is then at 192 or above.
    splits : sequence of float, optional
        Variance shares ``lambda`` in (0, 1) to try at each order (default :data:`DEFAULT_SPLITS`).
    conversion : {"cks", "mironov"}
        RDP to (epsilon, delta): ``rdp.to_dp_cks20`` (default) or ``rdp.to_dp_mironov17``.

    Returns
    -------
    Certificate
        ``epsilon`` (rounded up), the minimising order and the split used there.

    Privacy
    -------
    ``wang17.svrg_step_privacy``, composed additively over ``steps``.
    """
    s = validate.positive("sigma", sigma)
    lip, n_, k, d, conv = _common(lipschitz=lipschitz, n=n, steps=steps, delta=delta, conversion=conversion)
    orders_, splits_ = _orders_key(orders), _splits_key(splits)
    if orders_ is not None:
        return _certificate(s, lip, n_, k, d, orders_, splits_, conv)
    best = _certificate(s, lip, n_, k, d, _FIRST_ORDERS, splits_, conv)
    for narrower, used in ((_FIRST_ORDERS, DEFAULT_ORDERS), (DEFAULT_ORDERS, DEFAULT_ORDERS + EXTRA_ORDERS)):
        if not _near_top(best.order, narrower):
            break
        wider = _certificate(s, lip, n_, k, d, used, splits_, conv)
        best = min(best, wider, key=lambda c: c.epsilon)
    return best


def accountant_floor(orders, delta, *, conversion="cks") -> float:
    """The certified epsilon as sigma -> oo (RDP 0 at every order): no sigma certifies less."""
    orders_ = _orders_key(orders) or DEFAULT_ORDERS
    return _rdp.to_epsilon(orders_, [0.0] * len(orders_), delta=validate.delta(delta),
                           conversion=validate.choice("conversion", conversion, ("cks", "mironov")))[0]


def _gaussian_regime_guess(e, d, lip, n_, k):
    """Starting point only: per step ~ 50 alpha G^2/(n^2 sigma^2) (lambda = 0.8), at least 3G."""
    a = math.log(1 / d)
    rho = e**2 / (math.sqrt(a + e) + math.sqrt(a)) ** 2
    return max(3.0 * lip, math.sqrt(50.0 * k / rho) * lip / n_)


def _solve(cert, e: float, start: float, splits) -> float:
    """Smallest sigma with ``cert(sigma, splits).epsilon <= e`` (:func:`spec.inversion.smallest`).

    The certificate is nonincreasing in sigma, and over fewer splits it is larger (each split gives
    a valid bound; the minimum over more can only be smaller), so the root over a few splits is a
    certified sigma at or above the root over all of them. The search runs over the splits that
    are optimal at the start and at the root found, and stops when the certificate over every
    split fails one double below that root: then the two roots are the same double.
    """
    def margin(use):
        return lambda x: inversion.log_ratio(cert(x, use).epsilon, e)

    few = {cert(start, splits).split}
    while True:
        use = tuple(sorted(few)) if len(few) < len(splits) else splits
        root = inversion.smallest(margin(use), start=start)
        if use == splits:
            return root
        below = math.nextafter(root, 0.0)
        if margin(splits)(below) > 0:
            return root  # every split fails just below: root is the smallest double over all splits
        few |= {cert(root, splits).split, cert(below, splits).split}
        start = root


@functools.lru_cache(maxsize=256)
def _split_sigma(e, d, lip, n_, k, orders, splits, conversion) -> Calibration:
    if orders is not None:
        ladder = (orders,)
    elif e <= 1.5 * accountant_floor(DEFAULT_ORDERS, d, conversion=conversion):
        ladder = (DEFAULT_ORDERS + EXTRA_ORDERS,)  # small budgets: the optimum is at large orders
    else:
        ladder = (_FIRST_ORDERS, DEFAULT_ORDERS, DEFAULT_ORDERS + EXTRA_ORDERS)
    floor = accountant_floor(ladder[-1], d, conversion=conversion)
    if not e > floor:
        raise ParameterError(
            f"epsilon ({e!r}) must be > {floor:.6g}: with Renyi orders up to {max(ladder[-1])} the "
            f"accountant cannot certify less at delta ({d!r}) for any sigma; pass larger orders"
        )
    start = _gaussian_regime_guess(e, d, lip, n_, k)
    for rung, used in enumerate(ladder):
        if not e > accountant_floor(used, d, conversion=conversion):
            continue

        def cert(x, use, used=used):
            return _certificate(x, lip, n_, k, d, used, use, conversion)

        sigma_ = _solve(cert, e, start, splits)
        c = cert(sigma_, splits)
        # Larger orders compete only when the optimum sits near the top of this rung.
        if rung == len(ladder) - 1 or not _near_top(c.order, used):
            break
        start = sigma_
    return Calibration(sigma=sigma_, certified_epsilon=c.epsilon, order=c.order, split=c.split, steps=k,
                       orders=used)


def split_sigma(*, epsilon, delta, lipschitz, n, steps, orders=None, splits=None, conversion="cks") -> Calibration:
    """Smallest sigma that :func:`split_epsilon` certifies at ``epsilon`` (:mod:`spec.inversion`, one ulp).

    Parameters
    ----------
    epsilon, delta : float
        Target budget.
    lipschitz : float
        ``G > 0``.
    n : int
        ``>= 2``.
    steps : int
        Number of composed inner steps ``K``.
    orders, splits, conversion
        As in :func:`split_epsilon`. Default orders are extended to 512 when the optimum sits at 256
        or the budget is small.

    Returns
    -------
    Calibration
        ``sigma`` with ``split_epsilon(sigma=...) <= epsilon`` (checked), and the certificate.

    Raises
    ------
    ParameterError
        If ``epsilon`` is at or below what the orders can certify for any sigma.

    Privacy
    -------
    ``wang17.svrg_step_privacy`` composed over ``steps``; the paper's Theorems 4.1 and 4.3.
    """
    e = validate.epsilon(epsilon)
    lip, n_, k, d, conv = _common(lipschitz=lipschitz, n=n, steps=steps, delta=delta, conversion=conversion)
    return _split_sigma(e, d, lip, n_, k, _orders_key(orders), _splits_key(splits), conv)


SVRG_STEP = register(SpecRecord(
    id="wang17.svrg_step_privacy",
    title="RDP of one DP-SVRG inner step by noise splitting",
    citation=Citation("wang17", "Theorems 4.1 and 4.3 (proof), made concrete", ("3", "6")),
    summary=(
        "The noisy direction v = grad f(x, z_I) - grad f(x~, z_I) + grad F(x~) + N(0, sigma^2 I_p), I "
        "uniform on [n], is for every lambda in (0, 1) the sum of a Gaussian on a one-record subsample "
        "(sensitivity 4G, noise sigma sqrt(lambda)) and a Gaussian of grad F(x~) (sensitivity 2G/n, "
        "noise sigma sqrt(1 - lambda)); its RDP is at most the sum of theirs."
    ),
    conventions=CONVENTIONS,
    symbols=(S_ORDER, S_SIGMA, S_LIPSCHITZ, S_N, S_SPLIT),
    assumptions=(
        Assumption("alpha_ge_2", sp.Ge(ALPHA, 2), "integer orders alpha >= 2 (wbk19)"),
        Assumption("split_lt_1", sp.Lt(lam, 1), "0 < lambda < 1"),
        Assumption("n_ge_2", sp.Ge(n, 2), "n >= 2"),
    ),
    formulas=(
        Formula("difference_sensitivity", DIFFERENCE_SENSITIVITY,
                "replace-one l2 sensitivity 4G of grad f(x, z_I) - grad f(x~, z_I) when I is the replaced index",
                Rounding.UP),
        Formula("snapshot_sensitivity", FULL_GRADIENT_SENSITIVITY,
                "replace-one l2 sensitivity 2G/n of the snapshot gradient grad F(x~)", Rounding.UP),
        Formula("sampling_rate", SAMPLING_RATE, "one index of n per inner step", Rounding.UP),
        Formula("sigma_subsampled", SIGMA_SUBSAMPLED, "noise on the sampled difference", Rounding.DOWN),
        Formula("sigma_snapshot", SIGMA_SNAPSHOT, "noise on the snapshot gradient", Rounding.DOWN),
        Formula("snapshot_rdp", SNAPSHOT_RDP, "RDP of the snapshot part at order alpha", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.RDP,
        CONVENTIONS.neighbouring,
        "(alpha, R(alpha))-RDP per inner step for integer alpha >= 2, R = WBK19 (Theorem 27) at "
        "(1/n, 4G, sigma sqrt(lambda)) plus the Gaussian term, for any lambda (chosen per order); "
        "K steps compose additively. accountant: split_epsilon(sigma, lipschitz, n, delta, steps).",
        rdp=_SUBSAMPLED_RDP + SNAPSHOT_RDP,
        accountant=split_epsilon,
    ),
    flags=(
        Flag(
            FlagKind.CONSTANT_MADE_CONCRETE,
            "Replaces the moments accountant the paper cites (add/remove-one, Poisson sampling, "
            "unspecified c, c1) by a replace-one, without-replacement RDP certificate of the step "
            "as the algorithm runs it.",
            "The sum of the pair (a_I + u_1, grad F(x~) + u_2) has the law of v, so v's Renyi divergence "
            "is at most the pair's, the sum of the two parts' (independent randomness). The test "
            "checks the bound against the exact Renyi divergence (quadrature) of a one-step "
            "worst-case pair (sampled difference 4G, snapshot gradients 2G/n apart) in both "
            "directions, for several lambda and orders, and that 4G is the supremum of the sampled "
            "difference's sensitivity for convex, G-Lipschitz, L-smooth losses (approached by 2-D ridge "
            "losses; in one dimension convexity caps it at 2G).",
            (f"{TEST_FILE}::test_split_bound_dominates_exact_step_divergence",
             f"{TEST_FILE}::test_difference_sensitivity_is_attained"),
        ),
        Flag(
            FlagKind.CAVEAT,
            "The per-step noise has a floor: once T m / n^2 is small, sigma stops shrinking with the "
            "number of steps (about 2.8-3.0 G at n = 10^4, epsilon = 1, delta = 1e-5 with CKS20).",
            "For a single step (K = 1) the certificate needs sigma = 2.834 G at n = 10^4, epsilon = 1, "
            "delta = 1e-5, and 2.967 G at K = 2000; the exact hockey-stick of one step on a Huber "
            "instance (step_delta_lower_bound) shows that any sigma up to 0.572 G fails for that step. "
            "Between 0.572 G (refuted) and 2.834 G (certified) the truth is open: RDP is loose for "
            "subsampled mechanisms at small noise, and the Huber pair (sampled difference 2G) need "
            "not be the worst. Either way the noise cannot follow sigma^2 ~ T m as T m / n^2 -> 0.",
            (f"{TEST_FILE}::test_single_step_floor_and_lower_bound",
             "tests/spec/wang17/test_svrg.py::test_calibration_table"),
        ),
    ),
    notes=(
        "x and x~ are functions of earlier releases, hence public under adaptive composition; the "
        "prox step and the epoch averages are post-processing.",
        "A sharper per-step sensitivity 2 min(2G, L ||x - x~||) is valid (x, x~ public) but not used.",
        "Minimising over lambda per order is legitimate: every lambda gives a valid bound at every "
        "order, and the algorithm itself does not depend on lambda.",
    ),
))


# --------------------------------------------------------------------------- lower bound
def _step_delta_mp(e, sigma_, lipschitz, n_):
    """Exact H_{e^eps}(P || Q) for P = (1-g) N(0, s^2) + g N(D, s^2), Q = N(0, s^2), D = 2G, g = 1/n."""
    with mpmath.workdps(PRECISION_DIGITS):
        s, big = mpmath.mpf(sigma_), 2 * mpmath.mpf(lipschitz)
        g = 1 / mpmath.mpf(n_)
        ee = mpmath.exp(mpmath.mpf(e))
        # likelihood ratio 1 - g + g exp((x D - D^2/2)/s^2) is increasing: {ratio > e^eps} = {x > x*}
        x_star = s**2 / big * mpmath.log((ee - 1 + g) / g) + big / 2
        tail = mpmath.ncdf(-x_star / s)
        value = (1 - g - ee) * tail + g * mpmath.ncdf(-(x_star - big) / s)
        return max(value, mpmath.mpf(0))


def step_delta_lower_bound(epsilon, *, sigma, lipschitz, n) -> float:
    """Exact delta(epsilon) of one DP-SVRG inner step on the Huber instance of the module docstring.

    ``H_{e^eps}((1 - 1/n) N(0, sigma^2) + (1/n) N(2G, sigma^2) || N(0, sigma^2))``; the reverse
    direction vanishes for ``epsilon >= -ln(1 - 1/n)``. Rounded down (it is a lower bound).

    Privacy
    -------
    ``wang17.svrg_step_privacy`` (CAVEAT flag): no per-step argument can certify
    (epsilon, delta) with ``delta`` below this value.
    """
    e = validate.nonnegative("epsilon", epsilon)
    s = validate.positive("sigma", sigma)
    lip = validate.positive("lipschitz", lipschitz)
    n_ = validate.integer("n", n, minimum=2)
    return round_safe(_step_delta_mp(e, s, lip, n_), Rounding.DOWN)


@functools.lru_cache(maxsize=256)
def _step_sigma_lower_bound(e, d, lip, n_):
    if not d < 1 / n_:
        return 0.0

    def margin(x):  # <= 0 while one step at noise x is refuted: exact delta(epsilon) > delta
        value = _step_delta_mp(e, x, lip, n_)
        return 5e-324 if value == d else -inversion.log_ratio(value, d)

    return inversion.largest(margin, start=lip)


def step_sigma_lower_bound(*, epsilon, delta, lipschitz, n) -> float:
    """A sigma at and below which one DP-SVRG inner step is not (epsilon, delta)-DP.

    ``step_delta_lower_bound`` is decreasing in sigma (adding noise is post-processing), so every
    sigma <= the returned value has ``delta(epsilon) > delta`` on the Huber instance. Returns 0 when
    ``delta >= 1/n`` (the instance then proves nothing).

    Privacy
    -------
    ``wang17.svrg_step_privacy`` (CAVEAT flag).
    """
    return _step_sigma_lower_bound(validate.epsilon(epsilon), validate.delta(delta),
                                   validate.positive("lipschitz", lipschitz), validate.integer("n", n, minimum=2))


# --------------------------------------------------------------------------- DP-SVRG and DP-SVRG++
@dataclass(frozen=True)
class Accountants:
    """The accountant functions of one DP-SVRG-type algorithm, made by :func:`svrg_accountants`."""

    certified_epsilon: Callable[..., float]
    calibrate: Callable[..., Calibration]
    sigma_accountant: Callable[..., float]
    implied_constant_accountant: Callable[..., float]


def svrg_accountants(*, algorithm: SpecRecord, theorem: str, equation: str, module: str) -> Accountants:
    """The four accountant functions of DP-SVRG (``wang17.alg_1``) or DP-SVRG++ (``wang17.alg_2``).

    Both algorithms release ``K`` inner steps of ``wang17.svrg_step_privacy`` (``K = T m`` and
    ``m (2^(T+1) - 2)``: the box record's formula ``noisy_steps``); the accountant, the smallest
    certified sigma and the paper's constant it implies differ only in ``K`` and in the theorem's
    form of the noise. One factory, so the two algorithms cannot drift apart.

    Parameters
    ----------
    algorithm : SpecRecord
        The box record (formula ``noisy_steps`` of ``n``, ``epochs``, ``epoch_length``).
    theorem : str
        Id of the privacy theorem record (formulas ``sigma_paper`` and ``implied_constant``); looked
        up when a function is called, since the record is built from these functions.
    equation : str
        The paper's equation of the noise (``"(3)"``, ``"(6)"``), for the docstrings.
    module : str
        The module that exports the functions (their ``__module__``, as ``dperm calibrate --list``
        shows them).

    Returns
    -------
    Accountants

    Privacy
    -------
    ``wang17.thm_4_1`` and ``wang17.thm_4_3`` via ``wang17.svrg_step_privacy``.
    """
    from spec import registry

    def steps(values):
        return algorithm.evaluate("noisy_steps", **values)

    def certified_epsilon(*, n, epochs, epoch_length, delta, lipschitz=1.0, sigma=None, epsilon=None,
                          noise_constant=None, orders=None, splits=None, conversion="cks") -> float:
        values = dict(n=n, epochs=epochs, epoch_length=epoch_length)
        k = steps(values)
        if sigma is None:
            if epsilon is None or noise_constant is None:
                raise validate.error_class("sigma")(
                    f"sigma (None) needs epsilon and noise_constant (the paper's c) to compute eq. {equation}"
                )
            sigma = registry.get(theorem).evaluate("sigma_paper", check=False, lipschitz=lipschitz, epsilon=epsilon,
                                                   delta=delta, noise_constant=noise_constant, **values)
        return split_epsilon(sigma=sigma, lipschitz=lipschitz, n=n, delta=delta, steps=k, orders=orders,
                             splits=splits, conversion=conversion).epsilon

    def calibrate(*, n, epochs, epoch_length, epsilon, delta, lipschitz=1.0, orders=None, splits=None,
                  conversion="cks") -> Calibration:
        values = dict(n=n, epochs=epochs, epoch_length=epoch_length)
        cal = split_sigma(epsilon=epsilon, delta=delta, lipschitz=lipschitz, n=n, steps=steps(values),
                          orders=orders, splits=splits, conversion=conversion)
        c = registry.get(theorem).evaluate("implied_constant", sigma=cal.sigma, lipschitz=lipschitz,
                                           epsilon=epsilon, delta=delta, **values)
        return dataclasses.replace(cal, implied_constant=c)

    def sigma_accountant(*, n, epochs, epoch_length, epsilon, delta, lipschitz=1.0) -> float:
        return calibrate(n=n, epochs=epochs, epoch_length=epoch_length, epsilon=epsilon, delta=delta,
                         lipschitz=lipschitz).sigma

    def implied_constant_accountant(*, n, epochs, epoch_length, epsilon, delta, lipschitz=1.0) -> float:
        return calibrate(n=n, epochs=epochs, epoch_length=epoch_length, epsilon=epsilon, delta=delta,
                         lipschitz=lipschitz).implied_constant

    where = f"``{theorem}`` via ``wang17.svrg_step_privacy`` over the ``K`` noisy steps of ``{algorithm.id}``"
    docs = {
        certified_epsilon: (
            f"Certified epsilon at ``delta`` of {algorithm.id}'s noisy steps (RDP accountant, noise splitting).\n\n"
            "``sigma`` is the noise per inner step; without it the paper's sigma of eq. "
            f"{equation} at ``noise_constant`` (c) and ``epsilon`` is certified. ``orders``, ``splits``, "
            "``conversion`` as in :func:`spec.wang17.calibration.split_epsilon`. Rounded up."),
        calibrate: (
            f"The proven noise for {algorithm.id} and the constant ``c`` it implies in eq. {equation}.\n\n"
            "The smallest sigma (:mod:`spec.inversion`) whose inner steps the accountant of "
            "``certified_epsilon`` certifies (epsilon, delta)-DP, as a "
            ":class:`spec.wang17.calibration.Calibration` with ``implied_constant`` set."),
        sigma_accountant: f"The proven sigma of ``calibrate`` (``dperm calibrate {theorem}``).",
        implied_constant_accountant: (
            f"The c that the proven sigma implies in eq. {equation} "
            f"(``dperm calibrate {theorem} --calibration implied-constant``)."),
    }
    for fn, doc in docs.items():
        fn.__module__ = module
        fn.__qualname__ = fn.__name__
        fn.__doc__ = f"{doc}\n\nPrivacy\n-------\n{where}."
    return Accountants(certified_epsilon, calibrate, sigma_accountant, implied_constant_accountant)


#: The records this module registers.
RECORDS = (FULL_BATCH, SVRG_STEP)
