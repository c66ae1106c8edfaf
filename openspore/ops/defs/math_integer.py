"""Primitives: integer number theory and bit counting — Gcd, Lcm, PopulationCount — and NextAfter (the next
representable float). All are piecewise constant in their inputs, so none has a gradient.
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import broadcast_shape, check_dtype, check_same_dtype, check_tensor, rand_float


class _IntBinary(Primitive):
    input_names = ("x1", "x2")
    differentiable = False
    nondiff_reason = "defined on integers only"
    kinds = ("int",)

    def infer(self, x, y):
        check_tensor(self.name, "x1", x)
        check_tensor(self.name, "x2", y)
        check_dtype(self.name, "x1", x, self.kinds)
        check_same_dtype(self.name, self.input_names, x, y)
        return AbstractTensor(broadcast_shape(self.name, x, y), x.dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample(rng.integers(-30, 30, (3, 4)).astype(np.int32), rng.integers(-30, 30, (3, 4)).astype(np.int32))
        yield Sample(rng.integers(0, 60, (2, 3)).astype(np.int64), rng.integers(0, 60, (3,)).astype(np.int64),
                     name="broadcast")


@register
class Gcd(_IntBinary):
    """Gcd()(x1, x2): the greatest common divisor, elementwise (non-negative; gcd(0, 0) = 0)."""

    def numpy(self, np, x, y):
        return np.gcd(x, y)

    def torch(self, torch, x, y):
        return torch.gcd(x, y)


@register
class Lcm(_IntBinary):
    """Lcm()(x1, x2): the least common multiple, elementwise (non-negative; 0 when either is 0)."""

    def numpy(self, np, x, y):
        return np.lcm(x, y)

    def torch(self, torch, x, y):
        return torch.lcm(x, y)


@register
class NextAfter(_IntBinary):
    """NextAfter()(x1, x2): the next representable float after x1 in the direction of x2, elementwise."""
    nondiff_reason = "a step to the neighbouring float: piecewise constant"
    kinds = ("float",)

    def numpy(self, np, x, y):
        return np.nextafter(x, y)

    def torch(self, torch, x, y):
        return torch.nextafter(x, y)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (3, 4)))
        yield Sample(rand_float(rng, (3,), dtype=np.float64), np.array(0.0), name="toward_zero64")


@register
class PopulationCount(Primitive):
    """PopulationCount()(x): the number of set bits of each element (two's complement), as UInt8."""
    input_names = ("x",)
    differentiable = False
    nondiff_reason = "a bit count of integers"

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("int", "uint"))
        return AbstractTensor(x.shape, mstype.uint8)

    def numpy(self, np, x):
        bits = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        count = np.zeros(x.shape, np.uint8)
        for _ in range(8 * x.dtype.itemsize):
            count += (bits & 1).astype(np.uint8)
            bits = bits >> 1
        return count

    def torch(self, torch, x):
        width = 8 * x.element_size()
        count = torch.zeros(x.shape, dtype=torch.uint8, device=x.device)
        for shift in range(width):  # torch's right shift is arithmetic, so mask each bit after shifting
            count += ((x >> shift) & 1).to(torch.uint8)
        return count

    @classmethod
    def samples(cls, rng):
        yield Sample(rng.integers(-1000, 1000, (3, 4)).astype(np.int32))
        yield Sample(rng.integers(0, 255, (5,)).astype(np.uint8), name="uint8")
        yield Sample(np.array([-1, 0, np.iinfo(np.int64).min], np.int64), name="extremes64")


_ALL = (Gcd, Lcm, NextAfter, PopulationCount)
not_exportable(NO_MINDIR, *_ALL, formats=("MINDIR",))
not_exportable(NO_ONNX, *_ALL, formats=("ONNX",))
