"""Metrics against values worked out by hand (and the registry / 1.x import paths)."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.train import metrics as M

X = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]])  # argmax → [1, 0, 0]
Y = np.array([1, 0, 1])


def test_accuracy_classification_ids_onehot_and_tensors():
    m = M.Accuracy()
    m.update(ms.Tensor(X, ms.float32), ms.Tensor(Y, ms.int32))
    assert m.eval() == pytest.approx(2 / 3)
    m.update(np.array([[0.0, 1.0]]), np.array([[0, 1]]))  # one-hot label, correct
    assert m.eval() == pytest.approx(3 / 4)
    m.clear()
    m.update([[0.1, 0.7, 0.2], [0.5, 0.4, 0.1]], [2, 0])
    assert m.eval() == pytest.approx(0.5)


def test_accuracy_multilabel_needs_every_label_right():
    m = M.Accuracy("multilabel")
    y_pred = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1]])
    y = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1]])
    m.update(y_pred, y)
    assert m.eval() == pytest.approx(2 / 3)


def test_accuracy_errors():
    m = M.Accuracy()
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        m.eval()
    with pytest.raises(ValueError, match="needs 2 inputs"):
        m.update(X)
    with pytest.raises(ValueError, match=r"class ids in \[0, 2\)"):
        m.update(X, np.array([0, 1, 2]))
    m.update(X, Y)
    with pytest.raises(ValueError, match="class number not match"):
        m.update(np.zeros((2, 3)), np.array([0, 1]))
    with pytest.raises(TypeError, match="'eval_type'"):  # MindSpore 2.10's error type
        M.Accuracy("regression")
    with pytest.raises(TypeError, match="Tensor, list or numpy.ndarray"):
        M.Accuracy().update("ab", Y)


def test_precision_recall_per_class_and_average():
    # predictions [1, 0, 0] vs labels [1, 0, 1]:
    # class 0: predicted twice, right once; actual once  → precision 1/2, recall 1
    # class 1: predicted once, right once; actual twice  → precision 1,   recall 1/2
    p, r = M.Precision(), M.Recall()
    p.update(X, Y)
    r.update(X, Y)
    np.testing.assert_allclose(p.eval(), [0.5, 1.0])
    np.testing.assert_allclose(r.eval(), [1.0, 0.5])
    assert p.eval(average=True) == pytest.approx(0.75)
    assert r.eval(average=True) == pytest.approx(0.75)
    # a class never predicted has precision 0, not nan
    p.clear()
    p.update(np.array([[0.9, 0.1], [0.8, 0.2]]), np.array([0, 1]))
    np.testing.assert_allclose(p.eval(), [0.5, 0.0])


def test_precision_multilabel():
    p = M.Precision("multilabel")
    y_pred = np.array([[1, 0, 1], [1, 1, 0]])
    y = np.array([[1, 0, 0], [1, 1, 0]])
    p.update(y_pred, y)
    np.testing.assert_allclose(p.eval(), [0.5, 1.0])  # MindSpore 2.10 rates each sample's labels


def test_fbeta_and_f1():
    np.testing.assert_allclose(M.F1()(X, Y), [2 / 3, 2 / 3])
    # beta=2 (b2=4): class 0 tp 1, actual 1, predicted 2 → 5/(4+2); class 1 tp 1, actual 2, predicted 1 → 5/(8+1)
    fb = M.Fbeta(2)
    fb.update(X, Y)
    np.testing.assert_allclose(fb.eval(), [5 / 6, 5 / 9])
    assert fb.eval(average=True) == pytest.approx((5 / 6 + 5 / 9) / 2)
    with pytest.raises(ValueError, match="'beta'"):
        M.Fbeta(0)


def test_topk():
    x = np.array([[0.2, 0.5, 0.3, 0.6, 0.2], [0.1, 0.35, 0.5, 0.2, 0.0], [0.9, 0.6, 0.2, 0.01, 0.3]])
    y = np.array([2, 0, 1])
    assert M.TopKCategoricalAccuracy(3)(x, y) == pytest.approx(2 / 3)
    assert M.Top1CategoricalAccuracy()(x, y) == pytest.approx(0.0)
    assert M.Top5CategoricalAccuracy()(x, y) == pytest.approx(1.0)
    assert M.TopKCategoricalAccuracy(2)(x, np.eye(5)[[3, 1, 0]]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        M.TopKCategoricalAccuracy(0)


def test_mae_mse_sum_per_sample():
    x = np.array([0.1, 0.2, 0.6, 0.9])
    y = np.array([0.1, 0.25, 0.7, 0.9])
    assert M.MAE()(x, y) == pytest.approx((0.05 + 0.1) / 4)
    assert M.MSE()(x, y) == pytest.approx((0.0025 + 0.01) / 4)
    # (N, D): errors of a sample are summed, then averaged over the N samples
    mae = M.MAE()
    mae.update(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.0, 0.0], [3.0, 5.0]]))
    assert mae.eval() == pytest.approx((1 + 2 + 0 + 1) / 2)


def test_loss_metric_averages_updates():
    m = M.Loss()
    m.update(ms.Tensor(np.float32(0.5)))
    m.update(np.array([1.0, 2.0]))
    assert m.eval() == pytest.approx((0.5 + 1.5) / 2)
    with pytest.raises(ValueError, match="dimension of the loss"):
        m.update(np.zeros((2, 2)))


def test_confusion_matrix_and_normalisations():
    y_pred = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7], [0.6, 0.3, 0.1], [0.1, 0.8, 0.1]])
    y = np.array([0, 1, 1, 2, 1])  # predicted [0, 1, 2, 0, 1]
    counts = np.array([[1, 0, 0], [0, 2, 1], [1, 0, 0]], np.float64)
    np.testing.assert_array_equal(M.ConfusionMatrix(3)(y_pred, y), counts)
    np.testing.assert_allclose(M.ConfusionMatrix(3, "target")(y_pred, y), counts / counts.sum(1, keepdims=True))
    np.testing.assert_allclose(M.ConfusionMatrix(3, "prediction")(y_pred, y), counts / counts.sum(0, keepdims=True))
    np.testing.assert_allclose(M.ConfusionMatrix(3, "all")(y_pred, y), counts / 5)
    # float predictions of the label's shape are thresholded
    np.testing.assert_array_equal(M.ConfusionMatrix(2, threshold=0.6)(np.array([0.7, 0.5, 0.6]), np.array([1, 1, 0])),
                                  [[0, 1], [1, 1]])
    with pytest.raises(ValueError, match="'normalize'"):
        M.ConfusionMatrix(2, normalize="rows")


def test_dice_and_perplexity():
    x = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]])
    onehot = np.array([[0, 1], [1, 0], [0, 1]])
    inter = 0.5 + 0.3 + 0.6
    union = (x ** 2).sum() + 3
    # MindSpore 2.10 divides the summed coefficient by the number of samples (3 here): 0.20467791371802546
    assert M.Dice()(x, onehot) == pytest.approx(2 * inter / (union + 1e-5) / 3)
    assert M.Dice()(x, onehot) == pytest.approx(0.20467791371802546)
    assert M.Perplexity()(x, Y) == pytest.approx(np.exp(-(np.log(0.5) + np.log(0.3) + np.log(0.6)) / 3))
    assert M.Perplexity(ignore_label=0)(x, Y) == pytest.approx(np.exp(-(np.log(0.5) + np.log(0.6)) / 2))


def test_set_indexes_picks_outputs():
    m = M.Accuracy().set_indexes([1, 2])
    m.update(np.float32(1.0), X, Y)
    assert m.eval() == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="'indexes'"):
        M.Accuracy().set_indexes((1, 2))


def test_registry_and_legacy_paths():
    assert isinstance(M.get_metric_fn("acc"), M.Accuracy)
    assert isinstance(M.get_metric_fn("topk", 3), M.TopKCategoricalAccuracy)
    assert {"F1", "acc", "accuracy", "loss", "mae", "mse", "precision", "recall", "top_1_accuracy",
            "top_5_accuracy"} <= set(M.names())
    with pytest.raises(KeyError, match="Unknown Metric"):
        M.get_metric_fn("nope")
    got = M.get_metrics({"acc", "loss"})
    assert set(got) == {"acc", "loss"} and isinstance(got["loss"], M.Loss)
    with pytest.raises(TypeError, match="dict or set"):
        M.get_metrics(["acc"])
    assert nn.Accuracy is M.Accuracy and nn.metrics.Accuracy is M.Accuracy
    assert ms.train.Accuracy is M.Accuracy and ms.Accuracy is M.Accuracy


def test_bfloat16_and_float16_inputs():
    m = M.Accuracy()
    m.update(ms.Tensor(X, ms.bfloat16), ms.Tensor(Y))
    assert m.eval() == pytest.approx(2 / 3)
    assert M.MAE()(ms.Tensor([1.0, 2.0], ms.float16), np.array([1.0, 1.0])) == pytest.approx(0.5)
