"""Primitives: determinants of (batches of) square matrices — MatrixDeterminant (det) and LogMatrixDeterminant
(sign, log|det|).

Both gradients use d det(A) = det(A) · tr(A⁻¹ dA), i.e. Ā = ȳ · det · A⁻ᵀ (and Ā = ȳ · A⁻ᵀ for log|det|), so they
are undefined at singular matrices, as the functions' derivatives are.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import prim
from .linalg import _check_square, _swap_last, _well_conditioned


def _inverse_transposed(x):
    return _swap_last(prim("MatrixInverse")(x))


def _expand_last2(t):
    return prim("ExpandDims")(prim("ExpandDims")(t, -1), -1)


@register
class MatrixDeterminant(Primitive):
    """MatrixDeterminant()(x): det of each square matrix over the last two axes."""
    input_names = ("x",)

    def infer(self, x):
        _check_square(self.name, x)
        return AbstractTensor(tuple(x.shape[:-2]), x.dtype)

    def numpy(self, np, x):
        return np.asarray(np.linalg.det(x)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.linalg.det(x)

    def bprop(self, x, out, dout):
        scale = _expand_last2(prim("Mul")(dout, out))
        return (prim("Mul")(scale, _inverse_transposed(x)),)

    @classmethod
    def samples(cls, rng):
        yield Sample(_well_conditioned(rng, (3, 3)), rtol=1e-4, atol=1e-5)
        yield Sample(_well_conditioned(rng, (2, 4, 4)).astype(np.float64), name="batched64")


@register
class LogMatrixDeterminant(Primitive):
    """LogMatrixDeterminant()(x) → (sign, log|det|) of each square matrix over the last two axes."""
    input_names = ("x",)

    def infer(self, x):
        _check_square(self.name, x)
        out = AbstractTensor(tuple(x.shape[:-2]), x.dtype)
        return out, out

    def numpy(self, np, x):
        sign, logabs = np.linalg.slogdet(x)
        return np.asarray(sign).astype(x.dtype), np.asarray(logabs).astype(x.dtype)

    def torch(self, torch, x):
        sign, logabs = torch.linalg.slogdet(x)
        return sign, logabs

    def bprop(self, x, out, dout):
        return (prim("Mul")(_expand_last2(dout[1]), _inverse_transposed(x)),)

    @classmethod
    def samples(cls, rng):
        flip = _well_conditioned(rng, (3, 3))
        flip[[0, 1]] = flip[[1, 0]]  # a row swap: negative determinant
        yield Sample(flip, rtol=1e-4, atol=1e-5)
        yield Sample(_well_conditioned(rng, (2, 3, 3)).astype(np.float64), name="batched64")


_ALL = (MatrixDeterminant, LogMatrixDeterminant)
not_exportable(NO_MINDIR, *_ALL, formats=("MINDIR",))
not_exportable(NO_ONNX, *_ALL, formats=("ONNX",))
