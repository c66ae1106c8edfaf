"""Shared set-up for the lite tests: the fixtures' training step exported by openspore, and converter runs."""
import os
import subprocess
import sys

import numpy as np

from tests.conftest import REPO, child_env

MODELS = ("mlp", "lenet5", "resblock", "encoder", "branchy")


def export_lenet_train(fixtures_dir, path):
    """Export TrainOneStepCell(WithLossCell(LeNet5, SoftmaxCrossEntropyWithLogits(sparse, mean)), Momentum(0.05, 0.9))
    from lenet5_init.ckpt as MindIR (what the fixtures README describes), at batch 16."""
    import openspore as ms
    from openspore import nn
    from tests.nn.fixture_nets import LeNet5
    net = LeNet5()
    ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9))
    step.set_train()
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")))
    y = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")))
    ms.export(step, x, y, file_name=path, file_format="MINDIR")
    return path + ".mindir"


def converter_lite(*flags):
    """Run `python -m openspore.lite.converter_lite` with `flags`; returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "openspore.lite.converter_lite", *flags], capture_output=True,
                          text=True, env=child_env(), cwd=REPO, timeout=300)
