"""Tests of reference.wang17.svrg_plus (Algorithm 2, DP-SVRG++): its counts and defaults come from the
records, and without noise the iterates converge. (The transcript and tape tests of both algorithms
are in test_svrg.py, parametrised over them.)"""

from __future__ import annotations

import numpy as np
import pytest

from reference.losses import L2Regulariser
from reference.tape import Recorder, Replay
from reference.wang17 import svrg_plus
from spec.errors import AssumptionError, DataBoundError, ParameterError
from spec.wang17 import svrg_plus as spec_plus



def _helpers():
    """test_svrg.py's data and objective helpers (one copy; the tests import in importlib mode)."""
    import importlib.util
    from pathlib import Path

    found = importlib.util.spec_from_file_location("wang17_test_svrg", Path(__file__).with_name("test_svrg.py"))
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


_shared = _helpers()
LOSS, _data, _huber_minimiser, _objective, _zero_noise = (_shared.LOSS, _shared._data, _shared._huber_minimiser,
                                                          _shared._objective, _shared._zero_noise)


def test_without_noise_dp_svrg_plus_converges():
    data = _data(n=40)
    theta_star = _huber_minimiser(data, 0.0)
    kw = dict(loss=LOSS, epsilon=1.0, delta=1e-5, epochs=6, epoch_length=20, runs=2)
    rec = Recorder(3)
    svrg_plus.dp_svrg_plus(data, noise=rec, **kw)
    res = svrg_plus.dp_svrg_plus(data, noise=Replay(_zero_noise(rec.tape, svrg_plus.LABEL_NOISE_2)), **kw)
    gap = LOSS.mean(res.theta, data) - LOSS.mean(theta_star, data)
    gap0 = LOSS.mean(np.zeros(3), data) - LOSS.mean(theta_star, data)
    assert res.learning_rate == spec_plus.THM_4_4.evaluate("learning_rate", smoothness=1.0)
    assert np.all(gap <= 1e-3 * gap0) and np.all(gap >= -1e-12)


def test_dp_svrg_plus_counts_and_defaults():
    data = _data()
    res = svrg_plus.dp_svrg_plus(data, loss=LOSS, epsilon=1.0, delta=1e-5, epoch_length=2, runs=1, rng=0)
    T = spec_plus.THM_4_4.evaluate("epochs", n=30, epsilon=1.0, delta=1e-5, dimension=3, lipschitz=1.0)
    assert res.epochs == T and res.noisy_steps == 2 * (2 ** (T + 1) - 2)
    assert res.gradient_evaluations == T * 30 + 2 * res.noisy_steps
    assert res.sigma == spec_plus.calibrate(n=30, epochs=T, epoch_length=2, epsilon=1.0, delta=1e-5).sigma
    assert res.contraction is None and res.spec_ids == svrg_plus.SPEC_IDS_2
    with pytest.raises(TypeError):
        svrg_plus.dp_svrg_plus(data, loss=LOSS, epsilon=1.0, delta=1e-5)  # epoch_length is required
