"""mint.nn's Conv1d/2d/3d and BatchNorm1d/2d/3d (PyTorch's constructor arguments) against torch.nn with the
same weights: outputs, running statistics, and evaluation mode."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore.mint import nn as mnn

RNG = np.random.default_rng(21)


def _copy_weights(ours, theirs):
    ours.weight.set_data(ms.Tensor(theirs.weight.detach().numpy()))
    if theirs.bias is not None:
        ours.bias.set_data(ms.Tensor(theirs.bias.detach().numpy()))


CONVS = [  # (class name, args, kwargs, input shape)
    ("Conv1d", (3, 4, 3), {}, (2, 3, 9)),
    ("Conv1d", (4, 6, 5), {"stride": 2, "padding": 2, "groups": 2, "bias": False}, (2, 4, 11)),
    ("Conv2d", (3, 4, 3), {"padding": 1}, (2, 3, 6, 7)),
    ("Conv2d", (3, 5, (3, 2)), {"padding": (2, 1), "dilation": 2, "stride": (1, 2)}, (1, 3, 8, 9)),
    ("Conv2d", (2, 4, 3), {"padding": "same"}, (1, 2, 5, 6)),
    ("Conv2d", (2, 4, 3), {"padding": "valid", "bias": False}, (1, 2, 5, 6)),
    ("Conv3d", (2, 3, 3), {"padding": (1, 0, 2)}, (1, 2, 5, 6, 4)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", CONVS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CONVS)])
def test_convolutions_match_torch(name, args, kwargs, shape):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, **kwargs)
    ours = getattr(mnn, name)(*args, **kwargs)
    assert (ours.bias is None) == (theirs.bias is None) and tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    _copy_weights(ours, theirs)
    x = RNG.standard_normal(shape).astype(np.float32)
    want = theirs(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_convolution_options_openspore_lacks_are_refused():
    with pytest.raises(ValueError, match="padding_mode 'reflect' is not supported"):
        mnn.Conv2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="2 ints"):
        mnn.Conv2d(2, 2, 3, padding=(1, 1, 1))


@pytest.mark.parametrize("name,shape,kwargs", [("BatchNorm1d", (6, 3), {}), ("BatchNorm1d", (4, 3, 5), {"momentum": 0.3}),
                                               ("BatchNorm2d", (4, 3, 2, 5), {"eps": 1e-3}),
                                               ("BatchNorm3d", (2, 3, 2, 2, 3), {"affine": False}),
                                               ("BatchNorm2d", (4, 3, 2, 5), {"track_running_stats": False}),
                                               ("BatchNorm1d", (5, 3), {"momentum": None})])
def test_batch_norms_match_torch_in_training_and_evaluation(name, shape, kwargs):
    theirs = getattr(torch.nn, name)(3, **kwargs)
    ours = getattr(mnn, name)(3, **kwargs)
    if kwargs.get("affine", True):
        with torch.no_grad():
            theirs.weight.copy_(torch.from_numpy(RNG.uniform(0.5, 1.5, 3).astype(np.float32)))
            theirs.bias.copy_(torch.from_numpy(RNG.standard_normal(3).astype(np.float32)))
        ours.weight.set_data(ms.Tensor(theirs.weight.detach().numpy()))
        ours.bias.set_data(ms.Tensor(theirs.bias.detach().numpy()))
    # MindSpore mint's parameter names (those of its checkpoints), which are PyTorch's
    assert sorted(ours.parameters_dict()) == sorted(name for name, _ in theirs.state_dict().items())
    ours.set_train(True)
    for _ in range(3):
        x = (RNG.standard_normal(shape) * 2 + 1).astype(np.float32)
        want = theirs(torch.from_numpy(x)).detach().numpy()
        np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-4)
    if kwargs.get("track_running_stats", True):
        np.testing.assert_allclose(ours.running_mean.asnumpy(), theirs.running_mean.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ours.running_var.asnumpy(), theirs.running_var.numpy(), rtol=1e-5, atol=1e-6)
        assert int(ours.num_batches_tracked.asnumpy()) == int(theirs.num_batches_tracked) == 3
    ours.set_train(False)
    theirs.eval()
    x = RNG.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), theirs(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-4)
