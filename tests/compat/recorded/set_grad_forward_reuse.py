"""set_grad(): a grad right after the forward on the same inputs does not run the forward again (BatchNorm moves once)."""
import numpy as np
import mindspore as ms
from mindspore import nn
for mark in (True, False):
    net = nn.BatchNorm1d(2, momentum=0.5)
    net.set_train()
    if mark:
        net.set_grad()
    x = ms.Tensor(np.array([[1.0, 2.0], [3.0, 6.0]], np.float32))
    net(x)
    ms.grad(net)(x)
    print(mark, net.moving_mean.asnumpy().tolist())
