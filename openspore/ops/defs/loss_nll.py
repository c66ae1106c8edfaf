"""Primitives: NLLLoss (negative log-likelihood over class indices, with class weights and an ignored index)
and NLLLossGrad, its gradient.

Logits are (N, C) or (N, C, d1, ...) with the class axis at 1, labels (N,) or (N, d1, ...). `weight` may be
None (every class weighs 1). Backward rules, including the weights' gradient and every higher order, are
NLLLossGrad calls: it is linear in loss_grad and in weight, and proportional to 1 / total_weight for 'mean'.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, prim, rand_float, rand_positive
from .loss import check_reduction
from .softmax import check_labels_in_range


def _other_axes(ndim):
    return (0,) + tuple(range(2, ndim))


def _check_inputs(op, logits, labels, weight):
    check_tensor(op, "logits", logits)
    check_dtype(op, "logits", logits, ("float",))
    if len(logits.shape) < 2:
        raise ValueError(f"For '{op}', 'logits' must have rank 2 or more (N, C, ...), but got shape "
                         f"{list(logits.shape)}.")
    check_tensor(op, "labels", labels)
    check_dtype(op, "labels", labels, ("int", "uint"))
    expected = tuple(logits.shape[:1]) + tuple(logits.shape[2:])
    if tuple(labels.shape) != expected:
        raise ValueError(f"For '{op}', the shape of 'labels' must be {list(expected)} for 'logits' of shape "
                         f"{list(logits.shape)}, but got {list(labels.shape)}.")
    if weight is not None:
        check_tensor(op, "weight", weight)
        if weight.dtype is not logits.dtype:
            raise TypeError(f"For '{op}', the type of 'weight' should be same as 'logits', but got "
                            f"Tensor[{weight.dtype}] and Tensor[{logits.dtype}].")
        if tuple(weight.shape) != (logits.shape[1],):
            raise ValueError(f"For '{op}', 'weight' must have shape [{logits.shape[1]}] (one per class), but got "
                             f"{list(weight.shape)}.")


def _picked_weights_numpy(np, op, logits, labels, weight, ignore_index):
    """(valid-label indices with ignored ones at 0, per-element weights with ignored ones at 0)."""
    valid = labels != ignore_index
    check_labels_in_range(op, labels, logits.shape[1], valid)
    safe = np.where(valid, labels, 0).astype(np.int64)
    w = weight[safe] if weight is not None else np.ones(safe.shape, logits.dtype)
    return safe, (w * valid).astype(logits.dtype, copy=False)


def _picked_weights_torch(torch, op, logits, labels, weight, ignore_index):
    valid = labels != ignore_index
    check_labels_in_range(op, labels, logits.shape[1], valid)
    safe = torch.where(valid, labels, torch.zeros_like(labels)).long()
    w = weight[safe] if weight is not None else torch.ones(safe.shape, dtype=logits.dtype, device=logits.device)
    return safe, w * valid.to(logits.dtype)


class _NLLBase(Primitive):
    attr_defaults = {"reduction": "mean", "ignore_index": -100}

    def check_attrs(self):
        check_reduction(self.name, self.reduction)
        if isinstance(self.ignore_index, bool) or not isinstance(self.ignore_index, (int, np.integer)):
            raise TypeError(f"For '{self.name}', 'ignore_index' must be an int, but got "
                            f"{type(self.ignore_index).__name__}.")


@register
class NLLLoss(_NLLBase):
    """NLLLoss(reduction='mean', ignore_index=-100)(logits, labels, weight) -> (loss, total_weight).

    loss[n] = -weight[labels[n]] * logits[n, labels[n]] (0 where labels[n] == ignore_index); total_weight is
    the sum of the weights picked; 'mean' divides the summed loss by total_weight.
    """
    input_names = ("logits", "labels", "weight")

    def infer(self, logits, labels, weight=None):
        _check_inputs(self.name, logits, labels, weight)
        shape = tuple(labels.shape) if self.reduction == "none" else ()
        return AbstractTensor(shape, logits.dtype), AbstractTensor((), logits.dtype)

    def bprop(self, logits, labels, weight, out, dout):
        loss, total = out
        dloss, dtotal = dout
        grad = NLLLossGrad(reduction=self.reduction, ignore_index=self.ignore_index)
        dlogits = grad(logits, dloss, labels, weight, total)
        if weight is None:
            return dlogits, None, None
        mul, axes = prim("Mul"), _other_axes(len(logits.shape))
        reduce = prim("ReduceSum")
        unit = grad(logits, dloss, labels, None, total)  # -dloss at each picked class (/ total for 'mean')
        dweight = reduce(mul(unit, logits), axes)
        if self.reduction == "mean":
            # the mean also moves with total_weight: d(S / T)/dw = dS/dw / T - (S / T) dT/dw / T
            dweight = prim("Add")(dweight, mul(reduce(unit, axes), loss))
        counts = NLLLossGrad(reduction="sum", ignore_index=self.ignore_index)(logits, dtotal, labels, None, total)
        dweight = prim("Sub")(dweight, reduce(counts, axes))  # total_weight's own cotangent
        return dlogits, None, dweight

    def numpy(self, np, logits, labels, weight=None):
        safe, w = _picked_weights_numpy(np, self.name, logits, labels, weight, self.ignore_index)
        picked = np.take_along_axis(logits, np.expand_dims(safe, 1), axis=1)[:, 0]
        loss = -(w * picked)
        total = np.asarray(w.sum(), dtype=logits.dtype)
        if self.reduction == "none":
            return loss.astype(logits.dtype, copy=False), total
        summed = np.asarray(loss.sum(), dtype=logits.dtype)
        if self.reduction == "sum":
            return summed, total
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(summed / total, dtype=logits.dtype), total

    def torch(self, torch, logits, labels, weight=None):
        safe, w = _picked_weights_torch(torch, self.name, logits, labels, weight, self.ignore_index)
        loss = -(w * logits.gather(1, safe.unsqueeze(1)).squeeze(1))
        total = w.sum()
        if self.reduction == "none":
            return loss, total
        if self.reduction == "sum":
            return loss.sum(), total
        return loss.sum() / total, total

    @classmethod
    def samples(cls, rng):
        logits = rand_float(rng, (4, 3), -2.0, 0.0)
        labels = np.array([0, 2, -100, 1], np.int32)
        weight = rand_positive(rng, (3,))
        yield Sample(logits, labels, weight)
        yield Sample(logits, labels.astype(np.int64), weight, attrs={"reduction": "sum"}, name="sum")
        yield Sample(logits, labels, weight, attrs={"reduction": "none"}, name="none")
        yield Sample(logits, np.array([1, 1, 0, 2], np.int32), None, name="no_weight")
        yield Sample(rand_float(rng, (2, 3, 2), -2.0, 0.0), np.array([[0, 2], [1, 1]], np.int64), weight,
                     attrs={"ignore_index": 2}, name="spatial")


@register
class NLLLossGrad(_NLLBase):
    """NLLLossGrad(reduction='mean', ignore_index=-100)(logits, loss_grad, labels, weight, total_weight):
    the gradient of NLLLoss for its logits: -weight[label] * loss_grad at each picked class (/ total_weight
    for 'mean'), zero elsewhere."""
    input_names = ("logits", "loss_grad", "labels", "weight", "total_weight")

    def infer(self, logits, loss_grad, labels, weight, total_weight):
        _check_inputs(self.name, logits, labels, weight)
        check_tensor(self.name, "loss_grad", loss_grad)
        check_tensor(self.name, "total_weight", total_weight)
        expected = tuple(labels.shape) if self.reduction == "none" else ()
        if tuple(loss_grad.shape) != expected:
            raise ValueError(f"For '{self.name}', 'loss_grad' must have shape {list(expected)} for reduction "
                             f"{self.reduction!r}, but got {list(loss_grad.shape)}.")
        if tuple(total_weight.shape) != ():
            raise ValueError(f"For '{self.name}', 'total_weight' must be a scalar, but got shape "
                             f"{list(total_weight.shape)}.")
        return AbstractTensor(logits.shape, logits.dtype)

    def bprop(self, logits, loss_grad, labels, weight, total, out, dout):
        mul, reduce = prim("Mul"), prim("ReduceSum")
        same = NLLLossGrad(reduction=self.reduction, ignore_index=self.ignore_index)
        # the output is linear in loss_grad: differentiate at loss_grad = 1
        per_unit = mul(dout, same(logits, prim("OnesLike")(loss_grad), labels, weight, total))
        dgrad = reduce(per_unit, (1,)) if self.reduction == "none" else reduce(per_unit, ())
        dweight = None
        if weight is not None:
            dweight = reduce(mul(dout, same(logits, loss_grad, labels, None, total)), _other_axes(len(logits.shape)))
        if self.reduction == "mean":
            # out is proportional to 1 / total, so d out / d total = -out / total = -same(..., total^2)
            dtotal = prim("Neg")(reduce(mul(dout, same(logits, loss_grad, labels, weight, mul(total, total))), ()))
        else:
            dtotal = prim("ZerosLike")(total)
        return prim("ZerosLike")(logits), dgrad, None, dweight, dtotal

    def numpy(self, np, logits, loss_grad, labels, weight, total):
        safe, w = _picked_weights_numpy(np, self.name, logits, labels, weight, self.ignore_index)
        coef = -w * loss_grad
        if self.reduction == "mean":
            coef = coef / total
        out = np.zeros_like(logits)
        np.put_along_axis(out, np.expand_dims(safe, 1), np.expand_dims(coef.astype(logits.dtype), 1), axis=1)
        return out

    def torch(self, torch, logits, loss_grad, labels, weight, total):
        safe, w = _picked_weights_torch(torch, self.name, logits, labels, weight, self.ignore_index)
        coef = -w * loss_grad
        if self.reduction == "mean":
            coef = coef / total
        return torch.zeros_like(logits).scatter_(1, safe.unsqueeze(1), coef.unsqueeze(1))

    @classmethod
    def samples(cls, rng):
        logits = rand_float(rng, (4, 3), -2.0, 0.0)
        labels = np.array([0, 2, -100, 1], np.int32)
        weight = rand_positive(rng, (3,))
        total = np.array(2.5, np.float32)
        yield Sample(logits, np.array(0.8, np.float32), labels, weight, total)
        yield Sample(logits, rand_float(rng, (4,)), labels, weight, total, attrs={"reduction": "none"}, name="none")
        yield Sample(logits, np.array(1.2, np.float32), labels, None, total, attrs={"reduction": "sum"}, name="sum")
        yield Sample(rand_float(rng, (2, 3, 2)), np.array(0.5, np.float32), np.array([[0, 2], [1, 1]], np.int64),
                     weight, total, attrs={"ignore_index": 2}, name="spatial")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, NLLLoss, formats=("MINDIR",))
not_exportable(NO_ONNX, NLLLoss, formats=("ONNX",))
not_exportable(BACKWARD, NLLLossGrad)
