"""Real training runs that write summaries, shared by the summary, reader, server and browser tests."""
import numpy as np

import openspore as ms
import openspore.dataset as ds
from openspore import nn, ops
from tests.insight import nets


class SummaryLeNet(nets.LeNet):
    """The debugger tests' LeNet with summary ops in construct (an image, a scalar and a histogram per step)."""

    def __init__(self):
        super().__init__()
        self.image_summary = ops.ImageSummary()
        self.scalar_summary = ops.ScalarSummary()
        self.histogram_summary = ops.HistogramSummary()

    def construct(self, x):
        self.image_summary("input", x)
        out = super().construct(x)
        self.scalar_summary("logits_mean", out.mean())
        self.histogram_summary("logits", out)
        return out


class LossLog(ms.Callback):
    """The losses the training loop saw, one per step (what LossMonitor would print)."""

    def __init__(self):
        super().__init__()
        self.losses = []

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def dataset(rows=32, batch=8, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, rows).astype(np.int32)
    return ds.NumpySlicesDataset({"image": x, "label": y}, shuffle=False).batch(batch)


def train_lenet(summary_dir, epochs=2, collect_freq=1, lr=0.01, network=None, **collector_args):
    """Model.train a LeNet with a SummaryCollector into `summary_dir`; returns the per-step losses."""
    ms.set_seed(1)
    net = network or SummaryLeNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, nn.Momentum(net.trainable_params(), lr, 0.9))
    log = LossLog()
    collector = ms.SummaryCollector(summary_dir, collect_freq=collect_freq, **collector_args)
    model.train(epochs, dataset(), callbacks=[collector, log])
    return log.losses
