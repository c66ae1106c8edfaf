"""Functional math: arithmetic, comparisons, logic, matmul, reductions (MindSpore 2.x signatures)."""
from ...common import dtype as mstype
from ...core.tensor import Tensor
from .. import operations as P

__all__ = ["add", "sub", "mul", "neg", "matmul", "mm", "sum", "cast", "zeros_like", "ones_like"]

_add, _sub, _mul, _neg = P.Add(), P.Sub(), P.Mul(), P.Neg()
_cast = P.Cast()


def add(input, other):
    """input + other with broadcasting and MindSpore's type promotion."""
    return _add(input, other)


def sub(input, other):
    return _sub(input, other)


def mul(input, other):
    return _mul(input, other)


def neg(input):
    return _neg(input)


def cast(input, dtype):
    dtype = mstype.to_dtype(dtype, "cast")
    if isinstance(input, Tensor) and input.dtype is dtype:
        return input
    return _cast(input, dtype)


def zeros_like(input, *, dtype=None):
    out = P.ZerosLike()(input)
    return cast(out, dtype) if dtype is not None else out


def ones_like(input, *, dtype=None):
    out = P.OnesLike()(input)
    return cast(out, dtype) if dtype is not None else out


def matmul(input, other):
    """Matrix product with numpy semantics (1-D, 2-D and batched)."""
    if input.ndim == 2 and other.ndim == 2:
        return P.MatMul()(input, other)
    raise NotImplementedError("batched matmul arrives with BatchMatMul")


def mm(input, mat2):
    return P.MatMul()(input, mat2)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (int, tuple or None for all)."""
    if dtype is not None:
        input = cast(input, dtype)
    return P.ReduceSum(keep_dims=keepdim)(input, () if dim is None else dim)
