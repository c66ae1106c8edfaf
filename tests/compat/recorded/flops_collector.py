import contextlib
import io
import re

import numpy as np
import mindspore as ms
from mindspore import nn
import mindspore.dataset as ds
from mindspore.train import Model, FlopsUtilizationCollector, TrainFaultTolerance

ms.set_context(mode=ms.GRAPH_MODE)


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.conv2 = nn.Conv2d(4, 6, 3, pad_mode="same", has_bias=True)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(6 * 6 * 6, 5)

    def construct(self, x):
        return self.fc(self.flatten(self.relu(self.conv2(self.relu(self.conv1(x))))))


def run(net, loss, x, y, epochs=2):
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8)
    model = Model(net, loss, nn.SGD(net.trainable_params(), 0.01))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.train(epochs, data, callbacks=[FlopsUtilizationCollector(data.get_dataset_size(), computility=1e9)])
    lines = out.getvalue().splitlines()
    print(lines[0])
    steps = [l for l in lines if l.startswith("Train per step time")]
    print(len(steps), all(re.fullmatch(r"Train per step time: +[0-9.]+ ms mfu:[0-9.]+% hfu:[0-9.]+%", l) for l in steps))


rng = np.random.default_rng(0)
run(nn.Dense(4, 1), nn.MSELoss(), rng.random((32, 4), np.float32), rng.random((32, 1), np.float32))
run(nn.Dense(10, 5), nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
    rng.random((64, 10), np.float32), rng.integers(0, 5, (64,)).astype(np.int32))
run(ConvNet(), nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
    rng.random((16, 1, 8, 8), np.float32), rng.integers(0, 5, (16,)).astype(np.int32), epochs=1)
for kwargs in ({}, {"ckpt_save_path": "./ckpt"}, {"ckpt_save_fn": print}):
    try:
        TrainFaultTolerance(**kwargs)
    except ValueError as exc:
        print("ValueError", exc)
for bad in (0, -3, 2.5, "4"):
    try:
        FlopsUtilizationCollector(bad)
    except (TypeError, ValueError) as exc:
        print(type(exc).__name__)
ms.set_context(mode=ms.PYNATIVE_MODE)
try:
    run(nn.Dense(4, 1), nn.MSELoss(), rng.random((16, 4), np.float32), rng.random((16, 1), np.float32))
except ValueError as exc:
    print("ValueError", exc)
