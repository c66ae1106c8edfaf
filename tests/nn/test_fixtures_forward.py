"""Acceptance: openspore networks loaded from MindSpore checkpoints reproduce MindSpore's outputs (eval mode),
on both backends. Architectures: shared/fixtures/mindspore/README.md; networks: tests/nn/fixture_nets.py."""
import os

import numpy as np
import pytest

import openspore as ms
from tests.nn.fixture_nets import FIXTURE_NETS

TOLERANCE = 1e-5


def _max_errors(actual, expected):
    actual = actual.astype(np.float64)
    expected = expected.astype(np.float64)
    abs_err = np.abs(actual - expected)
    rel_err = abs_err / np.maximum(np.abs(expected), 1.0)
    return float(abs_err.max()), float(rel_err.max())


def _load_net(fixtures_dir, name):
    net = FIXTURE_NETS[name]()
    params = ms.load_checkpoint(os.path.join(fixtures_dir, f"{name}.ckpt"))
    net_not_loaded, ckpt_not_loaded = ms.load_param_into_net(net, params)
    assert net_not_loaded == [] and ckpt_not_loaded == [], (net_not_loaded, ckpt_not_loaded)
    assert sorted(params) == sorted(p.name for p in net.get_parameters())
    for p in net.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), params[p.name].asnumpy())
    return net.set_train(False)


@pytest.mark.parametrize("name", sorted(FIXTURE_NETS))
def test_fixture_forward_matches_mindspore(fixtures_dir, backend, name):
    net = _load_net(fixtures_dir, name)
    x = np.load(os.path.join(fixtures_dir, f"{name}_input0.npy"))
    expected = np.load(os.path.join(fixtures_dir, f"{name}_output.npy"))
    out = net(ms.Tensor(x))
    assert out.shape == expected.shape and out.dtype == ms.float32
    abs_err, rel_err = _max_errors(out.asnumpy(), expected)
    assert abs_err <= TOLERANCE and rel_err <= TOLERANCE, (name, backend, abs_err, rel_err)


def test_resblock_uses_moving_statistics_in_eval(fixtures_dir, backend):
    """The fixture's moving statistics are non-trivial: batch statistics would give a different output."""
    net = _load_net(fixtures_dir, "resblock")
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "resblock_input0.npy")))
    expected = np.load(os.path.join(fixtures_dir, "resblock_output.npy"))
    before = net.bn1.moving_mean.asnumpy().copy()
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=TOLERANCE, atol=TOLERANCE)
    np.testing.assert_array_equal(net.bn1.moving_mean.asnumpy(), before)
    net.set_train(True)
    train_out = net(x).asnumpy()
    assert np.abs(train_out - expected).max() > 1e-3
    assert np.abs(net.bn1.moving_mean.asnumpy() - before).max() > 0


def test_fixture_parameter_names_and_shapes(fixtures_dir):
    """Each network's parameter names, shapes and trainability are exactly the checkpoint's."""
    for name, cls in FIXTURE_NETS.items():
        params = ms.load_checkpoint(os.path.join(fixtures_dir, f"{name}.ckpt"))
        net = cls()
        ours = {p.name: tuple(p.shape) for p in net.get_parameters()}
        assert ours == {k: tuple(v.shape) for k, v in params.items()}, name
        for p in net.get_parameters():
            assert p.requires_grad == ("moving_" not in p.name), p.name
