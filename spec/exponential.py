"""Selection mechanisms: the exponential mechanism (textbook and oscillation forms), its utility
bound, and report-noisy-max with Laplace noise.

The exponential mechanism with coefficient ``c`` outputs ``r`` in a range ``R`` with probability
``p_D(r) = exp(c u(D, r)) / Z_D``.

Oscillation form (record ``exponential.oscillation``). Let ``h = u(D, .) - u(D', .)``. Then

    p_D(r) / p_D'(r) = e^{c h(r)} Z_D' / Z_D
                     = e^{c h(r)} sum_r' p_D(r') e^{-c h(r')}
                     = E_{r' ~ p_D} [ e^{c (h(r) - h(r'))} ]  <=  e^{c (sup h - inf h)},

since ``Z_D' = sum_r' e^{c u(D, r')} e^{-c h(r')}``. With ``osc = sup over neighbouring (D, D') of
(sup h - inf h)``, the coefficient ``c = epsilon / osc`` is epsilon-DP (the bound is symmetric in D and
D'). If ``|u(D, r) - u(D', r)| <= Delta_u`` for every ``r`` then ``osc <= 2 Delta_u``, which gives the
textbook ``c = epsilon / (2 Delta_u)``; for monotone scores (``h`` of one sign) ``osc <= Delta_u``. The
bound is attained in the limit where ``p_D`` puts all its mass on a minimiser of ``h`` and ``r``
maximises ``h``.

Utility (record ``exponential.utility``). Every ``r`` with ``u(D, r) <= OPT - g`` has probability at most
``e^{c (OPT - g)} / e^{c OPT}``, so ``Pr[u(output) <= OPT - g] <= |R| e^{-c g}``; with
``c = epsilon/(2 Delta_u)`` and ``g = (2 Delta_u/epsilon)(ln |R| + t)`` this is ``e^{-t}``.
"""

from __future__ import annotations

from typing import Callable, Sequence

import mpmath
import sympy as sp

from spec import validate
from spec.errors import ParameterError, PrivacyParameterError
from spec.record import (
    PRECISION_DIGITS,
    BoundKind,
    Citation,
    Conventions,
    Flag,
    FlagKind,
    Formula,
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
    "TEXTBOOK",
    "OSCILLATION",
    "UTILITY",
    "REPORT_NOISY_MAX",
    "RECORDS",
    "exponent_textbook",
    "exponent_oscillation",
    "utility_gap",
    "report_noisy_max_scale",
    "output_distribution",
    "exact_discrete_profile",
]

eps = sp.Symbol("epsilon", positive=True)
Du = sp.Symbol("Delta_u", positive=True)
osc = sp.Symbol("osc", positive=True)
R = sp.Symbol("R", positive=True, integer=True)  # |R|, the size of the range
t = sp.Symbol("t", nonnegative=True)

_S_EPS = Symbol("epsilon", eps, "privacy budget epsilon")
_S_SENS = Symbol("sensitivity", Du, "sensitivity of the score: max over r and neighbours of |u(D,r) - u(D',r)|")
_S_OSC = Symbol("oscillation", osc, "sup over neighbours of (sup h - inf h), h = u(D,.) - u(D',.)")
_S_SIZE = Symbol("candidates", R, "number of candidate outputs |R|")
_S_T = Symbol("tail", t, "tail parameter: the bound fails with probability at most exp(-t)")

_SCORE_NOTE = (
    "The sensitivity (or oscillation) is a supremum over neighbouring datasets under the relation it "
    "was computed for; the papers use replace-one. It must come from public information, never from "
    "the data."
)
_CONVENTIONS = Conventions(LossForm.NOT_APPLICABLE, Neighbouring.REPLACE_ONE, (_SCORE_NOTE,))

TEXTBOOK = SpecRecord(
    id="exponential.textbook",
    title="Exponential mechanism (textbook coefficient)",
    citation=Citation("mcsherry-talwar07", "the exponential mechanism"),
    summary=(
        "Selecting r with probability proportional to exp(epsilon u(D, r) / (2 Delta_u)) is "
        "epsilon-DP when the score has sensitivity Delta_u."
    ),
    conventions=_CONVENTIONS,
    symbols=(_S_EPS, _S_SENS),
    formulas=(
        Formula("coefficient", eps / (2 * Du), "exponent coefficient c (smaller is safer)", Rounding.DOWN),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP (Dwork-Roth 2014 Theorem 3.10).",
        epsilon=eps,
        delta=sp.Integer(0),
    ),
    notes=(
        "wang19 Definition 6 states this mechanism; wang19 Algorithm 4 (DP-FW-L1) uses it.",
        "Special case of exponential.oscillation: |h| <= Delta_u implies osc <= 2 Delta_u.",
    ),
)

OSCILLATION = SpecRecord(
    id="exponential.oscillation",
    title="Exponential mechanism (oscillation coefficient)",
    citation=Citation("dperm", "exponential mechanism, oscillation form"),
    summary=(
        "Selecting r with probability proportional to exp(epsilon u(D, r) / osc) is epsilon-DP, where "
        "osc bounds sup h - inf h for h = u(D, .) - u(D', .) over all neighbouring pairs."
    ),
    conventions=_CONVENTIONS,
    symbols=(_S_EPS, _S_OSC),
    formulas=(
        Formula("coefficient", eps / osc, "exponent coefficient c (smaller is safer)", Rounding.DOWN),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP: p_D(r)/p_D'(r) = E_{r' ~ p_D} exp(c (h(r) - h(r'))) <= exp(c osc) = e^epsilon.",
        epsilon=eps,
        delta=sp.Integer(0),
    ),
    flags=(
        Flag(
            FlagKind.RECONSTRUCTED,
            "Not stated in the papers: derived here (module docstring of spec.exponential).",
            "The textbook analysis bounds the score change and the normaliser change separately "
            "(osc <= 2 Delta_u). Bounding the ratio by the oscillation of h is sharper (osc <= Delta_u "
            "for monotone scores) and is what justifies bst14 Algorithm 2: for the sum loss under "
            "replace-one, h(theta) = l(theta; d) - l(theta; d') is 2L-Lipschitz on C, so osc <= "
            "2 L ||C||_2 and c = epsilon / (2 L ||C||_2) is epsilon-DP. The test computes the exact "
            "maximal log-ratio on random finite score pairs and checks it is at most c * osc, and "
            "that the bound is attained in the limit.",
            ("tests/spec/test_exponential.py::test_oscillation_bound_on_random_score_pairs",),
        ),
    ),
    notes=(
        "For monotone scores (h >= 0 or h <= 0 everywhere) osc <= Delta_u: c = epsilon/Delta_u.",
        "bst14 Algorithm 2 cites this record for its constant epsilon/(2 L ||C||_2).",
    ),
)

UTILITY = SpecRecord(
    id="exponential.utility",
    title="Utility of the exponential mechanism",
    citation=Citation("wang19", "Lemma 3"),
    summary=(
        "The textbook exponential mechanism outputs r with u(D, r) <= OPT - (2 Delta_u/epsilon)"
        "(ln |R| + t) with probability at most exp(-t)."
    ),
    conventions=_CONVENTIONS,
    symbols=(_S_EPS, _S_SENS, _S_SIZE, _S_T),
    formulas=(
        Formula("gap", 2 * Du / eps * (sp.log(R) + t), "score gap to the optimum", Rounding.UP),
    ),
    utility=(
        UtilityClaim(
            Quantity.SCORE_GAP,
            2 * Du / eps * (sp.log(R) + t),
            BoundKind.HIGH_PROBABILITY,
            "Pr[u(D, output) <= OPT - gap] <= exp(-t), over the mechanism's coins, for every D.",
            (("epsilon", "0"), ("candidates", "oo")),
        ),
    ),
    notes=(
        "Dwork-Roth 2014 Theorem 3.11. Proof: each r with u <= OPT - gap has probability at most "
        "exp(-c gap) (the normaliser is at least exp(c OPT)); a union over |R| outcomes.",
        "With a general coefficient c the same proof gives gap = (ln |R| + t) / c.",
    ),
)

REPORT_NOISY_MAX = SpecRecord(
    id="report_noisy_max.laplace",
    title="Report noisy max with Laplace noise",
    citation=Citation("dwork-roth14", "Claim 3.9"),
    summary=(
        "Adding independent Lap(2 Delta/epsilon) noise to each score and reporting the argmax is "
        "epsilon-DP for any scores of sensitivity Delta; Lap(Delta/epsilon) suffices for monotone "
        "(counting-type) scores."
    ),
    conventions=_CONVENTIONS,
    symbols=(_S_EPS, _S_SENS),
    formulas=(
        Formula("scale", 2 * Du / eps, "Laplace scale for arbitrary scores", Rounding.UP),
        Formula(
            "scale_monotone",
            Du / eps,
            "Laplace scale when all scores move in the same direction between neighbours",
            Rounding.UP,
        ),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.PURE_DP,
        Neighbouring.REPLACE_ONE,
        "epsilon-DP with `scale`; with `scale_monotone` only for monotone scores.",
        epsilon=eps,
        delta=sp.Integer(0),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "wang19 says report-noisy-max 'could be used instead' of the exponential mechanism in "
            "DP-FW-L1: only with Laplace scale 2 Delta_u/epsilon_0, since its scores are not monotone.",
            "Claim 3.9 of Dwork-Roth is for counting queries (monotone: all scores move the same way), "
            "where Lap(Delta/epsilon) suffices. The DP-FW-L1 scores <v, -grad F> change in both "
            "directions between neighbours. Conditioning on the other noises, the output is i iff "
            "Z_i exceeds a threshold that moves by at most 2 Delta, which gives the general scale "
            "2 Delta/epsilon. With Delta/epsilon and two candidates whose scores move in opposite "
            "directions the privacy loss tends to 2 epsilon. The test computes the exact output "
            "distribution by quadrature for both scales.",
            ("tests/spec/test_exponential.py::test_report_noisy_max_scales",),
        ),
    ),
    notes=(
        "Talwar-Thakurta-Zhang 2015 and Lou-Cheung 2018 (cited by wang19) use a Laplace scale that must "
        "be checked against this record before it is used with non-monotone scores.",
    ),
)


# --------------------------------------------------------------------------- functions
def exponent_textbook(*, epsilon: float, sensitivity: float) -> float:
    """Coefficient ``epsilon / (2 sensitivity)`` of the textbook exponential mechanism (rounded down).

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    sensitivity : float
        Sensitivity of the score, ``> 0``.

    Returns
    -------
    float

    Privacy
    -------
    ``exponential.textbook``: epsilon-DP.
    """
    e = validate.epsilon(epsilon)
    s = validate.positive("sensitivity", sensitivity)
    return TEXTBOOK.evaluate("coefficient", epsilon=e, sensitivity=s)


def exponent_oscillation(*, epsilon: float, oscillation: float) -> float:
    """Coefficient ``epsilon / oscillation`` of the exponential mechanism (rounded down).

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    oscillation : float
        ``> 0``: an upper bound on ``sup h - inf h`` for ``h = u(D, .) - u(D', .)`` over all
        neighbouring pairs, from public information.

    Returns
    -------
    float

    Privacy
    -------
    ``exponential.oscillation``: epsilon-DP.
    """
    e = validate.epsilon(epsilon)
    o = validate.positive("oscillation", oscillation, error=PrivacyParameterError)
    return OSCILLATION.evaluate("coefficient", epsilon=e, oscillation=o)


def utility_gap(*, epsilon: float, sensitivity: float, candidates: int, tail: float) -> float:
    """Score gap ``(2 sensitivity / epsilon)(ln candidates + tail)`` of the textbook exponential mechanism.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    sensitivity : float
        ``> 0``.
    candidates : int
        Number of candidates ``|R| >= 1``.
    tail : float
        ``>= 0``.

    Returns
    -------
    float
        Rounded up.

    Utility
    -------
    ``exponential.utility``: ``Pr[u(output) <= OPT - gap] <= exp(-t)``.
    """
    e = validate.epsilon(epsilon)
    s = validate.positive("sensitivity", sensitivity)
    n = validate.positive_integer("candidates", candidates)
    tt = validate.nonnegative("tail", tail)
    return UTILITY.evaluate("gap", epsilon=e, sensitivity=s, candidates=n, tail=tt)


def report_noisy_max_scale(*, epsilon: float, sensitivity: float, monotone: bool = False) -> float:
    """Laplace scale for report-noisy-max: ``2 sensitivity/epsilon``, or ``sensitivity/epsilon`` if monotone.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    sensitivity : float
        Sensitivity of every score, ``> 0``.
    monotone : bool
        True only if, for every pair of neighbours, all scores change in the same direction.

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``report_noisy_max.laplace``: epsilon-DP.
    """
    e = validate.epsilon(epsilon)
    s = validate.positive("sensitivity", sensitivity)
    if not isinstance(monotone, bool):
        raise TypeError(f"monotone ({monotone!r}) must be a bool")
    name = "scale_monotone" if monotone else "scale"
    return REPORT_NOISY_MAX.evaluate(name, epsilon=e, sensitivity=s)


def _as_mpf_list(name: str, values, *, error=ParameterError) -> list:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} ({values!r}) must be a sequence of real numbers")
    out = []
    for i, v in enumerate(values):
        out.append(mpmath.mpf(validate.real(f"{name}[{i}]", v, error=error)))
    if not out:
        raise ParameterError(f"{name} (empty) must have at least one entry")
    return out


def output_distribution(scores: Sequence[float], *, coefficient: float) -> tuple[mpmath.mpf, ...]:
    """Exact output distribution of the exponential mechanism on a finite range.

    ``p_i = exp(c s_i) / sum_j exp(c s_j)``, computed in mpmath at 50 digits after subtracting the
    largest score (no overflow).

    Parameters
    ----------
    scores : sequence of float
        Finite scores ``u(D, r)``, one per candidate.
    coefficient : float
        ``c >= 0`` (``0`` gives the uniform distribution).

    Returns
    -------
    tuple of mpmath.mpf
        The probabilities, summing to 1 up to 50-digit rounding.
    """
    c = validate.nonnegative("coefficient", coefficient, error=PrivacyParameterError)
    with mpmath.workdps(PRECISION_DIGITS):
        s = _as_mpf_list("scores", scores)
        top = max(s)
        weights = [mpmath.exp(c * (x - top)) for x in s]
        total = mpmath.fsum(weights)
        return tuple(w / total for w in weights)


def exact_discrete_profile(p: Sequence[float], q: Sequence[float]) -> Callable[[float], float]:
    """The privacy profile ``delta(eps) = sum_i max(0, p_i - e^eps q_i)`` of two finite distributions.

    Parameters
    ----------
    p, q : sequence of float or mpmath.mpf
        Probability vectors of equal length (nonnegative, each summing to 1 within 1e-9).

    Returns
    -------
    callable
        ``delta_of_epsilon(epsilon) -> float`` for ``epsilon >= 0``, computed in mpmath and rounded
        up. This is the hockey-stick divergence ``E_eps(p || q)``; for the (eps, delta)-DP of a pair
        of neighbours, take the maximum with the profile of ``(q, p)``.
    """
    with mpmath.workdps(PRECISION_DIGITS):
        pv = _as_mpf_list("p", p)
        qv = _as_mpf_list("q", q)
        if len(pv) != len(qv):
            raise ParameterError(f"p and q must have the same length, got {len(pv)} and {len(qv)}")
        for name, vec in (("p", pv), ("q", qv)):
            for i, x in enumerate(vec):
                if x < 0:
                    raise ParameterError(f"{name}[{i}] ({float(x)!r}) must be >= 0")
            total = mpmath.fsum(vec)
            if abs(total - 1) > mpmath.mpf(10) ** -9:
                raise ParameterError(f"{name} (sum {float(total)!r}) must sum to 1")
    pv, qv = tuple(pv), tuple(qv)

    def delta_of_epsilon(epsilon) -> float:
        e = validate.nonnegative("epsilon", epsilon, error=PrivacyParameterError)
        with mpmath.workdps(PRECISION_DIGITS):
            factor = mpmath.exp(e)
            value = mpmath.fsum(max(mpmath.mpf(0), a - factor * b) for a, b in zip(pv, qv))
            return min(1.0, round_safe(value, Rounding.UP))

    delta_of_epsilon.__doc__ = "delta(epsilon) = sum_i max(0, p_i - e^epsilon q_i) (hockey-stick divergence)."
    return delta_of_epsilon


TEXTBOOK = register(TEXTBOOK)
OSCILLATION = register(OSCILLATION)
UTILITY = register(UTILITY)
REPORT_NOISY_MAX = register(REPORT_NOISY_MAX)

#: The records this module registers.
RECORDS = (TEXTBOOK, OSCILLATION, UTILITY, REPORT_NOISY_MAX)
