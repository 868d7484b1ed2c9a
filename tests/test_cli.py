"""The ``dperm`` command line: a stable interface (verbs, JSON, exit status 2 on bad input).

Expected numbers are not typed here: they come from the spec functions the CLI must agree
with, or from an independent computation (the Gaussian profile by mpmath).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import mpmath
import pytest

import spec
from dperm.cli import main
from spec import gaussian, rdp, zcdp, zhang17
from spec.errors import PrivacyLeakWarning
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
        (["calibrate", "gaussian", "--epsilon", "x", "--delta", "1e-5", "--sensitivity", "1"], "invalid number"),
        (["calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5"], "--sensitivity"),
        (["calibrate", "laplace", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1"], "invalid choice"),
        (["calibrate", "gaussian", "--epsilon", "0.5", "--delta", "1e-5", "--sensitivity", "1", "--method", "classic",
          "--steps", "3"], "--steps (3) applies only"),
        (["epsilon", "gaussian", "--sigma", "nan", "--sensitivity", "1", "--delta", "1e-5"], "sigma (nan)"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "1e-5", "--steps", "0"], "steps (0)"),
        (["epsilon", "gaussian", "--sigma", "1", "--sensitivity", "1", "--delta", "1e-5", "--steps", "1.5"], "invalid integer"),
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

    def broken(**kwargs):
        raise TypeError("an internal bug")

    monkeypatch.setattr(gaussian, "analytic_sigma", broken)
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
    assert "not (epsilon, delta)-DP" in err and "--method analytic" in err
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
