"""Metrics added for MindSpore coverage; expected values were printed by MindSpore 2.10 on the same inputs."""
import numpy as np
import pytest

import openspore as ms
from openspore.train import (ROC, BleuScore, CosineSimilarity, HausdorffDistance, MeanSurfaceDistance,
                             RootMeanSquareDistance, auc, get_metric_fn)

X = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])
Y = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])
BIG_X = np.zeros((8, 9), int)
BIG_X[1:6, 2:8] = 1
BIG_X[4, 4] = 0
BIG_Y = np.zeros((8, 9), int)
BIG_Y[2:7, 1:6] = 1


def test_cosine_similarity():
    m = CosineSimilarity()
    m.update(np.array([[1, 1], [1, 0], [0, 1]]))
    r = np.sqrt(0.5)
    np.testing.assert_allclose(m.eval(), [[0, r, r], [r, 0, 0], [r, 0, 0]])
    m = CosineSimilarity(similarity="dot", reduction="sum", zero_diagonal=False)
    m.update(ms.Tensor(np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 1.0]], np.float32)))
    assert m.eval().tolist() == [10.0, 12.0, 3.0]
    with pytest.raises(ValueError, match="similarity"):
        CosineSimilarity(similarity="l2")


def test_bleu_score():
    cand = [["The", "cat", "The", "cat", "on", "the", "mat"]]
    ref = [[["The", "cat", "is", "on", "the", "mat"], ["There", "is", "a", "cat", "on", "the", "mat"]]]
    m = BleuScore()
    m.update(cand, ref)
    assert m.eval() == pytest.approx(0.46713797772820015)
    m = BleuScore(n_gram=2, smooth=True)
    m.update(cand, ref)
    assert m.eval() == pytest.approx(0.7319250547114)
    with pytest.raises(RuntimeError, match="update"):
        BleuScore().eval()


@pytest.mark.parametrize("metric, x, y, want", [
    (HausdorffDistance(), X, Y, 1.4142135623730951),
    (MeanSurfaceDistance(), X, Y, 0.8047378541243649),
    (RootMeanSquareDistance(), X, Y, 1.0),
    (HausdorffDistance(distance_metric="chessboard", percentile=50.0, directed=True), X, Y, 1.0),
    (MeanSurfaceDistance(symmetric=True), X, Y, 0.7357022603955158),
])
def test_surface_distances_label_0(metric, x, y, want):
    metric.update(x, y, 0)
    assert metric.eval() == pytest.approx(want)


@pytest.mark.parametrize("metric, want", [
    (HausdorffDistance(), 2.23606797749979),
    (MeanSurfaceDistance(), 1.1738229304701373),
    (RootMeanSquareDistance(symmetric=True), 1.1585602723906532),
    (MeanSurfaceDistance(symmetric=True), 1.006105639059228),
    (HausdorffDistance(distance_metric="taxicab", percentile=90.0), 2.0),
])
def test_surface_distances_with_interiors(metric, want):
    metric.update(BIG_X, BIG_Y, 1)
    assert metric.eval() == pytest.approx(want)


def test_roc_and_auc():
    m = ROC(pos_label=2)
    m.update(np.array([0.1, 0.4, 0.35, 0.8]), np.array([1, 2, 2, 2]))
    fpr, tpr, thresholds = m.eval()
    assert fpr.tolist() == [0, 0, 0, 0, 1]
    np.testing.assert_allclose(tpr, [0, 1 / 3, 2 / 3, 1, 1])
    np.testing.assert_allclose(thresholds, [1.8, 0.8, 0.4, 0.35, 0.1])
    assert auc(fpr, tpr) == 1.0
    assert auc([0, 1, 0.5], [0, 1, 0.5], reorder=True) == pytest.approx(0.5)
    multi = ROC(class_num=3)
    multi.update(np.eye(3)[[0, 1, 2, 1]] * 0.8 + 0.1, np.array([0, 1, 2, 1]))
    fprs, tprs, _ = multi.eval()
    assert len(fprs) == 3 and all(auc(f, t) == 1.0 for f, t in zip(fprs, tprs))
    assert type(get_metric_fn("roc")).__name__ == "ROC" and ms.nn.BleuScore is BleuScore
