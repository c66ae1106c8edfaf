import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
x = Tensor(np.array([1, 2], np.int32))
g = ms.grad(lambda a: a * 3)(x); print(g, g.dtype)
g = ms.grad(lambda a: (a * a).sum())(x); print(g, g.dtype)
g = ms.grad(lambda a, b: a * b, grad_position=(0, 1))(x, Tensor(np.array([2.5, 1.5], np.float32))); print(g, g[0].dtype)
class W(nn.Cell):
    def construct(self, x, y):
        while x < y:
            x = x + 3 * x
        return x
g = ms.grad(W(), grad_position=(0, 1))(Tensor(1, ms.int32), Tensor(10, ms.int32)); print(g)
print(ms.grad(lambda a: ops.cast(a, ms.float32) * 2)(x))
