"""Layers built from existing ops: BiDense, TimeDistributed, Upsample, LPPool1d/2d, RReLU, SyncBatchNorm,
Conv2dBnAct, DenseBnAct, ParameterUpdate, EmbeddingLookup, MicroBatchInterleaved, GradAccumulationCell.

>>> import numpy as np, openspore as ms
>>> td = TimeDistributed(Dense(3, 2), time_axis=1)
>>> td(ms.Tensor(np.ones((4, 5, 3), np.float32))).shape
(4, 5, 2)
"""
import math

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import Uniform
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._common import make_param, positive_int
from .activation import get_activation
from .basic import Dense
from .conv import Conv2d
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = ["BiDense", "TimeDistributed", "Upsample", "LPPool1d", "LPPool2d", "RReLU", "SyncBatchNorm", "Conv2dBnAct",
           "DenseBnAct", "ParameterUpdate", "EmbeddingLookup", "MicroBatchInterleaved", "GradAccumulationCell"]


class BiDense(Cell):
    """`BiDense(in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
    dtype=mstype.float32)`: y[..., k] = x1 @ weight[k] @ x2 + bias[k]; weight (out, in1, in2). Default inits are
    Uniform(1/sqrt(in1_channels))."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=mstype.float32):
        super().__init__()
        self.in1_channels = positive_int("BiDense", "in1_channels", in1_channels)
        self.in2_channels = positive_int("BiDense", "in2_channels", in2_channels)
        self.out_channels = positive_int("BiDense", "out_channels", out_channels)
        bound = 1.0 / math.sqrt(self.in1_channels)
        self.weight = make_param(weight_init if weight_init is not None else Uniform(bound),
                                 (self.out_channels, self.in1_channels, self.in2_channels), dtype, "weight")
        self.has_bias = bool(has_bias)
        self.bias = make_param(bias_init if bias_init is not None else Uniform(bound), (self.out_channels,), dtype,
                               "bias") if self.has_bias else None

    def construct(self, input1, input2):
        if input1.shape[-1] != self.in1_channels or input2.shape[-1] != self.in2_channels:
            raise ValueError(f"For 'BiDense', the last dimensions of the inputs must be {self.in1_channels} and "
                             f"{self.in2_channels}, but got shapes {input1.shape} and {input2.shape}.")
        lead = input1.shape[:-1]
        x1 = ops.reshape(input1, (-1, self.in1_channels))
        x2 = ops.reshape(input2, (-1, self.in2_channels))
        # (B, in1) @ (in1, out*in2) → (B, out, in2), then contract in2 with x2
        w = ops.reshape(ops.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))
        y = ops.reshape(ops.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        y = ops.reduce_sum(y * ops.expand_dims(x2, 1), -1)
        if self.has_bias:
            y = y + self.bias
        return ops.reshape(y, tuple(lead) + (self.out_channels,))


class TimeDistributed(Cell):
    """`TimeDistributed(layer, time_axis, reshape_with_axis=None)`: apply `layer` to every time step of an input
    (N, T, ...) (time at `time_axis`): the time axis is folded into the batch (into `reshape_with_axis` when given,
    else axis 0), the layer runs once, and the output is unfolded with time back at `time_axis`."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        super().__init__()
        if not isinstance(layer, Cell) and not callable(layer):
            raise TypeError(f"For 'TimeDistributed', 'layer' must be a Cell, but got {type(layer).__name__}.")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs):
        ndim = inputs.ndim
        if ndim < 3:
            raise ValueError(f"For 'TimeDistributed', the input must have rank >= 3, but got shape {inputs.shape}.")
        t_axis = self.time_axis % ndim
        fold = 0 if self.reshape_with_axis is None else self.reshape_with_axis % ndim
        if fold == t_axis:
            raise ValueError(f"For 'TimeDistributed', 'reshape_with_axis' must differ from 'time_axis' ({t_axis}).")
        steps = inputs.shape[t_axis]
        fold_at = fold if t_axis > fold else fold - 1  # where the fold axis sits once time is taken out
        moved = ops.moveaxis(inputs, t_axis, fold_at)  # time right before the axis it folds into
        shape = moved.shape
        folded = ops.reshape(moved, tuple(shape[:fold_at]) + (shape[fold_at] * shape[fold_at + 1],)
                             + tuple(shape[fold_at + 2:]))
        out = self.layer(folded)
        out_shape = out.shape
        unfolded = ops.reshape(out, tuple(out_shape[:fold_at]) + (steps, out_shape[fold_at] // steps)
                               + tuple(out_shape[fold_at + 1:]))
        return ops.moveaxis(unfolded, fold_at, t_axis)


class Upsample(Cell):
    """`Upsample(size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None)`:
    `ops.interpolate` as a layer."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        if size is None and scale_factor is None:
            raise ValueError("For 'Upsample', either 'size' or 'scale_factor' must be given.")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                               self.recompute_scale_factor)


class LPPool1d(Cell):
    """`LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)`: (sum over each window of x^p)^(1/p) on
    (N, C, L) or (C, L)."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x):
        return ops.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(Cell):
    """`LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)`: power-average pooling on (N, C, H, W)."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x):
        return ops.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class RReLU(Cell):
    """`RReLU(lower=1/8, upper=1/3)`: randomized leaky ReLU: negative inputs are scaled by a slope drawn per
    element from U(lower, upper) — in evaluation too, as MindSpore 2.10 does."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        for name, value in (("lower", lower), ("upper", upper)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For 'RReLU', the type of '{name}' should be one of ['float', 'int'], but got type "
                                f"'{type(value).__name__}'.")
        if lower > upper:
            raise ValueError(f"For 'RReLU', the value of 'upper' must be greater than or equal to 'lower', but got "
                             f"upper: {upper}, lower: {lower}.")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        slope = ops.uniform(x.shape, Tensor(self.lower, mstype.float32), Tensor(self.upper, mstype.float32))
        return ops.select(x >= 0, x, x * ops.cast(slope, x.dtype))


class SyncBatchNorm(BatchNorm2d):
    """`SyncBatchNorm(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones', beta_init='zeros',
    moving_mean_init='zeros', moving_var_init='ones', use_batch_statistics=None, process_groups=None,
    dtype=mstype.float32)`: batch normalization whose batch statistics are taken over the devices of the process
    groups. On one device (no communication initialised) the group is this device and it is `BatchNorm2d`;
    training across several devices raises NotImplementedError (not synchronised here yet)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, process_groups=None,
                 dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, "NCHW", dtype)
        if process_groups is not None and (not isinstance(process_groups, list) or not all(
                isinstance(g, list) for g in process_groups)):
            raise TypeError(f"For 'SyncBatchNorm', 'process_groups' must be a list of lists of ranks, but got "
                            f"{process_groups!r}.")
        self.process_groups = process_groups
        self._distributed = _group_size() > 1

    def construct(self, x):
        if self._distributed and self.training:
            raise NotImplementedError("For 'SyncBatchNorm', statistics synchronised across devices are not "
                                      "implemented in openspore yet; use BatchNorm2d per device.")
        return super().construct(x)


def _group_size():
    from ...communication import management
    return management.get_group_size() if management.GlobalComm.INITED else 1


def _activation(activation, alpha, where):
    if activation is None:
        return None
    if activation == "leakyrelu":
        from .activation import LeakyReLU
        return LeakyReLU(alpha)
    if isinstance(activation, str):
        return get_activation(activation, where)
    if isinstance(activation, Cell):
        return activation
    raise TypeError(f"For '{where}', 'activation' must be a str or a Cell, but got {type(activation).__name__}.")


class Conv2dBnAct(Cell):
    """`Conv2dBnAct(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1,
    group=1, has_bias=False, weight_init='normal', bias_init='zeros', has_bn=False, momentum=0.997, eps=1e-5,
    activation=None, alpha=0.2, after_fake=True)`: Conv2d, then BatchNorm2d (has_bn), then the activation."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros", has_bn=False, momentum=0.997,
                 eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                           has_bias, weight_init, bias_init)
        self.has_bn = bool(has_bn)
        self.batchnorm = BatchNorm2d(out_channels, eps, momentum) if self.has_bn else None
        self.activation = _activation(activation, alpha, "Conv2dBnAct")
        self.after_fake = after_fake

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.activation is not None else x


class DenseBnAct(Cell):
    """`DenseBnAct(in_channels, out_channels, weight_init='normal', bias_init='zeros', has_bias=True,
    has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True)`: Dense, then
    BatchNorm1d (has_bn), then the activation."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = bool(has_bn)
        self.batchnorm = BatchNorm1d(out_channels, eps, momentum) if self.has_bn else None
        self.activation = _activation(activation, alpha, "DenseBnAct")
        self.after_fake = after_fake

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.activation is not None else x


class ParameterUpdate(Cell):
    """`ParameterUpdate(param)`: calling it with a Tensor assigns that value to `param` (and returns it)."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', 'param' must be a Parameter, but got {type(param).__name__}.")
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x


class EmbeddingLookup(Cell):
    """`EmbeddingLookup(vocab_size, embedding_size, param_init='normal', target='CPU', slice_mode='batch_slice',
    manual_shapes=None, max_norm=None, sparse=True, vocab_cache_size=0, dtype=mstype.float32)`: rows of the
    `embedding_table` (vocab_size, embedding_size) for integer indices; with `max_norm`, each looked-up row whose
    L2 norm exceeds it is scaled down to it. (target/slice_mode choose device placement and sharding in
    MindSpore; on one device they do not change the result.)"""

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True, vocab_cache_size=0, dtype=mstype.float32):
        super().__init__()
        self.vocab_size = positive_int("EmbeddingLookup", "vocab_size", vocab_size)
        self.embedding_size = positive_int("EmbeddingLookup", "embedding_size", embedding_size)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For 'EmbeddingLookup', 'target' must be 'CPU' or 'DEVICE', but got {target!r}.")
        self.target, self.slice_mode, self.sparse = target, slice_mode, sparse
        self.max_norm = None if max_norm is None else float(max_norm)
        self.embedding_table = make_param(param_init, (self.vocab_size, self.embedding_size), dtype,
                                          "embedding_table")

    def construct(self, indices):
        out = ops.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = ops.expand_dims(ops.sqrt(ops.reduce_sum(out * out, -1)), -1)
            out = out * ops.select(norm > self.max_norm, self.max_norm / (norm + 1e-7), ops.ones_like(norm))
        return out


class MicroBatchInterleaved(Cell):
    """`MicroBatchInterleaved(network, interleave_num=2)`: split every input along axis 0 into `interleave_num`
    micro-batches, run the network on each and add the outputs (MindSpore interleaves their computation and
    communication; the sum is the same)."""

    def __init__(self, network, interleave_num=2):
        super().__init__(auto_prefix=False)
        self.network = network
        self.interleave_num = positive_int("MicroBatchInterleaved", "interleave_num", interleave_num)

    def construct(self, *inputs):
        n = self.interleave_num
        parts = []
        for x in inputs:
            if isinstance(x, Tensor) and x.ndim > 0:
                if x.shape[0] % n:
                    raise ValueError(f"For 'MicroBatchInterleaved', the batch size {x.shape[0]} must be divisible "
                                     f"by interleave_num {n}.")
                parts.append(ops.split(x, x.shape[0] // n, 0))
            else:
                parts.append((x,) * n)
        out = None
        for k in range(n):
            y = self.network(*[p[k] for p in parts])
            out = y if out is None else out + y
        return out


class GradAccumulationCell(Cell):
    """`GradAccumulationCell(network, micro_size)`: split every input along axis 0 into `micro_size` micro-batches
    and return the mean of the network's outputs over them; a gradient of it is the accumulated (averaged)
    gradient of the micro-batches, which is what accumulation computes."""

    def __init__(self, network, micro_size):
        super().__init__(auto_prefix=False)
        self.network = network
        self.micro_size = positive_int("GradAccumulationCell", "micro_size", micro_size)
        self._inner = MicroBatchInterleaved(network, self.micro_size)

    def construct(self, *inputs):
        return self._inner(*inputs) / float(self.micro_size)


