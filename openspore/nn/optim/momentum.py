"""`nn.Momentum`: SGD with momentum through `ForeachApplyMomentum` (`ApplyMomentum` per parameter for group rates)."""
from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import operations as P
from ..dynamic_lr import _check_bool
from .optimizer import Optimizer

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """`Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False)`.

    accum = momentum * accum + grad; param -= lr * accum (nesterov: param -= lr * (grad + momentum * accum)).
    State: scalar Parameter `momentum` and `moments.<param name>` (zeros).

    >>> import numpy as np, openspore as ms
    >>> from openspore import nn
    >>> w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    >>> opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
    >>> _ = opt((ms.Tensor(np.ones(2, np.float32)),))
    >>> w.asnumpy().tolist(), [p.name for p in opt.get_parameters()]
    ([0.8999999761581421, 0.8999999761581421], ['global_step', 'learning_rate', 'w', 'momentum', 'moments.w'])
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(momentum, float):
            raise TypeError(f"For 'Momentum', the argument 'momentum' must be float, but got {type(momentum).__name__}.")
        if momentum < 0.0:
            raise ValueError(f"For 'Momentum', the argument 'momentum' must be at least 0.0, but got {momentum}.")
        self.momentum = Parameter(Tensor(momentum, mstype.float32), name="momentum")
        self.use_nesterov = _check_bool(self.cls_name, "use_nesterov", use_nesterov)
        self.moments = self._parameters.clone(prefix="moments", init="zeros")
        self.opt = P.ApplyMomentum(use_nesterov=self.use_nesterov)
        self.opt_foreach = P.ForeachApplyMomentum(use_nesterov=self.use_nesterov)

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients)
        opt, momentum = self.opt, self.momentum
        if not self.is_group_lr:
            # one multi-tensor update, in PyNative and captured graphs alike; MindIR/ONNX export writes MindSpore's
            # one ApplyMomentum per parameter (ForeachApplyMomentum.export_decomposition)
            self.opt_foreach(tuple(self._parameters), tuple(self.moments), lr, tuple(gradients), momentum)
            return self._success
        for param, moment, grad, rate in zip(self._parameters, self.moments, gradients, self._lrs(lr)):
            opt(param, moment, rate, grad, momentum)
        return self._success
