"""PyTorch-style `SGD` (`mindspore.experimental.optim`) on the fused `SGD` primitive (weight decay, dampening and
Nesterov inside the update). State: `accum.<p>` (zeros) and `stat.<p>` (ones until the first step)."""
from ...ops import operations as P
from ...nn.dynamic_lr import _check_bool, _check_float
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """`SGD(params, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, *, maximize=False)`.

    g = grad + weight_decay*param; buf = g on the first step, then momentum*buf + (1-dampening)*g;
    param -= lr * (g + momentum*buf if nesterov else buf) (plain g without momentum): torch.optim.SGD.
    """
    _l2_decay = False  # the SGD primitive applies the decay itself

    def __init__(self, params, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, *,
                 maximize=False):
        momentum = _check_float("SGD", "momentum", momentum, allow_int=True)
        dampening = _check_float("SGD", "dampening", dampening, allow_int=True)
        _check_bool("SGD", "nesterov", nesterov)
        _check_bool("SGD", "maximize", maximize)
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError("For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must equal "
                             f"to 0.0, but got 'momentum' {momentum}, 'dampening' {dampening}.")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")
        self._ops = {}

    def _op(self, group):
        key = (float(group["dampening"]), float(group["weight_decay"]), bool(group["nesterov"]))
        op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = P.SGD(*key)
        return op

    def construct(self, gradients):
        params = self.parameters
        for _k, group, start, end, grads in self._group_slices(gradients):
            op, lr, momentum = self._op(group), group["lr"], float(group["momentum"])
            for i, g in zip(range(start, end), grads):
                op(params[i], g, lr, self.accum[i], momentum, self.stat[i])
        return True
