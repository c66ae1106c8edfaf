"""Sparse layers: `SparseToDense` (a COOTensor to its dense Tensor) and `SparseTensorDenseMatmul`.

>>> import openspore as ms
>>> from openspore import nn, Tensor, COOTensor
>>> x = COOTensor(Tensor([[0, 1], [1, 2]], ms.int32), Tensor([1., 2.]), (3, 4))
>>> print(nn.SparseToDense()(x))
[[0. 1. 0. 0.]
 [0. 0. 2. 0.]
 [0. 0. 0. 0.]]
"""
from ...core.primitive import PRIMITIVES
from ...ops.sparse_tensor import COOTensor
from ..cell import Cell

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]


class SparseToDense(Cell):
    """`SparseToDense()`: construct(sparse_tensor) returns the dense Tensor of a COOTensor."""

    def __init__(self):
        super().__init__()
        self.sparse_to_dense = PRIMITIVES["SparseToDense"]()

    def construct(self, sparse_tensor):
        if not isinstance(sparse_tensor, COOTensor):
            raise TypeError(f"For 'SparseToDense', the input must be a COOTensor, but got "
                            f"{type(sparse_tensor).__name__}.")
        return self.sparse_to_dense(sparse_tensor.indices, sparse_tensor.values, sparse_tensor.shape)


class SparseTensorDenseMatmul(Cell):
    """`SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)`: construct(indices, values, sparse_shape,
    dense) returns op(A) @ op(dense) for the 2-D sparse A given by (indices, values, sparse_shape)."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.matmul = PRIMITIVES["SparseTensorDenseMatmul"](adjoint_st=adjoint_st, adjoint_dt=adjoint_dt)

    def construct(self, indices, values, sparse_shape, dense):
        return self.matmul(indices, values, sparse_shape, dense)
