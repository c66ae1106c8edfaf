"""More of MindSpore's Tensor methods, installed onto `core.Tensor`: most are `ops.<name>(self, ...)` (MindSpore
documents them as exactly that), the rest small compositions (`new_zeros`, `ptp`, `fill_diagonal`, `mH`, ...).

>>> import openspore as ms
>>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
>>> round(float(x.det().asnumpy()), 4), x.new_zeros((1, 2)).asnumpy().tolist(), x.ptp().asnumpy().tolist()
(-2.0, [[0.0, 0.0]], 3.0)
"""
import numpy as np

from ..common import dtype as mstype
from ..core.tensor import Tensor
from . import function as F
from .tensor_methods import _inplace

# Tensor.<name>(*args, **kwargs) is ops.<name>(self, *args, **kwargs)
_FORWARDED = (
    "addbmm", "addcdiv", "addmv", "addr", "adjoint", "aminmax", "approximate_equal", "arccosh", "arcsinh", "arctan2",
    "arctanh", "argwhere", "baddbmm", "bincount", "bitwise_and", "bitwise_left_shift", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "cholesky", "cholesky_inverse", "cholesky_solve", "copysign",
    "count_nonzero", "cov", "cross", "cummax", "cummin", "deg2rad", "det", "diagflat", "diagonal", "diagonal_scatter",
    "diff", "digamma", "dot", "dsplit", "erfinv", "fliplr", "flipud", "float_power", "fmax", "fmin", "fold", "frac",
    "gather_nd", "gcd", "ger", "hardshrink", "heaviside", "histc", "hsplit", "hypot", "i0", "index_fill",
    "igamma", "igammac", "inplace_update", "inv", "inverse", "invert", "is_complex", "is_floating_point", "isneginf", "isposinf", "isreal",
    "lcm", "ldexp", "lerp", "lgamma", "log_matrix_determinant", "logaddexp", "logaddexp2", "logcumsumexp", "logdet",
    "logit", "matrix_determinant", "matrix_power", "median", "moveaxis", "movedim", "msort", "multinomial",
    "mvlgamma", "nan_to_num", "nanmean", "nanmedian", "nanquantile", "nansum", "nextafter", "positive", "quantile", "rad2deg",
    "renorm", "reverse", "rot90", "scatter_div", "scatter_max", "scatter_min", "scatter_mul", "searchsorted",
    "select_scatter", "sgn", "signbit", "sinc", "slice_scatter", "slogdet", "soft_shrink", "t", "take",
    "tensor_split", "top_k", "type_as", "unbind", "unfold", "unique_consecutive", "unsorted_segment_max",
    "unsorted_segment_min", "unsorted_segment_prod", "vsplit", "xdivy", "xlogy")


def _install_forwarded():
    from .. import ops
    for name in _FORWARDED:
        if not hasattr(Tensor, name) and hasattr(ops, name):
            fn = getattr(ops, name)
            setattr(Tensor, name, (lambda f, n: _named(lambda self, *a, **k: f(self, *a, **k), n))(fn, name))


def _named(method, name):
    method.__name__ = name
    method.__doc__ = f"Tensor.{name}(...) is ops.{name}(self, ...)."
    return method


# ---- new tensors like this one ----------------------------------------------------------------------------------
def _new(fill):
    def method(self, size, dtype=None):
        shape = tuple(size) if isinstance(size, (tuple, list)) else (size,)
        return F.full(shape, fill, dtype=dtype or self.dtype)
    return method


Tensor.new_zeros = _new(0)
Tensor.new_ones = _new(1)
Tensor.new_empty = _new(0)  # "uninitialised" memory: zeros are one valid content
Tensor.new_full = lambda self, size, fill_value, dtype=None: F.full(
    tuple(size) if isinstance(size, (tuple, list)) else (size,), fill_value, dtype=dtype or self.dtype)

# ---- shape and dtype queries ---------------------------------------------------------------------------------------
Tensor.dim = lambda self: len(self.shape)
Tensor.ndimension = lambda self: len(self.shape)
Tensor.nelement = lambda self: int(np.prod(self.shape)) if self.shape else 1
Tensor.is_signed = lambda self: self.dtype.kind in ("int", "float", "complex")
Tensor.byte = lambda self: F.cast(self, mstype.uint8)
Tensor.short = lambda self: F.cast(self, mstype.int16)
Tensor.reshape_as = lambda self, other: F.reshape(self, tuple(other.shape))
Tensor.bitwise_not = lambda self: F.invert(self)
Tensor.mH = property(lambda self: F.swapaxes(self, -1, -2), doc="The conjugate transpose of the last two axes "
                                                               "(the transpose, for the real dtypes openspore has).")


def _ptp(self, axis=None, keepdims=False):
    """max − min over `axis` (all elements when None)."""
    return F.amax(self, axis, keepdims) - F.amin(self, axis, keepdims)


def _sum_to_size(self, *size):
    """Sum broadcast dimensions away so the result has shape `size`."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    lead = len(self.shape) - len(shape)
    if lead < 0:
        raise ValueError(f"For 'sum_to_size', size {list(shape)} has more dimensions than the tensor "
                         f"{list(self.shape)}.")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and self.shape[lead + i] != 1)
    out = F.sum(self, axes, keepdim=True) if axes else self
    return F.reshape(out, shape)


def _fill_diagonal(self, fill_value, wrap=False):
    """A copy with the main diagonal (all indices equal) set to fill_value; a tall 2-D matrix with wrap=True
    restarts the diagonal every (columns + 1) rows, as numpy's fill_diagonal does."""
    shape = self.shape
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
        raise ValueError(f"For 'fill_diagonal', the input must be 2-D or have all dimensions equal, but got "
                         f"{list(shape)}.")
    mask = np.zeros(shape, bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return F.where(Tensor(mask), F.full_like(self, fill_value), self)


Tensor.ptp = _ptp
Tensor.sum_to_size = _sum_to_size
Tensor.fill_diagonal = _fill_diagonal
Tensor.fill_diagonal_ = lambda self, fill_value, wrap=False: _inplace(self, _fill_diagonal(self, fill_value, wrap))


def _index_add(self, dim, index, source, *, alpha=1):
    """self with alpha · source added at `index` along `dim` (torch-style argument order)."""
    return F.index_add(self, index, source * alpha if alpha != 1 else source, dim)


Tensor.index_add = _index_add
Tensor.index_add_ = lambda self, dim, index, source, *, alpha=1: _inplace(self, _index_add(self, dim, index, source,
                                                                                          alpha=alpha))

# ---- in-place elementwise ------------------------------------------------------------------------------------------
for _name, _fn in (("exp_", F.exp), ("log_", F.log), ("floor_", F.floor), ("sigmoid_", F.sigmoid),
                   ("tanh_", F.tanh), ("sign_", F.sign), ("erfinv_", F.erfinv)):
    setattr(Tensor, _name, (lambda f: lambda self: _inplace(self, f(self)))(_fn))
Tensor.remainder_ = lambda self, other: _inplace(self, F.remainder(self, other))
Tensor.floor_divide_ = lambda self, other: _inplace(self, F.floor_divide(self, other))


# ---- indexed values ------------------------------------------------------------------------------------------------
def _with_value(primitive_name):
    def method(self, axis=0, keep_dims=False):
        from ..core.primitive import PRIMITIVES
        index, value = PRIMITIVES[primitive_name](axis=axis, keep_dims=keep_dims)(self)
        return value, index
    return method


Tensor.argmax_with_value = _with_value("ArgMaxWithValue")
Tensor.argmin_with_value = _with_value("ArgMinWithValue")


def _kthvalue(self, k, dim=-1, keepdim=False):
    """(values, indices) of the k-th smallest entries along `dim` (k counts from 1)."""
    axis = dim % len(self.shape)
    if not 1 <= k <= self.shape[axis]:
        raise ValueError(f"For 'kthvalue', k must be in [1, {self.shape[axis]}], but got {k}.")
    values, indices = F.sort(self, axis)
    value, index = F.narrow(values, axis, k - 1, 1), F.narrow(indices, axis, k - 1, 1)
    if not keepdim:
        value, index = F.squeeze(value, axis), F.squeeze(index, axis)
    return value, F.cast(index, mstype.int64)


def _type(self, dtype=None):
    """The dtype's name (dtype None), or a copy cast to `dtype`."""
    return str(self.dtype) if dtype is None else F.cast(self, dtype)


def _reverse_sequence(self, seq_lengths, seq_dim=0, batch_dim=0):
    from .composite_primitives import ReverseSequence
    return ReverseSequence(seq_dim, batch_dim)(self, seq_lengths)


Tensor.kthvalue = _kthvalue
Tensor.type = _type
Tensor.reverse_sequence = _reverse_sequence


def _conjugate_transpose_2d(self):
    """The conjugate transpose of a 2-D tensor (its transpose, for the real dtypes openspore has)."""
    if len(self.shape) != 2:
        raise ValueError(f"Tensor.H needs a 2-D tensor, but got shape {list(self.shape)}.")
    return F.transpose(self, (1, 0))


Tensor.H = property(_conjugate_transpose_2d)
Tensor.index_fill_ = lambda self, axis, index, value: _inplace(self, F.index_fill(self, axis, index, value))


def _masked_scatter(self, mask, source):
    from .composite_primitives_misc import masked_scatter_values
    return masked_scatter_values(self, mask, source)


def _index_put(self, indices, values, accumulate=False):
    from .composite_primitives_misc import IndexPut
    return IndexPut(int(bool(accumulate)))(self, values, indices)


Tensor.masked_scatter = _masked_scatter
Tensor.masked_scatter_ = lambda self, mask, source: _inplace(self, _masked_scatter(self, mask, source))
Tensor.index_put = _index_put
Tensor.index_put_ = lambda self, indices, values, accumulate=False: _inplace(self, _index_put(self, indices, values,
                                                                                             accumulate))

_install_forwarded()
