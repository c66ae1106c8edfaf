"""Matrix decompositions of MindSpore's ops namespace on the Qr/Svd/Eig/Geqrf/Orgqr primitives
(ops/defs/linalg_decomp.py): qr, svd, eig, eigvals, pinv (from the SVD), geqrf, orgqr and ormqr.

>>> import numpy as np, openspore as ms
>>> q, r = ms.ops.qr(ms.Tensor(np.array([[3.0, 1.0], [4.0, 2.0]], np.float32)))
>>> np.allclose((q @ r).asnumpy(), [[3.0, 1.0], [4.0, 2.0]], atol=1e-6)
True
>>> ms.ops.pinv(ms.Tensor(np.array([[2.0, 0.0], [0.0, 0.0]], np.float32))).asnumpy().tolist()
[[0.5, 0.0], [0.0, 0.0]]
"""
import numpy as np

from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["qr", "svd", "eig", "eigvals", "pinv", "geqrf", "orgqr", "ormqr"]


def _tensor(fn, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{fn}', '{name}' must be a Tensor, but got {type(value).__name__}.")
    return value


def qr(input, mode="reduced"):
    """(Q, R) with input = Q·R; mode "reduced" (Q m×k) or "complete" (Q m×m)."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"For 'qr', 'mode' must be 'reduced' or 'complete', but got {mode!r}.")
    return PRIMITIVES["Qr"](full_matrices=mode == "complete")(_tensor("qr", "input", input))


def svd(input, full_matrices=False, compute_uv=True):
    """(s, u, v) with input = u·diag(s)·vᴴ (MindSpore's order, and v rather than vᴴ); only s without compute_uv."""
    s, u, v = PRIMITIVES["Svd"](full_matrices=full_matrices, compute_uv=compute_uv)(_tensor("svd", "input", input))
    return (s, u, v) if compute_uv else s


def eig(A):
    """(eigenvalues, eigenvectors) of square A as complex tensors: A·v = v·diag(w)."""
    return PRIMITIVES["Eig"](compute_v=True)(_tensor("eig", "A", A))


def eigvals(A):
    """The eigenvalues of square A as a complex tensor."""
    return PRIMITIVES["Eig"](compute_v=False)(_tensor("eigvals", "A", A))[0]


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore–Penrose pseudo-inverse v·diag(1/s)·uᴴ, dropping singular values ≤ max(atol, rtol·s_max)
    (rtol defaults to eps·max(m, n) when neither tolerance is given). `hermitian` only promises symmetry; the
    SVD path serves both."""
    x = _tensor("pinv", "x", x)
    if len(x.shape) < 2:
        raise ValueError(f"For 'pinv', 'x' must have at least 2 dimensions, but got shape {list(x.shape)}.")
    s, u, v = PRIMITIVES["Svd"](full_matrices=False, compute_uv=True)(x)
    if rtol is None:
        rtol = 0.0 if atol is not None else float(np.finfo(s.dtype.np_dtype).eps) * max(x.shape[-2:])
    smax = F.amax(s, -1, True)
    cutoff = F.maximum(smax * rtol, F.full_like(smax, float(atol or 0.0)))
    keep = s > cutoff
    s_inv = F.where(keep, 1.0 / F.where(keep, s, F.ones_like(s)), F.zeros_like(s))
    return F.matmul(v * F.expand_dims(s_inv, -2), F.swapaxes(u, -1, -2))


def geqrf(input):
    """(y, tau): the compact Householder QR of LAPACK's geqrf (R on and above y's diagonal, reflectors below)."""
    return PRIMITIVES["Geqrf"]()(_tensor("geqrf", "input", input))


def orgqr(input, tau):
    """The m×n matrix with orthonormal columns that geqrf's (input, tau) describe."""
    return PRIMITIVES["Orgqr"]()(_tensor("orgqr", "input", input), _tensor("orgqr", "tau", tau))


def ormqr(input, tau, other, left=True, transpose=False):
    """other multiplied by the full m×m Q of geqrf's (input, tau): Q·other (left) or other·Q, with Qᵀ when
    `transpose`."""
    x, t, c = _tensor("ormqr", "input", input), _tensor("ormqr", "tau", tau), _tensor("ormqr", "other", other)
    m, n = x.shape[-2:]
    if n < m:  # zero reflectors (tau = 0) are identities, so padding makes orgqr return the full square Q
        x = F.concat((x, F.zeros(tuple(x.shape[:-1]) + (m - n,), x.dtype)), -1)
    if t.shape[-1] < m:
        t = F.concat((t, F.zeros(tuple(t.shape[:-1]) + (m - t.shape[-1],), t.dtype)), -1)
    q = orgqr(x, t)
    if transpose:
        q = F.swapaxes(q, -1, -2)
    return F.matmul(q, c) if left else F.matmul(c, q)
