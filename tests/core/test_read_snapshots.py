"""A backward rule reads a Parameter as the forward read it, even when the forward overwrites it afterwards
(MindSpore's auto-monad `Load` semantics), in PyNative and in graph mode."""
import numpy as np
import pytest

import openspore as ms
from openspore import Parameter, Tensor, context, nn, ops
from openspore.ops import functional as F


class _AssignInLoop(nn.Cell):
    """out = sum_i x * w_i with w assigned i before each read: d out / dx = 0 + 1 + 2."""

    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.array(0), ms.int32), name="param")

    def construct(self, x):
        out = 0
        i = 0
        while i < 3:
            F.assign(self.weight, i)
            out = x * self.weight + out
            i = i + 1
        return out


@pytest.mark.parametrize("mode", [context.PYNATIVE_MODE, context.GRAPH_MODE])
def test_reads_before_later_assigns_keep_their_values(mode):
    old = context.get_context("mode")
    context.set_context(mode=mode)
    try:
        net = _AssignInLoop()
        grads = ops.GradOperation(get_all=True)(net)(Tensor(np.array(1), ms.int32))
    finally:
        context.set_context(mode=old)
    assert grads[0].asnumpy().item() == 3
    assert net.weight.asnumpy().item() == 2  # the writes themselves still happened


@pytest.mark.parametrize("mode", [context.PYNATIVE_MODE, context.GRAPH_MODE])
def test_gradient_with_respect_to_an_overwritten_parameter(mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.float32(2.0)), name="w")

        def construct(self, x):
            y = x * self.w * self.w
            F.assign(self.w, Tensor(np.float32(10.0)))
            return y + self.w

    old = context.get_context("mode")
    context.set_context(mode=mode)
    try:
        net = Net()
        dx, dw = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(
            Tensor(np.float32(3.0)))
    finally:
        context.set_context(mode=old)
    assert dx[0].asnumpy().item() == pytest.approx(4.0)      # w*w with the w read (2), not the final 10
    assert dw[0].asnumpy().item() == pytest.approx(13.0)     # 2*x*w + 1 (the final read), with w = 2


def _identity_count(write):
    from openspore.compiler.frontend import trace
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")

    def loss(x):
        y = (x * w).sum()
        if write:
            F.assign(w, x)
        return y
    graph = trace(lambda x: ms.grad(loss)(x), (Tensor(np.arange(3, dtype=np.float32)),)).graph
    return sum(n.op_name == "Identity" for n in graph.nodes)


def test_only_parameters_written_under_grad_are_copied():
    assert _identity_count(write=False) == 0
    assert _identity_count(write=True) == 1
