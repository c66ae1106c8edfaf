"""Basic layers: Dense, Flatten, Identity, Dropout (1-D/2-D), Pad, Unfold (ZeroPad2d is with the padding layers in `extra`).

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> net = nn.Dense(4, 3)
>>> net
Dense(input_channels=4, output_channels=3, has_bias=True)
>>> net(ms.Tensor(np.ones((2, 4), np.float32))).shape
(2, 3)
"""
import math

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform
from ...core.primitive import Primitive
from ..cell import Cell
from ._common import check_bool, check_dtype, check_number, compute_cast, is_int, make_param, positive_int
from .activation import get_activation


class Dense(Cell):
    """`Dense(in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True, activation=None,
    dtype=mstype.float32)`: y = activation(x @ weight.T + bias).

    `weight` is (out_channels, in_channels); defaults: HeUniform(sqrt(5)) weight, Uniform(1/sqrt(in)) bias.
    Inputs of rank > 2 are flattened to 2-D around the MatMul and restored after.
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True, activation=None,
                 dtype=mstype.float32):
        super().__init__()
        self.in_channels = positive_int("Dense", "in_channels", in_channels)
        self.out_channels = positive_int("Dense", "out_channels", out_channels)
        self.has_bias = check_bool("Dense", "has_bias", has_bias)
        dtype = check_dtype("Dense", dtype)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = make_param(weight_init, (self.out_channels, self.in_channels), dtype, "weight")
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                bias_init = Uniform(1.0 / math.sqrt(self.in_channels))
            self.bias = make_param(bias_init, (self.out_channels,), dtype, "bias")
            self.bias_add = ops.BiasAdd()
        self.matmul = ops.MatMul(transpose_b=True)
        self.dense = ops.Dense()
        if isinstance(activation, str):
            activation = get_activation(activation, "Dense")
        if activation is not None and not isinstance(activation, (Cell, Primitive)):
            raise TypeError(f"For 'Dense', the 'activation' must be str or Cell or Primitive, but got "
                            f"{type(activation).__name__}.")
        self.activation = activation
        self.activation_flag = activation is not None

    def construct(self, x):
        weight = self.weight
        if self._mixed_dtype is not None:
            weight = compute_cast(self, weight)
        bias = None
        if self.has_bias:
            bias = self.bias if self._mixed_dtype is None else compute_cast(self, self.bias)
        if x.dtype is weight.dtype and x.shape[-1:] == (self.in_channels,):
            # one fused primitive (input @ weight.T + bias at any rank) in PyNative and in captured graphs alike;
            # MindIR export writes it as MindSpore's MatMul + BiasAdd (Dense.export_decomposition)
            x = self.dense(x, weight, bias)
            return self.activation(x) if self.activation_flag else x
        # input whose dtype or width does not match the weight: MindSpore's own structure, whose ops raise
        # MindSpore's errors for it (they name MatMul) — the same in PyNative and in captured graphs
        shape = x.shape
        if len(shape) != 2:
            x = ops.reshape(x, (-1, shape[-1]))
        x = self.matmul(x, weight)
        if self.has_bias:
            x = self.bias_add(x, bias)
        if self.activation_flag:
            x = self.activation(x)
        if len(shape) != 2:
            x = ops.reshape(x, tuple(shape[:-1]) + (self.out_channels,))
        return x

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


class Identity(Cell):
    """`Identity()`: returns its input."""

    def construct(self, x):
        return x


class Flatten(Cell):
    """`Flatten(start_dim=1, end_dim=-1)`: merge the dimensions start_dim..end_dim into one."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        if not is_int(start_dim) or not is_int(end_dim):
            raise TypeError(f"For 'Flatten', the 'start_dim' and 'end_dim' must be ints, but got {start_dim!r} and "
                            f"{end_dim!r}.")
        self.start_dim, self.end_dim = int(start_dim), int(end_dim)
        self.flatten = ops.Flatten()

    def construct(self, x):
        shape = x.shape
        ndim = len(shape)
        if self.start_dim == 1 and self.end_dim == -1 and ndim >= 2:
            return self.flatten(x)
        if ndim == 0:
            return ops.reshape(x, (1,))
        start = self.start_dim + ndim if self.start_dim < 0 else self.start_dim
        end = self.end_dim + ndim if self.end_dim < 0 else self.end_dim
        if not (0 <= start < ndim and 0 <= end < ndim):
            raise ValueError(f"For 'Flatten', the 'start_dim' {self.start_dim} and 'end_dim' {self.end_dim} must be "
                             f"in range [{-ndim}, {ndim - 1}] for an input of rank {ndim}.")
        if start > end:
            raise ValueError(f"For 'Flatten', the 'start_dim' must not come after 'end_dim', but got "
                             f"start_dim={self.start_dim} and end_dim={self.end_dim}.")
        merged = 1
        for s in shape[start:end + 1]:
            merged *= s
        return ops.reshape(x, tuple(shape[:start]) + (merged,) + tuple(shape[end + 1:]))

    def extend_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _DropoutBase(Cell):
    """Shared argument handling: `p` (drop rate) is preferred, `keep_prob` is the deprecated form."""

    def __init__(self, keep_prob, p, name, p_may_be_one=False):
        super().__init__()
        if p is None:
            self.keep_prob = check_number(name, "keep_prob", keep_prob, 0.0, 1.0, low_open=True)
            self.p = 1.0 - self.keep_prob
            self._show_keep_prob = keep_prob != 0.5
        else:
            # the channel dropouts accept p=1 (every channel dropped); Dropout itself keeps p < 1
            self.p = check_number(name, "p", p, 0.0, 1.0, high_open=not p_may_be_one)
            self.keep_prob = 1.0 - self.p
            self._show_keep_prob = False

    def extend_repr(self):
        return f"keep_prob={self.keep_prob}" if self._show_keep_prob else f"p={self.p}"


class Dropout(_DropoutBase):
    """`Dropout(keep_prob=0.5, p=None, dtype=mstype.float32)`: while training, zero each element with probability
    p and scale the rest by 1/(1-p); the identity in eval mode (the default for a fresh cell)."""

    def __init__(self, keep_prob=0.5, p=None, dtype=mstype.float32):
        super().__init__(keep_prob, p, "Dropout")
        self.dtype = check_dtype("Dropout", dtype)
        self.dropout = ops.Dropout(keep_prob=self.keep_prob)

    def construct(self, x):
        if not self.training or self.keep_prob == 1.0:
            return x
        return self.dropout(x)[0]


class Dropout2d(_DropoutBase):
    """`Dropout2d(p=0.5)`: while training, zero whole channels of an (N, C, H, W) input with probability p."""

    def __init__(self, p=0.5):
        super().__init__(0.5, p, "Dropout2d", p_may_be_one=True)
        self.dropout = ops.Dropout2D(keep_prob=max(self.keep_prob, 1e-7))

    def construct(self, x):
        if not self.training or self.keep_prob == 1.0:
            return x
        if self.keep_prob == 0.0:
            return ops.zeros_like(x)
        return self.dropout(x)[0]


class Dropout1d(_DropoutBase):
    """`Dropout1d(p=0.5)`: while training, zero whole channels of an (N, C, L) or (C, L) input with probability p."""

    def __init__(self, p=0.5):
        super().__init__(0.5, p, "Dropout1d", p_may_be_one=True)
        self.dropout = ops.Dropout2D(keep_prob=max(self.keep_prob, 1e-7))

    def construct(self, x):
        if not self.training or self.keep_prob == 1.0:
            return x
        if self.keep_prob == 0.0:
            return ops.zeros_like(x)
        shape = x.shape
        batched = shape if len(shape) == 3 else (1,) + tuple(shape)
        out = self.dropout(ops.reshape(x, tuple(batched) + (1,)))[0]
        return ops.reshape(out, shape)


class Pad(Cell):
    """`Pad(paddings, mode='CONSTANT')`: pad each dimension i by paddings[i] = (before, after); modes 'CONSTANT'
    (zeros), 'REFLECT' (mirror without the edge) and 'SYMMETRIC' (mirror with the edge)."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        modes = ["CONSTANT", "REFLECT", "SYMMETRIC"]
        if not isinstance(mode, str) or mode not in modes:  # case-sensitive, as MindSpore's check
            raise ValueError(f"For 'Pad', the 'mode' must be str and must be in '{modes}', but got {mode!r}.")
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' must be tuple, but got {type(paddings).__name__}.")
        for pair in paddings:
            if len(pair) != 2:
                raise ValueError(f"For 'Pad', the dimension of 'paddings' must be (n, 2), but got {paddings}.")
            if not all(is_int(v) for v in pair):
                raise TypeError(f"For 'Pad', the elements of 'paddings' must be ints, but got {paddings}.")
        self.paddings = tuple(tuple(int(v) for v in p) for p in paddings)
        self.mode = mode

    def construct(self, x):
        if len(self.paddings) != len(x.shape):
            raise ValueError(f"For 'Pad', the length of 'paddings' must be equal to the rank of 'input_x', but got "
                             f"{len(self.paddings)} vs {len(x.shape)}")
        for i, (before, after) in enumerate(self.paddings):
            if before < 0 or after < 0:
                raise ValueError(f"For 'Pad', all elements of 'paddings' must be >= 0, but got paddings[{i}][0] = "
                                 f"{before}, paddings[{i}][1] = {after}")
        if self.mode == "SYMMETRIC":
            return _symmetric_pad(x, self.paddings)
        flat = []
        for before, after in reversed(self.paddings):
            flat += [before, after]
        return ops.pad(x, tuple(flat), "constant" if self.mode == "CONSTANT" else "reflect")

    def extend_repr(self):
        return f"paddings={self.paddings}, mode={self.mode}"


def _symmetric_pad(x, paddings):
    """Mirror padding that repeats the edge element: built from slices, flips and one concat per padded axis."""
    for axis, (before, after) in enumerate(paddings):
        if not before and not after:
            continue
        size = x.shape[axis]
        if before > size or after > size:
            raise ValueError(f"For 'Pad', in 'SYMMETRIC' mode each padding must be at most the dimension size "
                             f"{size}, but got ({before}, {after}) for dimension {axis}.")
        parts = []
        if before:
            parts.append(ops.flip(ops.narrow(x, axis, 0, before), (axis,)))
        parts.append(x)
        if after:
            parts.append(ops.flip(ops.narrow(x, axis, size - after, after), (axis,)))
        x = ops.concat(tuple(parts), axis)
    return x


class Unfold(Cell):
    """`Unfold(ksizes, strides, rates, padding='valid')`: extract patches of an (N, C, H, W) input into
    (N, kh*kw*C, out_h, out_w), depth ordered (row, column, channel); ksizes/strides/rates are [1, h, w, 1]."""

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()
        self.ksizes = self._window("ksizes", ksizes)
        self.strides = self._window("strides", strides)
        self.rates = self._window("rates", rates)
        if not isinstance(padding, str) or padding.lower() not in ("same", "valid"):
            raise ValueError(f"For 'Unfold', the 'padding' must be 'same' or 'valid', but got {padding!r}.")
        self.padding = padding.lower()

    @staticmethod
    def _window(name, value):
        if (not isinstance(value, (tuple, list)) or len(value) != 4 or value[0] != 1 or value[3] != 1
                or not all(is_int(v) and v > 0 for v in value)):
            raise ValueError(f"For 'Unfold', the '{name}' must be a tuple [1, h, w, 1] of positive ints, "
                             f"but got {value!r}.")
        return (int(value[1]), int(value[2]))

    def construct(self, x):
        n, c, h, w = x.shape
        (kh, kw), (sh, sw), (dh, dw) = self.ksizes, self.strides, self.rates
        out_hw, pads = [], []
        for size, k, s, d in ((h, kh, sh, dh), (w, kw, sw, dw)):
            span = d * (k - 1) + 1
            if self.padding == "same":
                out = -(-size // s)
                need = max(0, (out - 1) * s + span - size)
                pads.append((need // 2, need - need // 2))
            else:
                out = (size - span) // s + 1
                pads.append((0, 0))
            out_hw.append(out)
        if min(out_hw) <= 0:
            raise ValueError(f"For 'Unfold', the patch (size {self.ksizes}, rate {self.rates}) is larger than the "
                             f"input of spatial shape {(h, w)}.")
        if any(p for pair in pads for p in pair):
            x = ops.pad(x, (pads[1][0], pads[1][1], pads[0][0], pads[0][1]), "constant")
        cols = ops.Im2Col(kernel_size=(kh, kw), dilation=(dh, dw), stride=(sh, sw))(x)
        cols = ops.reshape(cols, (n, c, kh * kw, out_hw[0] * out_hw[1]))
        cols = ops.transpose(cols, (0, 2, 1, 3))
        return ops.reshape(cols, (n, kh * kw * c, out_hw[0], out_hw[1]))


__all__ = ["Dense", "Identity", "Flatten", "Dropout", "Dropout1d", "Dropout2d", "Pad", "Unfold"]
