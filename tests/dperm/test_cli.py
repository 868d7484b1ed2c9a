"""The ``dperm`` command line: a stable interface (verbs, JSON, exit status 2 on bad input).

Expected numbers are not typed here: they come from the spec functions the CLI must agree
with, or from an independent computation (the Gaussian profile by mpmath).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys

import mpmath
import pytest
import sympy as sp

import spec
from dperm.cli import build_parser, main
from spec import gaussian, rdp, zcdp, zhang17
from spec.errors import PrivacyLeakWarning
from spec.record import NOISE_PARAMETERS, Rounding
from spec.rdp import DEFAULT_ORDERS  # the order grid only; the MTZ19 oracle below is typed here


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_spec_lists_every_record(capsys):
    """One line per registered record, in registry order: id, citation, summary."""
    status, out, _ = run(capsys, "spec")
    assert status == 0
    lines = out.strip().splitlines()
    records = list(spec.records())
    assert len(lines) == len(records) == len(spec.ids())
    for line, record in zip(lines, records):
        assert line.split()[0] == record.id
        assert f" {record.citation} " in line, (record.id, line)
        assert line.endswith(record.summary), (record.id, line)
    status, out, _ = run(capsys, "spec", "--json")
    listed = json.loads(out)
    assert [(r["id"], r["citation"], r["summary"]) for r in listed] == [
        (r.id, str(r.citation), r.summary) for r in records
    ]
    # the mechanism and accounting records the listing must contain are all registered (and so listed)
    for record_id in ("gaussian.classic", "gaussian.analytic", "laplace.mechanism", "exponential.textbook",
                      "exponential.oscillation", "exponential.utility", "report_noisy_max.laplace",
                      "composition.basic", "composition.advanced", "composition.advanced_per_step",
                      "subsampling.bbkn14", "subsampling.bbg18", "zcdp.gaussian", "zcdp.rho_star",
                      "rdp.gaussian", "rdp.poisson_subsampled_gaussian",
                      "rdp.without_replacement_subsampled_gaussian", "rdp.to_dp_cks20", "bst14.thm_II_1"):
        assert record_id in spec.ids(), record_id


def test_spec_json_and_one_record(capsys):
    status, out, _ = run(capsys, "spec", "--json")
    assert status == 0 and {r["id"] for r in json.loads(out)} == set(spec.ids())
    status, out, _ = run(capsys, "spec", "bst14.thm_II_1")
    assert status == 0 and "sigma" in out and "erratum" in out and "certified_epsilon" in out
    status, out, _ = run(capsys, "spec", "bst14.thm_II_1", "--latex")
    assert status == 0 and r"\begin{description}" in out
    status, out, _ = run(capsys, "spec", "gaussian.analytic", "--json")
    assert status == 0 and json.loads(out)["id"] == "gaussian.analytic"


def test_unknown_record_is_a_usage_error(capsys):
    status, out, err = run(capsys, "spec", "gaussian.analytc")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "did you mean gaussian.analytic" in err


@pytest.mark.parametrize("method", ["analytic", "zhang17", "zcdp"])
def test_calibrate_agrees_with_spec(capsys, method):
    status, out, _ = run(capsys, "calibrate", "gaussian", "--epsilon", "0.5", "--delta", "1e-6",
                         "--sensitivity", "2", "--method", method)
    assert status == 0
    expected = {"analytic": gaussian.analytic_sigma, "zhang17": zhang17.gaussian_sigma,
                "zcdp": zcdp.gaussian_sigma}[method](epsilon=0.5, delta=1e-6, sensitivity=2.0)
    assert float(out) == expected


def test_calibrate_classic_and_its_precondition(capsys):
    status, out, _ = run(capsys, "calibrate", "gaussian", "--epsilon", "0.5", "--delta", "1e-5",
                         "--sensitivity", "1", "--method", "classic", "--json")
    assert status == 0
    assert json.loads(out)["sigma"] == gaussian.classic_sigma(epsilon=0.5, delta=1e-5, sensitivity=1.0)
    status, _, err = run(capsys, "calibrate", "gaussian", "--epsilon", "2", "--delta", "1e-5",
                         "--sensitivity", "1", "--method", "classic")
    assert status == 2 and "epsilon_lt_1" in err and err.count("\n") == 1


def test_calibrated_sigma_meets_target_under_independent_profile(capsys):
    """The analytic sigma printed by the CLI is private by a directly typed mpmath profile."""
    status, out, _ = run(capsys, "calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5",
                         "--sensitivity", "1", "--steps", "4")
    sigma = float(out)
    with mpmath.workdps(40):
        mu = 2 / mpmath.mpf(sigma)  # sqrt(steps) * sensitivity / sigma
        exact = mpmath.ncdf(mu / 2 - 1 / mu) - mpmath.e * mpmath.ncdf(-mu / 2 - 1 / mu)
    assert exact <= 1e-5


def test_epsilon_accountants(capsys):
    base = ["epsilon", "gaussian", "--sigma", "2", "--sensitivity", "1", "--delta", "1e-5", "--steps", "10"]
    status, out, _ = run(capsys, *base)
    assert status == 0 and float(out) == gaussian.exact_epsilon(1e-5, sigma=2.0, sensitivity=1.0, steps=10)
    status, out, _ = run(capsys, *base, "--accountant", "zcdp")
    zc = float(out)
    assert zc == zcdp.epsilon_gaussian(sigma=2.0, sensitivity=1.0, delta=1e-5, steps=10)
    status, out, _ = run(capsys, *base, "--accountant", "rdp")
    rd = float(out)
    assert rd == rdp.epsilon(sigma=2.0, sensitivity=1.0, delta=1e-5, steps=10)
    exact = gaussian.exact_epsilon(1e-5, sigma=2.0, sensitivity=1.0, steps=10)
    assert exact <= rd <= zc  # the exact profile is the tightest; zCDP the loosest


@pytest.mark.parametrize("sampling", ["poisson", "without-replacement"])
def test_epsilon_sampled(capsys, sampling):
    status, out, _ = run(capsys, "epsilon", "gaussian", "--sigma", "1.5", "--sensitivity", "1", "--delta",
                         "1e-5", "--steps", "100", "--sampling-rate", "0.05", "--sampling", sampling, "--json")
    assert status == 0
    got = json.loads(out)
    assert got["accountant"] == "rdp"
    assert got["epsilon"] == rdp.epsilon(sigma=1.5, sensitivity=1.0, delta=1e-5, steps=100,
                                         sampling_rate=0.05, sampling=sampling)


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["calibrate", "gaussian", "--epsilon", "nan", "--delta", "1e-5", "--sensitivity", "1"], "epsilon (nan)"),
        (["calibrate", "gaussian", "--epsilon", "inf", "--delta", "1e-5", "--sensitivity", "1"], "epsilon (inf)"),
        (["calibrate", "gaussian", "--epsilon", "0", "--delta", "1e-5", "--sensitivity", "1"], "epsilon (0.0) must be > 0"),
        (["calibrate", "gaussian", "--epsilon", "1", "--delta", "1.5", "--sensitivity", "1"], "delta (1.5) must be in (0, 1)"),
        (["calibrate", "gaussian", "--epsilon", "1", "--delta", "0", "--sensitivity", "1"], "delta (0.0)"),
        (["calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "-1"], "sensitivity (-1.0) must be > 0"),
        (["calibrate", "gaussian", "--epsilon", "x", "--delta", "1e-5", "--sensitivity", "1"],
         "--epsilon (x) must be a real number"),
        (["calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5"], "--sensitivity"),
        (["calibrate", "laplace", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1"], "invalid choice"),
        (["calibrate", "gaussian", "--epsilon", "0.5", "--delta", "1e-5", "--sensitivity", "1", "--method", "classic",
          "--steps", "3"], "--steps does not apply to calibrate gaussian --calibration classic (gaussian.classic)"),
        (["epsilon", "gaussian", "--sigma", "nan", "--sensitivity", "1", "--delta", "1e-5"], "sigma (nan)"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "1e-5", "--steps", "0"], "steps (0)"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "1e-5", "--steps", "1.5"],
         "--steps (1.5) must be an integer"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "1e-5", "--sampling-rate", "0.1"],
         "--sampling-rate needs --sampling"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "1e-5", "--sampling", "poisson"],
         "--sampling needs --sampling-rate"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "1e-5", "--sampling-rate", "1.5",
          "--sampling", "poisson"], "sampling_rate (1.5)"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "1e-5", "--sampling-rate", "0.1",
          "--sampling", "poisson", "--accountant", "exact"], "does not handle subsampling"),
        (["frobnicate"], "invalid choice"),
        # values argparse would read as options: joined to their flag so the message shows them
        (["calibrate", "gaussian", "--epsilon", "-inf", "--delta", "1e-5", "--sensitivity", "1"], "epsilon (-inf)"),
        (["calibrate", "gaussian", "--epsilon", "-1e-3", "--delta", "1e-5", "--sensitivity", "1"],
         "epsilon (-0.001) must be > 0"),
        (["epsilon", "gaussian", "--sigma", "-nan", "--sensitivity", "1", "--delta", "1e-5"], "sigma (nan)"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "-1e-3", "--delta", "1e-5"], "sensitivity (-0.001)"),
        ([], "a verb is required"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv, fragment):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.startswith("dperm: error: ") and err.count("\n") == 1, err
    assert fragment in err, err


def test_console_script_entry_point():
    """`python -m dperm` runs the same main (the installed `dperm` script points at it)."""
    proc = subprocess.run([sys.executable, "-m", "dperm", "calibrate", "gaussian", "--epsilon", "1",
                           "--delta", "1e-5", "--sensitivity", "1"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0
    assert math.isclose(float(proc.stdout), gaussian.analytic_sigma(epsilon=1.0, delta=1e-5, sensitivity=1.0), rel_tol=0)
    proc = subprocess.run([sys.executable, "-m", "dperm", "calibrate", "gaussian", "--epsilon", "-1",
                           "--delta", "1e-5", "--sensitivity", "1"], capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


def test_bare_dperm_names_the_verbs_and_points_to_help(capsys):
    status, out, err = run(capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    for verb in ("spec", "calibrate", "epsilon", "audit"):
        assert verb in err
    assert "--help" in err


def test_internal_type_errors_are_not_reported_as_usage_errors(capsys, monkeypatch):
    """Only the library's validation (ParameterError) becomes exit 2; a bug keeps its traceback."""

    def broken(*args, **kwargs):
        raise TypeError("an internal bug")

    monkeypatch.setattr(gaussian, "_delta_upper", broken)  # inside the alias's record calibration
    with pytest.raises(TypeError, match="an internal bug"):
        main(["calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1"])


# --------------------------------------------------------------------------- strict JSON


def _strict_loads(text):
    def reject(constant):
        raise AssertionError(f"invalid JSON constant {constant}")

    return json.loads(text, parse_constant=reject)  # json.loads accepts Infinity/NaN otherwise


@pytest.mark.parametrize("accountant", ["exact", "zcdp", "rdp"])
def test_json_never_prints_infinity(capsys, accountant):
    """sigma = 1e-300 gives no finite epsilon: written as null and listed in "infinite".

    Why infinite: the noise multiplier mu = sensitivity / sigma = 1e300. Under the exact profile
    delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu), and for every finite float eps
    (<= 1.8e308) eps/mu <= 1.8e8 is negligible next to mu/2 = 5e299, so delta(eps) = 1 - 0 > 1e-5.
    The zCDP and RDP bounds are looser than the exact profile, so they are infinite too.
    """
    argv = ["epsilon", "gaussian", "--sigma", "1e-300", "--sensitivity", "1", "--delta", "1e-5",
            "--accountant", accountant]
    status, out, _ = run(capsys, *argv, "--json")
    assert status == 0
    got = _strict_loads(out)
    assert got["epsilon"] is None and got["infinite"] == ["epsilon"]
    status, out, _ = run(capsys, *argv)
    assert status == 0 and out.strip() == "inf"


def test_json_of_a_finite_answer_lists_nothing_infinite(capsys):
    status, out, _ = run(capsys, "calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5",
                         "--sensitivity", "1", "--json")
    got = _strict_loads(out)
    assert status == 0 and got["infinite"] == [] and got["warnings"] == []
    assert got["sigma"] == gaussian.analytic_sigma(epsilon=1.0, delta=1e-5, sensitivity=1.0)


# --------------------------------------------------------------------------- privacy-leak warnings


def _exact_delta(sigma, epsilon, sensitivity=1.0):
    """Exact delta(eps) of one Gaussian release (Balle-Wang 2018), typed directly in mpmath."""
    with mpmath.workdps(40):
        a = mpmath.mpf(sensitivity) / (2 * mpmath.mpf(sigma))
        b = mpmath.mpf(epsilon) * mpmath.mpf(sigma) / mpmath.mpf(sensitivity)
        return mpmath.ncdf(a - b) - mpmath.exp(epsilon) * mpmath.ncdf(-a - b)


def test_privacy_leak_warning_is_one_line_and_in_json(capsys):
    """zhang17's formula at eps = 20 is not (20, 1e-5)-DP: a one-line warning, exit status 0."""
    argv = ["calibrate", "gaussian", "--method", "zhang17", "--epsilon", "20", "--delta", "1e-5",
            "--sensitivity", "1"]
    status, out, err = run(capsys, *argv)
    assert status == 0
    assert err.startswith("dperm: warning: ") and err.count("\n") == 1, err
    # it names the calibration that is private there, by an option that exists
    assert "not (epsilon, delta)-DP" in err and "--calibration analytic" in err
    with pytest.warns(PrivacyLeakWarning):
        expected = zhang17.gaussian_sigma(epsilon=20.0, delta=1e-5, sensitivity=1.0)
    assert float(out) == expected
    assert _exact_delta(float(out), 20.0) > 1e-5  # the warning is real
    status, out, err = run(capsys, *argv, "--json")
    got = _strict_loads(out)
    assert status == 0 and err.count("\n") == 1
    assert len(got["warnings"]) == 1 and got["warnings"][0] in err
    assert got["sigma"] == expected


def test_no_warning_where_zhang17_is_private(capsys):
    status, out, err = run(capsys, "calibrate", "gaussian", "--method", "zhang17", "--epsilon", "0.5",
                           "--delta", "1e-5", "--sensitivity", "1", "--json")
    got = _strict_loads(out)
    assert status == 0 and err == "" and got["warnings"] == []
    assert _exact_delta(got["sigma"], 0.5) <= 1e-5


def test_help_documents_exit_status_and_warnings(capsys):
    with pytest.raises(SystemExit) as info:
        main(["calibrate", "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "PrivacyLeakWarning" in text and "Exit status: 0" in text and "2: bad arguments" in text



@pytest.mark.parametrize(
    "argv, statuses",
    [
        ([], ("0 on success", "1: dperm audit refuted the claim by the values", "vectors check found a mismatch", "2: bad arguments",
              "3: dperm audit", "4: dperm audit refuted the claim only through the low bits")),
        (["vectors"], ("0: the listing, or every value matches", "1: dperm vectors check found a mismatch",
                       "2: bad arguments")),
        (["audit"], ("0: the claim is not refuted", "1: it is refuted by the values", "2: bad arguments",
                     "3: the audited code itself failed", "4: it is refuted only by the low bits")),
        (["run"], ("0 on success", "2: bad arguments")),
    ],
)
def test_each_help_states_its_own_exit_statuses(capsys, argv, statuses):
    """dperm --help lists every verb's statuses; vectors and audit state theirs (1 and 3 included),
    not calibrate's."""
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for status in statuses:
        assert status in text, status
    if argv in (["vectors"], ["audit"]):
        assert "PrivacyLeakWarning" not in text

# --------------------------------------------------------------------------- neighbouring relation


@pytest.mark.parametrize(
    "extra, relation",
    [
        ([], "any"),
        (["--sampling-rate", "0.05", "--sampling", "poisson"], "add/remove-one"),
        (["--sampling-rate", "0.05", "--sampling", "without-replacement"], "replace-one"),
    ],
)
def test_json_states_the_neighbouring_relation(capsys, extra, relation):
    status, out, _ = run(capsys, "epsilon", "gaussian", "--sigma", "2", "--sensitivity", "1",
                         "--delta", "1e-5", *extra, "--json")
    assert status == 0 and _strict_loads(out)["neighbouring"] == relation


def test_help_states_the_neighbouring_relation_per_sampling_scheme(capsys):
    with pytest.raises(SystemExit):
        main(["epsilon", "--help"])
    text = "".join(capsys.readouterr().out.split())  # argparse wraps lines at hyphens too
    assert "poisson:add/remove-one" in text and "without-replacement:replace-one" in text


# --------------------------------------------------------------------------- independent MTZ19


# 20 digits leave > 10 correct digits in A - 1 at every tested point: ample for 1e-6 (and fast).
_MTZ_DPS = 20


def _mtz19_integer_rdp(alpha, s, q, powers):
    """R(alpha) = ln(A)/(alpha-1), A = sum_k C(alpha,k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 s^2))."""
    one_minus_q, q_pow, growth = powers
    terms = [math.comb(alpha, k) * one_minus_q[alpha - k] * q_pow[k] * growth[k] for k in range(alpha + 1)]
    return mpmath.log(mpmath.fsum(terms)) / (alpha - 1)


def _mtz19_fractional_a(alpha, s, q):
    """A_alpha = A1 + A2 of MTZ19 Section 3.3 (fractional alpha), z0 = s^2 ln(1/q - 1) + 1/2.

    A1 = sum_i C(alpha,i) (1-q)^(alpha-i) q^i exp((i^2-i)/(2s^2)) erfc((i - z0)/(sqrt2 s)) / 2,
    A2 = sum_i C(alpha,i) (1-q)^i q^(alpha-i) exp(((alpha-i)^2-(alpha-i))/(2s^2))
         erfc((z0 - (alpha-i))/(sqrt2 s)) / 2.
    Beyond i = ceil(alpha) the terms alternate in sign (C(alpha, i) does) and decay only
    polynomially, so that tail is summed with mpmath's alternating-series acceleration.
    """
    z0 = s * s * mpmath.log(1 / q - 1) + mpmath.mpf(1) / 2
    c = mpmath.sqrt(2) * s

    def term(i):
        j = alpha - i
        left = (1 - q) ** (alpha - i) * q**i * mpmath.exp((i * i - i) / (2 * s * s)) * mpmath.erfc((i - z0) / c)
        right = (1 - q) ** i * q**j * mpmath.exp((j * j - j) / (2 * s * s)) * mpmath.erfc((z0 - j) / c)
        return mpmath.binomial(alpha, i) * (left + right) / 2

    head = int(math.ceil(alpha)) + 1
    return mpmath.fsum(term(i) for i in range(head)) + mpmath.nsum(term, [head, mpmath.inf], method="alternating")


def _cks20_epsilon(rdp_value, alpha, delta):
    """CKS20 Prop. 12 solved for eps (what spec/rdp.py applies), clamped at 0 (valid for eps >= 0)."""
    eps = rdp_value + mpmath.log((alpha - 1) / alpha) - (mpmath.log(delta) + mpmath.log(alpha)) / (alpha - 1)
    return max(eps, mpmath.mpf(0))


def _independent_poisson_epsilon(sigma, q, steps, delta):
    """{order: epsilon certified by that order} for T Poisson-subsampled Gaussian steps (sensitivity 1)."""
    with mpmath.workdps(_MTZ_DPS):
        s, qm, dl = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(delta)
        top = max(int(a) for a in DEFAULT_ORDERS)
        powers = ([(1 - qm) ** j for j in range(top + 1)], [qm**k for k in range(top + 1)],
                  [mpmath.exp(mpmath.mpf(k * k - k) / (2 * s * s)) for k in range(top + 1)])
        out = {}
        for a in DEFAULT_ORDERS:
            if float(a).is_integer():
                r = _mtz19_integer_rdp(int(a), s, qm, powers)
            else:
                am = mpmath.mpf(a)
                r = mpmath.log(_mtz19_fractional_a(am, s, qm)) / (am - 1)
            out[a] = _cks20_epsilon(steps * r, mpmath.mpf(a), dl)
        return out


def test_independent_mtz19_oracle_is_itself_right():
    """The two-series form reduces to the binomial sum at integer orders and matches quadrature
    of A = E_{x ~ N(0, s^2)}[((1-q) + q exp((2x - 1)/(2 s^2)))^alpha] at fractional ones."""
    with mpmath.workdps(_MTZ_DPS):
        s, q = mpmath.mpf("1.3"), mpmath.mpf("0.03")
        powers = ([(1 - q) ** j for j in range(9)], [q**k for k in range(9)],
                  [mpmath.exp(mpmath.mpf(k * k - k) / (2 * s * s)) for k in range(9)])
        for alpha in (2, 5, 8):
            two_series = mpmath.log(_mtz19_fractional_a(mpmath.mpf(alpha), s, q)) / (alpha - 1)
            assert abs(two_series / _mtz19_integer_rdp(alpha, s, q, powers) - 1) < 1e-14
        z0 = s * s * mpmath.log(1 / q - 1) + mpmath.mpf(1) / 2
        for alpha in (mpmath.mpf("1.25"), mpmath.mpf("3.5")):
            integrand = lambda x: mpmath.npdf(x, 0, s) * ((1 - q) + q * mpmath.exp((2 * x - 1) / (2 * s * s))) ** alpha  # noqa: E731
            quad = mpmath.quad(integrand, [-mpmath.inf, -10 * s, 0, z0, z0 + 10 * s, mpmath.inf])
            assert abs(_mtz19_fractional_a(alpha, s, q) / quad - 1) < 1e-14


@pytest.mark.parametrize(
    "sigma, q, steps, delta, optimum",
    [
        (1.1, 0.01, 10_000, 1e-5, "fractional"),  # a DP-SGD-like budget
        (0.6, 0.2, 500, 1e-6, "fractional"),  # a large budget: optimum near alpha = 1
        (3.0, 0.5, 20, 1e-5, "integer"),
        (8.0, 0.001, 100, 1e-5, "integer"),  # a tiny budget: optimum at a large order
    ],
)
def test_rdp_poisson_agrees_with_independent_mtz19(capsys, sigma, q, steps, delta, optimum):
    """Acceptance: the CLI's Poisson RDP epsilon equals an independent MTZ19 + CKS20 to 1e-6."""
    status, out, _ = run(capsys, "epsilon", "gaussian", "--sigma", repr(sigma), "--sensitivity", "1",
                         "--delta", repr(delta), "--steps", str(steps), "--sampling-rate", repr(q),
                         "--sampling", "poisson", "--accountant", "rdp", "--json")
    assert status == 0
    got = _strict_loads(out)
    per_order = _independent_poisson_epsilon(sigma, q, steps, delta)
    best_order = min(per_order, key=per_order.get)
    expected = per_order[best_order]
    assert expected > 0
    assert abs(got["epsilon"] / expected - 1) <= 1e-6, (got["epsilon"], expected)
    # the order the CLI reports certifies its epsilon too (robust to near-ties of orders)
    assert abs(got["epsilon"] / per_order[got["order"]] - 1) <= 1e-6
    assert float(best_order).is_integer() == (optimum == "integer"), best_order


# --------------------------------------------------------------------------- dperm spec ID --eval


def test_spec_eval_prints_the_calibration_acceptance(capsys):
    """Acceptance: `dperm spec bst14.thm_II_1 --eval n=100 epsilon=1 delta=1e-5 lipschitz=1 --json`."""
    status, out, err = run(capsys, "spec", "bst14.thm_II_1", "--eval", "n=100", "epsilon=1", "delta=1e-5",
                           "lipschitz=1", "--json")
    assert status == 0 and err == ""
    got = _strict_loads(out)
    record = spec.get("bst14.thm_II_1")
    values = dict(n=100, epsilon=1.0, delta=1e-5, lipschitz=1.0)
    assert got["values"] == values and got["checked"] is True
    assert got["assumptions"] == {"hold": [a.name for a in record.assumptions], "fail": [], "undecided": {}}
    # every formula's symbols are given: all evaluated, each with record.evaluate and its rounding
    assert list(got["formulas"]) == [f.name for f in record.formulas]
    for f in record.formulas:
        assert got["formulas"][f.name] == record.evaluate(f.name, **values), f.name
        assert got["rounding"][f.name] == f.rounding.value
    assert got["rounding"]["sigma"] == "up" and got["rounding"]["rigorous_epsilon_step"] == "down"
    assert got["needs"] == {} and got["undefined"] == {} and got["infinite"] == []
    assert out == json.dumps(got, indent=2) + "\n"  # the one JSON style of every verb


def test_spec_eval_plain_text_names_the_rounding(capsys):
    status, out, _ = run(capsys, "spec", "gaussian.classic", "--eval", "epsilon=0.5", "delta=1e-5", "sensitivity=2")
    assert status == 0
    sigma = spec.get("gaussian.classic").evaluate("sigma", epsilon=0.5, delta=1e-5, sensitivity=2.0)
    assert f"sigma = {sigma!r}" in out and "(rounded up)" in out
    assert "assumptions that hold: epsilon_lt_1, delta_lt_1" in out


def test_spec_eval_lists_formulas_that_miss_values(capsys):
    status, out, _ = run(capsys, "spec", "bst14.thm_II_4", "--eval", "n=100", "epsilon=1", "delta=1e-5",
                         "lipschitz=1", "--json")
    got = _strict_loads(out)
    record = spec.get("bst14.thm_II_4")
    assert status == 0
    assert got["formulas"] == {"iterates": 10000} and got["rounding"] == {"iterates": "ceil"}
    assert got["needs"]["eta_strongly_convex"] == ["strong_convexity", "step"]
    assert got["needs"]["eta_lipschitz_sigma"] == ["dimension", "diameter", "step", "sigma"]
    assert set(got["needs"]) | set(got["formulas"]) == {f.name for f in record.formulas}
    assert got["assumptions"]["undecided"] == {"strong_convexity_consistent": ["diameter", "strong_convexity"],
                                               "step_le_iterates": ["step"]}
    status, out, _ = run(capsys, "spec", "bst14.thm_II_4", "--eval", "n=100", "epsilon=1", "delta=1e-5")
    assert "not evaluated (values missing):" in out and "eta_strongly_convex" in out
    assert "needs strong_convexity, step" in out


def test_spec_eval_assumption_failure_is_one_line_naming_it(capsys):
    status, out, err = run(capsys, "spec", "bst14.thm_II_1", "--eval", "n=100", "epsilon=100", "delta=1e-5",
                           "lipschitz=1")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("dperm: error: bst14.thm_II_1: assumption 'lemma_II_2_condition'")
    assert "epsilon=100.0" in err and "n=100" in err and "delta=1e-05" in err


def test_spec_eval_no_check_lists_failures_and_evaluates(capsys):
    """--no-check explores outside a theorem's range (the classical Gaussian beyond epsilon < 1)."""
    status, out, err = run(capsys, "spec", "gaussian.classic", "--eval", "epsilon=10", "delta=1e-5",
                           "sensitivity=1", "--no-check", "--json")
    got = _strict_loads(out)
    assert status == 0 and err == "" and got["checked"] is False
    assert got["assumptions"]["fail"] == ["epsilon_lt_1"] and got["assumptions"]["hold"] == ["delta_lt_1"]
    sigma = got["formulas"]["sigma"]
    assert sigma == spec.get("gaussian.classic").evaluate("sigma", check=False, epsilon=10.0, delta=1e-5,
                                                          sensitivity=1.0)
    assert _exact_delta(sigma, 10.0) > 1e-5  # the failing assumption matters: the flag's point
    # outside the formula's real domain: reported, not a traceback
    status, out, _ = run(capsys, "spec", "gaussian.classic", "--eval", "epsilon=1", "delta=2", "sensitivity=1",
                         "--no-check", "--json")
    got = _strict_loads(out)
    assert status == 0 and got["formulas"] == {} and "sigma" in got["undefined"]
    assert got["assumptions"]["fail"] == ["epsilon_lt_1", "delta_lt_1"]


def test_spec_eval_infinite_value_is_null_and_listed(capsys):
    """mu = sqrt(steps) sensitivity / sigma = 1e300 / 1e-300 overflows a double: +inf, rounded up."""
    status, out, _ = run(capsys, "spec", "gaussian.analytic", "--eval", "sigma=1e-300", "sensitivity=1e300",
                         "steps=1", "--json")
    got = _strict_loads(out)
    assert status == 0 and got["formulas"]["mu"] is None and got["infinite"] == ["formulas.mu"]
    assert got["needs"] == {"delta": ["epsilon"], "beta": ["type_one_error"]}
    status, out, _ = run(capsys, "spec", "gaussian.analytic", "--eval", "sigma=1e-300", "sensitivity=1e300",
                         "steps=1")
    assert "mu    = inf" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["spec", "gaussian.classic", "--eval", "epsilon"], "must look like name=value"),
        (["spec", "gaussian.classic", "--eval", "epsilonn=1"], "'epsilonn' is not a canonical parameter name"),
        (["spec", "gaussian.classic", "--eval", "n=10"], "gaussian.classic has no parameter n"),
        (["spec", "bst14.alg_1", "--eval", "n=1.5"], "n (1.5) must be an integer"),
        (["spec", "bst14.alg_1", "--eval", "n=0"], "n (0) must be > 0"),
        (["spec", "bst14.alg_1", "--eval", "epsilon=x"], "epsilon (x) must be a real number"),
        (["spec", "bst14.alg_1", "--eval", "n=3", "n=4"], "n is given twice"),
        (["spec", "--eval", "n=3"], "--eval needs a record id"),
        (["spec", "bst14.alg_1", "--eval", "n=3", "--latex"], "--latex does not combine with --eval"),
        (["spec", "bst14.alg_1", "--no-check"], "--no-check applies only with --eval"),
        (["spec", "bst14.alg_1", "--eval", "delta=1.5", "n=3"], "assumption 'delta_lt_1'"),
    ],
)
def test_spec_eval_bad_arguments_exit_2_with_one_line(capsys, argv, fragment):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("dperm: error: ") and err.count("\n") == 1, err
    assert fragment in err, err


# --------------------------------------------------------------------------- calibrate / epsilon RECORD_ID

BST14 = ["--n", "100", "--epsilon", "1", "--delta", "1e-5", "--lipschitz", "1"]


@pytest.mark.parametrize("calibration", [None, "printed", "rigorous", "analytic-chain", "accountant"])
def test_calibrate_bst14_every_calibration(capsys, calibration):
    from spec.bst14 import noise_gd_sigma

    extra = [] if calibration is None else ["--calibration", calibration]
    status, out, err = run(capsys, "calibrate", "bst14.thm_II_1", *BST14, *extra)
    assert status == 0 and err == ""
    assert float(out) == noise_gd_sigma(lipschitz=1.0, n=100, epsilon=1.0, delta=1e-5,
                                         calibration=calibration or "printed")


def test_calibrate_record_json(capsys):
    status, out, _ = run(capsys, "calibrate", "bst14.thm_II_1", *BST14, "--json")
    got = _strict_loads(out)
    record = spec.get("bst14.thm_II_1")
    assert status == 0 and out == json.dumps(got, indent=2) + "\n"
    assert got["record"] == "bst14.thm_II_1" and got["calibration"] == "printed"
    assert got["source"] == "formula sigma" and got["rounding"] == "up"
    assert got["values"] == dict(delta=1e-5, epsilon=1.0, lipschitz=1.0, n=100) and got["defaults"] == {}
    assert got["neighbouring"] == record.privacy.neighbouring.value == "replace-one"
    assert got["sigma"] == record.evaluate("sigma", lipschitz=1.0, n=100, epsilon=1.0, delta=1e-5)
    assert got["infinite"] == [] and got["warnings"] == [] and got["unchecked_assumptions"] == []
    # a function calibration with a default the caller left out: the default is reported
    status, out, _ = run(capsys, "calibrate", "bst14.thm_II_1", "--n", "100", "--epsilon", "1", "--delta", "1e-5",
                         "--calibration", "analytic-chain", "--json")
    got = _strict_loads(out)
    assert status == 0 and got["defaults"] == {"lipschitz": 1.0}
    assert got["source"] == "spec.bst14.noisy_sgd_privacy.sigma_analytic_chain"


def test_calibrate_record_checks_assumptions(capsys):
    status, out, err = run(capsys, "calibrate", "bst14.thm_II_1", "--n", "100", "--epsilon", "100", "--delta",
                           "1e-5", "--lipschitz", "1")
    assert status == 2 and out == "" and err.count("\n") == 1 and "lemma_II_2_condition" in err


def test_calibrate_gaussian_records_agree_with_spec(capsys):
    for argv, expected in [
        (["gaussian.analytic", "--steps", "4"], gaussian.analytic_sigma(epsilon=0.5, delta=1e-6, sensitivity=2.0,
                                                                        steps=4)),
        (["gaussian.classic"], gaussian.classic_sigma(epsilon=0.5, delta=1e-6, sensitivity=2.0)),
        (["zhang17.thm_1"], zhang17.gaussian_sigma(epsilon=0.5, delta=1e-6, sensitivity=2.0)),
    ]:
        status, out, _ = run(capsys, "calibrate", *argv, "--epsilon", "0.5", "--delta", "1e-6", "--sensitivity", "2")
        assert status == 0 and float(out) == expected, argv


def test_calibrate_checks_the_records_exact_profile(capsys):
    """zhang17's formula at eps = 20: the record's profile (gaussian.profile) shows delta > 1e-5."""
    argv = ["calibrate", "zhang17.thm_1", "--epsilon", "20", "--delta", "1e-5", "--sensitivity", "1"]
    status, out, err = run(capsys, *argv, "--json")
    got = _strict_loads(out)
    assert status == 0 and err.startswith("dperm: warning: zhang17.thm_1: sigma") and err.count("\n") == 1
    assert got["warnings"] == [err[len("dperm: warning: "):].rstrip("\n")]
    assert math.isclose(got["profile_delta"], float(_exact_delta(got["sigma"], 20.0)), rel_tol=1e-9)
    assert got["profile_delta"] > 1e-5
    status, out, err = run(capsys, *argv[:3], "0.5", *argv[4:], "--json")
    got = _strict_loads(out)
    assert status == 0 and err == "" and got["warnings"] == [] and got["profile_delta"] <= 1e-5


def test_epsilon_bst14_is_its_certificate(capsys):
    """`dperm epsilon bst14.thm_II_1 --n 100 --delta 1e-5 --sigma S`: the RDP certificate of Algorithm 1."""
    from spec.bst14 import certified_epsilon

    status, out, _ = run(capsys, "epsilon", "bst14.thm_II_1", "--n", "100", "--delta", "1e-5", "--sigma", "5000")
    assert status == 0 and float(out) == certified_epsilon(n=100, delta=1e-5, sigma=5000.0)
    status, out, _ = run(capsys, "epsilon", "bst14.thm_II_1", "--n", "100", "--delta", "1e-5", "--sigma", "5000",
                         "--json")
    got = _strict_loads(out)
    assert got["accountant"] == "spec.bst14.noisy_sgd_privacy.certified_epsilon"
    assert got["defaults"] == {"lipschitz": 1.0} and got["values"] == {"delta": 1e-5, "n": 100, "sigma": 5000.0}
    assert got["rounding"] == "up" and got["neighbouring"] == "replace-one"
    # the printed calibration at epsilon = 1 is certified below 1 (the record's CAVEAT flag)
    status, out, _ = run(capsys, "calibrate", "bst14.thm_II_1", *BST14)
    status, certified, _ = run(capsys, "epsilon", "bst14.thm_II_1", "--n", "100", "--delta", "1e-5",
                               "--lipschitz", "1", "--sigma", out.strip())
    assert float(certified) < 1.0


@pytest.mark.parametrize(
    "record_id, argv, expected",
    [
        ("gaussian.analytic", ["--sigma", "2", "--sensitivity", "1", "--delta", "1e-5", "--steps", "10"],
         lambda: gaussian.exact_epsilon(1e-5, sigma=2.0, sensitivity=1.0, steps=10)),
        ("rdp.gaussian", ["--sigma", "2", "--sensitivity", "1", "--delta", "1e-5", "--steps", "10"],
         lambda: rdp.epsilon(sigma=2.0, sensitivity=1.0, delta=1e-5, steps=10)),
        ("rdp.without_replacement_subsampled_gaussian",
         ["--sigma", "1.5", "--sensitivity", "1", "--delta", "1e-5", "--steps", "100", "--sampling-rate", "0.05"],
         lambda: rdp.epsilon(sigma=1.5, sensitivity=1.0, delta=1e-5, steps=100, sampling_rate=0.05,
                             sampling="without-replacement")),
        ("rdp.poisson_subsampled_gaussian",
         ["--sigma", "1.5", "--sensitivity", "1", "--delta", "1e-5", "--steps", "100", "--sampling_rate", "0.05"],
         lambda: rdp.epsilon(sigma=1.5, sensitivity=1.0, delta=1e-5, steps=100, sampling_rate=0.05,
                             sampling="poisson")),
    ],
)
def test_epsilon_of_record_accountants(capsys, record_id, argv, expected):
    status, out, _ = run(capsys, "epsilon", record_id, *argv, "--json")
    got = _strict_loads(out)
    assert status == 0 and got["epsilon"] == expected()
    assert got["neighbouring"] == spec.get(record_id).privacy.neighbouring.value


def _with_calibration_records():
    return [r for r in spec.records()
            if (r.privacy is not None and r.privacy.calibrations)
            or any(f.name in NOISE_PARAMETERS and f.rounding is Rounding.UP for f in r.formulas)]


def test_calibrate_list_is_every_record_with_a_calibration(capsys):
    status, out, _ = run(capsys, "calibrate", "--list", "--json")
    rows = _strict_loads(out)
    assert status == 0 and rows[0]["target"] == "gaussian"
    expected = [(r.id, c.name) for r in _with_calibration_records() for c in r.calibrations()]
    assert [(row["target"], row["name"]) for row in rows[1:]] == expected
    assert ("bst14.thm_II_1", "accountant") in expected and ("zhang17.thm_1", "printed") in expected
    by = {(row["target"], row["name"]): row for row in rows}
    assert by["bst14.thm_II_1", "printed"]["required"] == ["lipschitz", "n", "epsilon", "delta"]
    # sigma_accountant(*, n, epsilon, delta, lipschitz=1.0, orders=None): orders is not a canonical name
    assert by["bst14.thm_II_1", "accountant"]["required"] == ["n", "epsilon", "delta"]
    assert by["bst14.thm_II_1", "accountant"]["optional"] == {"lipschitz": 1.0}
    assert by["laplace.mechanism", "scale"]["optional"] == {}  # the computed scale is not an input
    status, out, _ = run(capsys, "calibrate", "--list")
    lines = out.strip().splitlines()
    assert len(lines) == len(rows) and lines[0].startswith("gaussian ")
    assert any(line.startswith("bst14.thm_II_1") and "accountant" in line and "[--lipschitz 1.0]" in line
               for line in lines)
    status, out, _ = run(capsys, "calibrate", "--list", "bst14.thm_II_1")
    assert status == 0 and len(out.strip().splitlines()) == 4


def test_epsilon_list_is_every_record_with_an_accountant(capsys):
    status, out, _ = run(capsys, "epsilon", "--list", "--json")
    rows = _strict_loads(out)
    expected = [r.id for r in spec.records() if r.privacy is not None and r.privacy.accountant is not None]
    assert status == 0 and [row["target"] for row in rows] == ["gaussian", *expected]
    assert {"bst14.thm_II_1", "gaussian.analytic", "rdp.gaussian"} <= set(expected)
    assert all(row["computes"] == "epsilon" for row in rows)


def _numerical_sigma(*, epsilon, delta, n, lipschitz=1.0, orders=None):
    """A stand-in for a later paper's bisection over an accountant (orders stays at its default)."""
    return 3.0 * lipschitz * n / epsilon


def _toy_accountant(*, sigma, n, delta):
    """A stand-in accountant."""
    return 3.0 * n / sigma


def test_a_new_papers_numerical_calibration_needs_no_cli_change(capsys, monkeypatch):
    """A record that declares a Calibration(function=...) and an accountant is reachable as it lands."""
    from spec.record import Calibration, Citation, Conventions, LossForm, Neighbouring, PrivacyClaim, PrivacyModel
    from spec.record import SpecRecord, Symbol
    from spec.registry import _REGISTRY

    n, eps, delta = sp.Symbol("n", positive=True, integer=True), *sp.symbols("epsilon delta", positive=True)
    record = SpecRecord(
        id="wang17.toy", title="toy", citation=Citation("wang17", "Theorem 0"), summary="a toy record",
        conventions=Conventions(LossForm.AVERAGE, Neighbouring.REPLACE_ONE),
        symbols=(Symbol("n", n, "records"), Symbol("epsilon", eps, "budget"), Symbol("delta", delta, "delta")),
        privacy=PrivacyClaim(PrivacyModel.APPROX_DP, Neighbouring.REPLACE_ONE, "toy", epsilon=eps, delta=delta,
                             accountant=_toy_accountant,
                             calibrations=(Calibration("bisection", "sigma", "toy", function=_numerical_sigma),)),
    )
    monkeypatch.setitem(_REGISTRY, record.id, record)
    status, out, _ = run(capsys, "calibrate", "wang17.toy", "--epsilon", "0.5", "--delta", "1e-5", "--n", "10")
    assert status == 0 and float(out) == 60.0
    status, out, _ = run(capsys, "epsilon", "wang17.toy", "--sigma", "60", "--delta", "1e-5", "--n", "10")
    assert status == 0 and float(out) == 0.5
    status, out, _ = run(capsys, "calibrate", "--list", "wang17.toy")
    assert "bisection" in out and "_numerical_sigma" in out and "[--lipschitz 1.0]" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["calibrate"], "calibrate needs a target"),
        (["epsilon"], "epsilon needs a target"),
        (["calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1", "--n", "3"],
         "--n does not apply to calibrate gaussian"),
        (["calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1", "--calibration", "x"],
         "--calibration (x) must be one of analytic, classic, zhang17, zcdp for gaussian"),
        (["calibrate", "bst14.thm_II_1", *BST14, "--method", "classic"], "--method applies only to calibrate gaussian"),
        (["calibrate", "bst14.thm_II_1", *BST14, "--sensitivity", "1"],
         "--sensitivity does not apply to calibrate bst14.thm_II_1"),
        (["calibrate", "bst14.thm_II_1", "--n", "100"], "required for calibrate bst14.thm_II_1 --calibration printed"),
        (["calibrate", "bst14.thm_II_1", *BST14, "--calibration", "best"], "--calibration (best) must be one of"),
        (["calibrate", "bst14.thm_II_4", "--n", "3"], "bst14.thm_II_4 has no calibration"),
        (["calibrate", "bst14.thm_II_1x", "--n", "3"], "did you mean bst14.thm_II_1"),
        (["epsilon", "composition.basic"], "composition.basic has no accountant"),
        (["epsilon", "bst14.thm_II_1", "--n", "100", "--delta", "1e-5", "--sampling", "poisson"],
         "--sampling applies only to epsilon gaussian"),
        (["epsilon", "bst14.thm_II_1", "--delta", "1e-5"], "--n"),
        (["epsilon", "gaussian", "--sigma", "1", "--delta", "1e-5"], "required for epsilon gaussian --accountant exact (gaussian.analytic): --sensitivity"),
        (["epsilon", "rdp.gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "2"], "delta (2.0)"),
        (["calibrate", "--list", "bst14.thm_II_4"], "bst14.thm_II_4 has no calibration"),
        (["calibrate", "--list", "--n", "3"], "--list takes no other option (got --n)"),
        (["epsilon", "--list", "--accountant", "rdp"], "--list takes no other option (got --accountant)"),
    ],
)
def test_record_targets_bad_arguments_exit_2_with_one_line(capsys, argv, fragment):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("dperm: error: ") and err.count("\n") == 1, err
    assert fragment in err, err


# --------------------------------------------------------------------------- help, style, pipes


def _actions(parser: argparse.ArgumentParser, path=("dperm",)):
    for action in parser._actions:  # argparse exposes no public walk over its actions
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield path, choice
            for name, child in action.choices.items():
                yield from _actions(child, (*path, name))
        else:
            yield path, action


def test_every_option_and_verb_has_help():
    """Every verb and option, and every parameter option of every algorithm of dperm run."""
    from reference.algorithms import algorithms

    parsers = [build_parser()] + [build_parser(("run",), algorithm=a) for a in algorithms()]
    missing = [(" ".join(path), action.dest) for parser in parsers for path, action in _actions(parser)
               if not (action.help and action.help.strip())]
    assert missing == []


def test_canonical_options_use_the_vocabulary_meaning(capsys):
    from spec.vocabulary import VOCABULARY

    with pytest.raises(SystemExit):
        main(["calibrate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in ("lipschitz", "strong_convexity", "n"):
        assert " ".join(VOCABULARY[name].meaning.split()) in text, name
    assert "--strong-convexity X, --strong_convexity X" in text


def test_audit_errors_use_the_common_prefix(capsys):
    status, _, err = run(capsys, "audit", "no_such_module:mechanism", "--pair", "no_such_module:pair",
                         "--epsilon", "1")
    assert status == 2 and err.startswith("dperm: error: ")


def _dperm(*argv):
    return [sys.executable, "-m", "dperm", *argv]


@pytest.mark.parametrize(
    "argv",
    [
        ["spec"],
        ["spec", "--json"],
        ["spec", "bst14.thm_II_1"],
        ["spec", "bst14.thm_II_1", "--eval", "n=100", "epsilon=1", "delta=1e-5", "lipschitz=1"],
        ["calibrate", "--list"],
        ["epsilon", "gaussian", "--sigma", "2", "--sensitivity", "1", "--delta", "1e-5"],
    ],
)
def test_a_closed_pipe_ends_quietly(argv):
    """stdout is a pipe whose reader is already gone: every write fails with EPIPE, deterministically."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(_dperm(*argv), stdout=write_end, stderr=subprocess.PIPE, text=True, check=False)
    finally:
        os.close(write_end)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("head") is None, reason="needs bash and head")
def test_dperm_spec_piped_into_head_exits_0_quietly():
    """Acceptance: `dperm spec | head -3` exits 0 (pipefail: dperm's own status) without a traceback."""
    command = " ".join(_dperm("spec")) + " | head -3"
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stderr == ""
    assert [line.split()[0] for line in proc.stdout.splitlines()] == spec.ids()[:3]


# --------------------------------------------------------------------------- every calibration by name


WANG19 = ["--lipschitz", "1", "--n", "1000", "--epsilon", "1", "--delta", "1e-5", "--steps", "100"]


@pytest.mark.parametrize("name", ["zcdp", "rdp", "rdp-mironov", "exact"])
def test_every_calibration_of_wang19_thm_1_is_reachable(capsys, name):
    """dperm calibrate wang19.thm_1 --calibration rdp was refused ("must be one of sigma")."""
    from spec import wang19

    status, out, err = run(capsys, "calibrate", "wang19.thm_1", *WANG19, "--calibration", name)
    assert status == 0 and err == "", err
    assert float(out) == wang19.sigma(lipschitz=1.0, n=1000, epsilon=1.0, delta=1e-5, steps=100, calibration=name)
    # epsilon RECORD --calibration NAME: the exact epsilon of that noise (tight for the transcript)
    status, out, _ = run(capsys, "epsilon", "wang19.thm_1", *WANG19, "--calibration", name, "--json")
    got = _strict_loads(out)
    assert status == 0 and got["calibration"] == name
    assert got["epsilon"] == wang19.certified_epsilon(lipschitz=1.0, n=1000, steps=100, delta=1e-5,
                                                      sigma=got["sigma"]) <= 1.0


def test_the_zhang17_warning_names_an_option_that_exists(capsys):
    """At epsilon = 20 zhang17's printed sigma is not private; the warning (made in spec, shown by every
    verb) names --calibration analytic, which calibrate, epsilon and run accept (it suggested --method
    analytic, which dperm run does not have)."""
    with pytest.warns(PrivacyLeakWarning) as caught:
        zhang17.gaussian_sigma(epsilon=20.0, delta=1e-5, sensitivity=1.0)
    message = str(caught[0].message)
    assert "--calibration analytic" in message and "--method" not in message
    run_parser = build_parser(("run",), algorithm="zhang17.alg_1")
    run_options = {s: a for a in run_parser._subparsers._group_actions[0].choices["run"]._actions
                   for s in a.option_strings}
    assert "analytic" in run_options["--calibration"].metavar  # {printed,analytic}
    status, out, err = run(capsys, "calibrate", "zhang17.thm_1", "--epsilon", "20", "--delta", "1e-5",
                           "--sensitivity", "1")
    assert status == 0 and "--calibration analytic" in err
    status, out, err = run(capsys, "calibrate", "zhang17.thm_1", "--epsilon", "20", "--delta", "1e-5",
                           "--sensitivity", "1", "--calibration", "analytic")
    assert status == 0 and err == "" and float(out) == gaussian.analytic_sigma(epsilon=20.0, delta=1e-5,
                                                                                sensitivity=1.0)
