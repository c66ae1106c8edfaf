"""`nn.RMSProp`: root-mean-square propagation, plain or centred (fused `ApplyRMSProp` /
`ApplyCenteredRMSProp`, one call per parameter)."""
from ...ops import operations as P
from ..dynamic_lr import _check_bool, _check_float
from .optimizer import Optimizer

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """`RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
    centered=False, loss_scale=1.0, weight_decay=0.0)`.

    ms = decay*ms + (1-decay)*g^2; moment = momentum*moment + lr*g/sqrt(ms + eps); param -= moment
    (centred: ms - mg^2 under the root, mg = decay*mg + (1-decay)*g). State: `mean_grad.<p>` (centred only,
    zeros), `mean_square.<p>` (ones), `moment.<p>` (zeros).
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = _check_float(self.cls_name, "decay", decay)
        self.momentum = _check_float(self.cls_name, "momentum", momentum)
        self.epsilon = _check_float(self.cls_name, "epsilon", epsilon, positive=True)
        _check_bool(self.cls_name, "use_locking", use_locking)
        self.centered = _check_bool(self.cls_name, "centered", centered)
        if centered:
            self.opt = P.ApplyCenteredRMSProp(use_locking)
            self.mg = self._parameters.clone(prefix="mean_grad", init="zeros")
        else:
            self.opt = P.ApplyRMSProp(use_locking)
        self.ms = self._parameters.clone(prefix="mean_square", init="ones")
        self.moment = self._parameters.clone(prefix="moment", init="zeros")

    def construct(self, gradients):
        gradients, lr = self._begin_step(gradients)
        opt, decay, momentum, eps = self.opt, self.decay, self.momentum, self.epsilon
        if self.centered:
            for param, mg, ms, mom, grad, rate in zip(self._parameters, self.mg, self.ms, self.moment, gradients,
                                                      self._lrs(lr)):
                opt(param, mg, ms, mom, grad, rate, decay, momentum, eps)
        else:
            for param, ms, mom, grad, rate in zip(self._parameters, self.ms, self.moment, gradients, self._lrs(lr)):
                opt(param, ms, mom, rate, grad, decay, momentum, eps)
        return self._success
