"""`mindspore.boost` gradient freezing: `GradientFreeze`, `FreezeOpt`, `freeze_cell`.

The trainable parameters are split into `param_groups` nested groups: group 0 is every parameter, group k the
parameters from the k-th split point to the end (the first layers frozen). A per-step index sequence says which
group a step trains: as MindSpore's sequences do, index 0 (no freezing) takes a share `freeze_p` of the steps
and the freezing groups 1..n-1 the rest. `FreezeOpt` holds one optimizer per group and
`freeze_cell` one training cell per group; `BoostTrainOneStepCell` runs the cell the sequence names each step.

>>> from openspore.boost import GradientFreeze
>>> GradientFreeze(3, 0, 0.5, 8).generate_freeze_index_sequence(3, 0, 0.5, 8)
[0, 0, 1, 2, 0, 0, 1, 2]
"""
import math

import numpy as np

from ..core.tensor import Tensor
from ..nn.cell import Cell
from ..nn.optim import Optimizer
from ..nn.wrap.grad_reducer import DistributedGradReducer
from ..ops import operations as P
from .base import OptimizerProcess
from .grad_accumulation import GradientAccumulation, check_step

__all__ = ["GradientFreeze", "FreezeOpt", "freeze_cell"]

CONTINUOUS_STRATEGY = 0
INTERVAL_STRATEGY = 1


class FreezeOpt(Cell):
    """`FreezeOpt(opt, train_parameter_groups=None, train_strategy=None)`: one optimizer like `opt` (same class
    and settings) per parameter group; without groups, `opt` itself. `train_strategy` (the per-step group index
    sequence) is kept as an int32 Tensor."""

    def __init__(self, opt, train_parameter_groups=None, train_strategy=None):
        super().__init__(auto_prefix=False)
        if not isinstance(opt, Optimizer):
            raise TypeError(f"For 'FreezeOpt', the 'opt' must be an Optimizer, but got {type(opt).__name__}.")
        process = OptimizerProcess(opt)
        self.is_lars, self.opt_class, self.opt_init_args = process.is_lars, process.opt_class, process.opt_init_args
        self.learning_rate = process.learning_rate
        self.parameters = opt.parameters
        if train_parameter_groups is None:
            self.opts = [opt]
        else:
            if not isinstance(train_parameter_groups, (list, tuple)) or not train_parameter_groups:
                raise TypeError("For 'FreezeOpt', the 'train_parameter_groups' must be a non-empty list or tuple of "
                                f"parameter lists, but got {train_parameter_groups!r}.")
            self.opts = []
            for group in train_parameter_groups:
                process.origin_params = list(group)
                self.opts.append(process.generate_new_optimizer())
        for i, inner in enumerate(self.opts):
            self.insert_child_to_cell(f"opt{i}", inner)
        self.groups_num = len(self.opts)
        if train_strategy is not None and not isinstance(train_strategy, Tensor):
            if not isinstance(train_strategy, (list, tuple)):
                raise TypeError("For 'FreezeOpt', the 'train_strategy' must be a list, tuple or Tensor of int, "
                                f"but got {type(train_strategy).__name__}.")
            if any(not 0 <= int(i) < self.groups_num for i in train_strategy):
                raise ValueError(f"For 'FreezeOpt', every 'train_strategy' index must be in [0, {self.groups_num}), "
                                 f"but got {list(train_strategy)}.")
            train_strategy = Tensor(np.asarray(train_strategy, np.int32))
        self.train_strategy = train_strategy


class _TrainFreezeCell(Cell):
    """One training step that updates one parameter group: forward, gradients w.r.t. the group, the optional
    reducer, then the group's optimizer (or the gradient accumulation in front of it)."""

    def __init__(self, net, sens, grad, grad_reducer, use_grad_accumulation, optimizer, max_accumulation_step=1):
        super().__init__(auto_prefix=False)
        self.net = net
        self.grad = grad
        self.grad_reducer = grad_reducer
        self.opt = optimizer
        self.weights = optimizer.parameters
        self.sens = float(sens)
        self.use_grad_accumulation = use_grad_accumulation
        if use_grad_accumulation:
            self.grad_accumulation = GradientAccumulation(max_accumulation_step, optimizer)
        self._fill = P.Fill()

    def construct(self, *inputs):
        loss = self.net(*inputs)
        sens = self._fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.net, self.weights)(*inputs, sens)
        grads = self.grad_reducer(grads)
        if self.use_grad_accumulation:
            return self.grad_accumulation(loss, grads)
        self.opt(grads)
        return loss


class _NoReduce(Cell):
    def construct(self, grads):
        return grads


def freeze_cell(reducer_flag, network, optimizer, sens, grad, use_grad_accumulation, mean=None, degree=None,
                max_accumulation_step=1):
    """A tuple of training cells, one per optimizer of the `FreezeOpt` `optimizer` (one per parameter group)."""
    if not isinstance(optimizer, FreezeOpt):
        raise TypeError(f"For 'freeze_cell', the 'optimizer' must be a FreezeOpt, but got {type(optimizer).__name__}.")
    if not isinstance(network, Cell):
        raise TypeError(f"For 'freeze_cell', the 'network' must be a Cell, but got {type(network).__name__}.")
    check_step("freeze_cell", max_accumulation_step)
    nets = []
    for opt in optimizer.opts:
        reducer = DistributedGradReducer(opt.parameters, mean, degree) if reducer_flag else _NoReduce()
        nets.append(_TrainFreezeCell(network, sens, grad, reducer, use_grad_accumulation, opt, max_accumulation_step))
    return tuple(nets)


def _check_int(owner, name, value, low):
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"For '{owner}', the '{name}' must be an int >= {low}, but got {value!r}.")
    return value


def _check_p(owner, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ValueError(f"For '{owner}', the 'freeze_p' must be a float in [0, 1), but got {value!r}.")
    return float(value)


class GradientFreeze:
    """`GradientFreeze(param_groups, freeze_type, freeze_p, total_steps)`; `freeze_generate(network, optimizer)`
    returns `(network, FreezeOpt)` ready for `BoostTrainOneStepCell`."""

    def __init__(self, param_groups, freeze_type, freeze_p, total_steps):
        self._param_groups = _check_int("GradientFreeze", "param_groups", param_groups, 1)
        if freeze_type not in (CONTINUOUS_STRATEGY, INTERVAL_STRATEGY):
            raise ValueError(f"For 'GradientFreeze', the 'freeze_type' must be 0 or 1, but got {freeze_type!r}.")
        self._freeze_type = freeze_type
        self._freeze_p = _check_p("GradientFreeze", freeze_p)
        self._total_steps = _check_int("GradientFreeze", "total_steps", total_steps, 1)

    def split_parameters_groups(self, net, freeze_para_groups_number):
        """`freeze_para_groups_number` nested groups of `net`'s trainable parameters: group k starts at the k-th of
        that many (nearly) equal chunks and runs to the last parameter."""
        _check_int("GradientFreeze.split_parameters_groups", "freeze_para_groups_number", freeze_para_groups_number, 1)
        params = net.trainable_params()
        if not params:
            raise ValueError("For 'GradientFreeze.split_parameters_groups', the network has no trainable parameters.")
        starts = [math.floor(k * len(params) / freeze_para_groups_number) for k in range(freeze_para_groups_number)]
        return [params[start:] for start in starts]

    def generate_freeze_index_sequence(self, parameter_groups_number, freeze_strategy, freeze_p, total_steps):
        """The group index of each step. Strategy 0 (continuous) repeats a cycle of `round-down(p (n-1) / (1-p))`
        unfrozen steps followed by groups 1..n-1 until `total_steps` are covered (whole cycles); strategy 1
        (interval) starts unfrozen and then draws each step: group 0 with probability `freeze_p`, else one of the
        freezing groups uniformly (numpy's global RNG, so `np.random.seed` fixes it)."""
        owner = "GradientFreeze.generate_freeze_index_sequence"
        n = _check_int(owner, "parameter_groups_number", parameter_groups_number, 1)
        p = _check_p(owner, freeze_p)
        total = _check_int(owner, "total_steps", total_steps, 1)
        if n == 1:
            return [0] * total
        if freeze_strategy == CONTINUOUS_STRATEGY:
            # truncated as MindSpore does (so 0.7 * 3 / 0.3 = 6.999... gives 6 unfrozen steps)
            cycle = [0] * int(p * (n - 1) / (1 - p)) + list(range(1, n))
            return cycle * math.ceil(total / len(cycle))
        if freeze_strategy == INTERVAL_STRATEGY:
            unfrozen = np.random.random_sample(total - 1) < p
            groups = np.random.randint(1, n, total - 1)
            return [0] + [0 if keep else int(g) for keep, g in zip(unfrozen, groups)]
        raise ValueError(f"For '{owner}', the 'freeze_strategy' must be 0 or 1, but got {freeze_strategy!r}.")

    def freeze_generate(self, network, optimizer):
        """(network, FreezeOpt over `optimizer` with this object's groups and index sequence)."""
        groups = self.split_parameters_groups(network, self._param_groups)
        sequence = self.generate_freeze_index_sequence(len(groups), self._freeze_type, self._freeze_p,
                                                       self._total_steps)
        return network, FreezeOpt(optimizer, groups, sequence)

