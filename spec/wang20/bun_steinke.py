r"""wang20 Theorem 3 and Algorithm 2: Bun and Steinke's trimmed mean with arsinh-normal noise.

Algorithm 2 releases ``[trim_m(x)]_[a,b] + (S(x)/s) Z`` with ``Z = sinh(Y)``, ``Y ~ N(0, 1)``,
``t = epsilon^2/16`` and ``s = epsilon/4``, where ``trim_m`` averages the order statistics
``x_(m+1), ..., x_(n-m)`` and ``[.]_[a,b]`` clips the average (not the data) to ``[a, b]``.

The smooth bound
----------------
The privacy theorem (wang20 Theorem 3, Bun-Steinke) needs ``S`` to be a *t-smooth upper bound* on
the local sensitivity ``LS``: ``LS(x) <= S(x)`` and ``S(x) <= e^t S(y)`` for all neighbours. Then,
scaling by ``S(x)/s``, the output laws on neighbours are ``Z`` and ``e^tau Z + Delta`` with
``|tau| <= t``, ``|Delta| <= s`` (in both directions), the pairs the arsinh-normal is proved (and
here numerically checked) to be ``epsilon^2/2``-zCDP on.

The printed ``S(x) = max{(x_(n) - x_(1))/(n - 2m), e^{-mt}(b - a)}`` bounds ``LS`` but is not
smooth: moving ``x_(n)`` moves it without limit (the ERRATUM flag). The bound used instead is

    A^(k)(x) = min{b - a, (x_(n-m+1+k) - x_(m-k)) / (n - 2m)}   for 0 <= k < m,
    A^(k)(x) = b - a                                              for k >= m,
    S(x) = max_k e^{-kt} A^(k)(x) = max{max_{0<=k<m} e^{-kt} A^(k)(x), e^{-mt} (b - a)}.

*Proof.* (i) ``LS <= A^(0)``: replacing one value moves every order statistic by at most one rank,
so if the value increases, ``x_(i) <= y_(i) <= x_(i+1)`` and the sum of the middle ``n - 2m``
order statistics grows by at most ``x_(n-m+1) - x_(m+1)``; if it decreases, it falls by at most
``x_(n-m) - x_(m)``; both are at most ``x_(n-m+1) - x_(m)``, and clipping to ``[a, b]`` is
1-Lipschitz and caps any change at ``b - a``. (ii) For neighbours, ``y_(i) <= x_(i+1)`` and
``y_(i) >= x_(i-1)``, so ``A^(k)(y) <= A^(k+1)(x)`` (for ``k + 1 >= m`` the right side is ``b - a``,
which bounds every ``A``). Hence ``S(y) = max_k e^{-kt} A^(k)(y) <= max_k e^{-kt} A^(k+1)(x) =
e^t max_{k>=1} e^{-kt} A^(k)(x) <= e^t S(x)``: ``S`` is a t-smooth upper bound (NRS07's
construction). All indices stay in ``1..n`` for ``k < m``. The tests check (i) and (ii)
exhaustively on a grid and show the printed bound failing on the same grid.

Functions
---------
:func:`sensitivity_terms` (the exact ``A^(k)``, as fractions), :func:`smooth_bound` and
:func:`noise_scale` (rounded up; ``form="printed"`` gives the paper's bound, for audit twins).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from spec import validate
from spec.errors import ParameterError
from spec.record import (
    PRECISION_DIGITS,
    BoundKind,
    Citation,
    Flag,
    FlagKind,
    Formula,
    Line,
    PrivacyClaim,
    PrivacyModel,
    Neighbouring,
    Quantity,
    Rounding,
    SpecRecord,
    UtilityClaim,
    round_safe,
)
from spec.registry import register
from spec.wang20.symbols import (
    EPSILON_LE_1,
    MEAN_RANGE,
    PRIMITIVE_CONVENTIONS,
    S_EPS,
    S_HI,
    S_LO,
    S_N,
    S_TRIM,
    S_VARIANCE,
    TRIM_LT_HALF,
    eps,
    hi,
    lo,
    m_trim,
    n,
    variance,
)

__all__ = [
    "THM_3",
    "ALG_2",
    "RECORDS",
    "DILATION",
    "SHIFT",
    "RHO",
    "TRIM_DEFAULT",
    "FORMS",
    "sensitivity_terms",
    "smooth_bound",
    "noise_scale",
]

_TESTS = "tests/spec/wang20/test_bun_steinke.py"

# --------------------------------------------------------------------------- expressions
#: Algorithm 2, line 1: the dilation t and the shift s of the arsinh-normal.
DILATION = eps**2 / 16
SHIFT = eps / 4
#: Theorem 3: the mechanism is (1/2) epsilon^2-zCDP.
RHO = eps**2 / 2
#: The smooth bound's floor e^{-mt} (b - a) (both the printed and the corrected bound have it).
FLOOR_TERM = sp.exp(-m_trim * DILATION) * (hi - lo)
#: Default trimming count: the smallest m with e^{-mt} (b - a) <= 1/n (Bun-Steinke's condition
#: m >~ ln(n (b - a)/sigma)/t with the unknown sigma taken as 1 data unit), capped so that n - 2m >= 1.
TRIM_DEFAULT = sp.Min(
    sp.Max(0, sp.ceiling(sp.log(n * (hi - lo)) / DILATION)),
    sp.floor((n - 1) / 2),
)

THM_3 = register(SpecRecord(
    id="wang20.thm_3",
    title="Bun-Steinke's trimmed mean with arsinh-normal noise (as cited)",
    citation=Citation("wang20", "Theorem 3 (Bun and Steinke 2019, Theorem 7, as cited)"),
    summary=(
        "For 0 < epsilon <= 1 there is a (1/2) epsilon^2-zCDP algorithm M (Algorithm 2) with "
        "E[(M(X) - mu)^2] <= O(sigma^2 log n / (n epsilon^2)) for every distribution with mean mu in "
        "[a, b] and variance sigma^2, when n >= O(log(n (b - a)/sigma)/epsilon)."
    ),
    conventions=PRIMITIVE_CONVENTIONS,
    symbols=(S_EPS, S_N, S_VARIANCE, S_LO, S_HI),
    assumptions=(EPSILON_LE_1, MEAN_RANGE),
    formulas=(
        Formula("dilation", DILATION, "t = epsilon^2/16: the smoothness of S and the noise's dilation",
                Rounding.DOWN),
        Formula("shift", SHIFT, "s = epsilon/4: the noise is (S(x)/s) Z", Rounding.DOWN),
        Formula("rho", RHO, "zCDP parameter of one release", Rounding.UP),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.ZCDP,
        Neighbouring.REPLACE_ONE,
        "(1/2) epsilon^2-zCDP, provided S is a t-smooth upper bound on the local sensitivity (the "
        "corrected bound of wang20.alg_2; the printed one is not smooth).",
        rho=RHO,
    ),
    utility=(
        UtilityClaim(
            Quantity.ESTIMATION_ERROR,
            variance * sp.log(n) / (n * eps**2),
            BoundKind.BIG_O,
            "Mean squared error E[(M(X) - mu)^2] over the data and the noise, for n >= O(log(n (b - "
            "a)/sigma)/epsilon) and a suitable trimming count m.",
            (("n", "oo"), ("epsilon", "0")),
        ),
    ),
    flags=(
        Flag(
            FlagKind.CAVEAT,
            "The zCDP of the arsinh-normal at t = epsilon^2/16, s = epsilon/4 is Bun and Steinke's "
            "theorem, cited and not re-derived here; it is checked numerically, with a wide margin.",
            "For Z = sinh(Y) the pairs to cover are Z against e^tau Z + Delta with |tau| <= t, |Delta| "
            "<= s (Z is symmetric, so Delta >= 0 suffices). Over alpha in {1.001, 1.5, 2, 3, 5, 10, 30, "
            "100, 300, 1000}, tau in {-t, 0, t}, Delta in {0, s/2, s}, the largest D_alpha / (alpha "
            "epsilon^2/2) is 0.047 (epsilon = 0.1), 0.048 (0.5), 0.053 (1) and 0.074 (2); the same "
            "check rejects a shift of 2 epsilon (8 times s) at epsilon = 1 (ratio 2.3). A grid is "
            "evidence, not a proof of the claim for every alpha, tau and Delta.",
            (f"{_TESTS}::test_arsinh_normal_zcdp_at_printed_parameters",),
        ),
    ),
    notes=(
        "As alpha -> oo, D_alpha / alpha -> tau^2/2 <= t^2/2 = epsilon^4/512, so the divergence "
        "stays within (1/2) epsilon^2 alpha for large orders too.",
        "Bun and Steinke's published statement and their own smooth-sensitivity formula (they clip "
        "the data, not the mean) were not re-read; the seed's clip-the-mean variant is kept and its "
        "smooth bound re-derived (wang20.alg_2).",
        "The theorem's sample-size condition reflects the trimming count: the floor term "
        "e^{-mt}(b - a) of S is small only when m >~ ln(n (b - a)/sigma)/t = 16 ln(n (b - a)/sigma)"
        "/epsilon^2 (wang20.alg_2, formula trim_default), which needs n > 2m.",
    ),
))

ALG_2 = register(SpecRecord(
    id="wang20.alg_2",
    title="Algorithm 2: trimmed, clipped mean with arsinh-normal noise (Bun and Steinke)",
    citation=Citation("wang20", "Algorithm 2"),
    summary=(
        "Sort the n values; with t = epsilon^2/16 and s = epsilon/4 release the m-trimmed mean "
        "clipped to [a, b] plus (S(x)/s) sinh(Y), Y ~ N(0, 1), where S is a t-smooth upper bound "
        "on the local sensitivity."
    ),
    conventions=PRIMITIVE_CONVENTIONS,
    symbols=(S_EPS, S_N, S_TRIM, S_LO, S_HI),
    assumptions=(EPSILON_LE_1, MEAN_RANGE, TRIM_LT_HALF),
    formulas=(
        Formula("dilation", DILATION, "line 1: t = epsilon^2/16", Rounding.DOWN),
        Formula("shift", SHIFT, "line 1: s = epsilon/4", Rounding.DOWN),
        Formula("rho", RHO, "zCDP of one release (wang20.thm_3)", Rounding.UP),
        Formula("trimmed_count", n - 2 * m_trim, "line 2: number of order statistics averaged", Rounding.CEIL),
        Formula("floor_term", FLOOR_TERM, "e^{-mt} (b - a): the smallest value S can take", Rounding.UP),
        Formula(
            "noise_scale_floor", FLOOR_TERM / SHIFT,
            "e^{-mt} (b - a)/s: the smallest multiplier of Z the mechanism can use", Rounding.UP,
        ),
        Formula(
            "trim_default", TRIM_DEFAULT,
            "default m: min(max(0, ceil(ln(n (b - a))/t)), floor((n - 1)/2)), the smallest m with "
            "e^{-mt} (b - a) <= 1/n, capped so that n - 2m >= 1",
            Rounding.FLOOR,
        ),
    ),
    privacy=PrivacyClaim(
        PrivacyModel.ZCDP,
        Neighbouring.REPLACE_ONE,
        "(1/2) epsilon^2-zCDP with the corrected smooth bound (wang20.thm_3); with the printed bound "
        "the proof does not apply.",
        rho=RHO,
    ),
    flags=(
        Flag(
            FlagKind.ERRATUM,
            "The printed S(x) = max{(x_(n) - x_(1))/(n - 2m), e^{-mt}(b - a)} bounds the local "
            "sensitivity but is not t-smooth, so the privacy theorem does not apply to it.",
            "n = 5, m = 1, [a, b] = [0, 4], t = 0.01: x = (0, 1, 2, 3, 4) and y = (0, 1, 2, 3, 1000) "
            "are neighbours with S(y)/S(x) = 84.2, where e^t = 1.01 is required. On the grid of all "
            "1287 multisets of size 5 over {-2, ..., 6} with the extra values -1000 and 1000 "
            "(3003 multisets), 13333 ordered neighbouring pairs violate S(y) <= e^t S(x) for the printed "
            "bound and none for the corrected one. form='printed' of smooth_bound keeps it for audit "
            "twins.",
            (f"{_TESTS}::test_printed_bound_counterexample", f"{_TESTS}::test_smooth_bound_exhaustive_grid"),
            slug="printed-bound-not-smooth",
        ),
        Flag(
            FlagKind.RECONSTRUCTED,
            "The smooth bound used is S(x) = max_k e^{-kt} A^(k)(x), A^(k) = min{b - a, (x_(n-m+1+k) "
            "- x_(m-k))/(n - 2m)} for k < m and b - a beyond (module docstring: proof).",
            "Exhaustively on the grid above (m = 1, [a, b] = [0, 4], t = 0.01, every value of the "
            "grid as the replacement): LS(x) <= A^(0)(x), A^(k)(y) <= A^(k+1)(x) for every k and "
            "S(y) <= e^t S(x), with no violation; on the counterexample pair the ratio is exactly "
            "e^t. Also at m = 2, n = 6, [a, b] = [0, 2], t = 0.05 over {-1, ..., 4, -100, 100}, where "
            "the printed bound fails too.",
            (f"{_TESTS}::test_smooth_bound_exhaustive_grid", f"{_TESTS}::test_printed_bound_counterexample"),
            slug="smooth-bound",
        ),
        Flag(
            FlagKind.ERRATUM,
            "Line 1 calls the trimming count m = O(1) a constant. That is private but ruins the "
            "utility claim: the floor e^{-mt}(b - a) of S then dominates the noise. The default is "
            "trim_default (Bun and Steinke's condition m >~ ln(n (b - a)/sigma)/t with sigma = 1).",
            "epsilon = 1, n = 10^4, [a, b] = [-1, 1]: trim_default is 159, whose noise-scale floor "
            "e^{-mt}(b - a)/s is 3.9e-4, against 7.52 for m = 1; the data's own term (x_(n-m+1) - "
            "x_(m))/(n - 2m) is 4.4e-4 at the N(0, 1) quantiles, so with m = 1 the floor term "
            "e^{-mt}(b - a) = 1.88 exceeds it more than 4000-fold. Inside Algorithm 3 (epsilon = 1, "
            "delta = 1e-5, d = 10, T = 20, n = 10^5) the per-coordinate budget makes the uncapped "
            "default 938030 > n/2, so m is capped at 49999 and the noise-scale floor is still 289; "
            "there Algorithm 3 needs n of about 2e6.",
            (f"{_TESTS}::test_constant_trim_ruins_utility",),
            slug="trim-default",
        ),
    ),
    notes=(
        "The clip applies to the trimmed mean, as printed ('clip the output, not the data'); Bun "
        "and Steinke clip the data first, with a different smooth bound.",
        "m, a and b must be public (never computed from the data); any such m is private.",
        "smooth_bound(form='corrected') is the bound the reference uses; form='printed' is the audit "
        "twin. noise_scale divides by s exactly and rounds up once.",
    ),
    pseudocode=(
        Line("L1", "t = epsilon^2/16, s = epsilon/4; sort x_(1) <= ... <= x_(n); compute the smooth "
                   "upper bound S^t(x) of the local sensitivity of [trim_m(.)]_[a,b] (printed: "
                   "max{(x_(n) - x_(1))/(n - 2m), e^{-mt}(b - a)}; used: the corrected bound)."),
        Line("L2", "[trim_m(x)]_[a,b] = clip_[a,b]((x_(m+1) + ... + x_(n-m))/(n - 2m))."),
        Line("L3", "Output [trim_m(x)]_[a,b] + (1/s) S^t(x) Z with Z = sinh(Y), Y ~ N(0, 1)."),
    ),
))

RECORDS = (THM_3, ALG_2)

# --------------------------------------------------------------------------- functions
FORMS = ("corrected", "printed")


def _sorted_values(sample) -> list[float]:
    """The sample as finite floats, sorted (exact order; differences are taken as fractions)."""
    if isinstance(sample, (str, bytes)) or not hasattr(sample, "__iter__"):
        raise TypeError(f"sample ({sample!r}) must be a sequence of real numbers")
    values = sorted(validate.real(f"sample[{i}]", x) for i, x in enumerate(sample))
    if not values:
        raise ParameterError("sample (empty) must have at least one value")
    return values


def _range(mean_lower, mean_upper) -> tuple[Fraction, Fraction]:
    a = Fraction(validate.real("mean_lower", mean_lower))
    b = Fraction(validate.real("mean_upper", mean_upper))
    if not a < b:
        raise ParameterError(f"mean_lower ({mean_lower!r}) must be < mean_upper ({mean_upper!r})")
    return a, b


def _trim(trim, size: int) -> int:
    m = validate.integer("trim", trim, minimum=0)
    if not 2 * m < size:
        raise ParameterError(f"trim ({m}) must be < n/2 = {size}/2 (at least one value is averaged)")
    return m


def sensitivity_terms(sample, *, trim, mean_lower, mean_upper) -> tuple[Fraction, ...]:
    """The exact ``A^(0), ..., A^(m)`` of the corrected smooth bound (module docstring).

    Parameters
    ----------
    sample : sequence of real numbers
        The n values, in any order (finite reals; used as floats, differences taken exactly).
    trim : int
        Trimming count ``m``, ``0 <= 2m < n``.
    mean_lower, mean_upper : float
        The public clipping range ``[a, b]``, ``a < b``.

    Returns
    -------
    tuple of fractions.Fraction
        ``A^(k) = min(b - a, (x_(n-m+1+k) - x_(m-k))/(n - 2m))`` for ``k < m``, then ``b - a`` (the
        value of every ``A^(k)``, ``k >= m``). Exact: no rounding.

    Privacy
    -------
    ``wang20.alg_2`` (the RECONSTRUCTED flag): ``LS <= A^(0)`` and ``A^(k)(y) <= A^(k+1)(x)`` for
    neighbours.
    """
    x = _sorted_values(sample)
    a, b = _range(mean_lower, mean_upper)
    m = _trim(trim, len(x))
    return tuple(_terms(x, m, b - a))


def _terms(x: list[float], m: int, width: Fraction):
    """Yield A^(0), ..., A^(m-1) and then b - a, exactly (float differences as fractions)."""
    size = len(x)
    denominator = size - 2 * m
    for k in range(m):
        # 1-based x_(n-m+1+k) and x_(m-k); both in range for k < m.
        spread = (Fraction(x[size - m + k]) - Fraction(x[m - k - 1])) / denominator
        yield min(width, spread)
    yield width


def _mp(q: Fraction):
    return mpmath.mpf(q.numerator) / q.denominator


def _smooth_bound_exact(sample, *, trim, dilation, mean_lower, mean_upper, form):
    validate.choice("form", form, FORMS)
    t = validate.positive("dilation", dilation)
    with mpmath.workdps(PRECISION_DIGITS):
        tt = mpmath.mpf(t)
        x = _sorted_values(sample)
        a, b = _range(mean_lower, mean_upper)
        m = _trim(trim, len(x))
        width = _mp(b - a)
        if form == "printed":
            spread = (Fraction(x[-1]) - Fraction(x[0])) / (len(x) - 2 * m)
            return max(_mp(spread), mpmath.exp(-m * tt) * width)
        best = mpmath.mpf(0)
        for k, term in enumerate(_terms(x, m, b - a)):
            decay = mpmath.exp(-k * tt)
            if decay * width <= best:
                break  # every later term is at most e^{-kt} (b - a)
            best = max(best, decay * _mp(term))
        return best


def smooth_bound(sample, *, trim, dilation, mean_lower, mean_upper, form="corrected") -> float:
    """Smooth upper bound ``S^t(x)`` on the local sensitivity of the clipped trimmed mean.

    Parameters
    ----------
    sample : sequence of real numbers
        The n values, in any order.
    trim : int
        Trimming count ``m``, ``0 <= 2m < n``.
    dilation : float
        ``t > 0`` (``wang20.alg_2`` formula ``dilation``: ``epsilon^2/16``).
    mean_lower, mean_upper : float
        The public range ``[a, b]``.
    form : {"corrected", "printed"}
        ``"corrected"`` (default): ``max_k e^{-kt} A^(k)``, a t-smooth upper bound.
        ``"printed"``: ``max{(x_(n) - x_(1))/(n - 2m), e^{-mt}(b - a)}`` as in Algorithm 2, line 1,
        which is *not* t-smooth (for audit twins only).

    Returns
    -------
    float
        Rounded up.

    Privacy
    -------
    ``wang20.alg_2`` (flags ERRATUM and RECONSTRUCTED).
    """
    value = _smooth_bound_exact(
        sample, trim=trim, dilation=dilation, mean_lower=mean_lower, mean_upper=mean_upper, form=form
    )
    return round_safe(value, Rounding.UP)


def noise_scale(sample, *, trim, dilation, shift, mean_lower, mean_upper, form="corrected") -> float:
    """Multiplier ``S^t(x)/s`` of ``Z = sinh(Y)`` in Algorithm 2, line 3, rounded up once.

    Parameters
    ----------
    sample, trim, dilation, mean_lower, mean_upper, form
        As in :func:`smooth_bound`.
    shift : float
        ``s > 0`` (``wang20.alg_2`` formula ``shift``: ``epsilon/4``).

    Returns
    -------
    float

    Privacy
    -------
    ``wang20.alg_2``, ``wang20.thm_3``.
    """
    s = validate.positive("shift", shift)
    value = _smooth_bound_exact(
        sample, trim=trim, dilation=dilation, mean_lower=mean_lower, mean_upper=mean_upper, form=form
    )
    with mpmath.workdps(PRECISION_DIGITS):
        return round_safe(value / mpmath.mpf(s), Rounding.UP)
