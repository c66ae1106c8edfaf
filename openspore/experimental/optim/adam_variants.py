"""PyTorch-style `Adamax`, `NAdam` and `RAdam` (`mindspore.experimental.optim`): Adam's two moments with an
infinity-norm second moment (Adamax), Nesterov momentum (NAdam) or a variance rectification term (RAdam). Updates
follow torch.optim's (MindSpore 2.x's experimental optimizers agree with them to float32 rounding; checked
against MindSpore 2.10). Weight decay is added to the gradient by the Optimizer base.

State names follow MindSpore's checkpoints: the Int32 counter `step_t`, then `exp_avg.<p>` and `exp_inf.<p>`
(Adamax) or `exp_avg_sq.<p>` (NAdam, RAdam). NAdam's running product of momentum coefficients is one float32
Parameter per group (`mu_product_<i>`), kept out of the checkpoint as MindSpore does.
"""

from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ... import ops
from ...ops import operations as P
from ...nn.dynamic_lr import _check_bool
from ._checks import check_in_range, check_lr, check_non_negative, check_pair, check_positive
from .optimizer import Optimizer

__all__ = ["Adamax", "NAdam", "RAdam"]


def _f32(x):
    return ops.cast(x, mstype.float32)


def _check_adam_args(cls, lr, betas, eps, weight_decay):
    check_lr(cls, lr)
    betas = check_pair(cls, "betas", betas)
    for i, beta in enumerate(betas):
        check_in_range(cls, f"betas[{i}]", beta, 0.0, 1.0, "[)")
    check_positive(cls, "eps", eps)
    check_non_negative(cls, "weight_decay", weight_decay)
    return betas


class _MomentsOptimizer(Optimizer):
    """Holds `step_t` and the two moment buffers; `_advance` bumps the counter and returns it as float32."""

    def __init__(self, params, defaults, second):
        super().__init__(params, defaults)
        self.step_t = Parameter(Tensor(0, mstype.int32), name="step_t")
        self.exp_avg = self.parameters.clone(prefix="exp_avg", init="zeros")
        setattr(self, second, self.parameters.clone(prefix=second, init="zeros"))
        self.increase_tensor = Tensor(1, mstype.int32)
        self.assignadd = P.AssignAdd()

    def _advance(self):
        self.assignadd(self.step_t, self.increase_tensor)
        # Step-dependent scalars (1 - beta^t, products of momentum terms) lose digits to cancellation in float32;
        # they are computed in float64 and cast once (MindSpore's own values agree with float64 torch).
        return ops.cast(self.step_t, mstype.float64)


class Adamax(_MomentsOptimizer):
    """`Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *, maximize=False)`.

    m = b1*m + (1-b1)*g; u = max(b2*u, |g| + eps); param -= lr / (1 - b1^t) * m / u.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *, maximize=False):
        betas = _check_adam_args("Adamax", lr, betas, eps, weight_decay)
        _check_bool("Adamax", "maximize", maximize)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize),
                         "exp_inf")

    def construct(self, gradients):
        params, t = self.parameters, self._advance()
        for _k, group, start, end, grads in self._group_slices(gradients):
            beta1, beta2 = (float(b) for b in group["betas"])
            eps = float(group["eps"])
            clr = group["lr"] * _f32(1.0 / (1.0 - ops.pow(beta1, t)))
            for i, g in zip(range(start, end), grads):
                m = ops.assign(self.exp_avg[i], self.exp_avg[i] * beta1 + g * (1.0 - beta1))
                u = ops.assign(self.exp_inf[i], ops.maximum(self.exp_inf[i] * beta2, ops.abs(g) + eps))
                ops.assign(params[i], params[i] - m / u * clr)
        return True


class NAdam(_MomentsOptimizer):
    """`NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3)`.

    mu_t = b1*(1 - 0.5*0.96^(t*momentum_decay)); P_t = mu_1*...*mu_t; with m, v as Adam's and
    d = sqrt(v / (1 - b2^t)) + eps: param -= lr*(1-mu_t)/(1-P_t) * g/d + lr*mu_{t+1}/(1-P_t*mu_{t+1}) * m/d.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3):
        betas = _check_adam_args("NAdam", lr, betas, eps, weight_decay)
        check_non_negative("NAdam", "momentum_decay", momentum_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay), "exp_avg_sq")
        # Not a cell attribute: MindSpore's checkpoint of NAdam holds step_t and the moments only.
        self.__dict__["mu_product"] = [Parameter(Tensor(1.0, mstype.float64), name=f"mu_product_{k}")
                                       for k in range(len(self.param_groups))]

    def construct(self, gradients):
        params, t = self.parameters, self._advance()
        for k, group, start, end, grads in self._group_slices(gradients):
            beta1, beta2 = (float(b) for b in group["betas"])
            eps, decay, lr = float(group["eps"]), float(group["momentum_decay"]), group["lr"]
            mu = (1.0 - ops.pow(0.96, t * decay) * 0.5) * beta1
            mu_next = (1.0 - ops.pow(0.96, (t + 1.0) * decay) * 0.5) * beta1
            product = ops.assign(self.mu_product[k], self.mu_product[k] * mu)
            grad_coef = lr * _f32((1.0 - mu) / (1.0 - product))
            avg_coef = lr * _f32(mu_next / (1.0 - product * mu_next))
            correction = _f32(1.0 - ops.pow(beta2, t))
            for i, g in zip(range(start, end), grads):
                m = ops.assign(self.exp_avg[i], self.exp_avg[i] * beta1 + g * (1.0 - beta1))
                v = ops.assign(self.exp_avg_sq[i], self.exp_avg_sq[i] * beta2 + g * g * (1.0 - beta2))
                denom = ops.sqrt(v / correction) + eps
                ops.assign(params[i], params[i] - g / denom * grad_coef - m / denom * avg_coef)
        return True


class RAdam(_MomentsOptimizer):
    """`RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)`.

    rho_inf = 2/(1-b2) - 1, rho_t = rho_inf - 2*t*b2^t/(1-b2^t). While rho_t <= 5 the step is SGD with momentum,
    param -= lr * m/(1-b1^t); after, it is Adam's step times the rectification
    r = sqrt((rho_t-4)(rho_t-2)rho_inf / ((rho_inf-4)(rho_inf-2)rho_t)): param -= lr*r*m/(1-b1^t) *
    sqrt(1-b2^t)/(sqrt(v) + eps).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        betas = _check_adam_args("RAdam", lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay), "exp_avg_sq")

    def construct(self, gradients):
        params, t = self.parameters, self._advance()
        for _k, group, start, end, grads in self._group_slices(gradients):
            beta1, beta2 = (float(b) for b in group["betas"])
            eps, lr = float(group["eps"]), group["lr"]
            b2t = ops.pow(beta2, t)
            rho_inf = 2.0 / (1.0 - beta2) - 1.0
            rho_t = rho_inf - t * b2t * 2.0 / (1.0 - b2t)
            rectified = rho_t > 5.0
            # Both branches are computed (no data-dependent Python branch, so the step traces in GRAPH_MODE);
            # the clamp keeps the unused square root finite.
            safe_rho = ops.maximum(rho_t, 5.0)
            rect = _f32(ops.sqrt((safe_rho - 4.0) * (safe_rho - 2.0) * rho_inf
                                 / ((rho_inf - 4.0) * (rho_inf - 2.0) * safe_rho))) if rho_inf > 5.0 else None
            step_size = lr * _f32(1.0 / (1.0 - ops.pow(beta1, t)))
            sqrt_c2 = _f32(ops.sqrt(1.0 - b2t))
            for i, g in zip(range(start, end), grads):
                m = ops.assign(self.exp_avg[i], self.exp_avg[i] * beta1 + g * (1.0 - beta1))
                v = ops.assign(self.exp_avg_sq[i], self.exp_avg_sq[i] * beta2 + g * g * (1.0 - beta2))
                update = m * step_size
                if rect is not None:  # rho_t < rho_inf <= 5 never rectifies (betas[1] <= 0.6)
                    adaptive = update * rect * sqrt_c2 / (ops.sqrt(v) + eps)
                    update = ops.where(rectified, adaptive, update)
                ops.assign(params[i], params[i] - update)
        return True


