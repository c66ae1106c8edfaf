"""PyTorch-style `Adadelta`, `Adagrad` and `RMSprop` (`mindspore.experimental.optim`): per-element step sizes from
running sums of squared gradients. Updates follow torch.optim's (MindSpore 2.x's experimental optimizers agree
with them to float32 rounding; checked against MindSpore 2.10). Weight decay is added to the gradient (after the
`maximize` negation) by the Optimizer base.

State names follow MindSpore's checkpoints: Adadelta `accum.<p>`, `accum_update.<p>`; Adagrad `accum.<p>` and the
Int32 counter `step_t`; RMSprop `mean_grad.<p>`, `mean_square.<p>`, `moment.<p>`.

>>> import numpy as np, openspore as ms
>>> from openspore.experimental import optim
>>> w = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")
>>> opt = optim.Adagrad([w], lr=0.1)
>>> _ = opt((ms.Tensor(np.array([2.0, -0.5], np.float32)),))   # first step: lr * g / |g|
>>> w.asnumpy().astype("float64").round(4).tolist(), [p.name for p in opt.get_parameters()]
([-0.1, 0.1], ['w', 'accum.w', 'step_t'])
"""
from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ... import ops
from ...ops import operations as P
from ...nn.dynamic_lr import _check_bool
from ._checks import check_in_range, check_lr, check_non_negative, check_positive
from .optimizer import Optimizer

__all__ = ["Adadelta", "Adagrad", "RMSprop"]


class Adadelta(Optimizer):
    """`Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False)`.

    v = rho*v + (1-rho)*g^2; delta = sqrt(u + eps) / sqrt(v + eps) * g; u = rho*u + (1-rho)*delta^2;
    param -= lr*delta.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False):
        check_lr("Adadelta", lr)
        check_in_range("Adadelta", "rho", rho, 0.0, 1.0, "[]")
        check_positive("Adadelta", "eps", eps)
        check_non_negative("Adadelta", "weight_decay", weight_decay)
        _check_bool("Adadelta", "maximize", maximize)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.accum_update = self.parameters.clone(prefix="accum_update", init="zeros")

    def construct(self, gradients):
        params = self.parameters
        for _k, group, start, end, grads in self._group_slices(gradients):
            lr, rho, eps = group["lr"], float(group["rho"]), float(group["eps"])
            for i, g in zip(range(start, end), grads):
                v = ops.assign(self.accum[i], self.accum[i] * rho + g * g * (1.0 - rho))
                delta = ops.sqrt(self.accum_update[i] + eps) / ops.sqrt(v + eps) * g
                ops.assign(self.accum_update[i], self.accum_update[i] * rho + delta * delta * (1.0 - rho))
                ops.assign(params[i], params[i] - delta * lr)
        return True


class Adagrad(Optimizer):
    """`Adagrad(params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10, *,
    maximize=False)`.

    At step t: clr = lr / (1 + (t-1)*lr_decay); s += g^2; param -= clr * g / (sqrt(s) + eps).
    """

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
                 *, maximize=False):
        check_lr("Adagrad", lr)
        check_non_negative("Adagrad", "lr_decay", lr_decay)
        check_non_negative("Adagrad", "weight_decay", weight_decay)
        check_non_negative("Adagrad", "initial_accumulator_value", initial_accumulator_value)
        check_positive("Adagrad", "eps", eps)
        _check_bool("Adagrad", "maximize", maximize)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))
        self.accum = self.parameters.clone(prefix="accum", init=float(initial_accumulator_value))
        self.step_t = Parameter(Tensor(0, mstype.int32), name="step_t")
        self.increase_tensor = Tensor(1, mstype.int32)
        self.assignadd = P.AssignAdd()

    def construct(self, gradients):
        params = self.parameters
        self.assignadd(self.step_t, self.increase_tensor)
        done = ops.cast(self.step_t, mstype.float32) - 1.0
        for _k, group, start, end, grads in self._group_slices(gradients):
            clr = group["lr"] / (done * float(group["lr_decay"]) + 1.0)
            eps = float(group["eps"])
            for i, g in zip(range(start, end), grads):
                s = ops.assign(self.accum[i], self.accum[i] + g * g)
                ops.assign(params[i], params[i] - g / (ops.sqrt(s) + eps) * clr)
        return True


class RMSprop(Optimizer):
    """`RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
    maximize=False)`.

    s = alpha*s + (1-alpha)*g^2; centered: m = alpha*m + (1-alpha)*g and avg = sqrt(s - m^2) + eps, else
    avg = sqrt(s) + eps; with momentum: b = momentum*b + g/avg and param -= lr*b, else param -= lr*g/avg.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                 maximize=False):
        check_lr("RMSprop", lr)
        check_non_negative("RMSprop", "alpha", alpha)
        check_positive("RMSprop", "eps", eps)
        check_non_negative("RMSprop", "weight_decay", weight_decay)
        check_non_negative("RMSprop", "momentum", momentum)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, maximize=maximize))
        self.mean_grad = self.parameters.clone(prefix="mean_grad", init="zeros")
        self.mean_square = self.parameters.clone(prefix="mean_square", init="zeros")
        self.moment = self.parameters.clone(prefix="moment", init="zeros")

    def construct(self, gradients):
        params = self.parameters
        for _k, group, start, end, grads in self._group_slices(gradients):
            lr, alpha, eps = group["lr"], float(group["alpha"]), float(group["eps"])
            momentum, centered = float(group["momentum"]), bool(group["centered"])
            for i, g in zip(range(start, end), grads):
                s = ops.assign(self.mean_square[i], self.mean_square[i] * alpha + g * g * (1.0 - alpha))
                if centered:
                    m = ops.assign(self.mean_grad[i], self.mean_grad[i] * alpha + g * (1.0 - alpha))
                    s = s - m * m
                scaled = g / (ops.sqrt(s) + eps)
                if momentum > 0.0:
                    scaled = ops.assign(self.moment[i], self.moment[i] * momentum + scaled)
                ops.assign(params[i], params[i] - scaled * lr)
        return True
