"""`LRScheduler`, the base of `experimental.optim.lr_scheduler`'s schedulers: `step()` advances `last_epoch` (a
float32 Parameter, as MindSpore's) and writes the rates `get_lr()` returns into the groups' 'lr' Parameters."""
from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ... import ops
from .optimizer import Optimizer

__all__ = ["LRScheduler"]


def lr_lambdas_per_group(optimizer, lr_lambda):
    """One `lr_lambda` per param group: a list/tuple of as many functions as groups, or one function for all."""
    groups = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != groups:
            raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * groups


class LRScheduler:
    """`LRScheduler(optimizer, last_epoch=-1)`: subclasses implement `get_lr()` (and `_get_closed_form_lr()`)."""

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if isinstance(last_epoch, bool) or not isinstance(last_epoch, int):
            raise TypeError(f"For '{type(self).__name__}', the 'last_epoch' must be an int, "
                            f"but got {type(last_epoch).__name__}.")
        if last_epoch < -1:
            raise ValueError(f"Invalid last_epoch: {last_epoch}")
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", float(group["lr"]))
            elif "initial_lr" not in group:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an optimizer")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self.groups_num = len(optimizer.param_groups)
        self.last_epoch = Parameter(Tensor(float(last_epoch), mstype.float32), name=f"last_epoch_{type(self).__name__}")
        self.step()

    @property
    def _epoch(self):
        return int(float(self.last_epoch))

    def _current(self):
        """The groups' current rates as float32 Tensors (copies)."""
        return [Tensor(lr.asnumpy()) for lr in self._last_lr]

    def get_lr(self):
        raise NotImplementedError(f"For '{type(self).__name__}', the method 'get_lr' must be overridden.")

    def get_last_lr(self):
        """The rates the last `step()` set, one float32 Tensor per group."""
        return self._current()

    def step(self, epoch=None):
        """Advance one epoch (or jump to `epoch`) and write the new rates into the optimizer's groups."""
        if epoch is None:
            ops.assign(self.last_epoch, self._epoch + 1.0)
            values = self.get_lr()
        else:
            ops.assign(self.last_epoch, float(epoch))
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        self._write(values)
        return True

    def _write(self, values):
        """Set every group's 'lr' Parameter (float32) to the new rates."""
        for group, value in zip(self.optimizer.param_groups, values):
            ops.assign(group["lr"], value if isinstance(value, Tensor) else Tensor(float(value), mstype.float32))
