"""MindSpore's `*Ext` layers: the PyTorch-style signatures that `mindspore.mint.nn` exports under its plain names
(`mint.nn.AvgPool2d is nn.AvgPool2dExt` in MindSpore 2.10) — strides default to the kernel, `dim` instead of
`axis`, `p` a drop rate, weights initialized as PyTorch does.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
>>> nn.AvgPool2dExt(2)(x).asnumpy().ravel().tolist(), nn.MaxPool2dExt(2)(x).asnumpy().ravel().tolist()
([2.5, 4.5, 10.5, 12.5], [5.0, 7.0, 13.0, 15.0])
>>> nn.LayerNormExt(4)(x).shape
(1, 1, 4, 4)
"""
import numbers

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import Normal, One, Zero
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._common import check_bool, check_number, is_int, make_param, positive_int

__all__ = ["AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt", "MaxPool2dExt", "DropoutExt", "Dropout2dExt",
           "EmbeddingExt", "LayerNormExt", "LogSoftmaxExt", "PReLUExt"]


def _divisor(name, value):
    if value is not None and (not is_int(value) or value == 0):
        raise ValueError(f"For '{name}', the 'divisor_override' must be a non-zero int or None, but got {value!r}.")
    return value


class AvgPool1dExt(Cell):
    """`AvgPool1dExt(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)` on (N, C, L)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode = check_bool("AvgPool1dExt", "ceil_mode", ceil_mode)
        self.count_include_pad = check_bool("AvgPool1dExt", "count_include_pad", count_include_pad)

    def construct(self, x):
        stride = self.kernel_size if self.stride is None else self.stride
        return ops.avg_pool1d(x, self.kernel_size, stride, self.padding, self.ceil_mode, self.count_include_pad)


class AvgPool2dExt(Cell):
    """`AvgPool2dExt(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)` on (N, C, H, W) or (C, H, W)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode = check_bool("AvgPool2dExt", "ceil_mode", ceil_mode)
        self.count_include_pad = check_bool("AvgPool2dExt", "count_include_pad", count_include_pad)
        self.divisor_override = _divisor("AvgPool2dExt", divisor_override)

    def construct(self, x):
        stride = self.kernel_size if self.stride is None else self.stride
        return ops.avg_pool2d(x, self.kernel_size, stride, self.padding, self.ceil_mode, self.count_include_pad,
                              self.divisor_override or 0)


class AvgPool3dExt(Cell):
    """`AvgPool3dExt(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)` on (N, C, D, H, W) or (C, D, H, W)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode = check_bool("AvgPool3dExt", "ceil_mode", ceil_mode)
        self.count_include_pad = check_bool("AvgPool3dExt", "count_include_pad", count_include_pad)
        self.divisor_override = _divisor("AvgPool3dExt", divisor_override)

    def construct(self, x):
        stride = self.kernel_size if self.stride is None else self.stride
        return ops.avg_pool3d(x, self.kernel_size, stride, self.padding, self.ceil_mode, self.count_include_pad,
                              self.divisor_override or 0)


class MaxPool2dExt(Cell):
    """`MaxPool2dExt(kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False)`:
    (values, flat H·W indices) with return_indices."""

    def __init__(self, kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.return_indices = check_bool("MaxPool2dExt", "return_indices", return_indices)
        self.ceil_mode = check_bool("MaxPool2dExt", "ceil_mode", ceil_mode)

    def construct(self, x):
        stride = self.kernel_size if self.stride is None else self.stride
        return ops.max_pool2d(x, self.kernel_size, stride, self.padding, self.dilation, self.return_indices,
                              self.ceil_mode)


class DropoutExt(Cell):
    """`DropoutExt(p=0.5, inplace=False)`: while training, zero each element with probability p and scale the rest
    by 1/(1-p); the identity in eval mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = check_number("DropoutExt", "p", p, 0.0, 1.0)
        self.inplace = check_bool("DropoutExt", "inplace", inplace)

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return ops.dropout(x, self.p, training=True)


class Dropout2dExt(Cell):
    """`Dropout2dExt(p=0.5, inplace=False)`: while training, zero whole channels of an (N, C, H, W) input with
    probability p (the rest scaled by 1/(1-p))."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = check_number("Dropout2dExt", "p", p, 0.0, 1.0)
        self.inplace = check_bool("Dropout2dExt", "inplace", inplace)

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return ops.dropout2d(x, self.p, True)


class EmbeddingExt(Cell):
    """`EmbeddingExt(num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None)`: a (num_embeddings,
    embedding_dim) table `weight` drawn from Normal(0, 1) (row padding_idx zero) looked up by integer ids."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        self.num_embeddings = positive_int("EmbeddingExt", "num_embeddings", num_embeddings)
        self.embedding_dim = positive_int("EmbeddingExt", "embedding_dim", embedding_dim)
        if padding_idx is not None:
            if not is_int(padding_idx) or not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"For 'EmbeddingExt', the 'padding_idx' must be an int in [{-num_embeddings}, "
                                 f"{num_embeddings}), but got {padding_idx!r}.")
            padding_idx = int(padding_idx) % num_embeddings
        if sparse:
            raise ValueError("For 'EmbeddingExt', sparse=True is not supported (MindSpore has no sparse gradients "
                             "here either); use sparse=False.")
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq = check_bool("EmbeddingExt", "scale_grad_by_freq", scale_grad_by_freq)
        dtype = mstype.float32 if dtype is None else mstype.to_dtype(dtype, "EmbeddingExt")
        shape = (self.num_embeddings, self.embedding_dim)
        if _weight is None:
            table = make_param(Normal(1.0), shape, dtype, "weight").asnumpy()
            if padding_idx is not None:
                table[padding_idx] = 0
        else:
            if tuple(_weight.shape) != shape:
                raise ValueError(f"For 'EmbeddingExt', '_weight' must have shape {shape}, but got "
                                 f"{tuple(_weight.shape)}.")
            table = _weight.asnumpy()
        self.weight = Parameter(Tensor(table, dtype), name="weight", requires_grad=not _freeze)

    def construct(self, input):
        return ops.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq)


class LayerNormExt(Cell):
    """`LayerNormExt(normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, dtype=None)`: normalize
    over the trailing `normalized_shape` axes, then scale by `weight` (ones) and shift by `bias` (zeros)."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if is_int(normalized_shape) else tuple(normalized_shape)
        if not shape or not all(is_int(s) and s > 0 for s in shape):
            raise ValueError(f"For 'LayerNormExt', the 'normalized_shape' must be a positive int or a tuple of them, "
                             f"but got {normalized_shape!r}.")
        self.normalized_shape = shape
        self.eps = check_number("LayerNormExt", "eps", eps, 0.0, low_open=True)
        self.elementwise_affine = check_bool("LayerNormExt", "elementwise_affine", elementwise_affine)
        dtype = mstype.float32 if dtype is None else mstype.to_dtype(dtype, "LayerNormExt")
        self.weight = self.bias = None
        if self.elementwise_affine:
            self.weight = make_param(One(), shape, dtype, "weight")
            if check_bool("LayerNormExt", "bias", bias):
                self.bias = make_param(Zero(), shape, dtype, "bias")

    def construct(self, input):
        return ops.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class LogSoftmaxExt(Cell):
    """`LogSoftmaxExt(dim=None)`: log(softmax(x)) along `dim`; None picks PyTorch's legacy axis (0 for 0-, 1- and
    3-D inputs, else 1)."""

    def __init__(self, dim=None):
        super().__init__()
        if dim is not None and not is_int(dim):
            raise TypeError(f"For 'LogSoftmaxExt', the 'dim' must be an int or None, but got {dim!r}.")
        self.dim = dim

    def construct(self, input):
        dim = self.dim
        if dim is None:
            dim = 0 if len(input.shape) in (0, 1, 3) else 1
        return ops.log_softmax(input, dim)


class PReLUExt(Cell):
    """`PReLUExt(num_parameters=1, init=0.25, dtype=None)`: x where positive, weight · x elsewhere; `weight` has
    one slope (shared) or one per channel (axis 1)."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.num_parameters = positive_int("PReLUExt", "num_parameters", num_parameters)
        if isinstance(init, bool) or not isinstance(init, numbers.Real):
            raise TypeError(f"For 'PReLUExt', the 'init' must be a float, but got {type(init).__name__}.")
        dtype = mstype.float32 if dtype is None else mstype.to_dtype(dtype, "PReLUExt")
        self.weight = Parameter(Tensor(np.full((self.num_parameters,), init, dtype.np_dtype), dtype), name="weight")

    def construct(self, input):
        return ops.prelu(input, self.weight)
