"""Parameter (a named, trainable Tensor updated in place) and ParameterTuple (facts §1.5)."""
import itertools
import weakref

import numpy as np

from .. import backends
from .tensor import Tensor

_unnamed = itertools.count(1)
# How many `nn.no_init_parameters()` blocks are open: while > 0, a Parameter made from an Initializer keeps the
# initializer and draws its values only when first read, so a checkpoint loaded over it never pays for them.
DEFERRED_INIT = [0]


class Parameter(Tensor):
    """`Parameter(default_input, name=None, requires_grad=True, layerwise_parallel=False, parallel_optimizer=True)`.

    >>> import openspore as ms, numpy as np
    >>> w = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="w")
    >>> w
    Parameter (name=w, shape=(2, 2), dtype=Float32, requires_grad=True)
    """

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True, storage_format="", device=None):
        from ..common.initializer import Initializer, materialize  # initializer lives above core
        if isinstance(default_input, Initializer):
            if default_input.shape is None:
                raise ValueError("For 'Parameter', an Initializer needs a shape: use initializer(init, shape, dtype).")
            if DEFERRED_INIT[0]:  # inside nn.no_init_parameters(): materialized on first use (or set_data)
                super().__init__(None, dtype=default_input.dtype, shape=default_input.shape, init=default_input)
            else:
                array = materialize(default_input, default_input.shape, default_input.dtype)
                super().__init__(array, dtype=default_input.dtype)
        elif isinstance(default_input, Tensor) and default_input.has_init and DEFERRED_INIT[0]:
            super().__init__(None, dtype=default_input.dtype, shape=default_input.shape, init=default_input.init)
        elif isinstance(default_input, Tensor):
            if default_input.has_init:
                default_input.init_data()
            super().__init__(default_input.asnumpy(), dtype=default_input.dtype)
        elif isinstance(default_input, (np.ndarray, list, tuple, int, float, bool, np.generic)):
            super().__init__(default_input)
        else:
            raise TypeError(f"For 'Parameter', 'default_input' should be a Tensor, Initializer, numpy array or number, "
                            f"but got {type(default_input).__name__}.")
        if name is None:
            name = f"Parameter#{next(_unnamed)}"
            self._name_given = False
        else:
            if not isinstance(name, str):
                raise TypeError(f"For 'Parameter', 'name' should be a str, but got {type(name).__name__}.")
            self._name_given = True
        self.name = name
        self.requires_grad = bool(requires_grad)
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer
        self.sliced = False
        self.is_init = True
        self.comm_fusion = 1
        self.cache_enable = False

    @property
    def key(self):
        return id(self)

    @property
    def inited_param(self):
        return self

    def set_data(self, data, slice_shape=False):
        """Replace the value (shape may change only for a scalar broadcast); keeps the Parameter object."""
        backend = backends.current()
        if isinstance(data, Tensor):
            array = data.data_ref()
            if data.dtype is not self.dtype:
                array = backend.from_numpy(data.asnumpy().astype(self.dtype.np_dtype), copy=False)
            else:
                array = backend.adopt(array).clone() if hasattr(array, "clone") else array.copy()
        else:
            array = backend.from_numpy(np.asarray(data, dtype=self.dtype.np_dtype))
        if tuple(array.shape) != self.shape and not slice_shape:
            if tuple(array.shape) == ():
                array = backend.from_numpy(np.full(self.shape, backend.to_numpy(array), self.dtype.np_dtype))
            else:
                raise ValueError(f"For 'Parameter.set_data', the new shape {tuple(array.shape)} of parameter "
                                 f"'{self.name}' differs from its current shape {self.shape}.")
        self._set_data_ref(array, self.dtype)
        return self

    def assign_value(self, value):
        return self.set_data(value)

    def value(self):
        """The current value as a plain Tensor (a copy: later `set_data` calls do not change it); gradients with
        respect to this Parameter flow through it.

        >>> import openspore as ms
        >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
        >>> v = w.value()
        >>> type(v).__name__, v.asnumpy().tolist()
        ('Tensor', [1.0, 2.0])
        """
        from .primitive import PRIMITIVES  # the table is filled by openspore.ops, always imported by then
        return PRIMITIVES["Identity"]()(self)

    @property
    def data(self):
        """The Parameter's value as a plain Tensor, as `value()` (MindSpore's `param.data`; the migration guide
        reads checkpoints with `param.data.asnumpy()`).

        >>> import openspore as ms
        >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
        >>> type(w.data).__name__, w.data.asnumpy().tolist()
        ('Tensor', [1.0, 2.0])
        """
        return self.value()

    def clone(self, init="same"):
        """A copy with name unchanged (MindSpore also keeps the name; the owner re-prefixes it)."""
        p = Parameter(Tensor(self.asnumpy().copy(), dtype=self.dtype), name=self.name, requires_grad=self.requires_grad,
                      layerwise_parallel=self.layerwise_parallel, parallel_optimizer=self.parallel_optimizer)
        if init != "same":
            from ..common.initializer import initializer
            p.set_data(initializer(init, self.shape, self.dtype).init_data())
        # Optimizer state is cloned from its parameter; operator sharding slices the clones with the parameter.
        self.__dict__.setdefault("_clones", []).append(weakref.ref(p))
        return p

    def __repr__(self):
        return f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, requires_grad={self.requires_grad})"

    __str__ = __repr__  # print(param) shows the summary, as in MindSpore

    def __reduce__(self):
        return (_rebuild_parameter, (self.asnumpy(), self.dtype, self.name, self.requires_grad))

    def __deepcopy__(self, memo):
        out = Parameter(Tensor(self.asnumpy().copy(), dtype=self.dtype), name=self.name, requires_grad=self.requires_grad)
        memo[id(self)] = out
        return out


def _rebuild_parameter(array, dtype, name, requires_grad):
    return Parameter(Tensor(array, dtype=dtype), name=name, requires_grad=requires_grad)


class ParameterTuple(tuple):
    """A tuple of Parameters (the `weights` type for GradOperation(get_by_list=True))."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for i, p in enumerate(items):
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple accepts Parameters only, but element {i} is {type(p).__name__}.")
        return super().__new__(cls, items)

    def clone(self, prefix, init="same"):
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
