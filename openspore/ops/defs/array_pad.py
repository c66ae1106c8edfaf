"""Primitives: padding (Pad, PadV3 and its adjoint PadV3Grad).

PadV3 takes torch-order paddings (last dimension first). Reflect/edge/circular padding is a gather along each
padded axis with a source-index map; PadV3Grad scatters the gradient back through the same map.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from .array import c_array
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_tensor, prim, rand_float
from .array_slice import Slice, _ints


# ---- padding ----------------------------------------------------------------------------------
@register
class Pad(Primitive):
    """Pad(paddings)(input_x): zero padding; paddings[i] = (before, after) for dimension i."""
    attr_defaults = {"paddings": ()}
    input_names = ("input_x",)

    def _pairs(self, ndim):
        pads = self.paddings
        if len(pads) != ndim or not all(len(p) == 2 and min(p) >= 0 for p in pads):
            raise ValueError(f"For '{self.name}', 'paddings' must hold one non-negative (before, after) pair per "
                             f"dimension ({ndim}), but got {pads!r}.")
        return tuple((int(a), int(b)) for a, b in pads)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        pads = self._pairs(len(x.shape))
        return AbstractTensor(tuple(n + a + b for n, (a, b) in zip(x.shape, pads)), x.dtype)

    def bprop(self, x, out, dout):
        pads = self._pairs(len(x.shape))
        return (Slice()(dout, tuple(a for a, _ in pads), tuple(x.shape)),)

    def numpy(self, np, x):
        return np.pad(x, self._pairs(x.ndim))

    def torch(self, torch, x):
        pads = self._pairs(x.ndim)
        flat = [v for pair in reversed(pads) for v in pair]
        return torch.nn.functional.pad(x, flat) if flat else x.clone()

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)), attrs={"paddings": ((1, 0), (2, 1))})
        yield Sample(rand_float(rng, (2, 1, 2)), attrs={"paddings": ((0, 0), (1, 1), (0, 2))})


_PAD_MODES = ("constant", "reflect", "edge", "circular")


def pad_pairs(op, paddings, ndim, contiguous=True):
    """Torch-order paddings (last dimension first) → one (before, after) pair per dimension."""
    flat = _ints(op, "paddings", paddings)
    if len(flat) % 2 or len(flat) // 2 > ndim:
        raise ValueError(f"For '{op}', the length of 'paddings' must be even and at most 2 * rank ({2 * ndim}), "
                         f"but got {len(flat)}.")
    k = len(flat) // 2
    pairs = [(flat[2 * i], flat[2 * i + 1]) if contiguous else (flat[i], flat[k + i]) for i in range(k)]
    return tuple([(0, 0)] * (ndim - k) + pairs[::-1])


def _source_index(np_like, mode, n, before, after, device=None):
    """For each output position along one axis, the input position it copies (reflect/edge/circular)."""
    if np_like.__name__ == "torch":
        p = np_like.arange(-before, n + after, device=device)
    else:
        p = np_like.arange(-before, n + after)
    if mode == "edge":
        return p.clip(0, n - 1)
    if mode == "circular":
        return p % n
    p = abs(p)
    return (n - 1) - abs((n - 1) - p)


class _PadV3Base(Primitive):
    attr_defaults = {"mode": "constant", "paddings_contiguous": True}

    def check_attrs(self):
        if self.mode not in _PAD_MODES:
            raise ValueError(f"For '{self.name}', 'mode' must be one of {list(_PAD_MODES)}, but got {self.mode!r}.")

    def pairs(self, shape, paddings):
        pairs = pad_pairs(self.name, paddings, len(shape), self.paddings_contiguous)
        for d, ((a, b), n) in enumerate(zip(pairs, shape)):
            if self.mode != "constant" and min(a, b) < 0:
                raise ValueError(f"For '{self.name}', negative paddings are only allowed in 'constant' mode, "
                                 f"but got {(a, b)} for dimension {d}.")
            if self.mode == "reflect" and max(a, b) >= n:
                raise ValueError(f"For '{self.name}', in 'reflect' mode each padding must be smaller than the "
                                 f"dimension size, but got {(a, b)} for dimension {d} of size {n}.")
            if self.mode in ("edge", "circular") and n == 0 and max(a, b) > 0:
                raise ValueError(f"For '{self.name}', cannot pad an empty dimension {d} in '{self.mode}' mode.")
            if n + a + b < 0:
                raise ValueError(f"For '{self.name}', paddings {(a, b)} leave dimension {d} of size {n} negative.")
        return pairs


@register
class PadV3(_PadV3Base):
    """PadV3(mode='constant', paddings_contiguous=True)(x, paddings, constant_value): torch-order paddings
    (last dimension first); negative paddings crop in constant mode."""
    input_names = ("x", "paddings", "constant_value")

    def infer(self, x, paddings, value=None):
        check_tensor(self.name, "x", x)
        pairs = self.pairs(tuple(x.shape), paddings)
        return AbstractTensor(tuple(n + a + b for n, (a, b) in zip(x.shape, pairs)), x.dtype)

    def bprop(self, x, paddings, value, out, dout):
        if self.mode == "constant":
            pairs = self.pairs(tuple(x.shape), paddings)
            neg = tuple(v for a, b in reversed(pairs) for v in (-a, -b))
            dx = PadV3("constant")(dout, neg, 0)
            dvalue = None
            if hasattr(value, "shape"):
                # the fill value lands on every padded element: its gradient is the sum outside the interior
                rs = prim("ReduceSum")
                dvalue = prim("Sub")(rs(dout, ()), rs(dx, ()))
                dvalue = prim("Reshape")(prim("Cast")(dvalue, value.dtype), tuple(value.shape))
            return dx, None, dvalue
        return PadV3Grad(self.mode, self.paddings_contiguous)(dout, paddings), None, None

    def numpy(self, np, x, paddings, value=None):
        pairs = self.pairs(x.shape, paddings)
        if self.mode == "constant":
            crop = tuple(slice(max(-a, 0), n - max(-b, 0)) for n, (a, b) in zip(x.shape, pairs))
            grow = tuple((max(a, 0), max(b, 0)) for a, b in pairs)
            fill = 0 if value is None else np.asarray(value).reshape(()).astype(x.dtype)
            return np.pad(x[crop], grow, constant_values=fill)
        for d, (a, b) in enumerate(pairs):
            if a or b:
                x = np.take(x, _source_index(np, self.mode, x.shape[d], a, b), axis=d)
        return c_array(x)

    def torch(self, torch, x, paddings, value=None):
        pairs = self.pairs(tuple(x.shape), paddings)
        if self.mode == "constant":
            flat = [v for pair in reversed(pairs) for v in pair]
            fill = 0 if value is None else (value.item() if hasattr(value, "item") else value)
            return torch.nn.functional.pad(x, flat, value=fill) if flat else x.clone()
        for d, (a, b) in enumerate(pairs):
            if a or b:
                x = torch.index_select(x, d, _source_index(torch, self.mode, x.shape[d], a, b, x.device))
        return x.contiguous()

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3, 4))
        yield Sample(x, (1, 2), 0.5, attrs={"mode": "constant"})
        yield Sample(x, (-1, 2, 1, 0), np.array(1.5, np.float32), attrs={"mode": "constant"}, name="crop-tensor-value")
        yield Sample(x, (2, 3, 1, 2), None, attrs={"mode": "reflect"})
        yield Sample(x, (3, 1, 0, 2), None, attrs={"mode": "edge"})
        yield Sample(x, (1, 5, 2, 1), None, attrs={"mode": "circular"})
        yield Sample(x, (1, 0, 2, 1), None, attrs={"mode": "edge", "paddings_contiguous": False}, name="noncontig")


@register
class PadV3Grad(_PadV3Base):
    """PadV3Grad(mode, paddings_contiguous)(dy, paddings): the adjoint of PadV3 for reflect/edge/circular:
    sums every padded copy back onto its source element."""
    input_names = ("dy", "paddings")

    def _in_shape(self, dy_shape, paddings):
        pairs = pad_pairs(self.name, paddings, len(dy_shape), self.paddings_contiguous)
        return tuple(n - a - b for n, (a, b) in zip(dy_shape, pairs)), pairs

    def infer(self, dy, paddings):
        check_tensor(self.name, "dy", dy)
        if self.mode == "constant":
            raise ValueError(f"For '{self.name}', 'constant' mode has no PadV3Grad; its adjoint is a crop.")
        shape, _ = self._in_shape(tuple(dy.shape), paddings)
        self.pairs(shape, paddings)
        return AbstractTensor(shape, dy.dtype)

    def bprop(self, dy, paddings, out, dout):
        return PadV3(self.mode, self.paddings_contiguous)(dout, paddings), None

    def numpy(self, np, dy, paddings):
        shape, pairs = self._in_shape(dy.shape, paddings)
        g = dy
        for d in reversed(range(len(shape))):
            a, b = pairs[d]
            if a or b:
                moved = np.moveaxis(g, d, 0)
                acc = np.zeros((shape[d],) + moved.shape[1:], dy.dtype)
                np.add.at(acc, _source_index(np, self.mode, shape[d], a, b), moved)
                g = np.moveaxis(acc, 0, d)
        return c_array(g)

    def torch(self, torch, dy, paddings):
        shape, pairs = self._in_shape(tuple(dy.shape), paddings)
        g = dy
        for d in reversed(range(len(shape))):
            a, b = pairs[d]
            if a or b:
                size = list(g.shape)
                size[d] = shape[d]
                acc = torch.zeros(size, dtype=dy.dtype, device=dy.device)
                g = acc.index_add_(d, _source_index(torch, self.mode, shape[d], a, b, dy.device), g)
        return g.contiguous()

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 7, 9)), (2, 3, 1, 2), attrs={"mode": "reflect"})
        yield Sample(rand_float(rng, (2, 6, 6)), (1, 1, 3, 0), attrs={"mode": "edge"})
        yield Sample(rand_float(rng, (3, 9)), (5, 1), attrs={"mode": "circular"})


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, Pad, PadV3, formats=("MINDIR",))
not_exportable(NO_ONNX, Pad, PadV3, formats=("ONNX",))
not_exportable(BACKWARD, PadV3Grad)
