"""More of MindSpore's neural-network functions: shrink/clip activations, channel dropouts, pixel and channel
shuffles, Lp pooling, SwiGLU, RMS norm, embedding lookup, Gumbel-softmax, and the margin / likelihood losses
(multilabel soft margin, multi margin, hinge embedding, Gaussian NLL, triplet margin, Poisson NLL).

>>> import openspore as ms
>>> ms.ops.hardtanh(ms.Tensor([-2.0, 0.5, 3.0])).asnumpy().tolist()
[-1.0, 0.5, 1.0]
"""
import math

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["hardshrink", "softshrink", "soft_shrink", "hardtanh", "tanhshrink", "threshold", "dropout1d",
           "dropout3d", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "lp_pool1d", "lp_pool2d", "swiglu",
           "rms_norm", "embedding", "gumbel_softmax", "multilabel_soft_margin_loss", "multi_margin_loss",
           "hinge_embedding_loss", "gaussian_nll_loss", "triplet_margin_loss", "poisson_nll_loss"]


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    return F.where(F.abs(input) > lambd, input, F.zeros_like(input))


def softshrink(input, lambd=0.5):
    """x − lambd above lambd, x + lambd below −lambd, else 0."""
    return F.where(input > lambd, input - lambd, F.where(input < -lambd, input + lambd, F.zeros_like(input)))


soft_shrink = softshrink


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """x clipped to [min_val, max_val]."""
    return F.clamp(input, min_val, max_val)


def tanhshrink(input):
    """x − tanh(x)."""
    return input - F.tanh(input)


def threshold(input, thr, value):
    """x where x > thr, else value."""
    return F.where(input > thr, input, F.full_like(input, value))


def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of (N, C, L) (or (C, L)) inputs with probability p while training."""
    if not training or p == 0:
        return input
    shape = tuple(input.shape)
    return F.reshape(F.dropout2d(F.reshape(input, shape + (1,)), p, True), shape)


def dropout3d(input, p=0.5, training=True):
    """Zero whole channels of (N, C, D, H, W) inputs with probability p while training."""
    if not training or p == 0:
        return input
    shape = tuple(input.shape)
    merged = F.reshape(input, shape[:-3] + (shape[-3] * shape[-2], shape[-1]))
    return F.reshape(F.dropout2d(merged, p, True), shape)


def pixel_shuffle(input, upscale_factor):
    """(…, C·r², H, W) → (…, C, H·r, W·r)."""
    r = upscale_factor
    *lead, c, h, w = input.shape
    out = F.transpose(F.reshape(input, (-1, c // (r * r), r, r, h, w)), (0, 1, 4, 2, 5, 3))
    return F.reshape(out, tuple(lead) + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(…, C, H·r, W·r) → (…, C·r², H, W)."""
    r = downscale_factor
    *lead, c, h, w = input.shape
    out = F.transpose(F.reshape(input, (-1, c, h // r, r, w // r, r)), (0, 1, 3, 5, 2, 4))
    return F.reshape(out, tuple(lead) + (c * r * r, h // r, w // r))


def channel_shuffle(x, groups):
    """(N, g·k, H, W, …) channels regrouped as k groups of g."""
    if len(x.shape) <= 3:
        raise TypeError(f"For ChannelShuffle, expect input with > 3 dims, but got {len(x.shape)}.")
    n, c = x.shape[0], x.shape[1]
    out = F.reshape(x, (n, groups, c // groups) + tuple(x.shape[2:]))
    return F.reshape(F.swapaxes(out, 1, 2), tuple(x.shape))


def _lp_finish(pooled, count, norm_type):
    total = pooled * count
    return F.pow(F.sign(total) * F.relu(F.abs(total)), 1.0 / norm_type)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(Σ_window x^p)^(1/p) over windows of the last axis."""
    stride = kernel_size if stride is None else stride
    pooled = F.avg_pool1d(F.pow(x, norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(pooled, kernel_size, norm_type)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(Σ_window x^p)^(1/p) over 2-D windows."""
    k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    stride = k if stride is None else stride
    pooled = F.avg_pool2d(F.pow(x, norm_type), k, stride, 0, ceil_mode)
    return _lp_finish(pooled, k[0] * k[1], norm_type)


def swiglu(input, dim=-1):
    """silu(a) · b for the two halves (a, b) of `input` along dim."""
    a, b = F.chunk(input, 2, dim)
    return F.silu(a) * b


def rms_norm(x, gamma, epsilon=1e-06):
    """(x · rsqrt(mean(x², last axis) + ε) · gamma, rsqrt(...))."""
    rstd = F.rsqrt(F.mean(F.square(x), -1, True) + epsilon)
    return x * rstd * gamma, rstd


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """Rows of `weight` at the indices; rows at padding_idx get no gradient; rows longer than max_norm are
    rescaled to it (in the result)."""
    out = F.gather(weight, input, 0)
    if padding_idx is not None:
        keep = F.cast(F.expand_dims(input != padding_idx, -1), weight.dtype)
        out = out * keep + F.stop_gradient(out) * (1 - keep)
    if max_norm is not None:
        norms = F.pow(F.sum(F.pow(F.abs(out), norm_type), -1, keepdim=True), 1.0 / norm_type)
        out = out * F.where(norms > max_norm, max_norm / (norms + 1e-7), F.ones_like(norms))
    return out


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """softmax((logits + Gumbel noise) / tau); `hard` returns one-hot values with the soft gradient."""
    u = F.clamp(F.rand_like(logits), 1e-10, 1.0 - 1e-7)
    y = F.softmax((logits - F.log(-F.log(u))) / tau, dim)
    if not hard:
        return y
    index = F.argmax(y, dim, keepdim=True)
    one_hot = F.tensor_scatter_elements(F.zeros_like(y), index, F.ones_like(F.cast(index, y.dtype)), dim)
    return one_hot - F.stop_gradient(y) + y


def _reduce(loss, reduction, where):
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"For '{where}', 'reduction' must be 'mean', 'sum' or 'none', but got {reduction!r}.")


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """−mean over classes of y·log σ(x) + (1−y)·log σ(−x) (times weight), per sample, then reduced."""
    per = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        per = per * weight
    return _reduce(F.mean(per, -1), reduction, "multilabel_soft_margin_loss")


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """Σ_{j≠y} max(0, margin − x_y + x_j)^p / C (scaled by weight[y]), per sample, then reduced."""
    if p not in (1, 2):
        raise ValueError(f"For 'multi_margin_loss', 'p' must be 1 or 2, but got {p}.")
    classes = input.shape[-1]
    onehot = F.cast(F.one_hot(target, classes, 1.0, 0.0), input.dtype)
    picked = F.sum(input * onehot, -1, keepdim=True)
    hinge = F.relu(margin - picked + input) * (1 - onehot)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * F.expand_dims(F.sum(onehot * weight, -1), -1)
    return _reduce(F.sum(hinge, -1) / classes, reduction, "multi_margin_loss")


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """x where y = 1, max(0, margin − x) where y = −1."""
    return _reduce(F.where(targets == 1, inputs, F.relu(margin - inputs)), reduction, "hinge_embedding_loss")


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """½(log max(var, eps) + (x − target)² / max(var, eps)) (+ ½ log 2π when full)."""
    for name, value in (("x", x), ("target", target), ("var", var)):
        if not isinstance(value, Tensor):
            raise TypeError(f"For 'gaussian_nll_loss', '{name}' must be a tensor, but got {type(value)}.")
    if not isinstance(full, bool):
        raise TypeError(f"For 'gaussian_nll_loss', 'full' must be a bool, but got {type(full)}.")
    if not isinstance(eps, float) or eps <= 0:
        raise ValueError(f"For 'gaussian_nll_loss', 'eps' must be a positive float, but got {eps}.")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"For 'gaussian_nll_loss', 'reduction' must be one of 'none', 'mean', or 'sum', but got "
                         f"{reduction}.")
    v = F.clamp(var, eps, None)
    loss = 0.5 * (F.log(v) + F.square(x - target) / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")


def _pairwise_distance(a, b, p, eps):
    return F.pow(F.sum(F.pow(F.abs(a - b + eps), p), -1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction="mean"):
    """max(d(a, p) − d(a, n) + margin, 0), d the p-norm distance (swap: d(a, n) → min(d(a, n), d(p, n)))."""
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    return _reduce(F.relu(d_pos - d_neg + margin), reduction, "triplet_margin_loss")


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-08, reduction="mean"):
    """exp(x) − y·x (log_input) or x − y·log(x + eps), plus Stirling's term for y > 1 when full."""
    loss = F.exp(input) - target * input if log_input else input - target * F.log(input + eps)
    if full:
        t = F.clamp(target, 1.0, None)
        stirling = target * F.log(t) - target + 0.5 * F.log(2 * math.pi * t)
        loss = loss + F.where(target > 1, stirling, F.zeros_like(stirling))
    return _reduce(loss, reduction, "poisson_nll_loss")


_ = mstype
