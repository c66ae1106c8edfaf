"""Primitives: shape and layout (reshape, broadcast, transpose, squeeze, tile, flip, roll)."""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, mindir, norm_axis, norm_tuple
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_tensor, normalize_axes, normalize_axis, prim, rand_float, static_shape, sum_to_shape


def c_array(a):
    """A C-contiguous ndarray, 0-d included (np.ascontiguousarray would turn 0-d results into shape (1,))."""
    return np.asarray(a, order="C")


def _resolve_shape(op, shape, size):
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise ValueError(f"For '{op}', the shape {list(shape)} has more than one -1.")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise ValueError(f"For '{op}', the shape {list(shape)} has a negative size {s}.")
            known *= s
    if -1 in shape:
        if known == 0 or size % known:
            raise ValueError(f"For '{op}', the shape {list(shape)} is invalid for input of size {size}.")
        shape = tuple(size // known if s == -1 else s for s in shape)
    elif known != size:
        raise ValueError(f"For '{op}', the shape {list(shape)} is invalid for input of size {size} "
                         f"(the shape holds {known} elements).")
    return shape


@register
class Reshape(Primitive):
    """Reshape()(x, shape); one -1 is inferred."""
    input_names = ("input_x", "input_shape")

    def infer(self, x, shape):
        check_tensor(self.name, "input_x", x)
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"For 'Reshape', 'input_shape' must be a tuple of ints, but got {type(shape).__name__}.")
        if any(s < 0 for s in x.shape):
            # a dynamic input (Unique's output while compiling): the target's -1 stays unknown until run time
            if any(int(s) < -1 for s in shape) or list(shape).count(-1) > 1:
                raise ValueError(f"For '{self.name}', the shape {list(shape)} must hold sizes >= 0 and at most "
                                 f"one -1.")
            return AbstractTensor(tuple(int(s) for s in shape), x.dtype)
        size = 1
        for s in x.shape:
            size *= s
        return AbstractTensor(_resolve_shape(self.name, shape, size), x.dtype)

    def bprop(self, x, shape, out, dout):
        return (prim("Reshape")(dout, tuple(x.shape)), None)

    def numpy(self, np, x, shape):
        return np.reshape(x, shape)

    def torch(self, torch, x, shape):
        return torch.reshape(x, tuple(shape))

    def torch_bind(self, torch, inputs, first_only):
        return torch.reshape if type(inputs[1]) is tuple and not first_only else None   # one call: no frame

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3, 4))
        yield Sample(x, (6, 4))
        yield Sample(x, (-1,))
        yield Sample(x, (4, -1, 2))


@register
class BroadcastTo(Primitive):
    """BroadcastTo(shape)(x); -1 keeps the input's size."""
    attr_defaults = {"shape": ()}
    input_names = ("input_x",)

    def _target(self, xshape):
        shape = tuple(self.shape)
        lead = len(shape) - len(xshape)
        if lead < 0:
            raise ValueError(f"For 'BroadcastTo', the target shape {list(shape)} has fewer dims than the input {list(xshape)}.")
        out = []
        for i, s in enumerate(shape):
            src = xshape[i - lead] if i >= lead else 1
            if s == -1:
                if i < lead:
                    raise ValueError(f"For 'BroadcastTo', -1 at new leading dimension {i} is not allowed.")
                s = src
            if src != 1 and src != s:
                raise ValueError(f"For 'BroadcastTo', input shape {list(xshape)} cannot broadcast to {list(shape)}: "
                                 f"dimension {i} is {src}, expected 1 or {s}.")
            out.append(s)
        return tuple(out)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        return AbstractTensor(self._target(tuple(x.shape)), x.dtype)

    def bprop(self, x, out, dout):
        return (sum_to_shape(dout, x.shape),)

    def numpy(self, np, x):
        return np.array(np.broadcast_to(x, self._target(x.shape)))

    def torch(self, torch, x):
        return x.expand(self._target(tuple(x.shape))).contiguous()

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 1)), attrs={"shape": (2, 3, 4)})
        yield Sample(rand_float(rng, (4,)), attrs={"shape": (3, -1)})




_PERMS = {}  # (perm, ndim) -> checked axes: a model transposes with the same few permutations every step


def _perm(op, perm, ndim):
    if type(perm) is tuple:
        axes = _PERMS.get((perm, ndim))
        if axes is not None:
            return axes
    axes = _checked_perm(op, perm, ndim)
    if type(perm) is tuple and len(_PERMS) < 1024:
        _PERMS[(perm, ndim)] = axes
    return axes


def _checked_perm(op, perm, ndim):
    if not isinstance(perm, (tuple, list)):
        raise TypeError(f"For '{op}', 'input_perm' must be a tuple of ints, but got {type(perm).__name__}.")
    if len(perm) != ndim:
        raise ValueError(f"For '{op}', the length of 'input_perm' must equal the rank of the input {ndim}, "
                         f"but got {len(perm)}.")
    axes = tuple(normalize_axis(op, p, ndim, "input_perm") for p in perm)
    if sorted(axes) != list(range(ndim)):
        raise ValueError(f"For '{op}', 'input_perm' must be a permutation of the dimensions, but got {tuple(perm)}.")
    return axes


@register
class Transpose(Primitive):
    """Transpose()(input_x, input_perm): permute dimensions."""
    input_names = ("input_x", "input_perm")

    def infer(self, x, perm):
        check_tensor(self.name, "input_x", x)
        axes = _perm(self.name, perm, len(x.shape))
        return AbstractTensor(tuple(x.shape[a] for a in axes), x.dtype)

    def bprop(self, x, perm, out, dout):
        axes = _perm(self.name, perm, len(x.shape))
        inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
        return (prim("Transpose")(dout, inverse), None)

    def numpy(self, np, x, perm):
        return c_array(np.transpose(x, _perm(self.name, perm, x.ndim)))

    def torch(self, torch, x, perm):
        # a strided view, as torch's own transpose: consumers (matmul, reshape, elementwise) read strides
        # directly, and copying here cost one full pass over every attention head per call
        return x.permute(_perm(self.name, perm, x.ndim))

    def torch_bind(self, torch, inputs, first_only):
        """For a fixed rank and a constant perm: the permutation checked once."""
        shape = static_shape(inputs[0])
        if shape is None or type(inputs[1]) is not tuple or first_only:
            return None
        axes = _perm(self.name, inputs[1], len(shape))
        return lambda x, perm: x.permute(axes)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3, 4)), (2, 0, 1))
        yield Sample(rand_float(rng, (3, 4)), (1, 0))
        yield Sample(rand_float(rng, (2, 3, 4)), (-1, 1, 0), name="negative")


@register
class ExpandDims(Primitive):
    """ExpandDims()(input_x, axis): insert a size-1 dimension at `axis` (in [-rank-1, rank])."""
    input_names = ("input_x", "axis")

    def infer(self, x, axis):
        check_tensor(self.name, "input_x", x)
        a = normalize_axis(self.name, axis, len(x.shape) + 1)
        return AbstractTensor(x.shape[:a] + (1,) + x.shape[a:], x.dtype)

    def bprop(self, x, axis, out, dout):
        return (prim("Reshape")(dout, tuple(x.shape)), None)

    def numpy(self, np, x, axis):
        return np.expand_dims(x, normalize_axis(self.name, axis, x.ndim + 1))

    def torch(self, torch, x, axis):
        return torch.unsqueeze(x, normalize_axis(self.name, axis, x.ndim + 1))

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3))
        yield Sample(x, 0)
        yield Sample(x, 2)
        yield Sample(x, -1)


def _squeeze_axes(op, axis, shape):
    if axis is None or axis == () or axis == []:
        return tuple(i for i, s in enumerate(shape) if s == 1)
    axes = normalize_axes(op, axis, len(shape))
    for a in axes:
        if shape[a] != 1:
            raise ValueError(f"For '{op}', the shape of 'input_x' at axis {a} must be 1, but got shape {list(shape)}.")
    return axes


@register
class Squeeze(Primitive):
    """Squeeze(axis=())(input_x): drop size-1 dimensions (all of them when axis is empty)."""
    attr_defaults = {"axis": ()}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        axes = _squeeze_axes(self.name, self.axis, tuple(x.shape))
        return AbstractTensor(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype)

    def bprop(self, x, out, dout):
        return (prim("Reshape")(dout, tuple(x.shape)),)

    def numpy(self, np, x):
        return np.squeeze(x, _squeeze_axes(self.name, self.axis, x.shape))

    def torch(self, torch, x):
        axes = _squeeze_axes(self.name, self.axis, tuple(x.shape))
        return x.reshape(tuple(s for i, s in enumerate(x.shape) if i not in axes))

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (1, 3, 1, 2))
        yield Sample(x)
        yield Sample(x, attrs={"axis": 2})
        yield Sample(x, attrs={"axis": (0, -2)})


@register
class Flatten(Primitive):
    """Flatten()(input_x): keep dimension 0, merge the rest: (N, ...) → (N, X)."""
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        if len(x.shape) == 0:
            raise ValueError("For 'Flatten', the rank of 'input_x' must be at least 1, but got a 0-d tensor.")
        rest = 1
        for s in x.shape[1:]:
            rest *= s
        return AbstractTensor((x.shape[0], rest), x.dtype)

    def bprop(self, x, out, dout):
        return (prim("Reshape")(dout, tuple(x.shape)),)

    def numpy(self, np, x):
        return x.reshape(x.shape[0], -1) if x.shape[0] else x.reshape(0, int(np.prod(x.shape[1:])))

    def torch(self, torch, x):
        rest = 1
        for s in x.shape[1:]:
            rest *= s
        return x.reshape(x.shape[0], rest)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3, 4)))
        yield Sample(rand_float(rng, (3,)))


@register
class Identity(Primitive):
    """Identity()(x): a copy of x."""
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        return AbstractTensor(x.shape, x.dtype)

    def bprop(self, x, out, dout):
        return (dout,)

    def numpy(self, np, x):
        return x.copy()

    def torch(self, torch, x):
        return x.clone()

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)))
        yield Sample(np.array([1, 2, 3], np.int32))


def _multiples(op, dims, ndim):
    if not isinstance(dims, (tuple, list)) or not all(isinstance(d, (int, np.integer)) for d in dims):
        raise TypeError(f"For '{op}', 'dims' must be a tuple of ints, but got {dims!r}.")
    if any(d < 0 for d in dims):
        raise ValueError(f"For '{op}', every element of 'dims' must be non-negative, but got {tuple(dims)}.")
    dims = tuple(int(d) for d in dims)
    # MindSpore pads the shorter of (dims, shape) with leading 1s.
    return (1,) * (ndim - len(dims)) + dims


@register
class Tile(Primitive):
    """Tile()(input_x, dims): repeat the tensor `dims[i]` times along dimension i."""
    input_names = ("input_x", "dims")

    def infer(self, x, dims):
        check_tensor(self.name, "input_x", x)
        mult = _multiples(self.name, dims, len(x.shape))
        shape = (1,) * (len(mult) - len(x.shape)) + tuple(x.shape)
        return AbstractTensor(tuple(m * s for m, s in zip(mult, shape)), x.dtype)

    def bprop(self, x, dims, out, dout):
        mult = _multiples(self.name, dims, len(x.shape))
        shape = (1,) * (len(mult) - len(x.shape)) + tuple(x.shape)
        split = []
        for m, s in zip(mult, shape):
            split += [m, s]
        g = prim("Reshape")(dout, tuple(split))
        g = prim("ReduceSum")(g, tuple(range(0, 2 * len(shape), 2)))
        return (prim("Reshape")(g, tuple(x.shape)), None)

    def numpy(self, np, x, dims):
        return np.tile(x, _multiples(self.name, dims, x.ndim))

    def torch(self, torch, x, dims):
        mult = _multiples(self.name, dims, x.ndim)
        x = x.reshape((1,) * (len(mult) - x.ndim) + tuple(x.shape))
        return x.repeat(mult)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3))
        yield Sample(x, (2, 1))
        yield Sample(x, (2, 1, 3), name="more-dims")
        yield Sample(rand_float(rng, (2, 1, 2)), (3,), name="fewer-dims")


@register
class ReverseV2(Primitive):
    """ReverseV2(axis)(input_x): reverse the order of elements along the given axes (ops.flip)."""
    attr_defaults = {"axis": ()}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        self._axes(len(x.shape))
        return AbstractTensor(x.shape, x.dtype)

    def _axes(self, ndim):
        # an empty axis tuple reverses nothing (normalize_axes would read it as "all axes")
        if self.axis in ((), []):
            return ()
        return normalize_axes(self.name, self.axis, ndim)

    def bprop(self, x, out, dout):
        return (ReverseV2(self.axis)(dout),)

    def numpy(self, np, x):
        return c_array(np.flip(x, self._axes(x.ndim)))

    def torch(self, torch, x):
        axes = self._axes(x.ndim)
        return torch.flip(x, axes) if axes else x.clone()

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3, 4))
        yield Sample(x, attrs={"axis": (0,)})
        yield Sample(x, attrs={"axis": (1, -1)})


def _roll_args(op, shift, axis, ndim):
    shifts = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) != len(axes):
        raise ValueError(f"For '{op}', 'shift' and 'axis' must have the same length, but got {len(shifts)} "
                         f"and {len(axes)}.")
    return tuple(int(s) for s in shifts), tuple(normalize_axis(op, a, ndim) for a in axes)


@register
class Roll(Primitive):
    """Roll(shift, axis)(input_x): rotate elements along axes; those shifted past the end wrap around."""
    attr_defaults = {"shift": 0, "axis": 0}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        _roll_args(self.name, self.shift, self.axis, len(x.shape))
        return AbstractTensor(x.shape, x.dtype)

    def bprop(self, x, out, dout):
        shifts, axes = _roll_args(self.name, self.shift, self.axis, len(x.shape))
        return (Roll(tuple(-s for s in shifts), axes)(dout),)

    def numpy(self, np, x):
        shifts, axes = _roll_args(self.name, self.shift, self.axis, x.ndim)
        return np.roll(x, shifts, axes)

    def torch(self, torch, x):
        shifts, axes = _roll_args(self.name, self.shift, self.axis, x.ndim)
        return torch.roll(x, shifts, axes)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x, attrs={"shift": 1, "axis": 0})
        yield Sample(x, attrs={"shift": (-1, 5), "axis": (0, 1)})


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, ReverseV2, Roll, formats=("MINDIR",))
not_exportable(NO_ONNX, ReverseV2, Roll, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(Identity, Flatten)
mindir(Reshape, inputs=("x", Arg("shape", norm=norm_tuple)), instance="reshape")
mindir(Transpose, inputs=("x", Arg("perm", norm=norm_tuple)))
mindir(ExpandDims, inputs=("x", "axis"))
mindir(Squeeze, attrs=[Arg("axis", (), norm_axis)], axis_as_tuple=True)
mindir(Tile, inputs=("x", Arg("dims", norm=norm_tuple)))
mindir(BroadcastTo, attrs=[Arg("shape", norm=norm_tuple)])

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Reshape, _onnx.reshape)
_onnx.declare(Transpose, _onnx.transpose)
_onnx.declare(Flatten, _onnx.flatten)
_onnx.declare(ExpandDims, _onnx.expand_dims)
_onnx.declare(Squeeze, _onnx.squeeze)
_onnx.declare(Tile, _onnx.tile)
_onnx.declare(BroadcastTo, _onnx.broadcast_to)
_onnx.declare(Identity, _onnx.identity)

# backward rules made only of primitive calls on shapes and attributes (core/backward_replay.py)
for _replayable in (Reshape, Transpose, ExpandDims, Squeeze):
    _replayable.bprop_replayable = True
