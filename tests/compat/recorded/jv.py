import numpy as np
import mindspore as ms
from mindspore import nn, Tensor
x = Tensor(np.array([1., 2.], np.float32))
class N(nn.Cell):
    def construct(self, a, b):
        return a * b
class C(nn.Cell):
    def construct(self, a):
        return a ** 3
print(nn.Vjp(N())(x, x, x))
print(nn.Jvp(N())(x, x, (x, x)))
print(nn.Vjp(C())(x, x))
print(nn.Jvp(C())(x, x))
