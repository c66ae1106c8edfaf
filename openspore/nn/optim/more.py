"""Optimizers whose update is a few element-wise ops per parameter, written with `ops` and `ops.assign`:
ASGD, Adadelta, AdaMax, Rprop, ProximalAdagrad, FTRL; LazyAdam and AdamOffload (Adam with dense gradients);
LARS (layer-wise trust ratio around another optimizer).

>>> import numpy as np, openspore as ms
>>> w = ms.Parameter(ms.Tensor(np.array([1.0, -2.0], np.float32)), name="w")
>>> opt = AdaMax([w], learning_rate=0.1)
>>> _ = opt((ms.Tensor(np.array([0.5, -0.5], np.float32)),))
>>> [round(v, 4) for v in w.asnumpy().tolist()]
[0.9, -1.9]
"""
from ... import ops
from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..dynamic_lr import _check_bool, _check_float
from .adam import Adam
from .optimizer import Optimizer

__all__ = ["ASGD", "Adadelta", "AdaMax", "Rprop", "ProximalAdagrad", "FTRL", "LazyAdam", "AdamOffload", "LARS"]


def _scalar(value, name):
    return Parameter(Tensor(value, mstype.float32), name=name, requires_grad=False)


class ASGD(Optimizer):
    """`ASGD(params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0)`: averaged SGD.

    param = param * (1 - lambd * eta) - eta * g; ax += mu * (param - ax) (ax = param while mu == 1); then, with t
    the step number, eta = lr / (1 + lambd * lr * t) ** alpha and mu = 1 / max(1, t - t0). State: `eta.<p>`,
    `mu.<p>` (scalars), `ax.<p>` (the running average of the parameter).
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = _check_float(self.cls_name, "lambd", lambd)
        self.alpha = _check_float(self.cls_name, "alpha", alpha)
        self.t0 = _check_float(self.cls_name, "t0", t0)
        self.eta = [_scalar(rate, f"eta.{p.name}") for p, rate in zip(self._parameters, self._initial_lrs(0.1))]
        self.mu = [_scalar(1.0, f"mu.{p.name}") for p in self._parameters]
        self.ax = self._parameters.clone(prefix="ax", init="zeros")

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients)
        step = ops.cast(self.global_step, mstype.float32).reshape(())
        for param, grad, rate, eta, mu, ax in zip(self._parameters, gradients, self._lrs(lr), self.eta, self.mu,
                                                  self.ax):
            new = param * (1.0 - self.lambd * eta) - eta * grad
            ops.assign(param, new)
            ops.assign(ax, ops.select(mu == 1.0, new, ax + (new - ax) * mu))
            ops.assign(eta, rate / ops.pow(1.0 + self.lambd * rate * step, self.alpha))
            ops.assign(mu, 1.0 / ops.maximum(ops.ones_like(step), step - self.t0))
        return self._success


class Adadelta(Optimizer):
    """`Adadelta(params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0)`.

    accum = rho * accum + (1 - rho) * g^2; update = sqrt(accum_update + eps) / sqrt(accum + eps) * g;
    accum_update = rho * accum_update + (1 - rho) * update^2; param -= lr * update.
    State: `accum.<p>`, `accum_update.<p>` (zeros).
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = _check_float(self.cls_name, "rho", rho)
        if not 0.0 <= self.rho <= 1.0:
            raise ValueError(f"For 'Adadelta', 'rho' must be in [0.0, 1.0], but got {rho}.")
        self.epsilon = _check_float(self.cls_name, "epsilon", epsilon, positive=True)
        self.accum = self._parameters.clone(prefix="accum", init="zeros")
        self.accum_update = self._parameters.clone(prefix="accum_update", init="zeros")

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients)
        rho, eps = self.rho, self.epsilon
        for param, grad, rate, accum, acc_up in zip(self._parameters, gradients, self._lrs(lr), self.accum,
                                                    self.accum_update):
            new_accum = rho * accum + (1.0 - rho) * grad * grad
            update = ops.sqrt(acc_up + eps) / ops.sqrt(new_accum + eps) * grad
            ops.assign(accum, new_accum)
            ops.assign(acc_up, rho * acc_up + (1.0 - rho) * update * update)
            ops.assign(param, param - rate * update)
        return self._success


class AdaMax(Optimizer):
    """`AdaMax(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0, loss_scale=1.0)`.

    m = beta1 * m + (1 - beta1) * g; v = max(beta2 * v, |g|); param -= lr / (1 - beta1^t) * m / (v + eps).
    State: `beta1_power` (beta1^t), `moment1.<p>`, `moment2.<p>` (zeros).
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, value in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 < _check_float(self.cls_name, name, value) < 1.0:
                raise ValueError(f"For 'AdaMax', '{name}' must be in (0.0, 1.0), but got {value}.")
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.eps = _check_float(self.cls_name, "eps", eps, positive=True)
        self.beta1_power = _scalar(1.0, "beta1_power")
        self.moment1 = self._parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self._parameters.clone(prefix="moment2", init="zeros")

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients)
        power = self.beta1_power * self.beta1
        ops.assign(self.beta1_power, power)
        for param, grad, rate, m, v in zip(self._parameters, gradients, self._lrs(lr), self.moment1, self.moment2):
            new_m = self.beta1 * m + (1.0 - self.beta1) * grad
            new_v = ops.maximum(self.beta2 * v, ops.abs(grad))
            ops.assign(m, new_m)
            ops.assign(v, new_v)
            ops.assign(param, param - rate / (1.0 - power) * new_m / (new_v + self.eps))
        return self._success


class Rprop(Optimizer):
    """`Rprop(params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.), weight_decay=0.)`: resilient
    back-propagation. Per element: where g * prev > 0 the step grows by etaplus (at most step_sizes[1]), where
    it is < 0 the step shrinks by etaminus (at least step_sizes[0]) and g counts as 0; param -= sign(g) * step;
    prev = g. State: `prev.<p>` (zeros), `step_size.<p>` (the learning rate).
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.), weight_decay=0.):
        super().__init__(learning_rate, params, weight_decay)
        for name, value in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(value, tuple):
                raise TypeError(f"For 'Rprop', '{name}' must be a tuple, but got {type(value).__name__}.")
        if len(etas) != 2 or not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"For 'Rprop', 'etas' must be (etaminus, etaplus) with 0 < etaminus < 1 < etaplus, but "
                             f"got {etas!r}.")
        if len(step_sizes) != 2 or not 0.0 <= step_sizes[0] <= step_sizes[1]:
            raise ValueError(f"For 'Rprop', 'step_sizes' must be (min, max) with 0 <= min <= max, got {step_sizes!r}.")
        self.etaminus, self.etaplus = float(etas[0]), float(etas[1])
        self.step_min, self.step_max = float(step_sizes[0]), float(step_sizes[1])
        self.prev = self._parameters.clone(prefix="prev", init="zeros")
        self.step_size = self._parameters.clone(prefix="step_size", init="zeros")
        for step, rate in zip(self.step_size, self._initial_lrs(0.1)):  # each starts at its group's rate
            step.set_data(ops.fill(step.dtype, step.shape, rate))

    def construct(self, gradients):
        gradients, _ = self._begin_step(gradients)
        for param, grad, prev, step in zip(self._parameters, gradients, self.prev, self.step_size):
            sign = ops.sign(grad * prev)
            factor = ops.select(sign > 0, ops.fill(grad.dtype, grad.shape, self.etaplus),
                                ops.select(sign < 0, ops.fill(grad.dtype, grad.shape, self.etaminus),
                                           ops.ones_like(grad)))
            new_step = ops.clip_by_value(step * factor, self.step_min, self.step_max)
            grad = ops.select(sign < 0, ops.zeros_like(grad), grad)
            ops.assign(step, new_step)
            ops.assign(param, param - ops.sign(grad) * new_step)
            ops.assign(prev, grad)
        return self._success


class ProximalAdagrad(Optimizer):
    """`ProximalAdagrad(params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
    weight_decay=0.0)`: accum += g^2; v = param - lr * g / sqrt(accum);
    param = sign(v) / (1 + lr * l2) * max(|v| - lr * l1, 0). State: `accum.<p>`, initialised to `accum`.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        initial = _check_float(self.cls_name, "accum", accum)
        self.l1, self.l2 = _check_float(self.cls_name, "l1", l1), _check_float(self.cls_name, "l2", l2)
        _check_bool(self.cls_name, "use_locking", use_locking)
        self.accum = self._parameters.clone(prefix="accum", init=initial)

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients)
        for param, grad, rate, accum in zip(self._parameters, gradients, self._lrs(lr), self.accum):
            new_accum = accum + grad * grad
            v = param - rate * grad / ops.sqrt(new_accum)
            shrunk = ops.maximum(ops.abs(v) - rate * self.l1, ops.zeros_like(v))
            ops.assign(accum, new_accum)
            ops.assign(param, ops.sign(v) / (1.0 + rate * self.l2) * shrunk)
        return self._success


class FTRL(Optimizer):
    """`FTRL(params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0, use_locking=False,
    loss_scale=1.0, weight_decay=0.0)`: follow-the-regularized-leader (proximal).

    n = accum + g^2; linear += g - (n^-p - accum^-p) / lr * param; accum = n (p = lr_power);
    param = (sign(linear) * l1 - linear) / (n^-p / lr + 2 * l2) where |linear| > l1, else 0.
    State: `moments.<p>` (the accumulator, `initial_accum`), `linear.<p>` (zeros).
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(lr_power, bool) or not isinstance(lr_power, float):
            raise TypeError(f"For 'FTRL', 'lr_power' must be a float, but got {type(lr_power).__name__}.")
        self.lr_power = lr_power
        if self.lr_power > 0:
            raise ValueError(f"For 'FTRL', 'lr_power' must be <= 0, but got {lr_power}.")
        self.l1, self.l2 = _check_float(self.cls_name, "l1", l1), _check_float(self.cls_name, "l2", l2)
        _check_bool(self.cls_name, "use_locking", use_locking)
        self.moments = self._parameters.clone(prefix="moments", init=_check_float(self.cls_name, "initial_accum",
                                                                                   initial_accum))
        self.linear = self._parameters.clone(prefix="linear", init="zeros")

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients)
        p = -self.lr_power
        for param, grad, rate, accum, linear in zip(self._parameters, gradients, self._lrs(lr), self.moments,
                                                    self.linear):
            n = accum + grad * grad
            new_linear = linear + grad - (ops.pow(n, p) - ops.pow(accum, p)) / rate * param
            quadratic = ops.pow(n, p) / rate + 2.0 * self.l2
            value = (ops.sign(new_linear) * self.l1 - new_linear) / quadratic
            ops.assign(param, ops.select(ops.abs(new_linear) > self.l1, value, ops.zeros_like(value)))
            ops.assign(linear, new_linear)
            ops.assign(accum, n)
        return self._success


class LazyAdam(Adam):
    """`LazyAdam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0)`: Adam that updates only the rows a sparse gradient
    touches; gradients here are dense, so every row is touched and the update is Adam's."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale, use_lazy=True)


class AdamOffload(Adam):
    """`AdamOffload(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0)`: Adam whose update MindSpore runs on the host to save
    device memory; the arithmetic is Adam's."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale, use_offload=True)


def _lars_default_filter(param):
    return "LayerNorm" not in param.name and "bias" not in param.name


class LARS(Optimizer):
    """`LARS(optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False, lars_filter=...)`: layer-wise adaptive
    rate scaling around `optimizer`. For each parameter the filter accepts (by default not LayerNorm, not bias):
    g = (g + wd * w) * trust with trust = coefficient * ||w|| / (||g|| + wd * ||w|| + epsilon) (1 when a norm is
    0; with use_clip, min(trust / lr, 1)); the inner optimizer then steps without its own weight decay.
    """

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False, lars_filter=_lars_default_filter):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'LARS', 'optimizer' must be an Optimizer, but got {type(optimizer).__name__}.")
        super().__init__(0.0, optimizer.parameters)
        self.opt = optimizer
        self.epsilon = _check_float(self.cls_name, "epsilon", epsilon, positive=True)
        self.coefficient = _check_float(self.cls_name, "coefficient", coefficient)
        self.use_clip = _check_bool(self.cls_name, "use_clip", use_clip)
        self.lars_flags = tuple(bool(lars_filter(p)) for p in optimizer.parameters)
        self.inner_decays = optimizer._weight_decays()
        self.inner_flags = optimizer.decay_flags
        optimizer.exec_weight_decay = False  # LARS adds the decay itself, inside the trust ratio

    def construct(self, gradients):
        lr = self.opt.get_lr()
        lrs = self.opt._lrs(lr)
        out = []
        for param, grad, flag, wd, dflag, rate in zip(self.opt.parameters, gradients, self.lars_flags,
                                                      self.inner_decays, self.inner_flags, lrs):
            if flag:
                wd = wd if dflag else 0.0
                w_norm, g_norm = ops.norm(param), ops.norm(grad)
                trust = self.coefficient * w_norm / (g_norm + wd * w_norm + self.epsilon)
                trust = ops.select((w_norm > 0) & (g_norm > 0), trust, ops.ones_like(trust))
                if self.use_clip:
                    trust = ops.minimum(trust / rate, ops.ones_like(trust))
                grad = (grad + wd * param) * trust
            out.append(grad)
        return self.opt(tuple(out))
