"""The primitive base class and the primitive table.

A primitive is defined once, as a subclass registered with `@register`: its attributes with defaults,
`infer` (shape/dtype inference and argument checks), `bprop` (backward rule written with openspore ops, so
gradients differentiate again), one kernel method per backend (`numpy`, `torch`), and `samples` that drive
the generated tests. Instances are the MindSpore-style Primitive objects: `ops.MatMul(transpose_b=True)(a, b)`.
Code inside openspore gets shared instances from `registry.prim` instead of building one per call.
"""
import inspect

import numpy as np

from .dispatch import bind
from .registry import PRIMITIVES, primitive_table, prim, register  # noqa: F401  (the table lives in registry)


class AbstractTensor:
    """Shape and dtype of a value without its data (what `infer` returns; graph mode infers on these)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape)) if self.shape else 1

    def __eq__(self, other):
        return isinstance(other, AbstractTensor) and self.shape == other.shape and self.dtype == other.dtype

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return f"Tensor[{self.dtype}]{list(self.shape)}"


class Sample:
    """One sample input for the generated op tests.

    `args`: numpy arrays become Tensors, anything else passes as is; `attrs`: primitive attributes;
    `grad`: indices of args to check numerically (None = every float array); `rtol`/`atol` for forward checks.
    """

    __slots__ = ("args", "attrs", "grad", "rtol", "atol", "name")

    def __init__(self, *args, attrs=None, grad=None, rtol=1e-5, atol=1e-6, name=""):
        self.args, self.attrs, self.grad, self.rtol, self.atol, self.name = args, attrs or {}, grad, rtol, atol, name

    def __repr__(self):
        shapes = [getattr(a, "shape", a) for a in self.args]
        return f"Sample({self.name or ''}{shapes}, attrs={self.attrs})"


class Primitive:
    """Base of every primitive. Subclasses set `attr_defaults` and implement infer/bprop/kernels/samples."""

    name = "Primitive"
    attr_defaults = {}          # ordered: positional constructor arguments map onto these
    input_names = ()            # for error messages and the IR
    differentiable = True       # False → set `nondiff_reason`
    nondiff_reason = None
    side_effect = False         # writes into an input (Assign, optimizer updates): never reordered or dropped
    writes_input = True         # with side_effect: False for an effect outside the graph's values (Print)
    random = False              # consumes the RNG stream
    promote = None              # indices of inputs that take part in implicit dtype promotion, or "all"
    none_cotangents = False     # bprop takes None for outputs nobody differentiated (else zeros are made for them)
    # bprop computes only through primitive calls, from shapes, dtypes and attributes (no tensor value read in
    # Python, no state): a backward made of such rules may be replayed kernel by kernel (core/backward_replay.py)
    bprop_replayable = False
    infer_reads_signature_only = True  # infer reads tensors' shape/dtype only (False: it reads values too)
    _checked = None  # signatures infer accepted, shared by equal instances (registry.accepted_signatures)
    in_strategy = None          # operator-level sharding set by `shard` (used in semi_auto_parallel mode)
    out_strategy = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__

    def __init__(self, *args, **kwargs):
        defaults = self.attr_defaults
        if len(args) > len(defaults):
            raise TypeError(f"{self.name}() takes at most {len(defaults)} positional attributes "
                            f"({', '.join(defaults)}), but {len(args)} were given.")
        attrs = dict(defaults)
        for key, value in zip(defaults, args):
            attrs[key] = value
        for key, value in kwargs.items():
            if key not in defaults:
                raise TypeError(f"{self.name}() got an unexpected attribute {key!r}; "
                                f"its attributes are {list(defaults) or 'none'}.")
            attrs[key] = value
        self.attrs = attrs
        self.__dict__.update(attrs)
        self.instance_name = ""
        self.check_attrs()

    def check_attrs(self):
        """Validate attributes at construction (override); raise ValueError/TypeError naming the attribute."""

    def set_prim_instance_name(self, name):
        self.instance_name = name
        return self

    def add_prim_attr(self, name, value):
        if self.__dict__.get("_shared"):
            raise RuntimeError(f"{self!r} is a shared instance (core/registry.prim) used all over openspore; "
                               f"build your own with ops.{self.name}(...) to change its attributes.")
        self.attrs[name] = value
        setattr(self, name, value)
        self.__dict__.pop("_checked", None)  # signatures accepted under the old attributes (core/dispatch.py)
        return self

    def positional_inputs(self, args, kwargs):
        """`args` followed by the inputs given by name, in the order of `input_names` (or of infer's
        parameters), with infer's defaults for those skipped; an unknown or repeated name is a TypeError.

        >>> from openspore import ops
        >>> ops.ReduceSum(True).positional_inputs((1,), {"axis": 2})
        (1, 2)
        """
        params = list(inspect.signature(type(self).infer).parameters.values())[1:]
        names = list(self.input_names) or [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        for key in kwargs:
            if key not in names:
                raise TypeError(f"For '{self.name}', got an unexpected input {key!r}; its inputs are {names}.")
            if names.index(key) < len(args):
                raise TypeError(f"For '{self.name}', the input {key!r} is given both by position and by name.")
        out = list(args)
        last = max(names.index(key) for key in kwargs)
        for i in range(len(args), last + 1):
            if names[i] in kwargs:
                out.append(kwargs[names[i]])
            elif i < len(params) and params[i].default is not params[i].empty:
                out.append(params[i].default)
            else:
                raise TypeError(f"For '{self.name}', the input {names[i]!r} is missing (it has no default).")
        return tuple(out)

    # Calling a primitive is binding it (PyNative: run it; graph capture: record it): no wrapper frame between
    __call__ = bind

    def shard(self, in_strategy=None, out_strategy=None):
        """Split this operator across the devices: `in_strategy` has one tuple per input giving the number of
        slices of each dimension, e.g. `ops.MatMul().shard(((1, 2), (2, 1)))`. Acts in semi_auto_parallel /
        auto_parallel mode over more than one process (openspore.parallel); returns self.

        The instance moves to a subclass whose call goes through the sharding hook, so primitives nobody
        shards keep the plain `__call__ = bind` (no check on the hot path)."""
        if self.__dict__.get("_shared"):
            raise RuntimeError(f"{self!r} is a shared instance (core/registry.prim) used all over openspore; "
                               f"build your own with ops.{self.name}(...) to shard it.")
        # An ms.Layout (openspore.parallel) stands for the strategy it implies: it converts itself.
        in_strategy, out_strategy = (tuple(s.to_strategy() if hasattr(s, "to_strategy") else s for s in st)
                                     if isinstance(st, tuple) else st for st in (in_strategy, out_strategy))
        for name, strategy in (("in_strategy", in_strategy), ("out_strategy", out_strategy)):
            if strategy is None:
                continue
            if not isinstance(strategy, tuple) or not all(
                    isinstance(s, tuple) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1
                                                 for d in s) for s in strategy):
                raise TypeError(f"For '{self.name}.shard', the '{name}' must be a tuple of tuples of positive ints "
                                f"(one tuple per input), but got {strategy!r}.")
        self.in_strategy, self.out_strategy = in_strategy, out_strategy
        if in_strategy is not None and not getattr(type(self), "_sharded_class", False):
            self.__class__ = _sharded_class(type(self))
        return self

    def __repr__(self):
        inner = ", ".join(f"{k}={v}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]" + (f"<{inner}>" if inner else "")

    def __eq__(self, other):
        return type(self) is type(other) and self.attrs == other.attrs

    def __hash__(self):
        return hash((self.name, tuple(sorted((k, repr(v)) for k, v in self.attrs.items()))))

    # --- the definition (override in subclasses) -------------------------------------------------
    def infer(self, *args):
        raise NotImplementedError(f"Primitive '{self.name}' has no shape/dtype inference.")

    def bprop(self, *args_out_dout):
        raise NotImplementedError(f"Primitive '{self.name}' has no backward rule.")

    @classmethod
    def samples(cls, rng):
        return ()


_SHARD_HOOK = []  # the sharded call openspore.parallel installs (core sits below it in the layering)
_SHARDED_CLASSES = {}


def set_shard_hook(fn):
    """Install the function that runs a primitive carrying a shard strategy: fn(prim, args)."""
    _SHARD_HOOK[:] = [fn]


def _sharded_call(primitive, *args):
    if primitive.in_strategy is not None and _SHARD_HOOK:
        return _SHARD_HOOK[0](primitive, args)
    return bind(primitive, *args)


def _sharded_class(cls):
    """`cls` with a call that goes through the sharding hook (one subclass per primitive class, same name)."""
    sub = _SHARDED_CLASSES.get(cls)
    if sub is None:
        sub = type(cls.__name__, (cls,), {"__call__": _sharded_call, "_sharded_class": True, "name": cls.name,
                                          "__module__": cls.__module__, "__qualname__": cls.__qualname__})
        _SHARDED_CLASSES[cls] = sub
    return sub
