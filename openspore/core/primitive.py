"""The primitive base class and the primitive table.

A primitive is defined once, as a subclass registered with `@register`: its attributes with defaults,
`infer` (shape/dtype inference and argument checks), `bprop` (backward rule written with openspore ops, so
gradients differentiate again), one kernel method per backend (`numpy`, `torch`), and `samples` that drive
the generated tests. Instances are the MindSpore-style Primitive objects: `ops.MatMul(transpose_b=True)(a, b)`.
"""
import numpy as np

from ..common import dtype as mstype

PRIMITIVES = {}  # name -> Primitive subclass, in registration order


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
    random = False              # consumes the RNG stream
    promote = None              # indices of inputs that take part in implicit dtype promotion, or "all"
    none_cotangents = False     # bprop takes None for outputs nobody differentiated (else zeros are made for them)
    infer_reads_signature_only = True  # infer reads tensors' shape/dtype only (False: it reads values too)
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
        self.attrs[name] = value
        setattr(self, name, value)
        self.__dict__.pop("_checked", None)  # signatures accepted under the old attributes (core/dispatch.py)
        return self

    def shard(self, in_strategy=None, out_strategy=None):
        """Split this operator across the devices: `in_strategy` has one tuple per input giving the number of
        slices of each dimension, e.g. `ops.MatMul().shard(((1, 2), (2, 1)))`. Acts in semi_auto_parallel /
        auto_parallel mode over more than one process (openspore.parallel); returns self."""
        for name, strategy in (("in_strategy", in_strategy), ("out_strategy", out_strategy)):
            if strategy is None:
                continue
            if not isinstance(strategy, tuple) or not all(
                    isinstance(s, tuple) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1
                                                 for d in s) for s in strategy):
                raise TypeError(f"For '{self.name}.shard', the '{name}' must be a tuple of tuples of positive ints "
                                f"(one tuple per input), but got {strategy!r}.")
        self.in_strategy, self.out_strategy = in_strategy, out_strategy
        return self

    def __call__(self, *args):
        if self.in_strategy is not None and _SHARD_HOOK:
            return _SHARD_HOOK[0](self, args)
        return _bind(self, *args)

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


def set_shard_hook(fn):
    """Install the function that runs a primitive carrying a shard strategy: fn(prim, args)."""
    _SHARD_HOOK[:] = [fn]


def register(cls):
    """Add a Primitive subclass to the table (class decorator)."""
    if cls.name in PRIMITIVES and PRIMITIVES[cls.name] is not cls:
        raise ValueError(f"Primitive '{cls.name}' is registered twice ({PRIMITIVES[cls.name].__module__} and {cls.__module__}).")
    if not cls.differentiable and not cls.nondiff_reason:
        raise ValueError(f"Primitive '{cls.name}' is marked non-differentiable without a reason.")
    PRIMITIVES[cls.name] = cls
    return cls


def primitive_table():
    """name → Primitive class for every registered primitive."""
    return dict(PRIMITIVES)


def _bind(prim, *args):
    from .dispatch import bind
    return bind(prim, *args)


def abstract_of(value):
    """AbstractTensor for a Tensor-like value (anything with .shape and .dtype)."""
    return AbstractTensor(value.shape, value.dtype)


def float_dtypes():
    return mstype.FLOAT_DTYPES
