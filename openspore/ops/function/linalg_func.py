"""Linear-algebra functions on the MatrixInverse and Cholesky primitives: `ops.inverse`, `ops.cholesky`,
`ops.cholesky_solve`, `ops.cholesky_inverse`, `ops.solve_triangular`-style helpers used by `openspore.scipy`.

>>> import openspore as ms, numpy as np
>>> a = ms.Tensor(np.array([[4.0, 2.0], [2.0, 3.0]], np.float32))
>>> l = ms.ops.cholesky(a)
>>> np.allclose((l @ l.T).asnumpy(), a.asnumpy())
True
"""
from .. import operations as P
from ._base_ops import F

__all__ = ["inverse", "matrix_inverse", "cholesky", "cholesky_solve", "cholesky_inverse"]


def inverse(input):
    """The inverse of each square matrix."""
    return P.MatrixInverse()(input)


def matrix_inverse(x, adjoint=False):
    """The inverse (of the conjugate transpose when adjoint) of each square matrix."""
    return P.MatrixInverse(adjoint=adjoint)(x)


def cholesky(input_x, upper=False):
    """The Cholesky factor (lower, or upper when `upper`) of each symmetric positive definite matrix."""
    return P.Cholesky(upper=upper)(input_x)


def cholesky_solve(input, input2, upper=False):
    """x solving A x = input with A = L Lᵀ given by its Cholesky factor `input2` (U when `upper`)."""
    lower = F.swapaxes(input2, -1, -2) if upper else input2
    inv = P.MatrixInverse()(lower)
    return F.matmul(F.swapaxes(inv, -1, -2), F.matmul(inv, input))


def cholesky_inverse(input_x, upper=False):
    """A⁻¹ from A's Cholesky factor."""
    lower = F.swapaxes(input_x, -1, -2) if upper else input_x
    inv = P.MatrixInverse()(lower)
    return F.matmul(F.swapaxes(inv, -1, -2), inv)
