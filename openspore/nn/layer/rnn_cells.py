"""Recurrent cells (one time step): RNNCell, LSTMCell, GRUCell, and the step functions the multi-layer
RNN/LSTM/GRU layers share.

Gate layout is PyTorch's, which MindSpore's parameters also use: LSTM rows (i, f, g, o), GRU rows (r, z, n).
Weights and biases start uniform in [-1/sqrt(hidden), 1/sqrt(hidden)].

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> cell = nn.LSTMCell(3, 4)
>>> h, c = cell(ms.Tensor(np.ones((2, 3), np.float32)))
>>> h.shape, c.shape
((2, 4), (2, 4))
"""
import math

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import Uniform
from ..cell import Cell
from ._common import check_bool, check_dtype, compute_cast, make_param, positive_int

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}

_matmul_t = ops.MatMul(transpose_b=True)
_split3 = ops.Split(axis=1, output_num=3)
_split4 = ops.Split(axis=1, output_num=4)


def project(x, weight, bias):
    """x @ weight.T (+ bias) for a 2-D x."""
    out = _matmul_t(x, weight)
    return ops.bias_add(out, bias) if bias is not None else out


def rnn_step(mode, xw, h, c, w_hh, b_hh):
    """One step given the input projection `xw` (x @ w_ih.T + b_ih); returns (h, c) (c is None except LSTM)."""
    hw = project(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = _split4(ops.add(xw, hw))
        c = ops.add(ops.mul(ops.sigmoid(f), c), ops.mul(ops.sigmoid(i), ops.tanh(g)))
        return ops.mul(ops.sigmoid(o), ops.tanh(c)), c
    if mode == "GRU":
        xr, xz, xn = _split3(xw)
        hr, hz, hn = _split3(hw)
        r = ops.sigmoid(ops.add(xr, hr))
        z = ops.sigmoid(ops.add(xz, hz))
        n = ops.tanh(ops.add(xn, ops.mul(r, hn)))
        # (1 - z) * n + z * h  ==  n + z * (h - n)
        return ops.add(n, ops.mul(z, ops.sub(h, n))), None
    pre = ops.add(xw, hw)
    return (ops.tanh(pre) if mode == "RNN_TANH" else ops.relu(pre)), None


def rnn_mode(name, nonlinearity):
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"For '{name}', the 'nonlinearity' must be 'tanh' or 'relu', but got {nonlinearity!r}.")
    return "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"


class _RNNCellBase(Cell):
    mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, has_bias, dtype, mode=None):
        super().__init__()
        if mode is not None:
            self.mode = mode
        name = type(self).__name__
        self.input_size = positive_int(name, "input_size", input_size)
        self.hidden_size = positive_int(name, "hidden_size", hidden_size)
        self.has_bias = check_bool(name, "has_bias", has_bias)
        dtype = check_dtype(name, dtype)
        gate = GATES[self.mode] * self.hidden_size
        init = Uniform(1.0 / math.sqrt(self.hidden_size))
        self.weight_ih = make_param(init, (gate, self.input_size), dtype, "weight_ih")
        self.weight_hh = make_param(init, (gate, self.hidden_size), dtype, "weight_hh")
        if self.has_bias:
            self.bias_ih = make_param(init, (gate,), dtype, "bias_ih")
            self.bias_hh = make_param(init, (gate,), dtype, "bias_hh")
        else:
            self.bias_ih = self.bias_hh = None

    def _inputs(self, x, hx):
        """Batch a 1-D input; zero initial state when hx is None. Returns (x, hx, was_unbatched)."""
        if len(x.shape) not in (1, 2) or x.shape[-1] != self.input_size:
            raise ValueError(f"For '{type(self).__name__}', the input must be (batch, {self.input_size}) or "
                             f"({self.input_size},), but got shape {list(x.shape)}.")
        unbatched = len(x.shape) == 1
        if unbatched:
            x = ops.expand_dims(x, 0)
            if hx is not None:
                hx = tuple(ops.expand_dims(h, 0) for h in hx) if isinstance(hx, tuple) else ops.expand_dims(hx, 0)
        if hx is None:
            zeros = ops.zeros((x.shape[0], self.hidden_size), x.dtype)
            hx = (zeros, zeros) if self.mode == "LSTM" else zeros
        return x, hx, unbatched

    def _step(self, x, h, c):
        w_ih, w_hh, b_ih, b_hh = self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh
        if self._mixed_dtype is not None:
            w_ih, w_hh = compute_cast(self, w_ih), compute_cast(self, w_hh)
            if self.has_bias:
                b_ih, b_hh = compute_cast(self, b_ih), compute_cast(self, b_hh)
        return rnn_step(self.mode, project(x, w_ih, b_ih), h, c, w_hh, b_hh)

    def extend_repr(self):
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_RNNCellBase):
    """`RNNCell(input_size, hidden_size, has_bias=True, nonlinearity='tanh', dtype=mstype.float32)`:
    h' = nonlinearity(x W_ih^T + b_ih + h W_hh^T + b_hh). `construct(x, hx=None)` → h'."""

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh", dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, dtype, rnn_mode("RNNCell", nonlinearity))
        self.nonlinearity = nonlinearity

    def construct(self, x, hx=None):
        x, hx, unbatched = self._inputs(x, hx)
        h, _ = self._step(x, hx, None)
        return ops.squeeze(h, 0) if unbatched else h


class GRUCell(_RNNCellBase):
    """`GRUCell(input_size, hidden_size, has_bias=True, dtype=mstype.float32)`: one GRU step (gates r, z, n).
    `construct(x, hx=None)` → h'."""
    mode = "GRU"

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        x, hx, unbatched = self._inputs(x, hx)
        h, _ = self._step(x, hx, None)
        return ops.squeeze(h, 0) if unbatched else h


class LSTMCell(_RNNCellBase):
    """`LSTMCell(input_size, hidden_size, has_bias=True, dtype=mstype.float32)`: one LSTM step (gates i, f, g, o).
    `construct(x, hx=None)` with hx = (h, c) → (h', c')."""
    mode = "LSTM"

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError("For 'LSTMCell', the 'hx' must be a tuple (h, c), but got "
                            f"{type(hx).__name__}.")
        x, hx, unbatched = self._inputs(x, tuple(hx) if hx is not None else None)
        h, c = self._step(x, hx[0], hx[1])
        if unbatched:
            return ops.squeeze(h, 0), ops.squeeze(c, 0)
        return h, c


__all__ = ["RNNCell", "GRUCell", "LSTMCell"]
