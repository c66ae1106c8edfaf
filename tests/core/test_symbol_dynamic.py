"""Symbol, placeholder Tensors, Cell.set_inputs checks and enable_dynamic."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn


def _x(*shape, dtype=np.float32):
    return ms.Tensor(np.ones(shape, dtype))


def test_symbol_constraints():
    s = ms.Symbol(max=32, min=8, divisor=8, remainder=0)
    assert [n for n in range(1, 40) if s.matches(n)] == [8, 16, 24, 32]
    odd = ms.Symbol(divisor=2, remainder=1)
    assert odd.matches(7) and not odd.matches(8)
    for kwargs in ({"min": 0}, {"max": 4, "min": 5}, {"divisor": 2, "remainder": 2}, {"max": -1}):
        with pytest.raises(ValueError):
            ms.Symbol(**kwargs)
    with pytest.raises(TypeError):
        ms.Symbol(unique=1)


def test_placeholder_shapes_follow_mindspore():
    assert ms.Tensor(shape=(ms.Symbol(), 3), dtype=ms.float32).shape == (-1, 3)
    assert ms.Tensor(shape=[None, -1], dtype=ms.int32).shape == (-1, -1)
    assert ms.Tensor(shape=None, dtype=ms.float32).shape == (-2,)
    assert ms.Tensor(shape=(2, 3), dtype=ms.float32).shape == (2, 3)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_set_inputs_accepts_declared_sizes_and_rejects_others(mode):
    ms.set_context(mode=mode)
    try:
        net = nn.Dense(3, 2)
        net.set_inputs(ms.Tensor(shape=(ms.Symbol(max=8, divisor=2), 3), dtype=ms.float32))
        assert net(_x(4, 3)).shape == (4, 2) and net(_x(8, 3)).shape == (8, 2)
        with pytest.raises(ValueError, match="axis 0 of input 0 has size 5"):
            net(_x(5, 3))
        with pytest.raises(ValueError, match="must be 3"):
            net(_x(4, 2))
        with pytest.raises(ValueError, match="rank 2"):
            net(_x(4, 3, 1))
        with pytest.raises(TypeError, match="dtype Float32"):
            net(_x(4, 3, dtype=np.float64))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_unique_symbol_ties_axes_and_any_rank():
    class Add(nn.Cell):
        def construct(self, a, b):
            return a + b

    n = ms.Symbol(unique=True)
    net = Add()
    net.set_inputs(ms.Tensor(shape=(n, 2), dtype=ms.float32), ms.Tensor(shape=None, dtype=ms.float32))
    assert net(_x(3, 2), _x(3, 2)).shape == (3, 2)
    other = Add()
    other.set_inputs(ms.Tensor(shape=(n, n), dtype=ms.float32), ms.Tensor(shape=None, dtype=ms.float32))
    with pytest.raises(ValueError, match="unique Symbol"):
        other(_x(3, 4), _x(3, 4))
    with pytest.raises(ValueError, match="declared 2 inputs"):
        net(_x(3, 2))


def test_enable_dynamic_checks_named_arguments():
    @ms.enable_dynamic(x=ms.Tensor(shape=(None, 3), dtype=ms.float32),
                       ys=[ms.Tensor(shape=(ms.Symbol(max=4),), dtype=ms.float32)])
    @ms.jit
    def f(x, ys):
        return x.sum() + ys[0].sum()

    assert float(f(_x(5, 3), [_x(4)]).asnumpy()) == 19.0
    with pytest.raises(ValueError, match="must be 3"):
        f(_x(5, 2), [_x(4)])
    with pytest.raises(ValueError, match="does not allow"):
        f(_x(5, 3), [_x(6)])
    with pytest.raises(ValueError, match="not arguments"):
        ms.enable_dynamic(z=ms.Tensor(shape=None, dtype=ms.float32))(f)
