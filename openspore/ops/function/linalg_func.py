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

__all__ = ["inverse", "matrix_inverse", "cholesky", "cholesky_solve", "cholesky_inverse", "det", "matrix_determinant",
           "slogdet", "log_matrix_determinant", "logdet"]


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


def det(input):
    """The determinant of each square matrix over the last two axes."""
    return P.MatrixDeterminant()(input)


def matrix_determinant(input):
    """The determinant of each square matrix over the last two axes (as `det`)."""
    return P.MatrixDeterminant()(input)


def slogdet(input):
    """(sign, log|det|) of each square matrix over the last two axes."""
    return P.LogMatrixDeterminant()(input)


def log_matrix_determinant(input):
    """(sign, log|det|) of each square matrix over the last two axes (as `slogdet`)."""
    return P.LogMatrixDeterminant()(input)


def logdet(input):
    """log(det) of each square matrix: NaN where the determinant is negative, −inf where it is 0."""
    sign, logabs = P.LogMatrixDeterminant()(input)
    nan = F.full_like(logabs, float("nan"))
    return F.where(sign < 0, nan, F.where(sign == 0, F.full_like(logabs, float("-inf")), logabs))
