"""Primitives: joining and splitting (Concat, Stack, Split, SplitV, Unstack, Meshgrid).

Concat, Stack and Meshgrid take a tuple of tensors as one input; their bprop returns one tuple of gradients
for that input (autodiff follows tuple inputs element by element).
"""
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from .array import c_array
from . import _onnx
from ._mindir import Arg, mindir
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_tensor, normalize_axis, prim, rand_float, static_shape


def _check_tuple(op, name, values):
    if not isinstance(values, (tuple, list)) or not values:
        raise TypeError(f"For '{op}', '{name}' must be a non-empty tuple or list of Tensors, but got {values!r}.")
    for i, v in enumerate(values):
        check_tensor(op, f"{name}[{i}]", v)
    first = values[0].dtype
    for i, v in enumerate(values[1:], 1):
        if v.dtype is not first:
            raise TypeError(f"For '{op}', all elements of '{name}' must have the same dtype, but got "
                            f"Tensor[{first}] at 0 and Tensor[{v.dtype}] at {i}.")
    return first


@register
class Concat(Primitive):
    """Concat(axis=0)(input_x): join a tuple of tensors along an existing axis."""
    attr_defaults = {"axis": 0}
    input_names = ("input_x",)

    def infer(self, xs):
        dtype = _check_tuple(self.name, "input_x", xs)
        ref = tuple(xs[0].shape)
        axis = normalize_axis(self.name, self.axis, len(ref))
        total = 0
        for i, x in enumerate(xs):
            s = tuple(x.shape)
            if len(s) != len(ref) or any(a != b for k, (a, b) in enumerate(zip(s, ref)) if k != axis):
                raise ValueError(f"For '{self.name}', element {i} of 'input_x' has shape {list(s)}, which does not "
                                 f"match {list(ref)} outside axis {axis}.")
            total += s[axis]
        return AbstractTensor(ref[:axis] + (total,) + ref[axis + 1:], dtype)

    def bprop(self, xs, out, dout):
        axis = normalize_axis(self.name, self.axis, len(xs[0].shape))
        sizes = tuple(x.shape[axis] for x in xs)
        return (SplitV(sizes, axis, len(sizes))(dout),)

    def numpy(self, np, xs):
        return np.concatenate(xs, axis=normalize_axis(self.name, self.axis, xs[0].ndim))

    def torch(self, torch, xs):
        return torch.cat(xs, dim=normalize_axis(self.name, self.axis, xs[0].ndim))

    @classmethod
    def samples(cls, rng):
        yield Sample((rand_float(rng, (2, 3)), rand_float(rng, (4, 3))))
        yield Sample((rand_float(rng, (2, 1)), rand_float(rng, (2, 3)), rand_float(rng, (2, 2))), attrs={"axis": -1})


@register
class Stack(Primitive):
    """Stack(axis=0)(input_x): join a tuple of same-shaped tensors along a new axis."""
    attr_defaults = {"axis": 0}
    input_names = ("input_x",)

    def infer(self, xs):
        dtype = _check_tuple(self.name, "input_x", xs)
        ref = tuple(xs[0].shape)
        for i, x in enumerate(xs):
            if tuple(x.shape) != ref:
                raise ValueError(f"For '{self.name}', all elements of 'input_x' must have the same shape, but got "
                                 f"{list(ref)} at 0 and {list(x.shape)} at {i}.")
        axis = normalize_axis(self.name, self.axis, len(ref) + 1)
        return AbstractTensor(ref[:axis] + (len(xs),) + ref[axis:], dtype)

    def bprop(self, xs, out, dout):
        axis = normalize_axis(self.name, self.axis, len(xs[0].shape) + 1)
        return (Unstack(axis, len(xs))(dout),)

    def numpy(self, np, xs):
        return np.stack(xs, axis=normalize_axis(self.name, self.axis, xs[0].ndim + 1))

    def torch(self, torch, xs):
        return torch.stack(xs, dim=normalize_axis(self.name, self.axis, xs[0].ndim + 1))

    @classmethod
    def samples(cls, rng):
        yield Sample((rand_float(rng, (2, 3)), rand_float(rng, (2, 3))))
        yield Sample((rand_float(rng, (3,)), rand_float(rng, (3,)), rand_float(rng, (3,))), attrs={"axis": -1})


@register
class Unstack(Primitive):
    """Unstack(axis=0, num=None)(input_x): split along `axis` into a tuple of tensors without that axis."""
    attr_defaults = {"axis": 0, "num": None}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        axis = normalize_axis(self.name, self.axis, len(x.shape))
        n = x.shape[axis]
        if self.num is not None and self.num != n:
            raise ValueError(f"For '{self.name}', 'num' must equal the size of axis {axis} ({n}), but got {self.num}.")
        shape = x.shape[:axis] + x.shape[axis + 1:]
        return tuple(AbstractTensor(shape, x.dtype) for _ in range(n))

    def bprop(self, x, out, dout):
        return (Stack(normalize_axis(self.name, self.axis, len(x.shape)))(tuple(dout)),)

    def numpy(self, np, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        return tuple(c_array(np.take(x, i, axis=axis)) for i in range(x.shape[axis]))

    def torch(self, torch, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        return tuple(t.contiguous() for t in torch.unbind(x, dim=axis))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 2)))
        yield Sample(rand_float(rng, (2, 3, 2)), attrs={"axis": -2})


def _split_sizes(op, dim, sizes):
    sizes = [int(s) for s in sizes]
    if sizes.count(-1) > 1:
        raise ValueError(f"For '{op}', 'size_splits' may hold at most one -1, but got {sizes}.")
    if -1 in sizes:
        rest = dim - sum(s for s in sizes if s != -1)
        if rest < 0:
            raise ValueError(f"For '{op}', 'size_splits' {sizes} exceeds the dimension size {dim}.")
        sizes[sizes.index(-1)] = rest
    if any(s < 0 for s in sizes) or sum(sizes) != dim:
        raise ValueError(f"For '{op}', the sum of 'size_splits' {sizes} must equal the dimension size {dim}.")
    return sizes


def _split_arrays(xp_split, x, sizes, axis):
    offsets, acc = [], 0
    for s in sizes[:-1]:
        acc += s
        offsets.append(acc)
    return xp_split(x, offsets, axis)


class _SplitBase(Primitive):
    input_names = ("input_x",)

    def _axis_sizes(self, shape):
        raise NotImplementedError

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        axis, sizes = self._axis_sizes(tuple(x.shape))
        return tuple(AbstractTensor(x.shape[:axis] + (s,) + x.shape[axis + 1:], x.dtype) for s in sizes)

    def bprop(self, x, out, dout):
        axis, _ = self._axis_sizes(tuple(x.shape))
        return (Concat(axis)(tuple(dout)),)

    def numpy(self, np, x):
        axis, sizes = self._axis_sizes(x.shape)
        return tuple(c_array(p) for p in _split_arrays(np.split, x, sizes, axis))

    def torch(self, torch, x):
        axis, sizes = self._axis_sizes(tuple(x.shape))
        return tuple(torch.split(x, sizes, dim=axis))  # views, like Transpose: no copy per piece

    def torch_bind(self, torch, inputs, first_only):
        """For a fixed input shape: torch.split_with_sizes with the axis and sizes worked out once (the kernel's
        checks and torch.split's Python wrapper cost 3x the split itself on a decode step), or when only piece 0
        is read, that piece as a narrow view."""
        shape = static_shape(inputs[0])
        if shape is None:
            return None
        axis, sizes = self._axis_sizes(shape)
        if first_only:
            first = sizes[0]
            return lambda x: (x.narrow(axis, 0, first),)
        split = torch.split_with_sizes
        return lambda x: split(x, sizes, axis)


@register
class Split(_SplitBase):
    """Split(axis=0, output_num=1)(input_x): `output_num` equal pieces along `axis`."""
    attr_defaults = {"axis": 0, "output_num": 1}

    def _axis_sizes(self, shape):
        axis = normalize_axis(self.name, self.axis, len(shape))
        n = self.output_num
        if not isinstance(n, int) or n <= 0:
            raise ValueError(f"For '{self.name}', 'output_num' must be a positive int, but got {n!r}.")
        if shape[axis] % n:
            raise ValueError(f"For '{self.name}', the size of axis {axis} ({shape[axis]}) must be divisible by "
                             f"'output_num' {n}.")
        return axis, [shape[axis] // n] * n

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (4, 3)), attrs={"axis": 0, "output_num": 2})
        yield Sample(rand_float(rng, (2, 6)), attrs={"axis": -1, "output_num": 3})


@register
class SplitV(_SplitBase):
    """SplitV(size_splits, split_dim, num_split)(input_x): pieces of the given sizes (one may be -1)."""
    attr_defaults = {"size_splits": (), "split_dim": 0, "num_split": 0}

    def _axis_sizes(self, shape):
        axis = normalize_axis(self.name, self.split_dim, len(shape), "split_dim")
        if len(self.size_splits) != self.num_split:
            raise ValueError(f"For '{self.name}', 'num_split' ({self.num_split}) must equal the length of "
                             f"'size_splits' {tuple(self.size_splits)}.")
        return axis, _split_sizes(self.name, shape[axis], self.size_splits)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (5, 2)), attrs={"size_splits": (2, 3), "split_dim": 0, "num_split": 2})
        yield Sample(rand_float(rng, (2, 6)), attrs={"size_splits": (1, -1, 2), "split_dim": 1, "num_split": 3})


@register
class Meshgrid(Primitive):
    """Meshgrid(indexing='xy')(inputs): coordinate grids from a tuple of 1-D tensors."""
    attr_defaults = {"indexing": "xy"}
    input_names = ("inputs",)

    def check_attrs(self):
        if self.indexing not in ("xy", "ij"):
            raise ValueError(f"For 'Meshgrid', 'indexing' must be 'xy' or 'ij', but got {self.indexing!r}.")

    def _shape(self, xs):
        sizes = [x.shape[0] for x in xs]
        if self.indexing == "xy" and len(sizes) >= 2:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        return tuple(sizes)

    def infer(self, xs):
        dtype = _check_tuple(self.name, "inputs", xs)
        for i, x in enumerate(xs):
            if len(x.shape) != 1:
                raise ValueError(f"For '{self.name}', each input must be 1-D, but input {i} has shape {list(x.shape)}.")
        shape = self._shape(xs)
        return tuple(AbstractTensor(shape, dtype) for _ in xs)

    def _view_shape(self, i, n):
        shape = [1] * n
        pos = i
        if self.indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        shape[pos] = -1
        return tuple(shape)

    def bprop(self, xs, out, dout):
        n = len(xs)
        grads = []
        for i, d in enumerate(dout[:len(xs)]):
            pos = self._view_shape(i, n).index(-1)
            axes = tuple(k for k in range(n) if k != pos)
            g = prim("ReduceSum")(d, axes) if axes else d
            grads.append(g)
        return (tuple(grads),)

    def numpy(self, np, xs):
        shape = self._shape(xs)
        return tuple(np.array(np.broadcast_to(x.reshape(self._view_shape(i, len(xs))), shape))
                     for i, x in enumerate(xs))

    def torch(self, torch, xs):
        shape = self._shape(xs)
        return tuple(x.reshape(self._view_shape(i, len(xs))).expand(shape).contiguous() for i, x in enumerate(xs))

    @classmethod
    def samples(cls, rng):
        xs = (rand_float(rng, (2,)), rand_float(rng, (3,)), rand_float(rng, (4,)))
        yield Sample(xs)
        yield Sample(xs[:2], attrs={"indexing": "ij"})


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, Unstack, SplitV, Meshgrid, formats=("MINDIR",))
not_exportable(NO_ONNX, Unstack, SplitV, Meshgrid, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(Concat, Stack, inputs=("tensors",), attrs=[Arg("axis", 0)])
mindir(Split, attrs=[Arg("axis", 0), Arg("output_num", 1)])

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Split, _onnx.split)
_onnx.declare(Concat, _onnx.concat)
_onnx.declare(Stack, _onnx.stack)

Stack.bprop_replayable = Unstack.bprop_replayable = True  # rules made of primitive calls (core/backward_replay.py)
