"""Cells computing special functions and determinants (MindSpore's nn.DiGamma, IGamma, LBeta, LGamma, MatDet),
over the differentiable functional ops.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> round(float(nn.LGamma()(ms.Tensor(np.array([4.0], np.float32))).asnumpy()[0]), 5)  # log(3!)
1.79176
>>> round(float(nn.LBeta()(ms.Tensor(np.array([2.0], np.float32)), ms.Tensor(np.array([3.0], np.float32))).asnumpy()[0]), 5)
-2.48491
"""
from ... import ops
from ..cell import Cell

__all__ = ["DiGamma", "IGamma", "LBeta", "LGamma", "MatDet"]


class DiGamma(Cell):
    """`DiGamma()(x)`: ψ(x), the derivative of log Γ(x)."""

    def construct(self, x):
        return ops.digamma(x)


class LGamma(Cell):
    """`LGamma()(x)`: log |Γ(x)|."""

    def construct(self, x):
        return ops.lgamma(x)


class IGamma(Cell):
    """`IGamma()(a, x)`: the regularized lower incomplete gamma function P(a, x)."""

    def construct(self, a, x):
        return ops.igamma(a, x)


class LBeta(Cell):
    """`LBeta()(x, y)`: log |B(x, y)| = log Γ(x) + log Γ(y) − log Γ(x + y) (broadcast)."""

    def construct(self, x, y):
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)


class MatDet(Cell):
    """`MatDet()(a)`: the determinant of each trailing (M, M) matrix of `a`."""

    def construct(self, a):
        return ops.matrix_determinant(a)
