"""`mindspore.boost.GradientAccumulation`: apply the optimizer once every `max_accumulation_step` steps, on the
mean of the gradients of those steps.

Each call adds `grad / max_accumulation_step` to the Parameters `grad_accumulation.<name>` and counts the step in
`accumulation_step`; the call that completes a window runs `optimizer(accumulated)` and zeroes the window.

>>> import numpy as np
>>> import openspore as ms
>>> from openspore import nn, boost
>>> w = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")
>>> acc = boost.GradientAccumulation(2, nn.SGD([w], 1.0))
>>> for g in (1.0, 3.0):
...     _ = acc(ms.Tensor(0.5), (ms.Tensor(np.full(2, g, np.float32)),))
>>> w.asnumpy()          # one SGD step on the mean gradient 2
array([-2., -2.], dtype=float32)
"""
from ..common import dtype as mstype
from ..compiler.frontend.control_flow import cond_if
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn.cell import Cell
from ..ops import operations as P

__all__ = ["GradientAccumulation"]


def check_step(owner, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"For '{owner}', the 'max_accumulation_step' must be a positive int, but got {value!r}.")
    return value


class GradientAccumulation(Cell):
    """`GradientAccumulation(max_accumulation_step, optimizer)`; `construct(loss, grads)` returns `loss`."""

    def __init__(self, max_accumulation_step, optimizer):
        super().__init__(auto_prefix=False)
        self._max_accumulation_step = check_step("GradientAccumulation", max_accumulation_step)
        if not callable(optimizer) or not hasattr(optimizer, "parameters"):
            raise TypeError("For 'GradientAccumulation', the 'optimizer' must be an Optimizer, "
                            f"but got {type(optimizer).__name__}.")
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self._grad_accumulation = self.weights.clone(prefix="grad_accumulation", init="zeros")
        self._accumulation_step = Parameter(Tensor(0, mstype.int32), name="accumulation_step")
        self._one = Tensor(1, mstype.int32)
        self._zero = Tensor(0, mstype.int32)
        self._assign, self._assign_add = P.Assign(), P.AssignAdd()
        self._mul, self._zeros_like, self._equal = P.Mul(), P.ZerosLike(), P.Equal()
        self._cast = P.Cast()

    def construct(self, loss, grads):
        if len(grads) != len(self._grad_accumulation):
            raise ValueError(f"For 'GradientAccumulation', got {len(grads)} gradients for "
                             f"{len(self._grad_accumulation)} parameters.")
        scale = 1.0 / self._max_accumulation_step
        for acc, grad in zip(self._grad_accumulation, grads):
            self._assign_add(acc, self._cast(self._mul(grad, scale), acc.dtype))
        self._assign_add(self._accumulation_step, self._one)
        full = self._equal(self._accumulation_step, Tensor(self._max_accumulation_step, mstype.int32))
        cond_if(full, self._apply, self._wait, (), ())
        return loss

    def _apply(self):
        self.optimizer(tuple(self._grad_accumulation))
        for acc in self._grad_accumulation:
            self._assign(acc, self._zeros_like(acc))
        self._assign(self._accumulation_step, self._zero)
        return ()

    def _wait(self):
        return ()
