"""The random stream shared by random ops and initializers, reproducible under `set_seed`.

Random numbers are drawn on the host from numpy's Philox generator so that both backends, PyNative and Graph
mode produce identical streams; the backend then receives the array.
"""
import numpy as np

from .. import context

_state = {"generator": None, "seed": None}


def _reset(seed):
    _state["generator"] = np.random.Generator(np.random.Philox(seed))
    _state["seed"] = seed


def default_generator():
    gen = _state["generator"]
    if gen is None:
        seed = context.get_seed()
        gen = np.random.Generator(np.random.Philox(seed)) if seed is not None else np.random.default_rng()
        _state["generator"] = gen
    return gen


def generator_for(seed=None, seed2=None):
    """An op-local generator when the op was given a seed, else the global stream."""
    if seed is None or (seed == 0 and not seed2):
        return default_generator()
    return np.random.Generator(np.random.Philox([int(seed), int(seed2 or 0)]))


def get_rng_state():
    return default_generator().bit_generator.state


def set_rng_state(state):
    default_generator().bit_generator.state = state


def _on_context(key, value):
    if key == "seed":
        _reset(value)


context.add_listener(_on_context)
