"""Operator registration information (`mindspore.ops.CustomRegOp`, `DataType`, the TBE/AiCPU/AKG/CPU builders and
the `op_info_register` / `custom_info_register` decorators): builders of the dict that describes an operator's
inputs, outputs, attributes and supported dtype/format combinations. openspore runs its kernels from the
primitive table, so this information is kept (on the decorated function, or passed to `ops.Custom(reg_info=)`)
rather than used to pick a device kernel.

>>> from openspore.ops import CustomRegOp, DataType
>>> info = (CustomRegOp("add").input(0, "x").input(1, "y").output(0, "z")
...         .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default).target("CPU")
...         .get_op_info())
>>> info["op_name"], [i["name"] for i in info["inputs"]], info["dtype_format"][0][0]
('add', ['x', 'y'], ('float32', 'DefaultFormat'))
"""
import copy

__all__ = ["DataType", "RegOp", "CustomRegOp", "CpuRegOp", "TBERegOp", "AiCPURegOp", "AkgGpuRegOp",
           "AkgAscendRegOp", "op_info_register", "custom_info_register"]

_FORMATS = {"Default": "DefaultFormat", "5HD": "NC1HWC0", "FracZ": "FracZ", "FracNZ": "FRACTAL_NZ",
            "NCHW": "NCHW", "NHWC": "NHWC", "ND": "ND"}
_TYPES = {"None": "", "BOOL": "bool", "I8": "int8", "U8": "uint8", "I16": "int16", "U16": "uint16", "I32": "int32",
          "U32": "uint32", "I64": "int64", "U64": "uint64", "F16": "float16", "F32": "float32", "F64": "float64",
          "BF16": "bfloat16", "C64": "complex64", "C128": "complex128"}


class DataType:
    """(dtype name, format name) pairs: `DataType.F32_Default == ('float32', 'DefaultFormat')`."""


for _t, _dtype in _TYPES.items():
    for _f, _format in _FORMATS.items():
        setattr(DataType, f"{_t}_{_f}", (_dtype, _format))
DataType.None_None = ("", "")


class RegOp:
    """Builder of one operator's registration info; every setter returns the builder."""
    _kind = "custom"

    def __init__(self, op_name=""):
        if not isinstance(op_name, str):
            raise TypeError(f"For '{type(self).__name__}', 'op_name' must be a str, but got {type(op_name).__name__}.")
        self._info = {"op_name": op_name, "imply_type": self._kind, "inputs": [], "outputs": [], "attr": [],
                      "dtype_format": []}

    def _io(self, where, index, name, param_type, **options):
        if not isinstance(index, int) or index < 0:
            raise ValueError(f"For '{type(self).__name__}.{where[:-1]}', 'index' must be a non-negative int, but got "
                             f"{index!r}.")
        self._info[where].append({"index": index, "name": name, "param_type": param_type, **options})
        return self

    def input(self, index=None, name=None, param_type="required", **kwargs):
        return self._io("inputs", index, name, param_type, **kwargs)

    def output(self, index=None, name=None, param_type="required", **kwargs):
        return self._io("outputs", index, name, param_type, **kwargs)

    def attr(self, name=None, param_type=None, value_type=None, default_value=None, **kwargs):
        self._info["attr"].append({"name": name, "param_type": param_type, "type": value_type,
                                   "default_value": default_value, **kwargs})
        return self

    def dtype_format(self, *args):
        n = len(self._info["inputs"]) + len(self._info["outputs"])
        if n and len(args) != n:
            raise ValueError(f"For 'dtype_format', {n} (dtype, format) pairs are needed (one per input and output), "
                             f"but got {len(args)}.")
        for a in args:
            if not (isinstance(a, tuple) and len(a) == 2 and all(isinstance(v, str) for v in a)):
                raise TypeError(f"For 'dtype_format', each argument must be a DataType pair, but got {a!r}.")
        self._info["dtype_format"].append(tuple(args))
        return self

    def target(self, target=None):
        if target not in (None, "Ascend", "GPU", "CPU"):
            raise ValueError(f"For 'target', it must be 'Ascend', 'GPU' or 'CPU', but got {target!r}.")
        self._info["target"] = target
        return self

    def __getattr__(self, name):
        # the kind-specific setters (fusion_type, kernel_name, async_flag, ...) store their value under their name
        if name.startswith("_"):
            raise AttributeError(name)

        def setter(value=None, *more):
            self._info[name] = value if not more else (value,) + more
            return self
        return setter

    def get_op_info(self):
        return copy.deepcopy(self._info)


class CustomRegOp(RegOp):
    _kind = "custom"


class CpuRegOp(RegOp):
    _kind = "CPU"


class TBERegOp(RegOp):
    _kind = "TBE"


class AiCPURegOp(RegOp):
    _kind = "AiCPU"


class AkgGpuRegOp(RegOp):
    _kind = "AKG"


class AkgAscendRegOp(RegOp):
    _kind = "AKG"


def _register(decorator_name, infos):
    def decorate(fn):
        collected = list(getattr(fn, "reg_info", []))
        for info in infos:
            collected.append(info.get_op_info() if isinstance(info, RegOp) else info)
        fn.reg_info = collected
        return fn
    if not infos:
        raise ValueError(f"For '{decorator_name}', at least one registration info is needed.")
    return decorate


def op_info_register(op_info):
    """Decorator keeping an operator's registration info (a RegOp or its dict) on the function as `reg_info`."""
    return _register("op_info_register", (op_info,))


def custom_info_register(*reg_info):
    """Decorator keeping Custom-op registration infos on the function as `reg_info`."""
    return _register("custom_info_register", reg_info)
