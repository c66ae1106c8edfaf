"""Loss Cells (facts §1.8): `LossBase` and the common losses, built on the functional losses and loss primitives.

Each loss is a Cell whose `construct(logits, labels)` returns the loss. Losses derived from `LossBase` compute
an element-wise value and reduce it with `get_loss`, which (as in MindSpore) works in float32 and casts the
result back to the input's dtype.

>>> import openspore as ms
>>> from openspore import nn
>>> loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
>>> logits = ms.Tensor([[2.0, 1.0], [0.5, 0.5]])
>>> round(float(loss(logits, ms.Tensor([0, 1], ms.int32)).asnumpy()), 4)
0.5032
"""
from ...common import dtype as mstype
from ...core.tensor import Tensor
from ... import ops
from ...ops import operations as P
from ..cell import Cell

_REDUCTIONS = ("mean", "sum", "none")


def check_reduction(owner, reduction, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"For '{owner}', the 'reduction' must be in {list(allowed)}, but got {reduction}.")
    return reduction


def check_is_tensor(owner, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{owner}', the '{name}' must be a Tensor, but got {type(value).__name__}.")


def check_optional_tensor(owner, name, value):
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"For '{owner}', the '{name}' must be a Tensor or None, but got {type(value).__name__}.")


def check_float(owner, name, value, low=None, high=None, low_open=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{owner}', the '{name}' must be a float, but got {type(value).__name__}.")
    value = float(value)
    below = low is not None and (value <= low if low_open else value < low)
    if below or (high is not None and value > high):
        lo = "(" if low_open else "["
        raise ValueError(f"For '{owner}', the '{name}' must be in range {lo}{low}, {high}], but got {value}.")
    return value


def check_class_weights(owner, weight, ignore_index):
    """The (weight, ignore_index) pair of the class-index losses (CrossEntropyLoss, NLLLoss), checked."""
    check_optional_tensor(owner, "weight", weight)
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(f"For '{owner}', the 'ignore_index' must be an int, but got {type(ignore_index).__name__}.")
    return weight, ignore_index


class LossBase(Cell):
    """`LossBase(reduction='mean')`: base of the losses; `get_loss(x, weights=1.0)` applies the reduction."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = check_reduction(self.cls_name, reduction)
        self.average = reduction == "mean"
        self.reduce = reduction != "none"
        self._mean = P.ReduceMean()
        self._sum = P.ReduceSum()
        self._cast = P.Cast()
        self._mul = P.Mul()

    def get_axis(self, x):
        """All axes of `x` as a tuple (the axes the reduction runs over)."""
        return tuple(range(len(x.shape)))

    def get_loss(self, x, weights=1.0):
        """Weight the element-wise loss `x` and reduce it ('mean', 'sum' or 'none'), computing in float32."""
        input_dtype = x.dtype
        if input_dtype is not mstype.float32:
            x = self._cast(x, mstype.float32)
        if not (isinstance(weights, (int, float)) and not isinstance(weights, bool) and weights == 1.0):
            if isinstance(weights, Tensor) and weights.dtype is not mstype.float32:
                weights = self._cast(weights, mstype.float32)
            x = self._mul(x, weights)
        if self.reduce and self.average:
            x = self._mean(x, self.get_axis(x))
        elif self.reduce:
            x = self._sum(x, self.get_axis(x))
        if input_dtype is not mstype.float32:
            x = self._cast(x, input_dtype)
        return x

    def construct(self, logits, labels):
        raise NotImplementedError(f"For '{self.cls_name}', the method 'construct' must be overridden.")

    def extend_repr(self):
        return ""


class _Loss(LossBase):
    """Deprecated alias base kept for 1.x code (`nn.loss.loss._Loss`)."""


class _DifferenceLoss(LossBase):
    """A loss f(logits - labels) reduced by `reduction`; subclasses name the elementwise f."""

    _elementwise = None  # primitive class applied to the difference
    _label_name = "labels"  # as MindSpore names construct's second argument (MAELoss: 'label')

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        self._fn, self._sub = self._elementwise(), P.Sub()

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, self._label_name, labels)
        return self.get_loss(self._fn(self._sub(logits, labels)))


class L1Loss(_DifferenceLoss):
    """`L1Loss(reduction='mean')`: |logits - labels|, reduced."""

    _elementwise = P.Abs


class MSELoss(_DifferenceLoss):
    """`MSELoss(reduction='mean')`: (logits - labels)^2, reduced."""

    _elementwise = P.Square


class RMSELoss(LossBase):
    """`RMSELoss()`: sqrt(mean((logits - label)^2))."""

    def __init__(self):
        super().__init__()
        self.MSELoss = MSELoss()
        self._sqrt = P.Sqrt()

    def construct(self, logits, label):
        return self._sqrt(self.MSELoss(logits, label))


class MAELoss(_DifferenceLoss):
    """`MAELoss(reduction='mean')`: |logits - label|, reduced."""

    _elementwise = P.Abs
    _label_name = "label"

    def construct(self, logits, label):
        return super().construct(logits, label)


class SmoothL1Loss(LossBase):
    """`SmoothL1Loss(beta=1.0, reduction='none')`: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = check_float(self.cls_name, "beta", beta, 0.0, low_open=True)
        self.smooth_l1_loss = P.SmoothL1Loss(beta=self.beta, reduction=reduction)

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        return self.smooth_l1_loss(logits, labels)


class HuberLoss(LossBase):
    """`HuberLoss(reduction='mean', delta=1.0)`: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = check_float(self.cls_name, "delta", delta, 0.0, low_open=True)

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        return self.get_loss(ops.huber_loss(logits, labels, reduction="none", delta=self.delta))


class SoftMarginLoss(LossBase):
    """`SoftMarginLoss(reduction='mean')`: log(1 + exp(-labels * logits)), reduced."""

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        return ops.soft_margin_loss(logits, labels, reduction=self.reduction)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """`SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none')`: cross-entropy of (N, C) logits against
    one-hot labels, or class indices with `sparse=True`; per-sample losses unless a reduction is given."""

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"For '{self.cls_name}', the 'sparse' must be a bool, but got {type(sparse).__name__}.")
        self.sparse = sparse
        self.softmax_cross_entropy = P.SoftmaxCrossEntropyWithLogits()
        # The fused sparse primitive returns the batch mean directly (and has a fused gradient).
        self.sparse_softmax_cross_entropy = P.SparseSoftmaxCrossEntropyWithLogits()
        self._one_hot = P.OneHot()
        self._on = Tensor(1.0, mstype.float32)
        self._off = Tensor(0.0, mstype.float32)

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        if self.sparse:
            if self.reduction == "mean":
                return self.sparse_softmax_cross_entropy(logits, labels)
            on, off = self._on, self._off
            if logits.dtype is not mstype.float32:
                on, off = self._cast(on, logits.dtype), self._cast(off, logits.dtype)
            labels = self._one_hot(labels, logits.shape[-1], on, off)
        loss = self.softmax_cross_entropy(logits, labels)[0]
        return self.get_loss(loss)


class CrossEntropyLoss(LossBase):
    """`CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0)`: softmax
    cross-entropy of logits (N, C, ...) against class indices or class probabilities."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight, self.ignore_index = check_class_weights(self.cls_name, weight, ignore_index)
        self.label_smoothing = check_float(self.cls_name, "label_smoothing", label_smoothing, 0.0, 1.0)

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                 self.label_smoothing)


class NLLLoss(LossBase):
    """`NLLLoss(weight=None, ignore_index=-100, reduction='mean')`: negative log-likelihood of log-probabilities
    (N, C, ...) at class indices (N, ...)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = check_class_weights(self.cls_name, weight, ignore_index)

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCELoss(LossBase):
    """`BCELoss(weight=None, reduction='mean')`: binary cross-entropy of probabilities `logits` against `labels`."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        check_optional_tensor(self.cls_name, "weight", weight)
        self.weight = weight
        self.binary_cross_entropy = P.BinaryCrossEntropy(reduction=reduction)

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        return self.binary_cross_entropy(logits, labels, self.weight)


class BCEWithLogitsLoss(LossBase):
    """`BCEWithLogitsLoss(reduction='mean', weight=None, pos_weight=None)`: sigmoid + binary cross-entropy,
    with per-element `weight` and positive-class `pos_weight` (both broadcast to the logits)."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        check_optional_tensor(self.cls_name, "weight", weight)
        check_optional_tensor(self.cls_name, "pos_weight", pos_weight)
        self.weight = weight
        self.pos_weight = pos_weight
        self.bce_with_logits_loss = P.BCEWithLogitsLoss(reduction=reduction)

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        return self.bce_with_logits_loss(logits, labels, self.weight, self.pos_weight)


class KLDivLoss(LossBase):
    """`KLDivLoss(reduction='mean')`: labels * (log(labels) - logits) for log-probabilities `logits`;
    reduction 'none', 'mean', 'sum' or 'batchmean'."""

    def __init__(self, reduction="mean"):
        check_reduction(type(self).__name__, reduction, ("none", "mean", "sum", "batchmean"))
        super().__init__("mean" if reduction == "batchmean" else reduction)
        self.reduction = reduction
        self.kl_div_loss = P.KLDivLoss(reduction=reduction)

    def construct(self, logits, labels):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "labels", labels)
        return self.kl_div_loss(logits, labels)


class MarginRankingLoss(LossBase):
    """`MarginRankingLoss(margin=0.0, reduction='mean')`: max(0, -target * (input1 - input2) + margin)."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = check_float(self.cls_name, "margin", margin)

    def construct(self, input1, input2, target):
        for name, value in (("input1", input1), ("input2", input2), ("target", target)):
            check_is_tensor(self.cls_name, name, value)
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """`CosineEmbeddingLoss(margin=0.0, reduction='mean')`: with c = cos(logits_x1, logits_x2) along axis 1,
    1 - c where labels == 1 and max(0, c - margin) where labels == -1."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = check_float(self.cls_name, "margin", margin, -1.0, 1.0)
        self._sqrt, self._div, self._select = P.Sqrt(), P.RealDiv(), P.Select()

    def construct(self, logits_x1, logits_x2, labels):
        for name, value in (("logits_x1", logits_x1), ("logits_x2", logits_x2), ("labels", labels)):
            check_is_tensor(self.cls_name, name, value)
        if tuple(logits_x1.shape) != tuple(logits_x2.shape):
            raise ValueError(f"For '{self.cls_name}', the shape of 'logits_x1' and 'logits_x2' must be the same, "
                             f"but got {list(logits_x1.shape)} and {list(logits_x2.shape)}.")
        if tuple(labels.shape) != tuple(logits_x1.shape[:1]) + tuple(logits_x1.shape[2:]):
            raise ValueError(f"For '{self.cls_name}', the shape of 'labels' must be 'logits_x1' without axis 1, "
                             f"but got {list(labels.shape)} for 'logits_x1' of shape {list(logits_x1.shape)}.")
        mul = self._mul
        dot = self._sum(mul(logits_x1, logits_x2), (1,))
        norm1 = self._sqrt(self._sum(mul(logits_x1, logits_x1), (1,)))
        norm2 = self._sqrt(self._sum(mul(logits_x2, logits_x2), (1,)))
        cosine = self._div(dot, mul(norm1, norm2))
        zeros = P.ZerosLike()(cosine)
        positive = self._select(P.Equal()(labels, 1), P.Sub()(1.0, cosine), zeros)
        negative = self._select(P.Equal()(labels, -1), P.Maximum()(P.Sub()(cosine, self.margin), 0.0), zeros)
        return self.get_loss(P.Add()(positive, negative))
