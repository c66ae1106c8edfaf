"""Functional array ops: creation, triangles, flip/roll, one-hot, sorting and masking (MindSpore 2.x signatures).

Re-exported by `array_func`.
"""
import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ...core.registry import prim
from .. import operations as P
from ..defs._util import normalize_axis

__all__ = ["fill", "full", "full_like", "zeros", "ones", "arange", "eye", "tril", "triu", "flip", "roll", "meshgrid",
           "diag", "one_hot", "topk", "top_k", "sort", "argsort", "unique", "masked_fill", "masked_select",
           "nonzero", "argwhere"]


def _size(op, size):
    if isinstance(size, Tensor):
        size = size.asnumpy().reshape(-1).tolist()
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        return (int(size),)
    if isinstance(size, (tuple, list)):
        return tuple(int(s) for s in size)
    raise TypeError(f"For '{op}', the size must be an int or a tuple of ints, but got {type(size).__name__}.")


def _number_dtype(value):
    if isinstance(value, bool):
        return mstype.bool_
    if isinstance(value, (int, np.integer)):
        return mstype.int64
    if isinstance(value, (float, np.floating)):
        return mstype.float32
    raise TypeError(f"the fill value must be a bool, int, float or Tensor, but got {type(value).__name__}.")


# ---- creation ---------------------------------------------------------------------------------
def fill(type, shape, value):
    """fill(type, shape, value): a tensor of `shape` and dtype `type` holding `value`."""
    if isinstance(value, Tensor):
        return prim(P.FillV2)(_size("fill", shape), prim(P.Cast)(value, type) if value.dtype is not type else value)
    return prim(P.Fill)(type, _size("fill", shape), value)


def full(size, fill_value, *, dtype=None):
    """full(size, fill_value, *, dtype=None): the dtype defaults to the fill value's (int → Int64,
    float → Float32, bool → Bool, Tensor → its dtype)."""
    shape = _size("full", size)
    if isinstance(fill_value, Tensor):
        value = fill_value if dtype is None or fill_value.dtype is dtype else prim(P.Cast)(fill_value, dtype)
        return prim(P.FillV2)(shape, value)
    return prim(P.Fill)(dtype or _number_dtype(fill_value), shape, fill_value)


def full_like(input, fill_value, *, dtype=None):
    """full_like(input, fill_value, *, dtype=None): like `full` with input's shape and (by default) dtype."""
    return full(tuple(input.shape), fill_value, dtype=dtype or input.dtype)


def zeros(size, dtype=None):
    """zeros(size, dtype=None): zeros of `size` (Float32 by default)."""
    return prim(P.Zeros)(_size("zeros", size), dtype or mstype.float32)


def ones(shape, dtype=None):
    """ones(shape, dtype=None): ones of `shape` (Float32 by default)."""
    return prim(P.Ones)(_size("ones", shape), dtype or mstype.float32)


def arange(start=0, end=None, step=1, *, dtype=None):
    """arange(start=0, end=None, step=1, *, dtype=None): evenly spaced values in [start, end);
    int arguments give Int64, float ones Float32."""
    if end is None:
        start, end = 0, start
    args = []
    for v in (start, end, step):
        if isinstance(v, Tensor):
            v = v.asnumpy().reshape(()).item()
        args.append(v)
    if any(isinstance(v, float) for v in args):  # arange mixes ints and floats freely; the Range primitive does not
        args = [float(v) for v in args]
    out = prim(P.Range)(*args)
    return out if dtype is None or out.dtype is dtype else prim(P.Cast)(out, dtype)


def eye(n, m=None, dtype=None):
    """eye(n, m=None, dtype=None): an n × m identity-like matrix (Float32 by default)."""
    return prim(P.Eye)(n, n if m is None else m, dtype or mstype.float32)


def tril(input, diagonal=0):
    """tril(input, diagonal=0): zero the elements above the `diagonal`-th diagonal."""
    return prim(P.Tril, diagonal=diagonal)(input)


def triu(input, diagonal=0):
    """triu(input, diagonal=0): zero the elements below the `diagonal`-th diagonal."""
    return prim(P.Triu, diagonal=diagonal)(input)


def flip(input, dims):
    """flip(input, dims): reverse the order of elements along `dims`."""
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    return prim(P.ReverseV2, axis=dims)(input)


def roll(input, shifts, dims=None):
    """roll(input, shifts, dims=None): rotate elements along dims; dims=None rolls the flattened tensor."""
    if dims is None:
        flat = prim(P.Reshape)(input, (-1,))
        return prim(P.Reshape)(prim(P.Roll, shift=shifts, axis=0)(flat), tuple(input.shape))
    return prim(P.Roll, shift=shifts, axis=dims)(input)


def meshgrid(*inputs, indexing="xy"):
    """meshgrid(*inputs, indexing='xy'): coordinate grids from 1-D tensors (a single tuple also works)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    return prim(P.Meshgrid, indexing=indexing)(tuple(inputs))


def diag(input):
    """diag(input): a tensor of shape input.shape * 2 with input's elements on its diagonal."""
    shape = tuple(input.shape)
    n = 1
    for s in shape:
        n *= s
    row = prim(P.Reshape)(input, (1, n))
    out = prim(P.Mul)(prim(P.BroadcastTo, shape=(n, n))(row), prim(P.Eye)(n, n, input.dtype))
    return prim(P.Reshape)(out, shape + shape)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """one_hot(indices, depth, on_value=1, off_value=0, axis=-1): the output dtype is on_value's
    (Python int → Int64, float → Float32)."""
    if not isinstance(on_value, Tensor) or not isinstance(off_value, Tensor):
        kinds = [v for v in (on_value, off_value) if not isinstance(v, Tensor)]
        dtype = on_value.dtype if isinstance(on_value, Tensor) else (
            off_value.dtype if isinstance(off_value, Tensor) else mstype.result_type(*kinds))
        on_value = on_value if isinstance(on_value, Tensor) else Tensor(on_value, dtype)
        off_value = off_value if isinstance(off_value, Tensor) else Tensor(off_value, dtype)
    return prim(P.OneHot, axis=axis)(indices, int(depth), on_value, off_value)


# ---- sorting ----------------------------------------------------------------------------------
def _take_first(x, k, axis):
    begin = [0] * len(x.shape)
    size = list(x.shape)
    size[axis] = k
    return prim(P.Slice)(x, tuple(begin), tuple(size))


def topk(input, k, dim=None, largest=True, sorted=True):
    """topk(input, k, dim=None, largest=True, sorted=True) → (values, Int32 indices) along dim (last by
    default); equal elements keep their index order."""
    n = len(input.shape)
    axis = n - 1 if dim is None else normalize_axis("topk", dim, n, "dim")
    if isinstance(k, Tensor):
        k = int(k)
    if largest and axis == n - 1:
        return prim(P.TopK, sorted=sorted)(input, k)
    if not 0 <= k <= input.shape[axis]:
        raise ValueError(f"For 'topk', 'k' must be in [0, {input.shape[axis]}], but got {k}.")
    values, indices = prim(P.Sort, axis=axis, descending=largest)(input)
    return _take_first(values, k, axis), _take_first(indices, k, axis)


def top_k(input_x, k, sorted=True):
    """top_k(input_x, k, sorted=True): the 1.x name of TopK along the last axis."""
    return prim(P.TopK, sorted=sorted)(input_x, k)


def sort(input_x, axis=-1, descending=False):
    """sort(input_x, axis=-1, descending=False) → (values, Int32 indices); stable."""
    return prim(P.Sort, axis=axis, descending=descending)(input_x)


def argsort(input, axis=-1, descending=False):
    """argsort(input, axis=-1, descending=False) → the Int32 indices that sort `input`."""
    return prim(P.Sort, axis=axis, descending=descending)(input)[1]


def unique(input):
    """unique(input) → (output, idx): the distinct elements in order of first appearance and the index of each
    input element in output."""
    return prim(P.Unique)(input)


# ---- masking ----------------------------------------------------------------------------------
def masked_fill(input_x, mask, value):
    """masked_fill(input_x, mask, value): `value` where mask is True (mask and value broadcast)."""
    if isinstance(value, Tensor) and value.dtype is not input_x.dtype:
        value = prim(P.Cast)(value, input_x.dtype)
    return prim(P.MaskedFill)(input_x, mask, value)


def masked_select(input, mask):
    """masked_select(input, mask): the 1-D tensor of elements where mask (broadcast) is True."""
    return prim(P.MaskedSelect)(input, mask)


def nonzero(input, *, as_tuple=False):
    """nonzero(input, *, as_tuple=False): Int64 coordinates (N, rank) of non-zero elements, or one 1-D tensor per
    dimension with as_tuple=True."""
    coords = prim(P.NonZero)(input)
    if not as_tuple:
        return coords
    if len(input.shape) == 1:
        return (prim(P.Reshape)(coords, (-1,)),)
    return prim(P.Unstack, axis=1)(coords)


def argwhere(input):
    """argwhere(input): Int64 coordinates (N, rank) of the non-zero elements."""
    return prim(P.NonZero)(input)
