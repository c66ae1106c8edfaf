"""MindSpore 2.x docstring examples of the sparse API (COOTensor, CSRTensor, coo_*/csr_* functions, SparseToDense,
SparseTensorDenseMatmul, SparseTensorDenseAdd, SparseSlice, Coalesce, sparse_segment_mean, nn.SparseToDense):
the statements MindSpore 2.10's CPU build here ran."""
import numpy as np
import mindspore as ms
from mindspore import Tensor, COOTensor, CSRTensor, ops, nn
from mindspore import dtype as mstype

# COOTensor
indices = Tensor([[0, 1], [1, 2]], dtype=ms.int32)
values = Tensor([1, 2], dtype=ms.float32)
shape = (3, 4)
x = COOTensor(indices, values, shape)
print(x.values)
print(x.indices)
print(x.shape)
print(x.to_dense())
print(x.astype(ms.float64).dtype)
print(x.abs().values)

# CSRTensor
indptr = Tensor([0, 1, 2], dtype=ms.int32)
indices = Tensor([0, 1], dtype=ms.int32)
values = Tensor([1, 2], dtype=ms.float32)
shape = (2, 4)
csr_tensor = CSRTensor(indptr, indices, values, shape)
print(indptr == csr_tensor.indptr)
print(csr_tensor.to_dense())

a = CSRTensor(Tensor([0, 1, 2], mstype.int32), Tensor([0, 1], mstype.int32), Tensor([1, 2], mstype.float32), (2, 6))
b = CSRTensor(Tensor([0, 1, 2], mstype.int32), Tensor([0, 1], mstype.int32), Tensor([1, 2], mstype.float32), (2, 6))
alpha = Tensor(1, mstype.float32)
beta = Tensor(1, mstype.float32)
out = ops.csr_add(a, b, alpha, beta)
print(out.indptr, out.indices, out.values)

logits = CSRTensor(Tensor([0, 4, 6], mstype.int32), Tensor([0, 2, 3, 4, 3, 4], mstype.int32),
                   Tensor([1, 2, 3, 4, 1, 2], mstype.float32), (2, 6))
out = ops.csr_softmax(logits, dtype=mstype.float32)
print(out.values)

# element-wise functions and accessors
x = COOTensor(Tensor([[0, 1], [1, 2]], mstype.int64), Tensor([-1, 2], mstype.float32), (3, 4))
print(ops.coo_relu(x).values)
print(ops.coo_square(x).values)
print(ops.coo_neg(x).values)
print(ops.coo_tensor_get_values(x), ops.coo_tensor_get_dense_shape(x))
y = CSRTensor(Tensor([0, 1, 2], mstype.int32), Tensor([3, 0], mstype.int32), Tensor([-1., 4.]), (2, 4))
print(ops.csr_relu(y).values, ops.csr_abs(y).values, ops.csr_exp(y).values)

# coo_concat
indices = Tensor([[0, 1], [1, 2]], dtype=mstype.int64)
values = Tensor([1, 2], dtype=mstype.float32)
indices1 = Tensor([[0, 0], [1, 1]], dtype=mstype.int64)
values1 = Tensor([3, 4], dtype=mstype.float32)
out = ops.coo_concat((COOTensor(indices, values, (3, 4)), COOTensor(indices1, values1, (3, 4))), 1)
print(out.indices)
print(out.values)
print(out.shape)

# dense to sparse
dense = Tensor([[0, 1, 0], [2, 0, 3]], mstype.float32)
coo = ops.dense_to_sparse_coo(dense)
print(coo.indices, coo.values)
csr = ops.dense_to_sparse_csr(dense)
print(csr.indptr, csr.indices, csr.values)

# primitives
sparse_to_dense = ops.SparseToDense()
print(sparse_to_dense(Tensor([[0, 1], [1, 2]]), Tensor([1, 2], dtype=ms.float32), (3, 4)))
indices = Tensor([[0, 1], [1, 2]], dtype=ms.int32)
values = Tensor([1, 2], dtype=ms.float32)
dense = Tensor([[1, 1], [2, 2], [3, 3], [4, 4]], dtype=ms.float32)
print(ops.SparseTensorDenseMatmul()(indices, values, (3, 4), dense))
print(ops.SparseTensorDenseMatmul(adjoint_st=True)(indices, values, (3, 4), Tensor(np.ones((3, 2), np.float32))))
x1_indices = Tensor([[0, 0], [0, 1]], dtype=ms.int64)
x1_values = Tensor([1, 1], dtype=ms.float32)
x1_shape = Tensor([3, 3], dtype=ms.int64)
x2 = Tensor(np.ones((3, 3)), dtype=ms.float32)
print(ops.SparseTensorDenseAdd()(x1_indices, x1_values, x1_shape, x2))
indices = Tensor(np.array([[0, 1], [1, 2], [1, 3], [2, 2]]).astype(np.int64))
values = Tensor(np.array([1, 2, 3, 4]).astype(np.int64))
shape = Tensor(np.array([3, 4]).astype(np.int64))
start = Tensor(np.array([0, 1]).astype(np.int64))
size = Tensor(np.array([2, 3]).astype(np.int64))
out = ops.SparseSlice()(indices, values, shape, start, size)
print(out[0])
print(out[1])
print(out[2])
x_indices = Tensor([[0, 0, 1], [1, 1, 2]], dtype=ms.int64)
x_values = Tensor([1, 5, 4], dtype=ms.float32)
x_shape = Tensor([3, 3], dtype=ms.int64)
y_indices, y_values, y_shape = ops.Coalesce()(x_indices, x_values, x_shape)
print(y_indices)
print(y_values)
print(y_shape)
x = Tensor([[0, 1, 2], [1, 2, 3], [3, 6, 7]], dtype=ms.float32)
print(ops.sparse_segment_mean(x, Tensor([0, 2, 1], dtype=ms.int32), Tensor([0, 0, 2], dtype=ms.int32)))

# nn
print(nn.SparseToDense()(COOTensor(Tensor([[0, 1], [1, 2]], ms.int32), Tensor([1., 2.]), (3, 4))))
print(nn.SparseTensorDenseMatmul()(Tensor([[0, 1], [1, 2]], ms.int32), Tensor([1., 2.]), (3, 4), dense))
