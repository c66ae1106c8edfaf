"""What EarlyStopping and ReduceLROnPlateau watch: the training loss or an evaluation result of `Model.fit`."""
import logging

import numpy as np

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ._callback import loss_value

logger = logging.getLogger(__name__)

# metrics where lower is better; 'auto' mode picks 'min' for these and 'max' for the others
SMALLER_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "eval_loss", "perplexity",
                  "mean_surface_distance", "root_mean_square_distance")


def comparison(cls_name, mode, monitor, min_delta):
    """(is_better(current, best), signed min_delta, starting best) for a mode in {'auto', 'min', 'max'}."""
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"For '{cls_name}', the argument 'mode' must be 'auto', 'min' or 'max', but got {mode!r}.")
    if mode == "auto":
        mode = "min" if monitor in SMALLER_BETTER else "max"
    if mode == "min":
        return (lambda a, b: a < b), -abs(min_delta), np.inf
    return (lambda a, b: a > b), abs(min_delta), -np.inf


def monitor_value(cb_params, monitor, cls_name):
    """The watched quantity as a float, or None (with a warning) when it is not available."""
    if monitor == "loss":
        value = loss_value(cb_params.get("net_outputs"))
        candidates = {}
    else:
        candidates = cb_params.get("eval_results") or {}
        value = candidates.get(monitor)
    if value is None:
        if monitor != "loss" and not candidates and cb_params.get("valid_dataset") is not None:
            return None  # Model.fit evaluates on other epochs (valid_frequency)
        logger.warning("%s is conditioned on '%s', which is not available. Available choices are: %s",
                       cls_name, monitor, sorted({"loss", *candidates}))
        return None
    if isinstance(value, Tensor):
        value = value.asnumpy()
    array = np.asarray(value)
    if array.shape != ():
        raise ValueError(f"For '{cls_name}', the monitored value '{monitor}' must be a scalar, "
                         f"but got shape {array.shape}.")
    return float(array)


def learning_rate_parameter(cb_params, cls_name):
    """The optimizer's fixed learning-rate Parameter (from cb_params.optimizer or the train network)."""
    optimizer = cb_params.get("optimizer")
    if optimizer is None:
        optimizer = getattr(cb_params.get("train_network"), "optimizer", None)
    if optimizer is None:
        raise ValueError(f"For '{cls_name}', no optimizer was found: give Model an optimizer or train a network "
                         "with an 'optimizer' attribute.")
    lr = getattr(optimizer, "learning_rate", None)
    if not isinstance(lr, Parameter) or getattr(optimizer, "dynamic_lr", False) or lr.size != 1:
        raise ValueError(f"For '{cls_name}', the optimizer's learning rate must be one fixed value (a scalar "
                         f"Parameter), but it is a {type(lr).__name__}"
                         f"{' (dynamic)' if getattr(optimizer, 'dynamic_lr', False) else ''}.")
    return lr


def set_parameter_value(param, value):
    """Write a Python number into a scalar Parameter, keeping its dtype and shape."""
    param.set_data(Tensor(np.full(param.shape, value, dtype=param.asnumpy().dtype), param.dtype))
