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
                          text=True, env=lite_env(), cwd=REPO, timeout=300)


def lite_env():
    """A child process environment with one BLAS thread (see conftest.py)."""
    env = child_env(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.pop("OPENSPORE_BACKEND", None)
    return env


def digits(seed=0):
    """scikit-learn's 8x8 digits upsampled (nearest) to 32x32 and normalised: (x_train, y_train, x_test, y_test)
    with 1437 / 360 images, the split of examples/digits_lenet.py."""
    from sklearn.datasets import load_digits
    d = load_digits()
    images = (d.images / 16.0).astype(np.float32)
    labels = d.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    test, train = order[:360], order[360:]

    def prep(a):
        return ((np.kron(a, np.ones((4, 4), np.float32)) - 0.3) / 0.4)[:, None].astype(np.float32)
    return prep(images[train]), labels[train], prep(images[test]), labels[test]


def train_digits_lenet(workdir, epochs=3, batch=32, lr=0.01):
    """LeNet5 trained on the digits by openspore.lite (exported training step → converter → run_step), then
    exported by openspore as an inference MindIR at batch 360. Returns (mindir path, trained weights)."""
    import openspore as ms
    from openspore import lite as mslite
    from openspore import nn
    from tests.nn.fixture_nets import LeNet5
    x, y, _, _ = digits()
    ms.set_seed(1)
    net = LeNet5()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                               nn.Momentum(net.trainable_params(), lr, 0.9))
    step.set_train()
    base = os.path.join(workdir, "digits_train")
    ms.export(step, ms.Tensor(x[:batch]), ms.Tensor(y[:batch]), file_name=base, file_format="MINDIR")
    conv = mslite.Converter()
    conv.train_model = True
    model = mslite.Model()
    model.build_from_file(conv.convert(mslite.FmkType.MINDIR, base + ".mindir", base), mslite.ModelType.MINDIR_LITE,
                          train_cfg=mslite.TrainCfg())
    n = len(y) // batch
    model.train(epochs, [(x[i * batch:(i + 1) * batch], y[i * batch:(i + 1) * batch]) for i in range(n)])
    weights = {t.name: t.get_data_to_numpy() for t in model.get_trainable_params()}
    ms.load_param_into_net(net, {k: ms.Parameter(ms.Tensor(v), name=k) for k, v in weights.items()})
    net.set_train(False)
    infer = os.path.join(workdir, "digits_lenet")
    ms.export(net, ms.Tensor(np.zeros((360, 1, 32, 32), np.float32)), file_name=infer, file_format="MINDIR")
    return infer + ".mindir", weights
