"""Linear solves composed from primitives: LU unpacking and solving (`ops.lu_unpack`, `ops.lu_solve`), triangular
solves and least squares (`ops.lstsq`, normal equations with an optional ridge term, MindSpore's "fast" path).

>>> import numpy as np, openspore as ms
>>> a = ms.Tensor(np.array([[2.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
>>> b = ms.Tensor(np.array([[2.0], [2.0], [1.0]]))
>>> np.round(ms.ops.lstsq(a, b).asnumpy().ravel(), 6).tolist()
[1.0, 1.0]
"""
import numpy as np

from ...core.tensor import Tensor
from ._base_ops import F
from .linalg_func import matrix_inverse

__all__ = ["lu_unpack", "lu_solve", "triangular_solve", "lstsq", "matrix_solve_ls"]


def _check(op, name, value, min_rank=2):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(value).__name__}.")
    if len(value.shape) < min_rank:
        raise ValueError(f"For '{op}', '{name}' must have rank at least {min_rank}, but got {list(value.shape)}.")


def _masks(n, m, dtype):
    lower = np.tril(np.ones((n, m)), -1).astype(dtype.np_dtype)
    upper = np.triu(np.ones((n, m))).astype(dtype.np_dtype)
    return Tensor(lower), Tensor(upper)


def _permutations(pivots, n):
    """Row permutation matrices P (A = P L U) from LAPACK-style 1-based sequential row swaps."""
    piv = np.asarray(pivots.asnumpy() if isinstance(pivots, Tensor) else pivots).astype(np.int64)
    batch = piv.shape[:-1]
    flat = piv.reshape(-1, piv.shape[-1])
    mats = np.zeros((flat.shape[0], n, n))
    for b, row in enumerate(flat):
        order = np.arange(n)
        for i, p in enumerate(row):
            if not 1 <= p <= n:
                raise ValueError(f"For 'lu_unpack', pivots must lie in [1, {n}], but got {int(p)}.")
            order[[i, p - 1]] = order[[p - 1, i]]
        mats[b, order, np.arange(n)] = 1.0  # column j of P is the unit vector at order[j]
    return mats.reshape(batch + (n, n))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from a packed LU factorisation (L unit lower triangular below the diagonal, U on and above it)."""
    _check("lu_unpack", "LU_data", LU_data)
    n, m = LU_data.shape[-2:]
    k = min(n, m)
    p = L = U = None
    if unpack_pivots:
        p = Tensor(_permutations(LU_pivots, n).astype(LU_data.dtype.np_dtype))
    if unpack_data:
        low, up = _masks(n, m, LU_data.dtype)
        L = F.narrow(LU_data * low, -1, 0, k) + Tensor(np.eye(n, k).astype(LU_data.dtype.np_dtype))
        U = F.narrow(LU_data * up, -2, 0, k)
    return p, L, U


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, A) with op(A) X = b for triangular A (only its upper/lower triangle is read; op transposes when
    asked; unitriangular takes the diagonal as ones)."""
    _check("triangular_solve", "b", b)
    _check("triangular_solve", "A", A)
    n = A.shape[-1]
    keep = np.triu(np.ones((n, n)), 0 if not unitriangular else 1) if upper else \
        np.tril(np.ones((n, n)), 0 if not unitriangular else -1)
    tri = A * Tensor(keep.astype(A.dtype.np_dtype))
    if unitriangular:
        tri = tri + Tensor(np.eye(n).astype(A.dtype.np_dtype))
    if transpose:
        tri = F.swapaxes(tri, -1, -2)
    return F.matmul(matrix_inverse(tri), b), A


def lu_solve(b, LU_data, LU_pivots):
    """X with A X = b, where A = P L U is given in packed LU form."""
    _check("lu_solve", "b", b)
    p, L, U = lu_unpack(LU_data, LU_pivots)
    y = triangular_solve(F.matmul(F.swapaxes(p, -1, -2), b), L, upper=False, unitriangular=True)[0]
    return triangular_solve(y, U, upper=True)[0]


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True):
    """Least squares min ‖matrix·X − rhs‖² + λ‖X‖² by the normal equations (MindSpore's fast path):
    (AᵀA + λI)⁻¹Aᵀb for tall A, Aᵀ(AAᵀ + λI)⁻¹b for wide A."""
    _check("matrix_solve_ls", "matrix", matrix)
    _check("matrix_solve_ls", "rhs", rhs)
    if not fast:
        raise ValueError("For 'matrix_solve_ls', only fast=True (the normal equations) is implemented.")
    m, n = matrix.shape[-2:]
    at = F.swapaxes(matrix, -1, -2)
    lam = float(l2_regularizer.asnumpy()) if isinstance(l2_regularizer, Tensor) else float(l2_regularizer)
    if m >= n:
        gram = F.matmul(at, matrix) + lam * Tensor(np.eye(n).astype(matrix.dtype.np_dtype))
        return F.matmul(matrix_inverse(gram), F.matmul(at, rhs))
    gram = F.matmul(matrix, at) + lam * Tensor(np.eye(m).astype(matrix.dtype.np_dtype))
    return F.matmul(at, F.matmul(matrix_inverse(gram), rhs))


def lstsq(input, A):
    """The least-squares solution X of input · X ≈ A (full-rank input; normal equations)."""
    return matrix_solve_ls(input, A)
