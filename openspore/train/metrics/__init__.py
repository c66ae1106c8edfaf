"""openspore.train.metrics (also `mindspore.nn.metrics`): evaluation metrics and the name registry that
`Model(metrics={'acc', 'loss'})` uses (facts §1.14).

>>> from openspore.train.metrics import get_metric_fn
>>> type(get_metric_fn('acc')).__name__
'Accuracy'
"""
from .metric import Metric, EvaluationBase, rearrange_inputs
from .accuracy import Accuracy
from .precision import Precision, Recall
from .fbeta import Fbeta, F1
from .error import MAE, MSE
from .topk import TopKCategoricalAccuracy, Top1CategoricalAccuracy, Top5CategoricalAccuracy
from .loss import Loss
from .confusion_matrix import ConfusionMatrix
from .dice import Dice
from .perplexity import Perplexity
from .similarity import CosineSimilarity, BleuScore
from .distance import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from .roc import ROC, auc
from .confusion_matrix_metric import ConfusionMatrixMetric, OcclusionSensitivity

__all__ = ["Metric", "EvaluationBase", "rearrange_inputs", "Accuracy", "Precision", "Recall", "Fbeta", "F1",
           "MAE", "MSE", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Loss",
           "ConfusionMatrix", "Dice", "Perplexity", "names", "get_metric_fn", "get_metrics", "CosineSimilarity",
           "BleuScore", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance", "ROC", "auc",
           "ConfusionMatrixMetric", "OcclusionSensitivity"]

__factory__ = {
    "F1": F1,
    "bleu_score": BleuScore,
    "cosine_similarity": CosineSimilarity,
    "hausdorff_distance": HausdorffDistance,
    "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
    "roc": ROC,
    "auc": auc,
    "acc": Accuracy,
    "accuracy": Accuracy,
    "confusion_matrix": ConfusionMatrix,
    "dice": Dice,
    "loss": Loss,
    "mae": MAE,
    "mse": MSE,
    "perplexity": Perplexity,
    "precision": Precision,
    "recall": Recall,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "topk": TopKCategoricalAccuracy,
}


def names():
    """The metric names `get_metric_fn` and `Model(metrics={...})` accept, sorted."""
    return sorted(__factory__)


def get_metric_fn(name, *args, **kwargs):
    """`get_metric_fn(name, *args, **kwargs)`: a new metric object by registry name (e.g. 'acc', 'topk', 3)."""
    if name not in __factory__:
        raise KeyError(f"Unknown Metric: {name!r}; the known names are {names()}.")
    return __factory__[name](*args, **kwargs)


def get_metrics(metrics):
    """A dict name → Metric from a dict (checked) or a set of registry names; None stays None."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise TypeError("For 'get_metrics', a dict 'metrics' must map str names to Metric objects, "
                                f"but got {name!r}: {type(metric).__name__}.")
        return dict(metrics)
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in sorted(metrics)}
    raise TypeError(f"For 'get_metrics', the argument 'metrics' should be dict or set, "
                    f"but got {type(metrics).__name__}.")
