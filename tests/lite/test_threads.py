"""Context.cpu.thread_num applies per model: each call runs with its model's BLAS thread count and restores the
process's count after (threads.py)."""
import os

import numpy as np
import pytest

from openspore import lite as mslite
from openspore.lite.threads import BlasThreads


def _controllable():
    return BlasThreads(1).current() is not None


def _model(path, threads):
    ctx = mslite.Context()
    ctx.cpu.thread_num = threads
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR, ctx)
    return model


def test_scope_sets_and_restores():
    if not _controllable():
        pytest.skip("no controllable BLAS library (threadpoolctl missing)")
    outside = BlasThreads(1).current()
    with BlasThreads(2) as scope:
        assert scope.current() == 2
        with BlasThreads(1) as inner:  # nested calls (a model predicting inside another's call) unwind in order
            assert inner.current() == 1
        assert scope.current() == 2
    assert BlasThreads(1).current() == outside
    with pytest.raises(ValueError, match="thread_num"):
        BlasThreads(-1)


def test_two_models_keep_their_own_thread_counts(fixtures_dir):
    if not _controllable():
        pytest.skip("no controllable BLAS library (threadpoolctl missing)")
    path = os.path.join(fixtures_dir, "lenet5.mindir")
    x = np.load(os.path.join(fixtures_dir, "lenet5_input0.npy"))
    one, two, default = _model(path, 1), _model(path, 2), _model(path, 0)
    process = BlasThreads(1).current()
    # building `two` last no longer sets the process's count for everyone (it was process-wide before)
    with one._threads:
        assert one._threads.current() == 1
    with two._threads:
        assert two._threads.current() == 2
    outs = []
    for model in (one, two, default, one):
        inputs = model.get_inputs()
        inputs[0].set_data_from_numpy(x)
        outs.append(model.predict(inputs)[0].get_data_to_numpy())
        assert BlasThreads(1).current() == process  # each call restored the count it found
    for out in outs[1:]:
        np.testing.assert_allclose(out, outs[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(outs[0], np.load(os.path.join(fixtures_dir, "lenet5_output.npy")), atol=1e-5)
