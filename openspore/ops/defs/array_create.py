"""Primitives: tensor creation and triangular masks (Fill, FillV2, Zeros, Ones, Range, Eye, Tril, Triu).

Generators have no tensor inputs; their dtype comes from a dtype input or from the fill value.
"""
import math

import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_tensor, prim, rand_float


def _shape(op, shape, name="shape"):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if hasattr(shape, "asnumpy"):
        shape = tuple(shape.asnumpy().reshape(-1).tolist())
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                                       for s in shape):
        raise TypeError(f"For '{op}', '{name}' must be a tuple of ints, but got {shape!r}.")
    if any(s < 0 for s in shape):
        raise ValueError(f"For '{op}', '{name}' must not hold negative sizes, but got {tuple(shape)}.")
    return tuple(int(s) for s in shape)


def _dtype(op, dtype, name="type"):
    if not isinstance(dtype, mstype.Type) or dtype not in mstype.TENSOR_DTYPES:
        raise TypeError(f"For '{op}', '{name}' must be a tensor dtype such as mindspore.float32, but got {dtype!r}.")
    return dtype


def _tdtype(dtype):
    from ...backends.torch_backend import torch_dtype
    return torch_dtype(dtype)


@register
class Fill(Primitive):
    """Fill()(type, shape, value): a tensor of `shape` and dtype `type` holding `value` everywhere."""
    input_names = ("type", "shape", "value")
    differentiable = False
    nondiff_reason = "the inputs are a dtype, a shape and a Python number"

    def infer(self, dtype, shape, value):
        if not isinstance(value, (bool, int, float)):
            raise TypeError(f"For '{self.name}', 'value' must be a number, but got {type(value).__name__}.")
        return AbstractTensor(_shape(self.name, shape), _dtype(self.name, dtype))

    def numpy(self, np, dtype, shape, value):
        return np.full(_shape(self.name, shape), value, dtype.np_dtype)

    def torch(self, torch, dtype, shape, value):
        return torch.full(_shape(self.name, shape), value, dtype=_tdtype(dtype))

    @classmethod
    def samples(cls, rng):
        yield Sample(mstype.float32, (2, 3), 1.5)
        yield Sample(mstype.int32, (4,), 7)
        yield Sample(mstype.bool_, (), True)


@register
class FillV2(Primitive):
    """FillV2()(shape, value): a tensor of `shape` filled with the 0-d tensor `value` (and of its dtype)."""
    input_names = ("shape", "value")

    def infer(self, shape, value):
        check_tensor(self.name, "value", value)
        if value.shape not in ((), (1,)):
            raise ValueError(f"For '{self.name}', 'value' must hold one element, but got shape {list(value.shape)}.")
        return AbstractTensor(_shape(self.name, shape), value.dtype)

    def bprop(self, shape, value, out, dout):
        return None, prim("Reshape")(prim("ReduceSum")(dout, ()), tuple(value.shape))

    def numpy(self, np, shape, value):
        return np.full(_shape(self.name, shape), value.reshape(()), value.dtype)

    def torch(self, torch, shape, value):
        return value.reshape(()).expand(_shape(self.name, shape)).contiguous()

    @classmethod
    def samples(cls, rng):
        yield Sample((2, 3), np.array(0.75, np.float32))
        yield Sample((3,), np.array([4], np.int64))


class _Constant(Primitive):
    input_names = ("shape", "type")
    differentiable = False
    nondiff_reason = "the inputs are a shape and a dtype"
    value = 0

    def infer(self, shape, dtype=mstype.float32):
        return AbstractTensor(_shape(self.name, shape), _dtype(self.name, dtype))

    def numpy(self, np, shape, dtype=mstype.float32):
        return np.full(_shape(self.name, shape), self.value, dtype.np_dtype)

    def torch(self, torch, shape, dtype=mstype.float32):
        return torch.full(_shape(self.name, shape), self.value, dtype=_tdtype(dtype))

    @classmethod
    def samples(cls, rng):
        yield Sample((2, 3), mstype.float32)
        yield Sample(4, mstype.int64)


@register
class Zeros(_Constant):
    """Zeros()(size, type): a tensor of zeros."""
    value = 0


@register
class Ones(_Constant):
    """Ones()(shape, type): a tensor of ones."""
    value = 1


def _number(op, name, v):
    if hasattr(v, "asnumpy"):  # a tensor whose value is known (PyNative)
        v = v.asnumpy()
    if isinstance(v, np.ndarray):
        if v.size != 1:
            raise ValueError(f"For '{op}', '{name}' must hold one element, but got shape {list(v.shape)}.")
        return v.reshape(()).item(), mstype.nptype_to_dtype(v.dtype)
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        raise TypeError(f"For '{op}', '{name}' must be a constant; its value is unknown while compiling.")
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"For '{op}', '{name}' must be an int or a float, but got {type(v).__name__}.")
    return v, None


@register
class Range(Primitive):
    """Range(maxlen=1000000)(start, limit, delta): start, start + delta, … up to (not including) limit.
    As on MindSpore 2.10, every int input (Python or a tensor of any int dtype) counts as Int64 and every float
    one as Float32: all three must agree (else a TypeError) and the output has that dtype."""
    attr_defaults = {"maxlen": 1000000}
    input_names = ("start", "limit", "delta")
    differentiable = False
    nondiff_reason = "the output depends only on constant endpoints"

    def plan(self, start, limit, delta):
        values, dtypes = [], []
        for name, v in (("start", start), ("limit", limit), ("delta", delta)):
            value, dtype = _number(self.name, name, v)
            values.append(value)
            is_int = dtype.kind in ("int", "uint") if dtype is not None else isinstance(value, (int, np.integer))
            dtypes.append(mstype.int64 if is_int else mstype.float32)
        if len(set(dtypes)) > 1:
            raise TypeError(f"For {self.name}, the dtypes of inputs must be the same, but got "
                            f"({', '.join(str(d) for d in dtypes)}).")
        start, limit, delta = values
        if delta == 0:
            raise ValueError(f"For '{self.name}', 'delta' must not be 0.")
        if (limit - start) * delta < 0:
            raise ValueError(f"For '{self.name}', 'delta' {delta} points away from 'limit' {limit} "
                             f"starting at {start}.")
        n = max(0, math.ceil((limit - start) / delta))
        if n > self.maxlen:
            raise ValueError(f"For '{self.name}', the output length {n} exceeds 'maxlen' {self.maxlen}.")
        return start, delta, n, dtypes[0]

    def infer(self, start, limit, delta):
        _, _, n, dtype = self.plan(start, limit, delta)
        return AbstractTensor((n,), dtype)

    def numpy(self, np, start, limit, delta):
        start, delta, n, dtype = self.plan(start, limit, delta)
        if dtype.kind in ("int", "uint"):
            return (start + delta * np.arange(n, dtype=np.int64)).astype(dtype.np_dtype)
        return (start + delta * np.arange(n, dtype=np.float64)).astype(dtype.np_dtype)

    def torch(self, torch, start, limit, delta):
        start, limit, delta = (v.cpu().numpy() if isinstance(v, torch.Tensor) else v for v in (start, limit, delta))
        start, delta, n, dtype = self.plan(start, limit, delta)
        wide = torch.int64 if dtype.kind in ("int", "uint") else torch.float64
        return (start + delta * torch.arange(n, dtype=wide)).to(_tdtype(dtype))

    @classmethod
    def samples(cls, rng):
        yield Sample(0, 5, 1)
        yield Sample(1.0, -2.0, -0.7)
        yield Sample(np.array(2, np.int32), 11, 3, name="tensor-start")  # Int64 out, as on MindSpore


@register
class Eye(Primitive):
    """Eye()(n, m, t): an n × m matrix of dtype t with ones on the diagonal."""
    input_names = ("n", "m", "t")
    differentiable = False
    nondiff_reason = "the inputs are sizes and a dtype"

    def infer(self, n, m, t):
        n, m = _shape(self.name, (n, m), "n and m")
        return AbstractTensor((n, m), _dtype(self.name, t, "t"))

    def numpy(self, np, n, m, t):
        return np.eye(n, m, dtype=t.np_dtype)

    def torch(self, torch, n, m, t):
        return torch.eye(n, m, dtype=_tdtype(t))

    @classmethod
    def samples(cls, rng):
        yield Sample(3, 3, mstype.float32)
        yield Sample(2, 4, mstype.int32)


class _Triangle(Primitive):
    attr_defaults = {"diagonal": 0}
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        if len(x.shape) < 2:
            raise ValueError(f"For '{self.name}', the rank of 'x' must be at least 2, but got shape {list(x.shape)}.")
        return AbstractTensor(x.shape, x.dtype)

    def bprop(self, x, out, dout):
        return (type(self)(self.diagonal)(dout),)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)))
        yield Sample(rand_float(rng, (2, 3, 3)), attrs={"diagonal": -1})
        yield Sample(rand_float(rng, (4, 3)), attrs={"diagonal": 2})


@register
class Tril(_Triangle):
    """Tril(diagonal=0)(x): keep the lower triangle of the last two dims (on and below `diagonal`)."""

    def numpy(self, np, x):
        return np.tril(x, self.diagonal)

    def torch(self, torch, x):
        return torch.tril(x, self.diagonal)


@register
class Triu(_Triangle):
    """Triu(diagonal=0)(x): keep the upper triangle of the last two dims (on and above `diagonal`)."""

    def numpy(self, np, x):
        return np.triu(x, self.diagonal)

    def torch(self, torch, x):
        return torch.triu(x, self.diagonal)


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, Fill, FillV2, Zeros, Ones, Range, Eye, Tril, Triu, formats=("MINDIR",))
not_exportable(NO_ONNX, Fill, FillV2, Zeros, Ones, Range, Eye, Tril, Triu, formats=("ONNX",))
