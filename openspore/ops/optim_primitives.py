"""MindSpore's optimizer-update Primitive classes that openspore computes as composites: each reads the current
Parameters, computes the documented update with ordinary ops, assigns the new values in place (`ops.assign`, so
the update is a side effect in Graph mode too) and returns them as MindSpore does. (ApplyFtrl, in
optim_primitives_fused.py, follows the documented FTRL-proximal formula; MindSpore 2.10's CPU kernel departs
from it for negative `linear` when l1 > 0.)

>>> import numpy as np, openspore as ms
>>> var = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="var")
>>> _ = ms.ops.ApplyGradientDescent()(var, 0.5, ms.Tensor([2.0, 2.0]))
>>> var.asnumpy().tolist()
[0.0, 1.0]
"""
from ..core.parameter import Parameter
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive


def _set(*pairs):
    """Assign each (parameter, value) and return the new values (one tensor alone, else a tuple)."""
    out = tuple(F.assign(p, v) if isinstance(p, Parameter) else v for p, v in pairs)
    return out[0] if len(out) == 1 else out


def _shrink(prox, alpha_l1, denom):
    """sign(prox) · max(|prox| − alpha·l1, 0) / denom: the proximal step of an l1 + l2 penalty."""
    return F.sign(prox) * F.maximum(F.abs(prox) - alpha_l1, 0.0) / denom


def _gradient_descent(self, var, alpha, delta):
    return _set((var, var - alpha * delta))


def _proximal_gradient_descent(self, var, alpha, l1, l2, delta):
    return _set((var, _shrink(var - alpha * delta, alpha * l1, 1.0 + alpha * l2)))


def _adamax(self, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    m_new = beta1 * m + (1.0 - beta1) * grad
    v_new = F.maximum(beta2 * v, F.abs(grad))
    var_new = var - lr / (1.0 - beta1_power) * (m_new / (v_new + epsilon))
    return _set((var, var_new), (m, m_new), (v, v_new))


def _adadelta(self, var, accum, accum_update, lr, rho, epsilon, grad):
    accum_new = rho * accum + (1.0 - rho) * grad * grad
    update = F.sqrt(accum_update + epsilon) / F.sqrt(accum_new + epsilon) * grad
    accum_update_new = rho * accum_update + (1.0 - rho) * update * update
    return _set((var, var - lr * update), (accum, accum_new), (accum_update, accum_update_new))


def _adagrad_v2(self, var, accum, lr, grad):
    accum_new = accum + grad * grad if self.update_slots else accum
    return _set((var, var - lr * grad / (F.sqrt(accum_new) + self.epsilon)), (accum, accum_new))


def _add_sign(self, var, m, lr, alpha, sign_decay, beta, grad):
    m_new = beta * m + (1.0 - beta) * grad
    update = (alpha + sign_decay * F.sign(grad) * F.sign(m_new)) * grad
    return _set((var, var - lr * update), (m, m_new))


def _power_sign(self, var, m, lr, logbase, sign_decay, beta, grad):
    m_new = beta * m + (1.0 - beta) * grad
    update = F.exp(logbase * sign_decay * F.sign(grad) * F.sign(m_new)) * grad
    return _set((var, var - lr * update), (m, m_new))


def _proximal_adagrad(self, var, accum, lr, l1, l2, grad):
    accum_new = accum + grad * grad
    prox = var - lr * grad / F.sqrt(accum_new)
    return _set((var, _shrink(prox, lr * l1, 1.0 + lr * l2)), (accum, accum_new))


def _keras_momentum(self, var, accum, lr, grad, momentum):
    accum_new = accum * momentum - lr * grad
    step = accum_new * momentum - lr * grad if self.use_nesterov else accum_new
    return _set((var, var + step), (accum, accum_new))


def _adam_amsgrad(self, var, m, v, vhat, beta1_power, beta2_power, lr, grad):
    b1, b2 = self.beta1, self.beta2
    m_new = b1 * m + (1.0 - b1) * grad
    v_new = b2 * v + (1.0 - b2) * grad * grad
    vhat_new = F.maximum(vhat, v_new)
    lr_t = lr * F.sqrt(1.0 - beta2_power) / (1.0 - beta1_power)
    var_new = var - lr_t * m_new / (F.sqrt(vhat_new) + self.epsilon)
    return _set((var, var_new), (m, m_new), (v, v_new), (vhat, vhat_new))


ApplyGradientDescent = _primitive("ApplyGradientDescent", _gradient_descent,
                                  doc="ApplyGradientDescent()(var, alpha, delta): var −= alpha · delta.")
ApplyProximalGradientDescent = _primitive("ApplyProximalGradientDescent", _proximal_gradient_descent,
                                          doc="ApplyProximalGradientDescent()(var, alpha, l1, l2, delta).")
ApplyAdaMax = _primitive("ApplyAdaMax", _adamax,
                         doc="ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad) → (var, m, v).")
ApplyAdadelta = _primitive("ApplyAdadelta", _adadelta, attrs=[("use_locking", False)],
                           doc="ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad).")
ApplyAdagradV2 = _primitive("ApplyAdagradV2", _adagrad_v2, attrs=[("epsilon", 1e-6), ("update_slots", True)],
                            doc="ApplyAdagradV2(epsilon, update_slots=True)(var, accum, lr, grad) → (var, accum).")
ApplyAddSign = _primitive("ApplyAddSign", _add_sign,
                          doc="ApplyAddSign()(var, m, lr, alpha, sign_decay, beta, grad) → (var, m).")
ApplyPowerSign = _primitive("ApplyPowerSign", _power_sign,
                            doc="ApplyPowerSign()(var, m, lr, logbase, sign_decay, beta, grad) → (var, m).")
ApplyProximalAdagrad = _primitive("ApplyProximalAdagrad", _proximal_adagrad, attrs=[("use_locking", False)],
                                  doc="ApplyProximalAdagrad()(var, accum, lr, l1, l2, grad) → (var, accum).")
ApplyKerasMomentum = _primitive("ApplyKerasMomentum", _keras_momentum,
                                attrs=[("use_locking", False), ("use_nesterov", False)],
                                doc="ApplyKerasMomentum(use_locking, use_nesterov)(var, accum, lr, grad, momentum).")
ApplyAdamWithAmsgrad = _primitive("ApplyAdamWithAmsgrad", _adam_amsgrad,
                                  attrs=[("beta1", 0.9), ("beta2", 0.999), ("epsilon", 1e-8), ("use_locking", False)],
                                  doc="ApplyAdamWithAmsgrad(beta1, beta2, epsilon)(var, m, v, vhat, beta1_power, "
                                      "beta2_power, lr, grad) → (var, m, v, vhat).")

__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive)
