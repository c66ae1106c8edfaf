"""`bind(primitive, *args)`: the single entry of every op call.

PyNative: implicit dtype promotion → infer (argument checks, clear errors) → backend kernel → wrap →
record for autodiff only while a grad transform is active. Graph mode installs a tracer (see `push_tracer`)
that receives the same calls and builds IR instead of running kernels.
"""
import numpy as np

from .. import backends
from ..common import dtype as mstype
from ..common.errors import with_location
from . import autograd
from .registry import accepted_signatures, prim as shared_prim
from .tensor import Tensor

_tracers = []  # graph-mode tracers, innermost last


def push_tracer(tracer):
    _tracers.append(tracer)


def pop_tracer(tracer):
    assert _tracers and _tracers[-1] is tracer, "tracer stack out of order"
    _tracers.pop()


def current_tracer():
    return _tracers[-1] if _tracers else None


def bind(prim, *args):
    """Run (PyNative) or record (graph capture) one primitive call. `Primitive.__call__` is this function."""
    if prim.promote is not None:
        args = _promote(prim, args)
    if _tracers:
        return _tracers[-1].bind(prim, args)
    checked = prim._checked
    if checked is None:
        checked = accepted_signatures(prim)
    signature = _signature(args) if checked is not False else None
    if signature is None or signature not in checked:
        try:
            prim.infer(*args)
        except (ValueError, TypeError, IndexError) as exc:
            raise with_location(_with_inputs(exc, prim, args)) from None
        if signature is not None:
            if len(checked) > 64:
                checked.clear()
            checked.add(signature)
    backend = backends.current()
    arrays = [a.data_ref() if isinstance(a, Tensor) else _unwrap_seq(a) for a in args]
    kernel = backend._kernels.get(prim.__class__) or backend.kernel(prim)
    try:
        out = kernel(prim, backend.xp, *arrays)
    except (ValueError, TypeError, IndexError, RuntimeError) as exc:
        raise with_location(type(exc)(f"For '{prim.name}', the {backend.name} kernel failed: {exc}")) from None
    dtype_of = backend.dtype_of
    if type(out) is tuple:
        outs = tuple(Tensor._wrap(o, dtype_of(o)) for o in out)
        result = outs
    else:
        result = Tensor._wrap(out, dtype_of(out))
        outs = (result,)
    if autograd.ACTIVE and prim.differentiable:
        autograd.record(prim, args, outs, result)
    return result


_PLAIN = (int, float, bool, str, type(None))
_PLAIN_TYPES = frozenset(_PLAIN)


def _signature(args):
    """What `infer` reads of a call (tensor shapes and dtypes, plain Python values with their types), or None
    when an argument is anything else. `infer` is a function of exactly this, so a primitive (or an equal one)
    that accepted a signature once need not check it again: PyNative repeats the same calls every step."""
    sig = []
    for a in args:
        if isinstance(a, Tensor):
            sig.append(a.__class__)  # a Parameter where a Tensor was accepted, or the reverse, is checked again
            sig.append(a.shape)
            sig.append(a._dtype)
            continue
        kind = type(a)
        if kind in _PLAIN_TYPES or isinstance(a, mstype.Type):
            sig.append((kind, a))
        elif kind is tuple or kind is list:
            types = tuple(map(type, a))
            if _PLAIN_TYPES.issuperset(types):  # shapes, axes, begin/end/strides: values and their types
                sig.append((kind, tuple(a), types))
                continue
            items = [kind]
            for b in a:
                if isinstance(b, Tensor):
                    items.append((b.shape, b._dtype))
                elif type(b) in _PLAIN_TYPES:
                    items.append((type(b), b))
                else:
                    return None
            sig.append(tuple(items))
        else:
            return None
    return tuple(sig)


def _with_inputs(exc, prim, args):
    """Append what the op received (names, shapes, dtypes) to an argument error."""
    if not args:
        return exc
    details = "\n".join(f"  {_input_name(prim, i)}: {_describe(a)}" for i, a in enumerate(args))
    try:
        return type(exc)(f"{exc.args[0] if exc.args else exc}\n{details}")
    except Exception:  # an exception type with an unusual constructor: keep it as it is
        return exc


def _describe(value):
    if isinstance(value, Tensor):
        return f"Tensor(shape={list(value.shape)}, dtype={value.dtype})"
    if type(value) in (tuple, list) and value and all(isinstance(v, Tensor) for v in value):
        inner = ", ".join(_describe(v) for v in value)
        return f"{type(value).__name__} of {len(value)} tensors: {inner}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _unwrap_seq(value):
    if type(value) in (tuple, list) and value and isinstance(value[0], Tensor):
        return [v.data_ref() for v in value]
    return value


def _promote(prim, args):
    """MindSpore implicit type conversion: weak Python scalars and mixed tensor dtypes meet at one dtype."""
    idx = range(len(args)) if prim.promote == "all" else prim.promote
    first = args[idx[0]] if len(args) else None
    if isinstance(first, Tensor):  # fast path: every operand already a tensor of one dtype
        dt = first._dtype
        for i in idx:
            a = args[i]
            if not isinstance(a, Tensor) or a._dtype is not dt:
                break
        else:
            return args
    if any(isinstance(args[i], (np.ndarray, np.generic)) for i in idx):
        # numpy operands (np.float32(2) * t, array + t) take part as tensors of their own dtype, never weak
        args = tuple(Tensor(a) if i in idx and isinstance(a, (np.ndarray, np.generic)) else a
                     for i, a in enumerate(args))
    operands = []
    for i in idx:
        a = args[i]
        if isinstance(a, Tensor):
            operands.append(a.dtype)
        elif isinstance(a, (bool, int, float, complex)):
            operands.append(a)
        else:
            raise with_location(TypeError(
                f"For '{prim.name}', input '{_input_name(prim, i)}' must be a Tensor or a number, but got {type(a).__name__}."))
    target = mstype.result_type(*operands)
    new = list(args)
    for i in idx:
        a = args[i]
        if isinstance(a, Tensor):
            if a.dtype is not target:
                new[i] = cast(a, target)
        else:
            if _tracers:
                new[i] = _tracers[-1].constant(a, target)
            else:
                new[i] = _scalar_tensor(a, target)
    return tuple(new)


_scalar_cache = {}


def _scalar_tensor(value, dtype):
    """0-d tensors for Python scalars, cached: `x * 0.5` in a loop should not allocate every time.
    Cached tensors are never written to (no primitive assigns into a promoted operand)."""
    backend = backends.current()
    key = (type(value), value, dtype, id(backend))
    t = _scalar_cache.get(key)
    if t is None:
        if len(_scalar_cache) > 4096:
            _scalar_cache.clear()
        t = _scalar_cache[key] = Tensor._wrap(backend.scalar_array(value, dtype), dtype)
    return t


def _input_name(prim, i):
    return prim.input_names[i] if i < len(prim.input_names) else f"input{i}"


def cast(x, dtype):
    """Cast through the `Cast` primitive (so autodiff and graph capture see it)."""
    return bind(shared_prim("Cast"), x, dtype)
