"""Python builtins as MindSpore's graph compiler reads them, for calls in rewritten (graph) code.

`control_flow.call` looks a builtin up here by identity (a user's own function of the same name is left alone);
code that runs in Python (PyNative, or a function that falls back to Python because it needs a tensor's value)
keeps Python's builtins. What differs in a graph:

* `type(x)` of a traced tensor is `Tensor` (the tracer's `SymbolicTensor` is an implementation detail), so
  `isinstance(p, type(x))` and `type(x) == Tensor` read as they do on real tensors;
* `round(x)` of a tensor rounds it element-wise (`ops.round`); `round(x, n)` of a tensor is refused with
  MindSpore's TypeError;
* `print(...)` is a `Print` node of the graph (ops/defs/debug.py): the values are written each time the graph
  runs, in program order and in MindSpore's graph layout, one per line (a tuple or list holding more than
  numbers item by item, a dict by its values); keywords (`sep`, `end`...) are refused as MindSpore refuses them;
* `map(...)` gives a tuple (a list over a list) and `filter(...)` a list: a graph has no lazy iterators (and a tuple returned from a graph
  stays readable call after call, where an iterator would be used up); over numpy arrays (values MindSpore's
  JIT fallback keeps as Python objects) they stay Python's.

>>> import numpy as np, openspore as ms
>>> @ms.jit
... def f(x):
...     return type(x) is ms.Tensor, map(lambda v: v * 2, (1, 2)), round(x)
>>> f(ms.Tensor(np.array([1.4, 2.6], np.float32)))
(True, (2, 4), Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  3.00000000e+00]))
"""
import builtins
import operator

import numpy as np

from ...core.dispatch import current_tracer
from ...core.tensor import Tensor
from ...ops.defs.debug import Print, graph_value_text
from .errors import located
from .symbolic import SymbolicTensor


def graph_type(*args):
    """`type(obj)` (one argument): `Tensor` for a traced tensor; `type(name, bases, namespace)` unchanged."""
    if len(args) == 1 and isinstance(args[0], SymbolicTensor):
        return Tensor
    return builtins.type(*args)


def graph_round(number, ndigits=None):
    """`round(number[, ndigits])`; a tensor is rounded element-wise and takes no `ndigits`, as in MindSpore."""
    if isinstance(number, Tensor):
        if ndigits is not None:
            raise TypeError(located("When applying round() to tensor, only one tensor is supported as input, "
                                    f"but got round(tensor, {ndigits!r:.40})."))
        from ... import ops
        return ops.round(number)
    return builtins.round(number) if ndigits is None else builtins.round(number, ndigits)


def _python_values(iterables):
    """numpy arrays are values of MindSpore's JIT fallback (Python objects at run time): over them the
    builtins stay Python's."""
    return any(isinstance(it, np.ndarray) for it in iterables)


def graph_map(function, *iterables):
    """`map(function, *iterables)` as a tuple, a list over a first list, as MindSpore's (Python's lazy map over
    numpy arrays)."""
    if _python_values(iterables):
        return builtins.map(function, *iterables)
    kind = list if iterables and type(iterables[0]) is list else tuple
    return kind(builtins.map(function, *iterables))


def graph_filter(function, iterable):
    """`filter(function, iterable)` as a list, over a tuple too, as MindSpore's (Python's lazy filter over a numpy
    array)."""
    if _python_values((iterable,)):
        return builtins.filter(function, iterable)
    return list(builtins.filter(function, iterable))


_LAZY = (zip, range, enumerate)  # (a map or filter object left is one over numpy values: it stays Python's)


def materialized(value):
    """A graph's return value with its lazy sequences (`zip`, `range`, `enumerate` objects) as tuples, inside
    tuples, lists and dicts too: MindSpore's graphs return them so (`zip((1, 2), (3, 4))` gives
    `((1, 3), (2, 4))`), and a graph run again must not hand out a used-up iterator."""
    if isinstance(value, _LAZY):
        return tuple(materialized(v) for v in value)
    if type(value) in (tuple, list):
        items = [materialized(v) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else type(value)(items)
    if type(value) is dict:
        items = {k: materialized(v) for k, v in value.items()}
        return value if all(items[k] is v for k, v in value.items()) else items
    return value


def _print_items(value, out):
    """The Print inputs for one value of `print(...)`: tensors as they are, tuples/lists of numbers as one text,
    other tuples/lists and dicts item by item, everything else (strings, numbers, dtypes, None, numpy arrays) as the
    text MindSpore prints for it, fixed when the graph is compiled."""
    if isinstance(value, Tensor):
        out.append(value)
    elif isinstance(value, dict):
        _print_items(tuple(value.values()), out)
    elif isinstance(value, (tuple, list)) and not all(_number(v) for v in value):
        for v in value:
            _print_items(v, out)
    else:
        out.append(graph_value_text(value))


def _number(value):
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def graph_print(*values, **kwargs):
    """`print(...)` in graph code: a `Print` node while tracing (Python's print otherwise)."""
    if current_tracer() is None:
        return builtins.print(*values, **kwargs)
    if kwargs:
        raise RuntimeError(located(f"Got an unexpected keyword argument '{next(iter(kwargs))}'"))
    items = []
    for value in values:
        _print_items(value, items)
    if items:
        Print()(*items)
    return None


def _same_value(item, value):
    """One term of `seq.count(value)`: True/False for Python values, a traced 0-d bool for tensors (compared by
    value: equal shapes and every element equal, as MindSpore's graph compares them at run time)."""
    if item is value:
        return True
    item_tensor, value_tensor = isinstance(item, Tensor), isinstance(value, Tensor)
    if not (item_tensor or value_tensor):
        return item == value
    if item_tensor and value_tensor:
        if tuple(item.shape) != tuple(value.shape):
            return False
    elif not _number(value if item_tensor else item):
        return False
    from ... import ops
    return ops.all(ops.equal(item, value))


def graph_count(sequence, value):
    """`list.count` / `tuple.count` in graph code: tensors are compared by value (a traced tensor's value is known
    only when the graph runs, so the count is then a 0-d int64 tensor); without tensors, Python's count."""
    if not any(isinstance(v, Tensor) for v in (*sequence, value)):
        return sequence.count(value)
    from ... import ops
    total, traced = 0, []
    for item in sequence:
        same = _same_value(item, value)
        if isinstance(same, Tensor):
            traced.append(ops.cast(same, Tensor(0).dtype))
        else:
            total += int(bool(same))
    for term in traced:
        total = term + total
    return total


_GRAPH_TYPE_NAMES = {bool: "Bool", int: "Int64", float: "Float32"}


def graph_fromkeys(keys, value=None):
    """`dict.fromkeys(keys[, value])`; keys that can not be iterated are MindSpore's RuntimeError."""
    try:
        iterator = iter(keys)
    except TypeError:
        kind = _GRAPH_TYPE_NAMES.get(type(keys), type(keys).__name__.capitalize())
        raise RuntimeError(located(f"{kind} object is not iterable")) from None
    return dict.fromkeys(iterator, value)


def graph_tensor(input_data=None, dtype=None, *args, **kwargs):
    """`Tensor(x)` in graph code: a traced tensor stays in the graph (cast to `dtype` when one is given), as
    MindSpore's graph reads `Tensor(t)` of a tensor; anything else is an ordinary constant Tensor."""
    if isinstance(input_data, SymbolicTensor) and not args and not kwargs:
        if dtype is None or dtype == input_data.dtype:
            return input_data
        from ... import ops
        return ops.cast(input_data, dtype)
    return Tensor(input_data, dtype, *args, **kwargs)


_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1
_BIT_OPS = {"&": ("bit_and", operator.and_, operator.iand), "|": ("bit_or", operator.or_, operator.ior),
            "^": ("BitXor", operator.xor, operator.ixor), "<<": ("BitLeftShift", operator.lshift, operator.ilshift),
            ">>": ("BitRightShift", operator.rshift, operator.irshift)}


def _scalar_imm(value):
    """MindSpore's name and printed value of a scalar constant (its graph's immediates)."""
    if isinstance(value, bool):
        return "BoolImm", str(value).lower()
    if isinstance(value, int):
        return "Int64Imm", str(value)
    return "FP32Imm", f"{value:g}"


def bit_op(symbol, x, y, inplace=False):
    """`x & y`, `x | y`, `x ^ y`, `x << y`, `x >> y` (and their augmented forms) in graph code. Between Python
    scalars they follow MindSpore's graph compiler, which computes them on int64 scalars: floats (and bools for
    `^`/shifts) are a TypeError, ints beyond int64 a RuntimeError, a negative shift count a ValueError and a left
    shift past int64 a RuntimeError. Anything else (tensors, outside a trace) is Python's operator.

    >>> bit_op("<<", 3, 2)
    12
    """
    name, plain, augmented = _BIT_OPS[symbol]
    scalars = all(isinstance(v, (bool, int, float)) for v in (x, y))
    if current_tracer() is None or not scalars:
        return (augmented if inplace else plain)(x, y)
    if symbol in ("&", "|"):
        for arg, value in (("x_dtype", x), ("y_dtype", y)):
            if isinstance(value, float):
                raise TypeError(located(f"For primitive[{name}], the input argument[{arg}] must be a type of "
                                        "{Bool, Int32, Int64}, but got Float32."))
    elif not all(isinstance(v, int) and not isinstance(v, bool) for v in (x, y)):
        (tx, vx), (ty, vy) = _scalar_imm(x), _scalar_imm(y)
        raise TypeError(located(f"Unsupported input type. For {name}, only integer types are supported, but got "
                                f"type of x:{tx}, value of x:{vx}, type of y:{ty}, value of y:{vy}"))
    if any(not _INT64_MIN <= int(v) <= _INT64_MAX for v in (x, y)):
        raise RuntimeError(located("Unable to cast Python instance of type <class 'int'> to C++ type 'long'"))
    if symbol in ("<<", ">>") and y < 0:
        raise ValueError(located("For shift operator, shift count must be a non-negative integer."))
    out = plain(x, y)
    if symbol == "<<" and not _INT64_MIN <= out <= _INT64_MAX:
        raise RuntimeError(located("Arithmetic left shift causes int64 integer overflow."))
    return out


def bound_builtin(fn):
    """The graph version of a builtin method bound to a value (`x.count` of a list, `d.fromkeys` of a dict), or
    None when it has none."""
    owner, name = getattr(fn, "__self__", None), getattr(fn, "__name__", None)
    if name == "count" and isinstance(owner, (list, tuple)):
        return lambda value: graph_count(owner, value)
    if name == "fromkeys" and (owner is dict or isinstance(owner, dict)):
        return graph_fromkeys
    return None


BUILTINS = {builtins.print: graph_print, builtins.type: graph_type, builtins.round: graph_round, builtins.map: graph_map,
            builtins.filter: graph_filter, Tensor: graph_tensor}
