"""A small LeNet for the debugger tests (its conv lines are queried by code stack: keep CONV1_LINE right)."""
import numpy as np

import openspore as ms
from openspore import nn

CONV1_LINE = 22  # the line of `self.conv1(x)` in construct below


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(4, 8, 5, pad_mode="valid")
        self.fc1 = nn.Dense(8 * 5 * 5, 32)
        self.fc2 = nn.Dense(32, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.relu(self.fc1(self.flatten(x)))
        return self.fc2(x)


def data(batch=8, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    return ms.Tensor(x), ms.Tensor(y)


def train_step(lr=0.05, freeze=None):
    """A GRAPH_MODE-ready TrainOneStepCell over LeNet; `freeze`: a parameter name left out of the optimizer."""
    net = LeNet()
    params = [p for p in net.trainable_params() if p.name != freeze]
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(params, lr, 0.9))


def numpy_conv2d(x, w):
    """Valid, stride-1 NCHW convolution in float64, independent of any framework kernel."""
    windows = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), w.shape[2:], axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", windows, w.astype(np.float64))
