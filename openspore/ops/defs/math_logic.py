"""Primitives: comparisons, logical ops, NaN/Inf tests (boolean outputs, not differentiable) and Select."""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import mindir
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import (broadcast_shape, check_dtype, check_same_dtype, check_tensor, prim, rand_float, same_as,
                    sum_to_shape)
from .math import _Binary

_BOOL_REASON = "the output is a boolean mask"


# ---- comparisons --------------------------------------------------------------------------------
class _Compare(_Binary):
    differentiable = False
    nondiff_reason = _BOOL_REASON
    kinds = ("bool", "int", "uint", "float")

    def out_dtype(self, dtype):
        return mstype.bool_

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        y = rand_float(rng, (3, 4))
        y[0] = x[0]  # ties exercise the equal/unequal boundary
        yield Sample(x, y)
        yield Sample(rand_float(rng, (2, 3, 4)), rand_float(rng, (4,)), name="broadcast")
        yield Sample(np.array([1, 2, 3, -1], np.int32), np.array([2, 2, 2, -1], np.int32), name="int")
        yield Sample(np.array([0.5, np.nan, np.inf, -np.inf], np.float32), np.float32(0.5) * np.ones(1, np.float32),
                     name="special")


def _compare(name, np_name, torch_name, kinds=None, doc=""):
    attrs = {"numpy": lambda self, np, x, y: np.asarray(getattr(np, np_name)(x, y)),
             "torch": lambda self, torch, x, y: getattr(torch, torch_name)(x, y),
             "__doc__": doc or f"{name}()(x, y): elementwise comparison with broadcasting; Bool output.",
             "__module__": __name__, "__qualname__": name}
    if kinds is not None:
        attrs["kinds"] = kinds
    return register(type(name, (_Compare,), attrs))


_ALL = ("bool", "int", "uint", "float", "complex")
Equal = _compare("Equal", "equal", "eq", kinds=_ALL)
NotEqual = _compare("NotEqual", "not_equal", "ne", kinds=_ALL)
Less = _compare("Less", "less", "lt")
LessEqual = _compare("LessEqual", "less_equal", "le")
Greater = _compare("Greater", "greater", "gt")
GreaterEqual = _compare("GreaterEqual", "greater_equal", "ge")


# ---- logical ----------------------------------------------------------------------------------------
class _Logical(_Compare):
    """Inputs of any dtype are read as truth values (nonzero is True)."""
    kinds = _ALL

    @classmethod
    def samples(cls, rng):
        a = np.array([[True, False, True, False]])
        b = np.array([[True], [False]])
        yield Sample(a, b, name="broadcast")
        yield Sample(np.array([0, 2, -1, 0], np.int32), np.array([1, 0, 3, 0], np.int32), name="int")


LogicalAnd = register(type("LogicalAnd", (_Logical,), {
    "__doc__": "LogicalAnd()(x, y): x and y elementwise; Bool output.", "__module__": __name__,
    "numpy": lambda self, np, x, y: np.asarray(np.logical_and(x, y)),
    "torch": lambda self, torch, x, y: torch.logical_and(x, y)}))
LogicalOr = register(type("LogicalOr", (_Logical,), {
    "__doc__": "LogicalOr()(x, y): x or y elementwise; Bool output.", "__module__": __name__,
    "numpy": lambda self, np, x, y: np.asarray(np.logical_or(x, y)),
    "torch": lambda self, torch, x, y: torch.logical_or(x, y)}))
LogicalXor = register(type("LogicalXor", (_Logical,), {
    "__doc__": "LogicalXor()(x, y): x xor y elementwise; Bool output.", "__module__": __name__,
    "numpy": lambda self, np, x, y: np.asarray(np.logical_xor(x, y)),
    "torch": lambda self, torch, x, y: torch.logical_xor(x, y)}))


class _Predicate(Primitive):
    """Elementwise test with a Bool output."""
    input_names = ("x",)
    differentiable = False
    nondiff_reason = _BOOL_REASON
    kinds = _ALL

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, self.kinds)
        return same_as(x, mstype.bool_)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([[0.5, np.nan, np.inf], [-np.inf, 0.0, -2.0]], np.float32))
        yield Sample(np.array([0, 3, -1], np.int32), name="int")
        yield Sample(np.array([True, False]), name="bool")


@register
class LogicalNot(_Predicate):
    """LogicalNot()(x): not x elementwise; Bool output."""

    def numpy(self, np, x):
        return np.asarray(np.logical_not(x))

    def torch(self, torch, x):
        return torch.logical_not(x)


@register
class IsNan(_Predicate):
    """IsNan()(x): True where x is NaN."""

    def numpy(self, np, x):
        return np.asarray(np.isnan(x)) if x.dtype.kind in "fc" else np.zeros(x.shape, np.bool_)

    def torch(self, torch, x):
        return torch.isnan(x)


@register
class IsInf(_Predicate):
    """IsInf()(x): True where x is +inf or -inf."""

    def numpy(self, np, x):
        return np.asarray(np.isinf(x)) if x.dtype.kind in "fc" else np.zeros(x.shape, np.bool_)

    def torch(self, torch, x):
        return torch.isinf(x)


@register
class IsFinite(_Predicate):
    """IsFinite()(x): True where x is neither NaN nor infinite."""

    def numpy(self, np, x):
        return np.asarray(np.isfinite(x)) if x.dtype.kind in "fc" else np.ones(x.shape, np.bool_)

    def torch(self, torch, x):
        return torch.isfinite(x)


# ---- select ---------------------------------------------------------------------------------------
@register
class Select(Primitive):
    """Select()(condition, x, y): x where condition else y, all three broadcast together."""
    input_names = ("cond", "x", "y")
    promote = (1, 2)

    def infer(self, cond, x, y):
        for name, t in zip(self.input_names, (cond, x, y)):
            check_tensor(self.name, name, t)
        if cond.dtype is not mstype.bool_:
            raise TypeError(f"For 'Select', the 'cond' must be a Tensor of Bool, but got Tensor[{cond.dtype}].")
        dtype = check_same_dtype(self.name, self.input_names[1:], x, y)
        return AbstractTensor(broadcast_shape(self.name, cond, x, y), dtype)

    def bprop(self, cond, x, y, out, dout):
        if x.dtype.kind not in ("float", "complex"):
            return (None, None, None)
        zeros = prim("ZerosLike")(dout)
        return (None, sum_to_shape(Select()(cond, dout, zeros), x.shape),
                sum_to_shape(Select()(cond, zeros, dout), y.shape))

    def numpy(self, np, cond, x, y):
        return np.asarray(np.where(cond, x, y))

    def torch(self, torch, cond, x, y):
        return torch.where(cond, x, y)

    @classmethod
    def samples(cls, rng):
        cond = rng.uniform(size=(3, 4)) > 0.5
        yield Sample(cond, rand_float(rng, (3, 4)), rand_float(rng, (3, 4)))
        yield Sample(cond[:1], rand_float(rng, (2, 3, 4)), rand_float(rng, (4,)), name="broadcast")
        yield Sample(np.array([True, False, True]), np.array([1, 2, 3], np.int32), np.array([-1, -2, -3], np.int32),
                     name="int")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_ONNX, NotEqual, IsInf, IsFinite, formats=("ONNX",))
not_exportable(NO_MINDIR, LogicalXor, formats=("MINDIR",))
not_exportable(NO_ONNX, LogicalXor, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(LogicalNot, IsNan, IsInf, IsFinite)
mindir(Greater, GreaterEqual, Less, LessEqual, Equal, NotEqual, LogicalAnd, LogicalOr, inputs=("x", "y"))
mindir(Select, inputs=("cond", "x", "y"))

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Greater, _onnx.elementwise("Greater"))
_onnx.declare(GreaterEqual, _onnx.elementwise("GreaterOrEqual"))
_onnx.declare(Less, _onnx.elementwise("Less"))
_onnx.declare(LessEqual, _onnx.elementwise("LessOrEqual"))
_onnx.declare(Equal, _onnx.elementwise("Equal"))
_onnx.declare(LogicalAnd, _onnx.elementwise("And", "bool"))
_onnx.declare(LogicalOr, _onnx.elementwise("Or", "bool"))
_onnx.declare(LogicalNot, _onnx.unary("Not", "bool"))
_onnx.declare(IsNan, _onnx.unary("IsNaN", "float"))
_onnx.declare(Select, _onnx.select)
