"""Functional losses (MindSpore 2.x signatures), built on the loss primitives of `ops/defs/loss*.py` and
`softmax.py`. A few use math-family primitives (Abs, Sqrt, Maximum, RealDiv), looked up by name at call time."""
from ...core.tensor import Tensor
from ...core.registry import prim
from ..defs.activation import step
from ..defs.loss import check_reduction, reduce_like, size_of
from .. import operations as P

__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss",
           "margin_ranking_loss", "cosine_embedding_loss", "cosine_similarity"]


def _check_tensor(name, arg, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(value).__name__}.")


def _reduction(name, reduction, allowed=("none", "mean", "sum")):
    check_reduction(name, reduction, allowed)
    return reduction


def _class_axis(name, input):
    if len(input.shape) == 0:
        raise ValueError(f"For '{name}', 'input' must have at least one dimension (the classes), but got a scalar.")
    return 0 if len(input.shape) == 1 else 1


# ---- class-index and probability cross-entropy ---------------------------------------------------------
def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """nll_loss(inputs, target, weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0):
    negative log-likelihood of log-probabilities `inputs` (N, C, ...) at class indices `target` (N, ...)."""
    _check_tensor("nll_loss", "inputs", inputs)
    _check_tensor("nll_loss", "target", target)
    _reduction("nll_loss", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"For 'nll_loss', 'label_smoothing' must be in [0, 1], but got {label_smoothing}.")
    unbatched = len(inputs.shape) == 1
    if unbatched:  # one sample without a batch axis
        inputs = prim(P.Reshape)(inputs, (1,) + tuple(inputs.shape))
        target = prim(P.Reshape)(target, (1,))
    loss = _nll_with_smoothing(inputs, target, weight, ignore_index, reduction, label_smoothing)
    return prim(P.Reshape)(loss, ()) if unbatched and reduction == "none" else loss


def _nll_with_smoothing(inputs, target, weight, ignore_index, reduction, label_smoothing):
    loss, total_weight = prim(P.NLLLoss, reduction=reduction, ignore_index=ignore_index)(inputs, target, weight)
    if not label_smoothing:
        return loss
    mul = prim(P.Mul)
    classes = inputs.shape[1]
    # 1 where the label counts, 0 where it is ignore_index: the unweighted NLL of logits that are all -1
    unit_nll = prim(P.NLLLoss, reduction="none", ignore_index=ignore_index)
    valid = unit_nll(prim(P.Neg)(prim(P.OnesLike)(inputs)), target, None)[0]
    if weight is not None:
        inputs = mul(inputs, prim(P.Reshape)(weight, (1, classes) + (1,) * (len(inputs.shape) - 2)))
    smooth = mul(prim(P.Neg)(prim(P.ReduceSum)(inputs, (1,))), valid)
    if reduction == "sum":
        smooth = prim(P.ReduceSum)(smooth, ())
    elif reduction == "mean":
        smooth = prim("RealDiv")(prim(P.ReduceSum)(smooth, ()), total_weight)
    return prim(P.Add)(mul(loss, 1.0 - label_smoothing), mul(smooth, label_smoothing / classes))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0):
    softmax cross-entropy of logits `input` (N, C, ...) against class indices or class probabilities.

    >>> import openspore as ms
    >>> logits = ms.Tensor([[2.0, 1.0], [0.5, 0.5]])
    >>> round(float(ms.ops.cross_entropy(logits, ms.Tensor([0, 1], ms.int32)).asnumpy()), 4)
    0.5032
    """
    _check_tensor("cross_entropy", "input", input)
    _check_tensor("cross_entropy", "target", target)
    _reduction("cross_entropy", reduction)
    axis = _class_axis("cross_entropy", input)
    logp = prim(P.LogSoftmax, axis=axis)(input)
    if target.dtype.kind in ("int", "uint"):
        return nll_loss(logp, target, weight, ignore_index, reduction, label_smoothing)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"For 'cross_entropy', probability targets must have the shape of 'input' "
                         f"{list(input.shape)}, but got {list(target.shape)}.")
    mul = prim(P.Mul)
    classes = input.shape[axis]
    if label_smoothing:
        target = prim(P.Add)(mul(target, 1.0 - label_smoothing), label_smoothing / classes)
    if weight is not None:
        wshape = (classes,) + (1,) * (len(input.shape) - axis - 1)
        logp = mul(logp, prim(P.Reshape)(weight, wshape))
    per_sample = prim(P.Neg)(prim(P.ReduceSum)(mul(target, logp), (axis,)))
    if reduction == "none":
        return per_sample
    total = prim(P.ReduceSum)(per_sample, ())
    if reduction == "sum":
        return total
    return mul(total, 1.0 / max(size_of(per_sample.shape), 1))


# ---- regression losses ----------------------------------------------------------------------------------
def mse_loss(input, target, reduction="mean"):
    """mse_loss(input, target, reduction='mean'): (input - target)^2, reduced; shapes broadcast."""
    _check_tensor("mse_loss", "input", input)
    diff = prim(P.Sub)(input, target)
    return reduce_like(prim(P.Mul)(diff, diff), _reduction("mse_loss", reduction))


def l1_loss(input, target, reduction="mean"):
    """l1_loss(input, target, reduction='mean'): |input - target|, reduced; shapes broadcast."""
    _check_tensor("l1_loss", "input", input)
    return reduce_like(prim("Abs")(prim(P.Sub)(input, target)), _reduction("l1_loss", reduction))


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """smooth_l1_loss(input, target, beta=1.0, reduction='none'): 0.5 d^2 / beta for |d| < beta, else
    |d| - 0.5 beta."""
    return prim(P.SmoothL1Loss, beta=beta, reduction=_reduction("smooth_l1_loss", reduction))(input, target)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """huber_loss(input, target, reduction='mean', delta=1.0): 0.5 d^2 for |d| < delta, else
    delta (|d| - 0.5 delta) — delta times the smooth L1 loss with beta = delta."""
    _reduction("huber_loss", reduction)
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or delta <= 0:
        raise ValueError(f"For 'huber_loss', 'delta' must be a positive float, but got {delta!r}.")
    loss = prim(P.Mul)(prim(P.SmoothL1Loss, beta=float(delta), reduction="none")(input, target), float(delta))
    return reduce_like(loss, reduction)


# ---- binary and distribution losses ------------------------------------------------------------------------
def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """binary_cross_entropy(logits, labels, weight=None, reduction='mean') on probabilities `logits`."""
    return prim(P.BinaryCrossEntropy, reduction=_reduction("binary_cross_entropy", reduction))(logits, labels, weight)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    """binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction='mean')."""
    op = prim(P.BCEWithLogitsLoss, reduction=_reduction("binary_cross_entropy_with_logits", reduction))
    return op(input, target, weight, pos_weight)


def kl_div(logits, labels, reduction="mean"):
    """kl_div(logits, labels, reduction='mean') = labels * (log(labels) - logits); logits are log-probabilities.
    reduction: 'none', 'mean', 'sum' or 'batchmean'."""
    reduction = _reduction("kl_div", reduction, ("none", "mean", "sum", "batchmean"))
    return prim(P.KLDivLoss, reduction=reduction)(logits, labels)


def soft_margin_loss(input, target, reduction="mean"):
    """soft_margin_loss(input, target, reduction='mean') = log(1 + exp(-target * input)), reduced."""
    _check_tensor("soft_margin_loss", "input", input)
    loss = prim(P.Softplus)(prim(P.Neg)(prim(P.Mul)(target, input)))
    return reduce_like(loss, _reduction("soft_margin_loss", reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """margin_ranking_loss(input1, input2, target, margin=0.0, reduction='mean') =
    max(0, -target * (input1 - input2) + margin), reduced."""
    _check_tensor("margin_ranking_loss", "input1", input1)
    loss = prim(P.ReLU)(prim(P.Add)(prim(P.Neg)(prim(P.Mul)(target, prim(P.Sub)(input1, input2))), float(margin)))
    return reduce_like(loss, _reduction("margin_ranking_loss", reduction))


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """cosine_similarity(x1, x2, dim=1, eps=1e-08) = sum(x1 * x2) / max(||x1|| ||x2||, eps) along dim."""
    _check_tensor("cosine_similarity", "x1", x1)
    _check_tensor("cosine_similarity", "x2", x2)
    mul, total = prim(P.Mul), prim(P.ReduceSum)
    dot = total(mul(x1, x2), (dim,))
    norms = mul(total(mul(x1, x1), (dim,)), total(mul(x2, x2), (dim,)))
    denom = prim("Sqrt")(prim("Maximum")(norms, float(eps) * float(eps)))
    return prim("RealDiv")(dot, denom)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """cosine_embedding_loss(input1, input2, target, margin=0.0, reduction='mean'): 1 - cos(input1, input2)
    where target is 1, max(0, cos - margin) where target is -1 (cosine along axis 1)."""
    _check_tensor("cosine_embedding_loss", "target", target)
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"For 'cosine_embedding_loss', 'margin' must be in [-1, 1], but got {margin}.")
    mul, total = prim(P.Mul), prim(P.ReduceSum)
    dot = total(mul(input1, input2), (1,))
    sq1 = prim(P.Add)(total(mul(input1, input1), (1,)), 1e-12)
    sq2 = prim(P.Add)(total(mul(input2, input2), (1,)), 1e-12)
    cos = prim("RealDiv")(dot, prim("Sqrt")(mul(sq1, sq2)))
    t = prim(P.Cast)(target, cos.dtype)
    positive = mul(step(t), prim(P.Sub)(1.0, cos))
    negative = mul(step(prim(P.Neg)(t)), prim(P.ReLU)(prim(P.Sub)(cos, float(margin))))
    return reduce_like(prim(P.Add)(positive, negative), _reduction("cosine_embedding_loss", reduction))
