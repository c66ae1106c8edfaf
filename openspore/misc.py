"""Top-level MindSpore functions that belong to no subsystem: the default generator's seed (`manual_seed`,
`seed`, `initial_seed`, `get_rng_state`, `set_rng_state`), `is_tensor`, `frombuffer`, `synchronize`,
`set_deterministic`, `run_check`.

>>> import openspore as ms
>>> ms.manual_seed(7); ms.initial_seed()
7
>>> ms.is_tensor(ms.Tensor([1])), ms.is_tensor([1])
(True, False)
"""
import numpy as np

from . import context
from .common import dtype as mstype
from .core import random as _random
from .core.tensor import Tensor

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "is_tensor", "frombuffer",
           "synchronize", "set_deterministic", "run_check"]


def manual_seed(seed):
    """Seed the default random generator (random ops and initializers) without changing `get_seed()`."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"For 'manual_seed', 'seed' must be a non-negative int, but got {seed!r}.")
    _random._reset(int(seed))


def seed():
    """Seed the default generator from fresh entropy; returns the seed used."""
    value = int(np.random.SeedSequence().entropy % (2 ** 63))
    _random._reset(value)
    return value


def initial_seed():
    """The seed the default generator was last seeded with (0 when never seeded)."""
    return _random._state["seed"] if _random._state["seed"] is not None else 0


def get_rng_state():
    """The default generator's state (pass it to `set_rng_state` to replay the same draws)."""
    return _random.get_rng_state()


def set_rng_state(state):
    """Restore a state from `get_rng_state`."""
    _random.set_rng_state(state)


def is_tensor(obj):
    """Whether obj is a Tensor (a Parameter is one)."""
    return isinstance(obj, Tensor)


def frombuffer(buffer, dtype, count=-1, offset=0):
    """A 1-D Tensor over the bytes of `buffer` interpreted as `dtype` (copied)."""
    np_dtype = mstype.to_dtype(dtype, "frombuffer").np_dtype
    return Tensor(np.frombuffer(buffer, dtype=np_dtype, count=count, offset=offset).copy())


def synchronize():
    """Wait for queued device work (CUDA under the torch backend; nothing is queued on the CPU)."""
    try:
        import torch
    except ImportError:
        return
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def set_deterministic(deterministic):
    """Ask for deterministic kernels (recorded as the context's `deterministic`: 'ON' or 'OFF')."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"For 'set_deterministic', the argument must be a bool, but got {deterministic!r}.")
    context.set_context(deterministic="ON" if deterministic else "OFF")


def run_check():
    """Check the installation with one multiplication, printing MindSpore's messages."""
    from . import ops
    from .version import __version__
    print("MindSpore version: ", __version__)
    x = Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    result = ops.mul(x, x).asnumpy()
    if not np.array_equal(result, np.array([1.0, 4.0, 9.0, 16.0], np.float32)):
        raise RuntimeError(f"The result of multiplication calculation is wrong: {result.tolist()}.")
    target = "GPU" if context.get_context("device_target") == "GPU" else "CPU"
    print(f"The result of multiplication calculation is correct, MindSpore has been installed on platform "
          f"[{target}] successfully!")
