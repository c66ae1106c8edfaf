"""Call signatures of compiled functions: what selects a compiled graph, and why a new one was needed.

A call's signature is built in one pass over its arguments. Tensors (Parameters passed as arguments too) become
graph inputs and contribute their (shape, dtype); Python values (ints, floats, strings, tuples of them, None)
are compile-time constants and contribute their value; other objects (Primitives, Cells, functions) are
constants by identity; `mutable(...)` values are variable inputs: only their structure (and the dtype they run
with) is in the key.

`describe_change(old, new)` turns two keys into the reasons logged with `log_recompile`, e.g.
"input 0 shape (2, 3) -> (4, 3)".
"""
import numpy as np

from ..core.tensor import Tensor

_SCALARS = (bool, int, float, complex, str, bytes, type(None))


# ---- mutable ----------------------------------------------------------------------------------------
class _MutableInt(int):
    __ms_mutable__ = True


class _MutableFloat(float):
    __ms_mutable__ = True


class _MutableBool(int):
    """bool cannot be subclassed: a mutable bool is an int 0/1 that prints and compiles as a bool."""
    __ms_mutable__ = True

    def __repr__(self):
        return "True" if self else "False"

    __str__ = __repr__


class _MutableTuple(tuple):
    __ms_mutable__ = True


class _MutableList(list):
    __ms_mutable__ = True


class _MutableDict(dict):
    __ms_mutable__ = True


def mutable(input_data, dynamic_len=False):
    """`mutable(input_data, dynamic_len=False)`: mark a scalar, tuple, list or dict as a variable graph input,
    so that a new value does not recompile the graph (a new length or structure still does).

    >>> import openspore as ms
    >>> n = ms.mutable(3)
    >>> n + 1
    4
    """
    if isinstance(dynamic_len, bool) is False:
        raise TypeError(f"For 'mutable', the 'dynamic_len' should be a bool, but got {type(dynamic_len).__name__}.")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise ValueError("For 'mutable', when 'dynamic_len' is True, the 'input_data' should be a tuple or list, "
                         f"but got {type(input_data).__name__}.")
    if isinstance(input_data, Tensor):
        input_data.__dict__["__ms_mutable__"] = True
        return input_data
    if type(input_data) is bool or isinstance(input_data, np.bool_):
        return _MutableBool(bool(input_data))
    if isinstance(input_data, (int, np.integer)):
        return _MutableInt(int(input_data))
    if isinstance(input_data, (float, np.floating)):
        return _MutableFloat(float(input_data))
    if isinstance(input_data, tuple):
        return _MutableTuple(_check_element(v) for v in input_data)
    if isinstance(input_data, list):
        return _MutableList(_check_element(v) for v in input_data)
    if isinstance(input_data, dict):
        return _MutableDict((k, _check_element(v)) for k, v in input_data.items())
    raise TypeError("For 'mutable', the 'input_data' should be one of (int, float, bool, Tensor, tuple, list, dict), "
                    f"but got {type(input_data).__name__}.")


def _check_element(value):
    if isinstance(value, (Tensor, bool, int, float, np.number, tuple, list, dict)):
        return value
    raise TypeError("For 'mutable', the elements of 'input_data' should be Tensors, numbers or nested "
                    f"tuple/list/dict of them, but got {type(value).__name__}.")


def is_mutable(value):
    return getattr(value, "__ms_mutable__", False) is True or (
        isinstance(value, Tensor) and value.__dict__.get("__ms_mutable__", False))


# ---- signatures -----------------------------------------------------------------------------------
def flatten_call(args, kwargs):
    """(key, leaves): the hashable key of a call and the values that become graph inputs, in order.

    Leaves are Tensors, or plain numbers taken from `mutable` values (fed as 0-d arrays)."""
    leaves = []
    key = tuple([_key(a, leaves, False) for a in args])
    if kwargs:
        key += (("kwargs", tuple([(k, _key(v, leaves, False)) for k, v in kwargs.items()])),)
    return key, leaves


def _key(a, leaves, variable):
    # The traversal mirrors the frontend's flattening (compiler/frontend/spec.py): Tensors (Parameters too) are
    # leaves in depth-first order through tuples, lists, dicts and namedtuples; anything else is a constant.
    t = type(a)
    if t is Tensor:
        leaves.append(a)
        return ("T", a.shape, a.dtype)
    if t in _SCALARS:
        if variable and t in (bool, int, float):
            leaves.append(a)
            return ("M", t.__name__)
        return ("V", t.__name__, repr(a) if t is float else a)  # repr: nan == nan, 0.0 != -0.0
    if isinstance(a, Tensor):
        leaves.append(a)
        return ("T", a.shape, a.dtype)
    if t in (_MutableInt, _MutableFloat, _MutableBool):
        leaves.append(a)
        return ("M", _number_kind(a))
    mut = variable or t in (_MutableTuple, _MutableList, _MutableDict)
    if t in (tuple, list, _MutableTuple, _MutableList) or (isinstance(a, tuple) and hasattr(t, "_fields")):
        return ("S", t.__name__, tuple([_key(v, leaves, mut) for v in a]))
    if t in (dict, _MutableDict):
        return ("D", tuple([(k, _key(v, leaves, mut)) for k, v in a.items()]))
    if isinstance(a, np.ndarray):
        return ("A", a.shape, str(a.dtype), a.tobytes())
    if isinstance(a, np.generic):
        return ("V", type(a).__name__, a.item())
    return ("O", _Ident(a))


def _number_kind(a):
    if isinstance(a, _MutableBool):
        return "bool"
    return "float" if isinstance(a, float) else "int"


class _Ident:
    """An object in a key by identity: the compiled graph holds that very object (a Primitive, a Cell, a
    function), so an equal-but-different object must not select it. Holding it keeps its id unique."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return type(other) is _Ident and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)

    def __repr__(self):
        return f"<{type(self.obj).__name__} at {id(self.obj):#x}>"


def replace_mutables(args, kwargs):
    """The arguments a graph is traced with: mutable numbers become 0-d Tensors (variable graph inputs)."""
    return tuple(_replace(a, False) for a in args), {k: _replace(v, False) for k, v in kwargs.items()}


def _replace(a, variable):
    t = type(a)
    if isinstance(a, Tensor):
        return a
    if t is _MutableBool or (variable and t is bool):
        return Tensor(bool(a))
    if t in (_MutableInt, _MutableFloat) or (variable and t in (int, float)):
        return Tensor(float(a) if isinstance(a, float) else int(a))
    mut = variable or t in (_MutableTuple, _MutableList, _MutableDict)
    if t in (tuple, _MutableTuple):
        return tuple(_replace(v, mut) for v in a)
    if t in (list, _MutableList):
        return [_replace(v, mut) for v in a]
    if isinstance(a, tuple) and hasattr(t, "_fields"):  # a namedtuple keeps its type
        return t(*(_replace(v, mut) for v in a))
    if t in (dict, _MutableDict):
        return {k: _replace(v, mut) for k, v in a.items()}
    return a


def leaf_array(leaf, backend):
    """The array fed to the compiled graph for one leaf."""
    if isinstance(leaf, Tensor):
        return leaf.data_ref()
    return Tensor(bool(leaf) if isinstance(leaf, (bool, _MutableBool)) else
                  (float(leaf) if isinstance(leaf, float) else int(leaf))).data_ref()


# ---- recompile reasons ----------------------------------------------------------------------------
def describe_change(old, new, names=("input",)):
    """Human-readable differences between two argument keys (tuples of per-argument keys)."""
    reasons = []
    if len(old) != len(new):
        reasons.append(f"number of arguments {len(old)} -> {len(new)}")
    for i, (a, b) in enumerate(zip(old, new)):
        label = f"{names[0]} {i}" if not (isinstance(a, tuple) and a and a[0] == "kwargs") else "keyword arguments"
        _diff(a, b, label, reasons)
    return reasons


def _diff(a, b, where, out):
    if a == b:
        return
    if not (isinstance(a, tuple) and isinstance(b, tuple) and a and b) or a[0] != b[0]:
        out.append(f"{where} kind {_kind(a)} -> {_kind(b)}")
        return
    tag = a[0]
    if tag == "T":
        if a[1] != b[1]:
            out.append(f"{where} shape {a[1]} -> {b[1]}")
        if a[2] != b[2]:
            out.append(f"{where} dtype {a[2]} -> {b[2]}")
    elif tag == "V":
        if a[1] != b[1]:
            out.append(f"{where} type {a[1]} -> {b[1]}")
        else:
            out.append(f"{where} value {_show(a)} -> {_show(b)} (Python values are compile-time constants; "
                       "use ms.mutable to pass a variable)")
    elif tag == "S":
        if a[1] != b[1] or len(a[2]) != len(b[2]):
            out.append(f"{where} {a[1]} of {len(a[2])} -> {b[1]} of {len(b[2])}")
        else:
            for k, (x, y) in enumerate(zip(a[2], b[2])):
                _diff(x, y, f"{where}[{k}]", out)
    elif tag in ("D", "kwargs"):
        ka, kb = dict(a[1]), dict(b[1])
        if list(ka) != list(kb):
            out.append(f"{where} keys {list(ka)} -> {list(kb)}")
        else:
            for k in ka:
                _diff(ka[k], kb[k], f"{where}[{k!r}]", out)
    elif tag == "O":
        out.append(f"{where} object {a[1]!r} -> {b[1]!r} (objects are compile-time constants)")
    else:
        out.append(f"{where} value changed")


def _kind(k):
    tags = {"T": "Tensor", "V": "value", "S": "sequence", "D": "dict", "M": "mutable",
            "A": "numpy array", "O": "object"}
    if isinstance(k, tuple) and k and k[0] in tags:
        return f"{tags[k[0]]}({k[1]})" if k[0] in ("V", "S") else tags[k[0]]
    return type(k).__name__


def _show(key):
    text = key[2] if key[1] == "float" else repr(key[2])
    return text if len(text) <= 40 else text[:37] + "..."
