"""Loss Cells: values against float64 numpy formulas, reductions, defaults, dtypes, gradients and errors."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn
from tests.conftest import assert_close

RNG = np.random.default_rng(7)
X = RNG.normal(size=(4, 5)).astype(np.float32)
Y = RNG.normal(size=(4, 5)).astype(np.float32)


def _t(a):
    return ms.Tensor(a)


def _reduce(v, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction](v)


def _log_softmax(z):
    z = z.astype(np.float64)
    m = z.max(axis=1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))


# ---- LossBase ------------------------------------------------------------------------------------------------
def test_lossbase_get_loss_reductions_and_weights():
    x = _t(X)
    assert_close(nn.loss.LossBase().get_loss(x), X.astype(np.float64).mean())
    assert_close(nn.loss.LossBase("sum").get_loss(x), X.astype(np.float64).sum(), rtol=1e-5, atol=1e-5)
    assert_close(nn.loss.LossBase("none").get_loss(x, 2.0), 2.0 * X)
    w = RNG.uniform(size=(1, 5)).astype(np.float32)
    assert_close(nn.loss.LossBase().get_loss(x, _t(w)), (X * w).astype(np.float64).mean())
    assert nn.loss.LossBase().get_axis(x) == (0, 1)


def test_lossbase_computes_in_float32_and_returns_input_dtype():
    x16 = ms.Tensor(X.astype(np.float16))
    out = nn.loss.LossBase().get_loss(x16)
    assert out.dtype == ms.float16
    assert_close(out, X.astype(np.float16).astype(np.float32).mean(), rtol=1e-3)


@pytest.mark.parametrize("cls", [nn.L1Loss, nn.MSELoss, nn.loss.LossBase, nn.CrossEntropyLoss])
def test_bad_reduction_message(cls):
    with pytest.raises(ValueError, match=f"For '{cls.__name__}', the 'reduction' must be in"):
        cls(reduction="avg")


def test_lossbase_construct_must_be_overridden():
    with pytest.raises(NotImplementedError):
        nn.loss.LossBase()(_t(X), _t(Y))


# ---- regression losses ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_mse_values(backend, reduction):
    d = X.astype(np.float64) - Y
    assert_close(nn.L1Loss(reduction)(_t(X), _t(Y)), _reduce(np.abs(d), reduction), rtol=1e-5, atol=1e-5)
    assert_close(nn.MSELoss(reduction)(_t(X), _t(Y)), _reduce(d * d, reduction), rtol=1e-5, atol=1e-5)
    assert_close(nn.MAELoss(reduction)(_t(X), _t(Y)), _reduce(np.abs(d), reduction), rtol=1e-5, atol=1e-5)


def test_mse_broadcasts_and_rmse():
    y = Y[:1]
    d = X.astype(np.float64) - y
    assert_close(nn.MSELoss()(_t(X), _t(y)), np.mean(d * d))
    assert_close(nn.RMSELoss()(_t(X), _t(y)), np.sqrt(np.mean(d * d)))


def test_smooth_l1_default_none_and_beta():
    loss = nn.SmoothL1Loss()
    assert loss.reduction == "none" and loss.beta == 1.0
    d = np.abs(X.astype(np.float64) - Y)
    for beta in (1.0, 0.5):
        ref = np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
        assert_close(nn.SmoothL1Loss(beta=beta)(_t(X), _t(Y)), ref)
        assert_close(nn.SmoothL1Loss(beta, "sum")(_t(X), _t(Y)), ref.sum(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="beta"):
        nn.SmoothL1Loss(beta=0.0)


def test_huber_loss():
    d = np.abs(X.astype(np.float64) - Y)
    for delta in (1.0, 0.3):
        ref = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
        assert_close(nn.HuberLoss(delta=delta)(_t(X), _t(Y)), ref.mean())
        assert_close(nn.HuberLoss("none", delta)(_t(X), _t(Y)), ref)


def test_soft_margin_loss():
    t = np.sign(Y).astype(np.float32)
    ref = np.log1p(np.exp(-t.astype(np.float64) * X))
    assert_close(nn.SoftMarginLoss()(_t(X), _t(t)), ref.mean())


# ---- classification losses ---------------------------------------------------------------------------------------
def test_softmax_cross_entropy_facts_example(backend):
    logits = ms.Tensor([[2.0, 1.0], [0.5, 0.5]])
    labels = ms.Tensor([0, 1], ms.int32)
    mean = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(logits, labels)
    assert mean.shape == ()
    assert abs(float(mean.asnumpy()) - 0.5032) < 1e-4
    per_sample = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(logits, labels)  # default reduction 'none'
    assert per_sample.shape == (2,)
    assert_close(per_sample, [0.31326169, 0.69314718])
    onehot = ms.Tensor([[1.0, 0.0], [0.0, 1.0]])
    assert_close(nn.SoftmaxCrossEntropyWithLogits()(logits, onehot), [0.31326169, 0.69314718])
    assert_close(nn.SoftmaxCrossEntropyWithLogits(reduction="sum")(logits, onehot), 1.00640887)
    assert_close(nn.CrossEntropyLoss()(logits, labels), 0.50320443)
    assert_close(nn.CrossEntropyLoss()(logits, onehot), 0.50320443)


def test_softmax_cross_entropy_sparse_matches_dense(backend):
    labels = np.array([1, 4, 0, 2], np.int32)
    ref = -_log_softmax(X)[np.arange(4), labels]
    for reduction in ("none", "mean", "sum"):
        got = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)(_t(X), _t(labels))
        assert_close(got, _reduce(ref, reduction), rtol=1e-5, atol=1e-6)


def test_softmax_cross_entropy_sparse_mean_gradient():
    labels = np.array([1, 4, 0, 2], np.int32)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    g = ms.grad(lambda z: loss(z, _t(labels)))(_t(X))
    p = np.exp(_log_softmax(X))
    p[np.arange(4), labels] -= 1.0
    assert_close(g, p / 4)


def test_softmax_cross_entropy_sparse_type_check():
    with pytest.raises(TypeError, match="sparse"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=1)
    with pytest.raises(TypeError, match="must be a Tensor"):
        nn.SoftmaxCrossEntropyWithLogits()(X, Y)


def test_cross_entropy_loss_weight_ignore_index_smoothing():
    labels = np.array([1, 4, -100, 2], np.int32)
    w = np.array([0.5, 1.0, 2.0, 1.5, 0.25], np.float32)
    lsm = _log_softmax(X)
    keep = labels != -100
    rows = np.arange(4)[keep]
    picked = -lsm[rows, labels[keep]] * w[labels[keep]]
    got = nn.CrossEntropyLoss(weight=_t(w))(_t(X), _t(labels))
    assert_close(got, picked.sum() / w[labels[keep]].sum())
    got = nn.CrossEntropyLoss(ignore_index=4, reduction="sum")(_t(X), _t(np.array([1, 4, 0, 2], np.int32)))
    assert_close(got, -(lsm[0, 1] + lsm[2, 0] + lsm[3, 2]))
    full = np.array([1, 4, 0, 2], np.int32)
    eps = 0.1
    smooth = -(1 - eps) * lsm[np.arange(4), full] - eps / 5 * lsm.sum(axis=1)
    assert_close(nn.CrossEntropyLoss(label_smoothing=eps)(_t(X), _t(full)), smooth.mean())
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(TypeError, match="weight"):
        nn.CrossEntropyLoss(weight=[1.0, 2.0])


def test_nll_loss():
    labels = np.array([3, 0, 2, 2], np.int32)
    lsm = _log_softmax(X).astype(np.float32)
    ref = -lsm.astype(np.float64)[np.arange(4), labels]
    assert_close(nn.NLLLoss()(_t(lsm), _t(labels)), ref.mean())
    assert_close(nn.NLLLoss(reduction="none")(_t(lsm), _t(labels)), ref)
    w = np.linspace(0.5, 1.5, 5).astype(np.float32)
    assert_close(nn.NLLLoss(weight=_t(w), reduction="sum")(_t(lsm), _t(labels)), (ref * w[labels]).sum())


def test_bce_and_bce_with_logits(backend):
    p = 1.0 / (1.0 + np.exp(-X.astype(np.float64)))
    t = (Y > 0).astype(np.float32)
    bce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    assert_close(nn.BCELoss()(_t(p.astype(np.float32)), _t(t)), bce.mean(), rtol=1e-5, atol=1e-6)
    w = RNG.uniform(0.5, 1.5, size=(5,)).astype(np.float32)
    assert_close(nn.BCELoss(weight=_t(w), reduction="none")(_t(p.astype(np.float32)), _t(t)), bce * w,
                 rtol=1e-5, atol=1e-6)
    assert_close(nn.BCEWithLogitsLoss()(_t(X), _t(t)), bce.mean(), rtol=1e-5, atol=1e-6)
    pw = np.full((5,), 2.0, np.float32)
    ref = -(2.0 * t * np.log(p) + (1 - t) * np.log(1 - p)) * w
    got = nn.BCEWithLogitsLoss("sum", weight=_t(w), pos_weight=_t(pw))(_t(X), _t(t))
    assert_close(got, ref.sum(), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="'pos_weight' must be a Tensor or None"):
        nn.BCEWithLogitsLoss(pos_weight=2.0)


def test_kl_div_loss():
    logp = _log_softmax(X).astype(np.float32)
    q = np.exp(_log_softmax(Y))
    ref = q * (np.log(q) - logp)
    for reduction, value in (("mean", ref.mean()), ("sum", ref.sum()), ("batchmean", ref.sum() / 4),
                             ("none", ref)):
        assert_close(nn.KLDivLoss(reduction)(_t(logp), _t(q.astype(np.float32))), value, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="reduction"):
        nn.KLDivLoss("avg")


def test_margin_ranking_loss():
    t = np.sign(RNG.normal(size=(4, 5))).astype(np.float32)
    ref = np.maximum(0.0, -t * (X.astype(np.float64) - Y) + 0.3)
    assert_close(nn.MarginRankingLoss(margin=0.3)(_t(X), _t(Y), _t(t)), ref.mean())
    assert_close(nn.MarginRankingLoss(reduction="none")(_t(X), _t(Y), _t(t)), np.maximum(0.0, -t * (X - Y)))


def test_cosine_embedding_loss(backend):
    labels = np.array([1, -1, 1, -1], np.int32)
    x1, x2 = X.astype(np.float64), Y.astype(np.float64)
    cos = (x1 * x2).sum(1) / (np.linalg.norm(x1, axis=1) * np.linalg.norm(x2, axis=1))
    ref = np.where(labels == 1, 1 - cos, np.maximum(cos - 0.2, 0.0))
    assert_close(nn.CosineEmbeddingLoss(margin=0.2)(_t(X), _t(Y), _t(labels)), ref.mean())
    assert_close(nn.CosineEmbeddingLoss(reduction="none")(_t(X), _t(Y), _t(labels)),
                 np.where(labels == 1, 1 - cos, np.maximum(cos, 0.0)))
    with pytest.raises(ValueError, match="margin"):
        nn.CosineEmbeddingLoss(margin=2.0)
    with pytest.raises(ValueError, match="labels"):
        nn.CosineEmbeddingLoss()(_t(X), _t(Y), _t(labels[:3]))


def test_dice_losses():
    p = np.exp(_log_softmax(X))
    t = np.eye(5)[[0, 3, 1, 4]]
    def dice(a, b):
        return 1 - 2 * (a * b).sum() / ((a * a).sum() + (b * b).sum() + 1e-5)
    assert_close(nn.DiceLoss()(_t(p.astype(np.float32)), _t(t.astype(np.float32))), dice(p, t))
    ref = np.mean([dice(p[:, i], t[:, i]) for i in range(5)])
    assert_close(nn.MultiClassDiceLoss()(_t(X), _t(t.astype(np.float32))), ref)
    ignored = np.sum([dice(p[:, i], t[:, i]) for i in range(5) if i != 2]) / 5
    assert_close(nn.MultiClassDiceLoss(ignore_indiex=2)(_t(X), _t(t.astype(np.float32))), ignored)
    with pytest.raises(ValueError, match="activation"):
        nn.MultiClassDiceLoss(activation="gelu")


def test_loss_gradients_flow_through_cells():
    d = X.astype(np.float64) - Y
    g = ms.grad(lambda z: nn.MSELoss()(z, _t(Y)))(_t(X))
    assert_close(g, 2 * d / d.size)
    g = ms.grad(lambda z: nn.L1Loss("sum")(z, _t(Y)))(_t(X))
    assert_close(g, np.sign(d))
