"""Dynamic-shape declarations: `Symbol` (a named dynamic dimension with constraints), the placeholder Tensors
built from them (`Tensor(shape=(Symbol(), 3), dtype=...)`, `None` or -1 for an unconstrained axis,
`shape=None` for any rank), and `check_inputs`, which holds actual inputs to such declarations — what
`Cell.set_inputs` and `enable_dynamic` promise: inputs of any size the declaration allows, a clear error otherwise.

openspore compiles per input signature, so a declaration constrains the inputs rather than changing how many
graphs get compiled.

>>> import numpy as np, openspore as ms
>>> batch = ms.Symbol(max=64, divisor=8)
>>> spec = ms.Tensor(shape=(batch, 3), dtype=ms.float32)
>>> spec.shape, batch.matches(16), batch.matches(12)
((-1, 3), True, False)
"""
import functools
import inspect
import numbers

__all__ = ["Symbol", "check_inputs", "dynamic_shape_of", "enable_dynamic"]


def _int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"For 'Symbol', '{name}' must be an int >= {low}, but got {value!r}.")
    return int(value)


class Symbol:
    """`Symbol(max=0, min=1, divisor=1, remainder=0, unique=False)`: a dynamic dimension of size in [min, max]
    (max=0: no upper bound) with size % divisor == remainder. A `unique` symbol used on several axes demands
    the same size on all of them."""

    def __init__(self, max=0, min=1, divisor=1, remainder=0, unique=False, **kwargs):  # noqa: A002
        if kwargs:
            raise TypeError(f"For 'Symbol', got unexpected keyword arguments {sorted(kwargs)}.")
        self.max, self.min = _int("max", max, 0), _int("min", min, 1)
        self.divisor, self.remainder = _int("divisor", divisor, 1), _int("remainder", remainder, 0)
        if self.max and self.max < self.min:
            raise ValueError(f"For 'Symbol', 'max' ({max}) must be 0 (no bound) or at least 'min' ({min}).")
        if self.remainder >= self.divisor:
            raise ValueError(f"For 'Symbol', 'remainder' ({remainder}) must be less than 'divisor' ({divisor}).")
        if not isinstance(unique, bool):
            raise TypeError(f"For 'Symbol', 'unique' must be a bool, but got {type(unique).__name__}.")
        self.unique = unique

    def matches(self, size):
        return (size >= self.min and (not self.max or size <= self.max)
                and size % self.divisor == self.remainder)

    def __repr__(self):
        return (f"Symbol(max={self.max}, min={self.min}, divisor={self.divisor}, remainder={self.remainder}, "
                f"unique={self.unique})")


def dynamic_shape_of(tensor):
    """The declared shape of a placeholder Tensor (None items or Symbols for dynamic axes, or None for any
    rank), or the tensor's own shape for an ordinary Tensor."""
    return tensor.__dict__.get("_dynamic_shape", tuple(tensor.shape)) if hasattr(tensor, "__dict__") \
        else tuple(tensor.shape)


def _check_one(where, index, declared, actual, unique_sizes):
    from .tensor import Tensor
    if declared is None:
        return
    if not isinstance(declared, Tensor):
        return  # scalars and other values are not declared shapes
    if not isinstance(actual, Tensor):
        raise TypeError(f"For '{where}', input {index} was declared a Tensor by set_inputs, but got "
                        f"{type(actual).__name__}.")
    if actual.dtype != declared.dtype:
        raise TypeError(f"For '{where}', input {index} must have dtype {declared.dtype} as declared, but got "
                        f"{actual.dtype}.")
    shape = dynamic_shape_of(declared)
    if shape is None:
        return
    got = tuple(actual.shape)
    if not got and all(want is None or want == -1 for want in shape):
        return  # MindSpore takes a 0-d Tensor for a placeholder whose every axis is dynamic
    if len(got) != len(shape):
        raise ValueError(f"For '{where}', input {index} must have rank {len(shape)} (declared shape "
                         f"{_show(shape)}), but got shape {list(got)}.")
    for axis, (want, size) in enumerate(zip(shape, got)):
        if isinstance(want, Symbol):
            if not want.matches(size):
                raise ValueError(f"For '{where}', axis {axis} of input {index} has size {size}, which {want!r} "
                                 f"does not allow.")
            if want.unique:
                first = unique_sizes.setdefault(id(want), size)
                if first != size:
                    raise ValueError(f"For '{where}', a unique Symbol stands for sizes {first} and {size} "
                                     f"(axis {axis} of input {index}); they must be equal.")
        elif want is not None and want != -1 and want != size:
            raise ValueError(f"For '{where}', axis {axis} of input {index} must be {want} (declared shape "
                             f"{_show(shape)}), but got shape {list(got)}.")


def _show(shape):
    return "[" + ", ".join("?" if s is None or s == -1 or isinstance(s, Symbol) else str(s) for s in shape) + "]"


def check_inputs(where, declared, actual):
    """Raise a clear error unless the `actual` inputs fit the `declared` placeholders (a sequence, None for
    an input left undeclared)."""
    if len(actual) != len(declared):
        raise ValueError(f"For '{where}', set_inputs declared {len(declared)} inputs, but {len(actual)} were given.")
    unique_sizes = {}
    for i, (d, a) in enumerate(zip(declared, actual)):
        _check_one(where, i, d, a, unique_sizes)


def enable_dynamic(**kwargs):
    """Decorator: declare dynamic-shape inputs of a function by argument name, e.g.
    `@enable_dynamic(x=Tensor(shape=(None, 3), dtype=ms.float32))` above `@jit`; each call checks the named
    arguments against their placeholders (a Tensor, or a tuple/list of them for a sequence argument).

    >>> import numpy as np, openspore as ms
    >>> @ms.enable_dynamic(x=ms.Tensor(shape=(None, 3), dtype=ms.float32))
    ... @ms.jit
    ... def double(x):
    ...     return x * 2
    >>> double(ms.Tensor(np.ones((4, 3), np.float32))).shape
    (4, 3)
    """
    from .tensor import Tensor
    for name, spec in kwargs.items():
        items = spec if isinstance(spec, (tuple, list)) else (spec,)
        if not items or not all(isinstance(t, Tensor) for t in items):
            raise TypeError(f"For 'enable_dynamic', the declaration of '{name}' must be a Tensor or a tuple/list "
                            f"of Tensors, but got {spec!r}.")

    def decorate(fn):
        if not callable(fn):
            raise TypeError(f"enable_dynamic decorates a function, but got {type(fn).__name__}.")
        signature = inspect.signature(fn)
        unknown = sorted(set(kwargs) - set(signature.parameters))
        if unknown:
            raise ValueError(f"For 'enable_dynamic', {unknown} are not arguments of '{fn.__name__}' "
                             f"(its arguments: {list(signature.parameters)}).")

        @functools.wraps(fn)
        def wrapper(*args, **kw):
            bound = signature.bind(*args, **kw)
            for name, spec in kwargs.items():
                if name not in bound.arguments:
                    continue
                value = bound.arguments[name]
                if isinstance(spec, (tuple, list)):
                    if not isinstance(value, (tuple, list)):
                        raise TypeError(f"For '{fn.__name__}', '{name}' was declared a sequence of Tensors, but got "
                                        f"{type(value).__name__}.")
                    check_inputs(f"{fn.__name__}({name})", spec, value)
                else:
                    check_inputs(f"{fn.__name__}({name})", (spec,), (value,))
            return fn(*args, **kw)
        return wrapper
    return decorate
