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
