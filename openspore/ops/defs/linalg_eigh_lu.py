"""Primitives: Eigh (eigen-decomposition of a symmetric / Hermitian matrix read from one triangle) and LU
(LU factorisation with partial pivoting), the kernels under `mindspore.scipy.linalg.eigh`, `lu` and `lu_factor`.

Eigenvectors are defined up to sign, so the samples compare the eigenvalues and the packed LU (unique for a
given pivot order); gradients raise NotImplementedError as for the other decompositions.

>>> import numpy as np, openspore as ms
>>> from openspore.core.primitive import PRIMITIVES
>>> w, v = PRIMITIVES["Eigh"]()(ms.Tensor(np.array([[2.0, 1.0], [1.0, 2.0]], np.float32)))
>>> np.round(w.asnumpy(), 5).tolist()
[1.0, 3.0]
>>> lu, piv, perm = PRIMITIVES["LU"]()(ms.Tensor(np.array([[1.0, 2.0], [4.0, 5.0]], np.float32)))
>>> piv.asnumpy().tolist(), perm.asnumpy().tolist()
([1, 1], [1, 0])
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from .linalg_decomp import _batched, _check_matrix


class _NoGrad(Primitive):
    input_names = ("x",)

    def bprop(self, *args):
        raise NotImplementedError(f"The gradient of '{self.name}' is not implemented in openspore.")


@register
class Eigh(_NoGrad):
    """Eigh(compute_eigenvectors=True, lower=True)(x) → (w, v): ascending real eigenvalues w and orthonormal
    eigenvectors v (columns) of the symmetric matrix whose lower (or upper) triangle x holds; x·v = v·diag(w).
    Without compute_eigenvectors, v is a 0-d zero."""
    attr_defaults = {"compute_eigenvectors": True, "lower": True}

    def infer(self, x):
        _check_matrix(self.name, "x", x)
        if x.shape[-1] != x.shape[-2]:
            raise ValueError(f"For '{self.name}', 'x' must be a (batch of) square matrices, but got shape "
                             f"{list(x.shape)}.")
        real = mstype.float64 if x.dtype in (mstype.float64, mstype.complex128) else mstype.float32
        w = AbstractTensor(tuple(x.shape[:-1]), real)
        return w, AbstractTensor(tuple(x.shape) if self.compute_eigenvectors else (), x.dtype)

    def numpy(self, np, x):
        w, v = np.linalg.eigh(x, UPLO="L" if self.lower else "U")
        real = np.float64 if x.dtype in (np.float64, np.complex128) else np.float32
        return w.astype(real), (v.astype(x.dtype) if self.compute_eigenvectors else np.zeros((), x.dtype))

    def torch(self, torch, x):
        w, v = torch.linalg.eigh(x, UPLO="L" if self.lower else "U")
        return w, (v if self.compute_eigenvectors else torch.zeros((), dtype=x.dtype, device=x.device))

    @classmethod
    def samples(cls, rng):
        sym = rng.uniform(-1, 1, (3, 3))
        yield Sample((sym + sym.T).astype(np.float32), attrs={"compute_eigenvectors": False}, grad=(), rtol=1e-4,
                     atol=1e-5)
        yield Sample(np.triu(rng.uniform(-1, 1, (2, 4, 4))), attrs={"compute_eigenvectors": False, "lower": False},
                     grad=(), name="upper_batched64")


def _lu_numpy(np, a):
    """Gaussian elimination with partial pivoting on one m×n matrix: (packed LU, 0-based swap rows, row order)."""
    lu = a.copy()
    m, n = lu.shape
    k = min(m, n)
    pivots = np.zeros(k, np.int32)
    perm = np.arange(m, dtype=np.int32)
    for j in range(k):
        p = j + int(np.argmax(np.abs(lu[j:, j])))
        pivots[j] = p
        if p != j:
            lu[[j, p]] = lu[[p, j]]
            perm[[j, p]] = perm[[p, j]]
        if lu[j, j] != 0:
            lu[j + 1:, j] /= lu[j, j]
            lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, pivots, perm


@register
class LU(_NoGrad):
    """LU()(x) → (lu, pivots, permutation) of an m×n x (batched over leading axes): x[permutation] = L·U with
    L unit lower triangular (below lu's diagonal) and U upper triangular (on and above it); pivots[i] is the
    0-based row swapped with row i at step i (LAPACK's getrf order, as SciPy returns it)."""

    def infer(self, x):
        _check_matrix(self.name, "x", x)
        *lead, m, n = x.shape
        return (AbstractTensor(tuple(x.shape), x.dtype), AbstractTensor((*lead, min(m, n)), mstype.int32),
                AbstractTensor((*lead, m), mstype.int32))

    def numpy(self, np, x):
        return _batched(np, lambda a: _lu_numpy(np, a), x)

    def torch(self, torch, x):
        lu, piv = torch.linalg.lu_factor(x)
        piv = (piv - 1).to(torch.int32)
        m = x.shape[-2]
        perm = torch.arange(m, dtype=torch.int32, device=x.device).expand(*x.shape[:-2], m).clone()
        for i in range(piv.shape[-1]):  # replay the row swaps to get the final row order
            p = piv[..., i:i + 1].long()
            row_i = perm[..., i:i + 1].clone()
            perm[..., i:i + 1] = torch.gather(perm, -1, p)
            perm.scatter_(-1, p, row_i)
        return lu, piv, perm

    @classmethod
    def samples(cls, rng):
        yield Sample(rng.uniform(-1, 1, (4, 4)).astype(np.float32), grad=(), rtol=1e-4, atol=1e-5)
        yield Sample(rng.uniform(-1, 1, (2, 3, 5)), grad=(), name="wide_batched64")


not_exportable(NO_MINDIR, Eigh, LU, formats=("MINDIR",))
not_exportable(NO_ONNX, Eigh, LU, formats=("ONNX",))
