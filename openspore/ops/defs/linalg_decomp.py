"""Primitives: matrix decompositions over the last two axes — Qr, Svd, Eig, Geqrf (LAPACK's compact Householder
QR) and Orgqr (the Q of such a compact form).

Their outputs are defined up to signs (and, for Eig, order), so samples compare the backends only where the
answer is unique (singular values, R's magnitude); tests check reconstructions. Gradients of decompositions are
not implemented: each bprop raises a NotImplementedError that names the primitive instead of returning zeros.

>>> import numpy as np, openspore as ms
>>> from openspore.core.primitive import PRIMITIVES
>>> s, u, v = PRIMITIVES["Svd"]()(ms.Tensor(np.diag([3.0, 2.0]).astype(np.float32)))
>>> s.asnumpy().tolist()
[3.0, 2.0]
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor
from .linalg import _check_square, _well_conditioned

_KINDS = ("float", "complex")


def _check_matrix(op, name, x):
    check_tensor(op, name, x)
    check_dtype(op, name, x, _KINDS)
    if len(x.shape) < 2:
        raise ValueError(f"For '{op}', '{name}' must have at least 2 dimensions (a matrix), "
                         f"but got shape {list(x.shape)}.")


def _batched(np, fn, x, *more):
    """Apply a per-matrix numpy function over the leading axes; fn returns a tuple of arrays."""
    lead = x.shape[:-2]
    flat = [a.reshape((-1,) + a.shape[len(lead):]) for a in (x,) + more]
    outs = [fn(*(a[i] for a in flat)) for i in range(flat[0].shape[0])]
    return tuple(np.stack([o[j] for o in outs]).reshape(lead + outs[0][j].shape) for j in range(len(outs[0]))) \
        if outs else None


class _Decomposition(Primitive):
    input_names = ("x",)

    def bprop(self, *args):
        raise NotImplementedError(f"The gradient of '{self.name}' is not implemented in openspore.")


@register
class Qr(_Decomposition):
    """Qr(full_matrices=False)(x) → (Q, R): x = Q·R with orthonormal Q columns and upper-triangular R
    (full_matrices: Q is m×m and R m×n; otherwise Q is m×k and R k×n, k = min(m, n))."""
    attr_defaults = {"full_matrices": False}

    def infer(self, x):
        _check_matrix(self.name, "x", x)
        *lead, m, n = x.shape
        q_cols = m if self.full_matrices else min(m, n)
        return AbstractTensor((*lead, m, q_cols), x.dtype), AbstractTensor((*lead, q_cols, n), x.dtype)

    def numpy(self, np, x):
        q, r = np.linalg.qr(x, mode="complete" if self.full_matrices else "reduced")
        return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)

    def torch(self, torch, x):
        q, r = torch.linalg.qr(x, mode="complete" if self.full_matrices else "reduced")
        return q, r

    @classmethod
    def samples(cls, rng):
        x = _well_conditioned(rng, (4, 4))[:, :3]
        yield Sample(x, grad=(), name="reduced")
        yield Sample(x.astype(np.float64), attrs={"full_matrices": True}, grad=(), name="complete64")


@register
class Svd(_Decomposition):
    """Svd(full_matrices=False, compute_uv=True)(x) → (s, u, v): x = u·diag(s)·vᴴ with s descending (v, not vᴴ,
    as MindSpore returns it). Without compute_uv, u and v are zeros of shape (1,)."""
    attr_defaults = {"full_matrices": False, "compute_uv": True}

    def infer(self, x):
        _check_matrix(self.name, "x", x)
        *lead, m, n = x.shape
        k = min(m, n)
        real = mstype.float64 if x.dtype in (mstype.float64, mstype.complex128) else mstype.float32
        s = AbstractTensor((*lead, k), real)
        if not self.compute_uv:
            return s, AbstractTensor((1,), x.dtype), AbstractTensor((1,), x.dtype)
        cols_u, cols_v = (m, n) if self.full_matrices else (k, k)
        return s, AbstractTensor((*lead, m, cols_u), x.dtype), AbstractTensor((*lead, n, cols_v), x.dtype)

    def numpy(self, np, x):
        real = np.float64 if x.dtype in (np.float64, np.complex128) else np.float32
        if not self.compute_uv:
            return (np.linalg.svd(x, compute_uv=False).astype(real), np.zeros((1,), x.dtype),
                    np.zeros((1,), x.dtype))
        u, s, vh = np.linalg.svd(x, full_matrices=self.full_matrices)
        v = np.conj(np.swapaxes(vh, -1, -2))
        return s.astype(real), u.astype(x.dtype), np.ascontiguousarray(v).astype(x.dtype)

    def torch(self, torch, x):
        if not self.compute_uv:
            zeros = torch.zeros((1,), dtype=x.dtype, device=x.device)
            return torch.linalg.svdvals(x), zeros, zeros.clone()
        u, s, vh = torch.linalg.svd(x, full_matrices=self.full_matrices)
        return s, u, vh.mH.contiguous()

    @classmethod
    def samples(cls, rng):
        yield Sample(rng.uniform(-1, 1, (4, 3)).astype(np.float32), attrs={"compute_uv": False}, grad=())
        yield Sample(rng.uniform(-1, 1, (2, 3, 5)), attrs={"compute_uv": False}, grad=(), name="batched64")


@register
class Eig(_Decomposition):
    """Eig(compute_v=False)(x) → (w, v): eigenvalues w and (with compute_v) right eigenvectors v of square x,
    x·v = v·diag(w), as complex tensors (complex64 from float32); without compute_v, v is a 0-d zero."""
    attr_defaults = {"compute_v": False}

    def infer(self, x):
        _check_matrix(self.name, "x", x)
        _check_square(self.name, x)
        out = mstype.complex128 if x.dtype in (mstype.float64, mstype.complex128) else mstype.complex64
        w = AbstractTensor(tuple(x.shape[:-1]), out)
        return w, AbstractTensor(tuple(x.shape) if self.compute_v else (), out)

    def numpy(self, np, x):
        out = np.complex128 if x.dtype in (np.float64, np.complex128) else np.complex64
        w, v = np.linalg.eig(x)
        return w.astype(out), (v.astype(out) if self.compute_v else np.zeros((), out))

    def torch(self, torch, x):
        w, v = torch.linalg.eig(x)
        return w, (v if self.compute_v else torch.zeros((), dtype=w.dtype, device=w.device))

    @classmethod
    def samples(cls, rng):
        sym = rng.uniform(-1, 1, (3, 3))
        yield Sample((sym + sym.T + np.diag([0.0, 3.0, 6.0])).astype(np.float32), grad=(), rtol=1e-4, atol=1e-4)


@register
class Geqrf(_Decomposition):
    """Geqrf()(x) → (y, tau): LAPACK's compact QR: R on and above y's diagonal, the Householder vectors below
    it (implicit leading 1), and their scales tau (k = min(m, n) of them)."""

    def infer(self, x):
        _check_matrix(self.name, "x", x)
        *lead, m, n = x.shape
        return AbstractTensor(tuple(x.shape), x.dtype), AbstractTensor((*lead, min(m, n)), x.dtype)

    def numpy(self, np, x):
        def one(a):
            h, tau = np.linalg.qr(a, mode="raw")
            return np.ascontiguousarray(h.T).astype(a.dtype), tau.astype(a.dtype)
        return _batched(np, one, x)

    def torch(self, torch, x):
        y, tau = torch.geqrf(x)
        return y, tau

    @classmethod
    def samples(cls, rng):
        yield Sample(_well_conditioned(rng, (4, 4))[:, :3].astype(np.float64), grad=(), rtol=1e-4, atol=1e-6)
        yield Sample(_well_conditioned(rng, (2, 3, 3)), grad=(), rtol=1e-3, atol=1e-5, name="batched")


@register
class Orgqr(_Decomposition):
    """Orgqr()(x, tau): the first n columns of the product of Householder reflectors H₁…H_k stored in x (as
    Geqrf leaves them) with scales tau: an m×n matrix with orthonormal columns (k ≤ n ≤ m)."""
    input_names = ("x", "tau")

    def infer(self, x, tau):
        _check_matrix(self.name, "x", x)
        check_tensor(self.name, "tau", tau)
        *lead, m, n = x.shape
        if n > m or tuple(tau.shape[:-1]) != tuple(lead) or tau.shape[-1] > n:
            raise ValueError(f"For '{self.name}', expected x of shape (..., m, n) with n <= m and tau of shape "
                             f"(..., k) with k <= n, but got x {list(x.shape)} and tau {list(tau.shape)}.")
        return AbstractTensor(tuple(x.shape), x.dtype)

    def numpy(self, np, x, tau):
        def one(a, t):
            m, n = a.shape
            q = np.eye(m, n, dtype=a.dtype)
            for i in reversed(range(t.shape[0])):  # Q·e = H₁(H₂(…H_k e)): apply the last reflector first
                v = np.concatenate([np.zeros(i, a.dtype), np.ones(1, a.dtype), a[i + 1:, i]])
                q = q - t[i] * np.outer(v, np.conj(v) @ q)
            return (q,)
        return _batched(np, one, x, tau)[0]

    def torch(self, torch, x, tau):
        return torch.linalg.householder_product(x, tau)

    @classmethod
    def samples(cls, rng):
        y, tau = np.linalg.qr(_well_conditioned(rng, (4, 4))[:, :3].astype(np.float64), mode="raw")
        yield Sample(np.ascontiguousarray(y.T), tau, grad=())


_ALL = (Qr, Svd, Eig, Geqrf, Orgqr)
not_exportable(NO_MINDIR, *_ALL, formats=("MINDIR",))
not_exportable(NO_ONNX, *_ALL, formats=("ONNX",))
