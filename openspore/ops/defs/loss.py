"""Primitives: elementwise losses with a reduction attribute — BinaryCrossEntropy, BCEWithLogitsLoss,
SmoothL1Loss, KLDivLoss — and the gradient primitives their backward rules use.

Backward rules reuse the losses themselves where a closed form needs a logarithm or a reciprocal:
-log(x) is BinaryCrossEntropy('none')(x, 1) and 1/x, 1/(1-x) are BinaryCrossEntropyGrad('none') at labels 1
and 0, so every derivative order stays inside this family.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import (broadcast_shape, check_dtype, check_same_dtype, check_tensor, prim, rand_float,
                    rand_positive, sum_to_shape)
from .activation import check_number, step
from .activation_smooth import Softplus, np_softplus, sigmoid

REDUCTIONS = ("none", "mean", "sum")
BCE_EPS = 1e-12


def check_reduction(op, reduction, allowed=REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"For '{op}', 'reduction' must be one of {list(allowed)}, but got {reduction!r}.")


def size_of(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def expand_dout(dout, shape, reduction):
    """The per-element cotangent of a reduced loss: dout broadcast to `shape` (scaled by 1/n for 'mean')."""
    if reduction == "none":
        return dout
    full = prim("BroadcastTo", shape=tuple(shape))(dout)
    if reduction == "mean":
        return prim("Mul")(full, 1.0 / max(size_of(shape), 1))
    if reduction == "batchmean":
        return prim("Mul")(full, 1.0 / max(shape[0] if shape else 1, 1))
    return full


def reduce_like(values, reduction):
    """Apply `reduction` to a per-element tensor (the transpose of `expand_dout`)."""
    if reduction == "none":
        return values
    total = prim("ReduceSum")(values, ())
    if reduction == "mean":
        return prim("Mul")(total, 1.0 / max(size_of(values.shape), 1))
    if reduction == "batchmean":
        return prim("Mul")(total, 1.0 / max(values.shape[0] if values.shape else 1, 1))
    return total


def kernel_reduce(loss, reduction, dtype):
    """Reduction inside a kernel (numpy arrays and torch tensors both have sum/mean)."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        out = loss.sum()
    elif reduction == "mean":
        out = loss.mean()
    else:
        out = loss.sum() / max(loss.shape[0] if loss.ndim else 1, 1)
    return np.asarray(out, dtype=dtype) if isinstance(loss, np.ndarray) else out


def reduced_abstract(x, reduction):
    return AbstractTensor(x.shape if reduction == "none" else (), x.dtype)


def check_pair(op, names, x, y):
    check_tensor(op, names[0], x)
    check_tensor(op, names[1], y)
    check_dtype(op, names[0], x, ("float",))
    check_same_dtype(op, names, x, y)
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"For '{op}', the shape of '{names[1]}' must be the same as '{names[0]}', but got "
                         f"{list(y.shape)} and {list(x.shape)}.")


def check_optional_weight(op, name, weight, x):
    if weight is None:
        return
    check_tensor(op, name, weight)
    if weight.dtype is not x.dtype:
        raise TypeError(f"For '{op}', the type of '{name}' should be same as 'logits', but got "
                        f"Tensor[{weight.dtype}] and Tensor[{x.dtype}].")
    if broadcast_shape(op, x.shape, weight.shape) != tuple(x.shape):
        raise ValueError(f"For '{op}', '{name}' of shape {list(weight.shape)} must broadcast to the shape of "
                         f"'logits' {list(x.shape)}.")


def _mul_opt(x, w):
    return x if w is None else prim("Mul")(x, w)


# ---- binary cross-entropy on probabilities ------------------------------------------------------
class _Reduced(Primitive):
    attr_defaults = {"reduction": "mean"}

    def check_attrs(self):
        check_reduction(self.name, self.reduction)


@register
class BinaryCrossEntropy(_Reduced):
    """BinaryCrossEntropy(reduction='mean')(logits, labels, weight=None) on probabilities `logits` in [0, 1]:
    -weight * (labels * log(logits) + (1 - labels) * log(1 - logits)), each log clamped at -100."""
    input_names = ("logits", "labels", "weight")

    def infer(self, x, y, weight=None):
        check_pair(self.name, self.input_names, x, y)
        check_optional_weight(self.name, "weight", weight, x)
        return reduced_abstract(x, self.reduction)

    def bprop(self, x, y, weight, out, dout):
        bce = BinaryCrossEntropy(reduction="none")
        db = expand_dout(dout, x.shape, self.reduction)
        dx = BinaryCrossEntropyGrad(reduction=self.reduction)(x, y, dout, weight)
        # d/dy = w * (log(1 - x) - log(x)) = w * (bce(x, 1) - bce(x, 0))
        logit = prim("Sub")(bce(x, prim("OnesLike")(x), None), bce(x, prim("ZerosLike")(x), None))
        dy = _mul_opt(prim("Mul")(db, logit), weight)
        dw = None if weight is None else sum_to_shape(prim("Mul")(db, bce(x, y, None)), weight.shape)
        return dx, dy, dw

    def numpy(self, np, x, y, weight=None):
        with np.errstate(divide="ignore"):
            loss = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
        if weight is not None:
            loss = loss * weight
        return kernel_reduce(loss.astype(x.dtype, copy=False), self.reduction, x.dtype)

    def torch(self, torch, x, y, weight=None):
        loss = -(y * torch.clamp(torch.log(x), min=-100) + (1 - y) * torch.clamp(torch.log1p(-x), min=-100))
        if weight is not None:
            loss = loss * weight
        return kernel_reduce(loss, self.reduction, None)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4), 0.1, 0.9)
        y = rand_float(rng, (3, 4), 0.0, 1.0)
        yield Sample(x, y, None)
        yield Sample(x, y, rand_positive(rng, (3, 4)), attrs={"reduction": "sum"}, name="weighted")
        yield Sample(x, y, rand_positive(rng, (4,)), attrs={"reduction": "none"}, name="broadcast_weight")


def _grad_like_input(op, name, dout, x):
    """infer of a loss gradient: the cotangent `name` has the loss's shape (x's for reduction 'none', else a
    scalar); the gradient has x's shape and dtype."""
    check_tensor(op.name, name, dout)
    expected = tuple(x.shape) if op.reduction == "none" else ()
    if tuple(dout.shape) != expected:
        raise ValueError(f"For '{op.name}', '{name}' must have shape {list(expected)} for reduction "
                         f"{op.reduction!r}, but got {list(dout.shape)}.")
    return AbstractTensor(x.shape, x.dtype)


@register
class BinaryCrossEntropyGrad(_Reduced):
    """BinaryCrossEntropyGrad(reduction='mean')(logits, labels, grad_output, weight=None):
    weight * (logits - labels) / (logits * (1 - logits)) times the per-element grad_output."""
    input_names = ("logits", "labels", "grad_output", "weight")

    def infer(self, x, y, dout, weight=None):
        check_pair(self.name, self.input_names, x, y)
        check_optional_weight(self.name, "weight", weight, x)
        return _grad_like_input(self, "grad_output", dout, x)

    def bprop(self, x, y, g, weight, out, dout):
        mul, sub, add = prim("Mul"), prim("Sub"), prim("Add")
        unit = BinaryCrossEntropyGrad(reduction="none")
        ones = prim("OnesLike")(x)
        inv_1mx = unit(x, prim("ZerosLike")(x), ones, None)   # 1 / (1 - x)
        inv_x = prim("Neg")(unit(x, ones, ones, None))       # 1 / x
        scale = _mul_opt(mul(dout, expand_dout(g, x.shape, self.reduction)), weight)
        # r = (x - y) / (x (1 - x)) = (1 - y) / (1 - x) - y / x
        dr_dx = add(mul(sub(1.0, y), mul(inv_1mx, inv_1mx)), mul(y, mul(inv_x, inv_x)))
        dx = mul(scale, dr_dx)
        dy = prim("Neg")(mul(scale, add(inv_1mx, inv_x)))
        dg = reduce_like(mul(dout, unit(x, y, ones, weight)), self.reduction)
        dw = None
        if weight is not None:
            plain = BinaryCrossEntropyGrad(reduction=self.reduction)(x, y, g, None)
            dw = sum_to_shape(mul(dout, plain), weight.shape)
        return dx, dy, dg, dw

    def numpy(self, np, x, y, g, weight=None):
        g = g / max(x.size, 1) if self.reduction == "mean" else g
        r = (x - y) / np.maximum(x * (1 - x), BCE_EPS)
        if weight is not None:
            r = r * weight
        return (r * g).astype(x.dtype, copy=False)

    def torch(self, torch, x, y, g, weight=None):
        g = g / max(x.numel(), 1) if self.reduction == "mean" else g
        r = (x - y) / torch.clamp(x * (1 - x), min=BCE_EPS)
        if weight is not None:
            r = r * weight
        return r * g

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4), 0.1, 0.9)
        y = rand_float(rng, (3, 4), 0.0, 1.0)
        yield Sample(x, y, np.array(0.7, np.float32), None)
        yield Sample(x, y, rand_float(rng, (3, 4)), rand_positive(rng, (4,)), attrs={"reduction": "none"},
                     name="none_weighted")
        yield Sample(x, y, np.array(1.3, np.float32), rand_positive(rng, (3, 4)), attrs={"reduction": "sum"},
                     name="sum_weighted")


# ---- binary cross-entropy on logits --------------------------------------------------------------
@register
class BCEWithLogitsLoss(_Reduced):
    """BCEWithLogitsLoss(reduction='mean')(logits, label, weight, pos_weight):
    weight * (pos_weight * label * softplus(-logits) + (1 - label) * softplus(logits)); None weights are 1."""
    input_names = ("logits", "label", "weight", "pos_weight")

    def infer(self, x, y, weight=None, pos_weight=None):
        check_pair(self.name, self.input_names, x, y)
        check_optional_weight(self.name, "weight", weight, x)
        check_optional_weight(self.name, "pos_weight", pos_weight, x)
        return reduced_abstract(x, self.reduction)

    def bprop(self, x, y, weight, pos_weight, out, dout):
        mul, sub = prim("Mul"), prim("Sub")
        db = expand_dout(dout, x.shape, self.reduction)
        s = sigmoid(x)
        sp_pos, sp_neg = Softplus()(x), Softplus()(prim("Neg")(x))
        py = _mul_opt(y, pos_weight)
        dx = _mul_opt(mul(db, sub(mul(sub(1.0, y), s), mul(py, sub(1.0, s)))), weight)
        dy = _mul_opt(mul(db, sub(_mul_opt(sp_neg, pos_weight), sp_pos)), weight)
        dw = dp = None
        if weight is not None:
            plain = BCEWithLogitsLoss(reduction="none")(x, y, None, pos_weight)
            dw = sum_to_shape(mul(db, plain), weight.shape)
        if pos_weight is not None:
            dp = sum_to_shape(_mul_opt(mul(db, mul(y, sp_neg)), weight), pos_weight.shape)
        return dx, dy, dw, dp

    def numpy(self, np, x, y, weight=None, pos_weight=None):
        pos = y * np_softplus(np, -x)
        if pos_weight is not None:
            pos = pos * pos_weight
        loss = pos + (1 - y) * np_softplus(np, x)
        if weight is not None:
            loss = loss * weight
        return kernel_reduce(loss.astype(x.dtype, copy=False), self.reduction, x.dtype)

    def torch(self, torch, x, y, weight=None, pos_weight=None):
        def softplus(z):
            return torch.clamp(z, min=0) + torch.log1p(torch.exp(-z.abs()))
        pos = y * softplus(-x)
        if pos_weight is not None:
            pos = pos * pos_weight
        loss = pos + (1 - y) * softplus(x)
        if weight is not None:
            loss = loss * weight
        return kernel_reduce(loss, self.reduction, None)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4), -3.0, 3.0)
        y = rand_float(rng, (3, 4), 0.0, 1.0)
        yield Sample(x, y, None, None)
        yield Sample(x, y, rand_positive(rng, (3, 4)), rand_positive(rng, (4,)), attrs={"reduction": "sum"},
                     name="weighted")
        yield Sample(x, y, rand_positive(rng, (1, 4)), None, attrs={"reduction": "none"}, name="none")


# ---- smooth L1 ------------------------------------------------------------------------------------
class _SmoothL1Base(_Reduced):
    attr_defaults = {"beta": 1.0, "reduction": "none"}

    def check_attrs(self):
        self.beta = check_number(self.name, "beta", self.beta, positive=True)
        check_reduction(self.name, self.reduction)


@register
class SmoothL1Loss(_SmoothL1Base):
    """SmoothL1Loss(beta=1.0, reduction='none')(logits, labels): 0.5 d^2 / beta where |d| < beta, else
    |d| - 0.5 beta, with d = logits - labels."""
    input_names = ("logits", "labels")

    def infer(self, x, y):
        check_pair(self.name, self.input_names, x, y)
        return reduced_abstract(x, self.reduction)

    def bprop(self, x, y, out, dout):
        dx = SmoothL1LossGrad(beta=self.beta, reduction=self.reduction)(x, y, dout)
        return dx, prim("Neg")(dx)

    def numpy(self, np, x, y):
        d = x - y
        a = np.abs(d)
        loss = np.where(a < self.beta, 0.5 * d * d / self.beta, a - 0.5 * self.beta).astype(x.dtype, copy=False)
        return kernel_reduce(loss, self.reduction, x.dtype)

    def torch(self, torch, x, y):
        d = x - y
        a = d.abs()
        return kernel_reduce(torch.where(a < self.beta, 0.5 * d * d / self.beta, a - 0.5 * self.beta),
                             self.reduction, None)

    @classmethod
    def samples(cls, rng):
        x, y = rand_float(rng, (3, 4), -2.0, 2.0), rand_float(rng, (3, 4), -2.0, 2.0)
        yield Sample(x, y)
        yield Sample(x, y, attrs={"beta": 0.5, "reduction": "mean"}, name="mean")
        yield Sample(x, y, attrs={"beta": 2.0, "reduction": "sum"}, name="sum")


@register
class SmoothL1LossGrad(_SmoothL1Base):
    """SmoothL1LossGrad(beta=1.0, reduction='none')(prediction, target, dout) = clip(d / beta, -1, 1) * dout."""
    input_names = ("prediction", "target", "dout")

    def infer(self, x, y, dout):
        check_pair(self.name, self.input_names, x, y)
        return _grad_like_input(self, "dout", dout, x)

    def bprop(self, x, y, g, out, dout):
        mul, sub = prim("Mul"), prim("Sub")
        d = sub(x, y)
        inside = sub(step(prim("Add")(d, self.beta)), step(sub(d, self.beta)))
        k = mul(mul(mul(dout, expand_dout(g, x.shape, self.reduction)), inside), 1.0 / self.beta)
        clipped = SmoothL1LossGrad(beta=self.beta, reduction="none")(x, y, prim("OnesLike")(x))
        return k, prim("Neg")(k), reduce_like(mul(dout, clipped), self.reduction)

    def numpy(self, np, x, y, g):
        g = g / max(x.size, 1) if self.reduction == "mean" else g
        return (np.clip((x - y) / self.beta, -1, 1) * g).astype(x.dtype, copy=False)

    def torch(self, torch, x, y, g):
        g = g / max(x.numel(), 1) if self.reduction == "mean" else g
        return torch.clamp((x - y) / self.beta, -1, 1) * g

    @classmethod
    def samples(cls, rng):
        x, y = rand_float(rng, (3, 4), -2.0, 2.0), rand_float(rng, (3, 4), -2.0, 2.0)
        yield Sample(x, y, rand_float(rng, (3, 4)))
        yield Sample(x, y, np.array(0.8, np.float32), attrs={"beta": 0.5, "reduction": "mean"}, name="mean")


# ---- KL divergence --------------------------------------------------------------------------------
@register
class KLDivLoss(Primitive):
    """KLDivLoss(reduction='mean')(logits, labels) = labels * (log(labels) - logits), 0 where labels == 0;
    `logits` holds log-probabilities. reduction: 'none', 'mean', 'sum' or 'batchmean' (sum / batch)."""
    attr_defaults = {"reduction": "mean"}
    input_names = ("logits", "labels")

    def check_attrs(self):
        check_reduction(self.name, self.reduction, REDUCTIONS + ("batchmean",))

    def infer(self, x, y):
        check_pair(self.name, self.input_names, x, y)
        return reduced_abstract(x, self.reduction)

    def bprop(self, x, y, out, dout):
        db = expand_dout(dout, x.shape, self.reduction)
        dx = prim("Neg")(prim("Mul")(db, y))
        # labels are probabilities, so log(labels) = -BinaryCrossEntropy('none')(labels, 1) (clamped at -100)
        neg_log = BinaryCrossEntropy(reduction="none")(y, prim("OnesLike")(y), None)
        dy = prim("Mul")(db, prim("Sub")(prim("Sub")(1.0, neg_log), x))
        return dx, dy

    def numpy(self, np, x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0).astype(x.dtype, copy=False)
        return kernel_reduce(loss, self.reduction, x.dtype)

    def torch(self, torch, x, y):
        safe = torch.where(y > 0, y, torch.ones_like(y))
        loss = torch.where(y > 0, y * (torch.log(safe) - x), torch.zeros_like(y))
        return kernel_reduce(loss, self.reduction, None)

    @classmethod
    def samples(cls, rng):
        x = np.log(rand_float(rng, (3, 4), 0.05, 1.0))
        y = rand_float(rng, (3, 4), 0.05, 1.0)
        yield Sample(x, y)
        yield Sample(x, y, attrs={"reduction": "batchmean"}, name="batchmean")
        yield Sample(x, y, attrs={"reduction": "none"}, name="none")
        y = y.copy()
        y[0, 0] = 0.0
        # at a zero label the loss is flat on one side: check the logits' gradient only
        yield Sample(x, y, attrs={"reduction": "sum"}, grad=(0,), name="zero_label")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, BinaryCrossEntropy, BCEWithLogitsLoss, SmoothL1Loss, KLDivLoss, formats=("MINDIR",))
not_exportable(NO_ONNX, BinaryCrossEntropy, BCEWithLogitsLoss, SmoothL1Loss, KLDivLoss, formats=("ONNX",))
not_exportable(BACKWARD, BinaryCrossEntropyGrad, SmoothL1LossGrad)
