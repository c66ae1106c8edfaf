"""The slow path of `Cell.__call__`: mixed-precision input casts, forward/backward hooks and custom `bprop`.

Kept apart from cell.py so the fast path there stays a two-line method.
"""
import itertools
import sys
import weakref

from ..core import autograd
from ..core.bprop_checks import checked_bprop
from ..core.dispatch import cast
from ..core.tensor import Tensor
from ..core.symbol import check_inputs

_hook_ids = itertools.count()


class HookHandle:
    """Returned by `register_*_hook`; `remove()` unregisters the hook (also usable as a context manager)."""

    def __init__(self, cell, table):
        self.id = next(_hook_ids)
        self._cell = weakref.ref(cell)
        self._table = table

    def remove(self):
        cell = self._cell()
        if cell is not None and cell.__dict__[self._table].pop(self.id, None) is not None:
            cell._refresh_call_path()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


def _cast_value(value, dtype):
    if isinstance(value, Tensor):
        if value.dtype.kind == "float" and value.dtype is not dtype:
            return cast(value, dtype)
        return value
    if type(value) in (tuple, list):
        return type(value)(_cast_value(v, dtype) for v in value)
    return value


def _as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _run_pre_hooks(cell, hooks, args, kwargs):
    for hook_fn, options in list(hooks.values()):
        if options.get("with_kwargs"):
            result = hook_fn(cell, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict)):
                    raise RuntimeError("A forward pre-hook registered with with_kwargs=True must return None or a "
                                       f"tuple (new_args, new_kwargs), but got {type(result).__name__}.")
                args, kwargs = _as_tuple(result[0]), result[1]
        else:
            result = hook_fn(cell, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def _run_forward_hooks(cell, hooks, args, kwargs, output, only_always=False):
    for hook_fn, options in list(hooks.values()):
        if only_always and not options.get("always_call"):
            continue
        if options.get("with_kwargs"):
            result = hook_fn(cell, args, kwargs, output)
        else:
            result = hook_fn(cell, args, output)
        if result is not None:
            output = result
    return output


def _replace_grads(grads, result, what):
    if result is None:
        return grads
    result = _as_tuple(result)
    if len(result) != len(grads):
        raise ValueError(f"A backward hook must return {len(grads)} {what} gradients, but returned {len(result)}.")
    return result


def _wrap_inputs(cell, args, state):
    """Route the tensor inputs through one identity node whose backward calls the backward hooks."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    if not positions or not cell._backward_hooks:
        return args

    def bprop(*inputs_out_dout):
        grads = _as_tuple(inputs_out_dout[-1])
        for hook_fn, _ in list(cell._backward_hooks.values()):
            grads = _replace_grads(grads, hook_fn(cell, grads, state.get("grad_output")), "input")
        return grads

    fresh = autograd.custom_bprop_call(lambda *xs: xs, bprop, tuple(args[i] for i in positions))
    new_args = list(args)
    for i, t in zip(positions, fresh):
        new_args[i] = t
    return tuple(new_args)


def _wrap_outputs(cell, output, state):
    """Route the outputs through an identity node that records (and lets pre-hooks edit) the output gradients."""
    if isinstance(output, Tensor):
        tensors = (output,)
    elif isinstance(output, tuple) and output and all(isinstance(o, Tensor) for o in output):
        tensors = output
    else:
        return output

    def bprop(*inputs_out_dout):
        grads = _as_tuple(inputs_out_dout[-1])
        for hook_fn, _ in list(cell._backward_pre_hooks.values()):
            grads = _replace_grads(grads, hook_fn(cell, grads), "output")
        state["grad_output"] = grads
        return grads

    fresh = autograd.custom_bprop_call(lambda *ys: ys, bprop, tensors)
    return fresh[0] if isinstance(output, Tensor) else tuple(fresh)


def complex_call(cell, args, kwargs):
    d = cell.__dict__
    if d["_dynamic_inputs"] is not None:
        check_inputs(cell.cls_name, d["_dynamic_inputs"][0], args)
    dtype = d["_mixed_dtype"]
    if dtype is not None:
        args = tuple(_cast_value(a, dtype) for a in args)
        kwargs = {k: _cast_value(v, dtype) for k, v in kwargs.items()}
    if d["_forward_pre_hooks"]:
        args, kwargs = _run_pre_hooks(cell, d["_forward_pre_hooks"], args, kwargs)
    backward = bool(autograd.ACTIVE) and bool(d["_backward_hooks"] or d["_backward_pre_hooks"])
    state = {}
    if backward:
        args = _wrap_inputs(cell, args, state)
    try:
        if d["_has_bprop"]:
            if kwargs:
                raise TypeError(f"For '{cell.cls_name}', a cell with a custom 'bprop' takes positional inputs only, "
                                f"but got keyword inputs {sorted(kwargs)}.")
            bprop = checked_bprop(cell.cls_name, cell.bprop, len(args))
            output = autograd.custom_bprop_call(cell.construct, bprop, args, tuple(cell.trainable_params()))
        elif d["_recompute_kwargs"] is not None and autograd.ACTIVE:
            construct = cell.construct
            output = autograd.recompute_call(lambda *a: construct(*a, **kwargs), args,
                                             tuple(cell.trainable_params()))
        else:
            output = cell.construct(*args, **kwargs)
    except Exception:
        _run_forward_hooks(cell, d["_forward_hooks"], args, kwargs, None, only_always=True)
        raise
    if d["_forward_hooks"]:
        output = _run_forward_hooks(cell, d["_forward_hooks"], args, kwargs, output)
    if backward:
        output = _wrap_outputs(cell, output, state)
    return output


def _inside_a_cell_call():
    """Whether a Cell.__call__ is running further up the stack (the caller of this cell's own __call__ on):
    an inner cell of a network, e.g. a network evaluated through WithEvalCell, records nothing."""
    from .cell import Cell
    code = Cell.__call__.__code__
    frame = sys._getframe(3)  # _inside_a_cell_call ← recorded_call ← this cell's __call__ ← its caller
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def recorded_call(cell, args, kwargs):
    """A PyNative call of a cell marked `set_grad()` outside any gradient transform: the forward is recorded
    (every Tensor input and every parameter differentiable) so that a following `GradOperation` / `grad` /
    `value_and_grad` of the same cell on the same input objects differentiates this run instead of running the
    forward again, as MindSpore does (the forward's side effects, e.g. BatchNorm statistics, happen once, and a
    custom bprop sees this run's output). The previous record of the cell is freed."""
    d = cell.__dict__
    if _inside_a_cell_call():  # only the outermost cell's run is kept (MindSpore's "top cell")
        return cell.construct(*args, **kwargs) if d["_plain_call"] else complex_call(cell, args, kwargs)
    old = d.get("_grad_record")
    if old is not None:
        d["_grad_record"] = None
        old.drop()
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
    weights = tuple({id(p): p for p in cell.get_parameters()}.values())
    call = cell.construct if d["_plain_call"] else (lambda *a: complex_call(cell, a, kwargs))
    run = (lambda *a: call(*a, **kwargs)) if d["_plain_call"] else call
    rec = autograd.record_forward(run, args, {}, positions, weights)
    d["_grad_record"] = rec
    return rec.out
