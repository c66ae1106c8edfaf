import numpy as np
import mindspore as ms
from mindspore import nn, Tensor

np.set_printoptions(precision=5, suppress=True)
ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 3)
        self.dense.weight.set_data(Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)))
        self.dense.bias.set_data(Tensor(np.array([0.1, -0.2, 0.3], np.float32)))

    def construct(self, x):
        return self.dense(x)


rng = np.random.default_rng(0)
x = Tensor(rng.standard_normal((8, 4)).astype(np.float32))
y = Tensor(rng.standard_normal((8, 3)).astype(np.float32))
for kwargs in ({}, {"beta1": 0.0}, {"weight_decay": 0.1, "scale_parameter": False}, {"warmup_init": True},
               {"learning_rate": 0.05, "relative_step": False, "scale_parameter": False}):
    net = Net()
    opt = nn.AdaFactor(net.trainable_params(), **kwargs)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    losses = [float(step(x, y).asnumpy()) for _ in range(4)]
    print(kwargs, np.array(losses))
    print(net.dense.weight.asnumpy(), net.dense.bias.asnumpy())
try:
    nn.AdaFactor(Net().trainable_params(), learning_rate=0.1)
except ValueError:
    print("ValueError")
