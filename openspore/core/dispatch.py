"""`bind(primitive, *args)`: the single entry of every op call.

PyNative: implicit dtype promotion → infer (argument checks, clear errors) → backend kernel → wrap →
record for autodiff only while a grad transform is active. Graph mode installs a tracer (see `push_tracer`)
that receives the same calls and builds IR instead of running kernels.
"""
import numpy as np

from .. import backends
from ..common import dtype as mstype
from ..common.errors import with_location
from . import autograd, read_snapshots
from .registry import accepted_signatures, prim as shared_prim
from .tensor import Tensor

_tracers = []  # graph-mode tracers, innermost last
# Operator sharding's layout propagation (openspore.parallel, which sits above core): installed only once a
# sharded tensor can exist (semi_auto_parallel over several processes); returns NOT_HANDLED for a call it
# leaves alone. None otherwise, so single-process calls pay one global lookup.
_layout_hook = None
_output_hook = None  # with it: a traced graph's sharded outputs are made whole before the graph returns them
NOT_HANDLED = object()


def set_layout_hook(fn, outputs=None):
    """Install fn(prim, args) -> result or NOT_HANDLED, consulted by every `bind` before anything else, and
    outputs(value) -> value, applied to what a traced graph returns."""
    global _layout_hook, _output_hook
    _layout_hook, _output_hook = fn, outputs


# Dispatch modes (utils.MsDispatchMode): user objects that receive every eager op call instead of the kernel,
# innermost last. Empty unless a mode is entered, so a call pays one truthiness test.
_dispatch_modes = []


def push_dispatch_mode(mode):
    _dispatch_modes.append(mode)


def pop_dispatch_mode(mode):
    if not _dispatch_modes or _dispatch_modes[-1] is not mode:
        raise RuntimeError("MsDispatchMode contexts must be exited in the reverse order they were entered.")
    _dispatch_modes.pop()


class OpFunc:
    """What a dispatch mode receives: the op's primitive `name`, and a call that runs the op itself."""

    def __init__(self, prim):
        self.prim = prim
        self.name = prim.name

    def __call__(self, *args, **kwargs):
        return bind(self.prim, *args, **kwargs)

    def __repr__(self):
        return f"OpFunc({self.name})"


def _to_dispatch_mode(prim, args):
    """Hand the call to the innermost mode. While its handler runs no mode sees ops, so `func(*args)` runs the
    op itself and the handler's own ops are not intercepted (MindSpore's behaviour)."""
    modes = _dispatch_modes[:]
    _dispatch_modes.clear()
    try:
        return modes[-1].__ms_dispatch__(OpFunc(prim), args)
    finally:
        _dispatch_modes[:] = modes


def push_tracer(tracer):
    _tracers.append(tracer)


def pop_tracer(tracer):
    assert _tracers and _tracers[-1] is tracer, "tracer stack out of order"
    _tracers.pop()


def current_tracer():
    return _tracers[-1] if _tracers else None


def bind(prim, *args, **kwargs):
    """Run (PyNative) or record (graph capture) one primitive call. `Primitive.__call__` is this function;
    inputs may be given by name too (`ops.ReduceSum(True)(x, axis=2)`), as MindSpore 2.x's primitives take them.

    This is the PyNative hot path (every op of every step passes here), hence one pass over the arguments that
    collects both the kernel's arrays and the call signature, and nothing done that a repeated call can skip.
    """
    if kwargs:
        args = prim.positional_inputs(args, kwargs)
    if _dispatch_modes and not _tracers:  # eager calls only: a graph being traced runs no ops now
        return _to_dispatch_mode(prim, args)
    if _layout_hook is not None:
        out = _layout_hook(prim, args)
        if out is not NOT_HANDLED:
            return out
    promote = prim.promote
    if promote is not None and not (promote == "all" and _one_dtype(args)):
        args = _promote(prim, args)
    if _tracers:
        return _tracers[-1].bind(prim, args)
    backend = _current_backend()
    native_type = backend.native_type
    arrays = []
    sig = []
    keyable = True  # False once an argument is something infer may read more of than a signature holds
    for a in args:
        if isinstance(a, Tensor):
            data = a._data
            if data.__class__ is not native_type and (data is None or not backend.is_native(data)):
                data = a.data_ref()  # lazy initialization, or an array of another backend or device
            arrays.append(data)
            # a Parameter where a Tensor was accepted, or the reverse, is checked again
            sig.append(a.__class__)
            sig.append(a._shape or a.shape)
            sig.append(a._dtype)
        else:
            arrays.append(_unwrap_seq(a))
            if keyable:
                item = _value_signature(a)
                keyable = item is not None
                sig.append(item)
    checked = prim._checked
    if checked is None:
        checked = accepted_signatures(prim)
    if checked is False or not keyable:
        _infer(prim, args)
    else:
        sig = tuple(sig)
        if sig not in checked:
            _infer(prim, args)
            if len(checked) > 64:
                checked.clear()
            checked.add(sig)
    kernel = backend._kernels.get(prim.__class__)
    if kernel is None:
        kernel = backend.kernel(prim)
    if autograd.ACTIVE and prim.side_effect and args:  # an in-place write: recorded reads keep the value they read
        read_snapshots.before_write(args[0], autograd.ACTIVE)
    try:
        if _capturing:  # a backward pass noting its kernel calls for replay (core/backward_replay.py)
            out = _capturing[-1].run(prim, kernel, backend.xp, args, arrays)
        else:
            out = kernel(prim, backend.xp, *arrays)
    except (ValueError, TypeError, IndexError, RuntimeError) as exc:
        if _capturing:
            _capturing[-1].stop(f"the '{prim.name}' kernel failed and was retried")
        out = _retry_or_raise(backend, prim, arrays, exc)
    dtype_of = backend.dtype_of
    if type(out) is tuple:
        outs = tuple(_wrap(o, dtype_of(o)) for o in out)
        result = outs
    else:
        result = _wrap(out, dtype_of(out))
        outs = (result,)
    if autograd.ACTIVE and prim.differentiable:
        autograd.record(prim, args, outs, result)
    return result


_current_backend = backends.current
_capturing = []  # the capture a backward walk reports its kernel calls to (core/backward_replay.py)
_wrap = Tensor._wrap


def _retry_or_raise(backend, prim, arrays, exc):
    """The backend's fallback result for a dtype its kernel lacks (torch on uint16/32/64), else the kernel's error
    with the op's name and the user's line. Only failed calls come here: the common path pays nothing."""
    fallback = backend.host_fallback(prim, exc)
    if fallback is None:
        raise with_location(type(exc)(f"For '{prim.name}', the {backend.name} kernel failed: {exc}")) from None
    try:
        return fallback(prim, backend.xp, *arrays)
    except (ValueError, TypeError, IndexError, RuntimeError) as again:
        raise with_location(type(again)(f"For '{prim.name}', the {backend.name} kernel failed: {again}")) from None


def _infer(prim, args):
    """Shape/dtype inference and argument checks; an argument error names the op, its inputs and the user's line."""
    try:
        prim.infer(*args)
    except (ValueError, TypeError, IndexError) as exc:
        raise with_location(_with_inputs(exc, prim, args)) from None


_PLAIN = (int, float, bool, str, type(None))
_PLAIN_TYPES = frozenset(_PLAIN)


def _value_signature(a):
    """The call-signature entry (see `bind`) of a non-Tensor argument, or None when `infer` could read more than
    the value. With each tensor's class, shape and dtype, these are all that `infer` reads of a call, so a
    primitive (or an equal one) that accepted a signature once need not check it again: PyNative repeats the
    same calls every step."""
    kind = type(a)
    if kind in _PLAIN_TYPES or isinstance(a, mstype.Type):
        return (kind, a)
    if kind is tuple or kind is list:
        types = tuple(map(type, a))
        if _PLAIN_TYPES.issuperset(types):  # shapes, axes, begin/end/strides: the values and their types
            return (kind, tuple(a), types)
        items = [kind]
        for b in a:
            if isinstance(b, Tensor):
                items.append((b.shape, b._dtype))
            elif type(b) in _PLAIN_TYPES:
                items.append((type(b), b))
            else:
                return None
        return tuple(items)
    return None


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


def _one_dtype(args):
    """Every argument a tensor, all of one dtype: nothing to promote (the usual case, checked before `_promote`)."""
    first = args[0] if args else None
    if not isinstance(first, Tensor):
        return False
    dtype = first._dtype
    for a in args:
        if not isinstance(a, Tensor) or a._dtype is not dtype:
            return False
    return True


def _promote(prim, args):
    """MindSpore implicit type conversion: weak Python scalars and mixed tensor dtypes meet at one dtype."""
    idx = prim.promote
    if idx == "all":
        idx = range(len(args))
        operands = args
    else:
        operands = [args[i] for i in idx]
    if operands and isinstance(operands[0], Tensor):  # fast path: every operand already a tensor of one dtype
        dt = operands[0]._dtype
        for a in operands:
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
            a = _wrap_int(a, target)
            if _tracers:
                new[i] = _tracers[-1].constant(a, target)
            else:
                new[i] = _scalar_tensor(a, target)
    return tuple(new)


def _wrap_int(value, dtype):
    """A Python int meeting an integer tensor is cast to its dtype as MindSpore casts it, wrapping around when out
    of range (int8 tensor + 300 adds 44), where torch would refuse the conversion."""
    if type(value) is not int or dtype.kind not in ("int", "uint"):
        return value
    info = np.iinfo(dtype.np_dtype)
    if info.min <= value <= info.max:
        return value
    span = info.max - info.min + 1
    return (value - info.min) % span + info.min


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
