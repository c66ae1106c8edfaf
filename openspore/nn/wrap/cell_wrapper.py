"""Training wrappers (facts §1.10): WithLossCell, WithEvalCell, WithGradCell, ForwardValueAndGrad, TrainOneStepCell.

The wrappers are Cells with `auto_prefix=False`, so wrapping a network never renames its parameters: the
checkpoint of a `TrainOneStepCell` holds the network's own names followed by the optimizer's state
(`global_step`, `learning_rate`, `momentum`, `moments.<param>`, …).

>>> import numpy as np, openspore as ms
>>> from openspore import nn, ops
>>> class Linear(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.w = ms.Parameter(ms.Tensor(np.ones((2, 1), np.float32)), name="w")
...     def construct(self, x):
...         return ops.matmul(x, self.w)
>>> net = nn.WithLossCell(Linear(), nn.MSELoss())
>>> float(net(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[1.0]])).asnumpy())
4.0
"""
import numbers

from ... import context
from ...common import dtype as mstype
from ...core.grad_api import GradOperation, value_and_grad
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...ops import operations as P
from ..cell import Cell
from .grad_reducer import DistributedGradReducer, broadcast_parameters, mirror_shard_grads, parallel_reduce_settings


def _check_cell(owner, name, value):
    if not isinstance(value, Cell):
        raise TypeError(f"For '{owner}', the '{name}' must be a Cell, but got {type(value).__name__}.")


def _identity(grads):
    return grads


class WithLossCell(Cell):
    """`WithLossCell(backbone, loss_fn)`: `construct(data, label)` = `loss_fn(backbone(data), label)`."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        _check_cell("WithLossCell", "backbone", backbone)
        if not callable(loss_fn):
            raise TypeError(f"For 'WithLossCell', the 'loss_fn' must be a Cell or callable, "
                            f"but got {type(loss_fn).__name__}.")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped network (without the loss)."""
        return self._backbone


class WithEvalCell(Cell):
    """`WithEvalCell(network, loss_fn, add_cast_fp32=False)`: `construct(data, label)` returns
    `(loss, outputs, label)`; with add_cast_fp32 the outputs (and a floating label) are cast to float32 first."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        _check_cell("WithEvalCell", "network", network)
        if not isinstance(add_cast_fp32, bool):
            raise TypeError(f"For 'WithEvalCell', the 'add_cast_fp32' must be a bool, "
                            f"but got {type(add_cast_fp32).__name__}.")
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32
        self._cast = P.Cast()

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            # only floating values go back to float32: class-index labels must stay integers
            if label.dtype.is_floating_point:
                label = self._cast(label, mstype.float32)
            outputs = self._cast(outputs, mstype.float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class WithGradCell(Cell):
    """`WithGradCell(network, loss_fn=None, sens=None)`: `construct(*inputs)` returns the gradients of the
    loss (network + loss_fn, or the network itself when loss_fn is None) w.r.t. the trainable parameters."""

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        _check_cell("WithGradCell", "network", network)
        self.network = network
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()
        self._grad_fn = self.grad(self.network_with_loss, self.weights)

    def construct(self, *inputs):
        if self.sens is None:
            return self._grad_fn(*inputs)
        return self._grad_fn(*inputs, self.sens)


class ForwardValueAndGrad(Cell):
    """`ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False, sens_param=False)`:
    `construct(*inputs[, sens])` returns `(loss, grads)` with grads laid out as GradOperation's."""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__(auto_prefix=False)
        if not (isinstance(network, Cell) or callable(network)):
            raise TypeError(f"For 'ForwardValueAndGrad', the 'network' must be a Cell or function, "
                            f"but got {type(network).__name__}.")
        for name, flag in (("get_all", get_all), ("get_by_list", get_by_list), ("sens_param", sens_param)):
            if not isinstance(flag, bool):
                raise TypeError(f"For 'ForwardValueAndGrad', the '{name}' must be a bool, "
                                f"but got {type(flag).__name__}.")
        if get_by_list and weights is None:
            raise TypeError("For 'ForwardValueAndGrad', when 'get_by_list' is set to True, the 'weights' "
                            "can not be None.")
        if weights is not None:
            if isinstance(weights, Parameter):
                weights = (weights,)
            if not isinstance(weights, (list, tuple)) or not all(isinstance(w, Parameter) for w in weights):
                raise TypeError("For 'ForwardValueAndGrad', the 'weights' must be a ParameterTuple or a list of "
                                f"Parameters, but got {type(weights).__name__}.")
            weights = ParameterTuple(weights)
        self.network = network
        self.weights = weights
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self._cache = {}

    def _grad_fn(self, positions):
        fn = self._cache.get(positions)
        if fn is None:
            weights = self.weights if self.get_by_list else None
            if self.get_all:
                grad_position = positions
            else:
                grad_position = None if self.get_by_list else 0
            fn = value_and_grad(self.network, grad_position, weights, sens_param=self.sens_param)
            self._cache[positions] = fn
        return fn

    def construct(self, *inputs):
        data = inputs[:-1] if self.sens_param else inputs
        positions = tuple(i for i, x in enumerate(data) if isinstance(x, Tensor)) if self.get_all else ()
        return self._grad_fn(positions)(*inputs)


class TrainOneStepCell(Cell):
    """`TrainOneStepCell(network, optimizer, sens=None, return_grad=False)`: one training step.

    `construct(*inputs)` computes `loss = network(*inputs)` and its gradients w.r.t. `optimizer.parameters`
    (scaled by `sens` when given), applies `optimizer(grads)` and returns the loss, or `(loss, {name: grad})`
    with `return_grad=True`. The network is usually a `WithLossCell`.
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        _check_cell("TrainOneStepCell", "network", network)
        if not callable(optimizer):
            raise TypeError(f"For 'TrainOneStepCell', the 'optimizer' must be an Optimizer, "
                            f"but got {type(optimizer).__name__}.")
        if sens is not None and (isinstance(sens, bool) or not isinstance(sens, numbers.Real)):
            raise TypeError(f"For 'TrainOneStepCell', the 'sens' must be a number or None, "
                            f"but got {type(sens).__name__}.")
        if not isinstance(return_grad, bool):
            raise TypeError(f"For 'TrainOneStepCell', the 'return_grad' must be a bool, "
                            f"but got {type(return_grad).__name__}.")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        # Registering the optimizer's parameters here puts the network's weights first in
        # parameters_and_names (and in checkpoints), as MindSpore does.
        self.weights = optimizer.parameters
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = GradOperation(get_by_list=True)
        self.sense_flag = sens is not None
        self.sens = 1.0 if sens is None else float(sens)
        self.return_grad = return_grad
        if return_grad:
            self.weights_name = [p.name for p in self.weights]
        self.reducer_flag, mean, degree = parallel_reduce_settings()
        self.grad_reducer = _identity
        if self.reducer_flag:
            self.grad_reducer = DistributedGradReducer(self.weights, mean, degree)
            if context.get_auto_parallel_context("parameter_broadcast"):
                broadcast_parameters(self.weights)  # every replica starts from rank 0's weights
        # PipelineCell over several processes: its 1F1B schedule computes this stage's loss and gradients
        self._pipeline = None
        if callable(getattr(network, "pipeline_step", None)) and network.stage_count() > 1:
            self._pipeline = network.pipeline_step(self.weights)
        self._mul = P.Mul()
        self._sens_tensors = {}
        # Built once: the step only runs the forward+backward and the optimizer.
        if self.sense_flag:
            self._value_and_grad = value_and_grad(self._scaled_loss, None, self.weights, has_aux=True)
        else:
            self._value_and_grad = value_and_grad(self.network, None, self.weights)

    def __call__(self, *inputs, **kwargs):
        # A multi-process pipeline step is a host-driven 1F1B schedule (blocking Send/Receive between stages per
        # micro-batch), which a single compiled graph cannot express: in GRAPH_MODE it runs from the host too.
        if self.__dict__.get("_pipeline") is not None and context.get_context("mode") == context.GRAPH_MODE:
            return self.construct(*inputs, **kwargs)
        return super().__call__(*inputs, **kwargs)

    def _sens_like(self, loss):
        sens = self._sens_tensors.get(loss.dtype)
        if sens is None:
            sens = self._sens_tensors[loss.dtype] = Tensor(self.sens, loss.dtype)
        return sens

    def _scaled_loss(self, *inputs):
        """(loss * sens, loss): differentiating the first output seeds the backward pass with `sens`
        exactly (d(loss * s)/d loss = s), in the same forward pass that gives the loss."""
        loss = self.network(*inputs)
        return self._mul(loss, self._sens_like(loss)), loss

    def construct(self, *inputs):
        if self._pipeline is not None:
            loss, grads = self._pipeline(*inputs)
            self.optimizer(grads)
            return loss
        if self.reducer_flag:
            self.grad_reducer.overlap_begin(self.weights)  # PyNative: buckets leave during the backward
        loss, grads = self._value_and_grad(*inputs)
        if self.sense_flag:
            loss = loss[1]
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        grads = mirror_shard_grads(self.weights, grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, dict(zip(self.weights_name, grads))
        return loss
