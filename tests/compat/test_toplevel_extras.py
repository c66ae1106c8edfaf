"""Top-level functions added for MindSpore coverage: seeding helpers, is_tensor, frombuffer, run_check, ..."""
import numpy as np
import pytest

import openspore as ms


def test_manual_seed_replays_the_default_stream_without_touching_get_seed():
    before = ms.get_seed()
    ms.manual_seed(11)
    a = ms.ops.rand(4).asnumpy()
    ms.manual_seed(11)
    b = ms.ops.rand(4).asnumpy()
    assert np.array_equal(a, b) and ms.initial_seed() == 11 and ms.get_seed() == before
    state = ms.get_rng_state()
    c = ms.ops.rand(3).asnumpy()
    ms.set_rng_state(state)
    assert np.array_equal(c, ms.ops.rand(3).asnumpy())
    s = ms.seed()
    assert isinstance(s, int) and ms.initial_seed() == s
    with pytest.raises(TypeError):
        ms.manual_seed(-1)


def test_small_helpers(capsys):
    assert ms.is_tensor(ms.Parameter(ms.Tensor([1.0]), name="p")) and not ms.is_tensor(np.ones(1))
    t = ms.frombuffer(np.array([1, 2, 3], np.int32).tobytes(), ms.int32, count=2)
    assert t.asnumpy().tolist() == [1, 2] and t.dtype == ms.int32
    ms.set_deterministic(True)
    try:
        assert ms.get_context("deterministic") == "ON"
    finally:
        ms.set_deterministic(False)
    ms.synchronize()
    ms.run_check()
    out = capsys.readouterr().out
    assert "MindSpore version:" in out and "installed on platform [CPU] successfully" in out
    assert ms.get_level() == "2" and ms.train.export is ms.export and ms.train.load is ms.load
