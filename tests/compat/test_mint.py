"""openspore.mint (mindspore.mint): PyTorch-style dim/keepdim functions and layers, against NumPy."""
import numpy as np
import pytest

import openspore as ms
from openspore import mint
from openspore.mint import nn as mnn
from openspore.mint.nn import functional as F

A = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], np.float32)


def T(x):
    return ms.Tensor(np.asarray(x))


def check(got, want):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, want", [
    (lambda: mint.sum(T(A), dim=1, keepdim=True), A.sum(1, keepdims=True)),
    (lambda: mint.mean(T(A), dim=0), A.mean(0)),
    (lambda: mint.prod(T(A), 1), A.prod(1)),
    (lambda: mint.max(T(A)), A.max()),
    (lambda: mint.max(T(A), dim=1)[0], A.max(1)),
    (lambda: mint.min(T(A), dim=0)[1], A.argmin(0)),
    (lambda: mint.max(T(A), T(A[::-1].copy())), np.maximum(A, A[::-1])),
    (lambda: mint.argmax(T(A), dim=1), A.argmax(1)),
    (lambda: mint.std(T(A), dim=1), A.std(1, ddof=1)),
    (lambda: mint.var(T(A), correction=0), A.var()),
    (lambda: mint.cat([T(A), T(A)], dim=1), np.concatenate([A, A], 1)),
    (lambda: mint.stack([T(A), T(A)], dim=2), np.stack([A, A], 2)),
    (lambda: mint.sort(T(A), dim=1, descending=True)[0], -np.sort(-A, 1)),
    (lambda: mint.gather(T(A), 1, T(np.array([[2, 0], [1, 1]]))), np.take_along_axis(A, np.array([[2, 0], [1, 1]]), 1)),
    (lambda: mint.transpose(T(A), 0, 1), A.T),
    (lambda: mint.flatten(T(A)), A.reshape(-1)),
    (lambda: mint.unsqueeze(T(A), 1), A[:, None]),
    (lambda: mint.roll(T(A), 1), np.roll(A, 1)),
    (lambda: mint.clamp(T(A), 2.0, 4.0), np.clip(A, 2, 4)),
    (lambda: mint.cumsum(T(A), 1), np.cumsum(A, 1)),
    (lambda: mint.linspace(0, 1, 3), [0, 0.5, 1]),
    (lambda: mint.zeros((2, 2)), np.zeros((2, 2))),
    (lambda: mint.scatter(T(A), 1, T(np.array([[0], [2]])), T(np.array([[9.0], [8.0]], np.float32))),
     [[9, 5, 3], [4, 2, 8]]),
    (lambda: F.linear(T(A), T(A), T(np.ones(2, np.float32))), A @ A.T + 1),
    (lambda: F.normalize(T(A)), A / np.linalg.norm(A, axis=1, keepdims=True)),
    (lambda: F.softmax(T(A), dim=1), np.exp(A) / np.exp(A).sum(1, keepdims=True)),
])
def test_against_numpy(fn, want):
    check(fn(), want)


def test_where_split_and_layers():
    rows, cols = mint.where(T(A) > 4)
    assert rows.asnumpy().tolist() == [0, 1] and cols.asnumpy().tolist() == [1, 2]
    assert [p.shape for p in mint.split(T(A), 2, dim=1)] == [(2, 2), (2, 1)]
    layer = mnn.Linear(3, 4, bias=False)
    assert layer(T(A)).shape == (2, 4) and layer.bias is None
    assert mnn.ReLU is ms.nn.ReLU and mint.abs is ms.ops.abs


def test_mint_layers_with_pytorch_signatures_are_the_ext_layers():
    """In MindSpore 2.10 `mint.nn.AvgPool2d is nn.AvgPool2dExt` (and likewise for the others)."""
    import numpy as np
    import openspore as ms
    from openspore.mint import nn as mnn
    for name in ("AvgPool1d", "AvgPool2d", "AvgPool3d", "Dropout", "Dropout2d", "Embedding", "L1Loss", "LayerNorm",
                 "LogSoftmax", "MaxPool2d", "PReLU"):
        assert getattr(mnn, name) is getattr(ms.nn, name + "Ext")
    x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    assert mnn.AvgPool2d(2)(x).shape == (1, 1, 2, 2)  # stride defaults to the kernel size
