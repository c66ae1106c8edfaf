"""`nn.Adam` (bias-corrected, optional Nesterov / AMSGrad) and `nn.AdamWeightDecay` (decoupled decay, no bias
correction). Each step is one fused primitive call per parameter."""
import numpy as np

from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ... import ops
from ...ops import operations as P
from ..dynamic_lr import _check_bool
from .optimizer import Optimizer

__all__ = ["Adam", "AdamWeightDecay"]


def _check_betas(op, beta1, beta2, eps):
    for name, value in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
        if not isinstance(value, float):
            raise TypeError(f"For '{op}', the '{name}' must be a float, but got {type(value).__name__}.")
    for name, value in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"For '{op}', the '{name}' must be in range (0.0, 1.0), but got {value}.")
    if eps <= 0.0:
        raise ValueError(f"For '{op}', the 'eps' must be greater than 0, but got {eps}.")


def _init_moment_state(opt, beta1, beta2, eps, prefix):
    """beta/eps hyper-parameters and zero first/second moments named `<prefix>_m.<p>` / `<prefix>_v.<p>`
    (AdamWeightDecay and Lamb keep the same state under different names)."""
    _check_betas(opt.cls_name, beta1, beta2, eps)
    opt.beta1 = Tensor(beta1, mstype.float32)
    opt.beta2 = Tensor(beta2, mstype.float32)
    opt.eps = Tensor(eps, mstype.float32)
    opt._hyper = _float32_values(beta1, beta2, eps)
    opt.moments1 = opt._parameters.clone(prefix=f"{prefix}_m", init="zeros")
    opt.moments2 = opt._parameters.clone(prefix=f"{prefix}_v", init="zeros")


def _float32_values(*values):
    """Hyper-parameters as Python numbers holding their float32 values: the update kernels then compute
    (1 - beta1) etc. as MindSpore does from its float32 Tensors, without a Tensor per call."""
    return tuple(float(np.float32(v)) for v in values)


class Adam(Optimizer):
    """`Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False, use_nesterov=False,
    weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs)` (kwargs `use_lazy`, `use_offload`).

    m = beta1*m + (1-beta1)*g; v = beta2*v + (1-beta2)*g^2; param -= lr*sqrt(1-beta2^t)/(1-beta1^t) * m/(sqrt(v)+eps)
    (eps is added to sqrt(v) before the bias correction of the step size). State: `beta1_power`, `beta2_power`
    (beta^t, [] Float32), `moment1.<p>`, `moment2.<p>` and, with AMSGrad, `vhat.<p>`.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise KeyError(f"For 'Adam', invalid keys are passed as kwargs, supported keys are 'use_lazy' and "
                           f"'use_offload', but got {sorted(unknown)}.")
        _check_betas(self.cls_name, beta1, beta2, eps)
        for name, value in (("use_locking", use_locking), ("use_nesterov", use_nesterov),
                            ("use_amsgrad", use_amsgrad)) + tuple(kwargs.items()):
            _check_bool(self.cls_name, name, value)
        self.use_lazy = kwargs.get("use_lazy", False)
        self.use_offload = kwargs.get("use_offload", False)
        if self.use_lazy and self.use_offload:
            raise ValueError("For 'Adam', 'use_lazy' and 'use_offload' can not both be True.")
        if use_amsgrad and (self.use_lazy or self.use_offload):
            raise ValueError("For lazy Adam and Adam with offload, there is no parameter named 'use_amsgrad'.")
        self.beta1 = Tensor(beta1, mstype.float32)
        self.beta2 = Tensor(beta2, mstype.float32)
        self.eps = Tensor(eps, mstype.float32)
        self._hyper = _float32_values(beta1, beta2, eps)
        self.use_locking, self.use_nesterov, self.use_amsgrad = use_locking, use_nesterov, use_amsgrad
        self.beta1_power = Parameter(Tensor(1.0, mstype.float32), name="beta1_power")
        self.beta2_power = Parameter(Tensor(1.0, mstype.float32), name="beta2_power")
        self.moment1 = self._parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self._parameters.clone(prefix="moment2", init="zeros")
        if use_amsgrad:
            self.vhat = self._parameters.clone(prefix="vhat", init="zeros")
            self.opt = P.ApplyAdamWithAmsgradV2(use_locking)
        else:
            self.opt = P.Adam(use_locking, use_nesterov)
            self.opt_foreach = P.ForeachAdam(use_locking, use_nesterov)

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients)
        beta1, beta2, eps = self._hyper
        ops.assign(self.beta1_power, self.beta1_power * self.beta1)
        ops.assign(self.beta2_power, self.beta2_power * self.beta2)
        b1p, b2p, opt = self.beta1_power, self.beta2_power, self.opt
        if not self.use_amsgrad and not self.is_group_lr:
            # one multi-tensor update, in PyNative and captured graphs alike; export writes MindSpore's one Adam per
            # parameter (ForeachAdam.export_decomposition)
            self.opt_foreach(tuple(self._parameters), tuple(self.moment1), tuple(self.moment2), b1p, b2p, lr,
                             beta1, beta2, eps, tuple(gradients))
        elif self.use_amsgrad:
            for param, m, v, vhat, grad, rate in zip(self._parameters, self.moment1, self.moment2, self.vhat,
                                                     gradients, self._lrs(lr)):
                opt(param, m, v, vhat, b1p, b2p, rate, beta1, beta2, eps, grad)
        else:
            for param, m, v, grad, rate in zip(self._parameters, self.moment1, self.moment2, gradients,
                                               self._lrs(lr)):
                opt(param, m, v, b1p, b2p, rate, beta1, beta2, eps, grad)
        return self._success


class AdamWeightDecay(Optimizer):
    """`AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0)`.

    m, v as Adam (no bias correction); param -= lr * (m/(sqrt(v)+eps) + weight_decay*param) for parameters whose
    decay flag is set (names without 'beta'/'gamma', or the group's weight decay). State: `adam_m.<p>`, `adam_v.<p>`.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _init_moment_state(self, beta1, beta2, eps, "adam")
        self.opt = P.AdamWeightDecay()

    def construct(self, gradients):
        self._check_gradient_count(gradients)
        lr = self.get_lr()
        decays = self._weight_decays()  # read at the step's own global_step, before it advances
        self.assignadd(self.global_step, self.global_step_increase_tensor)
        beta1, beta2, eps = self._hyper
        opt = self.opt
        for param, m, v, grad, rate, decay, flag in zip(self._parameters, self.moments1, self.moments2, gradients,
                                                        self._lrs(lr), decays, self.decay_flags):
            opt(param, m, v, rate, beta1, beta2, eps, decay if flag else 0.0, grad)
        return self._success
