"""Cell methods kept for MindSpore compatibility: flags, JIT/parallel settings recorded for later stages
(`set_jit_config`, `shard`, `recompute`, `set_inputs`, `compile`), and PyTorch-style state dicts.

They only record settings on the cell (its state is created in `Cell.__init__`); single-device PyNative
execution does not depend on them.
"""
from collections import OrderedDict, namedtuple

from ..common.generations import changed
from ..core.tensor import Tensor

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
_CELL_SHARD = []  # the function openspore.parallel installs to make Cell.shard act (nn sits below it)


def install_cell_shard(fn):
    """Install fn(cell, in_strategy, out_strategy, parameter_plan), called by every Cell.shard."""
    _CELL_SHARD[:] = [fn]


class CellCompatMixin:
    """Mixed into `Cell`; every method works on the state `Cell.__init__` creates."""

    def add_flags(self, **flags):
        """Set flags (also readable as attributes); returns self."""
        self._func_graph_flags.update(flags)
        self.__dict__.update(flags)
        return self

    def add_flags_recursive(self, **flags):
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self):
        return dict(self._func_graph_flags)

    def set_jit_config(self, jit_config):
        """Store a `JitConfig` (or dict) for the graph compiler."""
        config = getattr(jit_config, "jit_config_dict", jit_config)
        if not isinstance(config, dict):
            raise TypeError("For 'set_jit_config', the argument 'jit_config' should be a JitConfig, "
                            f"but got {type(jit_config).__name__}.")
        self.__dict__["_jit_config_dict"] = dict(config)
        changed()  # the optimisation level is part of a compiled call's key

    def get_jit_config(self):
        return dict(self._jit_config_dict)

    def recompute(self, **kwargs):
        """`recompute(*, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None, **kwargs)`:
        keep none of this cell's intermediate values for the backward; the backward runs the cell again from
        its inputs (autograd.recompute_call), in PyNative and in compiled graphs alike, lowering the peak memory
        of a training step. Results are unchanged except for random ops (drawn again) — and side effects inside
        the cell (BatchNorm statistics) run twice, as MindSpore warns.

        >>> import numpy as np, openspore as ms
        >>> from openspore import nn
        >>> net = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU())
        >>> net.recompute()
        >>> x = ms.Tensor(np.ones((2, 3), np.float32))
        >>> grads = ms.grad(lambda v: net(v).sum(), weights=net.trainable_params())(x)
        >>> len(grads[1]) == 2
        True
        """
        allowed = {"use_reentrant", "output_recompute", "early_stop", "context_fn", "mp_comm_recompute",
                   "parallel_optimizer_comm_recompute", "recompute_slice_activation"}
        unknown = sorted(set(kwargs) - allowed)
        if unknown:
            raise TypeError(f"For 'Cell.recompute', got unexpected keyword arguments {unknown}; "
                            f"expected some of {sorted(allowed)}.")
        self.__dict__["_recompute_kwargs"] = dict(kwargs)
        self._refresh_call_path()

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
        """Record a parallel sharding strategy (`None` per input = data parallel); it acts in semi_auto_parallel
        over several ranks (openspore.parallel), single-device execution is unaffected. Returns self."""
        if not isinstance(in_strategy, tuple):
            raise TypeError(f"For 'Cell.shard', 'in_strategy' should be a tuple, but got {type(in_strategy).__name__}.")
        self.__dict__["_shard_strategy"] = (in_strategy, out_strategy, parameter_plan)
        if _CELL_SHARD:  # openspore.parallel makes the strategy act (semi_auto_parallel over several ranks)
            _CELL_SHARD[0](self, in_strategy, out_strategy, parameter_plan)
        return self

    def set_inputs(self, *inputs, **kwargs):
        """Declare the inputs: placeholder Tensors whose None / -1 / `Symbol` axes may take any size the
        declaration allows (`Tensor(shape=(Symbol(), 3), dtype=ms.float32)`; shape=None: any rank). Every later
        call is checked against them (dtype, rank, static sizes, Symbol constraints), with a clear error.

        >>> import numpy as np, openspore as ms
        >>> net = ms.nn.Dense(3, 2)
        >>> net.set_inputs(ms.Tensor(shape=(ms.Symbol(max=8), 3), dtype=ms.float32))
        >>> net(ms.Tensor(np.ones((5, 3), np.float32))).shape
        (5, 2)
        """
        self.__dict__["_dynamic_inputs"] = (inputs, kwargs)
        self._refresh_call_path()

    def get_inputs(self):
        inputs = self._dynamic_inputs
        return None if inputs is None else inputs[0]

    def compile(self, *args, **kwargs):
        """Record the example inputs for the graph compiler (compilation itself happens on first GRAPH_MODE call)."""
        self.__dict__["_compile_args"] = (args, kwargs)

    def set_data_parallel(self):
        return self

    def set_comm_fusion(self, fusion_type, recurse=True):
        for param in self.get_parameters(expand=recurse):
            param.comm_fusion = fusion_type
        return self

    def init_parameters_data(self, auto_parallel_mode=False):
        """Materialise lazily initialised parameters; returns {name: Parameter}."""
        out = OrderedDict()
        for param in self.get_parameters():
            param.init_data()
            out[param.name] = param
        return out

    # ---- PyTorch-style state dicts ------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """OrderedDict `attribute path -> Parameter` (keep_vars) or a Tensor sharing its current data."""
        out = OrderedDict() if destination is None else destination
        for name, param in self.parameters_and_names():
            out[prefix + name] = param if keep_vars else Tensor._wrap(param.data_ref(), param.dtype)
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Copy values by attribute path; returns `(missing_keys, unexpected_keys)`."""
        own = OrderedDict(self.parameters_and_names())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(f"Error(s) in loading state_dict for {self.cls_name}:\n\tMissing key(s): {missing}\n"
                               f"\tUnexpected key(s): {unexpected}")
        for key, param in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            value = value if isinstance(value, Tensor) else Tensor(value)
            if tuple(value.shape) != param.shape:
                raise RuntimeError(f"size mismatch for {key}: copying a param with shape {tuple(value.shape)}, "
                                   f"the shape in the current cell is {param.shape}.")
            param.set_data(value)
        return _IncompatibleKeys(missing, unexpected)
