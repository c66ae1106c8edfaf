"""Primitives: optimizer updates with a row-sparse gradient (`grad[i]` is the gradient of row `indices[i]` of
var): SparseApplyAdagrad, SparseApplyAdagradV2, SparseApplyAdadelta, SparseApplyFtrl, SparseApplyFtrlV2,
SparseApplyProximalAdagrad, SparseApplyRMSProp, FusedSparseAdam, FusedSparseLazyAdam, FusedSparseFtrl,
FusedSparseProximalAdagrad.

Only the rows named by `indices` change (FusedSparseAdam also decays every row's moments, as its dense formula
does). A row named twice gets the sum of its gradients, applied once: a sparse gradient is the sum of its slices.
Each kernel writes var and its state in place and returns those buffers (MindSpore's FusedSparse* return
placeholders instead; their buffers are what scripts read).

The update rules are written once, on arrays of the touched rows, with the functions numpy and torch share
(`sqrt`, `sign`, `abs`, `where`), so both kernels run the same formula.

>>> import numpy as np, openspore as ms
>>> var = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="var")
>>> accum = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="accum")
>>> _ = ms.ops.SparseApplyAdagrad(lr=0.5)(var, accum, ms.Tensor(np.ones((1, 2), np.float32)), ms.Tensor([1]))
>>> var.asnumpy()[:, 0].astype(float).round(4).tolist()
[1.0, 0.6464, 1.0]
"""
import numpy as np

from ...core.primitive import Primitive, Sample, register
from ._export import UPDATE, not_exportable
from ._update_util import np_num
from ._util import check_dtype, check_rank, check_tensor, rand_float, rand_positive, same_as
from .side_effect import _NONDIFF_WRITE, _check_like, _check_scalar


def _float_attr(op, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{op}', the '{name}' must be a float, but got {type(value).__name__}.")


def _bool_attr(op, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{op}', the '{name}' must be a bool, but got {type(value).__name__}.")


def _summed_rows_np(indices, grad, rows):
    unique, inverse = np.unique(indices.astype(np.int64), return_inverse=True)
    _in_range(indices, rows, unique)
    summed = np.zeros((unique.shape[0],) + grad.shape[1:], grad.dtype)
    np.add.at(summed, inverse.reshape(-1), grad)
    return unique, summed


def _summed_rows_torch(torch, indices, grad, rows):
    unique, inverse = torch.unique(indices.to(torch.int64), sorted=True, return_inverse=True)
    _in_range(indices, rows, unique)
    summed = torch.zeros((unique.shape[0],) + tuple(grad.shape[1:]), dtype=grad.dtype, device=grad.device)
    return unique, summed.index_add_(0, inverse, grad)


def _in_range(indices, rows, unique):
    if unique.shape[0] and (int(unique[0]) < 0 or int(unique[-1]) >= rows):
        bad = int(unique[0]) if int(unique[0]) < 0 else int(unique[-1])
        raise ValueError(f"The 'indices' hold {bad}, out of range [0, {rows}) of the first dimension of 'var'.")


class _SparseUpdate(Primitive):
    """Base: `state` names the in-place inputs (var first), `scalar_inputs` the scalar inputs between them and
    `grad`; the last two inputs are (grad, indices). Subclasses write `rule(xp, rows, g, s)`: new values of the
    touched rows (`rows` maps state names to row arrays, `s` maps scalar names to numbers)."""
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE
    state = ("var",)
    scalar_inputs = ()
    scalar_attrs = ()

    def check_attrs(self):
        for name in self.scalar_attrs:
            _float_attr(self.name, name, getattr(self, name))
        for name in ("use_locking", "update_slots", "use_nesterov"):
            if name in self.attr_defaults:
                _bool_attr(self.name, name, getattr(self, name))

    def infer(self, *inputs):
        state = inputs[:len(self.state)]
        scalars = inputs[len(self.state):-2]
        grad, indices = inputs[-2:]
        var = state[0]
        check_tensor(self.name, "var", var)
        check_dtype(self.name, "var", var, ("float",))
        if len(var.shape) < 1:
            raise ValueError(f"For '{self.name}', the 'var' must have at least 1 dimension, but got a scalar.")
        _check_like(self.name, self.state, *state)
        for name, value in zip(self.scalar_inputs, scalars):
            _check_scalar(self.name, name, value)
        check_tensor(self.name, "grad", grad)
        check_tensor(self.name, "indices", indices)
        if indices.dtype.kind not in ("int", "uint"):
            raise TypeError(f"For '{self.name}', the 'indices' must be an int32/int64 Tensor, but got "
                            f"Tensor[{indices.dtype}].")
        check_rank(self.name, "indices", indices, 1)
        if grad.dtype is not var.dtype:
            raise TypeError(f"For '{self.name}', the 'grad' must have the dtype of 'var' ({var.dtype}), but got "
                            f"Tensor[{grad.dtype}].")
        if tuple(grad.shape) != (indices.shape[0],) + tuple(var.shape[1:]):
            raise ValueError(f"For '{self.name}', the 'grad' must have shape [len(indices)] + var.shape[1:] = "
                             f"{[indices.shape[0]] + list(var.shape[1:])}, but got {list(grad.shape)}.")
        outs = tuple(same_as(t) for t in state)
        return outs if len(outs) > 1 else outs[0]

    def _scalars(self, values, num):
        s = {name: getattr(self, name) for name in self.scalar_attrs}
        s.update((name, num(v)) for name, v in zip(self.scalar_inputs, values))
        return s

    def numpy(self, np, *inputs):
        state, grad, indices = inputs[:len(self.state)], inputs[-2], inputs[-1]
        s = self._scalars(inputs[len(self.state):-2], lambda v: float(np_num(np, v)))
        unique, g = _summed_rows_np(indices, grad, state[0].shape[0])
        self.apply(np, dict(zip(self.state, state)), unique, g, s)
        return state if len(state) > 1 else state[0]

    def torch(self, torch, *inputs):
        state, grad, indices = inputs[:len(self.state)], inputs[-2], inputs[-1]
        s = self._scalars(inputs[len(self.state):-2], lambda v: float(v.item()) if hasattr(v, "item") else float(v))
        unique, g = _summed_rows_torch(torch, indices, grad, state[0].shape[0])
        self.apply(torch, dict(zip(self.state, state)), unique, g, s)
        return state if len(state) > 1 else state[0]

    def apply(self, xp, buffers, unique, g, s):
        rows = {name: buf[unique] for name, buf in buffers.items()}
        for name, value in self.rule(xp, rows, g, s).items():
            buffers[name][unique] = value

    @classmethod
    def _sample_arrays(cls, rng, rows=4, cols=3, duplicates=True):
        state = [rand_float(rng, (rows, cols))] + [rand_positive(rng, (rows, cols), 0.5, 1.5)
                                                   for _ in cls.state[1:]]
        indices = np.array([2, 0, 2], np.int32) if duplicates else np.array([3, 1], np.int64)
        return state, rand_float(rng, (indices.shape[0], cols)), indices


def _ftrl(xp, var, accum, linear, g, lr, l1, l2, lr_power, shrinkage=0.0):
    """FTRL-proximal on rows; `shrinkage` (FtrlV2's l2_shrinkage) adds 2*shrinkage*var to the linear term."""
    g_linear = g + 2 * shrinkage * var if shrinkage else g
    new_accum = accum + g * g
    linear = linear + g_linear - (new_accum ** -lr_power - accum ** -lr_power) / lr * var
    quadratic = new_accum ** -lr_power / lr + 2 * l2
    var = xp.where(xp.abs(linear) > l1, (xp.sign(linear) * l1 - linear) / quadratic, 0 * linear)
    return {"var": var, "accum": new_accum, "linear": linear}


def _proximal(xp, var, accum, g, lr, l1, l2):
    """Proximal Adagrad with the adapted rate lr_t = lr/sqrt(accum) in the step and in both penalties (what
    MindSpore's kernel computes; checked against its output in tests/compat/recorded/sparse_optimizers)."""
    accum = accum + g * g
    lr_t = lr / xp.sqrt(accum)
    prox = var - lr_t * g
    shrunk = xp.abs(prox) - lr_t * l1
    var = xp.sign(prox) * xp.where(shrunk > 0, shrunk, 0 * shrunk) / (1 + lr_t * l2)
    return {"var": var, "accum": accum}


# ---- Adagrad family --------------------------------------------------------------------------------
@register
class SparseApplyAdagrad(_SparseUpdate):
    """SparseApplyAdagrad(lr, update_slots=True, use_locking=False)(var, accum, grad, indices): on the rows named:
    accum += g^2 (when update_slots); var -= lr*g/sqrt(accum). Returns (var, accum)."""
    attr_defaults = {"lr": 0.01, "update_slots": True, "use_locking": False}
    input_names = ("var", "accum", "grad", "indices")
    state = ("var", "accum")
    scalar_attrs = ("lr",)

    def rule(self, xp, r, g, s):
        accum = r["accum"] + g * g if self.update_slots else r["accum"]
        return {"var": r["var"] - s["lr"] * g / xp.sqrt(accum), "accum": accum}

    @classmethod
    def samples(cls, rng):
        state, g, idx = cls._sample_arrays(rng)
        yield Sample(*state, g, idx, attrs={"lr": 0.1})
        state, g, idx = cls._sample_arrays(rng, duplicates=False)
        yield Sample(*state, g, idx, attrs={"lr": 0.5, "update_slots": False}, name="no-slot-update")


@register
class SparseApplyAdagradV2(SparseApplyAdagrad):
    """SparseApplyAdagradV2(lr, epsilon, use_locking=False, update_slots=True)(var, accum, grad, indices):
    SparseApplyAdagrad with var -= lr*g/(sqrt(accum) + epsilon). Returns (var, accum)."""
    attr_defaults = {"lr": 0.01, "epsilon": 1e-6, "use_locking": False, "update_slots": True}
    scalar_attrs = ("lr", "epsilon")

    def rule(self, xp, r, g, s):
        accum = r["accum"] + g * g if self.update_slots else r["accum"]
        return {"var": r["var"] - s["lr"] * g / (xp.sqrt(accum) + s["epsilon"]), "accum": accum}

    @classmethod
    def samples(cls, rng):
        state, g, idx = cls._sample_arrays(rng)
        yield Sample(*state, g, idx, attrs={"lr": 0.1, "epsilon": 1e-3})


@register
class SparseApplyProximalAdagrad(_SparseUpdate):
    """SparseApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices): accum += g^2;
    lr_t = lr/sqrt(accum); p = var - lr_t*g; var = sign(p)*max(|p| - lr_t*l1, 0)/(1 + lr_t*l2).
    Returns (var, accum)."""
    attr_defaults = {"use_locking": False}
    input_names = ("var", "accum", "lr", "l1", "l2", "grad", "indices")
    state = ("var", "accum")
    scalar_inputs = ("lr", "l1", "l2")

    def rule(self, xp, r, g, s):
        return _proximal(xp, r["var"], r["accum"], g, s["lr"], s["l1"], s["l2"])

    @classmethod
    def samples(cls, rng):
        state, g, idx = cls._sample_arrays(rng)
        yield Sample(*state, *(np.asarray(x, np.float32) for x in (0.1, 0.05, 0.01)), g, idx)
        state, g, idx = cls._sample_arrays(rng, duplicates=False)
        yield Sample(*state, 0.5, 0.0, 0.0, g, idx, name="python-scalars")


@register
class FusedSparseProximalAdagrad(SparseApplyProximalAdagrad):
    """FusedSparseProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices): the update of
    SparseApplyProximalAdagrad, fused. Returns (var, accum)."""


# ---- Adadelta, RMSProp --------------------------------------------------------------------------
@register
class SparseApplyAdadelta(_SparseUpdate):
    """SparseApplyAdadelta(epsilon, use_locking=False)(var, accum, accum_update, lr, rho, grad, indices):
    accum = rho*accum + (1-rho)*g^2; u = sqrt(accum_update+eps)/sqrt(accum+eps)*g;
    accum_update = rho*accum_update + (1-rho)*u^2; var -= lr*u. Returns (var, accum, accum_update)."""
    attr_defaults = {"epsilon": 1e-6, "use_locking": False}
    input_names = ("var", "accum", "accum_update", "lr", "rho", "grad", "indices")
    state = ("var", "accum", "accum_update")
    scalar_inputs = ("lr", "rho")
    scalar_attrs = ("epsilon",)

    def rule(self, xp, r, g, s):
        rho, eps = s["rho"], s["epsilon"]
        accum = rho * r["accum"] + (1 - rho) * g * g
        update = xp.sqrt(r["accum_update"] + eps) / xp.sqrt(accum + eps) * g
        accum_update = rho * r["accum_update"] + (1 - rho) * update * update
        return {"var": r["var"] - s["lr"] * update, "accum": accum, "accum_update": accum_update}

    @classmethod
    def samples(cls, rng):
        state, g, idx = cls._sample_arrays(rng)
        yield Sample(*state, np.asarray(0.5, np.float32), np.asarray(0.9, np.float32), g, idx, attrs={"epsilon": 1e-4})


@register
class SparseApplyRMSProp(_SparseUpdate):
    """SparseApplyRMSProp(rho, momentum, epsilon, use_locking=False)(var, ms, mom, lr, grad, indices):
    ms = rho*ms + (1-rho)*g^2; mom = momentum*mom + lr*g/sqrt(ms+eps); var -= mom. Returns (var, ms, mom)."""
    attr_defaults = {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-10, "use_locking": False}
    input_names = ("var", "ms", "mom", "lr", "grad", "indices")
    state = ("var", "ms", "mom")
    scalar_inputs = ("lr",)
    scalar_attrs = ("rho", "momentum", "epsilon")

    def rule(self, xp, r, g, s):
        ms = s["rho"] * r["ms"] + (1 - s["rho"]) * g * g
        mom = s["momentum"] * r["mom"] + s["lr"] * g / xp.sqrt(ms + s["epsilon"])
        return {"var": r["var"] - mom, "ms": ms, "mom": mom}

    @classmethod
    def samples(cls, rng):
        state, g, idx = cls._sample_arrays(rng)
        yield Sample(*state, np.asarray(0.01, np.float32), g, idx,
                     attrs={"rho": 0.8, "momentum": 0.5, "epsilon": 1e-6})


# ---- FTRL ----------------------------------------------------------------------------------------
@register
class SparseApplyFtrl(_SparseUpdate):
    """SparseApplyFtrl(lr, l1, l2, lr_power, use_locking=False)(var, accum, linear, grad, indices): FTRL-proximal
    on the rows named. Returns (var, accum, linear)."""
    attr_defaults = {"lr": 0.01, "l1": 0.0, "l2": 0.0, "lr_power": -0.5, "use_locking": False}
    input_names = ("var", "accum", "linear", "grad", "indices")
    state = ("var", "accum", "linear")
    scalar_attrs = ("lr", "l1", "l2", "lr_power")

    def check_attrs(self):
        super().check_attrs()
        if self.lr <= 0 or self.l1 < 0 or self.l2 < 0 or self.lr_power > 0:
            raise ValueError(f"For '{self.name}', needs lr > 0, l1 >= 0, l2 >= 0 and lr_power <= 0, but got "
                             f"lr={self.lr}, l1={self.l1}, l2={self.l2}, lr_power={self.lr_power}.")

    def rule(self, xp, r, g, s):
        return _ftrl(xp, r["var"], r["accum"], r["linear"], g, s["lr"], s["l1"], s["l2"], s["lr_power"],
                     s.get("l2_shrinkage", 0.0))

    @classmethod
    def samples(cls, rng):
        state, g, idx = cls._sample_arrays(rng)
        yield Sample(*state, g, idx, attrs={"lr": 0.1, "l1": 0.01, "l2": 0.02, "lr_power": -0.5})
        state, g, idx = cls._sample_arrays(rng, duplicates=False)
        yield Sample(*state, g, idx, attrs={"lr": 0.5, "l1": 0.3, "l2": 0.0, "lr_power": -0.7}, name="l1-cut")


@register
class FusedSparseFtrl(SparseApplyFtrl):
    """FusedSparseFtrl(lr, l1, l2, lr_power, use_locking=False)(var, accum, linear, grad, indices): the update of
    SparseApplyFtrl, fused. Returns (var, accum, linear)."""


@register
class SparseApplyFtrlV2(SparseApplyFtrl):
    """SparseApplyFtrlV2(lr, l1, l2, l2_shrinkage, lr_power, use_locking=False)(var, accum, linear, grad,
    indices): FTRL whose linear term sees g + 2*l2_shrinkage*var. Returns (var, accum, linear)."""
    attr_defaults = {"lr": 0.01, "l1": 0.0, "l2": 0.0, "l2_shrinkage": 0.0, "lr_power": -0.5,
                     "use_locking": False}
    scalar_attrs = ("lr", "l1", "l2", "l2_shrinkage", "lr_power")

    @classmethod
    def samples(cls, rng):
        state, g, idx = cls._sample_arrays(rng)
        yield Sample(*state, g, idx, attrs={"lr": 0.1, "l1": 0.01, "l2": 0.02, "l2_shrinkage": 0.05,
                                            "lr_power": -0.5})


# ---- Adam ----------------------------------------------------------------------------------------
@register
class FusedSparseLazyAdam(_SparseUpdate):
    """FusedSparseLazyAdam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr, beta1,
    beta2, epsilon, grad, indices): Adam on the rows named only (the others keep var, m and v):
    lr_t = lr*sqrt(1-beta2_power)/(1-beta1_power); var -= lr_t*m/(sqrt(v)+eps). Returns (var, m, v)."""
    attr_defaults = {"use_locking": False, "use_nesterov": False}
    input_names = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad",
                   "indices")
    state = ("var", "m", "v")
    scalar_inputs = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")

    def _step(self, xp, var, m, v, g, s):
        b1 = s["beta1"]
        lr_t = s["lr"] * (1 - s["beta2_power"]) ** 0.5 / (1 - s["beta1_power"])
        numerator = b1 * m + (1 - b1) * g if self.use_nesterov else m
        return var - lr_t * numerator / (xp.sqrt(v) + s["epsilon"])

    def rule(self, xp, r, g, s):
        m = s["beta1"] * r["m"] + (1 - s["beta1"]) * g
        v = s["beta2"] * r["v"] + (1 - s["beta2"]) * g * g
        return {"var": self._step(xp, r["var"], m, v, g, s), "m": m, "v": v}

    @classmethod
    def samples(cls, rng):
        state, g, idx = cls._sample_arrays(rng)
        scalars = [np.asarray(x, np.float32) for x in (0.9 ** 2, 0.999 ** 2, 0.01, 0.9, 0.999, 1e-8)]
        yield Sample(*state, *scalars, g, idx)
        state, g, idx = cls._sample_arrays(rng, duplicates=False)
        yield Sample(*state, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-6, g, idx, attrs={"use_nesterov": True},
                     name="nesterov")


@register
class FusedSparseAdam(FusedSparseLazyAdam):
    """FusedSparseAdam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr, beta1,
    beta2, epsilon, grad, indices): dense Adam with a row-sparse gradient: every row's m and v decay
    (m = beta1*m + (1-beta1)*g with g zero off the rows named) and every row of var moves. Returns (var, m, v)."""

    def apply(self, xp, buffers, unique, g, s):
        var, m, v = buffers["var"], buffers["m"], buffers["v"]
        dense_g = 0 * var
        dense_g[unique] = g
        m *= s["beta1"]
        m += (1 - s["beta1"]) * dense_g
        v *= s["beta2"]
        v += (1 - s["beta2"]) * dense_g * dense_g
        var[...] = self._step(xp, var, m, v, dense_g, s)


# ---- export marks (see _export.py) --------------------------------------------------------------
not_exportable(UPDATE, SparseApplyAdagrad, SparseApplyAdagradV2, SparseApplyProximalAdagrad,
               FusedSparseProximalAdagrad, SparseApplyAdadelta, SparseApplyRMSProp, SparseApplyFtrl, FusedSparseFtrl,
               SparseApplyFtrlV2, FusedSparseLazyAdam, FusedSparseAdam)
