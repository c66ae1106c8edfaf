"""CTC primitives (CTCLossV2, CTCLossV2Grad, CTCLoss, CTCGreedyDecoder) and ops.ctc_loss / ops.ctc_greedy_decoder
against torch.nn.functional.ctc_loss, a brute-force enumeration of alignments, and finite differences."""
import itertools

import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops
from tests.device import use_backend


def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _data(seed=0, t=6, n=3, c=5, s=3):
    rng = np.random.default_rng(seed)
    lp = _log_softmax(rng.standard_normal((t, n, c))).astype(np.float32)
    targets = rng.integers(1, c, (n, s)).astype(np.int32)
    targets[0, 1] = targets[0, 0]  # a repeated label, which needs a blank between
    il = np.array([t, t - 1, t - 2][:n], np.int32)
    tl = np.array([s, 2, 1][:n], np.int32)
    return lp, targets, il, tl


def _brute_nll(lp, labels, length, blank, merge=True):
    """-log Σ p(path) over every path of `length` steps whose collapse is `labels`."""
    classes = lp.shape[-1]
    total = 0.0
    for path in itertools.product(range(classes), repeat=length):
        out, prev = [], None
        for c in path:
            if c != blank and (not merge or c != prev):
                out.append(c)
            prev = c
        if out == list(labels):
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_ctc_loss_matches_torch_values_and_gradients(backend, reduction):
    use_backend(backend)
    lp, targets, il, tl = _data()
    tlp = torch.tensor(lp, dtype=torch.float64, requires_grad=True)
    ref = torch.nn.functional.ctc_loss(tlp, torch.tensor(targets).long(), torch.tensor(il).long(),
                                       torch.tensor(tl).long(), reduction=reduction)
    ref.sum().backward()
    args = (ms.Tensor(targets), ms.Tensor(il), ms.Tensor(tl))
    loss, _ = ops.ctc_loss(ms.Tensor(lp), *args, reduction=reduction)
    np.testing.assert_allclose(loss.asnumpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    grad = ms.grad(lambda x: ops.ctc_loss(x, *args, reduction=reduction)[0].sum())(ms.Tensor(lp))
    np.testing.assert_allclose(grad.asnumpy(), tlp.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_ctc_loss_equals_brute_force_enumeration_and_blank_choice():
    lp, targets, il, tl = _data(seed=3, t=4, n=2, c=3, s=2)
    targets = np.array([[1, 1], [0, 1]], np.int32)  # with blank=2, class 0 is a label
    nll, log_alpha = ops.CTCLossV2(blank=2)(ms.Tensor(lp), ms.Tensor(targets), ms.Tensor(np.array([4, 3], np.int32)),
                                            ms.Tensor(np.array([2, 2], np.int32)))
    expected = [_brute_nll(lp[:, 0], [1, 1], 4, 2), _brute_nll(lp[:3, 1], [0, 1], 3, 2)]
    np.testing.assert_allclose(nll.asnumpy(), expected, rtol=1e-5)
    assert log_alpha.shape == (2, 4, 5)
    assert np.isneginf(log_alpha.asnumpy()[1, 3]).all()  # past the input length


def test_ctc_gradient_by_finite_differences_through_log_softmax():
    """The reported gradient is the logits-style one: exact for ctc(log_softmax(z)) with respect to z."""
    use_backend("numpy")
    rng = np.random.default_rng(1)
    z = rng.standard_normal((5, 2, 4))
    targets, il, tl = (ms.Tensor(np.array(v, np.int32)) for v in ([[1, 3], [2, 2]], [5, 5], [2, 2]))

    def f(x):
        return ops.ctc_loss(ops.log_softmax(x, -1), targets, il, tl, reduction="sum")[0]

    analytic = ms.grad(f)(ms.Tensor(z)).asnumpy()
    numeric = np.zeros_like(z)
    for i in np.ndindex(z.shape):
        d = np.zeros_like(z)
        d[i] = 1e-6
        numeric[i] = (float(f(ms.Tensor(z + d)).asnumpy()) - float(f(ms.Tensor(z - d)).asnumpy())) / 2e-6
    np.testing.assert_allclose(analytic, numeric, rtol=1e-4, atol=1e-6)


def test_zero_infinity_and_impossible_alignment():
    lp, _, _, _ = _data()
    targets = ms.Tensor(np.array([[1, 1, 1]] * 3, np.int32))
    il, tl = ms.Tensor(np.array([3, 6, 6], np.int32)), ms.Tensor(np.array([3, 1, 1], np.int32))  # 1,1,1 needs 5 steps
    loss, _ = ops.ctc_loss(ms.Tensor(lp), targets, il, tl, reduction="none")
    assert np.isinf(loss.asnumpy()[0]) and np.isfinite(loss.asnumpy()[1:]).all()
    loss, _ = ops.ctc_loss(ms.Tensor(lp), targets, il, tl, reduction="none", zero_infinity=True)
    assert loss.asnumpy()[0] == 0.0
    grad = ms.grad(lambda x: ops.ctc_loss(x, targets, il, tl, reduction="sum", zero_infinity=True)[0])(ms.Tensor(lp))
    assert (grad.asnumpy()[:, 0] == 0).all() and np.isfinite(grad.asnumpy()).all()


def test_nn_ctc_loss_batched_and_unbatched():
    lp, targets, il, tl = _data()
    loss = ms.nn.CTCLoss()(ms.Tensor(lp), ms.Tensor(targets), ms.Tensor(il), ms.Tensor(tl))
    ref = torch.nn.functional.ctc_loss(torch.tensor(lp), torch.tensor(targets).long(), torch.tensor(il).long(),
                                       torch.tensor(tl).long())
    np.testing.assert_allclose(loss.asnumpy(), ref.numpy(), rtol=1e-5)
    single = ms.nn.CTCLoss(reduction="none")(ms.Tensor(lp[:, 1]), ms.Tensor(targets[1]), ms.Tensor(il[1:2]),
                                             ms.Tensor(tl[1:2]))
    assert single.shape == ()
    with pytest.raises(ValueError, match="reduction"):
        ms.nn.CTCLoss(reduction="avg")


def test_tf_style_ctc_loss_matches_the_v2_loss_on_log_softmax():
    """CTCLoss (logits, sparse labels, blank = last class) equals CTCLossV2 on log_softmax(x) with that blank;
    its `gradient` output is d loss / d logits, and its bprop scales it by the loss cotangent."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 2, 4)).astype(np.float32)
    indices = ms.Tensor(np.array([[0, 0], [0, 1], [1, 0]], np.int64))
    values = ms.Tensor(np.array([1, 1, 2], np.int32))
    lengths = ms.Tensor(np.array([5, 3], np.int32))
    loss, gradient = ops.CTCLoss()(ms.Tensor(x), indices, values, lengths)
    ref = torch.nn.functional.ctc_loss(torch.log_softmax(torch.tensor(x), -1), torch.tensor([[1, 1], [2, 0]]),
                                       torch.tensor([5, 3]), torch.tensor([2, 1]), blank=3, reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), ref.numpy(), rtol=1e-5)
    w = ms.Tensor(np.array([0.5, 2.0], np.float32))
    g = ms.grad(lambda a: (ops.CTCLoss()(a, indices, values, lengths)[0] * w).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), gradient.asnumpy() * np.array([0.5, 2.0])[None, :, None], rtol=1e-6)
    collapsed, _ = ops.CTCLoss(preprocess_collapse_repeated=True)(ms.Tensor(x), indices, values, lengths)
    np.testing.assert_allclose(collapsed.asnumpy()[0], _brute_nll(_log_softmax(x[:, 0].astype(np.float64)), [1], 5, 3),
                               rtol=1e-5)
    no_merge, _ = ops.CTCLoss(ctc_merge_repeated=False)(ms.Tensor(x), indices, values, lengths)
    np.testing.assert_allclose(no_merge.asnumpy()[1],
                               _brute_nll(_log_softmax(x[:3, 1].astype(np.float64)), [2], 3, 3, merge=False),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="ignore_longer_outputs_than_inputs"):
        ops.CTCLoss()(ms.Tensor(x), indices, values, ms.Tensor(np.array([1, 3], np.int32)))
    ignored, _ = ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(ms.Tensor(x), indices, values,
                                                                     ms.Tensor(np.array([1, 3], np.int32)))
    assert ignored.asnumpy()[0] == 0.0


def test_greedy_decoder():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 2, 3)).astype(np.float32)
    x[:, 0] = -5.0
    x[[0, 1, 3], 0, 1] = 5.0     # 1 1 blank 1 -> merged: [1, 1]
    x[[2, 4, 5], 0, 2] = 5.0     # blanks
    idx, val, shape, logp = ops.ctc_greedy_decoder(ms.Tensor(x), ms.Tensor(np.array([6, 4], np.int32)))
    best1 = [c for c in x[:4, 1].argmax(-1)]
    merged1 = [c for i, c in enumerate(best1) if c != 2 and (i == 0 or best1[i - 1] != c)]
    assert val.asnumpy().tolist()[:2] == [1, 1] and val.asnumpy().tolist()[2:] == merged1
    assert idx.asnumpy().tolist() == [[0, 0], [0, 1]] + [[1, i] for i in range(len(merged1))]
    assert shape.asnumpy().tolist() == [2, max(2, len(merged1))]
    np.testing.assert_allclose(logp.asnumpy()[:, 0], [-x[:6, 0].max(-1).sum(), -x[:4, 1].max(-1).sum()], rtol=1e-6)
    _, val, _, _ = ops.CTCGreedyDecoder(merge_repeated=False)(ms.Tensor(x), ms.Tensor(np.array([6, 4], np.int32)))
    assert val.asnumpy().tolist()[:3] == [1, 1, 1]
