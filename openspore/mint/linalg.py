"""`mindspore.mint.linalg`: PyTorch's `torch.linalg` names, on the `ops` functions of the same signatures.

>>> import openspore as ms
>>> from openspore.mint import linalg
>>> linalg.vector_norm(ms.Tensor([3.0, 4.0])).asnumpy().item()
5.0
>>> linalg.inv(ms.Tensor([[2.0, 0.0], [0.0, 4.0]])).asnumpy().tolist()
[[0.5, 0.0], [0.0, 0.25]]
"""
from .. import ops as _ops

__all__ = ["inv", "matrix_norm", "norm", "qr", "vector_norm"]

# torch.linalg.inv is the matrix inverse (ops.inv is MindSpore's elementwise reciprocal).
inv = _ops.inverse
matrix_norm = _ops.matrix_norm
norm = _ops.norm
qr = _ops.qr
vector_norm = _ops.vector_norm
