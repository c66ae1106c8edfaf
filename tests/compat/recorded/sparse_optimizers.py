"""MindSpore 2.x sparse optimizer primitives on Parameters inside a Cell (the ones its CPU build has kernels for):
the updated buffers are printed."""
import numpy as np
import mindspore as ms
from mindspore import Tensor, Parameter, ops, nn

var0 = np.array([[0.2, 0.4], [0.1, 0.3], [0.5, 0.7]], np.float32)
acc0 = np.full((3, 2), 0.5, np.float32)
lin0 = np.array([[0.1, -0.2], [0.0, 0.3], [-0.4, 0.2]], np.float32)
grad = Tensor(np.array([[0.3, -0.7], [0.1, 0.2]], np.float32))
indices = Tensor(np.array([0, 2], np.int32))


def fresh(n, order=(0, 1, 2)):
    arrays = [(var0, acc0, lin0)[k] for k in order[:n]]
    return [Parameter(Tensor(a.copy()), name=f"p{k}") for k, a in enumerate(arrays)]


class Apply(nn.Cell):
    def __init__(self, op, n, scalars=(), order=(0, 1, 2)):
        super().__init__()
        self.op, self.params, self.scalars = op, fresh(n, order), scalars

    def construct(self, grad, indices):
        return self.op(*self.params, *self.scalars, grad, indices)


cases = [
    ("SparseApplyAdagrad", ops.SparseApplyAdagrad(lr=0.1), 2, ()),
    ("SparseApplyAdagradV2", ops.SparseApplyAdagradV2(lr=0.1, epsilon=1e-6), 2, ()),
    ("SparseApplyFtrl", ops.SparseApplyFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5), 3, ()),
    ("FusedSparseFtrl", ops.FusedSparseFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5), 3, ()),
    ("FusedSparseProximalAdagrad", ops.FusedSparseProximalAdagrad(), 2,
     (Tensor(0.1, ms.float32), Tensor(0.01, ms.float32), Tensor(0.02, ms.float32))),
    ("FusedSparseAdam", ops.FusedSparseAdam(), 3,
     tuple(Tensor(x, ms.float32) for x in (0.81, 0.998, 0.01, 0.9, 0.999, 1e-8))),
    ("FusedSparseLazyAdam", ops.FusedSparseLazyAdam(), 3,
     tuple(Tensor(x, ms.float32) for x in (0.81, 0.998, 0.01, 0.9, 0.999, 1e-8))),
]
for name, op, n, scalars in cases:
    net = Apply(op, n, scalars, (0, 2, 1) if "Adam" in name else (0, 1, 2))
    try:
        net(grad, indices)
        print(name)
        for p in net.params:
            print(np.round(p.asnumpy(), 5))
    except Exception as e:
        print(name, "ERR", type(e).__name__)
