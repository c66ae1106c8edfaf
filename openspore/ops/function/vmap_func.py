"""`vmap(fn, in_axes=0, out_axes=0)`: map `fn` over a batch axis of its inputs (MindSpore's `ops.vmap`/`ms.vmap`).

The batch is evaluated one example at a time — each mapped input is unstacked along its axis, `fn` runs on each
slice, and the results are stacked along `out_axes` — so it is exactly `fn`'s per-example semantics, works for
any `fn` (functions, Cells, nested vmaps, grads of vmaps; in Graph mode the loop is unrolled into the graph), and
costs one call of `fn` per example rather than one batched call.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
>>> ms.vmap(lambda a, n: a.sum() * n, in_axes=(0, None))(x, 2.0).asnumpy().tolist()
[6.0, 24.0]
>>> ms.vmap(lambda a: a.sum(), in_axes=1)(x).asnumpy().tolist()
[3.0, 5.0, 7.0]
"""
from ...core.tensor import Tensor
from .. import operations as P

__all__ = ["vmap"]


def _is_axis(value):
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


def _check_axes_tree(axes, what):
    if _is_axis(axes):
        return
    if isinstance(axes, (tuple, list)):
        for a in axes:
            _check_axes_tree(a, what)
        return
    raise RuntimeError(f"The axis in vmap's '{what}' should be a None or a scalar of type Int64Imm, but got a {axes!r}.")


def _broadcast_axes(axes, value, what):
    """Expand `axes` over the structure of `value`: an int/None applies to every leaf, a tuple matches item by item."""
    if _is_axis(axes):
        if isinstance(value, (tuple, list)):
            return type(value)(_broadcast_axes(axes, v, what) for v in value)
        return axes
    if not isinstance(value, (tuple, list)) or len(axes) != len(value):
        got = len(value) if isinstance(value, (tuple, list)) else 1
        raise RuntimeError(f"The length of vmap's '{what}' ({len(axes)}) should be equal to the number of "
                           f"{'arguments' if what == 'in_axes' else 'outputs'} ({got}).")
    return type(value)(_broadcast_axes(a, v, what) for a, v in zip(axes, value))


def _normal_axis(axis, ndim, what):
    if not -ndim <= axis < ndim:
        raise RuntimeError(f"The axis: {axis} in '{what}' is out of bounds for array of dimension [{-ndim},{ndim}).")
    return axis % ndim


def _batch_sizes(value, axes, found):
    if isinstance(value, (tuple, list)):
        for v, a in zip(value, axes):
            _batch_sizes(v, a, found)
    elif axes is not None:
        if not isinstance(value, Tensor):
            raise RuntimeError(f"vmap can only map over Tensors: an input with axis {axes} in 'in_axes' is a "
                               f"{type(value).__name__}; give it the axis None.")
        axis = _normal_axis(axes, len(value.shape), "in_axes")
        found.append(value.shape[axis])


def _slices(value, axes, size):
    """The `size` per-example values of one (possibly nested) input."""
    if isinstance(value, (tuple, list)):
        parts = [_slices(v, a, size) for v, a in zip(value, axes)]
        return [type(value)(p[i] for p in parts) for i in range(size)]
    if axes is None:
        return [value] * size
    return list(P.Unstack(axis=_normal_axis(axes, len(value.shape), "in_axes"))(value))


def _stack(results, axes):
    """Stack the per-example outputs (same structure each) along `axes`."""
    first = results[0]
    if isinstance(first, (tuple, list)):
        return type(first)(_stack([r[i] for r in results], axes[i]) for i in range(len(first)))
    if axes is None:
        return first
    if not isinstance(first, Tensor):
        first_t = Tensor(first)
        results = [Tensor(r) for r in results]
    else:
        first_t = first
    ndim = len(first_t.shape) + 1
    return P.Stack(axis=_normal_axis(axes, ndim, "out_axes"))(tuple(results))


def _is_cell_list(fn):
    # nn sits above ops, so the class is recognised by name instead of imported
    return any(c.__name__ == "CellList" and c.__module__.startswith("openspore.nn") for c in type(fn).__mro__)


def vmap(fn, in_axes=0, out_axes=0):
    """`vmap(fn, in_axes=0, out_axes=0)` → a function that maps `fn` over the batch axis of its inputs.

    `in_axes`: an int (every input), None (not mapped), or a tuple with one entry per argument (nested tuples for
    tuple arguments). `out_axes`: likewise for the outputs. `fn` may be a function, a Cell, or a `CellList` (one
    cell per example, MindSpore's model ensembling; then `in_axes=None` is allowed).
    """
    is_cell_list = _is_cell_list(fn)
    if not callable(fn) and not is_cell_list:
        raise TypeError(f"For 'vmap', 'fn' must be a function or a Cell, but got {type(fn).__name__}.")
    _check_axes_tree(in_axes, "in_axes")
    _check_axes_tree(out_axes, "out_axes")
    if in_axes is None and not is_cell_list:
        raise RuntimeError("The 'in_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'.")

    def mapped(*args):
        axes = _broadcast_axes(in_axes, tuple(args), "in_axes")
        sizes = []
        _batch_sizes(tuple(args), axes, sizes)
        if is_cell_list:
            sizes.append(len(fn))
        if not sizes:
            raise RuntimeError("For 'vmap', at least one input must be mapped (an axis other than None in 'in_axes').")
        for s in sizes[1:]:
            if s != sizes[0]:
                raise RuntimeError("The 'axis_size' of each argument in the scope of 'vmap' should be equal, but got "
                                   f"{sizes[0]} and {s}.")
        size = sizes[0]
        per_example = _slices(tuple(args), axes, size)
        results = [(fn[i] if is_cell_list else fn)(*per_example[i]) for i in range(size)]
        return _stack(results, _broadcast_axes(out_axes, results[0], "out_axes"))

    mapped.__wrapped__ = fn
    return mapped
