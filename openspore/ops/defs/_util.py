"""Shared pieces for primitive definitions: shape/dtype checks for `infer`, and gradient helpers for `bprop`.

Gradient helpers are composites of primitives (so they differentiate again).
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor
from ...core.registry import prim  # noqa: F401  (backward rules get their primitives by name through it)


def broadcast_shape(op, *shapes_or_tensors):
    shapes = [tuple(getattr(s, "shape", s)) for s in shapes_or_tensors]
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return shapes[0]
    ndim = max(len(s) for s in shapes)
    out = []
    for axis in range(ndim):
        size = 1
        for s in shapes:
            d = s[axis - ndim + len(s)] if axis - ndim + len(s) >= 0 else 1
            if d == 1:
                continue
            if size != 1 and d != size:
                shown = " and ".join(str(list(s)) for s in shapes)
                raise ValueError(f"For '{op}', the shapes {shown} cannot broadcast: at dimension {axis} "
                                 f"the sizes {size} and {d} differ and neither is 1.")
            size = d
        out.append(size)
    return tuple(out)


def check_same_dtype(op, names, *tensors):
    first = tensors[0].dtype
    for name, t in zip(names[1:], tensors[1:]):
        if t.dtype is not first:
            raise TypeError(f"For '{op}', the type of '{name}' should be same as '{names[0]}', but got "
                            f"'{names[0]}' with type Tensor[{first}] and '{name}' with type Tensor[{t.dtype}].")
    return first


def check_dtype(op, name, tensor, kinds):
    """kinds: e.g. ('float',) or ('int', 'uint', 'float')."""
    if tensor.dtype.kind not in kinds:
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor with a {'/'.join(kinds)} dtype, "
                        f"but got Tensor[{tensor.dtype}].")


def check_tensor(op, name, value):
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor, but got {type(value).__name__}.")


def check_rank(op, name, tensor, ranks):
    ranks = (ranks,) if isinstance(ranks, int) else tuple(ranks)
    if len(tensor.shape) not in ranks:
        raise ValueError(f"For '{op}', the '{name}' must have rank {' or '.join(map(str, ranks))}, "
                         f"but got shape {list(tensor.shape)} (rank {len(tensor.shape)}).")


def static_shape(spec):
    """The shape of a graph node's input as a tuple of ints when it is a tensor of fully known shape (what a
    kernel's `<backend>_bind` specialises on, runtime/executor.py), else None."""
    from ...core.primitive import AbstractTensor
    if not isinstance(spec, AbstractTensor):
        return None
    shape = tuple(spec.shape)
    return shape if all(type(d) is int and d >= 0 for d in shape) else None


def normalize_axis(op, axis, ndim, name="axis"):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(axis).__name__}.")
    lo = -ndim if ndim else -1
    hi = ndim - 1 if ndim else 0
    if not lo <= axis <= hi:
        raise ValueError(f"For '{op}', '{name}' {axis} is out of range [{lo}, {hi}] for a rank-{ndim} input.")
    return int(axis) % max(ndim, 1)


def normalize_axes(op, axis, ndim, name="axis"):
    """None/() → all axes; int or sequence → sorted tuple of non-negative axes."""
    if axis is None or axis == () or axis == []:
        return tuple(range(ndim))
    if hasattr(axis, "asnumpy"):
        axis = axis.asnumpy().tolist()
    elif hasattr(axis, "tolist") and not isinstance(axis, (list, tuple)):  # a kernel's array axis (numpy/torch)
        axis = axis.tolist()
    if isinstance(axis, (list, tuple)):
        axes = tuple(sorted({normalize_axis(op, a, ndim, name) for a in axis}))
        if len(axes) != len(axis):
            raise ValueError(f"For '{op}', '{name}' {tuple(axis)} repeats an axis.")
        return axes
    return (normalize_axis(op, axis, ndim, name),)


def reduced_shape(shape, axes, keep_dims):
    if keep_dims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def same_as(x, dtype=None):
    return AbstractTensor(x.shape, dtype or x.dtype)


def sum_to_shape(grad, shape):
    """Sum a broadcast gradient back to `shape` (the bprop of every broadcasting op)."""
    shape = tuple(shape)
    gshape = tuple(grad.shape)
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if axes:
        grad = prim("ReduceSum", keep_dims=True)(grad, axes)
    if tuple(grad.shape) != shape:
        grad = prim("Reshape")(grad, shape)
    return grad


def float_result(dtype):
    """int/bool → float32 (true division, transcendental functions on ints)."""
    return dtype if dtype.kind in ("float", "complex") else mstype.float32


def rand_float(rng, shape, low=-1.0, high=1.0, dtype=np.float32):
    return rng.uniform(low, high, size=shape).astype(dtype)


def rand_positive(rng, shape, low=0.5, high=2.0, dtype=np.float32):
    return rng.uniform(low, high, size=shape).astype(dtype)


def torch_out_fits(out, *arrays):
    """True when a `torch_out` kernel may write straight into the arena view `out` (runtime/arena.py): every
    operand a contiguous torch tensor of `out`'s dtype. Otherwise the kernel computes as usual (its layout and
    type promotion decide the result, as without an arena) and the executor copies the result if it fits."""
    for a in arrays:
        if type(a) is not type(out) or a.dtype != out.dtype or not a.is_contiguous():
            return False
    return True
