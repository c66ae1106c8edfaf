"""mint.nn.ConvTranspose2d, Fold and SyncBatchNorm (PyTorch's constructor arguments) against torch.nn with the
same weights (MindSpore 2.10 has no CPU kernels for the first two; SyncBatchNorm on one process is compared
with its documented BatchNorm behaviour through torch's BatchNorm of the same rank)."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore.mint import nn as mnn

RNG = np.random.default_rng(17)

TRANSPOSED = [  # (args, kwargs, input shape)
    ((3, 4, 3), {}, (2, 3, 5, 6)),
    ((4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1}, (1, 4, 5, 5)),
    ((4, 6, (3, 2)), {"stride": (2, 3), "padding": (0, 1), "dilation": 2, "groups": 2, "bias": False}, (2, 4, 4, 5)),
]


@pytest.mark.parametrize("args,kwargs,shape", TRANSPOSED, ids=range(len(TRANSPOSED)))
def test_conv_transpose2d_matches_torch(args, kwargs, shape):
    torch.manual_seed(0)
    theirs = torch.nn.ConvTranspose2d(*args, **kwargs)
    ours = mnn.ConvTranspose2d(*args, **kwargs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape) and (ours.bias is None) == (theirs.bias is None)
    ours.weight.set_data(ms.Tensor(theirs.weight.detach().numpy()))
    if theirs.bias is not None:
        ours.bias.set_data(ms.Tensor(theirs.bias.detach().numpy()))
    x = RNG.standard_normal(shape).astype(np.float32)
    want = theirs(torch.from_numpy(x)).detach().numpy()
    got = ours(ms.Tensor(x)).asnumpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_conv_transpose2d_rejects_other_padding_modes():
    with pytest.raises(ValueError, match="padding_mode"):
        mnn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="'padding'"):
        mnn.ConvTranspose2d(2, 2, 3, padding=(1, 2, 3))


@pytest.mark.parametrize("batched", [True, False])
def test_fold_matches_torch(batched):
    kwargs = dict(output_size=(5, 7), kernel_size=(2, 3), dilation=1, padding=1, stride=(1, 2))
    blocks = ((5 + 2 - 2) // 1 + 1) * ((7 + 2 - 3) // 2 + 1)
    shape = (2, 3 * 6, blocks) if batched else (3 * 6, blocks)
    x = RNG.standard_normal(shape).astype(np.float32)
    want = torch.nn.Fold(**kwargs)(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(mnn.Fold(**kwargs)(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 4)])
def test_sync_batch_norm_on_one_process_is_batch_norm(shape):
    ours = mnn.SyncBatchNorm(3, eps=1e-3, momentum=0.3)
    theirs = {2: torch.nn.BatchNorm1d, 3: torch.nn.BatchNorm1d, 4: torch.nn.BatchNorm2d,
              5: torch.nn.BatchNorm3d}[len(shape)](3, eps=1e-3, momentum=0.3)
    x = RNG.standard_normal(shape).astype(np.float32) * 2 + 1
    ours.set_train(True)
    for _ in range(2):  # training output and the running statistics it leaves behind
        np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), theirs(torch.from_numpy(x)).detach().numpy(),
                                   rtol=1e-4, atol=1e-5)
    ours.set_train(False)
    theirs.eval()
    np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), theirs(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


def test_sync_batch_norm_arguments():
    with pytest.raises(TypeError, match="process_group"):
        mnn.SyncBatchNorm(3, process_group=[0, 1])
    assert mnn.SyncBatchNorm(3, process_group="world").process_group == "world"
    with pytest.raises(ValueError, match="2 or 3"):
        mnn.SyncBatchNorm(3)(ms.Tensor(np.ones(3, np.float32)))


def test_sync_batch_norm_parameter_names_and_graph_mode(graph_mode):
    ours, theirs = mnn.SyncBatchNorm(3), torch.nn.BatchNorm2d(3)
    assert sorted(ours.parameters_dict()) == sorted(theirs.state_dict())  # MindSpore mint's names are torch's
    ours.set_train(True)
    for _ in range(2):
        x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
        np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), theirs(torch.from_numpy(x)).detach().numpy(),
                                   rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.running_var.asnumpy(), theirs.running_var.numpy(), rtol=1e-5)
    assert int(ours.num_batches_tracked.asnumpy()) == 2
