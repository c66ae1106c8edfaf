"""The layers' gradients reproduce MindSpore training: 5 momentum steps of LeNet5 from the fixture's initial
checkpoint give MindSpore's losses and final weights (written with primitives only, no nn optimizer)."""
import os

import numpy as np

import openspore as ms
from openspore import ops
from tests.nn.fixture_nets import LeNet5


def test_lenet5_momentum_trajectory_matches_mindspore(fixtures_dir, backend):
    net = LeNet5()
    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
    assert not_loaded == []
    net.set_train()
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")))
    y = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")).astype(np.int32))
    params = net.trainable_params()
    moments = [ms.Parameter(ms.Tensor(np.zeros(p.shape, np.float32)), name="moments." + p.name) for p in params]
    step = ms.value_and_grad(lambda a, b: ops.cross_entropy(net(a), b), None, params)
    apply_momentum = ops.ApplyMomentum()
    losses = []
    for _ in range(5):
        loss, grads = step(x, y)
        losses.append(float(loss.asnumpy()))
        for p, m, g in zip(params, moments, grads):
            apply_momentum(p, m, 0.05, g, 0.9)
    np.testing.assert_allclose(losses, np.load(os.path.join(fixtures_dir, "lenet5_train_losses.npy")),
                               rtol=1e-5, atol=1e-5)
    after = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_after5.ckpt"))
    for p in params:
        np.testing.assert_allclose(p.asnumpy(), after[p.name].asnumpy(), rtol=1e-5, atol=1e-6, err_msg=p.name)
