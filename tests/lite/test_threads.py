"""Context.cpu.thread_num applies per model: each call runs with its model's BLAS thread count and restores the
process's count after (threads.py); at inference with 2+ threads the convolutions share row chunks over lite's
own threads (workshare.py) and the BLAS runs one thread."""
import os

import numpy as np
import pytest

from openspore import lite as mslite
from openspore.lite.kernels.nhwc import make_conv
from openspore.lite.kernels.nn import _conv_prim, conv2d
from openspore.lite.program import Op
from openspore.lite.threads import BlasThreads
from openspore.lite.workshare import Chooser, WorkShare, scope


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
    with two._threads:  # inference on 2 threads: a single-threaded BLAS (lite's ways use the threads)
        assert two._threads.current() == 1
    assert two._share is None  # LeNet's convolutions carry their pools: nothing to share, it runs serially
    outs = []
    for model in (one, two, default, one):
        inputs = model.get_inputs()
        inputs[0].set_data_from_numpy(x)
        outs.append(model.predict(inputs)[0].get_data_to_numpy())
        assert BlasThreads(1).current() == process  # each call restored the count it found
    for out in outs[1:]:
        np.testing.assert_allclose(out, outs[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(outs[0], np.load(os.path.join(fixtures_dir, "lenet5_output.npy")), atol=1e-5)


def test_models_with_splittable_convolutions_get_the_ways():
    from openspore.lite.model import _splittable
    conv = {"layout": "NHWC", "kernel_size": (3, 3)}
    assert _splittable(Op("LiteConv2D", conv, [0, 1], [2]))
    assert not _splittable(Op("LiteConv2D", dict(conv, pool=(2, 2)), [0, 1], [2]))
    assert not _splittable(Op("LiteConv2D", {"kernel_size": (3, 3)}, [0, 1], [2]))  # NCHW
    assert not _splittable(Op("LiteDense", {}, [0, 1], [2]))


def test_workshare_runs_each_task_once_and_reraises():
    share = WorkShare.of(2)
    for _ in range(50):
        hits = [0] * 7
        share.run([lambda k=k: hits.__setitem__(k, hits[k] + 1) for k in range(7)])
        assert hits == [1] * 7

    def boom():
        raise ValueError("chunk failed")
    with pytest.raises(ValueError, match="chunk failed"):
        share.run([boom, lambda: None, lambda: None])
    share.run([lambda: None, lambda: None])  # the pool is usable after an error
    with pytest.raises(ValueError, match="n >= 2"):
        WorkShare.of(1)


@pytest.mark.parametrize("c, hw, kernel, pad, stride, act, bias, residual", [
    (8, 9, 3, 1, 1, "relu", True, True),     # row GEMMs (stride 1, 3×3)
    (6, 9, 3, 1, 2, "relu", True, False),    # one im2col GEMM (stride 2)
    (8, 9, 5, 2, 1, "relu6", False, False),  # 5×5: one im2col GEMM
    (5, 7, 1, 0, 1, None, True, True),       # 1×1: the input is the column matrix
    (5, 8, 1, 0, 2, "relu", True, False),    # 1×1 stride 2
    (16, 24, 3, 1, 1, "relu", True, True),   # 576 pixels: the BLAS-threaded ways run one im2col GEMM
])
def test_shared_convolution_matches_serial(c, hw, kernel, pad, stride, act, bias, residual):
    rng = np.random.default_rng(c + hw)
    o = 4
    attrs = {"kernel_size": (kernel, kernel), "pad_mode": "pad" if pad else "valid", "pad": (pad,) * 4,
             "stride": (1, 1, stride, stride), "out_channel": o, "activation": None, "has_bias": bias}
    x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
    w = rng.standard_normal((o, c, kernel, kernel)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    want = conv2d(_conv_prim(Op("LiteConv2D", attrs, [0, 1], [2])), x, w, b if bias else None)
    r = rng.standard_normal(want.shape).astype(np.float32)
    want = want + r if residual else want
    want = {"relu": np.maximum(want, 0), "relu6": np.clip(want, 0, 6), None: want}[act]
    conv = make_conv(Op("LiteConv2D", dict(attrs, activation=act, layout="NHWC", has_residual=residual),
                        [0, 1], [2]))
    args = [np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(-1, o))] + ([b] if bias else []) \
        + ([np.ascontiguousarray(r.transpose(0, 2, 3, 1))] if residual else [])
    before = BlasThreads(1).current()
    for share, gemm in ((WorkShare.of(2), (0, 0)), (WorkShare.of(3), (0, 0)), (None, (0, 0)), (None, (2, 64)),
                        (WorkShare.of(2), (0, 0)), (None, (2, 512)), (None, (3, 1))):
        with scope(share, gemm):
            got = conv(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), *args)
        np.testing.assert_allclose(got.transpose(0, 3, 1, 2), want, rtol=1e-5, atol=1e-5)
    if before is not None:  # the threaded way sets the BLAS count around its GEMM only (to 1 after it: the
        with BlasThreads(1):  # model's call runs at one), so inside a call at one thread it stays at one
            with scope(None, (2, 1)):
                conv(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), *args)
            assert BlasThreads(1).current() == 1


def test_chooser_of_three_ways_probes_each_other_way():
    chooser = Chooser(probe=4, ways=3)
    picks = []
    for _ in range(60):
        way = chooser.pick()
        picks.append(way)
        chooser.record(way, {0: 3.0, 1: 2.0, 2: 1.0}[way])  # the BLAS-threaded way fastest
    assert sorted(picks[:6]) == [0, 0, 1, 1, 2, 2]  # each way measured twice first
    late = picks[12:]
    assert late.count(2) > late.count(0) + late.count(1) and 0 in late and 1 in late


def test_chooser_runs_the_faster_way_and_probes_the_other():
    chooser = Chooser(probe=5)
    picks = []
    for _ in range(40):
        way = chooser.pick()
        picks.append(way)
        chooser.record(way, 1.0 if way == 1 else 3.0)  # sharing three times faster
    assert picks[:4] == [0, 1, 0, 1]  # each way is measured first
    late = picks[10:]
    assert late.count(1) > late.count(0) and 0 in late  # mostly shared, serial re-tried now and then


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_workshare_works_in_a_forked_child():
    share = WorkShare.of(2)
    share.run([lambda: None, lambda: None])  # the parent's helper threads exist now
    pid = os.fork()
    if pid == 0:  # child: the helpers are gone, the pool starts new ones
        code = 1
        try:
            hits = [0] * 4
            share.run([lambda k=k: hits.__setitem__(k, 1) for k in range(4)])
            code = 0 if hits == [1] * 4 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_every_way_of_a_residual_block_matches_one_thread(fixtures_dir):
    path = os.path.join(fixtures_dir, "resblock.mindir")
    x = np.load(os.path.join(fixtures_dir, "resblock_input0.npy"))[:1]  # batch 1: the ways that split apply
    one, two = _model(path, 1), _model(path, 2)
    assert two._share is not None and len(two._chooser.times) == 4
    for model in (one, two):
        model.resize(model.get_inputs(), [list(x.shape)])
    want = None
    for model in (one,) + (two,) * 10:  # the chooser tries each of its four ways twice first
        inputs = model.get_inputs()
        inputs[0].set_data_from_numpy(x)
        got = model.predict(inputs)[0].get_data_to_numpy()
        if want is None:
            want = got
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert all(len(t) >= 2 for t in two._chooser.times)
    np.testing.assert_allclose(want, np.load(os.path.join(fixtures_dir, "resblock_output.npy"))[:1], atol=1e-5)
