"""Behaviours MindSpore's own CPU op tests rely on (issue 19, ops m–z), each checked on data of our own."""
import numpy as np

import openspore as ms
from openspore import Tensor, nn, ops


def test_topk_unsorted_keeps_input_order():
    x = np.array([[0.3, 0.9, 0.1, 0.7, 0.5], [5.0, 1.0, 4.0, 2.0, 3.0]], np.float32)
    values, indices = ops.TopK(sorted=False)(Tensor(x), 3)
    assert indices.asnumpy().tolist() == [[1, 3, 4], [0, 2, 4]]
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(x, indices.asnumpy().astype(np.int64), 1))
    # k equal to the axis length hands the input back unchanged, in both modes
    whole, _ = ops.TopK(sorted=False)(Tensor(x), 5)
    np.testing.assert_array_equal(whole.asnumpy(), x)

    class Net(nn.Cell):
        def construct(self, a):
            return ops.top_k(a, 5, False)[0]

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_array_equal(Net()(Tensor(x)).asnumpy(), x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_train_serialization_module_has_export_and_load():
    from openspore.train import serialization
    from openspore.train.serialization import export, load
    assert export is ms.export and load is ms.load
    assert serialization.merge_sliced_parameter is ms.train.merge_sliced_parameter
    try:
        serialization.no_such_function
    except AttributeError as exc:
        assert "no_such_function" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_tensor_methods_with_mindspore_signatures():
    x = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
    assert x.select(1, -1).asnumpy().tolist() == [3.0, 7.0]
    assert x.select(0, 1).asnumpy().tolist() == [4.0, 5.0, 6.0, 7.0]
    added = x.scatter_add(1, Tensor(np.array([[3, 3], [0, 1]], np.int64)), Tensor(np.full((2, 2), 10, np.float32)))
    assert added.asnumpy().tolist() == [[0, 1, 2, 23], [14, 15, 6, 7]]
    less = x.scatter_sub(Tensor(np.array([[1, 2]], np.int32)), Tensor(np.array([6.0], np.float32)))
    assert less.asnumpy()[1].tolist() == [4.0, 5.0, 0.0, 7.0]
    q, r = Tensor(np.array([[2.0, 1.0], [0.0, 3.0], [1.0, 1.0]], np.float32)).qr(some=False)
    assert q.shape == (3, 3) and r.shape == (3, 2)
    z = Tensor(np.array([3 - 4j, -1j], np.complex64))
    assert z.real().asnumpy().tolist() == [3.0, 0.0] and z.imag().asnumpy().tolist() == [-4.0, -1.0]
    assert z.conj().asnumpy().tolist() == [3 + 4j, 1j]
    assert x.value() is x
    try:
        x.select(2, 0)
    except ValueError as exc:
        assert "dim" in str(exc)
    else:
        raise AssertionError("an out-of-range dim must be refused")


def test_functional_module_answers_with_the_rest_of_ops():
    from openspore.ops import functional as F
    from openspore.ops.functional import Roll, stft  # noqa: F401  (from-imports go through the same hook)
    assert F.P is ops.operations and F.Median is ops.Median
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    assert F.Roll(1, 0)(x).asnumpy().tolist() == [3.0, 1.0, 2.0]
    assert not hasattr(F, "no_such_name")


def test_unique_lists_elements_in_order_of_first_appearance():
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            y, idx = ms.jit(lambda v: ops.unique(v))(Tensor(np.array([7, 2, 7, 4, 2, 9], np.int32)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        assert y.asnumpy().tolist() == [7, 2, 4, 9]
        assert idx.asnumpy().tolist() == [0, 1, 0, 2, 1, 3]
    y, idx = ops.Unique()(Tensor(np.array([[0.5, -1.0], [0.5, 3.0]], np.float32)))
    assert y.asnumpy().tolist() == [0.5, -1.0, 3.0] and idx.asnumpy().tolist() == [[0, 1], [0, 2]]


def test_candidate_sampler_expected_counts_without_rejections():
    true = Tensor(np.array([[1], [3]], np.int64))
    sampled, true_count, sampled_count = ops.UniformCandidateSampler(1, 4, False, 8, seed=3)(true)
    assert np.allclose(true_count.asnumpy(), 0.5) and np.allclose(sampled_count.asnumpy(), 0.5)
    # unique draws over the whole range must reject repeats: the count becomes 1 - (1 - p)^tries
    _, true_count, _ = ops.UniformCandidateSampler(1, 4, True, 4, seed=3)(true)
    tries = np.log1p(-true_count.asnumpy()[0, 0]) / np.log1p(-0.25)
    assert tries >= 4 and abs(tries - round(tries)) < 1e-3
