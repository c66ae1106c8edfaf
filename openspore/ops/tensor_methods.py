"""Tensor methods and operators, installed onto `core.Tensor` from the functional API.

Kept here (not in core) so that the core layer does not import ops.
"""
from ..common import dtype as mstype
from ..core.tensor import Tensor
from . import function as F


def _method(name):
    def deco(fn):
        setattr(Tensor, name, fn)
        return fn
    return deco


# ---- operators --------------------------------------------------------------------------------
Tensor.__add__ = lambda self, other: F.add(self, other)
Tensor.__radd__ = lambda self, other: F.add(other, self)
Tensor.__sub__ = lambda self, other: F.sub(self, other)
Tensor.__rsub__ = lambda self, other: F.sub(other, self)
Tensor.__mul__ = lambda self, other: F.mul(self, other)
Tensor.__rmul__ = lambda self, other: F.mul(other, self)
Tensor.__neg__ = lambda self: F.neg(self)
Tensor.__matmul__ = lambda self, other: F.matmul(self, other)


@_method("astype")
def astype(self, dtype, copy=True):
    return F.cast(self, mstype.to_dtype(dtype, "Tensor.astype"))


@_method("reshape")
def reshape(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return F.reshape(self, shape)


@_method("sum")
def sum_(self, axis=None, keepdims=False, *, dtype=None, dim=None, keepdim=None):
    axis = dim if dim is not None else axis
    keepdims = keepdim if keepdim is not None else keepdims
    return F.sum(self, axis, keepdims, dtype=dtype)
