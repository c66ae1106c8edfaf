"""Functional linear algebra: matmul (NumPy semantics), mm, bmm, trace, outer, inner, addmm, addcmul."""
from ...common.errors import with_location
from ...common import dtype as mstype
from ...core.registry import prim
from ...core.tensor import Tensor
from .. import operations as P
from .math_elementwise_func import cast

__all__ = ["matmul", "mm", "bmm", "trace", "outer", "inner", "addmm", "addcmul"]


def _check_tensor(op, name, value):
    if not isinstance(getattr(value, "dtype", None), mstype.Type):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor, but got {type(value).__name__}.")


_matmul, _batch_matmul, _reshape = prim(P.MatMul), prim(P.BatchMatMul), prim(P.Reshape)


def matmul(input, other):
    """matmul(input, other): matrix product with NumPy semantics.

    1-D x 1-D is a dot product; a 1-D operand is promoted to a matrix and the added dimension removed afterwards;
    2-D x 2-D is MatMul; higher ranks multiply the last two dimensions and broadcast the rest (BatchMatMul).

    >>> import numpy as np, openspore as ms
    >>> ms.ops.matmul(ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.ones((3,), np.float32))).shape
    (4,)
    """
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):
        _check_tensor("matmul", "input", input)
        _check_tensor("matmul", "other", other)
    a_shape, b_shape = input.shape, other.shape
    a_rank, b_rank = len(a_shape), len(b_shape)
    if not a_rank or not b_rank:
        raise with_location(ValueError(f"For 'matmul', the inputs must have at least one dimension, but got shapes "
                                       f"{list(a_shape)} and {list(b_shape)}."))
    k_a = a_shape[-1]
    k_b = b_shape[-2] if b_rank >= 2 else b_shape[0]
    if k_a != k_b:
        raise with_location(RuntimeError(
            f"For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2], but got {k_a} and {k_b} "
            f"(input shape {list(a_shape)}, other shape {list(b_shape)})."))
    if a_rank == 2 and b_rank == 2:  # the common case: one MatMul, nothing else
        return _matmul(input, other)
    a = _reshape(input, (1, k_a)) if a_rank == 1 else input
    b = _reshape(other, (k_b, 1)) if b_rank == 1 else other
    out = _matmul(a, b) if len(a.shape) == 2 and len(b.shape) == 2 else _batch_matmul(a, b)
    if a_rank == 1 or b_rank == 1:
        shape = tuple(out.shape)
        if b_rank == 1:
            shape = shape[:-1]
        if a_rank == 1:
            shape = shape[:-2] + shape[-1:] if b_rank > 1 else shape[:-1]
        out = _reshape(out, shape)
    return out


def mm(input, mat2):
    """mm(input, mat2): product of two 2-D matrices."""
    return prim(P.MatMul)(input, mat2)


def bmm(input_x, mat2):
    """bmm(input_x, mat2): batched product of (b, n, m) and (b, m, p) tensors."""
    _check_tensor("bmm", "input_x", input_x)
    _check_tensor("bmm", "mat2", mat2)
    if len(input_x.shape) != 3 or len(mat2.shape) != 3:
        raise ValueError(f"For 'bmm', 'input_x' and 'mat2' must be 3-D, but got shapes {list(input_x.shape)} and "
                         f"{list(mat2.shape)}.")
    return prim(P.BatchMatMul)(input_x, mat2)


def trace(input):
    """trace(input): the sum of the main diagonal of a 2-D tensor."""
    _check_tensor("trace", "input", input)
    if len(input.shape) != 2:
        raise ValueError(f"For 'trace', the input must be 2-D, but got shape {list(input.shape)}.")
    # row and column positions from scans of ones, so the diagonal mask is built inside the graph
    ones = prim(P.Cast)(prim(P.OnesLike)(input), mstype.int32)
    rows = prim(P.CumSum, exclusive=True)(ones, 0)
    cols = prim(P.CumSum, exclusive=True)(ones, 1)
    diagonal = prim(P.Select)(prim(P.Equal)(rows, cols), input, prim(P.ZerosLike)(input))
    return prim(P.ReduceSum)(diagonal, ())


def outer(input, vec2):
    """outer(input, vec2): the outer product of two 1-D tensors."""
    _check_tensor("outer", "input", input)
    _check_tensor("outer", "vec2", vec2)
    if len(input.shape) != 1 or len(vec2.shape) != 1:
        raise ValueError(f"For 'outer', 'input' and 'vec2' must be 1-D, but got shapes {list(input.shape)} and "
                         f"{list(vec2.shape)}.")
    return prim(P.Mul)(prim(P.Reshape)(input, (-1, 1)), prim(P.Reshape)(vec2, (1, -1)))


def inner(input, other):
    """inner(input, other): sum of products over the last dimension (a scalar operand multiplies)."""
    _check_tensor("inner", "input", input)
    _check_tensor("inner", "other", other)
    a_shape, b_shape = tuple(input.shape), tuple(other.shape)
    if not a_shape or not b_shape:
        return prim(P.Mul)(input, other)
    if a_shape[-1] != b_shape[-1]:
        raise ValueError(f"For 'inner', the last dimensions of 'input' and 'other' must match, but got shapes "
                         f"{list(a_shape)} and {list(b_shape)}.")
    dtype = mstype.promote_types(input.dtype, other.dtype)
    k = a_shape[-1]
    a = prim(P.Reshape)(cast(input, dtype), (-1, k))
    b = prim(P.Reshape)(cast(other, dtype), (-1, k))
    return prim(P.Reshape)(prim(P.MatMul, transpose_b=True)(a, b), a_shape[:-1] + b_shape[:-1])


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """addmm(input, mat1, mat2, *, beta=1, alpha=1): beta * input + alpha * (mat1 @ mat2)."""
    product = prim(P.MatMul)(mat1, mat2)
    if alpha != 1:
        product = prim(P.Mul)(product, alpha)
    return prim(P.Add)(input if beta == 1 else prim(P.Mul)(input, beta), product)


def addcmul(input, tensor1, tensor2, value=1):
    """addcmul(input, tensor1, tensor2, value=1): input + value * tensor1 * tensor2."""
    return prim(P.Add)(input, prim(P.Mul)(prim(P.Mul)(tensor1, tensor2), value))
