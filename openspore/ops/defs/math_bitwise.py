"""Primitives: Inv (elementwise reciprocal, MindSpore's older name), the bitwise family (Invert, BitwiseAnd,
BitwiseOr, BitwiseXor) on integer and boolean tensors, and LinSpace.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import broadcast_shape, check_dtype, check_same_dtype, check_tensor, prim, same_as
from .math_unary import _unary

_BITWISE_REASON = "bitwise operations on integers are piecewise constant"
_INT_KINDS = ("int", "uint", "bool")

def _integer_reciprocal(xp, x, lowest):
    """1 / x truncated toward zero, as MindSpore's integer Inv: 1 and -1 are their own reciprocals, every other
    nonzero value gives 0, and 0 gives the dtype's lowest value."""
    zero = xp.zeros_like(x)
    return xp.where(x == 1, x, xp.where(x == -1, x, xp.where(x == 0, zero + lowest, zero)))


def _np_inv(np, x):
    if x.dtype.kind in "iu":
        return _integer_reciprocal(np, x, np.iinfo(x.dtype).min)
    return 1 / x


def _torch_inv(torch, x):
    if x.is_floating_point() or x.is_complex():
        return torch.reciprocal(x)
    return _integer_reciprocal(torch, x, torch.iinfo(x.dtype).min)


Inv = _unary("Inv", _np_inv, _torch_inv,
             lambda x, out, dout: prim("Neg")(prim("Mul")(dout, prim("Mul")(out, out))), domain=(0.5, 2.0),
             float_out=False, kinds=("int", "uint", "float", "complex"),
             doc="Inv()(x): 1 / x elementwise; integer inputs keep their dtype (1 / x truncated toward zero).")


@register
class Invert(Primitive):
    """Invert()(x): bitwise NOT of an integer (or boolean) tensor."""
    input_names = ("x",)
    differentiable = False
    nondiff_reason = _BITWISE_REASON

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, _INT_KINDS)
        return same_as(x)

    def numpy(self, np, x):
        return np.asarray(np.invert(x))

    def torch(self, torch, x):
        return torch.bitwise_not(x)

    @classmethod
    def samples(cls, rng):
        yield Sample(rng.integers(-50, 50, size=(3, 4)).astype(np.int32))
        yield Sample(rng.integers(0, 200, size=(5,)).astype(np.uint8), name="uint8")
        yield Sample(np.array([True, False]), name="bool")


class _Bitwise(Primitive):
    input_names = ("x1", "x2")
    differentiable = False
    nondiff_reason = _BITWISE_REASON

    def infer(self, x, y):
        check_tensor(self.name, "x1", x)
        check_tensor(self.name, "x2", y)
        check_dtype(self.name, "x1", x, _INT_KINDS)
        check_same_dtype(self.name, self.input_names, x, y)
        return AbstractTensor(broadcast_shape(self.name, x, y), x.dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample(rng.integers(-50, 50, size=(3, 4)).astype(np.int32), rng.integers(-50, 50, size=(3, 4)).astype(np.int32))
        yield Sample(rng.integers(0, 100, size=(2, 3)).astype(np.int64), rng.integers(0, 100, size=(3,)).astype(np.int64),
                     name="broadcast")
        yield Sample(np.array([True, False, True]), np.array([True, True, False]), name="bool")


def _bitwise(name, np_fn, torch_fn):
    return register(type(name, (_Bitwise,), {
        "__doc__": f"{name}()(x1, x2): elementwise bitwise {name[7:].upper()} of integer tensors (broadcasting).",
        "__module__": __name__,
        "numpy": lambda self, np, x, y: np.asarray(np_fn(np, x, y)),
        "torch": lambda self, torch, x, y: torch_fn(torch, x, y)}))


BitwiseAnd = _bitwise("BitwiseAnd", lambda np, x, y: np.bitwise_and(x, y), lambda t, x, y: t.bitwise_and(x, y))
BitwiseOr = _bitwise("BitwiseOr", lambda np, x, y: np.bitwise_or(x, y), lambda t, x, y: t.bitwise_or(x, y))
BitwiseXor = _bitwise("BitwiseXor", lambda np, x, y: np.bitwise_xor(x, y), lambda t, x, y: t.bitwise_xor(x, y))


@register
class LinSpace(Primitive):
    """LinSpace()(start, stop, num): `num` evenly spaced values from the scalar tensor start to stop (inclusive)."""
    input_names = ("start", "stop", "num")

    def infer(self, start, stop, num):
        for name, v in (("start", start), ("stop", stop)):
            check_tensor(self.name, name, v)
            check_dtype(self.name, name, v, ("float",))
            if len(v.shape) != 0:
                raise ValueError(f"For '{self.name}', '{name}' must be a 0-D tensor, but got shape {list(v.shape)}.")
        if isinstance(num, bool) or not isinstance(num, (int, np.integer)) or num < 1:
            raise ValueError(f"For '{self.name}', 'num' must be a positive int, but got {num!r}.")
        return AbstractTensor((int(num),), start.dtype)

    @staticmethod
    def _fractions(np, num, dtype):
        return np.arange(num, dtype=np.float64) / max(num - 1, 1)

    def numpy(self, np, start, stop, num):
        t = self._fractions(np, int(num), start.dtype)
        return (start.astype(np.float64) + (stop.astype(np.float64) - start) * t).astype(start.dtype)

    def torch(self, torch, start, stop, num):
        num = int(num)
        t = torch.arange(num, dtype=torch.float64, device=start.device) / max(num - 1, 1)
        return (start.double() + (stop.double() - start.double()) * t).to(start.dtype)

    def bprop(self, start, stop, num, out, dout):
        # out_i = start + (stop − start)·t_i  ⇒  d start = Σ dout·(1 − t), d stop = Σ dout·t
        n = int(num)
        t = prim("Mul")(prim("Cast")(prim("Range")(0, n, 1), dout.dtype), 1.0 / max(n - 1, 1))
        d_stop = prim("ReduceSum")(prim("Mul")(dout, t), ())
        d_start = prim("Sub")(prim("ReduceSum")(dout, ()), d_stop)
        return d_start, d_stop, None

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array(rng.uniform(-2, 0), np.float32), np.array(rng.uniform(1, 3), np.float32), 5, grad=(0, 1))
        yield Sample(np.array(1.5), np.array(-0.5), 4, grad=(0, 1), name="decreasing64")
        yield Sample(np.array(2.0, np.float32), np.array(3.0, np.float32), 1, grad=(0, 1), name="one")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, Inv, Invert, BitwiseAnd, BitwiseOr, BitwiseXor, LinSpace, formats=("MINDIR",))
not_exportable(NO_ONNX, Inv, Invert, BitwiseAnd, BitwiseOr, BitwiseXor, LinSpace, formats=("ONNX",))
