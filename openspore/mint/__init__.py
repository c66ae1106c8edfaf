"""`mindspore.mint`: the PyTorch-style functional API (`dim`/`keepdim` arguments), on openspore ops.

A subset of MindSpore's module: elementwise functions shared with `ops` are re-exported, reductions and shape
functions take `dim`/`keepdim`, and `max`/`min` with a `dim` return `(values, indices)` as in PyTorch.

>>> import openspore as ms
>>> from openspore import mint
>>> x = ms.Tensor([[1.0, 5.0], [4.0, 2.0]])
>>> mint.sum(x, dim=1, keepdim=True).shape
(2, 1)
>>> values, indices = mint.max(x, dim=1)
>>> values.asnumpy().tolist(), indices.asnumpy().tolist()
([5.0, 4.0], [1, 0])
"""
from .. import ops as _ops
from ..common import dtype as _mstype
from ..core.tensor import Tensor as _Tensor

# Same names and argument conventions as ops: re-exported as they are.
_SHARED = ["abs", "acos", "acosh", "add", "addbmm", "addcdiv", "addmm", "addmv", "allclose", "arccos", "arccosh",
           "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh",
           "baddbmm", "bmm", "broadcast_to", "ceil", "cos", "cosh", "cross", "div", "divide", "dstack", "eq", "erf",
           "erfc", "exp", "exp2", "expm1", "eye", "float_power", "floor", "floor_divide", "fmod", "frac", "full",
           "full_like", "gcd", "greater", "greater_equal", "gt", "hstack", "inverse", "isclose", "isfinite", "isinf",
           "isnan", "isneginf", "le", "lerp", "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp",
           "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor", "lt", "masked_select", "matmul",
           "maximum", "minimum", "mm", "mul", "mv", "nan_to_num", "ne", "neg", "negative", "not_equal", "ones_like",
           "outer", "pow", "reciprocal", "remainder", "round", "rsqrt", "searchsorted", "sigmoid", "sign", "sin",
           "sinc", "sinh", "sqrt", "square", "sub", "tan", "tanh", "trace", "tril", "triu", "xlogy", "zeros_like",
           "einsum", "bincount", "histc", "cdist", "diff", "relu", "silu", "gelu", "permute", "nonzero"]
globals().update({name: getattr(_ops, name) for name in _SHARED if hasattr(_ops, name)})


def _reduce(fn, input, dim, keepdim, dtype=None):
    out = fn(input, dim, keepdim)
    return out if dtype is None else _ops.cast(out, dtype)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 (PyTorch's name)
    """Sum over `dim` (all when None)."""
    return _ops.sum(input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over `dim`."""
    x = input if dtype is None else _ops.cast(input, dtype)
    return _ops.mean(x, dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over `dim`."""
    return _reduce(_ops.prod, input, dim, keepdim, dtype)


def _extreme(amax, arg, input, dim, keepdim):
    if dim is None:
        return amax(input)
    if isinstance(dim, _Tensor):  # mint.max(input, other): elementwise
        return (_ops.maximum if amax is _ops.amax else _ops.minimum)(input, dim)
    return amax(input, dim, keepdim), arg(input, dim, keepdim)


def max(input, dim=None, keepdim=False):  # noqa: A001
    """The maximum; with `dim`, `(values, indices)`; with a Tensor second argument, the elementwise maximum."""
    return _extreme(_ops.amax, _ops.argmax, input, dim, keepdim)


def min(input, dim=None, keepdim=False):  # noqa: A001
    """The minimum; with `dim`, `(values, indices)`; with a Tensor second argument, the elementwise minimum."""
    return _extreme(_ops.amin, _ops.argmin, input, dim, keepdim)


def amax(input, dim=(), keepdim=False):
    """Maximum over `dim` (all when ())."""
    return _ops.amax(input, None if dim == () else dim, keepdim)


def amin(input, dim=(), keepdim=False):
    """Minimum over `dim` (all when ())."""
    return _ops.amin(input, None if dim == () else dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    """Index of the maximum (flattened when dim is None)."""
    return _ops.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    """Index of the minimum (flattened when dim is None)."""
    return _ops.argmin(_ops.reshape(input, (-1,)) if dim is None else input, dim, keepdim)


def all(input, dim=None, keepdim=False):  # noqa: A001
    """Whether all are true over `dim`."""
    return _ops.all(input, dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001
    """Whether any is true over `dim`."""
    return _ops.any(input, dim, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):
    """Standard deviation with divisor n − correction."""
    return _ops.std(input, dim, correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):
    """Variance with divisor n − correction."""
    return _ops.var(input, dim, correction, keepdim)


def logsumexp(input, dim, keepdim=False):
    """log Σ exp over `dim`."""
    return _ops.logsumexp(input, dim, keepdim)


def median(input, dim=None, keepdim=False):
    """The lower median (with `dim`: `(values, indices)`)."""
    if dim is None:
        return _ops.median(_ops.reshape(input, (-1,)), 0)[0]
    return _ops.median(input, dim, keepdim)


def cumsum(input, dim, dtype=None):
    """Cumulative sum along `dim`."""
    return _ops.cumsum(input, dim, dtype)


def cumprod(input, dim, dtype=None):
    """Cumulative product along `dim`."""
    return _ops.cumprod(input, dim, dtype)


def cat(tensors, dim=0):
    """Concatenate along `dim`."""
    return _ops.concat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    """Stack along a new `dim`."""
    return _ops.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of `split_size_or_sections` elements (an int: equal pieces, the last shorter) along `dim`."""
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    """`chunks` nearly equal pieces along `dim`."""
    return _ops.chunk(input, chunks, dim)


def sort(input, *, dim=-1, descending=False, stable=False):
    """(sorted values, indices) along `dim`."""
    return _ops.sort(input, dim, descending)


def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort along `dim`."""
    return _ops.argsort(input, dim, descending)


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """(values, indices) of the k largest (or smallest) along `dim`."""
    return _ops.topk(input, k, dim, largest, sorted)


def gather(input, dim, index):
    """Values at per-position indices along `dim`."""
    return _ops.gather_elements(input, dim, index)


def index_select(input, dim, index):
    """Slices at `index` along `dim`."""
    return _ops.index_select(input, dim, index)


def flatten(input, start_dim=0, end_dim=-1):
    """Axes start_dim..end_dim merged into one."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def transpose(input, dim0, dim1):
    """Two axes exchanged."""
    return _ops.swapaxes(input, dim0, dim1)


def unsqueeze(input, dim):
    """A new axis of length 1 at `dim`."""
    return _ops.expand_dims(input, dim)


def squeeze(input, dim=None):
    """Length-1 axes removed (only `dim` when given)."""
    return _ops.squeeze(input, dim)


def where(condition, input=None, other=None):
    """input where condition else other (the nonzero indices as a tuple when both are omitted)."""
    if input is None and other is None:
        return _ops.nonzero(condition, as_tuple=True)
    return _ops.where(condition, input, other)


def clamp(input, min=None, max=None):  # noqa: A002
    """Values clamped to [min, max]."""
    return _ops.clamp(input, min, max)


def softmax(input, dim, *, dtype=None):
    """Softmax along `dim`."""
    return _ops.softmax(input if dtype is None else _ops.cast(input, dtype), dim)


def narrow(input, dim, start, length):
    """`length` entries from `start` along `dim`."""
    return _ops.narrow(input, dim, start, length)


def repeat_interleave(input, repeats, dim=None):
    """Each element repeated (flattened first when dim is None)."""
    return _ops.repeat_interleave(input, repeats, dim)


def tile(input, dims):
    """Repeated `dims` times per axis."""
    return _ops.tile(input, tuple(dims))


def flip(input, dims):
    """Reversed along `dims`."""
    return _ops.flip(input, tuple(dims))


def roll(input, shifts, dims=None):
    """Shifted cyclically along `dims` (flattened when None)."""
    if dims is None:
        return _ops.reshape(_ops.roll(_ops.reshape(input, (-1,)), shifts, 0), tuple(input.shape))
    return _ops.roll(input, shifts, dims)


def t(input):
    """Transpose of a 2-D tensor."""
    return _ops.t(input)


def zeros(size, *, dtype=None):
    """Zeros of `size`."""
    return _ops.zeros(size, dtype or _mstype.float32)


def ones(size, *, dtype=None):
    """Ones of `size`."""
    return _ops.ones(size, dtype or _mstype.float32)


def arange(start=0, end=None, step=1, *, dtype=None):
    """Evenly spaced values in [start, end)."""
    return _ops.arange(start, end, step, dtype=dtype)


def linspace(start, end, steps, *, dtype=None):
    """`steps` evenly spaced values from start to end."""
    out = _ops.linspace(start, end, steps)
    return out if dtype is None else _ops.cast(out, dtype)


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """Vector/matrix norm (p='fro' is the 2-norm of the entries)."""
    return _ops.norm(input, None if p == "fro" else p, dim, keepdim, dtype=dtype)


def scatter(input, dim, index, src):
    """input with src written at per-position indices along `dim`."""
    return _ops.tensor_scatter_elements(input, index, src, dim)


def clone(input):
    """A copy."""
    return _ops.identity(input)


from . import nn  # noqa: E402,F401  (mint.nn and mint.nn.functional)
conv2d = nn.functional.conv2d
from ._tensor_ops import *  # noqa: E402,F401,F403
from . import distributed, linalg, optim, special  # noqa: E402,F401  (mint's submodules, as MindSpore imports them)
from ._random import *  # noqa: E402,F401,F403
from ._norm_stats import *  # noqa: E402,F401,F403


def npu_gelu(input, approximate="none"):  # noqa: A002  (MindSpore's parameter name)
    """`mint.npu_gelu(input, approximate='none')`: GELU (the Ascend-fused kernel's API; 'none' is the erf form,
    'tanh' the tanh approximation). MindSpore 2.10 runs it only on Ascend; openspore computes it anywhere."""
    return nn.functional.gelu(input, approximate=approximate)
