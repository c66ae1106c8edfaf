"""MindSpore's fused recurrent Primitive classes as composites of matmuls and gates (so they differentiate and
compile): BasicLSTMCell (one step), DynamicRNN (an LSTM over time, TensorFlow's i, j, f, o gate order) and
DynamicGRUV2 (a GRU over time with the reset gate applied after the hidden matmul).

>>> import numpy as np, openspore as ms
>>> x, h, c = (ms.Tensor(np.zeros((1, 2), np.float32)) for _ in range(3))
>>> w, b = ms.Tensor(np.zeros((4, 8), np.float32)), ms.Tensor(np.zeros(8, np.float32))
>>> ms.ops.BasicLSTMCell()(x, h, c, w, b)[0].asnumpy().tolist()
[[0.0, 0.0]]
"""
from . import function as F
from .composite_primitives import _primitive

__all__ = ["BasicLSTMCell", "DynamicRNN", "DynamicGRUV2"]


def _lstm_step(x, h, c, w, b, forget_bias, activation=F.tanh):
    gates = F.matmul(F.concat((x, h), 1), w)
    if b is not None:
        gates = gates + b
    i, j, f, o = F.split(gates, gates.shape[1] // 4, 1)
    it, jt, ft, ot = F.sigmoid(i), activation(j), F.sigmoid(f + forget_bias), F.sigmoid(o)
    ct = ft * c + it * jt
    tanhct = activation(ct)
    return ct, ot * tanhct, it, jt, ft, ot, tanhct


def _basic_lstm_cell(self, x, h, c, w, b):
    if self.activation != "tanh":
        raise ValueError(f"For 'BasicLSTMCell', only activation 'tanh' is supported, but got {self.activation!r}.")
    ct, ht, it, jt, ft, ot, tanhct = _lstm_step(x, h, c, w, b, self.forget_bias)
    if self.keep_prob < 1.0:
        ht = F.dropout(ht, p=1.0 - self.keep_prob)
    return ct, ht, it, jt, ft, ot, tanhct


BasicLSTMCell = _primitive(
    "BasicLSTMCell", _basic_lstm_cell,
    attrs=[("keep_prob", 1.0), ("forget_bias", 1.0), ("state_is_tuple", True), ("activation", "tanh")],
    doc="BasicLSTMCell(keep_prob=1.0, forget_bias=1.0, state_is_tuple=True, activation='tanh')(x, h, c, w "
        "(I+H, 4H), b): one LSTM step, gates i, j, f, o → (ct, ht, it, jt, ft, ot, tanhct).")


def _check_rnn(op, self):
    if self.direction != "UNIDIRECTIONAL" or self.cell_depth != 1 or self.num_proj or not self.time_major:
        raise ValueError(f"For '{op}', openspore runs the unidirectional, one-layer, time-major form without "
                         f"projection (direction='UNIDIRECTIONAL', cell_depth=1, num_proj=0, time_major=True).")
    if self.activation != "tanh":
        raise ValueError(f"For '{op}', only activation 'tanh' is supported, but got {self.activation!r}.")


def _stack(steps):
    return tuple(F.stack(list(s), 0) for s in zip(*steps))


def _dynamic_rnn(self, x, w, b, seq_length=None, init_h=None, init_c=None):
    _check_rnn("DynamicRNN", self)
    if seq_length is not None:
        raise ValueError("For 'DynamicRNN', 'seq_length' is not supported in openspore; pass None.")
    hidden = w.shape[1] // 4
    h = F.zeros((x.shape[1], hidden), x.dtype) if init_h is None else F.reshape(init_h, (x.shape[1], hidden))
    c = F.zeros((x.shape[1], hidden), x.dtype) if init_c is None else F.reshape(init_c, (x.shape[1], hidden))
    steps = []
    for t in range(x.shape[0]):
        c, h, i, j, f, o, tanhc = _lstm_step(x[t], h, c, w, b, self.forget_bias)
        if self.cell_clip > 0:
            c = F.clamp(c, -self.cell_clip, self.cell_clip)
        steps.append((h, h, c, i, j, f, o, tanhc))
    return _stack(steps)


DynamicRNN = _primitive(
    "DynamicRNN", _dynamic_rnn,
    attrs=[("cell_type", "LSTM"), ("direction", "UNIDIRECTIONAL"), ("cell_depth", 1), ("use_peephole", False),
           ("keep_prob", 1.0), ("cell_clip", -1.0), ("num_proj", 0), ("time_major", True), ("activation", "tanh"),
           ("forget_bias", 0.0), ("is_training", True)],
    doc="DynamicRNN(...)(x (T, B, I), w (I+H, 4H), b, seq_length=None, init_h, init_c): an LSTM over time → (y, "
        "output_h, output_c, i, j, f, o, tanhc), each (T, B, H).")


def _dynamic_gru(self, x, weight_input, weight_hidden, bias_input=None, bias_hidden=None, seq_length=None,
                 init_h=None):
    _check_rnn("DynamicGRUV2", self)
    if seq_length is not None or not self.reset_after:
        raise ValueError("For 'DynamicGRUV2', openspore runs reset_after=True without 'seq_length'.")
    if self.gate_order not in ("rzh", "zrh"):
        raise ValueError(f"For 'DynamicGRUV2', 'gate_order' must be 'rzh' or 'zrh', but got {self.gate_order!r}.")
    hidden = weight_hidden.shape[0]
    h = F.zeros((x.shape[1], hidden), x.dtype) if init_h is None else init_h
    steps = []
    for t in range(x.shape[0]):
        gi = F.matmul(x[t], weight_input) + (bias_input if bias_input is not None else 0.0)
        gh = F.matmul(h, weight_hidden) + (bias_hidden if bias_hidden is not None else 0.0)
        first_i, second_i, new_i = F.split(gi, hidden, 1)
        first_h, second_h, new_h = F.split(gh, hidden, 1)
        if self.gate_order == "rzh":
            r, z = F.sigmoid(first_i + first_h), F.sigmoid(second_i + second_h)
        else:
            z, r = F.sigmoid(first_i + first_h), F.sigmoid(second_i + second_h)
        n = F.tanh(new_i + r * new_h)
        h = (1.0 - z) * n + z * h
        steps.append((h, h, z, r, n, new_h))
    return _stack(steps)


DynamicGRUV2 = _primitive(
    "DynamicGRUV2", _dynamic_gru,
    attrs=[("direction", "UNIDIRECTIONAL"), ("cell_depth", 1), ("keep_prob", 1.0), ("cell_clip", -1.0),
           ("num_proj", 0), ("time_major", True), ("activation", "tanh"), ("gate_order", "rzh"),
           ("reset_after", True), ("is_training", True)],
    doc="DynamicGRUV2(...)(x (T, B, I), weight_input (I, 3H), weight_hidden (H, 3H), bias_input, bias_hidden, "
        "seq_length=None, init_h): a GRU over time → (y, output_h, update, reset, new, hidden_new), each (T, B, H).")
