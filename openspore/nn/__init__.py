"""openspore.nn: Cell, containers and (as they arrive) layers, losses and optimizers."""
from .cell import Cell  # noqa: F401
from .container import SequentialCell, CellList, CellDict  # noqa: F401
from .layer import *  # noqa: F401,F403
from . import loss, wrap  # noqa: F401
from .loss import *  # noqa: F401,F403
from .wrap import *  # noqa: F401,F403
from .optim import Optimizer, Momentum, SGD, Adam, AdamWeightDecay, RMSProp, Adagrad, Lamb  # noqa: F401
from .optim import ASGD, Adadelta, AdaMax, Rprop, ProximalAdagrad, FTRL, LazyAdam, AdamOffload, LARS  # noqa: F401
from .optim import AdaFactor  # noqa: F401
from .learning_rate_schedule import (LearningRateSchedule, ExponentialDecayLR, NaturalExpDecayLR,  # noqa: F401
                                     InverseDecayLR, CosineDecayLR, PolynomialDecayLR, WarmUpLR)
from .dynamic_lr import (piecewise_constant_lr, exponential_decay_lr, natural_exp_decay_lr,  # noqa: F401
                         inverse_decay_lr, cosine_decay_lr, polynomial_decay_lr, warmup_lr)
from .graph_cell import GraphCell  # noqa: F401
from . import grad, utils  # noqa: F401
from .utils import no_init_parameters  # noqa: F401
from .grad import Jvp, Vjp  # noqa: F401
# 1.x paths `nn.Accuracy`, `nn.metrics`: last, since the metrics live in train, which imports nn
from .metrics import (Metric, Accuracy, Precision, Recall, F1, Fbeta, MAE, MSE, Loss,  # noqa: F401
                      TopKCategoricalAccuracy, Top1CategoricalAccuracy, Top5CategoricalAccuracy, ConfusionMatrix,
                      get_metric_fn, names, get_metrics, rearrange_inputs, Dice, Perplexity, CosineSimilarity,
                      BleuScore, HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance, ROC, auc,
                      ConfusionMatrixMetric, OcclusionSensitivity)


def __getattr__(name):
    # `nn.Linear` is `mint.nn.Linear` (in_features, out_features, bias=True, ...); mint imports nn, so it is
    # looked up on first use
    if name == "Linear":
        from ..mint.nn import Linear
        return Linear
    raise AttributeError(f"module 'openspore.nn' has no attribute {name!r}")
