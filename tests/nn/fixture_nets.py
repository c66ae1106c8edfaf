"""The networks behind the MindSpore fixtures (shared/fixtures/mindspore/README.md), built with openspore layers.

Attribute names match the fixtures' checkpoint tags, so `load_param_into_net` fills every parameter.
"""
from openspore import nn, ops


class MLP(nn.Cell):
    """mlp: Dense(20, 32) → GELU (tanh approximation) → Dense(32, 5)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(20, 32)
        self.act = nn.GELU()
        self.fc2 = nn.Dense(32, 5)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


class LeNet5(nn.Cell):
    """lenet5: two valid 5x5 convolutions (no bias) with ReLU and 2x2 max pooling, then Dense 400-120-84-10."""

    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class ResBlock(nn.Cell):
    """resblock: conv3x3(s2)-BN-ReLU-conv3x3-BN plus a 1x1(s2) conv-BN shortcut, add, ReLU, global average pool,
    Flatten, Dense(16, 10)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 16, 3, stride=2, pad_mode="pad", padding=1, has_bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, stride=1, pad_mode="pad", padding=1, has_bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.down = nn.SequentialCell(nn.Conv2d(8, 16, 1, stride=2, has_bias=False), nn.BatchNorm2d(16))
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.flat = nn.Flatten()
        self.fc = nn.Dense(16, 10)

    def construct(self, x):
        identity = self.down(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y = self.relu(ops.add(y, identity))
        return self.fc(self.flat(self.pool(y)))


class Encoder(nn.Cell):
    """encoder: Embedding(50, 32) → TransformerEncoderLayer(32, 4, 64, dropout=0, batch_first) → Dense(32, 50)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 32)
        self.layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0,
                                                batch_first=True)
        self.head = nn.Dense(32, 50)

    def construct(self, ids):
        return self.head(self.layer(self.emb(ids)))


class Branchy(nn.Cell):
    """branchy (fixture README): Dense, a tensor `if`, then a loop over a Python int (unrolled)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 6)

    def construct(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            y = y * 2
        else:
            y = y - 1
        i = 0
        while i < 3:
            y = ops.tanh(y) + x
            i += 1
        return y


FIXTURE_NETS = {"mlp": MLP, "lenet5": LeNet5, "resblock": ResBlock, "encoder": Encoder}
