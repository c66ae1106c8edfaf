"""Integer and bit functions (`ops.gcd`, `ops.lcm`, `ops.population_count`) and `ops.nextafter`, one primitive
each (ops/defs/math_integer.py).

>>> import openspore as ms
>>> ms.ops.gcd(ms.Tensor([12, -18, 0]), ms.Tensor([8, 12, 5])).asnumpy().tolist()
[4, 6, 5]
>>> ms.ops.population_count(ms.Tensor([7, -1])).asnumpy().tolist()
[3, 64]
"""
from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor

__all__ = ["gcd", "lcm", "nextafter", "population_count"]


def _check(op, **tensors):
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(t).__name__}.")


def gcd(input, other):
    """The elementwise greatest common divisor of two integer tensors."""
    _check("gcd", input=input, other=other)
    return PRIMITIVES["Gcd"]()(input, other)


def lcm(input, other):
    """The elementwise least common multiple of two integer tensors."""
    _check("lcm", input=input, other=other)
    return PRIMITIVES["Lcm"]()(input, other)


def nextafter(input, other):
    """The next representable float after `input` toward `other`, elementwise."""
    _check("nextafter", input=input, other=other)
    return PRIMITIVES["NextAfter"]()(input, other)


def population_count(input_x):
    """The number of set bits in each element of an integer tensor (UInt8)."""
    _check("population_count", input_x=input_x)
    return PRIMITIVES["PopulationCount"]()(input_x)
