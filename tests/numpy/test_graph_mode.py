"""The new mindspore.numpy functions that compose openspore ops also run inside a Cell's construct in
GRAPH_MODE, giving the PyNative results."""
import numpy as np
import pytest

import openspore as ms
import openspore.numpy as mnp
from openspore import nn

T = ms.Tensor
X = np.array([[1.0, np.nan, 2.5, -4.0], [3.0, 4.0, -1.0, 0.5]], np.float32)
I = np.array([[12, 7, -8, 3], [10, 3, 6, 9]], np.int32)

CASES = {
    "bitwise_xor": (lambda x, i: mnp.bitwise_xor(i, i[::-1])),
    "lcm": (lambda x, i: mnp.lcm(i, 4)),
    "cbrt": (lambda x, i: mnp.cbrt(x)),
    "nanvar": (lambda x, i: mnp.nanvar(x, axis=1)),
    "nanmax": (lambda x, i: mnp.nanmax(x, axis=0)),
    "nancumsum": (lambda x, i: mnp.nancumsum(x, axis=1)),
    "gradient": (lambda x, i: mnp.gradient(i, 2.0, axis=1)),
    "unwrap": (lambda x, i: mnp.unwrap(x[1] * 2.0)),
    "interp": (lambda x, i: mnp.interp(i * 0.5, mnp.array([0.0, 2.0, 5.0]), mnp.array([1.0, -1.0, 3.0]))),
    "convolve": (lambda x, i: mnp.convolve(i[0], i[1], mode="same")),
    "polyval": (lambda x, i: mnp.polyval(mnp.array([1.0, -2.0, 0.5]), i)),
    "choose": (lambda x, i: mnp.choose(mnp.array([[0, 1, 1, 0]]), [i[0], i[1]])),
    "ravel_multi_index": (lambda x, i: mnp.ravel_multi_index((i[0] % 3, i[1] % 4), (3, 4))),
    "unravel_index": (lambda x, i: mnp.unravel_index(mnp.abs(i[0]), (3, 5))[1]),
    "histogram": (lambda x, i: mnp.histogram(i, bins=3)[0]),
    "piecewise": (lambda x, i: mnp.piecewise(i, [i < 0, i > 8], [lambda v: -v, 0, lambda v: v * 2])),
}


class _Apply(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x, i):
        return self.fn(x, i)


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_mode_matches_pynative(name):
    fn = CASES[name]
    eager = fn(T(X), T(I))
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = _Apply(fn)(T(X), T(I))
    assert graph.dtype == eager.dtype
    np.testing.assert_allclose(graph.asnumpy(), eager.asnumpy(), rtol=1e-6, atol=1e-6)
