"""`mindspore.scipy.linalg`: inv, cholesky, cho_factor, cho_solve, solve_triangular, block_diag (differentiable:
built on the MatrixInverse and Cholesky primitives). eigh, lu, lu_factor and lstsq are not here yet.

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

__all__ = ["inv", "cholesky", "cho_factor", "cho_solve", "solve_triangular", "block_diag"]


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
