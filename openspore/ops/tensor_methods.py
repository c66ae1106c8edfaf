"""Tensor methods and operators, installed onto `core.Tensor` from the functional API (the math methods are in
`tensor_math_methods`; `openspore.ops` imports both).

Kept here (not in core) so that the core layer does not import ops. Methods accept both the NumPy-style and
the PyTorch-style spellings MindSpore 2.x accepts (`x.sum(axis=0)`, `x.sum(0, keepdim=True)`, `x.transpose()`,
`x.transpose(1, 0)`).
"""
import numbers

from ..common import dtype as mstype
from ..core.tensor import Tensor
from . import function as F
from .indexing import getitem, setitem


def _method(fn, name=None):
    setattr(Tensor, name or fn.__name__.rstrip("_"), fn)
    return fn


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _inplace(self, result):
    """Rebind this tensor to `result` (in-place API over functional ops; autodiff links move along)."""
    if result.dtype is not self.dtype:
        result = F.cast(result, self.dtype)
    if tuple(result.shape) != tuple(self.shape):
        result = F.broadcast_to(result, self.shape)
    self._rebind(result)
    return self


def _is_operand(other):
    return isinstance(other, (Tensor, numbers.Number)) and not isinstance(other, str)


# ---- operators --------------------------------------------------------------------------------
def _binary(fn, reflected=False):
    # No NotImplemented fallback: a bad operand gets the op's own error ("For 'Add', input 'y' must be ...").
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


Tensor.__add__, Tensor.__radd__ = _binary(F.add), _binary(F.add, True)
Tensor.__sub__, Tensor.__rsub__ = _binary(F.sub), _binary(F.sub, True)
Tensor.__mul__, Tensor.__rmul__ = _binary(F.mul), _binary(F.mul, True)
Tensor.__truediv__, Tensor.__rtruediv__ = _binary(F.div), _binary(F.div, True)
Tensor.__floordiv__, Tensor.__rfloordiv__ = _binary(F.floor_divide), _binary(F.floor_divide, True)
Tensor.__mod__, Tensor.__rmod__ = _binary(F.remainder), _binary(F.remainder, True)
Tensor.__pow__, Tensor.__rpow__ = _binary(F.pow), _binary(F.pow, True)
Tensor.__matmul__, Tensor.__rmatmul__ = _binary(F.matmul), _binary(F.matmul, True)
Tensor.__lt__, Tensor.__le__ = _binary(F.less), _binary(F.less_equal)
Tensor.__gt__, Tensor.__ge__ = _binary(F.greater), _binary(F.greater_equal)
# & | ^ are bitwise (MindSpore's BitwiseAnd/Or/Xor: bool and integer tensors, promoted; floats refused); `x &= y`
# rebinds through the same operator
Tensor.__and__, Tensor.__rand__ = _binary(F.bitwise_and), _binary(F.bitwise_and, True)
Tensor.__or__, Tensor.__ror__ = _binary(F.bitwise_or), _binary(F.bitwise_or, True)
Tensor.__xor__, Tensor.__rxor__ = _binary(F.bitwise_xor), _binary(F.bitwise_xor, True)
Tensor.__neg__ = lambda self: F.neg(self)
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: F.abs(self)
Tensor.__invert__ = lambda self: F.logical_not(self)


def __eq__(self, other):  # noqa: N807 - installed as a dunder
    """Elementwise for tensors and numbers, False for anything else (facts §1.4)."""
    return F.equal(self, other) if _is_operand(other) else False


def __ne__(self, other):  # noqa: N807
    return F.not_equal(self, other) if _is_operand(other) else True


Tensor.__eq__, Tensor.__ne__ = __eq__, __ne__
Tensor.__hash__ = lambda self: id(self)


def __setitem__(self, index, value):  # noqa: N807
    _inplace(self, setitem(self, index, value))


Tensor.__getitem__, Tensor.__setitem__ = getitem, __setitem__


# ---- dtype conversion -------------------------------------------------------------------------
@_method
def astype(self, dtype, copy=True):
    return F.cast(self, mstype.to_dtype(dtype, "Tensor.astype"))


@_method
def to(self, dtype=None, non_blocking=False, copy=False):
    return self if dtype is None else self.astype(dtype)


for _name, _dt in (("float", mstype.float32), ("half", mstype.float16), ("double", mstype.float64),
                   ("int", mstype.int32), ("long", mstype.int64), ("bool", mstype.bool_),
                   ("bfloat16", mstype.bfloat16)):
    setattr(Tensor, _name, (lambda dt: lambda self: F.cast(self, dt))(_dt))


@_method
def set_dtype(self, dtype):
    return _inplace_dtype(self, mstype.to_dtype(dtype))


def _inplace_dtype(self, dtype):
    out = F.cast(self, dtype)
    self._set_data_ref(out.data_ref(), dtype)
    return self


@_method
def copy(self):
    return Tensor(self)._copy_data()


def _copy_data(self):
    data = self.data_ref()
    self._set_data_ref(data.clone() if hasattr(data, "clone") else data.copy(), self.dtype)
    return self


Tensor._copy_data = _copy_data
Tensor.clone = copy


# ---- shape ------------------------------------------------------------------------------------
@_method
def reshape(self, *shape):
    return F.reshape(self, _shape_args(shape))


@_method
def view(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], mstype.Type):
        raise TypeError("Tensor.view(dtype) reinterpretation is not supported; use astype.")
    return F.reshape(self, _shape_args(shape))


@_method
def view_as(self, other):
    return F.reshape(self, other.shape)


@_method
def transpose(self, *axes):
    """No args: reverse; two dims: swap them; a full permutation (varargs or tuple): permute."""
    axes = _shape_args(axes)
    nd = self.ndim
    if not axes:
        return F.transpose(self, tuple(reversed(range(nd))))
    if len(axes) == 2 and nd != 2:
        return F.swapaxes(self, axes[0], axes[1])
    return F.transpose(self, axes)


@_method
def permute(self, *dims):
    return F.transpose(self, _shape_args(dims))


Tensor.T = property(lambda self: F.transpose(self, tuple(reversed(range(self.ndim)))))
Tensor.mT = property(lambda self: F.swapaxes(self, -1, -2))


@_method
def swapaxes(self, axis0, axis1):
    return F.swapaxes(self, axis0, axis1)


Tensor.swapdims = swapaxes


@_method
def expand_dims(self, axis):
    return F.expand_dims(self, axis)


@_method
def unsqueeze(self, dim):
    return F.expand_dims(self, dim)


@_method
def squeeze(self, *axis):
    axis = _shape_args(axis)
    return F.squeeze(self, axis if axis else None)


@_method
def flatten(self, *dims, order="C", start_dim=0, end_dim=-1):
    # MindSpore reads positional ints as start_dim/end_dim (x.flatten(1)) and a positional str as the order;
    # a keyword order must be a str (TypeError otherwise), which the function form checks.
    if dims and isinstance(dims[0], str):
        order, dims = dims[0], dims[1:]
    if dims:
        start_dim = dims[0]
    if len(dims) > 1:
        end_dim = dims[1]
    return F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


@_method
def ravel(self):
    return F.reshape(self, (-1,))


@_method
def broadcast_to(self, *shape):
    return F.broadcast_to(self, _shape_args(shape))


@_method
def expand_as(self, other):
    return F.broadcast_to(self, other.shape)


@_method
def expand(self, *shape):
    return F.broadcast_to(self, _shape_args(shape))


@_method
def tile(self, *dims):
    return F.tile(self, _shape_args(dims))


@_method
def repeat(self, *repeats):
    """PyTorch-style repeat (tile)."""
    return F.tile(self, _shape_args(repeats))


@_method
def repeat_interleave(self, repeats, dim=None):
    return F.repeat_interleave(self, repeats, dim)


@_method
def split(self, split_size_or_sections, dim=0, axis=None):
    return F.split(self, split_size_or_sections, dim if axis is None else axis)


@_method
def chunk(self, chunks, dim=0):
    return F.chunk(self, chunks, dim)


@_method
def narrow(self, axis, start, length):
    return F.narrow(self, axis, start, length)
