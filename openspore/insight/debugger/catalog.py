"""MindInsight's watchpoint condition list (ids, abbreviations, target node categories, parameters), node
categories read off the graph, recommended watchpoints and the tuning hints attached to hits.

Node categories (MindInsight's node_type_identifier): *weight* = a trainable Parameter (one an optimizer
updates, else a `.weight`/`.bias` name outside optimizer state); *gradient* = a node under the `Gradients/`
scope; *activation* = a forward node whose type is an activation function; every node is a *tensor*.

>>> make_condition("weight_change_too_large", abs_mean_update_ratio_gt=1).name
'TensorChangeAboveThreshold'
>>> node_category("ReLU", "Default/relu-ReLU/ReLU-op0", False, False)
'activation'
"""
import math

from . import conditions as c
from . import rules as r

# id -> (abbreviation, target category, condition class, parameter defaults)
CONDITIONS = {
    "weight_initialization": ("WI", "weight", c.InitialWeightCondition, {"zero_percentage_ge": 100}),
    "weight_overflow": ("WO", "weight", c.TensorOverflowCondition, {}),
    "weight_too_large": ("WL", "weight", c.TensorTooLargeCondition, {}),
    "weight_too_small": ("WS", "weight", c.TensorTooSmallCondition, {}),
    "gradient_vanishing": ("GV", "gradient", c.TensorTooSmallCondition, {}),
    "gradient_too_large": ("GL", "gradient", c.TensorTooLargeCondition, {}),
    "gradient_exploding": ("GE", "gradient", c.TensorOverflowCondition, {}),
    "tensor_overflow": ("TO", "tensor", c.TensorOverflowCondition, {}),
    "operator_overflow": ("OO", "tensor", c.OperatorOverflowCondition, {}),
    "tensor_too_large": ("TL", "tensor", c.TensorTooLargeCondition, {}),
    "tensor_too_small": ("TS", "tensor", c.TensorTooSmallCondition, {}),
    "tensor_all_zero": ("TZ", "tensor", c.TensorAllZeroCondition, {"zero_percentage_ge": 100}),
    "weight_not_changed": ("WNC", "weight", c.TensorUnchangedCondition, {"rtol": 1e-5}),
    "weight_change_too_large": ("WCL", "weight", c.TensorChangeAboveThresholdCondition,
                                {"abs_mean_update_ratio_gt": 1e-1}),
    "weight_change_too_small": ("WCS", "weight", c.TensorChangeBelowThresholdCondition,
                                {"abs_mean_update_ratio_lt": 1e-4}),
    "activation_range": ("AR", "activation", c.TensorRangeCondition, {}),
    "tensor_range": ("TR", "tensor", c.TensorRangeCondition, {}),
    # beyond MindInsight
    "loss_not_decreasing": ("LND", "loss", r.LossNotDecreasingCondition, {"steps": 5}),
    "dead_relu": ("DR", "activation", r.DeadReluCondition, {"dead_percentage_ge": 50.0}),
    "first_nonfinite": ("FNF", "tensor", r.FirstNonFiniteCondition, {}),
    "update_ratio_out_of_band": ("URB", "weight", r.UpdateRatioOutOfBandCondition, {}),
}
MINDINSIGHT_IDS = list(CONDITIONS)[:17]

ACTIVATIONS = {"elu", "fastgelu", "gelu", "hsigmoid", "hswish", "leakyrelu", "logsigmoid", "logsoftmax", "prelu",
               "relu", "relu6", "reluv2", "sigmoid", "softmax", "tanh"}

_INPUT_HINT = ["Check whether the input tensor of the operator is normal."]
_LR_GRAD_OPT = ["Check whether the learning rate is too high.", "Check whether the gradient is too large.",
                "Check whether the optimizer algorithm is correct."]
HINTS = {
    "weight_initialization": ["Check the weight initialization algorithm in the script."],
    "weight_overflow": _LR_GRAD_OPT,
    "weight_too_large": ["Check whether the learning rate is proper.", "Check whether the gradient is too large.",
                         "Check whether the optimizer algorithm is correct.",
                         "Check whether the weight before the update was already too large."],
    "weight_too_small": ["Check whether the learning rate is proper.", "Check whether the gradient is too small.",
                         "Check whether the optimizer algorithm is correct.",
                         "Check whether the weight before the update was already too small."],
    "weight_not_changed": ["Check whether the learning rate is too low.", "Check whether the gradient is too small.",
                           "Check whether the optimizer algorithm is correct.",
                           "Check whether the weight is fixed (frozen, requires_grad=False)."],
    "weight_change_too_large": ["Check whether the learning rate is too high.", "Check the gradient.",
                                "Check whether the optimizer algorithm is correct."],
    "weight_change_too_small": ["Check whether the learning rate is too low.", "Check the gradient.",
                                "Check whether the optimizer algorithm is correct."],
    "loss_not_decreasing": ["Check whether the learning rate is proper (too high diverges, too low stalls).",
                            "Check the labels and the loss function.", "Check whether the weights are updated."],
    "dead_relu": ["Lower the learning rate or the weight initialisation scale.",
                  "Consider LeakyReLU/GELU, or check the bias initialisation."],
    "first_nonfinite": ["This node made the first NaN/Inf of the step from finite inputs: check its inputs' "
                        "ranges (log of 0, division by 0, exp overflow) and the learning rate.",
                        "Lower the learning rate, clip gradients or use loss scaling."],
    "update_ratio_out_of_band": ["An update-to-weight ratio near 1e-3 is healthy: a ratio far above means the "
                                 "learning rate is too high, far below means it is too low."],
}
for _id in ("gradient_vanishing", "gradient_too_large", "gradient_exploding", "activation_range", "tensor_overflow",
            "operator_overflow", "tensor_too_large", "tensor_too_small", "tensor_range", "tensor_all_zero"):
    HINTS[_id] = _INPUT_HINT


def make_condition(condition_id, **params):
    """The condition object for a MindInsight condition id with its parameters (defaults filled in)."""
    try:
        _abbr, _target, cls, defaults = CONDITIONS[condition_id]
    except KeyError:
        raise ValueError(f"unknown watchpoint condition {condition_id!r}; expected one of {list(CONDITIONS)}.") \
            from None
    return cls(**dict(defaults, **params))


def node_category(op_type, name, is_parameter, is_weight):
    """'weight', 'gradient', 'activation', 'parameter' or 'tensor' (see the module docstring)."""
    if is_parameter:
        return "weight" if is_weight else "parameter"
    if name == "Gradients" or name.startswith("Gradients/") or name.startswith("Gradients_"):
        return "gradient"
    if op_type.lower() in ACTIVATIONS:
        return "activation"
    return "tensor"


def hint_id(condition, category):
    """The MindInsight condition id a hit of `condition` on a node of `category` stands for (picks the hints):
    the entry of the same class whose target is that category, else the generic (tensor) one, else any."""
    same = [(cid, target) for cid, (_abbr, target, cls, _d) in CONDITIONS.items() if cls is type(condition)]
    for want in (category, "tensor", "loss"):
        for cid, target in same:
            if target == want:
                return cid
    return same[0][0] if same else "tensor_overflow"


def tuning_hints(condition, category):
    return list(HINTS.get(hint_id(condition, category), _INPUT_HINT))


def recommend(nodes):
    """MindInsight's recommended watchpoints for a graph: [(name, condition, [node records])]. `nodes` are
    records with `op_type`, `name`, `is_parameter`, `is_weight`."""
    cat = {id(n): node_category(n.op_type, n.name, n.is_parameter, n.is_weight) for n in nodes}
    weights = [n for n in nodes if cat[id(n)] == "weight"]
    grads = [n for n in nodes if cat[id(n)] == "gradient"]
    kernels = [n for n in nodes if not n.is_parameter]
    out = []
    if weights:
        out.append(("recommend_weight_initialization_watchpoint", c.InitialWeightCondition(zero_percentage_ge=100),
                    weights))
        out.append(("recommend_weight_change_too_large_watchpoint",
                    c.TensorChangeAboveThresholdCondition(abs_mean_update_ratio_gt=1), weights))
    if grads:
        out.append(("recommend_gradient_vanishing_watchpoint", c.TensorTooSmallCondition(abs_mean_lt=1e-9), grads))
    if kernels:
        out.append(("recommend_tensor_overflow_watchpoint", c.TensorOverflowCondition(), kernels))
        out.append(("recommend_tensor_all_zero_watchpoint", c.TensorAllZeroCondition(zero_percentage_ge=100),
                    kernels))
    acts = {}
    for n in kernels:
        if cat[id(n)] == "activation":
            acts.setdefault(n.op_type.lower(), []).append(n)
    for kind, members in sorted(acts.items()):
        if kind == "tanh":
            cond = c.TensorRangeCondition(range_start_inclusive=math.tanh(-8.8), range_end_inclusive=math.tanh(8.8),
                                          range_percentage_lt=0.1)
        elif kind == "sigmoid":
            lo, hi = 1 / (1 + math.exp(16.2)), 1 / (1 + math.exp(-16.2))
            cond = c.TensorRangeCondition(range_start_inclusive=lo, range_end_inclusive=hi, range_percentage_lt=0.1)
        elif kind in ("relu", "reluv2"):
            cond = c.TensorRangeCondition(range_start_inclusive=-1, range_end_inclusive=0, range_percentage_gt=99.9)
        else:
            continue
        out.append((f"recommend_{kind}_activation_range_watchpoint", cond, members))
    return out
