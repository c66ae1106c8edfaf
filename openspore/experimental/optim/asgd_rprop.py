"""PyTorch-style `ASGD` (averaged SGD) and `Rprop` (resilient backpropagation) of `mindspore.experimental.optim`.
Updates follow torch.optim's (MindSpore 2.x's experimental optimizers agree with them to float32 rounding;
checked against MindSpore 2.10).

State names follow MindSpore's checkpoints: ASGD `ax.<p>` (the running average of the parameters) and the Int32
counter `step_t`; Rprop `prev.<p>`, `step_size.<p>` and `step_t`. ASGD's eta and mu are one float32 Parameter each
per group (`eta_<i>`, `mu_<i>`), kept out of the checkpoint as MindSpore does.
"""
from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ... import ops
from ...ops import operations as P
from ...nn.dynamic_lr import _check_bool
from ._checks import check_float_type, check_in_range, check_lr, check_non_negative, check_pair
from .optimizer import Optimizer

__all__ = ["ASGD", "Rprop"]


class _Counted(Optimizer):
    def _init_counter(self):
        self.step_t = Parameter(Tensor(0, mstype.int32), name="step_t")
        self.increase_tensor = Tensor(1, mstype.int32)
        self.assignadd = P.AssignAdd()

    def _advance(self):
        self.assignadd(self.step_t, self.increase_tensor)
        return ops.cast(self.step_t, mstype.float32)


class ASGD(_Counted):
    """`ASGD(params, lr=0.01, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False)`.

    param *= 1 - lambd*eta; param -= eta*g; ax += mu*(param - ax); then eta = lr / (1 + lambd*lr*t)^alpha and
    mu = 1 / max(1, t - t0) for the next step (eta = lr and mu = 1 at the first).
    """

    def __init__(self, params, lr=0.01, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False):
        check_lr("ASGD", lr)
        check_non_negative("ASGD", "weight_decay", weight_decay)
        check_float_type("ASGD", "lambd", lambd)
        check_float_type("ASGD", "t0", t0)
        _check_bool("ASGD", "maximize", maximize)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      maximize=maximize))
        self.ax = self.parameters.clone(prefix="ax", init="zeros")
        self._init_counter()
        groups = range(len(self.param_groups))
        # Not cell attributes: MindSpore's checkpoint of ASGD holds ax and step_t only.
        self.__dict__["eta"] = [Parameter(Tensor(0.0, mstype.float32), name=f"eta_{k}") for k in groups]
        self.__dict__["mu"] = [Parameter(Tensor(1.0, mstype.float32), name=f"mu_{k}") for k in groups]

    def construct(self, gradients):
        params, t = self.parameters, self._advance()
        first = t == 1.0
        for k, group, start, end, grads in self._group_slices(gradients):
            lr, lambd, alpha = group["lr"], float(group["lambd"]), float(group["alpha"])
            # eta starts at the group's rate when the first step runs (the rate may change before it).
            eta = ops.where(first, lr, self.eta[k])
            mu = self.mu[k]
            for i, g in zip(range(start, end), grads):
                p = ops.assign(params[i], params[i] * (1.0 - eta * lambd) - g * eta)
                ops.assign(self.ax[i], self.ax[i] + (p - self.ax[i]) * mu)
            ops.assign(self.eta[k], lr / ops.pow(lr * t * lambd + 1.0, alpha))
            ops.assign(self.mu[k], 1.0 / ops.maximum(t - float(group["t0"]), 1.0))
        return True


class Rprop(_Counted):
    """`Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False)`.

    Per element, s = g*prev: the step size (lr at the first step) is multiplied by etas[1] when s > 0, by etas[0]
    when s < 0, and clipped to step_sizes; where s < 0 the gradient counts as 0 (no move, prev = 0);
    param -= sign(g)*step_size; prev = g.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False):
        check_lr("Rprop", lr)
        etas = check_pair("Rprop", "etas", etas)
        step_sizes = check_pair("Rprop", "step_sizes", step_sizes)
        check_in_range("Rprop", "etas[0]", etas[0], 0.0, 1.0, "()")
        if etas[1] <= 1.0:
            raise ValueError(f"For Rprop, the etas[1] must be greater than 1.0, but got {etas[1]}.")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"For 'Rprop', 'step_sizes' must be (min, max) with min <= max, but got {step_sizes}.")
        _check_bool("Rprop", "maximize", maximize)
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, maximize=maximize))
        self.prev = self.parameters.clone(prefix="prev", init="zeros")
        self.step_size = self.parameters.clone(prefix="step_size", init="zeros")
        self._init_counter()

    def construct(self, gradients):
        params, t = self.parameters, self._advance()
        first = t == 1.0
        for _k, group, start, end, grads in self._group_slices(gradients):
            eta_minus, eta_plus = (float(e) for e in group["etas"])
            low, high = (float(s) for s in group["step_sizes"])
            lr = group["lr"]
            for i, g in zip(range(start, end), grads):
                size = ops.where(first, ops.zeros_like(g) + lr, self.step_size[i])
                s = g * self.prev[i]
                factor = ops.where(s > 0, eta_plus, ops.where(s < 0, eta_minus, 1.0))
                size = ops.assign(self.step_size[i], ops.clamp(size * factor, low, high))
                g = ops.where(s < 0, ops.zeros_like(g), g)
                ops.assign(params[i], params[i] - ops.sign(g) * size)
                ops.assign(self.prev[i], g)
        return True
