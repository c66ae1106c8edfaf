"""The base of the PyTorch-style optimizers: a Cell holding `param_groups` (dicts with 'params', 'lr', ...).

Each group's 'lr' becomes a float32 Parameter named `learning_rate_group_<i>` (schedulers assign into it); group
Parameters are not registered on the cell, so a checkpoint holds the parameters and the optimizer state only.
`optimizer.parameters` is the ParameterTuple of every group's parameters, aligned with the gradients.
"""
from collections import defaultdict
from collections.abc import Iterable

from ...common import dtype as mstype
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...nn.cell import Cell
from ...nn.dynamic_lr import _check_float

__all__ = ["Optimizer"]


class Optimizer(Cell):
    """`Optimizer(params, defaults)`: `params` is an iterable of Parameters or of group dicts; `defaults` fills the
    options a group leaves out. Subclasses implement `construct(gradients)`."""

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        if params is None:
            raise ValueError("For 'Optimizer', the argument 'params' can not be None.")
        if isinstance(params, (Parameter, dict)) or not isinstance(params, Iterable):
            raise TypeError(f"For 'Optimizer', the argument 'params' must be an iterable of Parameters or dicts, "
                            f"but got {type(params).__name__}.")
        groups = list(params)
        if not groups:
            raise ValueError("For 'Optimizer', the argument 'params' must not be empty.")
        self.defaults = dict(defaults)
        self.state = defaultdict(dict)
        self.__dict__["param_groups"] = []
        self.__dict__["group_start_id"] = [0]
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Append a group (a dict with 'params' and optional per-group options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"For '{self.cls_name}', a parameter group must be a dict, "
                            f"but got {type(param_group).__name__}.")
        params = param_group.get("params")
        if isinstance(params, Parameter):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("Optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        params = list(params) if params is not None else []
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"Optimizer can only optimize Parameters, but one of the params is "
                                f"{type(p).__name__}.")
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in taken for p in params):
            raise ValueError("some parameters appear in more than one parameter group.")
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        index = len(self.param_groups)
        group["lr"] = self._build_lr(group.get("lr"), f"learning_rate_group_{index}")
        group["weight_decay"] = _check_float(self.cls_name, "weight_decay", group.get("weight_decay", 0.0),
                                             allow_int=True)
        self.param_groups.append(group)
        self.group_start_id.append(self.group_start_id[-1] + len(params))
        self._register_parameters()

    def _build_lr(self, lr, name):
        if isinstance(lr, Tensor):
            if lr.ndim != 0:
                raise ValueError(f"For '{self.cls_name}', if 'lr' is a Tensor, then it should be a scalar Tensor.")
            return Parameter(Tensor(lr.asnumpy(), mstype.float32), name=name)
        if isinstance(lr, bool) or not isinstance(lr, (int, float)):
            raise TypeError(f"For '{self.cls_name}', the argument 'lr' must be int, float or Tensor, "
                            f"but got {type(lr).__name__}.")
        return Parameter(Tensor(_check_float(self.cls_name, "lr", lr, allow_int=True), mstype.float32), name=name)

    def _register_parameters(self):
        """`self.parameters` over every group, registered without renaming the user's parameters."""
        old = self._params_list.pop("parameters", ())
        for p in old:
            self._params.pop(p.name, None)
        params = [p for group in self.param_groups for p in group["params"]]
        for p in params:
            other = self._params.get(p.name)
            if other is not None and other is not p:
                raise ValueError(f"For '{self.cls_name}', the parameter name '{p.name}' is used by two different "
                                 "parameters; give every parameter a unique name.")
            self._params[p.name] = p
        self._params_list["parameters"] = ParameterTuple(params)

    def _group_slices(self, gradients):
        """(group, parameters, gradients) per group; gradients negated for `maximize` groups."""
        if len(gradients) != len(self.parameters):
            raise ValueError(f"For '{self.cls_name}', the number of gradients ({len(gradients)}) must equal the "
                             f"number of parameters ({len(self.parameters)}).")
        params = self.parameters
        for k, group in enumerate(self.param_groups):
            start, end = self.group_start_id[k], self.group_start_id[k + 1]
            grads = gradients[start:end]
            if group.get("maximize", False):
                grads = tuple(-g for g in grads)
            if group["weight_decay"] != 0 and self._l2_decay:
                grads = tuple(g + p * group["weight_decay"] for p, g in zip(params[start:end], grads))
            yield k, group, start, end, grads

    _l2_decay = True  # weight decay added to the gradient (AdamW overrides: decoupled)

    def __repr__(self):
        lines = [f"{self.cls_name} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                value = group[key]
                lines.append(f"    {key}: {float(value) if isinstance(value, Parameter) else value}")
        return "\n".join(lines) + "\n)"

    def construct(self, *hyper_params):
        raise NotImplementedError(f"For '{self.cls_name}', the method 'construct' must be overridden.")
