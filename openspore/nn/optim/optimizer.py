"""`nn.Optimizer`: the base of every optimizer (facts §1.9).

An optimizer is a Cell whose call `optimizer(grads)` applies one update to `optimizer.parameters` (a
ParameterTuple aligned with `grads`). Its own Parameters, in registration order, are `global_step` ([1] Int32),
`learning_rate` ([] Float32, for a fixed rate), the parameters it updates, then the subclass's state
(`moments.<param name>`, `moment1.<param name>`, ...): the names and order MindSpore checkpoints carry.
The optimizer is built with `auto_prefix=False`, so a parent cell does not rename those.

Every step: weight decay is added to the gradients (`grad + weight_decay * param`, for parameters whose names
contain neither 'beta' nor 'gamma' unless parameter groups say otherwise), gradients of groups with
`grad_centralization` are centred, gradients are divided by `loss_scale`, the learning rate of the current
`global_step` is read, `global_step` is incremented, and the subclass's fused update primitive runs once per
parameter. Hyper-parameters are converted once at construction so that a step allocates nothing per parameter
beyond what the update itself needs.
"""
from collections.abc import Iterable

import numpy as np

from ...common import dtype as mstype
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ... import ops
from ...ops import operations as P
from ..cell import Cell
from ..container import CellList
from ..dynamic_lr import _check_bool, _check_float
from ..learning_rate_schedule import LearningRateSchedule

__all__ = ["Optimizer"]

def _is_lr_list(learning_rate):
    """A per-step learning rate given as a 1-d Tensor (after `_preprocess_single_lr`)."""
    return isinstance(learning_rate, Tensor) and learning_rate.ndim == 1


_GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization", "order_params")


def _param_list(parameters, what):
    if parameters is None:
        raise ValueError(f"For 'Optimizer', the argument '{what}' can not be None.")
    if isinstance(parameters, (Parameter, dict)) or not isinstance(parameters, Iterable):
        raise TypeError(f"For 'Optimizer', the argument '{what}' must be an iterable of Parameters or dicts, "
                        f"but got {type(parameters).__name__}.")
    parameters = list(parameters)
    if not parameters:
        raise ValueError(f"For 'Optimizer', the argument {what} must not be empty.")
    return parameters


class Optimizer(Cell):
    """`Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)`: subclass it and implement
    `construct(gradients)`; use `decay_weight`, `gradients_centralization`, `scale_grad` and `get_lr`."""

    def __new__(cls, *args, **kwargs):
        # The constructor arguments as given, so that `boost.OptimizerProcess` can build the same optimizer again
        # over regrouped parameters (MindSpore's optimizers keep no other record of e.g. `use_nesterov`).
        obj = super().__new__(cls)
        obj.__dict__["init_arguments"] = (args, dict(kwargs))
        return obj

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        parameters = _param_list(parameters, "parameters")
        if not (all(isinstance(p, Parameter) for p in parameters) or all(isinstance(p, dict) for p in parameters)):
            raise TypeError("For 'Optimizer', all elements of the argument 'parameters' must be 'Parameter' or "
                            "'dict', please check the 'parameters'.")
        self.loss_scale = _check_float(self.cls_name, "loss_scale", loss_scale, positive=True, allow_int=True)
        self.dynamic_weight_decay = False
        self.grad_centralization = False
        self.dynamic_lr = False
        self.is_group = False
        self.is_group_lr = False
        self.is_group_params_ordered = False
        self.assignadd = P.AssignAdd()
        self.global_step = Parameter(Tensor(np.zeros(1, np.int32)), name="global_step")
        self.global_step_increase_tensor = Tensor(1, mstype.int32)
        learning_rate = self._preprocess_single_lr(learning_rate)
        if isinstance(parameters[0], dict):
            self.is_group = True
            self._init_group_params(parameters, learning_rate, weight_decay)
        self._init_opt_attrs(learning_rate, parameters, weight_decay)

    # ---- construction ---------------------------------------------------------------------------------
    def _init_opt_attrs(self, learning_rate, parameters, weight_decay):
        weight_decay = self._preprocess_weight_decay(weight_decay)
        if self.is_group_lr:
            if self.dynamic_lr:
                self.learning_rate = CellList(self.group_lr, auto_prefix=False)
            else:
                self.learning_rate = ParameterTuple(self.group_lr)
                # the default rate is registered under its name 'learning_rate', which would shadow the tuple
                self.__dict__["learning_rate"] = self._params_list["learning_rate"]
        else:
            self.learning_rate = self._build_single_lr(learning_rate, "learning_rate")

        if self.is_group:
            params = self.group_params
            decays = list(self.group_weight_decay)
            flags = [isinstance(wd, Cell) or wd > 0 for wd in decays]
            self.weight_decay = tuple(wd if isinstance(wd, Cell) else Tensor(wd, mstype.float32) for wd in decays)
            self.grad_centralization_flags = tuple(self.group_grad_centralization)
        else:
            params = parameters
            decays = [weight_decay] * len(params)
            flags = ["beta" not in p.name and "gamma" not in p.name for p in params]
            self.weight_decay = weight_decay if isinstance(weight_decay, Cell) else Tensor(weight_decay, mstype.float32)
            self.grad_centralization_flags = (False,) * len(params)
        self.decay_flags = tuple(flags)
        self.exec_weight_decay = any(isinstance(wd, Cell) or (wd > 0 and f) for wd, f in zip(decays, flags))
        self._decays = tuple(decays)  # floats, or Cells for a dynamic weight decay
        self._register_parameters(params)
        self.reciprocal_scale = 1.0 / self.loss_scale
        self.need_scale = self.loss_scale != 1.0
        self.param_length = len(params)
        self.optim_filter = (True,) * len(params)
        self._success = (True,) * len(params)

    def _register_parameters(self, params):
        """`self.parameters` without renaming the user's parameters (unnamed ones keep their `Parameter#n` name)."""
        registry = self._params
        for p in params:
            other = registry.get(p.name)
            if other is not None and other is not p:
                raise ValueError(f"For '{self.cls_name}', the parameter name '{p.name}' is used by two different "
                                 "parameters; give every parameter a unique name.")
            registry[p.name] = p
        tup = ParameterTuple(params)
        self._params_list["parameters"] = tup
        self.__dict__["_parameters"] = tup

    def _preprocess_weight_decay(self, weight_decay):
        if isinstance(weight_decay, Cell):
            self.dynamic_weight_decay = True
            return _WrappedWeightDecay(weight_decay, self.loss_scale)
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)):
            raise TypeError(f"For '{self.cls_name}', the argument 'weight_decay' must be int, float or Cell, "
                            f"but got {type(weight_decay).__name__}.")
        return _check_float(self.cls_name, "weight_decay", weight_decay, allow_int=True) * self.loss_scale

    def _preprocess_single_lr(self, learning_rate):
        """A float, a 0-d float32 Tensor, a 1-d float32 Tensor (dynamic) or a LearningRateSchedule (dynamic)."""
        if isinstance(learning_rate, (int, float)) and not isinstance(learning_rate, bool):
            return _check_float(self.cls_name, "learning_rate", learning_rate, allow_int=True)
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            return learning_rate
        if isinstance(learning_rate, Tensor):
            if learning_rate.ndim == 0:
                return Tensor(learning_rate.asnumpy(), mstype.float32)
            if learning_rate.ndim > 1:
                raise ValueError(f"For '{self.cls_name}', if 'learning_rate' is a Tensor, its dimension must be 0 "
                                 f"or 1, but got {learning_rate.ndim}.")
            self.dynamic_lr = True
            return Tensor(learning_rate.asnumpy(), mstype.float32)
        if isinstance(learning_rate, Iterable) and not isinstance(learning_rate, (str, bytes, dict)):
            values = np.asarray(list(learning_rate), dtype=np.float32)
            if values.ndim != 1 or values.size == 0:
                raise ValueError(f"For '{self.cls_name}', a dynamic 'learning_rate' must be a non-empty sequence of "
                                 f"numbers, but got shape {list(values.shape)}.")
            self.dynamic_lr = True
            return Tensor(values)
        raise TypeError(f"For '{self.cls_name}', the argument 'learning_rate' must be int, float, Tensor, Iterable "
                        f"or LearningRateSchedule, but got {type(learning_rate).__name__}.")

    def _build_single_lr(self, learning_rate, name):
        if isinstance(learning_rate, float) or (isinstance(learning_rate, Tensor) and learning_rate.ndim == 0):
            param = Parameter(Tensor(learning_rate, mstype.float32), name=name)
            return _ConvertToCell(param) if self.is_group_lr and self.dynamic_lr else param
        if isinstance(learning_rate, Tensor):
            return _IteratorLearningRate(learning_rate, name)
        return learning_rate

    def _init_group_params(self, groups, learning_rate, weight_decay):
        for attr in ("group_params", "group_lr", "group_weight_decay", "group_grad_centralization"):
            self.__dict__[attr] = []
        ordered = None
        for group in groups:
            unknown = [k for k in group if k not in _GROUP_KEYS]
            if unknown:
                raise KeyError(f"For '{self.cls_name}', the keys of a parameter group must be in {list(_GROUP_KEYS)}, "
                               f"but got {unknown}.")
            if "order_params" in group:
                if len(group) > 1:
                    raise ValueError(f"For '{self.cls_name}', the 'order_params' group must hold only the "
                                     f"'order_params' key, but got {list(group)}.")
                ordered = _param_list(group["order_params"], "order_params")
                self.is_group_params_ordered = True
            elif "lr" in group:
                self.is_group_lr = True
                group_lr = self._preprocess_single_lr(group["lr"])  # validates, marks dynamic_lr before building
                if _is_lr_list(group_lr) and _is_lr_list(learning_rate) and group_lr.shape != learning_rate.shape:
                    raise ValueError("For 'Optimizer', the Tensor type dynamic learning rate in group must be the same "
                                     "size as the argument 'learning_rate'.")
        default_lr = self._build_single_lr(learning_rate, "learning_rate")
        seen = set()
        for index, group in enumerate(groups):
            if "order_params" in group:
                continue
            params = _param_list(group.get("params"), "params")
            for k, p in enumerate(params):
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{self.cls_name}', the elements of a group's 'params' must be Parameters, "
                                    f"but got {type(p).__name__} at index {k}.")
            if "lr" in group:
                lr = self._build_single_lr(self._preprocess_single_lr(group["lr"]), f"learning_rate_group_{index}")
            else:
                lr = default_lr
            decay = self._preprocess_weight_decay(group.get("weight_decay", weight_decay))
            centre = _check_bool(self.cls_name, "grad_centralization", group.get("grad_centralization", False))
            self.grad_centralization = self.grad_centralization or centre
            for p in params:
                if p.name in seen:
                    raise RuntimeError(f"For '{self.cls_name}', the {p.name} parameter already exists, it does not "
                                       "support repeated setting. Please check whether the optimizer parameter has "
                                       "been set multiple times.")
                seen.add(p.name)
                self.group_params.append(p)
                self.group_lr.append(lr)
                self.group_weight_decay.append(decay)
                self.group_grad_centralization.append(centre)
        if ordered is not None:
            self._order_group_params(ordered)

    def _order_group_params(self, ordered):
        if len(ordered) != len(self.group_params):
            raise ValueError(f"For '{self.cls_name}', the length of 'order_params' must equal the number of grouped "
                             f"parameters, but got {len(ordered)} and {len(self.group_params)}.")
        where = {p.name: i for i, p in enumerate(self.group_params)}
        try:
            order = [where[p.name] for p in ordered]
        except KeyError as exc:
            raise ValueError(f"For '{self.cls_name}', the parameter {exc.args[0]} in 'order_params' is not in any "
                             "parameter group.") from None
        for attr in ("group_params", "group_lr", "group_weight_decay", "group_grad_centralization"):
            values = self.__dict__[attr]
            self.__dict__[attr] = [values[i] for i in order]  # plain lists: not registered as Parameter attributes

    # ---- per-step helpers (also for user-defined optimizers) --------------------------------------------
    def flatten_gradients(self, gradients):
        """Gradients as given (parameters are never flattened into chunks here)."""
        return gradients

    def decay_weight(self, gradients):
        """`grad + weight_decay * param` for every parameter whose decay flag is set."""
        if not self.exec_weight_decay:
            return gradients
        decays = self._weight_decays()
        out = []
        for flag, wd, param, grad in zip(self.decay_flags, decays, self._parameters, gradients):
            if flag and (isinstance(wd, Tensor) or wd > 0):
                grad = grad + param * (ops.cast(wd, param.dtype) if isinstance(wd, Tensor) else wd)
            out.append(grad)
        return tuple(out)

    def gradients_centralization(self, gradients):
        """Subtract the per-output-channel mean from gradients of groups with grad_centralization (rank > 1,
        second dimension a multiple of 16, as MindSpore)."""
        if not self.grad_centralization:
            return gradients
        out = []
        for flag, grad in zip(self.grad_centralization_flags, gradients):
            if flag and grad.ndim > 1 and grad.shape[1] % 16 == 0:
                grad = grad - ops.mean(grad, tuple(range(1, grad.ndim)), True)
            out.append(grad)
        return tuple(out)

    def scale_grad(self, gradients):
        """Divide the gradients by `loss_scale` (mixed precision with a fixed loss scale)."""
        if not self.need_scale:
            return gradients
        scale = self.reciprocal_scale
        return tuple(g * scale for g in gradients)

    def _weight_decays(self):
        """Per-parameter weight decay of this step: floats, or Tensors where it is dynamic."""
        if not self.dynamic_weight_decay:
            return self._decays
        values = {}
        for wd in self._decays:
            if isinstance(wd, Cell) and id(wd) not in values:
                values[id(wd)] = wd(self.global_step).reshape(())
        return tuple(values[id(wd)] if isinstance(wd, Cell) else wd for wd in self._decays)

    def get_weight_decay(self):
        """The weight decay of this step (a Tensor, or a tuple of them per parameter when grouped)."""
        if not self.dynamic_weight_decay:
            return self.weight_decay
        decays = self._weight_decays()
        if self.is_group:
            return tuple(d if isinstance(d, Tensor) else Tensor(d, mstype.float32) for d in decays)
        return decays[0]

    def get_lr(self):
        """The learning rate of the current `global_step` (a tuple per parameter when groups set 'lr')."""
        lr = self.learning_rate
        if not self.dynamic_lr:
            return lr
        if self.is_group_lr:
            values = {}
            for cell in lr:
                if id(cell) not in values:
                    values[id(cell)] = cell(self.global_step).reshape(())
            return tuple(values[id(cell)] for cell in lr)
        return lr(self.global_step).reshape(())

    def get_lr_parameter(self, param):
        """The learning rate (Parameter, or the schedule when dynamic) used for `param` (or a list of them)."""
        if isinstance(param, Parameter):
            wanted = [param]
        elif isinstance(param, list):
            wanted = param
        else:
            raise TypeError(f"For 'get_lr_parameter', the 'param' must be a Parameter or a list, "
                            f"but got {type(param).__name__}.")
        ids = [id(p) for p in self._parameters]
        out = []
        for p in wanted:
            if not isinstance(p, Parameter):
                raise TypeError(f"For '{self.cls_name}', the type of 'parameter' should be 'Parameter', but got "
                                f"type '{type(p).__name__}'.")
            if id(p) not in ids:
                raise ValueError(f"For 'get_lr_parameter', the parameter {p.name} is not in optimizer, please check "
                                 "whether the argument 'param' is correct.")
            lr = self.learning_rate[ids.index(id(p))] if self.is_group_lr else self.learning_rate
            out.append(lr.learning_rate if isinstance(lr, (_ConvertToCell, _IteratorLearningRate)) else lr)
        return out if isinstance(param, list) else out[0]

    def _check_gradient_count(self, gradients):
        if len(gradients) != self.param_length:
            raise ValueError(f"For '{self.cls_name}', the number of gradients ({len(gradients)}) must equal the "
                             f"number of parameters ({self.param_length}).")

    def _begin_step(self, gradients, decay=True):
        """The common start of a step: checks, decay, centralization, scaling; returns (gradients, lr) and
        advances `global_step` after reading the learning rate."""
        self._check_gradient_count(gradients)
        if decay:
            gradients = self.decay_weight(gradients)
        gradients = self.gradients_centralization(gradients)
        gradients = self.scale_grad(gradients)
        lr = self.get_lr()
        self.assignadd(self.global_step, self.global_step_increase_tensor)
        return gradients, lr

    def _initial_lrs(self, fallback):
        """One float per parameter: its group's fixed learning rate (or the optimizer's), else `fallback` where
        the rate is dynamic; optimizers whose state starts at the learning rate (ASGD, Rprop) use it."""
        rates = self.learning_rate if self.is_group_lr else (self.learning_rate,) * self.param_length
        return [float(r.asnumpy().reshape(())) if isinstance(r, Parameter) else fallback for r in rates]

    def _lrs(self, lr):
        """One learning rate per parameter."""
        return lr if self.is_group_lr else (lr,) * self.param_length

    def construct(self, *hyper_params):
        raise NotImplementedError(f"For '{self.cls_name}', the method 'construct' must be overridden.")


class _ConvertToCell(LearningRateSchedule):
    """A fixed learning rate among dynamic group rates: a schedule that returns its Parameter."""

    def __init__(self, learning_rate):
        super().__init__()
        if not isinstance(learning_rate, Parameter):
            raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be a Parameter, "
                            f"but got {type(learning_rate).__name__}.")
        self.learning_rate = learning_rate

    def construct(self, global_step):
        return self.learning_rate * 1.0


class _IteratorLearningRate(LearningRateSchedule):
    """A per-step list of learning rates: step i takes element i (Parameter `name`, shape [steps])."""

    def __init__(self, learning_rate, name):
        super().__init__()
        if not isinstance(learning_rate, Tensor) or learning_rate.ndim != 1:
            raise ValueError("For 'Optimizer', a dynamic 'learning_rate' must be a 1-D Tensor.")
        self.learning_rate = Parameter(learning_rate, name=name)

    def construct(self, global_step):
        return ops.gather(self.learning_rate, global_step, 0)


class _WrappedWeightDecay(Cell):
    """A dynamic weight decay Cell scaled by the loss scale (the decay is added before gradients are unscaled)."""

    def __init__(self, weight_decay, loss_scale=1.0):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = float(loss_scale)

    def construct(self, global_step):
        return self.weight_decay(global_step) * self.loss_scale
