"""PyNative checks each call signature once per (primitive class, attributes): core/dispatch.py `bind`,
shared between equal instances through core/registry.py."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops
from openspore.core.registry import forget_accepted_signatures, prim


def _counting(monkeypatch, cls):
    calls = []
    original = cls.infer

    def infer(self, *args):
        calls.append(args)
        return original(self, *args)
    monkeypatch.setattr(cls, "infer", infer)
    forget_accepted_signatures()  # a redefined infer checks again what the old one accepted
    return calls


def test_a_repeated_signature_is_checked_once(backend, monkeypatch):
    matmul = ops.MatMul(transpose_b=True)
    calls = _counting(monkeypatch, type(matmul))
    a, b = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((4, 3), np.float32))
    for _ in range(3):
        assert matmul(a, b).shape == (2, 4)
    assert len(calls) == 1
    matmul(ms.Tensor(np.ones((5, 3), np.float32)), b)  # a new shape is checked
    assert len(calls) == 2


def test_bad_calls_still_raise_after_good_ones(backend):
    add = ops.Add()
    x = ms.Tensor(np.ones((2, 3), np.float32))
    add(x, x)
    with pytest.raises(ValueError, match="Add"):
        add(x, ms.Tensor(np.ones((4,), np.float32)))
    reshape = ops.Reshape()
    reshape(x, (3, 2))
    with pytest.raises((TypeError, ValueError)):
        reshape(x, [3, 2.5])  # a list with a float: a new signature, checked


def test_changing_an_attribute_forgets_accepted_signatures(monkeypatch):
    matmul = ops.MatMul()
    calls = _counting(monkeypatch, type(matmul))
    a = ms.Tensor(np.ones((2, 2), np.float32))
    matmul(a, a)
    matmul.add_prim_attr("transpose_a", True)
    matmul(a, a)
    assert len(calls) == 2


def test_equal_instances_share_accepted_signatures(backend, monkeypatch):
    calls = _counting(monkeypatch, ops.MatMul)
    a, b = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((3, 4), np.float32))
    for _ in range(3):
        ops.MatMul()(a, b)  # a fresh instance per call, as user code writes it
    prim(ops.MatMul)(a, b)
    assert len(calls) == 1
    ops.MatMul(transpose_a=True)(ms.Tensor(np.ones((3, 2), np.float32)), b)  # other attributes: their own set
    assert len(calls) == 2


def test_the_shared_instance_is_one_per_class_and_attributes():
    assert prim(ops.ReduceSum, keep_dims=True) is prim("ReduceSum", keep_dims=True)
    assert prim(ops.ReduceSum, keep_dims=True) is not prim(ops.ReduceSum)
    assert prim(ops.ReduceSum, keep_dims=True) == ops.ReduceSum(keep_dims=True)
    # equal but differently typed values stay apart: an int attribute is not a bool one
    assert prim(ops.ReduceSum, keep_dims=1).keep_dims is not True
    # lists are frozen for the key but handed to the primitive as given (a list and a tuple stay apart)
    from_list = prim(ops.BroadcastTo, shape=[2, 3])
    assert from_list is prim(ops.BroadcastTo, shape=[2, 3]) and from_list.shape == [2, 3]
    assert prim(ops.BroadcastTo, shape=(2, 3)).shape == (2, 3)
    with pytest.raises(ValueError, match="no primitive named 'NoSuchOp'"):
        prim("NoSuchOp")
    with pytest.raises(RuntimeError, match="shared instance"):
        prim(ops.ReduceSum, keep_dims=True).add_prim_attr("keep_dims", False)
    assert prim(ops.ReduceSum, keep_dims=True).keep_dims is True


def test_bad_calls_after_good_ones_on_a_shared_instance(backend):
    add = prim(ops.Add)
    x = ms.Tensor(np.ones((2, 3), np.float32))
    add(x, x)
    with pytest.raises(ValueError, match="Add"):
        add(x, ms.Tensor(np.ones((4,), np.float32)))
