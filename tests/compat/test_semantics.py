"""Semantics that used to differ silently from MindSpore 2.10 (issue 19): Parameter.value(), a Cell bprop
returning ((dx,), {param: dw}), MnistDataset on a folder holding one set only."""
import os
import shutil

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from tests.dataset.test_sources import make_mnist


def T(x):
    return ms.Tensor(np.asarray(x, np.float32))


def test_parameter_value_is_a_tensor_snapshot_that_carries_gradients():
    p = ms.Parameter(T([1.0, 2.0]), name="w")
    v = p.value()
    assert type(v) is ms.Tensor and v.asnumpy().tolist() == [1.0, 2.0]
    p.set_data(T([5.0, 6.0]))
    assert v.asnumpy().tolist() == [1.0, 2.0] and p.value().asnumpy().tolist() == [5.0, 6.0]
    (gw,) = ms.grad(lambda x: (x * p.value()).sum(), grad_position=None, weights=[p])(T([3.0, 4.0]))
    assert gw.asnumpy().tolist() == [3.0, 4.0]


class _ScaledByW(nn.Cell):
    def __init__(self, style):
        super().__init__()
        self.w = ms.Parameter(T([2.0, 3.0]), name="w")
        self.style = style

    def construct(self, x):
        return x * self.w

    def bprop(self, x, out, dout):
        if self.style == "param":
            return (dout * 10,), {self.w: dout * 100}
        if self.style == "name":
            return (dout * 10,), {"w": dout * 7}
        return (dout * 10,)


@pytest.mark.parametrize("style, dw", [("param", 100.0), ("name", 7.0), ("inputs", 0.0)])
def test_cell_bprop_may_return_input_and_parameter_gradients(style, dw):
    net = _ScaledByW(style)
    dx, (gw,) = ms.grad(net, grad_position=0, weights=net.trainable_params())(T([1.0, 1.0]))
    assert dx.asnumpy().tolist() == [10.0, 10.0]
    assert gw.asnumpy().tolist() == [dw, dw]


def test_mnist_folder_with_one_set_only(tmp_path):
    make_mnist(str(tmp_path))
    for sub, prefix in (("train", "train"), ("test", "t10k")):
        os.makedirs(tmp_path / sub)
        for kind in ("images-idx3", "labels-idx1"):
            shutil.copy(tmp_path / f"{prefix}-{kind}-ubyte", tmp_path / sub / f"{prefix}-{kind}-ubyte")
    import openspore.dataset as ds
    assert ds.MnistDataset(str(tmp_path / "train")).get_dataset_size() == 7
    assert ds.MnistDataset(str(tmp_path / "test")).get_dataset_size() == 3
    assert ds.MnistDataset(str(tmp_path / "test"), usage="test").get_dataset_size() == 3
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte was not found"):
        ds.MnistDataset(str(tmp_path / "test"), usage="train").get_dataset_size()
    os.makedirs(tmp_path / "empty")
    with pytest.raises(RuntimeError, match="no MNIST IDX files"):
        ds.MnistDataset(str(tmp_path / "empty")).get_dataset_size()


def test_gradients_with_respect_to_integer_tensors():
    # MindSpore 2.10 (PyNative): sums and casts of int32 inputs pass their gradients through, in int32
    x = ms.Tensor(np.array([1, 2], np.int32))
    g = ms.grad(lambda a: (a * a).sum())(x)
    assert g.dtype == ms.int32 and g.asnumpy().tolist() == [2, 4]
    g = ms.grad(lambda a: ms.ops.cast(a, ms.float32) * 2)(x)
    assert g.dtype == ms.int32 and g.asnumpy().tolist() == [2, 2]
    ga, gb = ms.grad(lambda a, b: a * b, grad_position=(0, 1))(x, T([2.5, 1.5]))
    assert ga.dtype == ms.int32 and ga.asnumpy().tolist() == [2, 1] and gb.asnumpy().tolist() == [1.0, 2.0]


def test_vector_repr_stays_on_the_header_line():
    assert repr(ms.Tensor(np.array([0, 1, 2]))) == "Tensor(shape=[3], dtype=Int64, value= [0, 1, 2])"
    assert repr(ms.Tensor(np.zeros(0, np.float32))) == "Tensor(shape=[0], dtype=Float32, value= )"
    assert repr(T([[1.0]])) == "Tensor(shape=[1, 1], dtype=Float32, value=\n[[ 1.00000000e+00]])"


def test_nn_jvp_and_vjp_cells():
    x = T([1.0, 2.0])
    out, grads = nn.Vjp(lambda a, b: a * b)(x, x, x)
    assert out.asnumpy().tolist() == [1.0, 4.0] and [g.asnumpy().tolist() for g in grads] == [[1.0, 4.0]] * 2
    out, tangent = nn.Jvp(lambda a, b: a * b)(x, x, (x, x))
    assert tangent.asnumpy().tolist() == [2.0, 8.0]
    _, g = nn.Vjp(lambda a: a ** 3)(x, T([1.0, 1.0]))
    assert g.asnumpy().tolist() == [3.0, 12.0]
    with pytest.raises(TypeError, match="followed by 'v'"):
        nn.Jvp(lambda a: a)(x)
