"""saved_tensors_hooks / register_saved_tensors_hooks and the function form of recompute."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops


def _xy():
    return ms.Tensor(np.array([1.0, 2.0], np.float32)), ms.Tensor(np.array([3.0, 4.0], np.float32))


def test_pack_and_unpack_hooks_replace_the_saved_tensors():
    """MindSpore 2.10 (PyNative) packs x and y once each, and the backward reads the packed values: with
    pack = x + 1 the gradients of x * y are y + 1 and x + 1."""
    log = []

    def pack(t):
        log.append(("pack", t.asnumpy().tolist()))
        return t + 1

    def unpack(t):
        log.append(("unpack", t.asnumpy().tolist()))
        return t

    def f(x, y):
        with ms.saved_tensors_hooks(pack, unpack):
            return x * y

    value, (gx, gy) = ms.value_and_grad(f, grad_position=(0, 1))(*_xy())
    assert value.asnumpy().tolist() == [3.0, 8.0]
    assert gx.asnumpy().tolist() == [4.0, 5.0] and gy.asnumpy().tolist() == [2.0, 3.0]
    assert log[:2] == [("pack", [1.0, 2.0]), ("pack", [3.0, 4.0])]
    assert sorted(v for k, v in log if k == "unpack") == [[2.0, 3.0], [4.0, 5.0]]


def test_hooks_nest_are_scoped_and_off_outside_grad():
    calls = []
    outer = ms.saved_tensors_hooks(lambda t: calls.append("outer") or t, lambda t: t)
    inner = ms.saved_tensors_hooks(lambda t: calls.append("inner") or t, lambda t: t)

    def f(x, y):
        with outer:
            with inner:
                a = x * y
            return (a * x).sum()

    ms.grad(f)(*_xy())
    assert "inner" in calls and "outer" in calls
    calls.clear()
    with outer:
        _ = _xy()[0] * 2.0  # no grad transform: nothing is saved
    assert calls == []
    with pytest.raises(TypeError, match="callable"):
        ms.saved_tensors_hooks(1, lambda t: t)


def test_register_saved_tensors_hooks_decorator():
    seen = []

    @ms.register_saved_tensors_hooks(lambda t: seen.append(1) or t * 2, lambda t: t)
    def f(x, y):
        return x * y

    gx = ms.grad(f)(*_xy())
    assert gx.asnumpy().tolist() == [6.0, 8.0] and seen


class _Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")

    def construct(self, a):
        return ops.tanh(self.dense(a))


def test_recompute_function_gives_the_plain_gradients():
    """MindSpore 2.10 prints [[1.42316, 1.42316, 1.42316]] and rows [0.07116, 0.14232, 0.21347] for this net."""
    net = _Block()
    a = ms.Tensor(np.array([[0.1, 0.2, 0.3]], np.float32))
    dx, (dw, db) = ms.grad(lambda v: ms.recompute(net, v).sum(), grad_position=0, weights=net.trainable_params())(a)
    np.testing.assert_allclose(dx.asnumpy(), [[1.42316] * 3], rtol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), [[0.07116, 0.14232, 0.21347]] * 2, rtol=1e-4)
    plain = ms.grad(lambda v: net(v).sum(), grad_position=0, weights=net.trainable_params())(a)
    np.testing.assert_allclose(dx.asnumpy(), plain[0].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(db.asnumpy(), plain[1][1].asnumpy(), rtol=1e-6)
    assert ms.recompute(net, a).shape == (1, 2)  # outside grad: a plain call
    with pytest.raises(TypeError, match="block"):
        ms.recompute(3, a)
