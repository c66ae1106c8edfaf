"""`nn.Adagrad`: per-coordinate learning rates from accumulated squared gradients (fused `ApplyAdagrad`)."""
from ...ops import operations as P
from ..dynamic_lr import _check_bool, _check_float
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """`Adagrad(params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0)`.

    accum += g^2 (when update_slots); param -= lr * g / sqrt(accum). State: `accum.<p>`, initialised to `accum`.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        initial = _check_float(self.cls_name, "accum", accum)
        self.update_slots = _check_bool(self.cls_name, "update_slots", update_slots)
        self.accum = self._parameters.clone(prefix="accum", init=initial)
        self.opt = P.ApplyAdagrad(update_slots=update_slots)

    def construct(self, grads):
        grads, lr = self._begin_step(grads)
        opt = self.opt
        for param, accum, grad, rate in zip(self._parameters, self.accum, grads, self._lrs(lr)):
            opt(param, accum, rate, grad)
        return self._success
