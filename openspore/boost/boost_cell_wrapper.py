"""`mindspore.boost.BoostTrainOneStepCell` and `BoostTrainOneStepWithLossScaleCell`: training steps that apply
the algorithms `AutoBoost()` configures.

With a `FreezeOpt` optimizer (from `GradientFreeze.freeze_generate`) a step trains the parameter group that the
freeze sequence names for it (the step counter is the Parameter `boost_step`); with gradient accumulation on and
`grad_accumulation_step > 1` the optimizer runs once per window on the mean gradient; AdaSum combines the
weight updates of the data-parallel replicas. With nothing configured the cell is `nn.TrainOneStepCell`.

>>> import numpy as np
>>> import openspore as ms
>>> from openspore import nn, boost
>>> net = nn.WithLossCell(nn.Dense(2, 1, weight_init="ones", has_bias=False), nn.MSELoss())
>>> step = boost.BoostTrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
>>> x, y = ms.Tensor(np.ones((4, 2), np.float32)), ms.Tensor(np.zeros((4, 1), np.float32))
>>> float(step(x, y).asnumpy())      # (1 + 1 + 0)^2 before the update
4.0
"""
from .. import context
from ..common import dtype as mstype
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn.wrap.cell_wrapper import TrainOneStepCell
from ..nn.wrap.loss_scale import TrainOneStepWithLossScaleCell
from ..ops import operations as P
from .adasum import AdaSum
from .boost import AutoBoost
from .grad_accumulation import GradientAccumulation
from .grad_freeze import FreezeOpt, freeze_cell

__all__ = ["BoostTrainOneStepCell", "BoostTrainOneStepWithLossScaleCell"]


class _BoostMixin:
    """The boost set-up and step shared by both train cells (after TrainOneStepCell's own `__init__`)."""

    def _init_boost(self, network, optimizer, sens):
        self.auto_boost = AutoBoost()
        config = self.auto_boost.boost_config
        self.max_accumulation_step = int(self.auto_boost.grad_accumulation_step)
        self.use_grad_accumulation = bool(config["grad_accumulation"]) and self.max_accumulation_step > 1
        if self.use_grad_accumulation:
            self.grad_accumulation = GradientAccumulation(self.max_accumulation_step, optimizer)
        self.freeze = isinstance(optimizer, FreezeOpt)
        if self.freeze:
            mean, degree = None, None
            if self.reducer_flag:
                mean = bool(context.get_auto_parallel_context("gradients_mean"))
                degree = self.grad_reducer.degree if hasattr(self.grad_reducer, "degree") else None
            self.freeze_nets = freeze_cell(self.reducer_flag, network, optimizer, 1.0 if sens is None else sens,
                                           self.grad, self.use_grad_accumulation, mean, degree,
                                           self.max_accumulation_step)
            for i, cell in enumerate(self.freeze_nets):
                self.insert_child_to_cell(f"freeze_net{i}", cell)
            strategy = optimizer.train_strategy
            self._strategy = [0] if strategy is None else [int(i) for i in strategy.asnumpy().reshape(-1)]
            self.boost_step = Parameter(Tensor(0, mstype.int32), name="boost_step", requires_grad=False)
        self.enable_adasum = self.check_adasum_enable()
        if self.enable_adasum:
            from ..communication import get_group_size, get_rank
            self.adasum = AdaSum(get_rank(), get_group_size(), 1, optimizer.parameters)
            self.weights_clone = optimizer.parameters.clone(prefix="old_weights")
        self.enable_dim_reduce = self.check_dim_reduce_enable()

    def check_adasum_enable(self):
        """bool: AdaSum is configured and the job is data parallel over more than one process."""
        if not self.auto_boost.boost_config["adasum"] or not self.reducer_flag:
            return False
        from ..communication import get_group_size
        return get_group_size() > 1

    def check_dim_reduce_enable(self):
        """bool: dimension-reduction training is configured (openspore does not implement it: that raises)."""
        if self.auto_boost.boost_config["dim_reduce"]:
            raise NotImplementedError("BoostTrainOneStepCell: the 'dim_reduce' algorithm (mindspore.boost.DimReduce) "
                                      "is not implemented in openspore; turn it off in boost_config_dict.")
        return False

    def gradient_freeze_process(self, *inputs):
        """Run the training cell of the parameter group the freeze sequence names for this step."""
        step = int(self.boost_step.asnumpy())
        loss = self.freeze_nets[self._strategy[step % len(self._strategy)]](*inputs)
        P.AssignAdd()(self.boost_step, Tensor(1, mstype.int32))
        return loss

    def gradient_accumulation_process(self, loss, grads, sens, *inputs):
        """Accumulate `grads`; the optimizer runs when the window is complete."""
        return self.grad_accumulation(loss, grads)

    def adasum_process(self, loss, grads):
        """Update locally, then replace the weights by the old weights plus the AdaSum of all replicas' updates."""
        self.optimizer(grads)
        deltas = tuple(P.Sub()(new, old) for new, old in zip(self.weights, self.weights_clone))
        merged = self.adasum(deltas, self.weights, self.weights_clone)
        for weight, old, value in zip(self.weights, self.weights_clone, merged):
            P.Assign()(weight, value)
            P.Assign()(old, value)
        return loss

    def _apply(self, loss, grads, *inputs):
        if self.use_grad_accumulation:
            return self.gradient_accumulation_process(loss, grads, None, *inputs)
        if self.enable_adasum:
            return self.adasum_process(loss, grads)
        self.optimizer(grads)
        return loss


class BoostTrainOneStepCell(_BoostMixin, TrainOneStepCell):
    """`BoostTrainOneStepCell(network, optimizer, sens=None)`: returns the loss of the step."""

    def __init__(self, network, optimizer, sens=None):
        super().__init__(network, optimizer, sens)
        self._init_boost(network, optimizer, sens)

    def __call__(self, *inputs, **kwargs):
        # The group a frozen step trains is chosen on the host from the step counter (one compiled cell each).
        if self.freeze:
            return self.construct(*inputs)
        return super().__call__(*inputs, **kwargs)

    def construct(self, *inputs):
        if self.freeze:
            return self.gradient_freeze_process(*inputs)
        loss, grads = self._value_and_grad(*inputs)
        if self.sense_flag:
            loss = loss[1]
        grads = self.grad_reducer(grads)
        return self._apply(loss, grads, *inputs)


class BoostTrainOneStepWithLossScaleCell(_BoostMixin, TrainOneStepWithLossScaleCell):
    """`BoostTrainOneStepWithLossScaleCell(network, optimizer, scale_sense)`: returns `(loss, overflow, scale)`;
    an overflowing step updates nothing. Gradient freezing is not combined with loss scaling (TypeError)."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, scale_sense)
        if isinstance(optimizer, FreezeOpt):
            raise TypeError("For 'BoostTrainOneStepWithLossScaleCell', a FreezeOpt optimizer (gradient freezing) "
                            "is not supported; use BoostTrainOneStepCell.")
        self._init_boost(network, optimizer, None)

    def _apply_update(self, *grads):
        self._apply(None, grads)
        return ()
