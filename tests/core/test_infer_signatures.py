"""PyNative checks each call signature once per primitive instance (core/dispatch.py `_signature`)."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops


def _counting(monkeypatch, cls):
    calls = []
    original = cls.infer

    def infer(self, *args):
        calls.append(args)
        return original(self, *args)
    monkeypatch.setattr(cls, "infer", infer)
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
