"""GRAPH_MODE cells whose openspore composites need their inputs' values run op by op; user code that asks for a
traced value gets graph mode's error, except a numpy value at the LAX syntax level (MindSpore's JIT Fallback)."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, nn, ops


class SegmentNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.segment_sum = ops.SegmentSum()

    def construct(self, x, ids):
        return self.segment_sum(x * 2, ids) + 1


class PeekNet(nn.Cell):
    def construct(self, x):
        return Tensor(x.asnumpy() + 1)


def test_value_dependent_composite_runs_in_graph_mode(graph_mode):
    net = SegmentNet()
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32))
    out = net(x, Tensor(np.array([0, 0, 2], np.int32)))
    assert out.asnumpy().tolist() == [[9.0, 13.0], [1.0, 1.0], [11.0, 13.0]]
    # the segment count follows the ids of each call
    again = net(x, Tensor(np.array([0, 1, 1], np.int32)))
    assert again.asnumpy().tolist() == [[3.0, 5.0], [17.0, 21.0]]

    @ms.jit
    def pad(a, p):
        return ops.MirrorPad("REFLECT")(a, p)

    padded = pad(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), Tensor(np.array([[0, 0], [1, 1]], np.int32)))
    assert padded.asnumpy().tolist() == [[2.0, 1.0, 2.0, 1.0], [4.0, 3.0, 4.0, 3.0]]


def test_user_code_asking_for_a_numpy_value_runs_at_lax_and_raises_at_strict(graph_mode):
    # LAX, MindSpore's default syntax level, runs `x.asnumpy()` in Python (JIT Fallback); STRICT refuses it
    assert PeekNet()(Tensor(np.ones(2, np.float32))).asnumpy().tolist() == [2.0, 2.0]
    ms.set_context(jit_syntax_level=ms.STRICT)
    try:
        with pytest.raises(RuntimeError, match="asnumpy"):
            PeekNet()(Tensor(np.ones(2, np.float32)))
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)
