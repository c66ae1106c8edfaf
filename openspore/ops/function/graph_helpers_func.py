"""Functional helpers MindSpore's compiler emits and exports: environments (key → value maps that gradient
accumulation threads through a graph), iteration (`ms_hasnext`/`ms_next` over tuples, lists, dicts and Tensors),
`hyper_add` over nested structures and the flat in-place `put_`.

>>> import openspore as ms
>>> from openspore import ops
>>> env = ops.environ_set(ops.environ_create(), "w", ms.Tensor([1.0]))
>>> ops.environ_get(ops.environ_add(env, env), "w", None).asnumpy().tolist()
[2.0]
>>> ops.ms_next((1, 2, 3))
(1, (2, 3))
"""
import numpy as np

from ...core.tensor import Tensor
from .. import function as F

__all__ = ["environ_create", "environ_set", "environ_get", "environ_add", "env_get", "ms_hasnext", "ms_next",
           "iter_converter", "hyper_add", "put_"]


class EnvType:
    """An immutable key → value map; keys are Parameters (by identity) or hashable Python values."""
    __slots__ = ("_items",)

    def __init__(self, items=()):
        self._items = tuple(items)

    @staticmethod
    def _key(key):
        return ("id", id(key)) if isinstance(key, Tensor) else ("value", key)

    def get(self, key, default):
        k = self._key(key)
        for kk, _, value in self._items:
            if kk == k:
                return value
        return default

    def set(self, key, value):
        k = self._key(key)
        return EnvType(tuple(item for item in self._items if item[0] != k) + ((k, key, value),))

    def __len__(self):
        return len(self._items)

    def __repr__(self):
        return f"EnvType({len(self._items)} entries)"


def _env(api, env):
    if not isinstance(env, EnvType):
        raise TypeError(f"For '{api}', 'env' must be made by environ_create(), but got {type(env).__name__}.")
    return env


def environ_create():
    """A new, empty environment."""
    return EnvType()


def environ_set(env, key, value):
    """A copy of env with key bound to value."""
    return _env("environ_set", env).set(key, value)


def environ_get(env, key, default):
    """The value bound to key, or default."""
    return _env("environ_get", env).get(key, default)


def env_get(env, key, default):
    """The value bound to key, or default (the older name of environ_get)."""
    return _env("env_get", env).get(key, default)


def environ_add(env1, env2):
    """Every binding of both environments; values of a key bound in both are added."""
    out = _env("environ_add", env1)
    for _, key, value in _env("environ_add", env2)._items:
        mine = out.get(key, None)
        out = out.set(key, value if mine is None else hyper_add(mine, value))
    return out


def iter_converter(x):
    """What a for loop iterates: a tuple/list as is, a dict's keys, a Tensor's slices along axis 0."""
    if isinstance(x, (tuple, list)):
        return x
    if isinstance(x, dict):
        return tuple(x.keys())
    if isinstance(x, Tensor):
        if not x.shape:
            raise TypeError("For 'iter_converter', a 0-D Tensor cannot be iterated.")
        return tuple(x[i] for i in range(x.shape[0]))
    raise TypeError(f"For 'iter_converter', {type(x).__name__} is not iterable.")


def ms_hasnext(xs):
    """Whether the iterable still holds an element."""
    return len(iter_converter(xs)) > 0


def ms_next(xs):
    """(first element, the rest)."""
    items = iter_converter(xs)
    if not items:
        raise StopIteration("ms_next: the sequence is empty.")
    return items[0], items[1:]


def hyper_add(x, y):
    """x + y elementwise through matching tuples, lists and dicts (HyperMap of add)."""
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        if len(x) != len(y):
            raise ValueError(f"For 'hyper_add', the sequences differ in length: {len(x)} and {len(y)}.")
        return type(x)(hyper_add(a, b) for a, b in zip(x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        if x.keys() != y.keys():
            raise ValueError("For 'hyper_add', the dicts have different keys.")
        return {k: hyper_add(x[k], y[k]) for k in x}
    return x + y


def put_(input, index, source, accumulate=False):
    """Write (or add, with accumulate) source's values at the flat positions `index` of input, in place."""
    from ..tensor_methods import _inplace
    flat = F.reshape(input, (-1,))
    idx = index.asnumpy().reshape(-1).astype(np.int64) if isinstance(index, Tensor) else np.asarray(index).reshape(-1)
    n = flat.shape[0]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"For 'put_', an index is out of range for a tensor of {n} elements.")
    coords = Tensor((idx % n).reshape(-1, 1))
    values = F.cast(F.reshape(source, (-1,)), input.dtype)
    if values.shape[0] != idx.size:
        raise ValueError(f"For 'put_', 'source' must hold as many elements as 'index' ({idx.size}), but got "
                         f"{values.shape[0]}.")
    out = F.tensor_scatter_add(flat, coords, values) if accumulate else F.tensor_scatter_update(flat, coords, values)
    return _inplace(input, F.reshape(out, tuple(input.shape)))
