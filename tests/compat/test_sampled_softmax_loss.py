"""nn.SampledSoftmaxLoss against MindSpore 2.10's values (recorded from it with fixed sampled_values)."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, nn

_rng = np.random.RandomState(0)
W = _rng.randn(7, 4).astype(np.float32)
B = _rng.randn(7).astype(np.float32)
X = _rng.randn(3, 4).astype(np.float32)


def _sampled(num_true):
    return (Tensor(np.array([1, 3, 5, 6], np.int32)), Tensor(np.full((3, num_true), 0.5, np.float32)),
            Tensor(np.array([0.4, 0.3, 0.2, 0.1], np.float32)))


# MindSpore 2.10, remove_accidental_hits=False (it gives these values for True as well: it ignores the flag).
CASES = [
    (1, np.array([0, 1, 2], np.int32), [0.74137, 1.97341, 9.09425]),
    (1, np.array([[0], [3], [6]], np.int64), [0.74137, 3.86275, 2.05498]),
    (2, np.array([[0, 1], [3, 2], [6, 5]], np.int32), [1.35164, 4.74199, 7.94432]),
]


@pytest.mark.parametrize("num_true, labels, expected", CASES)
def test_values_match_mindspore(num_true, labels, expected):
    loss = nn.SampledSoftmaxLoss(4, 7, num_true, _sampled(num_true), remove_accidental_hits=False)
    out = loss(Tensor(W), Tensor(B), Tensor(labels), Tensor(X))
    assert out.shape == (3,) and out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)


def test_accidental_hits_are_removed_and_reduction_applies():
    # Row 1's label 3 is also sampled: with the hit removed its loss drops (documented behaviour).
    loss = nn.SampledSoftmaxLoss(4, 7, 1, _sampled(1), remove_accidental_hits=True)
    out = loss(Tensor(W), Tensor(B), Tensor(np.array([[0], [3], [6]], np.int64)), Tensor(X)).asnumpy()
    np.testing.assert_allclose(out, [0.74137, 3.82710, 1.03202], rtol=1e-5)
    mean = nn.SampledSoftmaxLoss(4, 7, 1, _sampled(1), reduction="mean")(Tensor(W), Tensor(B),
                                                                         Tensor(np.array([[0], [3], [6]])), Tensor(X))
    assert mean.shape == () and np.isclose(float(mean.asnumpy()), out.mean(), rtol=1e-6)


def test_default_sampler_and_gradients():
    ms.set_seed(1)
    loss = nn.SampledSoftmaxLoss(num_sampled=4, num_classes=7)
    w, b, x = Tensor(W), Tensor(B), Tensor(X)
    out = loss(w, b, Tensor(np.array([0, 1, 2])), x)
    assert out.shape == (3,) and np.all(out.asnumpy() > 0)
    grad = ms.grad(lambda logits: loss(w, b, Tensor(np.array([0, 1, 2])), logits).sum())(x)
    assert grad.shape == (3, 4) and np.all(np.isfinite(grad.asnumpy()))


def test_argument_errors_as_mindspore():
    with pytest.raises(ValueError, match="'num_sampled' must be smaller than or equal to 'num_classes', but got "
                                         "'num_sampled': 8 and 'num_classes': 7"):
        nn.SampledSoftmaxLoss(8, 7)
    with pytest.raises(ValueError, match="'num_true' must be smaller than or equal to 'num_classes'"):
        nn.SampledSoftmaxLoss(2, 7, num_true=8)
    with pytest.raises(ValueError, match="reduction"):
        nn.SampledSoftmaxLoss(2, 7, reduction="x")
    with pytest.raises(ValueError, match="length of 'sampled_values' must be equal to 3"):
        nn.SampledSoftmaxLoss(2, 7, sampled_values=[1, 2])
    with pytest.raises(TypeError, match="type of 'sampled_values' must be a list or tuple, but got int"):
        nn.SampledSoftmaxLoss(2, 7, sampled_values=3)
    with pytest.raises(TypeError, match="'num_sampled' should be 'int', but got type 'float'"):
        nn.SampledSoftmaxLoss(2.0, 7)
    with pytest.raises(TypeError, match=r"'labels' should be one of \[mindspore.int32, mindspore.int64\], but got "
                                        r"'mindspore.float32'"):
        nn.SampledSoftmaxLoss(4, 7)(Tensor(W), Tensor(B), Tensor(np.array([0., 1, 2], np.float32)), Tensor(X))
