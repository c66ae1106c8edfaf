"""Fused optimizer-update Primitive classes computed as composites (the pattern of optim_primitives.py): each
reads its Parameters, computes the documented update with ordinary ops and assigns the new values in place.

>>> import numpy as np, openspore as ms
>>> var = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="var")
>>> acc = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="acc")
>>> _ = ms.ops.FusedWeightScaleApplyMomentum()(0.0, 2.0, var, acc, 0.5, ms.Tensor([2.0, 4.0]), 0.9)
>>> var.asnumpy().tolist(), acc.asnumpy().tolist()
([0.5, 1.0], [1.0, 2.0])
"""
import math

from ..common import dtype as mstype
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive
from .optim_primitives import _set


def _sqrt(x):
    return F.sqrt(x) if isinstance(x, Tensor) else math.sqrt(x)


def _adagrad_da(self, var, grad_accum, grad_sq_accum, grad, lr, l1, l2, global_step):
    acc = grad_accum + grad
    sq = grad_sq_accum + grad * grad
    step = F.cast(global_step, var.dtype) if hasattr(global_step, "dtype") else global_step
    # dual averaging: the l1 penalty shrinks the accumulated gradient by l1 per step taken
    shrunk = F.sign(acc) * F.maximum(F.abs(acc) - l1 * step, 0.0)
    new_var = -lr * shrunk / (l2 * step * lr + F.sqrt(sq))
    _set((grad_accum, acc), (grad_sq_accum, sq))
    return _set((var, new_var))


ApplyAdagradDA = _primitive(
    "ApplyAdagradDA", _adagrad_da, attrs=[("use_locking", False)],
    doc="ApplyAdagradDA()(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step): "
        "Adagrad dual averaging; accumulators += grad, grad²; var = −lr·shrink(acc, l1·step) / (l2·step·lr + "
        "√sq). Returns var.")


def _adam_moments(m, v, beta1, beta2, grad):
    m_new = beta1 * m + (1.0 - beta1) * grad
    v_new = beta2 * v + (1.0 - beta2) * grad * grad
    _set((m, m_new), (v, v_new))
    return m_new, v_new


def _adam_no_update_param(self, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
    m_new, v_new = _adam_moments(m, v, beta1, beta2, gradient)
    lr_t = lr * _sqrt(1.0 - beta2_power) / (1.0 - beta1_power)
    if self.use_nesterov:
        m_new = beta1 * m_new + (1.0 - beta1) * gradient
    return -lr_t * m_new / (F.sqrt(v_new) + epsilon)


AdamNoUpdateParam = _primitive(
    "AdamNoUpdateParam", _adam_no_update_param, attrs=[("use_locking", False), ("use_nesterov", False)],
    doc="AdamNoUpdateParam()(m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient): updates the "
        "moments m, v in place and returns the Adam step −lr_t·m/(√v + eps) to add to the parameter.")


def _fused_cast_adam_weight_decay(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm):
    grad = F.cast(gradient, mstype.float32) / global_norm  # gradients arrive in float16, scaled by the global norm
    m_new, v_new = _adam_moments(m, v, beta1, beta2, F.cast(grad, m.dtype))
    update = m_new / (F.sqrt(v_new) + epsilon) + decay * F.cast(var, m.dtype)
    return _set((var, F.cast(F.cast(var, m.dtype) - lr * update, var.dtype)))


FusedCastAdamWeightDecay = _primitive(
    "FusedCastAdamWeightDecay", _fused_cast_adam_weight_decay, attrs=[("use_locking", False)],
    doc="FusedCastAdamWeightDecay()(var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm): "
        "AdamWeightDecay on gradient / global_norm computed in float32 (var may be float16). Returns var.")


def _weight_scale_momentum(self, weight_decay, loss_scale, variable, accumulation, learning_rate, gradient, momentum):
    grad = gradient / loss_scale + weight_decay * variable
    accum = accumulation * momentum + grad
    _set((accumulation, accum))
    return _set((variable, variable - learning_rate * accum))


FusedWeightScaleApplyMomentum = _primitive(
    "FusedWeightScaleApplyMomentum", _weight_scale_momentum,
    doc="FusedWeightScaleApplyMomentum()(weight_decay, loss_scale, variable, accumulation, learning_rate, gradient, "
        "momentum): unscale the gradient, add weight decay, then a momentum step. Returns variable.")

def _ftrl(self, var, accum, linear, grad, lr, l1, l2, lr_power):
    accum_new = accum + grad * grad
    # sigma: how much the per-coordinate step size shrank this step, in FTRL-proximal's "linear" bookkeeping
    sigma = (F.pow(accum_new, -lr_power) - F.pow(accum, -lr_power)) / lr
    linear_new = linear + grad - sigma * var
    quadratic = F.pow(accum_new, -lr_power) / lr + 2.0 * l2
    var_new = F.select(F.abs(linear_new) > l1, (F.sign(linear_new) * l1 - linear_new) / quadratic,
                       F.zeros_like(var))
    _set((accum, accum_new), (linear, linear_new))
    return _set((var, var_new))


ApplyFtrl = _primitive(
    "ApplyFtrl", _ftrl, attrs=[("use_locking", False)],
    doc="ApplyFtrl(use_locking=False)(var, accum, linear, grad, lr, l1, l2, lr_power): FTRL-proximal. accum += g²; "
        "linear += g − (accum_new^−p − accum^−p)/lr · var; var = (sign(linear)·l1 − linear) / (accum_new^−p/lr + "
        "2·l2) where |linear| > l1, else 0 (p = lr_power). Returns var. This is the documented formula; MindSpore "
        "2.10's CPU kernel uses l1 − linear for negative `linear` too, so with l1 > 0 its var differs there.")


def _lars_update(self, weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate):
    trust = self.hyperpara * norm_weight / (norm_gradient + weight_decay * norm_weight + self.epsilon)
    trust = F.select((norm_weight > 0) & (norm_gradient > 0), trust, F.ones_like(trust))
    if self.use_clip:
        trust = F.minimum(trust / learning_rate, F.ones_like(trust))
    return (gradient + weight_decay * weight) * trust


LARSUpdate = _primitive(
    "LARSUpdate", _lars_update, attrs=[("epsilon", 1e-05), ("hyperpara", 0.001), ("use_clip", False)],
    doc="LARSUpdate(epsilon=1e-05, hyperpara=0.001, use_clip=False)(weight, gradient, norm_weight, norm_gradient, "
        "weight_decay, learning_rate): the LARS gradient (gradient + weight_decay·weight) · trust with trust = "
        "hyperpara·‖w‖/(‖g‖ + weight_decay·‖w‖ + epsilon), 1 when a norm is 0, min(trust/lr, 1) with use_clip. "
        "(MindSpore 2.10 has no CPU kernel for it; this is its documented computation.)")

def _rms(x):
    return F.sqrt(F.mean(x * x))


def _fused_ada_factor(self, epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, grad, param, exp_avg,
                      exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq):
    eps1, eps2 = (epsilon[0], epsilon[1]) if isinstance(epsilon, (tuple, list)) else (epsilon[0:1], epsilon[1:2])
    g = F.cast(grad, mstype.float32)
    square = g * g + eps1
    if len(param.shape) >= 2:   # factored second moment: running row and column means of g² (Adafactor §3)
        row = beta2 * exp_avg_sq_row + (1.0 - beta2) * F.mean(square, -1)
        col = beta2 * exp_avg_sq_col + (1.0 - beta2) * F.mean(square, -2)
        _set((exp_avg_sq_row, row), (exp_avg_sq_col, col))
        row_factor = row / F.mean(row, -1, keep_dims=True)
        update = g / F.sqrt(F.expand_dims(row_factor, -1) * F.expand_dims(col, -2))
    else:
        v = beta2 * exp_avg_sq + (1.0 - beta2) * square
        _set((exp_avg_sq, v))
        update = g / F.sqrt(v)
    update = update / F.maximum(_rms(update) / clip_threshold, 1.0)
    step = learning_rate * F.maximum(_rms(F.cast(param, mstype.float32)), eps2) if self.enable_scale_parameter \
        else learning_rate
    if self.enable_first_moment:   # the moving average holds the step itself (learning rate included)
        update = _set((exp_avg, beta1 * exp_avg + (1.0 - beta1) * step * update))
    else:
        update = step * update
    new = F.cast(param, mstype.float32)
    if self.enable_weight_decay:
        new = new - weight_decay * step * new
    return _set((param, F.cast(new - update, param.dtype)))


FusedAdaFactor = _primitive(
    "FusedAdaFactor", _fused_ada_factor,
    attrs=[("enable_scale_parameter", False), ("enable_first_moment", False), ("enable_weight_decay", False)],
    doc="FusedAdaFactor(enable_scale_parameter=False, enable_first_moment=False, enable_weight_decay=False)(epsilon "
        "(eps1, eps2), clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param, exp_avg, "
        "exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq): one Adafactor step. g² + eps1 feeds the row/column running "
        "means (param of rank ≥ 2) or exp_avg_sq; u = g/√v̂ clipped to RMS ≤ clip_threshold; step = lr "
        "(× max(eps2, RMS(param)) with scale_parameter); first moment: exp_avg = beta1·exp_avg + (1−beta1)·step·u "
        "is the update; weight decay subtracts weight_decay·step·param. Returns param (as MindSpore 2.10's CPU "
        "kernel computes it).")

def _fused_ada_factor_global_norm(self, epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, grad,
                                  param, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, global_norm):
    return _fused_ada_factor(self, epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate,
                             F.cast(grad, mstype.float32) / global_norm, param, exp_avg, exp_avg_sq_row,
                             exp_avg_sq_col, exp_avg_sq)


FusedAdaFactorWithGlobalNorm = _primitive(
    "FusedAdaFactorWithGlobalNorm", _fused_ada_factor_global_norm,
    attrs=[("enable_scale_parameter", False), ("enable_first_moment", False), ("enable_weight_decay", False)],
    doc="FusedAdaFactorWithGlobalNorm(...)(<FusedAdaFactor's inputs>, global_norm): FusedAdaFactor on "
        "gradient / global_norm (the running second moments see the normalised gradient). Returns param.")

__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive)
