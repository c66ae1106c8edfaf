"""`mindspore.numpy` functional helpers and 1-D set operations: apply_along_axis, apply_over_axes, piecewise,
intersect1d, setdiff1d, array_str.

The set operations have data-dependent result lengths, so (like `unique`) they sort on the host and return
Tensors; the others compose openspore ops.

>>> import openspore.numpy as mnp
>>> mnp.intersect1d([1, 3, 4, 3], [3, 1, 2, 1]).asnumpy().tolist()
[1, 3]
>>> mnp.apply_over_axes(mnp.sum, mnp.ones((2, 3, 4)), [0, 2]).shape
(1, 3, 1)
"""
import numpy as onp

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops
from .array_creations import asarray

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise", "intersect1d", "setdiff1d", "array_str"]


def _as(x):
    return x if isinstance(x, Tensor) else asarray(x)


def _check_axis(name, axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError(f"For 'mindspore.numpy.{name}', axis {axis} is out of bounds for an array of dimension "
                         f"{ndim}.")
    return axis % ndim


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to each 1-D slice along `axis`; its result's axes replace `axis` in the output."""
    x = _as(arr)
    axis = _check_axis("apply_along_axis", axis, len(x.shape))
    moved = ops.moveaxis(x, axis, -1)
    outer = tuple(moved.shape[:-1])
    flat = ops.reshape(moved, (-1, moved.shape[-1]))
    results = [_as(func1d(flat[i], *args, **kwargs)) for i in range(flat.shape[0])]
    out = ops.reshape(ops.stack(results, 0), outer + tuple(results[0].shape))
    # the result's own axes sit where `axis` was
    res_nd = len(results[0].shape)
    order = list(range(axis)) + list(range(len(outer), len(outer) + res_nd)) + list(range(axis, len(outer)))
    return ops.transpose(out, tuple(order))


def apply_over_axes(func, a, axes):
    """func(a, axis=ax) applied for each ax in turn, keeping every reduced axis (as length 1)."""
    out = _as(a)
    for ax in ([axes] if isinstance(axes, int) else list(axes)):
        res = _as(func(out, axis=ax))
        if len(res.shape) == len(out.shape) - 1:
            res = ops.expand_dims(res, ax)
        elif len(res.shape) != len(out.shape):
            raise ValueError(f"For 'mindspore.numpy.apply_over_axes', func must return an array with the input's "
                             f"number of dimensions or one fewer, but got shape {res.shape} from {out.shape}.")
        out = res
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """Where condlist[i] holds, funclist[i] (a function of x, or a constant); an extra last entry of funclist
    applies where no condition holds (0 otherwise). The first true condition wins, as in MindSpore."""
    xt = _as(x)
    conds = [condlist] if isinstance(condlist, (bool, Tensor)) and not isinstance(condlist, list) else condlist
    if isinstance(conds, Tensor) and len(conds.shape) == len(xt.shape) + 1:
        conds = list(ops.unbind(conds, 0))
    conds = [ops.broadcast_to(ops.cast(_as(c), mstype.bool_), tuple(xt.shape)) for c in conds]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"For 'mindspore.numpy.piecewise', funclist must have {n} or {n + 1} entries (one per "
                         f"condition, plus an optional 'otherwise'), but got {len(funclist)}.")
    values = [_as(f(xt, *args, **kw)) if callable(f) else _as(f) for f in funclist]
    common = values[0].dtype
    for v in values[1:]:
        common = mstype.promote_types(common, v.dtype)
    values = [ops.broadcast_to(ops.cast(v, common), tuple(xt.shape)) for v in values]
    out = values[n] if len(values) == n + 1 else ops.zeros(tuple(xt.shape), common)
    for cond, value in zip(reversed(conds), reversed(values[:n])):
        out = ops.where(cond, value, out)
    return out


def _host_pair(ar1, ar2):
    a, b = _as(ar1), _as(ar2)
    common = mstype.promote_types(a.dtype, b.dtype)
    np_dtype = common.np_dtype
    return a.asnumpy().reshape(-1).astype(np_dtype), b.asnumpy().reshape(-1).astype(np_dtype)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """Sorted values found in both (flattened) inputs; with return_indices, also the positions of their first
    occurrences in ar1 and ar2 (int32)."""
    a, b = _host_pair(ar1, ar2)
    common, ia, ib = onp.intersect1d(a, b, assume_unique=assume_unique, return_indices=True)
    if not return_indices:
        return Tensor(common)
    return Tensor(common), Tensor(ia.astype(onp.int32)), Tensor(ib.astype(onp.int32))


def setdiff1d(ar1, ar2, assume_unique=False):
    """Values of ar1 not in ar2: sorted and unique, or in ar1's order when assume_unique."""
    a, b = _host_pair(ar1, ar2)
    return Tensor(onp.setdiff1d(a, b, assume_unique=assume_unique))


def array_str(a):
    """The NumPy-style text of a Tensor's data, e.g. '[0 1 2]'."""
    if not isinstance(a, Tensor):
        raise TypeError(f"For 'mindspore.numpy.array_str', the input must be a Tensor, but got "
                        f"{type(a).__name__}.")
    return onp.array_str(a.asnumpy())
