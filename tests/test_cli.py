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
from spec import gaussian, rdp, zcdp


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_spec_lists_every_record(capsys):
    status, out, _ = run(capsys, "spec")
    assert status == 0
    lines = out.strip().splitlines()
    assert [line.split()[0] for line in lines] == spec.ids()
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
    expected = {"analytic": gaussian.analytic_sigma, "zhang17": gaussian.zhang17_sigma,
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
