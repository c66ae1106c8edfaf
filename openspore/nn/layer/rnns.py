"""Multi-layer recurrent layers: RNN, LSTM, GRU (facts §1.7).

Parameters `weight_ih_l{k}`, `weight_hh_l{k}`, `bias_ih_l{k}`, `bias_hh_l{k}` (suffix `_reverse` for the backward
direction), gate rows as PyTorch. The sequence runs as a Python loop over time steps of primitives, so it
differentiates through the ordinary autodiff; each layer projects all inputs with one MatMul before the loop.
`seq_length` (one length per batch element) freezes the state after each sequence's end and zeroes the outputs
there; the backward direction starts at each sequence's last valid step.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> lstm = nn.LSTM(3, 5, batch_first=True)
>>> out, (h, c) = lstm(ms.Tensor(np.ones((2, 4, 3), np.float32)))
>>> out.shape, h.shape, c.shape
((2, 4, 5), (1, 2, 5), (1, 2, 5))
"""
import math

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import Uniform
from ...core.tensor import Tensor
from ..cell import Cell
from ._common import check_bool, check_dtype, check_number, compute_cast, make_param, positive_int
from .basic import Dropout
from .rnn_cells import GATES, project, rnn_mode, rnn_step


class _RNNBase(Cell):
    def __init__(self, mode, input_size, hidden_size, num_layers, has_bias, batch_first, dropout, bidirectional,
                 dtype):
        super().__init__()
        name = type(self).__name__
        self.mode = mode
        self.input_size = positive_int(name, "input_size", input_size)
        self.hidden_size = positive_int(name, "hidden_size", hidden_size)
        self.num_layers = positive_int(name, "num_layers", num_layers)
        self.has_bias = check_bool(name, "has_bias", has_bias)
        self.batch_first = check_bool(name, "batch_first", batch_first)
        self.dropout = check_number(name, "dropout", dropout, 0.0, 1.0)
        self.bidirectional = check_bool(name, "bidirectional", bidirectional)
        dtype = check_dtype(name, dtype)
        self.num_directions = 2 if self.bidirectional else 1
        gate = GATES[mode] * self.hidden_size
        init = Uniform(1.0 / math.sqrt(self.hidden_size))
        self._names = []
        for layer in range(self.num_layers):
            in_size = self.input_size if layer == 0 else self.hidden_size * self.num_directions
            for suffix in ("", "_reverse")[:self.num_directions]:
                names = tuple(f"{kind}_l{layer}{suffix}" for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
                setattr(self, names[0], make_param(init, (gate, in_size), dtype, names[0]))
                setattr(self, names[1], make_param(init, (gate, self.hidden_size), dtype, names[1]))
                if self.has_bias:
                    setattr(self, names[2], make_param(init, (gate,), dtype, names[2]))
                    setattr(self, names[3], make_param(init, (gate,), dtype, names[3]))
                self._names.append(names)
        self.dropout_op = Dropout(p=self.dropout) if self.dropout > 0 else None

    # ---- inputs ----------------------------------------------------------------------------------------
    def _initial_state(self, hx, batch, dtype, unbatched):
        """hx → list over (layer, direction) of (h, c) pairs (c None except LSTM)."""
        count = self.num_layers * self.num_directions
        if hx is None:
            zeros = ops.zeros((batch, self.hidden_size), dtype)
            return [(zeros, zeros if self.mode == "LSTM" else None)] * count
        parts = tuple(hx) if self.mode == "LSTM" else (hx,)
        if self.mode == "LSTM" and len(parts) != 2:
            raise TypeError(f"For '{type(self).__name__}', the 'hx' must be a tuple (h_0, c_0), but got {hx!r}.")
        want = (count, batch, self.hidden_size) if not unbatched else (count, self.hidden_size)
        for part in parts:
            if tuple(part.shape) != want:
                raise ValueError(f"For '{type(self).__name__}', the initial state must have shape {want}, "
                                 f"but got {tuple(part.shape)}.")
        states = [ops.unstack(p if not unbatched else ops.expand_dims(p, 1), 0) for p in parts]
        if self.mode == "LSTM":
            return list(zip(states[0], states[1]))
        return [(h, None) for h in states[0]]

    def _step_masks(self, seq_length, steps, batch, dtype):
        if seq_length is None:
            return None
        if not isinstance(seq_length, Tensor) or tuple(seq_length.shape) != (batch,):
            raise ValueError(f"For '{type(self).__name__}', the 'seq_length' must be a Tensor of shape ({batch},), "
                             f"but got {getattr(seq_length, 'shape', seq_length)!r}.")
        times = ops.reshape(ops.arange(0, steps, dtype=seq_length.dtype), (steps, 1))
        valid = ops.less(times, ops.reshape(seq_length, (1, batch)))
        return ops.unstack(ops.reshape(valid, (steps, batch, 1)), 0)

    # ---- one direction of one layer ------------------------------------------------------------------
    def _direction(self, x, state, names, reverse, masks):
        steps, batch, features = x.shape
        p = self._params
        w_ih, w_hh = p[names[0]], p[names[1]]
        b_ih, b_hh = (p[names[2]], p[names[3]]) if self.has_bias else (None, None)
        if self._mixed_dtype is not None:
            w_ih, w_hh = compute_cast(self, w_ih), compute_cast(self, w_hh)
            if self.has_bias:
                b_ih, b_hh = compute_cast(self, b_ih), compute_cast(self, b_hh)
        if b_ih is not None and self.mode != "GRU":
            # both biases enter the gates as a sum (GRU scales its hidden bias by r): add them once, not per step
            b_ih, b_hh = ops.add(b_ih, b_hh), None
        xw = project(ops.reshape(x, (steps * batch, features)), w_ih, b_ih)
        xw = ops.unstack(ops.reshape(xw, (steps, batch, xw.shape[-1])), 0)
        h, c = state
        outputs = [None] * steps
        order = range(steps - 1, -1, -1) if reverse else range(steps)
        for t in order:
            h_new, c_new = rnn_step(self.mode, xw[t], h, c, w_hh, b_hh)
            if masks is None:
                h, c = h_new, c_new
                outputs[t] = h
            else:
                keep = masks[t]
                h = ops.where(keep, h_new, h)
                if c is not None:
                    c = ops.where(keep, c_new, c)
                outputs[t] = ops.mul(h_new, ops.cast(keep, h_new.dtype))
        return ops.stack(outputs, 0), h, c

    def _run(self, x, hx, seq_length):
        if len(x.shape) not in (2, 3):
            raise ValueError(f"For '{type(self).__name__}', the input must be 2-D or 3-D, but got shape "
                             f"{list(x.shape)}.")
        unbatched = len(x.shape) == 2
        if unbatched:
            x = ops.expand_dims(x, 1)
        elif self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        steps, batch, features = x.shape
        if features != self.input_size:
            raise ValueError(f"For '{type(self).__name__}', the last dimension of the input must be "
                             f"{self.input_size}, but got {features}.")
        states = self._initial_state(hx, batch, x.dtype, unbatched)
        masks = self._step_masks(seq_length, steps, batch, x.dtype)
        h_n, c_n = [], []
        index = 0
        for layer in range(self.num_layers):
            if layer and self.dropout_op is not None and self.training:
                x = self.dropout_op(x)
            outs = []
            for direction in range(self.num_directions):
                out, h, c = self._direction(x, states[index], self._names[index], direction == 1, masks)
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
                index += 1
            x = outs[0] if len(outs) == 1 else ops.concat(tuple(outs), 2)
        if unbatched:
            output = ops.squeeze(x, 1)
            h_n, c_n = [ops.squeeze(h, 0) for h in h_n], [ops.squeeze(c, 0) if c is not None else None for c in c_n]
        else:
            output = ops.transpose(x, (1, 0, 2)) if self.batch_first else x
        h_out = ops.stack(h_n, 0)
        if self.mode == "LSTM":
            return output, (h_out, ops.stack(c_n, 0))
        return output, h_out

    def construct(self, x, hx=None, seq_length=None):
        return self._run(x, hx, seq_length)

    def extend_repr(self):
        s = f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}"
        s += f", has_bias={self.has_bias}, batch_first={self.batch_first}"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(_RNNBase):
    """`RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=mstype.float32)`: Elman RNN.
    `construct(x, hx=None, seq_length=None)` → (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=mstype.float32):
        super().__init__(rnn_mode("RNN", nonlinearity), input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, dtype)
        self.nonlinearity = nonlinearity


class GRU(_RNNBase):
    """`GRU(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, dtype=mstype.float32)`. `construct(x, hx=None, seq_length=None)` → (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, dtype=mstype.float32):
        super().__init__("GRU", input_size, hidden_size, num_layers, has_bias, batch_first, dropout, bidirectional,
                         dtype)


class LSTM(_RNNBase):
    """`LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, dtype=mstype.float32)`.
    `construct(x, hx=None, seq_length=None)` with hx = (h_0, c_0) → (output, (h_n, c_n))."""

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, dtype=mstype.float32):
        super().__init__("LSTM", input_size, hidden_size, num_layers, has_bias, batch_first, dropout, bidirectional,
                         dtype)


__all__ = ["RNN", "GRU", "LSTM"]
