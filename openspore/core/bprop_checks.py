"""What MindSpore 2.10 checks and coerces in the result of a cell's custom `bprop` (the backward a user writes).

* In a compiled graph the result must be a tuple (one gradient per input): anything else is a TypeError.
* With `set_context(check_bprop=True)`, in both modes, each gradient of a Tensor input must have that input's
  shape (else ValueError) and dtype (else TypeError).
* In PyNative mode without the check, a gradient of another dtype is cast to the input's dtype, and one whose
  shape cannot be broadcast to the input's is a RuntimeError.

The documented `((dx, ...), {param: dw})` form is passed on unchecked (its parameter gradients are matched by
autograd).
"""
from .. import context
from .dispatch import cast, current_tracer
from .tensor import Tensor


def _broadcastable(shape, to):
    if len(shape) > len(to):
        return False
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(to)))


def _nth(i):
    return f"{i}th return value(gradient of the {i}th argument)"


def checked_bprop(net_name, bprop, n_inputs):
    """`bprop` wrapped with MindSpore's checks for a call of the cell named `net_name` with `n_inputs` positional
    inputs. Whether a graph is being compiled is read here, in core (the layers above stay mode-agnostic)."""
    graph = current_tracer() is not None
    check = context.get_context("check_bprop")
    who = "For user defined method 'bprop'" + ("" if graph else f" of net '{net_name}'")

    def run(*args):
        grads = bprop(*args)
        if graph and not isinstance(grads, tuple):
            kind = "Tensor" if isinstance(grads, Tensor) else type(grads).__name__
            raise TypeError(f"For bprop function, output should be a tuple, but got {kind} "
                            f"({getattr(bprop, '__qualname__', bprop)} returned a single value; return a tuple "
                            f"with one gradient per input).")
        if not (check or not graph) or not isinstance(grads, (tuple, list)) or \
                (len(grads) == 2 and isinstance(grads[1], dict)):
            return grads
        fixed = list(grads)
        for i, (x, g) in enumerate(zip(args[:n_inputs], grads)):
            if not (isinstance(x, Tensor) and isinstance(g, Tensor)):
                continue
            if tuple(g.shape) != tuple(x.shape):
                if check:
                    raise ValueError(f"{who}, the {_nth(i)} should have the same shape as the {i}th argument, "
                                     f"which is:{tuple(x.shape)}, but got: {tuple(g.shape)}.")
                if not _broadcastable(tuple(g.shape), tuple(x.shape)):
                    raise RuntimeError(f"For grad interface or custom function, grad tensor should be broadcast "
                                       f"to expected shape, but got {list(g.shape)} vs {list(x.shape)} (the "
                                       f"{_nth(i)} of {net_name}.bprop).")
            if g.dtype is not x.dtype:
                if check:
                    raise TypeError(f"{who}, the {_nth(i)} should have the same dtype as the {i}th argument, "
                                    f"which is:{x.dtype}, but got: {g.dtype}.")
                fixed[i] = cast(g, x.dtype)
        return type(grads)(fixed)
    return run
