"""openspore.nn: Cell, containers and (as they arrive) layers, losses and optimizers."""
from .cell import Cell  # noqa: F401
from .container import SequentialCell, CellList, CellDict  # noqa: F401
from .metrics import Accuracy, Precision, Recall, F1, Fbeta, MAE, MSE, Loss, Metric, TopKCategoricalAccuracy, Top1CategoricalAccuracy, Top5CategoricalAccuracy, ConfusionMatrix, get_metric_fn, names  # noqa: F401,E501  (1.x paths: nn.Accuracy, nn.metrics)
