"""`AdaFactor`: the Adafactor optimizer (Shazeer & Stern 2018) — second moments kept as row and column means for
matrices, updates clipped by their RMS, and by default a relative step size — one `ops.FusedAdaFactor` per
Parameter.

>>> import numpy as np, openspore as ms
>>> net = ms.nn.Dense(3, 2)
>>> opt = ms.nn.AdaFactor(net.trainable_params())
>>> [p.name for p in opt.exp_avg_sq_row][:1]
['exp_avg_sq_row_weight']
"""

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from .optimizer import Optimizer

__all__ = ["AdaFactor"]


def _float(name, value, low=0.0, high=None, low_open=False):
    if not isinstance(value, float):
        raise TypeError(f"For 'AdaFactor', '{name}' must be a float, but got {type(value).__name__}.")
    if value < low or (low_open and value == low) or (high is not None and value >= high):
        raise ValueError(f"For 'AdaFactor', '{name}' is out of range, got {value}.")
    return value


class AdaFactor(Optimizer):
    """`AdaFactor(params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
    weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
    loss_scale=1.0)`.

    At step t: beta2_t = 1 − t^(−decay_rate); with relative_step the learning rate is min(1e-2, 1/√t) (warmup_init:
    min(1e-6·t, 1/√t)), scaled by max(eps[1], RMS(param)) when scale_parameter. beta1 > 0 keeps a first moment
    (`exp_avg.<p>`); weight_decay > 0 decays the parameter inside the step. State: exp_avg, exp_avg_sq_row,
    exp_avg_sq_col, exp_avg_sq (zeros), step. The update itself is `ops.FusedAdaFactor`'s.
    """

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
                 weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
                 loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("Cannot combine manual lr and relative_step options", learning_rate)
        if warmup_init and not relative_step:
            raise ValueError("warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("Cannot learning_rate is None and relative_step=False")
        self.scale_lr = learning_rate is None or isinstance(learning_rate, (float, int))
        # Weight decay acts inside the fused step (scaled by its step size), not on the gradients.
        super().__init__(0.0 if learning_rate is None else learning_rate, params, 0.0, loss_scale)
        if not isinstance(eps, (list, tuple)) or len(eps) != 2:
            raise ValueError("eps must have 2 value: (eps1, eps2).")
        self.eps = tuple(_float(f"eps{i}", e) for i, e in enumerate(eps))
        self.clip_threshold = _float("clip_threshold", clip_threshold)
        self.decay_rate = _float("decay_rate", decay_rate, 0.0, 1.0, low_open=True)
        self.beta1 = 0.0 if beta1 is None else float(beta1)
        self.weight_decay = _float("weight_decay", float(weight_decay), 0.0, 1.0)
        self.scale_parameter, self.relative_step, self.warmup_init = scale_parameter, relative_step, warmup_init
        self.compression = compression
        self.step = Parameter(Tensor(np.zeros(1, np.float32)), name="adafactor_step")
        self.use_first_moment = self.beta1 > 0
        self.exp_avg = (self._parameters.clone(prefix="exp_avg", init="zeros") if self.use_first_moment else
                        ParameterTuple([Parameter(Tensor(np.zeros(1, np.float32)), name=f"exp_avg_unused_{i}")
                                        for i in range(len(self._parameters))]))
        rows, cols, full = [], [], []
        for p in self._parameters:
            shape, dtype = tuple(p.shape), p.dtype.np_dtype
            factored = len(shape) > 1
            rows.append(Parameter(Tensor(np.zeros(shape[:-1] if factored else (1,), dtype)),
                                  name=f"exp_avg_sq_row_{p.name}"))
            cols.append(Parameter(Tensor(np.zeros(shape[:-2] + shape[-1:] if factored else (1,), dtype)),
                                  name=f"exp_avg_sq_col_{p.name}"))
            full.append(Parameter(Tensor(np.zeros((1,) if factored else shape, dtype)), name=f"exp_avg_sq_{p.name}"))
        self.exp_avg_sq_row, self.exp_avg_sq_col = ParameterTuple(rows), ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(full)
        self.fused = ops.FusedAdaFactor(scale_parameter, self.use_first_moment, bool(weight_decay))

    def construct(self, gradients):
        self._check_gradient_count(gradients)
        gradients = self.scale_grad(gradients)
        lr = self.get_lr()
        self.assignadd(self.global_step, self.global_step_increase_tensor)
        step = ops.assign_add(self.step, Tensor(np.ones(1, np.float32)))
        if self.scale_lr and self.relative_step:
            low = 1e-6 * step if self.warmup_init else Tensor(np.full(1, 1e-2, np.float32))
            lr = ops.minimum(low, 1.0 / ops.sqrt(step))
        beta2t = 1.0 - ops.pow(step, -self.decay_rate)
        for grad, param, m, row, col, full, rate in zip(gradients, self._parameters, self.exp_avg,
                                                        self.exp_avg_sq_row, self.exp_avg_sq_col, self.exp_avg_sq,
                                                        self._lrs(lr)):
            self.fused(self.eps, self.clip_threshold, self.beta1, beta2t, self.weight_decay,
                       ops.cast(rate, mstype.float32), grad, param, m, row, col, full)
        return self._success


