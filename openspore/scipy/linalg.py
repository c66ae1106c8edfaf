"""`mindspore.scipy.linalg`: inv, cholesky, cho_factor, cho_solve, solve_triangular, block_diag (differentiable:
built on the MatrixInverse and Cholesky primitives), and eigh, lu, lu_factor, lstsq (on the Eigh, LU and Svd
primitives; not differentiable).

>>> import numpy as np, openspore as ms
>>> from openspore.scipy.linalg import cho_factor, cho_solve
>>> a = ms.Tensor(np.array([[4.0, 2.0], [2.0, 3.0]], np.float32))
>>> x = cho_solve(cho_factor(a), ms.Tensor(np.array([[2.0], [1.0]], np.float32)))
>>> np.allclose((a @ x).asnumpy(), [[2.0], [1.0]], atol=1e-5)
True
"""
import numpy as np

from ..core.tensor import Tensor
from .. import ops

from ..common import dtype as mstype
from ..core.primitive import PRIMITIVES

__all__ = ["inv", "cholesky", "cho_factor", "cho_solve", "solve_triangular", "block_diag", "eigh", "lu",
           "lu_factor", "lstsq"]


def _t(x):
    return x if isinstance(x, Tensor) else Tensor(np.asarray(x, np.float32))


def inv(a, overwrite_a=False, check_finite=True):
    """The inverse of a square matrix (batched over leading axes)."""
    return ops.inverse(_t(a))


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor: upper U (a = Uᵀ U) by default, lower L (a = L Lᵀ) when `lower`."""
    return ops.cholesky(_t(a), upper=not lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(factor, lower) for cho_solve."""
    return cholesky(a, lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x solving a x = b from cho_factor(a)."""
    c, lower = c_and_lower
    return ops.cholesky_solve(_t(b), _t(c), upper=not lower)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, debug=None,
                     check_finite=True):
    """x solving a x = b (trans 0/'N'), aᵀ x = b (1/'T') or aᴴ x = b (2/'C') with a triangular; only the named
    triangle of a is read."""
    a = _t(a)
    tri = ops.tril(a) if lower else ops.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        eye = ops.eye(n, n, a.dtype)
        tri = tri * (1 - eye) + eye
    if trans in (1, 2, "T", "C"):
        tri = ops.swapaxes(tri, -1, -2)
    elif trans not in (0, "N"):
        raise ValueError(f"For 'solve_triangular', 'trans' must be 0, 1, 2, 'N', 'T' or 'C', but got {trans!r}.")
    b = _t(b)
    out = ops.matmul(ops.inverse(tri), b if len(b.shape) > 1 else ops.expand_dims(b, -1))
    return out if len(b.shape) > 1 else ops.squeeze(out, -1)


def block_diag(*arrs):
    """A block-diagonal matrix of the (up to 2-D) inputs."""
    if not arrs:
        return Tensor(np.zeros((1, 0), np.float32))
    mats = [ops.atleast_2d(_t(a)) for a in arrs]
    cols = sum(m.shape[1] for m in mats)
    rows, start = [], 0
    for m in mats:
        left, right = start, cols - start - m.shape[1]
        rows.append(ops.pad(m, (left, right, 0, 0)))
        start += m.shape[1]
    return ops.concat(rows, 0)


def _matrix(name, a, square=True):
    """a as a 2-D float Tensor (integers become float64, as in MindSpore)."""
    a = _t(a)
    if len(a.shape) != 2:
        raise ValueError(f"For '{name}', the dimension of 'a' should be 2, but got {len(a.shape)}.")
    if square and a.shape[0] != a.shape[1]:
        raise ValueError(f"For '{name}', the matrix 'a' should be a square matrix like (N, N), but got "
                         f"{tuple(a.shape)}.")
    return a if a.dtype.kind in ("float", "complex") else ops.cast(a, mstype.float64)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, turbo=True,
         eigvals=None, type=1, check_finite=True):  # noqa: A002 (SciPy's name)
    """(w, v) of the symmetric matrix held in a's lower (or upper) triangle: ascending eigenvalues w and
    orthonormal eigenvector columns v (only w with eigvals_only). The generalised problem (b) is not supported,
    as in MindSpore.

    >>> import numpy as np, openspore as ms
    >>> from openspore.scipy.linalg import eigh
    >>> np.round(eigh(ms.Tensor(np.array([[2.0, 1.0], [1.0, 2.0]], np.float32)), eigvals_only=True).asnumpy(), 5)
    array([1., 3.], dtype=float32)
    """
    if b is not None:
        raise ValueError("For 'eigh', only b=None (the standard eigenvalue problem) is supported.")
    a = _matrix("eigh", a)
    w, v = PRIMITIVES["Eigh"](compute_eigenvectors=not eigvals_only, lower=lower)(a)
    return w if eigvals_only else (w, v)


def _lu(name, a, square):
    a = _matrix(name, a, square)
    return (a,) + tuple(PRIMITIVES["LU"]()(a))


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) of a square matrix: L (unit diagonal) below lu's diagonal, U on and above it, and piv[i] the
    row swapped with row i (0-based), for lu_solve-style use."""
    _, packed, piv, _ = _lu("lu_factor", a, square=True)
    return packed, piv


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(p, l, u) with a = p @ l @ u (p an int32 permutation matrix, l unit lower, u upper triangular), or
    (p @ l, u) with permute_l. Like MindSpore, a may be wide but not tall.

    >>> import numpy as np, openspore as ms
    >>> from openspore.scipy.linalg import lu
    >>> a = ms.Tensor(np.array([[1.0, 2.0], [4.0, 5.0]], np.float32))
    >>> p, l, u = lu(a)
    >>> p.asnumpy().tolist(), np.allclose(p.asnumpy() @ l.asnumpy() @ u.asnumpy(), a.asnumpy())
    ([[0, 1], [1, 0]], True)
    """
    a = _matrix("lu", a, square=False)
    m, n = a.shape
    if m > n:
        raise ValueError(f"For 'lu', the matrix must have no more rows than columns, but got shape {(m, n)}.")
    _, packed, _, perm = _lu("lu", a, square=False)
    k = min(m, n)
    l_mat = ops.tril(packed[:, :k], -1) + ops.eye(m, k, a.dtype)
    u_mat = ops.triu(packed[:k, :])
    # column i of p is the unit vector at perm[i]: (p^T a) = a[perm] = l u
    p = ops.transpose(ops.one_hot(perm, m, Tensor(np.int32(1)), Tensor(np.int32(0))), (1, 0))
    if permute_l:
        return ops.matmul(ops.cast(p, a.dtype), l_mat), u_mat
    return p, l_mat, u_mat


def lstsq(A, B, rcond=None, driver=None):
    """(x, residues, rank, s): the minimum-norm least-squares solution x of A x = B (via the pseudo-inverse);
    like MindSpore, residues and s come back empty and rank is an int64 scalar Tensor."""
    a, b = _t(A), _t(B)
    if len(a.shape) != 2 or len(b.shape) not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ValueError(f"For 'lstsq', A must be (M, N) and B (M,) or (M, K) with the same M, but got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}.")
    if a.dtype.kind != "float":
        a = ops.cast(a, mstype.float64)
    b = ops.cast(b, a.dtype)
    s = ops.svd(a, compute_uv=False)
    eps = float(np.finfo(a.dtype.np_dtype).eps)
    rtol = eps * max(a.shape) if rcond is None or rcond < 0 else float(rcond)
    x = ops.matmul(ops.pinv(a, rtol=rtol), b if len(b.shape) == 2 else ops.expand_dims(b, -1))
    x = x if len(b.shape) == 2 else ops.squeeze(x, -1)
    rank = ops.cast(ops.sum(ops.cast(s > ops.amax(s) * rtol, mstype.int32)), mstype.int64)
    empty = Tensor(np.zeros((0,), a.dtype.np_dtype))
    return x, empty, rank, empty
