from __future__ import annotations

import numpy as np
import pytest

from reference.tape import Fresh, NoiseTape, Recorder, Replay, TapeMismatchError, noise_source


def _algorithm(noise, runs=3, p=2):
    """A toy consumer using every kind, in a fixed order."""
    z = noise.normal("z", (runs, p))
    u = noise.uniform("u", (runs,))
    i = noise.integers("i", 7, (runs,))
    g = noise.gamma("g", 2.5, (runs,))
    gu = noise.gumbel("gu", (runs, 4))
    e = noise.exponential("e", (runs,))
    la = noise.laplace("la", (runs,))
    return z.sum(1) + u + i + g + gu.max(1) + e + la


def test_record_then_replay_is_bit_for_bit():
    rec = Recorder(rng=5)
    out = _algorithm(rec)
    replay = rec.tape.replay()
    again = _algorithm(replay)
    replay.assert_consumed()
    assert np.array_equal(out, again)


def test_json_round_trip_is_exact():
    rec = Recorder(rng=11)
    out = _algorithm(rec)
    tape = NoiseTape.from_json(rec.tape.to_json())
    assert tape == rec.tape
    assert np.array_equal(_algorithm(Replay(tape)), out)


def test_recorder_matches_fresh_stream():
    assert np.array_equal(_algorithm(Recorder(rng=3)), _algorithm(Fresh(rng=3)))


def test_mismatch_is_reported():
    rec = Recorder(rng=0)
    _algorithm(rec, p=2)
    with pytest.raises(TapeMismatchError, match="entry 0"):
        _algorithm(rec.tape.replay(), p=3)


def test_exhausted_and_unconsumed():
    rec = Recorder(rng=0)
    rec.normal("a", 2)
    player = rec.tape.replay()
    player.normal("a", 2)
    with pytest.raises(TapeMismatchError, match="exhausted"):
        player.normal("a", 2)
    player2 = rec.tape.replay()
    with pytest.raises(TapeMismatchError, match="unread"):
        player2.assert_consumed()


def test_noise_source_exclusive():
    with pytest.raises(TypeError, match="either rng= or noise="):
        noise_source(rng=1, noise=Fresh(1))
    with pytest.raises(TypeError):
        noise_source(noise=np.random.default_rng(0))
    assert isinstance(noise_source(rng=1), Fresh)


def test_draw_laws_are_standardised():
    """Moments of each kind match its documented law (5-sigma bands: false alarm < 1e-5)."""
    noise = Fresh(rng=2024)
    m = 200_000
    z = noise.normal("z", m)
    assert abs(z.mean()) < 5 / np.sqrt(m) and abs(z.var() - 1) < 5 * np.sqrt(2 / m)
    u = noise.uniform("u", m)
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / m)
    i = noise.integers("i", 3, m)
    assert set(np.unique(i)) == {0, 1, 2}
    g = noise.gamma("g", 3.0, m)
    assert abs(g.mean() - 3.0) < 5 * np.sqrt(3.0 / m)
    gu = noise.gumbel("gu", m)
    assert abs(gu.mean() - np.euler_gamma) < 5 * (np.pi / np.sqrt(6)) / np.sqrt(m)
    e = noise.exponential("e", m)
    assert abs(e.mean() - 1) < 5 / np.sqrt(m)
    la = noise.laplace("la", m)
    assert abs(np.abs(la).mean() - 1) < 5 / np.sqrt(m)


@pytest.mark.parametrize("high", [1, 2, 7, 9936, 2**31 + 11, 2**40 + 3])
@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_a_single_integer_draw_is_the_array_draw(high, shape):
    # Fresh draws one integer with the scalar call (faster); it must be the value, dtype and stream
    # position of numpy's array call of that shape, draw after draw, interleaved with other draws
    src, gen = Fresh(5), np.random.default_rng(5)
    for _ in range(200):
        got = src.integers("i", high, shape)
        want = gen.integers(0, high, size=shape, dtype=np.int64)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(src.normal("b", 3), gen.standard_normal(3))
