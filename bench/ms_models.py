"""The openspore side of the benchmark workloads, written as a MindSpore user would write them."""
import time

import numpy as np

import openspore as ms
from openspore import nn, ops


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Dense(784, 512), nn.Dense(512, 512), nn.Dense(512, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1, self.fc2, self.fc3 = nn.Dense(400, 120), nn.Dense(120, 84), nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class BasicBlock(nn.Cell):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, pad_mode="pad", padding=1)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, pad_mode="pad", padding=1)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.SequentialCell(nn.Conv2d(cin, cout, 1, stride), nn.BatchNorm2d(cout))

    def construct(self, x):
        idt = x if self.down is None else self.down(x)
        y = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(y)) + idt)


class ResNet20(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, 1, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        blocks, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            for i in range(3):
                blocks.append(BasicBlock(cin, cout, stride if i == 0 else 1))
                cin = cout
        self.layers = nn.SequentialCell(blocks)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(64, num_classes)

    def construct(self, x):
        x = self.relu(self.bn(self.conv(x)))
        x = self.layers(x)
        return self.fc(self.flatten(self.pool(x)))


class Block(nn.Cell):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm((d,), epsilon=1e-5), nn.LayerNorm((d,), epsilon=1e-5)
        self.qkv, self.proj = nn.Dense(d, 3 * d), nn.Dense(d, d)
        self.fc1, self.fc2 = nn.Dense(d, 4 * d), nn.Dense(4 * d, d)
        self.gelu = nn.GELU(approximate=False)
        self.heads, self.d = heads, d
        self.scale = 1.0 / (d // heads) ** 0.5

    def construct(self, x, mask):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = ops.split(self.qkv(self.ln1(x)), d, axis=-1)
        q = q.reshape(b, t, self.heads, hd).transpose(0, 2, 1, 3)
        k = k.reshape(b, t, self.heads, hd).transpose(0, 2, 3, 1)
        v = v.reshape(b, t, self.heads, hd).transpose(0, 2, 1, 3)
        att = ops.softmax(ops.matmul(q, k) * self.scale + mask, axis=-1)
        y = ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(self.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Cell):
    def __init__(self, vocab=512, d=128, layers=4, heads=4, seq=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = ms.Parameter(ms.Tensor(np.zeros((1, seq, d), np.float32)), name="pos")
        self.blocks = nn.CellList([Block(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm((d,), epsilon=1e-5)
        self.head = nn.Dense(d, vocab, has_bias=False)
        self.mask = ms.Tensor(np.triu(np.full((seq, seq), -1e9, np.float32), 1))
        self.vocab = vocab

    def construct(self, ids):
        x = self.tok(ids) + self.pos
        for blk in self.blocks:
            x = blk(x, self.mask)
        return self.head(self.ln(x)).reshape(-1, self.vocab)


class Encoder(GPT):
    """A BERT-style encoder (bidirectional attention: an all-zero mask) with a token-prediction head; the
    memory benchmark's training graph: 4 layers, d=256, 4 heads, seq 128."""

    def __init__(self, vocab=512, d=256, layers=4, heads=4, seq=128):
        super().__init__(vocab, d, layers, heads, seq)
        self.mask = ms.Tensor(np.zeros((seq, seq), np.float32))


class FlatLabels(nn.Cell):
    """Loss wrapper flattening (batch, seq) labels for the language model."""

    def __init__(self, loss):
        super().__init__()
        self.loss = loss

    def construct(self, logits, labels):
        return self.loss(logits, labels.reshape(-1))


def build(name, batch=8):
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    if name == "mlp":
        net, x, y = MLP(), rng.standard_normal((128, 784), np.float32), rng.integers(0, 10, 128).astype(np.int32)
    elif name == "lenet":
        net, x, y = LeNet5(), rng.standard_normal((32, 1, 32, 32), np.float32), rng.integers(0, 10, 32).astype(np.int32)
    elif name in ("resnet", "infer_resnet"):
        batch = 32 if name == "resnet" else 1
        net = ResNet20()
        x, y = rng.standard_normal((batch, 3, 32, 32), np.float32), rng.integers(0, 10, batch).astype(np.int32)
    elif name == "gpt":
        net = GPT()
        x, y = rng.integers(0, 512, (8, 64)).astype(np.int32), rng.integers(0, 512, (8, 64)).astype(np.int32)
    elif name == "encoder":
        net = Encoder()
        x, y = rng.integers(0, 512, (batch, 128)).astype(np.int32), rng.integers(0, 512, (batch, 128)).astype(np.int32)
    else:
        raise ValueError(name)
    return net, ms.Tensor(x), ms.Tensor(y)


def make_step(name, mode="pynative", outputs=None):
    """Returns (step callable, compile seconds or None). Graph mode compiles by running one step here; with a
    list as `outputs`, that step's output (the loss of a training step) is appended to it."""
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    net, x, y = build(name)
    if name == "infer_resnet":
        net.set_train(False)
        step = lambda: net(x)  # noqa: E731
    else:
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        if name == "gpt":
            loss = FlatLabels(loss)
            opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
        else:
            opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        train.set_train()
        step = lambda: train(x, y)  # noqa: E731
    compile_s = None
    if mode == "graph":
        t0 = time.perf_counter()
        first = step()
        if outputs is not None:
            outputs.append(first)
        compile_s = _graph_compile_seconds() or time.perf_counter() - t0
    return step, compile_s


def _graph_compile_seconds():
    """Seconds spent compiling graphs so far (frontend + passes + codegen, as the runtime measured them); the
    first step's wall time also holds one-off imports and lazy parameter initialisation."""
    from openspore.nn import cell as cell_module
    runner = cell_module._graph_runner
    caches = getattr(runner, "caches", {})
    return sum(e.compile_time for cache in list(caches.values()) for e in cache.entries.values())
