"""The record type itself, on a toy record (the real records have their own test files)."""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, strategies as st

import spec
from spec.errors import AssumptionError, PrivacyParameterError
from spec.record import (
    Assumption,
    BoundKind,
    Calibration,
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

L, eps, delta = sp.symbols("L epsilon delta", positive=True)
p = sp.Symbol("p", positive=True, integer=True)
n = sp.Symbol("n", positive=True, integer=True)

TOY = SpecRecord(
    id="toy.thm_1",
    title="Toy theorem",
    citation=Citation("bst14", "Theorem II.1"),
    summary="A toy record for testing the record type.",
    conventions=Conventions(LossForm.SUM, Neighbouring.REPLACE_ONE),
    symbols=(
        Symbol("lipschitz", L, "Lipschitz constant"),
        Symbol("n", n, "number of records"),
        Symbol("epsilon", eps, "privacy budget"),
        Symbol("delta", delta, "failure probability"),
        Symbol("dimension", p, "dimension"),
    ),
    assumptions=(
        Assumption("delta_lt_1", sp.Lt(delta, 1), "delta < 1"),
        Assumption("eps_small", sp.Le(eps / (2 * sp.sqrt(sp.log(1 / delta))), 1), "Lemma II.2 needs eps' <= 1"),
    ),
    formulas=(
        Formula("sigma", sp.sqrt(32 * L**2 * n**2 * sp.log(n / delta) * sp.log(1 / delta)) / eps, "noise std", Rounding.UP),
        Formula("budget", eps / 3, "a granted budget", Rounding.DOWN),
        Formula("T", n**2 / 3, "steps", Rounding.CEIL),
    ),
    privacy=PrivacyClaim(PrivacyModel.APPROX_DP, Neighbouring.REPLACE_ONE, "(eps, delta)-DP", epsilon=eps, delta=delta),
    utility=(
        UtilityClaim(
            Quantity.EXCESS_EMPIRICAL_RISK,
            L * sp.log(n / delta) ** sp.Rational(3, 2) * sp.sqrt(p * sp.log(1 / delta)) / eps,
            BoundKind.BIG_O,
            "in expectation over the algorithm's coins",
            (("n", "oo"), ("dimension", "oo"), ("epsilon", "0")),
        ),
    ),
    flags=(Flag(FlagKind.ERRATUM, "a toy erratum", "because",
                 ("tests/spec/test_record.py::test_evaluate_matches_mpmath_and_rounds_up",)),),
)


def test_evaluate_matches_mpmath_and_rounds_up():
    got = TOY.evaluate("sigma", lipschitz=1, n=100, epsilon=0.5, delta=1e-6)
    with mpmath.workdps(60):
        exact = mpmath.sqrt(32 * 100**2 * mpmath.log(100 / mpmath.mpf(1e-6)) * mpmath.log(1 / mpmath.mpf(1e-6))) / mpmath.mpf(0.5)
        assert mpmath.mpf(got) >= exact
        assert mpmath.mpf(math.nextafter(got, 0)) < exact


def test_rounding_directions():
    down = TOY.evaluate("budget", epsilon=1.0)
    with mpmath.workdps(60):
        assert mpmath.mpf(down) <= mpmath.mpf(1) / 3 < mpmath.mpf(math.nextafter(down, 2))
    assert TOY.evaluate("T", n=10) == 34


def test_check_names_assumption_and_values():
    with pytest.raises(AssumptionError) as info:
        TOY.check(epsilon=100.0, delta=0.1)
    err = info.value
    assert err.assumption == "eps_small" and err.record == "toy.thm_1"
    assert "epsilon=100.0" in str(err) and "delta=0.1" in str(err)


def test_check_rejects_bad_values_and_unknown_names():
    with pytest.raises(PrivacyParameterError, match=r"epsilon \(-1"):
        TOY.check(epsilon=-1.0)
    with pytest.raises(TypeError, match="unexpected keyword 'eps'"):
        TOY.check(eps=1.0)
    with pytest.raises(TypeError, match="must be an integer"):
        TOY.check(n=10.5)
    with pytest.raises(PrivacyParameterError, match="nan"):
        TOY.check(epsilon=float("nan"))


def test_evaluate_checks_assumptions_unless_told_not_to():
    with pytest.raises(AssumptionError):
        TOY.evaluate("sigma", lipschitz=1, n=10, epsilon=50.0, delta=1e-5)
    assert TOY.evaluate("sigma", check=False, lipschitz=1, n=10, epsilon=50.0, delta=1e-5) > 0


def test_evaluate_memo_returns_what_a_fresh_evaluation_returns():
    """A repeated evaluate() is served from the memo: the same float as the substitution gives,
    per record, per check flag, with -0.0 and 0.0 apart; arrays and failing calls never stored."""
    from spec import record as record_module

    args = dict(lipschitz=1, n=100, epsilon=0.5, delta=1e-6)
    first = TOY.evaluate("sigma", **args)
    assert record_module._memo_key(TOY, "sigma", True, args) in record_module._EVALUATED
    record_module._EVALUATED.clear()
    assert TOY.evaluate("sigma", **args) == first  # recomputed
    assert TOY.evaluate("sigma", **args) == first  # from the memo
    # a record with the same id and another formula gets its own value
    other = dataclasses.replace(TOY, formulas=(Formula("sigma", 2 * L, "noise std", Rounding.UP),))
    assert other.evaluate("sigma", lipschitz=1.5) == 3.0
    assert TOY.evaluate("budget", epsilon=1.5) == 0.5
    # numpy scalars are keyed by type and exact repr; 0-d arrays and others are not memoised
    assert TOY.evaluate("sigma", **dict(args, epsilon=np.float64(0.5))) == first
    assert record_module._memo_key(TOY, "sigma", True, dict(args, epsilon=np.array(0.5))) is None
    assert (record_module._memo_key(TOY, "budget", True, {"epsilon": 0.0})
            != record_module._memo_key(TOY, "budget", True, {"epsilon": -0.0}))
    # a failing check is not stored: the same inputs fail again, and check=False is its own entry
    bad = dict(lipschitz=1, n=10, epsilon=50.0, delta=1e-5)
    for _ in range(2):
        with pytest.raises(AssumptionError):
            TOY.evaluate("sigma", **bad)
    assert TOY.evaluate("sigma", check=False, **bad) > 0
    with pytest.raises(AssumptionError):
        TOY.evaluate("sigma", **bad)


def test_evaluate_missing_keyword():
    with pytest.raises(TypeError, match="needs the keyword"):
        TOY.evaluate("sigma", lipschitz=1, n=10, epsilon=0.5)


def test_unchecked_assumptions():
    assert [a.name for a in TOY.unchecked_assumptions(epsilon=1.0)] == ["delta_lt_1", "eps_small"]


def test_exponents_ignore_polylog_factors():
    assert TOY.exponents() == {"n": 0, "dimension": sp.Rational(1, 2), "epsilon": -1}


def test_exponents_cancel_mixed_logarithm_forms():
    """A bound mixing ln(1/delta) with a second term gives a limit with log(1/delta) and -log(delta) side by side;
    the exponent must still come out as a plain number."""
    beta = sp.Symbol("beta", positive=True)
    bound = (sp.sqrt(L**2 * p * sp.log(L / beta) * sp.log(n) / n)
             + (p * sp.log(1 / delta)) ** sp.Rational(1, 4) / sp.sqrt(n * eps))
    record = SpecRecord(
        id="toy.mixed_logs", title="Toy", citation=Citation("bst14", "Theorem II.1"), summary="Toy.",
        conventions=Conventions(LossForm.SUM, Neighbouring.REPLACE_ONE),
        symbols=TOY.symbols + (Symbol("failure_probability", beta, "failure probability"),),
        utility=(UtilityClaim(Quantity.GRADIENT_NORM, bound, BoundKind.BIG_O, "toy",
                              (("epsilon", "0"), ("n", "oo"))),),
    )
    assert record.exponents(0) == {"epsilon": sp.Rational(-1, 2), "n": sp.Rational(-1, 2)}


def test_rendering_contains_every_part():
    text = str(TOY)
    for part in ("toy.thm_1", "Theorem II.1", "replace-one", "sum", "delta_lt_1", "sigma =",
                 "rounded up", "(eps, delta)-DP", "rate exponents", "erratum", "checked by"):
        assert part in text, part
    tex = TOY.to_latex()
    assert r"\begin{description}" in tex and r"\sqrt" in tex and "Omega" not in tex


def test_latex_renders_formula_names_as_math():
    """Greek and single-letter names become symbols, words become upright text (not italic letters)."""
    tex = TOY.to_latex()
    assert r"\item[Calibration] $\sigma = " in tex  # was "$sigma = ", i.e. s*i*g*m*a in math mode
    assert r"\item[Calibration] $\mathrm{budget} = " in tex
    assert r"\item[Calibration] $T = " in tex
    assert "$sigma" not in tex and "$budget" not in tex


@pytest.mark.parametrize("record", list(spec.records()), ids=lambda r: r.id)
def test_latex_formula_names_of_every_record(record):
    """Each calibration line starts with the name as sympy renders it (or as the record's symbol)."""
    declared = {s.name: s.symbol for s in record.symbols}
    tex = record.to_latex()
    for f in record.formulas:
        base, _, rest = f.name.partition("_")
        if f.name in declared:
            expected = sp.latex(declared[f.name])
        elif len(base) == 1 or sp.latex(sp.Symbol(base)).startswith("\\"):
            expected = sp.latex(sp.Symbol(base)) + (r"_{\mathrm{" + rest.replace("_", r"\_") + "}}" if rest else "")
        else:
            expected = r"\mathrm{" + f.name.replace("_", r"\_") + "}"
        assert rf"\item[Calibration] ${expected} = {sp.latex(f.expr)}$" in tex, f.name
        # no bare multi-letter word directly after the opening $ of a calibration line
        assert rf"\item[Calibration] ${f.name} =" not in tex or len(f.name) == 1, f.name


def test_records_are_frozen_and_validated():
    with pytest.raises(Exception):
        TOY.id = "x"  # type: ignore[misc]
    with pytest.raises(ValueError, match="undeclared symbols"):
        SpecRecord(
            id="toy.bad", title="", citation=Citation("bst14", "x"), summary="",
            conventions=Conventions(LossForm.SUM, Neighbouring.REPLACE_ONE),
            formulas=(Formula("f", sp.Symbol("q") + 1, ""),),
        )
    with pytest.raises(KeyError):
        Citation("nonexistent", "x")


def test_registry_rejects_duplicates_and_suggests():
    rec = spec.register(TOY)
    assert spec.get("toy.thm_1") is rec
    other = SpecRecord(
        id="toy.thm_1", title="other", citation=Citation("bst14", "x"), summary="",
        conventions=Conventions(LossForm.SUM, Neighbouring.REPLACE_ONE),
    )
    with pytest.raises(ValueError, match="already registered"):
        spec.register(other)
    with pytest.raises(KeyError, match="did you mean toy.thm_1"):
        spec.get("toy.thm_2")
    from spec.registry import _REGISTRY

    del _REGISTRY["toy.thm_1"]


def _import_copy(name: str, title: str, *, record_id: str = "toy.reimported") -> dict:
    """Run a record module's body as a fresh copy of module ``name`` (what importing it again after
    it left ``sys.modules`` does); return the copy's namespace."""
    namespace = {"__name__": name}
    exec(compile(
        "from spec.record import Citation, Conventions, LossForm, Neighbouring, SpecRecord\n"
        "from spec.registry import register\n"
        f"REC = register(SpecRecord(id={record_id!r}, title={title!r}, citation=Citation('bst14', 'x'),"
        " summary='', conventions=Conventions(LossForm.SUM, Neighbouring.REPLACE_ONE)))\n",
        f"<{name}>", "exec"), namespace)
    return namespace


def test_registry_takes_a_new_copy_of_the_same_module():
    # pytester drops modules imported during an in-process run; importing one again must not fail,
    # and the new copy's records replace the old; any other second record with the id still fails
    from spec.registry import _MODULES, _OWNERS, _REGISTRY

    try:
        first = _import_copy("toy_records", "first")["REC"]
        assert spec.get("toy.reimported") is first
        second = _import_copy("toy_records", "second")["REC"]
        assert spec.get("toy.reimported") is second and second.title == "second"
        with pytest.raises(ValueError, match="'toy.reimported' is already registered"):
            _import_copy("other_toy_records", "third")
        assert spec.get("toy.reimported") is second
        again = _import_copy("toy_records", "fourth")
        with pytest.raises(ValueError, match="already registered"):  # twice in one copy of a module
            exec("register(SpecRecord(id='toy.reimported', title='fifth', citation=Citation('bst14', 'x'), "
                 "summary='', conventions=Conventions(LossForm.SUM, Neighbouring.REPLACE_ONE)))", again)
    finally:
        for table in (_REGISTRY, _MODULES, _OWNERS):
            table.pop("toy.reimported", None)


@given(st.floats(min_value=-1e300, max_value=1e300, allow_nan=False))
def test_round_safe_brackets_the_exact_value(x):
    with mpmath.workdps(60):
        exact = mpmath.mpf(x) * (1 + mpmath.mpf(10) ** -30)  # a value strictly between floats
        up = round_safe(exact, Rounding.UP)
        down = round_safe(exact, Rounding.DOWN)
        assert mpmath.mpf(down) <= exact <= mpmath.mpf(up)
        assert math.nextafter(down, math.inf) >= up or up == down


def test_symbol_names_must_be_canonical_and_agree_on_integrality():
    from dataclasses import replace

    with pytest.raises(ValueError, match="'eps' is not a canonical parameter name"):
        replace(TOY, symbols=(Symbol("eps", eps, "budget"),))
    with pytest.raises(ValueError, match="must be declared as an integer symbol"):
        replace(TOY, symbols=(Symbol("n", sp.Symbol("n", positive=True), "records"),))
    with pytest.raises(ValueError, match="must be declared as a real symbol"):
        replace(TOY, symbols=(Symbol("epsilon", sp.Symbol("epsilon", integer=True), "budget"),))


def test_flag_tests_are_a_tuple_of_node_ids():
    with pytest.raises(TypeError, match="must be a tuple"):
        Flag(FlagKind.CAVEAT, "s", "r", "tests/test_record.py::test_x")
    with pytest.raises(ValueError, match="must look like"):
        Flag(FlagKind.CAVEAT, "s", "r", ("tests/test_record.py",))
    assert Flag(FlagKind.CAVEAT, "s", "r", ("tests/a.py::test_b",)).checked_by == ("tests/a.py::test_b",)


# --------------------------------------------------------------------------- calibrations


def test_failed_assumptions_lists_every_decidable_failure():
    values = dict(lipschitz=1.0, n=10, epsilon=100.0, delta=2.0)
    assert [a.name for a in TOY.failed_assumptions(**values)] == ["delta_lt_1", "eps_small"]
    with pytest.raises(AssumptionError, match="delta_lt_1"):  # check raises on the first
        TOY.check(**values)
    assert TOY.failed_assumptions(lipschitz=1.0, n=10, epsilon=1.0, delta=1e-5) == ()
    assert TOY.failed_assumptions(epsilon=100.0) == ()  # eps_small needs delta: undecided, not failed


def test_calibrations_default_to_noise_formulas():
    """Without declarations, a record is calibrated by its formulas named sigma or scale (rounded up)."""
    (only,) = TOY.calibrations()
    assert (only.name, only.parameter, only.formula, only.function) == ("sigma", "sigma", "sigma", None)
    from dataclasses import replace

    down = replace(TOY, formulas=(Formula("sigma", eps, "a sigma rounded down", Rounding.DOWN),))
    assert down.calibrations() == ()  # a noise formula that is not rounded up is not a calibration


def _accountant_sigma(*, epsilon, delta, n, orders=None):
    return float(n) / epsilon


def test_declared_calibrations_replace_the_default():
    from dataclasses import replace

    declared = (
        Calibration("numerical", "sigma", "a bisection", function=_accountant_sigma),
        Calibration("closed", "sigma", "the formula", formula="sigma"),
    )
    rec = replace(TOY, privacy=replace(TOY.privacy, calibrations=declared))
    assert rec.calibrations() == declared
    with pytest.raises(ValueError, match="names no formula"):
        replace(TOY, privacy=replace(TOY.privacy, calibrations=(Calibration("x", "sigma", "", formula="tau"),)))
    with pytest.raises(ValueError, match="duplicate calibration names"):
        replace(TOY, privacy=replace(TOY.privacy, calibrations=declared + declared[:1]))
    with pytest.raises(TypeError, match="must be a tuple"):
        replace(TOY, privacy=replace(TOY.privacy, calibrations=list(declared)))


def test_calibration_is_validated():
    with pytest.raises(ValueError, match="exactly one of formula and function"):
        Calibration("x", "sigma", "neither")
    with pytest.raises(ValueError, match="exactly one of formula and function"):
        Calibration("x", "sigma", "both", formula="sigma", function=_accountant_sigma)
    with pytest.raises(ValueError, match="must be a canonical name"):
        Calibration("x", "noise", "", formula="sigma")
    with pytest.raises(ValueError, match="one word"):
        Calibration("two words", "sigma", "", formula="sigma")

    def needs_a_private_name(*, epsilon, noise_level):
        return 1.0

    with pytest.raises(ValueError, match="'noise_level' has no default"):
        Calibration("x", "sigma", "", function=needs_a_private_name)


def test_registered_calibrations_evaluate():
    """Every declared calibration of the registry runs at a valid point of its record."""
    thm = spec.get("bst14.thm_II_1")
    values = dict(n=10, epsilon=1.0, delta=1e-5, lipschitz=1.0)
    by_name = {c.name: c for c in thm.calibrations()}
    assert list(by_name) == ["printed", "rigorous", "analytic-chain", "accountant"]
    assert thm.evaluate(by_name["printed"].formula, **values) == thm.evaluate("sigma", **values)
    from spec.bst14 import noise_gd_sigma

    for name, c in by_name.items():
        value = thm.evaluate(c.formula, **values) if c.formula else c.function(**values)
        assert value == noise_gd_sigma(calibration=name, **values), name
    analytic = spec.get("gaussian.analytic").calibrations()
    assert [c.function.__name__ for c in analytic] == ["analytic_sigma"]


def test_a_boundary_typed_as_a_decimal_is_accepted():
    """eta = 1/beta typed as the decimal of 1/beta: the double 0.1 is a little above 1/10, so 10.0
    exceeds 1/0.1 by 5e-16 relative in exact arithmetic; the assumption is decided again with each
    side rounded to the nearest double (the records' rounding of a typed value), never further."""
    from spec.record import ROUNDING_NOTE

    gd = spec.get("wang17.alg_4")  # eta <= 1/L
    for smoothness in (0.1, 0.3, 0.9, 1.1, 2.2):
        gd.check(learning_rate=1 / smoothness, smoothness=smoothness)
        assert gd.failed_assumptions(learning_rate=1 / smoothness, smoothness=smoothness) == ()
    # exactly, the double 1/0.1 = 10.0 is beyond the boundary
    assert [a.name for a in gd.failed_assumptions(learning_rate=10.0, smoothness=0.1, exact=True)] == [
        "learning_rate_le_1_over_L"]
    # one double further is refused, and the message says how it was decided
    with pytest.raises(AssumptionError, match="learning_rate_le_1_over_L") as info:
        gd.check(learning_rate=math.nextafter(10.0, 11.0), smoothness=0.1)
    assert ROUNDING_NOTE in str(info.value)
    stability = spec.get("zhang17.lemma_2")  # eta beta <= 1
    stability.check(learning_rate=10.0, smoothness=0.1)
    # a strict relation stays strict: epsilon < 1 refuses 1.0
    with pytest.raises(AssumptionError, match="epsilon_lt_1"):
        spec.get("gaussian.classic").check(epsilon=1.0, delta=1e-5, sensitivity=1.0)
