"""`mindspore.Generator` and `mindspore.default_generator`: random-number generator objects with a seed and a
state that can be saved and restored.

`default_generator` is the stream random ops and initializers draw from (the one `manual_seed` and `set_seed`
seed): saving its state and restoring it replays the same draws. A new `Generator()` is an independent stream with
its own seed and state (`numpy()` hands out its numpy generator to code that draws from it).

>>> import openspore as ms
>>> from openspore import ops
>>> state = ms.default_generator.manual_seed(5).get_state()
>>> first = ops.rand(2)
>>> _ = ms.default_generator.set_state(state)
>>> bool((ops.rand(2) == first).all())
True
"""
import json

import numpy as np

from .core import random as _random
from .core.tensor import Tensor


def _check_seed(seed, where):
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"For '{where}', 'seed' must be a non-negative int, but got {seed!r}.")
    return int(seed)


def _encode(seed, state):
    """(seed, numpy bit-generator state) → a uint8 Tensor (MindSpore's states are uint8 tensors too)."""
    def plain(value):
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, np.ndarray):
            return {"__array__": value.tolist(), "dtype": value.dtype.str}
        return value.item() if isinstance(value, np.generic) else value
    text = json.dumps({"seed": seed, "state": plain(state)})
    return Tensor(np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy())


def _decode(state, where):
    def typed(value):
        if isinstance(value, dict) and "__array__" in value:
            return np.array(value["__array__"], dtype=value["dtype"])
        if isinstance(value, dict):
            return {k: typed(v) for k, v in value.items()}
        return value
    data = state.asnumpy() if hasattr(state, "asnumpy") else np.asarray(state)
    try:
        decoded = json.loads(np.asarray(data, dtype=np.uint8).tobytes().decode("utf-8"))
        return int(decoded["seed"]), typed(decoded["state"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ValueError(f"For '{where}', 'state' must be a uint8 Tensor returned by get_state().") from None


def _bit_generator(bit_state, where):
    """A numpy bit generator of the kind the state names (Philox when seeded, PCG64 when never seeded)."""
    kind = getattr(np.random, str(bit_state.get("bit_generator", "")), None)
    if not (isinstance(kind, type) and issubclass(kind, np.random.BitGenerator)):
        raise ValueError(f"For '{where}', the state names no numpy bit generator.")
    bit_generator = kind()
    bit_generator.state = bit_state
    return bit_generator


class Generator:
    """`Generator()`: an independent random stream. `manual_seed(seed)` and `set_state(state)` return the
    generator; `seed()` reseeds from fresh entropy and returns the seed; `initial_seed()`; `get_state()`."""

    def __init__(self):
        self._seed = 0
        self._gen = np.random.Generator(np.random.Philox(0))

    def manual_seed(self, seed):
        self._seed = _check_seed(seed, "Generator.manual_seed")
        self._gen = np.random.Generator(np.random.Philox(self._seed))
        return self

    def seed(self):
        value = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(value)
        return value

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return _encode(self._seed, self._gen.bit_generator.state)

    def set_state(self, state):
        seed, bit_state = _decode(state, "Generator.set_state")
        self._seed = seed
        self._gen = np.random.Generator(_bit_generator(bit_state, "Generator.set_state"))
        return self

    def numpy(self):
        """The numpy Generator this stream draws from."""
        return self._gen


class _DefaultGenerator(Generator):
    """The global stream of random ops and initializers (core/random.py), seen as a Generator."""

    def __init__(self):  # the state lives in core/random.py, shared with every random op
        super().__init__()

    def manual_seed(self, seed):
        _random._reset(_check_seed(seed, "Generator.manual_seed"))
        return self

    def initial_seed(self):
        return _random._state["seed"] if _random._state["seed"] is not None else 0

    def get_state(self):
        return _encode(self.initial_seed(), _random.get_rng_state())

    def set_state(self, state):
        seed, bit_state = _decode(state, "Generator.set_state")
        _random._state["generator"] = np.random.Generator(_bit_generator(bit_state, "Generator.set_state"))
        _random._state["seed"] = seed
        return self

    def numpy(self):
        return _random.default_generator()


default_generator = _DefaultGenerator()
