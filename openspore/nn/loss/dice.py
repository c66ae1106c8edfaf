"""Dice losses for segmentation: `DiceLoss` (one channel) and `MultiClassDiceLoss` (mean over classes)."""
from ...core.tensor import Tensor
from ...ops import operations as P
from .loss import LossBase, check_float, check_is_tensor

_ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")


class DiceLoss(LossBase):
    """`DiceLoss(smooth=1e-5)`: 1 - 2 sum(logits * label) / (sum(logits^2) + sum(label^2) + smooth)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = check_float(self.cls_name, "smooth", smooth, 0.0, low_open=True)

    def construct(self, logits, label):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "label", label)
        if tuple(logits.shape) != tuple(label.shape):
            raise ValueError(f"For '{self.cls_name}', the shape of 'logits' and 'label' must be the same, "
                             f"but got {list(logits.shape)} and {list(label.shape)}.")
        mul, total = self._mul, self._sum
        intersection = total(mul(logits, label), ())
        union = P.Add()(total(mul(logits, logits), ()), total(mul(label, label), ()))
        coeff = P.RealDiv()(mul(intersection, 2.0), P.Add()(union, self.smooth))
        return P.Sub()(1.0, coeff)


class MultiClassDiceLoss(LossBase):
    """`MultiClassDiceLoss(weights=None, ignore_indiex=None, activation='softmax')`: the Dice loss of each class
    channel (axis 1) after `activation`, times the row `weights[i]` of the (classes, dim) weights, averaged
    over the classes; the class `ignore_indiex` (MindSpore's spelling) is skipped."""

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        if weights is not None and not isinstance(weights, Tensor):
            raise TypeError(f"For '{self.cls_name}', the 'weights' must be a Tensor or None, "
                            f"but got {type(weights).__name__}.")
        if weights is not None and len(weights.shape) != 2:
            raise ValueError(f"For '{self.cls_name}', the 'weights' must have rank 2 (classes, dim), "
                             f"but got shape {list(weights.shape)}.")
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool) or not isinstance(ignore_indiex, int)):
            raise TypeError(f"For '{self.cls_name}', the 'ignore_indiex' must be an int or None, "
                            f"but got {type(ignore_indiex).__name__}.")
        if isinstance(activation, str):
            if activation not in _ACTIVATIONS:
                raise ValueError(f"For '{self.cls_name}', the 'activation' must be one of {list(_ACTIVATIONS)}, "
                                 f"but got {activation!r}.")
            activation = _make_activation(activation)
        elif activation is not None and not callable(activation):
            raise TypeError(f"For '{self.cls_name}', the 'activation' must be a str, a Cell or None, "
                            f"but got {type(activation).__name__}.")
        self.binarydiceloss = DiceLoss(smooth=1e-5)
        self.weights = weights
        self.ignore_indiex = ignore_indiex
        self.activation = activation

    def construct(self, logits, label):
        check_is_tensor(self.cls_name, "logits", logits)
        check_is_tensor(self.cls_name, "label", label)
        if tuple(logits.shape) != tuple(label.shape) or len(logits.shape) < 2:
            raise ValueError(f"For '{self.cls_name}', 'logits' and 'label' must have the same shape of rank 2 or "
                             f"more, but got {list(logits.shape)} and {list(label.shape)}.")
        if self.activation is not None:
            logits = self.activation(logits)
        classes = label.shape[1]
        if self.weights is not None and self.weights.shape[0] != classes:
            raise ValueError(f"For '{self.cls_name}', the 'weights' must have one row per class ({classes}), "
                             f"but got shape {list(self.weights.shape)}.")
        total = None
        for i in range(classes):
            if i == self.ignore_indiex:
                continue
            loss = self.binarydiceloss(_channel(logits, i), _channel(label, i))
            if self.weights is not None:
                row = P.Slice()(self.weights, (i, 0), (1, self.weights.shape[1]))
                loss = self._mul(loss, P.Reshape()(row, (self.weights.shape[1],)))
            total = loss if total is None else P.Add()(total, loss)
        if total is None:
            raise ValueError(f"For '{self.cls_name}', every class is ignored: nothing to average.")
        return self._mul(total, 1.0 / classes)


def _channel(x, i):
    """x[:, i] (kept as a primitive call so the gradient flows)."""
    begin = (0, i) + (0,) * (len(x.shape) - 2)
    size = (x.shape[0], 1) + tuple(x.shape[2:])
    piece = P.Slice()(x, begin, size)
    return P.Reshape()(piece, (x.shape[0],) + tuple(x.shape[2:]))


def _make_activation(name):
    axis_ops = {"softmax": P.Softmax, "logsoftmax": P.LogSoftmax}
    if name in axis_ops:
        return axis_ops[name](axis=1)
    return {"relu": P.ReLU, "relu6": P.ReLU6, "tanh": P.Tanh, "sigmoid": P.Sigmoid}[name]()
