"""Base classes of data transforms: callable on numpy arrays (eagerly) and usable in `Dataset.map`."""
import numpy as np

from .. import config
from ..engine.init_record import Recorded


def to_numpy(value):
    """Tensors and lists become numpy arrays; numpy arrays and Pillow images pass through."""
    if isinstance(value, np.ndarray) or _is_pil(value):
        return value
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if isinstance(value, (bytes, bytearray)):
        return np.frombuffer(value, dtype=np.uint8)
    return np.asarray(value)


def _is_pil(value):
    return type(value).__module__.startswith("PIL.")


def rng():
    """The generator random transforms draw from (seeded by `dataset.config.set_seed`)."""
    return config._op_random()


class TensorOperation(Recorded):
    """Base of every transform: `op(*columns)` → one array or a tuple of arrays."""

    def __call__(self, *input_tensor_list):
        if not input_tensor_list:
            raise TypeError(f"For '{type(self).__name__}', at least one input is required.")
        return self._execute(*(to_numpy(x) for x in input_tensor_list))

    def _execute(self, *args):
        raise NotImplementedError

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


def not_random(function):
    """`not_random(function)`: mark a Python transform as deterministic (`function.random = False`), so that a map
    using it may sit below a `DatasetCache` (a cache replays rows, which is only right for deterministic work).

    >>> @not_random
    ... def double(x):
    ...     return x * 2
    >>> double.random
    False
    """
    if not callable(function):
        raise TypeError(f"For 'not_random', the argument must be callable, but got {type(function).__name__}.")
    function.random = False
    return function


class PyTensorOperation(TensorOperation):
    """Base of transforms written in Python (all of them here); kept as MindSpore's public name."""


def run_chain(operations, args):
    """Apply operations in order; a tuple result becomes the next operation's positional inputs."""
    for op in operations:
        out = op(*args)
        args = out if isinstance(out, tuple) else (out,)
    return args[0] if len(args) == 1 else args


def check_transforms(transforms, where):
    if not isinstance(transforms, (list, tuple)) or not transforms:
        raise TypeError(f"For '{where}', 'transforms' must be a non-empty list of callables, but got {transforms!r}.")
    for t in transforms:
        if not callable(t):
            raise TypeError(f"For '{where}', every transform must be callable, but got {type(t).__name__}.")
    return list(transforms)


def check_prob(prob, where):
    if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
        raise ValueError(f"For '{where}', 'prob' must be a number in [0, 1], but got {prob!r}.")
    return float(prob)
