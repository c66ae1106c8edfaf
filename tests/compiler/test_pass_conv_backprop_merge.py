"""conv_backprop_merge as IR text before → after (pass_check.py), on a real training step, and its kernel."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.compiler.passes.conv_backprop_merge import conv_backprop_merge
from openspore.core.primitive import PRIMITIVES

from .pass_check import check

ATTRS = "out_channel=16, kernel_size=(3, 3), pad_mode='pad', pad=(1, 1, 1, 1)"
BEFORE = f"""
    graph @main(%0 dy: f32[2,16,8,8], %1 x: f32[2,16,8,8], %2 w: f32[16,16,3,3]) {{
      %3 = const (2, 16, 8, 8) : py
      %4 = Conv2DBackpropInput[{ATTRS}](%0, %2, %3) : f32[2,16,8,8]
      %5 = ReLU(%4) : f32[2,16,8,8]
      %6 = const (16, 16, 3, 3) : py
      %7 = Conv2DBackpropFilter[{ATTRS}](%0, %1, %6) : f32[16,16,3,3]
      %8 = make_tuple(%5, %7) : (f32[2,16,8,8], f32[16,16,3,3])
      return %8
    }}"""
AFTER = f"""
    graph @main(%0 dy: f32[2,16,8,8], %1 x: f32[2,16,8,8], %2 w: f32[16,16,3,3]) {{
      %3 = const (2, 16, 8, 8) : py
      %4 = Conv2DBackpropInputFilter[{ATTRS}](%0, %1, %2) : (f32[2,16,8,8], f32[16,16,3,3])
      %5 = tuple_get_item[0](%4) : f32[2,16,8,8]
      %6 = tuple_get_item[1](%4) : f32[16,16,3,3]
      %7 = ReLU(%5) : f32[2,16,8,8]
      %8 = const (16, 16, 3, 3) : py
      %9 = make_tuple(%7, %6) : (f32[2,16,8,8], f32[16,16,3,3])
      return %9
    }}"""  # the size constants stay for dce to drop


def test_merges_the_two_halves_of_one_convolution():
    check(conv_backprop_merge, BEFORE, AFTER)


def test_filter_half_first_and_weight_defined_late():
    # the filter half comes first: merged there, it needs the weight, defined before it here
    swapped = f"""
        graph @main(%0 dy: f32[2,16,8,8], %1 x: f32[2,16,8,8], %2 w: f32[16,16,3,3]) {{
          %3 = const (16, 16, 3, 3) : py
          %4 = Conv2DBackpropFilter[{ATTRS}](%0, %1, %3) : f32[16,16,3,3]
          %5 = const (2, 16, 8, 8) : py
          %6 = Conv2DBackpropInput[{ATTRS}](%0, %2, %5) : f32[2,16,8,8]
          %7 = make_tuple(%6, %4) : (f32[2,16,8,8], f32[16,16,3,3])
          return %7
        }}"""
    out = check(conv_backprop_merge, swapped, f"""
        graph @main(%0 dy: f32[2,16,8,8], %1 x: f32[2,16,8,8], %2 w: f32[16,16,3,3]) {{
          %3 = const (16, 16, 3, 3) : py
          %4 = Conv2DBackpropInputFilter[{ATTRS}](%0, %1, %2) : (f32[2,16,8,8], f32[16,16,3,3])
          %5 = tuple_get_item[0](%4) : f32[2,16,8,8]
          %6 = tuple_get_item[1](%4) : f32[16,16,3,3]
          %7 = const (2, 16, 8, 8) : py
          %8 = make_tuple(%5, %6) : (f32[2,16,8,8], f32[16,16,3,3])
          return %8
        }}""")
    assert [n.op_name for n in out.nodes].count("Conv2DBackpropInputFilter") == 1
    # a weight computed after the first half cannot be read there: nothing merges
    late = f"""
        graph @main(%0 dy: f32[2,16,8,8], %1 x: f32[2,16,8,8], %2 v: f32[16,16,3,3]) {{
          %3 = const (16, 16, 3, 3) : py
          %4 = Conv2DBackpropFilter[{ATTRS}](%0, %1, %3) : f32[16,16,3,3]
          %5 = Neg(%2) : f32[16,16,3,3]
          %6 = const (2, 16, 8, 8) : py
          %7 = Conv2DBackpropInput[{ATTRS}](%0, %5, %6) : f32[2,16,8,8]
          %8 = make_tuple(%7, %4) : (f32[2,16,8,8], f32[16,16,3,3])
          return %8
        }}"""
    check(conv_backprop_merge, late, late)


def test_leaves_halves_of_different_convolutions():
    # another output gradient, or other attributes: not one convolution's backward
    text = f"""
        graph @main(%0 dy: f32[2,16,8,8], %1 x: f32[2,16,8,8], %2 w: f32[16,16,3,3], %3 dz: f32[2,16,8,8]) {{
          %4 = const (2, 16, 8, 8) : py
          %5 = Conv2DBackpropInput[{ATTRS}](%0, %2, %4) : f32[2,16,8,8]
          %6 = const (16, 16, 3, 3) : py
          %7 = Conv2DBackpropFilter[{ATTRS}](%3, %1, %6) : f32[16,16,3,3]
          %8 = Conv2DBackpropFilter[out_channel=16, kernel_size=(3, 3), pad_mode='same'](%0, %1, %6) : f32[16,16,3,3]
          %9 = make_tuple(%5, %7, %8) : (f32[2,16,8,8], f32[16,16,3,3], f32[16,16,3,3])
          return %9
        }}"""
    check(conv_backprop_merge, text, text)


@pytest.mark.parametrize("shape,attrs", [
    ((4, 16, 16, 16), {"out_channel": 32, "kernel_size": 3, "pad_mode": "pad", "pad": 1, "stride": 2}),
    ((4, 16, 16, 16), {"out_channel": 32, "kernel_size": 1, "stride": 2}),
    ((2, 8, 5, 5), {"out_channel": 8, "kernel_size": 3, "pad_mode": "same", "stride": 2}),  # stays NCHW
])
def test_kernel_equals_the_two_halves_bit_for_bit(shape, attrs):
    import torch
    rng = np.random.default_rng(0)
    conv = PRIMITIVES["Conv2D"](**attrs)
    x = torch.from_numpy(rng.standard_normal(shape, np.float32))
    w = torch.from_numpy(rng.standard_normal((attrs["out_channel"], shape[1]) + (attrs["kernel_size"],) * 2,
                                             np.float32))
    dy = torch.from_numpy(rng.standard_normal(tuple(conv.torch(torch, x, w).shape), np.float32))
    full = {**attrs}
    both = PRIMITIVES["Conv2DBackpropInputFilter"](**full).torch(torch, dy, x, w)
    dx = PRIMITIVES["Conv2DBackpropInput"](**full).torch(torch, dy, w, tuple(x.shape))
    dw = PRIMITIVES["Conv2DBackpropFilter"](**full).torch(torch, dy, x, tuple(w.shape))
    assert torch.equal(both[0], dx) and torch.equal(both[1], dw)
    assert both[0].stride() == dx.stride() and both[1].stride() == dw.stride()


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1)
        self.conv2 = nn.Conv2d(16, 16, 3, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.fc = nn.Dense(16, 4)

    def construct(self, x):
        x = ms.ops.relu(self.bn(self.conv2(ms.ops.relu(self.conv1(x)))))
        return self.fc(x.mean(axis=(2, 3)))


def test_training_step_graph_is_merged_and_agrees_with_pynative():
    rng = np.random.default_rng(0)
    x, y = ms.Tensor(rng.standard_normal((4, 3, 16, 16), np.float32)), ms.Tensor(np.array([0, 1, 2, 3], np.int32))
    losses, steps = {}, {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(0)
            net = _Net()
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
            step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
            losses[mode] = [float(step(x, y).asnumpy()) for _ in range(3)]
            steps[mode] = step
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(losses[ms.GRAPH_MODE], losses[ms.PYNATIVE_MODE], rtol=1e-5)
    from openspore.runtime.jit import cell_cache
    # this step's own graphs only: other tests' cells may still be alive in the same worker
    compiled = list(cell_cache(steps[ms.GRAPH_MODE]).entries.values())
    names = [n.op_name for e in compiled for g in _graphs(e) for n in g.nodes]
    assert names.count("Conv2DBackpropInputFilter") == 1  # conv2's two halves (conv1 needs no input gradient)
    assert "Conv2DBackpropInput" not in names


def _graphs(entry):
    for value in vars(entry).values() if hasattr(entry, "__dict__") else ():
        if hasattr(value, "graph") and hasattr(value, "source"):
            yield value.graph
    for name in getattr(type(entry), "__slots__", ()):
        value = getattr(entry, name, None)
        if hasattr(value, "graph") and hasattr(value, "source"):
            yield value.graph
