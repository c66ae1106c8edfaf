"""Tensor methods MindSpore 2.10 documents whose signature differs from the function of the same name in `ops`
(`select(dim, index)`, `scatter_add(dim, index, src)`, `qr(some)`, ...), plus the plain forwards to complex and
linear-algebra functions.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
>>> x.select(1, 2).asnumpy().tolist(), x.value() is x
([2.0, 5.0], True)
"""
from ..core.tensor import Tensor
from . import function as F

# Tensor.<name>(*args) is ops.<name>(self, *args), the tensor being the first argument in both
_FORWARDED = ("angle", "conj", "imag", "real", "eigvals", "geqrf", "lstsq", "lu_solve", "orgqr", "ormqr", "svd",
              "triangular_solve", "col2im", "fills", "random_categorical")


def _select(self, dim, index):
    """The slice at `index` along `dim`, that dimension removed (torch-style `select`, MindSpore's since 2.9)."""
    rank = len(self.shape)
    if not -rank <= dim < rank:
        raise ValueError(f"For 'Tensor.select', 'dim' must be in [{-rank}, {rank}), but got {dim}.")
    axis = dim % rank
    size = self.shape[axis]
    if not -size <= index < size:
        raise IndexError(f"For 'Tensor.select', 'index' must be in [{-size}, {size}) for dimension {axis}, "
                         f"but got {index}.")
    return F.squeeze(F.narrow(self, axis, index % size, 1), axis)


def _scatter_add(self, dim, index, src):
    """`self` with each `src` element added at the position `index` names along `dim`."""
    return F.tensor_scatter_elements(self, index, src, axis=dim, reduction="add")


def _scatter_sub(self, indices, updates):
    return F.tensor_scatter_sub(self, indices, updates)


def _qr(self, some=True):
    """(Q, R); `some` True gives the reduced factors, False the complete ones."""
    return F.qr(self, "reduced" if some else "complete")


def _value(self):
    """The tensor itself (a Parameter's `value()` is its data as a Tensor)."""
    return self


def _install():
    for name in _FORWARDED:
        if not hasattr(Tensor, name) and hasattr(F, name):
            setattr(Tensor, name, (lambda f, n: _forward(f, n))(getattr(F, name), name))
    for name, method in (("select", _select), ("scatter_add", _scatter_add), ("scatter_sub", _scatter_sub),
                         ("qr", _qr), ("value", _value)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, method)


def _forward(fn, name):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"Tensor.{name}(...) is ops.{name}(self, ...)."
    return method


_install()
