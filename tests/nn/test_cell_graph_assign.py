"""`self.param = value` in construct: a Python number is assigned (an Assign) in graph code, as MindSpore's
graph compiler does; outside a graph it stays a TypeError."""
import pytest

import openspore as ms
from openspore import nn


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(3.0, ms.float32), name="w")

    def construct(self, x):
        self.weight = x
        return x


def test_number_assigned_to_parameter_in_graph():
    net = _Net()
    net.construct = ms.jit(net.construct)
    assert net(2) == 2
    assert net.weight.asnumpy().tolist() == 2.0 and net.weight.dtype == ms.float32


def test_number_assigned_to_parameter_outside_graph_is_refused():
    with pytest.raises(TypeError, match="should be Parameter or None"):
        _Net().weight = 2
