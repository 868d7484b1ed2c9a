"""Tests of audits.command, the core of ``dperm audit``, with mechanisms in temporary files."""

from __future__ import annotations

import argparse
import json
import re
import textwrap

import pytest

from audits import command

USER_FILE = textwrap.dedent('''
    import numpy as np
    from audits import replace_one, add_remove_one

    def laplace(data, runs, rng):  # the textbook float Laplace: its low bits leak
        return data.sum() + 1.0 * rng.laplace(size=runs)

    def geometric(data, runs, rng):  # integer-valued Laplace (two-sided geometric): 0.8-DP, claimed 1
        p = 1.0 - np.exp(-0.8)
        return int(data.sum()) + rng.geometric(p, runs) - rng.geometric(p, runs)

    def count_statistic(outputs):
        return outputs.astype(float)

    def low_event(outputs):
        return outputs <= -3

    def leaky(data, runs, rng):
        return data.sum() + 0.25 * rng.laplace(size=runs)

    def halved(data, runs, rng):  # the float Laplace at half its scale: 2-DP over the reals
        return data.sum() + 0.5 * rng.laplace(size=runs)

    def wrong_shape(data, runs, rng):
        return np.zeros(runs + 1)

    def type_bug(data, runs, rng):
        return data.sum() + rng.laplace(size=runs) + None  # TypeError inside the mechanism

    def parameter_bug(data, runs, rng):
        from spec import validate
        return data.sum() + rng.laplace(scale=validate.epsilon(-1.0), size=runs)

    class WithDensity:
        def __call__(self, data, runs, rng):
            return data.sum() + rng.laplace(size=runs)

        def logpdf(self, data, outputs):
            return -np.abs(outputs - data.sum()) + undefined_name  # NameError

    with_density = WithDensity()

    def failing_pair():
        raise TypeError("pair factory bug")

    def failing_profile(eps):
        raise ValueError("profile bug")

    class Mechanisms:
        gaussian = staticmethod(lambda data, runs, rng: data.sum() + 4.0 * rng.standard_normal(runs))

    PAIR = replace_one(np.zeros(4), 0, 1.0)

    def make_pair():
        return add_remove_one(np.zeros(4), record=1.0)

    TUPLE = (np.zeros(4), np.array([1.0, 0.0, 0.0, 0.0]))
    NOT_NEIGHBOURS = (np.zeros(4), np.ones(4))
    NUMBER = 3

    def gaussian_profile(eps):
        return 0.0 if eps > 2 else 1.0
''')


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "my_mechanisms.py"
    path.write_text(USER_FILE)
    return path


def parse(argv):
    return command.add_arguments(argparse.ArgumentParser(prog="dperm audit")).parse_args(argv)


def audit(argv):
    return command.run(parse(argv))


def test_correct_mechanism_exits_zero_and_prints_one_line(user_file, capsys):
    status = audit([f"{user_file}:geometric", "--pair", f"{user_file}:PAIR", "--epsilon", "1",
                    "--runs", "2000", "--seed", "3"])
    out = capsys.readouterr().out
    assert status == 0
    assert out.count("\n") == 1 and out.startswith("(1, 0)-DP claim:")
    assert "seed 3" in out and "2000 runs/dataset" in out and out.strip().endswith("not refuted")


def test_leaky_mechanism_exits_one(user_file, capsys):
    status = audit([f"{user_file}:leaky", "--pair", f"{user_file}:PAIR", "--epsilon", "1",
                    "--runs", "2000", "--seed", "3", "--low-bits", "off"])
    assert status == command.EXIT_REFUTED == 1
    assert capsys.readouterr().out.strip().endswith(
        "| REFUTED (low-bit test off: low_bits=False audits the real-valued idealisation)")


def _verdict(line):
    return line.split(" | ")[-1]


def test_halved_float_laplace_names_both_families_and_exits_one(user_file, capsys):
    """The float Laplace at half its scale (2-DP over the reals, claimed 1): its values and its low
    bits both refute the claim, and the line names both with their bounds; exit 1 (seeded)."""
    status = audit([f"{user_file}:halved", "--pair", f"{user_file}:PAIR", "--epsilon", "1",
                    "--runs", "20000", "--seed", "3"])
    line = capsys.readouterr().out.strip()
    assert status == command.EXIT_REFUTED
    assert re.fullmatch(r"REFUTED by its values \(lower bound [\d.]+\) and by its float low bits "
                        r"\(lower bound [\d.]+\)", _verdict(line)), line
    status = audit([f"{user_file}:halved", "--pair", f"{user_file}:PAIR", "--epsilon", "1",
                    "--runs", "20000", "--seed", "3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 1 and data["verdict"] == "refuted by values" and data["refuted_by"] == ["values", "low_bits"]
    assert data["families"]["values"]["epsilon_lower"] > 1 and data["families"]["low_bits"]["epsilon_lower"] > 1


def test_correct_float_laplace_is_refuted_only_by_its_low_bits_and_exits_four(user_file, capsys):
    """The correctly scaled float Laplace: only the low bits refute; the line says so, gives the
    values' verdict (not refuted, with the bound) and the way to audit the idealisation; exit 4,
    and 0 with --low-bits off (seeded)."""
    argv = [f"{user_file}:laplace", "--pair", f"{user_file}:PAIR", "--epsilon", "1", "--runs", "20000",
            "--seed", "3"]
    status = audit(argv)
    line = capsys.readouterr().out.strip()
    assert status == command.EXIT_LOW_BITS_ONLY == 4
    verdict = _verdict(line)
    assert verdict.startswith("REFUTED only by its float low bits (lower bound "), line
    assert "the real-valued mechanism is not refuted: its values give lower bound 0." in verdict
    assert "discrete or snapped sampler" in verdict and "--low-bits off" in verdict
    assert audit(argv + ["--low-bits", "off"]) == 0
    assert _verdict(capsys.readouterr().out.strip()).startswith("not refuted")
    assert audit(argv + ["--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "refuted only by low bits" and data["refuted_by"] == ["low_bits"]
    assert data["families"]["values"]["violated"] is False and data["families"]["values"]["epsilon_lower"] < 1


def test_json_output_pair_callable_and_tuple(user_file, capsys):
    status = audit([f"{user_file}:Mechanisms.gaussian", "--pair", f"{user_file}:make_pair",
                    "--epsilon", "1", "--delta", "1e-5", "--runs", "1000", "--seed", "4", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["seed"] == 4 and data["relation"] == "add/remove-one"
    status = audit([f"{user_file}:geometric", "--pair", f"{user_file}:TUPLE", "--epsilon", "1",
                    "--runs", "1000", "--seed", "4", "--json"])
    text = capsys.readouterr().out
    assert status == 0 and json.loads(text)["relation"] == "replace-one"
    assert text.startswith('{\n  "')  # indented by 2, as the other verbs


def test_json_lists_infinite_values_as_null(user_file, capsys):
    """The float Laplace is refuted through an event the other dataset never shows: an infinite
    estimate, written as null with its key in "infinite" (the style of the other verbs)."""
    status = audit([f"{user_file}:laplace", "--pair", f"{user_file}:PAIR", "--epsilon", "1",
                    "--runs", "20000", "--seed", "4", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 4 and data["epsilon_estimate"] is None and "epsilon_estimate" in data["infinite"]
    assert [t["family"] for t in data["tests"]] == ["value", "low-bit"]


def test_profile_option(user_file, capsys):
    status = audit([f"{user_file}:leaky", "--pair", f"{user_file}:PAIR", "--epsilon", "1",
                    "--runs", "2000", "--seed", "5", "--profile", f"{user_file}:gaussian_profile"])
    out = capsys.readouterr().out
    assert status == 1 and out.startswith("profile + (1, 0)-DP claim")


def test_importable_module_name(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_importable_mech.py").write_text(USER_FILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    status = audit(["my_importable_mech:geometric", "--pair", "my_importable_mech:PAIR", "--epsilon", "1",
                    "--runs", "1000", "--seed", "1"])
    assert status == 0


def test_module_name_in_the_current_directory(tmp_path, monkeypatch, capsys):
    """MODULE:NAME finds a module in the current directory (not on sys.path otherwise)."""
    (tmp_path / "cwd_only_mech.py").write_text(USER_FILE)
    monkeypatch.chdir(tmp_path)
    status = audit(["cwd_only_mech:geometric", "--pair", "cwd_only_mech:PAIR", "--epsilon", "1",
                    "--runs", "1000", "--seed", "1"])
    assert status == 0, capsys.readouterr().err


def test_the_files_folder_is_on_the_import_path(tmp_path, capsys):
    """A mechanism file imports the helper next to it."""
    (tmp_path / "helper_next_to_it.py").write_text("import numpy as np\nSCALE = 0.25\n")
    (tmp_path / "uses_helper.py").write_text(USER_FILE + textwrap.dedent('''
        import helper_next_to_it

        def leaky_helper(data, runs, rng):
            return data.sum() + helper_next_to_it.SCALE * rng.laplace(size=runs)
    '''))
    status = audit([f"{tmp_path / 'uses_helper.py'}:leaky_helper", "--pair", f"{tmp_path / 'uses_helper.py'}:PAIR",
                    "--epsilon", "1", "--runs", "2000", "--seed", "1", "--low-bits", "off"])
    assert status == 1, capsys.readouterr().err


def test_statistic_and_event_options(user_file, capsys):
    base = [f"{user_file}:geometric", "--pair", f"{user_file}:PAIR", "--epsilon", "1", "--runs", "3000",
            "--seed", "2"]
    assert audit(base + ["--statistic", f"{user_file}:count_statistic", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["statistic"] == "statistic count_statistic"
    assert audit(base + ["--event", f"{user_file}:low_event", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["selection_runs"] == 0 and len(data["tests"]) == 2  # both directions
    assert audit(base + ["--event", "2.5", "--direction", "neighbour", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["alpha"] for t in data["tests"]] == [0.05] and "output > 2.5" in data["event"]


def test_low_bits_in_profile_mode_and_with_events(user_file, capsys):
    """The low-bit test runs in profile mode (auto) and with an event (on); with an event and auto
    the line says it did not run; on integer outputs --low-bits on is an error (exit 2). The
    float Laplace is refuted by its low bits alone in each mode where the test runs (seeded)."""
    base = [f"{user_file}:laplace", "--pair", f"{user_file}:PAIR", "--epsilon", "1", "--runs", "20000",
            "--seed", "3"]
    assert audit(base + ["--profile", "laplace:scale=1"]) == 4
    out = capsys.readouterr().out
    assert out.startswith("profile + (1, 0)-DP claim") and "REFUTED only by its float low bits" in out
    assert audit(base + ["--event", "2.5"]) == 0
    assert _verdict(capsys.readouterr().out.strip()) == (
        "not refuted (low-bit test not run: a caller's event; low_bits=True adds it)")
    assert audit(base + ["--event", "2.5", "--low-bits", "on", "--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert [t["family"] for t in data["tests"]] == ["user event", "user event", "low-bit"]
    assert data["counts"]["selection_runs"] == 3000
    assert audit([f"{user_file}:geometric", "--pair", f"{user_file}:PAIR", "--epsilon", "1", "--runs", "1000",
                  "--low-bits", "on"]) == 2
    assert "low_bits (True): mechanism geometric returns integers" in capsys.readouterr().err


def test_ready_made_profiles(user_file, capsys):
    base = [f"{user_file}:geometric", "--pair", f"{user_file}:PAIR", "--epsilon", "1", "--runs", "3000",
            "--seed", "2"]
    assert audit(base + ["--profile", "pure"]) == 0
    assert capsys.readouterr().out.startswith("profile + (1, 0)-DP claim")
    # the profile of a Laplace at scale 2 (a 0.5-DP curve) is refuted by the 0.8-DP geometric
    assert audit(base + ["--profile", "laplace:scale=2"]) == 1
    capsys.readouterr()
    assert audit(base + ["--profile", "laplace:sigma=1"]) == 2
    assert "sigma not among its parameters" in capsys.readouterr().err


def test_runs_default_is_derived_from_the_power(user_file, capsys):
    status = audit([f"{user_file}:geometric", "--pair", f"{user_file}:PAIR", "--epsilon", "1", "--seed", "2",
                    "--power", "0.5", "--detect", "0.5"])
    captured = capsys.readouterr()
    assert status == 0
    assert captured.err.startswith("dperm: note: --runs not given: ")
    runs = int(re.search(r"--runs not given: (\d+) runs per dataset", captured.err).group(1))
    assert f"{runs} runs/dataset" in captured.out


def test_runs_default_is_raised_for_float_outputs_and_catches_the_float_leak(user_file, capsys):
    """The textbook float Laplace, no --runs: the noise-scale design alone gives fewer runs than
    FLOAT_LEAK_RUNS, so the default is raised (said in the note) and the leak is refuted
    (seeded); with --low-bits off, or integer outputs, it is not raised."""
    base = ["--pair", f"{user_file}:PAIR", "--epsilon", "1", "--seed", "2"]
    status = audit([f"{user_file}:laplace", *base])
    captured = capsys.readouterr()
    assert status == command.EXIT_LOW_BITS_ONLY and "REFUTED only by its float low bits" in captured.out
    assert f"raised to {command.FLOAT_LEAK_RUNS}" in captured.err
    assert f"{command.FLOAT_LEAK_RUNS} runs/dataset" in captured.out
    for argv in ([f"{user_file}:laplace", *base, "--low-bits", "off"], [f"{user_file}:geometric", *base]):
        audit(argv)
        assert "raised to" not in capsys.readouterr().err


def test_random_seed_is_printed_and_reproduces_the_run(user_file, capsys):
    """Without --seed a fresh seed is drawn and printed; rerunning with it gives the same line.

    The verdict itself is not asserted: with a fresh seed a correct mechanism is flagged with
    probability up to alpha (0.05 here), so asserting "not refuted" would make this test flaky.
    """
    argv = [f"{user_file}:geometric", "--pair", f"{user_file}:PAIR", "--epsilon", "1", "--runs", "500"]
    first_status = audit(argv)
    first = capsys.readouterr().out
    match = re.search(r" \| seed (\d+) \| ", first)
    assert match, first
    second_status = audit(argv + ["--seed", match.group(1)])
    assert (second_status, capsys.readouterr().out) == (first_status, first)
    assert first_status in (0, 1)


@pytest.mark.parametrize("argv,message", [
    (["{f}:laplace", "--pair", "{f}:PAIR", "--epsilon", "0"], "epsilon (0.0) must be > 0"),
    (["{f}:laplace", "--pair", "{f}:PAIR", "--epsilon", "nan"], "epsilon (nan)"),
    (["{f}:laplace", "--pair", "{f}:PAIR", "--epsilon", "1", "--delta", "1.5"], "delta (1.5) must be in [0, 1)"),
    (["{f}:laplace", "--pair", "{f}:PAIR", "--epsilon", "1", "--runs", "10"], "runs (10) must be >= 100"),
    (["{f}:laplace", "--pair", "{f}:NOT_NEIGHBOURS", "--epsilon", "1"], "exactly one record"),
    (["{f}:laplace", "--pair", "{f}:NUMBER", "--epsilon", "1"], "pair must be a NeighbouringPair"),
    (["{f}:NUMBER", "--pair", "{f}:PAIR", "--epsilon", "1"], "must be callable"),
    (["{f}:missing", "--pair", "{f}:PAIR", "--epsilon", "1"], "has no attribute 'missing'"),
    (["{f}", "--pair", "{f}:PAIR", "--epsilon", "1"], "must have the form MODULE:NAME"),
    (["nowhere.py:laplace", "--pair", "{f}:PAIR", "--epsilon", "1"], "does not exist"),
    (["no_such_module_xyz:laplace", "--pair", "{f}:PAIR", "--epsilon", "1"], "cannot be imported"),
    (["{f}:wrong_shape", "--pair", "{f}:PAIR", "--epsilon", "1", "--runs", "200"],
     "called with runs=256 (the audit splits the runs=200 you asked for"),
    (["{f}:geometric", "--pair", "{f}:PAIR", "--epsilon", "1", "--runs", "1e12"], "runs (1000000000000) needs about"),
    (["{f}:geometric", "--pair", "{f}:PAIR", "--epsilon", "1", "--runs", "1500.5"], "--runs (1500.5) must be a whole number"),
    (["{f}:laplace", "--pair", "{f}:TUPLE", "--epsilon", "1", "--relation", "add-remove-one"],
     "differ in size by exactly one"),
    (["{f}:laplace", "--pair", "{f}:PAIR", "--epsilon", "1", "--profile", "{f}:NUMBER"],
     "profile (3) must be a callable"),
])
def test_bad_arguments_exit_two_with_one_line(user_file, capsys, argv, message):
    argv = [a.replace("{f}", str(user_file)) for a in argv]
    assert audit(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("dperm: error: ")
    assert message in captured.err


@pytest.mark.parametrize("source,cause", [
    ("def f(:\n", "SyntaxError"),
    ("import numpy\nraise RuntimeError('configuration missing')\n", "RuntimeError: configuration missing"),
    ("import no_such_dependency_xyz\n", "ModuleNotFoundError: No module named 'no_such_dependency_xyz'"),
])
def test_a_file_that_fails_at_import_exits_three_with_one_line(tmp_path, capsys, source, cause):
    bad = tmp_path / "broken.py"
    bad.write_text(source)
    assert audit([f"{bad}:f", "--pair", f"{bad}:P", "--epsilon", "1"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"dperm: error: importing {bad} failed (")
    assert cause in err and "a bug in the audited code" in err


def test_argparse_usage_errors_exit_two(user_file):
    with pytest.raises(SystemExit) as info:
        command.main([f"{user_file}:laplace", "--epsilon", "1"])  # --pair missing
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        command.main([f"{user_file}:laplace", "--pair", "x:y", "--epsilon", "abc"])
    assert info.value.code == 2


def test_main_runs_end_to_end(user_file, capsys):
    assert command.main([f"{user_file}:laplace", "--pair", f"{user_file}:PAIR", "--epsilon", "1",
                         "--runs", "500", "--seed", "2"]) == 0


@pytest.mark.parametrize("argv,where,error", [
    (["{f}:type_bug", "--pair", "{f}:PAIR", "--epsilon", "1"], "mechanism {f}:type_bug",
     "TypeError: unsupported operand type(s) for +: 'float' and 'NoneType'"),
    (["{f}:parameter_bug", "--pair", "{f}:PAIR", "--epsilon", "1"], "mechanism {f}:parameter_bug",
     "spec.errors.PrivacyParameterError: epsilon (-1.0) must be > 0"),
    (["{f}:with_density", "--pair", "{f}:PAIR", "--epsilon", "1"], "{f}:with_density.logpdf",
     "NameError: name 'undefined_name' is not defined"),
    (["{f}:laplace", "--pair", "{f}:failing_pair", "--epsilon", "1"], "pair factory {f}:failing_pair",
     "TypeError: pair factory bug"),
    (["{f}:laplace", "--pair", "{f}:PAIR", "--epsilon", "1", "--profile", "{f}:failing_profile"],
     "profile {f}:failing_profile", "ValueError: profile bug"),
])
def test_errors_inside_user_code_exit_three_with_the_traceback(user_file, capsys, argv, where, error):
    """A TypeError or ParameterError raised by the user's own code is a bug in that code: exit
    status 3 and its traceback, never the one-line 'bad arguments' of status 2 (nor status 1,
    a refuted claim)."""
    argv = [a.replace("{f}", str(user_file)) for a in argv + ["--runs", "200", "--seed", "1"]]
    assert audit(argv) == command.EXIT_USER_ERROR == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    first, *rest = captured.err.splitlines()
    assert first.startswith(f"dperm: error: {where.replace('{f}', str(user_file))} (a bug in the audited code")
    assert "Traceback (most recent call last):" in rest and rest[-1] == error
    assert f'File "{user_file}"' in captured.err  # the frame inside the user's file is shown


def test_errors_inside_user_code_through_the_dperm_command(user_file, capsys):
    from dperm import cli

    status = cli.main(["audit", f"{user_file}:type_bug", "--pair", f"{user_file}:PAIR",
                       "--epsilon", "1", "--runs", "200", "--seed", "1"])
    assert status == 3 and "Traceback" in capsys.readouterr().err
