"""PyTorch-style `Adam` and `AdamW` (`mindspore.experimental.optim`), one fused primitive call per parameter.

`Adam` adds weight decay to the gradient and steps like MindSpore's `Adam` primitive (eps next to sqrt(v),
bias correction folded into the step size); `AdamW` decays the weights directly (param *= 1 - lr*weight_decay)
and steps like torch.optim.AdamW (eps added after the bias correction of sqrt(v)).
State: `exp_avg.<p>`, `exp_avg_sq.<p>`, `max_exp_avg_sq.<p>` and the Int32 step counter `state_step`.
"""

from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ... import ops
from ...ops import operations as P
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


def _check(lr, betas, eps, weight_decay):
    if not isinstance(lr, Tensor) and lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class _AdamBase(Optimizer):
    def __init__(self, params, lr, betas, eps, weight_decay, amsgrad, maximize):
        _check(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))
        self.exp_avg = self.parameters.clone(prefix="exp_avg", init="zeros")
        self.exp_avg_sq = self.parameters.clone(prefix="exp_avg_sq", init="zeros")
        self.max_exp_avg_sq = self.parameters.clone(prefix="max_exp_avg_sq", init="zeros")
        self.state_step = Parameter(Tensor(0, mstype.int32), name="state_step")
        self.increase_tensor = Tensor(1, mstype.int32)
        self.assignadd = P.AssignAdd()
        self.adam_opt = P.Adam(False, False)
        self.amsgrad_opt = P.ApplyAdamWithAmsgradV2()

    def _step(self, gradients):
        """Advance the step and yield, per group, what the Adam primitives need."""
        self.assignadd(self.state_step, self.increase_tensor)
        for _k, group, start, end, grads in self._group_slices(gradients):
            beta1, beta2 = (float(b) for b in group["betas"])
            b1p, b2p = ops.pow(beta1, self.state_step), ops.pow(beta2, self.state_step)
            yield group, start, end, grads, (beta1, beta2, float(group["eps"])), b1p, b2p

    def _apply(self, group, start, end, grads, b1p, b2p, beta1, beta2, eps):
        lr, params = group["lr"], self.parameters
        if group["amsgrad"]:
            for i, g in zip(range(start, end), grads):
                self.amsgrad_opt(params[i], self.exp_avg[i], self.exp_avg_sq[i], self.max_exp_avg_sq[i], b1p, b2p,
                                 lr, beta1, beta2, eps, g)
        else:
            for i, g in zip(range(start, end), grads):
                self.adam_opt(params[i], self.exp_avg[i], self.exp_avg_sq[i], b1p, b2p, lr, beta1, beta2, eps, g)


class Adam(_AdamBase):
    """`Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *, maximize=False)`."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    def construct(self, gradients):
        for group, start, end, grads, (beta1, beta2, eps), b1p, b2p in self._step(gradients):
            self._apply(group, start, end, grads, b1p, b2p, beta1, beta2, eps)
        return True


class AdamW(_AdamBase):
    """`AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *, maximize=False)`.

    torch's AdamW: param *= 1 - lr*wd; param -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps), computed as the
    Adam primitive's step with eps*sqrt(1-b2^t) in place of eps (the same number).
    """
    _l2_decay = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    def construct(self, gradients):
        params = self.parameters
        for group, start, end, grads, (beta1, beta2, eps), b1p, b2p in self._step(gradients):
            if group["weight_decay"] != 0:
                keep = 1.0 - group["lr"] * group["weight_decay"]
                for i in range(start, end):
                    p = params[i]
                    ops.assign(p, p * (keep if p.dtype is keep.dtype else ops.cast(keep, p.dtype)))
            scaled_eps = ops.sqrt(1.0 - b2p) * eps if eps else eps
            self._apply(group, start, end, grads, b1p, b2p, beta1, beta2, scaled_eps)
        return True


