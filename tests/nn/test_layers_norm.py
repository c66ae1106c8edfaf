"""Normalization layers: BatchNorm momentum/unbiased-variance semantics (facts §1.7), train vs eval, parameter
names, LayerNorm/GroupNorm/InstanceNorm numerics vs torch, gradients."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import openspore as ms
from openspore import nn
from tests.nn.layer_helpers import close


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_batchnorm_parameters_and_repr():
    bn = nn.BatchNorm2d(4)
    params = [(k, p.name, tuple(p.shape), p.requires_grad) for k, p in bn.parameters_and_names()]
    assert params == [("moving_mean", "mean", (4,), False), ("moving_variance", "variance", (4,), False),
                      ("gamma", "gamma", (4,), True), ("beta", "beta", (4,), True)]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn1 = nn.BatchNorm2d(4)

        def construct(self, x):
            return self.bn1(x)

    net = Net()
    assert sorted(p.name for p in net.get_parameters()) == ["bn1.beta", "bn1.gamma", "bn1.moving_mean",
                                                            "bn1.moving_variance"]
    assert [p.name for p in net.trainable_params()] == ["bn1.gamma", "bn1.beta"]
    assert repr(net.bn1).startswith("BatchNorm2d(num_features=4, eps=1e-05, momentum=0.9, "
                                    "gamma=Parameter (name=bn1.gamma")
    assert not nn.BatchNorm2d(4, affine=False).gamma.requires_grad
    assert net.bn1.bn_train.momentum == pytest.approx(0.1)


def test_batchnorm_moving_statistics_follow_mindspore(backend):
    """Facts: batch mean 2 moves the moving mean 0 → 0.2; the unbiased batch variance moves 1 → 1.1."""
    bn = nn.BatchNorm1d(1).set_train()
    x = ms.Tensor(np.array([[1.0], [3.0]], np.float32))  # mean 2, unbiased variance 2
    y = bn(x)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.2], rtol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [1.1], rtol=1e-6)
    np.testing.assert_allclose(y.asnumpy().ravel(), [-1, 1], rtol=1e-4)  # batch stats, biased variance 1
    mean_param = bn.moving_mean
    bn(x)
    assert bn.moving_mean is mean_param  # updated in place
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.38], rtol=1e-6)


def test_batchnorm_eval_uses_moving_statistics(backend):
    bn = nn.BatchNorm2d(3, moving_mean_init=0.5, moving_var_init=4.0, gamma_init=2.0, beta_init=1.0)
    x = rand(2, 3, 4, 4)
    expected = (x - 0.5) / np.sqrt(4.0 + 1e-5) * 2.0 + 1.0
    np.testing.assert_allclose(bn(ms.Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), [0.5] * 3)
    forced = nn.BatchNorm2d(3, use_batch_statistics=True)
    forced(ms.Tensor(x))
    assert np.abs(forced.moving_mean.asnumpy()).max() > 0
    frozen = nn.BatchNorm2d(3, use_batch_statistics=False).set_train()
    np.testing.assert_allclose(frozen(ms.Tensor(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(frozen.moving_mean.asnumpy(), [0, 0, 0])


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batchnorm_training_matches_torch(backend, shape):
    x = rand(*shape)
    bn = (nn.BatchNorm1d(3) if len(shape) < 4 else nn.BatchNorm2d(3)).set_train()
    rm, rv = torch.zeros(3), torch.ones(3)
    tx = torch.tensor(x, requires_grad=True)
    gamma = torch.tensor(bn.gamma.asnumpy(), requires_grad=True)
    beta = torch.tensor(bn.beta.asnumpy(), requires_grad=True)
    expected = F.batch_norm(tx, rm, rv, gamma, beta, training=True, momentum=0.1, eps=1e-5)
    weights = torch.from_numpy(rand(*shape, seed=1))
    (expected * weights).sum().backward()
    loss = lambda t: (bn(t) * ms.Tensor(weights.numpy())).sum()  # noqa: E731
    gx, (gg, gb) = ms.grad(loss, 0, [bn.gamma, bn.beta])(ms.Tensor(x))
    close(bn.moving_mean, rm)
    close(bn.moving_variance, rv)
    bn.set_train(False)
    close(bn(ms.Tensor(x)), F.batch_norm(torch.from_numpy(x), rm, rv, gamma, beta, training=False, eps=1e-5))
    close(gx, tx.grad, rtol=1e-4, atol=1e-4)
    close(gg, gamma.grad, rtol=1e-4, atol=1e-4)
    close(gb, beta.grad, rtol=1e-4, atol=1e-4)


def test_batchnorm_input_rank_errors():
    with pytest.raises(ValueError, match="For 'BatchNorm2d', the input must be 4-D"):
        nn.BatchNorm2d(3)(ms.Tensor(rand(2, 3)))
    with pytest.raises(ValueError, match="the 'momentum' must be in range"):
        nn.BatchNorm2d(3, momentum=1.5)
    assert nn.BatchNorm3d(2)(ms.Tensor(rand(2, 2, 3, 3, 3))).shape == (2, 2, 3, 3, 3)


def test_layernorm_defaults_and_torch(backend):
    ln = nn.LayerNorm((5,))
    assert ln.epsilon == 1e-7 and ln.begin_norm_axis == -1
    assert [(k, tuple(p.shape)) for k, p in ln.parameters_and_names()] == [("gamma", (5,)), ("beta", (5,))]
    ln.gamma.set_data(ms.Tensor(rand(5, seed=3)))
    ln.beta.set_data(ms.Tensor(rand(5, seed=4)))
    x = rand(2, 3, 5)
    expected = F.layer_norm(torch.from_numpy(x), (5,), torch.from_numpy(ln.gamma.asnumpy()),
                            torch.from_numpy(ln.beta.asnumpy()), eps=1e-7)
    close(ln(ms.Tensor(x)), expected)
    two = nn.LayerNorm((3, 5), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)
    close(two(ms.Tensor(x)), F.layer_norm(torch.from_numpy(x), (3, 5), eps=1e-5))
    with pytest.raises(TypeError, match="'normalized_shape' must be tuple"):
        nn.LayerNorm(5)


def test_layernorm_gradient_matches_torch(backend):
    ln = nn.LayerNorm((4,), gamma_init=ms.Tensor(rand(4, seed=2)))
    x = rand(3, 4)
    tx = torch.tensor(x, requires_grad=True)
    tg = torch.tensor(ln.gamma.asnumpy(), requires_grad=True)
    (F.layer_norm(tx, (4,), tg, None, eps=1e-7) ** 3).sum().backward()
    gx, (gg,) = ms.grad(lambda t: (ln(t) ** 3).sum(), 0, [ln.gamma])(ms.Tensor(x))
    close(gx, tx.grad, rtol=1e-4, atol=1e-4)
    close(gg, tg.grad, rtol=1e-4, atol=1e-4)


def test_groupnorm_and_instancenorm_match_torch(backend):
    gn = nn.GroupNorm(2, 4, gamma_init=ms.Tensor(rand(4, seed=5)), beta_init=ms.Tensor(rand(4, seed=6)))
    assert sorted(k for k, _ in gn.parameters_and_names()) == ["beta", "gamma"]
    x = rand(2, 4, 3, 3)
    expected = F.group_norm(torch.from_numpy(x), 2, torch.from_numpy(gn.gamma.asnumpy()),
                            torch.from_numpy(gn.beta.asnumpy()), eps=1e-5)
    close(gn(ms.Tensor(x)), expected)
    inorm = nn.InstanceNorm2d(4, gamma_init=ms.Tensor(rand(4, seed=7)))
    expected = F.instance_norm(torch.from_numpy(x), weight=torch.from_numpy(inorm.gamma.asnumpy()),
                               bias=torch.zeros(4), eps=1e-5)
    close(inorm(ms.Tensor(x)), expected)
    close(inorm.set_train()(ms.Tensor(x)), expected)
    x1 = rand(2, 4, 6)
    close(nn.InstanceNorm1d(4)(ms.Tensor(x1)), F.instance_norm(torch.from_numpy(x1), eps=1e-5))
    with pytest.raises(ValueError, match="divisible by 'num_groups'"):
        nn.GroupNorm(3, 4)
