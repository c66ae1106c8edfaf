"""`mindspore.mint.optim`: torch.optim's `Adam`, `AdamW` and `SGD` (and `FusedAdamW`, MindSpore's fused-kernel
AdamW: the same update) on `experimental.optim`'s Optimizer (param_groups, lr_scheduler support).

`AdamW` and `SGD` are `experimental.optim`'s, which already step as torch does. `Adam` differs from
`experimental.optim.Adam` in where eps goes: torch (and mint) divide by sqrt(v)/sqrt(1-b2^t) + eps, the
experimental one (MindSpore's Adam primitive) by sqrt(v) + eps after folding the bias correction into the step.

>>> import numpy as np, openspore as ms
>>> from openspore.mint import optim
>>> w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
>>> opt = optim.Adam([w], lr=0.1)
>>> _ = opt((ms.Tensor(np.array([1.0, -2.0], np.float32)),))
>>> w.asnumpy().astype("float64").round(4).tolist()
[0.9, 1.1]
"""
from .. import ops as _ops
from ..experimental import optim as _exp

__all__ = ["AdamW", "Adam", "SGD", "FusedAdamW"]

AdamW = _exp.AdamW
SGD = _exp.SGD


class Adam(_exp.Adam):
    """`Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *, maximize=False)`:
    torch.optim.Adam (weight decay added to the gradient; eps added after the bias correction of sqrt(v))."""

    def construct(self, gradients):
        for group, start, end, grads, (beta1, beta2, eps), b1p, b2p in self._step(gradients):
            # The Adam primitive's step with eps*sqrt(1-b2^t) for eps is torch's step exactly (as in AdamW).
            scaled_eps = _ops.sqrt(1.0 - b2p) * eps if eps else eps
            self._apply(group, start, end, grads, b1p, b2p, beta1, beta2, scaled_eps)
        return True


class FusedAdamW(AdamW):
    """`FusedAdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
    maximize=False)`: MindSpore's AdamW on one fused kernel; here the same update as `AdamW`."""
