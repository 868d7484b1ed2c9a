"""Composition and amplification by subsampling for (epsilon, delta)-DP.

Records: ``composition.basic``, ``composition.advanced`` (Form A), ``composition.advanced_per_step``
(Form B), ``subsampling.bbkn14`` (the amplification lemma bst14 quotes) and ``subsampling.bbg18``
(the tight amplification for sampling without replacement under replace-one).

Form B's hidden condition. Form B sets the per-step ``eps = eps' / sqrt(8 k a)`` with
``a = ln(1/delta')``. Form A's first term is then exactly ``sqrt(2 k a) eps = eps'/2``; the second is
``k eps (e^eps - 1)``. Because ``k eps^2 = eps'^2 / (8 a)`` is fixed and ``(e^x - 1)/x`` increases, the
second term decreases in ``k`` and in ``a``: its largest value under the condition ``a >= eps'/2`` is at
``k = 1``, ``a = eps'/2``, where ``eps = sqrt(eps')/2`` and, writing ``s = sqrt(eps')``, the second term
is ``(s/2)(e^{s/2} - 1)``. It is at most ``eps'/2 = s^2/2`` iff ``e^{s/2} - 1 <= s``, which holds for
``0 <= s <= 2.51`` (the function ``s - e^{s/2} + 1`` vanishes at 0 and increases up to ``s = 2 ln 2``),
so for every ``eps' < 1``. Hence ``eps' < 1`` and ``ln(1/delta') >= eps'/2`` make Form B valid. Without
the second condition it fails: ``k = 1, eps' = 0.9, delta' = 0.9`` composes to 2.08.
"""

from __future__ import annotations

from typing import Sequence

import mpmath
import sympy as sp

from spec import validate
from spec.errors import ParameterError
from spec.record import (
    PRECISION_DIGITS,
    Assumption,
    Citation,
    Conventions,
    Flag,
    FlagKind,
    Formula,
    LossForm,
    Neighbouring,
    PrivacyClaim,
    PrivacyModel,
    Rounding,
    SpecRecord,
    Symbol,
    round_safe,
)
from spec.registry import register

__all__ = [
    "BASIC",
    "ADVANCED",
    "ADVANCED_PER_STEP",
    "BBKN14",
    "BBG18",
    "RECORDS",
    "basic",
    "advanced",
    "advanced_per_step",
    "amplify_bbkn14",
    "amplify_bbg18",
    "deamplify_bbg18",
]

eps = sp.Symbol("epsilon", positive=True)
delta0 = sp.Symbol("delta", nonnegative=True)  # per-mechanism delta; 0 for pure DP
k = sp.Symbol("k", positive=True, integer=True)
dprime = sp.Symbol("delta_prime", positive=True)
eps_total = sp.Symbol("epsilon_total", positive=True)
gamma = sp.Symbol("gamma", positive=True)

_S_EPS = Symbol("epsilon", eps, "epsilon of each composed mechanism")
_S_DELTA = Symbol("delta", delta0, "delta of each composed mechanism (0 for pure DP)")
_S_STEPS = Symbol("steps", k, "number of (adaptively) composed mechanisms")
_S_DPRIME = Symbol("delta_prime", dprime, "the extra failure probability delta' of advanced composition")
_S_EPS_TOTAL = Symbol("epsilon_total", eps_total, "target epsilon' of the whole composition")
_S_RATE = Symbol("sampling_rate", gamma, "fraction gamma = m/n of the records sampled")

_ADAPTIVE = (
    "Composition is adaptive: each mechanism may depend on the outputs of the previous ones. The "
    "statement holds for any neighbouring relation, provided every mechanism is DP under it; the "
    "papers use replace-one."
)

BASIC = SpecRecord(
    id="composition.basic",
    title="Basic composition",
    citation=Citation("dwork-roth14", "Theorem 3.16"),
    summary=(
        "The adaptive composition of (epsilon_i, delta_i)-DP mechanisms is (sum epsilon_i, "
        "sum delta_i)-DP."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE, (_ADAPTIVE,)),
    symbols=(_S_EPS, _S_DELTA, _S_STEPS),
    formulas=(
        Formula("epsilon_total", k * eps, "total epsilon of k identical mechanisms", Rounding.UP),
        Formula("delta_total", k * delta0, "total delta of k identical mechanisms", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(sum epsilon_i, sum delta_i)-DP; the formulas are the case of k identical mechanisms.",
        epsilon=k * eps,
        delta=k * delta0,
    ),
    notes=(
        "Dwork-Roth 2014 Theorem 3.16; the statement also holds for adaptive composition (each "
        "mechanism may depend on earlier outputs).",
    ),
)

_FORM_A_EPS = sp.sqrt(2 * k * sp.log(1 / dprime)) * eps + k * eps * (sp.exp(eps) - 1)

ADVANCED = SpecRecord(
    id="composition.advanced",
    title="Advanced composition (Form A)",
    citation=Citation("drv10", "Theorem III.3"),
    summary=(
        "For every delta' in (0, 1), the k-fold adaptive composition of (epsilon, delta)-DP mechanisms "
        "is (sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1), k delta + delta')-DP."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE, (_ADAPTIVE,)),
    symbols=(_S_EPS, _S_DELTA, _S_STEPS, _S_DPRIME),
    assumptions=(
        Assumption("delta_prime_lt_1", sp.Lt(dprime, 1), "delta' < 1"),
        Assumption("delta_lt_1", sp.Lt(delta0, 1), "delta < 1"),
    ),
    formulas=(
        Formula("epsilon_total", _FORM_A_EPS, "epsilon of the composition", Rounding.UP),
        Formula("delta_total", k * delta0 + dprime, "delta of the composition", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon_total, delta_total)-DP for every delta' in (0, 1).",
        epsilon=_FORM_A_EPS,
        delta=k * delta0 + dprime,
    ),
    notes=(
        "Dwork-Roth 2014 Theorem 3.20 states the same bound.",
        "bst14 Lemma II.3 ('strong composition') is the case delta = 0, with T = k.",
    ),
)

_FORM_B_EPS = eps_total / sp.sqrt(8 * k * sp.log(1 / dprime))

ADVANCED_PER_STEP = SpecRecord(
    id="composition.advanced_per_step",
    title="Advanced composition (Form B: per-step budget)",
    citation=Citation("dwork-roth14", "Corollary 3.21"),
    summary=(
        "For 0 < epsilon' < 1, k mechanisms that are each (epsilon' / sqrt(8 k ln(1/delta')), delta)-DP "
        "compose to (epsilon', k delta + delta')-DP, provided ln(1/delta') >= epsilon'/2."
    ),
    conventions=Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE, (_ADAPTIVE,)),
    symbols=(_S_EPS_TOTAL, _S_STEPS, _S_DPRIME),
    assumptions=(
        Assumption("epsilon_total_lt_1", sp.Lt(eps_total, 1), "epsilon' < 1 (as stated)"),
        Assumption("delta_prime_lt_1", sp.Lt(dprime, 1), "delta' < 1"),
        Assumption(
            "delta_prime_small",
            sp.Ge(sp.log(1 / dprime), eps_total / 2),
            "ln(1/delta') >= epsilon'/2 (hidden condition; see the flag)",
        ),
    ),
    formulas=(
        Formula("epsilon", _FORM_B_EPS, "per-mechanism epsilon granted", Rounding.DOWN),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(epsilon', k delta + delta')-DP, by composition.advanced at the per-step epsilon.",
        epsilon=eps_total,
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "The statement silently needs delta' bounded away from 1; ln(1/delta') >= epsilon'/2 is a "
            "sufficient condition (with epsilon' < 1), encoded as an assumption.",
            "Form A at the per-step epsilon gives epsilon'/2 + k eps (e^eps - 1). The second term is "
            "largest at k = 1 and the smallest ln(1/delta') allowed; at ln(1/delta') = epsilon'/2 it "
            "equals (s/2)(e^(s/2) - 1) with s = sqrt(epsilon'), which is <= epsilon'/2 iff "
            "e^(s/2) - 1 <= s, true for s < 1 (module docstring). Without the condition: k = 1, "
            "epsilon' = 0.9, delta' = 0.9 composes to 2.08 > 0.9. wang19 Lemma 1 prints "
            "ln(1/(delta t')) where ln(1/delta') is meant (an extraction garble).",
            ("tests/spec/test_composition.py::test_form_b_hidden_condition",),
        ),
    ),
    notes=(
        "wang19 Lemma 1 is this corollary; wang19 Algorithm 4 uses it with k = T and delta' = delta.",
        "Over k <= 1e6, epsilon' in [1e-3, 0.999], delta' in [1e-9, 0.5] the composed epsilon is at "
        "most 0.73 epsilon' (tests/spec/test_composition.py::test_form_b_grid).",
    ),
)

_BBG18_EPS = sp.log(1 + gamma * (sp.exp(eps) - 1))

BBKN14 = SpecRecord(
    id="subsampling.bbkn14",
    title="Amplification by subsampling, as quoted in bst14",
    citation=Citation("bst14", "Lemma II.2"),
    summary=(
        "If A is epsilon'-DP with epsilon' <= 1, running A on a uniformly random gamma n of the n "
        "entries is 2 gamma epsilon'-DP."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        ("Pure DP only. Beimel, Brenner, Kasiviswanathan and Nissim 2014, Lemma 4.",),
    ),
    symbols=(_S_EPS, _S_RATE),
    assumptions=(
        Assumption("epsilon_le_1", sp.Le(eps, 1), "epsilon' <= 1"),
        Assumption("rate_le_1", sp.Le(gamma, 1), "gamma <= 1"),
    ),
    formulas=(Formula("epsilon", 2 * gamma * eps, "epsilon after subsampling", Rounding.UP),),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "2 gamma epsilon'-DP.",
        epsilon=2 * gamma * eps,
        delta=sp.Integer(0),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "Pure DP only; bst14 applies it to the Gaussian mechanism on a high-probability event of "
            "its privacy loss, which is informal. Valid but loose: the tight bound is "
            "ln(1 + gamma (e^epsilon - 1)) (subsampling.bbg18).",
            "ln(1 + gamma (e^eps - 1)) <= gamma (e^eps - 1) <= gamma eps (e - 1) <= 2 gamma eps for "
            "eps <= 1, so the lemma holds as printed. The condition eps <= 1 matters: for small gamma "
            "the tight value exceeds 2 gamma eps once e^eps - 1 > 2 eps, i.e. eps > 1.2564. For "
            "(epsilon, delta) mechanisms use subsampling.bbg18.",
            ("tests/spec/test_composition.py::test_bbkn14_is_valid_but_loose",),
        ),
    ),
)

BBG18 = SpecRecord(
    id="subsampling.bbg18",
    title="Amplification by subsampling without replacement (tight)",
    citation=Citation("bbg18", "Theorem 9"),
    summary=(
        "Running an (epsilon, delta)-DP mechanism on m of the n records sampled without replacement is "
        "(ln(1 + gamma (e^epsilon - 1)), gamma delta)-DP under replace-one (substitution), gamma = m/n."
    ),
    conventions=Conventions(
        LossForm.NOT_APPLICABLE,
        Neighbouring.REPLACE_ONE,
        (
            "Substitution (replace-one) neighbours and a uniformly random subset of fixed size m. "
            "Poisson sampling under add/remove-one is a different theorem.",
        ),
    ),
    symbols=(_S_EPS, _S_DELTA, _S_RATE),
    assumptions=(Assumption("rate_le_1", sp.Le(gamma, 1), "gamma <= 1"),),
    formulas=(
        Formula("epsilon", _BBG18_EPS, "epsilon after subsampling", Rounding.UP),
        Formula("delta", gamma * delta0, "delta after subsampling", Rounding.UP),
        Formula(
            "epsilon_base",
            sp.log(1 + (sp.exp(eps) - 1) / gamma),
            "epsilon a mechanism may have so that its subsampled version is epsilon-DP",
            Rounding.DOWN,
        ),
        Formula(
            "delta_base",
            delta0 / gamma,
            "delta a mechanism may have so that its subsampled version has this delta",
            Rounding.DOWN,
        ),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.APPROX_DP,
        Neighbouring.REPLACE_ONE,
        "(ln(1 + gamma (e^epsilon - 1)), gamma delta)-DP.",
        epsilon=_BBG18_EPS,
        delta=gamma * delta0,
    ),
    notes=("epsilon_base and delta_base invert the amplification (used to calibrate per-step noise).",),
)


# --------------------------------------------------------------------------- functions
def _sequence(name: str, values) -> list:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} ({values!r}) must be a sequence of real numbers")
    return list(values)


def basic(epsilons: Sequence[float], deltas: Sequence[float] | None = None) -> tuple[float, float]:
    """Basic composition: ``(sum epsilons, sum deltas)``, both rounded up.

    Parameters
    ----------
    epsilons : sequence of float
        Each ``> 0``.
    deltas : sequence of float, optional
        Each in ``[0, 1)``, same length as ``epsilons``; default all zero (pure DP).

    Returns
    -------
    (float, float)
        The total epsilon and delta (a total delta >= 1 is a vacuous guarantee).

    Privacy
    -------
    ``composition.basic``.
    """
    eps_list = _sequence("epsilons", epsilons)
    if not eps_list:
        raise ParameterError("epsilons (empty) must have at least one entry")
    es = [validate.epsilon(e, name=f"epsilons[{i}]") for i, e in enumerate(eps_list)]
    if deltas is None:
        ds = [0.0] * len(es)
    else:
        d_list = _sequence("deltas", deltas)
        if len(d_list) != len(es):
            raise ParameterError(
                f"deltas (length {len(d_list)}) must have the length of epsilons ({len(es)})"
            )
        ds = [validate.delta(d, name=f"deltas[{i}]", allow_zero=True) for i, d in enumerate(d_list)]
    with mpmath.workdps(PRECISION_DIGITS):
        # Sums of floats at 50 digits are exact unless the exponents span more than ~110 binades.
        total_eps = mpmath.fsum(mpmath.mpf(e) for e in es)
        total_delta = mpmath.fsum(mpmath.mpf(d) for d in ds)
        return round_safe(total_eps, Rounding.UP), round_safe(total_delta, Rounding.UP)


def advanced(*, epsilon: float, delta: float, steps: int, delta_prime: float) -> tuple[float, float]:
    """Advanced composition, Form A: the (epsilon, delta) of ``steps`` adaptive compositions.

    Parameters
    ----------
    epsilon : float
        Per-mechanism epsilon, ``> 0``.
    delta : float
        Per-mechanism delta in ``[0, 1)``.
    steps : int
        Number of mechanisms, ``>= 1``.
    delta_prime : float
        In ``(0, 1)``.

    Returns
    -------
    (float, float)
        ``(sqrt(2 steps ln(1/delta')) epsilon + steps epsilon (e^epsilon - 1), steps delta + delta')``,
        both rounded up.

    Privacy
    -------
    ``composition.advanced``.
    """
    e = validate.epsilon(epsilon)
    d = validate.delta(delta, allow_zero=True)
    k_ = validate.positive_integer("steps", steps)
    dp = validate.delta(delta_prime, name="delta_prime")
    values = dict(epsilon=e, delta=d, steps=k_, delta_prime=dp)
    return ADVANCED.evaluate("epsilon_total", **values), ADVANCED.evaluate("delta_total", **values)


def advanced_per_step(*, epsilon_total: float, steps: int, delta_prime: float) -> float:
    """Advanced composition, Form B: per-mechanism epsilon ``epsilon' / sqrt(8 steps ln(1/delta'))``.

    Parameters
    ----------
    epsilon_total : float
        Target epsilon' in ``(0, 1)``.
    steps : int
        ``>= 1``.
    delta_prime : float
        In ``(0, 1)`` with ``ln(1/delta_prime) >= epsilon_total / 2``.

    Returns
    -------
    float
        Rounded down.

    Raises
    ------
    AssumptionError
        If ``epsilon_total >= 1`` or ``ln(1/delta_prime) < epsilon_total / 2``.

    Privacy
    -------
    ``composition.advanced_per_step``: the composition is (epsilon', steps delta + delta')-DP.
    """
    e = validate.epsilon(epsilon_total, name="epsilon_total")
    k_ = validate.positive_integer("steps", steps)
    dp = validate.delta(delta_prime, name="delta_prime")
    return ADVANCED_PER_STEP.evaluate("epsilon", epsilon_total=e, steps=k_, delta_prime=dp)


def amplify_bbkn14(*, epsilon: float, sampling_rate: float) -> float:
    """bst14 Lemma II.2: ``2 sampling_rate epsilon`` for an epsilon-DP mechanism (epsilon <= 1).

    Parameters
    ----------
    epsilon : float
        In ``(0, 1]``.
    sampling_rate : float
        In ``(0, 1]``.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``subsampling.bbkn14`` (pure DP only; prefer :func:`amplify_bbg18`).
    """
    e = validate.epsilon(epsilon)
    g = validate.interval("sampling_rate", sampling_rate, 0.0, 1.0, closed="right")
    return BBKN14.evaluate("epsilon", epsilon=e, sampling_rate=g)


def amplify_bbg18(*, epsilon: float, delta: float, sampling_rate: float) -> tuple[float, float]:
    """Tight amplification by subsampling without replacement (replace-one).

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        In ``[0, 1)``.
    sampling_rate : float
        ``m/n`` in ``(0, 1]``.

    Returns
    -------
    (float, float)
        ``(ln(1 + gamma (e^epsilon - 1)), gamma delta)``, rounded up.

    Privacy
    -------
    ``subsampling.bbg18``.
    """
    e = validate.epsilon(epsilon)
    d = validate.delta(delta, allow_zero=True)
    g = validate.interval("sampling_rate", sampling_rate, 0.0, 1.0, closed="right")
    values = dict(epsilon=e, delta=d, sampling_rate=g)
    return BBG18.evaluate("epsilon", **values), BBG18.evaluate("delta", **values)


def deamplify_bbg18(*, epsilon: float, delta: float, sampling_rate: float) -> tuple[float, float]:
    """The per-mechanism (epsilon, delta) whose BBG18 amplification is the target (epsilon, delta).

    Parameters
    ----------
    epsilon : float
        Target after subsampling, ``> 0``.
    delta : float
        Target after subsampling, in ``[0, 1)``.
    sampling_rate : float
        In ``(0, 1]``.

    Returns
    -------
    (float, float)
        ``(ln(1 + (e^epsilon - 1)/gamma), delta/gamma)``, rounded down (budgets granted). A returned
        delta >= 1 means the target delta needs no care from the base mechanism.

    Privacy
    -------
    ``subsampling.bbg18``: amplifying the result gives at most the target.
    """
    e = validate.epsilon(epsilon)
    d = validate.delta(delta, allow_zero=True)
    g = validate.interval("sampling_rate", sampling_rate, 0.0, 1.0, closed="right")
    values = dict(epsilon=e, delta=d, sampling_rate=g)
    return BBG18.evaluate("epsilon_base", **values), BBG18.evaluate("delta_base", **values)


BASIC = register(BASIC)
ADVANCED = register(ADVANCED)
ADVANCED_PER_STEP = register(ADVANCED_PER_STEP)
BBKN14 = register(BBKN14)
BBG18 = register(BBG18)

#: The records this module registers.
RECORDS = (BASIC, ADVANCED, ADVANCED_PER_STEP, BBKN14, BBG18)
