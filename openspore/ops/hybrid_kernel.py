"""`ops.kernel` (and its older name `ops.ms_kernel`): functions written in MindSpore's Hybrid DSL.

A Hybrid DSL function is Python with loops over tensor indices and a few built-in names it does not import:
`output_tensor(shape, dtype)` / `allocate(shape, dtype)` declare tensors; `range`, `serial`, `vectorize`,
`parallel` and `reduce` are loops over an extent; `grid(shape)` loops over every index of a shape; the math
intrinsics (`sqrt`, `rsqrt`, `exp`, `log`, `sin`, ..., `power`, `sign`, `abs`, `floor`, `ceil`, `trunc`,
`round`, `isnan`, `isinf`, `isfinite`, `max`, `min`) and casts (`float16`, `float32`, `float64`, `int8` ...
`int64`) work on scalars. `@kernel` makes such a function callable on numpy arrays (as in MindSpore: the
function runs as Python with the built-ins supplied), and lets `ops.Custom(func)` (func_type "hybrid", the
default) use it as an operator; openspore runs it through this Python path, with no kernel compiler.

>>> import numpy as np
>>> from openspore.ops import kernel
>>> @kernel
... def add_twice(a, b):
...     c = output_tensor(a.shape, a.dtype)
...     for i0 in range(a.shape[0]):
...         for i1 in range(a.shape[1]):
...             c[i0, i1] = a[i0, i1] + b[i0, i1] * 2.0
...     return c
>>> add_twice(np.ones((1, 2), np.float32), np.ones((1, 2), np.float32)).tolist()
[[3.0, 3.0]]
"""
import builtins
import functools
import itertools
import math
import types

import numpy as np


def _new(shape, dtype="float32", scope="global"):
    return np.zeros(tuple(shape), np.dtype(dtype))


def _loop(extent, *_):
    return builtins.range(int(extent))


def _grid(shape):
    return itertools.product(*(builtins.range(int(n)) for n in shape))


def _scalar(fn):
    return lambda *xs: fn(*xs)


_CASTS = {name: getattr(np, name) for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                               "uint8", "uint16", "uint32", "uint64", "bool_")}
_MATH = {name: getattr(np, name) for name in ("sqrt", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh",
                                              "floor", "ceil", "trunc", "round", "sign", "isnan", "isinf",
                                              "isfinite", "power")}
_MATH.update(asin=np.arcsin, acos=np.arccos, atan=np.arctan, atan2=np.arctan2, asinh=np.arcsinh,
             acosh=np.arccosh, atanh=np.arctanh, rsqrt=lambda x: 1.0 / np.sqrt(x), abs=np.abs, max=np.maximum,
             min=np.minimum, erf=np.vectorize(math.erf))

DSL_BUILTINS = dict(output_tensor=_new, allocate=_new, serial=_loop, vectorize=_loop, parallel=_loop,
                    reduce=_loop, grid=_grid, **_MATH, **_CASTS)


def _as_numpy(value):
    return value.asnumpy() if hasattr(value, "asnumpy") else value


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """Mark `fn` as a Hybrid DSL function (usable as `@kernel` or `@kernel(reg_info=..., compile_attrs=...)`)."""
    if compile_attrs is not None and not isinstance(compile_attrs, dict):
        raise TypeError(f"For 'kernel', 'compile_attrs' must be a dict, but got {type(compile_attrs).__name__}.")

    def wrap(func):
        if not isinstance(func, types.FunctionType):
            raise TypeError(f"For 'kernel', the decorated object must be a function, but got {type(func).__name__}.")
        scope = dict(func.__globals__)
        scope.update(DSL_BUILTINS)
        body = types.FunctionType(func.__code__, scope, func.__name__, func.__defaults__, func.__closure__)

        @functools.wraps(func)
        def run(*args):
            return body(*[_as_numpy(a) for a in args])

        run.ms_kernel_flag = True
        run.compile_attrs = dict(compile_attrs or {})
        run.reg_info = reg_info
        return run

    return wrap if fn is None else wrap(fn)


ms_kernel = kernel
