"""`nn.Cell`: the base of every network (facts §1.6).

A Cell registers the Cells and Parameters assigned to its attributes. Parameter names follow MindSpore:
assigning a child Cell renames the child's parameters to their full attribute path (`fc.weight`,
`layers.0.conv.weight`), which is the name checkpoints store; a parameter owned directly by the top cell keeps
an explicit name, an unnamed one takes its attribute name.

`__call__` runs `construct` directly unless hooks, a custom `bprop` or `to_float` are set on the cell (the fast
path matters: it is taken for every layer in every step). GRAPH_MODE runs cells the PyNative way until a graph
compiler installs itself with `set_graph_runner`; a MindSpore script that sets GRAPH_MODE therefore still runs.

>>> import numpy as np, openspore as ms
>>> from openspore import nn, ops
>>> class Scale(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)))
...     def construct(self, x):
...         return ops.mul(x, self.w)
>>> class Net(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.scale = Scale()
...     def construct(self, x):
...         return self.scale(x)
>>> [(k, p.name) for k, p in Net().parameters_and_names()]
[('scale.w', 'scale.w')]
"""
from collections import OrderedDict

from .. import context
from ..common.generations import TrackedDict, changed
from ..core import autograd
from ..core.dispatch import _tracers
from ..core.parameter import Parameter, ParameterTuple
from ..core.primitive import Primitive
from ..core.tensor import Tensor
from ..core.symbol import check_inputs
from . import _cell_call
from ._cell_misc import CellCompatMixin

_graph_runner = None  # set by the graph compiler: fn(cell, args, kwargs) -> outputs


def set_graph_runner(fn):
    """Install (or remove with None) the GRAPH_MODE executor used by `Cell.__call__`."""
    global _graph_runner
    _graph_runner = fn


def _number_in_graph(value):
    """A Python number assigned to a Parameter attribute in graph code (`self.weight = x`, x an int input):
    MindSpore's graph compiler makes it an Assign of that value; outside a graph it is a TypeError."""
    from ..core.dispatch import current_tracer
    return isinstance(value, (bool, int, float)) and current_tracer() is not None


class Cell(CellCompatMixin):
    """`Cell(auto_prefix=True, flags=None)`: subclass it and override `construct`."""

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        # tracked: a change to what a compiled call reads of the cell is announced (common/generations.py)
        d["_params"] = TrackedDict()
        d["_cells"] = TrackedDict()
        d["_params_list"] = TrackedDict()
        d["_auto_prefix"] = bool(auto_prefix)
        d["_param_prefix"] = ""
        d["training"] = False
        d["requires_grad"] = False
        d["_phase"] = "train"
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_mixed_dtype"] = None
        d["_has_bprop"] = callable(getattr(type(self), "bprop", None))
        d["_func_graph_flags"] = {}
        d["_jit_config_dict"] = {}
        d["_dynamic_inputs"] = None
        d["_compile_args"] = None
        d["_recompute_kwargs"] = None
        d["_shard_strategy"] = None
        self._refresh_call_path()
        if flags:
            self.add_flags(**flags)

    # ---- calling ----------------------------------------------------------------------------------
    _runs_compiled = False  # True: compiled in PyNative mode as well (nn.GraphCell in eval mode)

    def construct(self, *args, **kwargs):
        """The forward computation; subclasses must override it."""
        raise AttributeError(f"For '{type(self).__name__}', the method 'construct' is not defined.")

    def __call__(self, *args, **kwargs):
        if _tracers:  # tracing a graph: the tracer records the cell's scope and runs its rewritten construct
            return _tracers[-1].call_cell(self, args, kwargs, _cell_call.complex_call)
        if _graph_runner is not None and (context.get_context("mode") == context.GRAPH_MODE or self._runs_compiled):
            if self._dynamic_inputs is not None:
                check_inputs(self.cls_name, self._dynamic_inputs[0], args)
            return _graph_runner(self, args, kwargs)
        if self.requires_grad and not autograd.ACTIVE:
            return _cell_call.recorded_call(self, args, kwargs)
        if self._plain_call:
            return self.construct(*args, **kwargs)
        return _cell_call.complex_call(self, args, kwargs)

    def _refresh_call_path(self):
        d = self.__dict__
        d["_plain_call"] = not (d["_has_bprop"] or d["_mixed_dtype"] is not None or d["_forward_pre_hooks"]
                                or d["_forward_hooks"] or d["_backward_hooks"] or d["_backward_pre_hooks"]
                                or d["_recompute_kwargs"] is not None or d["_dynamic_inputs"] is not None)
        changed()

    def register_forward_pre_hook(self, hook_fn, *, prepend=False, with_kwargs=False):
        """`hook_fn(cell, inputs)` (or `(cell, args, kwargs)`) runs before construct; may return new inputs."""
        return self._add_hook("_forward_pre_hooks", hook_fn, prepend, with_kwargs=with_kwargs)

    def register_forward_hook(self, hook_fn, *, prepend=False, with_kwargs=False, always_call=False):
        """`hook_fn(cell, inputs, output)` runs after construct; may return a new output."""
        return self._add_hook("_forward_hooks", hook_fn, prepend, with_kwargs=with_kwargs, always_call=always_call)

    def register_backward_hook(self, hook_fn):
        """`hook_fn(cell, grad_input, grad_output)` runs during backward; may return new input gradients."""
        return self._add_hook("_backward_hooks", hook_fn, False)

    def register_backward_pre_hook(self, hook_fn):
        """`hook_fn(cell, grad_output)` runs before the cell's backward; may return new output gradients."""
        return self._add_hook("_backward_pre_hooks", hook_fn, False)

    def _add_hook(self, table, hook_fn, prepend, **options):
        if not callable(hook_fn):
            raise TypeError(f"For '{table.strip('_')[:-1]}', the 'hook_fn' must be a function, "
                            f"but got {type(hook_fn).__name__}.")
        hooks = self.__dict__[table]
        handle = _cell_call.HookHandle(self, table)
        hooks[handle.id] = (hook_fn, options)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        self._refresh_call_path()
        return handle

    def to_float(self, dst_type):
        """Cast the floating-point inputs of this cell's construct (and of every child's) to `dst_type`."""
        from ..common import dtype as mstype
        if dst_type not in (mstype.float16, mstype.float32, mstype.bfloat16):
            raise ValueError("For 'to_float', the argument 'dst_type' should be float32, float16 or bfloat16, "
                             f"but got {dst_type}.")
        for _, cell in self.cells_and_names():
            cell.__dict__["_mixed_dtype"] = dst_type
            cell._refresh_call_path()
        return self

    # ---- attribute registration ------------------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        params = d.get("_params")
        if params is not None:
            if name in params:
                return params[name]
            cells = d["_cells"]
            if name in cells:
                return cells[name]
            plist = d["_params_list"]
            if name in plist:
                return plist[name]
        elif name.startswith("_"):  # Cell.__init__ never ran: say so rather than name an internal attribute
            raise AttributeError(f"The '{type(self).__name__}' object does not inherit attribute from 'cell'. "
                                 f"Please use 'super().__init__()'.")
        raise AttributeError(f"The '{type(self).__name__}' object has no attribute '{name}'.")

    def __setattr__(self, name, value):
        try:
            self._set_attribute(name, value)
        finally:
            changed()  # training flags, Parameters, sub-cells: compiled-call fast paths look again

    def _set_attribute(self, name, value):
        d = self.__dict__
        if isinstance(value, Parameter):
            self._set_parameter_attr(name, value)
        elif isinstance(value, Cell):
            self._set_cell_attr(name, value)
        elif isinstance(value, (ParameterTuple, list, tuple)) and value and all(isinstance(p, Parameter) for p in value):
            self._set_parameter_sequence_attr(name, value)
        else:
            params, cells = d.get("_params"), d.get("_cells")
            if params is not None and name in params:
                if value is None:
                    params[name] = None
                elif params[name] is not None and (isinstance(value, Tensor) or _number_in_graph(value)):
                    value = value if isinstance(value, Tensor) else Tensor(value, params[name].dtype)
                    # `self.weight = expr` is MindSpore's Assign: one primitive call, so a compiled construct
                    # records the write as a graph op (also inside graph control flow)
                    from ..ops.function.other_func import assign
                    param = params[name]
                    if tuple(value.shape) != param.shape and tuple(value.shape) != ():
                        raise ValueError(f"For 'Cell', the new value of Parameter '{name}' has shape "
                                         f"{list(value.shape)} but the Parameter has shape {list(param.shape)}.")
                    assign(param, value if value.dtype is param.dtype else value.astype(param.dtype))
                else:
                    raise TypeError(f"For 'Cell', the type of '{name}' should be Parameter or None, "
                                    f"but got {type(value).__name__}.")
                return
            if cells is not None and name in cells:
                if value is not None:
                    raise TypeError(f"For 'Cell', the type of '{name}' should be Cell or None, "
                                    f"but got {type(value).__name__}.")
                cells[name] = None
                return
            if isinstance(value, Primitive):
                value.set_prim_instance_name(name)
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        try:
            self._del_attribute(name)
        finally:
            changed()

    def _del_attribute(self, name):
        d = self.__dict__
        plist = d.get("_params_list")
        if plist is not None and name in plist:
            members = {id(p) for p in plist.pop(name)}
            for key in [k for k, p in d["_params"].items() if id(p) in members]:
                del d["_params"][key]
            return
        for table in ("_params", "_cells"):
            registry = d.get(table)
            if registry is not None and name in registry:
                del registry[name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        d = self.__dict__
        extra = list(d.get("_params", ())) + list(d.get("_cells", ())) + list(d.get("_params_list", ()))
        return sorted(set(super().__dir__()) | set(extra))

    def _registries(self, what):
        registry = self.__dict__.get(what)
        if registry is None:
            raise AttributeError(f"For 'Cell', can not assign {what.strip('_')} before Cell.__init__() is called.")
        return registry

    def _set_parameter_attr(self, name, value):
        self._registries("_params")
        self.__dict__.pop(name, None)
        self._cells.pop(name, None)
        self._params_list.pop(name, None)
        self.insert_param_to_cell(name, value)

    def _set_parameter_sequence_attr(self, name, value):
        self._registries("_params_list")
        if name in self._params_list:  # re-assignment replaces the previous sequence's members
            self.__delattr__(name)
        seen = set()
        for i, p in enumerate(value):
            if id(p) in seen:
                continue
            seen.add(id(p))
            if not getattr(p, "_name_given", True):
                p.name = f"{name}.{i}"
            if p.name in self._params and self._params[p.name] is not p:
                raise ValueError(f"For 'Cell', the parameter name '{p.name}' in '{name}' already exists in the cell; "
                                 "give every parameter of the sequence a unique name.")
            self._params[p.name] = p
        self.__dict__.pop(name, None)
        self._params_list[name] = value

    def _set_cell_attr(self, name, value):
        cells = self._registries("_cells")
        if value is self:
            raise ValueError(f"For 'Cell', a cell can not be its own child (attribute '{name}').")
        if name in self._params:  # a Parameter's name (even set to None) does not take a Cell, as in MindSpore
            raise KeyError(f"For 'insert_child_to_cell', the {name} child cell already exists in the network."
                           "Cannot insert another child cell with the same name.")
        self.__dict__.pop(name, None)
        self._params_list.pop(name, None)
        if self._auto_prefix:
            value.update_parameters_name(self._param_prefix + name + ".")
        cells[name] = value

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Register `param` (a Parameter or None) under `param_name`; an unnamed Parameter takes that name."""
        if not param_name:
            raise KeyError("For 'insert_param_to_cell', the argument 'param_name' should not be None.")
        if not isinstance(param_name, str):
            raise TypeError(f"For 'insert_param_to_cell', the type of parameter 'param_name' must be str, but got "
                            f"{type(param_name)}.")
        if check_name_contain_dot and "." in param_name:
            raise KeyError("For 'insert_param_to_cell', the argument 'param_name' should not contain'.' ")
        params = self._registries("_params")
        if param_name not in params and (param_name in self.__dict__ or hasattr(type(self), param_name)):
            raise KeyError(f"For 'insert_param_to_cell', the {param_name} parameter already exists in the network."
                           "Cannot insert another parameter with the same name.")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError("For 'insert_param_to_cell', the argument 'param' must be 'Parameter' if not None, "
                            f"but got {type(param)}.")
        if param is not None and not getattr(param, "_name_given", True):
            param.name = self._param_prefix + param_name
        params[param_name] = param

    def insert_child_to_cell(self, child_name, child_cell):
        """Register `child_cell` (a Cell or None) under `child_name` without renaming its parameters."""
        if not isinstance(child_name, str):
            raise TypeError(f"For 'insert_child_to_cell', the type of parameter 'child_name' must be str, but got "
                            f"{type(child_name)}.")
        if not child_name or "." in child_name:
            raise KeyError("For 'insert_child_to_cell', the parameter 'child_name' can not be None and can not "
                           "contain '.' ")
        cells = self._registries("_cells")
        if child_name not in cells and (child_name in self.__dict__ or child_name in self._params
                                        or hasattr(type(self), child_name)):
            raise KeyError(f"For 'insert_child_to_cell', the {child_name} child cell already exists in the network."
                           "Cannot insert another child cell with the same name.")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError("For 'insert_child_to_cell', the argument 'child_cell' must be 'Cell' if not None, "
                            f"but got type {type(child_cell)}.")
        cells[child_name] = child_cell

    def update_parameters_name(self, prefix="", recurse=True):
        """Set every parameter's name to `prefix` + its attribute path below this cell."""
        if not isinstance(prefix, str):
            raise TypeError("For 'update_parameters_name', the argument 'prefix' should be a str, "
                            f"but got {type(prefix).__name__}.")
        for name, param in self.parameters_and_names(expand=recurse):
            param.name = prefix + name
        walk = self.cells_and_names() if recurse else [("", self)]
        for path, cell in walk:
            cell.__dict__["_param_prefix"] = prefix + (path + "." if path else "")

    # ---- traversal --------------------------------------------------------------------------------
    def cells_and_names(self, cells=None, name_prefix=""):
        """Yield `(path, cell)` for this cell (path `name_prefix`) and every descendant, each cell once."""
        seen = cells if cells is not None else set()
        if self in seen:
            return
        seen.add(self)
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is not None:
                yield from cell.cells_and_names(seen, f"{name_prefix}.{name}" if name_prefix else name)

    def parameters_and_names(self, name_prefix="", expand=True):
        """Yield `(attribute path, Parameter)` pairs; a parameter shared by several cells appears once."""
        walk = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        seen = set()
        for cell_name, cell in walk:
            for name, param in cell._params.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{cell_name}.{name}" if cell_name else name), param

    def get_parameters(self, expand=True):
        """Iterator over the parameters (each once)."""
        for _, param in self.parameters_and_names(expand=expand):
            yield param

    def trainable_params(self, recurse=True):
        """Parameters with `requires_grad=True`."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        """Parameters with `requires_grad=False` (e.g. BatchNorm moving statistics)."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """OrderedDict `param.name -> Parameter`."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def name_cells(self):
        """OrderedDict of the immediate child cells."""
        out, seen = OrderedDict(), set()
        for name, cell in self._cells.items():
            if cell is not None and id(cell) not in seen:
                seen.add(id(cell))
                out[name] = cell
        return out

    def cells(self):
        """Iterator over the immediate child cells."""
        return iter(self.name_cells().values())

    def apply(self, fn):
        """Call `fn(cell)` on every child (recursively) and then on this cell; returns self."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    def check_names(self):
        """Raise ValueError if two different parameters share a name (a checkpoint could not tell them apart)."""
        names = {}
        for path, param in self.parameters_and_names():
            other = names.setdefault(param.name, path)
            if other != path:
                raise ValueError(f"The parameters at '{other}' and '{path}' share the name '{param.name}'. "
                                 "Please set a unique name for the parameter.")

    # ---- modes and flags ----------------------------------------------------------------------------
    def set_train(self, mode=True):
        """Set `training` (and `phase`) on this cell and every descendant; returns self."""
        phase = "train" if mode else "predict"
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
            cell.__dict__["_phase"] = phase
        changed()
        return self

    def set_grad(self, requires_grad=True):
        """Mark the cell as run under a gradient transform (kept for MindSpore compatibility)."""
        self.requires_grad = bool(requires_grad)
        return self

    @property
    def phase(self):
        return self._phase

    @phase.setter
    def phase(self, value):
        self.__dict__["_phase"] = value

    @property
    def cls_name(self):
        return type(self).__name__

    @property
    def param_prefix(self):
        """The prefix of this cell's own parameter names (e.g. 'layers.0')."""
        return self._param_prefix.rstrip(".")

    # ---- printing ------------------------------------------------------------------------------------
    def extend_repr(self):
        """Extra text shown inside the parentheses of `repr` (override in layers)."""
        return ""

    def __repr__(self):
        extra = self.extend_repr()
        if not self._cells:
            return f"{self.cls_name}({extra})"
        lines = extra.split("\n") if extra else []
        for name, cell in self._cells.items():
            lines.append(f"({name}): " + repr(cell).replace("\n", "\n  "))
        return f"{self.cls_name}(\n  " + "\n  ".join(lines) + "\n)"
