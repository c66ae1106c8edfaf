"""`nn.SGD`: stochastic gradient descent with momentum, dampening and Nesterov (the fused `SGD` primitive)."""
from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import operations as P
from ..dynamic_lr import _check_bool, _check_float
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """`SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
    loss_scale=1.0)`.

    g = grad + weight_decay * param (every parameter: the decay is part of the SGD primitive); with momentum,
    accum = g on the first step, then accum = momentum * accum + (1 - dampening) * g, and g = accum (nesterov:
    g + momentum * accum); param -= lr * g. State: scalar `momentum`, `accum.<param name>` (zeros) and
    `stat.<param name>` (ones until the first step).
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _check_float(self.cls_name, "momentum", momentum, allow_int=True)
        self.dampening = _check_float(self.cls_name, "dampening", dampening, allow_int=True)
        self.nesterov = _check_bool(self.cls_name, "nesterov", nesterov)
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must equal "
                             f"to 0.0, but got 'momentum' {momentum}, 'dampening' {self.dampening}.")
        if self.dynamic_weight_decay:
            raise TypeError("For 'SGD', dynamic weight decay is currently not supported, the argument 'weight_decay' "
                            "or 'weight_decay' set in grouped 'params' must be float or int type.")
        if self.is_group:
            decays = self.group_weight_decay
        else:
            decays = [float(weight_decay)] * self.param_length
        ops_by_decay = {}
        self.opt = tuple(ops_by_decay.setdefault(wd, P.SGD(self.dampening, wd, self.nesterov)) for wd in decays)
        self.momentum = Parameter(Tensor(momentum, mstype.float32), name="momentum")
        self.accum = self._parameters.clone(prefix="accum", init="zeros")
        self.stat = self._parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients, decay=False)
        momentum = self.momentum
        for opt, param, grad, rate, accum, stat in zip(self.opt, self._parameters, gradients, self._lrs(lr),
                                                       self.accum, self.stat):
            opt(param, grad, rate, accum, momentum, stat)
        return self._success
