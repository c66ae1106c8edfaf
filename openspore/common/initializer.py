"""Weight initializers (`openspore.common.initializer`), reproducible under `set_seed`.

An Initializer fills a numpy array; `initializer(init, shape, dtype)` returns a lazily initialised Tensor.
"""
import numpy as np

from . import dtype as mstype


class Initializer:
    """Base class: subclasses implement `_fill(shape, rng) -> np.ndarray (float64 ok)`."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self.shape = None
        self.dtype = mstype.float32

    def _fill(self, shape, rng):
        raise NotImplementedError

    def __call__(self, arr):
        """MindSpore style: fill a numpy array in place."""
        from ..core.random import default_generator
        arr[...] = self._fill(arr.shape, default_generator())
        return arr


class Zero(Initializer):
    def _fill(self, shape, rng):
        return np.zeros(shape)


class One(Initializer):
    def _fill(self, shape, rng):
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _fill(self, shape, rng):
        return np.full(shape, self.value)


_ALIASES = {"zeros": Zero, "zero": Zero, "ones": One, "one": One}


def _resolve(init):
    if isinstance(init, Initializer):
        return init
    if isinstance(init, str):
        key = init.lower()
        if key not in _ALIASES:
            raise ValueError(f"Unknown initializer name {init!r}; expected one of {sorted(_ALIASES)}.")
        return _ALIASES[key]()
    if isinstance(init, (int, float)) and not isinstance(init, bool):
        return Constant(init)
    raise TypeError(f"initializer expects an Initializer, a name, a number or a Tensor, but got {type(init).__name__}.")


def materialize(init, shape, dtype):
    """Evaluate an Initializer (or numpy array) to a numpy array of `dtype`."""
    from ..core.random import default_generator
    if isinstance(init, np.ndarray):
        return init.astype(dtype.np_dtype)
    init = _resolve(init)
    return np.asarray(init._fill(tuple(shape), default_generator())).astype(dtype.np_dtype)


def initializer(init, shape=None, dtype=mstype.float32):
    """`initializer(init, shape, dtype)` → a Tensor whose data is created on first use (`init_data()`)."""
    from ..core.tensor import Tensor
    if isinstance(init, Tensor):
        if shape is not None and tuple(init.shape) != tuple(shape if isinstance(shape, (tuple, list)) else (shape,)):
            raise ValueError(f"initializer: the Tensor's shape {init.shape} differs from the requested shape {shape}.")
        return init
    if isinstance(shape, int):
        shape = (shape,)
    if shape is None:
        raise ValueError("initializer needs a shape.")
    init = _resolve(init)
    return Tensor(dtype=mstype.to_dtype(dtype), shape=tuple(shape), init=init)
