"""Primitives: shape and layout, indexing, gather/scatter, concat/split, sort/search."""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._util import check_tensor, prim, rand_float, sum_to_shape


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
        size = 1
        for s in x.shape:
            size *= s
        return AbstractTensor(_resolve_shape(self.name, shape, size), x.dtype)

    def bprop(self, x, shape, out, dout):
        return (Reshape()(dout, tuple(x.shape)), None)

    def numpy(self, np, x, shape):
        return np.reshape(x, shape)

    def torch(self, torch, x, shape):
        return torch.reshape(x, tuple(shape))

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


