"""`mindspore.boost.ParameterProcess` and `OptimizerProcess`: regroup a network's parameters for boost.

`ParameterProcess.assign_parameter_group` sets the gradient-fusion group (`Parameter.comm_fusion`) of each
parameter at the split points; `OptimizerProcess` adds grad-centralization tags to the weights of Conv2d/Dense
cells in an optimizer's parameter groups and builds the same optimizer again over the new groups.

>>> import numpy as np
>>> from openspore import Parameter, Tensor
>>> from openspore.boost import ParameterProcess
>>> params = [Parameter(Tensor(np.ones(2, np.float32)), name=f"p{i}") for i in range(4)]
>>> _ = ParameterProcess().assign_parameter_group(params)
>>> [p.comm_fusion for p in params]
[1, 1, 2, 2]
"""
import inspect

from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn import Conv2d, Dense
from ..nn.cell import Cell
from ..nn.optim import LARS, Optimizer

__all__ = ["ParameterProcess", "OptimizerProcess"]


def _check_parameters(owner, name, parameters):
    if not isinstance(parameters, (list, tuple)) or not all(isinstance(p, Parameter) for p in parameters):
        raise TypeError(f"For '{owner}', the '{name}' must be a list or tuple of Parameter, "
                        f"but got {type(parameters).__name__}.")
    return list(parameters)


class ParameterProcess:
    """Creates group parameters and sets the gradient split (fusion) points of a network's parameters."""

    def __init__(self):
        # The fusion id of the next parameter; a split point starts a new id and the count carries over calls.
        self._parameter_indices = 1

    def assign_parameter_group(self, parameters, split_point=None):
        """Give `parameters` fusion groups: a new group (`comm_fusion` id) starts at each index of `split_point`
        (default: half-way, `[len(parameters) // 2]`). Returns `parameters`."""
        parameters = _check_parameters("ParameterProcess.assign_parameter_group", "parameters", parameters)
        if split_point is None:
            split_point = [len(parameters) // 2]
        if not isinstance(split_point, (list, tuple)) or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in split_point):
            raise TypeError("For 'ParameterProcess.assign_parameter_group', the 'split_point' must be a list of "
                            f"int or None, but got {split_point!r}.")
        starts = set(split_point)
        for i, param in enumerate(parameters):
            if i in starts:
                self._parameter_indices += 1
            param.comm_fusion = self._parameter_indices
        return parameters

    @staticmethod
    def generate_group_params(parameters, origin_params):
        """Parameter groups for an optimizer over `parameters`. When `origin_params` are groups (dicts), each
        group's other settings (lr, weight_decay, ...) follow its parameters; otherwise one group."""
        parameters = _check_parameters("ParameterProcess.generate_group_params", "parameters", parameters)
        origin_params = list(origin_params)
        if not origin_params or not isinstance(origin_params[0], dict):
            return [{"params": parameters}]
        wanted = {id(p) for p in parameters}
        groups = []
        for group in origin_params:
            kept = [p for p in group["params"] if id(p) in wanted]
            if kept:
                groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": kept})
        return groups


def _init_arguments(opt):
    """{argument name: value} of the optimizer's constructor call, defaults included, without the parameters and
    the learning rate (those are rebuilt)."""
    args, kwargs = opt.__dict__.get("init_arguments", ((), {}))
    bound = inspect.signature(type(opt).__init__).bind(opt, *args, **kwargs)
    bound.apply_defaults()
    out = dict(list(bound.arguments.items())[1:])
    for key in ("params", "parameters", "learning_rate", "optimizer"):
        out.pop(key, None)
    return out


class OptimizerProcess:
    """`OptimizerProcess(opt)`: adds grad-centralization tags to `opt`'s parameter groups and creates the new
    optimizer (`generate_new_optimizer`). A `LARS` optimizer is rebuilt around its rebuilt inner optimizer."""

    def __init__(self, opt):
        if not isinstance(opt, Optimizer):
            raise TypeError(f"For 'OptimizerProcess', the 'opt' must be an Optimizer, but got {type(opt).__name__}.")
        self.is_lars = isinstance(opt, LARS)
        self.lars_init_args = _init_arguments(opt) if self.is_lars else {}
        self.single_opt = opt.opt if self.is_lars else opt
        self.opt_class = type(self.single_opt)
        if "init_arguments" not in self.single_opt.__dict__:
            raise ValueError(f"For 'OptimizerProcess', the optimizer {self.opt_class.__name__} was not built through "
                             "its constructor, so it cannot be built again.")
        self.opt_init_args = _init_arguments(self.single_opt)
        args, kwargs = self.single_opt.init_arguments
        bound = inspect.signature(self.opt_class.__init__).bind(self.single_opt, *args, **kwargs)
        bound.apply_defaults()
        names = list(bound.arguments)
        self.origin_params = list(bound.arguments[names[1]])  # the first argument: params
        self.learning_rate = bound.arguments.get("learning_rate")

    @staticmethod
    def build_params_dict(network):
        """{id(parameter): the cell that owns it} over every cell of `network`."""
        if not isinstance(network, Cell):
            raise TypeError(f"For 'OptimizerProcess.build_params_dict', the 'network' must be a Cell, "
                            f"but got {type(network).__name__}.")
        owners = {}
        for _, cell in network.cells_and_names():
            for param in cell.get_parameters(expand=False):  # the cell's own parameters, not its children's
                owners.setdefault(id(param), cell)
        return owners

    @staticmethod
    def build_gc_params_group(params_dict, parameters):
        """Split each parameter group (dict) into the weights of Conv2d/Dense cells, tagged
        `grad_centralization=True`, followed by the rest; plain Parameter lists come back unchanged."""
        out = []
        for group in parameters:
            if not isinstance(group, dict):
                raise TypeError("For 'OptimizerProcess.build_gc_params_group', the 'parameters' must be parameter "
                                f"groups (dicts), but got an element of type {type(group).__name__}.")
            if "order_params" in group:
                out.append(group)
                continue
            settings = {k: v for k, v in group.items() if k != "params"}
            centred = [p for p in group["params"] if _is_centred_weight(params_dict, p)]
            rest = [p for p in group["params"] if not _is_centred_weight(params_dict, p)]
            if centred:
                out.append({"params": centred, **settings, "grad_centralization": True})
            if rest:
                out.append({"params": rest, **settings})
        return out

    def add_grad_centralization(self, network):
        """Tag the Conv2d/Dense weights of the optimizer's parameter groups with grad centralization (a flat
        parameter list has no groups to tag and stays as it is)."""
        params_dict = self.build_params_dict(network)
        if self.origin_params and isinstance(self.origin_params[0], dict):
            self.origin_params = self.build_gc_params_group(params_dict, self.origin_params)

    def generate_new_optimizer(self):
        """The optimizer built again (same class and settings) over the current parameter groups."""
        opt = self.opt_class(self.origin_params, learning_rate=self.learning_rate, **self.opt_init_args)
        if self.is_lars:
            opt = LARS(opt, **self.lars_init_args)
        return opt


def _is_centred_weight(params_dict, param):
    owner = params_dict.get(id(param))
    return isinstance(owner, (Conv2d, Dense)) and isinstance(param, Tensor) and len(param.shape) > 1
