"""Scatter and segment reductions (`ops.tensor_scatter_max`, `ops.scatter_nd_mul`, `ops.scatter_min`,
`ops.unsorted_segment_max`, ...), all built on the TensorScatterMax/Min/Mul/Div primitives, so they differentiate
and compile like any op sequence.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.array([[1., 2.], [3., 4.], [5., 0.]], np.float32))
>>> ms.ops.unsorted_segment_max(x, ms.Tensor([0, 1, 0]), 2).asnumpy().tolist()
[[5.0, 2.0], [3.0, 4.0]]
>>> ms.ops.tensor_scatter_mul(ms.ops.ones((3,)), ms.Tensor([[0], [0]]), ms.Tensor([2., 3.])).asnumpy().tolist()
[6.0, 1.0, 1.0]
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["tensor_scatter_max", "tensor_scatter_min", "tensor_scatter_mul", "tensor_scatter_div",
           "scatter_nd_max", "scatter_nd_min", "scatter_nd_mul", "scatter_nd_div",
           "scatter_max", "scatter_min", "scatter_mul", "scatter_div",
           "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"]


def _check(op, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(value).__name__}.")


def _reduce(kind, op, input_x, indices, updates):
    for name, value in (("input_x", input_x), ("indices", indices), ("updates", updates)):
        _check(op, name, value)
    return PRIMITIVES["TensorScatter" + kind]()(input_x, indices, updates)


def tensor_scatter_max(input_x, indices, updates):
    """A copy of input_x whose slices at `indices` are the maximum of themselves and every update aimed there."""
    return _reduce("Max", "tensor_scatter_max", input_x, indices, updates)


def tensor_scatter_min(input_x, indices, updates):
    """A copy of input_x whose slices at `indices` are the minimum of themselves and every update aimed there."""
    return _reduce("Min", "tensor_scatter_min", input_x, indices, updates)


def tensor_scatter_mul(input_x, indices, updates):
    """A copy of input_x whose slices at `indices` are multiplied by every update aimed there."""
    return _reduce("Mul", "tensor_scatter_mul", input_x, indices, updates)


def tensor_scatter_div(input_x, indices, updates):
    """A copy of input_x whose slices at `indices` are divided by every update aimed there."""
    return _reduce("Div", "tensor_scatter_div", input_x, indices, updates)


def _write_back(target, value):
    from ...core.parameter import Parameter
    return F.assign(target, value) if isinstance(target, Parameter) else value


def scatter_nd_max(input_x, indices, updates, use_locking=False):
    """In place (on a Parameter): input_x[indices] = max(input_x[indices], updates); returns the result."""
    return _write_back(input_x, tensor_scatter_max(input_x, indices, updates))


def scatter_nd_min(input_x, indices, updates, use_locking=False):
    """In place (on a Parameter): input_x[indices] = min(input_x[indices], updates); returns the result."""
    return _write_back(input_x, tensor_scatter_min(input_x, indices, updates))


def scatter_nd_mul(input_x, indices, updates, use_locking=False):
    """In place (on a Parameter): input_x[indices] *= updates; returns the result."""
    return _write_back(input_x, tensor_scatter_mul(input_x, indices, updates))


def scatter_nd_div(input_x, indices, updates, use_locking=False):
    """In place (on a Parameter): input_x[indices] /= updates; returns the result."""
    return _write_back(input_x, tensor_scatter_div(input_x, indices, updates))


def _rows(indices):
    _check("scatter", "indices", indices)
    return F.expand_dims(indices, -1)


def scatter_max(input_x, indices, updates):
    """In place along axis 0: input_x[indices[i]] = max(input_x[indices[i]], updates[i])."""
    return scatter_nd_max(input_x, _rows(indices), updates)


def scatter_min(input_x, indices, updates):
    """In place along axis 0: input_x[indices[i]] = min(input_x[indices[i]], updates[i])."""
    return scatter_nd_min(input_x, _rows(indices), updates)


def scatter_mul(input_x, indices, updates):
    """In place along axis 0: input_x[indices[i]] *= updates[i]."""
    return scatter_nd_mul(input_x, _rows(indices), updates)


def scatter_div(input_x, indices, updates):
    """In place along axis 0: input_x[indices[i]] /= updates[i]."""
    return scatter_nd_div(input_x, _rows(indices), updates)


def _limits(dtype):
    info = np.finfo(dtype.np_dtype) if dtype.kind == "float" else np.iinfo(dtype.np_dtype)
    number = float if dtype.kind == "float" else int  # Fill takes Python numbers, not numpy scalars
    return number(info.min), number(info.max)


def _segment(kind, op, x, segment_ids, num_segments, empty):
    """Reduce x's slices into `num_segments` rows; ids outside [0, num_segments) go to a scratch row that is
    dropped, and rows nobody writes keep `empty`."""
    _check(op, "x", x)
    _check(op, "segment_ids", segment_ids)
    n = int(num_segments.asnumpy()) if isinstance(num_segments, Tensor) else num_segments
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise TypeError(f"For '{op}', 'num_segments' must be a non-negative int, but got {num_segments!r}.")
    k = len(segment_ids.shape)
    if k == 0 or tuple(x.shape[:k]) != tuple(segment_ids.shape):
        raise ValueError(f"For '{op}', the shape of 'segment_ids' {list(segment_ids.shape)} must be a non-empty "
                         f"prefix of the shape of 'x' {list(x.shape)}.")
    ids = F.cast(segment_ids, mstype.int64)
    ids = F.where((ids < 0) | (ids >= n), F.full_like(ids, n), ids)
    base = F.full((n + 1,) + tuple(x.shape[k:]), empty, dtype=x.dtype)
    out = PRIMITIVES["TensorScatter" + kind]()(base, F.expand_dims(ids, -1), x)
    return out[:n]


def unsorted_segment_max(x, segment_ids, num_segments):
    """out[s] = max of x[i...] over segment_ids[i...] == s; segments nobody names hold the dtype's lowest value."""
    return _segment("Max", "unsorted_segment_max", x, segment_ids, num_segments, _limits(x.dtype)[0])


def unsorted_segment_min(x, segment_ids, num_segments):
    """out[s] = min of x[i...] over segment_ids[i...] == s; segments nobody names hold the dtype's highest value."""
    return _segment("Min", "unsorted_segment_min", x, segment_ids, num_segments, _limits(x.dtype)[1])


def unsorted_segment_prod(x, segment_ids, num_segments):
    """out[s] = product of x[i...] over segment_ids[i...] == s; segments nobody names hold 1."""
    return _segment("Mul", "unsorted_segment_prod", x, segment_ids, num_segments, 1)
