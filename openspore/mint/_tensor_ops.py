"""More of `mindspore.mint`'s PyTorch-style functions (`dim`, `keepdim`, `correction`), each on the `ops`
function of the same meaning; imported into `mint`.

>>> import openspore as ms
>>> from openspore import mint
>>> std, mean = mint.std_mean(ms.Tensor([1.0, 2.0, 3.0, 4.0]))
>>> round(float(std), 4), float(mean)
(1.291, 2.5)
>>> mint.diag(ms.Tensor([1.0, 2.0]), 1).asnumpy().tolist()
[[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
"""
from .. import ops as _ops
from ..common import dtype as _mstype

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "count_nonzero", "cummax", "cummin", "diag",
           "dot", "erfinv", "imag", "real", "polar", "ravel", "reshape", "swapaxes", "take", "unbind", "meshgrid",
           "nansum", "select", "scatter_add", "std_mean", "var_mean", "triangular_solve", "vdot", "empty", "empty_like",
           "kthvalue", "index_add", "unique_consecutive"]

# Same names and argument order as ops.
bitwise_and, bitwise_or, bitwise_xor = _ops.bitwise_and, _ops.bitwise_or, _ops.bitwise_xor
dot, erfinv, imag, real, polar = _ops.dot, _ops.erfinv, _ops.imag, _ops.real, _ops.polar
ravel, reshape, take, unbind = _ops.ravel, _ops.reshape, _ops.take, _ops.unbind
triangular_solve = _ops.triangular_solve


def bitwise_not(input):
    """~input (logical not for bool)."""
    return _ops.logical_not(input) if input.dtype == _mstype.bool_ else _ops.invert(input)


def count_nonzero(input, dim=None):
    """The number of nonzero entries over `dim` (all when None), as Int64."""
    return _ops.count_nonzero(input, () if dim is None else dim, False, _mstype.int64)


def cummax(input, dim):
    """(running maximum, its index) along `dim`."""
    return _ops.cummax(input, dim)


def cummin(input, dim):
    """(running minimum, its index) along `dim`."""
    return _ops.cummin(input, dim)


def diag(input, diagonal=0):
    """A 1-D input placed on diagonal `diagonal` of a square matrix; a 2-D input's diagonal `diagonal`."""
    if len(input.shape) == 1:
        return _ops.diag_embed(input, diagonal)
    if len(input.shape) == 2:
        return _ops.diagonal(input, diagonal)
    raise ValueError(f"For 'diag', the input must be 1-D or 2-D, but got shape {list(input.shape)}.")


def swapaxes(input, axis0, axis1):
    """Two axes exchanged."""
    return _ops.swapaxes(input, axis0, axis1)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-D tensors; `indexing` None means 'ij' (PyTorch's default, unlike ops.meshgrid)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return _ops.meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` with NaN counted as zero."""
    return _ops.nansum(input, dim, keepdim, dtype=dtype)


def select(input, dim, index):
    """The slice at `index` of axis `dim`, that axis removed."""
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"For 'select', index {index} is out of range for dimension {dim} of size {size}.")
    return _ops.squeeze(_ops.narrow(input, dim, index % size, 1), dim % len(input.shape))


def scatter_add(input, dim, index, src):
    """input with src added at per-position indices along `dim`."""
    return _ops.tensor_scatter_elements(input, index, src, dim, "add")


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    """(standard deviation with divisor n − correction, mean) over `dim`."""
    return _ops.std(input, dim, correction, keepdim), _ops.mean(input, dim, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    """(variance with divisor n − correction, mean) over `dim`."""
    return _ops.var(input, dim, correction, keepdim), _ops.mean(input, dim, keepdim)


def vdot(input, other):
    """Σ conj(input) · other of two 1-D tensors."""
    if input.dtype in (_mstype.complex64, _mstype.complex128):
        input = _ops.conj(input)
    return _ops.dot(input, other)


def empty(*size, dtype=None, device=None, pin_memory=False):
    """A tensor of `size` whose values are unspecified (here zeros); `device` and `pin_memory` are placement
    hints that openspore's one global device makes moot."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return _ops.zeros(size, dtype or _mstype.float32)


def empty_like(input, *, dtype=None, device=None, pin_memory=False):
    """`empty` with input's shape (and dtype unless given)."""
    return _ops.zeros(tuple(input.shape), dtype or input.dtype)


def kthvalue(input, k, dim=-1, keepdim=False):
    """(the k-th smallest value, its index) along `dim`."""
    size = input.shape[dim] if input.shape else 1
    if not 1 <= k <= size:
        raise ValueError(f"For 'kthvalue', k must be in [1, {size}] for dimension {dim}, but got {k}.")
    values, indices = _ops.sort(input, dim)
    values, indices = _ops.narrow(values, dim, k - 1, 1), _ops.narrow(indices, dim, k - 1, 1)
    if not keepdim:
        axis = dim % len(input.shape)
        values, indices = _ops.squeeze(values, axis), _ops.squeeze(indices, axis)
    return values, _ops.cast(indices, _mstype.int64)


def index_add(input, dim, index, source, *, alpha=1):
    """input with alpha·source's slices added at the positions `index` names along `dim`."""
    return _ops.index_add(input, index, source if alpha == 1 else source * alpha, dim)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The first of each run of equal elements (flattened when dim is None), with the inverse indices and run
    lengths when asked."""
    return _ops.unique_consecutive(input, return_inverse, return_counts, dim)
