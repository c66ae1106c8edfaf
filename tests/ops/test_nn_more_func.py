"""Detection/box functions (checked against MindSpore 2.10 while written; here against numpy loops of the
documented formulas), lrn, affine_grid, multilabel_margin_loss, rrelu and the Laplace samplers, and their classes."""
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import openspore as ms
from openspore import Tensor, ops

RNG = np.random.default_rng(9)
ANCHORS = np.array([[0, 0, 10, 10], [5, 5, 15, 20]], np.float32)
GT = np.array([[0, 0, 10, 10], [2, 3, 8, 12], [1, 1, 4, 4]], np.float32)


def _np_iou(a, g, mode):
    out = np.zeros((len(g), len(a)))
    for i, gb in enumerate(g):
        for j, ab in enumerate(a):
            w = max(0.0, min(ab[2], gb[2]) - max(ab[0], gb[0]) + 1)
            h = max(0.0, min(ab[3], gb[3]) - max(ab[1], gb[1]) + 1)
            area = lambda b: (b[2] - b[0] + 1) * (b[3] - b[1] + 1)  # noqa: E731
            out[i, j] = w * h / (area(gb) if mode == "iof" else area(ab) + area(gb) - w * h)
    return out


@pytest.mark.parametrize("mode", ["iou", "iof"])
def test_iou(backend, mode):
    np.testing.assert_allclose(ops.iou(Tensor(ANCHORS), Tensor(GT), mode).asnumpy(), _np_iou(ANCHORS, GT, mode),
                               rtol=1e-6)
    np.testing.assert_allclose(ops.IOU(mode)(Tensor(ANCHORS), Tensor(GT)).asnumpy(), _np_iou(ANCHORS, GT, mode),
                               rtol=1e-6)


def test_bounding_box_round_trip_and_clipping(backend):
    means, stds = (0.1, 0.0, 0.0, 0.2), (1.0, 2.0, 1.0, 0.5)
    deltas = ops.bounding_box_encode(Tensor(ANCHORS), Tensor(GT[:2]), means, stds)
    # MindSpore 2.10 gives these for the second pair (the first pair is identical boxes: zero deltas)
    np.testing.assert_allclose(deltas.asnumpy()[1], [-0.55454546, -0.15625, -0.45198515, -1.3400073], rtol=1e-6)
    back = ops.BoundingBoxDecode((100, 100), means, stds)(Tensor(ANCHORS), deltas)
    np.testing.assert_allclose(back.asnumpy(), GT[:2], atol=1e-4)
    big = Tensor(np.array([[0, 0, 0.3, -0.1], [0, 0, 5.5, 0.5]], np.float32))
    clipped = ops.bounding_box_decode(Tensor(ANCHORS), big, (20, 30)).asnumpy()
    assert clipped[1].tolist() == [0.0, 0.0, 30.0, 20.0]  # x clipped to the width, y to the height
    assert ops.BoundingBoxEncode()(Tensor(ANCHORS), Tensor(ANCHORS)).asnumpy().tolist() == [[0.0] * 4] * 2


def test_check_valid_and_intopk():
    boxes = np.array([[1, 1, 10, 10], [0, 0, 40, 10], [-1, 0, 5, 5], [0, 0, 59, 39], [0, 0, 60, 40]], np.float32)
    got = ops.check_valid(Tensor(boxes), Tensor(np.array([20, 30, 2], np.float32))).asnumpy().tolist()
    assert got == [True, True, False, True, False]
    assert ops.CheckValid()(Tensor(boxes), Tensor(np.array([20, 30, 1], np.float32))).asnumpy().tolist() == \
        [True, False, False, False, False]
    x = RNG.standard_normal((6, 5)).astype(np.float32)
    t = RNG.integers(0, 5, 6).astype(np.int32)
    for k in (1, 2, 4):
        want = [t[i] in np.argsort(-x[i])[:k] for i in range(6)]
        assert ops.InTopK(k)(Tensor(x), Tensor(t)).asnumpy().tolist() == want


def test_lrn_matches_the_formula(backend):
    x = RNG.standard_normal((2, 7, 3, 2)).astype(np.float32)
    r, bias, alpha, beta = 2, 1.5, 0.3, 0.75
    want = np.empty_like(x)
    for c in range(7):
        s = (x[:, max(0, c - r):c + r + 1] ** 2).sum(1)
        want[:, c] = x[:, c] / (bias + alpha * s) ** beta
    np.testing.assert_allclose(ops.lrn(Tensor(x), r, bias, alpha, beta).asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(ops.LRN(r, bias, alpha, beta)(Tensor(x)).asnumpy(), want, rtol=1e-5)


@pytest.mark.parametrize("size, align", [((2, 1, 3, 4), False), ((2, 1, 3, 4), True), ((2, 1, 2, 3, 4), False)])
def test_affine_grid_matches_torch(size, align):
    theta = RNG.standard_normal((2, len(size) - 2, len(size) - 1)).astype(np.float32)
    np.testing.assert_allclose(ops.AffineGrid(align)(Tensor(theta), size).asnumpy(),
                               tf.affine_grid(torch.from_numpy(theta), size, align).numpy(), atol=1e-6)


def test_multilabel_margin_loss_matches_torch():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    y = np.array([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0]])
    for reduction in ("none", "mean", "sum"):
        np.testing.assert_allclose(ops.multilabel_margin_loss(Tensor(x), Tensor(y), reduction).asnumpy(),
                                   tf.multilabel_margin_loss(torch.from_numpy(x), torch.from_numpy(y),
                                                             reduction=reduction).numpy(), rtol=1e-6)
    loss, is_target = ops.MultilabelMarginLoss()(Tensor(x), Tensor(y))
    assert is_target.asnumpy().tolist() == [[1, 0, 0, 1], [0, 1, 1, 1], [0, 0, 0, 0]]
    t = torch.from_numpy(x).requires_grad_(True)
    tf.multilabel_margin_loss(t, torch.from_numpy(y)).backward()
    g = ms.grad(lambda v: ops.multilabel_margin_loss(v, Tensor(y)))(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-6)


def test_random_composites_have_the_right_distribution():
    ms.set_seed(4)
    s = ops.standard_laplace((200000,)).asnumpy()
    assert abs(s.mean()) < 0.02 and abs(s.var() - 2.0) < 0.05  # Laplace(0, 1): variance 2
    s = ops.laplace((200000,), 3.0, 0.5).asnumpy()
    assert abs(np.median(s) - 3.0) < 0.01 and abs(np.abs(s - 3.0).mean() - 0.5) < 0.01
    assert ops.StandardLaplace(seed=5)((2, 3)).shape == (2, 3)
    x = Tensor(np.linspace(-2, 2, 1000).astype(np.float32))
    y = ops.rrelu(x, 0.1, 0.3).asnumpy()
    neg = x.asnumpy() < 0
    slopes = y[neg] / x.asnumpy()[neg]
    assert (y[~neg] == x.asnumpy()[~neg]).all() and slopes.min() >= 0.1 and slopes.max() <= 0.3


def test_padding_and_channel_shuffle_classes():
    assert ops.Padding(3)(Tensor(np.array([[5.0], [6.0]], np.float32))).asnumpy().tolist() == [[5, 0, 0], [6, 0, 0]]
    x = np.arange(6, dtype=np.float32).reshape(1, 6, 1, 1)
    got = ops.ChannelShuffle(2)(Tensor(x)).asnumpy().ravel().tolist()
    assert got == tf.channel_shuffle(torch.from_numpy(x), 2).numpy().ravel().tolist()
    with pytest.raises(ValueError, match="last dimension"):
        ops.Padding(3)(Tensor(np.ones((2, 2), np.float32)))
