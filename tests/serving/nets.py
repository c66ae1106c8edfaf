"""Networks the test servables load from checkpoints (imported by the test process and by the workers)."""
import numpy as np

import openspore as ms
from openspore import nn, ops


class LeNet5(nn.Cell):
    """MindSpore's LeNet5 (the fixture's layers and parameter names)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1, self.fc2, self.fc3 = nn.Dense(400, 120), nn.Dense(120, 84), nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def train_lenet(init_ckpt, x, y, steps=2):
    """A few Momentum steps from `init_ckpt` on (x, y) → the trained network (eval mode)."""
    net = LeNet5()
    ms.load_param_into_net(net, ms.load_checkpoint(init_ckpt))
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda a, b: ops.cross_entropy(net(a), b), None, opt.parameters)
    xs, ys = ms.Tensor(x), ms.Tensor(y.astype(np.int64))
    for _ in range(steps):
        _, grads = grad_fn(xs, ys)
        opt(grads)
    net.set_train(False)
    return net
