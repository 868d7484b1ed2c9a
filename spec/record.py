"""The spec record: one frozen object per theorem, lemma or algorithm box.

A :class:`SpecRecord` is documentation that can be executed. It carries

* a **citation** (paper key, item, equations),
* **conventions** (sum or average loss; the neighbouring relation as an explicit enum),
* **symbols**, each mapping a paper symbol (``L``) to a canonical keyword (``lipschitz``),
* **assumptions** as sympy relations, checkable with :meth:`SpecRecord.check`,
* **formulas** (the calibration: noise scales, step sizes, iteration counts) as sympy
  expressions, evaluated at 50 significant digits by :meth:`SpecRecord.evaluate` and rounded
  to a float in the direction that is safe for privacy,
* a **privacy claim** and **utility claims** (with rate exponents derived by sympy),
* **flags**: where the paper leaves a constant open, where a formula was reconstructed, where
  the paper is wrong. Each flag names the test that checks our derivation.

Reference code never retypes a formula: it calls ``record.evaluate("sigma", ...)``.

Values are always passed with **canonical keyword names** (``epsilon``, ``delta``,
``lipschitz``, ``strong_convexity``, ``n``, ``dimension``, ...; see :mod:`spec.vocabulary`);
paper symbols stay inside the records.

>>> import spec
>>> record = spec.get("gaussian.classic")
>>> record.evaluate("sigma", epsilon=0.5, delta=1e-5, sensitivity=1.0)
9.68961052521078
>>> record.formula("sigma").rounding       # noise is rounded up: never below the exact value
<Rounding.UP: 'up'>
>>> record.evaluate("sigma", epsilon=2.0, delta=1e-5, sensitivity=1.0)
Traceback (most recent call last):
...
spec.errors.AssumptionError: gaussian.classic: assumption 'epsilon_lt_1' (the proof of Theorem A.1 needs epsilon < 1) fails at delta=1e-05, epsilon=2.0, sensitivity=1.0 (decided exactly, and again with each side rounded to the nearest double, as a value typed as a decimal is)

**Calibrations** (what ``dperm calibrate RECORD_ID`` runs). A record's noise is calibrated by
one of its formulas named after a noise parameter (:data:`NOISE_PARAMETERS`: ``sigma``,
``scale``), or -- when the privacy claim declares them -- by the :class:`Calibration` entries of
:attr:`PrivacyClaim.calibrations`: a formula by name, or a numerical function of canonical
keywords (a bisection over an accountant). :meth:`SpecRecord.calibrations` returns whichever
applies; the first is the default. The inverse question, the epsilon certified for a given
noise, is :attr:`PrivacyClaim.accountant` (``dperm epsilon RECORD_ID``).

>>> [c.name for c in spec.get("bst14.thm_II_1").calibrations()]
['printed', 'rigorous', 'analytic-chain', 'accountant']
>>> [c.name for c in record.calibrations()]     # gaussian.classic declares none: its formula
['sigma']
"""

from __future__ import annotations

import enum
import math
import sys
from dataclasses import dataclass, field
from typing import Callable, Mapping

import mpmath
import sympy as sp

from spec import cache, validate
from spec.errors import AssumptionError, ParameterError
from spec.exact import PRECISION_DIGITS, ROUNDING_NOTE, Assumption, _decide, _evaluate_expr, _mp  # noqa: F401 (re-exported)
from spec.vocabulary import VOCABULARY

__all__ = [
    "Neighbouring",
    "LossForm",
    "PrivacyModel",
    "Quantity",
    "BoundKind",
    "FlagKind",
    "Rounding",
    "Citation",
    "Conventions",
    "Symbol",
    "Assumption",
    "Formula",
    "PrivacyClaim",
    "UtilityClaim",
    "Flag",
    "Line",
    "Calibration",
    "SpecRecord",
    "PAPERS",
    "PRECISION_DIGITS",
    "NOISE_PARAMETERS",
    "round_safe",
    "ROUNDING_NOTE",
]



class Neighbouring(enum.Enum):
    """Neighbouring relation under which a privacy claim is made."""

    REPLACE_ONE = "replace-one"
    """|D| = |D'| = n and the datasets differ in exactly one record (substitution)."""
    ADD_REMOVE_ONE = "add/remove-one"
    """D' is D with one record added or removed."""

    @classmethod
    def parse(cls, relation: Neighbouring | str) -> Neighbouring:
        """The relation from the enum itself or its value (``"replace-one"``,
        ``"add/remove-one"``; ``"add-remove-one"`` is accepted as a spelling of the latter).

        >>> Neighbouring.parse("add-remove-one") is Neighbouring.ADD_REMOVE_ONE
        True
        """
        if isinstance(relation, cls):
            return relation
        if isinstance(relation, str):
            text = relation.strip().lower().replace("_", "-")
            if text in ("add-remove-one", "add/remove-one"):
                return cls.ADD_REMOVE_ONE
            if text == "replace-one":
                return cls.REPLACE_ONE
            raise ParameterError(f"relation ({relation!r}) must be one of 'replace-one', 'add/remove-one'")
        raise TypeError(f"relation ({relation!r}) must be a spec.record.Neighbouring or a string")


class LossForm(enum.Enum):
    """Whether the empirical risk is the sum or the average of the per-example losses."""

    SUM = "sum"
    AVERAGE = "average"
    NOT_APPLICABLE = "n/a"


class PrivacyModel(enum.Enum):
    PURE_DP = "eps-DP"
    APPROX_DP = "(eps, delta)-DP"
    ZCDP = "rho-zCDP"
    RDP = "RDP curve"
    PROFILE = "exact privacy profile"


class Quantity(enum.Enum):
    """What a utility claim measures."""

    EXCESS_EMPIRICAL_RISK = "excess empirical risk"
    EXCESS_POPULATION_RISK = "excess population risk"
    GRADIENT_NORM = "gradient norm"
    PROJECTED_GRADIENT_NORM = "projected gradient norm"
    FRANK_WOLFE_GAP = "Frank-Wolfe gap"
    ESTIMATION_ERROR = "estimation error (l2)"
    SCORE_GAP = "score gap to the optimum"
    NOISE_NORM = "norm of the added noise"
    RUNNING_TIME = "running time"
    DISTANCE = "distance to the minimiser"


class BoundKind(enum.Enum):
    EXPLICIT = "explicit"
    """Holds with exactly the constants shown."""
    BIG_O = "O(.)"
    """Upper bound up to an unspecified absolute constant (and as stated, polylog factors)."""
    BIG_OMEGA = "Omega(.)"
    """Lower bound up to an unspecified absolute constant."""
    HIGH_PROBABILITY = "explicit, with probability"
    """Explicit tail bound: the event holds with the probability stated in the claim."""


class FlagKind(enum.Enum):
    CONSTANT_MADE_CONCRETE = "existential constant made concrete"
    RECONSTRUCTED = "reconstructed formula"
    ERRATUM = "erratum"
    CAVEAT = "caveat"


class Rounding(enum.Enum):
    """How a formula's exact value becomes a float: always in the privacy-safe direction."""

    UP = "up"  # noise scales, sensitivities, consumed budgets: never smaller than exact
    DOWN = "down"  # budgets granted, step counts allowed: never larger than exact
    CEIL = "ceil"  # integer, rounded up (e.g. noise-related counts)
    FLOOR = "floor"  # integer, rounded down
    NEAREST = "nearest"  # not privacy-relevant (step sizes, utility bounds)


PAPERS: Mapping[str, str] = {
    "bst14": "R. Bassily, A. Smith, A. Thakurta. Private empirical risk minimization: efficient "
    "algorithms and tight error bounds. FOCS 2014 (arXiv:1405.7085)",
    "zhang17": "J. Zhang, K. Zheng, W. Mou, L. Wang. Efficient private ERM for smooth objectives. IJCAI 2017",
    "wang17": "D. Wang, M. Ye, J. Xu. Differentially private empirical risk minimization revisited: "
    "faster and more general. NeurIPS 2017",
    "wang19": "D. Wang, J. Xu. Differentially private empirical risk minimization with smooth "
    "non-convex loss functions: a non-stationary view. AAAI 2019",
    "wang20": "D. Wang, H. Xiao, S. Devadas, J. Xu. On differentially private stochastic convex "
    "optimization with heavy-tailed data. ICML 2020",
    "dwork-roth14": "C. Dwork, A. Roth. The algorithmic foundations of differential privacy. "
    "Foundations and Trends in TCS 9(3-4), 2014",
    "mcsherry-talwar07": "F. McSherry, K. Talwar. Mechanism design via differential privacy. FOCS 2007",
    "drv10": "C. Dwork, G. N. Rothblum, S. Vadhan. Boosting and differential privacy. FOCS 2010",
    "bbkn14": "A. Beimel, H. Brenner, S. P. Kasiviswanathan, K. Nissim. Bounds on the sample "
    "complexity for private learning and private data release. Machine Learning 94(3), 2014",
    "bbg18": "B. Balle, G. Barthe, M. Gaboardi. Privacy amplification by subsampling: tight analyses "
    "via couplings and divergences. NeurIPS 2018",
    "balle-wang18": "B. Balle, Y.-X. Wang. Improving the Gaussian mechanism for differential privacy: "
    "analytical calibration and optimal denoising. ICML 2018",
    "bun-steinke16": "M. Bun, T. Steinke. Concentrated differential privacy: simplifications, "
    "extensions, and lower bounds. TCC 2016",
    "mironov17": "I. Mironov. Renyi differential privacy. CSF 2017",
    "mtz19": "I. Mironov, K. Talwar, L. Zhang. Renyi differential privacy of the sampled Gaussian "
    "mechanism. arXiv:1908.10530, 2019",
    "wbk19": "Y.-X. Wang, B. Balle, S. Kasiviswanathan. Subsampled Renyi differential privacy and "
    "analytical moments accountant. AISTATS 2019",
    "cks20": "C. Canonne, G. Kamath, T. Steinke. The discrete Gaussian for differential privacy. "
    "NeurIPS 2020",
    "dwork-rothblum16": "C. Dwork, G. N. Rothblum. Concentrated differential privacy. arXiv:1603.01887, 2016",
    "shamir-zhang13": "O. Shamir, T. Zhang. Stochastic gradient descent for non-smooth optimization: "
    "convergence results and optimal averaging schemes. ICML 2013",
    "applegate-kannan91": "D. Applegate, R. Kannan. Sampling and integration of near log-concave "
    "functions. STOC 1991",
    "drs19": "J. Dong, A. Roth, W. Su. Gaussian differential privacy. J. R. Stat. Soc. B 84(1), "
    "2022 (arXiv:1905.02383, 2019)",
    "kov15": "P. Kairouz, S. Oh, P. Viswanath. The composition theorem for differential privacy. ICML 2015",
    "dperm": "derived in dperm (see the flags and the tests named there)",
}


@dataclass(frozen=True)
class Citation:
    """Where a record comes from.

    Parameters
    ----------
    paper : str
        Key in :data:`PAPERS`.
    item : str
        ``"Theorem II.1"``, ``"Algorithm 1, line 1"``, ``"Lemma 3"``, ...
    equations : tuple of str
        Equation numbers in the paper, if any.
    """

    paper: str
    item: str
    equations: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise KeyError(f"citation paper ({self.paper!r}) must be one of {sorted(PAPERS)}")

    @property
    def reference(self) -> str:
        return PAPERS[self.paper]

    def __str__(self) -> str:
        eq = f", eq. {', '.join(self.equations)}" if self.equations else ""
        return f"{self.paper} {self.item}{eq}"


@dataclass(frozen=True)
class Conventions:
    """Normalisation and neighbouring relation a record is stated under."""

    loss: LossForm
    neighbouring: Neighbouring
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Symbol:
    """A paper symbol and the canonical keyword it is passed as.

    Parameters
    ----------
    name : str
        Canonical keyword (``"lipschitz"``, ``"epsilon"``, ``"n"``).
    symbol : sympy.Symbol
        The paper's symbol, with sympy assumptions (``positive=True``, ``integer=True``).
    meaning : str
        One line of documentation.
    """

    name: str
    symbol: sp.Symbol
    meaning: str

    @property
    def is_integer(self) -> bool:
        return bool(self.symbol.is_integer)


def round_safe(value: mpmath.mpf | float, rounding: Rounding) -> float | int:
    """Round an mpmath number to float/int in the given direction.

    ``UP`` returns the smallest float ``>= value``; ``DOWN`` the largest float ``<= value``.
    The mpmath value carries about 50 correct digits, far below one float ulp, so the result
    is on the safe side of the exact value unless the exact value is within 1e-45 relative of
    a float boundary (then it is within that margin).
    """
    if rounding is Rounding.CEIL:
        return int(mpmath.ceil(value))
    if rounding is Rounding.FLOOR:
        return int(mpmath.floor(value))
    if mpmath.isinf(value):
        return math.inf if value > 0 else -math.inf
    x = float(value)
    if rounding is Rounding.UP:
        while mpmath.mpf(x) < value:
            x = math.nextafter(x, math.inf)
    elif rounding is Rounding.DOWN:
        while mpmath.mpf(x) > value:
            x = math.nextafter(x, -math.inf)
    return x


@dataclass(frozen=True)
class Formula:
    """One calibration: a named sympy expression and its safe rounding.

    Parameters
    ----------
    name : str
        Key used by :meth:`SpecRecord.evaluate` (``"sigma"``, ``"eta"``, ``"T"``).
    expr : sympy expression
        The formula in the paper's symbols.
    meaning : str
        What the quantity is.
    rounding : Rounding
        Direction that is safe for privacy (noise ``UP``, budgets ``DOWN``).
    """

    name: str
    expr: sp.Basic
    meaning: str
    rounding: Rounding = Rounding.NEAREST


#: Canonical names of noise parameters: a formula with one of these names is a closed-form
#: calibration of that parameter (see :meth:`SpecRecord.calibrations`).
NOISE_PARAMETERS: tuple[str, ...] = ("sigma", "scale")


@dataclass(frozen=True)
class Calibration:
    """One way to compute a noise parameter for a target guarantee (``dperm calibrate``).

    Exactly one of ``formula`` and ``function`` is given.

    Parameters
    ----------
    name : str
        Short name chosen with ``--calibration`` (``"printed"``, ``"accountant"``).
    parameter : str
        Canonical name of the computed quantity (``"sigma"``).
    statement : str
        What it computes and what makes it private, in a sentence or two.
    formula : str, optional
        Name of one of the record's formulas, evaluated by :meth:`SpecRecord.evaluate`
        (assumptions checked, rounded as the formula says).
    function : callable, optional
        A numerical calibration (a bisection over an accountant, a root of a privacy profile),
        called with keyword arguments in canonical names
        (:func:`spec.vocabulary.canonical_parameters`). It
        validates its inputs and returns the value rounded in the direction ``rounding``.
    rounding : Rounding
        Direction in which ``function`` rounds (a formula calibration takes its formula's).
    """

    name: str
    parameter: str
    statement: str
    formula: str | None = None
    function: Callable[..., float] | None = None
    rounding: Rounding = Rounding.UP

    def __post_init__(self) -> None:
        if not self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"calibration name ({self.name!r}) must be one word")
        if self.parameter not in VOCABULARY:
            raise ValueError(f"calibration {self.name!r}: parameter ({self.parameter!r}) must be a canonical name")
        if (self.formula is None) == (self.function is None):
            raise ValueError(f"calibration {self.name!r}: give exactly one of formula and function")
        if self.function is not None:
            from spec.vocabulary import canonical_parameters

            canonical_parameters(self.function)  # raises on a parameter the CLI could not pass


@dataclass(frozen=True)
class PrivacyClaim:
    """The privacy guarantee a record states.

    Exactly the fields relevant to ``model`` are set: ``epsilon``/``delta`` for DP, ``rho``
    for zCDP, ``rdp`` (an expression in the order symbol ``alpha``) for RDP. ``accountant``, if
    given, is a function of the record's canonical values returning a certified epsilon at the
    given delta (a tighter analysis than the paper's chain); ``profile`` returns the exact
    privacy profile ``delta(eps)`` of the noise the algorithm actually adds, when known.
    ``calibrations``, if given, are the ways to calibrate the noise for this claim (the first is
    the default); without them the record's formulas named in :data:`NOISE_PARAMETERS` are its
    calibrations (:meth:`SpecRecord.calibrations`).
    """

    model: PrivacyModel
    neighbouring: Neighbouring
    statement: str
    epsilon: sp.Basic | None = None
    delta: sp.Basic | None = None
    rho: sp.Basic | None = None
    rdp: sp.Basic | None = None
    accountant: Callable[..., float] | None = None
    profile: Callable[..., Callable[[float], float]] | None = None
    calibrations: tuple[Calibration, ...] = ()


#: Symbol used for Renyi orders in RDP claims.
ALPHA = sp.Symbol("alpha", positive=True)


@dataclass(frozen=True)
class UtilityClaim:
    """A utility bound and the rate it implies.

    Parameters
    ----------
    quantity : Quantity
        What is bounded.
    bound : sympy expression
        The bound (upper bound for ``EXPLICIT``/``BIG_O``, lower bound for ``BIG_OMEGA``).
    kind : BoundKind
    statement : str
        In words, including "in expectation over the algorithm's coins" or the probability.
    rates : tuple of (str, str)
        Canonical symbol names and their limit (``"oo"`` or ``"0"``) along which the exponent
        is taken, e.g. ``(("n", "oo"), ("p", "oo"), ("epsilon", "0"))``.
    """

    quantity: Quantity
    bound: sp.Basic
    kind: BoundKind
    statement: str
    rates: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Flag:
    """A departure from the paper as printed, with its reason and the tests that check it.

    Parameters
    ----------
    kind : FlagKind
    summary : str
        What we did, in one or two sentences.
    reason : str
        Why: the derivation or the numbers that show it.
    checked_by : tuple of str
        Test node ids (``"tests/spec/bst14/test_x.py::test_y"``) that derive the flag's claim; a
        meta-test checks that each exists.
    slug : str
        Only for an erratum or a reconstructed formula that a computation follows (the reference
        departs there from the printed paper): a short lower-case name, ``-`` separated. A
        known-answer vector that follows it carries the flag ``erratum:<record id>:<slug>`` or
        ``reconstructed:<record id>:<slug>`` (``reference.vectors.departures``). Empty for flags
        about proofs or claims only.
    """

    kind: FlagKind
    summary: str
    reason: str
    checked_by: tuple[str, ...] = ()
    slug: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.checked_by, str) or not isinstance(self.checked_by, tuple):
            raise TypeError(f"checked_by ({self.checked_by!r}) must be a tuple of test node ids")
        if self.slug and (self.kind not in (FlagKind.ERRATUM, FlagKind.RECONSTRUCTED)
                          or not all(part.isalnum() and part.islower() or part.isdigit()
                                     for part in self.slug.split("-"))):
            raise ValueError(f"slug ({self.slug!r}) must be lower-case words joined by '-', on an erratum "
                             "or reconstructed-formula flag")
        for node in self.checked_by:
            path, sep, name = node.partition("::")
            if not (sep and path.endswith(".py") and name.isidentifier()):
                raise ValueError(f"checked_by entry ({node!r}) must look like 'tests/path/test_x.py::test_name'")


@dataclass(frozen=True)
class Line:
    """One statement of an algorithm box, as the paper numbers it.

    Parameters
    ----------
    label : str
        ``"L1"``, ``"L2"``, ... (the paper's line number). The reference function implementing the
        box carries a tag ``# [paper Alg.N Lk]`` (or a range ``Lj-k``) for every label; a
        meta-test checks it.
    statement : str
        The statement in words and ASCII formulas.
    """

    label: str
    statement: str

    def __post_init__(self) -> None:
        if not (self.label.startswith("L") and self.label[1:].isdigit()):
            raise ValueError(f"line label ({self.label!r}) must look like 'L1'")


@cache.derivation  # sympy's limits are slow, and dperm spec ID shows every rate
def _exponent(bound, x, where):
    point = sp.oo if where == "oo" else sp.Integer(0)
    direction = "-" if where == "oo" else "+"
    slope = sp.simplify(x * sp.diff(sp.log(bound), x))
    limit = sp.limit(slope, x, point, dir=direction)
    # log(1/delta) and -log(delta) may both appear; expanding the logarithms lets them cancel
    return sp.nsimplify(sp.simplify(sp.expand_log(limit)))


def _record_id_ok(rid: str) -> bool:
    head, _, tail = rid.partition(".")
    return bool(head) and bool(tail) and all(c.isalnum() or c in "_-." for c in rid)


#: :meth:`SpecRecord.evaluate`'s results by (record, formula, check, inputs). A record is immutable
#: and its evaluation deterministic (mpmath at a fixed precision, then one rounding), so a repeated
#: call returns the same number without the substitution (~0.3 ms): an inner loop that evaluates one
#: formula per run (bst14's Algorithm 2 coefficient, once per run of Algorithm 4) pays for it once.
#: A call that raises is not stored.
_EVALUATED: dict = {}
_EVALUATED_LIMIT = 4096
#: Input types whose ``repr`` is exact (so equal keys mean equal inputs, -0.0 and 0.0 apart), and
#: numpy's integer, floating and bool scalars (looked up only when numpy is loaded: spec does not
#: import it).
_MEMO_TYPES = (bool, int, float)


def _numpy_number(v) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(v, (numpy.integer, numpy.floating, numpy.bool_))


def _memo_key(record, name, check, values) -> tuple | None:
    """The memo key of an :meth:`SpecRecord.evaluate` call, or None when an input is not a plain
    Python or numpy number (those calls are evaluated every time)."""
    items = []
    for k, v in values.items():
        if not (isinstance(v, _MEMO_TYPES) or _numpy_number(v)):
            return None
        items.append((k, type(v), repr(v)))
    items.sort()
    return (id(record), name, bool(check), tuple(items))


@dataclass(frozen=True)
class SpecRecord:
    """One theorem, lemma or algorithm box as checkable mathematics.

    See the module docstring. Construct records at import time in ``spec/<paper>.py`` and
    register them with :func:`spec.registry.register`.
    """

    id: str
    title: str
    citation: Citation
    summary: str
    conventions: Conventions
    symbols: tuple[Symbol, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    formulas: tuple[Formula, ...] = ()
    privacy: PrivacyClaim | None = None
    utility: tuple[UtilityClaim, ...] = ()
    flags: tuple[Flag, ...] = ()
    notes: tuple[str, ...] = ()
    data: tuple = field(default=(), compare=False)
    pseudocode: tuple[Line, ...] = ()
    """For an algorithm box: its numbered statements (a meta-test finds each one's tag in reference/)."""

    def __post_init__(self) -> None:
        if not _record_id_ok(self.id):
            raise ValueError(f"record id ({self.id!r}) must look like 'paper.item'")
        names = [s.name for s in self.symbols]
        for s in self.symbols:
            known_term = VOCABULARY.get(s.name)
            if known_term is None:
                raise ValueError(
                    f"record {self.id}: symbol name {s.name!r} is not a canonical parameter name; "
                    f"add it to spec.vocabulary or use one of {sorted(VOCABULARY)}"
                )
            if known_term.integer != bool(s.symbol.is_integer):
                kind = "an integer" if known_term.integer else "a real"
                raise ValueError(
                    f"record {self.id}: symbol {s.symbol} ({s.name!r}) must be declared as {kind} "
                    f"symbol, as spec.vocabulary says"
                )
        if len(set(names)) != len(names):
            raise ValueError(f"record {self.id}: duplicate canonical symbol names {names}")
        syms = [s.symbol for s in self.symbols]
        if len(set(syms)) != len(syms):
            raise ValueError(f"record {self.id}: two canonical names map to one paper symbol")
        known = set(syms) | {ALPHA}
        for part, exprs in (
            ("assumption", [a.relation for a in self.assumptions]),
            ("formula", [f.expr for f in self.formulas]),
            ("utility bound", [u.bound for u in self.utility]),
        ):
            for e in exprs:
                extra = set(getattr(e, "free_symbols", set())) - known
                if extra:
                    raise ValueError(
                        f"record {self.id}: {part} uses undeclared symbols "
                        f"{sorted(s.name for s in extra)}"
                    )
        fnames = [f.name for f in self.formulas]
        if len(set(fnames)) != len(fnames):
            raise ValueError(f"record {self.id}: duplicate formula names {fnames}")
        declared = self.privacy.calibrations if self.privacy is not None else ()
        if not isinstance(declared, tuple):
            raise TypeError(f"record {self.id}: privacy.calibrations ({declared!r}) must be a tuple")
        cnames = [c.name for c in declared]
        if len(set(cnames)) != len(cnames):
            raise ValueError(f"record {self.id}: duplicate calibration names {cnames}")
        for c in declared:
            if c.formula is not None and c.formula not in fnames:
                raise ValueError(f"record {self.id}: calibration {c.name!r} names no formula ({c.formula!r})")

    # ------------------------------------------------------------------ lookup
    def symbol(self, name: str) -> sp.Symbol:
        """The paper symbol for a canonical name."""
        for s in self.symbols:
            if s.name == name:
                return s.symbol
        raise KeyError(
            f"record {self.id} has no symbol named {name!r}; known: {[s.name for s in self.symbols]}"
        )

    def formula(self, name: str) -> Formula:
        for f in self.formulas:
            if f.name == name:
                return f
        raise KeyError(
            f"record {self.id} has no formula named {name!r}; known: {[f.name for f in self.formulas]}"
        )

    def calibrations(self) -> tuple[Calibration, ...]:
        """The ways to calibrate this record's noise (``dperm calibrate``); the first is the default.

        The privacy claim's declared :attr:`PrivacyClaim.calibrations`, or else one per formula
        named in :data:`NOISE_PARAMETERS` (``sigma``, ``scale``) and rounded up.
        """
        if self.privacy is not None and self.privacy.calibrations:
            return self.privacy.calibrations
        return tuple(
            Calibration(f.name, f.name, f.meaning, formula=f.name)
            for f in self.formulas
            if f.name in NOISE_PARAMETERS and f.rounding is Rounding.UP
        )

    def _subs(self, values: Mapping[str, object]) -> dict:
        by_name = {s.name: s for s in self.symbols}
        subs = {}
        for key, value in values.items():
            if key not in by_name:
                raise TypeError(
                    f"{self.id}: unexpected keyword {key!r}; canonical names are "
                    f"{sorted(by_name)}"
                )
            s = by_name[key]
            if s.is_integer:
                v = validate.integer(key, value)
            else:
                v = validate.real(key, value)
            if s.symbol.is_positive and not v > 0:
                raise validate.error_class(key)(f"{key} ({value}) must be > 0")
            if s.symbol.is_nonnegative and not v >= 0:
                raise validate.error_class(key)(f"{key} ({value}) must be >= 0")
            subs[s.symbol] = v
        return subs

    # ------------------------------------------------------------------ checks
    def check(self, **values: float) -> None:
        """Raise :class:`AssumptionError` if an assumption fails at ``values``.

        Every assumption whose symbols are all given is decided; others are skipped (use
        :meth:`unchecked_assumptions` to see which). Values use canonical names.
        """
        subs = self._subs(values)
        for a in self.assumptions:
            if not set(a.relation.free_symbols) <= set(subs):
                continue
            if not a.holds(subs):
                shown = ", ".join(f"{k}={values[k]!r}" for k in sorted(values))
                raise AssumptionError(
                    f"{self.id}: assumption {a.name!r} ({a.statement}) fails at {shown} ({ROUNDING_NOTE})",
                    record=self.id,
                    assumption=a.name,
                    values=values,
                )

    def unchecked_assumptions(self, **values: float) -> tuple[Assumption, ...]:
        """Assumptions that :meth:`check` cannot decide with only ``values``."""
        subs = self._subs(values)
        return tuple(a for a in self.assumptions if not set(a.relation.free_symbols) <= set(subs))

    def failed_assumptions(self, *, exact: bool = False, **values: float) -> tuple[Assumption, ...]:
        """Every assumption decidable at ``values`` that fails (:meth:`check` raises on the first);
        ``exact=True``: without :class:`Assumption`'s rounding tolerance (for computed values)."""
        subs = self._subs(values)
        return tuple(a for a in self.assumptions
                     if set(a.relation.free_symbols) <= set(subs) and not a.holds(subs, exact=exact))

    def evaluate(self, name: str, *, check: bool = True, **values: float) -> float | int:
        """Evaluate formula ``name`` at ``values`` and round it in the safe direction.

        Parameters
        ----------
        name : str
            Formula name.
        check : bool
            Check the assumptions first (default). Set False only to explore outside the
            theorem's range (e.g. to show where a calibration fails).
        **values
            Canonical names; every symbol of the formula must be given.

        Returns
        -------
        float or int

        Examples
        --------
        >>> import mpmath, spec
        >>> thm = spec.get("bst14.thm_II_1")
        >>> sigma = thm.evaluate("sigma", lipschitz=1, n=100, epsilon=1, delta=1e-5)
        >>> sigma
        7705.923620005461
        >>> exact = thm.evaluate_exact("sigma", lipschitz=1, n=100, epsilon=1, delta=1e-5)
        >>> with mpmath.workdps(30):
        ...     print(exact)
        7705.92362000546025364017444824

        The float is the smallest double at or above the 50-digit value (``sigma`` rounds up):

        >>> import math
        >>> mpmath.mpf(math.nextafter(sigma, 0)) < exact <= mpmath.mpf(sigma)
        True
        """
        key = _memo_key(self, name, check, values)
        hit = _EVALUATED.get(key) if key is not None else None
        if hit is not None:
            return hit[1]
        f = self.formula(name)
        if check:
            self.check(**values)
        subs = self._subs(values)
        missing = sorted(
            next(s.name for s in self.symbols if s.symbol == sym)
            for sym in f.expr.free_symbols
            if sym not in subs
        )
        if missing:
            raise TypeError(f"{self.id}.{name} needs the keyword(s) {missing}")
        exact = _evaluate_expr(f.expr, subs)
        value = round_safe(exact, f.rounding)
        if key is not None:
            if len(_EVALUATED) >= _EVALUATED_LIMIT:
                _EVALUATED.clear()
            _EVALUATED[key] = (self, value)  # the record itself, so that its id is never reused
        return value

    def evaluate_exact(self, name: str, **values: float) -> mpmath.mpf:
        """Formula ``name`` at ``values`` as a 50-digit mpmath number (no rounding, no checks)."""
        f = self.formula(name)
        return _evaluate_expr(f.expr, self._subs(values))

    # ------------------------------------------------------------------ rates
    def exponents(self, index: int = 0) -> dict[str, sp.Expr]:
        """Rate exponents of utility claim ``index``: d log(bound) / d log(x) in the limit.

        Polylogarithmic factors contribute 0, so ``sqrt(p) * log(n)**2 / epsilon`` has
        exponents ``{"n": 0, "p": 1/2, "epsilon": -1}``.
        """
        claim = self.utility[index]
        return {name: _exponent(claim.bound, self.symbol(name), where) for name, where in claim.rates}

    # ------------------------------------------------------------------ rendering
    def __str__(self) -> str:
        from spec.render import to_text

        return to_text(self)

    def to_latex(self) -> str:
        from spec.render import to_latex

        return to_latex(self)
