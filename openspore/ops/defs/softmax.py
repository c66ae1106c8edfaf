"""Primitives: Softmax, LogSoftmax and the softmax cross-entropy losses (dense and sparse labels).

Kernels subtract the maximum before exponentiating, so large logits neither overflow nor lose precision.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, mindir, norm_bool, norm_tuple
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import (check_dtype, check_rank, check_same_dtype, check_tensor, normalize_axes, normalize_axis, prim,
                    rand_float, same_as, static_shape)


def softmax_vjp(y, dy, axes):
    """Vector-Jacobian product of softmax at output y: y * (dy - sum(dy * y)), one SoftmaxGrad kernel."""
    return prim("SoftmaxGrad", axis=tuple(axes))(y, dy)


def _np_log_softmax(np, x, axes):
    z = x - np.max(x, axis=axes, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=axes, keepdims=True))


def _torch_log_softmax(torch, x, axes):
    if len(axes) == 1:
        return torch.log_softmax(x, dim=axes[0])
    return x - torch.logsumexp(x, dim=axes, keepdim=True)


def check_labels_in_range(op, labels, classes, valid=None):
    """Kernels call this with the label array: class indices must lie in [0, classes)."""
    if valid is None and hasattr(labels, "aminmax") and labels.numel():  # torch: one reduction, not four kernels
        low, high = labels.aminmax()
        if int(low) >= 0 and int(high) < classes:
            return
    bad = (labels < 0) | (labels >= classes)
    if valid is not None:
        bad = bad & valid
    if bool(bad.any()):
        raise ValueError(f"For '{op}', every label must be in [0, {classes}), but got {labels[bad][0].item()}.")


@register
class SoftmaxGrad(Primitive):
    """SoftmaxGrad(axis=-1)(y, dy) = y * (dy - sum(dy * y, axis)): the backward of Softmax at its output y, as
    one kernel (four elementwise passes otherwise)."""
    attr_defaults = {"axis": -1}
    input_names = ("y", "dy")

    def _axes(self, ndim):
        return normalize_axes(self.name, self.axis if isinstance(self.axis, (list, tuple)) else (self.axis,), ndim)

    def infer(self, y, dy):
        check_tensor(self.name, "y", y)
        check_tensor(self.name, "dy", dy)
        check_dtype(self.name, "y", y, ("float",))
        check_same_dtype(self.name, self.input_names, y, dy)
        if tuple(y.shape) != tuple(dy.shape):
            raise ValueError(f"For '{self.name}', 'y' and 'dy' must have one shape, but got {list(y.shape)} and "
                             f"{list(dy.shape)}.")
        self._axes(len(y.shape))
        return same_as(y)

    def bprop(self, y, dy, out, dout):
        # dx = y*dy - y*s with s = Σ dy*y:  ∂/∂y = a*(dy - s) - dy*t,  ∂/∂dy = y*(a - t),  t = Σ a*y
        mul, sub, total = prim("Mul"), prim("Sub"), prim("ReduceSum", keep_dims=True)
        axes = self._axes(len(y.shape))
        s, t = total(mul(dy, y), axes), total(mul(dout, y), axes)
        return sub(mul(dout, sub(dy, s)), mul(dy, t)), mul(y, sub(dout, t))

    def numpy(self, np, y, dy):
        axes = self._axes(y.ndim)
        return (y * (dy - np.sum(dy * y, axis=axes, keepdims=True))).astype(y.dtype, copy=False)

    def torch(self, torch, y, dy):
        axes = self._axes(y.ndim)
        if len(axes) == 1:
            return torch._softmax_backward_data(dy, y, axes[0], y.dtype)
        return y * (dy - (dy * y).sum(dim=axes, keepdim=True))

    @classmethod
    def samples(cls, rng):
        for shape, axis in (((3, 5), -1), ((2, 3, 4), 1), ((2, 3, 2), (0, 2))):
            x = rand_float(rng, shape, -2.0, 2.0)
            axes = axis if isinstance(axis, tuple) else (axis,)
            e = np.exp(x - x.max(axis=axes, keepdims=True))
            yield Sample((e / e.sum(axis=axes, keepdims=True)).astype(np.float32), rand_float(rng, shape),
                         attrs={"axis": axis}, name=f"axis{axis}")


@register
class Softmax(Primitive):
    """Softmax(axis=-1)(x): exp(x) / sum(exp(x)) along `axis` (an int or a tuple of ints)."""
    attr_defaults = {"axis": -1}
    input_names = ("x",)

    def _axes(self, ndim):
        return normalize_axes(self.name, self.axis if isinstance(self.axis, (list, tuple)) else (self.axis,), ndim)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("float",))
        self._axes(len(x.shape))
        return same_as(x)

    def bprop(self, x, out, dout):
        return (softmax_vjp(out, dout, self._axes(len(x.shape))),)

    def numpy(self, np, x):
        axes = self._axes(x.ndim)
        e = np.exp(x - np.max(x, axis=axes, keepdims=True))
        return (e / np.sum(e, axis=axes, keepdims=True)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        axes = self._axes(x.ndim)
        if len(axes) == 1:
            return torch.softmax(x, dim=axes[0])
        return torch.exp(_torch_log_softmax(torch, x, axes))

    def torch_bind(self, torch, inputs, first_only):
        """For a fixed rank and one axis: torch.softmax over the axis normalised once."""
        shape = static_shape(inputs[0])
        if shape is None or first_only:
            return None
        axes = self._axes(len(shape))
        if len(axes) != 1:
            return None
        softmax, dim = torch.softmax, axes[0]
        return lambda x: softmax(x, dim)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 5), -3.0, 3.0))
        yield Sample(rand_float(rng, (2, 3, 4), -3.0, 3.0), attrs={"axis": 1})
        yield Sample(rand_float(rng, (2, 3, 2), -3.0, 3.0), attrs={"axis": (0, 2)}, name="tuple")
        yield Sample(np.array([[1000.0, 999.0, -1000.0]], np.float32), grad=(), name="large")


@register
class LogSoftmax(Primitive):
    """LogSoftmax(axis=-1)(logits) = logits - log(sum(exp(logits))) along `axis`."""
    attr_defaults = {"axis": -1}
    input_names = ("logits",)

    def infer(self, x):
        check_tensor(self.name, "logits", x)
        check_dtype(self.name, "logits", x, ("float",))
        normalize_axis(self.name, self.axis, len(x.shape))
        return same_as(x)

    def bprop(self, x, out, dout):
        axis = normalize_axis(self.name, self.axis, len(x.shape))
        total = prim("ReduceSum", keep_dims=True)(dout, (axis,))
        return (prim("Sub")(dout, prim("Mul")(Softmax(axis=axis)(x), total)),)

    def numpy(self, np, x):
        return _np_log_softmax(np, x, (normalize_axis(self.name, self.axis, x.ndim),)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.log_softmax(x, dim=normalize_axis(self.name, self.axis, x.ndim))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 5), -3.0, 3.0))
        yield Sample(rand_float(rng, (2, 3, 4), -3.0, 3.0), attrs={"axis": 0})
        yield Sample(np.array([[1000.0, 999.0, -1000.0]], np.float32), grad=(), name="large")


def _check_logits(op, logits):
    check_tensor(op, "logits", logits)
    check_dtype(op, "logits", logits, ("float",))
    check_rank(op, "logits", logits, 2)


@register
class SoftmaxCrossEntropyWithLogits(Primitive):
    """SoftmaxCrossEntropyWithLogits()(logits, labels) -> (loss, backprop) for (N, C) logits and dense labels.

    loss[n] = -sum_c labels[n, c] * log_softmax(logits)[n, c]; backprop = softmax(logits) - labels.
    """
    input_names = ("logits", "labels")

    def infer(self, logits, labels):
        _check_logits(self.name, logits)
        check_tensor(self.name, "labels", labels)
        check_same_dtype(self.name, self.input_names, logits, labels)
        if tuple(labels.shape) != tuple(logits.shape):
            raise ValueError(f"For '{self.name}', the shape of 'labels' must be the same as 'logits', but got "
                             f"{list(labels.shape)} and {list(logits.shape)}.")
        return AbstractTensor(logits.shape[:1], logits.dtype), same_as(logits)

    def bprop(self, logits, labels, out, dout):
        mul, sub = prim("Mul"), prim("Sub")
        dloss, dback = dout
        rows = prim("Reshape")(dloss, (logits.shape[0], 1))
        probs = Softmax(axis=-1)(logits)
        label_mass = prim("ReduceSum", keep_dims=True)(labels, (1,))
        dlogits = prim("Add")(mul(rows, sub(mul(probs, label_mass), labels)), softmax_vjp(probs, dback, (1,)))
        dlabels = sub(prim("Neg")(mul(rows, LogSoftmax(axis=-1)(logits))), dback)
        return dlogits, dlabels

    def numpy(self, np, logits, labels):
        lsm = _np_log_softmax(np, logits, (1,))
        loss = -np.sum(labels * lsm, axis=1)
        return loss.astype(logits.dtype, copy=False), (np.exp(lsm) - labels).astype(logits.dtype, copy=False)

    def torch(self, torch, logits, labels):
        lsm = torch.log_softmax(logits, dim=1)
        return -(labels * lsm).sum(dim=1), torch.exp(lsm) - labels

    @classmethod
    def samples(cls, rng):
        logits = rand_float(rng, (3, 4), -2.0, 2.0)
        onehot = np.eye(4, dtype=np.float32)[[0, 3, 1]]
        yield Sample(logits, onehot)
        yield Sample(rand_float(rng, (2, 5), -2.0, 2.0), rand_float(rng, (2, 5), 0.0, 1.0), name="soft")


@register
class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels) with class-index labels.

    logits (N, C) with labels (N,), or more generally logits (..., C) with labels of shape logits.shape[:-1]
    (MindSpore 2.10 takes any rank >= 2: every leading position is one row). is_grad=False: the mean loss over the
    rows (a scalar); is_grad=True: its gradient (softmax(logits) - one_hot(labels)) / rows.
    """
    attr_defaults = {"is_grad": False}
    input_names = ("logits", "labels")

    def infer(self, logits, labels):
        check_tensor(self.name, "logits", logits)
        check_dtype(self.name, "logits", logits, ("float",))
        check_tensor(self.name, "labels", labels)
        check_dtype(self.name, "labels", labels, ("int", "uint"))
        if len(logits.shape) < 2:
            raise ValueError(f"For '{self.name}', 'logits' must have rank 2 or more (..., C), but got shape "
                             f"{list(logits.shape)}.")
        if tuple(labels.shape) != tuple(logits.shape[:-1]):
            raise ValueError(f"For '{self.name}', the shape of 'labels' must be {list(logits.shape[:-1])} ('logits' "
                             f"{list(logits.shape)} without its class axis), but got {list(labels.shape)}.")
        if self.is_grad:
            return same_as(logits)
        return AbstractTensor((), logits.dtype)

    def bprop(self, logits, labels, out, dout):
        if not self.is_grad:
            return prim("Mul")(SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(logits, labels), dout), None
        probs = Softmax(axis=-1)(logits)
        rows = int(np.prod(logits.shape[:-1]))
        return prim("Mul")(softmax_vjp(probs, dout, (len(logits.shape) - 1,)), 1.0 / rows), None

    def numpy(self, np, logits, labels):
        c = logits.shape[-1]
        flat, flat_labels = logits.reshape(-1, c), labels.reshape(-1)
        n = flat.shape[0]
        check_labels_in_range(self.name, flat_labels, c)
        lsm = _np_log_softmax(np, flat, (1,))
        rows = np.arange(n)
        if self.is_grad:
            grad = np.exp(lsm)
            grad[rows, flat_labels] -= 1
            return (grad / n).reshape(logits.shape).astype(logits.dtype, copy=False)
        return np.asarray(-np.mean(lsm[rows, flat_labels]), dtype=logits.dtype)

    def torch(self, torch, logits, labels):
        c = logits.shape[-1]
        flat, flat_labels = logits.reshape(-1, c), labels.reshape(-1)
        n = flat.shape[0]
        check_labels_in_range(self.name, flat_labels, c)
        idx = flat_labels.long().unsqueeze(1)
        if self.is_grad:
            # one softmax pass, then in place: subtract the one-hot, scale by 1/rows
            grad = torch.softmax(flat, dim=1)
            grad.scatter_add_(1, idx, torch.full(idx.shape, -1.0, dtype=grad.dtype, device=grad.device))
            return grad.div_(n).reshape(logits.shape)
        return torch.nn.functional.cross_entropy(flat, idx.squeeze(1))

    @classmethod
    def samples(cls, rng):
        logits = rand_float(rng, (4, 3), -2.0, 2.0)
        labels = np.array([0, 2, 1, 2], np.int32)
        yield Sample(logits, labels)
        yield Sample(logits, labels.astype(np.int64), attrs={"is_grad": True}, name="is_grad")
        yield Sample(rand_float(rng, (2, 2, 3), -2.0, 2.0), np.array([[0, 2], [1, 1]], np.int32), name="rank3")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(BACKWARD, SoftmaxGrad)
not_exportable(NO_MINDIR, SoftmaxCrossEntropyWithLogits, formats=("MINDIR",))
not_exportable(NO_ONNX, SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(Softmax, attrs=[Arg("axis", -1, norm_tuple)], axis_as_tuple=True)
mindir(LogSoftmax, attrs=[Arg("axis", -1, norm_tuple)])
# Training-step graphs (an exported TrainOneStepCell, what `converter_lite --trainModel=true` reads) hold it.
mindir(SparseSoftmaxCrossEntropyWithLogits, inputs=("features", "labels"), attrs=[Arg("is_grad", False, norm_bool)])

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Softmax, _onnx.softmax("Softmax"))
_onnx.declare(LogSoftmax, _onnx.softmax("LogSoftmax"))
