"""`nn.no_init_parameters` (also `nn.utils.no_init_parameters`): Parameters made from initializers inside the block
stay uninitialized until read or overwritten by a checkpoint (MindSpore 2.10 behaves so: `has_init` True inside,
False after a forward pass, `init_parameters_data()` or `load_checkpoint`)."""
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.common.initializer import initializer


def test_parameters_from_initializers_are_deferred_until_read():
    with nn.no_init_parameters():
        net = nn.Dense(3, 2)
        plain = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="plain")
        lazy = ms.Parameter(initializer("ones", [2]), name="lazy")
    assert net.weight.has_init and net.bias.has_init and lazy.has_init
    assert not plain.has_init
    assert net.weight.shape == (2, 3) and net.weight.dtype == ms.float32
    out = net(ms.Tensor(np.ones((1, 3), np.float32)))
    assert out.shape == (1, 2) and not net.weight.has_init
    assert lazy.asnumpy().tolist() == [1.0, 1.0] and not lazy.has_init
    after = nn.Dense(3, 2)
    assert not after.weight.has_init  # the block is over


def test_checkpoint_load_fills_deferred_parameters(tmp_path):
    source = nn.Dense(3, 2)
    path = os.path.join(tmp_path, "dense.ckpt")
    ms.save_checkpoint(source, path)
    with nn.no_init_parameters():
        net = nn.Dense(3, 2)
    ms.load_checkpoint(path, net)
    assert not net.weight.has_init
    np.testing.assert_array_equal(net.weight.asnumpy(), source.weight.asnumpy())
    np.testing.assert_array_equal(net.bias.asnumpy(), source.bias.asnumpy())


def test_init_parameters_data_and_nesting_and_errors():
    with nn.no_init_parameters():
        with nn.utils.no_init_parameters():
            inner = nn.Dense(2, 2)
        outer = nn.Dense(2, 2)  # still inside the outer block
    assert inner.weight.has_init and outer.weight.has_init
    params = outer.init_parameters_data()
    assert not outer.weight.has_init and set(params) == {"weight", "bias"}
    with pytest.raises(RuntimeError):
        with nn.no_init_parameters():
            raise RuntimeError("boom")
    assert not nn.Dense(2, 2).weight.has_init  # an exception leaves deferral off
