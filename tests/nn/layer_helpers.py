"""Helpers for the layer tests: torch ↔ openspore conversion and copying torch weights into openspore cells."""
import numpy as np
import torch

import openspore as ms


def ms_t(value):
    """A torch tensor / numpy array as an openspore Tensor (same dtype)."""
    if isinstance(value, torch.Tensor):
        value = value.detach().numpy()
    return ms.Tensor(np.ascontiguousarray(value))


def np_of(value):
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    return value.asnumpy()


def copy_weights(cell, module, rename=None):
    """Copy every torch parameter of `module` into the openspore parameter of the same (or renamed) path."""
    rename = rename or {}
    ours = dict(cell.parameters_and_names())
    for key, value in module.state_dict().items():
        target = key
        for old, new in rename.items():
            target = target.replace(old, new)
        assert target in ours, (key, target, sorted(ours))
        assert tuple(ours[target].shape) == tuple(value.shape), (target, ours[target].shape, value.shape)
        ours[target].set_data(ms_t(value))
    return cell


def close(actual, expected, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np_of(actual), np_of(expected), rtol=rtol, atol=atol)


# torch.nn.TransformerEncoderLayer/DecoderLayer → MindSpore child names
TRANSFORMER_RENAME = {"linear1.": "dense1.", "linear2.": "dense2.", "norm1.weight": "norm1.gamma",
                      "norm1.bias": "norm1.beta", "norm2.weight": "norm2.gamma", "norm2.bias": "norm2.beta",
                      "norm3.weight": "norm3.gamma", "norm3.bias": "norm3.beta", "norm.weight": "norm.gamma",
                      "norm.bias": "norm.beta"}
