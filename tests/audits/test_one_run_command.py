"""Tests of ``dperm audit-one-run`` (audits.one_run_command) with fit functions in temporary files."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from audits import one_run_command as cmd
from dperm.cli import main
from reference.losses import Huber, Logistic

USER_FILE = textwrap.dedent('''
    import numpy as np

    def data():
        rng = np.random.default_rng(0)
        x = rng.standard_normal((1500, 4))
        x /= np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))
        return np.c_[x, np.where(x[:, 0] > 0, 1.0, -1.0)]

    def leaky(data, rng):  # sum of y x without noise: every canary is visible
        return (data[:, -1:] * data[:, :-1]).sum(axis=0)

    def private(data, rng):  # the Gaussian mechanism on that sum: sensitivity 2, sigma 40 (mu 0.05)
        return (data[:, -1:] * data[:, :-1]).sum(axis=0) + 40.0 * rng.standard_normal(data.shape[1] - 1)

    def slow(data, rng):  # the leaky fit, taking its time
        import time
        time.sleep(0.6)
        return leaky(data, rng)

    def crashing(data, rng):
        raise RuntimeError("bug in the fit")

    def wrong_length(data, rng):
        return np.zeros(3)
''')


@pytest.fixture
def user_file(tmp_path, monkeypatch):
    path = tmp_path / "fits.py"
    path.write_text(USER_FILE)
    monkeypatch.chdir(tmp_path)
    return "fits.py"


def _run(capsys, *argv):
    status = main(["audit-one-run", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


COMMON = ("--data", "fits.py:data", "--loss", "logistic:feature_norm=1", "--canaries", "100", "--epsilon", "1",
          "--delta", "1e-6", "--seed", "4")


def test_leaky_fit_is_refuted(user_file, capsys):
    status, out, _ = _run(capsys, "fits.py:leaky", *COMMON)
    assert status == 1 and "REFUTED" in out and "seed 4" in out and "100 canaries, 1600 records" in out


def test_private_fit_is_not_refuted(user_file, capsys):
    status, out, _ = _run(capsys, "fits.py:private", *COMMON, "--gaussian")
    assert status == 0 and "not refuted" in out and "estimate" in out


def test_json_output(user_file, capsys):
    status, out, _ = _run(capsys, "fits.py:leaky", *COMMON, "--json", "--guesses", "10")
    d = json.loads(out)
    assert status == 1 and d["result_type"] == "one_run" and d["tests"][0]["guesses"] == 20
    assert d["relation"] == "replace-one" and "infinite" in d


def test_a_slow_fit_says_it_is_running_with_its_seed(user_file, capsys, monkeypatch):
    # a fit of minutes prints a line every PROGRESS_EVERY s (here 0.1 s, after 0.05 s) with the
    # seed; a quick one prints none (the other tests: 10 s by default)
    from audits import execution

    monkeypatch.setattr(execution, "PROGRESS_AFTER", 0.05)
    monkeypatch.setattr(execution, "PROGRESS_EVERY", 0.1)
    status, out, err = _run(capsys, "fits.py:slow", *COMMON)
    lines = [line for line in err.splitlines() if line.startswith("[audit] fits.py:slow: one fit running (seed 4), ")]
    assert status == 1 and "REFUTED" in out
    assert len(lines) >= 2 and all(line.endswith(" elapsed") for line in lines), err
    assert err.count("[audit]") == len(lines)
    monkeypatch.setattr(execution, "PROGRESS_AFTER", 10.0)
    status, _, err = _run(capsys, "fits.py:leaky", *COMMON)
    assert status == 1 and "[audit]" not in err


def test_user_code_failure_exits_3(user_file, capsys):
    status, _, err = _run(capsys, "fits.py:crashing", *COMMON)
    assert status == 3 and "bug in the audited code" in err and "bug in the fit" in err


@pytest.mark.parametrize("extra, message", [
    (("--loss", "logistic:feature_norm=0.5"), "feature_norm"),  # the base records leave the declared domain
    (("--loss", "logistic:norm=1"), "takes feature_norm"),
    (("--guesses", "some"), "--guesses"),
    (("--canaries", "1"), "count"),
])
def test_bad_arguments_exit_2(user_file, capsys, extra, message):
    argv = list(COMMON)
    for flag, value in zip(extra[::2], extra[1::2]):
        argv[argv.index(flag) + 1] = value if flag in argv else argv.extend([flag, value])
    status, _, err = _run(capsys, "fits.py:leaky", *[a for a in argv if a is not None])
    assert status == 2 and message in err, err


def test_wrong_output_exits_2(user_file, capsys):
    status, _, err = _run(capsys, "fits.py:wrong_length", *COMMON)
    assert status == 2 and "parameter vector" in err


def test_add_remove_and_sphere_designs(user_file, capsys):
    status, out, _ = _run(capsys, "fits.py:leaky", *COMMON, "--relation", "add-remove-one", "--design", "sphere")
    assert status in (0, 1) and "canaries" in out
    status, out, _ = _run(capsys, "fits.py:leaky", *COMMON, "--design", "coordinate", "--canaries", "4")
    assert status in (0, 1)


def test_pad_keeps_the_base_records_losses():
    loss = Logistic(feature_norm=1.0)
    rows = np.array([[0.3, -0.4, 1.0], [0.1, 0.2, -1.0]])
    padded = cmd.pad(rows, 3, supervised=True)
    assert padded.shape == (2, 6) and np.all(padded[:, 2:5] == 0)
    theta = np.array([0.5, -1.0])
    np.testing.assert_allclose(loss.value(np.r_[theta, 7.0, 8.0, 9.0], padded), loss.value(theta, rows))


def test_ready_losses():
    assert isinstance(cmd.ready_loss("huber:feature_norm=1,label_bound=5,width=1"), Huber)
    assert cmd.ready_loss("mymodule:LOSS") is None
