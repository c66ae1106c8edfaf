# ruff: noqa: E402, F811  (a tutorial page: imports where the page has them, cells that redefine names)
# MindSpore 2.x tutorial "Graph Mode - Dynamic Shape Configuration" (tutorials/compile/dynamic_shape), unchanged.
# The page prints nothing: one Net declared with Symbol axes by set_inputs must run on (2, 3) and (4, 5) inputs.
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor, Symbol

class Net(nn.Cell):
    def construct(self, x):
        return x + x

ms.context.set_context(mode=ms.context.GRAPH_MODE)
net = Net()
width = Symbol()
height = Symbol()
dyn_t = Tensor(shape=(width, height), dtype=ms.float32)
# Set Tensor shape dynamic
net.set_inputs(dyn_t)
# Execute with shape=(2 ,3)
input_x1 = Tensor(np.random.randn(2, 3), dtype=ms.float32)
out = net(input_x1)
# Execute with shape=(4, 5)
input_x2 = Tensor(np.random.randn(4, 5), dtype=ms.float32)
out = net(input_x2)
